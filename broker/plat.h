/*
 * plat.h - what the broker does differently on each OS, one file per OS
 * (configure picks it: PLAT_SOURCES in Makefile.am):
 *
 *   plat_linux.c   the helper started by posix_spawn on a SOCK_SEQPACKET
 *                  socketpair (its end on fd 3), one message a datagram
 *                  (common/wire.c); XDG paths
 *   plat_win.c     the helper started by CreateProcess with an anonymous
 *                  pipe pair, the two handles named on its command line
 *                  and the only ones it inherits; length-prefixed frames
 *                  (common/frame.c); %LOCALAPPDATA%\cordon, private to
 *                  the invoker by an explicit ACL; removal that clears
 *                  read-only attributes and retries a file still open
 *
 * Shared broker code calls these and nothing OS-specific for the same
 * jobs.  A channel and a helper are ints on every OS: an fd and a pid on
 * Linux, a slot of plat_win.c's table and a process id on Windows.
 */
#ifndef CORDON_BROKER_PLAT_H
#define CORDON_BROKER_PLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>

struct cordon_msg;

/*
 * Starts the helper at path with its end of a new channel and an empty
 * environment (but for the test knobs plat_linux.c lists); *sock is
 * ours.  With infd / outfd / errfd (unless -1) as its stdin, stdout and
 * stderr.
 */
int cordon_start_helper_io(const char *path, pid_t *pid, int *sock, int infd,
    int outfd, int errfd);
/* The same with our own stdio: channel.c, for every OS. */
int cordon_start_helper(const char *path, pid_t *pid, int *sock);
/* Reaps it; its status in wait(2)'s encoding, or -1. */
int cordon_wait_helper(pid_t pid);

/* One message to the helper, and one of either direction from it. */
int cordon_chan_send(int sock, const struct cordon_msg *m);
int cordon_chan_recv(int sock, struct cordon_msg *m);
/*
 * One message from the helper with the fd that came with it (-1 if
 * none).  Only EGRESS carries one, on Linux (SCM_RIGHTS: the listening
 * socket the egress proxy serves, proxy.c).  A pipe carries no fd:
 * plat_win.c refuses an EGRESS (-CORDON_E_PROTO), which the Windows
 * broker never asks for.
 */
int cordon_chan_recv_fd(int sock, struct cordon_msg *m, int *fd);
/*
 * Stops sending: the helper sees EOF (and undoes what it built) while
 * its last messages can still be read.
 */
void cordon_chan_shut(int sock);
/* Closes our end: the helper sees EOF. */
void cordon_chan_close(int sock);

/* What cordon_chan_wait found: bits. */
#define CORDON_CHAN_READY 1U   /* a message, or the helper's EOF, to read */
#define CORDON_CHAN_CANCEL 2U  /* cancel_fd (the caller's cancel) readable */
/*
 * Waits up to timeout_ms (0: only looks) for the helper's next message
 * or a byte on cancel_fd (-1: none; sock -1: the cancel alone).  The
 * bits found, 0 when the time ran out, -1 with errno set on failure
 * (EINTR: a signal came first).  Linux: poll(2).  Windows: anonymous
 * pipes are not waitable objects and have no overlapped I/O, so
 * PeekNamedPipe looks at both every 10 ms (a pipe whose writer is gone
 * counts as ready: the read then sees EOF).
 */
int cordon_chan_wait(int sock, int cancel_fd, int timeout_ms);

/* What the broker may do to its helper, beyond closing the channel. */
enum cordon_helper_act {
	CORDON_HELPER_CANCEL,    /* stop the run, tearing it down */
	CORDON_HELPER_CONTINUE,  /* let a stopped helper run again */
	CORDON_HELPER_KILL       /* stuck: end it (recover() cleans up) */
};
/*
 * Linux: SIGTERM, SIGCONT, SIGKILL to pid.  Windows: the cancel closes
 * our writing end of sock (the helper's EOF, which is its stop on every
 * OS: it kills the payload's tree and removes the workdir); no Windows
 * job control stops a process, so there is nothing to continue; the kill
 * is TerminateProcess, read back by cordon_wait_helper as a killed
 * helper.  0 when done; -1 when refused (Linux: a setuid helper is not
 * ours to signal while its real uid is root, EPERM).
 */
int cordon_helper_act(int sock, pid_t pid, enum cordon_helper_act act);

/*
 * The invoker, for the run's record: Linux the real uid and its passwd
 * name; Windows the last sub-authority (RID) of the process token's user
 * SID - the number Cygwin and MSYS2 give as the uid - and the account
 * name.  *user is NULL where no name is found (the record has none);
 * -CORDON_E_NOMEM only when one was found and could not be copied.
 */
int cordon_invoker(uint32_t *uid, char **user);

/*
 * Default paths, allocated.  Linux: $XDG_STATE_HOME (or
 * ~/.local/state)/cordon/trace.db; the workdir base
 * $XDG_RUNTIME_DIR/cordon if ours and private, else .../cordon/runs in
 * the state dir; profiles under $XDG_CONFIG_HOME (or ~/.config).
 * Windows: %LOCALAPPDATA%\cordon\trace.db, ...\cordon\runs, and
 * %APPDATA%\cordon for profiles.
 */
int cordon_default_trace_path(char **out);
int cordon_default_workdir_base(char **out);
/*
 * Why this thread's last cordon_default_trace_path or
 * cordon_default_workdir_base failed, for the message, or "" when it
 * gave no reason.  Windows: an existing %LOCALAPPDATA%\cordon (or runs)
 * that is not the invoker's own is refused, saying whose it is.
 */
