/*
 * helper.h - declarations shared by the files of cordon-helper.
 *
 * One file per concern (helper.c has the theory of operation):
 *   helper.c    start-up, fd and signal hygiene, the run's life cycle
 *   util.c      formatting, time (die.c: die(), xcalloc())
 * The other systems' helpers (not in this build): main_win.c with
 * job_win.c and job.c (Windows, a Job Object), main_macos.c with
 * seatbelt_macos.c, seatbelt_decide.c and sbpl.c (macOS, sandbox-exec).
 *   intake.c    reading and re-checking the request (request.h;
 *               intake_sock.c: from the SOCK_SEQPACKET socket)
 *   priv.c      setuid mode: raising, dropping and verifying privilege,
 *               capabilities, the audit lines
 *   workdir.c   creating, locking, measuring and removing the workdir
 *               (the base and the remover: common/rmtree.c)
 *   probe.c     which backend a run gets, and what each applies
 *   spawn.c     what every backend does on the way to execve
 *   floor.c     the floor backend (and landlock's start)
 *   landlock.c  the landlock backend's ruleset
 *   ns.c        the linux-ns backend: namespaces, private root, init
 *               (with the list of what runs with capabilities)
 *   seccomp.c   the baseline seccomp filter
 *   cgroup.c    a cgroup v2 per run, where the host delegates one
 *   tree.c      finding, measuring and killing every process of the run
 *   caps.c      which cap a sample passed (monitor.c, and seatbelt's)
 *   monitor.c   the poll loop that enforces the caps
 * From common/ and policy/ the helper links exactly the files Makefile.am
 * lists in HELPER_SHARED_SOURCES (make helper-size counts them).
 */
#ifndef CORDON_HELPER_H
#define CORDON_HELPER_H

/* What nearly every file of the helper uses, included once here. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "rmtree.h"
#include "types.h"
#include "wire.h"

#include "request.h"

/* util.c (die, die_errno, set_die_hook, xcalloc: die.c, request.h) */
/* snprintf that reports truncation as failure instead of hiding it. */
bool fmt(char *buf, size_t size, const char *f, ...) PRINTF(3, 4);
/* Formats the error for the caller, -1, errno unchanged (common/types.c). */
#define ERR(...) cordon_errf(err, errsz, __VA_ARGS__)
uint64_t now_ns(void);

/* workdir.c */
struct workdir {
	int base_fd;        /* the base directory, O_DIRECTORY */
	int lock_fd;        /* <id>.lock, flock(LOCK_EX) while the run lives */
	int fd;             /* the workdir itself */
	char name[CORDON_RUN_ID_LEN + 1];
	char path[CORDON_MAX_PATH_LEN + 1];
};
/* Opens (with create, makes) the base; refuses one not private to us. */
int workdir_open_base(const char *base, bool create, int *base_fd, char *err,
    size_t errsz);
int workdir_create(const char *base, const char *run_id, struct workdir *wd,
    char *err, size_t errsz);
/*
 * Removes the workdir (emptied through wd->fd, its name only while it
 * names that directory) and its lock; closes every fd of wd.
 */
int workdir_remove(struct workdir *wd, char *err, size_t errsz);
/*
 * Calls fn on every entry below the directory fd, never following a
 * symlink nor leaving fd's file system; a directory its owner made
 * unreadable gets owner r-x.  Stops at fn's nonzero return (returned);
 * -1 past WALK_MAX_DEPTH levels or when a directory cannot be opened.
 */
#define WALK_MAX_DEPTH 128
typedef int (*walk_fn)(int dirfd, const char *name, const struct stat *st,
    void *arg);
