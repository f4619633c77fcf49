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
 * On linux-ns the run's private tmpfs (/tmp and /dev/shm, ns.c) counts
 * too, by what it holds: a file nobody maps is in no process's RSS.
 * The process count is of tasks, threads included, each as listed; one
 * over the cap is checked again (tree_recheck) before it counts.
 *
 * Killing: a pid read from /proc may, in principle, be reaped and reused
 * by an unrelated process before we signal it.  So each kill goes through
 * a pidfd, and the target's parent is re-read after the pidfd is opened:
 * the signal is sent only if that parent is the helper or a process found
 * in this walk.  The walk-kill-reap loop repeats until the helper has no
 * child left, which (with the subreaper) means no descendant is left.
 *
 * A walk is not fast enough alone: a shell fork bomb run by root (whom
 * RLIMIT_NPROC does not hold) on the floor or Landlock grew to 25,000
 * processes between two samples and outran ten seconds of walking, and
 * what was left went to init when the helper gave up.  So where the
 * payload is the helper's own child (no pid namespace), the kill starts
 * with its process group, which the payload made with setsid
 * (spawn_child_prepare): kill(-pgid) signals every member in one pass
 * under the kernel's tasklist lock, and a fork racing with it is restarted
 * so the new child gets the signal too; only processes that left the
 * group remain for the walk.  The group's number is safe to signal: the
 * payload leads it and is not reaped before that kill (tree_reap only
 * looks at it, with WNOWAIT), and a zombie leader keeps its pid, and so
 * the group id, from being reused.
 */
#include "config.h"

#include <dirent.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/magic.h>

#include "helper.h"

#define MAX_TREE (1U << 20)          /* processes one walk will track */
#define MAX_CHILDREN_FILE (1U << 22) /* bytes of one children file */
#define MAX_SMAPS_FILE (1U << 24)    /* bytes of one smaps file */
#define TMPFS_TRIES 8                /* processes tried per sample */
#define KILL_TIMEOUT_NS (10ULL * CORDON_NS_PER_SEC)

struct pidlist {
	pid_t *v;
	size_t n, cap;
};

static pid_t self;
/* The payload's process group (its pid), until the kill signalled it. */
static pid_t group;
/*
 * linux-ns: the init, whose life pins the group's id instead (the init
 * reaps the payload; while the init lives, its namespace's processes,
 * the group among them, are alive or its own zombies).  0 on the floor.
 */
static pid_t pinner;
/* The process cap the samples hold: a sample stops counting past it. */
static uint32_t group_cap;
static uint64_t ns_per_tick;
/* linux-ns: the run's tmpfs, once found (tmpfs_find); closed by the kill. */
static int tmpfs_fd = -1;
static dev_t tmpfs_dev;

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
		if (l->cap >= MAX_TREE || (nv = reallocarray(l->v, l->cap == 0 ?
		    64 : l->cap * 2, sizeof(pid_t))) == NULL)
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

/*
 * Reads a whole /proc file of unknown size into a buffer that grows up to
 * max bytes; *trunc says whether the file was larger.  Returns the length,
 * or -1 if the file is gone or memory ran out.
 */
struct rbuf {
	char *p;
	size_t size;
};

static ssize_t
read_grow(const char *path, struct rbuf *b, size_t max, bool *trunc)
{
	char *np;
	ssize_t n;

	for (;;) {
		if (b->size == 0) {
			if ((b->p = malloc(4096)) == NULL)
				return -1;
			b->size = 4096;
		}
		if ((n = read_small(path, b->p, b->size)) < 0)
			return -1;
		*trunc = (size_t)n == b->size - 1;
		if (!*trunc || b->size >= max)
			return n;
		/* Possibly cut short: read again with a larger buffer. */
		if ((np = realloc(b->p, b->size * 4)) == NULL)
			return -1;
		b->p = np;
		b->size *= 4;
	}
}

/* Appends the pids listed in one children file. */
static int
read_children_file(const char *path, struct pidlist *out)
{
	static struct rbuf b;
	char *p, *end;
	bool trunc = false;
	long v;

	if (read_grow(path, &b, MAX_CHILDREN_FILE, &trunc) < 0)
		return errno == ENOMEM ? -1 : 0; /* gone: no children */
	for (p = b.p; *p != '\0'; p = end) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		/* A number at the cut of a truncated file may be partial. */
		if (*end == '\0' && trunc)
			break;
		if (errno == 0 && v > 0 && v <= INT32_MAX &&
		    push(out, (pid_t)v) < 0)
			return -1;
	}
	return 0;
}

