/*
 * runner.c - cordon-helper.exe (helper/main_win.c) driven as the broker
 * drives it, through broker/plat_win.c's channel, under Wine
 * (tests/windows/run.sh):
 *
 *   runner.exe HELPER.EXE KIDS.EXE BASE
 *
 * BASE is the workdir base in the only form the Windows wire takes,
 * "X:\\dir\\..." (common/host_win.c): Wine's Z: name of a Linux
 * directory.  One line per check,
 * "check: ok NAME" or "check: FAILED NAME (why)"; exits 1 if any failed.
 *
 * Checks: the sequence BACKEND (job), CREATED (workdir made, payload
 * held), GO, EXIT, TEARDOWN; exit codes 0 and 3 pass through, a missing
 * command is EXIT 127 with nothing run; --wall kills a sleeper with
 * CAP_HIT wall; a grandchild is dead after the run; the workdir is gone
 * after every run; cpu, memory and processes are not applied, with
 * Wine's read-back reason in BACKEND, and a required memory cap is an
 * ERROR with nothing run; EOF before GO runs nothing (the held payload
 * never writes its file) and removes the workdir; malformed requests
 * (a type out of sequence, an oversized ARG, an ENV without '=', a
 * REQUEST field out of range, an unknown backend, appcontainer where
 * Wine has none) are refused with
 * ERROR, exit 125 and no workdir; proxy variables never reach the
 * payload, whatever their case; the broker going away mid-run ends it;
 * frames broken below the message (a 4 GiB length, one shorter than a
 * header, one cut by EOF, another wire version) are refused; a PROBE is
 * answered; the payload does not inherit the channel's pipe handles.
 */
#include "config.h"

#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "plat.h"
#include "winutil.h"

#define RUN_ID "00112233445566778899aabbccddeeff"

static int failed;
static const char *helper, *kids, *base;
static char workdir[1024];

static void
check(int ok, const char *name, const char *why)
{
	printf("check: %s %s%s%s%s\n", ok ? "ok" : "FAILED", name,
	    ok ? "" : " (", ok ? "" : why, ok ? "" : ")");
	(void)fflush(stdout);
	failed |= !ok;
}

static bool
exists(const char *path)
{
	return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES;
}

/* One run's request. */
struct ask {
	uint64_t wall_ns, cpu_ns, memory_bytes, nproc;
	uint32_t require;
	uint8_t backend;
	const char *argv[6];
	const char *envp[4];
	uint32_t env_explicit;   /* the last ones of envp, set by name */
	uint32_t argc_claim;     /* != 0: the REQUEST announces this many */
	const char *base;        /* != NULL: the workdir base, else BASE */
};

/* What came back, in order. */
struct got {
	int r;                   /* the first channel error, or 0 */
	bool backend, created, cap_hit, exit, teardown, error;
	struct cordon_msg_backend be;
	char reason[CORDON_MAX_TEXT_LEN + 1];
	char created_dir[1024];
	bool dir_at_created;     /* the workdir existed at CREATED */
	uint8_t cap;
	uint8_t outcome;
	int32_t exit_code;
	char text[1024];         /* EXIT's or ERROR's text */
	bool teardown_ok;
	int status;              /* the helper's, as wait(2) encodes it */
	ULONGLONG ms;            /* GO to EXIT */
};

static int
send_msg(int sock, struct cordon_msg *m)
{
	return cordon_chan_send(sock, m);
}

