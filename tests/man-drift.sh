#!/bin/sh
# man-drift.sh - the manual pages against the code (make check).
#
#   commands   the commands of cordon.1's SYNOPSIS against those that
#              `cordon help' lists and main() in broker/cli.c accepts;
#   options    every option `cordon help' lists and every one main()
#              takes as a first argument (--help, -h, --version) against
#              the .Fl options of cordon.1, both ways; and the help text
#              against broker/cli.c's long_opts, both ways;
#   keys       every key of policy/policy.c's keys[] against the
#              ".It Cm KEY" entries of cordon-policy.5's [ceilings],
#              [policy] and [profile] subsections, both ways;
#   self-test  the same comparisons on copies of the pages with one option
#              and one key taken out must report them missing and fail,
#              so a comparison that silently finds nothing fails too.
#
# Each difference is one line naming it.  Prints a Check-style summary
# line, as .ci/run counts.  The pages are the generated ones in the build
# tree; CORDON_MAN1 and CORDON_MAN5 name others (to try a broken page).
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
man1=${CORDON_MAN1:-$build/man/cordon.1}
man5=${CORDON_MAN5:-$build/man/cordon-policy.5}
cli_c=$src/broker/cli.c
policy_c=$src/policy/policy.c

scratch man-drift
for f in "$man1" "$man5" "$cli_c" "$policy_c"; do
	[ -r "$f" ] || { echo "man-drift: cannot read $f" >&2; exit 99; }
done

# compare WHAT WANT GOT MISSING-TEXT EXTRA-TEXT: sorted lists, one item a
# line; prints "WHAT: ITEM MISSING-TEXT" for each item of WANT not in GOT
# and "WHAT: ITEM EXTRA-TEXT" for each of GOT not in WANT (an empty text
# skips that direction).  Fails if it printed anything.
compare() {
	: >"$tmp/diff"
	[ -z "$4" ] || comm -23 "$2" "$3" | sed "s|^|  $1: |; s|\$| $4|" \
	    >>"$tmp/diff"
	[ -z "$5" ] || comm -13 "$2" "$3" | sed "s|^|  $1: |; s|\$| $5|" \
	    >>"$tmp/diff"
	cat "$tmp/diff"
	[ ! -s "$tmp/diff" ]
}

# --- what the code says -----------------------------------------------------
if ! "$cli" help >"$tmp/help" 2>"$tmp/help.err"; then
	echo "man-drift: '$cli help' failed:" >&2
	cat "$tmp/help.err" >&2
	exit 99
fi
# Options in the help text: every --word.
grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help" | sort -u >"$tmp/help.opts"
# The parser's options: the names of long_opts[].
sed -n 's/^[[:space:]]*{ "\([a-z0-9-]*\)", [a-z_]*_argument,.*/--\1/p' \
    "$cli_c" | sort -u >"$tmp/parser.opts"
# What main() compares its first argument with: commands, and the dashed
# ones (--help, -h, --version).
awk '/^main\(/ { m = 1 } m { print } m && /^}/ { exit }' "$cli_c" |
    grep -o 'strcmp(argv\[1\], "[^"]*")' |
    sed 's/.*"\(.*\)")/\1/' | sort -u >"$tmp/main.words"
grep -- '^-' "$tmp/main.words" >"$tmp/main.opts"
sort -u "$tmp/help.opts" "$tmp/main.opts" >"$tmp/code.opts"
# Commands: what follows "cordon" on the help's usage lines, up to the
# first option or operand, and main()'s words that none of them starts.
sed -n 's/^\(usage:\)\{0,1\}[[:space:]]*cordon \([a-z][a-z ]*\).*/\2/p' \
    "$tmp/help" | sed 's/[[:space:]]*$//; s/ [A-Z].*//' |
    sort -u >"$tmp/help.cmds"
{
	cat "$tmp/help.cmds"
	grep -v -- '^-' "$tmp/main.words" | while read -r w; do
		grep -q "^$w\( \|\$\)" "$tmp/help.cmds" || echo "$w"
	done
} | sort -u >"$tmp/code.cmds"
# The policy keys: "[section] key" from keys[].
sed -n 's/^[[:space:]]*{ "\([a-z_]*\)", SEC_\([A-Z]*\),.*/[\2] \1/p' \
    "$policy_c" | tr 'A-Z' 'a-z' | sort -u >"$tmp/code.keys"

for f in help.opts parser.opts code.cmds code.keys; do
	if [ ! -s "$tmp/$f" ]; then
		echo "man-drift: found no entries for $f: has the source changed shape?" >&2
		exit 99
	fi
done

