/*
 * main_win.c - cordon-helper.exe: the helper on Windows (mingw-w64 only).
 *
 * Theory of operation
 * -------------------
 * Processes:
 *   broker   cordon.exe / libcordon (broker/plat_win.c).  Starts this
 *            program beside it as `"PATH" --channel IN,OUT` with
 *            SystemRoot alone in its environment, and exactly five
 *            handles inherited: the two pipe ends and three stdio.
 *   helper   this program.  Reads one request (intake.c: the same
 *            sequence, bounds and checks as on Linux), runs it in a Job
 *            Object (job_win.c, whose decisions are job.c's), reports,
 *            exits.
 *   payload  the command and everything it starts, all inside the job:
 *            created suspended, assigned, resumed only after GO.
 *
 * Channels:
 *   IN       broker -> helper: REQUEST, ARG*, ENV*, BIND* (or PROBE),
 *            then GO; read as common/frame.c's length-prefixed frames,
 *            each length checked before anything is allocated and each
 *            type checked against the one expected before its body is
 *            decoded (cordon_msg_decode_allowed).  EOF at any time is the
 *            broker gone (or its cancel): the payload is terminated, or
 *            never resumed, and the workdir removed.
 *            A PROBE is answered with BACKEND (a job given a cap of each
 *            kind and read back, nothing started in it) or ERROR.
 *   OUT      helper -> broker: BACKEND (job: what the read-back of the
 *            limits showed applied, and why each other cap is not),
 *            CREATED (the payload exists, suspended inside the job),
 *            then after GO [CAP_HIT], EXIT, TEARDOWN; or ERROR, then
 *            TEARDOWN when a workdir existed.  A command Windows cannot
 *            start (not found, not executable) has no process to hold,
 *            so it is BACKEND, EXIT with 127 or 126 and the reason, and
 *            TEARDOWN, as the Linux helper reports a failed execve.
 *   stdio    the broker's, passed on to the payload (inherited).
 *
 * Why this is safe:
 *   - The channel's handles arrive inheritable (they had to be, to reach
 *     us); the first thing done is to make them not, so the payload
 *     (created with handle inheritance for its stdio) cannot get them
 *     and forge events or read the request.
 *   - Nothing is created before the whole request is read and checked:
 *     a malformed, oversized or out-of-sequence message is an ERROR and
 *     exit 125 with no workdir, job or process made.
 *   - Nothing of the command runs before GO: it is created suspended and
 *     assigned to the job first (job_win.c step 4), and a broker that
 *     closes the channel instead gets its held process terminated and
 *     the workdir removed.
 *   - Every exit path after the workdir exists - the end, a cap, ERROR,
 *     the broker gone, die() - ends the job and removes the workdir
 *     (job_win_end).  A helper killed outright leaves the job to
 *     KILL_ON_JOB_CLOSE (Windows kills every process in it when the last
 *     handle, ours, closes) and the workdir to the broker's sweep.
 *
 * Not yet here (what the Linux helper also does): the system policy
 * (policy/policy.c does not build for Windows yet) is not loaded, so only
 * the broker holds a run to it; --ro-bind is refused on the job backend
 * (a job has no mount table; on appcontainer each source is granted to
 * the container for reading, job_win.c).
 */
#include "config.h"

#include <windows.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "frame.h"
#include "job.h"
#include "request.h"
#include "winutil.h"

/* How long the helper waits for the broker's GO, ms (as helper.c). */
#define GO_TIMEOUT_MS (600 * 1000)

/* What the die hook must undo; the only globals of the helper. */
static struct {
	HANDLE in, out;
	struct job_win *run;       /* created, not yet ended */
	struct job_win_res res;
	bool reported;             /* TEARDOWN sent */
} st;

/* --- the channel ---------------------------------------------------------- */

static void
send_msg(const struct cordon_msg *m)
{
	/* The broker may be gone; the cleanup goes on regardless. */
	(void)cordon_frame_send(cordon_win_pipe_write, st.out, m);
}

