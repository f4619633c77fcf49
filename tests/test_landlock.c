/*
 * test_landlock.c - end-to-end tests of the landlock backend, run by root
 * and (when the suite runs as root) again by nobody, an unprivileged
 * invoker, as test_ns.c does.
 *
 * The payload is not readable inside the sandbox (only the workdir and
 * the system directories are), so it travels on stdin:
 *   sh -c 'cat > p && chmod +x p && exec ./p "$@"' p ARGS...
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define MAXARGS 40
#define RUN_PAYLOAD "cat > p && chmod +x p && exec ./p \"$@\""

static struct scratch S;
static int host_abi;

/* Who invokes cordon in this test case, and with what. */
static struct {
	int uid;                 /* -1: ourselves */
	const char *bin;
	const char *payload;
	char trace_opt[512];
	char base_opt[512];
	char base[300];
	char helper_env[512];
	char *env[6];
	int nenv;
} X;

static void
setup_self(void)
{
	scratch_init(&S);
	memset(&X, 0, sizeof(X));
	X.uid = -1;
	X.bin = cordon_bin();
	X.payload = payload_bin();
	snprintf(X.trace_opt, sizeof(X.trace_opt), "%s", S.trace_opt);
	snprintf(X.base_opt, sizeof(X.base_opt), "%s", S.base_opt);
	snprintf(X.base, sizeof(X.base), "%s", S.base);
}

static void
setup_nobody(void)
{
	static char bin[450], payload[450];
	const char *dir;

	scratch_init(&S);
	memset(&X, 0, sizeof(X));
	dir = nobody_bin_dir(&S);
	snprintf(bin, sizeof(bin), "%s/cordon", dir);
	snprintf(payload, sizeof(payload), "%s/payload", dir);
	X.uid = 65534;
	X.bin = bin;
	X.payload = payload;
	snprintf(X.trace_opt, sizeof(X.trace_opt), "--trace=%s/nobody/t.db",
	    S.root);
	snprintf(X.base, sizeof(X.base), "%s/nobody/wd", S.root);
	snprintf(X.base_opt, sizeof(X.base_opt), "--workdir-base=%s", X.base);
	snprintf(X.helper_env, sizeof(X.helper_env), "CORDON_HELPER=%s/"
	    "cordon-helper", dir);
	X.env[X.nenv++] = X.helper_env;
	X.env[X.nenv++] = "HOME=/nonexistent";
	X.env[X.nenv++] = "XDG_RUNTIME_DIR=";
}

static void
teardown(void)
{
	scratch_fini(&S);
}

/*
 * cordon run --json TRACE BASE BACKEND OPTS... -- payload ARGS, with env
 * (NULL or "NAME=VALUE") added.  As in test_ns.c: "--" switches to the
 * payload's arguments; "-c" right after it makes the rest an sh script.
 */
static int
vrun(struct cmd *c, const char *backend, const char *env, va_list ap)
{
	char *argv[MAXARGS], *envv[8];
	const char *a;
	bool script = false, in_args = false;
	int n = 0, i;

	for (i = 0; i < X.nenv; i++)
		envv[i] = X.env[i];
	envv[i++] = (char *)env;
	envv[i] = NULL;
	argv[n++] = (char *)X.bin;
	argv[n++] = "run";
	argv[n++] = "--json";
	argv[n++] = X.trace_opt;
	argv[n++] = X.base_opt;
	argv[n++] = (char *)backend;
	while ((a = va_arg(ap, const char *)) != NULL && n < MAXARGS - 6) {
		if (!in_args && strcmp(a, "--") == 0) {
			in_args = true;
			argv[n++] = "--";
			argv[n++] = "/bin/sh";
			argv[n++] = "-c";
			a = va_arg(ap, const char *);
			if (a != NULL && strcmp(a, "-c") == 0) {
				script = true;
				argv[n++] = (char *)va_arg(ap, const char *);
				continue;
			}
			argv[n++] = RUN_PAYLOAD;
			argv[n++] = "p";
			if (a == NULL)
				break;
		}
		argv[n++] = (char *)a;
	}
	argv[n] = NULL;
	return run_cmd_as(c, argv, envv, script ? NULL : X.payload, X.uid);
}

