#!/bin/sh
# windows/run.sh - the Job Object glue under Wine (make check-windows).
#
# Cross-builds tests/windows/driver.exe (helper/job_win.c, helper/job.c
# and the shared sources it reuses), kids.exe (the payload), and chan.exe
# (the broker's platform layer, broker/plat_win.c, and the framed
# channel, common/frame.c) with echo.exe as its helper, with
# mingw-w64, and cordon-helper.exe (helper/main_win.c) with runner.exe
# (the broker's side of its channel: tests/windows/runner.c) with
# mingw-w64, then drives them under Wine in a throw-away WINEPREFIX under
# the build directory, WINEDEBUG=-all.  Checks: exit codes pass through;
# a grandchild is dead after the run; the wall cap ends a sleeper as cap
# wall, 124; the workdir is gone, with a read-only file and a file a
# grandchild held open; applied cpu/memory/processes are false with
# Wine's read-back reason; --backend appcontainer refuses naming why;
# proxy variables are stripped; bad input runs nothing.
#
# Wine accepts job limits and enforces none, so nothing here shows a
# Windows kill by CPU, memory or process count: README.md's Windows
# section says what only real Windows can show.  Skips (77), saying
# what is missing, without mingw-w64 or Wine.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

MINGW_CC=${MINGW_CC:-x86_64-w64-mingw32-gcc}
if ! command -v "$MINGW_CC" >/dev/null; then
	echo "SKIP: check-windows: $MINGW_CC not found (apt-get install gcc-mingw-w64-x86-64)"
	exit 77
fi
wine=${WINE:-}
if [ -z "$wine" ]; then
	for w in wine /usr/lib/wine/wine64 wine64; do
		if command -v "$w" >/dev/null; then wine=$(command -v "$w"); break; fi
	done
fi
if [ -z "$wine" ]; then
	echo "SKIP: check-windows: wine not found (apt-get install wine64)"
	exit 77
fi
wineserver=$(dirname "$wine")/wineserver
[ -x "$wineserver" ] || wineserver=$(command -v wineserver || true)

out=$build/tests/windows
mkdir -p "$out" || exit 99
scratch windows
WINEPREFIX=$out/wineprefix
WINEDEBUG=-all
export WINEPREFIX WINEDEBUG
rm -rf "$WINEPREFIX"
# The prefix and its wineserver are this test's: both go at exit.
trap '[ -n "$wineserver" ] && "$wineserver" -k 2>/dev/null
	rm -rf "$tmp" "$WINEPREFIX"' EXIT

# --- the cross-build ---------------------------------------------------------
wflags="-std=gnu11 -O2 -Wall -Wextra -Werror -municode"
wflags="$wflags -I$src/tests/windows -I$src/common -I$src/policy -I$src/helper"
t0=$(date +%s)
# shellcheck disable=SC2086
"$MINGW_CC" $wflags -o "$out/driver.exe" "$src/tests/windows/driver.c" \
    "$src/helper/job_win.c" "$src/helper/job.c" "$src/policy/env.c" \
    "$src/common/parse.c" "$src/common/ids.c" "$src/common/winutil.c" || exit 99
# The broker's platform layer (broker/plat_win.c) and the byte-stream
# channel (common/frame.c), with echo.exe standing in for the helper.
chansrc="$src/common/frame.c $src/common/wire.c $src/common/wire_helper.c
    $src/common/wire_broker.c $src/common/buf.c $src/common/types.c
    $src/common/ids.c $src/common/winutil.c"
# shellcheck disable=SC2086
"$MINGW_CC" $wflags -I"$src/broker" -o "$out/echo.exe" \
    "$src/tests/windows/echo.c" $chansrc || exit 99
# shellcheck disable=SC2086
"$MINGW_CC" $(echo "$wflags" | sed 's/ -municode//') -I"$src/broker" \
    -o "$out/chan.exe" \
    "$src/tests/windows/chan.c" "$src/broker/plat_win.c" $chansrc \
    -lbcrypt || exit 99
