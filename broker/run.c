/*
 * run.c - cordon_run(): admit the request (gate.c), record it, start the
 * helper (channel.c), follow its events into the result and the trace,
 * copy files in and out (files.c) at the points the helper holds for it.
 *
 * The order is the contract: the request is validated first (bad input
 * changes nothing); the helper is started and sent the request at once,
 * and builds the sandbox up to the payload's execve while the broker
 * opens the trace and commits the run's "create" (pipelined).  The helper
 * then says CREATED - the payload exists, held at a barrier before its
 * execve - and the broker sends GO only once the create is committed and
 * files are copied in.  If the create cannot be recorded, the broker
 * closes the channel instead: the helper kills the held tree and removes
 * the workdir, and not one instruction of the command has run (exit 125,
 * no trace row).  A broker that dies before GO does the same.  From GO on
 * every failure is recorded as a sandbox error of that run, never as the
 * payload's failure.
 *
 * The trace is written in three transactions: create (while the helper
 * builds), backend + created (right after GO, while the payload runs),
 * and everything else with the final record; two when the helper has
 * answered before the trace was open (create, backend and created go
 * together, before GO) or failed before CREATED.  A broker killed mid-run
 * leaves a row without an outcome, which `cordon gc` later marks as a
 * sandbox error (trace.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "env.h"
#include "gc.h"
#include "internal.h"
#include "proxy.h"
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

/* Whether list (n entries) has an entry with entry's KEY. */
static bool
env_has(char *const *list, size_t n, const char *entry)
{
	return cordon_env_find(list, n, entry) < n;
}

/*
 * The environment the payload may see: our allow-listed variables, then
 * the explicit ones (*nexplicit of them, last): those kept by name, then
 * those set.  A KEY appears once; an explicit one wins.
 */
static int
collect_env(const cordon_config *cfg, char ***out, uint32_t *n,
    uint32_t *nexplicit)
{
	char **v;
	size_t i, j, k = 0, first, ne = 0;

	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		ne++;
	if ((v = calloc(ne + cfg->nkeep + cfg->nenv + CORDON_PROXY_NENV + 1,
	    sizeof(*v))) == NULL)
		return -CORDON_E_NOMEM;
	for (i = 0; i < ne; i++) {
		if (k >= CORDON_MAX_ENVC)
			break;
		if (strchr(environ[i], '=') != NULL && environ[i][0] != '=' &&
		    strlen(environ[i]) <= CORDON_MAX_ARG_LEN &&
		    cordon_env_allowed(environ[i]) &&
		    !env_has(cfg->keep_env, cfg->nkeep, environ[i]) &&
		    !env_has(cfg->env, cfg->nenv, environ[i]) &&
		    !env_has(v, k, environ[i]))
			v[k++] = environ[i];
	}
	first = k;
	for (j = 0; j < cfg->nkeep; j++) {
		if (env_has(cfg->env, cfg->nenv, cfg->keep_env[j]))
			continue;
		for (i = 0; i < ne; i++)
			if (env_has(&environ[i], 1, cfg->keep_env[j]) &&
			    strchr(environ[i], '=') != NULL)
				break;
		if (i == ne || env_has(v + first, k - first, environ[i]))
			continue;
		if (strlen(environ[i]) > CORDON_MAX_ARG_LEN) {
			free(v);
			return -CORDON_E_TOOLONG;
		}
		v[k++] = environ[i];
	}
	for (j = 0; j < cfg->nenv; j++)
		if (cfg->nallow_hosts == 0 || !cordon_env_is_proxy(cfg->env[j]))
			v[k++] = cfg->env[j];
	/* --allow-host: the proxy's variables, and no one else's. */
	for (j = 0; cfg->nallow_hosts != 0 && cordon_proxy_env[j] != NULL; j++)
		v[k++] = (char *)(uintptr_t)cordon_proxy_env[j];
	if (k > CORDON_MAX_ENVC) {
		free(v);
		return -CORDON_E_TOOLONG;
	}
	*out = v;
	*n = (uint32_t)k;
	*nexplicit = (uint32_t)(k - first);
	return 0;
}

