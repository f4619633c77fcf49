/*
 * trace.h - the audit trace: one SQLite database (WAL) per user.
 *
 * Tables: meta (schema version), runs (one row per run, the result record
 * plus argv, cwd, user), events (create, backend, created, cap_hit, exit,
 * teardown, error; each timestamped).  Writes go in one IMMEDIATE
 * transaction per phase of a run so that many concurrent cordon processes
 * on one database lose nothing and never see "database is locked" (a busy
 * timeout absorbs contention).
 */
#ifndef CORDON_BROKER_TRACE_H
#define CORDON_BROKER_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#define CORDON_TRACE_SCHEMA_VERSION 4

struct cordon_trace;

struct cordon_trace_event {
	int64_t ts_ms;
	const char *kind;    /* "create", "backend", "created", "cap_hit", ... */
	char *detail;        /* free text; in callbacks valid only during the call */
};

/*
 * Opens (creating it and its parent directories, mode 0700, if needed)
 * and migrates the database at path.
 */
int cordon_trace_open(const char *path, struct cordon_trace **out);
void cordon_trace_close(struct cordon_trace *t);

/* Phase 1, before anything runs: the run row and its "create" event. */
int cordon_trace_begin(struct cordon_trace *t, const struct cordon_result *r);
/*
 * The same, with n events after the create in the same transaction (the
 * helper's backend and created, when they came before the commit: one
 * transaction where there were two).
 */
int cordon_trace_begin_with(struct cordon_trace *t, const struct cordon_result *r,
    const struct cordon_trace_event *ev, size_t n);
/* Phase 2..n: events as they arrive, in one transaction. */
int cordon_trace_events_add(struct cordon_trace *t, const char *run_id,
    const struct cordon_trace_event *ev, size_t n);
/* Last phase: the final record and the remaining events, in one transaction. */
int cordon_trace_finish(struct cordon_trace *t, const struct cordon_result *r,
    const struct cordon_trace_event *ev, size_t n);

/* Reads one run; -CORDON_E_NOTFOUND if there is none.  Clear *r after. */
int cordon_trace_get(struct cordon_trace *t, const char *run_id,
    struct cordon_result *r);
/*
 * The walks below call fn for each item; a nonzero return from fn stops
 * the walk and is returned.  An event ts_ms of 0 is recorded as "now".
 */
/* Calls fn for each event of a run, oldest first. */
int cordon_trace_get_events(struct cordon_trace *t, const char *run_id,
    int (*fn)(const struct cordon_trace_event *ev, void *arg), void *arg);
/* Calls fn for the newest `limit` runs (0: all), newest first. */
int cordon_trace_list(struct cordon_trace *t, unsigned limit,
    int (*fn)(const struct cordon_result *r, void *arg), void *arg);
/*
 * Runs that never finished (outcome unknown) and were started by a
 * process that no longer exists are marked sandbox_error.  Returns the
 * count marked.
 */
int cordon_trace_reconcile(struct cordon_trace *t);

#endif
