/*
 * intake.c - reads one request from the broker and re-checks every field.
 *
 * Why this is safe: every message comes through cordon_msg_recv_allowed()
 * (or, on a byte stream, common/frame.c with cordon_msg_decode_allowed),
 * which bounds the frame before allocating, refuses a type not wanted at
 * that point of the sequence before decoding any body, and decodes with
 * bounded getters (common/wire_helper.c).  GC is no such type any more:
 * dead runs are reclaimed by the broker (broker/gc.c).  On top of the
 * decoder's range checks this file
 * enforces what only the helper can: the exact message sequence the
 * header announced (no more, no fewer, no other type), the total size of
 * argv and the environment, the environment allow-list (policy/env.c),
 * duplicate variables, the shape of the workdir base path, and the
 * --ro-bind paths (clean and absolute; destinations kept out of what the
 * private root fills: cordon_bind_dest_valid, checked again here).  Anything
 * unexpected is fatal: the helper never guesses what the broker meant.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "request.h"

/*
 * Portable C: the Linux helper reads its socket (intake_sock.c), the
 * Windows and macOS helpers a byte stream of frames (main_win.c,
 * main_macos.c); each gives the receive, the checks here are the same.
 */
struct intake {
	intake_recv_fn recv;
	void *ctx;
};

/*
 * Receives one message of a type in want (CORDON_MSG_BIT()s) or dies
 * naming the problem; the type is checked before any body is decoded.
 */
static void
recv_expect(const struct intake *in, uint32_t want, struct cordon_msg *m)
{
	int r;

	if ((r = in->recv(in->ctx, want, m)) < 0) {
		if (m->type != 0)
			die("unexpected message type %u in the request",
			    (unsigned)m->type);
		die("reading the request: %s", cordon_strerror(r));
	}
}

/* The REQUEST's fields, copied into req and checked again. */
static void
take_request(struct cordon_msg *m, struct request *req)
{
	size_t idlen;

	/* Fields were range-checked by the decoder; copy and check again. */
	req->flags = m->u.request.flags;
	req->backend = (enum cordon_backend_id)m->u.request.backend;
	req->limits = m->u.request.limits;
	req->argc = m->u.request.argc;
	req->envc = m->u.request.envc;
	req->bindc = m->u.request.bindc;
	req->env_explicit = m->u.request.env_explicit;
	req->require = m->u.request.require;
	/* Copied only if it fits, terminator included (strlcpy's check). */
	idlen = strlen(m->u.request.run_id);
	if (idlen < sizeof(req->run_id))
		memcpy(req->run_id, m->u.request.run_id, idlen + 1);
	/*
	 * Whatever was received is owned by req before anything is checked,
	 * here and below, so that no die() path leaves an allocation that
	 * request_free() cannot reach (the fuzz harness, which survives
	 * die(), relies on it: tests/fuzz/fuzz_intake.c).
	 */
	req->workdir_base = m->u.request.workdir_base;
	m->u.request.workdir_base = NULL;
	cordon_msg_clear(m);
	if (idlen >= sizeof(req->run_id) || !cordon_run_id_valid(req->run_id))
		die("malformed run id");
	if ((req->flags & ~CORDON_REQ_FLAGS_ALL) != 0 ||
	    (req->flags & (CORDON_REQ_EGRESS | CORDON_REQ_NETWORK)) ==
	    (CORDON_REQ_EGRESS | CORDON_REQ_NETWORK) ||
	    req->backend >= CORDON_BACKEND_MAX_ ||
	    cordon_limits_check(&req->limits) != 0 ||
	    req->argc < 1 || req->argc > CORDON_MAX_ARGC ||
	    req->envc > CORDON_MAX_ENVC || req->bindc > CORDON_MAX_BINDS ||
	    req->env_explicit > req->envc ||
	    (req->require >> CORDON_CAP_MAX_) != 0 || (req->require & 1U) != 0)
		die("request fields out of range");
	if (!cordon_path_native(req->workdir_base))
		die("workdir base '%s' is not a clean absolute path",
		    req->workdir_base);
}

