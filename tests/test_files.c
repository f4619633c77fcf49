/*
 * test_files.c - end-to-end tests of files in and out of a run, the output
 * cap and the disk cap: --copy-in, --copy-out, --ro-bind, --stdout,
 * --output-limit, --disk.  Each test runs on the floor and on linux-ns
 * (where it can be built), invoked by root and (when the suite runs as
 * root) again by nobody.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon.h"
#include "testutil.h"

#define MAXARGS 48

static struct scratch S;
static bool ns_ok;

static const char *const backends[] = { "floor", "linux-ns" };

/* Who invokes cordon, and where its files live (owned by it). */
static struct {
	int uid;
	const char *bin;
	char trace_opt[512], base_opt[512], base[300], dir[300];
	char helper_env[512];
	char *env[4];
} X;

static void
mkdir_owned(const char *path)
{
	ck_assert_int_eq(mkdir(path, 0755), 0);
	if (X.uid >= 0)
		ck_assert_int_eq(chown(path, (uid_t)X.uid, (gid_t)X.uid), 0);
}

static void
setup_self(void)
{
	scratch_init(&S);
	X.uid = -1;
	X.bin = cordon_bin();
	snprintf(X.trace_opt, sizeof(X.trace_opt), "%s", S.trace_opt);
	snprintf(X.base_opt, sizeof(X.base_opt), "%s", S.base_opt);
	snprintf(X.base, sizeof(X.base), "%s", S.base);
	snprintf(X.dir, sizeof(X.dir), "%s/files", S.root);
	X.env[0] = NULL;
	mkdir_owned(X.dir);
}

static void
setup_nobody(void)
{
	static char bin[450];
	const char *dir;

	scratch_init(&S);
	dir = nobody_bin_dir(&S);
	snprintf(bin, sizeof(bin), "%s/cordon", dir);
	X.uid = 65534;
	X.bin = bin;
	snprintf(X.trace_opt, sizeof(X.trace_opt), "--trace=%s/nobody/t.db",
	    S.root);
	snprintf(X.base, sizeof(X.base), "%s/nobody/wd", S.root);
	snprintf(X.base_opt, sizeof(X.base_opt), "--workdir-base=%s", X.base);
	snprintf(X.helper_env, sizeof(X.helper_env), "CORDON_HELPER=%s/"
	    "cordon-helper", dir);
	snprintf(X.dir, sizeof(X.dir), "%s/nobody/files", S.root);
	X.env[0] = X.helper_env;
	X.env[1] = "HOME=/nonexistent";
	X.env[2] = "XDG_RUNTIME_DIR=";
	X.env[3] = NULL;
	mkdir_owned(X.dir);
}

static void
teardown(void)
{
	scratch_fini(&S);
}

/* Skips the linux-ns half of a loop test where it cannot be built. */
#define BACKEND(i) do { \
	if ((i) == 1 && !ns_ok) { \
		fprintf(stderr, "SKIP: linux-ns cannot be built here\n"); \
		return; \
	} \
} while (0)

/* cordon run --json TRACE BASE --backend=B ARGS... (NULL-terminated). */
static int
frun(struct cmd *c, const char *backend, ...)
{
	char *argv[MAXARGS], opt[64];
	const char *a;
	va_list ap;
	int n = 0;

	snprintf(opt, sizeof(opt), "--backend=%s", backend);
	argv[n++] = (char *)X.bin;
	argv[n++] = "run";
	argv[n++] = "--json";
	argv[n++] = X.trace_opt;
	argv[n++] = X.base_opt;
	argv[n++] = opt;
	va_start(ap, backend);
	while ((a = va_arg(ap, const char *)) != NULL && n < MAXARGS - 1)
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	return run_cmd_as(c, argv, X.env, NULL, X.uid);
}

static char *
path(const char *name)
{
	static char p[4][1024];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", X.dir, name);
	return p[k];
}

