/*
 * tree.c - every process of the run: find, measure, kill, reap.
 *
 * The helper is a child subreaper, so every process the payload starts
 * stays below it: an orphan (a double-forked daemon that called setsid)
 * is re-parented to the helper, not to init.  The tree is therefore
 * exactly the helper's descendants, which we find by walking
 * /proc/PID/task/TID/children from the helper down; that costs in
 * proportion to the run's own processes, not to the whole host's.
 *
 * Measuring: CPU is the utime+stime of every live process plus the
 * cutime+cstime each has collected from children it reaped, plus what the
 * helper itself reaped (getrusage(RUSAGE_CHILDREN)); so time is counted
 * once whoever waited for it.  Memory is resident anonymous plus shared
 * memory (RssAnon + RssShmem) summed over processes: file-backed pages
 * (shared libraries, page cache) are left out because they are shared
 * and reclaimable, while shmem is counted because a payload could
 * otherwise hide memory in MAP_SHARED anonymous mappings or /dev/shm.
 *
 * Killing: a pid read from /proc may, in principle, be reaped and reused
 * by an unrelated process before we signal it.  So each kill goes through
 * a pidfd, and the target's parent is re-read after the pidfd is opened:
 * the signal is sent only if that parent is the helper or a process found
 * in this walk.  The walk-kill-reap loop repeats until the helper has no
 * child left, which (with the subreaper) means no descendant is left.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

#define MAX_TREE (1U << 20)          /* processes one walk will track */
#define MAX_CHILDREN_FILE (1U << 22) /* bytes of one children file */
#define KILL_TIMEOUT_NS (10ULL * CORDON_NS_PER_SEC)

struct pidlist {
	pid_t *v;
	size_t n, cap;
};

static pid_t self;
static uint64_t ns_per_tick;

int
tree_init(void)
{
	char path[64];
	long hz = sysconf(_SC_CLK_TCK);

	self = getpid();
	if (hz <= 0)
		return -1;
	ns_per_tick = CORDON_NS_PER_SEC / (uint64_t)hz;
	/* The walk needs CONFIG_PROC_CHILDREN (every mainstream kernel). */
	if (!fmt(path, sizeof(path), "/proc/%d/task/%d/children", self, self) ||
	    access(path, R_OK) < 0)
		return -1;
	return 0;
}

static int
push(struct pidlist *l, pid_t pid)
{
	pid_t *nv;

	if (l->n == l->cap) {
		if (l->cap >= MAX_TREE)
			return -1;
		nv = reallocarray(l->v, l->cap == 0 ? 64 : l->cap * 2,
		    sizeof(pid_t));
		if (nv == NULL)
			return -1;
		l->v = nv;
		l->cap = l->cap == 0 ? 64 : l->cap * 2;
	}
	l->v[l->n++] = pid;
	return 0;
}

