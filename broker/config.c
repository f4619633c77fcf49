/*
 * config.c - cordon_config: the caps and options of a run, their setters
 * (the environment beyond the allow-list among them), and the profiles
 * applied to a config.  Nothing here reads the system policy: that is
 * the gate's (gate.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "egress.h"
#include "internal.h"
#include "policy.h"

const int cordon_limit_caps[CORDON_NLIMITS] = {
	CORDON_CAP_CPU, CORDON_CAP_WALL, CORDON_CAP_MEMORY, CORDON_CAP_NOFILE,
	CORDON_CAP_NPROC,
};

static void
copies_free(struct cordon_copy *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(c[i].src);
		free(c[i].dest);
	}
	free(c);
}

cordon_config *
cordon_config_new(void)
{
	cordon_config *cfg = calloc(1, sizeof(*cfg));

	if (cfg == NULL)
		return NULL;
	cordon_limits_default(&cfg->limits);
	cfg->backend = CORDON_BACKEND_AUTO;
	cfg->cancel_fd = -1;
	cfg->stdin_fd = cfg->stdout_fd = cfg->stderr_fd = -1;
	cfg->copy_out_limit = 1ULL << 30;
	return cfg;
}

void
cordon_config_free(cordon_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->trace_path);
	free(cfg->workdir_base);
	copies_free(cfg->copy_in, cfg->ncopy_in);
	copies_free(cfg->copy_out, cfg->ncopy_out);
	copies_free(cfg->binds, cfg->nbinds);
	while (cfg->nenv > 0)
		free(cfg->env[--cfg->nenv]);
	while (cfg->nkeep > 0)
		free(cfg->keep_env[--cfg->nkeep]);
	while (cfg->nallow_hosts > 0)
		free(cfg->allow_hosts[--cfg->nallow_hosts]);
	free(cfg->env);
	free(cfg->keep_env);
	free(cfg->allow_hosts);
	free(cfg);
}

uint64_t *
cordon_limit_slot(struct cordon_limits *l, int cap)
{
	switch (cap) {
	case CORDON_CAP_CPU: return &l->cpu_ns;
	case CORDON_CAP_WALL: return &l->wall_ns;
	case CORDON_CAP_MEMORY: return &l->memory_bytes;
	case CORDON_CAP_NOFILE: return &l->nofile;
	case CORDON_CAP_NPROC: return &l->nproc;
	case CORDON_CAP_OUTPUT: return &l->output_bytes;
	case CORDON_CAP_DISK: return &l->disk_bytes;
	default: return NULL;
	}
}

int
cordon_config_set_limit(cordon_config *cfg, enum cordon_cap_id cap,
    uint64_t value)
{
	struct cordon_limits l = cfg->limits;
	uint64_t *slot = cordon_limit_slot(&l, (int)cap);

	if (slot == NULL)
		return -CORDON_E_INVAL;
	*slot = value;
	if (cordon_limits_check(&l) != 0)
		return -CORDON_E_RANGE;
	cfg->limits = l;
	/* Someone chose it: the system ceilings bound it, never lower it. */
	cfg->limits_set |= 1U << cap;
	cfg->limits_from_profile &= ~(1U << cap);
	return 0;
}

uint64_t
cordon_config_get_limit(const cordon_config *cfg, enum cordon_cap_id cap)
{
	struct cordon_limits l = cfg->limits;
	uint64_t *slot = cordon_limit_slot(&l, (int)cap);

	return slot == NULL ? 0 : *slot;
}

void
cordon_config_set_network(cordon_config *cfg, bool allow)
{
	cfg->network = allow;
}

bool
cordon_backend_here(int backend)
{
	/* A profile's -1 (not set) is nobody's backend, and so no refusal. */
	return backend < 0 || (backend < CORDON_BACKEND_MAX_ &&
	    (cordon_plat_backends() & (1U << backend)) != 0);
}

const char *
cordon_backends_here(char *buf, size_t bufsz)
{
	size_t n = 0;
	int b;

	buf[0] = '\0';
	for (b = 0; b < CORDON_BACKEND_MAX_ && n < bufsz; b++)
		if ((cordon_plat_backends() & (1U << b)) != 0)
			n += (size_t)snprintf(buf + n, bufsz - n, "%s%s",
			    n > 0 ? ", " : "", cordon_backend_name(b));
	return buf;
}

