/*
 * frame.c - length-prefixed frames of wire messages over a byte stream.
 * See frame.h.
 *
 * Why the reader is safe: the four length bytes are gathered into a
 * fixed array inside the framer; only when all four are there is the
 * length compared with CORDON_WIRE_MAX_FRAME and with the smallest
 * header, and only a length that passes both is allocated, exactly once
 * per frame.  Bytes are then copied into that buffer at most up to the
 * checked length (the copy is bounded by len - got, never by what the
 * peer sent), so no length from the stream sizes anything unchecked and
 * no byte of the next frame lands in this one.  The complete frame goes
 * to the same bounded decoders a datagram goes to (wire_helper.c,
 * wire_broker.c), which check the header, the type against the caller's
 * set and every field.  Any error is kept: a framer that has refused
 * something refuses everything after it, since after a bad length the
 * stream has no frame boundaries left to trust.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frame.h"

void
cordon_framer_init(struct cordon_framer *f)
{
	memset(f, 0, sizeof(*f));
}

void
cordon_framer_free(struct cordon_framer *f)
{
	free(f->frame);
	memset(f, 0, sizeof(*f));
}

size_t
cordon_framer_want(const struct cordon_framer *f)
{
	if (f->err != 0)
		return 0;
	if (f->frame == NULL)
		return CORDON_FRAME_PREFIX - f->nprefix;
	return f->len - f->got;
}

/* The whole prefix is in: check the length, then allocate for it. */
static int
start_frame(struct cordon_framer *f)
{
	uint32_t len = 0;
	size_t i;

	for (i = 0; i < CORDON_FRAME_PREFIX; i++)
		len = (len << 8) | f->prefix[i];
	if (len > CORDON_WIRE_MAX_FRAME)
		return -CORDON_E_TOOLONG;
	if (len < CORDON_FRAME_MIN)
		return -CORDON_E_PROTO;
	if ((f->frame = malloc(len)) == NULL)
		return -CORDON_E_NOMEM;
	f->len = len;
	f->got = 0;
	return 0;
}

int
cordon_framer_feed(struct cordon_framer *f, const uint8_t **data, size_t *n,
    cordon_wire_decoder decode, uint32_t allowed, struct cordon_msg *m)
{
	size_t take;
	int r;

	memset(m, 0, sizeof(*m));
	if (f->err != 0)
		return f->err;
	while (*n > 0) {
		if (f->frame == NULL) {
			take = CORDON_FRAME_PREFIX - f->nprefix;
			take = take < *n ? take : *n;
			memcpy(f->prefix + f->nprefix, *data, take);
			f->nprefix += take;
			*data += take;
			*n -= take;
			if (f->nprefix < CORDON_FRAME_PREFIX)
				return 0;
			if ((r = start_frame(f)) < 0)
				return f->err = r;
		}
		/* Never more than the checked length still missing. */
		take = f->len - f->got;
		take = take < *n ? take : *n;
		memcpy(f->frame + f->got, *data, take);
		f->got += take;
		*data += take;
		*n -= take;
		if (f->got < f->len)
			return 0;
		r = decode(f->frame, f->len, allowed, m);
		free(f->frame);
		f->frame = NULL;
		f->len = f->got = f->nprefix = 0;
		if (r < 0)
			return f->err = r;
		return 1;
	}
	return 0;
}

int
cordon_framer_eof(const struct cordon_framer *f)
{
	if (f->err != 0)
		return f->err;
	if (f->nprefix != 0 || f->frame != NULL)
		return -CORDON_E_SHORT;
	return -CORDON_E_EOF;
}

int
cordon_frame_encode(const struct cordon_msg *m, struct cordon_buf *b)
{
	struct cordon_buf msg;
	uint8_t *d;
	size_t i;
	int r;

	if ((r = cordon_msg_encode(m, &msg)) < 0)
		return r;
	/* msg.len <= CORDON_WIRE_MAX_FRAME: the encoder's writer is bounded. */
	if ((d = malloc(msg.len + CORDON_FRAME_PREFIX)) == NULL) {
		cordon_buf_free(&msg);
		return -CORDON_E_NOMEM;
	}
	for (i = 0; i < CORDON_FRAME_PREFIX; i++)
		d[i] = (uint8_t)(msg.len >> (8 * (CORDON_FRAME_PREFIX - 1 - i)));
	memcpy(d + CORDON_FRAME_PREFIX, msg.d, msg.len);
	cordon_buf_writer(b, msg.len + CORDON_FRAME_PREFIX);
	b->d = d;
	b->len = b->cap = msg.len + CORDON_FRAME_PREFIX;
	cordon_buf_free(&msg);
	return 0;
}

int
cordon_frame_recv(cordon_frame_read_fn rd, void *ctx,
    cordon_wire_decoder decode, uint32_t allowed, struct cordon_msg *m)
{
	struct cordon_framer f;
	uint8_t chunk[4096];
	const uint8_t *p;
	size_t want, left;
	int n, r = 0;

	memset(m, 0, sizeof(*m));
	cordon_framer_init(&f);
	while (r == 0) {
		/* At most what this frame still needs: nothing of the next. */
		want = cordon_framer_want(&f);
		want = want < sizeof(chunk) ? want : sizeof(chunk);
		if ((n = rd(ctx, chunk, want)) < 0)
			r = n;
		else if (n == 0)
			r = cordon_framer_eof(&f);
		else if ((size_t)n > want)
			r = -CORDON_E_IO; /* a transport that broke its word */
		else {
			p = chunk;
			left = (size_t)n;
			r = cordon_framer_feed(&f, &p, &left, decode, allowed,
			    m);
		}
	}
	cordon_framer_free(&f);
	return r == 1 ? 0 : r;
}

int
cordon_frame_send(cordon_frame_write_fn wr, void *ctx,
    const struct cordon_msg *m)
{
	struct cordon_buf b;
	size_t off = 0, total;
	int n = 0, r;

	if ((r = cordon_frame_encode(m, &b)) < 0)
		return r;
	total = b.len;
	while (off < total && (n = wr(ctx, b.d + off, total - off)) > 0)
		off += (size_t)n;
	cordon_buf_free(&b);
	if (off == total)
		return 0;
	return n < 0 ? n : -CORDON_E_IO;
}

/* The POSIX transports: an fd, EINTR retried. */
static int
fd_read(void *ctx, void *buf, size_t n)
{
	ssize_t got;

	do {
		got = read(*(int *)ctx, buf, n);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return errno == ECONNRESET ? -CORDON_E_EOF : -CORDON_E_IO;
	return (int)got;
}

static int
fd_write(void *ctx, const void *buf, size_t n)
{
	ssize_t put;

	do {
		put = write(*(int *)ctx, buf, n);
	} while (put < 0 && errno == EINTR);
	if (put < 0)
		return (errno == EPIPE || errno == ECONNRESET) ?
		    -CORDON_E_EOF : -CORDON_E_IO;
	return (int)put;
}

int
cordon_frame_recv_fd(int fd, cordon_wire_decoder decode, uint32_t allowed,
    struct cordon_msg *m)
{
	return cordon_frame_recv(fd_read, &fd, decode, allowed, m);
}

int
cordon_frame_send_fd(int fd, const struct cordon_msg *m)
{
	return cordon_frame_send(fd_write, &fd, m);
}
