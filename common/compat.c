/*
 * compat.c - the replacements common/compat.h declares, for a C library
 * without them.  Each behaves as the library that has it does.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(HAVE_DECL_REALLOCARRAY) && !HAVE_DECL_REALLOCARRAY
void *
reallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, bytes);
}
#endif

#if defined(HAVE_DECL_STRNDUP) && !HAVE_DECL_STRNDUP
char *
strndup(const char *s, size_t n)
{
	const char *end = memchr(s, '\0', n);
	size_t len = end != NULL ? (size_t)(end - s) : n;
	char *copy = malloc(len + 1);

	if (copy == NULL)
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	return copy;
}
#endif

#if defined(HAVE_DECL_STRCHRNUL) && !HAVE_DECL_STRCHRNUL
char *
strchrnul(const char *s, int c)
{
	while (*s != '\0' && *s != (char)c)
		s++;
	return (char *)(uintptr_t)s;
}
#endif

#if defined(HAVE_DECL_ISSETUGID) && !HAVE_DECL_ISSETUGID
#include <sys/auxv.h>

/*
 * glibc: the kernel's AT_SECURE, set for a set-id exec and for one that
 * gained capabilities - what the loader itself goes by.
 */
int
issetugid(void)
{
	return getauxval(AT_SECURE) != 0;
}
#endif

#if defined(HAVE_DECL_SECURE_GETENV) && !HAVE_DECL_SECURE_GETENV
/* macOS: nothing from the environment in a set-id process. */
char *
secure_getenv(const char *name)
{
	return issetugid() ? NULL : getenv(name);
}
#endif