static int
send_request(int sock, const struct ask *a, uint32_t argc, uint32_t envc)
{
	struct cordon_msg m;
	uint32_t i;
	int r;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_REQUEST;
	cordon_limits_default(&m.u.request.limits);
	/* cpu, wall and memory always have a cap (the defaults). */
	if (a->wall_ns != 0)
		m.u.request.limits.wall_ns = a->wall_ns;
	if (a->cpu_ns != 0)
		m.u.request.limits.cpu_ns = a->cpu_ns;
	if (a->memory_bytes != 0)
		m.u.request.limits.memory_bytes = a->memory_bytes;
	m.u.request.limits.nproc = a->nproc;
	m.u.request.backend = a->backend;
	m.u.request.require = a->require;
	m.u.request.run_id = RUN_ID;
	m.u.request.workdir_base = (char *)(uintptr_t)(a->base != NULL ?
	    a->base : base);
	m.u.request.argc = a->argc_claim != 0 ? a->argc_claim : argc;
	m.u.request.envc = envc;
	m.u.request.env_explicit = a->env_explicit;
	if ((r = send_msg(sock, &m)) < 0)
		return r;
	for (i = 0; i < argc; i++) {
		m.type = CORDON_MSG_ARG;
		m.u.str = (char *)(uintptr_t)a->argv[i];
		if ((r = send_msg(sock, &m)) < 0)
			return r;
	}
	for (i = 0; i < envc; i++) {
		m.type = CORDON_MSG_ENV;
		m.u.str = (char *)(uintptr_t)a->envp[i];
		if ((r = send_msg(sock, &m)) < 0)
			return r;
	}
	return 0;
}

static uint32_t
count(const char *const *v, size_t max)
{
	uint32_t n = 0;

	while (n < max && v[n] != NULL)
		n++;
	return n;
}

/*
 * One run: the request, then the events until the helper is done.  With
 * go false, our end is shut at CREATED instead of GO (the broker gone).
 * With stop_ms, our end is shut that long after GO.
 */
static void
run(const struct ask *a, bool go, DWORD stop_ms, struct got *g)
{
	struct cordon_msg m, gom;
	ULONGLONG t0 = 0;
	pid_t pid = -1;
	int sock = -1;

	memset(g, 0, sizeof(*g));
	memset(&gom, 0, sizeof(gom));
	gom.type = CORDON_MSG_GO;
	if ((g->r = cordon_start_helper_io(helper, &pid, &sock, -1, -1,
	    -1)) < 0)
		return;
	g->r = send_request(sock, a, count(a->argv, 6), count(a->envp, 4));
	while (g->r == 0 && cordon_chan_recv(sock, &m) == 0) {
		switch (m.type) {
		case CORDON_MSG_BACKEND:
			g->backend = true;
			g->be = m.u.backend;
			(void)snprintf(g->reason, sizeof(g->reason), "%s",
			    m.u.backend.reason);
			break;
		case CORDON_MSG_CREATED:
			g->created = true;
			(void)snprintf(g->created_dir, sizeof(g->created_dir),
			    "%s", m.u.created.workdir);
			g->dir_at_created = exists(m.u.created.workdir);
			if (!go) {
				cordon_chan_shut(sock);
				break;
			}
			t0 = GetTickCount64();
			(void)send_msg(sock, &gom);
			if (stop_ms != 0) {
				Sleep(stop_ms);
				cordon_chan_shut(sock);
			}
			break;
		case CORDON_MSG_CAP_HIT:
			g->cap_hit = true;
			g->cap = m.u.cap_hit.cap;
			break;
		case CORDON_MSG_EXIT:
			g->exit = true;
			g->ms = GetTickCount64() - t0;
			g->outcome = m.u.exit.outcome;
			g->cap = m.u.exit.cap;
			g->exit_code = m.u.exit.exit_code;
			(void)snprintf(g->text, sizeof(g->text), "%s",
			    m.u.exit.error);
			break;
		case CORDON_MSG_ERROR:
			g->error = true;
			(void)snprintf(g->text, sizeof(g->text), "%s",
			    m.u.error.message);
			break;
		case CORDON_MSG_TEARDOWN:
			g->teardown = true;
			g->teardown_ok = m.u.teardown.ok;
			break;
		default:
			break;
		}
		cordon_msg_clear(&m);
	}
	cordon_chan_close(sock);
	g->status = cordon_wait_helper(pid);
}

/* The usual run of kids.exe ARGS... */
static void
kids_ask(struct ask *a, const char *a1, const char *a2)
{
	memset(a, 0, sizeof(*a));
	a->wall_ns = 120ULL * 1000000000ULL;
	a->argv[0] = kids;
	a->argv[1] = a1;
	a->argv[2] = a2;
}