/* As the invoker: files it makes are its own. */
static void
own(const char *p)
{
	if (X.uid >= 0)
		ck_assert_int_eq(lchown(p, (uid_t)X.uid, (gid_t)X.uid), 0);
}

static void
mk_file(const char *p, const char *text, mode_t mode)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(chmod(p, mode), 0);
	own(p);
}

static void
mk_dir(const char *p, mode_t mode)
{
	ck_assert_int_eq(mkdir(p, mode), 0);
	ck_assert_int_eq(chmod(p, mode), 0);
	own(p);
}

/* A tree of awkward names: every one must come back as it went in. */
static void
odd_tree(const char *top)
{
	char p[8192], name[256];
	size_t n;
	int i;

	mk_dir(top, 0755);
	snprintf(p, sizeof(p), "%s/with space", top);
	mk_file(p, "space\n", 0644);
	snprintf(p, sizeof(p), "%s/new\nline", top);
	mk_file(p, "newline\n", 0600);
	snprintf(p, sizeof(p), "%s/-rf", top);
	mk_file(p, "dash\n", 0755);
	snprintf(p, sizeof(p), "%s/h\xc3\xa9llo-\xc3\xbc-\xe2\x82\xac", top);
	mk_file(p, "utf-8\n", 0640);
	memset(name, 'n', 255);
	name[255] = '\0';
	snprintf(p, sizeof(p), "%s/%s", top, name);
	mk_file(p, "long\n", 0444);
	snprintf(p, sizeof(p), "%s/empty", top);
	mk_dir(p, 0750);
	snprintf(p, sizeof(p), "%s/link-abs", top);
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	own(p);
	snprintf(p, sizeof(p), "%s/link-dangling", top);
	ck_assert_int_eq(symlink("../../nowhere/at all", p), 0);
	own(p);
	snprintf(p, sizeof(p), "%s", top);
	for (i = 0; i < 40; i++) {
		n = strlen(p);
		snprintf(p + n, sizeof(p) - n, "/d%d", i);
		mk_dir(p, i == 20 ? 0500 | 0200 : 0755);
	}
	n = strlen(p);
	snprintf(p + n, sizeof(p) - n, "/bottom");
	mk_file(p, "deep\n", 0644);
}

/* Name, type, mode, link target and bytes of every entry, sorted. */
static char *
listing(const char *dir)
{
	char cmd[2048], *out = NULL;
	struct cmd c;
	char *const argv[] = { "/bin/sh", "-c", cmd, NULL };

	snprintf(cmd, sizeof(cmd), "cd '%s' && find . -mindepth 1 -printf "
	    "'%%P|%%y|%%m|%%l\\0' | sort -z | od -c && find . -type f -print0 "
	    "| sort -z | xargs -0 cat | od -c | md5sum", dir);
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
	ck_assert_int_eq(c.status, 0);
	out = strdup(c.out);
	cmd_free(&c);
	return out;
}

START_TEST(t_roundtrip)
{
	struct cmd c;
	char *a, *b, inopt[1100], outopt[1100];

	BACKEND(_i);
	odd_tree(path("src"));
	snprintf(inopt, sizeof(inopt), "--copy-in=%s:in/tree", path("src"));
	snprintf(outopt, sizeof(outopt), "--copy-out=in/tree:%s", path("back"));
	frun(&c, backends[_i], inopt, outopt, "--", "sh", "-c",
	    "test -f 'in/tree/-rf' && cat in/tree/with\\ space", NULL);
	ck_assert_msg(c.status == 0, "status %d: %s", c.status, c.err);
	ck_assert_ptr_nonnull(strstr(c.out, "space\n"));
	a = listing(path("src"));
	b = listing(path("back"));
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	cmd_free(&c);
	ck_assert_int_le(dir_entries(X.base), 1); /* .lock only */
}
END_TEST

