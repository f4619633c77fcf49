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
 * A session is not shared between threads at once (one SQLite
 * connection); distinct sessions may run in parallel.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	char error[CORDON_MAX_TEXT_LEN];
};

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
	    (!exists || cordon_same_file(&st, &s->pol_st)))
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
cordon_session_open(const cordon_config *opts, cordon_session **session)
{
	struct cordon_session *s;
	int r;

	*session = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return -CORDON_E_NOMEM;
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
	*session = s;
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
	return cordon_admitted_run_on(s->t, &eff, require, argv, result,
	    s->error, sizeof(s->error));
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
	cordon_trace_close(s->t);
	free(s->trace_path);
	free(s);
}