int workdir_walk(int fd, walk_fn fn, void *arg);
/* Bytes the workdir holds (st_blocks); false if it cannot be measured. */
bool workdir_usage(int fd, uint64_t *bytes);
/* spawn.c: shared by the backends on the way to execve. */
struct spawn {
	pid_t pid;          /* the helper's child: payload, or linux-ns init */
	int pidfd;          /* -1 where pidfd_open is missing */
	int status_fd;      /* linux-ns: the init reports the payload's status */
	int exec_errno;     /* 0 if execve succeeded */
	bool nproc_init;    /* linux-ns: the init watches the process cap */
	int out[2];         /* read ends of the payload's stdout/stderr, or -1 */
	int wd_fd;          /* the workdir, measured for the disk cap */
	int gate_fd;        /* the payload held before execve, or -1 (GO) */
	bool chown_nobody;  /* linux-ns as root: the payload runs as nobody */
	int egress_fd;      /* linux-ns with CORDON_REQ_EGRESS: the listener
	                       made in the run's net namespace, for the broker */
};

/*
 * What the linux-ns init reports in place of the payload's wait status
 * (never -1: that would be a stop, which it does not wait for) when it
 * found the namespace full: the process cap was hit (ns.c).
 */
#define SPAWN_NPROC_FULL (-1)

/* What a child was doing when it failed before execve. */
enum spawn_stage {
	SPAWN_EXEC, SPAWN_SETSID, SPAWN_NNP, SPAWN_PDEATHSIG, SPAWN_CHDIR,
	SPAWN_RLIMIT, SPAWN_IDS, SPAWN_MOUNT_PRIVATE, SPAWN_SYSTEM_DIRS,
	SPAWN_WORKDIR, SPAWN_ROOT, SPAWN_PROC, SPAWN_TMP, SPAWN_DEV,
	SPAWN_DEVPTS, SPAWN_PIVOT, SPAWN_HOSTNAME, SPAWN_LOOPBACK, SPAWN_FORK,
	SPAWN_CAPS, SPAWN_SECCOMP, SPAWN_LANDLOCK, SPAWN_BIND, SPAWN_READY,
	SPAWN_EGRESS,
	SPAWN_MAX_
};

/* HOME and TMPDIR of the payload: its workdir as it will see it. */
void spawn_set_home(struct request *req, const char *dir);
/* Refuses caps that cannot be applied (an open-files cap over our hard limit). */
int spawn_check_limits(const struct request *req, char *err, size_t errsz);
/* RLIMIT_CPU backstop, RLIMIT_NOFILE, no core dumps; in the child. */
int spawn_rlimits(const struct request *req);
/*
 * In a child on its way to execve: error pipe to fd 3 (close-on-exec), a
 * session of its own, default signal dispositions, empty mask, umask 022.
 */
void spawn_child_prepare(int errfd);
/* In a child: reports (stage, errno) on fd and _exits (126, or 127). */
NORETURN void spawn_fail(int fd, enum spawn_stage stage);
/*
 * In the helper: waits on the error pipe.  0 when execve ran or failed in
 * the command's way (sp->exec_errno); -1 with err for a sandbox failure.
 */
int spawn_wait_exec(int fd, struct spawn *sp, char *err, size_t errsz);
/*
 * The barrier, in a child after all of its set-up, right before execve:
 * says SPAWN_READY on fd (the error socket) and waits there for the
 * helper's go; _exits 126 without it (the helper gone, or the run
 * abandoned).  Not one instruction of the command runs before.
 */
void spawn_barrier(int fd);
/* In the helper: waits for the child's SPAWN_READY; -1 with err if not. */
int spawn_wait_ready(int fd, char *err, size_t errsz);
/*
 * In the helper, after the broker's GO: lets the held payload exec
 * (sp->gate_fd) and waits for the exec as spawn_wait_exec does.
 */
int spawn_release(struct spawn *sp, char *err, size_t errsz);

