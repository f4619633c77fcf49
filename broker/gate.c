/*
 * gate.c - what the system policy, profiles and required controls do to
 * a run, on the broker's side: profiles applied to a config, the
 * environment beyond the allow-list, and the gate every run passes before
 * anything is recorded or started (cordon_gate).
 *
 * The helper loads the same policy with the same parser and refuses what
 * it forbids by itself (helper/helper.c, enforce_policy); the broker's
 * check is there to say so clearly, with exit 125, before anything starts.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "internal.h"
#include "policy.h"

/* Caps that are limits, in the order the policy checks them. */
static const int limit_caps[] = {
	CORDON_CAP_CPU, CORDON_CAP_WALL, CORDON_CAP_MEMORY, CORDON_CAP_NOFILE,
	CORDON_CAP_NPROC,
};
#define NLIMITS (sizeof(limit_caps) / sizeof(limit_caps[0]))

int
cordon_config_require(cordon_config *cfg, enum cordon_cap_id control)
{
	if ((int)control <= 0 || control >= CORDON_CAP_MAX_)
		return -CORDON_E_INVAL;
	cfg->require |= 1U << control;
	return 0;
}

/* The index of the entry of list with entry's KEY, or n. */
static size_t
find_key(char **list, size_t n, const char *entry)
{
	size_t klen = strcspn(entry, "="), i;

	for (i = 0; i < n; i++)
		if (strncmp(list[i], entry, klen) == 0 &&
		    (list[i][klen] == '=' || list[i][klen] == '\0'))
			return i;
	return n;
}

/* Adds a copy of s to list, or replaces the entry with the same KEY. */
static int
list_put(char ***list, size_t *n, const char *s)
{
	size_t i = find_key(*list, *n, s);
	char **grown, *copy;

	if ((copy = strdup(s)) == NULL)
		return -CORDON_E_NOMEM;
	if (i < *n) {
		free((*list)[i]);
		(*list)[i] = copy;
		return 0;
	}
	if (*n >= CORDON_MAX_ENVC ||
	    (grown = reallocarray(*list, *n + 1, sizeof(char *))) == NULL) {
		free(copy);
		return *n >= CORDON_MAX_ENVC ? -CORDON_E_TOOLONG : -CORDON_E_NOMEM;
	}
	grown[(*n)++] = copy;
	*list = grown;
	return 0;
}

int
cordon_config_set_env(cordon_config *cfg, const char *key_value)
{
	if (strchr(key_value, '=') == NULL || !cordon_env_settable(key_value) ||
	    strlen(key_value) > CORDON_MAX_ARG_LEN)
		return -CORDON_E_INVAL;
	return list_put(&cfg->env, &cfg->nenv, key_value);
}

int
cordon_config_keep_env(cordon_config *cfg, const char *key)
{
	/* A proxy is never taken from the environment: say it explicitly. */
	if (strchr(key, '=') != NULL || !cordon_env_settable(key) ||
	    cordon_env_is_proxy(key))
		return -CORDON_E_INVAL;
	return list_put(&cfg->keep_env, &cfg->nkeep, key);
}

static int
apply_profile(cordon_config *cfg, const struct cordon_profile *p)
{
	size_t i;
	int r, cap;

	for (i = 0; i < NLIMITS; i++) {
		cap = limit_caps[i];
		if ((p->set & (1U << cap)) == 0)
			continue;
		if ((r = cordon_config_set_limit(cfg, (enum cordon_cap_id)cap,
		    p->limit[cap])) < 0)
			return r;
		cfg->limits_from_profile |= 1U << cap;
	}
	if (p->network >= 0)
		cfg->network = p->network == 1;
	if (p->backend >= 0)
		cfg->backend = (enum cordon_backend_id)p->backend;
	cfg->require |= p->require;
	for (i = 0; i < p->nenv; i++)
		if ((r = cordon_config_set_env(cfg, p->env[i])) < 0)
			return r;
	for (i = 0; i < p->nkeep; i++)
		if ((r = cordon_config_keep_env(cfg, p->keep_env[i])) < 0)
			return r;
	return 0;
}

