/*
 * caps.c - which cap a run's figures passed, in one fixed order, and the
 * final accounting once the tree is gone: shared by the Linux monitor
 * (monitor.c) and the seatbelt backend's macOS monitor
 * (seatbelt_macos.c), so both type a cap hit the same way; and the
 * result as the broker hears it (CAP_HIT for a cap, then EXIT), which
 * the Linux and macOS helpers send alike.
 */
#include "config.h"

#include "helper.h"

void
cap_set(struct monitor_result *res, enum cordon_cap_id cap,
    uint64_t observed, uint64_t limit)
{
	res->outcome = CORDON_OUTCOME_CAP_HIT;
	res->cap = cap;
	res->cap_observed = observed;
	res->cap_limit = limit;
}

/* A cap reached in this sample, checked in a fixed order. */
bool
cap_check(const struct request *req, const struct tree_sample *s,
    struct monitor_result *res)
{
	if (s->cpu_ns >= req->limits.cpu_ns)
		cap_set(res, CORDON_CAP_CPU, s->cpu_ns, req->limits.cpu_ns);
	else if (s->mem_bytes > req->limits.memory_bytes)
		cap_set(res, CORDON_CAP_MEMORY, s->mem_bytes,
		    req->limits.memory_bytes);
	else if (req->limits.nproc != 0 && s->nproc > req->limits.nproc)
		/* Past it: a tree of N tasks is within --nproc N. */
		cap_set(res, CORDON_CAP_NPROC, s->nproc, req->limits.nproc);
	else
		return false;
	return true;
}

/*
 * The final accounting against the caps, whatever the loop saw: a helper
 * its invoker SIGSTOPped samples nothing, yet the CPU reaped and the
 * memory high mark still show a cap passed, and by how much (and a cap
 * that ended the run gets its final figure).  Only for a run that ended
 * by itself, and only the caps cap_check() knows the run applied.  A
 * payload killed by SIGXCPU met RLIMIT_CPU (spawn.c), which the kernel
 * counts in scheduler ticks: under load they ran ~10% ahead of the exact
 * figure, so the signal is the evidence, once the tree has used half the
 * cap (no payload types its own SIGXCPU as a cap at once).
 */
void
cap_final(const struct request *req, struct monitor_result *res)
{
	struct tree_sample f = { res->cpu_ns, res->max_mem, 0 };

	if (res->outcome == CORDON_OUTCOME_CAP_HIT) {
		if (res->cap == CORDON_CAP_CPU && f.cpu_ns > res->cap_observed)
			res->cap_observed = f.cpu_ns;
		if (res->cap == CORDON_CAP_MEMORY &&
		    f.mem_bytes > res->cap_observed)
			res->cap_observed = f.mem_bytes;
		return;
	}
	if (res->outcome != CORDON_OUTCOME_EXITED &&
	    res->outcome != CORDON_OUTCOME_SIGNALED)
		return;
	if (!cap_check(req, &f, res) &&
	    res->outcome == CORDON_OUTCOME_SIGNALED && res->signal == SIGXCPU &&
	    f.cpu_ns >= req->limits.cpu_ns / 2)
		cap_set(res, CORDON_CAP_CPU, f.cpu_ns, req->limits.cpu_ns);
}

void
cap_report(const struct monitor_result *res,
    void (*send_msg)(const struct cordon_msg *m))
{
	struct cordon_msg m;

	if (res->outcome == CORDON_OUTCOME_CAP_HIT) {
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_CAP_HIT;
		m.u.cap_hit.cap = res->cap;
		m.u.cap_hit.observed = res->cap_observed;
		m.u.cap_hit.limit = res->cap_limit;
		send_msg(&m);
	}
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_EXIT;
	m.u.exit.outcome = res->outcome;
	m.u.exit.cap = res->outcome == CORDON_OUTCOME_CAP_HIT ? res->cap :
	    CORDON_CAP_NONE;
	m.u.exit.exit_code = res->exit_code;
	m.u.exit.signal = res->signal;
	m.u.exit.cpu_ns = res->cpu_ns;
	m.u.exit.wall_ns = res->wall_ns;
	m.u.exit.max_rss = res->max_mem;
	m.u.exit.error = (char *)(uintptr_t)res->error;
	send_msg(&m);
}