/* The sequence of a run that ended by itself with code. */
static void
exited(int code)
{
	char name[128], why[1200];
	struct ask a;
	struct got g;
	char arg[16];

	(void)snprintf(arg, sizeof(arg), "%d", code);
	kids_ask(&a, "exit", arg);
	run(&a, true, 0, &g);
	(void)snprintf(name, sizeof(name), "exit code %d passes through: "
	    "BACKEND job, CREATED with the workdir made, GO, EXIT, TEARDOWN, "
	    "the workdir gone", code);
	(void)snprintf(why, sizeof(why), "r=%d backend=%d(%u) created=%d "
	    "dir=%d exit=%d outcome=%u code=%ld teardown=%d/%d status=%d "
	    "left=%d text=%s", g.r, g.backend, g.be.backend, g.created,
	    g.dir_at_created, g.exit, g.outcome, (long)g.exit_code,
	    g.teardown, g.teardown_ok, g.status, exists(workdir), g.text);
	check(g.r == 0 && g.backend && g.be.backend == CORDON_BACKEND_JOB &&
	    g.created && g.dir_at_created &&
	    strcmp(g.created_dir, workdir) == 0 && g.exit &&
	    g.outcome == CORDON_OUTCOME_EXITED && g.exit_code == code &&
	    !g.cap_hit && !g.error && g.teardown && g.teardown_ok &&
	    g.status == 0 && !exists(workdir), name, why);
}

static void
not_found(void)
{
	struct ask a;
	struct got g;
	char why[1200];

	kids_ask(&a, NULL, NULL);
	a.argv[0] = "C:\\no\\such\\program.exe";
	run(&a, true, 0, &g);
	(void)snprintf(why, sizeof(why), "created=%d exit=%d code=%ld "
	    "text=%s", g.created, g.exit, (long)g.exit_code, g.text);
	check(g.backend && !g.created && g.exit &&
	    g.outcome == CORDON_OUTCOME_EXITED && g.exit_code == 127 &&
	    strstr(g.text, "not found") != NULL && g.teardown &&
	    g.teardown_ok && !exists(workdir), "a command that does not "
	    "exist: EXIT 127 saying so, no CREATED, the workdir gone", why);
}

static void
wall(void)
{
	struct ask a;
	struct got g;
	char why[1200];

	kids_ask(&a, "sleep", "60000");
	a.wall_ns = 1000000000ULL;
	run(&a, true, 0, &g);
	(void)snprintf(why, sizeof(why), "cap_hit=%d cap=%u outcome=%u "
	    "ms=%llu left=%d", g.cap_hit, g.cap, g.outcome,
	    (unsigned long long)g.ms, exists(workdir));
	check(g.cap_hit && g.cap == CORDON_CAP_WALL &&
	    g.outcome == CORDON_OUTCOME_CAP_HIT && g.ms < 20000 &&
	    g.teardown_ok && !exists(workdir), "--wall 1 s ends a sleeper: "
	    "CAP_HIT wall, EXIT cap_hit, the workdir gone", why);
}

/* Whether the process pid (written to file by kids.exe) is alive. */
static int
pid_alive(const char *file, unsigned long *pid)
{
	FILE *f = fopen(file, "r");
	HANDLE h;
	int alive;

	*pid = 0;
	if (f == NULL)
		return -1;
	if (fscanf(f, "%lu", pid) != 1)
		*pid = 0;
	(void)fclose(f);
	if (*pid == 0)
		return -1;
	h = OpenProcess(SYNCHRONIZE | PROCESS_TERMINATE, FALSE, *pid);
	if (h == NULL)
		return 0;
	alive = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
	if (alive)
		(void)TerminateProcess(h, 1);
	(void)CloseHandle(h);
	return alive;
}

static void
grandchild(const char *scratch)
{
	char file[1100], why[256];
	unsigned long pid = 0;
	struct ask a;
	struct got g;
	int alive;

	(void)snprintf(file, sizeof(file), "%s\\gc.pid", scratch);
	kids_ask(&a, "grandchild", file);
	run(&a, true, 0, &g);
	alive = pid_alive(file, &pid);
	(void)snprintf(why, sizeof(why), "code=%ld pid=%lu alive=%d",
	    (long)g.exit_code, pid, alive);
	check(g.exit && g.exit_code == 0 && alive == 0 && !exists(workdir),
	    "a grandchild is dead after the run, the workdir gone", why);
}

