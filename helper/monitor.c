/*
 * monitor.c - the one poll loop that enforces the caps and ends the run.
 *
 * It waits on: the payload's pidfd (and SIGCHLD through the signalfd, for
 * orphans that need reaping), a one-shot sampling timerfd, an absolute
 * wall-clock timerfd, the signalfd (SIGTERM, SIGINT, SIGHUP, SIGQUIT end
 * the run; SIGTSTP, SIGTTIN, SIGTTOU are ignored) and the broker socket
 * (EOF means the broker is gone).  No signal handler runs: every event
 * is an fd.
 *
 * Sampling is adaptive: the next sample comes no later than the earliest
 * moment any cap could be crossed - the CPU left divided by the online
 * CPUs, the memory left at 4 GiB/s - between 5 ms and 100 ms.  A run far
 * from its caps costs a few /proc reads ten times a second; one close to
 * its memory cap is watched every few milliseconds, which bounds the
 * overshoot.  Whatever ends the run, the loop then kills the whole tree
 * and reaps it before the final figures are taken, and those are held
 * against the caps once more: a loop that did not run (the invoker may
 * SIGSTOP a setuid helper) still reports a cap passed meanwhile, by how
 * much, while RLIMIT_CPU (spawn.c) bounded each process.
 *
 * Output cap: the payload's stdout and stderr are pipes (helper.c) that
 * this loop copies to the helper's own fds 1 and 2, counting; the byte
 * past the cap is never written and ends the run (cap output), so the
 * destination holds exactly the cap.  Disk cap: the workdir is measured
 * (workdir_usage: st_blocks over a walk that follows no link) at most
 * every DISK_EVERY_NS, or ten times as long as the last walk took, and
 * once more after the kill; RLIMIT_FSIZE (spawn.c) stops any one file at
 * the cap in between, and the SIGXFSZ it sends is reported as cap disk
 * only if the workdir really is full.  A workdir that cannot be measured
 * (deeper than WALK_MAX_DEPTH, too many entries) counts as full.
 */
#include "config.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include "helper.h"

#define TICK_MIN_NS 5000000ULL      /* 5 ms */
#define TICK_MAX_NS 100000000ULL    /* 100 ms */
/*
 * Where only the samples hold the process cap (the floor, Landlock, and
 * linux-ns without a user namespace to count in), at most this long
 * between two: a fork bomb run by root, whom RLIMIT_NPROC does not hold,
 * filled a 32,768-entry pid table within a 100 ms tick.
 */
#define TICK_NPROC_NS 10000000ULL   /* 10 ms */
#define MEM_RATE_BYTES_PER_NS 4ULL  /* ~4 GiB/s, a fast allocator */

#define DISK_EVERY_NS 100000000ULL /* 100 ms */

enum { PFD_SOCK, PFD_SIG, PFD_TICK, PFD_WALL, PFD_PIDFD, PFD_OUT, PFD_ERR,
	PFD_CG, PFD_N };

static void
arm(int tfd, uint64_t ns, bool absolute)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(ns / CORDON_NS_PER_SEC);
	its.it_value.tv_nsec = (long)(ns % CORDON_NS_PER_SEC);
	if (timerfd_settime(tfd, absolute ? TFD_TIMER_ABSTIME : 0, &its,
	    NULL) < 0)
		die_errno("timerfd_settime");
}

static uint64_t
next_tick(const struct request *req, const struct spawn *sp,
    const struct tree_sample *s, long ncpu)
{
	uint64_t t = TICK_MAX_NS, left;

	if (req->limits.nproc != 0 && !sp->nproc_init)
		t = TICK_NPROC_NS;

	if (s->cpu_ns < req->limits.cpu_ns) {
		left = (req->limits.cpu_ns - s->cpu_ns) / (uint64_t)ncpu;
		if (left < t)
			t = left;
	}
	if (s->mem_bytes < req->limits.memory_bytes) {
		left = (req->limits.memory_bytes - s->mem_bytes) /
		    MEM_RATE_BYTES_PER_NS;
		if (left < t)
			t = left;
	}
	return t < TICK_MIN_NS ? TICK_MIN_NS : t;
}

/*
 * One sample of the tree; a memory figure over the cap by the cheap count
 * (an upper bound) is replaced by the exact one before anything decides,
 * and so is a task count over the process cap: by the tasks that
 * coexisted (a walk can add up ones that never did; tree.c).  Where the
 * linux-ns init watches the process cap (ns.c), it decides, exactly.
 */
