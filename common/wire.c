/*
 * wire.c - the framing of protocol messages, which both sides link:
 * encoding, the header, and datagram I/O.  The bodies are decoded in two
 * files, one per direction, so the helper links only the decoders of the
 * messages it receives: wire_helper.c (broker -> helper) and
 * wire_broker.c (helper -> broker, and cordon_msg_decode, which reads
 * either direction, for the broker's tests and the fuzz harness).
 *
 * Why the reader is safe: the frame length is learned with MSG_PEEK |
 * MSG_TRUNC and checked against CORDON_WIRE_MAX_FRAME before the buffer is
 * allocated; the header is read through cordon_buf getters that
 * bound-check against that length, and a receiver checks the type against
 * the set it expects before any body is decoded (wire_helper.c); every
 * field is then read through the same getters; strings are bounded per
 * field and may not contain NULs; enums and limits are range-checked by
 * the decoders, so no caller ever sees an out-of-range value; trailing
 * bytes are an error.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* Room for the control data of one fd. */
union one_fd {
	struct cmsghdr h;
	char b[CMSG_SPACE(sizeof(int))];
};

/* mh over len bytes at buf, with room for one fd in ctl unless NULL. */
static void
msg_init(struct msghdr *mh, struct iovec *iov, void *buf, size_t len,
    union one_fd *ctl)
{
	memset(mh, 0, sizeof(*mh));
	iov->iov_base = buf;
	iov->iov_len = len;
	mh->msg_iov = iov;
	mh->msg_iovlen = 1;
	if (ctl != NULL) {
		memset(ctl, 0, sizeof(*ctl));
		mh->msg_control = ctl->b;
		mh->msg_controllen = sizeof(ctl->b);
	}
}

int
cordon_send_with_fd(int sock, const void *buf, size_t len, int passfd)
{
	union one_fd ctl;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	msg_init(&mh, &iov, (void *)(uintptr_t)buf, len,
	    passfd >= 0 ? &ctl : NULL);
	if (passfd >= 0) {
		CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), &passfd, sizeof(int));
	}
	do {
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return (errno == EPIPE || errno == ECONNRESET) ?
		    -CORDON_E_EOF : -CORDON_E_IO;
	return (size_t)n == len ? 0 : -CORDON_E_IO;
}

/* Sends one encoded message, with passfd attached unless it is -1. */
static int
send_frame(int fd, const struct cordon_msg *m, int passfd)
{
	struct cordon_buf b;
	int r;

	if ((r = cordon_msg_encode(m, &b)) < 0)
		return r;
	r = cordon_send_with_fd(fd, b.d, b.len, passfd);
	cordon_buf_free(&b);
	return r;
}

int
cordon_msg_send(int fd, const struct cordon_msg *m)
{
	return send_frame(fd, m, -1);
}

int
cordon_msg_send_fd(int fd, const struct cordon_msg *m, int passfd)
{
	return passfd < 0 ? -CORDON_E_INVAL : send_frame(fd, m, passfd);
}

/*
 * The one fd a datagram carried, or -1; -CORDON_E_PROTO (every fd that
 * came closed) for truncated control data, another kind of it, or more
 * than one fd.  Nothing here trusts the sender: level, type and length
 * are all checked before the fd is read out.
 */
static int
take_fd(struct msghdr *mh, int *passed)
{
	struct cmsghdr *c;
	int fd = -1, extra, r = 0;
	size_t i, nfd;

	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0)) {
			r = -CORDON_E_PROTO;
			continue;
		}
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfd; i++) {
			memcpy(&extra, CMSG_DATA(c) + i * sizeof(int),
			    sizeof(int));
			if (fd < 0 && r == 0 && i == 0 && nfd == 1) {
				fd = extra;
				continue;
			}
			r = -CORDON_E_PROTO;
			if (extra >= 0)
				(void)close(extra);
		}
	}
	if ((mh->msg_flags & MSG_CTRUNC) != 0)
		r = -CORDON_E_PROTO;
	if (r < 0 && fd >= 0) {
		(void)close(fd);
		fd = -1;
	}
	*passed = fd;
	return r;
}

int
cordon_recv_byte_fd(int sock, char *c, int *passed)
{
	union one_fd ctl;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;
	int r;

	*passed = -1;
	msg_init(&mh, &iov, c, 1, &ctl);
	do {
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -CORDON_E_IO;
	if ((r = take_fd(&mh, passed)) < 0)
		return r;
	if (n == 0) {
		if (*passed >= 0)
			(void)close(*passed);
		*passed = -1;
		return -CORDON_E_EOF;
	}
	return 0;
}

int
cordon_wire_recv(int fd, cordon_wire_decoder decode, uint32_t allowed,
    struct cordon_msg *m)
{
	return cordon_wire_recv_fd(fd, decode, allowed, m, NULL);
}

int
cordon_wire_recv_fd(int fd, cordon_wire_decoder decode, uint32_t allowed,
    struct cordon_msg *m, int *passed)
{
	union one_fd ctl;
	struct msghdr mh;
	struct iovec iov;
	uint8_t *frame = NULL;
	ssize_t n, got;
	char junk = 0;
	int r;

	memset(m, 0, sizeof(*m));
	if (passed != NULL)
		*passed = -1;
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
	msg_init(&mh, &iov, frame, (size_t)n, passed != NULL ? &ctl : NULL);
	do {
		got = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		r = -CORDON_E_IO;
	else if (passed != NULL && (r = take_fd(&mh, passed)) < 0)
		; /* more than the one fd asked for: all closed */
	else if (got != n || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0)
		r = -CORDON_E_PROTO; /* changed under us, or carried fds */
	else
		r = decode(frame, (size_t)got, allowed, m);
	if (r < 0 && passed != NULL && *passed >= 0) {
		(void)close(*passed);
		*passed = -1;
	}
	free(frame);
	return r;
}
