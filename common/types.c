/*
 * types.c - names of caps, backends and outcomes; limit bounds.
 */
#include "config.h"

#include <string.h>

#include "types.h"

static const char *const cap_names[CORDON_CAP_MAX_] = {
	[CORDON_CAP_NONE] = "none",
	[CORDON_CAP_CPU] = "cpu",
	[CORDON_CAP_WALL] = "wall",
	[CORDON_CAP_MEMORY] = "memory",
	[CORDON_CAP_NOFILE] = "nofile",
	[CORDON_CAP_NPROC] = "processes",
	[CORDON_CAP_NETWORK] = "network",
	[CORDON_CAP_OUTPUT] = "output",
	[CORDON_CAP_DISK] = "disk",
	[CORDON_CAP_FILESYSTEM] = "filesystem",
	[CORDON_CAP_SCOPING] = "scoping",
};

static const char *const backend_names[CORDON_BACKEND_MAX_] = {
	[CORDON_BACKEND_AUTO] = "auto",
	[CORDON_BACKEND_LINUX_NS] = "linux-ns",
	[CORDON_BACKEND_LANDLOCK] = "landlock",
	[CORDON_BACKEND_FLOOR] = "floor",
};

static const char *const outcome_names[CORDON_OUTCOME_MAX_] = {
	[CORDON_OUTCOME_EXITED] = "exited",
	[CORDON_OUTCOME_SIGNALED] = "signaled",
	[CORDON_OUTCOME_CAP_HIT] = "cap_hit",
	[CORDON_OUTCOME_SANDBOX_ERROR] = "sandbox_error",
};

static const char *const error_names[CORDON_E_MAX_] = {
	[CORDON_OK] = "success",
	[CORDON_E_NOMEM] = "out of memory",
	[CORDON_E_INVAL] = "invalid argument",
	[CORDON_E_RANGE] = "value out of range",
	[CORDON_E_TOOLONG] = "string or message too long",
	[CORDON_E_SHORT] = "message truncated",
	[CORDON_E_PROTO] = "malformed message",
	[CORDON_E_VERSION] = "wire protocol version mismatch",
	[CORDON_E_IO] = "I/O error",
	[CORDON_E_EOF] = "peer closed the connection",
	[CORDON_E_TRACE] = "trace database error",
	[CORDON_E_HELPER] = "cannot start the helper",
	[CORDON_E_UNAVAIL] = "backend not available on this host",
	[CORDON_E_NOTFOUND] = "no such run",
	[CORDON_E_POLICY] = "refused by the system policy",
	[CORDON_E_UNMET] = "a required control cannot be applied on this host",
};

#define NAME_OF(table, i) \
	((i) >= 0 && (size_t)(i) < sizeof(table) / sizeof((table)[0]) && \
	    (table)[i] != NULL ? (table)[i] : "unknown")

const char *
cordon_cap_name(int cap)
{
	return NAME_OF(cap_names, cap);
}

const char *
cordon_backend_name(int backend)
{
	return NAME_OF(backend_names, backend);
}

const char *
cordon_outcome_name(int outcome)
{
	return NAME_OF(outcome_names, outcome);
}

const char *
cordon_strerror(int err)
{
	/* -INT_MIN does not exist: anything that far out is unknown anyway. */
	if (err < 0)
		err = err < -CORDON_E_MAX_ ? CORDON_E_MAX_ : -err;
	return NAME_OF(error_names, err);
}

int
cordon_backend_from_name(const char *name)
{
	int i;

	if (name == NULL)
		return -CORDON_E_INVAL;
	for (i = 0; i < CORDON_BACKEND_MAX_; i++)
		if (strcmp(name, backend_names[i]) == 0)
			return i;
	return -CORDON_E_INVAL;
}

bool
cordon_run_id_valid(const char *id)
{
	size_t i;

	if (id == NULL || strnlen(id, CORDON_RUN_ID_LEN + 1) != CORDON_RUN_ID_LEN)
		return false;
	for (i = 0; i < CORDON_RUN_ID_LEN; i++)
		if (!((id[i] >= '0' && id[i] <= '9') ||
		    (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

void
cordon_limits_default(struct cordon_limits *l)
{
	l->cpu_ns = CORDON_DEFAULT_CPU_NS;
	l->wall_ns = CORDON_DEFAULT_WALL_NS;
	l->memory_bytes = CORDON_DEFAULT_MEMORY;
	l->nofile = CORDON_DEFAULT_NOFILE;
	l->nproc = CORDON_DEFAULT_NPROC;
	l->output_bytes = 0;
	l->disk_bytes = 0;
}

/* Returns the first cap out of its hard bounds, negated, or 0. */
int
cordon_limits_check(const struct cordon_limits *l)
{
	if (l->cpu_ns < CORDON_MIN_TIME_NS || l->cpu_ns > CORDON_MAX_TIME_NS)
		return -CORDON_CAP_CPU;
	if (l->wall_ns < CORDON_MIN_TIME_NS || l->wall_ns > CORDON_MAX_TIME_NS)
		return -CORDON_CAP_WALL;
	if (l->memory_bytes < CORDON_MIN_MEMORY ||
	    l->memory_bytes > CORDON_MAX_MEMORY)
		return -CORDON_CAP_MEMORY;
	if (l->nofile < CORDON_MIN_NOFILE || l->nofile > CORDON_MAX_NOFILE)
		return -CORDON_CAP_NOFILE;
	if (l->nproc > CORDON_MAX_NPROC)
		return -CORDON_CAP_NPROC;
	if (l->output_bytes > CORDON_MAX_OUTPUT)
		return -CORDON_CAP_OUTPUT;
	if (l->disk_bytes != 0 && (l->disk_bytes < CORDON_MIN_DISK ||
	    l->disk_bytes > CORDON_MAX_DISK))
		return -CORDON_CAP_DISK;
	return 0;
}

bool
cordon_path_clean(const char *p)
{
	const char *c = p, *e;
	size_t n;

	if (p == NULL || p[0] != '/' || strlen(p) > CORDON_MAX_PATH_LEN)
		return false;
	if (p[1] == '\0')
		return true;
	while (*c == '/') {
		e = strchrnul(c + 1, '/');
		n = (size_t)(e - (c + 1));
		if (n == 0 || (n == 1 && c[1] == '.') ||
		    (n == 2 && c[1] == '.' && c[2] == '.'))
			return false;
		c = e;
	}
	return true;
}

bool
cordon_bind_dest_valid(const char *dest)
{
	static const char *const taken[] = {
		"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc",
		"opt", "work", "proc", "dev", "tmp",
	};
	size_t i, n;

	if (!cordon_path_clean(dest) || dest[1] == '\0')
		return false;
	n = strcspn(dest + 1, "/");
	for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (strlen(taken[i]) == n && strncmp(dest + 1, taken[i], n) == 0)
			return false;
	return true;
}
