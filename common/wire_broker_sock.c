/*
 * wire_broker_sock.c - the broker's receive of datagrams (Linux): any
 * message of either direction, and EGRESS with its fd.  Apart from
 * wire_broker.c, so that the decoders build where sockets differ
 * (Windows: frame.c) and cordon-helper links none of this.
 */
#include "config.h"

#include <unistd.h>

#include "wire.h"

int
cordon_msg_recv(int fd, struct cordon_msg *m)
{
	return cordon_wire_recv(fd, cordon_msg_decode_any, 0, m);
}

int
cordon_msg_recv_fd(int fd, struct cordon_msg *m, int *passed)
{
	int r = cordon_wire_recv_fd(fd, cordon_msg_decode_any, 0, m, passed);

	/* An fd is taken on EGRESS alone, and EGRESS never comes without. */
	if (r == 0 && (m->type == CORDON_MSG_EGRESS) != (*passed >= 0)) {
		if (*passed >= 0)
			(void)close(*passed);
		*passed = -1;
		cordon_msg_clear(m);
		r = -CORDON_E_PROTO;
	}
	return r;
}