/* intake.c's receive: one frame of a type in want. */
static int
recv_frame(void *ctx, uint32_t want, struct cordon_msg *m)
{
	(void)ctx;
	return cordon_frame_recv(cordon_win_pipe_read, st.in,
	    cordon_msg_decode_allowed, want, m);
}

static void
send_error(const char *text)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_ERROR;
	m.u.error.message = (char *)(uintptr_t)text;
	send_msg(&m);
}

static void
send_teardown(void)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_TEARDOWN;
	m.u.teardown.ok = st.res.workdir_removed;
	m.u.teardown.error = st.res.workdir_removed ? "" :
	    "the workdir could not be removed";
	send_msg(&m);
}

/* Ends the run if one exists (job and workdir), idempotent. */
static void
end_run(void)
{
	if (st.run != NULL) {
		job_win_end(st.run, &st.res);
		st.run = NULL;
	}
}

static void
on_die(const char *why)
{
	end_run();
	send_error(why);
	if (st.res.workdir_made && !st.reported)
		send_teardown();
}

/*
 * The broker gone (its end closed: EOF, which is also its cancel) or
 * anything sent while the payload runs, when nothing is expected: either
 * ends the run.  Polled by job_win.c's follow loop.
 */
static bool
broker_stop(void *ctx)
{
	DWORD avail = 0;

	(void)ctx;
	if (!PeekNamedPipe(st.in, NULL, 0, NULL, &avail, NULL))
		return true;
	return avail != 0;
}

/*
 * Waits for GO: true if it came; false for EOF, any other message, or
 * GO_TIMEOUT_MS of silence (the pipe is peeked so a silent broker cannot
 * hold a suspended payload for ever).
 */
static bool
wait_go(void)
{
	ULONGLONG end = GetTickCount64() + GO_TIMEOUT_MS;
	struct cordon_msg m;
	DWORD avail = 0;
	bool go;

	while (PeekNamedPipe(st.in, NULL, 0, NULL, &avail, NULL) &&
	    avail == 0 && GetTickCount64() < end)
		Sleep(10);
	if (avail == 0 && GetTickCount64() >= end)
		return false;
	go = recv_frame(NULL, CORDON_MSG_BIT(CORDON_MSG_GO), &m) == 0;
	cordon_msg_clear(&m);
	return go;
}

/* --- the run -------------------------------------------------------------- */

/*
 * What this helper runs: job (auto's pick on Windows) or appcontainer;
 * every other backend, and what a job cannot give, is refused naming
 * why, before anything exists.
 */
static void
check_request(const struct request *req)
{
	if (req->backend != CORDON_BACKEND_AUTO &&
	    req->backend != CORDON_BACKEND_JOB &&
	    req->backend != CORDON_BACKEND_APPCONTAINER)
		die("backend %s is not available on Windows (job, "
		    "appcontainer)", cordon_backend_name(req->backend));
	if ((req->flags & CORDON_REQ_EGRESS) != 0)
		die("--allow-host is not available on Windows: a Job Object "
		    "cannot confine the command's network to the egress proxy");
	if (req->bindc > CORDON_MAX_BINDS)
		die("too many --ro-bind sources");
	if (req->bindc != 0 && req->backend != CORDON_BACKEND_APPCONTAINER)
		die("--ro-bind is not available on the job backend: a Job "
		    "Object has no mount table (appcontainer grants read "
		    "access to the sources instead)");
}

/*
 * The workdir: the base, its separator, the run id (checked hex by
 * intake.c, so nothing in it can climb or name a device).
 */
static char *
workdir_path(const struct request *req)
{
	size_t n = strlen(req->workdir_base);
	char sep = strchr(req->workdir_base, '\\') != NULL ? '\\' : '/';
	char *p = xcalloc(n + 1 + CORDON_RUN_ID_LEN + 1, 1);

	memcpy(p, req->workdir_base, n);
	if (n == 0 || req->workdir_base[n - 1] != sep)
		p[n++] = sep;
	memcpy(p + n, req->run_id, strlen(req->run_id) + 1);
	return p;
}

/*
 * BACKEND: the backend, the caps the read-back showed applied, and as
 * the reason each asked-for cap the job did not apply with why (job.c:
 * under Wine "the job read back no limit"), since only the helper saw
 * the read-back.
 */