int
cordon_config_set_backend(cordon_config *cfg, enum cordon_backend_id b)
{
	if ((int)b < 0 || b >= CORDON_BACKEND_MAX_)
		return -CORDON_E_INVAL;
	if (!cordon_backend_here((int)b))
		return -CORDON_E_UNAVAIL;
	cfg->backend = b;
	return 0;
}

/* Replaces *slot with a copy of an absolute path (or NULL). */
static int
set_path(char **slot, const char *path)
{
	char *copy = NULL;

	if (path != NULL) {
		if (!cordon_path_absolute(path) ||
		    strlen(path) > CORDON_MAX_PATH_LEN)
			return -CORDON_E_INVAL;
		if ((copy = strdup(path)) == NULL)
			return -CORDON_E_NOMEM;
	}
	free(*slot);
	*slot = copy;
	return 0;
}

int
cordon_config_set_trace_path(cordon_config *cfg, const char *path)
{
	return set_path(&cfg->trace_path, path);
}

/*
 * The base goes to the helper as it is, and the wire takes only the
 * host's clean form (cordon_path_native): refused here, before a run
 * is recorded, rather than by the helper.
 */
int
cordon_config_set_workdir_base(cordon_config *cfg, const char *path)
{
	if (path != NULL && !cordon_path_native(path))
		return -CORDON_E_INVAL;
	return set_path(&cfg->workdir_base, path);
}

void
cordon_config_set_cancel_fd(cordon_config *cfg, int fd)
{
	cfg->cancel_fd = fd;
}

/* Appends a copy of (src, dest) to *v; bounded like the wire's BINDs. */
static int
add_copy(struct cordon_copy **v, size_t *n, const char *src, const char *dest)
{
	struct cordon_copy *nv;

	if (src == NULL || src[0] == '\0' || strlen(src) > CORDON_MAX_PATH_LEN ||
	    (dest != NULL && strlen(dest) > CORDON_MAX_PATH_LEN))
		return -CORDON_E_INVAL;
	if (*n >= CORDON_MAX_BINDS)
		return -CORDON_E_RANGE;
	if ((nv = reallocarray(*v, *n + 1, sizeof(**v))) == NULL)
		return -CORDON_E_NOMEM;
	*v = nv;
	nv[*n].src = strdup(src);
	nv[*n].dest = dest != NULL ? strdup(dest) : NULL;
	if (nv[*n].src == NULL || (dest != NULL && nv[*n].dest == NULL)) {
		free(nv[*n].src);
		free(nv[*n].dest);
		return -CORDON_E_NOMEM;
	}
	(*n)++;
	return 0;
}

int
cordon_config_add_copy_in(cordon_config *cfg, const char *src,
    const char *dest)
{
	return add_copy(&cfg->copy_in, &cfg->ncopy_in, src, dest);
}

int
cordon_config_add_copy_out(cordon_config *cfg, const char *path,
    const char *dest)
{
	return add_copy(&cfg->copy_out, &cfg->ncopy_out, path, dest);
}

int
cordon_config_add_ro_bind(cordon_config *cfg, const char *src,
    const char *dest)
{
	/* The helper checks the same again: common/wire.c, helper/intake.c. */
	if (!cordon_bind_native(src, dest != NULL ? dest : src))
		return -CORDON_E_INVAL;
	return add_copy(&cfg->binds, &cfg->nbinds, src, dest != NULL ? dest :
	    src);
}

int
cordon_config_set_copy_out_limit(cordon_config *cfg, uint64_t bytes)
{
	if (bytes == 0 || bytes > CORDON_MAX_OUTPUT)
		return -CORDON_E_RANGE;
	cfg->copy_out_limit = bytes;
	return 0;
}

void
cordon_config_set_stdout_fd(cordon_config *cfg, int fd)
{
	cfg->stdout_fd = fd;
}

void
cordon_config_set_stderr_fd(cordon_config *cfg, int fd)
{
	cfg->stderr_fd = fd;
}

