/*
 * request.h - the request as intake.c reads and re-checks it, and the
 * little of util.c that reading it needs (die, xcalloc).  Portable C: the
 * Linux helper (helper.h includes this), the Windows helper
 * (main_win.c) and the macOS helper (main_macos.c) read a request with
 * the same code and the same checks; only the transport differs
 * (intake_recv_fn).
 */
#ifndef CORDON_HELPER_REQUEST_H
#define CORDON_HELPER_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"
#include "wire.h"

#define NORETURN __attribute__((noreturn))
#define PRINTF(a, b) __attribute__((format(printf, a, b)))

/* die.c */
/* Prints "cordon-helper: MSG[: strerror]" and exits after the cleanup hook. */
NORETURN void die(const char *fmt, ...) PRINTF(1, 2);
NORETURN void die_errno(const char *fmt, ...) PRINTF(1, 2);
/* Run once by die(): kill the tree, remove the workdir, tell the broker. */
void set_die_hook(void (*hook)(const char *why));
void *xcalloc(size_t n, size_t size);

/* A request, as re-checked by intake.c.  Everything here is bounded. */
struct request {
	uint32_t flags;
	enum cordon_backend_id backend;
	struct cordon_limits limits;
	char run_id[CORDON_RUN_ID_LEN + 1];
	char *workdir_base;
	char **argv;        /* argc entries + NULL */
	uint32_t argc;
	char **envp;        /* allowed entries only + NULL */
	uint32_t envc;
	struct cordon_msg_bind *binds; /* --ro-bind, re-checked */
	uint32_t bindc;
	uint32_t env_explicit; /* the last env_explicit entries were set by name */
	uint32_t require;   /* bit (1 << cap) per control the run must have */
	bool probe_only;    /* a PROBE message (backend: the one asked for) */
};

/*
 * One message of a type in want (CORDON_MSG_BIT()s), the type checked
 * before any body is decoded: cordon_msg_recv_allowed on a datagram
 * socket, cordon_frame_recv with cordon_msg_decode_allowed on a stream.
 */
typedef int (*intake_recv_fn)(void *ctx, uint32_t want, struct cordon_msg *m);

/* intake.c: reads REQUEST + ARG* + ENV* + BIND*, or PROBE; dies on all else. */
void intake_read_from(intake_recv_fn recv, void *ctx, struct request *req);
/* intake_sock.c: the same from the Linux helper's SOCK_SEQPACKET socket. */
void intake_read(int sock, struct request *req);
void request_free(struct request *req);

#endif
