/*
 * rmtree.h - the workdir base, as the helper and the broker both use it.
 *
 * Layout under the base directory (mode 0700 or at least not writable by
 * group or others, owned by the invoking user; made, if missing, only by
 * the helper and only in a directory that is just as private:
 * helper/workdir.c):
 *
 *   .lock          flock()ed shared while a workdir is being created and
 *                  exclusively while dead runs are reclaimed, so the two
 *                  never interleave;
 *   <id>.lock      flock()ed exclusively by the helper for the run's whole
 *                  life: a lock that can be taken means its helper died;
 *   <id>/          the workdir, mode 0700.
 *
 * The helper creates and removes its own run's workdir (helper/workdir.c);
 * the broker, with the invoker's rights, reclaims dead runs' (broker/gc.c).
 * Both remove with the one remover below.
 */
#ifndef CORDON_COMMON_RMTREE_H
#define CORDON_COMMON_RMTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* What a base, and a directory a base is made in, must be: ours alone. */
bool cordon_base_private(const struct stat *st);
/*
 * Opens an existing base (no symlink followed) and refuses one that is
 * not ours and private: another user who made our base first (a shared
 * /tmp) could watch or swap our workdirs.  The fd in *base_fd, or -1 with
 * err (errno ENOENT when there is none).
 */
int cordon_base_open(const char *base, int *base_fd, char *err,
    size_t errsz);
/*
 * Takes the base lock (how: LOCK_SH to create, LOCK_EX to reclaim); its
 * fd, to close.  Any process of the user can hold it, a payload included,
 * so waiting is bounded: after patience_ms the caller gets an error (or,
 * with 0, at once) instead of a run that hangs.
 */
int cordon_base_lock(int base_fd, int how, int patience_ms, char *err,
    size_t errsz);

/*
 * Opens dirfd/name, a directory, without following a link, granting the
 * owner rights in need (0500 to list, 0700 to empty) to one its owner
 * made unreadable; -1 with errno.
 */
int cordon_dir_open(int dirfd, const char *name, mode_t need);
/*
 * Removes dirfd/name and everything below it without following links: 0;
 * 1 (and err) if the tree was emptied but the name, which another
 * directory took meanwhile, left alone; -1 on error.
 */
int rmtree_at(int dirfd, const char *name, char *err, size_t errsz);
/*
 * The same for a directory already open at cur (closed here): emptied
 * through cur, never through its name, which is removed only while it
 * still names that directory.
 */
int cordon_rmtree_fd(int dirfd, const char *name, int cur, char *err,
    size_t errsz);

#endif
