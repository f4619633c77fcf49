/*
 * compat.c - the replacements common/compat.h declares, for a C library
 * without them (mingw-w64's).  Each behaves as glibc's does.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !HAVE_DECL_REALLOCARRAY
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

#if !HAVE_DECL_STRNDUP
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

#if !HAVE_DECL_STRCHRNUL
char *
strchrnul(const char *s, int c)
{
	while (*s != '\0' && *s != (char)c)
		s++;
	return (char *)(uintptr_t)s;
}
#endif
