/*
 * policy.h - the one parser for cordon's configuration files, and the
 * checks that compare a request with the system policy.
 *
 * Three kinds of file share one small INI-like format (README.md,
 * "Policy and profiles"):
 *   the system policy   $(sysconfdir)/cordon/policy.conf: [ceilings] and
 *                       [policy] - the highest caps, who may use cordon,
 *                       who may be given --network, what every run must have;
 *   system profiles     $(sysconfdir)/cordon/profiles.d/NAME.conf: [profile];
 *   user profiles       $XDG_CONFIG_HOME/cordon/profiles/NAME.conf: [profile].
 *
 * The broker (libcordon) and the helper link the same code: the helper
 * loads the system policy itself and refuses a request over it, whatever
 * the broker sent.  Nothing here prints; every error is a negative
 * CORDON_E_* code and a message "FILE:LINE: what is wrong" (or "FILE: ...").
 */
#ifndef CORDON_POLICY_POLICY_H
#define CORDON_POLICY_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "types.h"

/* Bounds on what a file may hold: anything over them is an error. */
#define CORDON_POLICY_MAX_LINE 1024U     /* bytes, newline included */
#define CORDON_POLICY_MAX_FILE (256U << 10)
#define CORDON_POLICY_MAX_GROUPS 64U
#define CORDON_POLICY_MAX_GROUP_LEN 32U
#define CORDON_POLICY_MAX_ENV 256U       /* env and keep_env entries each */
#define CORDON_PROFILE_MAX_NAME 64U

/* The path of a file relative to the configuration directory. */
#define CORDON_POLICY_FILE "policy.conf"
#define CORDON_PROFILES_DIR "profiles.d"

enum cordon_policy_kind {
	CORDON_KIND_ANY = 0,       /* decide from the sections */
	CORDON_KIND_POLICY = 1,
	CORDON_KIND_PROFILE = 2,
};

/* A group list: "*" (everyone), empty (nobody), or names / numeric gids. */
struct cordon_groups {
	bool any;
	size_t n;
	char name[CORDON_POLICY_MAX_GROUPS][CORDON_POLICY_MAX_GROUP_LEN + 1];
};

struct cordon_policy {
	char path[CORDON_MAX_PATH_LEN + 1]; /* "" for the built-in defaults */
	uint64_t ceiling[CORDON_CAP_MAX_];  /* by cap id; 0 = none */
	unsigned ceiling_line[CORDON_CAP_MAX_];
	struct cordon_groups allow;         /* allow_groups (default "*") */
	struct cordon_groups network;       /* network_groups (default "*") */
	uint32_t require;                   /* bit (1 << cap) per control */
	char cgroup_parent[CORDON_MAX_PATH_LEN + 1]; /* reserved, stored only */
	/*
	 * allow_hosts_max: the --allow-host patterns a run may ask for,
	 * comma-separated, as written (the broker's gate applies it; the
	 * helper never sees a pattern).  Not set: any pattern.
	 */
	char allow_hosts_max[CORDON_MAX_TEXT_LEN];
	bool allow_hosts_max_set;
	unsigned allow_hosts_max_line;      /* for the broker's messages */
};

struct cordon_profile {
	char path[CORDON_MAX_PATH_LEN + 1];
	uint32_t set;                       /* bit (1 << cap) per limit given */
	uint64_t limit[CORDON_CAP_MAX_];    /* by cap id, as the API counts */
	int network;                        /* -1 not given, 0 no, 1 yes */
	int backend;                        /* -1 not given, else the id */
	uint32_t require;
	char **env;                         /* "KEY=VALUE", nenv of them */
	size_t nenv;
	char **keep_env;                    /* "KEY" */
	size_t nkeep;
	char **allow_hosts;                 /* allow_hosts =, one per entry */
	size_t nallow_hosts;
};

/* Defaults: no ceilings, everyone allowed, network for everyone. */
void cordon_policy_init(struct cordon_policy *pol);
void cordon_profile_init(struct cordon_profile *prof);
void cordon_profile_free(struct cordon_profile *prof);

