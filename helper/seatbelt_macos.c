/*
 * seatbelt_macos.c - the seatbelt backend's macOS side: canonical paths,
 * the probe, sandbox-exec, the monitor over the tree, the kill.
 *
 * Verified where: the profile (sbpl.c) is unit-tested and evaluated by
 * tinyscheme on Linux (tests/test_sbpl.c).  This file is compiled and
 * linked against macOS's libc and libproc for aarch64-macos and
 * x86_64-macos by zig (tools/macos-cross.sh, make check-macos-cross),
 * with tests/macos/driver.c.  It has NOT been run: no Mac in CI.  What
 * it shares with Linux is shared code, tested there: spawn.c (the
 * rlimits RLIMIT_CPU, RLIMIT_NOFILE, RLIMIT_FSIZE, RLIMIT_CORE, the
 * child's set-up and the error pipe), util.c (die, fmt, clocks), and
 * helper.h's request and result, and caps.c (which cap a sample passed,
 * the final accounting, SIGXCPU as the CPU cap).  monitor.c's loop
 * itself is Linux-only (signalfd, timerfd, pidfd).
 *
 * Sandbox errors apart from the payload's: sandbox-exec says by its
 * exit status that it refused a profile (65) or could not apply it (71),
 * statuses a payload may exit with too.  So every run's profile is
 * first applied to /usr/bin/true (try_profile; the probe does the same
 * with a trivial profile): a refusal there is a sandbox error, and the
 * payload's status is then its own.
 *
 * The tree, without a subreaper (macOS has none): a process whose
 * parent exits is re-parented to launchd (pid 1), not to us.  So each
 * sample walks proc_listchildpids() from the payload down and remembers
 * every pid it ever saw, with its start time (proc_pidinfo
 * PROC_PIDTBSDINFO) so a reused pid is never signalled.  The kill
 * signals the payload's process group (it is a session leader: spawn.c
 * setsid()s it) and every remembered process still alive with the same
 * start time.  What it CANNOT find: a process that was forked and whose
 * parent exited between two samples (at most one tick, 50 ms) *and*
 * that left the process group (setsid, or setpgid) - it belongs to
 * launchd and nothing links it to the run.  It stays confined (the
 * sandbox is inherited) but may outlive the run.  Counted in its
 * memory and CPU only while it was seen.
 */
#ifdef __APPLE__

#include "config.h"

#include <libproc.h>
#include <mach/mach_time.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/proc_info.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "helper.h"
#include "sbpl.h"

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"   /* never one on PATH */
#define TICK_NS (50ULL * 1000 * 1000)
#define MAX_SEEN 4096                          /* processes remembered */
#define MAX_ARGS 4096                          /* argv of sandbox-exec */

struct seen {
	pid_t pid;
	uint64_t start;         /* pbi_start_tvsec * 1e6 + usec: identity */
};

struct tree {
	struct seen v[MAX_SEEN];
	size_t n;
	bool overflow;          /* more than MAX_SEEN: the run is killed */
};

int
seatbelt_canonical(const char *in, char *out, char *err, size_t errsz)
{
	if (realpath(in, out) == NULL)
		return ERR("%s: %s", in, strerror(errno));
	return 0;
}

/* Start time of pid, 0 if it is gone. */
static uint64_t
start_of(pid_t pid)
{
	struct proc_bsdinfo bi;

	if (proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, sizeof(bi)) !=
	    (int)sizeof(bi))
		return 0;
	return (uint64_t)bi.pbi_start_tvsec * 1000000ULL + bi.pbi_start_tvusec;
}

static void
remember(struct tree *t, pid_t pid)
{
	uint64_t start = start_of(pid);
	size_t i;

	if (start == 0)
		return;
	for (i = 0; i < t->n; i++)
		if (t->v[i].pid == pid && t->v[i].start == start)
			return;
	if (t->n == MAX_SEEN) {
		t->overflow = true;
		return;
	}
	t->v[t->n].pid = pid;
	t->v[t->n].start = start;
	t->n++;
}

/*
 * ri_user_time and ri_system_time are in mach absolute time units
 * (nanoseconds on Intel, not on Apple silicon): converted.
 */
static uint64_t
mach_ns(uint64_t t)
{
	static mach_timebase_info_data_t tb;

	if (tb.denom == 0)
		(void)mach_timebase_info(&tb);
	return tb.denom == 0 ? t : t * tb.numer / tb.denom;
}

/*
 * One sample: walks the live tree from root (breadth first over
 * proc_listchildpids), remembering every pid; sums CPU (own plus
 * reaped children's) and the phys footprint (what Activity Monitor
 * calls memory: dirty and compressed pages, not shared clean ones).
 */
