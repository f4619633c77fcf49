/*
 * channel.c - the broker's end of the helper: starts cordon-helper on a
 * fresh socketpair, sends it a run's request, and reaps it.  What the
 * messages mean is for the caller (run.c follows a run's events, probe.c
 * a PROBE's facts); the bytes on the socket are common/wire.c's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "wire.h"

/*
 * Starts the helper with its end of a fresh socketpair on fd 3 and an
 * empty environment; it needs nothing of ours but the request (and a
 * test knob, below).  Only the
 * sanitizer build (for tests; configure refuses it for a setuid helper)
 * passes the sanitizer options on, so that the helper's reports land
 * where the test suite collects them (tests/sanitized.sh).
 *
 * posix_spawn, not fork: glibc's child shares our memory until it execs
 * (CLONE_VM | CLONE_VFORK), so the broker's page tables - sqlite's
 * mapping of the trace among them - are not copied for a child that only
 * moves one fd and execs; that copy was the largest part of the broker's
 * own cost per run.  dup2 of an fd onto itself clears its close-on-exec
 * flag (POSIX 2017, glibc >= 2.29), which covers sv[1] already being 3.
 * An exec failure comes back from posix_spawn itself, in errno here.
 */
int
cordon_start_helper(const char *path, pid_t *pid, int *sock)
{
	return cordon_start_helper_io(path, pid, sock, -1, -1, -1);
}

int
cordon_start_helper_io(const char *path, pid_t *pid, int *sock, int infd,
    int outfd, int errfd)
{
	char *henv[8] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	char confdir[CORDON_MAX_PATH_LEN + 32];
	char *const hargv[] = { "cordon-helper", NULL };
	posix_spawn_file_actions_t fa;
	size_t i, k = 0;
	int sv[2], e, fd;
#ifdef CORDON_SANITIZERS
	for (i = 0; environ != NULL && environ[i] != NULL && k < 3; i++)
		if (strncmp(environ[i], "ASAN_OPTIONS=", 13) == 0 ||
		    strncmp(environ[i], "UBSAN_OPTIONS=", 14) == 0 ||
		    strncmp(environ[i], "LSAN_OPTIONS=", 13) == 0)
			henv[k++] = environ[i];
#endif
	/*
	 * The tests' knobs, each of which only a helper that is not setuid
	 * honours: "pretend an older Landlock" (it can only weaken the
	 * caller's own run, whose result then says what was not applied)
	 * and the cgroup the runs go under (a setuid helper keeps the
	 * system's choice).
	 */
	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		if (strncmp(environ[i], "CORDON_TEST_LANDLOCK_ABI=", 25) == 0 ||
		    strncmp(environ[i], "CORDON_CGROUP_PARENT=", 21) == 0)
			if (k < sizeof(henv) / sizeof(henv[0]) - 2)
				henv[k++] = environ[i];

	/* The test suite's configuration directory (policy.h), if honoured. */
	if (strcmp(cordon_confdir(), CORDON_SYSCONFDIR) != 0 &&
	    (size_t)snprintf(confdir, sizeof(confdir), "CORDON_CONFDIR=%s",
	    cordon_confdir()) < sizeof(confdir))
		henv[k++] = confdir;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -CORDON_E_HELPER;
	/*
	 * The payload's stdin and output files become the helper's fds 0-2
	 * (helper/helper.c passes them on, or pumps into them under an output cap):
	 * no fd travels over the socket.  Our end is moved above fd 3 first,
	 * so that neither of those dup2s can land on it.
	 */
	if (sv[1] <= CORDON_HELPER_FD) {
		fd = fcntl(sv[1], F_DUPFD_CLOEXEC, CORDON_HELPER_FD + 1);
		close(sv[1]);
		if ((sv[1] = fd) < 0) {
			close(sv[0]);
			return -CORDON_E_HELPER;
		}
	}
	if ((e = posix_spawn_file_actions_init(&fa)) == 0) {
		if ((infd < 0 ||
		    (e = posix_spawn_file_actions_adddup2(&fa, infd, 0)) == 0) &&
		    (outfd < 0 ||
		    (e = posix_spawn_file_actions_adddup2(&fa, outfd, 1)) == 0) &&
		    (errfd < 0 ||
		    (e = posix_spawn_file_actions_adddup2(&fa, errfd, 2)) == 0) &&
		    (e = posix_spawn_file_actions_adddup2(&fa, sv[1],
		    CORDON_HELPER_FD)) == 0 &&
		    (e = posix_spawn_file_actions_addclosefrom_np(&fa,
		    CORDON_HELPER_FD + 1)) == 0)
			e = posix_spawn(pid, path, &fa, NULL, hargv, henv);
		posix_spawn_file_actions_destroy(&fa);
	}
	close(sv[1]);
	if (e != 0) {
		close(sv[0]);
		errno = e;
		return -CORDON_E_HELPER;
	}
	*sock = sv[0];
	return 0;
}

int
cordon_wait_helper(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

int
cordon_send_request(int sock, const cordon_config *cfg, const char *base,
    const struct cordon_result *r, char **envp, uint32_t envc,
    uint32_t require, uint32_t env_explicit)
{
	struct cordon_msg m;
	size_t i;
	int err;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_REQUEST;
	m.u.request.flags = cfg->network ? CORDON_REQ_NETWORK : 0;
	m.u.request.backend = (uint8_t)cfg->backend;
	m.u.request.limits = cfg->limits;
	m.u.request.run_id = (char *)(uintptr_t)r->run_id;
	m.u.request.workdir_base = (char *)(uintptr_t)base;
	m.u.request.argc = (uint32_t)r->argc;
	m.u.request.envc = envc;
	m.u.request.bindc = (uint32_t)cfg->nbinds;
	if (cfg->ncopy_in != 0)
		m.u.request.flags |= CORDON_REQ_COPY_IN;
	if (cfg->ncopy_out != 0)
		m.u.request.flags |= CORDON_REQ_COPY_OUT;
	if (cfg->nallow_hosts != 0)
		m.u.request.flags |= CORDON_REQ_EGRESS;
	m.u.request.require = require;
	m.u.request.env_explicit = env_explicit;
	if ((err = cordon_msg_send(sock, &m)) < 0)
		return err;
	for (i = 0; i < r->argc; i++) {
		m.type = CORDON_MSG_ARG;
		m.u.str = r->argv[i];
		if ((err = cordon_msg_send(sock, &m)) < 0)
			return err;
	}
	for (i = 0; i < envc; i++) {
		m.type = CORDON_MSG_ENV;
		m.u.str = envp[i];
		if ((err = cordon_msg_send(sock, &m)) < 0)
			return err;
	}
	for (i = 0; i < cfg->nbinds; i++) {
		m.type = CORDON_MSG_BIND;
		m.u.bind.src = cfg->binds[i].src;
		m.u.bind.dest = cfg->binds[i].dest;
		if ((err = cordon_msg_send(sock, &m)) < 0)
			return err;
	}
	return 0;
}
