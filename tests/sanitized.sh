#!/bin/sh
# sanitized.sh - runs one test of the --enable-sanitizers build and fails
# it if any process it started wrote a sanitizer report.
#
#   sanitized.sh TEST [ARG...]      (Makefile.am sets it as LOG_COMPILER)
#
# Every process of a test - the test itself, the cordon and cordon-helper
# it drives, the payload, Check's forked children - writes its ASan,
# LeakSanitizer or UBSan report to a file of its own in TEST.sanitizer/
# rather than to stderr.  Stderr is not enough: the broker reads the
# helper's stderr only as text and ignores the helper's exit status once
# the run has been torn down, so a leak report from the helper at exit
# would pass unseen.  A test that passes but left a report fails here, and
# the report is printed into its log.
set -u
test=$1
dir=${test}.sanitizer
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
rm -rf "$dir"
mkdir -p "$dir" || exit 99
# Runs as nobody (test_run's unprivileged case) must be able to report.
chmod 1777 "$dir" || exit 99

# Every error is fatal; leaks are errors; the checks that cost little more
# than the defaults are on.
ASAN_OPTIONS="log_path=$dir/report:detect_leaks=1:strict_string_checks=1"
ASAN_OPTIONS="$ASAN_OPTIONS:detect_stack_use_after_return=1"
ASAN_OPTIONS="$ASAN_OPTIONS:check_initialization_order=1:strict_init_order=1"
ASAN_OPTIONS="$ASAN_OPTIONS:${CORDON_EXTRA_ASAN_OPTIONS:-}"
UBSAN_OPTIONS="log_path=$dir/report:print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS UBSAN_OPTIONS

"$@"
status=$?

reports=$(find "$dir" -type f | sort)
if [ -n "$reports" ]; then
	for f in $reports; do
		echo "=== sanitizer report $f"
		cat "$f"
	done
	echo "sanitizers: $(echo "$reports" | wc -l) report(s) from processes of $test: FAIL"
	[ "$status" -eq 0 ] && status=1
else
	echo "sanitizers: no ASan, LSan or UBSan report from any process of $test"
fi
exit "$status"
