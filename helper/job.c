/*
 * job.c - the Windows Job Object backend's decisions (job.h says what
 * they rest on): the limits to set, which caps the read-back shows
 * applied, and the typed outcome from the job's messages and accounting.
 * Plain C, no Windows types: the glue (job_win.c) translates.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "job.h"
#include "types.h"

/* 100 ns units, Windows's FILETIME and job time unit. */
#define NS_PER_100NS 100ULL

int
job_limits_for(const struct job_ask *ask, struct job_limits *out)
{
	struct job_limits l = { 0, 0, 0 };

	/*
	 * Rounded up, so the job's cap is never looser than the one asked.
	 * LARGE_INTEGER is signed: any uint64_t of ns, divided by 100, fits.
	 */
	l.cpu_100ns = ask->cpu_ns / NS_PER_100NS +
	    (ask->cpu_ns % NS_PER_100NS != 0 ? 1 : 0);
	l.memory_bytes = ask->memory_bytes;
	if (ask->nproc > UINT32_MAX)
		return -CORDON_E_RANGE;
	l.active_processes = (uint32_t)ask->nproc;
	*out = l;
	return 0;
}

/*
 * Why a limit the job was given is or is not in force: NULL when the
 * read-back shows exactly what was set.  A zero value is Wine's answer
 * (its query returns zeros for every limit it was given), so it gets the
 * reason users will meet; any other mismatch is reported as such.
 */
static const char *
readback_why(const struct job_readback *rb, uint32_t flag, uint64_t set,
    uint64_t got, const char *differs)
{
	if (!rb->queried)
		return "the job's limits could not be read back "
		    "(QueryInformationJobObject failed)";
	if (got == 0)
		return JOB_WHY_NO_READBACK;
	if ((rb->flags & flag) == 0 || got != set)
		return differs;
	return NULL;
}

void
job_applied_decide(const struct job_ask *ask, const struct job_readback *rb,
    struct job_applied *out)
{
	struct job_limits set = { 0, 0, 0 };
	const char **why = out->why;
	int c;

	memset(out, 0, sizeof(*out));
	/* An ask job_limits_for refuses never reaches a job: none applied. */
	if (job_limits_for(ask, &set) != 0)
		set = (struct job_limits){ 0, 0, 0 };

	why[CORDON_CAP_CPU] = ask->cpu_ns == 0 ? "no CPU cap was set (--cpu)" :
	    readback_why(rb, JOB_RB_TIME, set.cpu_100ns, rb->cpu_100ns,
	    "the job read back a different user-time limit than was set");
	why[CORDON_CAP_MEMORY] = ask->memory_bytes == 0 ?
	    "no memory cap was set (--memory)" :
	    readback_why(rb, JOB_RB_MEMORY, set.memory_bytes, rb->memory_bytes,
	    "the job read back a different memory limit than was set");
	why[CORDON_CAP_NPROC] = ask->nproc == 0 ?
	    "no process cap was set (--nproc)" :
	    readback_why(rb, JOB_RB_ACTIVE, set.active_processes,
	    rb->active_processes,
	    "the job read back a different process limit than was set");
	/* The helper's own timer, then TerminateJobObject: no read-back. */
	why[CORDON_CAP_WALL] = ask->wall_ns == 0 ?
	    "no wall cap was set (--wall)" : NULL;
	/* What a Job Object never applies (common/ids.c). */
	for (c = 1; c < CORDON_CAP_MAX_; c++)
		if (cordon_backend_never(CORDON_BACKEND_JOB, c) != NULL)
			why[c] = cordon_backend_never(CORDON_BACKEND_JOB, c);
	for (c = 1; c < CORDON_CAP_MAX_; c++)
		if (why[c] == NULL)
			out->applied |= 1U << c;
	out->kill_on_close = rb->queried &&
	    (rb->flags & JOB_RB_KILL_ON_CLOSE) != 0;
}

void
job_applied_appcontainer(struct job_applied *ap)
{
	ap->why[CORDON_CAP_NETWORK] = NULL;
	ap->why[CORDON_CAP_FILESYSTEM] = NULL;
	ap->applied |= 1U << CORDON_CAP_NETWORK | 1U << CORDON_CAP_FILESYSTEM;
	ap->why[CORDON_CAP_SCOPING] = cordon_backend_never(
	    CORDON_BACKEND_APPCONTAINER, CORDON_CAP_SCOPING);
}

enum cordon_cap_id
job_require_unmet(const struct job_applied *ap, uint32_t require)
{
	int c;

	for (c = 1; c < CORDON_CAP_MAX_; c++)
		if ((require & (1U << c)) != 0 &&
		    (ap->applied & (1U << c)) == 0)
			return (enum cordon_cap_id)c;
	return CORDON_CAP_NONE;
}

