/*
 * test_setuid.c - the setuid-root helper, attacked by the user who runs it.
 *
 * A root-owned, mode 4755 copy of the setuid-capable helper (see
 * setuid_helper() in testutil.c) is started by nobody directly, bypassing
 * the broker, with requests written here over a socketpair on fd 3:
 * crafted requests, a hostile environment, ptrace and signals.  The whole
 * linux-ns set through the same helper is test_ns.c's "setuid" cases.  A
 * system policy reaches the helper at its build-time path, in a private
 * mount namespace of the child that starts it (private_system_policy()).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gc.h"
#include "helper.h"
#include "testutil.h"

static struct scratch S;
/* Who start() runs the helper as (nobody), and with what RLIMIT_NPROC. */
static uid_t as_uid = 65534;
static rlim_t as_nproc = RLIM_INFINITY;
static char helper[450], dir[400], base[512], marker[512], ovl[400];
/* If set, the system policy the next start()ed helper reads. */
static const char *sys_policy;

static void
setup(void)
{
	scratch_init(&S);
	as_uid = 65534;
	as_nproc = RLIM_INFINITY;
	snprintf(helper, sizeof(helper), "%s", setuid_helper(&S));
	snprintf(dir, sizeof(dir), "%s/nobody", S.root);
	snprintf(base, sizeof(base), "%s/wd", dir);
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	snprintf(ovl, sizeof(ovl), "%s/ovl", S.root);
	sys_policy = NULL;
}

static void
teardown(void)
{
	scratch_fini(&S);
}

struct h {
	pid_t pid;
	int sock;
};

/* Drops to the invoker: groups, gid, uid, then the process limit. */
static void
become_nobody(void)
{
	struct rlimit rl = { as_nproc, as_nproc };

	if (setgroups(0, NULL) < 0 || setresgid(as_uid, as_uid, as_uid) < 0 ||
	    setresuid(as_uid, as_uid, as_uid) < 0 ||
	    (as_nproc != RLIM_INFINITY && setrlimit(RLIMIT_NPROC, &rl) < 0))
		_exit(90);
}

/* nobody starts the setuid helper, fd 3 its socket, stdout/err to out. */
static void
start(struct h *h, char *const env[], const char *out)
{
	char *const argv[] = { "cordon-helper", NULL };
	int sv[2], fd;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
	h->pid = fork();
	ck_assert_int_ge(h->pid, 0);
	if (h->pid == 0) {
		fd = open(out != NULL ? out : "/dev/null", O_WRONLY | O_CREAT |
		    O_TRUNC, 0666);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(91);
		if (sv[1] == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(sv[1], 3) < 0)
			_exit(92);
		(void)close_range(4, ~0U, 0);
		if (sys_policy != NULL &&
		    private_system_policy(ovl, sys_policy) < 0)
			_exit(93);
		become_nobody();
		execve(helper, argv, env);
		_exit(127);
	}
	close(sv[1]);
	h->sock = sv[0];
}

/* A REQUEST for sh -c script, with PATH only; backend as given. */
static void
request(struct cordon_msg *m, const char *b, enum cordon_backend_id backend)
{
	memset(m, 0, sizeof(*m));
	m->type = CORDON_MSG_REQUEST;
	m->u.request.backend = (uint8_t)backend;
	cordon_limits_default(&m->u.request.limits);
	m->u.request.run_id = "0123456789abcdef0123456789abcdef";
	m->u.request.workdir_base = (char *)(uintptr_t)b;
	m->u.request.argc = 3;
	m->u.request.envc = 1;
}

static void
send_rest(int sock, const char *script)
{
	const char *s[] = { "/bin/sh", "-c", script };
	struct cordon_msg m;
	int i;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < 3; i++) {
		m.type = CORDON_MSG_ARG;
		m.u.str = (char *)(uintptr_t)s[i];
		ck_assert_int_eq(cordon_msg_send(sock, &m), 0);
	}
	m.type = CORDON_MSG_ENV;
	m.u.str = "PATH=/usr/bin:/bin";
	ck_assert_int_eq(cordon_msg_send(sock, &m), 0);
}

struct seen {
	bool error, exited, teardown_ok, backend;
	int exit_code, status, facts;
	uint32_t pid;
	char text[512];
};