static int
measure(const struct request *req, const struct spawn *sp,
    struct tree_sample *s)
{
	bool has_init = sp->status_fd >= 0;
	int r = tree_sample(s, has_init);
	uint32_t n;

	/*
	 * A walk stops counting past the process cap (tree.c); if the tree
	 * was within it after all, the CPU and memory of a whole walk are
	 * what the caps are checked against, not the part.
	 */
	if (!sp->nproc_init && req->limits.nproc != 0 &&
	    s->nproc > req->limits.nproc) {
		n = tree_recheck(has_init);
		if (n <= req->limits.nproc)
			r = tree_sample_whole(s, has_init);
		s->nproc = n;
	}
	if (s->mem_bytes > req->limits.memory_bytes)
		s->mem_bytes = tree_pss();
	/* The init's to decide: a walk could count its test fork. */
	if (sp->nproc_init)
		s->nproc = 0;
	return r;
}

/*
 * Copies what fd (a non-blocking pipe) holds, at most 2 MiB per call so
 * the other caps are still watched, to dst, counting against *left;
 * returns true once the payload wrote past the output cap.  At EOF *fd
 * is closed and becomes -1.  A pipe holds at most 1 MiB (pipe-max-size
 * for an unprivileged payload), so one call after the kill drains it.
 */
static bool
pump(int *fd, int dst, uint64_t *left)
{
	static char buf[65536];
	ssize_t n, w;
	size_t want, off;
	int k;

	for (k = 0; k < 32; k++) {
		want = *left < sizeof(buf) - 1 ? (size_t)*left + 1 : sizeof(buf);
		n = read(*fd, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0) {
				close(*fd);
				*fd = -1;
			}
			return false;
		}
		/* Not the byte past the cap: the destination holds the cap. */
		want = (uint64_t)n > *left ? (size_t)*left : (size_t)n;
		for (off = 0; off < want; off += (size_t)w)
			if ((w = write(dst, buf + off, want - off)) <= 0 &&
			    errno != EINTR)
				break; /* a reader gone: the output is dropped */
			else if (w < 0)
				w = 0;
		if ((uint64_t)n > *left)
			return true;
		*left -= (uint64_t)n;
	}
	return false;
}

/* The payload's own end, as it happened (cap_final() types caps). */
static void
payload_outcome(const struct request *req, const struct spawn *sp,
    int status, struct monitor_result *res)
{
	/* The init found the namespace full: one task past the cap. */
	if (sp->nproc_init && status == SPAWN_NPROC_FULL) {
		cap_set(res, CORDON_CAP_NPROC, req->limits.nproc + 1,
		    req->limits.nproc);
		return;
	}
	if (WIFEXITED(status)) {
		res->outcome = CORDON_OUTCOME_EXITED;
		res->exit_code = WEXITSTATUS(status);
		if (sp->exec_errno != 0)
			(void)fmt(res->error, sizeof(res->error),
			    "cannot run '%s': %s", req->argv[0],
			    strerror(sp->exec_errno));
		return;
	}
	res->outcome = CORDON_OUTCOME_SIGNALED;
	res->signal = WTERMSIG(status);
	res->exit_code = -1;
}

/* The loop's state, shared by the handlers of its events below. */
struct loop {
	const struct request *req;
	const struct spawn *sp;
	struct monitor_result *res;
	struct tree_sample s;
	uint64_t start_ns, left, disk, next_disk;
	long ncpu;
	int tick, status, out[2];
	bool done, stop, over;
};

bool
signal_ends_run(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP ||
	    sig == SIGQUIT;
}

/*
 * The signalfd: a signal that ends the run (signal_ends_run) ends it as
 * interrupted; SIGCHLD only wakes us to reap; the stops are ignored.
 */
static void
on_signals(struct loop *l, int sigfd)
{
	struct signalfd_siginfo si;

	while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (!signal_ends_run((int)si.ssi_signo))
			continue; /* SIGCHLD: reaped below; stops ignored */
		/* Told to stop: end the run as interrupted. */
		l->res->outcome = CORDON_OUTCOME_SIGNALED;
		l->res->signal = (int)si.ssi_signo;
		(void)fmt(l->res->error, sizeof(l->res->error),
		    "interrupted by signal %d%s", (int)si.ssi_signo,
		    l->sp->gate_fd >= 0 ? " before the command started" : "");
		l->stop = true;
	}
}

/* The output pipes that have something: true once past the output cap. */
static bool
on_output(struct loop *l, const struct pollfd *pfd)
{
	int i;

	for (i = 0; i < 2 && !l->over; i++)
		if (pfd[PFD_OUT + i].revents != 0)
			l->over = pump(&l->out[i], 1 + i, &l->left);
	if (l->over)
		cap_set(l->res, CORDON_CAP_OUTPUT, l->req->limits.output_bytes + 1,
		    l->req->limits.output_bytes);
	return l->over;
}