/* The payload replaces the copy-out path, or a parent, with a symlink. */
START_TEST(t_planted_symlinks)
{
	static const char *const scripts[] = {
		"ln -s /etc/passwd out",
		"mkdir d && ln -s /etc/passwd d/out",
		"ln -s \"$FAKE_SSH\" d",
	};
	static const char *const paths[] = { "out", "d/out", "d/id_rsa" };
	char fake[600], script[1024], opt[1100], *dest;
	struct cmd c;
	size_t k;

	BACKEND(_i);
	/* A fake ~/.ssh the invoker can read. */
	snprintf(fake, sizeof(fake), "%s", path("ssh"));
	mk_dir(fake, 0700);
	mk_file(path("ssh/id_rsa"), "PRIVATE KEY\n", 0600);
	for (k = 0; k < 3; k++) {
		snprintf(script, sizeof(script), "FAKE_SSH='%s'; %s", fake,
		    scripts[k]);
		dest = path(k == 0 ? "got0" : k == 1 ? "got1" : "got2");
		snprintf(opt, sizeof(opt), "--copy-out=%s:%s", paths[k], dest);
		frun(&c, backends[_i], opt, "--", "sh", "-c", script, NULL);
		/* The payload did its part; cordon refused and says so. */
		ck_assert_msg(c.status == 125, "case %zu: status %d", k,
		    c.status);
		ck_assert_ptr_nonnull(strstr(c.err, "symbolic link"));
		ck_assert_msg(access(dest, F_OK) < 0 && errno == ENOENT,
		    "case %zu: %s was created", k, dest);
		cmd_free(&c);
	}
	ck_assert_int_eq(dir_entries(X.dir), 1); /* the fake .ssh only */
}
END_TEST

/* Escapes via ".." or an absolute path: refused, nothing runs. */
START_TEST(t_escapes_refused)
{
	static const char *const bad[] = {
		"--copy-in=/etc/hostname:../x", "--copy-in=/etc/hostname:/x",
		"--copy-in=/etc/hostname:a/../../x", "--copy-in=/etc/hostname:.",
		"--copy-out=../x:/tmp/never", "--copy-out=/etc/passwd:/tmp/never",
		"--copy-out=a/../../x:/tmp/never", "--copy-out=.:/tmp/never",
		"--ro-bind=/etc/hostname:/data/../etc",
		"--ro-bind=/etc/hostname:/work/x", "--ro-bind=/etc/hostname:/",
		"--ro-bind=/etc/hostname:/proc/x", "--ro-bind=/etc/hostname:rel",
	};
	struct cmd c;
	size_t k;
	char marker[1100], script[1200];

	BACKEND(_i);
	snprintf(marker, sizeof(marker), "%s", path("ran"));
	snprintf(script, sizeof(script), "touch '%s'", marker);
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		frun(&c, backends[_i], bad[k], "--", "sh", "-c", script, NULL);
		ck_assert_msg(c.status == 125, "%s: status %d", bad[k], c.status);
		/* A usage error, or the file checks before anything runs. */
		ck_assert_msg(strstr(c.err, "cordon: --") != NULL ||
		    strstr(c.err, "cordon: nothing was run: --") != NULL,
		    "%s: %s", bad[k], c.err);
		cmd_free(&c);
		ck_assert_int_eq(access(marker, F_OK), -1);
		ck_assert_int_eq(access("/tmp/never", F_OK), -1);
	}
}
END_TEST

/* An existing DEST is never overwritten. */
START_TEST(t_dest_exists)
{
	struct cmd c;
	char opt[1100], buf[16] = "";
	int fd;

	BACKEND(_i);
	mk_file(path("keep"), "mine\n", 0644);
	snprintf(opt, sizeof(opt), "--copy-out=x:%s", path("keep"));
	frun(&c, backends[_i], opt, "--", "sh", "-c", "echo theirs > x", NULL);
	ck_assert_int_eq(c.status, 125);
	ck_assert_ptr_nonnull(strstr(c.err, "exists"));
	cmd_free(&c);
	ck_assert_int_ge(fd = open(path("keep"), O_RDONLY), 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), 5);
	close(fd);
	ck_assert_str_eq(buf, "mine\n");
}
END_TEST

