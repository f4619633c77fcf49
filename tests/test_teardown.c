/*
 * test_teardown.c - tests for helper/workdir.c: creating, locking,
 * reclaiming and removing workdirs.
 *
 * rmtree_at() removes a tree an untrusted payload wrote, so most tests
 * here are attacks: each builds a hostile tree in a fresh mkdtemp()
 * directory and checks that the tree is gone and that nothing outside it
 * (symlink and hard-link targets, mount contents) was touched.  Scenarios
 * that only prove something unprivileged (permission bits) drop to
 * nobody in a child when run as root; scenarios that need mounts run as
 * root in a child with a private mount namespace and are skipped, loudly,
 * otherwise.
 *
 * Every TCase has an unchecked fixture, run in the runner's process, that
 * makes one mkdtemp() root under /tmp and removes it afterwards, so a test
 * that fails or crashes half-way still leaves nothing behind.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gc.h"
#include "helper.h"

#define NOBODY 65534
#define DEEP 3000
#define WIDE 20000

static char root_dir[PATH_MAX];

/* ---- fixture: one private root per TCase ---------------------------------- */

static void
root_setup(void)
{
	if (!fmt(root_dir, sizeof(root_dir), "/tmp/cordon-teardown.XXXXXX") ||
	    mkdtemp(root_dir) == NULL) {
		perror("mkdtemp");
		abort();
	}
	/* nobody must be able to reach the per-test dirs made 01777 below. */
	if (chmod(root_dir, 0711) < 0) {
		perror("chmod");
		abort();
	}
}

static void
root_teardown(void)
{
	char cmd[PATH_MAX * 2 + 64];

	if (root_dir[0] == '\0')
		return;
	/* Tests only: give back the bits a scenario took, then remove. */
	if (fmt(cmd, sizeof(cmd), "chmod -R u+rwx '%s' 2>/dev/null; "
	    "rm -rf '%s'", root_dir, root_dir) && system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", root_dir);
	root_dir[0] = '\0';
}

/* ---- small helpers -------------------------------------------------------- */

struct scratch {
	char path[PATH_MAX];
	int fd;
};

/* A fresh directory under the TCase root, open in s->fd. */
static void
scratch_new(struct scratch *s)
{
	ck_assert(fmt(s->path, sizeof(s->path), "%s/t.XXXXXX", root_dir));
	ck_assert_msg(mkdtemp(s->path) != NULL, "mkdtemp: %s", strerror(errno));
	s->fd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_msg(s->fd >= 0, "open %s: %s", s->path, strerror(errno));
}

static bool
put_file(int dfd, const char *name, const char *text)
{
	size_t n = strlen(text);
	int fd;
	bool ok;

	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	ok = write(fd, text, n) == (ssize_t)n;
	return close(fd) == 0 && ok;
}

/* True if dfd/name is a regular file holding exactly text. */
static bool
file_is(int dfd, const char *name, const char *text)
{
	char buf[256];
	ssize_t n;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n >= 0 && (size_t)n == strlen(text) &&
	    memcmp(buf, text, (size_t)n) == 0;
}

static bool
exists_at(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int
open_dir_at(int dfd, const char *name)
{
	return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
}

/* Entries of dfd/name other than "." and "..", or -1. */
static int
count_entries(int dfd, const char *name)
{
	struct dirent *e;
	DIR *d;
	int fd, n = 0;

	if ((fd = open_dir_at(dfd, name)) < 0)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static int
count_fds(void)
{
	struct dirent *e;
	DIR *d;
	int n = 0;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static bool
mkdir_p_at(int dfd, const char *path)
{
	char buf[PATH_MAX], *p;

	if (!fmt(buf, sizeof(buf), "%s", path))
		return false;
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdirat(dfd, buf, 0700) < 0 && errno != EEXIST)
			return false;
		*p = '/';
	}
	return mkdirat(dfd, buf, 0700) == 0 || errno == EEXIST;
}

static void
make_id(char *id, size_t size, unsigned n)
{
	ck_assert(fmt(id, size, "c0ffee%02x%024x", n & 0xffU, n));
	ck_assert(cordon_run_id_valid(id));
}

/*
 * Scenarios that run in a forked child (as nobody, or in a private mount
 * namespace) cannot use ck_assert; they report with CHK and return the
 * failing line.
 */
#define CHK(c) do {							\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: check failed: %s (errno %s)\n",	\
		    __FILE__, __LINE__, #c, strerror(errno));		\
		return __LINE__;					\
	}								\
} while (0)

enum { CHILD_OK = 0, CHILD_FAILED = 1, CHILD_NODROP = 77, CHILD_NONS = 78 };
enum child_how { AS_IS, AS_NOBODY, IN_MOUNT_NS };

/* setgroups, setresgid, setresuid, in that order, then prove it stuck. */
static int
drop_to_nobody(void)
{
	gid_t g = NOBODY;
	uid_t u = NOBODY;

	if (setgroups(0, NULL) < 0) {
		perror("setgroups");
		return -1;
	}
	if (setresgid(g, g, g) < 0) {
		perror("setresgid");
		return -1;
	}
	if (setresuid(u, u, u) < 0) {
		perror("setresuid");
		return -1;
	}
	if (setuid(0) == 0 || setgid(0) == 0 || geteuid() != u ||
	    getegid() != g) {
		fprintf(stderr, "privileges could be regained\n");
		return -1;
	}
	return 0;
}

/* Runs fn(arg) in a child prepared as told; returns a CHILD_* code. */
static int
run_child(int (*fn)(const char *), const char *arg, enum child_how how)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (how == AS_NOBODY && drop_to_nobody() < 0)
			_exit(CHILD_NODROP);
		if (how == IN_MOUNT_NS &&
		    (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)) {
			perror("unshare/mount --make-rprivate");
			_exit(CHILD_NONS);
		}
		status = fn(arg);
		fflush(NULL);
		_exit(status == 0 ? CHILD_OK : CHILD_FAILED);
	}
	while (waitpid(pid, &status, 0) < 0)
		ck_assert_msg(errno == EINTR, "waitpid: %s", strerror(errno));
	ck_assert_msg(WIFEXITED(status), "scenario child died (status %#x)",
	    (unsigned)status);
	return WEXITSTATUS(status);
}

/*
 * The rename race, made deterministic: the test is linked with
 * -Wl,--wrap=fstatat (Makefile.am), so every fstatat of workdir.c (and of
 * this file) comes here.  Armed, the first look at name in the directory
 * (dev, ino) returns what it saw, and then, before the caller can act on
 * it, name and swap are exchanged (renameat2 RENAME_EXCHANGE), as another
 * process of the user's could do at that moment.
 */
int __real_fstatat(int dirfd, const char *path, struct stat *st, int flags);
int __wrap_fstatat(int dirfd, const char *path, struct stat *st, int flags);

static struct race {
	bool armed;
	dev_t dev;
	ino_t ino;
	const char *name, *swap;
	int err;             /* renameat2's errno, if it failed */
} race;