const char *cordon_plat_path_error(void);
/*
 * The backends this OS's helper has, 1 << each id (auto: always);
 * config.c's cordon_backend_here reads it.  Linux: linux-ns, landlock, floor; Windows: job,
 * appcontainer; macOS: seatbelt, floor.  Another OS's backend is
 * refused as the flag or profile is read, before anything is recorded.
 */
uint32_t cordon_plat_backends(void);
/* Whether path is absolute: Linux "/...", Windows "X:\..." or UNC. */
bool cordon_path_absolute(const char *path);

/* The user's profile NAME (a name config.c checked). */
int cordon_user_profile_path(char **out, const char *name);

/*
 * mkdir -p of path's parent directories, private to the invoker: the
 * trace holds the user's argv and cwd, which other users of a build
 * server must not read, and a workdir base is made only in a private
 * directory of the user's.  Directories that already exist are left as
 * they are.  Linux: mode 0700.  Windows: '\\' or '/' separated, after a
 * drive or UNC prefix, each made with the protected DACL of
 * %LOCALAPPDATA%\cordon (common/winutil.c).
 */
int cordon_mkdir_parents(const char *path);
/*
 * The helper to exec, allocated: $CORDON_HELPER for the test suite if it
 * is an absolute path (Linux: not when the installed helper is setuid,
 * and never a setgid file or a setuid one not root's), else the
 * installed one - Linux the configured path, Windows cordon-helper.exe
 * in the directory of the module (cordon.exe or libcordon's DLL) this
 * code is in.
 */
int cordon_helper_path(char **out);
/*
 * The installed helper is setuid or setgid: the administrator's choice,
 * which makes the broker ignore the test suite's $CORDON_CONFDIR as the
 * helper does.  Never on Windows (no setuid).
 */
bool cordon_helper_is_setuid(void);
/* n random bytes: Linux getrandom(2), Windows BCryptGenRandom. */
int cordon_plat_random(void *buf, size_t n);
/*
 * pid's start time, naming it uniquely with its pid (a reused pid has
 * another), or 0 if it does not exist.  Linux: clock ticks since boot
 * (/proc/PID/stat); Windows: its creation FILETIME (GetProcessTimes).
 */
uint64_t cordon_proc_start_time(uint32_t pid);

/*
 * What `cordon probe` finds here without privilege, each fact given to
 * fn (which may ignore the rest).  Linux: probe_linux.c (the kernel,
 * namespaces, seccomp, Landlock, cgroups); Windows: the Windows version.
 */
void cordon_local_facts(void (*fn)(void *arg, const char *key,
    const char *value), void *arg);

/*
 * Keeps the payload, which may run with our uid, from reaching into this
 * process for the run.  Linux: not dumpable (no ptrace, no
 * /proc/PID/fd, which would reach the trace).  macOS: nothing to do - a
 * process cannot take another's task port without the debugger
 * entitlement.  Windows: nothing can (cli_win.c says why).
 */
void cordon_plat_guard_self(void);

/*
 * Why this OS's build has no egress allow-list (--allow-host), or NULL
 * where it has one: the CLI refuses the flag with this reason (125),
 * never taking it and running without the list.
 */
const char *cordon_plat_no_egress(void);
/*
 * The same for --ro-bind on BACKEND (the run's, before auto is
 * resolved): NULL where it can take one.  Linux: always (gate.c refuses
 * the backends that cannot); Windows: appcontainer only; macOS: never.
 */
const char *cordon_plat_no_binds(int backend);
/* What a --ro-bind destination must be here, for the message. */
const char *cordon_plat_bind_rule(void);
/* The OS, for messages: "Linux", "Windows", "macOS". */
const char *cordon_plat_name(void);

/*
 * Windows only (plat_win.c): removes path and all below it, read-only
 * attributes cleared, a file still held retried for about 5 s.  On Linux
 * the broker removes through common/rmtree.c from fds it holds (gc.c),
 * which Windows paths have no equivalent of.
 */
int cordon_plat_remove_tree(const char *path);

/*
 * How the helper ended, from cordon_wait_helper's status: true if it
 * exited, with its code in *code; false if it was killed, with the
 * signal in *sig (Windows: 9 for a process ended by TerminateProcess or
 * with a code over 255, which plat_win.c reports as killed).
 */
bool cordon_helper_exited(int status, int *code, int *sig);

/*
 * The run's workdir at path, opened without following a link (an fd the
 * caller closes), if it is a directory of ours; -1 if not.  Linux: ours
 * is owned by our uid (or, for root, by nobody: root's linux-ns workdir,
 * given away before the sandbox was built).  Windows: owned by our SID,
 * not a reparse point.
 */
int cordon_workdir_open(const char *path);
/* Whether nothing at all is at path (a link is something). */
bool cordon_path_absent(const char *path);

/*
 * Creates the file at path readable and writable by the invoker alone,
 * if nothing is there (what is there is not touched): the trace, whose
 * -wal and -shm files SQLite makes with the database's permissions.
 * Linux: mode 0600 whatever the umask.  Windows: the protected DACL of
 * %LOCALAPPDATA%\cordon.  0 or -CORDON_E_IO.
 */
int cordon_create_private(const char *path);

/*
 * Whether a and b (stat results of one path at two times) are the same
 * file, unchanged: session.c re-reads the system policy otherwise.
 * Linux: device, inode, size, mtime and ctime to the nanosecond.
 * Windows: mingw's stat has no inode and whole seconds only, so size,
 * mtime and ctime in seconds - an edit within the same second that
 * keeps the size is not seen until the next second's.
 */
bool cordon_same_file(const struct stat *a, const struct stat *b);

#endif
