#!/bin/sh
# windows-build.sh SRCDIR OUT - the Windows build of the portable core:
# SQLite for x86_64-w64-mingw32 from Debian's source (tools/sqlite-mingw.sh,
# into OUT/sqlite), then a copy of SRCDIR's files (git ls-files: the tree
# as committed plus what is new, never its build products) configured
# with --host=x86_64-w64-mingw32 and built in OUT/tree.  .ci/run's
# windows-build stage; prints one PASS or FAIL line per step.
#
# What builds (Makefile.am, PLAT_WIN): libcordon, static (libcordon.a:
# the broker, the policy parser, common/), cordon.exe and
# cordon-helper.exe, both linked whole so they need only Windows' own
# DLLs.  Left out, and refused by name
# where asked for: the egress allow-list, --copy-in/--copy-out and
# `cordon gc` (broker/absent.c; README.md, "Windows").
set -u
src=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
fail() {
	echo "FAIL: windows build: $1"
	[ -f "$2" ] && tail -n 30 "$2"
	exit 1
}

if sh "$src/tools/sqlite-mingw.sh" "$out/sqlite" >"$out/sqlite.log" 2>&1; then
	echo "PASS: windows build: sqlite3 for mingw from $(sed -n 's/^source: //p' "$out/sqlite/SOURCE") (sha256 $(sed -n 's/^sha256: //p' "$out/sqlite/SOURCE"))"
else
	fail "sqlite3 from Debian's source package" "$out/sqlite.log"
fi

rm -rf "$out/tree"
mkdir -p "$out/tree"
(cd "$src" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) |
    tar -C "$out/tree" -xf - || fail "copying $src" /dev/null
cd "$out/tree" || exit 1
if ./autogen.sh >"$out/configure.log" 2>&1 &&
    PKG_CONFIG_PATH="$out/sqlite" ./configure --host=x86_64-w64-mingw32 \
    --enable-werror --enable-static --disable-shared \
    >>"$out/configure.log" 2>&1; then
	echo "PASS: windows build: ./configure --host=x86_64-w64-mingw32 (platform $(sed -n 's/^ *platform: *//p' "$out/configure.log"))"
else
	fail "./configure --host=x86_64-w64-mingw32" "$out/configure.log"
fi
if ! make -j2 >"$out/make.log" 2>&1; then
	fail "make" "$out/make.log"
fi
for f in cordon.exe cordon-helper.exe .libs/libcordon.a; do
	if [ -f "$f" ]; then
		echo "PASS: windows build: $f, warnings as errors ($(wc -c <"$f") bytes)"
	else
		fail "make built no $f" "$out/make.log"
	fi
done
# Nothing but Windows' own DLLs: no libwinpthread or libgcc to ship.
for f in cordon.exe cordon-helper.exe; do
	dlls=$(x86_64-w64-mingw32-objdump -p "$f" |
	    sed -n 's/^.*DLL Name: //p' | tr '\n' ' ')
	case $(echo "$dlls" | tr 'A-Z' 'a-z') in
	*winpthread*|*libgcc*|*libssp*|*sqlite*) fail "$f needs $dlls" /dev/null ;;
	esac
	echo "PASS: windows build: $f imports only $dlls"
done
