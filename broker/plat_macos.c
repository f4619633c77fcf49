/*
 * plat_macos.c - the broker's platform layer on macOS (plat.h), beside
 * what it shares with Linux (plat_posix.c).
 *
 *   The channel: macOS has no SOCK_SEQPACKET for AF_UNIX, so the helper's
 *   end is one side of a SOCK_STREAM socketpair and each message is a
 *   common/frame.c frame: a 4-byte length, checked against the largest
 *   message before anything is allocated, then the message; the reader
 *   never reads past it.  SO_NOSIGPIPE on both ends: a helper gone makes
 *   our write fail with EPIPE instead of killing the caller of libcordon
 *   with SIGPIPE.  No fd travels on it (EGRESS is refused: there is no
 *   egress proxy on macOS yet).
 *   Paths: ~/Library/Application Support/cordon (trace.db, runs/,
 *   profiles/), where macOS keeps an application's own data, private to
 *   the user; $HOME, else the passwd entry's home.
 *   Random bytes from arc4random_buf (the kernel's generator, never
 *   failing); a process's start time from libproc (proc_pidinfo's
 *   PROC_PIDTBSDINFO).
 *
 * Compiled and linked for aarch64-macos and x86_64-macos on Linux by
 * tools/macos-cross.sh (zig cc); nothing here has run on a Mac in CI.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libproc.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "frame.h"
#include "internal.h"
#include "plat_posix.h"
#include "wire.h"

#define APP_DIR "Library/Application Support/cordon"

int
cordon_plat_chan_pair(int sv[2])
{
	int on = 1, i;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	for (i = 0; i < 2; i++)
		if (fcntl(sv[i], F_SETFD, FD_CLOEXEC) < 0 ||
		    setsockopt(sv[i], SOL_SOCKET, SO_NOSIGPIPE, &on,
		    sizeof(on)) < 0) {
			close(sv[0]);
			close(sv[1]);
			return -1;
		}
	return 0;
}

/*
 * Every fd not named by a file action is closed in the child: macOS has
 * no closefrom action, and POSIX_SPAWN_CLOEXEC_DEFAULT covers all of
 * them, whatever their flags.
 */
int
cordon_plat_spawn_closefrom(posix_spawn_file_actions_t *fa,
    posix_spawnattr_t *attr, int from)
{
	(void)fa;
	(void)from;
	return posix_spawnattr_setflags(attr, POSIX_SPAWN_CLOEXEC_DEFAULT);
}

int
cordon_chan_send(int sock, const struct cordon_msg *m)
{
	return cordon_frame_send_fd(sock, m);
}

int
cordon_chan_recv(int sock, struct cordon_msg *m)
{
	return cordon_frame_recv_fd(sock, cordon_msg_decode_any, 0, m);
}

/* A stream carries no fd: an EGRESS is refused, as plat_win.c does. */
int
cordon_chan_recv_fd(int sock, struct cordon_msg *m, int *fd)
{
	int r;

	*fd = -1;
	if ((r = cordon_chan_recv(sock, m)) < 0)
		return r;
	if (m->type == CORDON_MSG_EGRESS) {
		cordon_msg_clear(m);
		return -CORDON_E_PROTO;
	}
	return r;
}

/* ~/Library/Application Support/cordon/ + rest, allocated. */
static int
app_path(char **out, const char *rest)
{
	char pwbuf[PW_BUF_LEN];
	struct passwd pw;
	const char *home;

	*out = NULL;
	if ((home = cordon_plat_home(&pw, pwbuf, sizeof(pwbuf))) == NULL)
		return -CORDON_E_INVAL;
	if (asprintf(out, "%s/" APP_DIR "/%s", home, rest) < 0) {
		*out = NULL;
		return -CORDON_E_NOMEM;
	}
	return 0;
}

int
cordon_default_trace_path(char **out)
{
	return app_path(out, "trace.db");
}

int
cordon_default_workdir_base(char **out)
{
	return app_path(out, "runs");
}

int
cordon_user_profile_path(char **out, const char *name)
{
	char *rest = NULL;
	int r;

	if (asprintf(&rest, "profiles/%s.conf", name) < 0)
		return -CORDON_E_NOMEM;
	r = app_path(out, rest);
	free(rest);
	return r;
}

int
cordon_plat_random(void *buf, size_t n)
{
	arc4random_buf(buf, n);
	return 0;
}

/* Microseconds since the epoch at which pid started; 0 if it is gone. */
uint64_t
cordon_proc_start_time(uint32_t pid)
{
	struct proc_bsdinfo info;

	if (proc_pidinfo((int)pid, PROC_PIDTBSDINFO, 0, &info,
	    (int)sizeof(info)) != (int)sizeof(info))
		return 0;
	return (uint64_t)info.pbi_start_tvsec * 1000000U +
	    (uint64_t)info.pbi_start_tvusec;
}

bool
cordon_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtimespec.tv_sec == b->st_mtimespec.tv_sec &&
	    a->st_mtimespec.tv_nsec == b->st_mtimespec.tv_nsec &&
	    a->st_ctimespec.tv_sec == b->st_ctimespec.tv_sec &&
	    a->st_ctimespec.tv_nsec == b->st_ctimespec.tv_nsec;
}

const char *
cordon_plat_no_egress(void)
{
	return "not available on macOS yet: the egress proxy relays with "
	    "Linux's splice(2) and is not ported";
}

const char *
cordon_plat_no_binds(int backend)
{
	return "not available on macOS: sandbox-exec has no mounts to bind a "
	    "path into";
}

const char *
cordon_plat_name(void)
{
	return "macOS";
}

/*
 * A process cannot take another's task port without the debugger
 * entitlement, so the payload, though it has our uid, cannot reach into
 * us: nothing to do.
 */
void
cordon_plat_guard_self(void)
{
}

/* The kernel, and whether the sandbox-exec the helper runs exists. */
void
cordon_local_facts(void (*fn)(void *arg, const char *key,
    const char *value), void *arg)
{
	struct utsname u;
	char v[256];

	if (uname(&u) == 0) {
		(void)snprintf(v, sizeof(v), "%s %s %s", u.sysname, u.release,
		    u.machine);
		fn(arg, "kernel", v);
	}
	fn(arg, "sandbox-exec", access("/usr/bin/sandbox-exec", X_OK) == 0 ?
	    "yes: /usr/bin/sandbox-exec" : "no: /usr/bin/sandbox-exec is missing");
	fn(arg, "egress", cordon_plat_no_egress());
}

/* The backends this OS's helper has (plat.h). */
uint32_t
cordon_plat_backends(void)
{
	return 1U << CORDON_BACKEND_AUTO | 1U << CORDON_BACKEND_SEATBELT |
	    1U << CORDON_BACKEND_FLOOR;
}

const char *
cordon_plat_bind_rule(void)
{
	return "cannot be taken: sandbox-exec has no mounts to bind a path "
	    "into";
}
