/*
 * session.c - a libcordon session (cordon_session_open/run/close): what a
 * harness running many commands would otherwise pay on every cordon_run,
 * paid once.  The session keeps the trace connection open, with the
 * statements trace.c prepares once per connection and SQLite's WAL index
 * already read, and the system policy as parsed, read again only when
 * its file changes (device, inode, size, mtime or ctime: an edit, a
 * rename over it, a chmod or chown).
 *
 * Every run is still a whole cordon_run: the same gate with that policy
 * (gate.c), its own helper, its own rows.  Keeping the policy is safe:
 * the helper loads the policy itself for every run and refuses what it
 * forbids (helper/helper.c, admit); the broker's copy only lets it say so
 * first, and lowers the caps nobody set to the ceilings.  A policy file
 * rewritten within one timestamp tick at the same size and inode would
 * go unseen by the broker until its next change, never by the helper.
 *
 * The next run's helper is started ahead of demand, at the open and at
 * the end of each run, so that its exec, dynamic linking and start-up (helper/helper.c,
 * start_up) overlap the caller's time between runs; a run takes it
 * instead of starting its own.  This is safe because nothing it holds
 * depends on a request: it is a cordon-helper started exactly as a run
 * starts one (channel.c: the same binary, the same empty environment but
 * the test knobs, fds 0-2 and the socket), blocked reading its first
 * message, with no workdir, namespace, cgroup, policy or privilege use
 * yet - binds, network, limits, argv, environment and the policy all
 * come with the REQUEST the run sends, and the helper loads the policy
 * when it reads it.  It serves one request, or none: a run takes it
 * only if what it was started with still holds (the helper path, our
 * environment, which carries the knobs and CORDON_CONFDIR, the files
 * behind fds 0-2, the request leaving the payload's stdio to ours) and
 * it is still waiting (not exited, its socket not closed); else it is
 * thrown away - our end closed, it reads EOF and exits having made
 * nothing - and reaped, as it is at cordon_session_close.
 *
 * A caller that reaps children it did not start (waitpid(-1), SIGCHLD
 * set to SIG_IGN) would reap the waiting helper too: the session then
 * finds it gone and starts another.
 *
 * A session is not shared between threads at once (one SQLite
 * connection); distinct sessions may run in parallel.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "policy.h"
#include "trace.h"

struct cordon_session {
	struct cordon_trace *t;
	char *trace_path;
	struct cordon_policy pol;
	bool have_pol;
	bool had_file;           /* the policy file existed when read */
	struct stat pol_st;      /* as it was when read */
	struct cordon_spare spare;  /* the next run's helper, or pid -1 */
	uint64_t spare_key;      /* what it was started with (spare_key) */
	char error[CORDON_MAX_TEXT_LEN];
};

/* FNV-1a over n bytes, continuing from h. */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n-- > 0)
		h = (h ^ *b++) * 1099511628211ULL;
	return h;
}

/*
 * What a waiting helper was started with that a run could see: the
 * helper path, our environment (channel.c passes the test knobs and the
 * configuration directory on from it) and the files behind fds 0-2.
 * 0 if the helper path cannot be known.
 */
static uint64_t
spare_key(void)
{
	uint64_t h = 14695981039346656037ULL;
	char *path = NULL;
	struct stat st;
	size_t i;
	int fd;

	if (cordon_helper_path(&path) < 0)
		return 0;
	h = fnv(h, path, strlen(path) + 1);
	free(path);
	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		h = fnv(h, environ[i], strlen(environ[i]) + 1);
	for (fd = 0; fd <= 2; fd++) {
		if (fstat(fd, &st) < 0)
			memset(&st, 0, sizeof(st));
		h = fnv(h, &st.st_dev, sizeof(st.st_dev));
		h = fnv(h, &st.st_ino, sizeof(st.st_ino));
	}
	return h | 1;
}

/* Throws the waiting helper away: EOF, it exits having made nothing. */
static void
spare_drop(struct cordon_session *s)
{
	if (s->spare.pid <= 0)
		return;
	close(s->spare.sock);
	(void)cordon_wait_helper(s->spare.pid);
	s->spare.pid = -1;
	s->spare.sock = -1;
}

/* Starts the next run's helper; none if it cannot be (a run starts one). */
static void
spare_start(struct cordon_session *s)
{
	char *path = NULL;

	if (s->spare.pid > 0 || (s->spare_key = spare_key()) == 0 ||
	    cordon_helper_path(&path) < 0)
		return;
	if (cordon_start_helper(path, &s->spare.pid, &s->spare.sock) < 0) {
		s->spare.pid = -1;
		s->spare.sock = -1;
	}
	free(path);
}

