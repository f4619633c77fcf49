/*
 * wire.h - the broker/helper protocol over a SOCK_SEQPACKET socketpair.
 *
 * One datagram is one message: a header (u16 version, u16 type) and a body
 * whose layout the type fixes.  The broker sends REQUEST, then exactly
 * argc ARG messages, then exactly envc ENV messages, then exactly bindc
 * BIND messages.  The helper answers with events: BACKEND, CREATED, at
 * most one CAP_HIT, EXIT, TEARDOWN, or ERROR (followed by TEARDOWN when a
 * workdir existed).  CREATED means ready: the workdir exists, the
 * boundary is built and the payload is held right before its execve; the
 * helper then waits for GO, which the broker sends once the run's create
 * row is committed to the trace (and files are copied in), and EOF
 * instead makes the helper kill the held tree and remove the workdir.
 * With CORDON_REQ_COPY_OUT the helper also waits for a second GO after
 * EXIT, before the teardown (the broker copies files out meanwhile).
 * WORKDIR is no longer sent (CREATED took over the copy-in handshake);
 * the broker still decodes it, as it decodes GC.  Instead of a
 * REQUEST the broker may send PROBE (the backend asked for), answered by
 * FACT messages and then BACKEND (what auto would pick, or the backend
 * asked for) or ERROR.  GC is no longer sent: the broker reclaims dead
 * runs itself (broker/gc.c), and a helper refuses it as any type it does
 * not expect.  With CORDON_REQ_EGRESS the helper sends EGRESS between
 * BACKEND and CREATED, carrying one fd (SCM_RIGHTS): the listener the
 * run's init made in the sandbox's net namespace.  It is the only message
 * that may carry an fd, in the helper -> broker direction only
 * (cordon_msg_recv_fd); the helper's own receive refuses every fd.  Its encoding stays in the broker's half (wire_broker.c),
 * so one from an older broker is recognised, and refused, for what it is.
 *
 * Decoding is strict: an unknown version or type, a field out of range, a
 * string with a NUL or over its bound, a short body or trailing bytes are
 * all errors, and the frame length is checked before anything is
 * allocated for it.  The helper checks the type against the set it
 * expects before it decodes any body (cordon_msg_recv_allowed).
 *
 * Where SOCK_SEQPACKET does not exist (Windows, macOS) the same messages
 * travel length-prefixed over a byte stream: frame.h.
 *
 * Files: wire.c (encoding and the header, both sides), wire_helper.c
 * (what the helper receives; all the decoding it links), wire_broker.c
 * (what the broker receives, and cordon_msg_decode for either
 * direction), wire_sock.c (datagram I/O, both sides, and the helper's
 * receive), wire_broker_sock.c (the broker's datagram receive), frame.c
 * (byte-stream frames).
 */
#ifndef CORDON_COMMON_WIRE_H
#define CORDON_COMMON_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "types.h"

#define CORDON_WIRE_VERSION 1
/* The largest message: an ARG of CORDON_MAX_ARG_LEN bytes plus headers. */
#define CORDON_WIRE_MAX_FRAME (CORDON_MAX_ARG_LEN + 4096U)
/* The fd on which the helper finds its end of the socketpair. */
#define CORDON_HELPER_FD 3

enum cordon_msg_type {
	/* broker -> helper */
	CORDON_MSG_REQUEST = 1,
	CORDON_MSG_ARG = 2,
	CORDON_MSG_ENV = 3,
	CORDON_MSG_GC = 4,       /* retired: no helper accepts it (wire.h top) */
	CORDON_MSG_PROBE = 5,    /* say what this host gives, run nothing */
	CORDON_MSG_BIND = 6,     /* one --ro-bind: source, destination */
	CORDON_MSG_GO = 7,       /* recorded, files copied: go on (empty body) */
	/* helper -> broker */
	CORDON_MSG_BACKEND = 16,
	CORDON_MSG_CREATED = 17, /* ready: the payload held before execve */
	CORDON_MSG_CAP_HIT = 18,
	CORDON_MSG_EXIT = 19,
	CORDON_MSG_TEARDOWN = 20,
	CORDON_MSG_ERROR = 21,
	CORDON_MSG_FACT = 22,    /* one probe finding: key, value */
	CORDON_MSG_WORKDIR = 23, /* retired: CREATED carries the workdir */
	CORDON_MSG_EGRESS = 24,  /* port (u16) + the listener's fd */
};

#define CORDON_MAX_FACT_KEY 64U

struct cordon_msg_request {
	uint32_t flags;            /* CORDON_REQ_* */
	uint8_t backend;           /* enum cordon_backend_id */
	struct cordon_limits limits;
	char *run_id;              /* CORDON_RUN_ID_LEN hex digits */
	char *workdir_base;        /* absolute path */
	uint32_t argc;             /* ARG messages that follow, >= 1 */
	uint32_t envc;             /* ENV messages that follow */
	uint32_t bindc;            /* BIND messages after the ENVs */
	uint32_t require;          /* bit (1 << cap) per control the run needs */
	uint32_t env_explicit;     /* the last env_explicit ENVs were set by
	                              --env, --keep-env or a profile */
};

struct cordon_msg_bind {
	char *src;                 /* clean absolute host path */
	char *dest;                /* cordon_bind_dest_valid() */
};

struct cordon_msg_backend {
	uint8_t backend;           /* the backend that runs, never AUTO */
	uint32_t applied;          /* bit (1 << cap) per applied cap */
	char *reason;
	uint32_t kernel;           /* of applied: enforced by a cgroup */
};

struct cordon_msg_created {
	char *workdir;
	uint32_t pid;              /* the payload's pid, in the helper's view */
};

