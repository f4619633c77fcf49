/*
 * job.h - the Windows Job Object backend's decisions, in plain C.
 *
 * Which caps a run really got and how it ended are decided here from
 * facts the Windows glue (helper/job_win.c) gathers: the limits the job
 * read back after they were set, the completion-port messages it
 * received, and the job's final accounting.  Nothing here calls Windows,
 * so the decisions are built and unit-tested on Linux (tests/test_job.c)
 * with injected facts; the glue only translates Windows structures into
 * these.
 *
 * The rules, each a claim a reviewer can check against a named API:
 *   - A cap is applied only if QueryInformationJobObject
 *     (JobObjectExtendedLimitInformation) read back its flag and the
 *     value that was set.  A zero read-back is "not applied" (Wine
 *     accepts job limits, enforces none and reads back zeros).
 *   - CPU is the job's user-mode time (PerJobUserTimeLimit): Windows
 *     counts no kernel time there, unlike RLIMIT_CPU.
 *   - Memory is the job's committed memory (JobMemoryLimit), not the
 *     resident set: the job makes the allocation fail, it kills nothing.
 *   - Open files: Windows has no per-process handle limit a job can set,
 *     so that cap is never applied on this backend.
 *   - A cap that was not applied is never reported as hit, whatever the
 *     messages or the accounting say.
 */
#ifndef CORDON_HELPER_JOB_H
#define CORDON_HELPER_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon_ids.h"

/* What the run asked for; 0 = no cap (wall and nproc may be 0). */
struct job_ask {
	uint64_t cpu_ns;
	uint64_t wall_ns;
	uint64_t memory_bytes;
	uint64_t nofile;
	uint64_t nproc;
};

/* LimitFlags bits as read back, in the glue's translation. */
#define JOB_RB_TIME (1U << 0)           /* JOB_OBJECT_LIMIT_JOB_TIME */
#define JOB_RB_MEMORY (1U << 1)         /* JOB_OBJECT_LIMIT_JOB_MEMORY */
#define JOB_RB_ACTIVE (1U << 2)         /* JOB_OBJECT_LIMIT_ACTIVE_PROCESS */
#define JOB_RB_KILL_ON_CLOSE (1U << 3)  /* ..._KILL_ON_JOB_CLOSE */
#define JOB_RB_DIE_ON_EXCEPTION (1U << 4) /* ..._DIE_ON_UNHANDLED_EXCEPTION */

/* What QueryInformationJobObject showed after the limits were set. */
struct job_readback {
	bool queried;              /* the query succeeded */
	uint32_t flags;            /* JOB_RB_* */
	uint64_t cpu_100ns;        /* PerJobUserTimeLimit */
	uint64_t memory_bytes;     /* JobMemoryLimit */
	uint32_t active_processes; /* ActiveProcessLimit */
	/* JobObjectEndOfJobTimeInformation read back as POST_AT_END_OF_JOB */
	bool post_at_end;
};

/*
 * What the glue saw while the payload ran, in the order it saw it: the
 * completion port's messages (JOB_OBJECT_MSG_*) and the helper's own
 * wall timer.
 */
enum job_event {
	JOB_EV_END_OF_JOB_TIME = 1,    /* JOB_OBJECT_MSG_END_OF_JOB_TIME */
	JOB_EV_JOB_MEMORY_LIMIT,       /* JOB_OBJECT_MSG_JOB_MEMORY_LIMIT */
	JOB_EV_PROCESS_MEMORY_LIMIT,   /* JOB_OBJECT_MSG_PROCESS_MEMORY_LIMIT */
	JOB_EV_ACTIVE_PROCESS_LIMIT,   /* JOB_OBJECT_MSG_ACTIVE_PROCESS_LIMIT */
	JOB_EV_ACTIVE_PROCESS_ZERO,    /* JOB_OBJECT_MSG_ACTIVE_PROCESS_ZERO */
	JOB_EV_NEW_PROCESS,            /* JOB_OBJECT_MSG_NEW_PROCESS */
	JOB_EV_EXIT_PROCESS,           /* JOB_OBJECT_MSG_EXIT_PROCESS */
	JOB_EV_ABNORMAL_EXIT_PROCESS,  /* ..._ABNORMAL_EXIT_PROCESS */
	JOB_EV_WALL,                   /* the helper's wall timer expired */
	JOB_EV_MAX_
};

/* At most this many events are kept; later ones are counted, not kept. */
#define JOB_MAX_EVENTS 64

struct job_events {
	enum job_event ev[JOB_MAX_EVENTS];
	size_t n;
	size_t dropped;
};

/* The job's accounting, read before the job is terminated. */
struct job_account {
	bool queried;
	uint64_t user_100ns;        /* TotalUserTime */
	uint64_t kernel_100ns;      /* TotalKernelTime */
	uint64_t peak_job_memory;   /* PeakJobMemoryUsed */
	uint32_t total_processes;   /* TotalProcesses */
	uint32_t active_processes;  /* ActiveProcesses */
};

/* What the run got: a bit per enum cordon_cap_id, and why not. */
struct job_applied {
	uint32_t applied;
	const char *why[CORDON_CAP_MAX_]; /* static text; NULL when applied */
	bool kill_on_close;   /* KILL_ON_JOB_CLOSE read back */
};

/* The reason a zero read-back gives. */
#define JOB_WHY_NO_READBACK \
	"the job read back no limit (Wine accepts job limits and enforces none)"

/*
 * The limit values the glue sets for ask: CPU in 100 ns units rounded
 * up (so the cap is never looser than asked), memory in bytes, the
 * process count.  0 = do not set.  -CORDON_E_RANGE, *out untouched, if
 * the process count does not fit ActiveProcessLimit's 32 bits (the
 * caller refuses the run).
 */
