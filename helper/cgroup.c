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
 */
#include "config.h"

#include <dirent.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>

#include "helper.h"

#define CG_ROOT "/sys/fs/cgroup"
#define CLONE_INTO_CGROUP_ 0x200000000ULL

static struct { int parent, fd; char name[CORDON_RUN_ID_LEN + 8]; }
    cg = { -1, -1, "" };

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

/* The value of "key N" in a flat-keyed file, or the file's single number. */
static uint64_t
cg_read(int dirfd, const char *file, const char *key)
{
	char buf[1024], *p = buf;
	ssize_t n = -1;
	size_t kl = key != NULL ? strlen(key) : 0;
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && (n = read(fd, buf, sizeof(buf) - 1)) >= 0)
		buf[n] = '\0';
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return 0;
	while (key != NULL && p != NULL && (strncmp(p, key, kl) != 0 ||
	    p[kl] != ' '))
		p = (p = strchr(p, '\n')) != NULL ? p + 1 : NULL;
	return p == NULL ? 0 : strtoull(p + kl, NULL, 10);
}

/* Opens the parent of the runs' cgroups (its path in why); -1, why not. */
int
cgroup_parent(char *why, size_t whysz)
{
	char path[CORDON_MAX_PATH_LEN] = CORDON_CGROUP_PARENT;
	char line[CORDON_MAX_PATH_LEN] = "", *e = NULL;
	const char *over = getuid() == geteuid() ?
	    getenv("CORDON_CGROUP_PARENT") : NULL;
	struct statfs sf;
	FILE *f;
	int fd;

	if (statfs(CG_ROOT, &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC) {
		(void)fmt(why, whysz, "%s is not a cgroup v2 hierarchy (a v1 "
		    "or hybrid host)", CG_ROOT);
		return -1;
	}
	if (over != NULL) {
		(void)fmt(path, sizeof(path), "%s", over);
	} else if (geteuid() == 0) {
		/* Ours to make, with the controllers for every child of root. */
		if ((mkdir(path, 0755) < 0 && errno != EEXIST) ||
		    cg_write(AT_FDCWD, CG_ROOT "/cgroup.subtree_control",
		    "+memory +pids") < 0) {
			(void)fmt(why, whysz, "cannot set up %s: %s", path,
			    strerror(errno));
			return -1;
		}
	} else {
		/* Our own cgroup's parent, if it is below the root. */
		if ((f = fopen("/proc/self/cgroup", "re")) != NULL) {
			if (fgets(line, sizeof(line), f) == NULL)
				line[0] = '\0';
			fclose(f);
		}
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "0::/", 4) == 0)
			e = strrchr(line, '/');
		if (e == NULL || e == line + 3) {
			(void)fmt(why, whysz, "the helper's cgroup has no parent "
			    "below the root that could be delegated to it");
			return -1;
		}
		*e = '\0';
		(void)fmt(path, sizeof(path), "%s%s", CG_ROOT, line + 3);
	}
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    cg_write(fd, "cgroup.subtree_control", "+memory +pids") < 0) {
		(void)fmt(why, whysz, "cannot enable the memory and pids "
		    "controllers for the children of %s (not delegated to uid "
		    "%u?): %s", path, (unsigned)geteuid(), strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
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
	    faccessat(cg.fd, "cgroup.kill", W_OK, 0) < 0) {
		if (cg.parent >= 0 && cg.name[0] != '\0')
			(void)fmt(why, whysz, "cannot set up the run's cgroup: "
			    "%s", strerror(errno));
		cgroup_remove();
		return false;
	}
	return true;
}

/* pids.max counts every task of the run, threads and a linux-ns init too. */
int
cgroup_pids(uint64_t max)
{
	char v[32];

	return cg.fd < 0 || max == 0 ? 0 : fmt(v, sizeof(v), "%llu",
	    (unsigned long long)max) ? cg_write(cg.fd, "pids.max", v) : -1;
}

bool
cgroup_active(void)
{
	return cg.fd >= 0;
}

/* fork(), or a raw clone with flags; straight into the run's cgroup. */
pid_t
cgroup_clone(unsigned long long flags)
{
	uint64_t a[11] = { flags, 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0 };

	if (cg.fd < 0)
		return flags == 0 ? fork() : (pid_t)syscall(SYS_clone,
		    flags | SIGCHLD, NULL, NULL, NULL, 0);
	a[0] |= CLONE_INTO_CGROUP_;
	a[10] = (uint64_t)cg.fd; /* struct clone_args, CLONE_ARGS_SIZE_VER2 */
	return (pid_t)syscall(SYS_clone3, a, sizeof(a));
}

/*
 * The kernel's evidence, typed: an OOM kill in the run's cgroup is the
 * memory cap; a fork the pids controller refused is the process cap (the
 * tree tried to go past it, as the monitor would have seen).
 */
bool
cgroup_cap(const struct request *req, struct monitor_result *res)
{
	if (cg.fd < 0)
		return false;
	if (cg_read(cg.fd, "memory.events", "oom_kill") > 0) {
		res->cap = CORDON_CAP_MEMORY;
		res->cap_observed = cg_read(cg.fd, "memory.peak", NULL);
		res->cap_limit = req->limits.memory_bytes;
	} else if (req->limits.nproc != 0 &&
	    cg_read(cg.fd, "pids.events", "max") > 0) {
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
	uint64_t cpu = cg.fd < 0 ? 0 : cg_read(cg.fd, "cpu.stat", "usage_usec");

	if (cpu * 1000 > res->cpu_ns)
		res->cpu_ns = cpu * 1000;
	if (cg.fd >= 0 && faccessat(cg.fd, "memory.peak", R_OK, 0) == 0)
		res->max_mem = cg_read(cg.fd, "memory.peak", NULL);
}

/* cgroup.kill, then wait (10 s at most) for "populated 0". */
static int
kill_wait(int fd)
{
	struct pollfd p = { -1, POLLPRI, 0 };
	int i;

	if (cg_write(fd, "cgroup.kill", "1") < 0)
		return -1;
	p.fd = openat(fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	for (i = 0; i < 100 && cg_read(fd, "cgroup.events", "populated"); i++)
		(void)poll(&p, 1, 100);
	if (p.fd >= 0)
		close(p.fd);
	return i < 100 ? 0 : -1;
}

void
cgroup_kill(void)
{
	if (cg.fd >= 0)
		(void)kill_wait(cg.fd);
}

void
cgroup_remove(void)
{
	if (cg.fd >= 0) {
		(void)kill_wait(cg.fd);
		close(cg.fd);
	}
	if (cg.parent >= 0) {
		if (cg.name[0] != '\0')
			(void)unlinkat(cg.parent, cg.name, AT_REMOVEDIR);
		close(cg.parent);
	}
	cg.fd = cg.parent = -1;
	cg.name[0] = '\0';
}

/* Removes per-run cgroups whose helper is gone (their flock is free). */
int
cgroup_gc(void)
{
	char why[CORDON_MAX_TEXT_LEN];
	int parent = cgroup_parent(why, sizeof(why)), n = 0, fd;
	DIR *d = parent < 0 ? NULL : fdopendir(dup(parent));
	struct dirent *e;

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "cordon-", 7) != 0 || (fd = openat(parent,
		    e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 && kill_wait(fd) == 0 &&
		    unlinkat(parent, e->d_name, AT_REMOVEDIR) == 0)
			n++;
		close(fd);
	}
	if (d != NULL)
		closedir(d);
	if (parent >= 0)
		close(parent);
	return n;
}