int
cordon_config_require(cordon_config *cfg, enum cordon_cap_id control)
{
	if ((int)control <= 0 || control >= CORDON_CAP_MAX_)
		return -CORDON_E_INVAL;
	cfg->require |= 1U << control;
	return 0;
}

/* Adds a copy of s to list, or replaces the entry with the same KEY. */
static int
list_put(char ***list, size_t *n, const char *s)
{
	size_t i = cordon_env_find(*list, *n, s);
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

int
cordon_config_allow_host(cordon_config *cfg, const char *pattern)
{
	struct cordon_egress_pattern p;
	char err[CORDON_MAX_TEXT_LEN], **grown, *copy;
	size_t i;

	if (cordon_egress_pattern_parse(pattern, &p, err, sizeof(err)) < 0)
		return -CORDON_E_INVAL;
	for (i = 0; i < cfg->nallow_hosts; i++)
		if (strcmp(cfg->allow_hosts[i], pattern) == 0)
			return 0;
	if (cfg->nallow_hosts >= CORDON_EGRESS_MAX_PATTERNS)
		return -CORDON_E_TOOLONG;
	if ((copy = strdup(pattern)) == NULL ||
	    (grown = reallocarray(cfg->allow_hosts, cfg->nallow_hosts + 1,
	    sizeof(char *))) == NULL) {
		free(copy);
		return -CORDON_E_NOMEM;
	}
	grown[cfg->nallow_hosts++] = copy;
	cfg->allow_hosts = grown;
	return 0;
}

static int
apply_profile(cordon_config *cfg, const struct cordon_profile *p)
{
	size_t i;
	int r, cap;

	for (i = 0; i < CORDON_NLIMITS; i++) {
		cap = cordon_limit_caps[i];
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
	for (i = 0; i < p->nallow_hosts; i++)
		if ((r = cordon_config_allow_host(cfg, p->allow_hosts[i])) < 0)
			return r;
	return 0;
}

/* A profile's allow_hosts, checked as --allow-host would be, in err. */
static int
check_profile_hosts(const struct cordon_profile *p, const char *name,
    char *err, size_t errsz)
{
	struct cordon_egress_pattern pat;
	char why[CORDON_MAX_TEXT_LEN];
	size_t i;

	for (i = 0; i < p->nallow_hosts; i++)
		if (cordon_egress_pattern_parse(p->allow_hosts[i], &pat, why,
		    sizeof(why)) < 0) {
			(void)snprintf(err, errsz, "profile %s (%s): allow_hosts: "
			    "%s", name, p->path, why + strlen("--allow-host "));
			return -CORDON_E_INVAL;
		}
	return 0;
}

int
cordon_config_load_profile(cordon_config *cfg, const char *name, char *err,
    size_t errsz)
{
	struct cordon_profile sys, usr;
	char syspath[CORDON_MAX_PATH_LEN + 1], *upath = NULL, names[128];
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
	ru = cordon_policy_read_file(upath, cordon_policy_self(),
	    CORDON_KIND_PROFILE, NULL, NULL, &usr, err, errsz);
	if ((r = ru) < 0 && ru != -CORDON_E_NOTFOUND)
		goto out;
	if (rs == -CORDON_E_NOTFOUND && ru == -CORDON_E_NOTFOUND) {
		(void)snprintf(err, errsz, "no profile %s: neither %s nor %s "
		    "exists", name, syspath, upath);
		r = -CORDON_E_NOTFOUND;
		goto out;
	}
	if (!cordon_backend_here(sys.backend) ||
	    !cordon_backend_here(usr.backend)) {
		(void)snprintf(err, errsz, "profile %s: backend %s is not one "
		    "of this OS's (%s)", name, cordon_backend_name(
		    !cordon_backend_here(sys.backend) ? sys.backend :
		    usr.backend), cordon_backends_here(names, sizeof(names)));
		r = -CORDON_E_UNAVAIL;
		goto out;
	}
	if ((r = check_profile_hosts(&sys, name, err, errsz)) < 0 ||
	    (r = check_profile_hosts(&usr, name, err, errsz)) < 0)
		goto out;
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

void
cordon_config_set_stdin_fd(cordon_config *cfg, int fd)
{
	cfg->stdin_fd = fd;
}
