/*
 * helper.c - cordon-helper: start-up hygiene and the life cycle of a run.
 *
 * Theory of operation
 * -------------------
 * Processes:
 *   broker   cordon / libcordon, unprivileged.  Validates the request,
 *            records it in the trace, then forks and execs this helper
 *            with one end of a SOCK_SEQPACKET socketpair on fd 3.
 *   helper   this program.  Reads one request from fd 3, re-checks it
 *            (intake.c), creates the workdir (workdir.c), starts the
 *            payload (floor.c), watches it (monitor.c, tree.c), kills
 *            every process of the run, removes the workdir, reports, and
 *            exits.  It is a child subreaper, so nothing the payload
 *            starts can leave its tree.
 *   payload  the command, in its own session, in the workdir.  Its own
 *            children, grandchildren and daemons are the rest of the tree.
 *
 * Channels:
 *   fd 3     the socketpair: broker -> helper REQUEST, ARG*, ENV* (or GC,
 *            or PROBE, answered with FACT* then BACKEND or ERROR);
 *            helper -> broker BACKEND, CREATED, [CAP_HIT], EXIT, TEARDOWN,
 *            or ERROR then TEARDOWN.  EOF from the broker at any time means
 *            it is gone: the run is killed and torn down.
 *   fds 0-2  passed through to the payload untouched.
 *   errpipe  close-on-exec pipe from the payload's pre-exec code, carrying
 *            an errno if execve failed.
 *
 * The helper trusts nothing it reads: the request is bounded and
 * re-checked field by field, and a malformed one is fatal before anything
 * is created.  Every exit path after the workdir exists - success, cap,
 * error, broker gone, die() - kills the tree and removes the workdir
 * (cleanup() below, also registered as the die() hook).  A helper killed
 * with SIGKILL cannot clean up: its workdir's lock file is then free, and
 * the next run's sweep or `cordon gc` removes it (workdir.c).
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>

#include <bsd/unistd.h>

#include "helper.h"

/* What cleanup() must undo; the only globals of the helper. */
static struct {
	int sock;
	bool have_workdir;
	bool spawned;
	struct workdir wd;
} st = { .sock = -1 };

static void
send_msg(const struct cordon_msg *m)
{
	/* The broker may be gone; cleanup must go on regardless. */
	(void)cordon_msg_send(st.sock, m);
}

static void
send_error(int err, const char *text)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_ERROR;
	m.u.error.err = err;
	m.u.error.message = (char *)(uintptr_t)text;
	send_msg(&m);
}

static void
send_teardown(bool ok, const char *error)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_TEARDOWN;
	m.u.teardown.ok = ok;
	m.u.teardown.error = (char *)(uintptr_t)error;
	send_msg(&m);
}

/* Kills the tree, removes the workdir, reports the teardown.  Idempotent. */
static void
cleanup(void)
{
	char err[CORDON_MAX_TEXT_LEN] = "";
	bool ok = true;

	if (st.spawned) {
		st.spawned = false;
		if (tree_kill() < 0) {
			ok = false;
			(void)fmt(err, sizeof(err),
			    "processes of the run survived SIGKILL");
		}
	}
	cgroup_remove();
	if (st.have_workdir) {
		st.have_workdir = false;
		if (workdir_remove(&st.wd, err, sizeof(err)) < 0)
			ok = false;
	}
	send_teardown(ok, ok ? NULL : err);
}

static void
die_hook(const char *why)
{
	send_error(0, why);
	cleanup();
}

/* fds 0-2 must exist, or the first file we open would become stdout. */
static void
sanitise_stdio(void)
{
	int fd, nfd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		nfd = open("/dev/null", O_RDWR);
		if (nfd != fd)
			_exit(125); /* cannot even report: stderr may be gone */
	}
}

