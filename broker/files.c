/*
 * files.c - files in and out of the workdir, on the broker's side:
 * --copy-in, --copy-out (and the checks of --ro-bind before a run).
 *
 * Why here and not in the helper: the broker runs as the invoker, so it
 * can read exactly what the invoker can and writes host files as the
 * invoker; nothing here needs privilege, and the helper (which may be
 * setuid root) stays small.  The helper holds the run at two points for
 * us (wire.h: CREATED ... GO with the payload held before its execve, EXIT
 * ... GO before the teardown), so nothing of the command runs while we
 * copy.
 *
 * Why copying out is safe although the payload wrote the tree: the source
 * is reached from the workdir fd one component at a time with
 * O_NOFOLLOW, and a PATH any of whose components is a symlink copies
 * nothing.  Below PATH a symlink is recreated as a symlink, never
 * followed; special files are skipped.  Everything is created under a new
 * directory entry of our own (O_EXCL, mkdirat) next to DEST, through fds,
 * and renamed to DEST only when complete (RENAME_NOREPLACE): an existing
 * DEST is never touched, and a failed or over-limit copy leaves nothing.
 * Depth, entries and bytes are bounded.  What we create out of the
 * workdir gets the payload's permission bits less the invoker's umask and
 * less group and other write, and never a set-id or sticky bit: the
 * payload chose those modes, and they must not become, say, a world-
 * writable directory of root's (copy_out_keep()).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define COPY_MAX_DEPTH 256
#define COPY_MAX_ENTRIES 1000000UL

struct budget {
	uint64_t bytes, limit;      /* limit 0: none */
	unsigned long entries;
	mode_t keep;                /* the permission bits a copy may keep */
};

/* types.h's error helper, into the caller's err. */
#define ERR(...) cordon_errf(err, errsz, __VA_ARGS__)

/* A relative path of plain components: no "/" first, no "", ".", "..". */
static bool
rel_clean(const char *p)
{
	const char *c = p, *e;
	size_t n;

	if (p == NULL || p[0] == '\0' || p[0] == '/' ||
	    strlen(p) > CORDON_MAX_PATH_LEN)
		return false;
	for (;;) {
		e = strchrnul(c, '/');
		n = (size_t)(e - c);
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (*e == '\0')
			return true;
		c = e + 1;
	}
}

/* The last component of p (trailing slashes ignored), or "" for "/". */
static const char *
base_of(const char *p, char *buf, size_t sz)
{
	size_t n = strlen(p);
	const char *s;

	while (n > 1 && p[n - 1] == '/')
		n--;
	snprintf(buf, sz, "%.*s", (int)n, p);
	s = strrchr(buf, '/');
	return s == NULL ? buf : (s[1] == '\0' ? "" : s + 1);
}

/* Opens the directory holding p (followed: the invoker's own path). */
static int
open_parent(const char *p, char *name, size_t namesz)
{
	char dir[CORDON_MAX_PATH_LEN + 1];
	const char *b = base_of(p, dir, sizeof(dir));
	char *slash;

	snprintf(name, namesz, "%s", b);
	if ((slash = strrchr(dir, '/')) == NULL)
		return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	slash[slash == dir ? 1 : 0] = '\0';
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int
copy_bytes(int in, int out, struct budget *b)
{
	static char buf[65536];
	ssize_t n, w;
	size_t off;

	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		b->bytes += (uint64_t)n;
		if (b->limit != 0 && b->bytes > b->limit) {
			errno = EFBIG;
			return -1;
		}
		for (off = 0; off < (size_t)n; off += (size_t)w)
			if ((w = write(out, buf + off, (size_t)n - off)) < 0) {
				if (errno != EINTR)
					return -1;
				w = 0;
			}
	}
	return 0;
}

static int copy_entry(int sdir, const char *sname, int ddir, const char *dname,
    int depth, struct budget *b, char *err, size_t errsz);