static int
llrun(struct cmd *c, ...)
{
	va_list ap;
	int r;

	va_start(ap, c);
	r = vrun(c, "--backend=landlock", NULL, ap);
	va_end(ap);
	return r;
}

/* The same with the helper pretending the kernel's Landlock ABI is abi. */
static int
abirun(struct cmd *c, const char *abi, ...)
{
	char env[64];
	va_list ap;
	int r;

	snprintf(env, sizeof(env), "CORDON_TEST_LANDLOCK_ABI=%s", abi);
	va_start(ap, abi);
	r = vrun(c, "--backend=landlock", env, ap);
	va_end(ap);
	return r;
}

static int
floorrun(struct cmd *c, ...)
{
	va_list ap;
	int r;

	va_start(ap, c);
	r = vrun(c, "--backend=floor", NULL, ap);
	va_end(ap);
	return r;
}

/* "applied":{...,"NAME":true...}: the raw JSON is searched for it. */
static bool
applied(const char *json, const char *name, bool want)
{
	char pat[64];

	snprintf(pat, sizeof(pat), "\"%s\":%s", name, want ? "true" : "false");
	return strstr(strstr(json, "\"applied\":") != NULL ?
	    strstr(json, "\"applied\":") : "", pat) != NULL;
}

static void
assert_landlock(const struct cmd *c)
{
	ck_assert_msg(json_is(c->out, "backend", "landlock"),
	    "not landlock: %s %s", c->out, c->err);
	ck_assert_msg(json_is(c->out, "workdir_removed", "true"), "%s", c->out);
}

