/*
 * types.h - values shared by the broker and the helper: caps, backends,
 * outcomes, and the hard bounds every request is checked against.
 *
 * Both sides include this file, so the numbers here are the protocol's
 * contract: the helper re-checks every field of a request against them
 * and never trusts that the broker already did.
 */
#ifndef CORDON_COMMON_TYPES_H
#define CORDON_COMMON_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cap, backend, outcome and error ids (public: installed with cordon.h). */
#include "cordon_ids.h"

/*
 * The format attribute's archetype for our printf-like functions:
 * printf, but gnu_printf where the C library's printf is not the one
 * that speaks C99 (mingw: configure.ac defines it).
 */
#ifndef CORDON_PRINTF
#define CORDON_PRINTF printf
#endif

/*
 * What a run asks for.  Times in nanoseconds, memory in bytes.  A value of
 * 0 means "no cap" for nproc, output and disk only; every other cap is always set (the
 * broker fills in the defaults).
 */
struct cordon_limits {
	uint64_t cpu_ns;
	uint64_t wall_ns;
	uint64_t memory_bytes;
	uint64_t nofile;
	uint64_t nproc;
	uint64_t output_bytes;   /* captured stdout + stderr; 0 = no cap */
	uint64_t disk_bytes;     /* what the workdir holds; 0 = no cap */
};

#define CORDON_NS_PER_SEC 1000000000ULL

/* The seed's defaults: an ordinary compiler or test run passes under them. */
#define CORDON_DEFAULT_CPU_NS (60ULL * CORDON_NS_PER_SEC)
#define CORDON_DEFAULT_WALL_NS (120ULL * CORDON_NS_PER_SEC)
#define CORDON_DEFAULT_MEMORY (2ULL << 30)
#define CORDON_DEFAULT_NOFILE 512ULL
#define CORDON_DEFAULT_NPROC 0ULL

/*
 * Hard bounds: anything outside is a malformed request, whoever sent it.
 * System policy (later) may only tighten these.
 */
#define CORDON_MIN_TIME_NS 1000000ULL                    /* 1 ms */
#define CORDON_MAX_TIME_NS (7ULL * 24 * 3600 * CORDON_NS_PER_SEC) /* a week */
#define CORDON_MIN_MEMORY (1ULL << 20)                    /* 1 MiB */
#define CORDON_MAX_MEMORY (1ULL << 50)                    /* 1 PiB */
#define CORDON_MIN_NOFILE 4ULL   /* stdio plus one */
#define CORDON_MAX_NOFILE (1ULL << 20)
#define CORDON_MAX_NPROC (1ULL << 22)
#define CORDON_MAX_OUTPUT (1ULL << 50)
#define CORDON_MIN_DISK (1ULL << 20)                      /* 1 MiB */
#define CORDON_MAX_DISK (1ULL << 50)

/* Request size bounds (argv mirrors Linux's MAX_ARG_STRLEN and ARG_MAX). */
#define CORDON_MAX_ARGC 65536U
#define CORDON_MAX_ENVC 4096U
#define CORDON_MAX_ARG_LEN 131072U
#define CORDON_MAX_ARGV_BYTES (2U << 20)
#define CORDON_MAX_PATH_LEN 4095U
#define CORDON_MAX_TEXT_LEN 4096U
/* --ro-bind entries per run (BIND messages). */
#define CORDON_MAX_BINDS 64U

/* Run ids: 32 lowercase hex digits (128 random bits). */
#define CORDON_RUN_ID_LEN 32

/* Flags in a request. */
#define CORDON_REQ_NETWORK 0x1U
/* Files move in or out: the helper waits for GO (wire.h) before the start,
 * and for copy-out after EXIT before the teardown. */
#define CORDON_REQ_COPY_IN 0x2U
#define CORDON_REQ_COPY_OUT 0x4U
/* An egress allow-list (linux-ns, without NETWORK): the init makes a TCP
 * listener on 127.0.0.1:CORDON_EGRESS_PORT inside the run's own net
 * namespace and the helper hands it to the broker (EGRESS, wire.h). */
#define CORDON_REQ_EGRESS 0x8U
#define CORDON_REQ_FLAGS_ALL 0xfU
#define CORDON_EGRESS_PORT 3128

bool cordon_run_id_valid(const char *id);
int cordon_limits_check(const struct cordon_limits *l);
void cordon_limits_default(struct cordon_limits *l);
/*
 * A --ro-bind destination inside linux-ns: a clean absolute path (no ".",
 * "..", empty components), not "/" and not in a directory the private root
 * already fills (the system directories, /work, /proc, /dev, /tmp).
 */
bool cordon_bind_dest_valid(const char *dest);
/* An absolute path without ".", ".." or empty components. */
bool cordon_path_clean(const char *p);
/*
 * The host's own clean absolute path: on Linux and macOS,
 * cordon_path_clean (common/host_posix.c); on Windows, "X:\a\b" with
 * nothing Win32 would rewrite or read as a device (common/host_win.c).
 * What the wire takes for a workdir and its base.
 */
bool cordon_path_native(const char *p);
/*
 * Whether the first n bytes of two environment names are the same
 * name on this host, as strncmp stops at a NUL: exactly on Linux and
 * macOS (common/host_posix.c), without ASCII case on Windows
 * (common/host_win.c, "Path" is PATH).
 */
bool cordon_env_name_eq(const char *a, const char *b, size_t n);
/*
 * A --ro-bind the host's helper can take, as the wire and intake.c
 * check it: on Linux and macOS a clean source and a destination
 * cordon_bind_dest_valid takes (common/host_posix.c); on Windows,
 * where nothing is mounted and an AppContainer is granted the path
 * itself, a cordon_path_native source and a destination equal to it
 * (common/host_win.c).
 */
bool cordon_bind_native(const char *src, const char *dest);
/*
 * Why BACKEND never applies CAP on any host (common/ids.c), or NULL when
 * that depends on the host, the request or the helper's read-back.
 */
const char *cordon_backend_never(int backend, int cap);
/*
 * A failure said in err (errsz bytes, may be 0), errno kept: -1.  The
 * one error helper of the code that reports into a caller's buffer.
 */
int cordon_errf(char *err, size_t errsz, const char *f, ...)
    __attribute__((format(CORDON_PRINTF, 3, 4)));

#endif