/* Reads events until the helper hangs up, then reaps it. */
static void
collect(struct h *h, struct seen *s)
{
	struct cordon_msg go = { .type = CORDON_MSG_GO };
	struct cordon_msg m;
	int tries = 0;

	memset(s, 0, sizeof(*s));
	/*
	 * A helper that died with our messages unread makes the first recv
	 * say ECONNRESET; its ERROR is still queued behind that.
	 */
	while (tries < 3) {
		if (cordon_msg_recv(h->sock, &m) < 0) {
			tries++;
			continue;
		}
		tries = 0;
		if (m.type == CORDON_MSG_ERROR) {
			s->error = true;
			snprintf(s->text, sizeof(s->text), "%s", m.u.error.message);
		} else if (m.type == CORDON_MSG_EXIT) {
			s->exited = true;
			s->exit_code = m.u.exit.exit_code;
		} else if (m.type == CORDON_MSG_CREATED) {
			/* Built and held before its exec: let it go. */
			s->pid = m.u.created.pid;
			(void)cordon_msg_send(h->sock, &go);
		} else if (m.type == CORDON_MSG_TEARDOWN) {
			s->teardown_ok = m.u.teardown.ok;
		} else if (m.type == CORDON_MSG_FACT) {
			s->facts++;
		} else if (m.type == CORDON_MSG_BACKEND) {
			s->backend = true;
		}
		cordon_msg_clear(&m);
	}
	close(h->sock);
	ck_assert_int_eq(waitpid(h->pid, &s->status, 0), h->pid);
}

static void
assert_refused(struct h *h, const char *what, const char *why)
{
	struct seen s;
	struct stat st;

	collect(h, &s);
	ck_assert_msg(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 125,
	    "%s: helper status %d", what, s.status);
	ck_assert_msg(!s.exited && s.pid == 0, "%s: something ran", what);
	ck_assert_msg(stat(marker, &st) < 0, "%s: the payload ran", what);
	if (why != NULL)
		ck_assert_msg(strstr(s.text, why) != NULL, "%s: error '%s', "
		    "wanted '%s'", what, s.text, why);
}

/* A well-formed floor run of script; it touches the marker if it runs. */
static void
run_request(const char *b, struct cordon_msg *tweak, const char *what,
    const char *why)
{
	char script[600];
	struct cordon_msg m;
	struct h h;

	snprintf(script, sizeof(script), "touch '%s'", marker);
	request(&m, b, CORDON_BACKEND_FLOOR);
	if (tweak != NULL)
		m.u.request.limits = tweak->u.request.limits;
	start(&h, NULL, NULL);
	ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
	send_rest(h.sock, script);
	assert_refused(&h, what, why);
}

START_TEST(a_valid_request_runs)
{
	char script[600];
	struct cordon_msg m;
	struct seen s;
	struct stat st;
	struct h h;

	/* The control: what the refusals below would have done. */
	snprintf(script, sizeof(script), "touch '%s'", marker);
	request(&m, base, CORDON_BACKEND_FLOOR);
	start(&h, NULL, NULL);
	ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
	send_rest(h.sock, script);
	collect(&h, &s);
	ck_assert_msg(s.exited && s.exit_code == 0 && s.teardown_ok,
	    "valid request: %s", s.text);
	ck_assert_int_eq(stat(marker, &st), 0);
	/* Made as the invoker, not as root. */
	ck_assert_int_eq(st.st_uid, 65534);
	ck_assert_int_eq(stat(base, &st), 0);
	ck_assert_int_eq(st.st_uid, 65534);
}
END_TEST

/*
 * The helper's privileged clone of the init, and the init's fork of the
 * payload, must not take the invoker past their RLIMIT_NPROC: with room
 * for the helper alone (a uid of its own, so no other test's processes
 * count), the payload never runs.
 */
