/*
 * die.c - dying cleanly and checked allocation, for every helper (Linux,
 * Windows, macOS: portable C).
 *
 * die() is the helper's answer to a broken invariant: it never continues
 * from a half-done state.  Before it exits it runs the hook the life-cycle
 * code registered, so a fatal error after the payload started still kills
 * the tree and removes the workdir.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request.h"

static void (*die_hook)(const char *why);

void
set_die_hook(void (*hook)(const char *why))
{
	die_hook = hook;
}

static NORETURN PRINTF(2, 0) void
vdie(int saved_errno, const char *f, va_list ap)
{
	char msg[1024];
	void (*hook)(const char *) = die_hook;

	vsnprintf(msg, sizeof(msg), f, ap);
	if (saved_errno != 0) {
		size_t n = strlen(msg);

		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(saved_errno));
	}
	/* The hook may itself fail and call die(): run it at most once. */
	die_hook = NULL;
	/* With a hook the broker hears it (and says it); else say it here. */
	if (hook != NULL)
		hook(msg);
	else
		(void)fprintf(stderr, "cordon-helper: %s\n", msg);
	_exit(125);
}

void
die(const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vdie(0, f, ap);
	/* cppcheck-suppress va_end_missing ; vdie() never returns */
}

void
die_errno(const char *f, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, f);
	vdie(saved, f, ap);
	/* cppcheck-suppress va_end_missing ; vdie() never returns */
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);

	if (p == NULL)
		die("out of memory");
	return p;
}