# shellcheck disable=SC2086
"$MINGW_CC" $wflags -o "$out/kids.exe" "$src/tests/windows/kids.c" || exit 99
# cordon-helper.exe (helper/main_win.c; Makefile.am's PLAT_WIN list) and
# runner.exe, the broker's side of its channel (broker/plat_win.c).
# shellcheck disable=SC2086
"$MINGW_CC" $wflags -o "$out/cordon-helper.exe" "$src/helper/main_win.c" \
    "$src/helper/die.c" "$src/helper/intake.c" "$src/helper/job_win.c" \
    "$src/helper/job.c" \
    "$src/common/buf.c" "$src/common/wire.c" "$src/common/wire_helper.c" \
    "$src/common/frame.c" "$src/common/types.c" "$src/common/ids.c" \
    "$src/common/winutil.c" "$src/policy/env.c" || exit 99
# shellcheck disable=SC2086
"$MINGW_CC" $(echo "$wflags" | sed 's/ -municode//') -I"$src/broker" \
    -o "$out/runner.exe" "$src/tests/windows/runner.c" \
    "$src/broker/plat_win.c" $chansrc -lbcrypt || exit 99
echo "# cross-built in $(( $(date +%s) - t0 )) s: driver.exe $(wc -c <"$out/driver.exe") bytes"

# winpath PATH: the Windows name of a Linux path (Wine's Z: is /).
winpath() {
	printf 'Z:%s' "$1" | tr / '\\'
}
kids=$(winpath "$out/kids.exe")

# drive ARGS...: driver.exe ARGS..., stdout in $tmp/out, stderr in
# $tmp/err, the exit status in $rc and the result line in $line.
drive() {
	"$wine" "$out/driver.exe" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	line=$(grep '^result: ' "$tmp/out" | tr -d '\r')
}
# has TEXT: the result line holds TEXT.
has() {
	case $line in *"$1"*) return 0 ;; esac
	return 1
}
# fresh: a new workdir name in $wd (Linux) and $wwd (Windows), so one
# failed removal fails its own check and no other.
n=0
fresh() {
	n=$((n + 1))
	wd=$tmp/wd$n
	wwd=$(winpath "$wd")
}

t0=$(date +%s)
[ -n "$wineserver" ] && "$wineserver" -p 2>/dev/null
"$wine" "$out/kids.exe" exit 0 >/dev/null 2>&1
echo "# Wine prefix made in $(( $(date +%s) - t0 )) s"

# --- the broker's platform layer and channel (chan.exe) ---------------------
mkdir -p "$tmp/chan" || exit 99
"$wine" "$out/chan.exe" "$(winpath "$out/echo.exe")" "$(winpath "$tmp/chan")" \
    >"$tmp/chan.out" 2>"$tmp/chan.err" </dev/null
chanrc=$?
tr -d '\r' <"$tmp/chan.out" | sed -n 's/^check: //p' >"$tmp/chan.checks"
tr -d '\r' <"$tmp/chan.out" | grep '^# '
while IFS= read -r c; do
	case $c in ok\ *) result "channel: ${c#ok }" 0 ;;
	*) result "channel: ${c#FAILED }" 1 ;; esac
done <"$tmp/chan.checks"
[ "$chanrc" -eq 0 ] && [ "$(wc -l <"$tmp/chan.checks")" -eq 38 ] &&
    tr -d '\r' <"$tmp/chan.out" | grep -qx 'echo: stdout'
result "channel: chan.exe ran all 38 checks, the helper's stdout passed through (exit $chanrc)" $?

# --- cordon-helper.exe through the broker's channel (runner.exe) -------------
# The workdir base is a '/'-rooted path, the only kind the wire's REQUEST
# takes today (common/wire_helper.c); Wine resolves it on Z:, where it is.
mkdir -p "$tmp/hbase" "$tmp/hscratch" || exit 99
"$wine" "$out/runner.exe" "$(winpath "$out/cordon-helper.exe")" "$kids" \
    "$tmp/hbase" "$(winpath "$tmp/hscratch")" >"$tmp/runner.out" \
    2>"$tmp/runner.err" </dev/null