/* landlock.c: the landlock backend's domain, entered by floor.c's child. */
struct landlock {
	int abi;            /* what the kernel offers (tests may pretend less) */
	int ruleset;        /* -1: none, the floor */
	bool deny_inet;     /* TCP is denied: close the rest with seccomp */
};
/* The kernel's Landlock ABI, 0 if none; CORDON_TEST_LANDLOCK_ABI lowers it. */
int landlock_abi(void);
/* "landlock ABI N: ..." what that ABI gives a run, and what it lacks. */
void landlock_describe(int abi, bool network, char *buf, size_t bufsz);
/*
 * Builds the run's ruleset in ll (ll->abi set by the caller), the --ro-bind
 * sources readable: all that backend_applied() reports for that ABI, or
 * -1 with err if any rule fails.
 */
int landlock_ruleset(const struct request *req, const struct workdir *wd,
    struct landlock *ll, char *err, size_t errsz);
/* In the payload's child: caps (root), restrict_self, seccomp; or fails. */
void landlock_enter(const struct landlock *ll);

/* floor.c; ll NULL for the floor, else the landlock backend. */
int floor_spawn(const struct request *req, const struct workdir *wd,
    const struct landlock *ll, struct spawn *sp, char *err, size_t errsz);

/* ns.c */
int ns_spawn(const struct request *req, struct workdir *wd, struct spawn *sp,
    char *err, size_t errsz);

/* Builds the namespaces in a throw-away child; -1 with err if it fails. */
int ns_probe(char *err, size_t errsz, bool *nproc_per_ns);
/* After the copy-in, for a payload that runs as nobody (sp->chown_nobody). */
int ns_give_copied(const struct workdir *wd);

/*
 * probe.c: which backend a run asking for want gets, given whether linux-ns
 * could be built (nserr: why not); -1, with the cause in reason, if none.
 */
int backend_decide(enum cordon_backend_id want, bool ns_ok, const char *nserr,
    int landlock_abi, enum cordon_backend_id *pick, char *reason,
    size_t reasonsz);
/* The caps and controls backend b (Landlock: of that ABI) applies to req. */
uint32_t backend_applied(enum cordon_backend_id b, const struct request *req,
    int landlock_abi);
/* Answers PROBE with FACTs, then BACKEND (what it applies) or ERROR. */
void probe_report(int sock, enum cordon_backend_id want);

/* priv.c: setuid mode (see helper.c for the steps and why they are safe). */
bool priv_setuid(void);         /* started setuid root by a non-root user */
void priv_start(void);          /* first in main; dies on what it refuses */
void priv_raise(void);          /* euid 0 for the clone (setuid mode only) */
void priv_drop(void);           /* for good, verified; idempotent */
int priv_verify(uid_t uid, gid_t gid); /* ids all these; 0 unreachable */
int priv_setgroups(void);       /* the invoker's supplementary groups */
int priv_init_caps(bool setup); /* effective: only what the init needs */
/* Every capability gone from every set, read back; needs CAP_SETPCAP. */
int drop_all_caps(void);
/* Permitted, effective and inheritable emptied and read back: true if so. */
bool priv_clear_caps(void);
/* The audit line (bounded, printable); syslog()ed in setuid mode only. */
bool audit_format(char *buf, size_t size, const char *event,
    const char *run_id, unsigned uid, const char *user, const char *cmd,
    const char *backend, const char *outcome, const char *cap);
void priv_audit(const char *event, const struct request *req,
    const char *backend, const char *outcome, const char *cap);

/*
 * seccomp.c: the baseline filter, loaded by the payload before execve;
 * no_inet (landlock, TCP denied): no other inet socket either.
 */
int seccomp_baseline(bool no_inet);

/* tree.c: every process below the helper (it is a child subreaper). */
struct tree_sample {
	uint64_t cpu_ns;    /* live processes plus everything reaped */
	uint64_t mem_bytes; /* resident anon + shmem summed, + the run's tmpfs
	                       (upper bound: what it maps counts twice) */
	uint32_t nproc;     /* tasks: processes and their threads */
};
int tree_init(void);
/*
 * has_init: the first process is the linux-ns init, not the payload's,
 * and the run has a private tmpfs, found and kept open on the way.
 */