struct job_limits {
	uint64_t cpu_100ns;
	uint64_t memory_bytes;
	uint32_t active_processes;
};
int job_limits_for(const struct job_ask *ask, struct job_limits *out);

/* Which caps the read-back shows applied, and why each other one is not. */
void job_applied_decide(const struct job_ask *ask,
    const struct job_readback *rb, struct job_applied *out);

/*
 * What an AppContainer adds to the job's caps (--backend appcontainer):
 * network (an empty capability list: no socket reaches anything,
 * loopback included) and filesystem (writes only where the container's
 * SID was granted: the workdir).  Scoping stays not applied, with why.
 */
void job_applied_appcontainer(struct job_applied *ap);

/*
 * The first cap in require (a bit per enum cordon_cap_id) that ap does
 * not apply, or CORDON_CAP_NONE: --require refuses the run on it before
 * the payload is started.
 */
enum cordon_cap_id job_require_unmet(const struct job_applied *ap,
    uint32_t require);

/* How the run ended. */
struct job_end {
	bool started;             /* the payload ran (else a sandbox error) */
	bool exited;              /* the first process ended by itself */
	uint32_t exit_code;       /* its GetExitCodeProcess, if exited */
};

enum job_evidence {
	JOB_BY_NONE = 0,
	JOB_BY_MESSAGE,     /* a completion-port message named the cap */
	JOB_BY_WALL,        /* the helper's own timer */
	JOB_BY_ACCOUNTING   /* QueryInformationJobObject's totals */
};

struct job_outcome {
	enum cordon_outcome_id outcome;
	enum cordon_cap_id cap;   /* CORDON_CAP_NONE unless CAP_HIT */
	enum job_evidence by;
	int status;               /* the exit status cordon gives */
};

/*
 * The typed outcome.  The first event naming an applied cap wins; with
 * none, the accounting decides (user time at or over the CPU cap; peak
 * committed memory within 90 % of the memory cap when the payload failed,
 * job.c says why); else the payload's own exit code passes through.
 */
void job_outcome_decide(const struct job_applied *ap,
    const struct job_readback *rb, const struct job_events *evs,
    const struct job_account *acct, const struct job_end *end,
    struct job_outcome *out);

/* One run's facts and decisions, as the glue gathers them. */
struct job_run {
	struct job_readback rb;
	struct job_applied ap;
	struct job_events evs;
	struct job_account acct;
	struct job_end end;
	struct job_outcome out;
};

/* Appends e (kept in order; past JOB_MAX_EVENTS only counted). */
void job_events_add(struct job_events *evs, enum job_event e);
/* "evidence" names for the result line. */
const char *job_evidence_name(enum job_evidence by);

#ifdef _WIN32
/*
 * The Windows glue (job_win.c, built only by mingw-w64): one run of
 * argv in a fresh workdir inside a Job Object.  Strings are UTF-8.
 */
struct job_win_req {
	struct job_ask ask;
	const char *workdir;       /* created here, must not exist; removed */
	char *const *argv;         /* argv[0] is the program */
	/*
	 * The payload's environment, checked (the helper's request), or
	 * NULL: this process's own, through the allow-list (the driver).
	 */
	char *const *envp;
	bool appcontainer;         /* --backend appcontainer */
	const char *run_id;        /* appcontainer: names its profile (hex) */
	char *const *ro;           /* appcontainer: --ro-bind sources, read */
	size_t nro;
	uint32_t require;          /* --require: a bit per cordon_cap_id */
	/* Polled while the payload runs: true ends it (the broker gone). */
	bool (*stop)(void *ctx);
	void *stop_ctx;
};

struct job_win_res {
	struct job_run run;
	uint32_t pid;              /* the payload's, once created */
	bool stopped;              /* req->stop ended the run */
	bool workdir_made;         /* this run made its workdir */
	bool workdir_removed;      /* the workdir this run made is gone */
	char err[512];             /* why, when the run was refused or failed */
};

/*
 * 0: the payload ran, res->out says how it ended.  -1: refused or
 * failed before it ran; res->err says why, res->out.status is 125, 126
 * (not executable) or 127 (not found), and no process was left; the
 * workdir, if it was made, is removed (err says so when it could not
 * be, as workdir_removed does).  The same as job_win_create, _release,
 * _follow and _end in a row.
 */
int job_win_run(const struct job_win_req *req, struct job_win_res *res);

/*
 * The same run in steps, for the helper, which reports between them
 * (BACKEND and CREATED after create, GO before release):
 *   create   refusals, the workdir, the job and its read-back (res->run.rb,
 *            .ap), the payload created suspended and assigned to the job
 *            (res->pid): it has run no instruction.  -1 as job_win_run,
 *            with everything already undone (*w NULL).
 *   release  resumes it; -1 (res->err) if it could not be.
 *   follow   until it ends, a cap, the wall deadline or req->stop.
 *   end      every path: the job terminated (the held payload too), the
 *            workdir removed, the outcome decided if it was followed; w
 *            freed.  req must live until then.
 */
/*
 * A probe: a job given ask's limits (and nothing started in it), read
 * back and decided as a run's would be (res->run.ap); with appcontainer
 * also whether userenv.dll has the AppContainer functions.  -1 with
 * res->err when the backend cannot be had.
 */
int job_win_probe(const struct job_ask *ask, bool appcontainer,
    struct job_win_res *res);

struct job_win;
int job_win_create(const struct job_win_req *req, struct job_win_res *res,
    struct job_win **w);
int job_win_release(struct job_win *w, struct job_win_res *res);
void job_win_follow(struct job_win *w, struct job_win_res *res);
void job_win_end(struct job_win *w, struct job_win_res *res);
#endif

#endif
