/*
 * wire_helper.c - decoders of the messages the helper receives (broker ->
 * helper: REQUEST, ARG, ENV, BIND, GO, PROBE), and the helper's receive,
 * which checks a message's type against the set wanted at that moment
 * before it decodes anything else.  This is all of the wire's decoding
 * that cordon-helper links; the decoders of what it only sends are in
 * wire_broker.c.
 *
 * Why this is safe: as OpenSSH's monitor does, the type is checked first:
 * a type not in the caller's set - unknown, broker-bound, or merely not
 * expected now - is refused with nothing of the body read or allocated.
 * Then the body goes through the bounded getters of buf.c, each field is
 * range-checked here, and trailing bytes are an error (wire.c).
 */
#include "config.h"

#include <string.h>

#include "wire.h"

/* Propagate the first failure; keeps the decoders flat. */
#define TRY(expr) do { if ((r = (expr)) < 0) goto out; } while (0)

static int
decode_request(struct cordon_buf *b, struct cordon_msg_request *q)
{
	int r = 0;

	TRY(cordon_buf_get_u32(b, &q->flags));
	TRY(cordon_buf_get_u8(b, &q->backend));
	TRY(cordon_buf_get_u64(b, &q->limits.cpu_ns));
	TRY(cordon_buf_get_u64(b, &q->limits.wall_ns));
	TRY(cordon_buf_get_u64(b, &q->limits.memory_bytes));
	TRY(cordon_buf_get_u64(b, &q->limits.nofile));
	TRY(cordon_buf_get_u64(b, &q->limits.nproc));
	TRY(cordon_buf_get_u64(b, &q->limits.output_bytes));
	TRY(cordon_buf_get_u64(b, &q->limits.disk_bytes));
	TRY(cordon_buf_get_cstring(b, &q->run_id, CORDON_RUN_ID_LEN));
	TRY(cordon_buf_get_cstring(b, &q->workdir_base, CORDON_MAX_PATH_LEN));
	TRY(cordon_buf_get_u32(b, &q->argc));
	TRY(cordon_buf_get_u32(b, &q->envc));
	TRY(cordon_buf_get_u32(b, &q->bindc));
	TRY(cordon_buf_get_u32(b, &q->require));
	TRY(cordon_buf_get_u32(b, &q->env_explicit));
	if ((q->flags & ~CORDON_REQ_FLAGS_ALL) != 0 ||
	    (q->require >> CORDON_CAP_MAX_) != 0 || (q->require & 1U) != 0 ||
	    q->env_explicit > q->envc ||
	    q->backend >= CORDON_BACKEND_MAX_ ||
	    cordon_limits_check(&q->limits) != 0 ||
	    !cordon_run_id_valid(q->run_id) ||
	    !cordon_path_native(q->workdir_base) ||
	    q->argc < 1 || q->argc > CORDON_MAX_ARGC ||
	    q->envc > CORDON_MAX_ENVC || q->bindc > CORDON_MAX_BINDS)
		r = -CORDON_E_RANGE;
out:
	return r;
}

int
cordon_wire_body_to_helper(struct cordon_buf *b, struct cordon_msg *m)
{
	int r = 0;

	switch (m->type) {
	case CORDON_MSG_REQUEST:
		r = decode_request(b, &m->u.request);
		break;
	case CORDON_MSG_ARG:
		r = cordon_buf_get_cstring(b, &m->u.str, CORDON_MAX_ARG_LEN);
		break;
	case CORDON_MSG_ENV:
		TRY(cordon_buf_get_cstring(b, &m->u.str, CORDON_MAX_ARG_LEN));
		/* KEY=VALUE with a non-empty KEY. */
		if (m->u.str[0] == '=' || strchr(m->u.str, '=') == NULL)
			r = -CORDON_E_PROTO;
		break;
	case CORDON_MSG_BIND:
		TRY(cordon_buf_get_cstring(b, &m->u.bind.src,
		    CORDON_MAX_PATH_LEN));
		TRY(cordon_buf_get_cstring(b, &m->u.bind.dest,
		    CORDON_MAX_PATH_LEN));
		if (!cordon_bind_native(m->u.bind.src, m->u.bind.dest))
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_GO:
		break;
	case CORDON_MSG_PROBE:
		TRY(cordon_buf_get_u8(b, &m->u.probe_backend));
		if (m->u.probe_backend >= CORDON_BACKEND_MAX_)
			r = -CORDON_E_RANGE;
		break;
	default:
		r = -CORDON_E_PROTO;
		break;
	}
out:
	return r;
}

int
cordon_msg_decode_allowed(const uint8_t *frame, size_t len, uint32_t allowed,
    struct cordon_msg *m)
{
	struct cordon_buf b;
	uint16_t type = 0;
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = cordon_wire_header(&b, frame, len, &type)) < 0)
		return r;
	/* Before anything of the body is read: is this type wanted now? */
	if (type >= 32 || (allowed & CORDON_MSG_BIT(type)) == 0) {
		m->type = type; /* for the caller's message; nothing owned */
		return -CORDON_E_PROTO;
	}
	m->type = type;
	return cordon_wire_finish(&b, m, cordon_wire_body_to_helper(&b, m));
}
