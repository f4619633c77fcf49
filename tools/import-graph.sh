#!/bin/sh
# import-graph.sh - the file-level dependency graph of broker/, read from
# the objects the build made: file A depends on file B when A's object
# needs (nm: undefined) a symbol that B's object defines.  Prints one
# line per edge with the symbols behind it, then every cycle; exits 1 if
# there is a cycle, 2 if an object is missing (build first).  It also
# holds common/ to knowing nothing of the broker: a common/ file that
# includes a broker/ header is reported like a cycle.
#
#   import-graph.sh [BUILDDIR [SRCDIR]]      (make import-graph)
#
# Under make check (tests/, CORDON_BUILDDIR and CORDON_SRCDIR set) it is
# the test that keeps the broker's layers free of cycles (HACKING.md).
set -eu
builddir=${1:-${CORDON_BUILDDIR:-.}}
srcdir=${2:-${CORDON_SRCDIR:-$builddir}}
NM=${NM:-nm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The object of broker/NAME.c, whatever automake or libtool called it:
# NAME.o, or TARGET-NAME.o, in broker/ or broker/.libs/.
object_of() {
	for o in "$builddir/broker/$1.o" "$builddir"/broker/.libs/*-"$1".o \
	    "$builddir"/broker/*-"$1".o; do
		if [ -f "$o" ]; then
			printf '%s\n' "$o"
			return 0
		fi
	done
	return 1
}

: >"$tmp/def"
: >"$tmp/undef"
for src in "$srcdir"/broker/*.c; do
	name=$(basename "$src")
	if ! obj=$(object_of "${name%.c}"); then
		# Another OS's file (plat.h, cli_plat.h, Makefile.am's lists).
		case $name in plat_*.c | *_win.c | *_posix.c | absent.c) continue ;; esac
		echo "import-graph: no object for broker/$name under" \
		    "$builddir (run make first)" >&2
		exit 2
	fi
	"$NM" -g --defined-only "$obj" | awk -v f="$name" \
	    'NF == 3 { print f, $3 }' >>"$tmp/def"
	"$NM" -u "$obj" | awk -v f="$name" '{ print f, $NF }' >>"$tmp/undef"
done

# common/ is below the broker: none of its files includes a broker/ header.
status=0
for h in "$srcdir"/broker/*.h; do
	hn=$(basename "$h")
	for f in "$srcdir"/common/*.[ch]; do
		if grep -q "^#include \"$hn\"" "$f"; then
			echo "common/$(basename "$f") includes broker/$hn:" \
			    "common/ must not know the broker" >&2
			status=1
		fi
	done
done

# Edges (caller callee symbol...), then the elementary cycles, each once:
# from its smallest file, through files greater than that one only.
awk '
FNR == NR { owner[$2] = $1; next }
($2 in owner) && owner[$2] != $1 {
	k = $1 SUBSEP owner[$2]
	if (k in syms)
		syms[k] = syms[k] ", " $2
	else
		syms[k] = $2
	files[$1] = 1
	files[owner[$2]] = 1
}
function walk(start, at, path,    k, pair, to) {
	onpath[at] = 1
	for (k in syms) {
		split(k, pair, SUBSEP)
		if (pair[1] != at)
			continue
		to = pair[2]
		if (to == start)
			cycle[++ncycles] = path " -> " to
		else if (to > start && !(to in onpath))
			walk(start, to, path " -> " to)
	}
	delete onpath[at]
}
END {
	n = 0
	for (k in syms) {
		split(k, pair, SUBSEP)
		line[++n] = pair[1] " -> " pair[2] ": " syms[k]
	}
	# A fixed order, so that two graphs can be compared with diff.
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && line[j - 1] > line[j]; j--) {
			t = line[j]; line[j] = line[j - 1]; line[j - 1] = t
		}
	print "broker/ import graph (caller -> callee: functions it calls there)"
	for (i = 1; i <= n; i++)
		print "  " line[i]
	ncycles = 0
	for (f in files)
		walk(f, f, f)
	for (i = 2; i <= ncycles; i++)
		for (j = i; j > 1 && cycle[j - 1] > cycle[j]; j--) {
			t = cycle[j]; cycle[j] = cycle[j - 1]; cycle[j - 1] = t
		}
	if (ncycles == 0) {
		print "no cycles"
		exit 0
	}
	print ncycles " cycle(s):"
	for (i = 1; i <= ncycles; i++)
		print "  " cycle[i]
	exit 1
}' "$tmp/def" "$tmp/undef" || status=1
exit $status
