/*
 * parse.c - sizes, durations and counts.  See parse.h.
 *
 * Numbers are parsed digit by digit with overflow checks rather than with
 * strtod, so "1.5G" is exact and "1e3", " 5", "+5", "0x10" are refused.
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "parse.h"
#include "types.h"

#define MAX_FRAC_DIGITS 9

/*
 * Splits "INT[.FRAC]" off the front of s: whole part in *ip, fraction as
 * nanounits (billionths) in *fp.  Returns the rest of s, or NULL (with
 * *overflow set if the whole part does not fit in 64 bits).
 */
static const char *
number(const char *s, uint64_t *ip, uint64_t *fp, bool *overflow)
{
	uint64_t i = 0, f = 0, scale = 100000000ULL;
	int digits = 0, fdigits = 0;

	*overflow = false;
	for (; *s >= '0' && *s <= '9'; s++, digits++)
		if (__builtin_mul_overflow(i, 10, &i) ||
		    __builtin_add_overflow(i, (uint64_t)(*s - '0'), &i)) {
			*overflow = true;
			return NULL;
		}
	if (*s == '.') {
		s++;
		for (; *s >= '0' && *s <= '9'; s++, fdigits++) {
			if (fdigits >= MAX_FRAC_DIGITS)
				return NULL;
			f += (uint64_t)(*s - '0') * scale;
			scale /= 10;
		}
		if (fdigits == 0)
			return NULL;
	}
	if (digits == 0)
		return NULL;
	*ip = i;
	*fp = f;
	return s;
}

/* v = i * mult + f * mult / 1e9, exact and with overflow checks. */
static int
scale_by(uint64_t i, uint64_t f, uint64_t mult, uint64_t *v)
{
	uint64_t whole;
	unsigned __int128 part;

	if (__builtin_mul_overflow(i, mult, &whole))
		return -CORDON_E_RANGE;
	/* f < 1e9 and mult < 2^44, so the product fits in 128 bits. */
	part = (unsigned __int128)f * mult / CORDON_NS_PER_SEC;
	if (part > UINT64_MAX || __builtin_add_overflow(whole, (uint64_t)part, v))
		return -CORDON_E_RANGE;
	return 0;
}

int
cordon_parse_size(const char *s, uint64_t *bytes)
{
	static const struct { const char *sfx; uint64_t mult; } units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1ULL << 10 }, { "KB", 1ULL << 10 }, { "KiB", 1ULL << 10 },
		{ "M", 1ULL << 20 }, { "MB", 1ULL << 20 }, { "MiB", 1ULL << 20 },
		{ "G", 1ULL << 30 }, { "GB", 1ULL << 30 }, { "GiB", 1ULL << 30 },
		{ "T", 1ULL << 40 }, { "TB", 1ULL << 40 }, { "TiB", 1ULL << 40 },
	};
	uint64_t i = 0, f = 0, v = 0;
	const char *rest;
	bool overflow;
	size_t k;
	int r;

	if (s == NULL)
		return -CORDON_E_INVAL;
	if ((rest = number(s, &i, &f, &overflow)) == NULL)
		return overflow ? -CORDON_E_RANGE : -CORDON_E_INVAL;
	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
		if (strcmp(rest, units[k].sfx) != 0)
			continue;
		/* A fraction of a byte is meaningless. */
		if (units[k].mult == 1 && f != 0)
			return -CORDON_E_INVAL;
		if ((r = scale_by(i, f, units[k].mult, &v)) < 0)
			return r;
		*bytes = v;
		return 0;
	}
	return -CORDON_E_INVAL;
}

int
cordon_parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *sfx; uint64_t mult; } units[] = {
		{ "", CORDON_NS_PER_SEC }, { "s", CORDON_NS_PER_SEC },
		{ "ms", 1000000ULL },
		{ "m", 60ULL * CORDON_NS_PER_SEC },
		{ "h", 3600ULL * CORDON_NS_PER_SEC },
	};
	uint64_t i = 0, f = 0, v = 0;
	const char *rest;
	bool overflow;
	size_t k;
	int r;

	if (s == NULL)
		return -CORDON_E_INVAL;
	if ((rest = number(s, &i, &f, &overflow)) == NULL)
		return overflow ? -CORDON_E_RANGE : -CORDON_E_INVAL;
	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
		if (strcmp(rest, units[k].sfx) != 0)
			continue;
		if ((r = scale_by(i, f, units[k].mult, &v)) < 0)
			return r;
		*ns = v;
		return 0;
	}
	return -CORDON_E_INVAL;
}

int
cordon_parse_count(const char *s, uint64_t *n)
{
	uint64_t v = 0;
	const char *p;

	if (s == NULL || *s == '\0')
		return -CORDON_E_INVAL;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -CORDON_E_INVAL;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return -CORDON_E_RANGE;
	}
	*n = v;
	return 0;
}
