/*
 * floor.c - starts the payload on the floor backend.
 *
 * The floor is the portable minimum, not a jail: a fresh process tree
 * (the payload leads its own session below the subreaper helper), the
 * ephemeral workdir as cwd, HOME and TMPDIR, an allow-listed environment
 * without proxy variables, rlimits, PR_SET_NO_NEW_PRIVS, and the caps the
 * monitor enforces.
 * It has no file-system or network boundary, and says so; the landlock
 * backend is this same child plus a Landlock domain (landlock.c).
 *
 * Between fork and exec the child only makes async-signal-safe calls.  A
 * failure travels back over a close-on-exec pipe as (stage, errno): an
 * exec failure is the command's ("not found", 127; "cannot execute", 126,
 * told apart from a payload that itself exits 127), any earlier stage is
 * the sandbox's and becomes a sandbox error.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <bsd/unistd.h>

#include "helper.h"

/* Runs in the child between fork and exec: async-signal-safe calls only. */
static void NORETURN
child(const struct request *req, const struct workdir *wd,
    const struct landlock *ll, int errfd, pid_t parent)
{
	spawn_child_prepare(errfd);
	/*
	 * No setuid or file-capability exec can raise the payload's
	 * privileges: a process that became root could neither be killed by
	 * the helper nor be trusted to keep PR_SET_PDEATHSIG.
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		spawn_fail(3, SPAWN_NNP);
	/* If the helper dies, its direct child must not live on. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		spawn_fail(3, SPAWN_PDEATHSIG);
	if (fchdir(wd->fd) < 0)
		spawn_fail(3, SPAWN_CHDIR);
	/* The landlock backend: its domain (the ruleset fd is above 3). */
	if (ll != NULL)
		landlock_enter(ll);
	/* Nothing but stdio and the close-on-exec error pipe survives exec. */
	closefrom(4);
	if (spawn_rlimits(req) < 0)
		spawn_fail(3, SPAWN_RLIMIT);

	/* Set up: held here until the broker's GO (spawn.c). */
	spawn_barrier(3);
	/* execvp() searches the PATH of the environment it runs in. */
	environ = req->envp;
	execvp(req->argv[0], req->argv);
	spawn_fail(3, SPAWN_EXEC);
}

int
floor_spawn(const struct request *req, const struct workdir *wd,
    const struct landlock *ll, struct spawn *sp, char *err, size_t errsz)
{
	pid_t parent = getpid();
	int pfd[2], r;

	*sp = (struct spawn){ .pid = -1, .pidfd = -1, .status_fd = -1,
		.gate_fd = -1, .egress_fd = -1 };
	if (spawn_check_limits(req, err, errsz) < 0)
		return -1;
	/*
	 * fds 0-3 are taken (stdio, the socket), so these land above 3: the
	 * error socket, both ways for the barrier (spawn.c).
	 */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pfd) < 0)
		return ERR("socketpair: %s", strerror(errno));
	if ((sp->pid = cgroup_clone(0)) < 0) {
		r = ERR("fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return r;
	}
	if (sp->pid == 0) {
		close(pfd[0]);
		child(req, wd, ll, pfd[1], parent);
	}
	close(pfd[1]);
	/* Held before its exec: spawn_release() lets it go on GO. */
	if (spawn_wait_ready(pfd[0], err, errsz) < 0) {
		close(pfd[0]);
		(void)kill(sp->pid, SIGKILL);
		(void)waitpid(sp->pid, NULL, 0);
		sp->pid = -1;
		return -1;
	}
	sp->gate_fd = pfd[0];
	sp->pidfd = (int)syscall(SYS_pidfd_open, sp->pid, 0);
	return 0;
}
