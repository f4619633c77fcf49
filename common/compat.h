/*
 * compat.h - what a C library lacks of the POSIX and BSD functions the
 * shared code calls, declared here and defined in common/compat.c:
 * mingw-w64 lacks reallocarray, strndup and strchrnul; glibc has no
 * issetugid (compat.c asks the kernel's AT_SECURE, the same answer);
 * macOS has no secure_getenv (compat.c: getenv unless issetugid), no
 * strchrnul or reallocarray before macOS 15, and leaves environ to the
 * program to declare.  config.h includes this
 * file last, so shared code calls the functions it always did and holds
 * no #ifdef for them.
 */
#ifndef CORDON_COMMON_COMPAT_H
#define CORDON_COMMON_COMPAT_H

#include <stddef.h>

#if defined(HAVE_DECL_REALLOCARRAY) && !HAVE_DECL_REALLOCARRAY
/* realloc of n * size bytes; NULL with ENOMEM if that overflows. */
void *reallocarray(void *p, size_t n, size_t size);
#endif
#if defined(HAVE_DECL_STRNDUP) && !HAVE_DECL_STRNDUP
char *strndup(const char *s, size_t n);
#endif
#if defined(HAVE_DECL_STRCHRNUL) && !HAVE_DECL_STRCHRNUL
char *strchrnul(const char *s, int c);
#endif
#if defined(HAVE_DECL_SECURE_GETENV) && !HAVE_DECL_SECURE_GETENV
char *secure_getenv(const char *name);
#endif
#if defined(HAVE_DECL_ENVIRON) && !HAVE_DECL_ENVIRON
/* POSIX's: the application declares it (macOS's unistd.h does not). */
extern char **environ;
#endif
#if defined(HAVE_DECL_ISSETUGID) && !HAVE_DECL_ISSETUGID
/* Whether this process was exec'd set-id (or gained privilege by exec). */
int issetugid(void);
#endif

#endif