static int
fill_record(const cordon_config *cfg, char *const argv[], size_t argc,
    struct cordon_result *r)
{
	char cwd[CORDON_MAX_PATH_LEN + 1];
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
	if ((err = cordon_invoker(&r->uid, &r->user)) < 0)
		return err;
	r->backend_requested = cfg->backend;
	r->limits = cfg->limits;
	r->network = cfg->network;
	if ((err = cordon_proxy_record(cfg, r)) < 0)
		return err;
	r->exit_code = -1;
	r->workdir_removed = -1;
	r->broker_pid = (uint32_t)getpid();
	r->broker_start = cordon_proc_start_time(r->broker_pid);
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
apply_event(struct cordon_result *r, struct pending *p, struct cordon_msg *m)
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
		/* Committed with the create, before GO (let_go). */
		free(r->workdir);
		r->workdir = strdup(m->u.created.workdir);
		pending_add(p, "created", xfmt("workdir %s, payload pid %u",
		    m->u.created.workdir, m->u.created.pid));
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

/* The uid root's linux-ns payload runs as (helper/ns.c). */
#define NOBODY_UID 65534

/*
 * Ours: made by the helper as us.  Root's linux-ns workdir was given to
 * nobody before the sandbox was built (its init opens it as nobody), and
 * that is the only other owner accepted, only for root: it lies in a base
 * that is root's alone (helper/workdir.c), at the name of this run, whose
 * lock the helper holds.
 */
static bool
workdir_ours(const struct stat *st)
{
	return st->st_uid == getuid() ||
	    (getuid() == 0 && st->st_uid == NOBODY_UID);
}

/*
 * CREATED: the payload is held before its exec.  Opens the workdir - it must
 * be the one the helper was asked to make, ours - and copies files in.
 * Returns the workdir fd, or -1 with the error recorded.
 */
static int
files_in(const cordon_config *cfg, const char *base, struct cordon_result *r,
    struct pending *p, const char *path)
{
	char err[CORDON_MAX_TEXT_LEN], *want = xfmt("%s/%s", base, r->run_id);
	struct stat st;
	size_t i;
	int fd = -1;

	if (want == NULL || strcmp(want, path) != 0 ||
	    (fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || fstat(fd, &st) < 0 || !workdir_ours(&st)) {
		snprintf(err, sizeof(err), "the workdir %s is not the one "
		    "asked for, or not ours", path);
		goto fail;
	}
	free(want);
	want = NULL;
	for (i = 0; i < cfg->ncopy_in; i++)
		if (cordon_copy_in(fd, &cfg->copy_in[i], cfg->limits.disk_bytes,
		    err, sizeof(err)) < 0)
			goto fail;
	if (cfg->ncopy_in != 0)
		pending_add(p, "files", xfmt("copied %zu path(s) in",
		    cfg->ncopy_in));
	return fd;
fail:
	free(want);
	if (fd >= 0)
		close(fd);
	r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
	set_error(r, err);
	pending_add(p, "error", strdup(err));
	return -1;
}

/* After EXIT: the tree is dead; copies files out, recording failures. */
static void
files_out(const cordon_config *cfg, int wdfd, struct cordon_result *r,
    struct pending *p)
{
	char err[CORDON_MAX_TEXT_LEN], tag[CORDON_RUN_ID_LEN + 32];
	size_t i, ok = 0;

