/*
 * floor.c - starts the payload on the floor backend.
 *
 * The floor is the portable minimum, not a jail: a fresh process tree
 * (the payload leads its own session below the subreaper helper), the
 * ephemeral workdir as cwd, HOME and TMPDIR, an allow-listed environment
 * without proxy variables, rlimits, PR_SET_NO_NEW_PRIVS, and the caps the
 * monitor enforces.
 * It has no file-system or network boundary, and says so.
 *
 * Between fork and exec the child only makes async-signal-safe calls.  A
 * failure travels back over a close-on-exec pipe as (stage, errno): an
 * exec failure is the command's ("not found", 127; "cannot execute", 126,
 * told apart from a payload that itself exits 127), any earlier stage is
 * the sandbox's and becomes a sandbox error.
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
#include <sys/wait.h>
#include <unistd.h>

#include <bsd/unistd.h>

#include "helper.h"

/* What the child was doing when it failed; index into stage_names. */
enum stage {
	ST_EXEC, ST_SETSID, ST_NNP, ST_PDEATHSIG, ST_CHDIR, ST_RLIMIT_CPU,
	ST_RLIMIT_NOFILE, ST_RLIMIT_CORE, ST_MAX_
};

static const char *const stage_names[ST_MAX_] = {
	[ST_EXEC] = "execve",
	[ST_SETSID] = "setsid",
	[ST_NNP] = "PR_SET_NO_NEW_PRIVS",
	[ST_PDEATHSIG] = "PR_SET_PDEATHSIG",
	[ST_CHDIR] = "entering the workdir",
	[ST_RLIMIT_CPU] = "setting RLIMIT_CPU",
	[ST_RLIMIT_NOFILE] = "setting RLIMIT_NOFILE",
	[ST_RLIMIT_CORE] = "setting RLIMIT_CORE",
};

/*
 * RLIMIT_CPU is a per-process backstop just above the tree-wide cap, never
 * above the hard limit the helper itself was given.
 */
static rlim_t
cpu_backstop(uint64_t cpu_ns, rlim_t hard)
{
	rlim_t soft = (rlim_t)((cpu_ns + CORDON_NS_PER_SEC - 1) /
	    CORDON_NS_PER_SEC) + 1;

	return hard != RLIM_INFINITY && soft > hard ? hard : soft;
}

/* Reports (stage, errno) on fd 3 and exits; async-signal-safe. */
static void NORETURN
child_fail(enum stage stage)
{
	int msg[2] = { (int)stage, errno };

	(void)!write(3, msg, sizeof(msg));
	_exit(stage == ST_EXEC && (msg[1] == ENOENT || msg[1] == ENOTDIR) ?
	    127 : 126);
}

/* Runs in the child between fork and exec: async-signal-safe calls only. */
static void NORETURN
child(const struct request *req, const struct workdir *wd, int errfd,
    pid_t parent, rlim_t cpu_hard)
{
	struct sigaction sa;
	struct rlimit rl;
	sigset_t none;
	int sig;

	/*
	 * The error pipe goes to fd 3 first, close-on-exec, so every later
	 * failure is reported there (fd 3 was the broker socket: replaced).
	 */
	if (dup3(errfd, 3, O_CLOEXEC) < 0)
		_exit(126);
	/*
	 * Leave the helper's process group while signals are still blocked,
	 * so a terminal's SIGINT cannot kill the child before it is set up.
	 */
	if (setsid() < 0)
		child_fail(ST_SETSID);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);

	/*
	 * No setuid or file-capability exec can raise the payload's
	 * privileges: a process that became root could neither be killed by
	 * the helper nor be trusted to keep PR_SET_PDEATHSIG.
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(ST_NNP);
	/* If the helper dies, its direct child must not live on. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		child_fail(ST_PDEATHSIG);
	if (fchdir(wd->fd) < 0)
		child_fail(ST_CHDIR);
	/* Nothing but stdio and the close-on-exec error pipe survives exec. */
	closefrom(4);
	umask(022);

	rl.rlim_cur = cpu_backstop(req->limits.cpu_ns, cpu_hard);
	rl.rlim_max = cpu_hard == RLIM_INFINITY || rl.rlim_cur < cpu_hard ?
	    rl.rlim_cur + 1 : cpu_hard;
	if (setrlimit(RLIMIT_CPU, &rl) < 0)
		child_fail(ST_RLIMIT_CPU);
	rl.rlim_cur = rl.rlim_max = (rlim_t)req->limits.nofile;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		child_fail(ST_RLIMIT_NOFILE);
	rl.rlim_cur = rl.rlim_max = 0;
	if (setrlimit(RLIMIT_CORE, &rl) < 0)
		child_fail(ST_RLIMIT_CORE);

	/* execvp() searches the PATH of the environment it runs in. */
	environ = req->envp;
	execvp(req->argv[0], req->argv);
	child_fail(ST_EXEC);
}

int
floor_spawn(const struct request *req, const struct workdir *wd,
    struct spawn *sp, char *err, size_t errsz)
{
	char home[CORDON_MAX_PATH_LEN + 8], tmp[CORDON_MAX_PATH_LEN + 8];
	pid_t parent = getpid();
	struct rlimit cpu, nofile;
	int pfd[2], msg[2] = { 0, 0 }, r = -1;
	uint32_t n;
	ssize_t got;

	sp->pid = -1;
	sp->pidfd = -1;
	sp->exec_errno = 0;
	/* A cap tighter than asked would be a lie: refuse, and say why. */
	if (getrlimit(RLIMIT_CPU, &cpu) < 0 ||
	    getrlimit(RLIMIT_NOFILE, &nofile) < 0) {
		(void)fmt(err, errsz, "getrlimit: %s", strerror(errno));
		return -1;
	}
	if (nofile.rlim_max != RLIM_INFINITY &&
	    req->limits.nofile > (uint64_t)nofile.rlim_max) {
		(void)fmt(err, errsz, "the open-files cap %llu is above the "
		    "hard limit %llu cordon was started with",
		    (unsigned long long)req->limits.nofile,
		    (unsigned long long)nofile.rlim_max);
		return -1;
	}
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
		child(req, wd, pfd[1], parent, cpu.rlim_max);
	}
	close(pfd[1]);
	/* EOF with nothing read: the exec succeeded. */
	do {
		got = read(pfd[0], msg, sizeof(msg));
	} while (got < 0 && errno == EINTR);
	close(pfd[0]);
	if (got == (ssize_t)sizeof(msg) && msg[0] == ST_EXEC) {
		/* The command's fault, not ours: reported as 126 or 127. */
		sp->exec_errno = msg[1] != 0 ? msg[1] : EIO;
	} else if (got != 0) {
		/* The sandbox could not be set up: a sandbox error. */
		(void)fmt(err, errsz, "%s failed: %s",
		    got == (ssize_t)sizeof(msg) && msg[0] > 0 && msg[0] < ST_MAX_ ?
		    stage_names[msg[0]] : "preparing the payload",
		    got == (ssize_t)sizeof(msg) ? strerror(msg[1]) :
		    "no report from the child");
		(void)waitpid(sp->pid, NULL, 0);
		sp->pid = -1;
		goto out;
	}
	sp->pidfd = (int)syscall(SYS_pidfd_open, sp->pid, 0);
	r = 0;
out:
	req->envp[n] = NULL;
	req->envp[n + 1] = NULL;
	return r;
}
