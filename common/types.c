/*
 * types.c - run ids, limit bounds and paths every request is checked
 * against (types.h).  The ids' names are in ids.c.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "types.h"

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
		e = c + 1 + strcspn(c + 1, "/");
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

int
cordon_errf(char *err, size_t errsz, const char *f, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, f);
	(void)vsnprintf(err, errsz, f, ap);
	va_end(ap);
	errno = saved;
	return -1;
}