/* Reads a whole small /proc file into buf (NUL-terminated); -1 if gone. */
static ssize_t
read_small(const char *path, char *buf, size_t size)
{
	ssize_t n, got = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while ((size_t)got < size - 1) {
		n = read(fd, buf + got, size - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

/* Appends the pids listed in one children file. */
static int
read_children_file(const char *path, struct pidlist *out)
{
	static char *buf;
	static size_t bufsz;
	char *p, *end;
	ssize_t n;
	long v;

	for (;;) {
		if (bufsz == 0 && (buf = malloc(bufsz = 4096)) == NULL)
			return -1;
		if ((n = read_small(path, buf, bufsz)) < 0)
			return 0; /* the process is gone: no children */
		if ((size_t)n < bufsz - 1 || bufsz >= MAX_CHILDREN_FILE)
			break;
		/* Possibly cut short: read again with a larger buffer. */
		free(buf);
		bufsz *= 4;
		if ((buf = malloc(bufsz)) == NULL) {
			bufsz = 0;
			return -1;
		}
	}
	for (p = buf; *p != '\0'; p = end) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (errno == 0 && v > 0 && v <= INT32_MAX &&
		    push(out, (pid_t)v) < 0)
			return -1;
	}
	return 0;
}

static int
read_children(pid_t pid, long nthreads, struct pidlist *out)
{
	char path[96];
	struct dirent *e;
	DIR *d;
	int r = 0;

	if (nthreads <= 1) {
		if (!fmt(path, sizeof(path), "/proc/%d/task/%d/children", pid,
		    pid))
			return -1;
		return read_children_file(path, out);
	}
	/* Children belong to the thread that forked them: ask every thread. */
	if (!fmt(path, sizeof(path), "/proc/%d/task", pid) ||
	    (d = opendir(path)) == NULL)
		return 0;
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (fmt(path, sizeof(path), "/proc/%d/task/%s/children", pid,
		    e->d_name))
			r = read_children_file(path, out);
	}
	closedir(d);
	return r;
}

struct procstat {
	pid_t ppid;
	uint64_t ticks;     /* utime + stime + cutime + cstime */
	long nthreads;
};

/* Parses /proc/PID/stat; the comm field may hold spaces and ')'. */
static int
read_stat(pid_t pid, struct procstat *ps)
{
	char path[64], buf[1024], *p, *end;
	unsigned long long v[20];
	int field;

	if (!fmt(path, sizeof(path), "/proc/%d/stat", pid) ||
	    read_small(path, buf, sizeof(buf)) <= 0 ||
	    (p = strrchr(buf, ')')) == NULL)
		return -1;
	p += 2; /* ") " then field 3, the state */
	if (*p == '\0')
		return -1;
	p++;
	/* Fields 4..23: ppid ... vsize, all numeric. */
	for (field = 0; field < 20; field++) {
		errno = 0;
		if (field == 0)
			v[field] = (unsigned long long)strtoll(p, &end, 10);
		else
			v[field] = strtoull(p, &end, 10);
		if (end == p || errno != 0)
			return -1;
		p = end;
	}
	ps->ppid = (pid_t)v[0];
	/* utime, stime, cutime, cstime are fields 14..17. */
	ps->ticks = v[10] + v[11] + v[12] + v[13];
	ps->nthreads = (long)v[16];
	return 0;
}

/* RssAnon + RssShmem of pid, in bytes. */
static uint64_t
read_mem(pid_t pid)
{
	char path[64], buf[4096], *p;
	uint64_t total = 0;
	static const char *const keys[] = { "\nRssAnon:", "\nRssShmem:" };
	size_t i;

	if (!fmt(path, sizeof(path), "/proc/%d/status", pid) ||
	    read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	for (i = 0; i < 2; i++)
		if ((p = strstr(buf, keys[i])) != NULL)
			total += strtoull(p + strlen(keys[i]), NULL, 10) * 1024;
	return total;
}

uint64_t
tree_reaped_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
	    CORDON_NS_PER_SEC +
	    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* Every descendant, breadth first; with s != NULL also measured. */
static int
walk(struct pidlist *l, struct tree_sample *s)
{
	struct procstat ps;
	uint64_t ticks = 0, mem = 0;
	uint32_t nproc = 0;
	size_t i;

	l->n = 0;
	if (read_children(self, 1, l) < 0)
		return -1;
	for (i = 0; i < l->n; i++) {
		if (read_stat(l->v[i], &ps) < 0)
			continue; /* exited and reaped since it was listed */
		nproc++;
		ticks += ps.ticks;
		if (s != NULL)
			mem += read_mem(l->v[i]);
		if (read_children(l->v[i], ps.nthreads, l) < 0)
			return -1;
	}
	if (s != NULL) {
		s->cpu_ns = ticks * ns_per_tick + tree_reaped_cpu_ns();
		s->mem_bytes = mem;
		s->nproc = nproc;
	}
	return 0;
}

int
tree_sample(struct tree_sample *s)
{
	static struct pidlist l;

	return walk(&l, s);
}

void
tree_reap(pid_t payload, bool *payload_done, int *payload_status)
{
	pid_t pid;
	int status;

	for (;;) {
		pid = waitpid(-1, &status, WNOHANG | __WALL);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid <= 0)
			return;
		if (pid == payload && payload_done != NULL) {
			*payload_done = true;
			*payload_status = status;
		}
	}
}

static int
cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/* SIGKILLs pid if it is still one of ours (see the comment at the top). */
static void
kill_verified(pid_t pid, const struct pidlist *sorted)
{
	struct procstat ps;
	int pidfd;

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		if (errno == ENOSYS && read_stat(pid, &ps) == 0 &&
		    (ps.ppid == self || bsearch(&ps.ppid, sorted->v, sorted->n,
		    sizeof(pid_t), cmp_pid) != NULL))
			(void)kill(pid, SIGKILL); /* kernel < 5.3 */
		return;
	}
	if (read_stat(pid, &ps) == 0 &&
	    (ps.ppid == self || bsearch(&ps.ppid, sorted->v, sorted->n,
	    sizeof(pid_t), cmp_pid) != NULL))
		(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	close(pidfd);
}

int
tree_kill(void)
{
	static struct pidlist l;
	uint64_t deadline = now_ns() + KILL_TIMEOUT_NS;
	struct timespec pause = { 0, 1000000 };
	siginfo_t info;
	size_t i;

	for (;;) {
		if (walk(&l, NULL) < 0)
			return -1;
		qsort(l.v, l.n, sizeof(pid_t), cmp_pid);
		for (i = 0; i < l.n; i++)
			kill_verified(l.v[i], &l);
		tree_reap(-1, NULL, NULL);
		/* No child left means, with the subreaper, no descendant left. */
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT |
		    __WALL) < 0 && errno == ECHILD)
			return 0;
		if (now_ns() > deadline)
			return -1; /* e.g. stuck in uninterruptible sleep */
		nanosleep(&pause, NULL);
	}
}
