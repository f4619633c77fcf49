/*
 * fuzz_policy.c - the policy and profile parser (policy/policy.c).
 *
 * The input is a whole file: the system policy is read by the helper
 * (perhaps setuid), and a user profile is written by whoever owns it.
 * The first byte picks the kind asked for (any, policy, profile); the
 * rest is the text, NULs and all.
 *
 * Properties, beyond "no crash, no sanitizer report":
 * - 0 or a negative code; on error the message names the file and, when
 *   a line is at fault, a line that exists; nothing is handed out;
 * - what is accepted is within the hard bounds of types.h: ceilings and
 *   limits in range, groups and lists bounded, every env entry settable
 *   and unique by KEY, no proxy in keep_env, require only real controls;
 * - asking for the kind the text turned out to be gives the same answer.
 */
#include "config.h"

#include <string.h>

#include "env.h"
#include "fuzz.h"
#include "policy.h"

#define FILE_NAME "fuzz.conf"

static bool
in_bounds(int cap, uint64_t v, bool ceiling)
{
	switch (cap) {
	case CORDON_CAP_CPU:
	case CORDON_CAP_WALL:
		return v >= CORDON_MIN_TIME_NS && v <= CORDON_MAX_TIME_NS;
	case CORDON_CAP_MEMORY:
		return v >= CORDON_MIN_MEMORY && v <= CORDON_MAX_MEMORY;
	case CORDON_CAP_NOFILE:
		return v >= CORDON_MIN_NOFILE && v <= CORDON_MAX_NOFILE;
	default:
		return v <= CORDON_MAX_NPROC && (!ceiling || v >= 1);
	}
}

static void
check_policy(const struct cordon_policy *p)
{
	int cap;

	FUZZ_CHECK(strcmp(p->path, FILE_NAME) == 0);
	for (cap = 0; cap < CORDON_CAP_MAX_; cap++)
		if (p->ceiling[cap] != 0)
			FUZZ_CHECK(cap >= CORDON_CAP_CPU && cap <= CORDON_CAP_NPROC &&
			    in_bounds(cap, p->ceiling[cap], true) &&
			    p->ceiling_line[cap] >= 1);
	FUZZ_CHECK(p->allow.n <= CORDON_POLICY_MAX_GROUPS &&
	    p->network.n <= CORDON_POLICY_MAX_GROUPS);
	FUZZ_CHECK(!p->allow.any || p->allow.n == 0);
	FUZZ_CHECK((p->require & 1U) == 0 && (p->require >> CORDON_CAP_MAX_) == 0);
	FUZZ_CHECK(p->cgroup_parent[0] == '\0' || p->cgroup_parent[0] == '/');
}

static void
check_profile(const struct cordon_profile *p)
{
	size_t i, j, k;
	int cap;

	for (cap = 0; cap < CORDON_CAP_MAX_; cap++)
		if ((p->set & (1U << cap)) != 0)
			FUZZ_CHECK(cap >= CORDON_CAP_CPU && cap <= CORDON_CAP_NPROC &&
			    in_bounds(cap, p->limit[cap], false));
	FUZZ_CHECK(p->network >= -1 && p->network <= 1);
	FUZZ_CHECK(p->backend >= -1 && p->backend < CORDON_BACKEND_MAX_);
	FUZZ_CHECK((p->require & 1U) == 0 && (p->require >> CORDON_CAP_MAX_) == 0);
	FUZZ_CHECK(p->nenv <= CORDON_POLICY_MAX_ENV &&
	    p->nkeep <= CORDON_POLICY_MAX_ENV);
	for (i = 0; i < p->nenv; i++) {
		FUZZ_CHECK(strchr(p->env[i], '=') != NULL &&
		    cordon_env_settable(p->env[i]));
		k = strcspn(p->env[i], "=");
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strncmp(p->env[j], p->env[i], k + 1) != 0);
	}
	for (i = 0; i < p->nkeep; i++)
		FUZZ_CHECK(strchr(p->keep_env[i], '=') == NULL &&
		    cordon_env_settable(p->keep_env[i]) &&
		    !cordon_env_is_proxy(p->keep_env[i]));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cordon_policy pol, pol2;
	struct cordon_profile prof, prof2;
	enum cordon_policy_kind want, got = CORDON_KIND_ANY, got2;
	char err[1024];
	const char *text;
	unsigned long line;
	int r, r2;

	if (size == 0)
		return 0;
	want = (enum cordon_policy_kind)(data[0] % 3);
	text = (const char *)data + 1;
	size--;
	cordon_policy_init(&pol);
	cordon_profile_init(&prof);
	memset(err, 0, sizeof(err));
	r = cordon_policy_parse(FILE_NAME, text, size, want, &got, &pol, &prof,
	    err, sizeof(err));
	FUZZ_CHECK(r <= 0);
	if (r < 0) {
		FUZZ_CHECK(strncmp(err, FILE_NAME ":", sizeof(FILE_NAME)) == 0);
		if (err[sizeof(FILE_NAME)] >= '1' && err[sizeof(FILE_NAME)] <= '9') {
			/* The line named exists: at most one past the last newline. */
			line = strtoul(err + sizeof(FILE_NAME), NULL, 10);
			FUZZ_CHECK(line >= 1 && line <= size + 1);
		}
		FUZZ_CHECK(prof.nenv == 0 && prof.nkeep == 0 && prof.set == 0);
		FUZZ_CHECK(pol.path[0] == '\0');
		return 0;
	}
	FUZZ_CHECK(got == CORDON_KIND_POLICY || got == CORDON_KIND_PROFILE);
	FUZZ_CHECK(want == CORDON_KIND_ANY || want == got);
	if (got == CORDON_KIND_POLICY)
		check_policy(&pol);
	else
		check_profile(&prof);

	/* The kind it turned out to be, asked for: the same answer. */
	cordon_profile_init(&prof2);
	r2 = cordon_policy_parse(FILE_NAME, text, size, got, &got2, &pol2,
	    &prof2, err, sizeof(err));
	FUZZ_CHECK(r2 == 0 && got2 == got);
	if (got == CORDON_KIND_POLICY)
		FUZZ_CHECK(memcmp(pol.ceiling, pol2.ceiling,
		    sizeof(pol.ceiling)) == 0 && pol.require == pol2.require &&
		    pol.allow.any == pol2.allow.any &&
		    pol.allow.n == pol2.allow.n &&
		    pol.network.any == pol2.network.any &&
		    pol.network.n == pol2.network.n &&
		    strcmp(pol.cgroup_parent, pol2.cgroup_parent) == 0);
	else
		FUZZ_CHECK(prof2.set == prof.set && prof2.nenv == prof.nenv &&
		    prof2.nkeep == prof.nkeep && prof2.require == prof.require);
	cordon_profile_free(&prof);
	cordon_profile_free(&prof2);
	return 0;
}