	for (i = 0; i < cfg->ncopy_out; i++) {
		snprintf(tag, sizeof(tag), "%s-%zu", r->run_id, i);
		if (wdfd >= 0 && cordon_copy_out(wdfd, &cfg->copy_out[i],
		    cfg->copy_out_limit, tag, err, sizeof(err)) == 0) {
			ok++;
			continue;
		}
		if (wdfd < 0)
			snprintf(err, sizeof(err), "--copy-out %s: the workdir "
			    "was never opened", cfg->copy_out[i].src);
		r->files_failed = true;
		set_error(r, err);
		pending_add(p, "error", strdup(err));
	}
	pending_add(p, "files", xfmt("copied %zu of %zu path(s) out", ok,
	    cfg->ncopy_out));
}

/*
 * The deadline passed with nothing from the helper, probably stopped
 * (SIGSTOP from the payload): the first time it is let run again, and it
 * ends the run itself - the wall cap is long past; the second time it is
 * stuck, and killed (recover() reclaims its workdir).  True once killed.
 */
static bool
watchdog(int sock, pid_t helper, struct cordon_result *r, struct pending *p,
    int64_t *deadline_ms, bool *continued)
{
	if (!*continued) {
		(void)cordon_helper_act(sock, helper, CORDON_HELPER_CONTINUE);
		*continued = true;
		*deadline_ms = mono_ms() + HELPER_CONT_GRACE_MS;
		pending_add(p, "error", strdup("the helper had not ended the run "
		    "by the wall cap plus a grace period; sent SIGCONT"));
		return false;
	}
	(void)cordon_helper_act(sock, helper, CORDON_HELPER_KILL);
	r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
	set_error(r, "the helper did not end the run in time and was killed");
	return true;
}

/* What following one run keeps between the helper's messages. */
struct follow_state {
	struct cordon_trace *t;  /* opened before the create is committed */
	const char *trace_path;
	uint32_t require;        /* the controls the run requires, or 0 */
	bool committed;          /* the run row and its create event are in */
	bool created;            /* CREATED came (once) */
	int trace_err;           /* the create could not be committed, or
	                          * -CORDON_E_UNMET: refused (require_met) */
	int wdfd;                /* the workdir, with files to copy */
	char *refusal;           /* why, for -CORDON_E_UNMET */
	size_t refusalsz;
	pid_t helper;
	int sock;                /* the channel to it */
	bool cancel_asked;       /* the caller's cancel fd became readable */
	bool cancelled;          /* ... and the helper was told to stop */
};

/*
 * The caller's cancel (cfg's cancel fd readable): the helper is told to
 * stop, once.  Its end of the run is reported as interrupted; told
 * before GO, it never lets the payload go (helper.c launch).  A setuid
 * helper refuses our signal (EPERM) for the moments its real uid is
 * root (priv_audit): the cancel is then kept and tried again, never
 * taken as told.
 */
static void
cancel_if_asked(struct follow_state *fs, int cancel_fd)
{
	if (!fs->cancel_asked)
		fs->cancel_asked = cancel_fd >= 0 && cordon_chan_wait(-1,
		    cancel_fd, 0) == (int)CORDON_CHAN_CANCEL;
	if (fs->cancel_asked && !fs->cancelled)
		fs->cancelled = cordon_helper_act(fs->sock, fs->helper,
		    CORDON_HELPER_CANCEL) == 0;
}

/* How long GO waits for a refused cancel to be taken (CANCEL_TRIES ms). */
#define CANCEL_TRIES 1000

/*
 * Right before GO: a cancel that came while the create was committed is
 * passed on now, so the helper, finding it at GO, never lets the payload
 * go.  False when one was asked for and the helper would not take it in
 * time (EPERM from a setuid helper, for CANCEL_TRIES ms): the caller
 * then closes our end instead (on EOF the helper kills the held tree),
 * and the command never runs.
 */
static bool
may_send_go(struct follow_state *fs, int cancel_fd)
{
	int i;

	cancel_if_asked(fs, cancel_fd);
	for (i = 0; fs->cancel_asked && !fs->cancelled && i < CANCEL_TRIES;
	    i++) {
		(void)nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		cancel_if_asked(fs, cancel_fd);
	}
	return !fs->cancel_asked || fs->cancelled;
}

/* Gives the run up before GO: EOF makes the helper undo what it built. */
static bool
give_up(struct follow_state *fs, int sock, int err)
{
	fs->trace_err = err;
	cordon_chan_shut(sock);
	return false;
}

/* Commits the run's create (with the pending events); false if it failed. */
static bool
commit_create(struct follow_state *fs, struct cordon_result *r,
    struct pending *p, int sock)
{
	int err;