static void
sample(struct tree *t, pid_t root, struct tree_sample *s)
{
	static pid_t queue[MAX_SEEN], kids[MAX_SEEN];
	size_t head = 0, tail = 0;
	struct rusage_info_v2 ri;
	int i, n;

	memset(s, 0, sizeof(*s));
	queue[tail++] = root;
	while (head < tail) {
		pid_t pid = queue[head++];

		if (proc_pid_rusage(pid, RUSAGE_INFO_V2,
		    (rusage_info_t *)&ri) == 0) {
			s->cpu_ns += mach_ns(ri.ri_user_time +
			    ri.ri_system_time + ri.ri_child_user_time +
			    ri.ri_child_system_time);
			s->mem_bytes += ri.ri_phys_footprint;
			s->nproc++;
		}
		remember(t, pid);
		/*
		 * Its count of pids (bytes in some releases: the zeroed
		 * rest is skipped), clamped to the buffer either way.
		 */
		memset(kids, 0, sizeof(kids));
		n = proc_listchildpids(pid, kids, (int)sizeof(kids));
		if (n > MAX_SEEN)
			n = MAX_SEEN;
		for (i = 0; i < n && tail < MAX_SEEN; i++)
			if (kids[i] > 0)
				queue[tail++] = kids[i];
		if (n > 0 && tail == MAX_SEEN)
			t->overflow = true;
	}
}

/* The whole tree: its group, then every remembered process still alive. */
static void
kill_tree(const struct tree *t, pid_t root)
{
	size_t i;

	(void)kill(-root, SIGKILL);
	for (i = 0; i < t->n; i++)
		if (start_of(t->v[i].pid) == t->v[i].start)
			(void)kill(t->v[i].pid, SIGKILL);
}

/*
 * caps.c's order (CPU, then memory), then the wall.  No process cap on
 * this backend: RLIMIT_NPROC is per user on macOS, not per sandbox.
 */
static bool
over_cap(const struct request *req, struct tree_sample *s, uint64_t wall,
    struct monitor_result *res)
{
	s->nproc = 0;
	if (cap_check(req, s, res))
		return true;
	if (wall < req->limits.wall_ns)
		return false;
	cap_set(res, CORDON_CAP_WALL, wall, req->limits.wall_ns);
	return true;
}

/*
 * In the child: the rlimits, the workdir, held at the barrier until the
 * broker's GO (spawn.c), then sandbox-exec - or, with argv NULL (the
 * floor), the command itself, found on its own environment's PATH.
 */
static NORETURN void
child(const struct request *req, const char *workdir, char *const *argv,
    int errfd)
{
	extern char **environ;

	spawn_child_prepare(errfd);
	if (chdir(workdir) < 0)
		spawn_fail(3, SPAWN_CHDIR);
	if (spawn_rlimits(req) < 0)
		spawn_fail(3, SPAWN_RLIMIT);
	spawn_barrier(3);
	if (argv != NULL)
		execve(SANDBOX_EXEC, argv, req->envp);
	else {
		environ = req->envp;
		execvp(req->argv[0], req->argv);
	}
	spawn_fail(3, SPAWN_EXEC);
}

static void
free_argv(char **v, size_t nparams)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < nparams; i++)
		free(v[4 + 2 * i]);
	free(v);
}

/*
 * sandbox-exec -p PROFILE -D K=V ... -- CMD ARGS, NULL-terminated; the
 * K=V strings are at 4, 6, ... (free_argv).  Each value is one argv
 * entry of its own: sandbox-exec splits it at the first '=' (no key has
 * one) and hands the rest to the profile as a string, never parsed.
 */
static char **
exec_argv(const struct sbpl_profile *p, char *const *cmd, size_t ncmd)
{
	size_t n = 4 + 2 * p->nparams + ncmd + 1, i, k = 0;
	char **v;

	if (n > MAX_ARGS || (v = calloc(n, sizeof(*v))) == NULL)
		return NULL;
	v[k++] = SANDBOX_EXEC;
	v[k++] = "-p";
	v[k++] = p->text;
	for (i = 0; i < p->nparams; i++) {
		v[k++] = "-D";
		if (asprintf(&v[k], "%s=%s", p->params[i].key,
		    p->params[i].value) < 0) {
			v[k] = NULL;
			free_argv(v, i);
			return NULL;
		}
		k++;
	}
	v[k++] = "--";
	for (i = 0; i < ncmd; i++)
		v[k++] = cmd[i];
	v[k] = NULL;
	return v;
}