/* The job read back no limit under Wine: said in BACKEND, and refused. */
static void
applied(const char *scratch)
{
	static const char wine_why[] = "the job read back no limit (Wine "
	    "accepts job limits and enforces none)";
	uint32_t no = 1U << CORDON_CAP_CPU | 1U << CORDON_CAP_MEMORY |
	    1U << CORDON_CAP_NPROC;
	char file[1100], why[1400];
	unsigned long pid = 0;
	struct ask a;
	struct got g;

	kids_ask(&a, "exit", "0");
	a.cpu_ns = 5000000000ULL;
	a.memory_bytes = 64ULL << 20;
	a.nproc = 4;
	run(&a, true, 0, &g);
	(void)snprintf(why, sizeof(why), "applied=%#x reason=%s",
	    (unsigned)g.be.applied, g.reason);
	check(g.backend && (g.be.applied & no) == 0 &&
	    (g.be.applied & (1U << CORDON_CAP_WALL)) != 0 &&
	    strstr(g.reason, "cpu: ") != NULL &&
	    strstr(g.reason, "memory: ") != NULL &&
	    strstr(g.reason, "processes: ") != NULL &&
	    strstr(g.reason, wine_why) != NULL && g.exit &&
	    g.exit_code == 0, "cpu, memory and processes are not applied, "
	    "with Wine's read-back reason in BACKEND; wall is", why);

	(void)snprintf(file, sizeof(file), "%s\\req.pid", scratch);
	kids_ask(&a, "grandchild", file);
	a.memory_bytes = 64ULL << 20;
	a.require = 1U << CORDON_CAP_MEMORY;
	run(&a, true, 0, &g);
	(void)snprintf(why, sizeof(why), "backend=%d created=%d error=%d "
	    "text=%s status=%d ran=%d", g.backend, g.created, g.error, g.text,
	    g.status, pid_alive(file, &pid) >= 0);
	check(!g.created && g.error && strstr(g.text, "--require memory: "
	    "not applied: ") != NULL && strstr(g.text, wine_why) != NULL &&
	    g.status == 125 << 8 && pid_alive(file, &pid) == -1 &&
	    !exists(workdir), "a required memory cap Wine does not apply: "
	    "ERROR, exit 125, nothing run, no workdir", why);
}

/* EOF instead of GO: the held payload never runs. */
static void
eof_before_go(const char *scratch)
{
	char file[1100], why[1400];
	unsigned long pid = 0;
	struct ask a;
	struct got g;

	(void)snprintf(file, sizeof(file), "%s\\eof.pid", scratch);
	kids_ask(&a, "grandchild", file);
	run(&a, false, 0, &g);
	Sleep(500); /* a payload let go would have written by now */
	(void)snprintf(why, sizeof(why), "created=%d dir=%d exit=%d "
	    "error=%d teardown=%d/%d status=%d ran=%d text=%s", g.created,
	    g.dir_at_created, g.exit, g.error, g.teardown, g.teardown_ok,
	    g.status, pid_alive(file, &pid) >= 0, g.text);
	check(g.created && g.dir_at_created && !g.exit && g.error &&
	    g.teardown && g.teardown_ok && g.status == 125 << 8 &&
	    pid_alive(file, &pid) == -1 && !exists(workdir), "EOF before GO: "
	    "the held payload never runs, ERROR and TEARDOWN, the workdir "
	    "gone", why);
}

/* The broker gone while the payload runs: the run ends, nothing left. */
static void
eof_while_running(void)
{
	struct ask a;
	struct got g;
	char why[1400];

	kids_ask(&a, "sleep", "60000");
	run(&a, true, 300, &g);
	(void)snprintf(why, sizeof(why), "exit=%d outcome=%u text=%s ms=%llu "
	    "status=%d", g.exit, g.outcome, g.text, (unsigned long long)g.ms,
	    g.status);
	check(g.exit && g.outcome == CORDON_OUTCOME_SANDBOX_ERROR &&
	    strstr(g.text, "broker went away") != NULL && g.ms < 20000 &&
	    g.status == 0 && !exists(workdir), "the broker gone mid-run: "
	    "the payload ends, sandbox_error, the workdir gone", why);
}

