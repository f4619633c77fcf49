/*
 * internal.h - libcordon's private types and functions, shared by broker/
 * files and the CLI, never installed.  Each declaration says which file
 * defines it; HACKING.md draws the layers (tools/import-graph.sh).
 */
#ifndef CORDON_BROKER_INTERNAL_H
#define CORDON_BROKER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon.h"
#include "plat.h"
#include "types.h"

/* One --copy-in (src: host, dest: in the workdir), --copy-out (src: in the
 * workdir, dest: host) or --ro-bind (host path, path inside); dest may be
 * NULL: the default. */
struct cordon_copy {
	char *src;
	char *dest;
};

struct cordon_config {
	struct cordon_limits limits;
	bool network;
	enum cordon_backend_id backend;
	char *trace_path;     /* NULL: the default */
	char *workdir_base;   /* NULL: the default */
	int cancel_fd;        /* readable: cancel the run; -1: none */
	struct cordon_copy *copy_in, *copy_out, *binds;
	size_t ncopy_in, ncopy_out, nbinds;
	uint64_t copy_out_limit;
	int stdin_fd, stdout_fd, stderr_fd; /* the payload's, or -1: ours */
	bool truncate_output; /* stdout/stderr_fd emptied right before GO */
	/* Profiles (config.c) and what the gate checks (gate.c). */
	uint32_t limits_set;  /* bit (1 << cap): set by a profile, flag or call */
	uint32_t limits_from_profile; /* of those, set by the profile */
	char profile[72];     /* the profile applied, "" if none */
	uint32_t require;     /* bit (1 << cap) per control the run needs */
	char **env;           /* explicit "KEY=VALUE", one per KEY */
	size_t nenv;
	char **keep_env;      /* "KEY": passed from our environment if set */
	size_t nkeep;
	char **allow_hosts;   /* --allow-host patterns (egress.c checked) */
	size_t nallow_hosts;
};

/*
 * One run, as the result record and as a row of the trace.  Strings are
 * owned (cordon_result_clear frees them).
 */
struct cordon_result {
	int64_t created_ms;        /* ms since the epoch */
	int64_t ended_ms;          /* 0 while running */
	char **argv;               /* argc strings, exactly as given */
	size_t argc;
	char *cwd;                 /* the invoker's cwd */
	char *user;
	char *backend_reason;
	uint64_t cpu_ns;
	uint64_t wall_ns;
	uint64_t max_rss;
	char *workdir;
	char *error;               /* sandbox error or exec failure text */
	/* Who records the run: lets a later reconcile spot a killed broker. */
	uint64_t broker_start;     /* its start time, /proc/PID/stat field 22 */
	struct cordon_limits limits;      /* what was asked */
	uint32_t uid;
	enum cordon_backend_id backend_requested;
	enum cordon_backend_id backend;   /* AUTO (0) until the helper says */
	uint32_t applied;                 /* bit (1 << cap) per applied cap */
	uint32_t kernel_enforced;         /* of applied: by the run's cgroup */
	int outcome;               /* enum cordon_outcome_id; 0 = unknown */
	int exit_code;             /* -1 if none */
	int signal;                /* 0 if none */
	int cap;                   /* enum cordon_cap_id */
	int workdir_removed;       /* 1 yes, 0 no, -1 unknown */
	uint32_t broker_pid;
	bool network;                     /* whether network was asked for */
	bool files_failed;         /* a copy-out failed (exit status 125) */
	/* --allow-host (proxy.c): the patterns, and what the proxy did. */
	bool egress;               /* an allow-list was asked for */
	bool egress_attached;      /* the proxy served the run's namespace */
	bool egress_counted;       /* the counts are known (not from a trace) */
	char **allow_hosts;
	size_t nallow_hosts;
	uint64_t egress_allowed, egress_denied, egress_failed, egress_dropped;
	char run_id[CORDON_RUN_ID_LEN + 1];
};

/* result.c: frees r's strings and zeroes it. */
void cordon_result_clear(struct cordon_result *r);
/* Appends the result record's fields to an open JSON object. */
struct cordon_json;
void cordon_result_json_fields(const struct cordon_result *r,
    struct cordon_json *j);

/* config.c: the caps that are limits, in the order the policy checks them. */
#define CORDON_NLIMITS 5
extern const int cordon_limit_caps[CORDON_NLIMITS];
/* Where cap's value is in l, or NULL if cap is not a limit. */
uint64_t *cordon_limit_slot(struct cordon_limits *l, int cap);