int
__wrap_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	struct stat dir;
	int r, e;

	r = __real_fstatat(dirfd, path, st, flags);
	e = errno;
	if (race.armed && strcmp(path, race.name) == 0 &&
	    fstat(dirfd, &dir) == 0 && dir.st_dev == race.dev &&
	    dir.st_ino == race.ino) {
		race.armed = false;
		if (renameat2(dirfd, race.name, dirfd, race.swap,
		    RENAME_EXCHANGE) < 0)
			race.err = errno;
	}
	errno = e;
	return r;
}

/* ---- rmtree_at: a plain tree ---------------------------------------------- */

START_TEST(test_plain_tree)
{
	struct sockaddr_un sun;
	struct scratch s;
	char err[512] = "";
	int t, sock, fds;

	scratch_new(&s);
	ck_assert(mkdir_p_at(s.fd, "tree/a/b/c"));
	ck_assert(mkdir_p_at(s.fd, "tree/empty1"));
	ck_assert(mkdir_p_at(s.fd, "tree/a/empty2/empty3"));
	ck_assert((t = open_dir_at(s.fd, "tree")) >= 0);
	ck_assert(put_file(t, "f1", "one"));
	ck_assert(put_file(t, "a/f2", "two"));
	ck_assert(put_file(t, "a/b/c/f3", "three"));
	ck_assert(put_file(t, "a/b/.hidden", "h"));
	ck_assert(put_file(t, "empty-file", ""));
	ck_assert(mkfifoat(t, "fifo", 0600) == 0);
	ck_assert(mkfifoat(t, "a/b/fifo", 0000) == 0);
	ck_assert(symlinkat("a/b", t, "link-to-dir") == 0);
	ck_assert(symlinkat("a/b", t, "a/b/c/link-up") == 0);
	ck_assert(symlinkat("nowhere", t, "dangling") == 0);
	ck_assert(symlinkat(".", t, "a/self") == 0);
	ck_assert(linkat(t, "f1", t, "a/b/hard1", 0) == 0);
	ck_assert(linkat(t, "a/b/c/f3", t, "hard3", 0) == 0);

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	ck_assert(fmt(sun.sun_path, sizeof(sun.sun_path), "%s/tree/a/sock",
	    s.path));
	ck_assert((sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0);
	ck_assert_msg(bind(sock, (struct sockaddr *)&sun, sizeof(sun)) == 0,
	    "bind: %s", strerror(errno));
	ck_assert(listen(sock, 1) == 0); /* live: nothing must connect */
	close(t);

	fds = count_fds();
	ck_assert_int_eq(rmtree_at(s.fd, "tree", err, sizeof(err)), 0);
	ck_assert_msg(!exists_at(s.fd, "tree"), "tree still exists");
	ck_assert_int_eq(count_entries(s.fd, "."), 0);
	ck_assert_int_eq(count_fds(), fds);
	close(sock);
	close(s.fd);
}
END_TEST

/* ---- rmtree_at: links that point out of the tree -------------------------- */

static void
make_outside(int dfd)
{
	ck_assert(mkdir_p_at(dfd, "outside/sub"));
	ck_assert(put_file(dfd, "outside/secret", "keep me"));
	ck_assert(put_file(dfd, "outside/sub/deeper", "keep me too"));
	ck_assert(put_file(dfd, "outside-file", "precious"));
}

static void
check_outside(int dfd)
{
	ck_assert_msg(file_is(dfd, "outside/secret", "keep me"),
	    "outside/secret was changed or removed");
	ck_assert_msg(file_is(dfd, "outside/sub/deeper", "keep me too"),
	    "outside/sub/deeper was changed or removed");
	ck_assert_msg(file_is(dfd, "outside-file", "precious"),
	    "outside-file was changed or removed");
	ck_assert_int_eq(count_entries(dfd, "outside"), 2);
	ck_assert_int_eq(count_entries(dfd, "outside/sub"), 1);
}

START_TEST(test_links_out_of_tree)
{
	struct scratch s;
	char err[512] = "", target[PATH_MAX];
	struct stat st;
	int t;

	scratch_new(&s);
	make_outside(s.fd);
	ck_assert(mkdir_p_at(s.fd, "tree/a/b"));
	ck_assert((t = open_dir_at(s.fd, "tree")) >= 0);
	/* Absolute and relative links to the outside dir and file. */
	ck_assert(fmt(target, sizeof(target), "%s/outside", s.path));
	ck_assert(symlinkat(target, t, "abs-dir") == 0);
	ck_assert(symlinkat(target, t, "a/b/abs-dir") == 0);
	ck_assert(symlinkat("../outside", t, "rel-dir") == 0);
	ck_assert(symlinkat("../../../outside/sub", t, "a/b/rel-sub") == 0);
	ck_assert(fmt(target, sizeof(target), "%s/outside-file", s.path));
	ck_assert(symlinkat(target, t, "abs-file") == 0);
	ck_assert(symlinkat("../../../outside-file", t, "a/b/rel-file") == 0);
	ck_assert(symlinkat("..", t, "a/b/dotdot") == 0);
	ck_assert(symlinkat("/", t, "slash") == 0);
	/* A hard link to the outside file: only the name inside may go. */
	ck_assert(linkat(s.fd, "outside-file", t, "a/hard-out", 0) == 0);
	ck_assert(linkat(s.fd, "outside/secret", t, "hard-secret", 0) == 0);
	close(t);

	ck_assert_int_eq(rmtree_at(s.fd, "tree", err, sizeof(err)), 0);
	ck_assert(!exists_at(s.fd, "tree"));
	check_outside(s.fd);
	ck_assert(fstatat(s.fd, "outside-file", &st, 0) == 0);
	ck_assert_int_eq(st.st_nlink, 1);
	ck_assert(access("/etc", F_OK) == 0);
	close(s.fd);
}
END_TEST

START_TEST(test_root_is_symlink)
{
	struct scratch s;
	char err[512] = "", target[PATH_MAX];

	scratch_new(&s);
	make_outside(s.fd);
	ck_assert(fmt(target, sizeof(target), "%s/outside", s.path));
	ck_assert(symlinkat(target, s.fd, "tree") == 0);
	ck_assert(symlinkat("outside", s.fd, "tree-rel") == 0);
	ck_assert(symlinkat("outside-file", s.fd, "tree-file") == 0);

	ck_assert_int_eq(rmtree_at(s.fd, "tree", err, sizeof(err)), 0);
	ck_assert_int_eq(rmtree_at(s.fd, "tree-rel", err, sizeof(err)), 0);
	ck_assert_int_eq(rmtree_at(s.fd, "tree-file", err, sizeof(err)), 0);
	ck_assert(!exists_at(s.fd, "tree"));
	ck_assert(!exists_at(s.fd, "tree-rel"));
	ck_assert(!exists_at(s.fd, "tree-file"));
	check_outside(s.fd);
	close(s.fd);
}
END_TEST

/* ---- rmtree_at: permission bits (meaningful only unprivileged) ------------ */

struct chmod_step {
	const char *path;
	mode_t mode;
};

/*
 * Builds hostile trees in a fresh dir under parent, locks them down
 * deepest first (a parent at 000 would hide its children from us), and
 * removes them.  Runs as whoever calls it.
 */
static int
perm_scenario(const char *parent)
{
	static const char *const dirs[] = {
		"tree/z000/s000", "tree/r500/x100/y000/w500",
		"tree/deep/1/2/3/4/5", "tree/x100", "tree/r500/empty500",
		"tree0/a/b",
	};
	static const struct chmod_step steps[] = {
		{ "tree/deep/1/2/3/4/5", 0000 },
		{ "tree/deep/1/2/3/4", 0500 },
		{ "tree/deep/1/2/3", 0100 },
		{ "tree/deep/1/2", 0000 },
		{ "tree/deep/1", 0500 },
		{ "tree/z000/s000", 0000 },
		{ "tree/z000/f000", 0000 },
		{ "tree/z000", 0000 },
		{ "tree/r500/x100/y000/w500", 0500 },
		{ "tree/r500/x100/y000", 0000 },
		{ "tree/r500/x100", 0100 },
		{ "tree/r500/empty500", 0500 },
		{ "tree/r500/f", 0400 },
		{ "tree/r500", 0500 },
		{ "tree/x100", 0100 },
		{ "tree", 0500 },
		{ "tree0/a/b", 0000 },
		{ "tree0/a", 0100 },
		{ "tree0", 0000 },
	};
	static const char *const files[] = {
		"tree/z000/s000/f", "tree/z000/f000", "tree/r500/f",
		"tree/r500/x100/y000/w500/f", "tree/deep/1/2/3/4/5/f",
		"tree/deep/1/2/3/4/f", "tree/deep/1/2/f", "tree/deep/1/f",
		"tree0/a/b/f", "tree0/f",
	};
	char dir[PATH_MAX], err[512] = "";
	struct stat st;
	size_t i;
	int fd;

	CHK(fmt(dir, sizeof(dir), "%s/p.XXXXXX", parent));
	CHK(mkdtemp(dir) != NULL);
	CHK((fd = open_dir_at(AT_FDCWD, dir)) >= 0);
	CHK(fstat(fd, &st) == 0 && st.st_uid == geteuid());
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		CHK(mkdir_p_at(fd, dirs[i]));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		CHK(put_file(fd, files[i], "x"));
	CHK(mkfifoat(fd, "tree/r500/x100/y000/fifo", 0000) == 0);
	CHK(symlinkat("..", fd, "tree/z000/s000/up") == 0);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		CHK(fchmodat(fd, steps[i].path, steps[i].mode, 0) == 0);
	if (geteuid() != 0) {
		/* Prove the lock-down bites before we rely on it. */
		CHK(openat(fd, "tree0", O_RDONLY | O_DIRECTORY) < 0 &&
		    errno == EACCES);
		CHK(unlinkat(fd, "tree/r500/f", 0) < 0 && errno == EACCES);
	}

	if (rmtree_at(fd, "tree", err, sizeof(err)) != 0) {
		fprintf(stderr, "rmtree_at(tree): %s\n", err);
		return __LINE__;
	}
	CHK(!exists_at(fd, "tree"));
	if (rmtree_at(fd, "tree0", err, sizeof(err)) != 0) {
		fprintf(stderr, "rmtree_at(tree0): %s\n", err);
		return __LINE__;
	}
	CHK(!exists_at(fd, "tree0"));
	CHK(count_entries(fd, ".") == 0);
	close(fd);
	CHK(rmdir(dir) == 0);
	return 0;
}

START_TEST(test_permissions)
{
	struct scratch s;
	int rc;

	scratch_new(&s);
	if (geteuid() != 0) {
		ck_assert_int_eq(perm_scenario(s.path), 0);
		close(s.fd);
		return;
	}
	/* As root the bits do not bind (CAP_DAC_OVERRIDE): run as nobody. */
	ck_assert(fchmod(s.fd, 01777) == 0);
	rc = run_child(perm_scenario, s.path, AS_NOBODY);
	if (rc == CHILD_NODROP) {
		fprintf(stderr, "\n*** test_permissions: COULD NOT DROP TO "
		    "uid %d; running as root, which proves little about "
		    "permission bits ***\n\n", NOBODY);
		rc = perm_scenario(s.path);
	}
	ck_assert_msg(rc == 0, "permission scenario failed (see stderr)");
	ck_assert_int_eq(count_entries(s.fd, "."), 0);
	close(s.fd);
}
END_TEST

/* ---- rmtree_at: deep, wide and oddly named trees --------------------------- */

START_TEST(test_deep_tree)
{
	struct scratch s;
	char err[512] = "";
	int fd, next, i, fds;

	scratch_new(&s);
	ck_assert(mkdirat(s.fd, "tree", 0700) == 0);
	ck_assert((fd = open_dir_at(s.fd, "tree")) >= 0);
	/* 3 bytes a level: 9000 bytes of path, far past PATH_MAX. */
	for (i = 0; i < DEEP; i++) {
		ck_assert(mkdirat(fd, "dd", 0700) == 0);
		if (i % 500 == 0) {
			ck_assert(put_file(fd, "f", "x"));
			ck_assert(symlinkat("..", fd, "up") == 0);
		}
		ck_assert((next = open_dir_at(fd, "dd")) >= 0);
		close(fd);
		fd = next;
	}
	ck_assert(put_file(fd, "bottom", "x"));
	ck_assert(mkfifoat(fd, "fifo", 0600) == 0);
	close(fd);

	fds = count_fds();
	ck_assert_msg(rmtree_at(s.fd, "tree", err, sizeof(err)) == 0,
	    "rmtree_at: %s", err);
	ck_assert(!exists_at(s.fd, "tree"));
	ck_assert_int_eq(count_fds(), fds);
	close(s.fd);
}
END_TEST

START_TEST(test_wide_dir)
{
	struct scratch s;
	char err[512] = "", name[32];
	int t, fd, i;

	scratch_new(&s);
	ck_assert(mkdirat(s.fd, "tree", 0700) == 0);
	ck_assert((t = open_dir_at(s.fd, "tree")) >= 0);
	for (i = 0; i < WIDE; i++) {
		ck_assert(fmt(name, sizeof(name), "file-%05d", i));
		fd = openat(t, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
		ck_assert_msg(fd >= 0, "create %s: %s", name, strerror(errno));
		close(fd);
		/* Subdirectories mixed in force many re-scans of the parent. */
		if (i % 100 == 0) {
			ck_assert(fmt(name, sizeof(name), "dir-%05d", i));
			ck_assert(mkdirat(t, name, 0700) == 0);
			ck_assert((fd = open_dir_at(t, name)) >= 0);
			ck_assert(put_file(fd, "f", "x"));
			close(fd);
		}
	}
	close(t);
	ck_assert_int_eq(count_entries(s.fd, "tree"), WIDE + WIDE / 100);

	ck_assert_msg(rmtree_at(s.fd, "tree", err, sizeof(err)) == 0,
	    "rmtree_at: %s", err);
	ck_assert(!exists_at(s.fd, "tree"));
	close(s.fd);
}
END_TEST

START_TEST(test_odd_names)
{
	static const char root[] = "we\nird na\xff\xfeme \x80\xc0\n";
	static const char *const inside[] = {
		"\n", " ", "\xff", "-rf", "...", " ..", ".. ", "a\nb",
		"\xed\xa0\x80", "*", "\\", "\t\r",
	};
	struct scratch s;
	char err[512] = "";
	size_t i;
	int t, d;

	scratch_new(&s);
	ck_assert(mkdirat(s.fd, root, 0700) == 0);
	ck_assert((t = open_dir_at(s.fd, root)) >= 0);
	for (i = 0; i < sizeof(inside) / sizeof(inside[0]); i++) {
		ck_assert(mkdirat(t, inside[i], 0700) == 0);
		ck_assert((d = open_dir_at(t, inside[i])) >= 0);
		ck_assert(put_file(d, inside[i], "x"));
		ck_assert(put_file(d, "\nfile\xff", "x"));
		close(d);
	}
	close(t);
	ck_assert(mkdirat(s.fd, "we", 0700) == 0); /* a prefix: must stay */

	ck_assert_msg(rmtree_at(s.fd, root, err, sizeof(err)) == 0,
	    "rmtree_at: %s", err);
	ck_assert(!exists_at(s.fd, root));
	ck_assert(exists_at(s.fd, "we"));
	ck_assert_int_eq(count_entries(s.fd, "."), 1);
	close(s.fd);
}
END_TEST

START_TEST(test_missing_and_non_dir_roots)
{
	struct scratch s;
	char err[512] = "";

	scratch_new(&s);
	ck_assert_int_eq(rmtree_at(s.fd, "nothing-here", err, sizeof(err)), 0);
	ck_assert(put_file(s.fd, "plain", "x"));
	ck_assert(put_file(s.fd, "other", "y"));
	ck_assert(fchmodat(s.fd, "plain", 0000, 0) == 0);
	ck_assert_int_eq(rmtree_at(s.fd, "plain", err, sizeof(err)), 0);
	ck_assert(!exists_at(s.fd, "plain"));
	ck_assert(mkfifoat(s.fd, "fifo", 0600) == 0);
	ck_assert_int_eq(rmtree_at(s.fd, "fifo", err, sizeof(err)), 0);
	ck_assert(!exists_at(s.fd, "fifo"));
	ck_assert(file_is(s.fd, "other", "y"));
	/* Through a missing intermediate directory: still "nothing to do". */
	ck_assert_int_eq(rmtree_at(s.fd, "nope/deeper", err, sizeof(err)), 0);
	close(s.fd);
}
END_TEST

/* ---- rmtree_at: mounts inside the tree (root only) ------------------------ */

/* A tmpfs mounted inside the tree: rmtree_at must stop at its edge. */
static int
tmpfs_scenario(const char *dir)
{
	char mnt[PATH_MAX], err[512] = "";
	int fd, m;

	CHK((fd = open_dir_at(AT_FDCWD, dir)) >= 0);
	CHK(mkdir_p_at(fd, "tree/a/mnt"));
	CHK(put_file(fd, "tree/a/before", "x"));
	CHK(put_file(fd, "tree/z", "x"));
	CHK(fmt(mnt, sizeof(mnt), "%s/tree/a/mnt", dir));
	CHK(mount("tmpfs", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0700") == 0);
	CHK((m = open_dir_at(AT_FDCWD, mnt)) >= 0);
	CHK(put_file(m, "on-tmpfs", "survives"));
	CHK(mkdirat(m, "sub", 0700) == 0);
	CHK(put_file(m, "sub/f", "survives"));

	CHK(rmtree_at(fd, "tree", err, sizeof(err)) == -1);
	CHK(err[0] != '\0');
	fprintf(stderr, "test_mount_tmpfs: refused as expected: %s\n", err);
	CHK(file_is(m, "on-tmpfs", "survives"));
	CHK(file_is(m, "sub/f", "survives"));
	CHK(exists_at(fd, "tree/a/mnt"));

	close(m);
	CHK(umount2(mnt, MNT_DETACH) == 0);
	CHK(rmtree_at(fd, "tree", err, sizeof(err)) == 0);
	close(fd);
	return 0;
}

/*
 * A bind mount of a directory on the same file system: st_dev is the
 * same on both sides, so only a mount-aware check can see the edge.
 */
static int
bind_scenario(const char *dir)
{
	char mnt[PATH_MAX], src[PATH_MAX], err[512] = "";
	int fd, rc;

	CHK((fd = open_dir_at(AT_FDCWD, dir)) >= 0);
	CHK(mkdir_p_at(fd, "outside/sub"));
	CHK(put_file(fd, "outside/secret", "keep me"));
	CHK(put_file(fd, "outside/sub/deeper", "keep me too"));
	CHK(mkdir_p_at(fd, "tree/a/mnt"));
	CHK(put_file(fd, "tree/a/before", "x"));
	CHK(fmt(src, sizeof(src), "%s/outside", dir));
	CHK(fmt(mnt, sizeof(mnt), "%s/tree/a/mnt", dir));
	CHK(mount(src, mnt, NULL, MS_BIND, NULL) == 0);

	rc = rmtree_at(fd, "tree", err, sizeof(err));
	fprintf(stderr, "test_mount_bind: rmtree_at returned %d: %s\n", rc,
	    err);
	CHK(file_is(fd, "outside/secret", "keep me"));
	CHK(file_is(fd, "outside/sub/deeper", "keep me too"));
	CHK(rc == -1);
	CHK(err[0] != '\0');

	CHK(umount2(mnt, MNT_DETACH) == 0);
	CHK(rmtree_at(fd, "tree", err, sizeof(err)) == 0);
	close(fd);
	return 0;
}

static void
run_mount_scenario(const char *what, int (*fn)(const char *))
{
	struct scratch s;
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "\n*** %s: SKIPPED: needs root to mount in a "
		    "private mount namespace (euid %u) ***\n\n", what,
		    (unsigned)geteuid());
		return;
	}
	scratch_new(&s);
	rc = run_child(fn, s.path, IN_MOUNT_NS);
	if (rc == CHILD_NONS) {
		fprintf(stderr, "\n*** %s: SKIPPED: no private mount namespace "
		    "(unshare or mount --make-rprivate failed) ***\n\n", what);
		close(s.fd);
		return;
	}
	ck_assert_msg(rc == CHILD_OK, "%s scenario failed (see stderr)", what);
	close(s.fd);
}

START_TEST(test_mount_tmpfs)
{
	run_mount_scenario("test_mount_tmpfs", tmpfs_scenario);
}
END_TEST

START_TEST(test_mount_bind)
{
	run_mount_scenario("test_mount_bind", bind_scenario);
}
END_TEST

/* ---- workdir_open_base / workdir_create / workdir_remove ------------------ */

static void
base_path(const struct scratch *s, char *base, size_t size)
{
	ck_assert(fmt(base, size, "%s/base", s->path));
}

START_TEST(test_create_makes_base_and_layout)
{
	struct workdir wd;
	struct scratch s;
	char base[PATH_MAX], err[512] = "", id[CORDON_RUN_ID_LEN + 1];
	char lockname[64], want[PATH_MAX + 64];
	struct stat st;
	int fd, fds;

	scratch_new(&s);
	base_path(&s, base, sizeof(base));
	make_id(id, sizeof(id), 1);
	ck_assert(fmt(lockname, sizeof(lockname), "base/%s.lock", id));
	(void)umask(022);
	fds = count_fds();

	ck_assert_msg(workdir_create(base, id, &wd, err, sizeof(err)) == 0,
	    "workdir_create: %s", err);
	ck_assert(fstatat(s.fd, "base", &st, AT_SYMLINK_NOFOLLOW) == 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(st.st_uid, getuid());

	ck_assert(fstatat(wd.base_fd, id, &st, AT_SYMLINK_NOFOLLOW) == 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert(fstatat(s.fd, lockname, &st, AT_SYMLINK_NOFOLLOW) == 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert(wd.base_fd >= 0 && wd.lock_fd >= 0 && wd.fd >= 0);
	ck_assert_str_eq(wd.name, id);
	ck_assert(fmt(want, sizeof(want), "%s/%s", base, id));
	ck_assert_str_eq(wd.path, want);
	/* wd.fd is the workdir itself. */
	ck_assert(put_file(wd.fd, "from-fd", "x"));
	ck_assert(fmt(want, sizeof(want), "base/%s/from-fd", id));
	ck_assert(exists_at(s.fd, want));
	/* The run's lock is held: another open file cannot take it. */
	ck_assert((fd = openat(s.fd, lockname, O_RDWR | O_CLOEXEC)) >= 0);
	ck_assert(flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK);
	close(fd);
	/* The fds must not leak into the payload. */
	ck_assert(fcntl(wd.fd, F_GETFD) & FD_CLOEXEC);
	ck_assert(fcntl(wd.lock_fd, F_GETFD) & FD_CLOEXEC);
	ck_assert(fcntl(wd.base_fd, F_GETFD) & FD_CLOEXEC);

	ck_assert_msg(workdir_remove(&wd, err, sizeof(err)) == 0,
	    "workdir_remove: %s", err);
	ck_assert(wd.base_fd == -1 && wd.lock_fd == -1 && wd.fd == -1);
	ck_assert(fmt(want, sizeof(want), "base/%s", id));
	ck_assert(!exists_at(s.fd, want));
	ck_assert(!exists_at(s.fd, lockname));
	ck_assert_int_eq(count_fds(), fds);
	close(s.fd);
}
END_TEST

START_TEST(test_create_existing_private_base)
{
	struct workdir wd;
	struct scratch s;
	char base[PATH_MAX], err[512] = "", id[CORDON_RUN_ID_LEN + 1];
	static const mode_t ok_modes[] = { 0700, 0750, 0755, 0711, 0701 };
	size_t i;

	scratch_new(&s);
	base_path(&s, base, sizeof(base));
	ck_assert(mkdirat(s.fd, "base", 0700) == 0);
	for (i = 0; i < sizeof(ok_modes) / sizeof(ok_modes[0]); i++) {
		ck_assert(fchmodat(s.fd, "base", ok_modes[i], 0) == 0);
		make_id(id, sizeof(id), (unsigned)i);
		ck_assert_msg(workdir_create(base, id, &wd, err,
		    sizeof(err)) == 0, "mode %03o: %s", ok_modes[i], err);
		ck_assert_msg(workdir_remove(&wd, err, sizeof(err)) == 0,
		    "workdir_remove: %s", err);
	}
	close(s.fd);
}
END_TEST

/* The refusal must name the base, and must not have made anything in it. */
static void
check_refused(const char *base, int dfd, const char *name, int entries)
{
	struct workdir wd;
	char err[512] = "", id[CORDON_RUN_ID_LEN + 1];
	int base_fd = 7777;

	make_id(id, sizeof(id), 42);
	ck_assert_int_eq(workdir_create(base, id, &wd, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, base) != NULL,
	    "message does not name the base %s: %s", base, err);
	ck_assert(wd.base_fd == -1 && wd.lock_fd == -1 && wd.fd == -1);
	err[0] = '\0';
	ck_assert_int_eq(workdir_open_base(base, true, &base_fd, err, sizeof(err)),
	    -1);
	ck_assert_int_eq(base_fd, -1);
	ck_assert_msg(strstr(err, base) != NULL,
	    "message does not name the base %s: %s", base, err);
	if (dfd >= 0)
		ck_assert_int_eq(count_entries(dfd, name), entries);
}

START_TEST(test_create_refuses_foreign_base)
{
	struct scratch s;
	char base[PATH_MAX];

	scratch_new(&s);
	if (geteuid() != 0) {
		/* Cannot give a dir away unprivileged: use one root owns. */
		fprintf(stderr, "test_create_refuses_foreign_base: not root, "
		    "using /usr as the foreign base\n");
		check_refused("/usr", -1, NULL, 0);
		close(s.fd);
		return;
	}
	base_path(&s, base, sizeof(base));
	ck_assert(mkdirat(s.fd, "base", 0700) == 0);
	ck_assert(fchownat(s.fd, "base", NOBODY, NOBODY, 0) == 0);
	check_refused(base, s.fd, "base", 0);
	close(s.fd);
}
END_TEST

START_TEST(test_create_refuses_writable_base)
{
	static const mode_t bad[] = { 0770, 0720, 0702, 0777, 01777, 0722 };
	struct scratch s;
	char base[PATH_MAX];
	size_t i;

	scratch_new(&s);
	base_path(&s, base, sizeof(base));
	ck_assert(mkdirat(s.fd, "base", 0700) == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert(fchmodat(s.fd, "base", bad[i], 0) == 0);
		check_refused(base, s.fd, "base", 0);
	}
	close(s.fd);
}
END_TEST

START_TEST(test_create_refuses_symlink_base)
{
	struct scratch s;
	char base[PATH_MAX];

	scratch_new(&s);
	base_path(&s, base, sizeof(base));
	/* A private, otherwise acceptable target behind the link. */
	ck_assert(mkdirat(s.fd, "real", 0700) == 0);
	ck_assert(symlinkat("real", s.fd, "base") == 0);
	check_refused(base, s.fd, "real", 0);
	ck_assert(unlinkat(s.fd, "base", 0) == 0);
	/* A dangling link must not be "created" through either. */
	ck_assert(symlinkat("missing", s.fd, "base") == 0);
	check_refused(base, -1, NULL, 0);
	ck_assert(!exists_at(s.fd, "missing"));
	close(s.fd);
}
END_TEST

START_TEST(test_create_invalid_id)
{
	static const char *const bad[] = {
		"", "..", "../../../../../../../../../../etc",
		"0123456789abcdef0123456789ABCDEF",
		"0123456789abcdef0123456789abcde",
		"0123456789abcdef0123456789abcdef0",
		"0123456789abcdef/123456789abcdef",
		"0123456789abcdef.123456789abcdef",
	};
	struct workdir wd;
	struct scratch s;
	char base[PATH_MAX], err[512];
	size_t i;

	scratch_new(&s);
	base_path(&s, base, sizeof(base));
	ck_assert(mkdirat(s.fd, "base", 0700) == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_int_eq(workdir_create(base, bad[i], &wd, err,
		    sizeof(err)), -1);
		ck_assert(err[0] != '\0');
		ck_assert(wd.base_fd == -1 && wd.lock_fd == -1 && wd.fd == -1);
	}
	ck_assert_int_eq(count_entries(s.fd, "base"), 0);
	close(s.fd);
}
END_TEST

START_TEST(test_create_twice_keeps_first)
{
	struct workdir wd1, wd2;
	struct scratch s;
	char base[PATH_MAX], err[512] = "", id[CORDON_RUN_ID_LEN + 1];
	char path[PATH_MAX], lockname[64];
	int fd;

	scratch_new(&s);
	base_path(&s, base, sizeof(base));
	make_id(id, sizeof(id), 7);
	ck_assert(fmt(lockname, sizeof(lockname), "base/%s.lock", id));
	ck_assert_msg(workdir_create(base, id, &wd1, err, sizeof(err)) == 0,
	    "%s", err);
	ck_assert(put_file(wd1.fd, "work", "in progress"));

	err[0] = '\0';
	ck_assert_int_eq(workdir_create(base, id, &wd2, err, sizeof(err)), -1);
	ck_assert(err[0] != '\0');
	ck_assert(wd2.base_fd == -1 && wd2.lock_fd == -1 && wd2.fd == -1);
	ck_assert(fmt(path, sizeof(path), "base/%s/work", id));
	ck_assert_msg(file_is(s.fd, path, "in progress"),
	    "the first workdir was damaged");
	ck_assert(exists_at(s.fd, lockname));
	ck_assert((fd = openat(s.fd, lockname, O_RDWR | O_CLOEXEC)) >= 0);
	ck_assert_msg(flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK,
	    "the first workdir's lock is no longer held");
	close(fd);
	ck_assert(put_file(wd1.fd, "still-usable", "x"));

	ck_assert_msg(workdir_remove(&wd1, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(count_entries(s.fd, "base"), 1); /* just .lock */
	ck_assert(exists_at(s.fd, "base/.lock"));
	close(s.fd);
}
END_TEST

START_TEST(test_remove_hostile_workdir)
{
	struct workdir wd;
	struct scratch s;
	char base[PATH_MAX], err[512] = "", id[CORDON_RUN_ID_LEN + 1];
	char target[PATH_MAX];
	int fds;

	scratch_new(&s);
	make_outside(s.fd);
	base_path(&s, base, sizeof(base));
	make_id(id, sizeof(id), 9);
	fds = count_fds();
	ck_assert_msg(workdir_create(base, id, &wd, err, sizeof(err)) == 0,
	    "%s", err);
	/* What a payload might leave behind. */
	ck_assert(mkdir_p_at(wd.fd, "a/b/c"));
	ck_assert(fmt(target, sizeof(target), "%s/outside", s.path));
	ck_assert(symlinkat(target, wd.fd, "a/escape") == 0);
	ck_assert(symlinkat("../../outside-file", wd.fd, "file-escape") == 0);
	ck_assert(linkat(s.fd, "outside-file", wd.fd, "a/b/hard", 0) == 0);
	ck_assert(put_file(wd.fd, "a/b/c/f", "x"));
	ck_assert(fchmodat(wd.fd, "a/b/c", 0000, 0) == 0);
	ck_assert(fchmodat(wd.fd, "a", 0500, 0) == 0);
	ck_assert(fchmod(wd.fd, 0000) == 0);

	ck_assert_msg(workdir_remove(&wd, err, sizeof(err)) == 0,
	    "workdir_remove: %s", err);
	ck_assert_int_eq(count_entries(s.fd, "base"), 1); /* just .lock */
	check_outside(s.fd);
	ck_assert_int_eq(count_fds(), fds);
	close(s.fd);
}
END_TEST

/*
 * A workdir with what a payload leaves (files, a subtree) and, beside it
 * in the base, "other": a directory of the user's with a file to keep.
 */
static void
make_workdir_and_other(const char *base, const char *id, struct workdir *wd)
{
	char err[512] = "";

	ck_assert_msg(workdir_create(base, id, wd, err, sizeof(err)) == 0,
	    "%s", err);
	ck_assert(put_file(wd->fd, "payload-file", "x"));
	ck_assert(mkdir_p_at(wd->fd, "sub/dir"));
	ck_assert(put_file(wd->fd, "sub/dir/f", "y"));
	ck_assert(mkdirat(wd->base_fd, "other", 0700) == 0);
	ck_assert(mkdir_p_at(wd->base_fd, "other/src"));
	ck_assert(put_file(wd->base_fd, "other/src/keep", "precious"));
}

/*
 * After a removal that found the workdir's name taking another directory:
 * that one is untouched under the name, ours (now at "other") is empty,
 * the lock is gone, and gc leaves the name alone too.
 */
static void
check_exchange_survived(const char *base, const char *id, int base_fd,
    const char *err)
{
	char path[PATH_MAX], lockname[64];
	int bfd;

	ck_assert(fmt(path, sizeof(path), "%s/src/keep", id));
	ck_assert_msg(file_is(base_fd, path, "precious"),
	    "the directory exchanged in for the workdir was emptied");
	ck_assert_msg(count_entries(base_fd, "other") == 0,
	    "the workdir itself was not emptied through the fd held");
	ck_assert_msg(strstr(err, "moved or replaced") != NULL &&
	    strstr(err, base) != NULL, "not reported: %s", err);
	ck_assert(fmt(lockname, sizeof(lockname), "%s.lock", id));
	ck_assert_msg(!exists_at(base_fd, lockname), "the run's lock is left, "
	    "so gc would empty the name, now another's");
	ck_assert((bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
	ck_assert_int_eq(workdir_gc(bfd, 0, path, sizeof(path)), 0);
	close(bfd);
	ck_assert(fmt(path, sizeof(path), "%s/src/keep", id));
	ck_assert_msg(file_is(base_fd, path, "precious"), "gc emptied it");
}

/* The name was exchanged for another directory before removal began. */
START_TEST(test_remove_exchanged_workdir)
{
	struct workdir wd;
	struct scratch s;
	char base[PATH_MAX], err[512] = "", id[CORDON_RUN_ID_LEN + 1];
	int base_fd, fds, r;

	scratch_new(&s);
	base_path(&s, base, sizeof(base));
	make_id(id, sizeof(id), 11);
	fds = count_fds();
	make_workdir_and_other(base, id, &wd);
	ck_assert((base_fd = dup(wd.base_fd)) >= 0);
	ck_assert_msg(renameat2(base_fd, id, base_fd, "other",
	    RENAME_EXCHANGE) == 0, "renameat2: %s", strerror(errno));

	r = workdir_remove(&wd, err, sizeof(err));
	check_exchange_survived(base, id, base_fd, err);
	ck_assert_int_eq(r, -1);
	close(base_fd);
	ck_assert_int_eq(count_fds(), fds);
	close(s.fd);
}
END_TEST

/*
 * The race itself, made to happen every time: the first look at the
 * workdir's name (workdir.c's fstatat, wrapped: see race_fstatat) sees
 * our directory, and right after it the name is exchanged for another.
 * Whatever removal does next through the name, it must not empty that one.
 */
START_TEST(test_remove_exchanged_mid_removal)
{
	struct workdir wd;
	struct scratch s;
	char base[PATH_MAX], err[512] = "", id[CORDON_RUN_ID_LEN + 1];
	struct stat st;
	int base_fd, r;

	scratch_new(&s);
	base_path(&s, base, sizeof(base));
	make_id(id, sizeof(id), 12);
	make_workdir_and_other(base, id, &wd);
	ck_assert((base_fd = dup(wd.base_fd)) >= 0);
	ck_assert(fstat(base_fd, &st) == 0);
	race = (struct race){ true, st.st_dev, st.st_ino, id, "other", 0 };

	r = workdir_remove(&wd, err, sizeof(err));
	ck_assert_msg(!race.armed && race.err == 0, "the race did not run "
	    "(armed %d, renameat2: %s)", race.armed, strerror(race.err));
	check_exchange_survived(base, id, base_fd, err);
	ck_assert_int_eq(r, -1);
	close(base_fd);
	close(s.fd);
}
END_TEST

/* ---- workdir_gc ------------------------------------------------------------ */

/* A workdir with some content; with a lock file nobody holds if asked. */
static void
make_dead(int base_fd, const char *id, bool with_lock)
{
	char name[64];
	int fd;

	ck_assert(mkdirat(base_fd, id, 0700) == 0);
	ck_assert((fd = open_dir_at(base_fd, id)) >= 0);
	ck_assert(mkdir_p_at(fd, "x/y"));
	ck_assert(put_file(fd, "x/y/f", "x"));
	ck_assert(symlinkat("../../..", fd, "x/up") == 0);
	ck_assert(fchmodat(fd, "x/y", 0000, 0) == 0);
	close(fd);
	if (with_lock) {
		ck_assert(fmt(name, sizeof(name), "%s.lock", id));
		ck_assert(put_file(base_fd, name, ""));
	}
}

/* A live helper: a child holding <id>.lock until we close wfd. */
struct holder {
	pid_t pid;
	int wfd;
};

static void
hold_lock(struct holder *h, int base_fd, const char *lockname)
{
	int ready[2], wait_p[2], fd;
	char c = 'e';

	ck_assert(pipe2(ready, O_CLOEXEC) == 0 && pipe2(wait_p, O_CLOEXEC) == 0);
	fflush(NULL);
	h->pid = fork();
	ck_assert(h->pid >= 0);
	if (h->pid == 0) {
		close(ready[0]);
		close(wait_p[1]);
		fd = openat(base_fd, lockname, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && flock(fd, LOCK_EX) == 0)
			c = 'x';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		/* EOF when the test closes wfd, or when the test dies. */
		while (read(wait_p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(wait_p[0]);
	ck_assert(read(ready[0], &c, 1) == 1);
	ck_assert_msg(c == 'x', "lock holder could not take %s", lockname);
	close(ready[0]);
	h->wfd = wait_p[1];
}

static void
release_lock(struct holder *h)
{
	int status;

	close(h->wfd);
	ck_assert(waitpid(h->pid, &status, 0) == h->pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int
open_base(const struct scratch *s, char *base, size_t size)
{
	char err[512] = "";
	int fd;

	base_path(s, base, size);
	ck_assert_msg(workdir_open_base(base, true, &fd, err, sizeof(err)) == 0,
	    "workdir_open_base: %s", err);
	return fd;
}

START_TEST(test_gc_reclaims_only_the_dead)
{
	static const char *const unrelated[] = {
		"notes", "0123456789abcdef0123456789ABCDEF",
		"0123456789abcdef0123456789abcde",
		"0123456789abcdef0123456789abcdef0",
		".0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdef~",
		"g123456789abcdef0123456789abcdef", "x.lock",
	};
	static const char *const unrelated_files[] = {
		"0123456789abcdef0123456789ABCDEF.lock",
		"0123456789abcdef0123456789abcde.lock",
		"0123456789abcdef0123456789abcdef.lock.old",
		"0123456789abcdef0123456789abcdef.lck",
		"0123456789abcdef0123456789abcdef0.lock",
	};
	char base[PATH_MAX], err[512] = "", dead[33], bare[33], live[33];
	char name[64];
	struct holder h;
	struct scratch s;
	size_t i;
	int bfd, fd, fds;

	scratch_new(&s);
	bfd = open_base(&s, base, sizeof(base));
	make_id(dead, sizeof(dead), 1);
	make_id(bare, sizeof(bare), 2);
	make_id(live, sizeof(live), 3);
	make_dead(bfd, dead, true);
	make_dead(bfd, bare, false);
	make_dead(bfd, live, true);
	ck_assert(fmt(name, sizeof(name), "%s.lock", live));
	hold_lock(&h, bfd, name);
	for (i = 0; i < sizeof(unrelated) / sizeof(unrelated[0]); i++) {
		ck_assert(mkdirat(bfd, unrelated[i], 0700) == 0);
		ck_assert((fd = open_dir_at(bfd, unrelated[i])) >= 0);
		ck_assert(put_file(fd, "f", "mine"));
		close(fd);
	}
	for (i = 0; i < sizeof(unrelated_files) / sizeof(unrelated_files[0]);
	    i++)
		ck_assert(put_file(bfd, unrelated_files[i], "mine"));

	fds = count_fds();
	ck_assert_int_eq(workdir_gc(bfd, 0, err, sizeof(err)), 1);
	ck_assert_int_eq(count_fds(), fds);
	ck_assert(!exists_at(bfd, dead));
	ck_assert(fmt(name, sizeof(name), "%s.lock", dead));
	ck_assert(!exists_at(bfd, name));
	/* No lock file: cordon never leaves one so, so it is not ours. */
	ck_assert(exists_at(bfd, bare));
	/* The live run is untouched, down to its unreadable subdirectory. */
	ck_assert(exists_at(bfd, live));
	ck_assert(fmt(name, sizeof(name), "%s.lock", live));
	ck_assert(exists_at(bfd, name));
	ck_assert(fmt(name, sizeof(name), "%s/x/y", live));
	ck_assert(exists_at(bfd, name));
	for (i = 0; i < sizeof(unrelated) / sizeof(unrelated[0]); i++) {
		ck_assert(fmt(name, sizeof(name), "%s/f", unrelated[i]));
		ck_assert_msg(file_is(bfd, name, "mine"), "%s touched",
		    unrelated[i]);
	}
	for (i = 0; i < sizeof(unrelated_files) / sizeof(unrelated_files[0]);
	    i++)
		ck_assert_msg(file_is(bfd, unrelated_files[i], "mine"),
		    "%s touched", unrelated_files[i]);

	/*
	 * Once its helper is gone, the live run is dead too.  A fresh base
	 * fd: reusing one is test_gc_twice_on_one_fd's business.
	 */
	release_lock(&h);
	close(bfd);
	bfd = open_base(&s, base, sizeof(base));
	ck_assert_int_eq(workdir_gc(bfd, 0, err, sizeof(err)), 1);
	ck_assert(!exists_at(bfd, live));
	ck_assert(fmt(name, sizeof(name), "%s.lock", live));
	ck_assert(!exists_at(bfd, name));
	close(bfd);
	close(s.fd);
}
END_TEST

START_TEST(test_gc_count_is_exact)
{
	char base[PATH_MAX], err[512] = "", id[33];
	struct scratch s;
	unsigned i;
	int bfd;

	scratch_new(&s);
	bfd = open_base(&s, base, sizeof(base));
	/*
	 * readdir order is the file system's: with 16 runs, some <id>.lock
	 * is all but certain to be listed before its <id>, and the other
	 * way round.  Each run counts once whichever comes first.
	 */
	for (i = 0; i < 16; i++) {
		make_id(id, sizeof(id), 100 + i);
		make_dead(bfd, id, true);
	}
	ck_assert_int_eq(workdir_gc(bfd, 0, err, sizeof(err)), 16);
	ck_assert_int_eq(count_entries(bfd, "."), 1); /* just .lock */
	close(bfd);
	close(s.fd);
}
END_TEST

START_TEST(test_gc_twice_on_one_fd)
{
	char base[PATH_MAX], err[512] = "", id[33];
	struct scratch s;
	int bfd;

	scratch_new(&s);
	bfd = open_base(&s, base, sizeof(base));
	make_id(id, sizeof(id), 1);
	make_dead(bfd, id, true);
	ck_assert_int_eq(workdir_gc(bfd, 0, err, sizeof(err)), 1);
	make_id(id, sizeof(id), 2);
	make_dead(bfd, id, true);
	ck_assert_int_eq(workdir_gc(bfd, 0, err, sizeof(err)), 1);
	ck_assert_msg(!exists_at(bfd, id),
	    "second gc on the same base fd did not see a dead workdir");
	close(bfd);
	close(s.fd);
}
END_TEST

START_TEST(test_gc_does_not_follow_links)
{
	char base[PATH_MAX], err[512] = "", a[33], b[33], c[33];
	char target[PATH_MAX], name[64];
	struct scratch s;
	int bfd;

	scratch_new(&s);
	make_outside(s.fd);
	bfd = open_base(&s, base, sizeof(base));
	ck_assert(fmt(target, sizeof(target), "%s/outside", s.path));
	make_id(a, sizeof(a), 1);
	make_id(b, sizeof(b), 2);
	make_id(c, sizeof(c), 3);
	/* <a> a link to a dir, no lock; <b> a link with a free lock. */
	ck_assert(symlinkat(target, bfd, a) == 0);
	ck_assert(symlinkat(target, bfd, b) == 0);
	ck_assert(fmt(name, sizeof(name), "%s.lock", b));
	ck_assert(put_file(bfd, name, ""));
	/* <c>.lock a link to an outside file: never opened through. */
	ck_assert(mkdirat(bfd, c, 0700) == 0);
	ck_assert(fmt(name, sizeof(name), "%s.lock", c));
	ck_assert(fmt(target, sizeof(target), "%s/outside-file", s.path));
	ck_assert(symlinkat(target, bfd, name) == 0);

	/* b only: a has no lock, so it is not ours to touch. */
	ck_assert_int_eq(workdir_gc(bfd, 0, err, sizeof(err)), 1);
	ck_assert(exists_at(bfd, a));
	ck_assert(fmt(name, sizeof(name), "%s.lock", b));
	ck_assert(!exists_at(bfd, name));
	ck_assert(exists_at(bfd, c));
	ck_assert(!exists_at(bfd, b));
	check_outside(s.fd);
	close(bfd);
	close(s.fd);
}
END_TEST

START_TEST(test_gc_spares_our_own_live_run)
{
	char base[PATH_MAX], err[512] = "", id[33];
	struct workdir wd;
	struct scratch s;
	int bfd;

	scratch_new(&s);
	base_path(&s, base, sizeof(base));
	make_id(id, sizeof(id), 5);
	ck_assert_msg(workdir_create(base, id, &wd, err, sizeof(err)) == 0,
	    "%s", err);
	ck_assert(put_file(wd.fd, "work", "x"));
	bfd = open_base(&s, base, sizeof(base));
	ck_assert_int_eq(workdir_gc(bfd, 0, err, sizeof(err)), 0);
	ck_assert(file_is(wd.fd, "work", "x"));
	ck_assert(exists_at(bfd, id));
	ck_assert_msg(workdir_remove(&wd, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(workdir_gc(bfd, 0, err, sizeof(err)), 0);
	close(bfd);
	close(s.fd);
}
END_TEST

/* ---- runner ------------------------------------------------------------------ */

static TCase *
tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
	tcase_set_timeout(tc, 60);
	return tc;
}

static Suite *
teardown_suite(void)
{
	Suite *s = suite_create("teardown");
	TCase *tc;

	tc = tcase("rmtree");
	tcase_add_test(tc, test_plain_tree);
	tcase_add_test(tc, test_links_out_of_tree);
	tcase_add_test(tc, test_root_is_symlink);
	tcase_add_test(tc, test_permissions);
	tcase_add_test(tc, test_deep_tree);
	tcase_add_test(tc, test_wide_dir);
	tcase_add_test(tc, test_odd_names);
	tcase_add_test(tc, test_missing_and_non_dir_roots);
	suite_add_tcase(s, tc);

	tc = tcase("mounts");
	tcase_add_test(tc, test_mount_tmpfs);
	tcase_add_test(tc, test_mount_bind);
	suite_add_tcase(s, tc);

	tc = tcase("create");
	tcase_add_test(tc, test_create_makes_base_and_layout);
	tcase_add_test(tc, test_create_existing_private_base);
	tcase_add_test(tc, test_create_refuses_foreign_base);
	tcase_add_test(tc, test_create_refuses_writable_base);
	tcase_add_test(tc, test_create_refuses_symlink_base);
	tcase_add_test(tc, test_create_invalid_id);
	tcase_add_test(tc, test_create_twice_keeps_first);
	tcase_add_test(tc, test_remove_hostile_workdir);
	tcase_add_test(tc, test_remove_exchanged_workdir);
	tcase_add_test(tc, test_remove_exchanged_mid_removal);
	suite_add_tcase(s, tc);

	tc = tcase("gc");
	tcase_add_test(tc, test_gc_reclaims_only_the_dead);
	tcase_add_test(tc, test_gc_count_is_exact);
	tcase_add_test(tc, test_gc_twice_on_one_fd);
	tcase_add_test(tc, test_gc_does_not_follow_links);
	tcase_add_test(tc, test_gc_spares_our_own_live_run);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(teardown_suite());
	int failures;

	/* Never let a payload-like SIGPIPE from a closed pipe kill a test. */
	(void)signal(SIGPIPE, SIG_IGN);
	srunner_run_all(sr, CK_NORMAL);
	failures = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failures != 0;
}
