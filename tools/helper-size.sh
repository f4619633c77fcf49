#!/bin/sh
# helper-size.sh - non-blank, non-comment lines of cordon-helper's own
# files, per file and in total (make helper-size).  DESIGN.md's target for
# the helper is under 2,500; the shared code it links (common/, policy/)
# is counted separately, for the record.
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

total=0
printf '%-28s %6s\n' "cordon-helper file" lines
for f in "$@"; do
	case $f in helper/*) ;; *) continue ;; esac
	n=$(sloc "$srcdir/$f")
	total=$((total + n))
	printf '%-28s %6d\n' "$f" "$n"
done
printf '%-28s %6d\n' "total (helper/)" "$total"

shared=0
for f in "$srcdir"/common/*.[ch] "$srcdir"/policy/*.[ch]; do
	[ -f "$f" ] || continue
	shared=$((shared + $(sloc "$f")))
done
printf '%-28s %6d\n' "also linked: common/, policy/" "$shared"
