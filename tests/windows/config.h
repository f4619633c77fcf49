/*
 * config.h for the mingw-w64 cross-build of tests/windows/ (run.sh): the
 * sources cordon shares with it include "config.h", which configure
 * writes for each build.  What configure.ac defines for mingw that the
 * shared code needs (policy.h's uid_t, the C99 printf, common/compat.c).
 */
#ifndef CORDON_WINDOWS_CONFIG_H
#define CORDON_WINDOWS_CONFIG_H
#define __USE_MINGW_ANSI_STDIO 1
#define CORDON_PRINTF gnu_printf
#define uid_t int
#define gid_t int
#define HAVE_DECL_REALLOCARRAY 0
#define HAVE_DECL_STRNDUP 0
#define HAVE_DECL_STRCHRNUL 0
#include "compat.h"
#endif
