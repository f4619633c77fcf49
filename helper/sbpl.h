/*
 * sbpl.h - the seatbelt backend's profile: generated from a run's
 * options as SBPL text plus the -D KEY=VALUE parameters sandbox-exec
 * is given with it.  Plain C, no macOS header: built and unit-tested on
 * Linux (tests/test_sbpl.c), and by the macOS glue (seatbelt_macos.c).
 *
 * Every path reaches the profile as (param "KEY") and its value only
 * as a parameter, so no byte of a path (quote, parenthesis, newline)
 * is ever parsed as SBPL.  Seatbelt compares paths as the kernel
 * resolves them, so the caller passes canonical paths (realpath(3):
 * /tmp is /private/tmp on macOS); sbpl_generate refuses a path that is
 * not absolute or has an empty, "." or ".." component, but cannot see
 * a symlink: canonicalising is the caller's job.
 */
#ifndef CORDON_SBPL_H
#define CORDON_SBPL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon_ids.h"
#include "sbpl_names.h"

/*
 * Seatbelt refuses a profile over 65,535 bytes ("data object length N
 * exceeds maximum (65535)", a 16-bit length): a longer one is an error
 * here, never a profile cut short.
 */
#define SBPL_MAX_PROFILE 65535U
/* macOS's PATH_MAX: no canonical path is longer. */
#define SBPL_MAX_PATH 1024U
#define SBPL_MAX_KEY 24U

struct sbpl_options {
	const char *workdir;    /* cwd, HOME and TMPDIR: the only writable tree */
	const char *home;       /* the invoker's HOME, whose secrets stay
	                           unreadable; NULL: none known, none derived */
	const char *const *ro_binds; /* readable even inside a secret */
	size_t nro_binds;
	bool network;           /* all network allowed */
	uint16_t egress_port;   /* without network: only localhost:port (the
	                           egress proxy's); 0: none */
};

struct sbpl_param {
	char key[SBPL_MAX_KEY];
	char *value;
};

struct sbpl_profile {
	char *text;             /* NUL-terminated, len <= SBPL_MAX_PROFILE */
	size_t len;
	struct sbpl_param *params;
	size_t nparams;
};

/*
 * Builds the profile for o into p (to be freed with sbpl_free); -1 with
 * the reason in err for a bad option (a path not canonical, a workdir
 * of "/") or a profile over SBPL_MAX_PROFILE; p is then empty.
 */
int sbpl_generate(const struct sbpl_options *o, struct sbpl_profile *p,
    char *err, size_t errsz);
void sbpl_free(struct sbpl_profile *p);

/* The name lists of sbpl_names.h, indexed by their enums. */
extern const char *const sbpl_op_names[SBPL_OP_N_];
extern const char *const sbpl_filter_names[SBPL_FILTER_N_];
extern const enum sbpl_arg sbpl_filter_args[SBPL_FILTER_N_];
extern const char *const sbpl_symbol_names[SBPL_SYMBOL_N_];
extern const enum sbpl_filter sbpl_symbol_filters[SBPL_SYMBOL_N_];
extern const char *const sbpl_modifier_names[SBPL_MODIFIER_N_];

/* The $HOME entries the profile keeps unreadable, relative to HOME. */
extern const char *const sbpl_home_secrets[];
extern const size_t sbpl_home_secrets_n;

/*
 * seatbelt_decide.c: the backend a macOS run gets from what it asked
 * for and the probe (ok, or why not), with the reason; -1 with the
 * reason when it gets none (seatbelt asked for and not applying, or
 * another system's backend).  And the caps each applies (a bit per
 * enum cordon_cap_id).  Plain C, tested on Linux.
 */
int seatbelt_decide(enum cordon_backend_id want, bool probe_ok,
    const char *probe_why, enum cordon_backend_id *pick, char *reason,
    size_t reasonsz);
uint32_t seatbelt_applied(enum cordon_backend_id b, bool network);

#ifdef __APPLE__
/*
 * seatbelt_macos.c: the macOS side (compiled only there, cross-built
 * by tools/macos-cross.sh).  struct request and the monitor's result
 * are helper.h's, shared with the Linux backends.
 */
struct request;
struct monitor_result;
/* realpath(3) of in into out (PATH_MAX bytes): /tmp is /private/tmp. */
int seatbelt_canonical(const char *in, char *out, char *err, size_t errsz);
/*
 * Runs sandbox-exec once with a trivial profile: 0 if it applies, else
 * -1 and why (inside another sandbox: exit 71, "sandbox_apply:
 * Operation not permitted"); the backend then degrades to the floor.
 */
int seatbelt_probe(char *why, size_t whysz);
/*
 * Runs req->argv under /usr/bin/sandbox-exec with profile p in workdir,
 * the rlimits of spawn.c set in the child; watches CPU, memory (phys
 * footprint) and wall over the tree; kills the tree at the end.
 * -1 with err for a sandbox error (nothing was run).
 */
int seatbelt_run(const struct request *req, const struct sbpl_profile *p,
    const char *workdir, struct monitor_result *res, char *err,
    size_t errsz);
/*
 * The same in steps, for the helper (main_macos.c), which reports
 * between them.  start: the profile tried, the child forked and held at
 * the barrier before its exec, with the rlimits set (p NULL: the floor,
 * the command run without sandbox-exec).  release: GO (-1: sandbox-exec
 * could not be run).  follow: the monitor until the tree ends, a cap,
 * something on stop_fd (the broker gone: res->broker_gone) or a signal
 * number in *signalled (interrupted); the tree killed and reaped.  abandon: a held (or released) child killed and
 * reaped instead.
 */
struct spawn;
int seatbelt_start(const struct request *req, const struct sbpl_profile *p,
    const char *workdir, struct spawn *sp, char *err, size_t errsz);
int seatbelt_release(struct spawn *sp, bool sandboxed, char *err,
    size_t errsz);
void seatbelt_follow(const struct request *req, struct spawn *sp,
    bool sandboxed, uint64_t start, int stop_fd,
    const volatile sig_atomic_t *signalled, struct monitor_result *res);
void seatbelt_abandon(struct spawn *sp);
#endif

#endif
