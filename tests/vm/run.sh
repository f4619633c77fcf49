#!/bin/sh
# tests/vm/run.sh - the VM test matrix (make check-vm).
#
#   run.sh BUILDDIR SRCDIR
#
# Boots Debian's own kernel (linux-image-amd64's dependency, fetched with
# apt-get download and unpacked with dpkg-deb, installed nowhere) under
# qemu-system-x86_64 with software emulation, into an initramfs holding
# busybox, the freshly built cordon, cordon-helper (and its setuid
# build), payload and test programs and the shared libraries they need.  tests/vm/matrix lists the
# configurations; lines with the same kernel command line share one boot.
# Every line's result comes back on the serial console and is printed as
#   PASS: vm/<config> <program> <tcase>   (or FAIL:, SKIP:)
# followed by "N passed, N failed, N skipped".  A guest that hangs is
# killed after CORDON_VM_TIMEOUT seconds (300) and fails its lines.
#
# Environment: CORDON_VM_CACHE (kernel cache, default ~/.cache/cordon-vm),
# CORDON_VM_TIMEOUT, CORDON_VM_ONLY (a config name: run only that one),
# CORDON_VM_MATRIX (another matrix file).
# Exit: 0 all passed, 1 a failure, 77 a tool is missing (skipped, loudly).
set -eu
builddir=$(cd "$1" && pwd)
srcdir=$(cd "$2" && pwd)
cache=${CORDON_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cordon-vm}
timeout_s=${CORDON_VM_TIMEOUT:-300}
matrix=${CORDON_VM_MATRIX:-$srcdir/tests/vm/matrix}
# Our programs (with the setuid-capable helper build, which the
# normal priv-mode none helper is not), and every test program the
# matrix names.
progs="cordon cordon-helper tests/cordon-helper-setuid tests/payload $(grep -v '^[[:space:]]*\(#\|$\)' \
	"$matrix" | awk '{print "tests/" $4}' | sort -u | tr '\n' ' ')"

skip() { echo "SKIP: $*"; exit 77; }
for t in qemu-system-x86_64 busybox dpkg-deb apt-get ldd timeout; do
	command -v $t >/dev/null 2>&1 ||
		skip "$t is missing (apt-get install qemu-system-x86 busybox-static)"
done
busybox=$(command -v busybox)
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	skip "$busybox is not static (apt-get install busybox-static)"
for p in $progs; do
	[ -x "$builddir/$p" ] || { echo "$builddir/$p is not built"; exit 99; }
done

# The kernel: Debian's current one, cached by package name.
mkdir -p "$cache"
if [ -n "${CORDON_VM_KERNEL:-}" ]; then
	kernel=$CORDON_VM_KERNEL
else
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -n 1)
	[ -n "$pkg" ] || skip "apt-cache knows no linux-image-amd64 (apt-get update?)"
	kernel=$(ls "$cache/$pkg"/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
	if [ -z "$kernel" ]; then
		echo "fetching $pkg into $cache"
		(cd "$cache" && rm -f "$pkg"_*.deb &&
			apt-get download "$pkg" >/dev/null 2>&1) ||
			skip "apt-get download $pkg failed"
		rm -rf "$cache/$pkg"
		dpkg-deb -x "$cache/$pkg"_*.deb "$cache/$pkg"
		# The initramfs needs no module: keep the kernel and its config.
		rm -rf "$cache/$pkg"_*.deb "$cache/$pkg/lib" "$cache/$pkg/usr"
		kernel=$(ls "$cache/$pkg"/boot/vmlinuz-* | head -n 1)
	fi
fi
echo "kernel: $kernel"

work=$(mktemp -d "${TMPDIR:-/tmp}/cordon-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# The initramfs: busybox, our programs, their libraries (ldd, loader
# included) at the paths the loader looks in, the init and the matrix.
root=$work/root
mkdir -p "$root/bin" "$root/opt/cordon" "$root/lib" "$root/lib64" \
	"$root/usr" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
	"$root/etc" "$root/vm"
ln -s ../lib "$root/usr/lib"
ln -s ../bin "$root/usr/bin"
ln -s bin "$root/sbin"
cp "$busybox" "$root/bin/busybox"
cp "$srcdir/tests/vm/init" "$root/init"
chmod 755 "$root/init"
for p in $progs; do
	cp "$builddir/$p" "$root/opt/cordon/"
	ldd "$builddir/$p" | awk '/=> \//{print $3} /^\t\/[^ ]*ld-linux/{print $1}'
done | sort -u | while read -r lib; do
	case $lib in
	*/ld-linux*) dst=$root/lib64/$(basename "$lib") ;;
	*) mkdir -p "$root/lib/x86_64-linux-gnu"
	   dst=$root/lib/x86_64-linux-gnu/$(basename "$lib") ;;
	esac
	cp -L "$lib" "$dst"