START_TEST(nproc_is_charged_to_the_invoker)
{
	char ud[450], wd[480];
	struct cordon_msg m;
	struct seen s;
	struct h h;

	as_uid = (uid_t)(64000 + getpid() % 1000);
	snprintf(ud, sizeof(ud), "%s/u", S.root);
	snprintf(wd, sizeof(wd), "%s/wd", ud);
	ck_assert_int_eq(mkdir(ud, 0700), 0);
	ck_assert_int_eq(chown(ud, as_uid, as_uid), 0);
	request(&m, wd, CORDON_BACKEND_LINUX_NS);
	as_nproc = 1;
	start(&h, NULL, NULL);
	ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
	send_rest(h.sock, "exit 42");
	collect(&h, &s);
	ck_assert_msg(!s.exited && s.pid == 0, "the payload ran past "
	    "RLIMIT_NPROC (exit %d)", s.exit_code);
	ck_assert_msg(s.error && strstr(s.text, "fork") != NULL, "error: %s",
	    s.text);
	/* The control: with room for the init and the payload, it runs. */
	as_nproc = 3;
	start(&h, NULL, NULL);
	ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
	send_rest(h.sock, "exit 42");
	collect(&h, &s);
	ck_assert_msg(s.exited && s.exit_code == 42, "control: %s", s.text);
}
END_TEST

/*
 * A PROBE raises privilege and builds namespaces as a run does: a user
 * the system policy's allow_groups refuses (issue 22) gets an error and
 * no FACT, from a helper that never got that far.
 */
START_TEST(probe_is_held_to_allow_groups)
{
	static const struct {
		const char *policy;
		bool refused;
	} cases[] = {
		/* The control: nobody's own gid lets the same probe through. */
		{ "[policy]\nallow_groups = 65534\n", false },
		{ "[policy]\nallow_groups = 0\n", true },
	};
	struct cordon_msg m;
	struct seen s;
	struct h h;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sys_policy = cases[i].policy;
		start(&h, NULL, NULL);
		sys_policy = NULL;
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_PROBE;
		m.u.probe_backend = CORDON_BACKEND_AUTO;
		ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
		collect(&h, &s);
		ck_assert_msg(WIFEXITED(s.status), "status %d", s.status);
		if (!cases[i].refused) {
			ck_assert_msg(WEXITSTATUS(s.status) == 0 && s.backend &&
			    s.facts > 0 && !s.error, "allowed probe: status %d, "
			    "%s", s.status, s.text);
			continue;
		}
		ck_assert_int_eq(WEXITSTATUS(s.status), 125);
		ck_assert_msg(s.error && !s.backend && s.facts == 0,
		    "refused probe: %d facts, error '%s'", s.facts, s.text);
		ck_assert_msg(strstr(s.text, "refused by the system policy: uid "
		    "65534 may not use cordon: it is in no group of "
		    "allow_groups (" CORDON_SYSCONFDIR "/policy.conf)") == s.text,
		    "%s", s.text);
	}
}
END_TEST

START_TEST(malformed_frames_are_refused)
{
	static uint8_t big[CORDON_WIRE_MAX_FRAME + 1];
	struct cordon_buf b;
	struct cordon_msg m;
	struct msghdr mh;
	struct iovec iov;
	union {
		struct cmsghdr c;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct h h;
	int fd = 0;

	request(&m, base, CORDON_BACKEND_FLOOR);
	cordon_buf_writer(&b, CORDON_WIRE_MAX_FRAME);
	ck_assert_int_eq(cordon_msg_encode(&m, &b), 0);

	start(&h, NULL, NULL);
	ck_assert_int_eq(send(h.sock, big, sizeof(big), 0), (ssize_t)sizeof(big));
	assert_refused(&h, "oversized", "reading the request");

	start(&h, NULL, NULL);
	ck_assert_int_eq(send(h.sock, b.d, b.len / 2, 0), (ssize_t)(b.len / 2));
	assert_refused(&h, "truncated", "reading the request");

	b.d[1] = 2; /* version 2 (big-endian u16) */
	start(&h, NULL, NULL);
	ck_assert_int_eq(send(h.sock, b.d, b.len, 0), (ssize_t)b.len);
	assert_refused(&h, "wrong version", "reading the request");
	b.d[1] = 1;

	/* A request carrying a file descriptor: the helper takes none. */
	start(&h, NULL, NULL);
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = b.d;
	iov.iov_len = b.len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	cm.c.cmsg_level = SOL_SOCKET;
	cm.c.cmsg_type = SCM_RIGHTS;
	cm.c.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cm.c), &fd, sizeof(fd));
	ck_assert_int_eq(sendmsg(h.sock, &mh, 0), (ssize_t)b.len);
	assert_refused(&h, "fd passed", "reading the request");
	cordon_buf_free(&b);
}
END_TEST

