/*
 * json.c - the JSON writer.  See json.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon.h"
#include "json.h"

void
cordon_json_init(struct cordon_json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = true;
}

void
cordon_json_free(struct cordon_json *j)
{
	free(j->s);
	cordon_json_init(j);
}

char *
cordon_json_finish(struct cordon_json *j, int *err)
{
	char *s = j->s;

	if (j->err == 0 && j->depth != 0)
		j->err = -CORDON_E_INVAL;
	if (j->err != 0 || s == NULL) {
		*err = j->err != 0 ? j->err : -CORDON_E_INVAL;
		cordon_json_free(j);
		return NULL;
	}
	*err = 0;
	j->s = NULL;
	cordon_json_init(j);
	return s;
}

static void
put(struct cordon_json *j, const char *p, size_t n)
{
	size_t need, ncap;
	char *ns;

	if (j->err != 0)
		return;
	if (__builtin_add_overflow(j->len, n + 1, &need)) {
		j->err = -CORDON_E_NOMEM;
		return;
	}
	if (need > j->cap) {
		ncap = j->cap < 256 ? 256 : j->cap;
		while (ncap < need)
			if (__builtin_mul_overflow(ncap, 2, &ncap)) {
				j->err = -CORDON_E_NOMEM;
				return;
			}
		if ((ns = realloc(j->s, ncap)) == NULL) {
			j->err = -CORDON_E_NOMEM;
			return;
		}
		j->s = ns;
		j->cap = ncap;
	}
	memcpy(j->s + j->len, p, n);
	j->len += n;
	j->s[j->len] = '\0';
}

static void
puts_(struct cordon_json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* Writes the separator a new value needs at the current depth. */
static void
value_start(struct cordon_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		put(j, ",", 1);
	j->first[j->depth] = false;
}

static void
open_(struct cordon_json *j, char c)
{
	value_start(j);
	put(j, &c, 1);
	if (j->depth + 1 >= CORDON_JSON_MAX_DEPTH) {
		j->err = -CORDON_E_RANGE;
		return;
	}
	j->depth++;
	j->first[j->depth] = true;
}

static void
close_(struct cordon_json *j, char c)
{
	if (j->depth == 0) {
		j->err = -CORDON_E_INVAL;
		return;
	}
	j->depth--;
	put(j, &c, 1);
}

void cordon_json_obj_begin(struct cordon_json *j) { open_(j, '{'); }
void cordon_json_obj_end(struct cordon_json *j) { close_(j, '}'); }
void cordon_json_arr_begin(struct cordon_json *j) { open_(j, '['); }
void cordon_json_arr_end(struct cordon_json *j) { close_(j, ']'); }

size_t
cordon_utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	/* Each test stops at a byte that is not a continuation, so at NUL. */
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xe0 && p[1] < 0xa0) ||    /* overlong */
		    (p[0] == 0xed && p[1] >= 0xa0))     /* surrogates */
			return 0;
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
		    (p[3] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

bool
cordon_utf8_is_control(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	return (n == 1 && (p[0] < 0x20 || p[0] == 0x7f)) ||
	    (n == 2 && p[0] == 0xc2 && p[1] < 0xa0);
}

/*
 * The escapes are json.h's contract (and README.md's): a reader undoes
 * them with any JSON decoder and then surrogateescape.
 */
static void
string(struct cordon_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];
	size_t n;

	put(j, "\"", 1);
	while (*p != '\0') {
		n = cordon_utf8_len((const char *)p);
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			put(j, esc, 2);
		} else if (*p == '\n') {
			puts_(j, "\\n");
		} else if (*p == '\t') {
			puts_(j, "\\t");
		} else if (n == 0) {
			/* Not UTF-8 (so 0x80-0xff): a lone low surrogate. */
			snprintf(esc, sizeof(esc), "\\udc%02x", *p);
			puts_(j, esc);
			n = 1;
		} else if (cordon_utf8_is_control((const char *)p, n)) {
			/* C0, DEL and C1 by code point: never raw to a terminal. */
			snprintf(esc, sizeof(esc), "\\u%04x", n == 1 ? *p : p[1]);
			puts_(j, esc);
		} else {
			put(j, (const char *)p, n);
		}
		p += n;
	}
	put(j, "\"", 1);
}

void
cordon_json_key(struct cordon_json *j, const char *key)
{
	value_start(j);
	string(j, key);
	put(j, ":", 1);
	j->after_key = true;
}

void
cordon_json_str(struct cordon_json *j, const char *s)
{
	if (s == NULL) {
		cordon_json_null(j);
		return;
	}
	value_start(j);
	string(j, s);
}

void
cordon_json_u64(struct cordon_json *j, uint64_t v)
{
	char b[24];

	value_start(j);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	puts_(j, b);
}

void
cordon_json_i64(struct cordon_json *j, int64_t v)
{
	char b[24];

	value_start(j);
	snprintf(b, sizeof(b), "%lld", (long long)v);
	puts_(j, b);
}

void
cordon_json_double(struct cordon_json *j, double v)
{
	char b[40];
	int n;

	/* Past about 1e32 "%.6f" does not fit: never print a cut number. */
	n = isfinite(v) ? snprintf(b, sizeof(b), "%.6f", v) : -1;
	if (n < 0 || (size_t)n >= sizeof(b)) {
		cordon_json_null(j);
		return;
	}
	value_start(j);
	puts_(j, b);
}

void
cordon_json_bool(struct cordon_json *j, bool v)
{
	value_start(j);
	puts_(j, v ? "true" : "false");
}

void
cordon_json_null(struct cordon_json *j)
{
	value_start(j);
	puts_(j, "null");
}