/* A host listener on 127.0.0.1 (TCP, or UDP); returns its port. */
static int
host_socket(int *fd, int type)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	*fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(*fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(*fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	if (type == SOCK_STREAM)
		ck_assert_int_eq(listen(*fd, 8), 0);
	ck_assert_int_eq(getsockname(*fd, (struct sockaddr *)&sin, &len), 0);
	return ntohs(sin.sin_port);
}

START_TEST(writes_outside_the_workdir_fail)
{
	char script[2048], home[400], marker[128], realhome[400] = "";
	struct passwd *pw;
	struct cmd c;
	struct stat st;
	FILE *f;

	/* A home stand-in that file permissions would let anyone write. */
	snprintf(home, sizeof(home), "%s/home", S.root);
	ck_assert_int_eq(mkdir(home, 0777), 0);
	ck_assert_int_eq(chmod(home, 0777), 0);
	snprintf(script, sizeof(script), "%s/secret", home);
	ck_assert_ptr_nonnull(f = fopen(script, "w"));
	fputs("s3cret\n", f);
	fclose(f);
	ck_assert_int_eq(chmod(script, 0644), 0);
	/* The invoker's real home, where there is one to try. */
	pw = getpwuid(X.uid < 0 ? geteuid() : (uid_t)X.uid);
	if (pw != NULL && stat(pw->pw_dir, &st) == 0)
		snprintf(realhome, sizeof(realhome), "%s/cordon-ll-%d",
		    pw->pw_dir, (int)getpid());
	snprintf(marker, sizeof(marker), "/tmp/cordon-ll-marker-%d-%ld",
	    (int)getpid(), (long)time(NULL));
	/* Each line prints ok or no; the expected pattern is checked below. */
	snprintf(script, sizeof(script),
	    "t() { if \"$@\" 2>/dev/null; then echo ok; else echo no; fi; }; "
	    "t sh -c 'echo x > %s/planted'; "
	    "t sh -c 'cat %s/secret'; "
	    "t sh -c 'echo x > /etc/cordon-ll-probe'; "
	    "t sh -c 'echo x > %s'; "
	    "t sh -c 'echo x > %s'; "
	    "t sh -c 'echo x > f && cat f >/dev/null && mkdir d && mv f d/g'; "
	    "t sh -c 'echo x > \"$TMPDIR/t\" && echo x > \"$HOME/h\"'; "
	    "t sh -c 'echo x > /dev/null && head -c1 /dev/urandom >/dev/null'; "
	    "t sh -c 'ls /usr/bin >/dev/null && cat /etc/passwd >/dev/null'",
	    home, home, marker, realhome[0] != '\0' ? realhome :
	    "/nonexistent/x");
	ck_assert_int_eq(llrun(&c, "--", "-c", script, NULL), 0);
	assert_landlock(&c);
	ck_assert_msg(strncmp(c.out, "no\nno\nno\nno\nno\nok\nok\nok\nok\n", 27)
	    == 0, "unexpected reach: %s", c.out);
	ck_assert(applied(c.out, "filesystem", true));
	ck_assert_msg(stat(marker, &st) < 0, "%s appeared on the host", marker);
	if (realhome[0] != '\0') {
		ck_assert_msg(stat(realhome, &st) < 0, "%s was written",
		    realhome);
		(void)unlink(realhome);
	}
	cmd_free(&c);
	/* The same writes on the floor succeed: the boundary is Landlock. */
	snprintf(script, sizeof(script), "echo x > %s/planted && cat "
	    "%s/secret", home, home);
	ck_assert_int_eq(floorrun(&c, "--", "-c", script, NULL), 0);
	ck_assert_msg(strstr(c.out, "s3cret") != NULL, "%s", c.out);
	ck_assert(applied(c.out, "filesystem", false));
	cmd_free(&c);
}
END_TEST

/*
 * --ro-bind on landlock: the path becomes readable where it is (it is
 * unreadable without it), never writable; a DEST elsewhere is refused.
 */
START_TEST(ro_bind_is_readable_where_it_is)
{
	char dir[400], opt[500], moved[520], script[1600], marker[450];
	struct cmd c;
	struct stat st;
	FILE *f;

	/* Not under /tmp: a DEST there is the private /tmp of linux-ns. */
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-ll-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(script, sizeof(script), "%s/in", dir);
	ck_assert_ptr_nonnull(f = fopen(script, "w"));
	fputs("bound\n", f);
	fclose(f);
	ck_assert_int_eq(chmod(script, 0666), 0);
	snprintf(opt, sizeof(opt), "--ro-bind=%s", dir);
	snprintf(script, sizeof(script),
	    "t() { if \"$@\" 2>/dev/null; then echo ok; else echo no; fi; }; "
	    "t grep -q bound %s/in; t sh -c 'echo x >> %s/in'; "
	    "t sh -c 'echo x > %s/new'", dir, dir, dir);
	ck_assert_int_eq(llrun(&c, opt, "--", "-c", script, NULL), 0);
	assert_landlock(&c);
	ck_assert_msg(strcmp(c.out, "ok\nno\nno\n") == 0 ||
	    strncmp(c.out, "ok\nno\nno\n{", 10) == 0, "%s", c.out);
	cmd_free(&c);
	snprintf(marker, sizeof(marker), "%s/new", dir);
	ck_assert_msg(stat(marker, &st) < 0, "%s was created", marker);
	/* Without the option the same read is refused. */
	snprintf(script, sizeof(script), "cat %s/in", dir);
	ck_assert_int_ne(llrun(&c, "--", "-c", script, NULL), 0);
	cmd_free(&c);
	/* Landlock cannot move a path: SRC:DEST elsewhere is refused. */
	snprintf(moved, sizeof(moved), "--ro-bind=%s:/srv/x", dir);
	ck_assert_int_eq(llrun(&c, moved, "--", "-c", "echo ran", NULL), 125);
	ck_assert_msg(strstr(c.out, "ran") == NULL, "%s", c.out);
	ck_assert_msg(strstr(c.err, "needs the linux-ns backend") != NULL,
	    "%s", c.err);
	cmd_free(&c);
	snprintf(script, sizeof(script), "%s/in", dir);
	(void)unlink(script);
	(void)rmdir(dir);
}
END_TEST

START_TEST(host_tcp_is_unreachable_without_network)
{
	struct cmd c;
	char port[16], uport[16];
	int fd, ufd;

	snprintf(port, sizeof(port), "%d", host_socket(&fd, SOCK_STREAM));
	snprintf(uport, sizeof(uport), "%d", host_socket(&ufd, SOCK_DGRAM));
	ck_assert_int_eq(llrun(&c, "--", "connect", "127.0.0.1", port, NULL), 1);
	assert_landlock(&c);
	ck_assert_msg(strstr(c.out, "connect: Permission denied") != NULL,
	    "%s", c.out);
	ck_assert(applied(c.out, "network", true));
	cmd_free(&c);
	/* UDP, which Landlock does not handle, is closed too. */
	ck_assert_int_eq(llrun(&c, "--", "udpsend", "127.0.0.1", uport, NULL),
	    1);
	ck_assert_msg(strstr(c.out, "udp: Permission denied") != NULL, "%s",
	    c.out);
	cmd_free(&c);
	/* With --network the same listener is reachable. */
	ck_assert_int_eq(llrun(&c, "--network", "--", "connect", "127.0.0.1",
	    port, NULL), 0);
	assert_landlock(&c);
	ck_assert_msg(strstr(c.out, "connected") != NULL, "%s", c.out);
	ck_assert_msg(applied(c.out, "network", false),
	    "network isolation reported applied with --network: %s", c.out);
	cmd_free(&c);
	ck_assert_int_eq(llrun(&c, "--network", "--", "udpsend", "127.0.0.1",
	    uport, NULL), 0);
	cmd_free(&c);
	close(fd);
	close(ufd);
}
END_TEST

START_TEST(host_abstract_socket_is_unreachable)
{
	struct sockaddr_un sun;
	struct cmd c;
	char name[64];
	socklen_t len;
	int fd;

	if (host_abi < 6) {
		fprintf(stderr, "SKIP: Landlock ABI %d < 6: no scoping\n",
		    host_abi);
		return;
	}
	snprintf(name, sizeof(name), "cordon-ll-test-%d", (int)getpid());
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, strlen(name));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(name));
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, len), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	ck_assert_int_eq(llrun(&c, "--", "uconnect", name, NULL), 1);
	assert_landlock(&c);
	ck_assert_msg(strstr(c.out, "uconnect: Operation not permitted") !=
	    NULL, "%s", c.out);
	ck_assert(applied(c.out, "scoping", true));
	cmd_free(&c);
	/* On the floor the same socket is reachable: the test can fail. */
	ck_assert_int_eq(floorrun(&c, "--", "uconnect", name, NULL), 0);
	cmd_free(&c);
	close(fd);
}
END_TEST

