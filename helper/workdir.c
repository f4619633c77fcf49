/*
 * workdir.c - the run's throw-away working directory: create, lock, remove.
 *
 * Layout under the base directory (mode 0700 or at least not writable by
 * group or others, owned by the invoking user; made, if missing, only in a
 * directory that is just as private: see workdir_open_base):
 *
 *   .lock          flock()ed shared while a workdir is being created and
 *                  exclusively while dead runs are reclaimed, so the two
 *                  never interleave;
 *   <id>.lock      flock()ed exclusively by the helper for the run's whole
 *                  life: a lock that can be taken means its helper died;
 *   <id>/          the workdir, mode 0700.
 *
 * Why removal is safe: the payload controls everything inside the workdir
 * and may still be racing us if it escaped the kill (it cannot on the
 * supported paths, but we do not rely on that).  So removal never resolves
 * a path: it walks with openat(O_NOFOLLOW | O_DIRECTORY) from fds it
 * holds, unlinks entries relative to those fds (a symlink is unlinked,
 * never followed), refuses to cross onto another file system, and climbs
 * back with ".." only after checking that the directory it arrives in is
 * the one it came from (device and inode).  Directories the payload made
 * unreadable are re-opened with O_PATH and granted owner rwx through
 * /proc/self/fd, which names exactly the inode already opened.  The top
 * is emptied through the fd held since it was opened (for a run's
 * workdir: since it was created), and its name is removed last, only
 * while it still names that directory (see remove_name).
 */
#include "config.h"

#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include <bsd/string.h>

#include "helper.h"

/* How long creating a workdir waits for a gc holding the base lock. */
#define BASE_LOCK_PATIENCE_MS 10000

/* What a base, and a directory a base is made in, must be: ours alone. */
static bool
private_dir(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == getuid() &&
	    (st->st_mode & 022) == 0;
}

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
	else if (!private_dir(&st))
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

	*base_fd = -1;
	fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create &&
	    (fd = make_base(base, err, errsz)) < 0)
		return -1;
	if (fd < 0)
		return ERR("cannot open workdir base %s: %s", base,
		    strerror(errno));
	if (fstat(fd, &st) < 0) {
		close(fd);
		return ERR("cannot stat workdir base %s: %s", base,
		    strerror(errno));
	}
	/*
	 * Another user who made our base first (a shared /tmp) could watch
	 * or swap our workdirs: refuse unless it is ours and private.
	 */
	if (!private_dir(&st)) {
		close(fd);
		return ERR("workdir base %s must be owned by uid %u and not "
		    "writable by group or others (it is uid %u, mode %03o)",
		    base, (unsigned)getuid(), (unsigned)st.st_uid,
		    (unsigned)(st.st_mode & 07777));
	}
	*base_fd = fd;
	return 0;
}

/*
 * Takes the base lock (shared to create, exclusive to reclaim).  Any
 * process of the user can hold it, a payload included, so waiting is
 * bounded: after patience_ms the caller gets an error (or, with 0, at
 * once) instead of a run that hangs.
 */
static int
lock_base(int base_fd, int how, int patience_ms, char *err, size_t errsz)
{
	struct timespec pause = { 0, 10000000 };
	int fd, waited = 0;

	fd = openat(base_fd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0)
		return ERR("cannot open the workdir base lock: %s",
		    strerror(errno));
	while (flock(fd, how | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK || waited >= patience_ms) {
			close(fd);
			return ERR("cannot lock the workdir base: %s",
			    errno == EWOULDBLOCK ? "another process holds "
			    ".lock" : strerror(errno));
		}
		nanosleep(&pause, NULL);
		waited += 10;
	}
	return fd;
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
	if ((guard = lock_base(wd->base_fd, LOCK_SH, BASE_LOCK_PATIENCE_MS, err,
	    errsz)) < 0)
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

struct frame {
	dev_t dev;
	ino_t ino;
	char *name;
};

/* Where the tree lives: the file system and mount of its top directory. */
struct place {
	dev_t dev;
	uint64_t mnt_id;
	bool have_mnt_id;
};

static void
place_of(int fd, const struct stat *st, struct place *top)
{
	struct statx sx;

	top->dev = st->st_dev;
	top->have_mnt_id = statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) == 0 &&
	    (sx.stx_mask & STATX_MNT_ID) != 0;
	top->mnt_id = top->have_mnt_id ? sx.stx_mnt_id : 0;
}

