#!/bin/sh
# python.sh - the Python binding's tests (tests/python/, python3 -m
# unittest) against the build tree's python/cordon.py, libcordon and
# cordon-helper, in make check.  Skips when configure set up no binding
# (no python3, or --without-python).  Ends with a Check-style summary
# line, as .ci/run counts.
set -u
build=${CORDON_BUILDDIR:-.}
src=${CORDON_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}

if [ -z "${CORDON_PYTHON:-}" ]; then
	echo "SKIP: python: the Python binding is not configured (no python3 found, or ./configure --without-python)"
	exit 77
fi
lib=$build/.libs/libcordon.so.0
for f in "$lib" "$build/python/cordon.py"; do
	[ -r "$f" ] || { echo "python: cannot read $f (run make)" >&2; exit 99; }
done
# The sanitizer build's libcordon needs the ASan runtime, which python3,
# not built with it, loads only when preloaded; the interpreter's own
# allocations left at exit are not cordon's to report, so no leak check
# in here (cordon-helper and the payloads are leak-checked by the C suites).
if [ -n "${CORDON_ASAN_RUNTIME:-}" ]; then
	LD_PRELOAD=$CORDON_ASAN_RUNTIME
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
	export LD_PRELOAD ASAN_OPTIONS
fi
log=$(mktemp "${TMPDIR:-/tmp}/cordon-python.XXXXXX") || exit 99
trap 'rm -f "$log"' EXIT

# No bytecode: neither the source tree (read-only under make distcheck)
# nor the build tree gets a __pycache__.
CORDON_LIBRARY=$lib PYTHONPATH=$build/python PYTHONDONTWRITEBYTECODE=1
export CORDON_LIBRARY PYTHONPATH PYTHONDONTWRITEBYTECODE
"$CORDON_PYTHON" -m unittest discover -v -s "$src/tests/python" \
    -p 'test_*.py' >"$log" 2>&1
rc=$?
cat "$log"

# unittest's "Ran N tests" and "FAILED (failures=F, errors=E, ...)".
ran=$(sed -n 's/^Ran \([0-9][0-9]*\) tests\{0,1\} in .*/\1/p' "$log")
failures=$(sed -n 's/^FAILED (.*failures=\([0-9][0-9]*\).*/\1/p' "$log")
errors=$(sed -n 's/^FAILED (.*errors=\([0-9][0-9]*\).*/\1/p' "$log")
ran=${ran:-0} failures=${failures:-0} errors=${errors:-0}
if [ "$rc" -ne 0 ] && [ $((failures + errors)) -eq 0 ]; then
	errors=1        # died before its summary
fi
pct=100
[ "$ran" -gt 0 ] && pct=$(( (ran - failures - errors) * 100 / ran ))
echo "$pct%: Checks: $ran, Failures: $failures, Errors: $errors"
exit "$rc"
