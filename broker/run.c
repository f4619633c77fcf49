/*
 * run.c - cordon_run(): validate, record, start the helper, follow its
 * events into the result and the trace.
 *
 * The order is the contract: the request is validated first (bad input
 * changes nothing), then the run and its "create" event are committed to
 * the trace, and only then is the helper started.  If the create cannot be
 * recorded, nothing runs.  From that point on every failure is recorded as
 * a sandbox error of that run, never as the payload's failure.
 *
 * The trace is written in three transactions: create (before the start),
 * backend + created (once the payload runs), and everything else with the
 * final record.  A broker killed mid-run leaves a row without an outcome,
 * which `cordon gc` later marks as a sandbox error (trace.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bsd/unistd.h>

#include "env.h"
#include "internal.h"
#include "trace.h"
#include "wire.h"

#define MAX_EVENTS 16

/* Events received but not yet committed to the trace. */
struct pending {
	struct cordon_trace_event ev[MAX_EVENTS];
	size_t n;
};

static void
pending_add(struct pending *p, const char *kind, char *detail)
{
	if (detail == NULL)
		return; /* out of memory: the record itself still lands */
	if (p->n == MAX_EVENTS) {
		free(detail);
		return;
	}
	p->ev[p->n].ts_ms = cordon_now_ms();
	p->ev[p->n].kind = kind;
	p->ev[p->n].detail = detail;
	p->n++;
}

static void
pending_clear(struct pending *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->ev[i].detail);
	p->n = 0;
}

static char *
xfmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