START_TEST(limits_over_the_maxima_are_refused)
{
	struct cordon_msg t;

	request(&t, base, CORDON_BACKEND_FLOOR);
	t.u.request.limits.cpu_ns = CORDON_MAX_TIME_NS + 1;
	run_request(base, &t, "cpu over the maximum", "reading the request");
	request(&t, base, CORDON_BACKEND_FLOOR);
	t.u.request.limits.memory_bytes = CORDON_MAX_MEMORY + 1;
	run_request(base, &t, "memory over the maximum", "reading the request");
	request(&t, base, CORDON_BACKEND_FLOOR);
	t.u.request.limits.nproc = CORDON_MAX_NPROC + 1;
	run_request(base, &t, "nproc over the maximum", "reading the request");
}
END_TEST

START_TEST(bases_out_of_the_invokers_reach_are_refused)
{
	char b[800], link[500], path[600];
	struct stat st;

	snprintf(b, sizeof(b), "%s/../../root", dir);
	/* The wire's decoder refuses it (host_posix.c), before intake.c. */
	run_request(b, NULL, "base with ..", "reading the request: value out "
	    "of range");

	/* Symlinks into root-only places, planted by the invoker. */
	snprintf(link, sizeof(link), "%s/to-root", dir);
	ck_assert_int_eq(symlink("/root", link), 0);
	run_request(link, NULL, "base is a link to /root", "cannot open");
	snprintf(b, sizeof(b), "%s/cordon-test-wd-%d", link, (int)getpid());
	run_request(b, NULL, "base below a link to /root", "cannot");
	snprintf(path, sizeof(path), "/root/cordon-test-wd-%d", (int)getpid());
	ck_assert_msg(stat(path, &st) < 0, "%s was created", path);

	snprintf(link, sizeof(link), "%s/to-etc", dir);
	ck_assert_int_eq(symlink("/etc", link), 0);
	snprintf(b, sizeof(b), "%s/cordon-test-wd-%d", link, (int)getpid());
	run_request(b, NULL, "base below a link to /etc", "cannot create");
	snprintf(path, sizeof(path), "/etc/cordon-test-wd-%d", (int)getpid());
	ck_assert_msg(stat(path, &st) < 0, "%s was created", path);

	/* A directory nobody may not write, and one it may not even read. */
	snprintf(path, sizeof(path), "%s/rootonly", S.root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(b, sizeof(b), "%s/wd", path);
	run_request(b, NULL, "unwritable parent", "cannot create");
	ck_assert_msg(stat(b, &st) < 0, "%s was created", b);
	snprintf(path, sizeof(path), "%s/secret", S.root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(b, sizeof(b), "%s/wd", path);
	run_request(b, NULL, "unreadable parent", "Permission denied");
	ck_assert_msg(stat(b, &st) < 0, "%s was created", b);
}
END_TEST

/*
 * The helper, which acts as its invoker, makes a base only inside a
 * directory that is the invoker's alone.  Never a new name in a shared
 * directory (a stand-in for /tmp: root's, 1777) - such as another user's
 * /tmp/cordon-UID, which would deny cordon to that user - nor in one of
 * the invoker's that others may write; and never at another user's
 * default, which is in that user's own directories.
 */
START_TEST(bases_are_made_only_in_the_invokers_own_directories)
{
	char shared[600], b[700];
	struct stat st;

	snprintf(shared, sizeof(shared), "%s/tmp", S.root);
	ck_assert_int_eq(mkdir(shared, 0755), 0);
	ck_assert_int_eq(chmod(shared, 01777), 0);
	snprintf(b, sizeof(b), "%s/cordon-4242", shared);
	run_request(b, NULL, "another user's name in a shared directory",
	    "cannot create workdir base");
	ck_assert_msg(stat(b, &st) < 0, "%s was made for the invoker", b);

	snprintf(shared, sizeof(shared), "%s/open", dir);
	ck_assert_int_eq(mkdir(shared, 0755), 0);
	ck_assert_int_eq(chown(shared, 65534, 65534), 0);
	ck_assert_int_eq(chmod(shared, 0777), 0);
	snprintf(b, sizeof(b), "%s/wd", shared);
	run_request(b, NULL, "the invoker's directory, writable by others",
	    "cannot create workdir base");
	ck_assert_msg(stat(b, &st) < 0, "%s was made for the invoker", b);

	/* Another user's default, in their state directory (root's here). */
	snprintf(shared, sizeof(shared), "mkdir -p -m 0755 '%s/home/.local/"
	    "state/cordon'", S.root);
	ck_assert_int_eq(system(shared), 0);
	snprintf(b, sizeof(b), "%s/home/.local/state/cordon/runs", S.root);
	run_request(b, NULL, "another user's default",
	    "cannot create workdir base");
	ck_assert_msg(stat(b, &st) < 0, "%s was made for the invoker", b);
}
END_TEST

START_TEST(fd3_must_be_the_socket)
{
	char cmd[1200];

	/* fd 3 a file of the invoker's, then closed: refused, nothing runs. */
	snprintf(cmd, sizeof(cmd), "setpriv --reuid=65534 --regid=65534 "
	    "--clear-groups sh -c \"'%s' 3</dev/null; echo \\$?; '%s' 3<&-; "
	    "echo \\$?\" 2>&1", helper, helper);
	{
		FILE *p = popen(cmd, "r");
		char out[1024] = "";
		size_t n;

		ck_assert_ptr_nonnull(p);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = '\0';
		pclose(p);
		ck_assert_msg(strstr(out, "not a SOCK_SEQPACKET socket") != NULL &&
		    strstr(out, "125\n") != NULL, "%s", out);
	}
}
END_TEST

/*
 * The helper of a priv-mode none build, made setuid root, runs nothing; the
 * helper of a setuid-mode build (the package's) is the setuid-capable one,
 * and goes on to check its fd 3 like tests/cordon-helper-setuid.
 */
START_TEST(a_build_runs_setuid_only_in_setuid_mode)
{
	char path[600], cmd[2048], out[1024] = "";
	FILE *p;
	size_t n;

	snprintf(path, sizeof(path), "%s/cordon-helper-build", nobody_bin_dir(&S));
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 4755 '%s'",
	    getenv("CORDON_HELPER"), path, path);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "setpriv --reuid=65534 --regid=65534 "
	    "--clear-groups sh -c \"'%s' 3</dev/null; echo \\$?\" 2>&1", path);
	ck_assert_ptr_nonnull(p = popen(cmd, "r"));
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	pclose(p);
	if (CORDON_PRIV_SETUID)
		ck_assert_msg(strstr(out, "does not support") == NULL &&
		    strstr(out, "not a SOCK_SEQPACKET socket") != NULL &&
		    strstr(out, "125\n") != NULL, "%s", out);
	else
		ck_assert_msg(strstr(out, "does not support") != NULL &&
		    strstr(out, "125\n") != NULL, "%s", out);
}
END_TEST

