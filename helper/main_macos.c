/*
 * main_macos.c - cordon-helper on macOS: the seatbelt backend's helper.
 *
 * Theory of operation
 * -------------------
 * Processes:
 *   broker   cordon (broker/plat_macos.c, the port's).  Starts this
 *            program with one end of a SOCK_STREAM socketpair on fd 3
 *            (macOS has no SOCK_SEQPACKET for unix sockets).
 *   helper   this program.  Reads one request (intake.c: the same
 *            sequence, bounds and checks as on Linux), decides the
 *            backend from a real probe (seatbelt_decide.c), makes the
 *            workdir, generates the profile (sbpl.c), starts the payload
 *            held before its exec (seatbelt_macos.c), reports, follows,
 *            kills the tree, removes the workdir, exits.
 *   payload  /usr/bin/sandbox-exec -p PROFILE -D ... -- COMMAND (seatbelt)
 *            or COMMAND itself (the floor), in its own session, in the
 *            workdir (cwd, HOME and TMPDIR).
 *
 * Channels:
 *   fd 3     the socketpair, common/frame.c's length-prefixed frames:
 *            broker -> helper REQUEST, ARG*, ENV*, BIND* (or PROBE), GO;
 *            each length checked before anything is allocated and each
 *            type against the one expected before its body is decoded
 *            (cordon_msg_decode_allowed).  helper -> broker BACKEND,
 *            CREATED, [CAP_HIT], EXIT, TEARDOWN; or ERROR, then TEARDOWN
 *            when a workdir existed; a PROBE is answered with BACKEND or
 *            ERROR.  SO_NOSIGPIPE and SIGPIPE ignored: a broker gone is
 *            an error code, never a signal.  Anything from the broker
 *            while the payload runs, or its EOF, ends the run.
 *   errsock  the child's barrier and error reports (spawn.c), a stream
 *            socketpair, close-on-exec.
 *
 * Why this is safe:
 *   - Nothing is created before the whole request is read and checked: a
 *     malformed, oversized or out-of-sequence message is an ERROR and
 *     exit 125 with nothing made.
 *   - The probe really spawns sandbox-exec (seatbelt_probe): inside
 *     another sandbox it exits 71 and auto degrades to the floor, saying
 *     so in BACKEND's reason; --backend seatbelt is then refused (125).
 *     Every run's own profile is also applied to /usr/bin/true first, so
 *     a profile sandbox-exec refuses is a sandbox error, not a status
 *     mistaken for the payload's.
 *   - Nothing of the command runs before GO: the child sets its rlimits
 *     and waits at the barrier (spawn.c); EOF instead kills it and
 *     removes the workdir.
 *   - Paths reach the profile only as parameters, canonicalised
 *     (realpath: /tmp is /private/tmp), never as profile text (sbpl.c).
 *   - The workdir is always new (mkdir, 0700) and is removed through
 *     directory fds (rm_below): no symbolic link is followed and no other
 *     file system entered.
 *
 * Verified where: compiled and linked for aarch64-macos and x86_64-macos
 * by tools/macos-cross.sh; the decision (seatbelt_decide.c) and the
 * profile (sbpl.c) are unit-tested on Linux (tests/test_sbpl.c).  It has
 * NOT been run: no Mac here.  Not yet: the system policy is not loaded
 * (policy/policy.c does not build for macOS), required controls are
 * checked against seatbelt_applied() only, and --ro-bind is taken only
 * where the destination is the source (there is no mount namespace).
 * Signals: SIGTERM (the broker's cancel), SIGINT, SIGHUP and SIGQUIT
 * only set a flag; a run told to stop ends as interrupted, the tree
 * killed (a held one never runs).  SIGKILL leaves the tree to its
 * rlimits and the workdir to the broker's sweep.
 */
#ifdef __APPLE__

#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>

#include "frame.h"
#include "helper.h"
#include "sbpl.h"

/* How long the helper waits for the broker's GO (as helper.c). */
#define GO_TIMEOUT_MS (600 * 1000)
/* How deep the workdir's removal goes (as workdir.c). */
#define RM_MAX_DEPTH 128