/* Over --copy-out-limit: an error, and no partial DEST. */
START_TEST(t_copy_out_limit)
{
	struct cmd c;
	char opt[1100];

	BACKEND(_i);
	snprintf(opt, sizeof(opt), "--copy-out=big:%s", path("big"));
	frun(&c, backends[_i], opt, "--copy-out-limit=1M", "--", "sh", "-c",
	    "mkdir big && head -c 700000 /dev/zero > big/a && "
	    "head -c 700000 /dev/zero > big/b", NULL);
	ck_assert_int_eq(c.status, 125);
	ck_assert_ptr_nonnull(strstr(c.err, "copy-out limit"));
	ck_assert_int_eq(dir_entries(X.dir), 0);
	cmd_free(&c);
}
END_TEST

static mode_t test_umask;

static void
set_umask(void)
{
	umask(test_umask);
}

/*
 * The payload's modes do not come out as they are (issue 22: root got a
 * root-owned 0777 directory in its cwd): the invoker's umask applies, and
 * set-id, sticky and group/other write bits are dropped whatever it is.
 */
START_TEST(t_copy_out_modes)
{
	static const struct {
		mode_t umask;
		mode_t dir, top, f4755, f2775, f1777, f0666, f0600;
	} want[] = {
		/* A umask that lets group write through: dropped anyway. */
		{ 002, 0755, 0755, 0755, 0755, 0755, 0644, 0600 },
		{ 027, 0750, 0750, 0750, 0750, 0750, 0640, 0600 },
	};
	const char *const names[] = { "d", "f4755", "f2775", "f1777",
	    "f0666", "f0600" };
	struct cmd c;
	struct stat st;
	char opt[1100], dest[32], p[1200];
	mode_t got[6];
	size_t k, j;

	BACKEND(_i);
	for (k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		snprintf(dest, sizeof(dest), "out%zu", k);
		snprintf(opt, sizeof(opt), "--copy-out=out:%s", path(dest));
		test_umask = want[k].umask;
		run_cmd_hook = set_umask;
		frun(&c, backends[_i], opt, "--", "sh", "-c",
		    "mkdir out && chmod 0777 out && mkdir out/d && "
		    "chmod 0777 out/d && for m in 4755 2775 1777 0666 0600; do "
		    "echo x > out/f$m && chmod $m out/f$m || exit 1; done && "
		    "stat -c %a out/f4755 out/f2775 out/f1777 out/d", NULL);
		run_cmd_hook = NULL;
		ck_assert_msg(c.status == 0, "status %d: %s", c.status, c.err);
		/* The payload really made them so. */
		ck_assert_ptr_nonnull(strstr(c.out, "4755\n2775\n1777\n777\n"));
		cmd_free(&c);
		ck_assert_int_eq(stat(path(dest), &st), 0);
		ck_assert_msg((st.st_mode & 07777) == want[k].top,
		    "umask %03o: %s is %04o", (unsigned)want[k].umask, dest,
		    (unsigned)(st.st_mode & 07777));
		for (j = 0; j < 6; j++) {
			snprintf(p, sizeof(p), "%s/%s", path(dest), names[j]);
			ck_assert_int_eq(stat(p, &st), 0);
			got[j] = st.st_mode & 07777;
		}
		ck_assert_msg(got[0] == want[k].dir && got[1] == want[k].f4755 &&
		    got[2] == want[k].f2775 && got[3] == want[k].f1777 &&
		    got[4] == want[k].f0666 && got[5] == want[k].f0600,
		    "umask %03o: d %04o, f4755 %04o, f2775 %04o, f1777 %04o, "
		    "f0666 %04o, f0600 %04o", (unsigned)want[k].umask,
		    (unsigned)got[0], (unsigned)got[1], (unsigned)got[2],
		    (unsigned)got[3], (unsigned)got[4], (unsigned)got[5]);
	}
}
END_TEST

