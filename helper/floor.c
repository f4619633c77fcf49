/*
 * floor.c - starts the payload on the floor backend.
 *
 * The floor is the portable minimum, not a jail: a fresh process tree
 * (the payload leads its own session below the subreaper helper), the
 * ephemeral workdir as cwd, HOME and TMPDIR, an allow-listed environment
 * without proxy variables, rlimits, and the caps the monitor enforces.
 * It has no file-system or network boundary, and says so.
 *
 * Between fork and exec the child only makes async-signal-safe calls.  An
 * exec failure travels back over a close-on-exec pipe as an errno, so the
 * helper tells "command not found" (127) and "cannot execute" (126) from
 * a payload that itself exits 127.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bsd/unistd.h>

#include "helper.h"

extern char **environ;

/* RLIMIT_CPU is a per-process backstop just above the tree-wide cap. */
static rlim_t
cpu_backstop(uint64_t cpu_ns)
{
	return (rlim_t)((cpu_ns + CORDON_NS_PER_SEC - 1) / CORDON_NS_PER_SEC) + 1;
}

/* Runs in the child between fork and exec: async-signal-safe calls only. */
static void NORETURN
child(const struct request *req, const struct workdir *wd, int errfd,
    pid_t parent)
{
	struct sigaction sa;
	struct rlimit rl;
	sigset_t all;
	int sig, e;

	/* Undo the helper's signal set-up: the payload starts clean. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, NULL);

	if (setsid() < 0)
		goto fail;
	/* If the helper dies, its direct child must not live on. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		goto fail;
	if (fchdir(wd->fd) < 0)
		goto fail;
	/* The error pipe goes to fd 3, close-on-exec; nothing else leaks. */
	if (errfd != 3 && dup3(errfd, 3, O_CLOEXEC) < 0)
		goto fail;
	closefrom(4);
	umask(022);

	rl.rlim_cur = cpu_backstop(req->limits.cpu_ns);
	rl.rlim_max = rl.rlim_cur + 1;
	if (setrlimit(RLIMIT_CPU, &rl) < 0)
		goto fail;
	rl.rlim_cur = rl.rlim_max = (rlim_t)req->limits.nofile;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		goto fail;
	rl.rlim_cur = rl.rlim_max = 0;
	if (setrlimit(RLIMIT_CORE, &rl) < 0)
		goto fail;

	/* execvp() searches the PATH of the environment it runs in. */
	environ = req->envp;
	execvp(req->argv[0], req->argv);
fail:
	e = errno;
	(void)!write(3, &e, sizeof(e));
	_exit(e == ENOENT || e == ENOTDIR ? 127 : 126);
}

int
floor_spawn(const struct request *req, const struct workdir *wd,
    struct spawn *sp, char *err, size_t errsz)
{
	char home[CORDON_MAX_PATH_LEN + 8], tmp[CORDON_MAX_PATH_LEN + 8];
	pid_t parent = getpid();
	int pfd[2], e = 0;
	uint32_t n;
	ssize_t got;

	sp->pid = -1;
	sp->pidfd = -1;
	sp->exec_errno = 0;
	/* intake.c left two free slots at the end of envp for these. */
	for (n = 0; req->envp[n] != NULL; n++)
		;
	if (!fmt(home, sizeof(home), "HOME=%s", wd->path) ||
	    !fmt(tmp, sizeof(tmp), "TMPDIR=%s", wd->path)) {
		(void)fmt(err, errsz, "workdir path too long");
		return -1;
	}
	req->envp[n] = home;
	req->envp[n + 1] = tmp;

	/* fds 0-3 are taken (stdio, the socket), so the pipe lands above 3. */
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		(void)fmt(err, errsz, "pipe: %s", strerror(errno));
		goto out;
	}
	sp->pid = fork();
	if (sp->pid < 0) {
		(void)fmt(err, errsz, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		goto out;
	}
	if (sp->pid == 0) {
		close(pfd[0]);
		child(req, wd, pfd[1], parent);
	}
	close(pfd[1]);
	/* EOF with nothing read: the exec succeeded. */
	do {
		got = read(pfd[0], &e, sizeof(e));
	} while (got < 0 && errno == EINTR);
	close(pfd[0]);
	if (got == (ssize_t)sizeof(e))
		sp->exec_errno = e != 0 ? e : EIO;
	sp->pidfd = (int)syscall(SYS_pidfd_open, sp->pid, 0);
out:
	req->envp[n] = NULL;
	req->envp[n + 1] = NULL;
	return sp->pid < 0 ? -1 : 0;
}