/* What the die hook must undo; the only globals of the helper. */
static struct {
	int sock;
	struct spawn sp;
	bool spawned;
	int wd_fd;                    /* the workdir, held open */
	char workdir[PATH_MAX];       /* set: it exists and is ours */
	bool reported;                /* TEARDOWN sent */
} st = { .sock = -1, .wd_fd = -1 };

/*
 * A signal that ends the run (the broker's cancel is a SIGTERM, as on
 * Linux; a terminal's SIGINT, SIGHUP, SIGQUIT): its number, for the
 * follow loop and wait_go to see.  The handler does nothing else.
 */
static volatile sig_atomic_t stop_signal;

static void
on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void
send_msg(const struct cordon_msg *m)
{
	/* The broker may be gone; the cleanup goes on regardless. */
	(void)cordon_frame_send_fd(st.sock, m);
}

/* intake.c's receive: one frame of a type in want. */
static int
recv_frame(void *ctx, uint32_t want, struct cordon_msg *m)
{
	return cordon_frame_recv_fd(*(const int *)ctx,
	    cordon_msg_decode_allowed, want, m);
}

/* --- the workdir ---------------------------------------------------------- */

/*
 * Empties the directory fd (on device dev), depth levels down at most.
 * Every entry is looked at without following it (AT_SYMLINK_NOFOLLOW); a
 * directory is opened O_NOFOLLOW and must be on the same device, so a
 * link or a mount the payload made is removed as itself or refused,
 * never entered.  A directory the payload made unreadable gets owner
 * rwx first (it is the invoker's own).
 */
static int
rm_below(int fd, dev_t dev, int depth)
{
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int sub, r = 0;

	if (depth > RM_MAX_DEPTH || (d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), e->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) < 0) {
			r = -1;
			continue;
		}
		if (!S_ISDIR(sb.st_mode)) {
			if (unlinkat(dirfd(d), e->d_name, 0) < 0)
				r = -1;
			continue;
		}
		if (sb.st_dev != dev) {
			r = -1; /* a mount: never entered */
			continue;
		}
		(void)fchmodat(dirfd(d), e->d_name, S_IRWXU,
		    AT_SYMLINK_NOFOLLOW);
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || rm_below(sub, dev, depth + 1) < 0 ||
		    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0)
			r = -1;
	}
	(void)closedir(d);
	return r;
}

/* The workdir emptied through its fd, then its name removed. */
static bool
workdir_gone(void)
{
	struct stat sb;
	int fd;
	bool ok;

	if (st.workdir[0] == '\0')
		return true;
	ok = fstat(st.wd_fd, &sb) == 0 &&
	    (fd = dup(st.wd_fd)) >= 0 && rm_below(fd, sb.st_dev, 0) == 0 &&
	    rmdir(st.workdir) == 0;
	close(st.wd_fd);
	st.wd_fd = -1;
	st.workdir[0] = '\0';
	return ok;
}

static void
send_teardown(bool ok)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_TEARDOWN;
	m.u.teardown.ok = ok;
	m.u.teardown.error = ok ? "" : "the workdir could not be removed";
	send_msg(&m);
	st.reported = true;
}

/* Kills a held or running tree, removes the workdir, says TEARDOWN. */
static void
cleanup(void)
{
	bool had = st.workdir[0] != '\0';

	if (st.spawned) {
		st.spawned = false;
		seatbelt_abandon(&st.sp);
	}
	if (had && !st.reported)
		send_teardown(workdir_gone());
}

static void
on_die(const char *why)
{
	struct cordon_msg m;

	if (st.spawned) {
		st.spawned = false;
		seatbelt_abandon(&st.sp);
	}
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_ERROR;
	m.u.error.message = (char *)(uintptr_t)why;
	send_msg(&m);
	cleanup();
}

