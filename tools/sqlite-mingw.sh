#!/bin/sh
# sqlite-mingw.sh OUT - SQLite for the Windows build (x86_64-w64-mingw32),
# built from Debian's own source package of the version the Linux build
# links (libsqlite3-dev), since Debian ships no mingw libsqlite3.
#
# Leaves OUT/include/sqlite3.h, OUT/lib/libsqlite3.a and OUT/sqlite3.pc
# (for PKG_CONFIG_PATH), and OUT/SOURCE naming what it was built from.
#
# The source is fetched and verified by tools/sqlite-src.sh (Debian's
# source package, checked by apt and dpkg-source; no copy is kept in this
# repository), into OUT/src; its amalgamation is compiled here with
# mingw-w64.
#
# Needs: what sqlite-src.sh needs, and x86_64-w64-mingw32-gcc.
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
sh "$(dirname "$0")/sqlite-src.sh" "$out/src"
am=$out/src/amalgamation
mkdir -p "$out/include" "$out/lib"
cp "$am/sqlite3.h" "$out/include/"
"$MINGW_CC" -O2 -DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION \
    -c -o "$out/sqlite3.o" "$am/sqlite3.c"
rm -f "$out/lib/libsqlite3.a"
"$MINGW_AR" rcs "$out/lib/libsqlite3.a" "$out/sqlite3.o"
cat >"$out/sqlite3.pc" <<EOS
Name: SQLite
Description: SQL database engine, for x86_64-w64-mingw32 (tools/sqlite-mingw.sh)
Version: ${version%%-*}
Cflags: -I$out/include
Libs: -L$out/lib -lsqlite3
EOS
cp "$out/src/SOURCE" "$out/SOURCE"
rm -f "$out/sqlite3.o"
echo "sqlite-mingw: built $out/lib/libsqlite3.a from sqlite3 $version"