runnerrc=$?
tr -d '\r' <"$tmp/runner.out" | sed -n 's/^check: //p' >"$tmp/runner.checks"
while IFS= read -r c; do
	case $c in ok\ *) result "helper: ${c#ok }" 0 ;;
	*) result "helper: ${c#FAILED }" 1 ;; esac
done <"$tmp/runner.checks"
[ "$runnerrc" -eq 0 ] && [ "$(wc -l <"$tmp/runner.checks")" -eq 29 ]
result "helper: runner.exe ran all 29 checks (exit $runnerrc)" $?
# kids.exe getenv TEMP printed the workdir (runner.c, environment()).
tr -d '\r' <"$tmp/runner.out" |
    grep -qxF "$(winpath "$tmp/hbase")\\00112233445566778899aabbccddeeff"
result "helper: TEMP is the run's workdir, whatever the request set" $?
[ -z "$(ls -A "$tmp/hbase")" ]
result "helper: no workdir is left in the base after all the runs" $?
"$wine" "$out/cordon-helper.exe" >/dev/null 2>"$tmp/hand.err" </dev/null
handrc=$?
[ "$handrc" -eq 125 ] && grep -q 'not by hand' "$tmp/hand.err"
result "helper: started by hand (no --channel): 125, saying why (got $handrc)" $?

# --- exit codes --------------------------------------------------------------
for code in 0 3 1 42; do
	fresh; drive "$wwd" "$kids" exit "$code"
	[ "$rc" -eq "$code" ] && has "outcome=exited status=$code " &&
	    has "workdir=removed" && [ ! -e "$wd" ]
	result "exit code $code passes through (got $rc)" $?
done
# A Windows exit code is 32 bits; one that does not fit 8 is a failure,
# 255, never truncated to a success (256) or taken for a live process
# (259, STILL_ACTIVE).
for code in 256 259; do
	fresh; drive "$wwd" "$kids" exit "$code"
	[ "$rc" -eq 255 ] && has "outcome=exited status=255 "
	result "exit code $code is reported as 255 (got $rc)" $?
done
fresh; drive "$wwd" 'C:\no\such\program.exe'
[ "$rc" -eq 127 ] && [ -z "$line" ] && [ ! -e "$wd" ] &&
    grep -q 'nothing was run: .*not found' "$tmp/err"
result "a command that does not exist: 127, nothing left (got $rc)" $?

# The arguments reach the payload exactly (Windows command-line quoting).
fresh; drive "$wwd" "$kids" args 'a b' 'q"x' 'back\' '' 'c\"d' 'e\\f'
printf '%s\n' '[a b][q"x][back\][][c\"d][e\\f]' >"$tmp/want"
tr -d '\r' <"$tmp/out" | grep -v '^result: ' | cmp -s - "$tmp/want"
result "arguments with spaces, quotes and backslashes arrive intact" $?

# --- bad input runs nothing --------------------------------------------------
for bad in "--cpu x" "--wall -1" "--memory 12Q" "--nproc 99999999999" \
    "--backend floor" "--frobnicate 1"; do
	# shellcheck disable=SC2086
	fresh; drive $bad "$wwd" "$kids" grandchild "$(winpath "$tmp/bad.pid")"
	[ "$rc" -eq 125 ] && [ ! -e "$wd" ] && [ ! -e "$tmp/bad.pid" ] &&
	    [ -z "$line" ] && [ -s "$tmp/err" ]
	result "bad flag '$bad': 125, nothing run (got $rc: $(head -c 120 "$tmp/err" | tr -d '\r' | head -n 1))" $?
done
fresh; mkdir "$wd" && echo keep >"$wd/mine"
drive "$wwd" "$kids" exit 0
[ "$rc" -eq 125 ] && grep -q 'already exists' "$tmp/err" &&
    [ "$(cat "$wd/mine")" = keep ]
result "an existing workdir is refused and left as it was (got $rc)" $?
rm -rf "$wd"