/* Exactly argc ARGs; *total counts argv and envp together. */
static void
read_argv(const struct intake *in, struct request *req, size_t *total)
{
	struct cordon_msg m;
	uint32_t i;

	req->argv = xcalloc((size_t)req->argc + 1, sizeof(char *));
	for (i = 0; i < req->argc; i++) {
		recv_expect(in, CORDON_MSG_BIT(CORDON_MSG_ARG), &m);
		req->argv[i] = m.u.str;
		m.u.str = NULL;
		cordon_msg_clear(&m);
		*total += strlen(req->argv[i]) + 1;
		if (*total > CORDON_MAX_ARGV_BYTES)
			die("argv and environment exceed %u bytes",
			    CORDON_MAX_ARGV_BYTES);
	}
	if (req->argv[0][0] == '\0')
		die("empty command name");
}

/* Exactly envc ENVs, each allowed (or settable) and given once. */
static void
read_envp(const struct intake *in, struct request *req, size_t *total)
{
	struct cordon_msg m;
	uint32_t i;
	char *e;

	/* Room for the entries plus HOME, TMPDIR and the terminating NULL. */
	req->envp = xcalloc((size_t)req->envc + 3, sizeof(char *));
	for (i = 0; i < req->envc; i++) {
		recv_expect(in, CORDON_MSG_BIT(CORDON_MSG_ENV), &m);
		e = req->envp[i] = m.u.str;
		m.u.str = NULL;
		cordon_msg_clear(&m);
		*total += strlen(e) + 1;
		if (*total > CORDON_MAX_ARGV_BYTES)
			die("argv and environment exceed %u bytes",
			    CORDON_MAX_ARGV_BYTES);
		/*
		 * The decoder guaranteed a '=' and a non-empty key.  Inherited
		 * entries must be on the allow-list; the last env_explicit were
		 * named by the invoker (--env, --keep-env, a profile), whose
		 * payload could set them itself, and need a settable name only.
		 */
		if (i < req->envc - req->env_explicit ? !cordon_env_allowed(e) :
		    !cordon_env_settable(e))
			die("environment variable not on the allow-list: %.*s",
			    (int)(strchr(e, '=') - e), e);
		/* Entries 0 .. i-1 only: e itself is not compared with. */
		if (cordon_env_find(req->envp, i, e) < i)
			die("environment variable given twice: %.*s",
			    (int)(strchr(e, '=') - e), e);
	}
}

/* Exactly bindc BINDs, their paths checked again. */
static void
read_binds(const struct intake *in, struct request *req)
{
	struct cordon_msg m;
	uint32_t i;

	req->binds = xcalloc(req->bindc, sizeof(*req->binds));
	for (i = 0; i < req->bindc; i++) {
		recv_expect(in, CORDON_MSG_BIT(CORDON_MSG_BIND), &m);
		req->binds[i] = m.u.bind;
		memset(&m, 0, sizeof(m));
		if (!cordon_bind_native(req->binds[i].src,
		    req->binds[i].dest))
			die("--ro-bind path out of bounds");
	}
}

void
intake_read_from(intake_recv_fn recv, void *ctx, struct request *req)
{
	const struct intake in = { recv, ctx };
	struct cordon_msg m;
	size_t total = 0;

	memset(req, 0, sizeof(*req));
	recv_expect(&in, CORDON_MSG_BIT(CORDON_MSG_REQUEST) |
	    CORDON_MSG_BIT(CORDON_MSG_PROBE), &m);
	if (m.type == CORDON_MSG_PROBE) {
		/* The decoder range-checked the backend. */
		req->probe_only = true;
		req->backend = (enum cordon_backend_id)m.u.probe_backend;
		cordon_msg_clear(&m);
		return;
	}
	take_request(&m, req);
	read_argv(&in, req, &total);
	read_envp(&in, req, &total);
	read_binds(&in, req);
}

void
request_free(struct request *req)
{
	uint32_t i;

	if (req->argv != NULL)
		for (i = 0; req->argv[i] != NULL; i++)
			free(req->argv[i]);
	/* Only the received entries: HOME and TMPDIR after them are static. */
	if (req->envp != NULL)
		for (i = 0; i < req->envc; i++)
			free(req->envp[i]);
	for (i = 0; req->binds != NULL && i < req->bindc; i++) {
		free(req->binds[i].src);
		free(req->binds[i].dest);
	}
	free(req->binds);
	free(req->argv);
	free(req->envp);
	free(req->workdir_base);
	memset(req, 0, sizeof(*req));
}
