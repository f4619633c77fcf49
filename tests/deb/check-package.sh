#!/usr/bin/env bash
# tests/deb/check-package.sh - the Debian packages, built from a clean copy
# of the sources, checked by lintian, installed, used, switched to setuid
# mode and back, and purged (issue 21; .ci/run's deb stage).
#
#   tests/deb/check-package.sh [BUILDDIR]
#
# As root, on a Debian 12 machine, from a configured tree (BUILDDIR,
# default the current directory; CI's build stage makes it):
#
#   1. installs the packaging tools, and the build dependencies
#      debian/control names (apt-get -y, apt-get build-dep -y);
#   2. copies the sources with make distdir into a temporary directory
#      (nothing is built or left in the tree) and builds there with
#      dpkg-buildpackage -us -uc -b, without the test suite
#      (DEB_BUILD_OPTIONS=nocheck: CI's check stage ran it on these sources);
#   3. lintian on the .changes: no error and no warning;
#   4. dpkg -i the packages (apt-get install -f -y for their dependencies);
#   5. as a user it creates: cordon run -- true exits 0 and its record says
#      exited, exit code 0, linux-ns; cordon probe says helper.setuid no;
#      where no user namespace can be made (tests/deb/nouserns.c) the
#      plain helper falls back from linux-ns;
#   6. setuid on with dpkg-statoverride: mode 4755 root:root, cordon probe
#      says helper.setuid yes, cordon run -- true works, and builds
#      linux-ns where no user namespace can be made;
#   7. setuid off: the override removed, mode 0755, helper.setuid no;
#   8. setuid on again, then dpkg --purge: nothing of the packages' .list
#      files is left (but directories other packages ship), no /etc/cordon,
#      no dpkg state, no statoverride (postrm removes it on purge,
#      README.Debian); the user's ~/.local/state/cordon is left, as
#      README.Debian says, and checked to be there.
#
# Whatever an earlier, interrupted run left (the packages, the user, the
# statoverride) is removed first, and again on exit.
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
pkgs="cordon libcordon0 libcordon-dev python3-cordon"
helper=/usr/libexec/cordon/cordon-helper
user=cordon-deb-ci
export DEBIAN_FRONTEND=noninteractive

fail() {
	echo "check-package: FAIL: $*" >&2
	exit 1
}
t_start=$(date +%s)
say() {
	echo "check-package: [$(($(date +%s) - t_start)) s] $*"
}

[ "$(id -u)" = 0 ] || fail "run as root (it installs and purges packages)"
[ -f "$builddir/Makefile" ] ||
	fail "$builddir is not a configured build tree (./configure first)"

# --- clean-up: what a run leaves, or an interrupted one left -----------------
# known PKG: dpkg has PKG in any state but "not installed" (config-files too).
known() {
	dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^.[^n]'
}
cleanup() {
	local p
	for p in python3-cordon libcordon-dev libcordon0 cordon; do
		if known "$p"; then
			dpkg --purge "$p" >/dev/null || echo "check-package: could not purge $p" >&2
		fi
	done
	if dpkg-statoverride --list "$helper" >/dev/null 2>&1; then
		dpkg-statoverride --remove "$helper" || true
	fi
	if id "$user" >/dev/null 2>&1; then
		userdel -r "$user" >/dev/null 2>&1 || userdel "$user" || true
	fi
	[ -z "${tmp:-}" ] || rm -rf "$tmp"
}
tmp=
cleanup
tmp=$(mktemp -d /tmp/cordon-deb.XXXXXX)
chmod 0755 "$tmp"
trap cleanup EXIT

# --- 1. tools (the build dependencies come from debian/control, below) ---------
tools="build-essential dpkg-dev lintian"
# shellcheck disable=SC2086
if [ "$(dpkg-query -W -f='${Status}\n' $tools 2>/dev/null |
    grep -c 'ok installed$')" != 3 ]; then
	say "installing $tools"
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $tools >/dev/null
fi

# --- 2. build from a clean copy ------------------------------------------------
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$builddir/Makefile")
copy="$tmp/cordon-$version"
say "copying the sources (make distdir) to $copy"
make -s -C "$builddir" distdir distdir="$copy" >/dev/null
# Every file of debian/ and tests/deb/ must be in the copy (EXTRA_DIST).
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	while IFS= read -r f; do
		[ -e "$copy/$f" ] || fail "$f is not in make distdir's copy (EXTRA_DIST)"
	done < <(git -C "$src" ls-files --cached --others --exclude-standard debian tests/deb)
fi
[ -f "$copy/debian/control" ] || fail "make distdir left out debian/"
if ! (cd "$copy" && dpkg-checkbuilddeps 2>/dev/null); then
	say "installing the build dependencies (apt-get build-dep)"
	apt-get update -qq
	apt-get build-dep -y -qq "$copy" >/dev/null