/* The payload was reaped: its end, as the init or the kernel tells it. */
static void
on_payload_end(struct loop *l)
{
	/* Its last CPU use is in the reaped total, read in finish(). */
	/* linux-ns: the init passes the payload's status on. */
	if (l->sp->status_fd >= 0 && read(l->sp->status_fd, &l->status,
	    sizeof(l->status)) != (ssize_t)sizeof(l->status)) {
		l->res->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		(void)fmt(l->res->error, sizeof(l->res->error),
		    "the sandbox's init ended without the payload's status");
	} else {
		payload_outcome(l->req, l->sp, l->status, l->res);
	}
}

/* The sampling timer: true if a cap was reached (or measuring failed). */
static bool
on_tick(struct loop *l)
{
	const struct request *req = l->req;
	uint64_t expirations, t0;

	(void)!read(l->tick, &expirations, sizeof(expirations));
	/* Two small reads: first, before a walk a busy tree slows. */
	if (cgroup_cap(req, l->res))
		return true;
	if (measure(req, l->sp, &l->s) < 0) {
		l->res->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		(void)fmt(l->res->error, sizeof(l->res->error), "cannot measure "
		    "the process tree (more than the monitor can track?)");
		return true;
	}
	if (l->s.mem_bytes > l->res->max_mem)
		l->res->max_mem = l->s.mem_bytes;
	if (cap_check(req, &l->s, l->res))
		return true;
	if (req->limits.disk_bytes != 0 && now_ns() >= l->next_disk) {
		t0 = now_ns();
		if (!workdir_usage(l->sp->wd_fd, &l->disk) ||
		    l->disk >= req->limits.disk_bytes) {
			cap_set(l->res, CORDON_CAP_DISK, l->disk,
			    req->limits.disk_bytes);
			return true;
		}
		l->next_disk = now_ns() + (now_ns() - t0) * 10 + DISK_EVERY_NS;
	}
	arm(l->tick, next_tick(req, l->sp, &l->s, l->ncpu), false);
	return false;
}

/* The broker socket: nothing is expected now, so anything ends the run. */
static void
on_broker(struct loop *l, int sock)
{
	struct cordon_msg m;
	int r;

	/* Nothing is expected now: any type is refused undecoded. */
	r = cordon_msg_recv_allowed(sock, 0, &m);
	cordon_msg_clear(&m);
	l->res->broker_gone = true;
	l->res->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
	(void)fmt(l->res->error, sizeof(l->res->error), "%s",
	    r == -CORDON_E_EOF ? "the broker went away" :
	    "unexpected message from the broker");
}

/*
 * One wake-up of the loop, in a fixed order: signals, reaping, output,
 * the payload's end, the kernel's cgroup events, the wall clock, the
 * sampling tick, the broker.  True when the run ends.
 */
static bool
on_events(struct loop *l, struct pollfd *pfd, int sock, int sigfd)
{
	if (pfd[PFD_SIG].revents & POLLIN)
		on_signals(l, sigfd);
	/* Reap on every wake-up: cheap, and orphans must not pile up. */
	tree_reap(l->sp->pid, &l->done, &l->status);
	if (l->stop)
		return true;
	if (on_output(l, pfd))
		return true;
	pfd[PFD_OUT].fd = l->out[0];
	pfd[PFD_ERR].fd = l->out[1];
	/* An OOM kill takes a linux-ns init too: type it first. */
	if (l->done && cgroup_cap(l->req, l->res))
		return true;
	if (l->done) {
		on_payload_end(l);
		return true;
	}
	/* A fork refused at pids.max: the kernel's word, at once. */
	if (pfd[PFD_CG].revents != 0) {
		if (cgroup_cap(l->req, l->res))
			return true;
		pfd[PFD_CG].fd = -1; /* not again: the tick reads it */
	}
	if (pfd[PFD_WALL].revents & POLLIN) {
		cap_set(l->res, CORDON_CAP_WALL, now_ns() - l->start_ns,
		    l->req->limits.wall_ns);
		return true;
	}
	if ((pfd[PFD_TICK].revents & POLLIN) && on_tick(l))
		return true;
	if (pfd[PFD_SOCK].revents & (POLLIN | POLLHUP | POLLERR)) {
		on_broker(l, sock);
		return true;
	}
	return false;
}

/*
 * After the loop, whatever ended it: a last sample, the kill, the final
 * figures held against the caps, the output still in the pipes passed on
 * up to the cap, and the disk as it is left.
 */