/* Whether a message is the ERROR (its text kept) or anything else. */
static void
tally(struct cordon_msg *m, bool *error, bool *other, char *text,
    size_t textsz)
{
	if (m->type == CORDON_MSG_ERROR) {
		*error = true;
		(void)snprintf(text, textsz, "%s", m->u.error.message);
	} else {
		*other = true;
	}
	cordon_msg_clear(m);
}

/* A malformed request: ERROR naming it, 125, no workdir, no BACKEND. */
static void
refused(const char *name, int sock, pid_t pid, const char *want)
{
	struct cordon_msg m;
	bool error = false, other = false;
	char text[1024] = "", why[1400];
	int status;

	while (cordon_chan_recv(sock, &m) == 0)
		tally(&m, &error, &other, text, sizeof(text));
	cordon_chan_close(sock);
	status = cordon_wait_helper(pid);
	(void)snprintf(why, sizeof(why), "error=%d other=%d status=%d "
	    "text=%s", error, other, status, text);
	check(error && !other && status == 125 << 8 &&
	    strstr(text, want) != NULL && !exists(workdir), name, why);
}

static const char *const bad_bases[] = {
	"/tmp/cordon", "C:cordon", "C:/cordon", "\\\\server\\share\\runs",
	"\\\\?\\C:\\runs", "C:\\runs\\..\\..\\Windows", "C:\\runs\\NUL",
	"C:\\runs:ads", "C:\\runs.",
};

static void
malformed(void)
{
	struct cordon_msg m;
	struct ask a;
	char *big;
	pid_t pid = -1;
	int sock = -1;

	/* An ARG where the REQUEST must come. */
	if (cordon_start_helper_io(helper, &pid, &sock, -1, -1, -1) == 0) {
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_ARG;
		m.u.str = "x";
		(void)send_msg(sock, &m);
		refused("attack: an ARG before the REQUEST is refused, "
		    "undecoded", sock, pid, "unexpected message type 2");
	}
	/* An ARG one byte over the bound (the frame itself fits). */
	big = malloc(CORDON_MAX_ARG_LEN + 2);
	if (big != NULL && cordon_start_helper_io(helper, &pid, &sock, -1,
	    -1, -1) == 0) {
		memset(big, 'a', CORDON_MAX_ARG_LEN + 1);
		big[CORDON_MAX_ARG_LEN + 1] = '\0';
		kids_ask(&a, big, NULL);
		(void)send_request(sock, &a, 2, 0);
		refused("attack: an ARG over its bound is refused", sock, pid,
		    "reading the request");
	}
	free(big);
	/* An ENV that is no KEY=VALUE. */
	if (cordon_start_helper_io(helper, &pid, &sock, -1, -1, -1) == 0) {
		kids_ask(&a, "exit", "0");
		a.envp[0] = "NOEQUALS";
		(void)send_request(sock, &a, 3, 1);
		refused("attack: an ENV without '=' is refused", sock, pid,
		    "reading the request");
	}
	/* Fewer ARGs than the REQUEST announced, then EOF. */
	if (cordon_start_helper_io(helper, &pid, &sock, -1, -1, -1) == 0) {
		kids_ask(&a, "exit", "0");
		a.argc_claim = 3;
		(void)send_request(sock, &a, 2, 0);
		cordon_chan_shut(sock);
		refused("a request cut short is refused", sock, pid,
		    "reading the request");
	}
	/* A backend this helper does not run. */
	if (cordon_start_helper_io(helper, &pid, &sock, -1, -1, -1) == 0) {
		kids_ask(&a, "exit", "0");
		a.backend = CORDON_BACKEND_LINUX_NS;
		(void)send_request(sock, &a, 3, 0);
		refused("backend linux-ns is refused on Windows", sock, pid,
		    "not available on Windows");
	}
	/* AppContainer, where userenv.dll lacks it (Wine): refused first. */
	if (cordon_start_helper_io(helper, &pid, &sock, -1, -1, -1) == 0) {
		kids_ask(&a, "exit", "0");
		a.backend = CORDON_BACKEND_APPCONTAINER;
		(void)send_request(sock, &a, 3, 0);
		refused("backend appcontainer under Wine: refused naming the "
		    "missing function, nothing made", sock, pid,
		    "userenv.dll has no CreateAppContainerProfile");
	}
	/*
	 * Workdir bases Win32 would read as relative, UNC, a device or a
	 * stream, or rewrite: the wire's decoder refuses each
	 * (common/host_win.c), before any directory is made.
	 */
	for (size_t i = 0; i < sizeof(bad_bases) / sizeof(bad_bases[0]); i++) {
		char name[160];

		if (cordon_start_helper_io(helper, &pid, &sock, -1, -1, -1) != 0)
			continue;
		kids_ask(&a, "exit", "0");
		a.base = bad_bases[i];
		(void)send_request(sock, &a, 3, 0);
		(void)snprintf(name, sizeof(name), "attack: the workdir base "
		    "'%s' is refused, nothing made", bad_bases[i]);
		refused(name, sock, pid, "reading the request");
	}
	/* An inherited variable off the allow-list. */
	if (cordon_start_helper_io(helper, &pid, &sock, -1, -1, -1) == 0) {
		kids_ask(&a, "exit", "0");
		a.envp[0] = "http_proxy=http://proxy.invalid:3128";
		(void)send_request(sock, &a, 3, 1);
		refused("an inherited proxy variable is refused", sock, pid,
		    "not on the allow-list");
	}
}