/* What the invoker cannot read is not copied in (nobody: root's 0600). */
START_TEST(t_copy_in_unreadable)
{
	struct cmd c;
	char opt[1100], secret[600];
	int fd;

	BACKEND(_i);
	if (X.uid < 0) {
		fprintf(stderr, "SKIP: t_copy_in_unreadable needs the nobody "
		    "invoker\n");
		return;
	}
	snprintf(secret, sizeof(secret), "%s/secret", S.root);
	fd = open(secret, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "root only\n", 10), 10);
	close(fd);
	snprintf(opt, sizeof(opt), "--copy-in=%s", secret);
	frun(&c, backends[_i], opt, "--", "cat", "secret", NULL);
	ck_assert_int_eq(c.status, 125);
	ck_assert_ptr_nonnull(strstr(c.err, "Permission denied"));
	ck_assert_ptr_null(strstr(c.out, "root only"));
	cmd_free(&c);
}
END_TEST

/* yes under --output-limit 1M: cap output, exactly 1 MiB in the file. */
START_TEST(t_output_flood)
{
	struct cmd c;
	struct stat st;
	char opt[1100];

	BACKEND(_i);
	snprintf(opt, sizeof(opt), "--stdout=%s", path("yes.out"));
	frun(&c, backends[_i], opt, "--output-limit=1M", "--", "yes", NULL);
	ck_assert_int_eq(c.status, 124);
	ck_assert(json_is(c.out, "cap", "output"));
	ck_assert_ptr_nonnull(strstr(c.out, "\"output_bytes\":1048576"));
	ck_assert_ptr_nonnull(strstr(c.out, "\"output\":true"));
	ck_assert_int_eq(stat(path("yes.out"), &st), 0);
	ck_assert_int_eq(st.st_size, 1048576);
	cmd_free(&c);
	ck_assert_int_le(dir_entries(X.base), 1); /* .lock only */

	/* Under the cap: the whole output, and the payload's own status. */
	frun(&c, backends[_i], "--output-limit=1M", "--", "sh", "-c",
	    "echo out; echo err >&2; exit 3", NULL);
	ck_assert_int_eq(c.status, 3);
	ck_assert_ptr_nonnull(strstr(c.out, "out\n"));
	ck_assert_ptr_nonnull(strstr(c.err, "err\n"));
	cmd_free(&c);
}
END_TEST

/* dd past --disk 10M: cap disk (also when the shell goes on), removed. */
START_TEST(t_disk_cap)
{
	struct cmd c;

	BACKEND(_i);
	frun(&c, backends[_i], "--disk=10M", "--", "dd", "if=/dev/zero",
	    "of=x", "bs=1M", "count=100", NULL);
	ck_assert_int_eq(c.status, 124);
	ck_assert(json_is(c.out, "cap", "disk"));
	ck_assert(json_is(c.out, "workdir_removed", "true"));
	ck_assert_ptr_nonnull(strstr(c.out, "\"disk\":true"));
	cmd_free(&c);
	/* Many files, none over the cap alone: the monitor's measure. */
	frun(&c, backends[_i], "--disk=10M", "--", "sh", "-c",
	    "i=0; while [ $i -lt 30 ]; do head -c 1000000 /dev/zero > f$i; "
	    "i=$((i+1)); done; sleep 10", NULL);
	ck_assert_int_eq(c.status, 124);
	ck_assert(json_is(c.out, "cap", "disk"));
	cmd_free(&c);
	/* A payload raising SIGXFSZ itself has not filled the disk. */
	frun(&c, backends[_i], "--disk=10M", "--", "sh", "-c", "kill -XFSZ $$",
	    NULL);
	ck_assert_int_eq(c.status, 128 + 25);
	cmd_free(&c);
	ck_assert_int_le(dir_entries(X.base), 1); /* .lock only */
}
END_TEST