/*
 * The waiting helper, if this run may take it: the request leaves the
 * payload's stdio to ours, nothing it was started with changed, and it
 * is still waiting (a helper that has exited shows as end of file or
 * hang-up on its socket, and is reaped).  Else it is dropped: NULL.
 */
static struct cordon_spare *
spare_for(struct cordon_session *s, const struct cordon_config *cfg)
{
	struct pollfd pfd;

	if (s->spare.pid <= 0)
		return NULL;
	if (waitpid(s->spare.pid, NULL, WNOHANG) != 0) {
		/* Exited (now reaped), or reaped by someone else: gone. */
		close(s->spare.sock);
		s->spare.pid = -1;
		s->spare.sock = -1;
		return NULL;
	}
	pfd.fd = s->spare.sock;
	pfd.events = POLLIN;
	pfd.revents = 0;
	if (cfg->stdin_fd >= 0 || cfg->stdout_fd >= 0 || cfg->stderr_fd >= 0 ||
	    spare_key() != s->spare_key || poll(&pfd, 1, 0) != 0) {
		spare_drop(s);
		return NULL;
	}
	return &s->spare;
}

static bool
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * The system policy, read again if its file changed since (or appeared,
 * or went).  A policy that cannot be read refuses the run, as the gate
 * does, and is tried again next time.
 */
static int
session_policy(struct cordon_session *s, char *err, size_t errsz)
{
	char path[CORDON_MAX_PATH_LEN + 1];
	struct stat st;
	bool exists;
	int r;

	if ((r = cordon_gate_policy_path(path, sizeof(path), err, errsz)) < 0)
		return r;
	exists = stat(path, &st) == 0;
	if (!exists && errno != ENOENT) {
		/* Unknown: the loader says why, and nothing is kept. */
		s->have_pol = false;
		return cordon_policy_load(path, &s->pol, err, errsz);
	}
	if (s->have_pol && exists == s->had_file &&
	    (!exists || same_file(&st, &s->pol_st)))
		return 0;
	s->have_pol = false;
	if ((r = cordon_policy_load(path, &s->pol, err, errsz)) < 0)
		return r;
	s->have_pol = true;
	s->had_file = exists;
	if (exists)
		s->pol_st = st;
	return 0;
}

int
cordon_session_open(const cordon_config *opts, cordon_session **out)
{
	struct cordon_session *s;
	int r;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return -CORDON_E_NOMEM;
	s->spare.pid = -1;
	s->spare.sock = -1;
	if (opts != NULL && opts->trace_path != NULL)
		r = (s->trace_path = strdup(opts->trace_path)) != NULL ? 0 :
		    -CORDON_E_NOMEM;
	else
		r = cordon_default_trace_path(&s->trace_path);
	if (r == 0)
		r = cordon_trace_open(s->trace_path, &s->t);
	if (r < 0) {
		cordon_session_close(s);
		return r;
	}
	spare_start(s);
	*out = s;
	return 0;
}

int
cordon_session_run(cordon_session *s, const cordon_config *cfg,
    char *const argv[], cordon_result **result)
{
	struct cordon_config eff;
	uint32_t require = 0;
	int r;

	*result = NULL;
	s->error[0] = '\0';
	/* The session's trace is the run's: naming another is a mistake. */
	if (cfg->trace_path != NULL && strcmp(cfg->trace_path,
	    s->trace_path) != 0) {
		(void)snprintf(s->error, sizeof(s->error), "the request names the "
		    "trace %s, the session keeps %s open", cfg->trace_path,
		    s->trace_path);
		return -CORDON_E_INVAL;
	}
	if ((r = session_policy(s, s->error, sizeof(s->error))) < 0 ||
	    (r = cordon_admit_with(cfg, &s->pol, &eff, &require, s->error,
	    sizeof(s->error))) < 0)
		return r;
	eff.trace_path = s->trace_path;
	r = cordon_admitted_run_on(s->t, spare_for(s, &eff), &eff, require,
	    argv, result, s->error, sizeof(s->error));
	/* The next one, while the caller reads this result. */
	spare_start(s);
	return r;
}

const char *
cordon_session_error(const cordon_session *s)
{
	return s->error[0] != '\0' ? s->error : NULL;
}

void
cordon_session_close(cordon_session *s)
{
	if (s == NULL)
		return;
	spare_drop(s);
	cordon_trace_close(s->t);
	free(s->trace_path);
	free(s);
}
