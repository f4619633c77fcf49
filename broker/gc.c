/*
 * gc.c - reclaims what killed helpers left: their workdirs and cgroups.
 *
 * `cordon gc` and the sweep after each run run here, in the broker, with
 * the invoker's rights: a helper does the same only after dropping every
 * privilege (it used to, for a GC message, which no helper accepts any
 * more), and what is removed is the invoker's own - dead runs' workdirs in
 * the invoker's private base, and the cgroups of dead runs below a parent
 * the invoker was delegated (or root's).
 *
 * Why this is safe, even against a payload that is still running
 * somewhere: a run's workdir is touched only once its <id>.lock can be
 * taken (flock LOCK_NB), which its helper holds for the run's whole life,
 * under the base's exclusive .lock, which the helper holds shared while
 * it creates one (common/rmtree.h): so a live run's workdir is never
 * touched.  Removal is common/rmtree.c's: openat-relative from fds held,
 * never following a symlink, never leaving the file system or mount of
 * the directory removed.  The base itself must be the invoker's and
 * private (cordon_base_open).  A cgroup is removed only when its flock,
 * held by its helper for the run's life, can be taken.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "gc.h"
#include "internal.h"
#include "rmtree.h"

#define CG_ROOT "/sys/fs/cgroup"

int
workdir_gc(int base_fd, int patience_ms, char *err, size_t errsz)
{
	struct dirent *e;
	DIR *d;
	int guard, dfd, lfd, rm, e0, count = 0, r = 0;
	size_t n;

	if ((guard = cordon_base_lock(base_fd, LOCK_EX, patience_ms, err,
	    errsz)) < 0)
		return -1;
	/* Its own open file description, so every gc lists from the start. */
	if ((dfd = openat(base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		e0 = errno;
		close(guard);
		(void)snprintf(err, errsz, "cannot list the workdir base: %s",
		    strerror(e0));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		n = strlen(e->d_name);
		if (n == CORDON_RUN_ID_LEN + 5 &&
		    strcmp(e->d_name + CORDON_RUN_ID_LEN, ".lock") == 0) {
			char id[CORDON_RUN_ID_LEN + 1];

			memcpy(id, e->d_name, CORDON_RUN_ID_LEN);
			id[CORDON_RUN_ID_LEN] = '\0';
			if (!cordon_run_id_valid(id))
				continue;
			lfd = openat(base_fd, e->d_name,
			    O_RDWR | O_NOFOLLOW | O_CLOEXEC);
			if (lfd < 0)
				continue;
			/*
			 * A lock we can take belongs to a helper that died.  It
			 * goes once the workdir is empty, as in workdir_remove.
			 */
			if (flock(lfd, LOCK_EX | LOCK_NB) == 0) {
				if ((rm = rmtree_at(base_fd, id, err, errsz)) != 0)
					r = -1;
				if (rm >= 0 && unlinkat(base_fd, e->d_name, 0) == 0 &&
				    rm == 0)
					count++;
			}
			close(lfd);
		}
		/*
		 * A bare <id> without its lock is left alone: cordon creates
		 * the lock before the workdir and removes it after, so such a
		 * directory is not one of ours to remove.
		 */
	}
	closedir(d);
	close(guard);
	return r < 0 ? -1 : count;
}

/*
 * The parent of the runs' cgroups, found as helper/cgroup.c finds it but
 * with nothing made or enabled: the test suite's CORDON_CGROUP_PARENT;
 * for root the configured parent; for anyone else the parent of our own
 * cgroup (the helper, our child, starts in ours).  -1 if there is none.
 */
static int
cgroup_parent_fd(void)
{
	char path[CORDON_MAX_PATH_LEN] = CORDON_CGROUP_PARENT;
	char own[CORDON_MAX_PATH_LEN] = "", *e = NULL;
	const char *over = getenv("CORDON_CGROUP_PARENT");
	struct statfs sf;
	int fd;

	if (statfs(CG_ROOT, &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC)
		return -1;
	if (over != NULL) {
		(void)snprintf(path, sizeof(path), "%s", over);
	} else if (geteuid() != 0) {
		/* cgroup v2 alone lists one line, "0::/our/cgroup". */
		if ((fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC)) < 0)
			return -1;
		if (read(fd, own, sizeof(own) - 1) > 4 &&
		    strncmp(own, "0::/", 4) == 0)
			e = strrchr(own, '/');
		close(fd);
		if (e == NULL || e == own + 3)
			return -1;
		*e = '\0';
		if (snprintf(path, sizeof(path), "%s%s", CG_ROOT, own + 3) >=
		    (int)sizeof(path))
			return -1;
	}
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/*
 * Kills what is left in parent/name (open at fd: cgroup.kill) and removes
 * it once it is empty, which rmdir waits for by failing with EBUSY until
 * then: 10 s at most.
 */
static bool
cgroup_kill_remove(int parent, const char *name, int fd)
{
	struct timespec pause = { 0, 100000000 };
	int kfd, i;

	if ((kfd = openat(fd, "cgroup.kill", O_WRONLY | O_CLOEXEC)) >= 0) {
		(void)!write(kfd, "1", 1);
		close(kfd);
	}
	for (i = 0; i < 100; i++) {
		if (unlinkat(parent, name, AT_REMOVEDIR) == 0)
			return true;
		if (errno != EBUSY)
			return false;
		nanosleep(&pause, NULL);
	}
	return false;
}

/* Removes per-run cgroups whose helper is gone (their flock is free). */
static int
cgroup_gc(void)
{
	int parent = cgroup_parent_fd(), dfd, n = 0, fd;
	DIR *d = NULL;
	struct dirent *e;

	if (parent >= 0 && (dfd = openat(parent, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) >= 0 && (d = fdopendir(dfd)) == NULL)
		close(dfd);
	while (d != NULL && (e = readdir(d)) != NULL) {
		fd = strncmp(e->d_name, "cordon-", 7) != 0 ? -1 :
		    openat(parent, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		n += fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    cgroup_kill_remove(parent, e->d_name, fd);
		if (fd >= 0)
			close(fd);
	}
	if (d != NULL)
		closedir(d);
	if (parent >= 0)
		close(parent);
	return n;
}

void
cordon_gc_sweep(const char *base)
{
	char err[CORDON_MAX_TEXT_LEN];
	int base_fd = -1;

	if (base == NULL || cordon_base_open(base, &base_fd, err,
	    sizeof(err)) < 0)
		return;
	(void)workdir_gc(base_fd, 0, err, sizeof(err));
	close(base_fd);
}

int
cordon_gc(const cordon_config *cfg, char *msg, size_t msgsz)
{
	char err[CORDON_MAX_TEXT_LEN] = "", *base = NULL;
	int base_fd = -1, n, ncg, r;

	if ((r = cfg->workdir_base != NULL ?
	    ((base = strdup(cfg->workdir_base)) ? 0 : -CORDON_E_NOMEM) :
	    cordon_default_workdir_base(&base)) < 0)
		return r;
	if (cordon_base_open(base, &base_fd, err, sizeof(err)) < 0) {
		/* No base: nothing ever ran, nothing to reclaim. */
		r = errno == ENOENT ? 0 : -CORDON_E_IO;
		if (msg != NULL && msgsz > 0)
			(void)snprintf(msg, msgsz, "%s", r == 0 ?
			    "reclaimed 0 workdir(s)" : err);
		free(base);
		return r;
	}
	/*
	 * Dead runs' cgroups first: what is left of their processes dies
	 * there, so none is still writing into the workdir removed next.  A
	 * base busy with another gc is waited for, 10 s at most.
	 */
	ncg = cgroup_gc();
	n = workdir_gc(base_fd, 10000, err, sizeof(err));
	close(base_fd);
	free(base);
	if (n < 0) {
		if (msg != NULL && msgsz > 0)
			(void)snprintf(msg, msgsz, "%s", err);
		return -CORDON_E_IO;
	}
	if (msg != NULL && msgsz > 0)
		(void)snprintf(msg, msgsz, "reclaimed %d workdir(s), %d "
		    "cgroup(s)", n, ncg);
	return 0;
}