/* --ro-bind: readable inside, not writable; refused on the floor. */
START_TEST(t_ro_bind)
{
	struct cmd c;
	char opt[1100], opt2[1100];

	BACKEND(_i);
	mk_dir(path("data"), 0755);
	mk_file(path("data/f"), "bound\n", 0644);
	snprintf(opt, sizeof(opt), "--ro-bind=%s:/data", path("data"));
	snprintf(opt2, sizeof(opt2), "--ro-bind=%s:/deep/er/f", path("data/f"));
	frun(&c, backends[_i], opt, opt2, "--", "sh", "-c",
	    "cat /data/f /deep/er/f; echo x > /data/f || echo nowrite; "
	    "touch /data/new || echo nocreate", NULL);
	if (_i == 0) {
		ck_assert_int_eq(c.status, 125);
		ck_assert_ptr_nonnull(strstr(c.err, "linux-ns"));
	} else {
		ck_assert_msg(c.status == 0, "%d %s", c.status, c.err);
		ck_assert_ptr_nonnull(strstr(c.out, "bound\nbound\nnowrite\n"
		    "nocreate\n"));
	}
	cmd_free(&c);
}
END_TEST

static void
add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, t_roundtrip, 0, 2);
	tcase_add_loop_test(tc, t_planted_symlinks, 0, 2);
	tcase_add_loop_test(tc, t_escapes_refused, 0, 2);
	tcase_add_loop_test(tc, t_dest_exists, 0, 2);
	tcase_add_loop_test(tc, t_copy_out_limit, 0, 2);
	tcase_add_loop_test(tc, t_copy_out_modes, 0, 2);
	tcase_add_loop_test(tc, t_copy_in_unreadable, 0, 2);
	tcase_add_loop_test(tc, t_output_flood, 0, 2);
	tcase_add_loop_test(tc, t_disk_cap, 0, 2);
	tcase_add_loop_test(tc, t_ro_bind, 0, 2);
}

static bool
probe_ns(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "'%s' probe --backend linux-ns >/dev/null "
	    "2>&1", cordon_bin());
	return system(cmd) == 0;
}

/*
 * A base others may write to is refused by name, whatever errno held
 * before: cordon_base_open once left it unset there, so a stale ENOENT
 * read as "no base, nothing to reclaim" and gc claimed success.
 */
START_TEST(t_gc_refuses_a_shared_base_whatever_errno_was)
{
	char dir[] = "/tmp/cordon-gc-XXXXXX", msg[512] = "";
	cordon_config *cfg = cordon_config_new();

	ck_assert_ptr_nonnull(cfg);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(cordon_config_set_workdir_base(cfg, dir), 0);
	errno = ENOENT;
	ck_assert_int_lt(cordon_gc(cfg, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "must be owned by uid") != NULL, "%s", msg);
	ck_assert_int_eq(rmdir(dir), 0);
	cordon_config_free(cfg);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("files");
	TCase *self = tcase_create(geteuid() == 0 ? "root" : "invoker");
	TCase *nobody = tcase_create("nobody");
	SRunner *sr;
	int failed;

	TCase *gc = tcase_create("gc");

	tcase_add_test(gc, t_gc_refuses_a_shared_base_whatever_errno_was);
	suite_add_tcase(s, gc);
	ns_ok = probe_ns();
	if (!ns_ok)
		fprintf(stderr, "NOTE: linux-ns cannot be built here; its "
		    "cases are skipped\n");
	tcase_add_checked_fixture(self, setup_self, teardown);
	tcase_set_timeout(self, 180);
	add_tests(self);
	suite_add_tcase(s, self);
	if (geteuid() == 0) {
		tcase_add_checked_fixture(nobody, setup_nobody, teardown);
		tcase_set_timeout(nobody, 180);
		add_tests(nobody);
		suite_add_tcase(s, nobody);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