static char *
xfmt(const char *f, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Sets r->error once; the first error is the one worth reading. */
static void
set_error(struct cordon_result *r, const char *msg)
{
	if (r->error == NULL || r->error[0] == '\0') {
		free(r->error);
		r->error = strdup(msg);
	}
}

/* Checks argv the way the helper will, so bad input fails before the trace. */
static int
check_argv(char *const argv[], size_t *argc)
{
	size_t n, total = 0, len;

	if (argv == NULL || argv[0] == NULL || argv[0][0] == '\0')
		return -CORDON_E_INVAL;
	for (n = 0; argv[n] != NULL; n++) {
		if (n >= CORDON_MAX_ARGC)
			return -CORDON_E_TOOLONG;
		len = strlen(argv[n]);
		if (len > CORDON_MAX_ARG_LEN)
			return -CORDON_E_TOOLONG;
		total += len + 1;
		if (total > CORDON_MAX_ARGV_BYTES)
			return -CORDON_E_TOOLONG;
	}
	*argc = n;
	return 0;
}

/* The environment the payload may see, from the allow-list. */
static int
collect_env(char ***out, uint32_t *n)
{
	char **v;
	size_t i, k = 0;

	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		;
	if ((v = calloc(i + 1, sizeof(*v))) == NULL)
		return -CORDON_E_NOMEM;
	for (i = 0; environ != NULL && environ[i] != NULL; i++) {
		if (k >= CORDON_MAX_ENVC)
			break;
		if (strchr(environ[i], '=') != NULL && environ[i][0] != '=' &&
		    strlen(environ[i]) <= CORDON_MAX_ARG_LEN &&
		    cordon_env_allowed(environ[i]))
			v[k++] = environ[i];
	}
	*out = v;
	*n = (uint32_t)k;
	return 0;
}

static int
fill_record(const cordon_config *cfg, char *const argv[], size_t argc,
    struct cordon_result *r)
{
	char cwd[CORDON_MAX_PATH_LEN + 1], pwbuf[CORDON_PW_BUF_LEN];
	struct passwd pw;
	size_t i;
	int err;

	memset(r, 0, sizeof(*r));
	if ((err = cordon_new_run_id(r->run_id)) < 0)
		return err;
	r->created_ms = cordon_now_ms();
	r->argc = argc;
	if ((r->argv = calloc(argc + 1, sizeof(char *))) == NULL)
		return -CORDON_E_NOMEM;
	for (i = 0; i < argc; i++)
		if ((r->argv[i] = strdup(argv[i])) == NULL)
			return -CORDON_E_NOMEM;
	if (getcwd(cwd, sizeof(cwd)) != NULL &&
	    (r->cwd = strdup(cwd)) == NULL)
		return -CORDON_E_NOMEM;
	r->uid = (uint32_t)getuid();
	if (cordon_getpw(getuid(), &pw, pwbuf, sizeof(pwbuf)) == 0 &&
	    (r->user = strdup(pw.pw_name)) == NULL)
		return -CORDON_E_NOMEM;
	r->backend_requested = cfg->backend;
	r->limits = cfg->limits;
	r->network = cfg->network;
	r->exit_code = -1;
	r->workdir_removed = -1;
	r->broker_pid = (uint32_t)getpid();
	r->broker_start = cordon_proc_start_time(r->broker_pid);
	return 0;
}

/*
 * Starts the helper with its end of a fresh socketpair on fd 3 and an
 * empty environment; it needs nothing of ours but the request.  Only the
 * sanitizer build (for tests; configure refuses it for a setuid helper)
 * passes the sanitizer options on, so that the helper's reports land
 * where the test suite collects them (tests/sanitized.sh).
 */
int
cordon_start_helper(const char *path, pid_t *pid, int *sock)
{
	char *henv[5] = { NULL, NULL, NULL, NULL, NULL };
	char *const hargv[] = { "cordon-helper", NULL };
	char **e;
	int sv[2], n = 0;
#ifdef CORDON_SANITIZERS
	size_t i, k = 0;

	for (i = 0; environ != NULL && environ[i] != NULL && k < 3; i++)
		if (strncmp(environ[i], "ASAN_OPTIONS=", 13) == 0 ||
		    strncmp(environ[i], "UBSAN_OPTIONS=", 14) == 0 ||
		    strncmp(environ[i], "LSAN_OPTIONS=", 13) == 0)
			henv[k++] = environ[i];
#endif
	/*
	 * Tests only: the cgroup a non-setuid helper puts its runs under
	 * (a setuid helper ignores it: the system's choice stands).
	 */
	while (henv[n] != NULL)
		n++;
	for (e = environ; e != NULL && *e != NULL; e++)
		if (strncmp(*e, "CORDON_CGROUP_PARENT=", 21) == 0)
			henv[n] = *e;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -CORDON_E_HELPER;
	*pid = fork();
	if (*pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -CORDON_E_HELPER;
	}
	if (*pid == 0) {
		/* dup2 clears close-on-exec; fd 3 already being sv[1] does not. */
		if (sv[1] == CORDON_HELPER_FD) {
			if (fcntl(sv[1], F_SETFD, 0) < 0)
				_exit(127);
		} else if (dup2(sv[1], CORDON_HELPER_FD) < 0) {
			_exit(127);
		}
		closefrom(CORDON_HELPER_FD + 1);
		execve(path, hargv, henv);
		_exit(127);
	}
	close(sv[1]);
	*sock = sv[0];
	return 0;
}

int
cordon_wait_helper(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

static int
send_request(int sock, const cordon_config *cfg, const char *base,
    const struct cordon_result *r, char **envp, uint32_t envc)
{
	struct cordon_msg m;
	size_t i;
	int err;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_REQUEST;
	m.u.request.flags = cfg->network ? CORDON_REQ_NETWORK : 0;
	m.u.request.backend = (uint8_t)cfg->backend;
	m.u.request.limits = cfg->limits;
	m.u.request.run_id = (char *)(uintptr_t)r->run_id;
	m.u.request.workdir_base = (char *)(uintptr_t)base;
	m.u.request.argc = (uint32_t)r->argc;
	m.u.request.envc = envc;
	if ((err = cordon_msg_send(sock, &m)) < 0)
		return err;
	for (i = 0; i < r->argc; i++) {
		m.type = CORDON_MSG_ARG;
		m.u.str = r->argv[i];
		if ((err = cordon_msg_send(sock, &m)) < 0)
			return err;
	}
	for (i = 0; i < envc; i++) {
		m.type = CORDON_MSG_ENV;
		m.u.str = envp[i];
		if ((err = cordon_msg_send(sock, &m)) < 0)
			return err;
	}
	return 0;
}

static char *
exit_detail(const struct cordon_msg_exit *e)
{
	switch (e->outcome) {
	case CORDON_OUTCOME_EXITED:
		return xfmt("exited with status %d%s%s", e->exit_code,
		    e->error[0] != '\0' ? ": " : "", e->error);
	case CORDON_OUTCOME_SIGNALED:
		return xfmt("killed by signal %d%s%s", e->signal,
		    e->error[0] != '\0' ? ": " : "", e->error);
	case CORDON_OUTCOME_CAP_HIT:
		return xfmt("%s cap hit; tree killed", cordon_cap_name(e->cap));
	default:
		return xfmt("sandbox error: %s", e->error);
	}
}

static char *
cap_detail(const struct cordon_msg_cap_hit *c)
{
	switch (c->cap) {
	case CORDON_CAP_CPU:
	case CORDON_CAP_WALL:
		return xfmt("%s: %.3f s reached the cap of %.3f s",
		    cordon_cap_name(c->cap), (double)c->observed / 1e9,
		    (double)c->limit / 1e9);
	default:
		return xfmt("%s: %llu reached the cap of %llu",
		    cordon_cap_name(c->cap), (unsigned long long)c->observed,
		    (unsigned long long)c->limit);
	}
}

/* Applies one helper event to the record; true once the run is over. */
static bool
apply_event(struct cordon_trace *t, struct cordon_result *r,
    struct pending *p, struct cordon_msg *m)
{
	switch (m->type) {
	case CORDON_MSG_BACKEND:
		r->backend = (enum cordon_backend_id)m->u.backend.backend;
		r->applied = m->u.backend.applied;
		r->kernel_enforced = m->u.backend.kernel;
		free(r->backend_reason);
		r->backend_reason = strdup(m->u.backend.reason);
		pending_add(p, "backend", xfmt("%s (%s)",
		    cordon_backend_name(r->backend), m->u.backend.reason));
		break;
	case CORDON_MSG_CREATED:
		free(r->workdir);
		r->workdir = strdup(m->u.created.workdir);
		pending_add(p, "created", xfmt("workdir %s, payload pid %u",
		    m->u.created.workdir, m->u.created.pid));
		/* The payload runs: commit what we know so far. */
		if (cordon_trace_events_add(t, r->run_id, p->ev, p->n) == 0)
			pending_clear(p);
		break;
	case CORDON_MSG_CAP_HIT:
		pending_add(p, "cap_hit", cap_detail(&m->u.cap_hit));
		break;
	case CORDON_MSG_EXIT:
		r->outcome = m->u.exit.outcome;
		r->cap = m->u.exit.cap;
		r->exit_code = m->u.exit.exit_code;
		r->signal = m->u.exit.signal;
		r->cpu_ns = m->u.exit.cpu_ns;
		r->wall_ns = m->u.exit.wall_ns;
		r->max_rss = m->u.exit.max_rss;
		if (m->u.exit.error[0] != '\0')
			set_error(r, m->u.exit.error);
		pending_add(p, "exit", exit_detail(&m->u.exit));
		break;
	case CORDON_MSG_ERROR:
		r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		set_error(r, m->u.error.message);
		pending_add(p, "error", strdup(m->u.error.message));
		break;
	case CORDON_MSG_TEARDOWN:
		r->workdir_removed = m->u.teardown.ok ? 1 : 0;
		pending_add(p, "teardown", m->u.teardown.ok ?
		    strdup(r->workdir != NULL ? "workdir removed" :
		    "nothing to remove") :
		    xfmt("teardown failed: %s", m->u.teardown.error));
		if (!m->u.teardown.ok)
			set_error(r, m->u.teardown.error);
		return true;
	default:
		r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		set_error(r, "the helper sent a message that is not an event");
		return true;
	}
	return false;
}

/*
 * How long after the wall cap the broker gives the helper to finish the
 * kill and the teardown before it stops waiting.  On the floor the payload
 * runs as the same user and can SIGSTOP its helper; without this bound
 * the broker would wait forever.
 */
#define HELPER_GRACE_MS 60000
/* After a SIGCONT, how long it gets before it is killed. */
#define HELPER_CONT_GRACE_MS 10000

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Follows the helper until TEARDOWN, EOF, a protocol error or deadline_ms. */
static void
follow(struct cordon_trace *t, struct cordon_result *r, struct pending *p,
    int sock, pid_t helper, int cancel_fd, int64_t deadline_ms)
{
	struct pollfd pfd[2];
	struct cordon_msg m;
	bool cancelled = false, continued = false, over = false;
	int64_t left;
	int err, n;

	pfd[0].fd = sock;
	pfd[0].events = POLLIN;
	pfd[1].fd = cancel_fd;
	pfd[1].events = POLLIN;
	while (!over) {
		pfd[1].fd = cancelled ? -1 : cancel_fd;
		/* Skipping poll (deadline passed) must not leave stale events. */
		pfd[0].revents = pfd[1].revents = 0;
		left = deadline_ms - mono_ms();
		n = left <= 0 ? 0 : poll(pfd, 2, left > INT32_MAX ? INT32_MAX :
		    (int)left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			set_error(r, "poll failed while following the helper");
			return;
		}
		if (n == 0 && mono_ms() >= deadline_ms && !continued) {
			/*
			 * Probably stopped (SIGSTOP from the payload): let it
			 * run again, and it ends the run itself - the wall cap
			 * is long past.
			 */
			(void)kill(helper, SIGCONT);
			continued = true;
			deadline_ms = mono_ms() + HELPER_CONT_GRACE_MS;
			pending_add(p, "error", strdup("the helper had not ended "
			    "the run by the wall cap plus a grace period; sent "
			    "SIGCONT"));
			continue;
		}
		if (n == 0 && mono_ms() >= deadline_ms) {
			/* Stuck: kill it; recover() reclaims its workdir. */
			(void)kill(helper, SIGKILL);
			r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
			set_error(r, "the helper did not end the run in time and "
			    "was killed");
			return;
		}
		if (pfd[1].revents != 0) {
			/* The helper ends the run and reports it as interrupted. */
			(void)kill(helper, SIGTERM);
			cancelled = true;
		}
		if (pfd[0].revents == 0)
			continue;
		if ((err = cordon_msg_recv(sock, &m)) < 0) {
			if (err != -CORDON_E_EOF)
				pending_add(p, "error", xfmt("malformed message "
				    "from the helper: %s", cordon_strerror(err)));
			/* recover() says why, once the helper's status is known. */
			if (r->outcome == 0 || err != -CORDON_E_EOF)
				r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
			if (err != -CORDON_E_EOF)
				set_error(r, "malformed message from the helper");
			return;
		}
		over = apply_event(t, r, p, &m);
		cordon_msg_clear(&m);
	}
}

/* The broker's view of a helper that ended without tearing down. */
static void
recover(const cordon_config *cfg, const char *helper, struct cordon_result *r,
    struct pending *p, int status)
{
	struct stat st;
	char *why;

	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 &&
	    r->backend == CORDON_BACKEND_AUTO)
		why = xfmt("cannot execute the helper %s (is cordon installed?)",
		    helper);
	else if (WIFSIGNALED(status))
		why = xfmt("the helper was killed by signal %d", WTERMSIG(status));
	else
		why = xfmt("the helper exited with status %d before the run was "
		    "torn down", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (why != NULL)
		set_error(r, why);
	pending_add(p, "error", why);
	/* Its lock is free now: reclaim its workdir like `cordon gc` would. */
	if (r->workdir != NULL) {
		(void)cordon_gc(cfg, NULL, 0);
		r->workdir_removed = lstat(r->workdir, &st) < 0 && errno == ENOENT;
		pending_add(p, "teardown", strdup(r->workdir_removed ?
		    "workdir reclaimed after the helper died" :
		    "workdir left behind by the dead helper"));
	} else {
		r->workdir_removed = 1;
	}
}

int
cordon_run(const cordon_config *cfg, char *const argv[],
    cordon_result **result)
{
	struct cordon_trace *t = NULL;
	struct cordon_result *r = NULL;
	struct pending p = { .n = 0 };
	char *trace_path = NULL, *base = NULL, *helper = NULL, **envp = NULL;
	uint32_t envc = 0;
	size_t argc = 0;
	pid_t pid = -1;
	int sock = -1, err, status;

	*result = NULL;
	if ((err = check_argv(argv, &argc)) < 0)
		return err;
	if (cordon_limits_check(&cfg->limits) != 0)
		return -CORDON_E_RANGE;
	if ((err = cfg->trace_path != NULL ?
	    ((trace_path = strdup(cfg->trace_path)) ? 0 : -CORDON_E_NOMEM) :
	    cordon_default_trace_path(&trace_path)) < 0 ||
	    (err = cfg->workdir_base != NULL ?
	    ((base = strdup(cfg->workdir_base)) ? 0 : -CORDON_E_NOMEM) :
	    cordon_default_workdir_base(&base)) < 0 ||
	    (err = cordon_helper_path(&helper)) < 0 ||
	    (err = collect_env(&envp, &envc)) < 0)
		goto out;
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		err = -CORDON_E_NOMEM;
		goto out;
	}
	if ((err = fill_record(cfg, argv, argc, r)) < 0)
		goto out;

	/* Invariant: no trace row, no run. */
	if ((err = cordon_trace_open(trace_path, &t)) < 0 ||
	    (err = cordon_trace_begin(t, r)) < 0)
		goto out;

	if (cordon_start_helper(helper, &pid, &sock) < 0) {
		r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		set_error(r, "cannot start cordon-helper");
		r->workdir_removed = 1;
	} else {
		if ((err = send_request(sock, cfg, base, r, envp, envc)) < 0)
			pending_add(&p, "error", xfmt("sending the request: %s",
			    cordon_strerror(err)));
		follow(t, r, &p, sock, pid, cfg->cancel_fd, mono_ms() +
		    (int64_t)(cfg->limits.wall_ns / 1000000) + HELPER_GRACE_MS);
		/* Closing our end tells a helper still running to stop. */
		close(sock);
		sock = -1;
		status = cordon_wait_helper(pid);
		if (r->workdir_removed < 0)
			recover(cfg, helper, r, &p, status);
	}
	if (r->outcome == 0) {
		r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		set_error(r, "the run ended without a result");
	}
	r->ended_ms = cordon_now_ms();
	if (cordon_trace_finish(t, r, p.ev, p.n) < 0)
		set_error(r, "the end of the run could not be written to the trace");
	*result = r;
	r = NULL;
	err = 0;
out:
	pending_clear(&p);
	if (sock >= 0)
		close(sock);
	if (r != NULL)
		cordon_result_free(r);
	cordon_trace_close(t);
	free(trace_path);
	free(base);
	free(helper);
	free(envp);
	return err;
}

int
cordon_gc(const cordon_config *cfg, char *msg, size_t msgsz)
{
	struct cordon_msg m;
	char *base = NULL, *helper = NULL;
	pid_t pid = -1;
	int sock = -1, err;

	if ((err = cfg->workdir_base != NULL ?
	    ((base = strdup(cfg->workdir_base)) ? 0 : -CORDON_E_NOMEM) :
	    cordon_default_workdir_base(&base)) < 0 ||
	    (err = cordon_helper_path(&helper)) < 0)
		goto out;
	if ((err = cordon_start_helper(helper, &pid, &sock)) < 0)
		goto out;
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_GC;
	m.u.str = base;
	if ((err = cordon_msg_send(sock, &m)) == 0 &&
	    (err = cordon_msg_recv(sock, &m)) == 0) {
		if (m.type != CORDON_MSG_TEARDOWN)
			err = -CORDON_E_PROTO;
		else if (!m.u.teardown.ok)
			err = -CORDON_E_IO;
		if (msg != NULL && msgsz > 0)
			snprintf(msg, msgsz, "%s", m.type == CORDON_MSG_TEARDOWN ?
			    m.u.teardown.error : "unexpected reply");
		cordon_msg_clear(&m);
	}
	close(sock);
	sock = -1;
	(void)cordon_wait_helper(pid);
out:
	free(base);
	free(helper);
	return err;
}
