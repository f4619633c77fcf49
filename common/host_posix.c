/*
 * host_posix.c - what common/ reads differently on Linux and macOS than
 * on Windows: the host's own absolute paths and environment names
 * (types.h: cordon_path_native, cordon_bind_native,
 * cordon_env_name_eq).  configure picks
 * this file or host_win.c.
 */
#include "config.h"

#include <string.h>

#include "types.h"

/* A POSIX host's workdir base is a clean path: no ".", ".." or "//". */
bool
cordon_path_native(const char *p)
{
	return cordon_path_clean(p);
}

bool
cordon_bind_native(const char *src, const char *dest)
{
	return cordon_path_clean(src) && cordon_bind_dest_valid(dest);
}

/* POSIX names are bytes: "path" is not PATH. */
bool
cordon_env_name_eq(const char *a, const char *b, size_t n)
{
	return strncmp(a, b, n) == 0;
}