/*
 * The payload (scopekill) first probes the helper, the broker and a
 * victim of ours with signal 0, and sends SIGKILL - and kill(-1), never
 * as root - only if all three probes were refused in that same run.
 */
START_TEST(signals_stay_inside)
{
	struct cmd c;
	char victim[16];
	pid_t v;
	int status;

	if (host_abi < 6) {
		fprintf(stderr, "SKIP: Landlock ABI %d < 6: no scoping\n",
		    host_abi);
		return;
	}
	v = fork();
	ck_assert_int_ge(v, 0);
	if (v == 0) {
		if (X.uid >= 0 && (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0))
			_exit(90);
		for (;;)
			pause();
	}
	snprintf(victim, sizeof(victim), "%d", (int)v);
	ck_assert_int_eq(llrun(&c, "--", "scopekill", victim, NULL), 0);
	assert_landlock(&c);
	ck_assert(json_is(c.out, "outcome", "exited"));
	ck_assert(applied(c.out, "scoping", true));
	ck_assert_msg(strstr(c.out, "probe helper: Operation not permitted\n"
	    "probe broker: Operation not permitted\n"
	    "probe victim: Operation not permitted\n"
	    "kill helper: Operation not permitted\n"
	    "kill broker: Operation not permitted\n"
	    "kill victim: Operation not permitted\n") != NULL, "%s", c.out);
	if (X.uid >= 0) {
		/* kill(-1) reached its own child and nothing outside. */
		ck_assert_msg(strstr(c.out, "kill -1: 0\nown child killed: yes\n")
		    != NULL, "%s", c.out);
	}
	ck_assert_msg(pid_alive(v), "the victim was killed");
	cmd_free(&c);
	kill(v, SIGKILL);
	ck_assert_int_eq(waitpid(v, &status, 0), v);
}
END_TEST