START_TEST(hostile_environment_has_no_effect)
{
	char lib[500], evil[500], pre[600], llp[600], gconv[600], path[600];
	char mk[600], out[500], cmd[4096], sh[600], buf[4096];
	char *env[] = { pre, llp, gconv, path, mk, "MALLOC_CHECK_=3",
	    "MALLOC_PERTURB_=165", "MALLOC_ARENA_MAX=1", "IFS=/", NULL };
	struct cordon_msg m;
	struct seen s;
	struct stat st;
	struct h h;
	FILE *f;
	size_t n;

	snprintf(lib, sizeof(lib), "%s/libpreload.so", dir);
	snprintf(evil, sizeof(evil), "%s/evil", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 755 '%s' && "
	    "mkdir -m 755 '%s' && printf '#!/bin/sh\\ntouch %s\\n' > '%s/sh' "
	    "&& chmod 755 '%s/sh'", getenv("CORDON_PRELOAD"), lib, lib, evil,
	    marker, evil, evil);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", lib);
	snprintf(llp, sizeof(llp), "LD_LIBRARY_PATH=%s", evil);
	snprintf(gconv, sizeof(gconv), "GCONV_PATH=%s", evil);
	snprintf(path, sizeof(path), "PATH=%s", evil);
	snprintf(mk, sizeof(mk), "CORDON_PRELOAD_MARKER=%s", marker);

	/* The control: the library works on an ordinary program. */
	snprintf(cmd, sizeof(cmd), "setpriv --reuid=65534 --regid=65534 "
	    "--clear-groups env '%s' '%s' /bin/true", pre, mk);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_msg(stat(marker, &st) == 0, "the preload library never ran");
	ck_assert_int_eq(unlink(marker), 0);

	/* sh by name: the helper's PATH would find the evil one. */
	snprintf(out, sizeof(out), "%s/out", dir);
	request(&m, base, CORDON_BACKEND_FLOOR);
	start(&h, env, out);
	ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
	snprintf(sh, sizeof(sh), "env; echo payload-ran");
	{
		const char *a[] = { "sh", "-c", sh };
		int i;

		memset(&m, 0, sizeof(m));
		for (i = 0; i < 3; i++) {
			m.type = CORDON_MSG_ARG;
			m.u.str = (char *)(uintptr_t)a[i];
			ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
		}
		m.type = CORDON_MSG_ENV;
		m.u.str = "PATH=/usr/bin:/bin";
		ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
	}
	collect(&h, &s);
	ck_assert_msg(s.exited && s.exit_code == 0 && s.teardown_ok,
	    "helper under a hostile environment: %s", s.text);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_msg(strstr(buf, "payload-ran\n") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "LD_") == NULL && strstr(buf, "MALLOC") ==
	    NULL && strstr(buf, "GCONV") == NULL && strstr(buf, evil) == NULL,
	    "the invoker's environment reached the payload: %s", buf);
	ck_assert_msg(stat(marker, &st) < 0,
	    "the preload library or the evil sh ran");
}
END_TEST

