/*
 * wire.c - the framing of protocol messages, which both sides link:
 * encoding and the header (the datagram I/O: wire_sock.c; the byte
 * stream's frames: frame.c).  The bodies are decoded in two
 * files, one per direction, so the helper links only the decoders of the
 * messages it receives: wire_helper.c (broker -> helper) and
 * wire_broker.c (helper -> broker, and cordon_msg_decode, which reads
 * either direction, for the broker's tests and the fuzz harness).
 *
 * Why the reader is safe: the frame length is checked against
 * CORDON_WIRE_MAX_FRAME before the buffer is allocated (wire_sock.c,
 * frame.c), and again here; the header is read through cordon_buf getters that
 * bound-check against that length, and a receiver checks the type against
 * the set it expects before any body is decoded (wire_helper.c); every
 * field is then read through the same getters; strings are bounded per
 * field and may not contain NULs; enums and limits are range-checked by
 * the decoders, so no caller ever sees an out-of-range value; trailing
 * bytes are an error.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

void
cordon_msg_clear(struct cordon_msg *m)
{
	switch (m->type) {
	case CORDON_MSG_REQUEST:
		free(m->u.request.run_id);
		free(m->u.request.workdir_base);
		break;
	case CORDON_MSG_ARG:
	case CORDON_MSG_ENV:
	case CORDON_MSG_GC:
	case CORDON_MSG_WORKDIR:
		free(m->u.str);
		break;
	case CORDON_MSG_BIND:
		free(m->u.bind.src);
		free(m->u.bind.dest);
		break;
	case CORDON_MSG_BACKEND:
		free(m->u.backend.reason);
		break;
	case CORDON_MSG_CREATED:
		free(m->u.created.workdir);
		break;
	case CORDON_MSG_EXIT:
		free(m->u.exit.error);
		break;
	case CORDON_MSG_TEARDOWN:
		free(m->u.teardown.error);
		break;
	case CORDON_MSG_ERROR:
		free(m->u.error.message);
		break;
	case CORDON_MSG_FACT:
		free(m->u.fact.key);
		free(m->u.fact.value);
		break;
	default:
		break;
	}
	memset(m, 0, sizeof(*m));
}

/* Propagate the first failure; keeps the encoders flat. */
#define TRY(expr) do { if ((r = (expr)) < 0) goto out; } while (0)

