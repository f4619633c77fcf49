/*
 * spawn.c - what every backend does the same way on the way to execve:
 * the rlimits, the check that the caps can be applied at all, the error
 * socket over which a child reports (stage, errno) if it fails before
 * execve (EOF means execve succeeded: it is close-on-exec), and the
 * barrier on that same socket where the child, fully set up, waits for
 * the helper's go before its execve (the broker's GO: the run's create
 * row is in the trace).
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helper.h"

static const char *const stage_names[SPAWN_MAX_] = {
	[SPAWN_EXEC] = "execve",
	[SPAWN_SETSID] = "setsid",
	[SPAWN_NNP] = "PR_SET_NO_NEW_PRIVS",
	[SPAWN_PDEATHSIG] = "PR_SET_PDEATHSIG",
	[SPAWN_CHDIR] = "entering the workdir",
	[SPAWN_RLIMIT] = "setting the rlimits",
	[SPAWN_IDS] = "taking the payload's uid and gid",
	[SPAWN_MOUNT_PRIVATE] = "making the mounts private",
	[SPAWN_SYSTEM_DIRS] = "mounting the system directories",
	[SPAWN_WORKDIR] = "mounting the workdir",
	[SPAWN_ROOT] = "building the new root",
	[SPAWN_PROC] = "mounting /proc",
	[SPAWN_TMP] = "mounting /tmp",
	[SPAWN_DEV] = "building /dev",
	[SPAWN_DEVPTS] = "mounting /dev/pts",
	[SPAWN_PIVOT] = "pivot_root",
	[SPAWN_HOSTNAME] = "setting the hostname",
	[SPAWN_LOOPBACK] = "bringing loopback up",
	[SPAWN_FORK] = "forking the payload",
	[SPAWN_CAPS] = "dropping capabilities",
	[SPAWN_SECCOMP] = "loading the seccomp filter",
	[SPAWN_LANDLOCK] = "entering the Landlock domain",
	[SPAWN_BIND] = "mounting the --ro-bind paths",
	[SPAWN_READY] = "waiting for the broker's go",
	[SPAWN_EGRESS] = "making the egress proxy's listener",
};

void
spawn_set_home(struct request *req, const char *dir)
{
	static char home[CORDON_MAX_PATH_LEN + 8], tmp[CORDON_MAX_PATH_LEN + 8];

	/* intake.c left exactly these two slots after the envc entries. */
	if (!fmt(home, sizeof(home), "HOME=%s", dir) ||
	    !fmt(tmp, sizeof(tmp), "TMPDIR=%s", dir))
		die("workdir path too long");
	req->envp[req->envc] = home;
	req->envp[req->envc + 1] = tmp;
}

int
spawn_check_limits(const struct request *req, char *err, size_t errsz)
{
	struct rlimit nofile;

	/* A cap tighter than asked would be a lie: refuse, and say why. */
	if (getrlimit(RLIMIT_NOFILE, &nofile) < 0)
		return ERR("getrlimit: %s", strerror(errno));
	if (nofile.rlim_max != RLIM_INFINITY &&
	    req->limits.nofile > (uint64_t)nofile.rlim_max)
		return ERR("the open-files cap %llu is above the hard limit "
		    "%llu cordon was started with",
		    (unsigned long long)req->limits.nofile,
		    (unsigned long long)nofile.rlim_max);
	return 0;
}

int
spawn_rlimits(const struct request *req)
{
	struct rlimit rl, cpu;
	rlim_t soft;

	/*
	 * RLIMIT_CPU is the kernel's per-process backstop under the
	 * tree-wide cap, for when the monitor cannot act (its invoker may
	 * SIGSTOP a setuid helper): SIGXCPU at the cap rounded up to whole
	 * seconds, SIGKILL a second later if that is ignored; never above the
	 * hard limit we were given.  The kernel counts it in scheduler ticks,
	 * so it may fire a little before the monitor's exact figure reaches
	 * the cap; monitor.c types the payload's SIGXCPU as the CPU cap.
	 */
	if (getrlimit(RLIMIT_CPU, &cpu) < 0)
		return -1;
	soft = (rlim_t)((req->limits.cpu_ns + CORDON_NS_PER_SEC - 1) /
	    CORDON_NS_PER_SEC);
	if (cpu.rlim_max != RLIM_INFINITY && soft >= cpu.rlim_max) {
		rl.rlim_cur = rl.rlim_max = cpu.rlim_max;
	} else {
		rl.rlim_cur = soft;
		rl.rlim_max = soft + 1;
	}
	if (setrlimit(RLIMIT_CPU, &rl) < 0)
		return -1;
	rl.rlim_cur = rl.rlim_max = (rlim_t)req->limits.nofile;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	/* No single file can outgrow the disk cap (SIGXFSZ; monitor.c). */
	rl.rlim_cur = rl.rlim_max = req->limits.disk_bytes != 0 ?
	    (rlim_t)req->limits.disk_bytes : RLIM_INFINITY;
	if (req->limits.disk_bytes != 0 && setrlimit(RLIMIT_FSIZE, &rl) < 0)
		return -1;
	rl.rlim_cur = rl.rlim_max = 0;
	return setrlimit(RLIMIT_CORE, &rl);
}