struct cordon_msg_cap_hit {
	uint8_t cap;
	uint64_t observed;         /* ns, bytes or count, as the cap */
	uint64_t limit;
};

struct cordon_msg_exit {
	uint8_t outcome;           /* enum cordon_outcome_id */
	uint8_t cap;               /* for CAP_HIT, else CORDON_CAP_NONE */
	int32_t exit_code;         /* -1 if the payload did not exit */
	int32_t signal;            /* 0 if not killed by a signal */
	uint64_t cpu_ns;
	uint64_t wall_ns;
	uint64_t max_rss;
	char *error;               /* exec failure or sandbox error text */
};

struct cordon_msg_teardown {
	uint8_t ok;
	char *error;
};

struct cordon_msg_fact {
	char *key;                 /* short, [a-z0-9_.-] */
	char *value;
};

struct cordon_msg_error {
	int32_t err;               /* errno, or 0 */
	char *message;
};

struct cordon_msg {
	uint16_t type;
	union {
		struct cordon_msg_request request;
		char *str;                  /* ARG, ENV, GC (the base), WORKDIR */
		struct cordon_msg_bind bind;
		struct cordon_msg_backend backend;
		struct cordon_msg_created created;
		struct cordon_msg_cap_hit cap_hit;
		struct cordon_msg_exit exit;
		struct cordon_msg_teardown teardown;
		struct cordon_msg_error error;
		struct cordon_msg_fact fact;
		uint8_t probe_backend;      /* PROBE */
		uint16_t egress_port;       /* EGRESS: CORDON_EGRESS_PORT */
	} u;
};

/* Frees the strings a decoded message owns and zeroes it. */
void cordon_msg_clear(struct cordon_msg *m);

/* Encodes m into b, a new writer the caller frees (freed here on error). */
int cordon_msg_encode(const struct cordon_msg *m, struct cordon_buf *b);
int cordon_msg_decode(const uint8_t *frame, size_t len, struct cordon_msg *m);

/* One message per datagram; -CORDON_E_EOF when the peer is gone. */
int cordon_msg_send(int fd, const struct cordon_msg *m);
/* Any message of either direction (wire_broker.c; not in the helper). */
int cordon_msg_recv(int fd, struct cordon_msg *m);
/* cordon_msg_decode as a cordon_wire_decoder (allowed ignored), for the
 * byte-stream framing (frame.h) of the broker's receive. */
int cordon_msg_decode_any(const uint8_t *frame, size_t len, uint32_t allowed,
    struct cordon_msg *m);
/*
 * The same, taking at most one passed fd into *passed (-1 if none): only
 * on an EGRESS message, which must carry exactly one.  An fd on any other
 * type, more than one, or an EGRESS without one: closed, -CORDON_E_PROTO.
 */
int cordon_msg_recv_fd(int fd, struct cordon_msg *m, int *passed);
/* Sends m with passfd attached (SCM_RIGHTS): the helper's EGRESS. */
int cordon_msg_send_fd(int fd, const struct cordon_msg *m, int passfd);
/*
 * Raw fd passing on a socket (wire.c): len bytes with passfd attached
 * (unless -1), and one byte with at most one fd taken into *passed (-1 if
 * none; anything more is closed and refused).  The linux-ns init hands
 * the helper its egress listener this way (helper/ns.c).
 */
int cordon_send_with_fd(int sock, const void *buf, size_t len, int passfd);
int cordon_recv_byte_fd(int sock, char *c, int *passed);

/* The bit of a message type in an allowed set. */
#define CORDON_MSG_BIT(t) (1U << (t))
/*
 * The helper's receive (wire_helper.c): a message whose type is in
 * allowed, decoded; a type outside it (unknown, broker-bound or not
 * expected now) is refused with -CORDON_E_PROTO before any of its body is
 * read, and only m->type is set, to the type refused (nothing owned).
 * Other errors as cordon_msg_decode, with m zeroed.
 */
int cordon_msg_decode_allowed(const uint8_t *frame, size_t len,
    uint32_t allowed, struct cordon_msg *m);
int cordon_msg_recv_allowed(int fd, uint32_t allowed, struct cordon_msg *m);

/* Framing, shared by both directions' decoders (wire.c). */
typedef int (*cordon_wire_decoder)(const uint8_t *frame, size_t len,
    uint32_t allowed, struct cordon_msg *m);
/*
 * Receives one datagram, its length bounded before it is allocated, and
 * decodes it with decode (given allowed); m zeroed first.
 */
int cordon_wire_recv(int fd, cordon_wire_decoder decode, uint32_t allowed,
    struct cordon_msg *m);
/*
 * The same, and with passed != NULL a single SCM_RIGHTS fd is taken into
 * *passed (-1 if none came); anything else in the control data is an
 * error, with whatever fds arrived closed.  With passed NULL no control
 * buffer is given: the kernel discards any fd and the message is refused.
 */
int cordon_wire_recv_fd(int fd, cordon_wire_decoder decode, uint32_t allowed,
    struct cordon_msg *m, int *passed);
/* Reads the header into *type: -CORDON_E_VERSION for another version. */
int cordon_wire_header(struct cordon_buf *b, const uint8_t *frame,
    size_t len, uint16_t *type);
/* r, or -CORDON_E_PROTO for trailing bytes; m cleared on any error. */
int cordon_wire_finish(struct cordon_buf *b, struct cordon_msg *m, int r);
/* The body of a broker -> helper message (wire_helper.c). */
int cordon_wire_body_to_helper(struct cordon_buf *b, struct cordon_msg *m);

#endif