static void
send_backend(const struct request *req, const struct job_ask *ask)
{
	static const enum cordon_cap_id asked[] = { CORDON_CAP_CPU,
	    CORDON_CAP_MEMORY, CORDON_CAP_NPROC };
	const uint64_t limit[] = { ask->cpu_ns, ask->memory_bytes,
	    ask->nproc };
	const struct job_applied *ap = &st.res.run.ap;
	char reason[CORDON_MAX_TEXT_LEN];
	struct cordon_msg m;
	size_t i, n;

	(void)snprintf(reason, sizeof(reason), "%s",
	    req->backend == CORDON_BACKEND_AUTO ? "a Job Object (what auto "
	    "picks on Windows)" : "requested");
	for (i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
		n = strlen(reason);
		if (limit[i] != 0 && ap->why[asked[i]] != NULL)
			(void)snprintf(reason + n, sizeof(reason) - n,
			    "; %s: %s", cordon_cap_name(asked[i]),
			    ap->why[asked[i]]);
	}
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_BACKEND;
	m.u.backend.backend = req->backend == CORDON_BACKEND_APPCONTAINER ?
	    CORDON_BACKEND_APPCONTAINER : CORDON_BACKEND_JOB;
	m.u.backend.applied = ap->applied;
	m.u.backend.reason = reason;
	send_msg(&m);
}

/* CAP_HIT (for a cap), then EXIT: what job.c decided, with the figures. */
static void
report_end(const struct job_win_req *jr, uint64_t wall_ns)
{
	const struct job_run *facts = &st.res.run;
	struct cordon_msg m;
	uint64_t cpu_ns = (facts->acct.user_100ns + facts->acct.kernel_100ns) *
	    100;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_EXIT;
	m.u.exit.outcome = facts->out.outcome;
	m.u.exit.cap = CORDON_CAP_NONE;
	m.u.exit.exit_code = -1;
	m.u.exit.cpu_ns = cpu_ns;
	m.u.exit.wall_ns = wall_ns;
	/* Committed, not resident: the job counts what it can refuse. */
	m.u.exit.max_rss = facts->acct.peak_job_memory;
	m.u.exit.error = "";
	if (st.res.stopped) {
		m.u.exit.outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		m.u.exit.error = "the broker went away";
	} else if (facts->out.outcome == CORDON_OUTCOME_CAP_HIT) {
		struct cordon_msg c;

		memset(&c, 0, sizeof(c));
		c.type = CORDON_MSG_CAP_HIT;
		c.u.cap_hit.cap = (uint8_t)facts->out.cap;
		switch (facts->out.cap) {
		case CORDON_CAP_CPU:
			c.u.cap_hit.observed = facts->acct.user_100ns * 100;
			c.u.cap_hit.limit = jr->ask.cpu_ns;
			break;
		case CORDON_CAP_WALL:
			c.u.cap_hit.observed = wall_ns;
			c.u.cap_hit.limit = jr->ask.wall_ns;
			break;
		case CORDON_CAP_MEMORY:
			c.u.cap_hit.observed = facts->acct.peak_job_memory;
			c.u.cap_hit.limit = jr->ask.memory_bytes;
			break;
		default:
			c.u.cap_hit.observed = facts->acct.active_processes;
			c.u.cap_hit.limit = jr->ask.nproc;
			break;
		}
		send_msg(&c);
		m.u.exit.cap = (uint8_t)facts->out.cap;
	} else if (facts->out.outcome == CORDON_OUTCOME_EXITED) {
		m.u.exit.exit_code = facts->out.status;
	} else {
		m.u.exit.error = "the payload did not end by itself";
	}
	send_msg(&m);
}

/*
 * A command Windows could not start (127 not found, 126 not
 * executable): nothing ran, the workdir is already gone; said as the
 * Linux helper says a failed execve.
 */
static void
report_not_run(void)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_EXIT;
	m.u.exit.outcome = CORDON_OUTCOME_EXITED;
	m.u.exit.cap = CORDON_CAP_NONE;
	m.u.exit.exit_code = st.res.run.out.status;
	m.u.exit.error = st.res.err;
	send_msg(&m);
}

