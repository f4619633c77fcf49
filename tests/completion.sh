#!/bin/sh
# completion.sh - drives the bash completion (completion/cordon, as built)
# the way bash does: sources it in `bash -c', sets COMP_WORDS and
# COMP_CWORD, calls _cordon and reads COMPREPLY (make check).
#
# Checks the subcommands, each subcommand's options against what
# `cordon help' lists for it, --backend and --kind values, an option
# prefix, --require lists, profile names from a profiles directory, and
# run ids for `trace show' from a real trace.  Prints one PASS/FAIL line
# per check and a Check-style summary line, as .ci/run counts.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
comp=${CORDON_COMPLETION:-$build/completion/cordon}

if ! command -v bash >/dev/null; then
	echo "SKIP: completion: no bash here"
	exit 77
fi
[ -r "$comp" ] || { echo "completion: cannot read $comp" >&2; exit 99; }
scratch completion

# complete WORD...: COMPREPLY, sorted, one per line, for the command line
# WORD... with the cursor at the end of the last WORD ("" for a new word).
complete() {
	bash --norc --noprofile -c '
		comp=$1; shift
		. "$comp" || exit 99
		complete -p cordon >/dev/null || exit 99
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_cordon cordon "${COMP_WORDS[COMP_CWORD]}" \
		    "${COMP_WORDS[COMP_CWORD - 1]}" || exit 99
		if ((${#COMPREPLY[@]})); then printf "%s\n" "${COMPREPLY[@]}"; fi
	' completion "$comp" "$@" | LC_ALL=C sort
}

# expect NAME "WANTED..." WORD...: the completions must be exactly these.
expect() {
	_name=$1 _want=$2
	shift 2
	for _w in $_want; do echo "$_w"; done | LC_ALL=C sort >"$tmp/want"
	complete "$@" >"$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then
		result "$_name" 0
	else
		echo "  completing: $*"
		echo "  wanted: $(tr '\n' ' ' <"$tmp/want")"
		echo "  got:    $(tr '\n' ' ' <"$tmp/got")"
		result "$_name" 1
	fi
}

# --- what cordon help says --------------------------------------------------
"$cli" help >"$tmp/help" || { echo "completion: '$cli help' failed" >&2; exit 99; }
# help_opts PATTERN: the options of the usage line of that command.
help_opts() {
	grep -E "cordon $1( |\$)" "$tmp/help" | head -n 1 |
	    grep -o -- '--[a-z][a-z0-9-]*' | sort -u | tr '\n' ' '
}
# run's: every option from "run options:" to the next blank line.
run_opts=$(sed -n '/^run options:/,/^$/p' "$tmp/help" |
    grep -o -- '^ *--[a-z][a-z0-9-]*\|, --[a-z][a-z0-9-]*' |
    sed 's/^[ ,]*//' | sort -u | tr '\n' ' ')
# Commands: the first word after "cordon" on each usage line, and help.
cmds="$(sed -n 's/^\(usage:\)\{0,1\}[[:space:]]*cordon \([a-z]*\).*/\2/p' \
    "$tmp/help" | sort -u | tr '\n' ' ') help"
[ -n "$run_opts" ] || { echo "completion: no run options in cordon help" >&2; exit 99; }

# --- subcommands and options -------------------------------------------------
expect "subcommands" "$cmds" cordon ""
expect "subcommand prefix" "probe policy" cordon p
expect "trace subcommands" "list show export" cordon trace ""
expect "policy subcommands" "check" cordon policy ""
expect "run options, as cordon help lists them" "$run_opts" cordon run --
expect "run option prefix --copy-o" "--copy-out --copy-out-limit" \
    cordon run --copy-o
expect "run option prefix after another option" "--memory" \
    cordon run --cpu 2 --me
for c in "trace list" "trace show" "trace export" probe gc "policy check"; do
	# shellcheck disable=SC2086
	expect "$c options, as cordon help lists them" "$(help_opts "$c")" \
	    cordon $c -
done

# --- option values -----------------------------------------------------------
expect "--backend values" "auto linux-ns landlock floor" \
    cordon run --backend ""
expect "--backend value prefix" "landlock linux-ns" cordon run --backend l
expect "--backend=value" "floor" cordon run --backend = fl
expect "probe --backend values" "auto linux-ns landlock floor" \
    cordon probe --backend ""
expect "--kind values" "policy profile" cordon policy check --kind ""
expect "--require value" "network-isolation" cordon run --require netw
expect "--require list element" "memory,processes" \
    cordon run --require memory,pro
expect "no completion for a number" "" cordon run --cpu ""

# --- profiles: the system directory ($CORDON_CONFDIR) and the user's -------
mkdir -p "$tmp/conf/profiles.d" "$tmp/config/cordon/profiles"
: >"$tmp/conf/profiles.d/c-build.conf"
: >"$tmp/conf/profiles.d/rust-build.conf"
: >"$tmp/config/cordon/profiles/mine.conf"
: >"$tmp/config/cordon/profiles/not-a-profile.txt"
export CORDON_CONFDIR="$tmp/conf" XDG_CONFIG_HOME="$tmp/config"
expect "--profile names" "c-build mine rust-build" cordon run --profile ""
expect "--profile name prefix" "c-build" cordon run --profile c

# --- run ids for trace show, from a real trace ---------------------------------
# One floor run (it works everywhere), in a trace and workdir base of its own.
unset XDG_RUNTIME_DIR
export XDG_STATE_HOME="$tmp/state"
mkdir -m 700 "$tmp/state"
if "$cli" run --backend floor -- true >"$tmp/run.out" 2>&1 &&
    id=$("$cli" trace list | awk 'length($1) == 32 && $1 ~ /^[0-9a-f]+$/ { print $1; exit }') &&
    [ -n "$id" ]; then
	# COMP_WORDS[0] is how the user ran cordon: here, the built one.
	expect "trace show: run ids from cordon trace list" "$id" \
	    "$cli" trace show ""
	expect "trace show: a run id prefix" "$id" \
	    "$cli" trace show "$(echo "$id" | cut -c1-6)"
	expect "trace show: an option, not a run id" "--json --trace" \
	    "$cli" trace show -
	# --trace on the line is the trace read, not the default one.
	mv "$tmp/state" "$tmp/moved"
	expect "trace show --trace PATH: run ids from that trace" "$id" \
	    "$cli" trace show --trace "$tmp/moved/cordon/trace.db" ""
else
	echo "  a floor run of true failed:"
	sed 's/^/  /' "$tmp/run.out"
	result "trace show: run ids from cordon trace list" 1
fi

# --- after run's --, the command -------------------------------------------
complete cordon run --cpu 1 -- ba >"$tmp/got"
if grep -qx bash "$tmp/got"; then rc=0; else rc=1; fi
result "run ... -- completes a command name" $rc

summary