/*
 * Raw bytes on the helper's channel, not through plat_win.c's encoder:
 * the helper is started here with two pipes of our own, given n bytes
 * and EOF.  It must answer ERROR naming want and exit 125, nothing made.
 */
/* A helper started here on two pipes of our own (raw_start, raw_end). */
struct raw {
	HANDLE in_w, out_r;        /* ours: we write, we read */
	PROCESS_INFORMATION pi;
	char channel[64];          /* "IN,OUT": the helper's handle values */
};

/*
 * Starts `"prog" PREFIX IN,OUT` with the two pipe ends it is to use
 * inherited (and every other inheritable handle of ours: none).
 */
static bool
raw_start(struct raw *r, const char *prog, const char *prefix)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	HANDLE in_r = NULL, out_w = NULL;
	STARTUPINFOA si;
	char cmd[1200];
	bool ok;

	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	memset(r, 0, sizeof(*r));
	if (!CreatePipe(&in_r, &r->in_w, &sa, 0) ||
	    !CreatePipe(&r->out_r, &out_w, &sa, 0) ||
	    !SetHandleInformation(r->in_w, HANDLE_FLAG_INHERIT, 0) ||
	    !SetHandleInformation(r->out_r, HANDLE_FLAG_INHERIT, 0))
		return false;
	(void)snprintf(r->channel, sizeof(r->channel), "%llu,%llu",
	    (unsigned long long)(uintptr_t)in_r,
	    (unsigned long long)(uintptr_t)out_w);
	(void)snprintf(cmd, sizeof(cmd), "\"%s\" %s%s", prog, prefix,
	    r->channel);
	ok = CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si,
	    &r->pi);
	(void)CloseHandle(in_r);
	(void)CloseHandle(out_w);
	return ok;
}

/* Closes our ends and waits for the process: its exit code. */
static DWORD
raw_end(struct raw *r)
{
	DWORD code = 0;

	if (r->in_w != NULL)
		(void)CloseHandle(r->in_w);
	(void)CloseHandle(r->out_r);
	(void)WaitForSingleObject(r->pi.hProcess, 20000);
	(void)GetExitCodeProcess(r->pi.hProcess, &code);
	(void)CloseHandle(r->pi.hProcess);
	(void)CloseHandle(r->pi.hThread);
	return code;
}

static void
raw_frame(const uint8_t *bytes, size_t n, const char *name, const char *want)
{
	struct raw r;
	struct cordon_msg m;
	char text[1024] = "", why[1400];
	DWORD put = 0, code = 0;
	bool error = false, other = false;

	if (!raw_start(&r, helper, "--channel ")) {
		check(0, name, "cannot start the helper");
		return;
	}
	(void)WriteFile(r.in_w, bytes, (DWORD)n, &put, NULL);
	(void)CloseHandle(r.in_w);
	r.in_w = NULL;
	while (cordon_frame_recv(cordon_win_pipe_read, r.out_r,
	    cordon_msg_decode_any, 0, &m) == 0)
		tally(&m, &error, &other, text, sizeof(text));
	code = raw_end(&r);
	(void)snprintf(why, sizeof(why), "error=%d other=%d exit=%lu text=%s",
	    error, other, (unsigned long)code, text);
	check(error && !other && code == 125 && strstr(text, want) != NULL &&
	    !exists(workdir), name, why);
}