void
spawn_child_prepare(int errfd)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t none;
	int sig;

	/*
	 * The error pipe goes to fd 3 first, close-on-exec, so every later
	 * failure is reported there (fd 3 was the broker socket: replaced).
	 */
	if (errfd != 3 && dup2(errfd, 3) < 0)
		_exit(126);
	/* dup2 + FD_CLOEXEC (no dup3 on macOS): this child has one thread. */
	if (fcntl(3, F_SETFD, FD_CLOEXEC) < 0)
		_exit(126);
	/*
	 * Leave the helper's process group while signals are still blocked,
	 * so a terminal's SIGINT cannot kill the child before it is set up;
	 * then undo the helper's signal set-up: the payload starts clean.
	 */
	if (setsid() < 0)
		spawn_fail(3, SPAWN_SETSID);
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	umask(022);
}

void
spawn_fail(int fd, enum spawn_stage stage)
{
	int msg[2] = { (int)stage, errno };

	(void)!write(fd, msg, sizeof(msg));
	_exit(stage == SPAWN_EXEC && (msg[1] == ENOENT || msg[1] == ENOTDIR) ?
	    127 : 126);
}

/* One (stage, errno) report from a child; its length, 0 at EOF. */
static ssize_t
read_report(int fd, int msg[2])
{
	ssize_t got;

	do {
		got = read(fd, msg, 2 * sizeof(int));
	} while (got < 0 && errno == EINTR);
	return got;
}

/* A child's report of a failed set-up, as the sandbox error it is. */
static int
report_error(ssize_t got, const int msg[2], char *err, size_t errsz)
{
	return ERR("%s failed: %s",
	    got == (ssize_t)(2 * sizeof(int)) && msg[0] > 0 &&
	    msg[0] < SPAWN_MAX_ ? stage_names[msg[0]] : "preparing the payload",
	    got == (ssize_t)(2 * sizeof(int)) ? strerror(msg[1]) :
	    "no report from the child");
}

int
spawn_wait_exec(int fd, struct spawn *sp, char *err, size_t errsz)
{
	int msg[2] = { 0, 0 };
	ssize_t got;

	got = read_report(fd, msg);
	if (got == 0)
		return 0;
	if (got == (ssize_t)sizeof(msg) && msg[0] == SPAWN_EXEC) {
		/* The command's fault, not ours: reported as 126 or 127. */
		sp->exec_errno = msg[1] != 0 ? msg[1] : EIO;
		return 0;
	}
	/* The sandbox could not be set up: a sandbox error. */
	return report_error(got, msg, err, errsz);
}

/*
 * Why the barrier is safe: the child has given up everything it will
 * give up (capabilities, ids, seccomp, Landlock, rlimits) before it gets
 * here, and reads one byte of the helper's; nothing it reads can change
 * what it execs.  A child that is never let go only ever leaves here by
 * _exit or by the helper's SIGKILL (tree_kill, or the death signal).
 */
void
spawn_barrier(int fd)
{
	int msg[2] = { SPAWN_READY, 0 };
	ssize_t n;
	char c = 0;

	if (write(fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		_exit(126);
	do {
		n = read(fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1 || c != 'g')
		_exit(126);
}

int
spawn_wait_ready(int fd, char *err, size_t errsz)
{
	int msg[2] = { 0, 0 };
	ssize_t got;

	got = read_report(fd, msg);
	if (got == (ssize_t)sizeof(msg) && msg[0] == SPAWN_READY)
		return 0;
	return report_error(got, msg, err, errsz);
}

int
spawn_release(struct spawn *sp, char *err, size_t errsz)
{
	int r;

	/* EPIPE (SIGPIPE is ignored): the held child is already gone. */
	if (write(sp->gate_fd, "g", 1) != 1)
		r = ERR("the payload ended before its exec: %s",
		    strerror(errno));
	else
		r = spawn_wait_exec(sp->gate_fd, sp, err, errsz);
	close(sp->gate_fd);
	sp->gate_fd = -1;
	return r;
}