START_TEST(double_forked_daemon_is_gone)
{
	struct cmd c;
	const char *p;
	pid_t d;
	int i;

	ck_assert_int_eq(llrun(&c, "--", "daemonpid", NULL), 0);
	assert_landlock(&c);
	ck_assert_msg((p = strstr(c.out, "daemon ")) != NULL, "%s", c.out);
	d = (pid_t)atoi(p + 7);
	ck_assert_int_gt(d, 1);
	/* Killed and reaped before the run ended; allow for /proc lag. */
	for (i = 0; i < 100 && pid_alive(d); i++)
		usleep(50000);
	ck_assert_msg(!pid_alive(d), "daemon %d survived the run", (int)d);
	cmd_free(&c);
}
END_TEST

START_TEST(lower_abi_reports_what_is_missing)
{
	struct cmd c;
	char port[16];
	int fd;

	snprintf(port, sizeof(port), "%d", host_socket(&fd, SOCK_STREAM));
	/* ABI 3: file system only; TCP is not denied, and it says so. */
	ck_assert_int_eq(abirun(&c, "3", "--", "connect", "127.0.0.1", port,
	    NULL), 0);
	assert_landlock(&c);
	ck_assert_msg(strstr(c.out, "connected") != NULL, "%s", c.out);
	ck_assert_msg(applied(c.out, "filesystem", true) &&
	    applied(c.out, "network", false) && applied(c.out, "scoping", false),
	    "%s", c.out);
	ck_assert_msg(strstr(c.out, "landlock ABI 3: writes confined to the "
	    "workdir; network isolation not applied (needs ABI 4); scoping "
	    "not applied (needs ABI 6)") != NULL, "%s", c.out);
	cmd_free(&c);
	/* ABI 5: TCP denied, but no scoping. */
	ck_assert_int_eq(abirun(&c, "5", "--", "connect", "127.0.0.1", port,
	    NULL), 1);
	ck_assert_msg(applied(c.out, "network", true) &&
	    applied(c.out, "scoping", false), "%s", c.out);
	cmd_free(&c);
	/* ABI 2: truncate(2) is not controlled, so the file system is not. */
	ck_assert_int_eq(abirun(&c, "2", "--", "-c", "true", NULL), 0);
	assert_landlock(&c);
	ck_assert_msg(applied(c.out, "filesystem", false) &&
	    strstr(c.out, "filesystem not applied (needs ABI 3") != NULL, "%s",
	    c.out);
	cmd_free(&c);
	/* No Landlock at all: asked for by name, nothing runs. */
	ck_assert_int_eq(abirun(&c, "0", "--", "-c", "true", NULL), 125);
	ck_assert(json_is(c.out, "outcome", "sandbox_error"));
	ck_assert_msg(strstr(c.err, "backend landlock is not available: the "
	    "kernel offers no Landlock") != NULL, "%s", c.err);
	cmd_free(&c);
	close(fd);
}
END_TEST

START_TEST(caps_and_exit_status_hold)
{
	struct cmd c;

	ck_assert_int_eq(llrun(&c, "--", "exit", "3", NULL), 3);
	assert_landlock(&c);
	cmd_free(&c);
	ck_assert_int_eq(llrun(&c, "--", "-c", "exec /nonexistent/cmd", NULL),
	    127);
	cmd_free(&c);
	ck_assert_int_eq(llrun(&c, "--wall", "1", "--", "-c", "sleep 60", NULL),
	    124);
	assert_landlock(&c);
	ck_assert(json_is(c.out, "cap", "wall"));
	cmd_free(&c);
	ck_assert_int_eq(llrun(&c, "--nproc", "32", "--wall", "60", "--",
	    "forkbomb", NULL), 124);
	ck_assert(json_is(c.out, "cap", "processes"));
	cmd_free(&c);
	/*
	 * No capability, NNP, seccomp.  Root's payload loses the bounding
	 * set too; an unprivileged invoker's cannot be dropped (that needs
	 * CAP_SETPCAP) and, under NNP, gives nothing back.
	 */
	ck_assert_int_eq(llrun(&c, "--", "-c", "grep -E '^(CapEff|CapBnd|"
	    "NoNewPrivs|Seccomp):' /proc/self/status", NULL), 0);
	ck_assert_msg(strstr(c.out, "CapEff:\t0000000000000000\n") != NULL &&
	    strstr(c.out, "\nNoNewPrivs:\t1\nSeccomp:\t2\n") != NULL, "%s",
	    c.out);
	if (X.uid < 0 && geteuid() == 0)
		ck_assert_msg(strstr(c.out, "CapBnd:\t0000000000000000\n") !=
		    NULL, "%s", c.out);
	cmd_free(&c);
}
END_TEST