/* Appends pid's children to out and, with tasks, each of its threads. */
static int
read_children(pid_t pid, long nthreads, struct pidlist *out,
    struct pidlist *tasks)
{
	char path[96];
	struct dirent *e;
	DIR *d;
	int r = 0;

	if (nthreads <= 1) {
		if (!fmt(path, sizeof(path), "/proc/%d/task/%d/children", pid,
		    pid) || (tasks != NULL && push(tasks, pid) < 0))
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
		if (tasks != NULL && push(tasks, (pid_t)strtol(e->d_name, NULL,
		    10)) < 0)
			r = -1;
		else if (fmt(path, sizeof(path), "/proc/%d/task/%s/children",
		    pid, e->d_name))
			r = read_children_file(path, out);
	}
	closedir(d);
	return r;
}

struct procstat {
	pid_t ppid, pgrp;
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
	ps->pgrp = (pid_t)v[1];
	/* utime, stime, cutime, cstime are fields 14..17. */
	ps->ticks = v[10] + v[11] + v[12] + v[13];
	ps->nthreads = (long)v[16];
	return 0;
}

/*
 * RssAnon + RssShmem of pid, in bytes.  /proc/PID/status has no size
 * bound (a user in many groups has a long Groups: line before the Rss
 * lines), so it is read whole.  A zombie has no Rss lines: 0.
 */
