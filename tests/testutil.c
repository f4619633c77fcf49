/*
 * testutil.c - see testutil.h.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

extern char **environ;

static const char *
env_or_die(const char *name)
{
	const char *v = getenv(name);

	if (v == NULL || v[0] == '\0') {
		fprintf(stderr, "%s is not set: run the tests with 'make check'\n",
		    name);
		exit(99);
	}
	return v;
}

const char *cordon_bin(void) { return env_or_die("CORDON_BIN"); }
const char *payload_bin(void) { return env_or_die("CORDON_PAYLOAD"); }

void
scratch_init(struct scratch *s)
{
	snprintf(s->root, sizeof(s->root), "/tmp/cordon-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(s->root));
	/* Others (the unprivileged tests) must reach into it. */
	ck_assert_int_eq(chmod(s->root, 0711), 0);
	snprintf(s->trace, sizeof(s->trace), "%s/trace.db", s->root);
	snprintf(s->base, sizeof(s->base), "%s/wd", s->root);
	snprintf(s->trace_opt, sizeof(s->trace_opt), "--trace=%s", s->trace);
	snprintf(s->base_opt, sizeof(s->base_opt), "--workdir-base=%s", s->base);
}

void
scratch_fini(struct scratch *s)
{
	char cmd[1024];

	/* Tests may leave 000 directories behind on failure: reopen them. */
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'",
	    s->root, s->root);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", s->root);
}