/*
 * True if fd, a directory below the top, is on the top's file system and
 * mount.  st_dev alone misses a bind mount from the same file system,
 * which would lead the walk into (and empty) the mount's source; so the
 * mount id and the mount-root attribute are checked too (statx, 5.8+).
 */
static bool
same_place(int fd, const struct stat *st, const struct place *top)
{
	struct statx sx;

	if (st->st_dev != top->dev)
		return false;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0)
		return !top->have_mnt_id;
	if ((sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) != 0 &&
	    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0)
		return false;
	return !top->have_mnt_id || (sx.stx_mask & STATX_MNT_ID) == 0 ||
	    sx.stx_mnt_id == top->mnt_id;
}

/*
 * Opens dirfd/name as a directory without following a symlink, refusing
 * (EXDEV) one on another mount than top (when top is not NULL), and makes
 * sure we may list and unlink in it.
 */
static int
open_dir(int dirfd, const char *name, const struct place *top,
    struct stat *st)
{
	char proc[64];
	int fd, pfd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		/* Made unreadable (chmod 000): grant owner rwx on this inode. */
		pfd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (pfd < 0)
			return -1;
		if (fstat(pfd, st) < 0 || !S_ISDIR(st->st_mode) ||
		    (top != NULL && !same_place(pfd, st, top)) ||
		    !fmt(proc, sizeof(proc), "/proc/self/fd/%d", pfd) ||
		    chmod(proc, 0700) < 0) {
			close(pfd);
			errno = EACCES;
			return -1;
		}
		close(pfd);
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0) {
		close(fd);
		return -1;
	}
	if (top != NULL && !same_place(fd, st, top)) {
		close(fd);
		errno = EXDEV; /* a mount inside the tree: never walk into it */
		return -1;
	}
	if ((st->st_mode & 0700) != 0700 && fchmod(fd, 0700) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool
is_dir_entry(int dirfd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

/*
 * Empties the directory open at fd, down to the first subdirectory, which
 * it returns open in *child (or -1 once fd holds no directory at all).
 */
static int
clear_files(int fd, const struct place *top, int *child, char **child_name,
    struct stat *child_st)
{
	DIR *d;
	struct dirent *e;
	int dfd, r = 0;

	*child = -1;
	/* A new open file description: dup() would share (and move) the offset. */
	if ((dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return -1;
	}
	while ((errno = 0, e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (is_dir_entry(fd, e)) {
			if ((*child = open_dir(fd, e->d_name, top, child_st)) < 0 ||
			    (*child_name = strdup(e->d_name)) == NULL) {
				if (*child >= 0)
					close(*child);
				*child = -1;
				r = -1;
			}
			break;
		}
		if (unlinkat(fd, e->d_name, 0) < 0 && errno != ENOENT) {
			r = -1;
			break;
		}
	}
	if (e == NULL && errno != 0)
		r = -1;
	closedir(d);
	return r;
}

/* True if dirfd/name is, without following a link, the inode (dev, ino). */
static bool
names(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == dev && st.st_ino == ino;
}

/*
 * Removes dirfd/name, the directory (dev, ino) just emptied through an fd,
 * only while the name still names it; 1 (and err) if it does not, the
 * name left alone.  Why this is safe: nothing was emptied through the
 * name, so a directory exchanged in for ours (renameat2 RENAME_EXCHANGE)
 * loses nothing.  Linux has no "rmdir if this inode", so one exchanged in
 * between the look and the rmdir can still be removed - but AT_REMOVEDIR
 * removes only an empty directory, never a file; and a failed rmdir is
 * looked at again, so that one exchanged in is reported, not taken for
 * ours.
 */
static int
remove_name(int dirfd, const char *name, dev_t dev, ino_t ino, char *err,
    size_t errsz)
{
	int e;

	if (names(dirfd, name, dev, ino)) {
		if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0)
			return 0;
		e = errno;
		if (names(dirfd, name, dev, ino))
			return ERR("cannot remove %s: %s", name, strerror(e));
	}
	(void)ERR("%s was moved or replaced: emptied through the directory "
	    "held, its name left alone", name);
	return 1;
}

/*
 * Empties the directory open at cur (the fd is ours to close), then
 * removes dirfd/name if it still names that directory: 0, 1 (remove_name)
 * or -1.
 */
static int
remove_tree(int dirfd, const char *name, int cur, char *err, size_t errsz)
{
	struct frame *stack = NULL, *nstack;
	size_t depth = 0, cap = 0;
	struct stat st, up;
	struct place top;
	char *child_name = NULL;
	int child, next, r = -1, e;

	/* Made unreadable by the payload: the owner may chmod it back. */
	if (fstat(cur, &st) < 0 ||
	    ((st.st_mode & 0700) != 0700 && fchmod(cur, 0700) < 0)) {
		e = errno;
		close(cur);
		return ERR("cannot open %s: %s", name, strerror(e));
	}
	place_of(cur, &st, &top);
	/* The root's frame is pushed first; without it depth underflows. */
	if ((child_name = strdup(name)) == NULL)
		goto oom;
	for (;;) {
		if (child_name != NULL) {
			/* Entered a directory: remember where we came from. */
			if (depth == cap) {
				nstack = reallocarray(stack, cap == 0 ? 16 : cap * 2,
				    sizeof(*stack));
				if (nstack == NULL)
					goto oom;
				stack = nstack;
				/* Names are freed by index at out: start them NULL. */
				memset(stack + cap, 0, (cap == 0 ? 16 : cap) *
				    sizeof(*stack));
				cap = cap == 0 ? 16 : cap * 2;
			}
			stack[depth].dev = st.st_dev;
			stack[depth].ino = st.st_ino;
			stack[depth].name = child_name;
			depth++;
			child_name = NULL;
		}
		if (clear_files(cur, &top, &child, &child_name, &st) < 0) {
			ERR("cannot empty %s/.../%s: %s", name,
			    stack[depth - 1].name, strerror(errno));
			goto out;
		}
		if (child >= 0) {
			close(cur);
			cur = child;
			continue;
		}
		/* cur is empty: climb to its parent and remove it there. */
		depth--;
		if (depth == 0) {
			close(cur);
			cur = -1;
			r = remove_name(dirfd, name, stack[0].dev, stack[0].ino,
			    err, errsz);
			goto out;
		}
		next = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 || fstat(next, &up) < 0 ||
		    up.st_dev != stack[depth - 1].dev ||
		    up.st_ino != stack[depth - 1].ino) {
			if (next >= 0)
				close(next);
			ERR("%s changed while it was being removed", name);
			goto out;
		}
		close(cur);
		cur = next;
		if (unlinkat(cur, stack[depth].name, AT_REMOVEDIR) < 0) {
			ERR("cannot remove %s/.../%s: %s", name,
			    stack[depth].name, strerror(errno));
			goto out;
		}
		free(stack[depth].name);
		stack[depth].name = NULL;
	}
oom:
	ERR("out of memory removing %s", name);
out:
	if (cur >= 0)
		close(cur);
	free(child_name);
	for (depth = 0; depth < cap; depth++)
		free(stack[depth].name);
	free(stack);
	return r;
}

int
rmtree_at(int dirfd, const char *name, char *err, size_t errsz)
{
	struct stat st;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : ERR("cannot stat %s: %s", name,
		    strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return ERR("cannot remove %s: %s", name, strerror(errno));
		return 0;
	}
	if ((fd = open_dir(dirfd, name, NULL, &st)) < 0)
		return ERR("cannot open %s: %s", name, strerror(errno));
	return remove_tree(dirfd, name, fd, err, errsz);
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
	    remove_tree(wd->base_fd, wd->name, wd->fd, err, errsz);
	wd->fd = -1; /* closed by remove_tree */
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

int
workdir_gc(int base_fd, int patience_ms, char *err, size_t errsz)
{
	struct dirent *e;
	DIR *d;
	int guard, dfd, lfd, rm, count = 0, r = 0;
	size_t n;

	if ((guard = lock_base(base_fd, LOCK_EX, patience_ms, err, errsz)) < 0)
		return -1;
	/* Its own open file description, so every gc lists from the start. */
	if ((dfd = openat(base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		close(guard);
		return ERR("cannot list the workdir base: %s", strerror(errno));
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
 * Opens dirfd/name, a directory, for the walk.  A directory its owner
 * made unreadable (the payload, whose uid we share unless we are root) is
 * given owner r-x through the O_PATH fd, which names exactly the inode
 * found without following a link, so the walk cannot be blinded by it.
 */
static int
walk_open(int dirfd, const char *name)
{
	char proc[64];
	struct stat st;
	int fd, pfd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 || errno != EACCES)
		return fd;
	if ((pfd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -1;
	if (fstat(pfd, &st) == 0 && fmt(proc, sizeof(proc), "/proc/self/fd/%d",
	    pfd) && chmod(proc, (st.st_mode & 07777) | 0500) == 0)
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	close(pfd);
	return fd;
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
		if ((sub = walk_open(fd, e->d_name)) < 0) {
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
