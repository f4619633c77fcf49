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
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


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

/* Whether list (n entries) has an entry with entry's KEY. */
static bool
env_has(char *const *list, size_t n, const char *entry)
{
	size_t klen = strcspn(entry, "="), i;

	for (i = 0; i < n; i++)
		if (strncmp(list[i], entry, klen) == 0 &&
		    (list[i][klen] == '=' || list[i][klen] == '\0'))
			return true;
	return false;
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
	if ((v = calloc(ne + cfg->nkeep + cfg->nenv + 1, sizeof(*v))) == NULL)
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
		v[k++] = cfg->env[j];
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
 * empty environment; it needs nothing of ours but the request (and a
 * test knob, below).  Only the
 * sanitizer build (for tests; configure refuses it for a setuid helper)
 * passes the sanitizer options on, so that the helper's reports land
 * where the test suite collects them (tests/sanitized.sh).
 *
 * posix_spawn, not fork: glibc's child shares our memory until it execs
 * (CLONE_VM | CLONE_VFORK), so the broker's page tables - sqlite's
 * mapping of the trace among them - are not copied for a child that only
 * moves one fd and execs; that copy was the largest part of the broker's
 * own cost per run.  dup2 of an fd onto itself clears its close-on-exec
 * flag (POSIX 2017, glibc >= 2.29), which covers sv[1] already being 3.
 * An exec failure comes back from posix_spawn itself, in errno here.
 */
int
cordon_start_helper(const char *path, pid_t *pid, int *sock)
{
	return cordon_start_helper_io(path, pid, sock, -1, -1, -1);
}

int
cordon_start_helper_io(const char *path, pid_t *pid, int *sock, int infd,
    int outfd, int errfd)
{
	char *henv[8] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	char confdir[CORDON_MAX_PATH_LEN + 32];
	char *const hargv[] = { "cordon-helper", NULL };
	posix_spawn_file_actions_t fa;
	size_t i, k = 0;
	int sv[2], e, fd;
#ifdef CORDON_SANITIZERS
	for (i = 0; environ != NULL && environ[i] != NULL && k < 3; i++)
		if (strncmp(environ[i], "ASAN_OPTIONS=", 13) == 0 ||
		    strncmp(environ[i], "UBSAN_OPTIONS=", 14) == 0 ||
		    strncmp(environ[i], "LSAN_OPTIONS=", 13) == 0)
			henv[k++] = environ[i];
#endif
	/*
	 * The tests' knobs, each of which only a helper that is not setuid
	 * honours: "pretend an older Landlock" (it can only weaken the
	 * caller's own run, whose result then says what was not applied)
	 * and the cgroup the runs go under (a setuid helper keeps the
	 * system's choice).
	 */
	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		if (strncmp(environ[i], "CORDON_TEST_LANDLOCK_ABI=", 25) == 0 ||
		    strncmp(environ[i], "CORDON_CGROUP_PARENT=", 21) == 0)
			if (k < sizeof(henv) / sizeof(henv[0]) - 2)
				henv[k++] = environ[i];

	/* The test suite's configuration directory (policy.h), if honoured. */
	if (strcmp(cordon_confdir(), CORDON_SYSCONFDIR) != 0 &&
	    (size_t)snprintf(confdir, sizeof(confdir), "CORDON_CONFDIR=%s",
	    cordon_confdir()) < sizeof(confdir))
		henv[k++] = confdir;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -CORDON_E_HELPER;
	/*
	 * The payload's stdin and output files become the helper's fds 0-2
	 * (helper.c passes them on, or pumps into them under an output cap):
	 * no fd travels over the socket.  Our end is moved above fd 3 first,
	 * so that neither of those dup2s can land on it.
	 */
	if (sv[1] <= CORDON_HELPER_FD) {
		fd = fcntl(sv[1], F_DUPFD_CLOEXEC, CORDON_HELPER_FD + 1);
		close(sv[1]);
		if ((sv[1] = fd) < 0) {
			close(sv[0]);
			return -CORDON_E_HELPER;
		}
	}
	if ((e = posix_spawn_file_actions_init(&fa)) == 0) {
		if ((infd < 0 ||
		    (e = posix_spawn_file_actions_adddup2(&fa, infd, 0)) == 0) &&
		    (outfd < 0 ||
		    (e = posix_spawn_file_actions_adddup2(&fa, outfd, 1)) == 0) &&
		    (errfd < 0 ||
		    (e = posix_spawn_file_actions_adddup2(&fa, errfd, 2)) == 0) &&
		    (e = posix_spawn_file_actions_adddup2(&fa, sv[1],
		    CORDON_HELPER_FD)) == 0 &&
		    (e = posix_spawn_file_actions_addclosefrom_np(&fa,
		    CORDON_HELPER_FD + 1)) == 0)
			e = posix_spawn(pid, path, &fa, NULL, hargv, henv);
		posix_spawn_file_actions_destroy(&fa);
	}
	close(sv[1]);
	if (e != 0) {
		close(sv[0]);
		errno = e;
		return -CORDON_E_HELPER;
	}
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
    const struct cordon_result *r, char **envp, uint32_t envc,
    uint32_t require, uint32_t env_explicit)
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
	m.u.request.bindc = (uint32_t)cfg->nbinds;
	if (cfg->ncopy_in != 0)
		m.u.request.flags |= CORDON_REQ_COPY_IN;
	if (cfg->ncopy_out != 0)
		m.u.request.flags |= CORDON_REQ_COPY_OUT;
	m.u.request.require = require;
	m.u.request.env_explicit = env_explicit;
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
	for (i = 0; i < cfg->nbinds; i++) {
		m.type = CORDON_MSG_BIND;
		m.u.bind.src = cfg->binds[i].src;
		m.u.bind.dest = cfg->binds[i].dest;
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

/*
 * WORKDIR: the workdir exists and nothing runs yet.  Opens it - it must
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
	    O_CLOEXEC)) < 0 || fstat(fd, &st) < 0 || st.st_uid != getuid()) {
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

/* Follows the helper until TEARDOWN, EOF, a protocol error or deadline_ms. */
static void
follow(struct cordon_trace *t, struct cordon_result *r, struct pending *p,
    int sock, pid_t helper, const cordon_config *cfg, const char *base,
    int64_t deadline_ms)
{
	struct cordon_msg go = { .type = CORDON_MSG_GO };
	int cancel_fd = cfg->cancel_fd, wdfd = -1;
	int64_t t0;
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
			goto out;
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
			goto out;
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
			goto out;
		}
		t0 = mono_ms();
		if (m.type == CORDON_MSG_WORKDIR && wdfd < 0) {
			/* A failed copy-in: EOF makes the helper tear down. */
			if ((wdfd = files_in(cfg, base, r, p, m.u.str)) < 0)
				(void)shutdown(sock, SHUT_WR);
			else
				(void)cordon_msg_send(sock, &go);
		} else {
			over = apply_event(t, r, p, &m);
		}
		if (m.type == CORDON_MSG_EXIT && cfg->ncopy_out != 0) {
			files_out(cfg, wdfd, r, p);
			(void)cordon_msg_send(sock, &go);
		}
		/* Copying is not the helper's time: the watchdog waits longer. */
		deadline_ms += mono_ms() - t0;
		cordon_msg_clear(&m);
	}
out:
	if (wdfd >= 0)
		close(wdfd);
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
	struct cordon_config eff;
	char *trace_path = NULL, *base = NULL, *helper = NULL, **envp = NULL;
	char gate_err[CORDON_MAX_TEXT_LEN], *why = NULL;
	uint32_t envc = 0, env_explicit = 0, require = 0;
	size_t argc = 0;
	pid_t pid = -1;
	int sock = -1, err, status;

	*result = NULL;
	if ((err = check_argv(argv, &argc)) < 0)
		return err;
	if (cordon_limits_check(&cfg->limits) != 0)
		return -CORDON_E_RANGE;
	if (cordon_files_check(cfg, NULL, 0) < 0)
		return -CORDON_E_INVAL;
	/*
	 * The system policy and the required controls (gate.c): refused, the
	 * run leaves nothing, like any bad input.  From here on cfg is the
	 * effective request, caps nobody set lowered to the ceilings.
	 */
	if ((err = cordon_gate(cfg, &eff, &require, gate_err,
	    sizeof(gate_err))) < 0)
		return err;
	cfg = &eff;
	if ((err = cfg->trace_path != NULL ?
	    ((trace_path = strdup(cfg->trace_path)) ? 0 : -CORDON_E_NOMEM) :
	    cordon_default_trace_path(&trace_path)) < 0 ||
	    (err = cfg->workdir_base != NULL ?
	    ((base = strdup(cfg->workdir_base)) ? 0 : -CORDON_E_NOMEM) :
	    cordon_default_workdir_base(&base)) < 0 ||
	    (err = cordon_helper_path(&helper)) < 0 ||
	    (err = collect_env(cfg, &envp, &envc, &env_explicit)) < 0)
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
	/*
	 * The helper makes only the base's last component: the directories
	 * above the default base, the user's own, are made here, 0700.  If
	 * that fails, the helper's error names the base.
	 */
	if (cfg->workdir_base == NULL)
		(void)cordon_mkdir_parents(base);

	if (cordon_start_helper_io(helper, &pid, &sock, cfg->stdin_fd,
	    cfg->stdout_fd, cfg->stderr_fd) < 0) {
		r->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
		why = xfmt("cannot execute the helper %s: %s (is cordon "
		    "installed?)", helper, strerror(errno));
		set_error(r, why != NULL ? why : "cannot start cordon-helper");
		pending_add(&p, "error", why);
		r->workdir_removed = 1;
	} else {
		if ((err = send_request(sock, cfg, base, r, envp, envc, require,
		    env_explicit)) < 0)
			pending_add(&p, "error", xfmt("sending the request: %s",
			    cordon_strerror(err)));
		follow(t, r, &p, sock, pid, cfg, base, mono_ms() +
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