static uint64_t
read_mem(pid_t pid)
{
	static const char *const keys[] = { "\nRssAnon:", "\nRssShmem:" };
	static struct rbuf b;
	char path[64], *p;
	uint64_t total = 0;
	bool trunc = false;
	size_t i;

	if (!fmt(path, sizeof(path), "/proc/%d/status", pid) ||
	    read_grow(path, &b, MAX_CHILDREN_FILE, &trunc) <= 0)
		return 0;
	for (i = 0; i < 2; i++)
		if ((p = strstr(b.p, keys[i])) != NULL)
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

/*
 * The tasks (threads) the last sample counted: the process cap counts
 * tasks, as RLIMIT_NPROC and the pids controller do.
 */
static struct pidlist tasks;

/*
 * Every descendant, breadth first; with s != NULL also measured, and its
 * tasks listed.  On an error (out of memory, more than MAX_TREE processes)
 * the walk goes on with what it has, so a kill still reaches everything
 * it could list, and returns -1.  With s != NULL and stop != 0 (the cap
 * the samples hold), it stops once it has listed more tasks than stop
 * and the linux-ns init: that sample goes to tree_recheck, and a fork
 * bomb is not chased to pid_max first (its CPU and memory figures are
 * then partial for that one sample).
 */
static int
walk(struct pidlist *l, struct tree_sample *s, uint32_t stop)
{
	struct procstat ps;
	uint64_t ticks = 0, mem = 0;
	size_t i;
	int r = 0;

	l->n = 0;
	if (s != NULL)
		tasks.n = 0;
	if (read_children(self, 1, l, NULL) < 0)
		r = -1;
	for (i = 0; i < l->n; i++) {
		if (s != NULL && stop != 0 && tasks.n > (size_t)stop + 1)
			break;
		if (read_stat(l->v[i], &ps) < 0)
			continue; /* exited and reaped since it was listed */
		ticks += ps.ticks;
		if (s != NULL)
			mem += read_mem(l->v[i]);
		if (read_children(l->v[i], ps.nthreads, l, s != NULL ? &tasks :
		    NULL) < 0)
			r = -1;
	}
	if (s != NULL) {
		s->cpu_ns = ticks * ns_per_tick + tree_reaped_cpu_ns();
		s->mem_bytes = mem;
		s->nproc = (uint32_t)tasks.n;
	}
	return r;
}

/* Whether pid's parent is the helper or one of the n pids of v. */
static bool
parent_in(pid_t pid, const pid_t *v, size_t n)
{
	struct procstat ps;

	if (read_stat(pid, &ps) < 0)
		return false;
	while (ps.ppid != self && n > 0 && v[n - 1] != ps.ppid)
		n--;
	return ps.ppid == self || n > 0;
}

/*
 * Opens the run's tmpfs as /proc/PID/root/tmp of one of the first
 * processes of the walk l.  The init's root link would do, but the init
 * is not dumpable, so only a root helper may follow it; the payload's
 * processes run in a user namespace the helper owns (setuid mode too,
 * where the host allows one), or are dumpable.  Why what is opened is
 * the run's tmpfs: no process of a linux-ns run can chroot or mount (no
 * capability, no new user namespace), so each has the sandbox's
 * read-only root, whose /tmp is that tmpfs; the pid was in our walk, its
 * pidfd is taken before its parent is checked to be ours (as
 * kill_verified() does) and it still lives after the open, so the pid
 * was not reused meanwhile; O_PATH opens nothing, O_NOFOLLOW follows no
 * link, and it must be a tmpfs.  A payload that hides every process from
 * the helper (setuid mode with no user namespace, not dumpable from the
 * start) leaves its tmpfs uncounted but still bounded by its size:
 * README.md says so.
 */
static void
tmpfs_find(const struct pidlist *l)
{
	struct pollfd p = { -1, POLLIN, 0 };
	struct statfs sf;
	struct stat st;
	char path[64];
	size_t i;
	int fd;

	for (i = 0; i < l->n && i < TMPFS_TRIES && tmpfs_fd < 0; i++) {
		if ((p.fd = (int)syscall(SYS_pidfd_open, l->v[i], 0)) < 0)
			continue;
		fd = -1;
		/* The walk is breadth first: a parent comes before its child. */
		if (parent_in(l->v[i], l->v, i) && fmt(path, sizeof(path),
		    "/proc/%d/root/tmp", l->v[i]))
			fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		if (fd >= 0 && poll(&p, 1, 0) == 0 && fstatfs(fd, &sf) == 0 &&
		    sf.f_type == TMPFS_MAGIC && fstat(fd, &st) == 0) {
			tmpfs_fd = fd;
			tmpfs_dev = st.st_dev;
		} else if (fd >= 0) {
			close(fd);
		}
		close(p.fd);
	}
}

/* Bytes the run's tmpfs holds, 0 if it has none (or it is not found). */
static uint64_t
tmpfs_used(void)
{
	struct statfs sf;

	if (tmpfs_fd < 0 || fstatfs(tmpfs_fd, &sf) < 0 ||
	    sf.f_bfree > sf.f_blocks)
		return 0;
	return (uint64_t)(sf.f_blocks - sf.f_bfree) * (uint64_t)sf.f_bsize;
}

/*
 * The device of a mapping's first line in smaps, "start-end perms offset
 * maj:min inode path" (in lower-case hex; every other line starts with a
 * capital); false for any other line.
 */
static bool
smaps_dev(const char *line, dev_t *dev)
{
	unsigned long maj, min;
	const char *p = line;
	char *e;
	int i;

	if (*line == '\0' || strchr("0123456789abcdef", *line) == NULL)
		return false;
	for (i = 0; i < 3; i++)
		if ((p = strchr(p, ' ')) == NULL)
			return false;
		else
			p++;
	maj = strtoul(p, &e, 16);
	if (e == p || *e != ':')
		return false;
	p = e + 1;
	min = strtoul(p, &e, 16);
	if (e == p || *e != ' ')
		return false;
	*dev = makedev(maj, min);
	return true;
}

/*
 * The tmpfs pages pid maps, counted in its Pss_Shmem and again in
 * tmpfs_used(): Pss less Anonymous (a private mapping's copied pages) of
 * each mapping of a file on the tmpfs, from /proc/PID/smaps.
 */
static uint64_t
tmpfs_mapped(pid_t pid)
{
	static struct rbuf b;
	char path[64], *line, *end;
	uint64_t pss = 0, anon = 0, total = 0;
	bool on = false, trunc = false, head;
	dev_t dev = 0;

	if (!fmt(path, sizeof(path), "/proc/%d/smaps", pid) ||
	    read_grow(path, &b, MAX_SMAPS_FILE, &trunc) <= 0)
		return 0;
	for (line = b.p;; line = end) {
		end = line + strcspn(line, "\n");
		end += *end != '\0';
		head = smaps_dev(line, &dev);
		/* A mapping ends at the next or at the end (unless cut off). */
		if ((head || (*line == '\0' && !trunc)) && on && pss > anon)
			total += pss - anon;
		if (*line == '\0')
			return total;
		if (head) {
			on = dev == tmpfs_dev;
			pss = anon = 0;
		} else if (on && strncmp(line, "Pss:", 4) == 0) {
			pss = strtoull(line + 4, NULL, 10) * 1024;
		} else if (on && strncmp(line, "Anonymous:", 10) == 0) {
			anon = strtoull(line + 10, NULL, 10) * 1024;
		}
	}
}

/*
 * Pss_Anon + Pss_Shmem over the tree: copy-on-write pages shared after a
 * fork count once in total, not once per process; plus the tmpfs, less
 * what of it the tree maps (counted once, not as shmem and as a file).
 * Costlier than the status files (it walks page tables), so the monitor
 * asks only when the cheap figure, an upper bound, is over the cap.  A
 * process whose rollup cannot be read counts with its (larger) RSS figure.
 */
uint64_t
tree_pss(void)
{
	static const char *const keys[] = { "\nPss_Anon:", "\nPss_Shmem:" };
	static struct pidlist l;
	char path[64], buf[2048], *p;
	uint64_t total = 0, v, tmp = tmpfs_used(), mapped;
	size_t i, k;

	(void)walk(&l, NULL, 0);
	for (i = 0; i < l.n; i++) {
		if (!fmt(path, sizeof(path), "/proc/%d/smaps_rollup", l.v[i]) ||
		    read_small(path, buf, sizeof(buf)) <= 0 ||
		    strstr(buf, keys[0]) == NULL) {
			total += read_mem(l.v[i]);
			continue;
		}
		for (k = 0; k < 2; k++) {
			if ((p = strstr(buf, keys[k])) == NULL)
				continue;
			v = strtoull(p + strlen(keys[k]), NULL, 10) * 1024;
			/* Only shmem can be the tmpfs's own pages. */
			if (k == 1 && v > 0 && tmp > 0) {
				mapped = tmpfs_mapped(l.v[i]);
				v -= mapped < v ? mapped : v;
			}
			total += v;
		}
	}
	return total + tmp;
}

/* One sample, its walk stopped past stop tasks (0: never). */
static int
sample(struct tree_sample *s, bool has_init, uint32_t stop)
{
	static struct pidlist l;
	int r = walk(&l, s, stop);

	if (has_init && tmpfs_fd < 0)
		tmpfs_find(&l);
	s->mem_bytes += tmpfs_used();

	/* linux-ns: our own init is not one of the payload's processes. */
	if (has_init && s->nproc > 0)
		s->nproc--;
	return r;
}

int
tree_sample(struct tree_sample *s, bool has_init)
{
	return sample(s, has_init, group_cap);
}

/* tree_sample, counting every task, past the process cap too. */
int
tree_sample_whole(struct tree_sample *s, bool has_init)
{
	return sample(s, has_init, 0);
}

/*
 * A walk reads the tree over a few milliseconds, so it can count a task
 * that exited and one forked after it, which never coexisted: a tree that
 * churns under its cap could look over it.  The tasks of the last sample
 * that are still there now were all there at one moment (each was there
 * when listed, the listing ended before this pass began), so their
 * number is one the tree really reached.  A tid is not reused within
 * that time: pids are handed out in increasing order, and a reuse would
 * take a wrap of the whole pid space.
 */
static uint32_t
still_there(bool has_init)
{
	char path[32];
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < tasks.n; i++)
		if (fmt(path, sizeof(path), "/proc/%d", tasks.v[i]) &&
		    access(path, F_OK) == 0)
			n++;
	return has_init && n > 0 ? n - 1 : n;
}

