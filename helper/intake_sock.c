/*
 * intake_sock.c - the Linux helper's request comes from its
 * SOCK_SEQPACKET socket: one message per datagram, read by
 * cordon_msg_recv_allowed (common/wire_sock.c), which bounds it and
 * checks its type before decoding the body.  The checks are intake.c's.
 */
#include "config.h"

#include "request.h"

static int
recv_sock(void *ctx, uint32_t want, struct cordon_msg *m)
{
	return cordon_msg_recv_allowed(*(const int *)ctx, want, m);
}

void
intake_read(int sock, struct request *req)
{
	intake_read_from(recv_sock, &sock, req);
}