int tree_sample(struct tree_sample *s, bool has_init);
/* The same, not stopping past the process cap (tree_set_group). */
int tree_sample_whole(struct tree_sample *s, bool has_init);
/*
 * How many tasks of the tree coexisted, for a sample over the process cap
 * (where the payload leads its group, counted with the group stopped, and
 * left stopped when over the cap: the kill follows).
 */
uint32_t tree_recheck(bool has_init);
/* Proportional (PSS) anonymous + shmem memory of the tree, + the tmpfs. */
uint64_t tree_pss(void);
/* SIGKILLs every descendant and reaps until none is left. */
int tree_kill(void);
/*
 * Reaps what has exited; reports the payload's status once it exited (the
 * leader of the group set below is left a zombie until tree_kill).
 */
void tree_reap(pid_t payload, bool *payload_done, int *payload_status);
/*
 * The payload leads process group pgid (no pid namespace; 0: none): the
 * kill starts with it, and a sample over nproc_cap (0: the samples do not
 * hold the process cap) is recounted with it stopped.  A sample stops
 * counting just past nproc_cap.
 */
void tree_set_group(pid_t pgid, uint32_t nproc_cap);
/* linux-ns: the same for the init's first child, the payload's group. */
void tree_set_init_group(pid_t init, uint32_t nproc_cap);
uint64_t tree_reaped_cpu_ns(void);

/* cgroup.c: a cgroup v2 per run, where the host delegates one to us. */
struct monitor_result;
/* Opens the parent of the runs' cgroups; -1 with the reason in why. */
int cgroup_parent(char *why, size_t whysz);
/* Creates and configures the run's cgroup; false (and why) if none. */
bool cgroup_setup(const struct request *req, char *why, size_t whysz);
/* Sets pids.max (0: none); false when the run has no cgroup (any more). */
bool cgroup_pids(uint64_t max);
int cgroup_events_fd(void);
/* fork() (flags 0) or a raw clone(flags), into the run's cgroup if any. */
pid_t cgroup_clone(unsigned long long flags);
/* Types the kernel's evidence of a memory or process cap into res. */
bool cgroup_cap(const struct request *req, struct monitor_result *res);
void cgroup_figures(struct monitor_result *res);
void cgroup_kill(void);
/* A v1 pids cgroup for a root floor/Landlock run (no v2): pids.max. */
bool cgroup_v1_pids(const struct request *req, uint64_t max);
/* Moves the held payload into it; false (and none) if it cannot. */
bool cgroup_v1_attach(pid_t pid);
/* Kills what is left, removes the run's cgroup; idempotent. */
void cgroup_remove(void);

/* monitor.c (the loop) and caps.c (the caps), seatbelt_macos.c */
struct monitor_result {
	enum cordon_outcome_id outcome;
	enum cordon_cap_id cap;
	int exit_code;
	int signal;
	uint64_t cap_observed;
	uint64_t cap_limit;
	uint64_t cpu_ns, wall_ns, max_mem;
	bool broker_gone;
	char error[CORDON_MAX_TEXT_LEN];
};
/* caps.c: res becomes a hit of cap, seen at observed. */
void cap_set(struct monitor_result *res, enum cordon_cap_id cap,
    uint64_t observed, uint64_t limit);
/* The first cap s passed (CPU, memory, processes) into res: true if one. */
bool cap_check(const struct request *req, const struct tree_sample *s,
    struct monitor_result *res);
/* The final figures of a run that ended, held against the caps again. */
void cap_final(const struct request *req, struct monitor_result *res);
/* The end of a run for the broker: CAP_HIT (a cap), then EXIT, by send. */
void cap_report(const struct monitor_result *res,
    void (*send_msg)(const struct cordon_msg *m));
/* SIGTERM, SIGINT, SIGHUP or SIGQUIT: the run ends as interrupted. */
bool signal_ends_run(int sig);
void monitor_run(int sock, int sigfd, const struct request *req,
    const struct spawn *sp, uint64_t start_ns, struct monitor_result *res);

#endif
