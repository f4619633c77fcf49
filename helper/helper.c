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
 *            (intake.c), holds it against the system policy it loads
 *            itself and the controls the run requires (policy/policy.c:
 *            ceilings, allow_groups, network_groups, require), creates
 *            the workdir (workdir.c), starts the payload (ns.c,
 *            landlock.c + floor.c, floor.c), watches it (monitor.c,
 *            tree.c), kills
 *            every process of the run, removes the workdir, reports, and
 *            exits.  It is a child subreaper, so nothing the payload
 *            starts can leave its tree.
 *   payload  the command, in its own session, in the workdir.  Its own
 *            children, grandchildren and daemons are the rest of the tree.
 *
 * Channels:
 *   fd 3     the socketpair: broker -> helper REQUEST, ARG*, ENV*, BIND*
 *            (or PROBE, answered with FACT* then BACKEND or ERROR), each
 *            type checked against the one expected before its body is
 *            decoded; anything else (GC included) is fatal;
 *            helper -> broker BACKEND, [EGRESS], CREATED, [CAP_HIT], EXIT,
 *            TEARDOWN, or ERROR then TEARDOWN.  CREATED is sent with the
 *            payload built and held before its execve, and the helper
 *            waits for GO (the broker has committed the run to its trace).
 *            EOF from the broker at any time means it is gone: the run is
 *            killed and torn down.  EGRESS (--allow-host, linux-ns only)
 *            carries one fd, the listener the init made in the run's net
 *            namespace (ns.c egress_listener says why that is safe); the
 *            helper forwards it unread.  Its own receive still refuses
 *            every fd.
 *   fds 0-2  passed through to the payload untouched - unless the
 *            output is capped: then stdout and stderr of the payload are
 *            pipes that the monitor copies to the helper's own fds 1 and
 *            2, counting (the broker opened --stdout/--stderr FILEs as
 *            the invoker and made them the helper's fds 1 and 2).
 *
 * Pipelined start: the broker starts the helper before it opens its
 * trace.  The helper builds everything - workdir, boundary, the payload's
 * own set-up (ids, capabilities, rlimits, seccomp, Landlock) - and the
 * payload stops at a barrier right before execve (spawn.c
 * spawn_barrier).  Then CREATED, and GO once the broker has committed the
 * run and copied files in (CORDON_REQ_COPY_IN); only then is the payload
 * let go.  No instruction of the command runs before GO, and EOF instead
 * of GO kills the held tree and removes the workdir.  After EXIT (the tree
 * is dead and reaped) with CORDON_REQ_COPY_OUT it waits for GO again
 * while the broker copies files out, then tears down.  The broker never
 * writes while a payload runs.
 *   errsock  close-on-exec SOCK_SEQPACKET pair from the payload's pre-exec
 *            code: (stage, errno) if a set-up step or execve failed,
 *            SPAWN_READY at the barrier, and the helper's one-byte go.
 *
 * The helper trusts nothing it reads: the request is bounded and
 * re-checked field by field, and a malformed one is fatal before anything
 * is created.  Every exit path after the workdir exists - success, cap,
 * error, broker gone, die() - kills the tree and removes the workdir
 * (cleanup() below, also registered as the die() hook).  A helper killed
 * with SIGKILL cannot clean up: its workdir's lock file is then free, and
 * the broker's sweep after the next run or `cordon gc` removes it, with
 * the invoker's rights (broker/gc.c).
 *
 * Setuid mode (--with-priv-mode=setuid, installed root 4755; priv.c)
 * -----------------------------------------------------------------
 * Started by a non-root user with euid 0.  What runs with privilege, in
 * order, and why each step is safe:
 *   1. exec: the loader runs in secure mode (AT_SECURE) and ignores
 *      LD_PRELOAD, LD_LIBRARY_PATH, GCONV_PATH, MALLOC_*.
 *   2. fds 0-2 opened onto /dev/null if closed (a fixed path), so nothing
 *      we open later becomes the invoker's stdout.
 *   3. priv_start(): PR_SET_DUMPABLE 0 first (no ptrace, core or
 *      /proc/PID/mem for the invoker); refuse setgid, an euid other than
 *      0, and file capabilities; clearenv(); note the invoker's ids and
 *      groups; openlog(LOG_AUTHPRIV).  Then the euid is lowered to the
 *      invoker's (0 kept only as the saved uid): fd 3 checks, closefrom,
 *      intake, the workdir (a base the invoker supplied: opened, made and
 *      locked as the invoker, never past their permissions, and made only
 *      in a directory that is the invoker's alone, so never at a name
 *      another user could need: workdir.c) all run as the invoker, who
 *      could have done each of them.
 *   4. priv_raise() + clone() in ns_start(): the only moment the helper
 *      holds privilege again.  New mount, pid, net, ipc, uts and cgroup
 *      namespaces, no user namespace: nothing depends on the invoker being
 *      able to create one.  The helper then priv_drop()s at once, for
 *      good: setgroups (the invoker's own), setresgid, setresuid, every
 *      capability cleared, and verified (ids all the invoker's, setuid(0)
 *      fails, no capability) - before the child is let go ("g"), so the
 *      monitor never holds privilege while anything of the invoker's runs.
 *   5. the child (the init): the invoker's groups, gid and uid at once,
 *      keeping capabilities (SECBIT_NO_SETUID_FIXUP) but with only
 *      SYS_ADMIN, NET_ADMIN and SETPCAP effective - no DAC override, so
 *      the invoker's workdir and base are reopened as the invoker and must
 *      be the directories the helper holds (device, inode).  It re-arms
 *      PR_SET_PDEATHSIG after the id change and only then learns the
 *      helper is alive, so it dies with the helper.  It builds the root
 *      from root-owned system directories and fresh tmpfs/proc/devpts
 *      instances exactly as in user-namespace mode (ns.c), detaches every
 *      procfs but the sandbox's own (a host /proc would lead back to the
 *      invoker's writable paths), sets the hostname and loopback, enters
 *      a user namespace of the invoker's own where root may make one,
 *      lowers its effective set to SETPCAP (so the payload's fork is
 *      charged to the invoker's RLIMIT_NPROC), forks the payload and
 *      clears its own capabilities before it waits (so its test forks
 *      of the process cap, ns.c wait_payload, are charged the same way).
 *   6. the payload: bounding, ambient, inheritable, permitted, effective
 *      sets emptied, securebits locked, priv_verify() (ids all the
 *      invoker's, setuid(0) fails), PR_SET_NO_NEW_PRIVS, seccomp, execve.
 *      It never holds a privilege the invoker lacked.
 *   7. the floor backend or a probe that builds nothing: priv_drop()
 *      before any of it.  A probe, like a run, is first held to the
 *      policy's allow_groups: a refused user never reaches step 4.  The
 *      audit lines go to syslog with a bounded, printable command:
 *      "start" before the workdir or anything else of the run exists,
 *      sent with the real uid 0 (which only the saved uid lets us take,
 *      and we give back at once), so journald's _UID=0 tells it from a
 *      line anyone can send with logger(1); "end" on every exit path but
 *      SIGKILL, from the same _PID.
 * Signals: the invoker (the real uid) may still stop or kill the helper;
 * a killed helper takes the init and so the pid namespace with it, its
 * mounts lived only in the run's mount namespace, and the workdir is
 * reclaimed by the next run or `cordon gc`.  A stopped helper stops only
 * the sampling: RLIMIT_CPU still stops each process at the CPU cap
 * (spawn.c), and the final figures are held against the caps when it
 * continues (monitor.c).
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <sys/socket.h>

#include <bsd/unistd.h>

#include "helper.h"
#include "policy.h"

/* What cleanup() must undo; the only globals of the helper. */
static struct {
	int sock;
	bool have_workdir;
	bool spawned;
	struct workdir wd;
	const struct request *audited; /* setuid mode: the start was logged */
	const char *backend;
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

/* How long the helper waits for the broker to copy files in or out. */
#define GO_TIMEOUT_S 600

/*
 * Waits for GO; false if the broker is gone, sent anything else or took
 * longer than GO_TIMEOUT_S.  (The timeout stays on the socket: later
 * reads happen only once poll says there is something to read.)
 */
static bool
wait_go(void)
{
	struct timeval tv = { GO_TIMEOUT_S, 0 };
	struct cordon_msg m;
	bool go;

	(void)setsockopt(st.sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	go = cordon_msg_recv_allowed(st.sock, CORDON_MSG_BIT(CORDON_MSG_GO),
	    &m) == 0;
	cordon_msg_clear(&m);
	return go;
}

/*
 * With an output cap the payload's fds 1 and 2 become pipes: the helper's
 * own 1 and 2 are set aside, the pipes' write ends put in their place for
 * the backends to pass on, and after the start the originals come back
 * (closing our copies of the write ends).  The read ends go to the
 * monitor, non-blocking.
 */
static void
output_pipes(bool start, int saved[2], int out[2])
{
	int p[2], i;

	for (i = 0; i < 2; i++) {
		if (start) {
			if ((saved[i] = fcntl(1 + i, F_DUPFD_CLOEXEC, 3)) < 0 ||
			    pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0 ||
			    dup2(p[1], 1 + i) < 0 ||
			    fcntl(1 + i, F_SETFL, 0) < 0)
				die_errno("setting up the output pipes");
			close(p[1]);
			out[i] = p[0];
		} else if (dup2(saved[i], 1 + i) < 0) {
			die_errno("dup2");
		} else {
			close(saved[i]);
		}
	}
}

static void
die_hook(const char *why)
{
	send_error(0, why);
	if (st.audited != NULL)
		priv_audit("end", st.audited, st.backend, "sandbox_error", "-");
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
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t set;
	size_t i;
	int sig, fd;

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

/* Fail closed: refuses a backend that lacks a control the run requires. */
static void
require_check(const struct request *req, enum cordon_backend_id b, int abi)
{
	char err[CORDON_MAX_TEXT_LEN];

	if (cordon_require_check(req->require, backend_applied(b, req, abi),
	    cordon_backend_name(b), err, sizeof(err)) < 0)
		die("%s", err);
}

/*
 * Starts the payload on the strongest backend that really builds, and
 * describes it in m (a BACKEND event).  The attempt is the probe: auto
 * tries linux-ns and, if the namespaces cannot be built, degrades to
 * landlock (where the kernel has it), else to the floor, with the reason;
 * a backend asked for by name never degrades.
 * Returns -1 with err when nothing could be started.
 */
static int
start_payload(struct request *req, struct spawn *sp, struct cordon_msg *m,
    char *reason, size_t reasonsz, char *err, size_t errsz)
{
	enum cordon_backend_id b = CORDON_BACKEND_FLOOR;
	struct landlock ll = { 0, -1, false };
	bool ns_ok = false, cg = false, v1 = false;
	bool network = (req->flags & CORDON_REQ_NETWORK) != 0;
	char what[CORDON_MAX_TEXT_LEN];
	uint32_t i;
	int r;

	if (req->backend == CORDON_BACKEND_AUTO ||
	    req->backend == CORDON_BACKEND_LINUX_NS) {
		spawn_set_home(req, "/work");
		/* The pids controller counts the init as well. */
		cg = cgroup_pids(req->limits.nproc + (req->limits.nproc != 0));
		ns_ok = ns_spawn(req, &st.wd, sp, err, errsz) == 0;
	}
	if (!ns_ok && req->backend != CORDON_BACKEND_FLOOR)
		ll.abi = landlock_abi();
	if (backend_decide(req->backend, ns_ok, err, ll.abi, &b, reason,
	    reasonsz) < 0) {
		(void)fmt(err, errsz, "%s", reason);
		return -1;
	}
	require_check(req, b, ll.abi);
	/* The allow-list's bridge is a listener in the run's net namespace. */
	if ((req->flags & CORDON_REQ_EGRESS) != 0 &&
	    b != CORDON_BACKEND_LINUX_NS) {
		(void)fmt(err, errsz, "--allow-host needs the linux-ns backend, "
		    "which has a network namespace of its own (%s)", reason);
		return -1;
	}
	if (b != CORDON_BACKEND_LINUX_NS)
		priv_drop(); /* the floor and landlock need no privilege */
	/* Only linux-ns can move a path; Landlock can open it where it is. */
	for (i = 0; i < req->bindc && b != CORDON_BACKEND_LINUX_NS; i++)
		if (b == CORDON_BACKEND_FLOOR ||
		    strcmp(req->binds[i].src, req->binds[i].dest) != 0) {
			(void)fmt(err, errsz, "--ro-bind %s:%s needs the linux-ns "
			    "backend (%s)", req->binds[i].src,
			    req->binds[i].dest, reason);
			return -1;
		}
	if (b == CORDON_BACKEND_LANDLOCK) {
		if (landlock_ruleset(req, &st.wd, &ll, err, errsz) < 0)
			return -1;
		/* The reason says what this ABI gave the run and what not. */
		landlock_describe(ll.abi, network, what, sizeof(what));
		(void)fmt(reason + strlen(reason), reasonsz - strlen(reason),
		    "; %s", what);
	}
	if (b != CORDON_BACKEND_LINUX_NS) {
		spawn_set_home(req, st.wd.path);
		cg = cgroup_pids(req->limits.nproc);
		v1 = !cg && cgroup_v1_pids(req, req->limits.nproc);
		r = floor_spawn(req, &st.wd, ll.ruleset >= 0 ? &ll : NULL, sp,
		    err, errsz);
		if (ll.ruleset >= 0)
			close(ll.ruleset);
		if (r < 0)
			return -1;
		/* Held before its exec: moved in before it runs (cgroup.c). */
		v1 = v1 && cgroup_v1_attach(sp->pid);
	}
	/* The payload may have had to start outside it (cgroup_clone). */
	cg = cg && cgroup_events_fd() >= 0;
	memset(m, 0, sizeof(*m));
	m->type = CORDON_MSG_BACKEND;
	m->u.backend.backend = (uint8_t)b;
	m->u.backend.applied = backend_applied(b, req, ll.abi);
	/* Enforced by the kernel through the run's cgroup, not by polling. */
	if (cg)
		m->u.backend.kernel = m->u.backend.applied &
		    (1U << CORDON_CAP_MEMORY | 1U << CORDON_CAP_NPROC);
	else if (v1)
		m->u.backend.kernel = m->u.backend.applied &
		    (1U << CORDON_CAP_NPROC);
	m->u.backend.reason = reason;
	return 0;
}

static void
report_end(const struct monitor_result *res)
{
	priv_audit("end", st.audited, st.backend,
	    cordon_outcome_name(res->outcome),
	    res->outcome == CORDON_OUTCOME_CAP_HIT ? cordon_cap_name(res->cap) :
	    "-");
	st.audited = NULL;
	cap_report(res, send_msg);
}

/*
 * Start-up hygiene, before anything is read: private umask, fds 0-2,
 * priv_start() (not dumpable; in setuid mode also an empty environment
 * and the euid lowered: priv.c), fd 3 checked, every other fd closed,
 * signals as fds, child subreaper.  Returns the signalfd.
 */
static int
start_up(void)
{
	int sigfd;

	umask(077);
	sanitise_stdio();
	/* Not dumpable (the payload, same uid, cannot ptrace the monitor);
	 * in setuid mode also: empty environment, euid lowered (priv.c). */
	priv_start();
	check_socket();
	closefrom(CORDON_HELPER_FD + 1);
	sigfd = setup_signals();
	/* Orphans of the run are re-parented to us, never to init. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die_errno("prctl(PR_SET_CHILD_SUBREAPER)");
	if (tree_init() < 0)
		die("cannot read /proc/self/task/*/children (is /proc mounted, "
		    "and the kernel built with CONFIG_PROC_CHILDREN?)");
	set_die_hook(die_hook);
	return sigfd;
}

/*
 * Holds the request to the system policy and the controls it requires,
 * then logs the start (setuid mode): nothing of the run exists yet.
 */
static void
admit(struct request *req)
{
	char err[CORDON_MAX_TEXT_LEN] = "";

	/* Windows' and macOS' backends: refused before anything exists. */
	if (req->backend >= CORDON_BACKEND_JOB)
		die("backend %s is not available on Linux: it runs only on %s",
		    cordon_backend_name(req->backend),
		    req->backend == CORDON_BACKEND_SEATBELT ? "macOS" :
		    "Windows");
	/*
	 * The system policy, loaded here with the broker's parser from the
	 * path fixed at build time (policy/policy.c): a request over it is
	 * refused whatever the broker checked, and its required controls are
	 * added to the request's.
	 */
	if (cordon_policy_enforce(&req->limits, (req->flags &
	    (CORDON_REQ_NETWORK | CORDON_REQ_EGRESS)) != 0, &req->require,
	    err, sizeof(err)) < 0)
		die("%s", err);
	/* Nothing is created for a run no backend asked for could satisfy. */
	require_check(req, req->backend == CORDON_BACKEND_AUTO ?
	    CORDON_BACKEND_LINUX_NS : req->backend, landlock_abi());
	/*
	 * Setuid mode: the start line goes out before anything of the run
	 * exists - workdir, clone, payload - so no run can execute unlogged
	 * (a helper stopped and killed at any later point has logged it).
	 * It names the backend asked for; the end line the one that ran.
	 */
	st.backend = cordon_backend_name(req->backend);
	st.audited = req;
	priv_audit("start", req, st.backend, "-", "-");
}

/* Whether a signal that ends the run waits on the signalfd. */
static bool
stop_pending(void)
{
	sigset_t set;
	int sig;

	if (sigpending(&set) < 0)
		return false;
	for (sig = 1; sig < NSIG; sig++)
		if (signal_ends_run(sig) && sigismember(&set, sig) == 1)
			return true;
	return false;
}

/*
 * The workdir, the boundary and the payload built and held before its
 * exec, BACKEND and CREATED sent; then GO from the broker (the run's
 * create row is committed, and files copied in), and the payload is let
 * go.  Returns when it started.  EOF or anything but GO is the broker
 * gone or the run abandoned: die(), which kills the held tree and removes
 * the workdir - nothing of the command has run.
 */
static uint64_t
launch(struct request *req, struct spawn *sp)
{
	char err[CORDON_MAX_TEXT_LEN] = "", reason[CORDON_MAX_TEXT_LEN] = "";
	int saved[2] = { -1, -1 }, out[2] = { -1, -1 };
	struct cordon_msg m;
	uint64_t start;

	if (workdir_create(req->workdir_base, req->run_id, &st.wd, err,
	    sizeof(err)) < 0)
		die("%s", err);
	st.have_workdir = true;
	(void)cgroup_setup(req, reason, sizeof(reason)); /* else: the monitor */

	if (req->limits.output_bytes != 0)
		output_pipes(true, saved, out);
	if (start_payload(req, sp, &m, reason, sizeof(reason), err,
	    sizeof(err)) < 0)
		die("backend %s is not available: %s",
		    cordon_backend_name(req->backend), err);
	st.spawned = true;
	if (req->limits.output_bytes != 0)
		output_pipes(false, saved, out);
	sp->out[0] = out[0];
	sp->out[1] = out[1];
	sp->wd_fd = st.wd.fd;
	send_msg(&m);
	st.backend = cordon_backend_name(m.u.backend.backend);
	if (sp->egress_fd >= 0) {
		/* Forwarded, not read: the broker's proxy accepts on it. */
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_EGRESS;
		m.u.egress_port = CORDON_EGRESS_PORT;
		if (cordon_msg_send_fd(st.sock, &m, sp->egress_fd) < 0)
			die("cannot hand the egress listener to the broker");
		close(sp->egress_fd);
		sp->egress_fd = -1;
	}

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_CREATED;
	m.u.created.workdir = st.wd.path;
	m.u.created.pid = (uint32_t)sp->pid;
	send_msg(&m);
	if (!wait_go())
		die("the broker did not let the run start (it is gone, or "
		    "could not record the run)");
	if (sp->chown_nobody && (req->flags & CORDON_REQ_COPY_IN) != 0 &&
	    ns_give_copied(&st.wd) < 0)
		die_errno("cannot give the files copied in to nobody");
	start = now_ns();
	/*
	 * Told to stop while the sandbox was built or GO awaited (the
	 * broker's cancel is a SIGTERM, sent before its GO): the payload is
	 * not let go at all.  The monitor's first look finds the signal and
	 * ends the run as interrupted "before the command started", killing
	 * the held tree: nothing of the command runs.  A signal after this
	 * look is the monitor's, as ever.
	 */
	if (stop_pending())
		return start;
	if (spawn_release(sp, err, sizeof(err)) < 0)
		die("backend %s: %s", st.backend, err);
	return start;
}

int
main(int argc, char **argv)
{
	char err[CORDON_MAX_TEXT_LEN] = "";
	struct monitor_result res;
	struct request req;
	struct spawn sp = { .pid = -1, .pidfd = -1, .status_fd = -1,
		.gate_fd = -1, .egress_fd = -1 };
	uint64_t start;
	int sigfd;

	(void)argc;
	(void)argv;
	sigfd = start_up();
	intake_read(st.sock, &req);
	/*
	 * A probe raises privilege and builds namespaces as a run does, so
	 * a user the system policy refuses is refused here, before any of
	 * it: held to allow_groups alone, as it has no limits to check.
	 * (Dead runs are reclaimed by the broker, with the invoker's rights:
	 * broker/gc.c; a GC message is refused by intake_read.)
	 */
	if (req.probe_only) {
		if (cordon_policy_enforce(NULL, false, NULL, err,
		    sizeof(err)) < 0)
			die("%s", err);
		probe_report(st.sock, req.backend);
		request_free(&req);
		return 0;
	}
	admit(&req);
	start = launch(&req, &sp);
	monitor_run(st.sock, sigfd, &req, &sp, start, &res);
	st.spawned = false; /* monitor_run killed and reaped the tree */
	if (sp.pidfd >= 0)
		close(sp.pidfd);
	if (sp.status_fd >= 0)
		close(sp.status_fd);
	report_end(&res);
	/* The tree is dead and reaped: the broker may copy files out. */
	if ((req.flags & CORDON_REQ_COPY_OUT) != 0 && !res.broker_gone)
		(void)wait_go();
	cleanup(); /* the broker then sweeps dead runs' workdirs: broker/gc.c */
	request_free(&req);
	return 0;
}