/* A new workdir under the canonical base, 0700; held open. */
static void
workdir_make(const struct request *req)
{
	char base[PATH_MAX], err[CORDON_MAX_TEXT_LEN];

	if (seatbelt_canonical(req->workdir_base, base, err, sizeof(err)) < 0)
		die("workdir base: %s", err);
	if (!fmt(st.workdir, sizeof(st.workdir), "%s/%s", base, req->run_id))
		die("workdir path too long");
	if (mkdir(st.workdir, 0700) < 0) {
		st.workdir[0] = '\0';
		die_errno("cannot create the workdir under %s", base);
	}
	st.wd_fd = open(st.workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (st.wd_fd < 0)
		die_errno("cannot open the workdir");
}

/* --- the backend ---------------------------------------------------------- */

/* The backend for want, from a real probe; dies naming why if none. */
static enum cordon_backend_id
decide(enum cordon_backend_id want, char *reason, size_t reasonsz)
{
	char why[CORDON_MAX_TEXT_LEN] = "";
	enum cordon_backend_id pick = CORDON_BACKEND_FLOOR;
	bool ok = false;

	if (want == CORDON_BACKEND_AUTO || want == CORDON_BACKEND_SEATBELT)
		ok = seatbelt_probe(why, sizeof(why)) == 0;
	if (seatbelt_decide(want, ok, why, &pick, reason, reasonsz) < 0)
		die("backend %s is not available: %s",
		    cordon_backend_name(want), reason);
	return pick;
}

static void
send_backend(enum cordon_backend_id b, uint32_t applied, const char *reason)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_BACKEND;
	m.u.backend.backend = (uint8_t)b;
	m.u.backend.applied = applied;
	m.u.backend.reason = (char *)(uintptr_t)reason;
	send_msg(&m);
}

/* Refused before anything exists: what neither backend here can do. */
static void
check_request(const struct request *req, uint32_t applied,
    enum cordon_backend_id b)
{
	uint32_t i;
	int c;

	if ((req->flags & CORDON_REQ_EGRESS) != 0)
		die("--allow-host is not available on macOS yet");
	for (i = 0; i < req->bindc; i++)
		if (strcmp(req->binds[i].src, req->binds[i].dest) != 0)
			die("--ro-bind %s:%s: macOS has no mount namespace, "
			    "so a source is readable only at its own path "
			    "(give SRC alone)", req->binds[i].src,
			    req->binds[i].dest);
	for (c = 1; c < CORDON_CAP_MAX_; c++)
		if ((req->require & (1U << c)) != 0 &&
		    (applied & (1U << c)) == 0)
			die("--require %s: not applied on the %s backend",
			    cordon_cap_name(c), cordon_backend_name(b));
}

/* --- the run -------------------------------------------------------------- */

/*
 * Waits for GO: true if it came; false for EOF, anything else, or
 * GO_TIMEOUT_MS of silence.
 */
static bool
wait_go(void)
{
	struct pollfd pfd = { st.sock, POLLIN, 0 };
	struct cordon_msg m;
	bool go;
	int r;

	do {
		r = poll(&pfd, 1, GO_TIMEOUT_MS);
	} while (r < 0 && errno == EINTR && stop_signal == 0);
	if (r <= 0 || stop_signal != 0)
		return false;
	go = cordon_frame_recv_fd(st.sock, cordon_msg_decode_allowed,
	    CORDON_MSG_BIT(CORDON_MSG_GO), &m) == 0;
	cordon_msg_clear(&m);
	return go;
}

/* The invoker's home, canonical, for the secrets the profile keeps. */
static const char *
invoker_home(char *buf, size_t bufsz)
{
	const struct passwd *pw = getpwuid(getuid());
	char err[CORDON_MAX_TEXT_LEN];

	if (bufsz < PATH_MAX || pw == NULL || pw->pw_dir == NULL ||
	    seatbelt_canonical(pw->pw_dir, buf, err, sizeof(err)) < 0)
		return NULL;
	return buf;
}