/*
 * The payload never holds the channel: the helper makes its two pipe
 * handles non-inheritable before anything else (main_win.c), so
 * kids.exe, told their values, finds no pipe there.  The control: a
 * kids.exe started here with the same kind of inheritable pipes does
 * find them, so the look can see an inherited one.
 */
static void
channel_not_inherited(void)
{
	struct cordon_msg m, gom;
	struct raw r;
	const char *argv[] = { kids, "pipes", NULL };
	char why[256];
	int32_t code = -2;
	DWORD ctl;

	memset(&gom, 0, sizeof(gom));
	gom.type = CORDON_MSG_GO;
	if (!raw_start(&r, kids, "pipes ")) {
		check(0, "control: kids.exe sees pipes it inherited", "start");
		return;
	}
	ctl = raw_end(&r);
	(void)snprintf(why, sizeof(why), "kids.exe exited %lu",
	    (unsigned long)ctl);
	check(ctl == 1, "control: kids.exe sees pipes it inherited", why);

	if (!raw_start(&r, helper, "--channel ")) {
		check(0, "attack: the payload does not inherit the channel",
		    "cannot start the helper");
		return;
	}
	argv[2] = r.channel;
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_REQUEST;
	cordon_limits_default(&m.u.request.limits);
	m.u.request.run_id = RUN_ID;
	m.u.request.workdir_base = (char *)(uintptr_t)base;
	m.u.request.argc = 3;
	(void)cordon_frame_send(cordon_win_pipe_write, r.in_w, &m);
	for (size_t i = 0; i < 3; i++) {
		m.type = CORDON_MSG_ARG;
		m.u.str = (char *)(uintptr_t)argv[i];
		(void)cordon_frame_send(cordon_win_pipe_write, r.in_w, &m);
	}
	while (cordon_frame_recv(cordon_win_pipe_read, r.out_r,
	    cordon_msg_decode_any, 0, &m) == 0) {
		if (m.type == CORDON_MSG_CREATED)
			(void)cordon_frame_send(cordon_win_pipe_write, r.in_w,
			    &gom);
		if (m.type == CORDON_MSG_EXIT)
			code = m.u.exit.exit_code;
		cordon_msg_clear(&m);
		if (code != -2)
			break;
	}
	ctl = raw_end(&r);
	(void)snprintf(why, sizeof(why), "payload exit %ld (1: it found a "
	    "channel pipe), helper exit %lu", (long)code, (unsigned long)ctl);
	check(code == 0 && ctl == 0 && !exists(workdir), "attack: the payload "
	    "does not inherit the channel's pipe handles", why);
}

/* Frames broken below the messages: length, header, end of stream. */
static void
bad_frames(void)
{
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 0, 1, 0, 1 };
	static const uint8_t tiny[] = { 0, 0, 0, 2, 0, 1 };
	static const uint8_t cut[] = { 0, 0, 0, 100, 0, 1, 0, 1, 0, 0 };
	static const uint8_t version[] = { 0, 0, 0, 4, 0, 9, 0, 1 };

	raw_frame(huge, sizeof(huge), "attack: a frame length of 4 GiB is "
	    "refused as too long (frame.c checks it before allocating)",
	    "too long");
	raw_frame(tiny, sizeof(tiny), "attack: a frame shorter than a "
	    "header is refused", "malformed message");
	raw_frame(cut, sizeof(cut), "a frame cut short by EOF is refused",
	    "message truncated");
	raw_frame(version, sizeof(version), "a frame of another wire version "
	    "is refused", "reading the request");
}