int
cordon_msg_encode(const struct cordon_msg *m, struct cordon_buf *b)
{
	const struct cordon_msg_request *q = &m->u.request;
	int r = 0;

	cordon_buf_writer(b, CORDON_WIRE_MAX_FRAME);
	TRY(cordon_buf_put_u16(b, CORDON_WIRE_VERSION));
	TRY(cordon_buf_put_u16(b, m->type));
	switch (m->type) {
	case CORDON_MSG_REQUEST:
		TRY(cordon_buf_put_u32(b, q->flags));
		TRY(cordon_buf_put_u8(b, q->backend));
		TRY(cordon_buf_put_u64(b, q->limits.cpu_ns));
		TRY(cordon_buf_put_u64(b, q->limits.wall_ns));
		TRY(cordon_buf_put_u64(b, q->limits.memory_bytes));
		TRY(cordon_buf_put_u64(b, q->limits.nofile));
		TRY(cordon_buf_put_u64(b, q->limits.nproc));
		TRY(cordon_buf_put_u64(b, q->limits.output_bytes));
		TRY(cordon_buf_put_u64(b, q->limits.disk_bytes));
		TRY(cordon_buf_put_cstring(b, q->run_id));
		TRY(cordon_buf_put_cstring(b, q->workdir_base));
		TRY(cordon_buf_put_u32(b, q->argc));
		TRY(cordon_buf_put_u32(b, q->envc));
		TRY(cordon_buf_put_u32(b, q->bindc));
		TRY(cordon_buf_put_u32(b, q->require));
		TRY(cordon_buf_put_u32(b, q->env_explicit));
		break;
	case CORDON_MSG_ARG:
	case CORDON_MSG_ENV:
	case CORDON_MSG_GC:
	case CORDON_MSG_WORKDIR:
		TRY(cordon_buf_put_cstring(b, m->u.str));
		break;
	case CORDON_MSG_BIND:
		TRY(cordon_buf_put_cstring(b, m->u.bind.src));
		TRY(cordon_buf_put_cstring(b, m->u.bind.dest));
		break;
	case CORDON_MSG_GO:
		break;
	case CORDON_MSG_BACKEND:
		TRY(cordon_buf_put_u8(b, m->u.backend.backend));
		TRY(cordon_buf_put_u32(b, m->u.backend.applied));
		TRY(cordon_buf_put_cstring(b, m->u.backend.reason));
		TRY(cordon_buf_put_u32(b, m->u.backend.kernel));
		break;
	case CORDON_MSG_CREATED:
		TRY(cordon_buf_put_cstring(b, m->u.created.workdir));
		TRY(cordon_buf_put_u32(b, m->u.created.pid));
		break;
	case CORDON_MSG_CAP_HIT:
		TRY(cordon_buf_put_u8(b, m->u.cap_hit.cap));
		TRY(cordon_buf_put_u64(b, m->u.cap_hit.observed));
		TRY(cordon_buf_put_u64(b, m->u.cap_hit.limit));
		break;
	case CORDON_MSG_EXIT:
		TRY(cordon_buf_put_u8(b, m->u.exit.outcome));
		TRY(cordon_buf_put_u8(b, m->u.exit.cap));
		TRY(cordon_buf_put_i32(b, m->u.exit.exit_code));
		TRY(cordon_buf_put_i32(b, m->u.exit.signal));
		TRY(cordon_buf_put_u64(b, m->u.exit.cpu_ns));
		TRY(cordon_buf_put_u64(b, m->u.exit.wall_ns));
		TRY(cordon_buf_put_u64(b, m->u.exit.max_rss));
		TRY(cordon_buf_put_cstring(b, m->u.exit.error));
		break;
	case CORDON_MSG_TEARDOWN:
		TRY(cordon_buf_put_u8(b, m->u.teardown.ok));
		TRY(cordon_buf_put_cstring(b, m->u.teardown.error));
		break;
	case CORDON_MSG_ERROR:
		TRY(cordon_buf_put_i32(b, m->u.error.err));
		TRY(cordon_buf_put_cstring(b, m->u.error.message));
		break;
	case CORDON_MSG_PROBE:
		TRY(cordon_buf_put_u8(b, m->u.probe_backend));
		break;
	case CORDON_MSG_FACT:
		TRY(cordon_buf_put_cstring(b, m->u.fact.key));
		TRY(cordon_buf_put_cstring(b, m->u.fact.value));
		break;
	case CORDON_MSG_EGRESS:
		TRY(cordon_buf_put_u16(b, m->u.egress_port));
		break;
	default:
		r = -CORDON_E_PROTO;
		break;
	}
out:
	if (r < 0)
		cordon_buf_free(b);
	return r;
}

int
cordon_wire_header(struct cordon_buf *b, const uint8_t *frame, size_t len,
    uint16_t *type)
{
	uint16_t version = 0;
	int r = 0;

	*type = 0;
	if (len > CORDON_WIRE_MAX_FRAME)
		return -CORDON_E_TOOLONG;
	cordon_buf_reader(b, frame, len);
	TRY(cordon_buf_get_u16(b, &version));
	TRY(cordon_buf_get_u16(b, type));
	if (version != CORDON_WIRE_VERSION)
		r = -CORDON_E_VERSION;
out:
	return r;
}

int
cordon_wire_finish(struct cordon_buf *b, struct cordon_msg *m, int r)
{
	if (r == 0 && cordon_buf_remaining(b) != 0)
		r = -CORDON_E_PROTO;
	if (r < 0)
		cordon_msg_clear(m);
	return r;
}