	/* With controls required, a trace not yet made is made now. */
	if (fs->t == NULL && (err = cordon_trace_open(fs->trace_path,
	    &fs->t)) < 0)
		return give_up(fs, sock, err);
	if ((err = cordon_trace_begin_with(fs->t, r, p->ev, p->n)) < 0) {
		/* EOF: the helper kills what it built and removes the workdir. */
		fs->trace_err = err;
		cordon_chan_shut(sock);
		return false;
	}
	fs->committed = true;
	pending_clear(p);
	return true;
}

/*
 * The helper's own refusal of a required control (policy/policy.c,
 * cordon_require_check, in helper/helper.c's require_check): it comes as
 * an ERROR before BACKEND, nothing of the command having run, when the
 * system policy requires a control the backend built lacks (the helper
 * adds the policy's requirements itself).  The message is the helper's,
 * over the broker's own socket: the payload, held or not yet made, has
 * no end of it.
 */
#define HELPER_REFUSAL "required control "

/*
 * --require (and the policy's require), checked against the run's own
 * helper instead of a probe: BACKEND says which backend was built and
 * what it applies, while the payload is held before its execve and
 * nothing is recorded (a trace that does not exist yet is not made).
 * Met: the create is committed (with BACKEND) before CREATED can ask
 * for GO.  Unmet, or the helper refused by itself: our end is shut, the
 * helper kills the held tree and removes the workdir, and the run is
 * refused as a gate refusal is (-CORDON_E_UNMET, no row).  True if the
 * run was refused.
 */
static bool
require_met(struct follow_state *fs, struct cordon_result *r,
    struct pending *p, int sock, const cordon_config *cfg,
    const struct cordon_msg *m)
{
	if (fs->require == 0 || fs->committed || fs->trace_err < 0)
		return false;
	if (m->type == CORDON_MSG_ERROR && r->backend == CORDON_BACKEND_AUTO &&
	    strncmp(m->u.error.message, HELPER_REFUSAL,
	    strlen(HELPER_REFUSAL)) == 0) {
		(void)snprintf(fs->refusal, fs->refusalsz, "%s",
		    m->u.error.message);
		(void)give_up(fs, sock, -CORDON_E_UNMET);
		return true;
	}
	if (m->type != CORDON_MSG_BACKEND)
		return false;
	if (cordon_require_unmet(cfg, fs->require, r->backend, r->applied,
	    r->backend_reason != NULL ? r->backend_reason : "",
	    fs->refusal, fs->refusalsz) < 0) {
		(void)give_up(fs, sock, -CORDON_E_UNMET);
		return true;
	}
	(void)commit_create(fs, r, p, sock);
	return fs->trace_err < 0;
}

/*
 * With the trace open: the create is committed at once, while the helper
 * still builds, unless the helper has already said something (then
 * CREATED, or its error, commits it with what came: let_go, or the end of
 * the run).  Off the critical path: at CREATED only GO is left to send.
 */
static void
commit_early(struct follow_state *fs, struct cordon_result *r,
    struct pending *p, int sock)
{
	if (cordon_chan_wait(sock, -1, 0) == 0)
		(void)commit_create(fs, r, p, sock);
}

/*
 * CREATED: the sandbox is built and the payload held before its execve.
 * The run is committed first if it is not yet (create, backend, created:
 * one transaction), files are copied in, and GO is sent; backend and
 * created follow the create in their own transaction when it went
 * earlier, while the payload runs.  A create that cannot be committed, or
 * a failed copy-in, closes our end instead: on EOF the helper kills the
 * held tree and removes the workdir, so the command never runs.
 */
static void
let_go(struct follow_state *fs, struct cordon_result *r, struct pending *p,
    int sock, const cordon_config *cfg, const char *base)
{
	struct cordon_msg go = { .type = CORDON_MSG_GO };

	/*
	 * Required controls are checked at BACKEND, which then commits
	 * (require_met): a CREATED without one is a broken helper, and the
	 * run is refused rather than let go unchecked.
	 */
	if (fs->require != 0 && !fs->committed) {
		(void)snprintf(fs->refusal, fs->refusalsz, "the helper said "
		    "nothing of its backend: the required controls cannot be "
		    "checked");
		(void)give_up(fs, sock, -CORDON_E_UNMET);
		return;
	}
	if (!fs->committed && !commit_create(fs, r, p, sock))
		return;
	if (cfg->ncopy_in != 0 || cfg->ncopy_out != 0) {
		if (r->workdir == NULL ||
		    (fs->wdfd = files_in(cfg, base, r, p, r->workdir)) < 0) {
			cordon_chan_shut(sock);
			return;
		}
	}
	if (!may_send_go(fs, cfg->cancel_fd)) {
		cordon_chan_shut(sock);
		return;
	}
	/* The CLI's --stdout/--stderr, left as they were until now. */
	if (cfg->truncate_output) {
		if (cfg->stdout_fd >= 0)
			(void)!ftruncate(cfg->stdout_fd, 0);
		if (cfg->stderr_fd >= 0 && cfg->stderr_fd != cfg->stdout_fd)
			(void)!ftruncate(cfg->stderr_fd, 0);
	}
	(void)cordon_chan_send(sock, &go);
	if (p->n != 0 && cordon_trace_events_add(fs->t, r->run_id, p->ev,
	    p->n) == 0)
		pending_clear(p);
}

/*
 * One message from the helper: CREATED (commit, copy in, GO), or an
 * event, with the copy-out after EXIT (then GO).  True once following
 * ends: the run is over, or the channel is broken or closed.
 */
static bool
on_message(struct follow_state *fs, struct cordon_result *r,
    struct pending *p, int sock, const cordon_config *cfg, const char *base,
    struct cordon_proxy *px)
{
	struct cordon_msg go = { .type = CORDON_MSG_GO };
	struct cordon_msg m;
	bool over = false;
	int err, fd = -1;

