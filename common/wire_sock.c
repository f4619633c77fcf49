/*
 * wire_sock.c - the wire's messages as SOCK_SEQPACKET datagrams (Linux),
 * which both sides link: one message a datagram, at most one fd passed
 * with it (SCM_RIGHTS), and the helper's receive of what it expects
 * (cordon_msg_recv_allowed; the broker's: wire_broker_sock.c).  Where
 * SOCK_SEQPACKET does not exist the same messages travel as frames over
 * a byte stream instead (frame.c).
 *
 * Why the reader is safe: the datagram's length is learned with MSG_PEEK
 * | MSG_TRUNC and checked against CORDON_WIRE_MAX_FRAME before the buffer
 * is allocated; the datagram then goes to the bounded decoders
 * (wire_helper.c, wire_broker.c); control data is taken only where an fd
 * may come, and its level, type and length are checked before the fd is
 * read out, anything more closed and refused.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire.h"

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

int
cordon_msg_recv_allowed(int fd, uint32_t allowed, struct cordon_msg *m)
{
	return cordon_wire_recv(fd, cordon_msg_decode_allowed, allowed, m);
}