void
job_events_add(struct job_events *evs, enum job_event e)
{
	if (evs->n < JOB_MAX_EVENTS)
		evs->ev[evs->n++] = e;
	else
		evs->dropped++;
}

/* The cap an event is evidence of, or CORDON_CAP_NONE. */
static enum cordon_cap_id
event_cap(enum job_event e)
{
	switch (e) {
	case JOB_EV_END_OF_JOB_TIME:
		return CORDON_CAP_CPU;
	case JOB_EV_JOB_MEMORY_LIMIT:
		return CORDON_CAP_MEMORY;
	case JOB_EV_ACTIVE_PROCESS_LIMIT:
		return CORDON_CAP_NPROC;
	case JOB_EV_WALL:
		return CORDON_CAP_WALL;
	/*
	 * No per-process memory limit is ever set, so that message is no
	 * cap of this run's; the rest are the tree's life, not caps.
	 */
	default:
		return CORDON_CAP_NONE;
	}
}

static bool
applied(const struct job_applied *ap, enum cordon_cap_id c)
{
	return (ap->applied & (1U << c)) != 0;
}

/*
 * The backstop the documentation asks for, since completion-port
 * messages are "not guaranteed": the job's totals.
 *
 * CPU: user time at or over the limit read back means the job reached
 * it (with POST_AT_END_OF_JOB the helper terminates the job; without it
 * Windows does).
 *
 * Memory, the 90 % rule: the job makes the offending allocation fail
 * rather than killing, and records the peak it allowed, never the
 * allocation it refused, so the peak of a run the cap stopped sits
 * below the cap.  A run whose peak committed memory came within 90 % of
 * the cap and that then *failed* (did not exit 0) is typed as cap
 * memory; one that exited 0 succeeded and is reported as exited, since
 * nothing was taken from it.  A payload that fails for its own reasons
 * after using 90 % of its cap is misreported as cap memory; that is the
 * price of a cap that refuses instead of killing, and it is written in
 * README.md's Windows section.
 *
 * Processes: a refused CreateProcess leaves no count in the accounting,
 * so the process cap is typed from its message only.
 */
static enum cordon_cap_id
accounting_cap(const struct job_applied *ap, const struct job_readback *rb,
    const struct job_account *acct, const struct job_end *end)
{
	bool failed = !end->exited || end->exit_code != 0;

	if (!acct->queried)
		return CORDON_CAP_NONE;
	if (applied(ap, CORDON_CAP_CPU) && acct->user_100ns >= rb->cpu_100ns)
		return CORDON_CAP_CPU;
	if (applied(ap, CORDON_CAP_MEMORY) && failed &&
	    acct->peak_job_memory >= rb->memory_bytes - rb->memory_bytes / 10)
		return CORDON_CAP_MEMORY;
	return CORDON_CAP_NONE;
}

void
job_outcome_decide(const struct job_applied *ap,
    const struct job_readback *rb, const struct job_events *evs,
    const struct job_account *acct, const struct job_end *end,
    struct job_outcome *out)
{
	enum cordon_cap_id cap = CORDON_CAP_NONE;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->outcome = CORDON_OUTCOME_SANDBOX_ERROR;
	out->status = 125;
	if (!end->started)
		return;
	/*
	 * The first event naming a cap that was applied: a message about a
	 * cap the job did not read back is never claimed.
	 */
	for (i = 0; i < evs->n && cap == CORDON_CAP_NONE; i++) {
		enum cordon_cap_id c = event_cap(evs->ev[i]);

		if (c != CORDON_CAP_NONE && applied(ap, c)) {
			cap = c;
			out->by = c == CORDON_CAP_WALL ? JOB_BY_WALL :
			    JOB_BY_MESSAGE;
		}
	}
	if (cap == CORDON_CAP_NONE) {
		cap = accounting_cap(ap, rb, acct, end);
		if (cap != CORDON_CAP_NONE)
			out->by = JOB_BY_ACCOUNTING;
	}
	if (cap != CORDON_CAP_NONE) {
		out->outcome = CORDON_OUTCOME_CAP_HIT;
		out->cap = cap;
		out->status = 124;
		return;
	}
	/* Ended with no cap and not by itself: the helper failed it. */
	if (!end->exited)
		return;
	out->outcome = CORDON_OUTCOME_EXITED;
	/*
	 * Windows exit codes are 32 bits (an unhandled exception's is an
	 * NTSTATUS such as 0xC0000005); an exit status has 8.  A code that
	 * does not fit is a failure, 255, never truncated to a success.
	 */
	out->status = end->exit_code <= 255 ? (int)end->exit_code : 255;
}

const char *
job_evidence_name(enum job_evidence by)
{
	switch (by) {
	case JOB_BY_MESSAGE:
		return "message";
	case JOB_BY_WALL:
		return "wall-timer";
	case JOB_BY_ACCOUNTING:
		return "accounting";
	default:
		return "none";
	}
}
