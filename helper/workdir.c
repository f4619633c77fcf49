/*
 * workdir.c - the run's throw-away working directory: create, lock, remove,
 * and the walk that measures it.
 *
 * The base's layout and lock protocol, its privacy check and the tree
 * remover are shared with the broker, which reclaims dead runs' workdirs
 * with the invoker's rights (common/rmtree.h, broker/gc.c).  What stays
 * here is what only the helper does: make a base (make_base, the only
 * place one is made), make and lock the run's workdir, and remove it at
 * the end of the run through the fd held since it was made.  The removal
 * must stay in the helper: when the broker is SIGKILLed, the helper is
 * the only one left to do it.
 */
#include "config.h"

#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include <bsd/string.h>

#include "helper.h"
#include "rmtree.h"

/* How long creating a workdir waits for a gc holding the base lock. */
#define BASE_LOCK_PATIENCE_MS 10000

/*
 * Makes base's last component, mode 0700, and opens it.  Why this is safe
 * (and the only place a base is made): its parent must be as private as a
 * base, checked on the fd the new name is made and opened through.  So a
 * base is never a new name in a directory others can write, such as /tmp,
 * where another user could have made it first (and so deny cordon to its
 * owner: every run and gc refused) or could replace it; and a setuid
 * helper, which does this as the invoker, never makes one user a base at
 * a name another user's default would use: that lies in the other user's
 * own runtime or state directory (broker/paths.c).  A base wanted in a
 * shared directory is made by its owner first (mkdir -m 0700).
 */
