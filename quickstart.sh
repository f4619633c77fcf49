#!/bin/sh
# quickstart.sh - on a fresh Debian machine, as root: install what is
# missing, build cordon, and run one sample command inside the sandbox.
#
#   ./quickstart.sh            # then: make check
#
# CONFIGURE_FLAGS is passed to ./configure (CI adds --enable-werror).
set -eu
cd "$(dirname "$0")"

pkgs="build-essential autoconf automake libtool pkg-config libcap-dev
libsqlite3-dev libbsd-dev libseccomp-dev check sqlite3"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "quickstart: missing Debian packages:$missing" >&2
		echo "quickstart: run as root, or: sudo apt-get install$missing" >&2
		exit 1
	fi
	echo "quickstart: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

[ -x configure ] || ./autogen.sh >/dev/null
# shellcheck disable=SC2086
[ -f Makefile ] || ./configure ${CONFIGURE_FLAGS:-} >/dev/null
make -j"$(nproc)" >/dev/null

echo
echo "quickstart: built. A sample run: a shell inside the sandbox, capped"
echo "quickstart: at 2 CPU seconds and 256M, that writes to its workdir,"
echo "quickstart: starts a background daemon, and then burns CPU:"
echo
set +e
CORDON_HELPER="$PWD/cordon-helper" ./cordon run --json --cpu 2 --memory 256M -- \
	sh -c 'echo "inside: cwd=$(pwd) home=$HOME"; echo data > out.txt;
	       (setsid sleep 1000 &); while :; do :; done'
rc=$?
set -e
echo
echo "quickstart: cordon exited $rc (124 = a cap was hit, as asked)."
echo "quickstart: the workdir and the daemon are gone; the trace has the run:"
CORDON_HELPER="$PWD/cordon-helper" ./cordon trace list --limit 3
echo
echo "quickstart: next, run the tests: make check"