/* Ends as the process cap, well before the wall cap; MEASURE line. */
static void
assert_nproc_hit(const struct cmd *c, const char *what)
{
	assert_landlock(c);
	assert_cap_measured(c, "processes", what, X.uid < 0 ? "landlock, root" :
	    "landlock, nobody");
}

/*
 * No kernel limit here (RLIMIT_NPROC would count every process of the
 * invoker's, and holds no root): what the monitor sees.  A shell fork
 * bomb, short-lived children past the cap (a tree of exactly N tasks is
 * within it), and threads, which count as tasks.
 */
START_TEST(process_cap_counts_tasks_the_monitor_sees)
{
	struct cmd c;

	ck_assert_int_eq(llrun(&c, "--nproc", "64", "--wall", "20", "--", "-c",
	    "b(){ b|b& }; b; sleep 30", NULL), 124);
	assert_nproc_hit(&c, "shell fork bomb, --nproc 64");
	cmd_free(&c);
	ck_assert_int_eq(llrun(&c, "--nproc", "16", "--", "-c",
	    "for i in $(seq 15); do sleep 0.3 & done; wait", NULL), 0);
	assert_landlock(&c);
	cmd_free(&c);
	ck_assert_int_eq(llrun(&c, "--nproc", "16", "--wall", "20", "--", "-c",
	    "for i in $(seq 200); do true & done; wait", NULL), 124);
	assert_nproc_hit(&c, "200 x true &, --nproc 16");
	cmd_free(&c);
	ck_assert_int_eq(llrun(&c, "--nproc", "8", "--", "threads", WITHIN_8,
	    "0.3", NULL), 0);
	ck_assert_msg(strstr(c.out, "threads: " WITHIN_8 " of " WITHIN_8 "\n") !=
	    NULL, "%s", c.out);
	cmd_free(&c);
	ck_assert_int_eq(llrun(&c, "--nproc", "8", "--wall", "20", "--",
	    "threads", "20", "30", NULL), 124);
	assert_nproc_hit(&c, "20 threads, --nproc 8");
	cmd_free(&c);
}
END_TEST

START_TEST(probe_shows_the_landlock_levels)
{
	char *argv[] = { (char *)X.bin, "probe", "--json", "--backend",
	    "landlock", NULL };
	struct cmd c;

	ck_assert_int_eq(run_cmd_as(&c, argv, X.env, NULL, X.uid), 0);
	ck_assert_msg(json_is(c.out, "backend", "landlock"), "%s", c.out);
	ck_assert_msg(strstr(c.out, "\"landlock.network\":\"yes") != NULL &&
	    strstr(c.out, "\"landlock.filesystem\":\"yes") != NULL &&
	    strstr(c.out, "\"landlock.backend\":\"yes: landlock ABI ") != NULL,
	    "%s", c.out);
	ck_assert_msg(strstr(c.out, host_abi >= 6 ?
	    "\"landlock.scoping\":\"yes" : "\"landlock.scoping\":\"no") != NULL,
	    "%s", c.out);
	cmd_free(&c);
}
END_TEST

/*
 * Where user namespaces cannot be created (a user namespace of our own
 * whose max_user_namespaces is 0: the machine's setting is untouched),
 * auto picks landlock and says why.
 */