/*
 * Runs /usr/bin/true under profile p: 0 if sandbox-exec compiled and
 * applied it, else -1 and why, with the first line sandbox-exec wrote.
 * Both the probe and every run's pre-flight: sandbox-exec reports a
 * profile it refuses (65) or cannot apply (71, inside another sandbox)
 * by its exit status, which a payload could also exit with, so the
 * run's own profile is tried before the payload is started.
 */
static int
try_profile(const struct sbpl_profile *p, char *err, size_t errsz)
{
	char *cmd[] = { "/usr/bin/true" }, *envp[] = { NULL }, **argv;
	int out[2], status = 0;
	char msg[256];
	ssize_t got;
	pid_t pid;

	if (access(SANDBOX_EXEC, X_OK) < 0)
		return ERR("%s: %s", SANDBOX_EXEC, strerror(errno));
	argv = exec_argv(p, cmd, 1);
	if (argv == NULL)
		return ERR("sandbox-exec's arguments: %s", strerror(ENOMEM));
	if (pipe(out) < 0) {
		free_argv(argv, p->nparams);
		return ERR("pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid == 0) {
		(void)dup2(out[1], 2);
		(void)dup2(out[1], 1);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	free_argv(argv, p->nparams);
	close(out[1]);
	if (pid < 0) {
		close(out[0]);
		return ERR("fork: %s", strerror(errno));
	}
	do {
		got = read(out[0], msg, sizeof(msg) - 1);
	} while (got < 0 && errno == EINTR);
	close(out[0]);
	msg[got > 0 ? got : 0] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return ERR("waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return ERR("%s refused the profile (exit %d%s%s)", SANDBOX_EXEC,
	    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
	    msg[0] != '\0' ? ": " : "", msg);
}

int
seatbelt_probe(char *why, size_t whysz)
{
	struct sbpl_profile trivial = { .text = "(version 1)(allow default)" };

	return try_profile(&trivial, why, whysz);
}

/* Exited, not yet reaped (so its pid, the group's id, stays ours). */
static bool
ended(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;
	return si.si_pid == pid;
}

static uint64_t
reaped_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
	    CORDON_NS_PER_SEC + (uint64_t)(ru.ru_utime.tv_usec +
	    ru.ru_stime.tv_usec) * 1000;
}

int
seatbelt_start(const struct request *req, const struct sbpl_profile *p,
    const char *workdir, struct spawn *sp, char *err, size_t errsz)
{
	char **argv = NULL;
	int pfd[2], r;

	*sp = (struct spawn){ .pid = -1, .pidfd = -1, .status_fd = -1,
		.gate_fd = -1, .egress_fd = -1 };
	if (spawn_check_limits(req, err, errsz) < 0 ||
	    (p != NULL && try_profile(p, err, errsz) < 0))
		return -1;
	if (p != NULL && (argv = exec_argv(p, req->argv, req->argc)) == NULL)
		return ERR("sandbox-exec's arguments: %s", strerror(ENOMEM));
	/*
	 * Both ways for the barrier, like floor.c's (no SOCK_SEQPACKET for
	 * unix sockets on macOS: a stream, whose reports are 8 bytes).
	 */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pfd) < 0 ||
	    fcntl(pfd[0], F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(pfd[1], F_SETFD, FD_CLOEXEC) < 0) {
		free_argv(argv, p != NULL ? p->nparams : 0);
		return ERR("socketpair: %s", strerror(errno));
	}
	sp->pid = fork();
	if (sp->pid == 0) {
		close(pfd[0]);
		child(req, workdir, argv, pfd[1]);
	}
	free_argv(argv, p != NULL ? p->nparams : 0);
	close(pfd[1]);
	if (sp->pid < 0) {
		r = ERR("fork: %s", strerror(errno));
		close(pfd[0]);
		return r;
	}
	/* Held before its exec: spawn_release() lets it go on GO. */
	if (spawn_wait_ready(pfd[0], err, errsz) < 0) {
		close(pfd[0]);
		(void)kill(sp->pid, SIGKILL);
		(void)waitpid(sp->pid, NULL, 0);
		sp->pid = -1;
		return -1;
	}
	sp->gate_fd = pfd[0];
	return 0;
}

