/*
 * testutil.h - driving the real cordon binary from Check tests.
 */
#ifndef CORDON_TESTS_TESTUTIL_H
#define CORDON_TESTS_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cmd {
	int status;      /* exit code, or 128 + signal */
	char *out;       /* captured stdout, NUL-terminated */
	char *err;       /* captured stderr */
};

/* A scratch directory with a trace and a workdir base of its own. */
struct scratch {
	char root[256];
	char trace[300];
	char base[300];
	char trace_opt[320];  /* --trace=... */
	char base_opt[320];   /* --workdir-base=... */
};

const char *cordon_bin(void);
const char *payload_bin(void);
void scratch_init(struct scratch *s);
void scratch_fini(struct scratch *s);

/* Runs argv (argv[0] is the program) with extra env; waits; captures. */
int run_cmd(struct cmd *c, char *const argv[], char *const extra_env[]);
/* The same, with stdin read from a file. */
int run_cmd_in(struct cmd *c, char *const argv[], char *const extra_env[],
    const char *stdin_path);
/* The same, as uid (and gid) uid if uid >= 0 (we must be root). */
int run_cmd_as(struct cmd *c, char *const argv[], char *const extra_env[],
    const char *stdin_path, int uid);
/* A directory with cordon, cordon-helper and payload that nobody can run. */
const char *nobody_bin_dir(const struct scratch *s);
/* Run in run_cmd_as()'s child before it drops to uid, if set. */
extern void (*run_cmd_hook)(void);
/* A root-owned, mode 4755 copy of the setuid-capable helper, for nobody. */
const char *setuid_helper(const struct scratch *s);
/*
 * Root only, in a child that will start a setuid helper (which reads the
 * policy from the path fixed at build time, whatever the environment
 * says): a private mount namespace in which that policy.conf holds text.
 * The confdir (or its deepest existing parent) is overlaid, the upper
 * layer on a tmpfs at tmp, so nothing outside the child sees any of it.
 */
int private_system_policy(const char *tmp, const char *text);
/* Installs a seccomp filter that fails every user namespace creation. */
void block_user_namespaces(void);
/*
 * The invoker stops their own helper: forks a process that waits for the
 * payload to create "ready" in its workdir (the one run directory in
 * base), SIGSTOPs the helper (the child of the broker, the calling test's
 * other child), creates "go" there, waits until the helper's own child
 * has ended (a zombie, as nobody reaps it meanwhile), and sends SIGCONT.
 * Call it before starting the run; it exits 0 if all of that happened.
 */
pid_t stop_helper_while(const char *base);
/* Starts argv in the background with stdout to /dev/null; returns its pid. */
pid_t spawn_cmd(char *const argv[]);
void cmd_free(struct cmd *c);

/* The raw text of a top-level key of a JSON object (strings unquoted). */
char *json_get(const char *json, const char *key);
/*
 * The payload's own tasks at its fullest within --nproc 8: its thread and
 * 7 more.  Built with the sanitizers it makes one more as it exits (the
 * leak checker's tracer, to stop the other threads), which counts as the
 * kernel counts it: there, 6 more.
 */
#ifdef CORDON_SANITIZERS
#define WITHIN_8 "6"
#else
#define WITHIN_8 "7"
#endif

/*
 * Asserts the run ended as a hit of cap, and prints how long it took and
 * what it burnt as a MEASURE line ("WHAT, WHERE: ..."): the time is for
 * the record, never a pass mark (shared machines, the VM matrix).
 */
void assert_cap_measured(const struct cmd *c, const char *cap,
    const char *what, const char *where);
bool json_is(const char *json, const char *key, const char *want);
/*
 * The top-level key's array of strings, each decoded as README.md tells
 * a reader to (\udc80-\udcff back to the raw byte), NULL-terminated; NULL
 * if it is missing or malformed.  Free with strv_free.
 */
char **json_get_strv(const char *json, const char *key, size_t *n);
void strv_free(char **v);
/* Valid UTF-8 with no control but newline (else *bad: the offset). */
bool utf8_printable(const char *s, size_t len, size_t *bad);

/* Entries of a directory other than "." and "..", or -1. */
int dir_entries(const char *path);
bool pid_alive(pid_t pid);
/* Reads an integer from a file, waiting up to ms for it to appear. */
long wait_read_long(const char *path, int ms);

/* sqlite helpers on the scratch trace. */
long trace_count(const struct scratch *s, const char *sql, const char *arg);
char *trace_text(const struct scratch *s, const char *sql, const char *arg);

#endif