/*
 * A fork bomb's processes live for microseconds, so no walk finds many of
 * them still there, and the run went on at pid_max.  Where the payload
 * leads its own group, the group is stopped first (one SIGSTOP to the
 * group, as atomic as the kill: a fork racing with it is restarted), the
 * tree walked again and counted: its members can now only leave.  Under
 * the cap, the group goes on (SIGCONT); over it, tree_kill follows, and
 * SIGKILL ends stopped processes too.  Only a sample already over the cap
 * costs a stop; a parent sees it only if it waits with WUNTRACED, which
 * shells do only under job control.
 */
/* Whether the group's id is still the run's (see pinner). */
static bool
group_pinned(void)
{
	siginfo_t si;

	if (group <= 0)
		return false;
	if (pinner == 0)
		return true;
	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pinner, &si, WEXITED | WNOHANG | WNOWAIT |
	    __WALL) == 0 && si.si_pid == 0;
}

uint32_t
tree_recheck(bool has_init)
{
	static struct pidlist l;
	struct tree_sample again;
	uint32_t n;

	if (!group_pinned())
		return still_there(has_init);
	(void)kill(-group, SIGSTOP);
	/*
	 * Listed up to four times the cap: a task already exiting when the
	 * stop came is gone by the count, and only the ones still there
	 * coexisted.
	 */
	(void)walk(&l, &again, group_cap < UINT32_MAX / 8 ?
	    group_cap * 4 + 4 : 0);
	n = still_there(has_init);
	if (n <= group_cap)
		(void)kill(-group, SIGCONT);
	return n;
}

