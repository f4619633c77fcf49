/*
 * cordon.h - libcordon, the public API of the cordon sandbox broker.
 *
 * A caller builds a cordon_config (it starts with the defaults: 60 CPU
 * seconds, 120 wall-clock seconds, 2 GiB resident, 512 open files, no
 * process cap, network denied), tightens what it needs, and calls
 * cordon_run().  The run happens in cordon-helper; the library validates,
 * records the run in the SQLite trace before anything starts, and returns
 * a cordon_result.
 *
 * Every function that can fail returns 0 or a positive value on success and
 * a negative CORDON_E_* code on failure; none of them prints.
 */
#ifndef CORDON_H
#define CORDON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The cap, backend, outcome and error ids, and their names: the wire's
 * numbers, shared with the helper (common/), installed beside this file.
 */
#include "cordon_ids.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cordon_config cordon_config;
typedef struct cordon_result cordon_result;
typedef struct cordon_session cordon_session;

/* Config: starts with the defaults above. */
cordon_config *cordon_config_new(void);
void cordon_config_free(cordon_config *cfg);
/*
 * Set one cap.  CPU and wall in nanoseconds, memory, output and disk in
 * bytes, nofile and nproc as counts (nproc, output, disk 0 = no cap).  Out-of-range values: -CORDON_E_RANGE.
 */
int cordon_config_set_limit(cordon_config *cfg, enum cordon_cap_id cap,
    uint64_t value);
uint64_t cordon_config_get_limit(const cordon_config *cfg,
    enum cordon_cap_id cap);
void cordon_config_set_network(cordon_config *cfg, bool allow);
/*
 * Egress allow-list: no network but connections to hosts matching
 * pattern ("host", "host:port", "*.suffix", an IP literal or CIDR),
 * through a proxy the broker runs (linux-ns only; not with network).
 * -CORDON_E_INVAL for a malformed pattern, -CORDON_E_TOOLONG past 256.
 */
int cordon_config_allow_host(cordon_config *cfg, const char *pattern);
/* -CORDON_E_UNAVAIL for another OS's backend (job on Linux, ...). */
int cordon_config_set_backend(cordon_config *cfg, enum cordon_backend_id b);
/* NULL restores the default ($XDG_STATE_HOME/cordon/trace.db). */
int cordon_config_set_trace_path(cordon_config *cfg, const char *path);
/*
 * Where workdirs are made; NULL restores the default: $XDG_RUNTIME_DIR/cordon,
 * else $XDG_STATE_HOME/cordon/runs (~/.local/state/cordon/runs).
 */
int cordon_config_set_workdir_base(cordon_config *cfg, const char *path);
/*
 * When fd becomes readable, a running cordon_run() stops the run (the
 * tree is killed and torn down, and the result says it was interrupted).
 * Lets a caller's signal handler cancel a run through a self-pipe.
 */
void cordon_config_set_cancel_fd(cordon_config *cfg, int fd);

/*
 * Files in and out of the workdir (each call adds one; dest NULL means
 * the default).  copy_in: host src (file, directory tree or symlink,
 * copied as the caller, symlinks as symlinks) to dest relative to the
 * workdir (default: src's last component), before the payload starts.
 * copy_out: path relative to the workdir to host dest (default: path's
 * last component in the current directory; never overwritten), after the
 * payload ended and before the teardown, at most copy_out_limit bytes
 * per path (default 1 GiB).  ro_bind (linux-ns only): host path src
 * visible read-only at the absolute dest inside (default: src).
 * -CORDON_E_INVAL for a path that can never be valid.
 */
int cordon_config_add_copy_in(cordon_config *cfg, const char *src,
    const char *dest);
int cordon_config_add_copy_out(cordon_config *cfg, const char *path,
    const char *dest);
int cordon_config_add_ro_bind(cordon_config *cfg, const char *src,
    const char *dest);
int cordon_config_set_copy_out_limit(cordon_config *cfg, uint64_t bytes);
/*
 * The payload's stdout / stderr: an fd open for writing (the library
 * does not close it), or -1 for the caller's own.  With an output cap
 * (cordon_config_set_limit(CORDON_CAP_OUTPUT, bytes)) at most that many
 * bytes of stdout and stderr together reach them.
 */
void cordon_config_set_stdout_fd(cordon_config *cfg, int fd);
void cordon_config_set_stderr_fd(cordon_config *cfg, int fd);
/*
 * The payload's stdin: an fd open for reading (the library does not
 * close it; a pipe's reader sees end of file once the caller closes the
 * write end), or -1 for the caller's own.
 */
void cordon_config_set_stdin_fd(cordon_config *cfg, int fd);
/*
 * Checks what only the file system can tell (copy-in sources readable,
 * copy-out destinations free, ro-bind sources present): 0, or
 * -CORDON_E_INVAL with the reason in err.  cordon_run() checks the same.
 * Policy and profiles (README.md, "Policy and profiles").  Precedence:
 * the built-in defaults < the system profile < the user profile < what
 * is set after the profile is loaded; all bounded by the system policy's
 * ceilings, which cordon_run and cordon_config_check enforce.
 *
 * cordon_config_load_profile applies profile NAME ([a-z0-9_-], at most 64):
 * $(sysconfdir)/cordon/profiles.d/NAME.conf, then over it the user's
 * $XDG_CONFIG_HOME/cordon/profiles/NAME.conf (at least one must exist).
 * Load it before setting what should override it.  err receives
 * "FILE:LINE: what is wrong" or why the profile was not found.
 */