# --- the tree: a grandchild dies with the run --------------------------------
# The control first: outside a job the grandchild outlives its parent, so
# kids.exe alive can see a live one.
"$wine" "$out/kids.exe" grandchild "$(winpath "$tmp/free.pid")" >/dev/null 2>&1
pid=$(tr -d '\r\n' <"$tmp/free.pid" 2>/dev/null)
"$wine" "$out/kids.exe" alive "${pid:-0}" >/dev/null 2>&1
alive=$?
"$wine" "$out/kids.exe" kill "${pid:-0}" >/dev/null 2>&1
[ "$alive" -eq 1 ]
result "control: outside a job a grandchild outlives its parent (pid ${pid:-none})" $?

fresh; drive "$wwd" "$kids" grandchild "$(winpath "$tmp/job.pid")"
pid=$(tr -d '\r\n' <"$tmp/job.pid" 2>/dev/null)
"$wine" "$out/kids.exe" alive "${pid:-0}" >/dev/null 2>&1
alive=$?
[ "$rc" -eq 0 ] && [ -n "$pid" ] && [ "$alive" -eq 0 ]
result "a grandchild is dead after the run (pid ${pid:-none}, alive=$alive)" $?
[ "$alive" -eq 1 ] && "$wine" "$out/kids.exe" kill "$pid" >/dev/null 2>&1

# A payload cannot take a child out of the job: the job does not set
# JOB_OBJECT_LIMIT_BREAKAWAY_OK, so CREATE_BREAKAWAY_FROM_JOB is refused.
fresh; drive "$wwd" "$kids" breakaway "$(winpath "$tmp/away.pid")"
pid=$(cat "$tmp/away.pid" 2>/dev/null | tr -d '\r\n')
[ "$rc" -eq 40 ] && [ -z "$pid" ]
result "attack: CREATE_BREAKAWAY_FROM_JOB is refused inside the job (got $rc)" $?
[ -n "$pid" ] && "$wine" "$out/kids.exe" kill "$pid" >/dev/null 2>&1

# --- the wall cap ------------------------------------------------------------
t0=$(date +%s)
fresh; drive --wall 1 "$wwd" "$kids" sleep 60000
took=$(( $(date +%s) - t0 ))
[ "$rc" -eq 124 ] && has "outcome=cap_hit status=124 cap=wall by=wall-timer" &&
    [ "$took" -lt 20 ] && [ ! -e "$wd" ]
result "--wall 1 ends a sleeper: cap wall, 124, in ${took} s (got $rc)" $?

# --- the workdir -------------------------------------------------------------
fresh; drive "$wwd" "$kids" readonly ro.txt
[ "$rc" -eq 0 ] && has "workdir=removed" && [ ! -e "$wd" ]
result "the workdir is gone, with a read-only file in it (got $rc)" $?
fresh; drive "$wwd" "$kids" hold held.txt
[ "$rc" -eq 0 ] && has "workdir=removed" && [ ! -e "$wd" ]
result "the workdir is gone, with a file a grandchild held open (got $rc)" $?

# A link in the workdir to a directory outside it (Wine shows a Unix
# symbolic link to a directory as a reparse point, as Windows shows a
# junction) is never entered: what it points to is untouched.  Wine can
# remove such a link through no Win32 call (RemoveDirectoryW looks
# through it, DeleteFileW is refused), so the run must say the workdir
# was left, 125, rather than claim it removed.  (A Unix link to a *file*
# Wine shows as a plain file and deletes through: a Wine limit, not
# tested here; a Windows payload cannot make one with CreateSymbolicLinkW
# under Wine, where that call creates nothing.)
fresh; mkdir -p "$tmp/victim" && echo precious >"$tmp/victim/file"
"$wine" "$out/driver.exe" "$wwd" "$kids" waitfor go >"$tmp/out" \
    2>"$tmp/err" </dev/null &