void
tree_set_group(pid_t pgid, uint32_t nproc_cap)
{
	group = pgid > 0 ? pgid : 0;
	group_cap = nproc_cap;
}

/*
 * linux-ns where the samples hold the cap (setuid mode without a user
 * namespace): the payload, the init's first child, leads its group in
 * the host's pid space too.  Only while the init has not exited is that
 * group the run's: group_pinned() asks before each signal (an exited
 * init, zombie or reaped, fails it).  What remains is the moment between
 * that look and the signal; in it the init would have to die, its
 * namespace be reaped and the pid space wrap to the same number for a
 * new group leader, and the helper runs as the invoker by then (setuid
 * mode drops right after the clone), so it could stop nothing the
 * invoker could not.
 */
void
tree_set_init_group(pid_t init, uint32_t nproc_cap)
{
	struct pidlist l = { NULL, 0, 0 };
	struct procstat ps;
	char path[64];

	group_cap = nproc_cap;
	if (fmt(path, sizeof(path), "/proc/%d/task/%d/children", init, init) &&
	    read_children_file(path, &l) == 0 && l.n > 0 &&
	    read_stat(l.v[0], &ps) == 0 && ps.pgrp == l.v[0]) {
		group = l.v[0];
		pinner = init;
	}
	free(l.v);
}

/* A wait status, as waitpid gives it, from waitid's siginfo. */
static int
wait_status(const siginfo_t *si)
{
	switch (si->si_code) {
	case CLD_EXITED:
		return (si->si_status & 0xff) << 8;
	case CLD_DUMPED:
		return (si->si_status & 0x7f) | 0x80;
	default:
		return si->si_status & 0x7f;
	}
}

void
tree_reap(pid_t payload, bool *payload_done, int *payload_status)
{
	siginfo_t si;
	pid_t pid;
	int status;

	for (;;) {
		/*
		 * Look before reaping: the leader of the group tree_kill will
		 * signal stays a zombie until then (see the top).  When it
		 * is the first zombie listed, the others wait for the kill:
		 * its end ends the run.
		 */
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT |
		    __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (si.si_pid == 0)
			return;
		if (si.si_pid == group) {
			if (si.si_pid == payload && payload_done != NULL) {
				*payload_done = true;
				*payload_status = wait_status(&si);
			}
			return;
		}
		pid = waitpid(si.si_pid, &status, WNOHANG | __WALL);
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
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	/* Without pidfds (kernel < 5.3) the check narrows the race only. */
	if ((pidfd >= 0 || errno == ENOSYS) && read_stat(pid, &ps) == 0 &&
	    (ps.ppid == self || bsearch(&ps.ppid, sorted->v, sorted->n,
	    sizeof(pid_t), cmp_pid) != NULL)) {
		if (pidfd >= 0)
			(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL,
			    0);
		else
			(void)kill(pid, SIGKILL);
	}
	if (pidfd >= 0)
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

	cgroup_kill(); /* atomic where the run has a cgroup; the walk reaps */
	/* The payload's group at once, while its zombie leader pins the id. */
	if (group > 0 && pinner == 0)
		(void)kill(-group, SIGKILL);
	group = 0; /* linux-ns: the init's death takes its namespace */
	/* Nothing is measured after the kill: let the run's tmpfs go with it. */
	if (tmpfs_fd >= 0) {
		close(tmpfs_fd);
		tmpfs_fd = -1;
	}
	for (;;) {
		/* A partial walk still kills what it found; the loop repeats. */
		(void)walk(&l, NULL, 0);
		/* An empty list has v == NULL, which qsort may not be given. */
		if (l.n > 0)
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
