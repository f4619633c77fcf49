#!/bin/sh
# sqlite-mingw.sh OUT - SQLite for the Windows build (x86_64-w64-mingw32),
# built from Debian's own source package of the version the Linux build
# links (libsqlite3-dev), since Debian ships no mingw libsqlite3.
#
# Leaves OUT/include/sqlite3.h, OUT/lib/libsqlite3.a and OUT/sqlite3.pc
# (for PKG_CONFIG_PATH), and OUT/SOURCE naming what it was built from.
#
# The source is named and verified, never a copy kept in this repository:
#   - `apt-get source sqlite3=VERSION`, VERSION being libsqlite3-dev's;
#   - with a private apt configuration under OUT holding one deb-src line
#     for the suites the machine's own Debian sources name: the machine's
#     /etc/apt is never changed;
#   - apt verifies the Sources index against the Debian archive keyring
#     and the .dsc against the index's checksum; dpkg-source -x then
#     checks every file the .dsc lists against the .dsc's checksums.
#     The .dsc's SHA-256 is printed and written to OUT/SOURCE.
# The amalgamation (sqlite3.c) is generated from that tree by its own
# build (tclsh, the host's cc), then compiled with mingw-w64.
#
# Needs: apt-get, dpkg-source, tclsh, cc, x86_64-w64-mingw32-gcc.
set -eu
out=$(mkdir -p "$1" && cd "$1" && pwd)
MINGW_CC=${MINGW_CC:-x86_64-w64-mingw32-gcc}
MINGW_AR=${MINGW_AR:-x86_64-w64-mingw32-ar}

version=$(dpkg-query -W -f='${Version}' libsqlite3-dev 2>/dev/null) || {
	echo "sqlite-mingw: libsqlite3-dev is not installed: its version names the source to build" >&2
	exit 1
}
if [ -f "$out/lib/libsqlite3.a" ] && [ -f "$out/SOURCE" ] &&
    grep -qx "version: $version" "$out/SOURCE"; then
	echo "sqlite-mingw: $out already holds sqlite3 $version"
	exit 0
fi

# The private apt configuration: the machine's suites, as deb-src.
apt=$out/apt
rm -rf "$apt" "$out/src"
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$out/src"
suites=$(sed -n 's/^Suites: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[ -n "$suites" ] && [ -n "$uri" ] || {
	echo "sqlite-mingw: no Debian suite found in /etc/apt/sources.list.d/debian.sources" >&2
	exit 1
}
cat >"$apt/sources.list" <<EOS
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suites main
EOS
# One of the suites named has this version; bookworm-security is added
# for a +debNNuN security release.
for s in $suites; do
	case $s in *-*) ;; *)
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${uri%/debian}/debian-security $s-security main" >>"$apt/sources.list" ;;
	esac
done
aptopts="-o Dir::Etc::SourceList=$apt/sources.list -o Dir::Etc::SourceParts=/nonexistent
    -o Dir::State::Lists=$apt/lists -o Dir::Cache::Archives=$apt/archives"
# shellcheck disable=SC2086
apt-get -qq $aptopts update
# shellcheck disable=SC2086
(cd "$out/src" && apt-get -qq $aptopts source --download-only "sqlite3=$version")
dsc=$(ls "$out/src"/sqlite3_*.dsc)
sum=$(sha256sum "$dsc" | cut -d' ' -f1)
echo "sqlite-mingw: $(basename "$dsc") sha256 $sum"
# dpkg-source checks the tarballs against the .dsc's checksums.
(cd "$out/src" && dpkg-source -x "$dsc" tree >/dev/null)

# The amalgamation, by the source's own build, on the host.
(cd "$out/src/tree" && ./configure --disable-tcl >/dev/null && make sqlite3.c >/dev/null)
mkdir -p "$out/include" "$out/lib"
cp "$out/src/tree/sqlite3.h" "$out/include/"
"$MINGW_CC" -O2 -DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION \
    -c -o "$out/src/sqlite3.o" "$out/src/tree/sqlite3.c"
rm -f "$out/lib/libsqlite3.a"
"$MINGW_AR" rcs "$out/lib/libsqlite3.a" "$out/src/sqlite3.o"
cat >"$out/sqlite3.pc" <<EOS
Name: SQLite
Description: SQL database engine, for x86_64-w64-mingw32 (tools/sqlite-mingw.sh)
Version: ${version%%-*}
Cflags: -I$out/include
Libs: -L$out/lib -lsqlite3
EOS
printf 'source: %s\nversion: %s\nsha256: %s\n' "$(basename "$dsc")" \
    "$version" "$sum" >"$out/SOURCE"
rm -rf "$out/src/tree" "$out/src/sqlite3.o"
echo "sqlite-mingw: built $out/lib/libsqlite3.a from sqlite3 $version"
