/*
 * cgroup.c - a cgroup v2 of its own for each run, where the host gives us
 * a writable subtree with the memory and pids controllers.
 *
 * The parent: for root, CORDON_CGROUP_PARENT (created if absent); for
 * anyone else, the parent of the helper's own cgroup if it was delegated
 * to us (systemd Delegate=yes: we may write its subtree_control and
 * cgroup.procs).  A non-setuid helper takes the environment's
 * CORDON_CGROUP_PARENT instead (tests only; the broker passes nothing else).
 * The run's cgroup, "cordon-<run id>", gets memory.max, memory.swap.max 0,
 * memory.oom.group 1 and pids.max, and is flock()ed while the run lives;
 * the payload is cloned straight into it (CLONE_INTO_CGROUP), so nothing it
 * does escapes the kernel's accounting.  The kernel then enforces memory
 * and processes; the monitor still samples as a backstop and types the
 * kernel's evidence (memory.events oom_kill, pids.events max).  Anything
 * missing: no cgroup, the monitor alone, and probe says why.
 *
 * Why this is safe: the helper acts here with its own ids only (the
 * kernel checks the cgroup files' owners and the delegation rules on each
 * write; a setuid helper ignores the override).  Paths come from the build,
 * the kernel (/proc/self/cgroup) or the override, never the request; the
 * run's name is its run id, hex checked by intake.c; files are opened
 * relative to directory fds, without O_CREAT, so a parent that is no
 * cgroup gets nothing written.  A linux-ns payload cannot reach cgroupfs
 * (no /sys in its root); a floor payload of a delegated user could raise
 * its own limits, which is why the monitor keeps sampling.
 */
#include "config.h"

#include <dirent.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>

#include <sys/auxv.h>

#include "helper.h"

#define CG_ROOT "/sys/fs/cgroup"
#define CLONE_INTO_CGROUP_ 0x200000000ULL

static struct { int parent, fd, ev; char name[CORDON_RUN_ID_LEN + 8]; }
    cg = { -1, -1, -1, "" };

static int
cg_write(int dirfd, const char *file, const char *v)
{
	int fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -1;
	close(fd);
	return r;
}

/* key "\nname " of a flat-keyed file, or "\n": the file's one number. */
static uint64_t
cg_read(int dirfd, const char *file, const char *key)
{
	char buf[1024] = "\n", *p;
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf + 1, sizeof(buf) - 2);

	if (fd >= 0)
		close(fd);
	buf[n < 0 ? 1 : n + 1] = '\0';
	p = strstr(buf, key);
	return p == NULL ? 0 : strtoull(p + strlen(key), NULL, 10);
}