int
cordon_config_load_profile(cordon_config *cfg, const char *name, char *err,
    size_t errsz)
{
	struct cordon_profile sys, usr;
	char syspath[CORDON_MAX_PATH_LEN + 1], *upath = NULL;
	int rs, ru = -CORDON_E_NOTFOUND, r;

	if (!cordon_profile_name_valid(name)) {
		(void)snprintf(err, errsz, "profile name '%s' is not 1 to %u of "
		    "a-z, 0-9, '_' and '-'", name, CORDON_PROFILE_MAX_NAME);
		return -CORDON_E_INVAL;
	}
	cordon_profile_init(&sys);
	cordon_profile_init(&usr);
	if ((size_t)snprintf(syspath, sizeof(syspath), "%s/%s/%s.conf",
	    cordon_confdir(), CORDON_PROFILES_DIR, name) >= sizeof(syspath)) {
		r = -CORDON_E_TOOLONG;
		(void)snprintf(err, errsz, "profile path too long");
		goto out;
	}
	/* System profiles belong to root; the user's to root or the user. */
	rs = cordon_policy_read_file(syspath, (uid_t)-1, CORDON_KIND_PROFILE,
	    NULL, NULL, &sys, err, errsz);
	if ((r = rs) < 0 && rs != -CORDON_E_NOTFOUND)
		goto out;
	if ((r = cordon_user_profile_path(&upath, name)) < 0) {
		(void)snprintf(err, errsz, "cannot find your profile directory "
		    "(set XDG_CONFIG_HOME or HOME)");
		goto out;
	}
	ru = cordon_policy_read_file(upath, getuid(), CORDON_KIND_PROFILE, NULL,
	    NULL, &usr, err, errsz);
	if ((r = ru) < 0 && ru != -CORDON_E_NOTFOUND)
		goto out;
	if (rs == -CORDON_E_NOTFOUND && ru == -CORDON_E_NOTFOUND) {
		(void)snprintf(err, errsz, "no profile %s: neither %s nor %s "
		    "exists", name, syspath, upath);
		r = -CORDON_E_NOTFOUND;
		goto out;
	}
	if ((r = apply_profile(cfg, &sys)) < 0 ||
	    (r = apply_profile(cfg, &usr)) < 0) {
		(void)snprintf(err, errsz, "profile %s: %s", name,
		    cordon_strerror(r));
		goto out;
	}
	(void)snprintf(cfg->profile, sizeof(cfg->profile), "%s", name);
out:
	cordon_profile_free(&sys);
	cordon_profile_free(&usr);
	free(upath);
	return r;
}

static uint64_t *
slot(struct cordon_limits *l, int cap)
{
	switch (cap) {
	case CORDON_CAP_CPU: return &l->cpu_ns;
	case CORDON_CAP_WALL: return &l->wall_ns;
	case CORDON_CAP_MEMORY: return &l->memory_bytes;
	case CORDON_CAP_NOFILE: return &l->nofile;
	default: return &l->nproc;
	}
}

const char *
cordon_not_applied_reason(const struct cordon_result *r, int cap, char *buf,
    size_t bufsz)
{
	const char *why = NULL;
	bool floor = r->backend == CORDON_BACKEND_FLOOR;
	bool ll = r->backend == CORDON_BACKEND_LANDLOCK;

	if (r->backend == CORDON_BACKEND_AUTO || cap <= 0 ||
	    cap >= CORDON_CAP_MAX_ || (r->applied & (1U << cap)) != 0)
		return NULL;
	switch (cap) {
	case CORDON_CAP_NETWORK:
		why = r->network ? "network access was asked for (--network)" :
		    floor ? "the floor backend has no network isolation" :
		    ll ? "this kernel's Landlock has no network rules (needs "
		    "ABI 4)" : NULL;
		break;
	case CORDON_CAP_FILESYSTEM:
		why = floor ? "the floor backend has no file-system isolation" :
		    ll ? "this kernel's Landlock cannot confine truncate(2) "
		    "(needs ABI 3)" : NULL;
		break;
	case CORDON_CAP_SCOPING:
		why = floor ? "the floor backend does not scope signals or "
		    "abstract sockets" : ll ? "this kernel's Landlock cannot "
		    "scope signals and abstract sockets (needs ABI 6)" : NULL;
		break;
	case CORDON_CAP_NPROC:
		why = r->limits.nproc == 0 ? "no process cap was set (--nproc)" :
		    NULL;
		break;
	case CORDON_CAP_OUTPUT:
		why = r->limits.output_bytes == 0 ? "no output cap was set "
		    "(--output-limit)" : NULL;
		break;
	case CORDON_CAP_DISK:
		why = r->limits.disk_bytes == 0 ? "no disk cap was set (--disk)" :
		    NULL;
		break;
	default:
		break;
	}
	if (why != NULL)
		(void)snprintf(buf, bufsz, "%s", why);
	else
		(void)snprintf(buf, bufsz, "the %s backend does not apply it on "
		    "this host", cordon_backend_name(r->backend));
	return buf;
}

const char *
cordon_result_not_applied(const cordon_result *r, enum cordon_cap_id cap,
    char *buf, size_t bufsz)
{
	return cordon_not_applied_reason(r, (int)cap, buf, bufsz);
}