/* A PROBE: BACKEND from a job read back, or ERROR; nothing is made. */
static void
probes(void)
{
	static const uint8_t want[] = { CORDON_BACKEND_AUTO,
	    CORDON_BACKEND_APPCONTAINER };
	struct cordon_msg m;
	bool backend, error;
	char text[1024], why[1400];
	uint32_t applied;
	pid_t pid = -1;
	int sock = -1, status;
	size_t i;

	for (i = 0; i < sizeof(want); i++) {
		if (cordon_start_helper_io(helper, &pid, &sock, -1, -1, -1))
			continue;
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_PROBE;
		m.u.probe_backend = want[i];
		(void)send_msg(sock, &m);
		backend = error = false;
		applied = 0;
		text[0] = '\0';
		while (cordon_chan_recv(sock, &m) == 0) {
			backend |= m.type == CORDON_MSG_BACKEND &&
			    m.u.backend.backend == CORDON_BACKEND_JOB;
			if (m.type == CORDON_MSG_BACKEND)
				applied = m.u.backend.applied;
			error |= m.type == CORDON_MSG_ERROR;
			if (m.type == CORDON_MSG_BACKEND ||
			    m.type == CORDON_MSG_ERROR)
				(void)snprintf(text, sizeof(text), "%s",
				    m.type == CORDON_MSG_ERROR ?
				    m.u.error.message : m.u.backend.reason);
			cordon_msg_clear(&m);
		}
		cordon_chan_close(sock);
		status = cordon_wait_helper(pid);
		(void)snprintf(why, sizeof(why), "backend=%d error=%d "
		    "applied=%#x status=%d text=%s", backend, error,
		    (unsigned)applied, status, text);
		if (i == 0)
			check(backend && !error && status == 0 &&
			    (applied & (1U << CORDON_CAP_WALL)) != 0 &&
			    (applied & (1U << CORDON_CAP_MEMORY)) == 0 &&
			    strstr(text, "memory: the job read back no "
			    "limit") != NULL && !exists(workdir), "a PROBE: "
			    "BACKEND job, memory not applied with Wine's "
			    "reason, nothing made", why);
		else
			check(!backend && error && status == 125 << 8 &&
			    strstr(text, "no CreateAppContainerProfile") !=
			    NULL, "a PROBE of appcontainer under Wine: ERROR "
			    "naming why", why);
	}
}

/* The payload's environment: set by name, but never a proxy. */
static void
environment(void)
{
	static const char *const proxies[] = { "Http_Proxy", "HTTPS_PROXY",
	    "all_proxy" };
	char name[128], entry[128];
	struct ask a;
	struct got g;
	size_t i;

	for (i = 0; i < sizeof(proxies) / sizeof(proxies[0]); i++) {
		kids_ask(&a, "getenv", proxies[i]);
		(void)snprintf(entry, sizeof(entry), "%s=http://proxy.invalid",
		    proxies[i]);
		a.envp[0] = entry;
		a.env_explicit = 1;
		run(&a, true, 0, &g);
		(void)snprintf(name, sizeof(name), "the proxy variable %s, "
		    "set by name, does not reach the payload", proxies[i]);
		check(g.exit && g.exit_code == 1, name, g.text);
	}
	kids_ask(&a, "getenv", "CORDON_SET");
	a.envp[0] = "CORDON_SET=1";
	a.env_explicit = 1;
	run(&a, true, 0, &g);
	check(g.exit && g.exit_code == 0, "control: a variable set by name "
	    "reaches the payload", g.text);
	kids_ask(&a, "getenv", "TEMP");
	a.envp[0] = "TEMP=C:\\elsewhere";
	a.env_explicit = 1;
	run(&a, true, 0, &g);
	/* kids.exe prints it on our stdout: run.sh finds the workdir. */
	check(g.exit && g.exit_code == 0, "TEMP set by name: the run goes on "
	    "(run.sh checks the value printed is the workdir)", g.text);
}

int
main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: runner.exe HELPER KIDS BASE SCRATCH\n");
		return 2;
	}
	helper = argv[1];
	kids = argv[2];
	base = argv[3];
	(void)snprintf(workdir, sizeof(workdir), "%s\\%s", base, RUN_ID);
	exited(0);
	exited(3);
	not_found();
	wall();
	grandchild(argv[4]);
	applied(argv[4]);
	eof_before_go(argv[4]);
	eof_while_running();
	malformed();
	bad_frames();
	channel_not_inherited();
	probes();
	environment();
	return failed;
}