/* Opens the parent of the runs' cgroups (its path in why); -1, why not. */
int
cgroup_parent(char *why, size_t whysz)
{
	char path[CORDON_MAX_PATH_LEN] = CORDON_CGROUP_PARENT;
	char own[CORDON_MAX_PATH_LEN] = "", *e = NULL;
	/*
	 * The tests' parent; never in a setuid helper (AT_SECURE), whose
	 * euid is lowered to the invoker's by now, so an id comparison
	 * would not tell (and whose environment priv_start() cleared).
	 */
	const char *over = getauxval(AT_SECURE) != 0 ? NULL :
	    getenv("CORDON_CGROUP_PARENT");
	struct statfs sf;
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);

	/* cgroup v2 alone lists one line, "0::/our/cgroup". */
	if (fd >= 0 && read(fd, own, sizeof(own) - 1) > 4 &&
	    strncmp(own, "0::/", 4) == 0 && (e = strrchr(own, '/')) != NULL)
		*e = '\0';
	if (fd >= 0)
		close(fd);
	if (statfs(CG_ROOT, &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC)
		return cordon_errf(why, whysz, "%s is not a cgroup v2 hierarchy (a v1 "
		    "or hybrid host)", CG_ROOT);
	if (over != NULL) {
		(void)fmt(path, sizeof(path), "%s", over);
	} else if (geteuid() == 0) {
		/* Ours to make, with the controllers for every child of root. */
		(void)cg_write(AT_FDCWD, CG_ROOT "/cgroup.subtree_control",
		    "+cpu");
		if ((mkdir(path, 0755) < 0 && errno != EEXIST) ||
		    cg_write(AT_FDCWD, CG_ROOT "/cgroup.subtree_control",
		    "+memory +pids") < 0)
			return cordon_errf(why, whysz, "cannot set up %s: %s", path,
			    strerror(errno));
	} else if (e == NULL || e == own + 3) {
		return cordon_errf(why, whysz, "the helper's cgroup has no parent "
		    "below the root that could be delegated to it");
	} else {
		(void)fmt(path, sizeof(path), "%s%s", CG_ROOT, own + 3);
	}
	/* Writable only where delegated: cgroupfs checks our uid here. */
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    cg_write(fd, "cgroup.subtree_control", "+memory +pids") < 0) {
		(void)fmt(why, whysz, "cannot enable the memory and pids "
		    "controllers for the children of %s (not delegated to uid "
		    "%u?): %s", path, (unsigned)geteuid(), strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/*
	 * Where it can, the cpu controller too: a run then shares the CPU
	 * as one group, and cannot starve its monitor with a fork bomb.
	 */
	(void)cg_write(fd, "cgroup.subtree_control", "+cpu");
	(void)fmt(why, whysz, "%s", path);
	return fd;
}

bool
cgroup_setup(const struct request *req, char *why, size_t whysz)
{
	char v[32];

	if ((cg.parent = cgroup_parent(why, whysz)) < 0 ||
	    !fmt(cg.name, sizeof(cg.name), "cordon-%s", req->run_id) ||
	    mkdirat(cg.parent, cg.name, 0755) < 0 ||
	    (cg.fd = openat(cg.parent, cg.name, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0 || flock(cg.fd, LOCK_EX | LOCK_NB) < 0 ||
	    !fmt(v, sizeof(v), "%llu",
	    (unsigned long long)req->limits.memory_bytes) ||
	    cg_write(cg.fd, "memory.max", v) < 0 ||
	    (cg_write(cg.fd, "memory.swap.max", "0") < 0 && errno != ENOENT) ||
	    cg_write(cg.fd, "memory.oom.group", "1") < 0 ||
	    (cg.ev = openat(cg.fd, "pids.events", O_RDONLY | O_CLOEXEC)) < 0) {
		cgroup_remove(); /* the monitor alone; probe tells why */
		return false;
	}
	return true;
}

/*
 * pids.max counts tasks: threads, and a linux-ns init.  Without it (or
 * with no nproc cap) no cgroup: a run's processes would go uncounted.
 */
bool
cgroup_pids(uint64_t max)
{
	char v[32];

	if (cg.fd >= 0 && (!fmt(v, sizeof(v), "%llu", (unsigned long long)max) ||
	    cg_write(cg.fd, "pids.max", max == 0 ? "max" : v) < 0))
		cgroup_remove();
	return cg.fd >= 0;
}

/* pids.events, which poll() reports (POLLPRI) when a fork is refused. */
int
cgroup_events_fd(void)
{
	return cg.ev;
}

/*
 * fork(), or a raw clone with flags; straight into the run's cgroup.  A
 * clone3 the kernel or a seccomp filter refuses (ENOSYS) leaves the run
 * to the monitor: the still empty cgroup is removed, so nothing claims a
 * kernel limit over processes that are not in it (cgroup_events_fd() < 0
 * tells the caller).
 */
pid_t
cgroup_clone(unsigned long long flags)
{
	uint64_t a[11] = { flags, 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0 };
	pid_t pid;

	if (cg.fd >= 0) {
		a[0] |= CLONE_INTO_CGROUP_;
		a[10] = (uint64_t)cg.fd; /* clone_args, CLONE_ARGS_SIZE_VER2 */
		if ((pid = (pid_t)syscall(SYS_clone3, a, sizeof(a))) >= 0 ||
		    errno != ENOSYS)
			return pid;
		cgroup_remove();
	}
	return flags == 0 ? fork() : (pid_t)syscall(SYS_clone,
	    flags | SIGCHLD, NULL, NULL, NULL, 0);
}

/*
 * A cgroup v1 pids controller (/sys/fs/cgroup/pids), for the floor and
 * Landlock run by root where no v2 cgroup is ours (a hybrid host such as
 * this project's CI): RLIMIT_NPROC does not hold root, and a shell fork
 * bomb under load outran the monitor's samples and filled the host's
 * pid table (once for 36 s, past its 20 s wall cap).  With pids.max = N
 * the kernel refuses the tree its task N + 1 and counts the refusal in
 * pids.events ("max"), which the monitor reads each tick: the cap is
 * then the kernel's, as with v2.  Memory stays the monitor's.
 *
 * Why this is safe: root only, and not a setuid helper (whose euid is
 * the invoker's by then), so nothing here acts for anyone but root; the
 * run's cgroup is made under the helper's own pids cgroup (so a systemd
 * TasksMax over it still holds), named by the run id (hex, intake.c),
 * opened relative to directory fds, without O_CREAT; the payload is
 * moved in while it is held before its exec, so none of its own
 * instructions runs outside.  It cannot leave: the floor's payload runs
 * as root, but would need to write another cgroup's cgroup.procs - the
 * same power it has over the whole host anyway (the floor confines no
 * root).  Anything missing: no v1 cgroup, the monitor alone.
 */
static struct { int parent, fd; } p1 = { -1, -1 };

#define CG1_PIDS CG_ROOT "/pids"
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

/* The helper's own pids cgroup, below CG1_PIDS ("" for its root). */
static bool
own_v1_pids(char *out, size_t outsz)
{
	char buf[4096], *line, *p, *save = NULL;
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "ID:pids:/path" (or "ID:a,pids,b:/path"), one line each. */
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		if ((p = strchr(line, ':')) != NULL &&
		    (p = strstr(p, "pids")) != NULL &&
		    (p[-1] == ':' || p[-1] == ',') &&
		    (p[4] == ':' || p[4] == ',') &&
		    (p = strchr(p, ':')) != NULL && p[1] == '/' &&
		    strstr(p, "/..") == NULL)
			return fmt(out, outsz, "%s", strcmp(p + 1, "/") == 0 ? "" :
			    p + 1);
	return false;
}

bool
cgroup_v1_pids(const struct request *req, uint64_t max)
{
	char path[CORDON_MAX_PATH_LEN], own[CORDON_MAX_PATH_LEN], v[32];
	struct statfs sf;

	if (cg.fd >= 0 || max == 0 || geteuid() != 0 ||
	    getauxval(AT_SECURE) != 0 || statfs(CG1_PIDS, &sf) < 0 ||
	    sf.f_type != CGROUP_SUPER_MAGIC || !own_v1_pids(own, sizeof(own)) ||
	    !fmt(path, sizeof(path), "%s%s", CG1_PIDS, own) ||
	    !fmt(cg.name, sizeof(cg.name), "cordon-%s", req->run_id) ||
	    !fmt(v, sizeof(v), "%llu", (unsigned long long)max))
		return false;
	if ((p1.parent = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    mkdirat(p1.parent, cg.name, 0755) < 0 ||
	    (p1.fd = openat(p1.parent, cg.name, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0 || cg_write(p1.fd, "pids.max", v) < 0) {
		cgroup_remove();
		return false;
	}
	return true;
}

bool
cgroup_v1_attach(pid_t pid)
{
	char v[32];

	if (p1.fd < 0 || !fmt(v, sizeof(v), "%d", (int)pid) ||
	    cg_write(p1.fd, "cgroup.procs", v) < 0) {
		cgroup_remove();
		return false;
	}
	return true;
}

/*
 * The kernel's evidence, typed: an OOM kill in the run's cgroup is the
 * memory cap; a fork the pids controller refused is the process cap (the
 * tree tried to go past it; the monitor kills it for that, as it would).
 */
bool
cgroup_cap(const struct request *req, struct monitor_result *res)
{
	if (cg_read(cg.fd, "memory.events", "\noom_kill ") > 0) {
		res->cap = CORDON_CAP_MEMORY;
		res->cap_observed = cg_read(cg.fd, "memory.peak", "\n");
		res->cap_limit = req->limits.memory_bytes;
	} else if (req->limits.nproc != 0 && cg_read(cg.fd >= 0 ? cg.fd :
	    p1.fd, "pids.events", "\nmax ") > 0) {
		res->cap = CORDON_CAP_NPROC;
		res->cap_observed = req->limits.nproc + 1; /* the refused one */
		res->cap_limit = req->limits.nproc;
	} else {
		return false;
	}
	res->outcome = CORDON_OUTCOME_CAP_HIT;
	return true;
}

/* Exact figures: CPU of every task that ever ran, the memory high mark. */
void
cgroup_figures(struct monitor_result *res)
{
	uint64_t cpu = cg_read(cg.fd, "cpu.stat", "\nusage_usec ") * 1000;
	uint64_t peak = cg_read(cg.fd, "memory.peak", "\n"); /* >= 5.19 */

	res->cpu_ns = cpu > res->cpu_ns ? cpu : res->cpu_ns;
	res->max_mem = peak > 0 ? peak : res->max_mem;
}

/*
 * cgroup.kill, then wait (10 s at most) for "populated 0".  Reading the
 * open cgroup.events re-arms its POLLPRI, which the kernel raises when
 * the last task is gone.
 */
static int
kill_wait(int fd)
{
	struct pollfd p = { -1, POLLPRI, 0 };
	char b[256] = "";
	ssize_t n = -1;
	int i;

	p.fd = openat(fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	for (i = 0; p.fd >= 0 && i < 100; i++) {
		if (i == 0 && cg_write(fd, "cgroup.kill", "1") < 0)
			break;
		if ((n = pread(p.fd, b, sizeof(b) - 1, 0)) <= 0)
			break;
		b[n] = '\0';
		if (strstr(b, "populated 0") != NULL)
			break;
		(void)poll(&p, 1, 100);
	}
	if (p.fd >= 0)
		close(p.fd);
	return n > 0 && strstr(b, "populated 0") != NULL ? 0 : -1;
}

void
cgroup_kill(void)
{
	(void)kill_wait(cg.fd); /* no cgroup: fails at once */
}

void
cgroup_remove(void)
{
	int i;

	cgroup_kill();
	if (cg.fd >= 0)
		close(cg.fd);
	if (cg.ev >= 0)
		close(cg.ev);
	if (cg.parent >= 0) {
		(void)unlinkat(cg.parent, cg.name, AT_REMOVEDIR);
		close(cg.parent);
	}
	cg.fd = cg.parent = cg.ev = -1;
	if (p1.fd >= 0)
		close(p1.fd);
	/* Empty once the tree is dead and reaped (v1 has no cgroup.kill). */
	for (i = 0; p1.parent >= 0 && i < 100 && unlinkat(p1.parent, cg.name,
	    AT_REMOVEDIR) < 0 && errno == EBUSY; i++)
		(void)poll(NULL, 0, 10);
	if (p1.parent >= 0)
		close(p1.parent);
	p1.fd = p1.parent = -1;
}