/* The required controls against what the backend that would run applies. */
static int
check_required(const struct cordon_config *eff, uint32_t require, char *err,
    size_t errsz)
{
	struct cordon_result would;
	char reason[CORDON_MAX_TEXT_LEN] = "", why[256];
	enum cordon_backend_id b = CORDON_BACKEND_FLOOR;
	uint32_t capable = 0, miss;
	size_t n;
	int r, cap;

	r = cordon_select_applied(eff, &b, &capable, reason, sizeof(reason));
	if (r == -CORDON_E_UNAVAIL) {
		(void)snprintf(err, errsz, "backend %s is not available: %s",
		    cordon_backend_name(eff->backend), reason);
		return r;
	}
	if (r < 0) {
		(void)snprintf(err, errsz, "cannot tell which backend would run "
		    "(%s), so the required controls cannot be checked",
		    cordon_strerror(r));
		return r;
	}
	/* What the probe says the backend gives, minus what this run declines. */
	if (eff->network)
		capable &= ~(1U << CORDON_CAP_NETWORK);
	if (eff->limits.nproc == 0)
		capable &= ~(1U << CORDON_CAP_NPROC);
	if (eff->limits.output_bytes == 0)
		capable &= ~(1U << CORDON_CAP_OUTPUT);
	if (eff->limits.disk_bytes == 0)
		capable &= ~(1U << CORDON_CAP_DISK);
	if ((miss = require & ~capable) == 0)
		return 0;
	memset(&would, 0, sizeof(would));
	would.backend = b;
	would.applied = capable;
	would.network = eff->network;
	would.limits = eff->limits;
	n = (size_t)snprintf(err, errsz, "a required control is missing on "
	    "this host with the %s backend (%s):", cordon_backend_name(b),
	    reason);
	for (cap = 1; cap < CORDON_CAP_MAX_ && n < errsz; cap++)
		if ((miss & (1U << cap)) != 0)
			n += (size_t)snprintf(err + n, errsz - n, " %s: %s;",
			    cordon_control_name(cap),
			    cordon_not_applied_reason(&would, cap, why, sizeof(why)));
	if (n > 0 && n < errsz && err[n - 1] == ';')
		err[n - 1] = '\0';
	return -CORDON_E_UNMET;
}

int
cordon_gate(const cordon_config *cfg, struct cordon_config *eff,
    uint32_t *require, char *err, size_t errsz)
{
	struct cordon_policy pol;
	char path[CORDON_MAX_PATH_LEN + 1];
	uint64_t *v;
	size_t i, n;
	int r, cap;

	*eff = *cfg;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", cordon_confdir(),
	    CORDON_POLICY_FILE) >= sizeof(path)) {
		(void)snprintf(err, errsz, "the policy path is too long");
		return -CORDON_E_TOOLONG;
	}
	if ((r = cordon_policy_load(path, &pol, err, errsz)) < 0)
		return r;
	/*
	 * A cap nobody set is the built-in default, lowered to the ceiling
	 * where the ceiling is below it (a default never breaks the policy);
	 * under a process ceiling a run without a process cap gets it.  A cap
	 * somebody set - a profile, a flag, a caller - is checked, never
	 * changed: over its ceiling the run is refused.
	 */
	for (i = 0; i < NLIMITS; i++) {
		cap = limit_caps[i];
		v = slot(&eff->limits, cap);
		if ((cfg->limits_set & (1U << cap)) == 0 &&
		    pol.ceiling[cap] != 0 && (*v == 0 || *v > pol.ceiling[cap]))
			*v = pol.ceiling[cap];
	}
	if ((r = cordon_policy_check_self(&pol, &eff->limits, eff->network,
	    err, errsz)) < 0) {
		/* Say where a value over a ceiling came from, if a profile. */
		for (i = 0; strstr(err, "ceiling") != NULL && i < NLIMITS; i++) {
			cap = limit_caps[i];
			v = slot(&eff->limits, cap);
			if (pol.ceiling[cap] == 0 || (*v != 0 &&
			    *v <= pol.ceiling[cap]))
				continue;
			n = strlen(err);
			if ((cfg->limits_from_profile & (1U << cap)) != 0 &&
			    n < errsz)
				(void)snprintf(err + n, errsz - n, "; set by profile "
				    "%s", cfg->profile);
			break;
		}
		return r;
	}
	*require = cfg->require | pol.require;
	return *require == 0 ? 0 : check_required(eff, *require, err, errsz);
}

int
cordon_config_check(const cordon_config *cfg, char *err, size_t errsz)
{
	struct cordon_config eff;
	uint32_t require = 0;

	if (errsz > 0)
		err[0] = '\0';
	if (cordon_limits_check(&cfg->limits) != 0) {
		(void)snprintf(err, errsz, "a cap is out of range");
		return -CORDON_E_RANGE;
	}
	if (cordon_files_check(cfg, err, errsz) < 0)
		return -CORDON_E_INVAL;
	return cordon_gate(cfg, &eff, &require, err, errsz);
}