/* Starts a linux-ns run of sleep 60 as nobody; returns the init's pid. */
static pid_t
start_sleeper(struct h *h)
{
	struct cordon_msg m;
	int i;

	request(&m, base, CORDON_BACKEND_LINUX_NS);
	start(h, NULL, NULL);
	ck_assert_int_eq(cordon_msg_send(h->sock, &m), 0);
	send_rest(h->sock, "sleep 60");
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(cordon_msg_recv(h->sock, &m), 0);
		if (m.type == CORDON_MSG_CREATED) {
			pid_t p = (pid_t)m.u.created.pid;

			cordon_msg_clear(&m);
			m.type = CORDON_MSG_GO;
			ck_assert_int_eq(cordon_msg_send(h->sock, &m), 0);
			return p;
		}
		ck_assert_int_eq(m.type, CORDON_MSG_BACKEND);
		ck_assert_int_eq(m.u.backend.backend, CORDON_BACKEND_LINUX_NS);
		cordon_msg_clear(&m);
	}
	return -1;
}

/* As nobody: fn(pid, arg) in a child; its exit status. */
static int
as_nobody(int (*fn)(pid_t, int), pid_t pid, int arg)
{
	pid_t c = fork();
	int st;

	ck_assert_int_ge(c, 0);
	if (c == 0) {
		become_nobody();
		_exit(fn(pid, arg));
	}
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

/* What `cordon gc` does, as the invoker: reclaims base's dead runs. */
static int
gc_as_invoker(pid_t unused, int unused2)
{
	char err[256];
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC), n;

	(void)unused;
	(void)unused2;
	if (fd < 0)
		return 1;
	n = workdir_gc(fd, 10000, err, sizeof(err));
	close(fd);
	return n >= 0 ? 0 : 1;
}

static int
try_ptrace(pid_t pid, int unused)
{
	char path[64];

	(void)unused;
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0)
		return 1;
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) == 0)
		return 2;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if (open(path, O_RDONLY) >= 0)
		return 3;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if (open(path, O_RDONLY) >= 0)
		return 4;
	return 0;
}

static int
send_signal(pid_t pid, int sig)
{
	return kill(pid, sig) == 0 ? 0 : 1;
}

/* The init's child (the payload's sh), from /proc. */
static pid_t
first_child(pid_t pid)
{
	char path[80];
	long c;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	c = wait_read_long(path, 10000);
	return c > 0 ? (pid_t)c : -1;
}

static void
wait_gone(pid_t pid)
{
	int i;

	for (i = 0; i < 1000 && pid_alive(pid); i++)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	ck_assert_msg(!pid_alive(pid), "process %d outlived its helper",
	    (int)pid);
}