int cordon_config_load_profile(cordon_config *cfg, const char *name,
    char *err, size_t errsz);
/*
 * The run must have control (a cap id: CORDON_CAP_NETWORK for network
 * isolation, CORDON_CAP_MEMORY, ...): if the backend that would run
 * cannot apply it, cordon_run refuses with -CORDON_E_UNMET, running and
 * recording nothing.  Adds to the system policy's own requirements.
 */
int cordon_config_require(cordon_config *cfg, enum cordon_cap_id control);
/*
 * Environment beyond the allow-list: set KEY=VALUE (a later value of
 * KEY replaces an earlier one), or keep KEY from the caller's environment
 * when it is set there.  KEY is [A-Za-z_][A-Za-z0-9_]* and not HOME or
 * TMPDIR; a proxy variable cannot be kept (set it explicitly instead).
 */
int cordon_config_set_env(cordon_config *cfg, const char *key_value);
int cordon_config_keep_env(cordon_config *cfg, const char *key);
/*
 * Whether cordon_run would accept cfg under the system policy (who may
 * run, ceilings, who may have network) and the required controls on this
 * host: 0, or -CORDON_E_POLICY, -CORDON_E_UNMET, ... with err saying why.
 */
int cordon_config_check(const cordon_config *cfg, char *err, size_t errsz);

/*
 * Which backend a run with this config would get, and why: the helper
 * builds the boundary in a throw-away child (nothing of the caller's
 * runs).  The answer is cached for the life of the process.  A backend
 * asked for by name that cannot be built: -CORDON_E_UNAVAIL, with why.
 */
int cordon_select(const cordon_config *cfg, enum cordon_backend_id *backend,
    char *reason, size_t reasonsz);

/*
 * The same probe, uncached, also handing every finding (kernel,
 * namespaces, seccomp, Landlock ABI, cgroups, ...) to fn as key and value.
 * A nonzero return from fn stops the probe and is returned.
 */
typedef int (*cordon_fact_fn)(const char *key, const char *value, void *arg);
int cordon_probe(const cordon_config *cfg, cordon_fact_fn fn, void *arg,
    enum cordon_backend_id *backend, char *reason, size_t reasonsz);

/*
 * Run argv[0] with argv inside the sandbox; stdin, stdout and stderr are
 * the caller's unless set above.  On return 0, *result holds the outcome, which may itself
 * be a sandbox error (the run was recorded but could not be completed).
 * A negative return means nothing ran and nothing was recorded.
 */
int cordon_run(const cordon_config *cfg, char *const argv[],
    cordon_result **result);

/*
 * A session, for a caller that runs many commands (cordon_session_open(3)):
 * the trace stays open (opts' trace path, NULL opts or path: the default)
 * and the system policy stays parsed, read again when its file changes.
 * cordon_session_run is cordon_run on them: the same gate, one helper and
 * one trace row per run; cfg may name no other trace (-CORDON_E_INVAL).
 * After a negative return cordon_session_error says why (NULL if it has
 * nothing to add to the code), until the next run.  One thread at a time
 * per session.  cordon_session_close(NULL) does nothing.
 */
int cordon_session_open(const cordon_config *opts, cordon_session **session);
int cordon_session_run(cordon_session *session, const cordon_config *cfg,
    char *const argv[], cordon_result **result);
const char *cordon_session_error(const cordon_session *session);
void cordon_session_close(cordon_session *session);

/*
 * Reclaims workdirs left by helpers that were killed (a run's own
 * teardown never needs this).  msg, if not NULL, receives a summary.
 */
int cordon_gc(const cordon_config *cfg, char *msg, size_t msgsz);

void cordon_result_free(cordon_result *r);
const char *cordon_result_run_id(const cordon_result *r);
enum cordon_backend_id cordon_result_backend(const cordon_result *r);
const char *cordon_result_backend_reason(const cordon_result *r);
enum cordon_outcome_id cordon_result_outcome(const cordon_result *r);
int cordon_result_exit_code(const cordon_result *r);   /* -1 if none */
int cordon_result_signal(const cordon_result *r);      /* 0 if none */
enum cordon_cap_id cordon_result_cap(const cordon_result *r);
double cordon_result_cpu_seconds(const cordon_result *r);
double cordon_result_wall_seconds(const cordon_result *r);
uint64_t cordon_result_max_rss_bytes(const cordon_result *r);
bool cordon_result_applied(const cordon_result *r, enum cordon_cap_id cap);
/* Why cap was not applied to the run, or NULL if it was (or none ran). */
const char *cordon_result_not_applied(const cordon_result *r,
    enum cordon_cap_id cap, char *buf, size_t bufsz);
bool cordon_result_workdir_removed(const cordon_result *r);
const char *cordon_result_error(const cordon_result *r); /* NULL if none */
/* The exit status the cordon CLI uses (timeout(1) conventions). */
int cordon_result_exit_status(const cordon_result *r);
/* The result record as one JSON object (malloc'd, caller frees). */
int cordon_result_json(const cordon_result *r, char **json);

#ifdef __cplusplus
}
#endif
#endif