/*
 * gate.c: whether the backend b, applying capable (bit (1 << cap) each;
 * reason says why it is the one), meets require for the run eff, minus
 * what eff declines (--network, caps not set): 0, or -CORDON_E_UNMET with
 * err naming each missing control and why.
 */
int cordon_require_unmet(const struct cordon_config *eff, uint32_t require,
    enum cordon_backend_id b, uint32_t capable, const char *reason,
    char *err, size_t errsz);
/*
 * gate.c, too: the system policy applied to a run, after the config's
 * own bounds and its file options.  *eff becomes a shallow copy of cfg
 * (it owns nothing) with the caps nobody set lowered to the ceilings,
 * after every check passed: allow_groups, ceilings, network_groups, and
 * the required controls (cfg's and the policy's, in *require) against
 * what the backend asked for could apply at best (no probe: the run's
 * own helper's BACKEND settles the rest, cordon_admitted_run).  Else a
 * negative code and err.  cordon_config_check is the same with a probe.
 */
int cordon_admit(const cordon_config *cfg, struct cordon_config *eff,
    uint32_t *require, char *err, size_t errsz);
/* The same with the system policy already loaded (session.c keeps it). */
struct cordon_policy;
int cordon_admit_with(const cordon_config *cfg, const struct cordon_policy *pol,
    struct cordon_config *eff, uint32_t *require, char *err, size_t errsz);
/* Where the gate reads the system policy: $(confdir)/policy.conf. */
int cordon_gate_policy_path(char *path, size_t pathsz, char *err,
    size_t errsz);
/*
 * run.c: cordon_run past the gate, cfg and require being cordon_admit's
 * eff and require (the CLI admits a run once, before it opens the
 * output files).  A required control the backend that was built lacks:
 * -CORDON_E_UNMET with err saying which and why, nothing recorded.
 */
int cordon_admitted_run(const struct cordon_config *cfg, uint32_t require,
    char *const argv[], cordon_result **result, char *err, size_t errsz);
/*
 * The same on a trace already open (session.c), which it leaves open;
 * t NULL: opened by cfg's path and closed, as cordon_admitted_run does.
 */
struct cordon_trace;
int cordon_admitted_run_on(struct cordon_trace *t,
    const struct cordon_config *cfg, uint32_t require, char *const argv[],
    cordon_result **result, char *err, size_t errsz);
/* result.c: why cap was not applied to a run, in buf; NULL if it was. */
const char *cordon_not_applied_reason(const struct cordon_result *r, int cap,
    char *buf, size_t bufsz);

/*
 * $(sysconfdir)/cordon, or $CORDON_CONFDIR for tests (policy.h), unless
 * the helper is setuid: plat_linux.c (not yet written for Windows).
 */
const char *cordon_confdir(void);
/*
 * Whether this OS's helper has BACKEND (plat.h: cordon_plat_backends);
 * a negative one (a profile's "not set") counts as here.  And their
 * names, "auto, linux-ns, ...", into buf for a message.
 */
bool cordon_backend_here(int backend);
const char *cordon_backends_here(char *buf, size_t bufsz);
/* The default trace and workdir base: plat.h (one file per OS). */
/* mkdir -p of path's parents, the helper to exec: plat.h. */

/* Starting and reaping the helper, and the channel to it: plat.h. */
/*
 * A run's REQUEST, then its ARG, ENV and BIND messages: r's run id and
 * argv, cfg's options, envp (envc entries, the last env_explicit of
 * them set by name) and the controls the run requires.
 */
int cordon_send_request(int sock, const cordon_config *cfg, const char *base,
    const struct cordon_result *r, char **envp, uint32_t envc,
    uint32_t require, uint32_t env_explicit);

/* files.c: copies into the workdir (fd) and out of it; -1 with err. */
int cordon_copy_in(int wdfd, const struct cordon_copy *c, uint64_t limit,
    char *err, size_t errsz);
int cordon_copy_out(int wdfd, const struct cordon_copy *c, uint64_t limit,
    const char *tag, char *err, size_t errsz);
/* The file options' checks that need no run (cordon_config_check). */
int cordon_files_check(const cordon_config *cfg, char *err, size_t errsz);
/* probe.c: cordon_select, also giving what the backend applies (mask). */
int cordon_select_applied(const cordon_config *cfg,
    enum cordon_backend_id *backend, uint32_t *applied, char *reason,
    size_t reasonsz);

/* paths.c, too: 32 hex digits from the OS's random source (plat.h). */
int cordon_new_run_id(char id[CORDON_RUN_ID_LEN + 1]);
int64_t cordon_now_ms(void);

#endif