static void
run(const struct request *req)
{
	struct job_win_req jr;
	char *workdir = workdir_path(req);
	char **ro = xcalloc(req->bindc + 1, sizeof(*ro));
	uint32_t i;
	ULONGLONG start;
	struct cordon_msg m;

	for (i = 0; i < req->bindc; i++)
		ro[i] = req->binds[i].src;
	memset(&jr, 0, sizeof(jr));
	jr.ask.cpu_ns = req->limits.cpu_ns;
	jr.ask.wall_ns = req->limits.wall_ns;
	jr.ask.memory_bytes = req->limits.memory_bytes;
	jr.ask.nofile = req->limits.nofile;
	jr.ask.nproc = req->limits.nproc;
	jr.workdir = workdir;
	jr.argv = req->argv;
	jr.envp = req->envp;
	jr.appcontainer = req->backend == CORDON_BACKEND_APPCONTAINER;
	/* appcontainer: its profile's name, and the sources it may read. */
	jr.run_id = req->run_id;
	jr.ro = ro;
	jr.nro = req->bindc;
	jr.require = req->require;
	jr.stop = broker_stop;

	if (job_win_create(&jr, &st.res, &st.run) < 0) {
		/* Undone already: no process, the workdir removed. */
		if (st.res.run.out.status == 126 ||
		    st.res.run.out.status == 127) {
			send_backend(req, &jr.ask);
			report_not_run();
			send_teardown();
			free(ro);
			free(workdir);
			return;
		}
		die("%s", st.res.err);
	}
	send_backend(req, &jr.ask);
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_CREATED;
	m.u.created.workdir = workdir;
	m.u.created.pid = st.res.pid;
	send_msg(&m);
	if (!wait_go())
		die("the broker did not let the run start (it is gone, or "
		    "could not record the run)");
	start = GetTickCount64();
	if (job_win_release(st.run, &st.res) < 0)
		die("%s", st.res.err);
	job_win_follow(st.run, &st.res);
	end_run();
	report_end(&jr, (uint64_t)(GetTickCount64() - start) * 1000000);
	/* Every process of the job is gone: the broker may copy files out. */
	if ((req->flags & CORDON_REQ_COPY_OUT) != 0 && !st.res.stopped)
		(void)wait_go();
	send_teardown();
	st.reported = true;
	free(ro);
	free(workdir);
}

/*
 * A PROBE: a job given a cap of each kind, read back (nothing started
 * in it), answered with BACKEND as a run would be: what applies here,
 * and why each other cap does not; or ERROR.
 */
static void
probe(const struct request *req)
{
	static const struct job_ask all = { 1000000000ULL, 1000000000ULL,
	    64ULL << 20, 0, 1 };

	if (job_win_probe(&all, req->backend == CORDON_BACKEND_APPCONTAINER,
	    &st.res) < 0)
		die("backend %s is not available: %s",
		    cordon_backend_name(req->backend), st.res.err);
	send_backend(req, &all);
}

int wmain(int argc, wchar_t **argv);

int
wmain(int argc, wchar_t **argv)
{
	struct request req;

	if (argc != 3 || wcscmp(argv[1], L"--channel") != 0 ||
	    !cordon_win_channel_parse(argv[2], &st.in, &st.out)) {
		fprintf(stderr, "cordon-helper: no channel: cordon-helper.exe "
		    "is started by cordon.exe (--channel IN,OUT), not by "
		    "hand\n");
		return 125;
	}
	/* First: the payload must never inherit the channel. */
	if (!SetHandleInformation(st.in, HANDLE_FLAG_INHERIT, 0) ||
	    !SetHandleInformation(st.out, HANDLE_FLAG_INHERIT, 0))
		die("cannot make the channel's handles private (error %lu)",
		    GetLastError());
	set_die_hook(on_die);
	intake_read_from(recv_frame, NULL, &req);
	check_request(&req);
	if (req.probe_only)
		probe(&req);
	else
		run(&req);
	request_free(&req);
	return 0;
}
