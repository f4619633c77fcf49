/*
 * profile.c - the [profile] half of the configuration parser: the keys of
 * a profile, and the entry points that may return one
 * (cordon_policy_parse, cordon_policy_read_file).  The broker links it;
 * the helper, which reads only the system policy (policy.c), does not.
 * Why it is safe on hostile input: as policy.c says - it only ever sees a
 * value the bounded line reader handed over, and the lists it grows are
 * bounded by CORDON_POLICY_MAX_ENV.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "policy.h"
#include "policy_parser.h"

void
cordon_profile_init(struct cordon_profile *prof)
{
	memset(prof, 0, sizeof(*prof));
	prof->network = -1;
	prof->backend = -1;
}

void
cordon_profile_free(struct cordon_profile *prof)
{
	size_t i;

	for (i = 0; i < prof->nenv; i++)
		free(prof->env[i]);
	for (i = 0; i < prof->nkeep; i++)
		free(prof->keep_env[i]);
	for (i = 0; i < prof->nallow_hosts; i++)
		free(prof->allow_hosts[i]);
	free(prof->env);
	free(prof->keep_env);
	free(prof->allow_hosts);
	cordon_profile_init(prof);
}

bool
cordon_profile_name_valid(const char *name)
{
	size_t i;

	for (i = 0; name[i] != '\0'; i++)
		if (i >= CORDON_PROFILE_MAX_NAME ||
		    !((name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
		    name[i] == '-'))
			return false;
	return i > 0;
}

/* Appends a copy of s to a list bounded by CORDON_POLICY_MAX_ENV. */
static int
list_add(struct ctx *c, char ***list, size_t *n, const char *s,
    const char *key)
{
	char **grown, *copy;

	if (*n >= CORDON_POLICY_MAX_ENV)
		return fail(c, "%s: more than %u entries", key,
		    CORDON_POLICY_MAX_ENV);
	if ((copy = strdup(s)) == NULL)
		return -CORDON_E_NOMEM;
	if ((grown = reallocarray(*list, *n + 1, sizeof(char *))) == NULL) {
		free(copy);
		return -CORDON_E_NOMEM;
	}
	grown[(*n)++] = copy;
	*list = grown;
	return 0;
}

/* Whether a list of "KEY=..." or "KEY" entries already has s's KEY. */
static bool
list_has_key(char **list, size_t n, const char *s)
{
	return cordon_env_find(list, n, s) < n;
}

/* A key of [profile], into c->prof (policy.c's set_key hands it over). */
static int
profile_key(struct ctx *c, const struct key *k, const char *v)
{
	struct cordon_profile *pf = c->prof;
	char bad[80];
	uint32_t mask = 0;
	uint64_t x = 0;
	int r, b;

	if (*v == '\0' && k->type != V_REQUIRE)
		return fail(c, "%s: empty value", k->name);
	switch (k->type) {
	case V_DURATION:
	case V_SIZE:
	case V_COUNT:
		if ((r = cordon_policy_limit(c, k, v, &x)) < 0)
			return r;
		pf->limit[k->cap] = x;
		pf->set |= 1U << k->cap;
		return 0;
	case V_BOOL:
		if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
			return fail(c, "%s: '%s' is not yes or no", k->name, v);
		pf->network = strcmp(v, "yes") == 0;
		return 0;
	case V_BACKEND:
		if ((b = cordon_backend_from_name(v)) < 0)
			return fail(c, "backend: unknown backend '%s' (auto, "
			    "linux-ns, landlock, floor, job, appcontainer, "
			    "seatbelt)", v);
		pf->backend = b;
		return 0;
	case V_REQUIRE:
		if (cordon_require_parse(v, &mask, bad, sizeof(bad)) < 0)
			return fail(c, REQUIRE_BAD, bad);
		pf->require = mask;
		return 0;
	case V_ENV:
		if (strchr(v, '=') == NULL)
			return fail(c, "env: '%s' is not KEY=VALUE", v);
		if (!cordon_env_settable(v))
			return fail(c, "env: '%.*s' is not a variable that may be "
			    "set (a name of letters, digits and '_' not starting "
			    "with a digit; HOME and TMPDIR are cordon's)",
			    (int)strcspn(v, "="), v);
		if (list_has_key(pf->env, pf->nenv, v))
			return fail(c, "env: %.*s is set twice",
			    (int)strcspn(v, "="), v);
		return list_add(c, &pf->env, &pf->nenv, v, k->name);
	case V_KEEP_ENV:
		if (strchr(v, '=') != NULL || !cordon_env_settable(v))
			return fail(c, "keep_env: '%s' is not a variable name", v);
		if (cordon_env_is_proxy(v))
			return fail(c, "keep_env: %s is a proxy variable, which is "
			    "never taken from the environment; set it with "
			    "env = %s=VALUE if the payload must have it", v, v);
		if (list_has_key(pf->keep_env, pf->nkeep, v))
			return fail(c, "keep_env: %s is given twice", v);
		return list_add(c, &pf->keep_env, &pf->nkeep, v, k->name);
	case V_HOSTS:
		/* One pattern per entry; the broker checks its syntax. */
		if (strpbrk(v, " \t,") != NULL)
			return fail(c, "allow_hosts: '%s' is not one pattern (give "
			    "one per allow_hosts line)", v);
		return list_add(c, &pf->allow_hosts, &pf->nallow_hosts, v,
		    k->name);
	default:
		break;
	}
	return fail(c, "internal error");
}

int
cordon_policy_parse(const char *name, const char *text, size_t len,
    enum cordon_policy_kind want, enum cordon_policy_kind *got,
    struct cordon_policy *pol, struct cordon_profile *prof, char *err,
    size_t errsz)
{
	enum cordon_policy_kind kind = CORDON_KIND_ANY;
	struct cordon_profile sprof;
	int r;

	/* Built in a scratch copy, handed out only if the whole file is good. */
	cordon_profile_init(&sprof);
	r = cordon_policy_parse_with(name, text, len, want, &kind, pol,
	    prof != NULL ? &sprof : NULL, prof != NULL ? profile_key : NULL,
	    err, errsz);
	if (r == 0 && got != NULL)
		*got = kind;
	if (r == 0 && kind == CORDON_KIND_PROFILE && prof != NULL) {
		(void)snprintf(sprof.path, sizeof(sprof.path), "%s", name);
		*prof = sprof;
	} else {
		cordon_profile_free(&sprof);
	}
	return r;
}

int
cordon_policy_read_file(const char *path, uid_t owner,
    enum cordon_policy_kind want, enum cordon_policy_kind *got,
    struct cordon_policy *pol, struct cordon_profile *prof, char *err,
    size_t errsz)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	r = cordon_policy_read_text(path, owner, &text, &len, err, errsz);
	if (r == 0)
		r = cordon_policy_parse(path, text, len, want, got, pol, prof,
		    err, errsz);
	free(text);
	return r;
}