static void
finish(struct loop *l)
{
	const struct request *req = l->req;
	struct monitor_result *res = l->res;
	int i;

	/*
	 * A last look before the kill: what processes used but nobody waited
	 * for is lost to getrusage once they die together (in a pid
	 * namespace, with their init), so the figure is the larger of this
	 * sample and what was reaped.
	 */
	if (!l->done)
		(void)measure(req, l->sp, &l->s);
	if (tree_kill() < 0 && res->outcome != CORDON_OUTCOME_SANDBOX_ERROR) {
		res->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		res->cap = CORDON_CAP_NONE;
		(void)fmt(res->error, sizeof(res->error),
		    "processes of the run survived SIGKILL for 10 s");
	}
	res->wall_ns = now_ns() - l->start_ns;
	res->cpu_ns = tree_reaped_cpu_ns();
	if (res->cpu_ns < l->s.cpu_ns)
		res->cpu_ns = l->s.cpu_ns;
	if (res->max_mem < l->s.mem_bytes)
		res->max_mem = l->s.mem_bytes;
	cgroup_figures(res); /* exact where the kernel kept count */
	/* Told to stop, the run is interrupted, whatever it used. */
	if (!l->stop)
		cap_final(req, res);
	/*
	 * What the payload wrote before it ended is still passed on, up to
	 * the cap; then the disk as it is left (a file stopped by SIGXFSZ).
	 */
	for (i = 0; i < 2 && !l->over; i++)
		if (l->out[i] >= 0)
			l->over = pump(&l->out[i], 1 + i, &l->left);
	if ((res->outcome == CORDON_OUTCOME_EXITED ||
	    res->outcome == CORDON_OUTCOME_SIGNALED) && !l->stop) {
		if (l->over)
			cap_set(res, CORDON_CAP_OUTPUT,
			    req->limits.output_bytes + 1,
			    req->limits.output_bytes);
		else if (req->limits.disk_bytes != 0 &&
		    (!workdir_usage(l->sp->wd_fd, &l->disk) ||
		    l->disk >= req->limits.disk_bytes))
			cap_set(res, CORDON_CAP_DISK, l->disk,
			    req->limits.disk_bytes);
	}
	for (i = 0; i < 2; i++)
		if (l->out[i] >= 0)
			close(l->out[i]);
	if (res->outcome == CORDON_OUTCOME_CAP_HIT) {
		res->exit_code = -1;
		res->signal = SIGKILL;
	}
}

void
monitor_run(int sock, int sigfd, const struct request *req,
    const struct spawn *sp, uint64_t start_ns, struct monitor_result *res)
{
	struct pollfd pfd[PFD_N];
	struct loop l = { .req = req, .sp = sp, .res = res,
		.start_ns = start_ns, .left = req->limits.output_bytes,
		.out = { sp->out[0], sp->out[1] } };
	int wall, i;

	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	/*
	 * Without a pid namespace the payload is our child and made its own
	 * group; the cap is the samples' to hold unless the init holds it.
	 */
	if (sp->status_fd < 0)
		tree_set_group(sp->pid, req->limits.nproc);
	else if (!sp->nproc_init && req->limits.nproc != 0)
		tree_set_init_group(sp->pid, req->limits.nproc);
	if ((l.ncpu = sysconf(_SC_NPROCESSORS_ONLN)) < 1)
		l.ncpu = 1;
	l.tick = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	wall = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l.tick < 0 || wall < 0)
		die_errno("timerfd_create");
	arm(wall, start_ns + req->limits.wall_ns, true);
	arm(l.tick, TICK_MIN_NS, false);

	for (i = 0; i < PFD_N; i++) {
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
	}
	pfd[PFD_SOCK].fd = sock;
	pfd[PFD_SIG].fd = sigfd;
	pfd[PFD_TICK].fd = l.tick;
	pfd[PFD_WALL].fd = wall;
	pfd[PFD_PIDFD].fd = sp->pidfd; /* poll ignores a negative fd */
	pfd[PFD_OUT].fd = l.out[0];
	pfd[PFD_ERR].fd = l.out[1];
	pfd[PFD_CG].fd = cgroup_events_fd();
	pfd[PFD_CG].events = POLLPRI;

	for (;;) {
		if (poll(pfd, PFD_N, -1) < 0) {
			if (errno == EINTR)
				continue;
			die_errno("poll");
		}
		if (on_events(&l, pfd, sock, sigfd))
			break;
	}
	finish(&l);
	close(l.tick);
	close(wall);
}