void
seatbelt_abandon(struct spawn *sp)
{
	if (sp->gate_fd >= 0)
		close(sp->gate_fd);
	sp->gate_fd = -1;
	if (sp->pid > 0) {
		(void)kill(-sp->pid, SIGKILL);
		(void)kill(sp->pid, SIGKILL);
		while (waitpid(sp->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	sp->pid = -1;
}

/* Something to read on stop_fd (the broker's message or its EOF). */
static bool
stop_ready(int stop_fd)
{
	struct pollfd pfd = { stop_fd, POLLIN, 0 };

	return stop_fd >= 0 && poll(&pfd, 1, 0) > 0;
}

void
seatbelt_follow(const struct request *req, struct spawn *sp, bool sandboxed,
    uint64_t start, int stop_fd, const volatile sig_atomic_t *signalled,
    struct monitor_result *res)
{
	static struct tree t;
	struct tree_sample s;
	struct timespec tick = { 0, (long)TICK_NS };
	uint64_t wall, reaped;
	int status = 0;

	memset(res, 0, sizeof(*res));
	memset(&t, 0, sizeof(t));
	res->outcome = CORDON_OUTCOME_EXITED;
	while (!ended(sp->pid)) {
		sample(&t, sp->pid, &s);
		wall = now_ns() - start;
		if (s.mem_bytes > res->max_mem)
			res->max_mem = s.mem_bytes;
		if (s.cpu_ns > res->cpu_ns)
			res->cpu_ns = s.cpu_ns;
		if (over_cap(req, &s, wall, res))
			break;
		if (t.overflow) {
			res->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
			(void)cordon_errf(res->error, sizeof(res->error),
			    "more than %d processes to follow", MAX_SEEN);
			break;
		}
		/* Told to stop (the broker's cancel): interrupted. */
		if (signalled != NULL && *signalled != 0) {
			res->outcome = CORDON_OUTCOME_SIGNALED;
			res->signal = (int)*signalled;
			(void)cordon_errf(res->error, sizeof(res->error),
			    "interrupted by signal %d", res->signal);
			break;
		}
		/* Nothing is expected from the broker now: anything ends it. */
		if (stop_ready(stop_fd)) {
			res->broker_gone = true;
			res->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
			(void)cordon_errf(res->error, sizeof(res->error),
			    "the broker went away");
			break;
		}
		(void)nanosleep(&tick, NULL);
	}
	/* Before the payload is reaped: its pid names the group till then. */
	kill_tree(&t, sp->pid);
	while (waitpid(sp->pid, &status, 0) < 0 && errno == EINTR)
		;
	sp->pid = -1;
	res->wall_ns = now_ns() - start;
	reaped = reaped_cpu_ns();
	if (reaped > res->cpu_ns)
		res->cpu_ns = reaped;
	if (res->outcome == CORDON_OUTCOME_EXITED && WIFSIGNALED(status)) {
		res->outcome = CORDON_OUTCOME_SIGNALED;
		res->signal = WTERMSIG(status);
		res->exit_code = -1;
	} else if (res->outcome == CORDON_OUTCOME_EXITED) {
		res->exit_code = WEXITSTATUS(status);
		/* The floor's command not found: 127, said as on Linux. */
		if (!sandboxed && sp->exec_errno != 0)
			(void)cordon_errf(res->error, sizeof(res->error),
			    "cannot run '%s': %s", req->argv[0],
			    strerror(sp->exec_errno));
	} else if (res->outcome == CORDON_OUTCOME_SIGNALED) {
		res->exit_code = -1; /* interrupted: the tree was killed */
	}
	/*
	 * As on Linux: the final figures, and SIGXCPU as the CPU cap - not
	 * for a run told to stop or left by the broker, which ends as that
	 * whatever it used.
	 */
	if (!res->broker_gone && (signalled == NULL || *signalled == 0))
		cap_final(req, res);
}

int
seatbelt_release(struct spawn *sp, bool sandboxed, char *err, size_t errsz)
{
	if (spawn_release(sp, err, errsz) < 0)
		return -1;
	/* sandbox-exec itself could not be run: not the payload's. */
	if (sandboxed && sp->exec_errno != 0)
		return ERR("%s: %s", SANDBOX_EXEC, strerror(sp->exec_errno));
	return 0;
}

int
seatbelt_run(const struct request *req, const struct sbpl_profile *p,
    const char *workdir, struct monitor_result *res, char *err,
    size_t errsz)
{
	struct spawn sp;
	uint64_t start;

	memset(res, 0, sizeof(*res));
	if (seatbelt_start(req, p, workdir, &sp, err, errsz) < 0)
		return -1;
	start = now_ns();
	if (seatbelt_release(&sp, p != NULL, err, errsz) < 0) {
		seatbelt_abandon(&sp);
		return -1;
	}
	seatbelt_follow(req, &sp, p != NULL, start, -1, NULL, res);
	return 0;
}

#endif /* __APPLE__ */
