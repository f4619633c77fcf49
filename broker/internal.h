/*
 * internal.h - libcordon's private types, shared by broker/ files and the
 * CLI, never installed.
 */
#ifndef CORDON_BROKER_INTERNAL_H
#define CORDON_BROKER_INTERNAL_H

#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon.h"
#include "types.h"

struct cordon_config {
	struct cordon_limits limits;
	bool network;
	enum cordon_backend_id backend;
	char *trace_path;     /* NULL: the default */
	char *workdir_base;   /* NULL: the default */
	int cancel_fd;        /* readable: cancel the run; -1: none */
};

/*
 * One run, as the result record and as a row of the trace.  Strings are
 * owned (cordon_result_clear frees them).
 */
struct cordon_result {
	char run_id[CORDON_RUN_ID_LEN + 1];
	int64_t created_ms;        /* ms since the epoch */
	int64_t ended_ms;          /* 0 while running */
	char **argv;               /* argc strings, exactly as given */
	size_t argc;
	char *cwd;                 /* the invoker's cwd */
	uint32_t uid;
	char *user;
	enum cordon_backend_id backend_requested;
	enum cordon_backend_id backend;   /* AUTO (0) until the helper says */
	char *backend_reason;
	struct cordon_limits limits;      /* what was asked */
	bool network;                     /* whether network was asked for */
	uint32_t applied;                 /* bit (1 << cap) per applied cap */
	uint32_t kernel_enforced;         /* of applied: by the run's cgroup */
	int outcome;               /* enum cordon_outcome_id; 0 = unknown */
	int exit_code;             /* -1 if none */
	int signal;                /* 0 if none */
	int cap;                   /* enum cordon_cap_id */
	uint64_t cpu_ns;
	uint64_t wall_ns;
	uint64_t max_rss;
	int workdir_removed;       /* 1 yes, 0 no, -1 unknown */
	char *workdir;
	char *error;               /* sandbox error or exec failure text */
	/* Who records the run: lets a later reconcile spot a killed broker. */
	uint32_t broker_pid;
	uint64_t broker_start;     /* its start time, /proc/PID/stat field 22 */
};

void cordon_result_clear(struct cordon_result *r);
/* Appends the result record's fields to an open JSON object. */
struct cordon_json;
void cordon_result_json_fields(const struct cordon_result *r,
    struct cordon_json *j);

/* paths.c: defaults that come from the environment. */
int cordon_default_trace_path(char **out);
int cordon_default_workdir_base(char **out);
/* The helper to exec: the configured path, or $CORDON_HELPER for tests. */
int cordon_helper_path(char **out);
/*
 * uid's passwd entry through getpwuid_r, its strings in buf: libcordon
 * may run in a threaded program, where getpwuid's one static result can
 * be overwritten by another thread's lookup while we read it.
 */
#define CORDON_PW_BUF_LEN 16384
int cordon_getpw(uid_t uid, struct passwd *pw, char *buf, size_t bufsz);

/* run.c: the helper with its end of a new socketpair on fd 3. */
int cordon_start_helper(const char *path, pid_t *pid, int *sock);
/* Reaps it; its wait status, or -1. */
int cordon_wait_helper(pid_t pid);

/* 32 hex digits from getrandom(2). */
int cordon_new_run_id(char id[CORDON_RUN_ID_LEN + 1]);
int64_t cordon_now_ms(void);
/* Start time (clock ticks since boot) of pid, or 0 if it does not exist. */
uint64_t cordon_proc_start_time(uint32_t pid);

#endif