	/* An fd only on EGRESS, and EGRESS only when we asked (proxy.c). */
	if ((err = cordon_chan_recv_fd(sock, &m, &fd)) == 0 &&
	    m.type == CORDON_MSG_EGRESS) {
		cordon_msg_clear(&m);
		if ((err = cordon_proxy_attach(px, fd)) == 0)
			return false;
	}
	if (err < 0) {
		if (err != -CORDON_E_EOF)
			pending_add(p, "error", xfmt("malformed message from the "
			    "helper: %s", cordon_strerror(err)));
		/* recover() says why, once the helper's status is known. */
		if (r->outcome == 0 || err != -CORDON_E_EOF)
			r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		if (err != -CORDON_E_EOF)
			set_error(r, "malformed message from the helper");
		return true;
	}
	if (m.type == CORDON_MSG_CREATED && fs->created) {
		/* One CREATED per run: a second is a broken helper. */
		over = apply_event(r, p, &(struct cordon_msg){ .type = 0 });
	} else {
		over = apply_event(r, p, &m);
		if (require_met(fs, r, p, sock, cfg, &m)) {
			cordon_msg_clear(&m);
			return true;
		}
		if (m.type == CORDON_MSG_CREATED) {
			fs->created = true;
			let_go(fs, r, p, sock, cfg, base);
		}
	}
	if (m.type == CORDON_MSG_EXIT && cfg->ncopy_out != 0) {
		files_out(cfg, fs->wdfd, r, p);
		(void)cordon_chan_send(sock, &go);
	}
	cordon_msg_clear(&m);
	return over;
}

/* Follows the helper until TEARDOWN, EOF, a protocol error or deadline_ms. */
static void
follow(struct follow_state *fs, struct cordon_result *r, struct pending *p,
    int sock, pid_t helper, const cordon_config *cfg, const char *base,
    int64_t deadline_ms, struct cordon_proxy *px)
{
	bool continued = false, over = false;
	int64_t left, t0;
	int n;

	fs->helper = helper;
	fs->sock = sock;
	while (!over) {
		left = deadline_ms - mono_ms();
		/* A cancel the helper refused is tried again every 5 ms. */
		if (fs->cancel_asked && !fs->cancelled && left > 5)
			left = 5;
		n = left <= 0 ? 0 : cordon_chan_wait(sock, fs->cancel_asked ?
		    -1 : cfg->cancel_fd, left > INT32_MAX ? INT32_MAX :
		    (int)left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			set_error(r, "waiting for the helper failed");
			break;
		}
		if (n == 0 && mono_ms() >= deadline_ms) {
			over = watchdog(sock, helper, r, p, &deadline_ms,
			    &continued);
			continue;
		}
		if ((n & (int)CORDON_CHAN_CANCEL) != 0 ||
		    (fs->cancel_asked && !fs->cancelled))
			cancel_if_asked(fs, cfg->cancel_fd);
		if ((n & (int)CORDON_CHAN_READY) == 0)
			continue;
		t0 = mono_ms();
		over = on_message(fs, r, p, sock, cfg, base, px);
		/* Copying is not the helper's time: the watchdog waits longer. */
		deadline_ms += mono_ms() - t0;
	}
	if (fs->wdfd >= 0)
		close(fs->wdfd);
	fs->wdfd = -1;
}

/* The broker's view of a helper that ended without tearing down. */
static void
recover(const cordon_config *cfg, const char *base, const char *helper,
    struct cordon_result *r, struct pending *p, int status)
{
	struct stat st;
	char *why, *wd;
	bool ran;