/*
 * Parses text (len bytes, NULs are errors) named name in messages.  want
 * is the kind expected, or ANY to decide from the sections; *got (may be
 * NULL) says which it was.  Fills pol or prof (which may be NULL when that
 * kind is not wanted); on error the message names the line.
 */
int cordon_policy_parse(const char *name, const char *text, size_t len,
    enum cordon_policy_kind want, enum cordon_policy_kind *got,
    struct cordon_policy *pol, struct cordon_profile *prof, char *err,
    size_t errsz);

/*
 * Reads and parses a file.  The file must be owned by root (or, if
 * owner is not (uid_t)-1, by owner) and not writable by group or others:
 * otherwise anyone who can write it could loosen the policy or plant
 * variables in a profile.  In a user namespace that leaves host root
 * unmapped, root's file shows as the overflow uid and is taken as root's
 * under the conditions policy.c gives (never in a set-id process).  A
 * missing file: -CORDON_E_NOTFOUND.
 */
int cordon_policy_read_file(const char *path, uid_t owner,
    enum cordon_policy_kind want, enum cordon_policy_kind *got,
    struct cordon_policy *pol, struct cordon_profile *prof, char *err,
    size_t errsz);

/* The system policy at path; a missing file means the built-in defaults. */
int cordon_policy_load(const char *path, struct cordon_policy *pol,
    char *err, size_t errsz);
/*
 * The owner cordon_policy_read_file accepts for the invoker's own files
 * (a user profile): the real uid; on Windows any value but (uid_t)-1
 * stands for the invoker's account SID (policy_win.c).
 */
uid_t cordon_policy_self(void);

/*
 * Where the configuration lives: $(sysconfdir)/cordon, fixed at build
 * time.  For the test suite only, $CORDON_CONFDIR replaces it, and only
 * in a process that is not setuid or setgid (a setuid helper ignores it;
 * the broker ignores it when the installed helper is setuid).  The broker
 * passes it on to the helper; that is the only way it reaches one.
 */
const char *cordon_policy_confdir(void);
int cordon_policy_path(char *buf, size_t bufsz, const char *rel);

/* A profile name: 1-64 of [a-z0-9_-], so never a path. */
bool cordon_profile_name_valid(const char *name);

/*
 * "network-isolation, memory, ..." into a mask of cap bits.  Names:
 * network-isolation, filesystem-isolation, signal-scoping (scoping),
 * memory, processes, cpu, wall, open-files (nofile), output, disk.
 * On error bad receives the word that is not a control.
 */
int cordon_require_parse(const char *list, uint32_t *mask, char *bad,
    size_t badsz);
/* The --require name of a control (cap id), e.g. "network-isolation". */
const char *cordon_control_name(int cap);

/*
 * Whether a request fits the policy, for the invoker with these ids:
 * allow_groups, every ceiling, network_groups; with l NULL (a probe, which
 * has no limits) allow_groups alone.  0, or -CORDON_E_POLICY with err
 * saying which rule refused and where it is written.
 */
int cordon_policy_check(const struct cordon_policy *pol,
    const struct cordon_limits *l, bool network, uid_t uid, gid_t gid,
    const gid_t *groups, size_t ngroups, char *err, size_t errsz);
/* The same for the calling process's real uid, gid and groups. */
int cordon_policy_check_self(const struct cordon_policy *pol,
    const struct cordon_limits *l, bool network, char *err, size_t errsz);

/*
 * The helper's side in one call: loads the system policy (from
 * cordon_policy_confdir()), checks the request with
 * cordon_policy_check_self, and adds the policy's required controls to
 * *require (unless NULL).  l NULL: allow_groups alone, for a probe.  0, or
 * a negative code with err ready to report.
 */
int cordon_policy_enforce(const struct cordon_limits *l, bool network,
    uint32_t *require, char *err, size_t errsz);
/*
 * Fail closed: 0 if applied has every control of require; else
 * -CORDON_E_UNMET with err naming the first control missing on backend.
 */
int cordon_require_check(uint32_t require, uint32_t applied,
    const char *backend, char *err, size_t errsz);

#endif
