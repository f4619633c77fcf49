/*
 * wire.c - encoding, strict decoding and datagram I/O of protocol messages.
 *
 * Why the reader is safe: the frame length is learned with MSG_PEEK |
 * MSG_TRUNC and checked against CORDON_WIRE_MAX_FRAME before the buffer is
 * allocated; every field is then read through cordon_buf getters that
 * bound-check against that length; strings are bounded per field and may
 * not contain NULs; enums and limits are range-checked here, so no caller
 * ever sees an out-of-range value; trailing bytes are an error.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
	default:
		r = -CORDON_E_PROTO;
		break;
	}
out:
	if (r < 0)
		cordon_buf_free(b);
	return r;
}

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
	    q->workdir_base[0] != '/' ||
	    q->argc < 1 || q->argc > CORDON_MAX_ARGC ||
	    q->envc > CORDON_MAX_ENVC || q->bindc > CORDON_MAX_BINDS)
		r = -CORDON_E_RANGE;
out:
	return r;
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

int
cordon_msg_decode(const uint8_t *frame, size_t len, struct cordon_msg *m)
{
	struct cordon_buf b;
	uint16_t version = 0;
	int r = 0;

	memset(m, 0, sizeof(*m));
	if (len > CORDON_WIRE_MAX_FRAME)
		return -CORDON_E_TOOLONG;
	cordon_buf_reader(&b, frame, len);
	TRY(cordon_buf_get_u16(&b, &version));
	TRY(cordon_buf_get_u16(&b, &m->type));
	if (version != CORDON_WIRE_VERSION) {
		r = -CORDON_E_VERSION;
		goto out;
	}
	switch (m->type) {
	case CORDON_MSG_REQUEST:
		r = decode_request(&b, &m->u.request);
		break;
	case CORDON_MSG_ARG:
		r = cordon_buf_get_cstring(&b, &m->u.str, CORDON_MAX_ARG_LEN);
		break;
	case CORDON_MSG_ENV:
		TRY(cordon_buf_get_cstring(&b, &m->u.str, CORDON_MAX_ARG_LEN));
		/* KEY=VALUE with a non-empty KEY. */
		if (m->u.str[0] == '=' || strchr(m->u.str, '=') == NULL)
			r = -CORDON_E_PROTO;
		break;
	case CORDON_MSG_GC:
	case CORDON_MSG_WORKDIR:
		TRY(cordon_buf_get_cstring(&b, &m->u.str, CORDON_MAX_PATH_LEN));
		if (m->u.str[0] != '/')
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_BIND:
		TRY(cordon_buf_get_cstring(&b, &m->u.bind.src,
		    CORDON_MAX_PATH_LEN));
		TRY(cordon_buf_get_cstring(&b, &m->u.bind.dest,
		    CORDON_MAX_PATH_LEN));
		if (!cordon_path_clean(m->u.bind.src) ||
		    !cordon_bind_dest_valid(m->u.bind.dest))
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_GO:
		break;
	case CORDON_MSG_BACKEND:
		TRY(cordon_buf_get_u8(&b, &m->u.backend.backend));
		TRY(cordon_buf_get_u32(&b, &m->u.backend.applied));
		TRY(cordon_buf_get_cstring(&b, &m->u.backend.reason,
		    CORDON_MAX_TEXT_LEN));
		TRY(cordon_buf_get_u32(&b, &m->u.backend.kernel));
		if ((m->u.backend.kernel & ~m->u.backend.applied) != 0 ||
		    m->u.backend.backend == CORDON_BACKEND_AUTO ||
		    m->u.backend.backend >= CORDON_BACKEND_MAX_ ||
		    (m->u.backend.applied >> CORDON_CAP_MAX_) != 0 ||
		    (m->u.backend.applied & 1U) != 0)
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_CREATED:
		TRY(cordon_buf_get_cstring(&b, &m->u.created.workdir,
		    CORDON_MAX_PATH_LEN));
		TRY(cordon_buf_get_u32(&b, &m->u.created.pid));
		if (m->u.created.workdir[0] != '/' || m->u.created.pid < 2 ||
		    m->u.created.pid > INT32_MAX)
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_CAP_HIT:
		TRY(cordon_buf_get_u8(&b, &m->u.cap_hit.cap));
		TRY(cordon_buf_get_u64(&b, &m->u.cap_hit.observed));
		TRY(cordon_buf_get_u64(&b, &m->u.cap_hit.limit));
		if (!cap_can_hit(m->u.cap_hit.cap))
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_EXIT:
		r = decode_exit(&b, &m->u.exit);
		break;
	case CORDON_MSG_TEARDOWN:
		TRY(cordon_buf_get_u8(&b, &m->u.teardown.ok));
		TRY(cordon_buf_get_cstring(&b, &m->u.teardown.error,
		    CORDON_MAX_TEXT_LEN));
		if (m->u.teardown.ok > 1)
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_ERROR:
		TRY(cordon_buf_get_i32(&b, &m->u.error.err));
		TRY(cordon_buf_get_cstring(&b, &m->u.error.message,
		    CORDON_MAX_TEXT_LEN));
		break;
	case CORDON_MSG_PROBE:
		TRY(cordon_buf_get_u8(&b, &m->u.probe_backend));
		if (m->u.probe_backend >= CORDON_BACKEND_MAX_)
			r = -CORDON_E_RANGE;
		break;
	case CORDON_MSG_FACT:
		TRY(cordon_buf_get_cstring(&b, &m->u.fact.key,
		    CORDON_MAX_FACT_KEY));
		TRY(cordon_buf_get_cstring(&b, &m->u.fact.value,
		    CORDON_MAX_TEXT_LEN));
		if (!fact_key_valid(m->u.fact.key))
			r = -CORDON_E_PROTO;
		break;
	default:
		r = -CORDON_E_PROTO;
		goto out;
	}
	if (r == 0 && cordon_buf_remaining(&b) != 0)
		r = -CORDON_E_PROTO;
