/*
 * ids.c - the names of caps, backends, outcomes and errors
 * (cordon_ids.h): the words of the JSON record, the trace and the CLI.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "cordon_ids.h"
#include "types.h"

static const char *const cap_names[CORDON_CAP_MAX_] = {
	[CORDON_CAP_NONE] = "none",
	[CORDON_CAP_CPU] = "cpu",
	[CORDON_CAP_WALL] = "wall",
	[CORDON_CAP_MEMORY] = "memory",
	[CORDON_CAP_NOFILE] = "nofile",
	[CORDON_CAP_NPROC] = "processes",
	[CORDON_CAP_NETWORK] = "network",
	[CORDON_CAP_OUTPUT] = "output",
	[CORDON_CAP_DISK] = "disk",
	[CORDON_CAP_FILESYSTEM] = "filesystem",
	[CORDON_CAP_SCOPING] = "scoping",
};

static const char *const backend_names[CORDON_BACKEND_MAX_] = {
	[CORDON_BACKEND_AUTO] = "auto",
	[CORDON_BACKEND_LINUX_NS] = "linux-ns",
	[CORDON_BACKEND_LANDLOCK] = "landlock",
	[CORDON_BACKEND_FLOOR] = "floor",
	[CORDON_BACKEND_JOB] = "job",
	[CORDON_BACKEND_APPCONTAINER] = "appcontainer",
	[CORDON_BACKEND_SEATBELT] = "seatbelt",
};

static const char *const outcome_names[CORDON_OUTCOME_MAX_] = {
	[CORDON_OUTCOME_EXITED] = "exited",
	[CORDON_OUTCOME_SIGNALED] = "signaled",
	[CORDON_OUTCOME_CAP_HIT] = "cap_hit",
	[CORDON_OUTCOME_SANDBOX_ERROR] = "sandbox_error",
};

static const char *const error_names[CORDON_E_MAX_] = {
	[CORDON_OK] = "success",
	[CORDON_E_NOMEM] = "out of memory",
	[CORDON_E_INVAL] = "invalid argument",
	[CORDON_E_RANGE] = "value out of range",
	[CORDON_E_TOOLONG] = "string or message too long",
	[CORDON_E_SHORT] = "message truncated",
	[CORDON_E_PROTO] = "malformed message",
	[CORDON_E_VERSION] = "wire protocol version mismatch",
	[CORDON_E_IO] = "I/O error",
	[CORDON_E_EOF] = "peer closed the connection",
	[CORDON_E_TRACE] = "trace database error",
	[CORDON_E_HELPER] = "cannot start the helper",
	[CORDON_E_UNAVAIL] = "backend not available on this host",
	[CORDON_E_NOTFOUND] = "no such run",
	[CORDON_E_POLICY] = "refused by the system policy",
	[CORDON_E_UNMET] = "a required control cannot be applied on this host",
};

/*
 * Why a backend of another OS's helper never applies a cap, whatever the
 * host: the words of the result's not_applied, shared by the helper that
 * decides (helper/job.c) and the broker that reports (broker/result.c).
 * The caps a backend may or may not apply, by what the host showed
 * (cpu and memory read back from a Job Object), are said by the helper.
 */
struct never { int backend, cap; const char *why; };
static const struct never never[] = {
	{ CORDON_BACKEND_JOB, CORDON_CAP_NOFILE, "Windows has no "
	    "per-process handle limit a Job Object can set (no RLIMIT_NOFILE "
	    "equivalent)" },
	{ CORDON_BACKEND_JOB, CORDON_CAP_NETWORK, "a Job Object has no "
	    "socket rule; only the proxy variables are stripped (AppContainer "
	    "is the access tier)" },
	{ CORDON_BACKEND_JOB, CORDON_CAP_FILESYSTEM, "a Job Object has no path "
	    "rule; files are scoped only by the ephemeral workdir "
	    "(AppContainer is the access tier)" },
	{ CORDON_BACKEND_JOB, CORDON_CAP_SCOPING, "a Job Object does not scope "
	    "what the payload may open of other processes" },
	{ CORDON_BACKEND_JOB, CORDON_CAP_OUTPUT, "the job backend does not "
	    "count captured output" },
	{ CORDON_BACKEND_JOB, CORDON_CAP_DISK, "the job backend does not "
	    "measure the workdir" },
	{ CORDON_BACKEND_APPCONTAINER, CORDON_CAP_SCOPING, "what an "
	    "AppContainer may open of other processes depends on their DACLs, "
	    "which cordon does not check" },
	{ CORDON_BACKEND_SEATBELT, CORDON_CAP_NPROC, "macOS's RLIMIT_NPROC "
	    "counts all of the user's processes, not the sandbox's" },
};

static const char *
never_of(int backend, int cap)
{
	size_t i;

	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (never[i].backend == backend && never[i].cap == cap)
			return never[i].why;
	return NULL;
}

const char *
cordon_backend_never(int backend, int cap)
{
	const char *why = never_of(backend, cap);

	/*
	 * An AppContainer runs inside the job backend's Job Object: what
	 * that never applies, it does not either, but for the network and
	 * the files, which the container confines (helper/job.c).
	 */
	if (why == NULL && backend == CORDON_BACKEND_APPCONTAINER &&
	    cap != CORDON_CAP_NETWORK && cap != CORDON_CAP_FILESYSTEM)
		why = never_of(CORDON_BACKEND_JOB, cap);
	return why;
}

#define NAME_OF(table, i) \
	((i) >= 0 && (size_t)(i) < sizeof(table) / sizeof((table)[0]) && \
	    (table)[i] != NULL ? (table)[i] : "unknown")

const char *
cordon_cap_name(int cap)
{
	return NAME_OF(cap_names, cap);
}

const char *
cordon_backend_name(int backend)
{
	return NAME_OF(backend_names, backend);
}

const char *
cordon_outcome_name(int outcome)
{
	return NAME_OF(outcome_names, outcome);
}

const char *
cordon_strerror(int err)
{
	/* -INT_MIN does not exist: anything that far out is unknown anyway. */
	if (err < 0)
		err = err < -CORDON_E_MAX_ ? CORDON_E_MAX_ : -err;
	return NAME_OF(error_names, err);
}

int
cordon_backend_from_name(const char *name)
{
	int i;

	if (name == NULL)
		return -CORDON_E_INVAL;
	for (i = 0; i < CORDON_BACKEND_MAX_; i++)
		if (strcmp(name, backend_names[i]) == 0)
			return i;
	return -CORDON_E_INVAL;
}