# --- what the pages say ----------------------------------------------------
# page_opts PAGE: every option an Fl macro names, on any macro line.
page_opts() {
	awk '
	/^\./ {
		gsub(/\\-/, "-")
		for (i = 1; i < NF; i++) {
			if ($i != "Fl" && $i != ".Fl")
				continue
			a = $(i + 1)
			if (a ~ /^-[a-z][a-z0-9-]*$/ || a ~ /^[a-z][a-z0-9-]*$/)
				print "-" a
		}
	}' "$1" | sort -u
}
# page_cmds PAGE: the Cm words of each SYNOPSIS line that starts with Nm.
page_cmds() {
	awk '
	/^\.Sh / { syn = ($2 == "SYNOPSIS") ; next }
	syn && /^\.Nm/ { want = 1; next }
	syn && want && /^\.Cm / { sub(/^\.Cm /, ""); print; want = 0; next }
	{ want = 0 }' "$1" | sort -u
}
# page_keys PAGE: "[section] key" for each ".It Cm key" in the
# subsection whose title names [section].
page_keys() {
	awk '
	/^\.S[hs] / {
		sec = ""
		if ($1 == ".Ss" && match($0, /\[[a-z]+\]/))
			sec = substr($0, RSTART, RLENGTH)
		next
	}
	sec != "" && /^\.It Cm / { print sec " " $3 }' "$1" | sort -u
}

# check_opts PAGE: the page's options against the code's.
check_opts() {
	page_opts "$1" >"$tmp/page.opts"
	compare "$(basename "$1")" "$tmp/code.opts" "$tmp/page.opts" \
	    "is not documented (cordon accepts it)" \
	    "is documented but cordon does not accept it"
}
check_keys() {
	page_keys "$1" >"$tmp/page.keys"
	compare "$(basename "$1")" "$tmp/code.keys" "$tmp/page.keys" \
	    "is not documented (policy.c accepts it)" \
	    "is documented but policy.c does not accept it"
}

# --- the checks ------------------------------------------------------------
echo "cordon help vs broker/cli.c long_opts:"
compare "cordon help" "$tmp/parser.opts" "$tmp/help.opts" \
    "is not listed (broker/cli.c accepts it)" ""
rc=$?
# Every option the help lists must be one the parser (or main()) takes.
sort -u "$tmp/parser.opts" "$tmp/main.opts" >"$tmp/accepted.opts"
compare "cordon help" "$tmp/accepted.opts" "$tmp/help.opts" "" \
    "is listed but broker/cli.c does not accept it" || rc=1
result "cordon help lists exactly the options broker/cli.c accepts" $rc

echo "$(basename "$man1") SYNOPSIS vs cordon's commands:"
page_cmds "$man1" >"$tmp/page.cmds"
compare "$(basename "$man1")" "$tmp/code.cmds" "$tmp/page.cmds" \
    "is not in the SYNOPSIS (cordon has it)" \
    "is in the SYNOPSIS but cordon does not have it"
rc=$?	# before any $(...) below resets it
result "$(basename "$man1") shows every command, and no other" $rc

echo "$(basename "$man1") vs the options of cordon:"
check_opts "$man1"
rc=$?
result "$(basename "$man1") documents every option, and no other" $rc

echo "$(basename "$man5") vs the keys of policy/policy.c:"
check_keys "$man5"
rc=$?
result "$(basename "$man5") documents every policy and profile key, and no other" $rc

# cordon_session_open(3): its .Fn names against cordon.h's cordon_session_*.
man3=${CORDON_MAN3:-$build/man/cordon_session_open.3}
echo "$(basename "$man3") vs the cordon_session_ functions of cordon.h:"
sed -n 's/^[a-z].*[ *]\(cordon_session_[a-z_]*\)(.*/\1/p' \
    "$src/broker/cordon.h" | sort -u >"$tmp/code.session"
sed -n 's/^\.Fn \(cordon_session_[a-z_]*\) .*/\1/p' "$man3" |
    sort -u >"$tmp/page.session"
if [ ! -s "$tmp/code.session" ]; then
	echo "  found no cordon_session_ function in cordon.h" >&2
	rc=1
else
	compare "$(basename "$man3")" "$tmp/code.session" "$tmp/page.session" \
	    "is not in the SYNOPSIS (cordon.h declares it)" \
	    "is in the SYNOPSIS but cordon.h does not declare it"
	rc=$?
fi
result "$(basename "$man3") shows every session function, and no other" $rc

# The comparisons must see a removal: take --disk and max_cpu out.
echo "self-test: the pages without --disk and without max_cpu:"
grep -v 'Fl -disk' "$man1" >"$tmp/cordon.1"
out=$(check_opts "$tmp/cordon.1")
st=$?
echo "$out"
case $st:$out in
0:*) echo "  the page without --disk passed"; rc=1 ;;
*"--disk is not documented"*) rc=0 ;;
*) echo "  --disk taken out of the page was not reported"; rc=1 ;;
esac
result "self-test: an option missing from the page is reported" $rc
grep -v '^\.It Cm max_cpu' "$man5" >"$tmp/cordon-policy.5"
out=$(check_keys "$tmp/cordon-policy.5")
st=$?
echo "$out"
case $st:$out in
0:*) echo "  the page without max_cpu passed"; rc=1 ;;
*"[ceilings] max_cpu is not documented"*) rc=0 ;;
*) echo "  max_cpu taken out of the page was not reported"; rc=1 ;;
esac
result "self-test: a key missing from the page is reported" $rc

summary
