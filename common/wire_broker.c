/*
 * wire_broker.c - decoders of the messages the broker receives (helper ->
 * broker: BACKEND, CREATED, CAP_HIT, EXIT, TEARDOWN, ERROR, FACT,
 * WORKDIR, EGRESS (with its fd: cordon_msg_recv_fd); and GC, which no helper accepts any more), and
 * cordon_msg_decode / cordon_msg_recv, which read a message of either
 * direction.  cordon-helper does not link this file: what it receives is
 * decoded by wire_helper.c alone.
 *
 * Why the reader is safe: as in wire.c and wire_helper.c - bounded
 * getters, every field range-checked here, trailing bytes an error, and
 * the message cleared on any error.
 */
#include "config.h"

#include <string.h>

#include "wire.h"

/* Propagate the first failure; keeps the decoders flat. */
#define TRY(expr) do { if ((r = (expr)) < 0) goto out; } while (0)

/* A fact's key: non-empty, lowercase letters, digits, '_', '.', '-'. */
static bool
fact_key_valid(const char *k)
{
	if (*k == '\0')
		return false;
	for (; *k != '\0'; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') ||
		    *k == '_' || *k == '.' || *k == '-'))
			return false;
	return true;
}

/* Caps that end a run when reached; nofile refuses, network is "applied". */
static bool
cap_can_hit(uint8_t cap)
{
	return cap == CORDON_CAP_CPU || cap == CORDON_CAP_WALL ||
	    cap == CORDON_CAP_MEMORY || cap == CORDON_CAP_NPROC ||
	    cap == CORDON_CAP_OUTPUT || cap == CORDON_CAP_DISK;
}

static int
decode_exit(struct cordon_buf *b, struct cordon_msg_exit *e)
{
	int r = 0;

	TRY(cordon_buf_get_u8(b, &e->outcome));
	TRY(cordon_buf_get_u8(b, &e->cap));
	TRY(cordon_buf_get_i32(b, &e->exit_code));
	TRY(cordon_buf_get_i32(b, &e->signal));
	TRY(cordon_buf_get_u64(b, &e->cpu_ns));
	TRY(cordon_buf_get_u64(b, &e->wall_ns));
	TRY(cordon_buf_get_u64(b, &e->max_rss));
	TRY(cordon_buf_get_cstring(b, &e->error, CORDON_MAX_TEXT_LEN));
	if (e->outcome < CORDON_OUTCOME_EXITED ||
	    e->outcome >= CORDON_OUTCOME_MAX_ ||
	    (e->outcome == CORDON_OUTCOME_CAP_HIT ? !cap_can_hit(e->cap) :
	    e->cap != CORDON_CAP_NONE) ||
	    e->exit_code < -1 || e->exit_code > 255 ||
	    e->signal < 0 || e->signal > 64)
		r = -CORDON_E_RANGE;
out:
	return r;
}

/* The bodies of what the helper sends (and GC); the rest: wire_helper.c. */
static int
decode_body(struct cordon_buf *b, struct cordon_msg *m)
{
	int r = 0;

	switch (m->type) {
	case CORDON_MSG_GC:
	case CORDON_MSG_WORKDIR:
		TRY(cordon_buf_get_cstring(b, &m->u.str, CORDON_MAX_PATH_LEN));
		if (!cordon_path_native(m->u.str))
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_BACKEND:
		TRY(cordon_buf_get_u8(b, &m->u.backend.backend));
		TRY(cordon_buf_get_u32(b, &m->u.backend.applied));
		TRY(cordon_buf_get_cstring(b, &m->u.backend.reason,
		    CORDON_MAX_TEXT_LEN));
		TRY(cordon_buf_get_u32(b, &m->u.backend.kernel));
		if ((m->u.backend.kernel & ~m->u.backend.applied) != 0 ||
		    m->u.backend.backend == CORDON_BACKEND_AUTO ||
		    m->u.backend.backend >= CORDON_BACKEND_MAX_ ||
		    (m->u.backend.applied >> CORDON_CAP_MAX_) != 0 ||
		    (m->u.backend.applied & 1U) != 0)
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_CREATED:
		TRY(cordon_buf_get_cstring(b, &m->u.created.workdir,
		    CORDON_MAX_PATH_LEN));
		TRY(cordon_buf_get_u32(b, &m->u.created.pid));
		if (!cordon_path_native(m->u.created.workdir) ||
		    m->u.created.pid < 2 || m->u.created.pid > INT32_MAX)
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_CAP_HIT:
		TRY(cordon_buf_get_u8(b, &m->u.cap_hit.cap));
		TRY(cordon_buf_get_u64(b, &m->u.cap_hit.observed));
		TRY(cordon_buf_get_u64(b, &m->u.cap_hit.limit));
		if (!cap_can_hit(m->u.cap_hit.cap))
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_EXIT:
		r = decode_exit(b, &m->u.exit);
		break;
	case CORDON_MSG_TEARDOWN:
		TRY(cordon_buf_get_u8(b, &m->u.teardown.ok));
		TRY(cordon_buf_get_cstring(b, &m->u.teardown.error,
		    CORDON_MAX_TEXT_LEN));
		if (m->u.teardown.ok > 1)
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_ERROR:
		TRY(cordon_buf_get_i32(b, &m->u.error.err));
		TRY(cordon_buf_get_cstring(b, &m->u.error.message,
		    CORDON_MAX_TEXT_LEN));
		break;
	case CORDON_MSG_EGRESS:
		TRY(cordon_buf_get_u16(b, &m->u.egress_port));
		if (m->u.egress_port != CORDON_EGRESS_PORT)
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_FACT:
		TRY(cordon_buf_get_cstring(b, &m->u.fact.key,
		    CORDON_MAX_FACT_KEY));
		TRY(cordon_buf_get_cstring(b, &m->u.fact.value,
		    CORDON_MAX_TEXT_LEN));
		if (!fact_key_valid(m->u.fact.key))
			r = -CORDON_E_PROTO;
		break;
	default:
		r = cordon_wire_body_to_helper(b, m);
		break;
	}
out:
	return r;
}

int
cordon_msg_decode(const uint8_t *frame, size_t len, struct cordon_msg *m)
{
	struct cordon_buf b;
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = cordon_wire_header(&b, frame, len, &m->type)) < 0) {
		m->type = 0;
		return r;
	}
	return cordon_wire_finish(&b, m, decode_body(&b, m));
}

/* cordon_msg_decode, as the framing calls a decoder: every type allowed. */
int
cordon_msg_decode_any(const uint8_t *frame, size_t len, uint32_t allowed,
    struct cordon_msg *m)
{
	(void)allowed;
	return cordon_msg_decode(frame, len, m);
}