static void
run(struct request *req)
{
	char reason[CORDON_MAX_TEXT_LEN] = "", err[CORDON_MAX_TEXT_LEN] = "";
	char home[PATH_MAX];
	const char **ro = xcalloc(req->bindc + 1, sizeof(*ro));
	struct sbpl_options o;
	struct sbpl_profile p;
	struct monitor_result res;
	struct cordon_msg m;
	enum cordon_backend_id b;
	bool network = (req->flags & CORDON_REQ_NETWORK) != 0, go;
	uint32_t applied, i;
	uint64_t start;

	b = decide(req->backend, reason, sizeof(reason));
	applied = seatbelt_applied(b, network);
	check_request(req, applied, b);
	workdir_make(req);
	spawn_set_home(req, st.workdir);

	memset(&o, 0, sizeof(o));
	memset(&p, 0, sizeof(p));
	for (i = 0; i < req->bindc; i++)
		ro[i] = req->binds[i].src;
	o.workdir = st.workdir;
	o.home = invoker_home(home, sizeof(home));
	o.ro_binds = ro;
	o.nro_binds = req->bindc;
	o.network = network;
	if (b == CORDON_BACKEND_SEATBELT &&
	    sbpl_generate(&o, &p, err, sizeof(err)) < 0)
		die("the seatbelt profile: %s", err);
	if (seatbelt_start(req, b == CORDON_BACKEND_SEATBELT ? &p : NULL,
	    st.workdir, &st.sp, err, sizeof(err)) < 0)
		die("backend %s: %s", cordon_backend_name(b), err);
	st.spawned = true;
	sbpl_free(&p);
	free(ro);

	send_backend(b, applied, reason);
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_CREATED;
	m.u.created.workdir = st.workdir;
	m.u.created.pid = (uint32_t)st.sp.pid;
	send_msg(&m);
	go = wait_go();
	/* Told to stop while held: the command never runs. */
	if (stop_signal != 0)
		die("interrupted by signal %d before the command started",
		    (int)stop_signal);
	if (!go)
		die("the broker did not let the run start (it is gone, or "
		    "could not record the run)");
	start = now_ns();
	if (seatbelt_release(&st.sp, b == CORDON_BACKEND_SEATBELT, err,
	    sizeof(err)) < 0)
		die("backend %s: %s", cordon_backend_name(b), err);
	seatbelt_follow(req, &st.sp, b == CORDON_BACKEND_SEATBELT, start,
	    st.sock, &stop_signal, &res);
	st.spawned = false; /* killed and reaped */
	cap_report(&res, send_msg);
	/* The tree is dead and reaped: the broker may copy files out. */
	if ((req->flags & CORDON_REQ_COPY_OUT) != 0 && !res.broker_gone)
		(void)wait_go();
	cleanup();
}

/* A PROBE: what auto would pick, or the backend asked for, or why not. */
static void
probe(enum cordon_backend_id want)
{
	char reason[CORDON_MAX_TEXT_LEN] = "";
	enum cordon_backend_id b = decide(want, reason, sizeof(reason));

	send_backend(b, seatbelt_applied(b, false), reason);
}

/* fd 3 must be what the broker passed: a unix stream socket. */
static void
start_up(void)
{
	struct sockaddr_storage ss;
	int type = 0, on = 1, fd;
	socklen_t len = sizeof(type);

	umask(077);
	/* fds 0-2 must exist, or the first file we open would be stdout. */
	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDWR) != fd)
			_exit(125);
	if (getsockopt(CORDON_HELPER_FD, SOL_SOCKET, SO_TYPE, &type,
	    &len) < 0 || type != SOCK_STREAM)
		die("fd %d is not a stream socket; cordon-helper is started by "
		    "cordon, not by hand", CORDON_HELPER_FD);
	/* No SO_DOMAIN on macOS: the socket's own address family. */
	len = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	if (getsockname(CORDON_HELPER_FD, (struct sockaddr *)&ss, &len) < 0 ||
	    ss.ss_family != AF_UNIX)
		die("fd %d is not a unix socket", CORDON_HELPER_FD);
	if (fcntl(CORDON_HELPER_FD, F_SETFD, FD_CLOEXEC) < 0 ||
	    setsockopt(CORDON_HELPER_FD, SOL_SOCKET, SO_NOSIGPIPE, &on,
	    sizeof(on)) < 0 || signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die_errno("setting up the channel");
	st.sock = CORDON_HELPER_FD;
	/* No SA_RESTART: a blocking call returns EINTR and looks. */
	{
		static const int stops[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
		struct sigaction sa;
		size_t i;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop_signal;
		sigemptyset(&sa.sa_mask);
		for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
			if (sigaction(stops[i], &sa, NULL) < 0)
				die_errno("sigaction");
	}
	set_die_hook(on_die);
}

int
main(int argc, char **argv)
{
	struct request req;

	(void)argc;
	(void)argv;
	start_up();
	intake_read_from(recv_frame, &st.sock, &req);
	if (req.probe_only)
		probe(req.backend);
	else
		run(&req);
	request_free(&req);
	return 0;
}

#endif /* __APPLE__ */
