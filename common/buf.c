/*
 * buf.c - bounded reads and writes of wire data.  See buf.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "types.h"

void
cordon_buf_reader(struct cordon_buf *b, const uint8_t *data, size_t len)
{
	memset(b, 0, sizeof(*b));
	/* Readers never write through d; the cast only drops const. */
	b->d = (uint8_t *)(uintptr_t)data;
	b->len = len;
}

void
cordon_buf_writer(struct cordon_buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
	b->owned = 1;
}

void
cordon_buf_free(struct cordon_buf *b)
{
	if (b->owned)
		free(b->d);
	memset(b, 0, sizeof(*b));
}

size_t
cordon_buf_remaining(const struct cordon_buf *b)
{
	return b->len - b->off;
}

/* Hands out n bytes from the read side, or fails without consuming. */
static int
take(struct cordon_buf *b, size_t n, const uint8_t **p)
{
	if (cordon_buf_remaining(b) < n)
		return -CORDON_E_SHORT;
	*p = b->d + b->off;
	b->off += n;
	return 0;
}

static uint64_t
load_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

int
cordon_buf_get_u8(struct cordon_buf *b, uint8_t *v)
{
	const uint8_t *p = NULL;
	int r;

	if ((r = take(b, 1, &p)) < 0)
		return r;
	*v = p[0];
	return 0;
}

int
cordon_buf_get_u16(struct cordon_buf *b, uint16_t *v)
{
	const uint8_t *p = NULL;
	int r;

	if ((r = take(b, 2, &p)) < 0)
		return r;
	*v = (uint16_t)load_be(p, 2);
	return 0;
}

int
cordon_buf_get_u32(struct cordon_buf *b, uint32_t *v)
{
	const uint8_t *p = NULL;
	int r;

	if ((r = take(b, 4, &p)) < 0)
		return r;
	*v = (uint32_t)load_be(p, 4);
	return 0;
}

int
cordon_buf_get_u64(struct cordon_buf *b, uint64_t *v)
{
	const uint8_t *p = NULL;
	int r;

	if ((r = take(b, 8, &p)) < 0)
		return r;
	*v = load_be(p, 8);
	return 0;
}

int
cordon_buf_get_i32(struct cordon_buf *b, int32_t *v)
{
	uint32_t u = 0;
	int r;

	if ((r = cordon_buf_get_u32(b, &u)) < 0)
		return r;
	/* Two's complement reinterpretation, well defined via memcpy. */
	memcpy(v, &u, sizeof(*v));
	return 0;
}

int
cordon_buf_get_cstring(struct cordon_buf *b, char **out, size_t maxlen)
{
	uint32_t n = 0;
	size_t start = b->off;
	const uint8_t *p = NULL;
	char *s;
	int r;

	*out = NULL;
	if ((r = cordon_buf_get_u32(b, &n)) < 0)
		return r;
	/* Length is checked against the bound and the frame before malloc. */
	if (n > maxlen) {
		b->off = start;
		return -CORDON_E_TOOLONG;
	}
	if ((r = take(b, n, &p)) < 0) {
		b->off = start;
		return r;
	}
	if (n > 0 && memchr(p, '\0', n) != NULL) {
		b->off = start;
		return -CORDON_E_PROTO;
	}
	if ((s = malloc((size_t)n + 1)) == NULL) {
		b->off = start;
		return -CORDON_E_NOMEM;
	}
	if (n > 0)
		memcpy(s, p, n);
	s[n] = '\0';
	*out = s;
	return 0;
}

/* Makes room for n more bytes on the write side, bounded by max. */
static int
reserve(struct cordon_buf *b, size_t n, uint8_t **p)
{
	size_t need, ncap;
	uint8_t *nd;

	if (!b->owned)
		return -CORDON_E_INVAL;
	if (__builtin_add_overflow(b->len, n, &need) || need > b->max)
		return -CORDON_E_TOOLONG;
	if (need > b->cap) {
		ncap = b->cap < 256 ? 256 : b->cap;
		while (ncap < need)
			ncap = ncap > b->max / 2 ? b->max : ncap * 2;
		if ((nd = realloc(b->d, ncap)) == NULL)
			return -CORDON_E_NOMEM;
		b->d = nd;
		b->cap = ncap;
	}
	*p = b->d + b->len;
	b->len = need;
	return 0;
}

static int
put_be(struct cordon_buf *b, uint64_t v, size_t n)
{
	uint8_t *p = NULL;
	size_t i;
	int r;

	if ((r = reserve(b, n, &p)) < 0)
		return r;
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	return 0;
}

int
cordon_buf_put_u8(struct cordon_buf *b, uint8_t v)
{
	return put_be(b, v, 1);
}

int
cordon_buf_put_u16(struct cordon_buf *b, uint16_t v)
{
	return put_be(b, v, 2);
}

int
cordon_buf_put_u32(struct cordon_buf *b, uint32_t v)
{
	return put_be(b, v, 4);
}

int
cordon_buf_put_u64(struct cordon_buf *b, uint64_t v)
{
	return put_be(b, v, 8);
}

int
cordon_buf_put_i32(struct cordon_buf *b, int32_t v)
{
	uint32_t u;

	memcpy(&u, &v, sizeof(u));
	return put_be(b, u, 4);
}

int
cordon_buf_put_cstring(struct cordon_buf *b, const char *s)
{
	size_t n = s == NULL ? 0 : strlen(s);
	uint8_t *p = NULL;
	size_t save = b->len;
	int r;

	if (n > UINT32_MAX)
		return -CORDON_E_TOOLONG;
	if ((r = cordon_buf_put_u32(b, (uint32_t)n)) < 0)
		return r;
	if ((r = reserve(b, n, &p)) < 0) {
		b->len = save;
		return r;
	}
	if (n > 0)
		memcpy(p, s, n);
	return 0;
}