	ran = !(WIFEXITED(status) && WEXITSTATUS(status) == 127 &&
	    r->backend == CORDON_BACKEND_AUTO);
	if (!ran)
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
	if (!ran) {
		r->workdir_removed = 1; /* a helper never started made nothing */
		return;
	}
	/*
	 * Its lock is free now: reclaim its workdir like `cordon gc` would.
	 * Whether or not CREATED named it: the helper makes the workdir
	 * before it starts the payload and names it only after, so one
	 * killed in between left a workdir the broker was never told of.
	 * The broker chose the run id, so it knows where that would be.
	 */
	wd = r->workdir != NULL ? strdup(r->workdir) :
	    xfmt("%s/%s", base, r->run_id);
	(void)cordon_gc(cfg, NULL, 0);
	r->workdir_removed = wd != NULL && lstat(wd, &st) < 0 &&
	    errno == ENOENT;
	free(wd);
	pending_add(p, "teardown", strdup(r->workdir_removed ?
	    "workdir reclaimed after the helper died" :
	    "workdir left behind by the dead helper"));
}

/* What the helper is started with, for one run. */
struct launch {
	const struct cordon_config *cfg;  /* the effective request */
	const char *base, *helper;
	char **envp;
	uint32_t envc, env_explicit;
	struct cordon_proxy *proxy;       /* --allow-host, else NULL */
};

/* The helper of one run, started and sent the request. */
struct helper_proc {
	pid_t pid;
	int sock;
};

/*
 * Starts the helper and sends it the request: it builds the sandbox from
 * here on, while the broker opens the trace.  -1 with the error recorded
 * when it could not be started (the run is then committed as a sandbox
 * error).
 */
static int
start_helper(const struct launch *l, struct cordon_result *r,
    struct pending *p, struct helper_proc *h)
{
	const struct cordon_config *cfg = l->cfg;
	char *why;
	int err;

