/*
 * config.c - cordon_config: the caps and options of a run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

cordon_config *
cordon_config_new(void)
{
	cordon_config *cfg = calloc(1, sizeof(*cfg));

	if (cfg == NULL)
		return NULL;
	cordon_limits_default(&cfg->limits);
	cfg->backend = CORDON_BACKEND_AUTO;
	cfg->cancel_fd = -1;
	return cfg;
}

void
cordon_config_free(cordon_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->trace_path);
	free(cfg->workdir_base);
	while (cfg->nenv > 0)
		free(cfg->env[--cfg->nenv]);
	while (cfg->nkeep > 0)
		free(cfg->keep_env[--cfg->nkeep]);
	free(cfg->env);
	free(cfg->keep_env);
	free(cfg);
}

static uint64_t *
limit_slot(struct cordon_limits *l, enum cordon_cap_id cap)
{
	switch (cap) {
	case CORDON_CAP_CPU: return &l->cpu_ns;
	case CORDON_CAP_WALL: return &l->wall_ns;
	case CORDON_CAP_MEMORY: return &l->memory_bytes;
	case CORDON_CAP_NOFILE: return &l->nofile;
	case CORDON_CAP_NPROC: return &l->nproc;
	default: return NULL;
	}
}

int
cordon_config_set_limit(cordon_config *cfg, enum cordon_cap_id cap,
    uint64_t value)
{
	struct cordon_limits l = cfg->limits;
	uint64_t *slot = limit_slot(&l, cap);

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
	uint64_t *slot = limit_slot(&l, cap);

	return slot == NULL ? 0 : *slot;
}

void
cordon_config_set_network(cordon_config *cfg, bool allow)
{
	cfg->network = allow;
}

int
cordon_config_set_backend(cordon_config *cfg, enum cordon_backend_id b)
{
	if ((int)b < 0 || b >= CORDON_BACKEND_MAX_)
		return -CORDON_E_INVAL;
	cfg->backend = b;
	return 0;
}

/* Replaces *slot with a copy of an absolute path (or NULL). */
static int
set_path(char **slot, const char *path)
{
	char *copy = NULL;

	if (path != NULL) {
		if (path[0] != '/' || strlen(path) > CORDON_MAX_PATH_LEN)
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

int
cordon_config_set_workdir_base(cordon_config *cfg, const char *path)
{
	return set_path(&cfg->workdir_base, path);
}

void
cordon_config_set_cancel_fd(cordon_config *cfg, int fd)
{
	cfg->cancel_fd = fd;
}
