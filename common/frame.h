/*
 * frame.h - the wire's messages over a byte stream, where SOCK_SEQPACKET
 * does not exist (a pipe pair on Windows, a stream socketpair on macOS).
 *
 * A frame is a u32 big-endian length, then that many bytes: exactly the
 * datagram wire.c sends on Linux (header and body), decoded by the same
 * decoders (wire_helper.c, wire_broker.c).  On Linux the channel stays
 * one datagram per message; the platform files of the other systems use
 * this reader and writer (broker/plat_*.c).
 *
 * The reader is a framer fed whatever bytes a read returned: a frame may
 * arrive split over many reads, and one read may hold many frames.  The
 * length is checked against CORDON_WIRE_MAX_FRAME (and against the four
 * bytes of the smallest header) before anything is allocated for it or
 * read into it.  Every error is final for the stream: after a bad length
 * the boundaries of what follows are unknown, and a peer that sent one
 * malformed message is not read further.
 */
#ifndef CORDON_COMMON_FRAME_H
#define CORDON_COMMON_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* The length in front of every frame. */
#define CORDON_FRAME_PREFIX 4U
/* The smallest frame: a header (u16 version, u16 type) and no body. */
#define CORDON_FRAME_MIN 4U

struct cordon_framer {
	uint8_t prefix[CORDON_FRAME_PREFIX];
	size_t nprefix;      /* prefix bytes so far */
	uint8_t *frame;      /* allocated once the length is checked */
	size_t len;          /* the checked length (with frame set) */
	size_t got;          /* frame bytes so far */
	int err;             /* the first error: every later call returns it */
};

void cordon_framer_init(struct cordon_framer *f);
void cordon_framer_free(struct cordon_framer *f);
/*
 * How many bytes the framer needs to finish what it reads now (the rest
 * of a length or of a frame); 0 after an error.  A reader that asks its
 * transport for at most this many never reads past a frame's end.
 */
size_t cordon_framer_want(const struct cordon_framer *f);
/*
 * Takes bytes from *data (advancing it and *n) until one frame is whole,
 * decodes it with decode (given allowed) and returns 1 with *m set; 0
 * when the bytes ran out first (*n is then 0); a negative CORDON_E_*
 * code for a length over the maximum (-CORDON_E_TOOLONG) or under a
 * header (-CORDON_E_PROTO), *m zeroed, or what decode returned, with *m
 * as decode left it (owning nothing).
 */
int cordon_framer_feed(struct cordon_framer *f, const uint8_t **data,
    size_t *n, cordon_wire_decoder decode, uint32_t allowed,
    struct cordon_msg *m);
/*
 * The stream ended: -CORDON_E_EOF between frames, -CORDON_E_SHORT in the
 * middle of one (its length or its bytes), or the error already met.
 */
int cordon_framer_eof(const struct cordon_framer *f);

/* m, length-prefixed, into a new writer the caller frees. */
int cordon_frame_encode(const struct cordon_msg *m, struct cordon_buf *b);

/*
 * A transport: reads at most n bytes into buf (returns how many, 0 at
 * end of stream), or writes n bytes from buf (returns how many it took,
 * at least 1); a negative CORDON_E_* code on failure (-CORDON_E_EOF when
 * the peer is gone).  n is never more than CORDON_WIRE_MAX_FRAME +
 * CORDON_FRAME_PREFIX.
 */
typedef int (*cordon_frame_read_fn)(void *ctx, void *buf, size_t n);
typedef int (*cordon_frame_write_fn)(void *ctx, const void *buf, size_t n);

/*
 * One message from rd: reads no byte past its frame, so the stream stays
 * at the next frame.  Errors as cordon_framer_feed and _eof.
 */
int cordon_frame_recv(cordon_frame_read_fn rd, void *ctx,
    cordon_wire_decoder decode, uint32_t allowed, struct cordon_msg *m);
/* One message to wr, the whole frame (short writes continued). */
int cordon_frame_send(cordon_frame_write_fn wr, void *ctx,
    const struct cordon_msg *m);

/*
 * The same over a POSIX fd (read(2), write(2)).  The caller keeps SIGPIPE
 * from ending it (macOS: SO_NOSIGPIPE on the socket); EPIPE and
 * ECONNRESET are -CORDON_E_EOF.
 */
int cordon_frame_recv_fd(int fd, cordon_wire_decoder decode,
    uint32_t allowed, struct cordon_msg *m);
int cordon_frame_send_fd(int fd, const struct cordon_msg *m);

#endif