bg=$!
i=0
while [ ! -d "$wd" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
ln -s "$tmp/victim" "$wd/link" && mkdir "$wd/sub" && touch "$wd/sub/f" \
    "$wd/go"
wait "$bg"
rc=$?
[ "$(cat "$tmp/victim/file" 2>/dev/null)" = precious ]
result "attack: a link to a directory outside the workdir is not followed" $?
[ "$rc" -eq 125 ] && grep -q 'workdir=left' "$tmp/out" &&
    grep -q 'could not be removed' "$tmp/err" && [ ! -e "$wd/sub" ]
result "a workdir Wine cannot empty is reported left, 125 (got $rc)" $?
rm -rf "$wd"

# --- what is applied under Wine ----------------------------------------------
why='not applied: the job read back no limit'
why="$why (Wine accepts job limits and enforces none)"
fresh; drive --cpu 5 --memory 64M --nproc 4 "$wwd" "$kids" exit 0
[ "$rc" -eq 0 ] && has "applied=wall |" && has "| cpu: $why" &&
    has "| memory: $why" && has "| processes: $why" &&
    has "| nofile: not applied: Windows has no per-process handle limit"
ok=$?
[ "$ok" -eq 0 ] || echo "# exit $rc: ${line:-no result line}; $(head -c 300 "$tmp/err")"
result "cpu, memory, processes not applied, with Wine's read-back reason" "$ok"

# --require on a cap Wine does not apply refuses the run before the
# payload exists; one that is applied (wall) lets it run.
fresh; drive --memory 64M --require wall,memory "$wwd" "$kids" grandchild \
    "$(winpath "$tmp/req.pid")"
[ "$rc" -eq 125 ] && [ ! -e "$wd" ] && [ ! -e "$tmp/req.pid" ] &&
    [ -z "$line" ] && grep -q -- "--require memory: $why" "$tmp/err"
result "--require memory refuses under Wine, nothing run (got $rc)" $?
fresh; drive --require wall "$wwd" "$kids" exit 7
[ "$rc" -eq 7 ]
result "control: --require wall runs (got $rc)" $?
fresh; drive --require memory,bogus "$wwd" "$kids" exit 0
[ "$rc" -eq 125 ] && [ -z "$line" ] && [ ! -e "$wd" ]
result "--require of an unknown cap: 125, nothing run (got $rc)" $?

# --- AppContainer ------------------------------------------------------------
fresh; drive --backend appcontainer "$wwd" "$kids" grandchild "$(winpath "$tmp/ac.pid")"
[ "$rc" -eq 125 ] && [ ! -e "$wd" ] && [ ! -e "$tmp/ac.pid" ] &&
    grep -q 'appcontainer: userenv.dll has no CreateAppContainerProfile.*Wine' "$tmp/err"
result "--backend appcontainer refuses, naming why: $(tr -d '\r' <"$tmp/err" | head -n 1)" $?

# --- the environment ---------------------------------------------------------
for v in http_proxy HTTPS_PROXY All_Proxy; do
	fresh
	env "$v=http://proxy.invalid:3128" "$wine" "$out/driver.exe" "$wwd" \
	    "$kids" getenv "$v" >"$tmp/out" 2>&1 </dev/null
	[ $? -eq 1 ]
	result "the proxy variable $v is stripped" $?
done
env http_proxy=http://proxy.invalid:3128 "$wine" "$out/kids.exe" getenv \
    http_proxy >/dev/null 2>&1
result "control: outside the run http_proxy is seen" $?
fresh
env CORDON_SECRET=1 "$wine" "$out/driver.exe" "$wwd" "$kids" getenv \
    CORDON_SECRET >/dev/null 2>&1 </dev/null
[ $? -eq 1 ]
result "a variable off the allow-list does not reach the payload" $?
fresh; drive "$wwd" "$kids" getenv TEMP
[ "$rc" -eq 0 ] && tr -d '\r' <"$tmp/out" | grep -qxF "$wwd"
result "TEMP is the workdir" $?
fresh; drive "$wwd" "$kids" getenv SystemRoot
[ "$rc" -eq 0 ]
result "SystemRoot reaches the payload (Windows needs it)" $?

summary
