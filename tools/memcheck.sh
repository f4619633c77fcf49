#!/bin/sh
# memcheck.sh - valgrind memcheck over the unit tests and over real runs
# of cordon and cordon-helper (make memcheck).
#
#   memcheck.sh VALGRIND BUILDDIR SRCDIR TEST...
#
# Every program valgrind watches - a unit test, the cordon broker, the
# cordon-helper it starts - writes its own log to BUILDDIR/tests/memcheck/
# (a fork that does not exec is not followed: --child-silent-after-fork);
# each must end with "ERROR SUMMARY: 0 errors", where definite, indirect
# and possible leaks count as errors.  The logs are read rather than the
# exit status alone because the broker does not pass the helper's exit
# status on once a run has been torn down.  The payloads themselves
# (tests/payload, /bin/*) are not traced: they are not cordon's code.
#
# Prints one "PASS: what" or "FAIL: what" line per check.
set -u
valgrind=$1 builddir=$2 srcdir=$3
shift 3

if ! command -v "$valgrind" >/dev/null; then
	echo "memcheck: $valgrind not found (apt-get install valgrind)" >&2
	exit 1
fi
logs=$builddir/tests/memcheck
rm -rf "$logs"
mkdir -p "$logs"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cordon-memcheck.XXXXXX")
trap 'chmod -R u+rwx "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
chmod 700 "$scratch"

vg() {
	"$valgrind" --error-exitcode=1 --leak-check=full \
	    --show-leak-kinds=definite,indirect,possible \
	    --errors-for-leak-kinds=definite,indirect,possible \
	    --child-silent-after-fork=yes --num-callers=30 \
	    --suppressions="$srcdir/tools/valgrind.supp" "$@"
}

failed=0
# check NAME WANT_STATUS GOT_STATUS: every log of NAME must be clean.
check() {
	name=$1 want=$2 got=$3 bad=
	n=0
	for l in "$logs/$name".*.log; do
		[ -f "$l" ] || continue
		n=$((n + 1))
		if ! grep -q 'ERROR SUMMARY: 0 errors' "$l"; then
			bad="$bad $l"
		fi
	done
	if [ "$got" -ne "$want" ] || [ -n "$bad" ] || [ "$n" -eq 0 ]; then
		echo "FAIL: memcheck $name (exit $got, want $want; $n process(es) checked)"
		for l in $bad; do
			echo "=== $l"
			cat "$l"
		done
		failed=$((failed + 1))
	else
		echo "PASS: memcheck $name ($n process(es) clean)"
	fi
}

# --- the unit tests, in one process each (CK_FORK=no) ---------------------
for t in "$@"; do
	name=$(basename "$t")
	(
		cd "$builddir" &&
		CK_FORK=no CORDON_FUZZ_DIR="$srcdir/tests/fuzz" \
		    vg --log-file="$logs/$name.%p.log" "./$t" >"$logs/$name.out" 2>&1
	)
	check "$name" 0 $?
done

# --- cordon and cordon-helper, on real runs -------------------------------
CORDON_HELPER=$builddir/cordon-helper
export CORDON_HELPER
payload=$builddir/tests/payload
trace=$scratch/trace.db
base=$scratch/wd
run() {
	name=$1 want=$2
	shift 2
	vg --trace-children=yes \
	    --trace-children-skip='*/payload,/bin/*,/usr/bin/*' \
	    --log-file="$logs/$name.%p.log" \
	    "$builddir/cordon" "$@" >"$logs/$name.out" 2>&1
	check "$name" "$want" $?
}
# valgrind keeps 12 fds for itself: it raises the soft RLIMIT_NOFILE by
# 12 and refuses a setrlimit whose hard limit is not exactly the soft
# limit it started with.  The helper (under valgrind, started by cordon
# under valgrind, so 12 above our soft limit) sets both limits to --nofile
# in the payload's child before exec, so the runs ask for exactly that.
soft=1024 hard=$(ulimit -H -n)
if [ "$hard" != unlimited ] && [ $((soft + 24)) -gt "$hard" ]; then
	soft=$((hard - 24))
fi
ulimit -S -n "$soft"
nofile=$((soft + 12))
opts="--trace=$trace --workdir-base=$base --nofile=$nofile"
# shellcheck disable=SC2086
{
	run run-exit 3 run $opts -- "$payload" exit 3
	run run-json-signal 143 run $opts --json -- "$payload" kill 15
	run run-wall-cap 124 run $opts --wall 1 -- "$payload" sleep 30
	run run-memory-cap 124 run $opts --memory 64M -- "$payload" alloc 256
	run run-cpu-cap 124 run $opts --cpu 0.5 -- "$payload" spinfork 2 10
	run run-not-found 127 run $opts -- /nonexistent/command
	run run-bad-flag 125 run --memory 12X -- /bin/true
	run run-env 0 run $opts -- "$payload" env
	run trace-list 0 trace list --trace="$trace" --json
	id=$("$builddir/cordon" trace list --trace="$trace" --limit 1 --json |
	    sed -n 's/.*"run_id": *"\([0-9a-f]*\)".*/\1/p' | head -n 1)
	run trace-show 0 trace show "${id:-none}" --trace="$trace" --json
	run trace-export 0 trace export --trace="$trace"
	run gc 0 gc --workdir-base="$base"
	run probe 0 probe
}
exit "$failed"
