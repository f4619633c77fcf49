# lib.sh - what the shell tests share (sourced, never run): where the
# source, the build and the CLI are, a private scratch directory removed
# on exit, and Check-style result lines that .ci/run counts.
#
#   . "$(dirname "$0")/lib.sh"; scratch NAME; result TEXT STATUS...; summary

src=${CORDON_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${CORDON_BUILDDIR:-.}
cli=${CORDON_BIN:-$build/cordon}
checks=0 failures=0

# scratch NAME: $tmp, a new 0700 directory under $TMPDIR, gone at exit.
scratch() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cordon-$1.XXXXXX") || exit 99
	trap 'rm -rf "$tmp"' EXIT
	chmod 700 "$tmp"
}

# result NAME STATUS: one PASS/FAIL line per check.
result() {
	checks=$((checks + 1))
	if [ "$2" -eq 0 ]; then
		echo "PASS: $1"
	else
		echo "FAIL: $1"
		failures=$((failures + 1))
	fi
}

# summary: the closing line, and the script's status (0: no failure).
summary() {
	pct=$(( checks == 0 ? 0 : (checks - failures) * 100 / checks ))
	echo "$pct%: Checks: $checks, Failures: $failures, Errors: 0"
	[ "$checks" -gt 0 ] && [ "$failures" -eq 0 ]
}
