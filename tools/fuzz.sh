#!/bin/sh
# fuzz.sh - runs or merges the libFuzzer harnesses that `make fuzz-build`
# built.  Called by make fuzz / make fuzz-merge:
#
#   fuzz.sh run   OUT FUZZDIR SECONDS NAME...
#   fuzz.sh merge OUT FUZZDIR 0       NAME...
#
# run: each harness OUT/fuzz_NAME runs for SECONDS seconds, starting from
# FUZZDIR/corpus/NAME and FUZZDIR/regress/NAME; what it learns goes to
# OUT/corpus/NAME, never into the source tree.  A crash, leak, timeout or
# sanitizer report ends that harness and fails the run: the input is
# copied to FUZZDIR/regress/NAME/ (commit it with the fix: make check
# replays it from then on) and printed in hex and base64, so that it can
# be recovered from a CI log too.
# merge: minimises OUT/corpus/NAME into FUZZDIR/corpus/NAME.
# Prints one "PASS: fuzz NAME" or "FAIL: fuzz NAME" line per harness.
set -u
mode=$1 out=$2 fuzzdir=$3 seconds=$4
shift 4

failed=0
for t in "$@"; do
	bin=$out/fuzz_$t
	mkdir -p "$out/corpus/$t" "$out/artifacts"
	if [ "$mode" = merge ]; then
		"$bin" -merge=1 "$fuzzdir/corpus/$t" "$out/corpus/$t" \
		    >"$out/$t.merge.log" 2>&1 || { tail -n 20 "$out/$t.merge.log"; failed=1; }
		echo "fuzz $t: $(ls "$fuzzdir/corpus/$t" | wc -l) seeds after merge"
		continue
	fi
	seeds="$fuzzdir/corpus/$t"
	[ -d "$fuzzdir/regress/$t" ] && seeds="$seeds $fuzzdir/regress/$t"
	rm -f "$out/artifacts/$t-"*
	start=$(date +%s)
	# -timeout: one input taking 10 s is a hang; -rss_limit_mb: the
	# harnesses need little, so 2 GiB means a leak or a runaway allocation.
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" \
	    "$out/corpus/$t" $seeds >"$out/$t.log" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
	cov=$(grep -E '^#[0-9]+' "$out/$t.log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	if [ "$rc" -eq 0 ]; then
		echo "PASS: fuzz $t (${runs:-?} inputs in ${took} s, coverage ${cov:-?} edges, $(ls "$out/corpus/$t" | wc -l) inputs in its corpus)"
		continue
	fi
	failed=1
	echo "FAIL: fuzz $t (exit $rc after ${took} s); the harness said:"
	grep -v -E '^#[0-9]+|^INFO:|^\s*$' "$out/$t.log" | head -n 60
	for a in "$out/artifacts/$t-"*; do
		[ -f "$a" ] || continue
		name=$(basename "$a")
		name=${name#"$t"-}
		mkdir -p "$fuzzdir/regress/$t"
		cp "$a" "$fuzzdir/regress/$t/$name"
		echo "fuzz $t: reproducer kept as $fuzzdir/regress/$t/$name"
		echo "fuzz $t: rerun it with: $bin $fuzzdir/regress/$t/$name"
		echo "fuzz $t: its bytes (hex):"
		od -An -tx1 -v "$a" | head -n 64
		echo "fuzz $t: its bytes (base64):"
		base64 "$a" | head -n 64
	done
done
exit "$failed"
