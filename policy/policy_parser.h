/*
 * policy_parser.h - the parser's insides, shared by policy.c (the parser
 * and the system policy, which the helper links) and profile.c (the
 * [profile] keys, which only the broker links).  Not installed, not API.
 */
#ifndef CORDON_POLICY_PARSER_H
#define CORDON_POLICY_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

enum section { SEC_NONE, SEC_CEILINGS, SEC_POLICY, SEC_PROFILE, SEC_MAX_ };

enum vtype {
	V_DURATION, V_SIZE, V_COUNT, V_BOOL, V_BACKEND, V_GROUPS, V_REQUIRE,
	V_CGROUP, V_ENV, V_KEEP_ENV, V_HOSTS,
};

struct key {
	const char *name;
	enum section sec;
	enum vtype type;
	int cap;              /* the cap a limit or ceiling sets, else 0 */
	bool repeat;          /* may be given more than once */
};

/* Every key of every section (policy.c), so each is known to both. */
#define CORDON_POLICY_NKEYS 21U
extern const struct key cordon_policy_keys[CORDON_POLICY_NKEYS];

struct ctx;
/* Sets a [profile] key into c->prof (profile.c); a CORDON_E_* code. */
typedef int (*cordon_profile_key_fn)(struct ctx *c, const struct key *k,
    const char *v);

/* The parse of one file: where we are, and what it has said so far. */
struct ctx {
	const char *name;
	unsigned line;
	char *err;
	size_t errsz;
	enum policy_kind_ { K_ANY, K_POLICY, K_PROFILE } kind;
	enum section sec;
	unsigned sec_line[SEC_MAX_];
	unsigned key_line[CORDON_POLICY_NKEYS];
	struct cordon_policy *pol;
	struct cordon_profile *prof;        /* NULL: no profile wanted */
	cordon_profile_key_fn profile_key;  /* NULL: none linked (the helper) */
};

/* "NAME:LINE: message"; always -CORDON_E_INVAL. */
int cordon_policy_fail(struct ctx *c, const char *f, ...)
    __attribute__((format(CORDON_PRINTF, 2, 3)));
#define fail cordon_policy_fail
/* A number for key k within its cap's hard bounds (types.h). */
int cordon_policy_limit(struct ctx *c, const struct key *k, const char *v,
    uint64_t *out);
/* The message for a require = list with a word that is not a control. */
#define REQUIRE_BAD "require: '%s' is not a control (network-isolation, " \
	"filesystem-isolation, signal-scoping, memory, processes, cpu, wall, " \
	"open-files, output, disk)"

/*
 * cordon_policy_parse, with the [profile] keys given to profile_key
 * (NULL: a profile is refused as not what was asked for).  prof, when
 * not NULL, is a scratch profile the caller made and keeps or frees.
 */
int cordon_policy_parse_with(const char *name, const char *text, size_t len,
    enum cordon_policy_kind want, enum cordon_policy_kind *got,
    struct cordon_policy *pol, struct cordon_profile *prof,
    cordon_profile_key_fn profile_key, char *err, size_t errsz);
/*
 * Reads path whole, bounded, after the ownership and mode checks that
 * cordon_policy_read_file documents; *text (to free) and *len.
 */
int cordon_policy_read_text(const char *path, uid_t owner, char **text,
    size_t *len, char *err, size_t errsz);

/* The policy file's path for messages, or "the built-in policy". */
const char *cordon_policy_source(const struct cordon_policy *pol);
/*
 * Every ceiling of pol against l (policy.c, every OS); 0, or
 * -CORDON_E_POLICY with err naming the ceiling and where it is written.
 */
int cordon_policy_check_ceilings(const struct cordon_policy *pol,
    const struct cordon_limits *l, char *err, size_t errsz);
/*
 * The policy's checks for one invoker: allow_groups, every ceiling,
 * network_groups (l NULL: allow_groups alone), member(g, arg) saying
 * whether the invoker is in a group list, who naming the invoker in a
 * refusal ("uid 1000").  0, or -CORDON_E_POLICY with err.
 */
int cordon_policy_check_as(const struct cordon_policy *pol,
    const struct cordon_limits *l, bool network, const char *who,
    bool (*member)(const struct cordon_groups *g, void *arg), void *arg,
    char *err, size_t errsz);

#endif