out:
	if (r < 0)
		cordon_msg_clear(m);
	return r;
}

int
cordon_msg_send(int fd, const struct cordon_msg *m)
{
	struct cordon_buf b;
	ssize_t n;
	int r;

	if ((r = cordon_msg_encode(m, &b)) < 0)
		return r;
	do {
		n = send(fd, b.d, b.len, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		r = (errno == EPIPE || errno == ECONNRESET) ?
		    -CORDON_E_EOF : -CORDON_E_IO;
	else if ((size_t)n != b.len)
		r = -CORDON_E_IO;
	cordon_buf_free(&b);
	return r;
}

int
cordon_msg_recv(int fd, struct cordon_msg *m)
{
	struct msghdr mh;
	struct iovec iov;
	uint8_t *frame = NULL;
	ssize_t n, got;
	char junk = 0;
	int r;

	memset(m, 0, sizeof(*m));
	/* Learn the datagram's true length before allocating for it. */
	do {
		/* cppcheck-suppress nullPointer ; a 0-byte recv writes nothing */
		n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ECONNRESET ? -CORDON_E_EOF : -CORDON_E_IO;
	if (n == 0) {
		/* EOF, or an empty datagram: drain it either way. */
		(void)recv(fd, &junk, 1, MSG_DONTWAIT);
		return -CORDON_E_EOF;
	}
	if ((size_t)n > CORDON_WIRE_MAX_FRAME) {
		(void)recv(fd, &junk, 1, MSG_DONTWAIT); /* discard it */
		return -CORDON_E_TOOLONG;
	}
	if ((frame = malloc((size_t)n)) == NULL)
		return -CORDON_E_NOMEM;
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = frame;
	iov.iov_len = (size_t)n;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	do {
		got = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		r = -CORDON_E_IO;
	else if (got != n || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0)
		r = -CORDON_E_PROTO; /* changed under us, or carried fds */
	else
		r = cordon_msg_decode(frame, (size_t)got, m);
	free(frame);
	return r;
}