static int
make_base(const char *base, char *err, size_t errsz)
{
	char parent[CORDON_MAX_PATH_LEN + 2];
	const char *last = strrchr(base, '/');
	struct stat st;
	int pfd = -1, fd = -1;

	if (last == NULL || !fmt(parent, sizeof(parent), "%.*s/",
	    (int)(last - base), base))
		ERR("cannot create workdir base %s: not an absolute path", base);
	else if ((pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    fstat(pfd, &st) < 0)
		ERR("cannot create workdir base %s: its directory: %s", base,
		    strerror(errno));
	else if (!cordon_base_private(&st))
		ERR("cannot create workdir base %s: its directory is uid %u's, "
		    "mode %03o, so others could make or replace that name; "
		    "create the base yourself (mkdir -m 0700 %s) or choose one "
		    "in a directory of your own that group and others cannot "
		    "write", base, (unsigned)st.st_uid,
		    (unsigned)(st.st_mode & 07777), base);
	else if (mkdirat(pfd, last + 1, 0700) < 0 && errno != EEXIST)
		ERR("cannot create workdir base %s: %s", base, strerror(errno));
	else if ((fd = openat(pfd, last + 1, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) < 0)
		ERR("cannot open workdir base %s: %s", base, strerror(errno));
	if (pfd >= 0)
		close(pfd);
	return fd;
}

int
workdir_open_base(const char *base, bool create, int *base_fd, char *err,
    size_t errsz)
{
	struct stat st;
	int fd;

	if (cordon_base_open(base, base_fd, err, errsz) == 0)
		return 0;
	if (errno != ENOENT || !create || (fd = make_base(base, err,
	    errsz)) < 0)
		return -1;
	/* As cordon_base_open() checks one that existed: ours, private. */
	if (fstat(fd, &st) < 0 || !cordon_base_private(&st)) {
		close(fd);
		return ERR("workdir base %s, just made, is not private to uid "
		    "%u", base, (unsigned)getuid());
	}
	*base_fd = fd;
	return 0;
}

int
workdir_create(const char *base, const char *run_id, struct workdir *wd,
    char *err, size_t errsz)
{
	char lockname[CORDON_RUN_ID_LEN + 8];
	bool made_dir = false;
	int guard = -1, r = -1;

	memset(wd, 0, sizeof(*wd));
	wd->base_fd = wd->lock_fd = wd->fd = -1;
	/* run_id was checked to be 32 hex digits: no '/', no "..". */
	if (!cordon_run_id_valid(run_id))
		return ERR("invalid run id");
	strlcpy(wd->name, run_id, sizeof(wd->name));
	if (!fmt(wd->path, sizeof(wd->path), "%s/%s", base, run_id) ||
	    !fmt(lockname, sizeof(lockname), "%s.lock", run_id))
		return ERR("workdir path too long");
	if (workdir_open_base(base, true, &wd->base_fd, err, errsz) < 0)
		return -1;
	if ((guard = cordon_base_lock(wd->base_fd, LOCK_SH,
	    BASE_LOCK_PATIENCE_MS, err, errsz)) < 0)
		goto out;
	wd->lock_fd = openat(wd->base_fd, lockname,
	    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (wd->lock_fd < 0)
		ERR("cannot create %s/%s: %s", base, lockname, strerror(errno));
	else if (flock(wd->lock_fd, LOCK_EX | LOCK_NB) < 0)
		ERR("cannot lock %s/%s: %s", base, lockname, strerror(errno));
	else if (mkdirat(wd->base_fd, run_id, 0700) < 0)
		ERR("cannot create workdir %s: %s", wd->path, strerror(errno));
	else {
		made_dir = true;
		wd->fd = openat(wd->base_fd, run_id,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (wd->fd < 0 || fchmod(wd->fd, 0700) < 0)
			ERR("cannot open workdir %s: %s", wd->path,
			    strerror(errno));
		else
			r = 0;
	}
out:
	if (guard >= 0)
		close(guard); /* releases the shared lock */
	/* Undo only what this call made: never someone else's <id>. */
	if (r < 0 && made_dir) {
		char ignored[8];

		(void)rmtree_at(wd->base_fd, run_id, ignored, sizeof(ignored));
	}
	if (r < 0 && wd->lock_fd >= 0)
		(void)unlinkat(wd->base_fd, lockname, 0);
	if (r < 0) {
		if (wd->fd >= 0)
			close(wd->fd);
		if (wd->lock_fd >= 0)
			close(wd->lock_fd);
		if (wd->base_fd >= 0)
			close(wd->base_fd);
		wd->base_fd = wd->lock_fd = wd->fd = -1;
	}
	return r;
}

int
workdir_remove(struct workdir *wd, char *err, size_t errsz)
{
	char lockname[CORDON_RUN_ID_LEN + 8];
	bool emptied;
	int r;

	/*
	 * Emptied through the fd held since the workdir was made, never
	 * through its name: the payload, or any process of the invoker's,
	 * may have renamed ours away or exchanged another directory in for
	 * it (RENAME_EXCHANGE) at any moment, so only the fd is sure to be
	 * the directory we made.  Its name goes last, and only while it
	 * still names that directory (remove_name).
	 */
	r = wd->fd < 0 ? ERR("workdir %s is not open", wd->path) :
	    cordon_rmtree_fd(wd->base_fd, wd->name, wd->fd, err, errsz);
	wd->fd = -1; /* closed by cordon_rmtree_fd */
	emptied = r >= 0;
	if (r > 0)
		r = ERR("workdir %s was moved or replaced during the run: "
		    "emptied, its name left alone", wd->path);
	/*
	 * While our directory is not empty the lock stays, so gc sees a dead
	 * run and tries again.  Once it is, the lock goes, even with the name
	 * left alone: gc must never take that name, another's now, for ours.
	 */
	if (emptied && fmt(lockname, sizeof(lockname), "%s.lock", wd->name))
		(void)unlinkat(wd->base_fd, lockname, 0);
	close(wd->lock_fd);
	close(wd->base_fd);
	wd->lock_fd = wd->base_fd = -1;
	return r;
}

static int
/* NOLINTNEXTLINE(misc-no-recursion): bounded by WALK_MAX_DEPTH */
walk(int fd, dev_t dev, int depth, walk_fn fn, void *arg)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int dfd, sub, r = 0;

	if (depth > WALK_MAX_DEPTH)
		return -1;
	/* Its own open file description: the listing starts at the top. */
	if ((dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return -1;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone meanwhile: nothing to count */
		if ((r = fn(fd, e->d_name, &st, arg)) != 0 ||
		    !S_ISDIR(st.st_mode) || st.st_dev != dev)
			continue;
		/* One its owner made unreadable gets owner r-x: never blinded. */
		if ((sub = cordon_dir_open(fd, e->d_name, 0500)) < 0) {
			r = -1;
			break;
		}
		r = walk(sub, dev, depth + 1, fn, arg);
		close(sub);
	}
	closedir(d);
	return r;
}

int
workdir_walk(int fd, walk_fn fn, void *arg)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	return walk(fd, st.st_dev, 1, fn, arg);
}

/* At most this many entries per measurement: the monitor stays responsive. */
#define USAGE_MAX_ENTRIES 1000000

struct usage {
	uint64_t bytes;
	unsigned long entries;
};

static int
add_usage(int dirfd, const char *name, const struct stat *st, void *arg)
{
	struct usage *u = arg;

	(void)dirfd;
	(void)name;
	u->bytes += (uint64_t)st->st_blocks * 512;
	return ++u->entries > USAGE_MAX_ENTRIES ? -1 : 0;
}

bool
workdir_usage(int fd, uint64_t *bytes)
{
	struct usage u = { 0, 0 };
	struct stat st;
	bool ok;

	ok = fstat(fd, &st) == 0 && workdir_walk(fd, add_usage, &u) == 0;
	*bytes = u.bytes + (ok ? (uint64_t)st.st_blocks * 512 : 0);
	return ok;
}
