#!/bin/sh
# sqlite-src.sh OUT - SQLite's amalgamation (OUT/amalgamation/sqlite3.c
# and sqlite3.h) from Debian's own source package of the version the
# Linux build links (libsqlite3-dev), for the builds Debian ships no
# libsqlite3 for: tools/sqlite-mingw.sh (Windows) and
# tools/macos-cross.sh (macOS) compile it with their own compilers.
# OUT/SOURCE names what it came from.  Kept across runs: a second call
# for the same version does nothing.
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
# The amalgamation is generated from that tree by its own build (tclsh,
# the host's cc).
#
# Needs: apt-get, dpkg-source, tclsh, cc.
set -eu
out=$(mkdir -p "$1" && cd "$1" && pwd)

version=$(dpkg-query -W -f='${Version}' libsqlite3-dev 2>/dev/null) || {
	echo "sqlite-src: libsqlite3-dev is not installed: its version names the source to build" >&2
	exit 1
}
if [ -f "$out/amalgamation/sqlite3.c" ] && [ -f "$out/SOURCE" ] &&
    grep -qx "version: $version" "$out/SOURCE"; then
	echo "sqlite-src: $out already holds sqlite3 $version"
	exit 0
fi

# The private apt configuration: the machine's suites, as deb-src.
apt=$out/apt
rm -rf "$apt" "$out/src" "$out/amalgamation"
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$out/src"
suites=$(sed -n 's/^Suites: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[ -n "$suites" ] && [ -n "$uri" ] || {
	echo "sqlite-src: no Debian suite found in /etc/apt/sources.list.d/debian.sources" >&2
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
echo "sqlite-src: $(basename "$dsc") sha256 $sum"
# dpkg-source checks the tarballs against the .dsc's checksums.
(cd "$out/src" && dpkg-source -x "$dsc" tree >/dev/null)

# The amalgamation, by the source's own build, on the host.
(cd "$out/src/tree" && ./configure --disable-tcl >/dev/null && make sqlite3.c >/dev/null)
mkdir -p "$out/amalgamation"
cp "$out/src/tree/sqlite3.c" "$out/src/tree/sqlite3.h" "$out/amalgamation/"
printf 'source: %s\nversion: %s\nsha256: %s\n' "$(basename "$dsc")" \
    "$version" "$sum" >"$out/SOURCE"
rm -rf "$out/src/tree"
echo "sqlite-src: $out/amalgamation from sqlite3 $version"