START_TEST(auto_picks_landlock_without_user_namespaces)
{
	char script[4096];
	struct cmd c;
	char *argv[] = { "/usr/bin/unshare", "-Ur", "/bin/sh", "-c", script,
	    NULL };

	snprintf(script, sizeof(script),
	    "echo 0 > /proc/sys/user/max_user_namespaces || exit 99; "
	    "'%s' probe --json; "
	    "exec '%s' run --json '%s' '%s' -- /bin/sh -c "
	    "'echo x > /etc/cordon-ll-auto 2>/dev/null || echo confined'",
	    X.bin, X.bin, X.trace_opt, X.base_opt);
	ck_assert_int_eq(run_cmd_as(&c, argv, X.env, NULL, X.uid), 0);
	ck_assert_msg(strstr(c.out, "\"backend\":\"landlock\",\"backend_reason\":"
	    "\"linux-ns unavailable: user namespaces unavailable: ENOSPC from "
	    "clone; landlock ABI ") != NULL, "%s %s", c.out, c.err);
	ck_assert_msg(strstr(c.out, "confined\n") != NULL, "%s", c.out);
	ck_assert_msg(strstr(c.err, "cordon: ran on the landlock backend (no "
	    "namespaces: weaker than linux-ns): linux-ns unavailable") != NULL,
	    "stderr: %s", c.err);
	/* The probe said the same before anything ran. */
	ck_assert_msg(strstr(c.out, "\"backend\":\"landlock\",\"backend_reason\":"
	    "\"linux-ns unavailable: user namespaces unavailable") != NULL,
	    "probe: %s", c.out);
	cmd_free(&c);
	/* Neither: the floor, and it says so. */
	snprintf(script, sizeof(script),
	    "echo 0 > /proc/sys/user/max_user_namespaces || exit 99; "
	    "CORDON_TEST_LANDLOCK_ABI=0 exec '%s' run --json '%s' '%s' -- "
	    "/bin/true", X.bin, X.trace_opt, X.base_opt);
	ck_assert_int_eq(run_cmd_as(&c, argv, X.env, NULL, X.uid), 0);
	ck_assert_msg(strstr(c.out, "\"backend\":\"floor\",\"backend_reason\":"
	    "\"linux-ns unavailable: user namespaces unavailable: ENOSPC from "
	    "clone; no Landlock either\"") != NULL, "%s %s", c.out, c.err);
	ck_assert_msg(strstr(c.err, "cordon: ran on the floor backend (not a "
	    "jail)") != NULL, "stderr: %s", c.err);
	cmd_free(&c);
}
END_TEST

static void
add_tests(TCase *tc)
{
	tcase_add_test(tc, writes_outside_the_workdir_fail);
	tcase_add_test(tc, ro_bind_is_readable_where_it_is);
	tcase_add_test(tc, host_tcp_is_unreachable_without_network);
	tcase_add_test(tc, host_abstract_socket_is_unreachable);
	tcase_add_test(tc, signals_stay_inside);
	tcase_add_test(tc, double_forked_daemon_is_gone);
	tcase_add_test(tc, lower_abi_reports_what_is_missing);
	tcase_add_test(tc, caps_and_exit_status_hold);
	tcase_add_test(tc, process_cap_counts_tasks_the_monitor_sees);
	tcase_add_test(tc, probe_shows_the_landlock_levels);
	tcase_add_test(tc, auto_picks_landlock_without_user_namespaces);
}

int
main(void)
{
	Suite *s = suite_create("landlock");
	TCase *self = tcase_create(geteuid() == 0 ? "root" : "invoker");
	TCase *nobody = tcase_create("nobody");
	SRunner *sr;
	int failed;

	host_abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	if (host_abi < 4) {
		/* No ck_assert here: the runner has not started. */
		fprintf(stderr, "SKIP: the kernel's Landlock ABI is %d (%s); "
		    "these tests need ABI 4 or later\n", host_abi,
		    host_abi < 0 ? strerror(errno) : "too old");
		return 77;
	}
	tcase_add_checked_fixture(self, setup_self, teardown);
	tcase_set_timeout(self, 180);
	add_tests(self);
	suite_add_tcase(s, self);
	if (geteuid() == 0) {
		tcase_add_checked_fixture(nobody, setup_nobody, teardown);
		tcase_set_timeout(nobody, 180);
		add_tests(nobody);
		suite_add_tcase(s, nobody);
	} else {
		fprintf(stderr, "NOTE: not root: the suite ran as uid %u, the "
		    "unprivileged case; the root-invoker case needs root\n",
		    (unsigned)geteuid());
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