static char *
drain(int fd)
{
	size_t len = 0, cap = 4096;
	char *b = malloc(cap);
	ssize_t n;

	ck_assert_ptr_nonnull(b);
	for (;;) {
		if (cap - len < 2048) {
			cap *= 2;
			b = realloc(b, cap);
			ck_assert_ptr_nonnull(b);
		}
		n = read(fd, b + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	b[len] = '\0';
	return b;
}

int
run_cmd(struct cmd *c, char *const argv[], char *const extra_env[])
{
	return run_cmd_in(c, argv, extra_env, NULL);
}

int
run_cmd_in(struct cmd *c, char *const argv[], char *const extra_env[],
    const char *stdin_path)
{
	return run_cmd_as(c, argv, extra_env, stdin_path, -1);
}

void (*run_cmd_hook)(void);

int
run_cmd_as(struct cmd *c, char *const argv[], char *const extra_env[],
    const char *stdin_path, int uid)
{
	int out[2], err[2], status = 0, i, fd;
	pid_t pid;
	FILE *tmp;

	memset(c, 0, sizeof(*c));
	ck_assert_int_eq(pipe(out), 0);
	/* stderr to a file so a chatty child cannot block on a full pipe. */
	tmp = tmpfile();
	ck_assert_ptr_nonnull(tmp);
	err[1] = fileno(tmp);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (stdin_path != NULL) {
			if ((fd = open(stdin_path, O_RDONLY)) < 0)
				_exit(126);
			dup2(fd, 0);
			close(fd);
		}
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(out[1]);
		if (run_cmd_hook != NULL)
			run_cmd_hook();
		/* Groups, gid, uid, in that order; each checked. */
		if (uid >= 0 && (setgroups(0, NULL) < 0 ||
		    setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) < 0 ||
		    setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0))
			_exit(90);
		for (i = 0; extra_env != NULL && extra_env[i] != NULL; i++)
			putenv(extra_env[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	c->out = drain(out[0]);
	close(out[0]);
	while (waitpid(pid, &status, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
	rewind(tmp);
	err[0] = dup(fileno(tmp));
	c->err = drain(err[0]);
	close(err[0]);
	fclose(tmp);
	c->status = WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
	return c->status;
}

/* The first pid in /proc/PID/task/PID/children other than skip, or -1. */
static pid_t
child_of(pid_t pid, pid_t skip)
{
	char path[96];
	long v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fscanf(f, "%ld", &v) == 1)
		if ((pid_t)v != skip) {
			fclose(f);
			return (pid_t)v;
		}
	fclose(f);
	return -1;
}

/* The state letter of pid ('R', 'S', 'T', 'Z', ...), or 0 if it is gone. */
static char
proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return 0;
	return p[2];
}

pid_t
stop_helper_while(const char *base)
{
	struct timespec ts = { 0, 10000000 };
	char dir[600] = "", path[700];
	pid_t test = getpid(), pid = fork(), broker, helper, child = -1;
	struct dirent *e;
	char st;
	DIR *d;
	int i, fd;

	ck_assert_int_ge(pid, 0);
	if (pid != 0)
		return pid;
	/* The payload is up and waiting for "go" (60 s at most). */
	for (i = 0; i < 6000; i++, nanosleep(&ts, NULL)) {
		if (dir[0] == '\0' && (d = opendir(base)) != NULL) {
			while ((e = readdir(d)) != NULL)
				if (strlen(e->d_name) == 32)
					snprintf(dir, sizeof(dir), "%s/%s", base,
					    e->d_name);
			closedir(d);
		}
		snprintf(path, sizeof(path), "%s/ready", dir);
		if (dir[0] != '\0' && access(path, F_OK) == 0)
			break;
	}
	broker = child_of(test, getpid());
	helper = broker > 0 ? child_of(broker, 0) : -1;
	if (helper > 0)
		child = child_of(helper, 0);
	if (i == 6000 || child <= 0 || kill(helper, SIGSTOP) < 0)
		_exit(1);
	for (i = 0; i < 1000 && proc_state(helper) != 'T'; i++)
		nanosleep(&ts, NULL);
	snprintf(path, sizeof(path), "%s/go", dir);
	if (i == 1000 || (fd = open(path, O_WRONLY | O_CREAT, 0644)) < 0) {
		(void)kill(helper, SIGCONT);
		_exit(2);
	}
	close(fd);
	/* Whatever the payload does now, no monitor watches (120 s at most). */
	for (i = 0; i < 12000 && (st = proc_state(child)) != 'Z' && st != 0;
	    i++)
		nanosleep(&ts, NULL);
	(void)kill(helper, SIGCONT);
	_exit(i == 12000 ? 3 : 0);
}

pid_t
spawn_cmd(char *const argv[])
{
	pid_t pid = fork();
	int fd;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

void
cmd_free(struct cmd *c)
{
	free(c->out);
	free(c->err);
	memset(c, 0, sizeof(*c));
}

/* Just past "key": at depth 1 of the object json, or NULL. */
static const char *
json_find(const char *json, const char *key)
{
	char pat[128];
	const char *p;
	int depth = 0;
	bool instr = false;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	/* Only a key at depth 1 counts (not one inside "limits" etc.). */
	for (p = json; *p != '\0'; p++) {
		if (instr) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			else if (*p == '"')
				instr = false;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		else if (*p == '"') {
			if (depth == 1 && strncmp(p, pat, strlen(pat)) == 0)
				break;
			instr = true;
		}
	}
	if (*p == '\0')
		return NULL;
	return p + strlen(pat);
}

char *
json_get(const char *json, const char *key)
{
	const char *p, *e;
	int depth = 0;

	if ((p = json_find(json, key)) == NULL)
		return NULL;
	if (*p == '"') {
		for (e = p + 1; *e != '\0' && *e != '"'; e++)
			if (*e == '\\' && e[1] != '\0')
				e++;
		return strndup(p + 1, (size_t)(e - p - 1));
	}
	depth = 0;
	for (e = p; *e != '\0'; e++) {
		if (*e == '{' || *e == '[')
			depth++;
		else if (*e == '}' || *e == ']') {
			if (depth == 0)
				break;
			depth--;
		} else if (*e == ',' && depth == 0)
			break;
	}
	return strndup(p, (size_t)(e - p));
}

static int
hex4(const char *p)
{
	int v = 0, i;

	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (p[i] >= '0' && p[i] <= '9')
			v |= p[i] - '0';
		else if (p[i] >= 'a' && p[i] <= 'f')
			v |= p[i] - 'a' + 10;
		else if (p[i] >= 'A' && p[i] <= 'F')
			v |= p[i] - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t
put_utf8(unsigned char *o, long cp)
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * Decodes the JSON string starting at the quote *pp points at, the way
 * README.md tells a reader to (a JSON decoder, then surrogateescape), and
 * independently of broker/json.c.  Leaves *pp past the closing quote.
 */
static char *
json_decode_str(const char **pp)
{
	const char *p = *pp;
	unsigned char *o, *q;
	long cp, lo;

	if (*p++ != '"' || (o = malloc(strlen(p) + 1)) == NULL)
		return NULL;
	for (q = o; *p != '"'; ) {
		if (*p == '\0' || (unsigned char)*p < 0x20)
			goto bad;
		if (*p != '\\') {
			*q++ = (unsigned char)*p++;
			continue;
		}
		p++;
		switch (*p++) {
		case '"': *q++ = '"'; continue;
		case '\\': *q++ = '\\'; continue;
		case '/': *q++ = '/'; continue;
		case 'b': *q++ = '\b'; continue;
		case 'f': *q++ = '\f'; continue;
		case 'n': *q++ = '\n'; continue;
		case 'r': *q++ = '\r'; continue;
		case 't': *q++ = '\t'; continue;
		case 'u': break;
		default: goto bad;
		}
		if ((cp = hex4(p)) <= 0)
			goto bad;
		p += 4;
		if (cp >= 0xdc80 && cp <= 0xdcff) {
			*q++ = (unsigned char)(cp & 0xff);  /* surrogateescape */
			continue;
		}
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (p[0] != '\\' || p[1] != 'u' ||
			    (lo = hex4(p + 2)) < 0xdc00 || lo > 0xdfff)
				goto bad;
			p += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if (cp >= 0xdc00 && cp <= 0xdfff) {
			goto bad;
		}
		q += put_utf8(q, cp);
	}
	*q = '\0';
	*pp = p + 1;
	return (char *)o;
bad:
	free(o);
	return NULL;
}

char **
json_get_strv(const char *json, const char *key, size_t *n)
{
	const char *p = json_find(json, key);
	char **v = NULL, *s;
	size_t k = 0;

	*n = 0;
	if (p == NULL || *p++ != '[')
		return NULL;
	while (*p != ']') {
		if ((k > 0 && *p++ != ',') || (s = json_decode_str(&p)) == NULL)
			goto bad;
		v = realloc(v, (k + 2) * sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[k++] = s;
		v[k] = NULL;
	}
	*n = k;
	return v != NULL ? v : calloc(1, sizeof(*v));
bad:
	strv_free(v);
	return NULL;
}

void
strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

bool
utf8_printable(const char *s, size_t len, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n, k;
	long cp;

	while (i < len) {
		if (p[i] < 0x80) {
			n = 1;
			cp = p[i];
		} else if ((p[i] & 0xe0) == 0xc0) {
			n = 2;
			cp = p[i] & 0x1f;
		} else if ((p[i] & 0xf0) == 0xe0) {
			n = 3;
			cp = p[i] & 0x0f;
		} else if ((p[i] & 0xf8) == 0xf0) {
			n = 4;
			cp = p[i] & 0x07;
		} else {
			goto bad;
		}
		if (i + n > len)
			goto bad;
		for (k = 1; k < n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				goto bad;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		/* Overlong, surrogate, past U+10FFFF, or a control. */
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
		    (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
		    cp > 0x10ffff || (cp < 0x20 && cp != '\n') || cp == 0x7f ||
		    (cp >= 0x80 && cp < 0xa0))
			goto bad;
		i += n;
	}
	return true;
bad:
	if (bad != NULL)
		*bad = i;
	return false;
}

bool
json_is(const char *json, const char *key, const char *want)
{
	char *v = json_get(json, key);
	bool same = v != NULL && strcmp(v, want) == 0;

	if (!same)
		fprintf(stderr, "json %s: want %s, got %s\n", key, want,
		    v != NULL ? v : "(missing)");
	free(v);
	return same;
}

int
dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

bool
pid_alive(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	/* A zombie is dead for our purposes; so is a missing pid. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return false;
	return p[2] != 'Z' && p[2] != 'X';
}

long
wait_read_long(const char *path, int ms)
{
	struct timespec ts = { 0, 10000000 };
	long v = -1;
	FILE *f;
	int i;

	for (i = 0; i < ms / 10; i++) {
		if ((f = fopen(path, "r")) != NULL) {
			if (fscanf(f, "%ld", &v) != 1)
				v = -1;
			fclose(f);
			if (v > 0)
				return v;
		}
		nanosleep(&ts, NULL);
	}
	return -1;
}

static sqlite3_stmt *
prepare(const struct scratch *s, sqlite3 **db, const char *sql,
    const char *arg)
{
	sqlite3_stmt *st = NULL;

	ck_assert_int_eq(sqlite3_open_v2(s->trace, db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	sqlite3_busy_timeout(*db, 10000);
	ck_assert_msg(sqlite3_prepare_v2(*db, sql, -1, &st, NULL) == SQLITE_OK,
	    "sql: %s: %s", sql, sqlite3_errmsg(*db));
	if (arg != NULL)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
	return st;
}

long
trace_count(const struct scratch *s, const char *sql, const char *arg)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = prepare(s, &db, sql, arg);
	long v = -1;

	if (sqlite3_step(st) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

char *
trace_text(const struct scratch *s, const char *sql, const char *arg)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = prepare(s, &db, sql, arg);
	char *v = NULL;

	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_text(st, 0) != NULL)
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

const char *
nobody_bin_dir(const struct scratch *s)
{
	static char dir[400];
	char cmd[2048];
	struct stat st;

	/*
	 * The build tree may sit where nobody cannot reach (/root): copy the
	 * three binaries (real ELF files, not libtool wrappers) to a place
	 * nobody can read, and give nobody a directory of its own for its
	 * trace and its workdir base (cordon makes a base only in a directory
	 * that is its owner's alone).
	 */
	snprintf(dir, sizeof(dir), "%s/bin", s->root);
	if (stat(dir, &st) == 0)
		return dir;
	snprintf(cmd, sizeof(cmd), "mkdir -m 755 '%s' && cp '%s' '%s' '%s' "
	    "'%s/' && chmod 755 '%s'/* && mkdir -m 755 '%s/nobody' && "
	    "{ chown 65534:65534 '%s/nobody' || [ \"$(id -u)\" != 0 ]; }",
	    dir, cordon_bin(), getenv("CORDON_HELPER"), payload_bin(), dir,
	    dir, s->root, s->root);
	ck_assert_int_eq(system(cmd), 0);
	return dir;
}

const char *
setuid_helper(const struct scratch *s)
{
	static char path[450];
	const char *src = getenv("CORDON_HELPER_SETUID");
	char cmd[2048];
	struct stat st;

	if (src == NULL || src[0] == '\0') {
		fprintf(stderr, "CORDON_HELPER_SETUID is not set: run the tests "
		    "with 'make check'\n");
		exit(99);
	}
	/* In the root-owned bin dir (0755 in a 0711 scratch dir). */
	snprintf(path, sizeof(path), "%s/cordon-helper-setuid",
	    nobody_bin_dir(s));
	if (stat(path, &st) == 0)
		return path;
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chown root:root '%s' && "
	    "chmod 4755 '%s'", src, path, path, path);
	ck_assert_int_eq(system(cmd), 0);
	return path;
}

int
private_system_policy(const char *tmp, const char *text)
{
	char low[512], up[600], work[600], dir[512], opts[1800], file[600];
	struct stat st;
	char *slash;
	size_t n;
	int fd;

	snprintf(low, sizeof(low), "%s", CORDON_SYSCONFDIR);
	while (stat(low, &st) < 0 && (slash = strrchr(low, '/')) != NULL &&
	    slash != low)
		*slash = '\0';
	snprintf(up, sizeof(up), "%s/u", tmp);
	snprintf(work, sizeof(work), "%s/w", tmp);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", low,
	    up, work);
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    (mkdir(tmp, 0755) < 0 && errno != EEXIST) ||
	    mount("tmpfs", tmp, "tmpfs", 0, "mode=0755") < 0 ||
	    mkdir(up, 0755) < 0 || mkdir(work, 0755) < 0 ||
	    mount("overlay", low, "overlay", 0, opts) < 0)
		return -1;
	/* What is missing of the confdir, made in the overlay. */
	snprintf(dir, sizeof(dir), "%s/", CORDON_SYSCONFDIR);
	for (slash = dir + strlen(low) + 1; (slash = strchr(slash, '/')) !=
	    NULL; *slash++ = '/') {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -1;
	}
	snprintf(file, sizeof(file), "%s/policy.conf", CORDON_SYSCONFDIR);
	(void)unlink(file);
	if ((fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644)) < 0)
		return -1;
	n = strlen(text);
	if (write(fd, text, n) != (ssize_t)n || fchmod(fd, 0644) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

void
block_user_namespaces(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	/*
	 * As root a filter needs no PR_SET_NO_NEW_PRIVS, so a setuid helper
	 * started below it still gains root, and must do without a user
	 * namespace.  clone3 passes its flags in memory: ENOSYS makes libc
	 * fall back to clone, whose flags the filter can see.
	 */
	if (ctx == NULL ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3),
	    0) < 0 || seccomp_load(ctx) < 0)
		_exit(89);
	seccomp_release(ctx);
}

void
assert_cap_measured(const struct cmd *c, const char *cap, const char *what,
    const char *where)
{
	char *wall = json_get(c->out, "wall_seconds");
	char *cpu = json_get(c->out, "cpu_seconds");
	bool hit = json_is(c->out, "cap", cap);

	printf("MEASURE: %s, %s: cap %s%s after %s s, %s CPU s\n", what, where,
	    hit ? "" : "NOT ", cap, wall != NULL ? wall : "?",
	    cpu != NULL ? cpu : "?");
	free(wall);
	free(cpu);
	ck_assert_msg(hit, "%s: not a %s cap hit: %s", what, cap, c->out);
}
