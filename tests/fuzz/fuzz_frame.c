/*
 * fuzz_frame.c - the byte-stream framing (common/frame.c) of the
 * platforms without SOCK_SEQPACKET.
 *
 * The input's first byte picks a read size (1 to 256); the rest is the
 * stream, as a peer would write it.  The stream is framed three ways:
 * fed whole, fed in pieces of that size, and read through
 * cordon_frame_recv from a transport that returns at most that many bytes
 * a call.  Frames are decoded by cordon_msg_decode_any (either direction).
 *
 * Properties, beyond "no crash, no leak, no sanitizer report":
 * - the three ways give the same results, frame by frame: how a stream is
 *   cut into reads never changes what it means;
 * - an accepted message, framed again, is exactly the bytes it came from;
 * - the framer never holds a length over CORDON_WIRE_MAX_FRAME or under
 *   a header, and never asks for more than the rest of its frame;
 * - after an error the framer takes no byte and returns the same error;
 * - a rejected frame leaves the message zeroed (owning nothing);
 * - cordon_frame_recv reads not one byte past the frame it returns, or
 *   past the length it refused.
 */
#include "config.h"

#include <string.h>

#include "frame.h"
#include "fuzz.h"

#define MAX_EVENTS 4096

/* One result: the feed's code, and where its frame ended. */
struct event {
	int r;
	size_t end;
	uint16_t type;
};

static void
check_state(const struct cordon_framer *f)
{
	if (f->frame != NULL) {
		FUZZ_CHECK(f->len <= CORDON_WIRE_MAX_FRAME);
		FUZZ_CHECK(f->len >= CORDON_FRAME_MIN);
		FUZZ_CHECK(f->got < f->len);
		FUZZ_CHECK(cordon_framer_want(f) == f->len - f->got);
	} else if (f->err == 0) {
		FUZZ_CHECK(f->nprefix < CORDON_FRAME_PREFIX);
	}
}

/* An accepted message framed again is the bytes it was read from. */
static void
check_message(struct cordon_msg *m, const uint8_t *start, size_t len)
{
	struct cordon_buf b;

	FUZZ_CHECK(cordon_frame_encode(m, &b) == 0);
	FUZZ_CHECK(b.len == len && memcmp(b.d, start, len) == 0);
	cordon_buf_free(&b);
	cordon_msg_clear(m);
}

/* Frames data in pieces of step bytes; the results into ev. */
static size_t
frame_in_steps(const uint8_t *data, size_t size, size_t step,
    struct event *ev)
{
	struct cordon_framer f;
	struct cordon_msg m, zero;
	const uint8_t *p = data;
	size_t nev = 0, n, k, last = 0;
	int r = 0;

	memset(&zero, 0, sizeof(zero));
	cordon_framer_init(&f);
	while ((size_t)(p - data) < size && nev < MAX_EVENTS) {
		k = size - (size_t)(p - data);
		n = k < step ? k : step;
		while (n > 0 && nev < MAX_EVENTS) {
			r = cordon_framer_feed(&f, &p, &n,
			    cordon_msg_decode_any, 0, &m);
			check_state(&f);
			if (r == 0)
				continue;
			ev[nev].r = r;
			ev[nev].end = (size_t)(p - data);
			ev[nev].type = m.type;
			nev++;
			if (r == 1) {
				check_message(&m, data + last,
				    (size_t)(p - data) - last);
				last = (size_t)(p - data);
				continue;
			}
			/* An error is final: nothing more is taken. */
			FUZZ_CHECK(memcmp(&m, &zero, sizeof(m)) == 0);
			k = n;
			FUZZ_CHECK(cordon_framer_feed(&f, &p, &n,
			    cordon_msg_decode_any, 0, &m) == r);
			FUZZ_CHECK(n == k && cordon_framer_want(&f) == 0);
			FUZZ_CHECK(cordon_framer_eof(&f) == r);
			cordon_framer_free(&f);
			return nev;
		}
	}
	if (nev < MAX_EVENTS) {
		ev[nev].r = cordon_framer_eof(&f);
		ev[nev].end = size;
		ev[nev].type = 0;
		nev++;
	}
	cordon_framer_free(&f);
	return nev;
}

struct memio {
	const uint8_t *d;
	size_t len, off, max;
};

static int
mem_read(void *ctx, void *buf, size_t n)
{
	struct memio *io = ctx;
	size_t k = n < io->max ? n : io->max;

	if (k > io->len - io->off)
		k = io->len - io->off;
	memcpy(buf, io->d + io->off, k);
	io->off += k;
	return (int)k;
}

/* cordon_frame_recv until an error or the end: the same events. */
static void
check_recv(const uint8_t *data, size_t size, size_t step,
    const struct event *ev, size_t nev)
{
	struct memio io = { data, size, 0, step };
	struct cordon_msg m;
	size_t i;
	int r;

	for (i = 0; i < nev; i++) {
		r = cordon_frame_recv(mem_read, &io, cordon_msg_decode_any, 0,
		    &m);
		FUZZ_CHECK((r == 0 ? 1 : r) == ev[i].r);
		/* Not a byte read past where the framer stopped. */
		FUZZ_CHECK(io.off == ev[i].end);
		FUZZ_CHECK(m.type == ev[i].type);
		if (r == 0)
			cordon_msg_clear(&m);
		if (r < 0)
			return;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct event whole[MAX_EVENTS], parts[MAX_EVENTS];
	size_t nwhole, nparts, step, i;

	if (size < 1)
		return 0;
	step = (size_t)data[0] + 1;
	data++;
	size--;
	nwhole = frame_in_steps(data, size, size + 1, whole);
	nparts = frame_in_steps(data, size, step, parts);
	FUZZ_CHECK(nwhole == nparts);
	for (i = 0; i < nwhole; i++) {
		FUZZ_CHECK(whole[i].r == parts[i].r);
		FUZZ_CHECK(whole[i].type == parts[i].type);
		/* Each frame, and each error, ends at the same byte. */
		FUZZ_CHECK(whole[i].end == parts[i].end);
	}
	check_recv(data, size, step, whole, nwhole);
	return 0;
}