START_TEST(invoker_cannot_trace_and_signals_leave_nothing)
{
	struct cordon_msg m;
	struct seen s;
	struct h h;
	pid_t init, payload;
	int st, sig = _i == 0 ? SIGKILL : SIGTERM;

	init = start_sleeper(&h);
	ck_assert_int_gt(init, 0);
	payload = first_child(init);
	ck_assert_int_gt(payload, 0);
	ck_assert_int_eq(as_nobody(try_ptrace, h.pid, 0), 0);
	ck_assert_int_eq(as_nobody(try_ptrace, init, 0), 0);
	/* Stopped first, then the signal: the invoker's worst. */
	ck_assert_int_eq(as_nobody(send_signal, h.pid, SIGSTOP), 0);
	ck_assert_int_eq(as_nobody(send_signal, h.pid, sig), 0);
	if (sig != SIGKILL)
		ck_assert_int_eq(as_nobody(send_signal, h.pid, SIGCONT), 0);
	collect(&h, &s);
	wait_gone(init);
	wait_gone(payload);
	(void)st;
	if (sig == SIGKILL) {
		/* Left for the next run or gc: which reclaims it. */
		ck_assert_int_ge(dir_entries(base), 2);
		/*
		 * Not the helper: a GC message, retired, is refused before
		 * anything is reclaimed.  The gc is the broker's, with the
		 * invoker's rights (broker/gc.c), as `cordon gc` runs it.
		 */
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_GC;
		m.u.str = base;
		start(&h, NULL, NULL);
		ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
		collect(&h, &s);
		ck_assert_msg(s.error && strstr(s.text, "unexpected message "
		    "type 4") != NULL, "GC not refused: %s", s.text);
		ck_assert_int_ge(dir_entries(base), 2);
		ck_assert_msg(as_nobody(gc_as_invoker, 0, 0) == 0, "gc failed");
	} else {
		ck_assert_msg(s.teardown_ok && WIFEXITED(s.status),
		    "SIGTERM: teardown %d status %d", s.teardown_ok, s.status);
	}
	ck_assert_int_le(dir_entries(base), 1); /* only .lock */
}
END_TEST

/*
 * This test's process (Check forks one per test) takes a mount namespace
 * of its own whose /dev is a tmpfs with the host's device nodes bound in
 * and a /dev/log socket of ours, so the setuid helper's syslog lines
 * reach us with the kernel's credentials, as journald would get them.
 */
static int
private_dev_log(void)
{
	static const char *const nodes[] = { "null", "zero", "full", "random",
		"urandom", "tty" };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char t[450], p[480];
	size_t i;
	int fd, on = 1;

	snprintf(t, sizeof(t), "%s/dev", S.root);
	ck_assert_int_eq(mkdir(t, 0755), 0);
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_int_eq(mount("tmpfs", t, "tmpfs", 0, "mode=0755"), 0);
	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", t, nodes[i]);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "/dev/%s", nodes[i]);
		ck_assert_int_ge(fd = open(p, O_CREAT | O_WRONLY, 0644), 0);
		close(fd);
		ck_assert_int_eq(mount(sa.sun_path, p, NULL, MS_BIND, NULL), 0);
	}
	ck_assert_int_lt(snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/log",
	    t), (int)sizeof(sa.sun_path));
	ck_assert_int_ge(fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(chmod(sa.sun_path, 0666), 0);
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on,
	    sizeof(on)), 0);
	ck_assert_int_eq(mount(t, "/dev", NULL, MS_BIND, NULL), 0);
	return fd;
}

/* The next log line (or ""), with the sender's credentials. */
static void
log_line(int fd, char *buf, size_t size, struct ucred *uc)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct iovec iov = { buf, size - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = &ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	ssize_t n;

	memset(uc, 0, sizeof(*uc));
	uc->uid = (uid_t)-1;
	n = recvmsg(fd, &mh, MSG_DONTWAIT);
	buf[n > 0 ? n : 0] = '\0';
	for (c = CMSG_FIRSTHDR(&mh); n > 0 && c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS)
			memcpy(uc, CMSG_DATA(c), sizeof(*uc));
}

/*
 * A run never executes unlogged: the start line is out before the
 * helper says BACKEND (the payload exists from then on), so killing the
 * helper there leaves it logged; it carries _UID=0, which logger(1)
 * cannot forge; a finished run's end line comes from the same pid.
 */