done

# Boots: one per distinct kernel command line, in matrix order.
boots=$work/boots
grep -v '^[[:space:]]*\(#\|$\)' "$matrix" | while read -r config cmdline rest; do
	[ -z "${CORDON_VM_ONLY:-}" ] || [ "$CORDON_VM_ONLY" = "$config" ] ||
		continue
	echo "$cmdline"
done | awk '!seen[$0]++' >"$boots"
n=0
while read -r cmdline; do
	n=$((n + 1))
	grep -v '^[[:space:]]*\(#\|$\)' "$matrix" |
	while read -r config cl user prog tcase env; do
		[ "$cl" = "$cmdline" ] || continue
		[ -z "${CORDON_VM_ONLY:-}" ] || [ "$CORDON_VM_ONLY" = "$config" ] ||
			continue
		echo "$config $user $prog $tcase ${env:--}"
	done >"$root/vm/boot-$n"
done <"$boots"
(cd "$root" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null) \
	>"$work/initramfs.cpio"
echo "initramfs: $(du -k "$work/initramfs.cpio" | cut -f1) KiB, $n boot(s)"

# Software emulation: a /dev/kvm that exists need not work (on the CI
# machines a KVM guest hangs after the BIOS).  CORDON_VM_KVM=1 asks for
# KVM first, then emulation (-accel may be given twice, tried in order).
accel="-accel tcg"
[ -n "${CORDON_VM_KVM:-}" ] && [ -w /dev/kvm ] && accel="-accel kvm -accel tcg"
pass=0 fail=0 skipped=0 t0=$(date +%s) n=0
while read -r cmdline; do
	n=$((n + 1))
	extra=$(echo "$cmdline" | tr ',' ' ')
	[ "$extra" = - ] && extra=
	log=$builddir/tests/vm/boot-$n.log
	mkdir -p "$(dirname "$log")"
	echo "--- boot $n: $extra (log: $log)"
	b0=$(date +%s)
	rc=0
	timeout -k 10 "$timeout_s" qemu-system-x86_64 -nographic -no-reboot \
		$accel -m 1G -smp 2 -kernel "$kernel" \
		-initrd "$work/initramfs.cpio" -nic none \
		-append "console=ttyS0 panic=-1 quiet cordon_boot=$n $extra" \
		</dev/null >"$log" 2>&1 || rc=$?
	tr -d '\r' <"$log" >"$log.txt" && mv "$log.txt" "$log"
	echo "    $(( $(date +%s) - b0 )) s, qemu exit $rc"
	ended=$(grep -c "^CORDON-VM: END $n" "$log" || true)
	[ "$ended" -eq 1 ] || echo "    the guest did not finish (hung, timed out after ${timeout_s} s, or crashed): see $log"
	grep '^MEASURE: ' "$log" | sed "s/^/    /" || true
	while read -r config user prog tcase env; do
		r=$(grep "^CORDON-VM: $config $prog $tcase " "$log" | head -n 1 |
			cut -d' ' -f5-)
		case $r in
		PASS) echo "PASS: vm/$config $prog $tcase"; pass=$((pass + 1)) ;;
		SKIP) echo "SKIP: vm/$config $prog $tcase"
		      skipped=$((skipped + 1)) ;;
		*) echo "FAIL: vm/$config $prog $tcase (${r:-no result})"
		   fail=$((fail + 1))
		   sed -n "/^--- $config: $prog $tcase /,/^CORDON-VM: $config $prog $tcase /p" \
			"$log" | tail -n 40 | sed 's/^/    | /' ;;
		esac
	done <"$root/vm/boot-$n"
done <"$boots"
echo "matrix wall time: $(( $(date +%s) - t0 )) s"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
