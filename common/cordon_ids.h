/*
 * cordon_ids.h - the ids the broker, the helper and libcordon's callers
 * share: caps and controls, backends, outcomes, errors, and their names.
 *
 * Part of libcordon's public API (cordon.h includes it, and it is
 * installed beside it), and the wire's contract: the numbers travel in
 * the messages of common/wire.h, so they are never renumbered.  It
 * depends on nothing else of cordon's, so common/ and the helper can use
 * it without the broker's API.
 */
#ifndef CORDON_IDS_H
#define CORDON_IDS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Caps.  The numeric values are sent on the wire: never renumber. */
enum cordon_cap_id {
	CORDON_CAP_NONE = 0,
	CORDON_CAP_CPU = 1,     /* CPU seconds summed over the whole tree */
	CORDON_CAP_WALL = 2,    /* wall-clock seconds */
	CORDON_CAP_MEMORY = 3,  /* resident bytes summed over the whole tree */
	CORDON_CAP_NOFILE = 4,  /* open files per process (RLIMIT_NOFILE) */
	CORDON_CAP_NPROC = 5,   /* processes in the tree */
	CORDON_CAP_NETWORK = 6, /* network isolation ("applied" only) */
	CORDON_CAP_OUTPUT = 7,  /* bytes written to captured stdout/stderr */
	CORDON_CAP_DISK = 8,    /* bytes the workdir holds */
	CORDON_CAP_FILESYSTEM = 9, /* writes confined ("applied" only) */
	CORDON_CAP_SCOPING = 10, /* signals, abstract sockets ("applied" only) */
	CORDON_CAP_MAX_ = 11
};

/* Backends, strongest first after AUTO. */
enum cordon_backend_id {
	CORDON_BACKEND_AUTO = 0,
	CORDON_BACKEND_LINUX_NS = 1,
	CORDON_BACKEND_LANDLOCK = 2,
	CORDON_BACKEND_FLOOR = 3,
	/* The other systems' helpers (helper/main_win.c, main_macos.c). */
	CORDON_BACKEND_JOB = 4,          /* Windows: a Job Object */
	CORDON_BACKEND_APPCONTAINER = 5, /* Windows: AppContainer in a job */
	CORDON_BACKEND_SEATBELT = 6,     /* macOS: sandbox-exec */
	CORDON_BACKEND_MAX_ = 7
};

/* How a run ended. */
enum cordon_outcome_id {
	CORDON_OUTCOME_EXITED = 1,
	CORDON_OUTCOME_SIGNALED = 2,
	CORDON_OUTCOME_CAP_HIT = 3,
	CORDON_OUTCOME_SANDBOX_ERROR = 4,
	CORDON_OUTCOME_MAX_ = 5
};

/* Errors, always returned negated. */
enum cordon_error {
	CORDON_OK = 0,
	CORDON_E_NOMEM = 1,      /* out of memory */
	CORDON_E_INVAL = 2,      /* invalid argument */
	CORDON_E_RANGE = 3,      /* value out of range */
	CORDON_E_TOOLONG = 4,    /* string or message too long */
	CORDON_E_SHORT = 5,      /* message truncated */
	CORDON_E_PROTO = 6,      /* malformed message */
	CORDON_E_VERSION = 7,    /* wire version mismatch */
	CORDON_E_IO = 8,         /* I/O error, see errno */
	CORDON_E_EOF = 9,        /* peer closed the connection */
	CORDON_E_TRACE = 10,     /* the trace database failed */
	CORDON_E_HELPER = 11,    /* the helper could not be started */
	CORDON_E_UNAVAIL = 12,   /* backend not available on this host */
	CORDON_E_NOTFOUND = 13,  /* no such run */
	CORDON_E_POLICY = 14,    /* refused by the system policy */
	CORDON_E_UNMET = 15,     /* a required control cannot be applied */
	CORDON_E_MAX_ = 16
};

const char *cordon_strerror(int err);

/* Names used in JSON, the trace and the CLI (common/ids.c). */
const char *cordon_cap_name(int cap);
const char *cordon_backend_name(int backend);
const char *cordon_outcome_name(int outcome);
int cordon_backend_from_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