START_TEST(audit_lines_precede_the_run_and_prove_their_sender)
{
	char line[1024];
	struct cordon_msg m;
	struct ucred uc;
	struct seen s;
	struct h h;
	int type, lfd = private_dev_log();

	request(&m, base, CORDON_BACKEND_LINUX_NS);
	start(&h, NULL, NULL);
	ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
	send_rest(h.sock, "sleep 60");
	do {
		ck_assert_int_eq(cordon_msg_recv(h.sock, &m), 0);
		ck_assert_msg(m.type != CORDON_MSG_ERROR, "%s",
		    m.u.error.message);
		type = m.type;
		cordon_msg_clear(&m);
	} while (type != CORDON_MSG_BACKEND);
	log_line(lfd, line, sizeof(line), &uc);
	(void)kill(h.pid, SIGKILL);
	collect(&h, &s);
	ck_assert_msg(strstr(line, "cordon-helper[") != NULL &&
	    strstr(line, ": start run=0123456789abcdef") != NULL,
	    "no start line before BACKEND: '%s'", line);
	ck_assert_msg(uc.uid == 0 && uc.pid == h.pid, "start line sent by uid "
	    "%u pid %d (helper %d)", (unsigned)uc.uid, (int)uc.pid, (int)h.pid);

	/* A run to its end: start, then end from the same helper. */
	request(&m, base, CORDON_BACKEND_LINUX_NS);
	m.u.request.run_id = "fedcba9876543210fedcba9876543210";
	start(&h, NULL, NULL);
	ck_assert_int_eq(cordon_msg_send(h.sock, &m), 0);
	send_rest(h.sock, "exit 3");
	collect(&h, &s);
	ck_assert_msg(s.exited && s.exit_code == 3, "%s", s.text);
	log_line(lfd, line, sizeof(line), &uc);
	ck_assert_msg(strstr(line, ": start run=") != NULL && uc.uid == 0 &&
	    uc.pid == h.pid, "start: '%s' uid %u", line, (unsigned)uc.uid);
	log_line(lfd, line, sizeof(line), &uc);
	ck_assert_msg(strstr(line, ": end run=") != NULL &&
	    strstr(line, "backend=linux-ns") != NULL &&
	    strstr(line, "outcome=exited") != NULL && uc.pid == h.pid,
	    "end: '%s' pid %d", line, (int)uc.pid);
	close(lfd);
}
END_TEST

START_TEST(audit_line_is_bounded_and_printable)
{
	char line[512], cmd[300];

	ck_assert(audit_format(line, sizeof(line), "start",
	    "0123456789abcdef0123456789abcdef", 1000, "alice", "make\nfake",
	    "linux-ns", "-", "-"));
	ck_assert_str_eq(line, "start run=0123456789abcdef0123456789abcdef "
	    "uid=1000 user=alice backend=linux-ns command=\"make?fake\" "
	    "outcome=- cap=-");
	memset(cmd, 'x', sizeof(cmd) - 1);
	cmd[sizeof(cmd) - 1] = '\0';
	cmd[5] = '"';
	ck_assert(audit_format(line, sizeof(line), "end", "ab", 7, "bob", cmd,
	    "floor", "cap_hit", "wall"));
	ck_assert_msg(strstr(line, "command=\"xxxxx?xxx") != NULL &&
	    strstr(line, "xxx...\" outcome=cap_hit cap=wall") != NULL &&
	    strlen(line) < 160, "%s", line);
	if (access("/dev/log", W_OK) != 0)
		fprintf(stderr, "SKIP (part): no /dev/log on this host: the "
		    "syslog delivery of the audit lines is not checked, only "
		    "their format\n");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("setuid");
	TCase *tc = tcase_create("nobody");
	SRunner *sr;
	int failed;

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: the setuid tests need root (to make a "
		    "setuid-root copy of the helper)\n");
		return 77;
	}
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, a_valid_request_runs);
	tcase_add_test(tc, nproc_is_charged_to_the_invoker);
	tcase_add_test(tc, probe_is_held_to_allow_groups);
	tcase_add_test(tc, malformed_frames_are_refused);
	tcase_add_test(tc, limits_over_the_maxima_are_refused);
	tcase_add_test(tc, bases_out_of_the_invokers_reach_are_refused);
	tcase_add_test(tc, bases_are_made_only_in_the_invokers_own_directories);
	tcase_add_test(tc, fd3_must_be_the_socket);
	tcase_add_test(tc, a_build_runs_setuid_only_in_setuid_mode);
	tcase_add_test(tc, hostile_environment_has_no_effect);
	tcase_add_loop_test(tc, invoker_cannot_trace_and_signals_leave_nothing,
	    0, 2);
	tcase_add_test(tc, audit_line_is_bounded_and_printable);
	tcase_add_test(tc, audit_lines_precede_the_run_and_prove_their_sender);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