/* Copies the entries of directory in into directory out. */
static int
/* NOLINTNEXTLINE(misc-no-recursion): bounded by COPY_MAX_DEPTH */
copy_dir(int in, int out, int depth, struct budget *b, char *err,
    size_t errsz)
{
	struct dirent *e;
	DIR *d;
	int dfd, r = 0;

	if ((dfd = openat(in, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return ERR("cannot list a directory: %s", strerror(errno));
	}
	while (r == 0 && (errno = 0, e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			r = copy_entry(in, e->d_name, out, e->d_name, depth + 1,
			    b, err, errsz);
	if (r == 0 && e == NULL && errno != 0)
		r = ERR("cannot list a directory: %s", strerror(errno));
	closedir(d);
	return r;
}

/*
 * sdir/sname to ddir/dname, which must not exist: a regular file with its
 * bytes, a directory with its entries, a symlink as a symlink; permission
 * bits (those of b->keep, never set-id or sticky) and times kept; anything
 * else skipped.
 */
static int
/* NOLINTNEXTLINE(misc-no-recursion): bounded by COPY_MAX_DEPTH */
copy_entry(int sdir, const char *sname, int ddir, const char *dname,
    int depth, struct budget *b, char *err, size_t errsz)
{
	char target[CORDON_MAX_PATH_LEN + 1];
	struct timespec times[2];
	struct stat st, fst;
	ssize_t n;
	int in = -1, out = -1, r = -1;

	if (depth > COPY_MAX_DEPTH)
		return ERR("deeper than %d levels", COPY_MAX_DEPTH);
	if (++b->entries > COPY_MAX_ENTRIES)
		return ERR("more than %lu entries", COPY_MAX_ENTRIES);
	if (fstatat(sdir, sname, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return ERR("%s: %s", sname, strerror(errno));
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlinkat(sdir, sname, target, sizeof(target) - 1)) < 0)
			return ERR("%s: %s", sname, strerror(errno));
		target[n] = '\0';
		if (symlinkat(target, ddir, dname) < 0)
			return ERR("%s: %s", dname, strerror(errno));
		(void)utimensat(ddir, dname, times, AT_SYMLINK_NOFOLLOW);
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return 0; /* fifos, sockets, devices: not data */
	in = openat(sdir, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC | (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
	if (in < 0 || fstat(in, &fst) < 0) {
		ERR("%s: %s", sname, strerror(errno));
		goto out;
	}
	if (fst.st_ino != st.st_ino || fst.st_dev != st.st_dev) {
		ERR("%s: changed while it was copied", sname);
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdirat(ddir, dname, 0700) < 0 ||
		    (out = openat(ddir, dname, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0) {
			ERR("%s: %s", dname, strerror(errno));
			goto out;
		}
		if (copy_dir(in, out, depth, b, err, errsz) < 0)
			goto out;
	} else {
		out = openat(ddir, dname, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out < 0 || copy_bytes(in, out, b) < 0) {
			ERR("%s: %s", out < 0 ? dname : sname, errno == EFBIG ?
			    "over the size limit" : strerror(errno));
			goto out;
		}
	}
	if (fchmod(out, st.st_mode & b->keep) < 0 ||
	    futimens(out, times) < 0) {
		ERR("%s: %s", dname, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return r;
}

/*
 * The permission bits a copy-out keeps: the invoker's umask applied, as to
 * any file it creates, and group and other write dropped whatever the
 * umask (nobody else gets to change what the payload left us).  The umask
 * is read from /proc/self/status, because umask(2) reads it only by
 * setting it, which would race a thread of the caller creating a file;
 * without that line (no /proc, or a kernel before 4.7) the owner's bits
 * alone are kept.
 */
static mode_t
copy_out_keep(void)
{
	char line[128];
	unsigned long um = 077;
	char *end = NULL;
	FILE *f;

	if ((f = fopen("/proc/self/status", "re")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "Umask:", 6) == 0) {
				errno = 0;
				um = strtoul(line + 6, &end, 8);
				if (errno != 0 || end == line + 6 || um > 0777)
					um = 077;
				break;
			}
		(void)fclose(f);
	}
	return 0777 & ~(mode_t)um & ~(mode_t)(S_IWGRP | S_IWOTH);
}

/* Removes dir/name, a tree we created (a failed copy), without links. */
static void
/* NOLINTNEXTLINE(misc-no-recursion): bounded by COPY_MAX_DEPTH + 1 */
remove_tree(int dir, const char *name, int depth)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode) && depth <= COPY_MAX_DEPTH + 1) {
		fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd < 0 && errno == EACCES && fchmodat(dir, name, 0700, 0) == 0)
			fd = openat(dir, name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return;
		(void)fchmod(fd, 0700);
		if ((d = fdopendir(fd)) == NULL) {
			close(fd);
			return;
		}
		while ((e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") != 0 &&
			    strcmp(e->d_name, "..") != 0)
				remove_tree(dirfd(d), e->d_name, depth + 1);
		closedir(d);
		(void)unlinkat(dir, name, AT_REMOVEDIR);
	} else {
		(void)unlinkat(dir, name, 0);
	}
}

/*
 * Walks rel (rel_clean) from dir through directories only, never a link.
 * Returns the fd of the last directory (the caller closes it) with the
 * final component in *last; mkdirs: create missing directories (0755).
 */
static int
walk_to(int dir, const char *rel, bool mkdirs, char *buf, size_t bufsz,
    const char **last, char *err, size_t errsz)
{
	struct stat st;
	char *c, *slash;
	int cur, next;

	*last = "";
	snprintf(buf, bufsz, "%s", rel);
	if ((cur = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return ERR("cannot open the workdir: %s", strerror(errno));
	for (c = buf; (slash = strchr(c, '/')) != NULL; c = slash + 1) {
		*slash = '\0';
		if (mkdirs && mkdirat(cur, c, 0755) < 0 && errno != EEXIST)
			next = -1;
		else
			next = openat(cur, c, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int e = errno;

			close(cur);
			if (fstatat(dir, buf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				return ERR("'%s' is a symbolic link; nothing "
				    "copied", buf);
			return ERR("'%s': %s", buf, strerror(e));
		}
		close(cur);
		cur = next;
		*slash = '/';
	}
	*last = c;
	return cur;
}

int
cordon_copy_in(int wdfd, const struct cordon_copy *c, uint64_t limit,
    char *err, size_t errsz)
{
	char name[CORDON_MAX_PATH_LEN + 1], dbuf[CORDON_MAX_PATH_LEN + 1];
	char bbuf[CORDON_MAX_PATH_LEN + 1];
	/* Into the run's own workdir: the modes as they are (no set-id). */
	struct budget b = { 0, limit, 0, 0777 };
	const char *dest = c->dest, *last = NULL;
	int sdir, ddir, r;

	if (dest == NULL)
		dest = base_of(c->src, bbuf, sizeof(bbuf));
	if (!rel_clean(dest))
		return ERR("--copy-in %s: destination '%s' must be a relative "
		    "path without . or .. components", c->src, dest);
	if ((sdir = open_parent(c->src, name, sizeof(name))) < 0)
		return ERR("--copy-in %s: %s", c->src, strerror(errno));
	if ((ddir = walk_to(wdfd, dest, true, dbuf, sizeof(dbuf), &last, err,
	    errsz)) < 0) {
		close(sdir);
		return -1;
	}
	r = copy_entry(sdir, name[0] != '\0' ? name : ".", ddir, last, 0, &b,
	    err, errsz);
	if (r < 0 && b.limit != 0 && b.bytes > b.limit)
		r = ERR("--copy-in %s: more than the disk cap", c->src);
	close(sdir);
	close(ddir);
	return r;
}

int
cordon_copy_out(int wdfd, const struct cordon_copy *c, uint64_t limit,
    const char *tag, char *err, size_t errsz)
{
	char name[CORDON_MAX_PATH_LEN + 1], pbuf[CORDON_MAX_PATH_LEN + 1];
	char bbuf[CORDON_MAX_PATH_LEN + 1], tmp[96], msg[CORDON_MAX_TEXT_LEN];
	struct budget b = { 0, limit, 0, copy_out_keep() };
	const char *dest = c->dest, *last = NULL;
	struct stat st;
	int sdir = -1, hdir = -1, r = -1;

	if (dest == NULL)
		dest = base_of(c->src, bbuf, sizeof(bbuf));
	msg[0] = '\0';
	if ((sdir = walk_to(wdfd, c->src, false, pbuf, sizeof(pbuf), &last, msg,
	    sizeof(msg))) < 0)
		goto out;
	if (fstatat(sdir, last, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		cordon_errf(msg, sizeof(msg), "%s", strerror(errno));
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		cordon_errf(msg, sizeof(msg), "it is a symbolic link; nothing copied");
		goto out;
	}
	if ((hdir = open_parent(dest, name, sizeof(name))) < 0 ||
	    name[0] == '\0') {
		cordon_errf(msg, sizeof(msg), "destination %s: %s", dest,
		    hdir < 0 ? strerror(errno) : "not a file name");
		goto out;
	}
	if (fstatat(hdir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT) {
		cordon_errf(msg, sizeof(msg), "destination %s exists; cordon never "
		    "overwrites", dest);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), ".cordon-copy-out-%s", tag);
	if (copy_entry(sdir, last, hdir, tmp, 0, &b, msg, sizeof(msg)) < 0) {
		if (b.limit != 0 && b.bytes > b.limit)
			cordon_errf(msg, sizeof(msg), "more than the copy-out limit of "
			    "%llu bytes; nothing copied",
			    (unsigned long long)b.limit);
	} else if (renameat2(hdir, tmp, hdir, name, RENAME_NOREPLACE) < 0) {
		cordon_errf(msg, sizeof(msg), "destination %s: %s", dest,
		    strerror(errno));
	} else {
		r = 0;
	}
	if (r < 0)
		remove_tree(hdir, tmp, 0);
out:
	if (r < 0)
		ERR("--copy-out %s: %s", c->src, msg);
	if (sdir >= 0)
		close(sdir);
	if (hdir >= 0)
		close(hdir);
	return r;
}

/* Bad file options fail before anything is recorded or created. */
int
cordon_files_check(const cordon_config *cfg, char *err, size_t errsz)
{
	char name[CORDON_MAX_PATH_LEN + 1], bbuf[CORDON_MAX_PATH_LEN + 1];
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < cfg->ncopy_in; i++) {
		const struct cordon_copy *c = &cfg->copy_in[i];
		const char *dest = c->dest != NULL ? c->dest :
		    base_of(c->src, bbuf, sizeof(bbuf));

		if (!rel_clean(dest))
			return ERR("--copy-in %s: destination '%s' must be a "
			    "relative path without . or .. components (give "
			    "one as SRC:DEST)", c->src, dest);
		/* What the invoker cannot read is refused here, not copied. */
		if (lstat(c->src, &st) < 0)
			return ERR("--copy-in %s: %s", c->src, strerror(errno));
		if (!S_ISLNK(st.st_mode)) {
			fd = open(c->src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			    O_NOCTTY | O_CLOEXEC);
			if (fd < 0)
				return ERR("--copy-in %s: %s", c->src,
				    strerror(errno));
			close(fd);
		}
	}
	for (i = 0; i < cfg->ncopy_out; i++) {
		const struct cordon_copy *c = &cfg->copy_out[i];
		const char *dest = c->dest != NULL ? c->dest :
		    base_of(c->src, bbuf, sizeof(bbuf));

		if (!rel_clean(c->src))
			return ERR("--copy-out %s: PATH must be relative to the "
			    "workdir, without . or .. components", c->src);
		if ((fd = open_parent(dest, name, sizeof(name))) < 0)
			return ERR("--copy-out %s: destination %s: %s", c->src,
			    dest, strerror(errno));
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			close(fd);
			return ERR("--copy-out %s: destination %s exists; "
			    "cordon never overwrites", c->src, dest);
		}
		close(fd);
	}
	for (i = 0; i < cfg->nbinds; i++) {
		/* Landlock can allow a path only where it is. */
		if (cfg->backend == CORDON_BACKEND_FLOOR ||
		    (cfg->backend == CORDON_BACKEND_LANDLOCK &&
		    strcmp(cfg->binds[i].src, cfg->binds[i].dest) != 0))
			return ERR("--ro-bind %s:%s needs the linux-ns backend, "
			    "not %s", cfg->binds[i].src, cfg->binds[i].dest,
			    cordon_backend_name(cfg->backend));
		if (stat(cfg->binds[i].src, &st) < 0)
			return ERR("--ro-bind %s: %s", cfg->binds[i].src,
			    strerror(errno));
	}
	return 0;
}