	if (cordon_start_helper_io(l->helper, &h->pid, &h->sock, cfg->stdin_fd,
	    cfg->stdout_fd, cfg->stderr_fd) < 0) {
		r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		why = xfmt("cannot execute the helper %s: %s (is cordon "
		    "installed?)", l->helper, strerror(errno));
		set_error(r, why != NULL ? why : "cannot start cordon-helper");
		pending_add(p, "error", why);
		r->workdir_removed = 1;
		h->pid = -1;
		h->sock = -1;
		return -1;
	}
	/*
	 * Not the required controls: the broker holds the run to them at
	 * BACKEND (require_met), where it can say what the backend built
	 * lacks and why; a helper refusing first could say neither.  They
	 * are the caller's own condition on its own run.  The system
	 * policy's are the helper's to enforce, and it adds them itself.
	 */
	if ((err = cordon_send_request(h->sock, cfg, l->base, r, l->envp,
	    l->envc, 0, l->env_explicit)) < 0)
		pending_add(p, "error", xfmt("sending the request: %s",
		    cordon_strerror(err)));
	return 0;
}

/*
 * A run given up before GO (the trace could not be opened): EOF makes the
 * helper kill what it built and remove the workdir; waits until it has.
 */
static void
abandon(struct helper_proc *h)
{
	if (h->pid < 0)
		return;
	cordon_chan_close(h->sock);
	(void)cordon_wait_helper(h->pid);
	h->pid = -1;
}

/*
 * Follows the started helper to its TEARDOWN, or says why it never got
 * there; the create row is committed on the way (let_go).
 */
static void
supervise(struct follow_state *fs, const struct launch *l,
    struct helper_proc *h, struct cordon_result *r, struct pending *p)
{
	const struct cordon_config *cfg = l->cfg;
	int status;

	follow(fs, r, p, h->sock, h->pid, cfg, l->base, mono_ms() +
	    (int64_t)(cfg->limits.wall_ns / 1000000) + HELPER_GRACE_MS,
	    l->proxy);
	/* Closing our end tells a helper still running to stop. */
	cordon_chan_close(h->sock);
	status = cordon_wait_helper(h->pid);
	h->pid = -1;
	if (fs->trace_err < 0)
		return; /* abandoned before GO: the helper removed its workdir */
	if (r->workdir_removed < 0)
		recover(cfg, l->base, l->helper, r, p, status);
	else
		cordon_gc_sweep(l->base); /* dead runs' workdirs: gc.c */
}

/* A copy of s, or of the default def() makes, in *out. */
static int
path_or_default(const char *s, int (*def)(char **), char **out)
{
	if (s == NULL)
		return def(out);
	return (*out = strdup(s)) != NULL ? 0 : -CORDON_E_NOMEM;
}

int
cordon_admitted_run(const struct cordon_config *cfg, uint32_t require,
    char *const argv[], cordon_result **result, char *errbuf, size_t errsz)
{
	return cordon_admitted_run_on(NULL, cfg, require, argv, result, errbuf,
	    errsz);
}

int
cordon_admitted_run_on(struct cordon_trace *t, const struct cordon_config *cfg,
    uint32_t require, char *const argv[], cordon_result **result,
    char *errbuf, size_t errsz)
{
	struct cordon_result *r = NULL;
	struct pending p = { .n = 0 };
	struct launch l = { .cfg = cfg };
	struct follow_state fs = { .t = t, .wdfd = -1, .sock = -1,
		.require = require,
		.refusal = errbuf, .refusalsz = errsz };
	struct helper_proc h = { .pid = -1, .sock = -1 };
	bool started;
	char *trace_path = NULL, *base = NULL, *helper = NULL, **envp = NULL;
	size_t argc = 0;
	int err;

	*result = NULL;
	if (errsz > 0)
		errbuf[0] = '\0';
	if ((err = check_argv(argv, &argc)) < 0)
		return err;
	if ((err = path_or_default(cfg->trace_path, cordon_default_trace_path,
	    &trace_path)) < 0 ||
	    (err = path_or_default(cfg->workdir_base,
	    cordon_default_workdir_base, &base)) < 0 ||
	    (err = cordon_helper_path(&helper)) < 0 ||
	    (err = collect_env(cfg, &envp, &l.envc, &l.env_explicit)) < 0 ||
	    (err = cordon_proxy_new(cfg, &l.proxy)) < 0)
		goto out;
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		err = -CORDON_E_NOMEM;
		goto out;
	}
	if ((err = fill_record(cfg, argv, argc, r)) < 0)
		goto out;