/* fd 3 must be what the broker passed: a unix SOCK_SEQPACKET socket. */
static void
check_socket(void)
{
	int type = 0, domain = 0;
	socklen_t len = sizeof(type);

	if (getsockopt(CORDON_HELPER_FD, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
	    type != SOCK_SEQPACKET)
		die("fd %d is not a SOCK_SEQPACKET socket; cordon-helper is "
		    "started by cordon, not by hand", CORDON_HELPER_FD);
	len = sizeof(domain);
	if (getsockopt(CORDON_HELPER_FD, SOL_SOCKET, SO_DOMAIN, &domain,
	    &len) < 0 || domain != AF_UNIX)
		die("fd %d is not a unix socket", CORDON_HELPER_FD);
	if (fcntl(CORDON_HELPER_FD, F_SETFD, FD_CLOEXEC) < 0)
		die_errno("fcntl");
	st.sock = CORDON_HELPER_FD;
}

/*
 * Signals become events on one fd; none of them runs a handler.  Whatever
 * the caller left behind is reset first: an inherited SIGCHLD = SIG_IGN
 * would auto-reap the payload and blind the monitor.  The job-control
 * stops are taken too (and ignored), so Ctrl-Z cannot stop the monitor
 * while the payload, in its own session, runs on uncapped.
 */
static int
setup_signals(void)
{
	static const int taken[] = {
		SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN,
		SIGTTOU,
	};
	struct sigaction sa;
	sigset_t set;
	size_t i;
	int sig, fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL); /* fails only for KILL, STOP */
	sigemptyset(&set);
	for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		sigaddset(&set, taken[i]);
	if (sigprocmask(SIG_SETMASK, &set, NULL) < 0)
		die_errno("sigprocmask");
	if ((fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		die_errno("signalfd");
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die_errno("signal");
	return fd;
}

/*
 * Reclaims dead runs' workdirs: for a GC message (reporting, waiting up to
 * 10 s for the base lock), or after our own run (quietly, never waiting:
 * a busy base is swept by a later run).  Creates nothing.
 */
static void
gc(const struct request *req, bool report)
{
	char err[CORDON_MAX_TEXT_LEN] = "", msg[64];
	int base_fd = -1, n;

	if (workdir_open_base(req->workdir_base, false, &base_fd, err,
	    sizeof(err)) < 0) {
		if (report)
			send_teardown(errno == ENOENT, errno == ENOENT ?
			    "reclaimed 0 workdir(s)" : err);
		return;
	}
	n = workdir_gc(base_fd, report ? 10000 : 0, err, sizeof(err));
	close(base_fd);
	if (!report)
		return;
	if (n < 0)
		send_teardown(false, err);
	else if (fmt(msg, sizeof(msg), "reclaimed %d workdir(s), %d cgroup(s)",
	    n, cgroup_gc()))
		send_teardown(true, msg);
}

/*
 * Starts the payload on the strongest backend that really builds, and
 * describes it in m (a BACKEND event).  The attempt is the probe: auto
 * tries linux-ns and, if the namespaces cannot be built, degrades to the
 * floor with the reason; a backend asked for by name never degrades.
 * Returns -1 with err when nothing could be started.
 */
static int
start_payload(struct request *req, struct spawn *sp, struct cordon_msg *m,
    char *reason, size_t reasonsz, char *err, size_t errsz)
{
	enum cordon_backend_id b = CORDON_BACKEND_FLOOR;
	bool ns_ok = false, cg = false;
	uint32_t applied;

	if (req->backend == CORDON_BACKEND_AUTO ||
	    req->backend == CORDON_BACKEND_LINUX_NS) {
		spawn_set_home(req, "/work");
		/* The pids controller counts the init as well. */
		cg = cgroup_pids(req->limits.nproc + (req->limits.nproc != 0));
		ns_ok = ns_spawn(req, &st.wd, sp, err, errsz) == 0;
	}
	if (backend_decide(req->backend, ns_ok, err, &b, reason, reasonsz) < 0) {
		(void)fmt(err, errsz, "%s", reason);
		return -1;
	}
	if (b == CORDON_BACKEND_FLOOR) {
		spawn_set_home(req, st.wd.path);
		cg = cgroup_pids(req->limits.nproc);
		if (floor_spawn(req, &st.wd, sp, err, errsz) < 0)
			return -1;
	}
	applied = 1U << CORDON_CAP_CPU | 1U << CORDON_CAP_WALL |
	    1U << CORDON_CAP_MEMORY | 1U << CORDON_CAP_NOFILE;
	/* The monitor enforces a process cap on every backend. */
	if (req->limits.nproc != 0)
		applied |= 1U << CORDON_CAP_NPROC;
	/* Only a network namespace isolates; the floor has none. */
	if (b == CORDON_BACKEND_LINUX_NS &&
	    (req->flags & CORDON_REQ_NETWORK) == 0)
		applied |= 1U << CORDON_CAP_NETWORK;
	memset(m, 0, sizeof(*m));
	m->type = CORDON_MSG_BACKEND;
	m->u.backend.backend = (uint8_t)b;
	m->u.backend.applied = applied;
	/* Enforced by the kernel through the run's cgroup, not by polling. */
	if (cg)
		m->u.backend.kernel = applied &
		    (1U << CORDON_CAP_MEMORY | 1U << CORDON_CAP_NPROC);
	m->u.backend.reason = reason;
	return 0;
}

static void
report_end(const struct monitor_result *res)
{
	struct cordon_msg m;

	if (res->outcome == CORDON_OUTCOME_CAP_HIT) {
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_CAP_HIT;
		m.u.cap_hit.cap = res->cap;
		m.u.cap_hit.observed = res->cap_observed;
		m.u.cap_hit.limit = res->cap_limit;
		send_msg(&m);
	}
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_EXIT;
	m.u.exit.outcome = res->outcome;
	m.u.exit.cap = res->outcome == CORDON_OUTCOME_CAP_HIT ? res->cap :
	    CORDON_CAP_NONE;
	m.u.exit.exit_code = res->exit_code;
	m.u.exit.signal = res->signal;
	m.u.exit.cpu_ns = res->cpu_ns;
	m.u.exit.wall_ns = res->wall_ns;
	m.u.exit.max_rss = res->max_mem;
	m.u.exit.error = (char *)(uintptr_t)res->error;
	send_msg(&m);
}

int
main(int argc, char **argv)
{
	char err[CORDON_MAX_TEXT_LEN] = "", reason[CORDON_MAX_TEXT_LEN] = "";
	struct monitor_result res;
	struct request req;
	struct spawn sp = { .pid = -1, .pidfd = -1, .status_fd = -1 };
	struct cordon_msg m;
	uint64_t start;
	int sigfd;

	(void)argc;
	(void)argv;
	umask(077);
	sanitise_stdio();
	/*
	 * This build has no privilege-dropping code yet, so a helper started
	 * with ids other than the caller's (setuid or setgid) must not run
	 * anything: it would run the payload with those ids.
	 */
	if (geteuid() != getuid() || getegid() != getgid())
		die("cordon-helper is installed setuid or setgid, which this "
		    "build does not support; remove the bit (chmod u-s,g-s)");
	check_socket();
	closefrom(CORDON_HELPER_FD + 1);
	/* Not dumpable: the payload (same uid) cannot ptrace the monitor. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		die_errno("prctl(PR_SET_DUMPABLE)");
	sigfd = setup_signals();
	/* Orphans of the run are re-parented to us, never to init. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die_errno("prctl(PR_SET_CHILD_SUBREAPER)");
	if (tree_init() < 0)
		die("cannot read /proc/self/task/*/children (is /proc mounted, "
		    "and the kernel built with CONFIG_PROC_CHILDREN?)");
	set_die_hook(die_hook);

	intake_read(st.sock, &req);
	if (req.probe_only) {
		probe_report(st.sock, req.backend);
		request_free(&req);
		return 0;
	}
	if (req.gc_only) {
		gc(&req, true);
		request_free(&req);
		return 0;
	}

	if (workdir_create(req.workdir_base, req.run_id, &st.wd, err,
	    sizeof(err)) < 0)
		die("%s", err);
	st.have_workdir = true;
	(void)cgroup_setup(&req, reason, sizeof(reason)); /* else: the monitor */

	start = now_ns();
	if (start_payload(&req, &sp, &m, reason, sizeof(reason), err,
	    sizeof(err)) < 0)
		die("backend %s is not available: %s",
		    cordon_backend_name(req.backend), err);
	st.spawned = true;
	send_msg(&m);

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_CREATED;
	m.u.created.workdir = st.wd.path;
	m.u.created.pid = (uint32_t)sp.pid;
	send_msg(&m);

	monitor_run(st.sock, sigfd, &req, &sp, start, &res);
	st.spawned = false; /* monitor_run killed and reaped the tree */
	if (sp.pidfd >= 0)
		close(sp.pidfd);
	if (sp.status_fd >= 0)
		close(sp.status_fd);
	report_end(&res);
	cleanup();
	if (!res.broker_gone)
		gc(&req, false);
	request_free(&req);
	return 0;
}
