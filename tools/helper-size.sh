#!/bin/sh
# helper-size.sh - non-blank, non-comment lines of cordon-helper's trusted
# set, per file and in total (make helper-size): helper/ itself, and each
# file of common/ and policy/ it is built from (Makefile.am lists them in
# HELPER_SHARED_SOURCES; nothing else is linked from this repository).
# DESIGN.md's targets: helper/ under 2,500, the whole set under 4,000.
#
#   helper-size.sh SRCDIR FILE...     (FILE: cordon_helper_SOURCES)
set -eu
srcdir=$1
shift

# Strips /* */ and // comments, minding string and character literals,
# then counts the lines with anything but white space left.
sloc() {
	awk '
	{
		out = ""; i = 1; n = length($0)
		while (i <= n) {
			c = substr($0, i, 1); d = substr($0, i, 2)
			if (incomment) {
				if (d == "*/") { incomment = 0; i += 2 } else i++
				continue
			}
			if (quote != "") {
				out = out c
				if (c == "\\") { out = out substr($0, i + 1, 1); i += 2; continue }
				if (c == quote) quote = ""
				i++; continue
			}
			if (d == "/*") { incomment = 1; i += 2; continue }
			if (d == "//") break
			if (c == "\"" || c == "'\''") quote = c
			out = out c; i++
		}
		quote = ""
		if (out ~ /[^ \t\r]/) lines++
	}
	END { print lines + 0 }' "$1"
}

# count DIRS FILE...: prints each file in one of DIRS (space-separated,
# e.g. "common policy") with its count; leaves the sum in $total.
count() {
	dirs=$1
	shift
	total=0
	for f in "$@"; do
		case " $dirs " in *" ${f%%/*} "*) ;; *) continue ;; esac
		n=$(sloc "$srcdir/$f")
		total=$((total + n))
		printf '%-28s %6d\n' "$f" "$n"
	done
}

printf '%-28s %6s\n' "cordon-helper file" lines
count helper "$@"
own=$total
printf '%-28s %6d\n' "total (helper/)" "$own"
echo
printf '%-28s %6s\n' "linked from common/, policy/" lines
count 'common policy' "$@"
shared=$total
printf '%-28s %6d\n' "total (linked)" "$shared"
echo
printf '%-28s %6d\n' "trusted set (helper/ + linked)" $((own + shared))