	/*
	 * The helper makes only the base's last component: the directories
	 * above the default base, the user's own, are made here, 0700.  If
	 * that fails, the helper's error names the base.
	 */
	if (cfg->workdir_base == NULL)
		(void)cordon_mkdir_parents(base);
	l.base = base;
	l.helper = helper;
	l.envp = envp;
	/* Pipelined: the helper builds the sandbox while the trace opens. */
	started = start_helper(&l, r, &p, &h) == 0;
	fs.trace_path = trace_path;
	/*
	 * Controls required: the create waits for BACKEND to meet them, and
	 * the trace is opened only once they are met - even one that exists:
	 * opening it may migrate its schema and make its -wal and -shm
	 * files, and a refused run changes nothing.
	 */
	if (require == 0 || !started) {
		if (fs.t == NULL &&
		    (err = cordon_trace_open(trace_path, &fs.t)) < 0) {
			abandon(&h);
			goto out;
		}
		if (started && require == 0)
			commit_early(&fs, r, &p, h.sock);
	}
	if (started)
		supervise(&fs, &l, &h, r, &p);
	/* Invariant: no trace row, no run (the payload was never let go). */
	if (fs.trace_err < 0) {
		err = fs.trace_err;
		goto out;
	}
	/* A helper that failed before CREATED: its run is recorded now. */
	if (fs.t == NULL && (err = cordon_trace_open(trace_path, &fs.t)) < 0)
		goto out;
	if (!fs.committed && (err = cordon_trace_begin(fs.t, r)) < 0)
		goto out;
	/* Stopped, joined and closed on every path; its events recorded. */
	cordon_proxy_end(l.proxy, fs.t, r);
	l.proxy = NULL;
	if (r->outcome == 0) {
		r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		set_error(r, "the run ended without a result");
	}
	r->ended_ms = cordon_now_ms();
	if (cordon_trace_finish(fs.t, r, p.ev, p.n) < 0)
		set_error(r, "the end of the run could not be written to the trace");
	*result = r;
	r = NULL;
	err = 0;
out:
	abandon(&h);
	cordon_proxy_end(l.proxy, NULL, NULL);
	pending_clear(&p);
	if (r != NULL)
		cordon_result_free(r);
	if (t == NULL)
		cordon_trace_close(fs.t);
	free(trace_path);
	free(base);
	free(helper);
	free(envp);
	return err;
}

int
cordon_run(const cordon_config *cfg, char *const argv[],
    cordon_result **result)
{
	struct cordon_config eff;
	char err[CORDON_MAX_TEXT_LEN];
	uint32_t require = 0;
	size_t argc = 0;
	int r;

	*result = NULL;
	if ((r = check_argv(argv, &argc)) < 0)
		return r;
	/*
	 * The system policy and the required controls (gate.c): refused, the
	 * run leaves nothing, like any bad input.  From here on the request
	 * is eff, caps nobody set lowered to the ceilings.
	 */
	if ((r = cordon_admit(cfg, &eff, &require, err, sizeof(err))) < 0)
		return r;
	return cordon_admitted_run(&eff, require, argv, result, err,
	    sizeof(err));
}