fi
say "dpkg-buildpackage -us -uc -b in $copy"
t0=$(date +%s)
(cd "$copy" && DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=$(nproc)" \
	dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1) ||
	{ tail -n 40 "$tmp/build.log"; fail "dpkg-buildpackage failed"; }
say "built in $(($(date +%s) - t0)) s:"
changes="$tmp/cordon_${version}_$(dpkg --print-architecture).changes"
[ -f "$changes" ] || fail "no $changes"
debs=()
for p in $pkgs; do
	f=$(ls "$tmp/${p}_${version}_"*.deb 2>/dev/null) || fail "no package $p"
	debs+=("$f")
	printf '  %-45s %8s bytes, Installed-Size %s KiB\n' "${f##*/}" \
	    "$(stat -c %s "$f")" "$(dpkg-deb -f "$f" Installed-Size)"
done
mode=$(dpkg-deb -c "${debs[0]}" | awk -v h=".$helper" '$6 == h { print $1 }')
[ "$mode" = "-rwxr-xr-x" ] || fail "the helper is packaged as '$mode', not -rwxr-xr-x"

# --- 3. lintian ----------------------------------------------------------------
say "lintian $(lintian --version | awk '{print $2}') on ${changes##*/}:"
# As nobody: lintian unpacks what it checks, and needs no privilege for it.
setpriv --reuid=nobody --regid=nogroup --clear-groups env -i \
	PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 \
	lintian --display-info --pedantic --show-overrides \
	--fail-on error,warning "$changes" >"$tmp/lintian.log" 2>&1 ||
	lintian_rc=$?
sed 's/^/  /' "$tmp/lintian.log"
if [ "${lintian_rc:-0}" != 0 ] || grep -qE '^[EW]: ' "$tmp/lintian.log"; then
	fail "lintian reports errors or warnings"
fi

# --- 4. install ------------------------------------------------------------------
say "dpkg -i ${debs[*]##*/}"
dpkg -i "${debs[@]}" >"$tmp/install.log" 2>&1 ||
	apt-get install -f -y -qq >>"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "the packages did not install"; }
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" | grep -q 'ok installed' ||
		fail "$p is not installed"
done
lists="$tmp/lists"
for p in $pkgs; do
	dpkg-query -L "$p"
done | sort -u >"$lists"
grep -qx "$helper" "$lists" || fail "dpkg does not list $helper"
[ "$(stat -c '%a %U:%G' "$helper")" = "755 root:root" ] ||
	fail "$helper is $(stat -c '%a %U:%G' "$helper") after install, not 755 root:root"
grep -qx /etc/cordon/policy.conf /var/lib/dpkg/info/cordon.conffiles ||
	fail "/etc/cordon/policy.conf is not a conffile"

# --- 5. as a user, the helper plain ------------------------------------------------
useradd --create-home --shell /bin/sh "$user"
home=$(getent passwd "$user" | cut -d: -f6)
uid=$(id -u "$user")
gid=$(id -g "$user")
# as_user [nouserns] COMMAND...: COMMAND as the user, in a clean
# environment, as cron or a CI runner would start it (no XDG_RUNTIME_DIR).
as_user() {
	local wrap=()
	if [ "$1" = nouserns ]; then
		wrap=("$tmp/nouserns")
		shift
	fi
	(cd "$home" && "${wrap[@]}" setpriv --reuid="$uid" --regid="$gid" \
	    --init-groups env -i HOME="$home" USER="$user" LOGNAME="$user" \
	    PATH=/usr/bin:/bin LANG=C.UTF-8 "$@")
}
# run_true NAME [nouserns] [OPTION...]: cordon run -- true as the user,
# exit 0, and its record: exited, exit code 0, linux-ns.
run_true() {
	local name=$1 rc=0 rec how=()
	shift
	if [ "${1:-}" = nouserns ]; then
		how=(nouserns)
		shift
	fi
	rec="$home/${name//[^a-z]/-}.json"
	as_user "${how[@]}" cordon run --result "$rec" "$@" -- true || rc=$?
	[ "$rc" = 0 ] || fail "$name: cordon run -- true exited $rc"
	[ -f "$rec" ] || fail "$name: no result record"
	for f in '"outcome":"exited"' '"exit_code":0' '"backend":"linux-ns"' \
	    '"workdir_removed":true' "\"uid\":$uid"; do
		grep -qF "$f" "$rec" || fail "$name: the record lacks $f: $(cat "$rec")"
	done
	say "$name: cordon run -- true: exit 0, $(grep -o '"backend":"[^"]*","backend_reason":"[^"]*"' "$rec")"
}
# probe_says NAME KEY VALUE [nouserns]: cordon probe's KEY line is VALUE.
probe_says() {
	local got how=("${@:4}")
	got=$(as_user "${how[@]}" cordon probe | awk -v k="$2" '$1 == k { $1 = ""; sub(/^ +/, ""); print }')
	[ "$got" = "$3" ] || fail "$1: cordon probe says $2 '$got', not '$3'"
	say "$1: cordon probe: $2 $got"
}

read -r -a seccomp_flags <<<"$(pkg-config --cflags --libs libseccomp)"
cc -O2 -Wall -Wextra -Werror -o "$tmp/nouserns" "$src/tests/deb/nouserns.c" \
	"${seccomp_flags[@]}"
run_true plain
# python3-cordon: the installed module, over the installed library.
out=$(as_user python3 -c 'import cordon
r = cordon.select(cordon.Config()).run(["echo", "hi"], capture_output=True)
print(r.outcome, r.exit_code, r.backend, r.stdout.decode().strip())') ||
	fail "python3-cordon: the run raised: $out"
[ "$out" = "exited 0 linux-ns hi" ] || fail "python3-cordon: got '$out'"
say "python3-cordon: $out"
probe_says plain helper.setuid no
probe_says plain backend linux-ns
# Where no user namespace can be made, the plain helper cannot build
# linux-ns: what setuid mode is for.
b=$(as_user nouserns cordon probe | awk '$1 == "backend" { print $2 }')
if [ -z "$b" ] || [ "$b" = linux-ns ]; then
	fail "plain, without user namespaces: cordon probe says backend '$b'"
fi
say "plain, without user namespaces: cordon probe: backend $b"
[ -f "$home/.local/state/cordon/trace.db" ] ||
	fail "no trace at ~/.local/state/cordon/trace.db"
n=$(as_user cordon trace list --json | grep -c '"run_id"' || true)
[ "$n" -ge 1 ] || fail "cordon trace list shows no run"

# --- 6. setuid on ------------------------------------------------------------------
say "dpkg-statoverride --update --add root root 4755 $helper"
dpkg-statoverride --update --add root root 4755 "$helper"
[ "$(stat -c '%a %U:%G' "$helper")" = "4755 root:root" ] ||
	fail "$helper is $(stat -c '%a %U:%G' "$helper"), not 4755 root:root"
probe_says setuid helper.setuid yes
run_true setuid
probe_says "setuid, without user namespaces" helper.setuid yes nouserns
probe_says "setuid, without user namespaces" backend linux-ns nouserns
run_true "setuid, without user namespaces" nouserns

# --- 7. setuid off -------------------------------------------------------------------
say "dpkg-statoverride --remove $helper; chmod 0755 $helper"
dpkg-statoverride --remove "$helper"
chmod 0755 "$helper"
! dpkg-statoverride --list "$helper" >/dev/null || fail "the statoverride is still there"
[ "$(stat -c '%a %U:%G' "$helper")" = "755 root:root" ] ||
	fail "$helper is $(stat -c '%a %U:%G' "$helper") after setuid off"
probe_says "setuid off" helper.setuid no
run_true "setuid-off"

# --- 8. purge --------------------------------------------------------------------------
# With setuid on again: purge must take the override away too.
dpkg-statoverride --update --add root root 4755 "$helper"
say "dpkg --purge $pkgs (setuid on)"
# shellcheck disable=SC2086
dpkg --purge $pkgs >"$tmp/purge.log" 2>&1 ||
	{ cat "$tmp/purge.log"; fail "dpkg --purge failed"; }
# What is still there of the .list files may only be directories that
# other packages ship too (/usr/bin, ...): dpkg-query -S names them.
: >"$tmp/left"
dirs=()
while IFS= read -r f; do
	[ "$f" != /. ] || continue
	if [ -d "$f" ] && [ ! -L "$f" ]; then
		dirs+=("$f")
	elif [ -e "$f" ] || [ -L "$f" ]; then
		echo "$f" >>"$tmp/left"
	fi
done <"$lists"
if [ "${#dirs[@]}" -gt 0 ]; then
	dpkg-query -S "${dirs[@]}" 2>/dev/null | sed 's/.*: //' | sort -u >"$tmp/shipped" || true
	for f in "${dirs[@]}"; do
		grep -qxF "$f" "$tmp/shipped" || echo "$f" >>"$tmp/left"
	done
fi
if [ -s "$tmp/left" ]; then
	sed 's/^/check-package: left after purge: /' "$tmp/left" >&2
	fail "files of the packages are left after purge"
fi
[ ! -e /etc/cordon ] || fail "/etc/cordon is left after purge: $(ls -A /etc/cordon)"
! dpkg-statoverride --list "$helper" >/dev/null ||
	fail "the statoverride on $helper is left after purge"
for p in $pkgs; do
	! dpkg-query -W "$p" >/dev/null 2>&1 || fail "dpkg still knows $p"
	! ls /var/lib/dpkg/info/"$p".* /var/lib/dpkg/info/"$p":* >/dev/null 2>&1 ||
		fail "dpkg's files for $p are left"
done
say "purged: no file, no /etc/cordon, no dpkg state, no statoverride left"
# The user's own trace is theirs, and stays (README.Debian).
[ -f "$home/.local/state/cordon/trace.db" ] ||
	fail "the user's trace is gone: README.Debian says purge leaves it"
say "left, as README.Debian says: $(find "$home/.local/state/cordon" -mindepth 1 -maxdepth 1 | tr '\n' ' ')"
say "ok"
