/*
 * rmtree.c - the workdir base's parts that the helper and the broker
 * share: the base's privacy check, its lock, and the one tree remover
 * (rmtree.h says what each does and who calls it).
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
 * while it still names that directory (see remove_name).  Library code:
 * nothing here prints or dies; errors are -1 with the text in err.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rmtree.h"

/*
 * The error for the caller, and -1.  errno is unchanged: snprintf sets it
 * only when it fails, and the arguments (strerror(errno)) come first.
 */
static int
failed(int formatted)
{
	(void)formatted;
	return -1;
}
#define ERR(...) failed(snprintf(err, errsz, __VA_ARGS__))

/* What a base, and a directory a base is made in, must be: ours alone. */
bool
cordon_base_private(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == getuid() &&
	    (st->st_mode & 022) == 0;
}

int
cordon_base_open(const char *base, int *base_fd, char *err, size_t errsz)
{
	struct stat st;
	int fd;

	*base_fd = -1;
	if ((fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return ERR("cannot open workdir base %s: %s", base,
		    strerror(errno));
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return ERR("cannot stat workdir base %s: %s", base,
		    strerror(errno));
	}
	if (!cordon_base_private(&st)) {
		close(fd);
		/* Not ENOENT: callers make a base only where none exists. */
		errno = EPERM;
		return ERR("workdir base %s must be owned by uid %u and not "
		    "writable by group or others (it is uid %u, mode %03o)",
		    base, (unsigned)getuid(), (unsigned)st.st_uid,
		    (unsigned)(st.st_mode & 07777));
	}
	*base_fd = fd;
	return 0;
}

int
cordon_base_lock(int base_fd, int how, int patience_ms, char *err, size_t errsz)
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
 * sure we have the owner rights in need on it (0700 to list and unlink in
 * it, 0500 to list it).  Why this is safe: a directory its owner made
 * unreadable (the payload, whose uid we share unless we are root) is
 * given them through an O_PATH fd and /proc/self/fd, which names exactly
 * the inode found without following a link, and only after that inode is
 * checked to be a directory on top's mount; its other mode bits are kept.
 */
static int
open_dir(int dirfd, const char *name, const struct place *top, mode_t need,
    struct stat *st)
{
	char proc[64];
	int fd, pfd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		/* Made unreadable (chmod 000): grant need on this inode. */
		pfd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (pfd < 0)
			return -1;
		if (fstat(pfd, st) < 0 || !S_ISDIR(st->st_mode) ||
		    (top != NULL && !same_place(pfd, st, top)) ||
		    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd) >=
		    (int)sizeof(proc) ||
		    chmod(proc, (st->st_mode & 07777) | need) < 0) {
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
	/* Readable but not writable (chmod 500): the owner may add it. */
	if (need == 0700 && (st->st_mode & 0700) != 0700 &&
	    fchmod(fd, 0700) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
cordon_dir_open(int dirfd, const char *name, mode_t need)
{
	struct stat st;

	return open_dir(dirfd, name, NULL, need, &st);
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
			if ((*child = open_dir(fd, e->d_name, top, 0700,
			    child_st)) < 0 ||
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

int
cordon_rmtree_fd(int dirfd, const char *name, int cur, char *err, size_t errsz)
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
	if ((fd = open_dir(dirfd, name, NULL, 0700, &st)) < 0)
		return ERR("cannot open %s: %s", name, strerror(errno));
	return cordon_rmtree_fd(dirfd, name, fd, err, errsz);
}

