/*
 * util.c - formatting and time (dying cleanly and checked allocation:
 * die.c, which the Windows and macOS helpers share).
 */
#include "config.h"

#include <stdarg.h>
#include <time.h>

#include "helper.h"

bool
fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * CORDON_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}
