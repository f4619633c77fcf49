/*
 * plat_linux.c - the broker's platform layer on Linux (plat.h), beside
 * what it shares with macOS (plat_posix.c): the helper's channel a
 * SOCK_SEQPACKET socketpair, one message a datagram (common/wire.c,
 * EGRESS's fd by SCM_RIGHTS), the XDG base directories, getrandom(2),
 * /proc start times.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "plat_posix.h"
#include "wire.h"

int
cordon_plat_chan_pair(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv);
}

/* glibc closes the rest in the child itself. */
int
cordon_plat_spawn_closefrom(posix_spawn_file_actions_t *fa,
    posix_spawnattr_t *attr, int from)
{
	(void)attr;
	return posix_spawn_file_actions_addclosefrom_np(fa, from);
}

int
cordon_chan_send(int sock, const struct cordon_msg *m)
{
	return cordon_msg_send(sock, m);
}

int
cordon_chan_recv(int sock, struct cordon_msg *m)
{
	return cordon_msg_recv(sock, m);
}

int
cordon_chan_recv_fd(int sock, struct cordon_msg *m, int *fd)
{
	return cordon_msg_recv_fd(sock, m, fd);
}

/* The XDG directory var, else ~/fallback, + "/" + rest. */
static int
xdg_path(char **out, const char *var, const char *fallback,
    const char *rest)
{
	const char *dir, *home;
	char pwbuf[PW_BUF_LEN];
	struct passwd pw;

	if ((dir = cordon_plat_env_dir(var)) != NULL)
		return cordon_plat_join(out, dir, rest);
	if ((home = cordon_plat_home(&pw, pwbuf, sizeof(pwbuf))) == NULL)
		return -CORDON_E_INVAL;
	if (asprintf(out, "%s/%s/%s", home, fallback, rest) < 0) {
		*out = NULL;
		return -CORDON_E_NOMEM;
	}
	return 0;
}

/* $XDG_STATE_HOME, else ~/.local/state, + "/" + rest. */
static int
state_path(char **out, const char *rest)
{
	return xdg_path(out, "XDG_STATE_HOME", ".local/state", rest);
}

int
cordon_default_trace_path(char **out)
{
	return state_path(out, "cordon/trace.db");
}

/* $XDG_CONFIG_HOME, else ~/.config, + "/cordon/profiles/NAME.conf". */
int
cordon_user_profile_path(char **out, const char *name)
{
	char *rest = NULL;
	int r;

	if (asprintf(&rest, "cordon/profiles/%s.conf", name) < 0)
		return -CORDON_E_NOMEM;
	r = xdg_path(out, "XDG_CONFIG_HOME", ".config", rest);
	free(rest);
	return r;
}

/*
 * The default workdir base must be a name no other user can make first:
 * the helper refuses a base that is not the invoker's alone, so one made
 * by someone else would deny cordon - every run and gc - to its owner.
 * So: $XDG_RUNTIME_DIR/cordon where the runtime dir is ours and private
 * (systemd's /run/user/UID: made by root at login, a tmpfs); else (cron,
 * CI, su: no login session) $XDG_STATE_HOME/cordon/runs, or
 * ~/.local/state/cordon/runs, beside the trace in the user's own home.
 * Never a fixed name in /tmp, which any user can make first.  Nor a base
 * a setuid helper makes as root (/run/cordon/UID): a second privileged
 * step, in one mode only, putting build trees on the small tmpfs that
 * system services need.
 */
int
cordon_default_workdir_base(char **out)
{
	const char *dir;
	struct stat st;

	if ((dir = cordon_plat_env_dir("XDG_RUNTIME_DIR")) != NULL &&
	    stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == getuid() && (st.st_mode & 022) == 0)
		return cordon_plat_join(out, dir, "cordon");
	return state_path(out, "cordon/runs");
}

int
cordon_plat_random(void *buf, size_t n)
{
	size_t got = 0;
	ssize_t k;

	while (got < n) {
		k = getrandom((unsigned char *)buf + got, n - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -CORDON_E_IO;
		got += (size_t)k;
	}
	return 0;
}

uint64_t
cordon_proc_start_time(uint32_t pid)
{
	char path[64], buf[1024], *p, *end = NULL;
	unsigned long long v = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%u/stat", (unsigned)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* comm may contain spaces and ')': count fields after the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL)
		return 0;
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	/* strtoull, not sscanf: an overflow must not pass as a start time. */
	if (p == NULL || p[1] < '0' || p[1] > '9')
		return 0;
	errno = 0;
	v = strtoull(p + 1, &end, 10);
	if (errno != 0 || (*end != ' ' && *end != '\n' && *end != '\0'))
		return 0;
	return v;
}

bool
cordon_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* The proxy and the payload's confinement to it exist here (proxy.c). */
const char *
cordon_plat_no_egress(void)
{
	return NULL;
}

/* linux-ns binds a path in; gate.c refuses the other backends. */
const char *
cordon_plat_no_binds(int backend)
{
	return NULL;
}

void
cordon_plat_guard_self(void)
{
	(void)prctl(PR_SET_DUMPABLE, 0);
}

const char *
cordon_plat_name(void)
{
	return "Linux";
}

/* The backends this OS's helper has (plat.h). */
uint32_t
cordon_plat_backends(void)
{
	return 1U << CORDON_BACKEND_AUTO | 1U << CORDON_BACKEND_LINUX_NS |
	    1U << CORDON_BACKEND_LANDLOCK | 1U << CORDON_BACKEND_FLOOR;
}

const char *
cordon_plat_bind_rule(void)
{
	return "must be an absolute path without . or .. components, and not "
	    "/, nor in /usr, /bin, /sbin, /lib*, /etc, /opt, /work, /proc, "
	    "/dev or /tmp";
}
