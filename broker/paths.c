/*
 * paths.c - where things live: trace, workdirs, the helper; run ids; time.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "policy.h"

/* An environment directory is used only if it is an absolute path. */
static const char *
env_dir(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] == '/' ? v : NULL;
}

/* dir + "/" + rest, allocated. */
static int
join(char **out, const char *dir, const char *rest)
{
	if (asprintf(out, "%s/%s", dir, rest) < 0) {
		*out = NULL;
		return -CORDON_E_NOMEM;
	}
	return 0;
}

/* $XDG_STATE_HOME, else ~/.local/state ($HOME, else passwd), + "/" + rest. */
static int
state_path(char **out, const char *rest)
{
	const char *dir, *home;
	char pwbuf[CORDON_PW_BUF_LEN];
	struct passwd pw;

	if ((dir = env_dir("XDG_STATE_HOME")) != NULL)
		return join(out, dir, rest);
	if ((home = env_dir("HOME")) == NULL) {
		if (cordon_getpw(getuid(), &pw, pwbuf, sizeof(pwbuf)) < 0 ||
		    pw.pw_dir[0] != '/')
			return -CORDON_E_INVAL;
		home = pw.pw_dir;
	}
	if (asprintf(out, "%s/.local/state/%s", home, rest) < 0) {
		*out = NULL;
		return -CORDON_E_NOMEM;
	}
	return 0;
}

int
cordon_default_trace_path(char **out)
{
	return state_path(out, "cordon/trace.db");
}

int
cordon_user_profile_path(char **out, const char *name)
{
	const char *dir, *home;
	char pwbuf[CORDON_PW_BUF_LEN], *rest = NULL;
	struct passwd pw;
	int r;

	if (asprintf(&rest, "cordon/profiles/%s.conf", name) < 0)
		return -CORDON_E_NOMEM;
	if ((dir = env_dir("XDG_CONFIG_HOME")) != NULL) {
		r = join(out, dir, rest);
	} else {
		if ((home = env_dir("HOME")) == NULL) {
			if (cordon_getpw(getuid(), &pw, pwbuf, sizeof(pwbuf)) < 0 ||
			    pw.pw_dir[0] != '/') {
				free(rest);
				return -CORDON_E_INVAL;
			}
			home = pw.pw_dir;
		}
		r = asprintf(out, "%s/.config/%s", home, rest) < 0 ?
		    -CORDON_E_NOMEM : 0;
	}
	free(rest);
	return r;
}

/* The installed helper is setuid or setgid: the administrator's choice. */
static bool
helper_is_setuid(void)
{
	struct stat st;

	return stat(CORDON_HELPER_PATH, &st) == 0 &&
	    (st.st_mode & (S_ISUID | S_ISGID)) != 0;
}

const char *
cordon_confdir(void)
{
	/*
	 * $CORDON_CONFDIR (policy.c) is for the test suite; with a setuid
	 * helper, which ignores it, the broker ignores it too, so that both
	 * read the same policy.
	 */
	return helper_is_setuid() ? CORDON_SYSCONFDIR : cordon_policy_confdir();
}

int
cordon_getpw(uid_t uid, struct passwd *pw, char *buf, size_t bufsz)
{
	struct passwd *found = NULL;
	int e;

	do {
		e = getpwuid_r(uid, pw, buf, bufsz, &found);
	} while (e == EINTR);
	return e == 0 && found != NULL ? 0 : -CORDON_E_INVAL;
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

	if ((dir = env_dir("XDG_RUNTIME_DIR")) != NULL &&
	    stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == getuid() && (st.st_mode & 022) == 0)
		return join(out, dir, "cordon");
	return state_path(out, "cordon/runs");
}

/*
 * mkdir -p of path's parent directories, mode 0700: the trace holds the
 * user's argv and cwd, which other users of a build server must not read,
 * and a workdir base is made only in a private directory of the user's.
 * Directories that already exist are left as they are.
 */
int
cordon_mkdir_parents(const char *path)
{
	char *p = NULL, *slash;
	int r = 0;

	if ((p = strdup(path)) == NULL)
		return -CORDON_E_NOMEM;
	for (slash = strchr(p + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		/* "//" and a trailing "/" name nothing new. */
		if (slash[-1] == '/')
			continue;
		*slash = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST) {
			r = -CORDON_E_IO;
			goto out;
		}
		*slash = '/';
	}
out:
	free(p);
	return r;
}

int
cordon_helper_path(char **out)
{
	const char *over = getenv("CORDON_HELPER");
	const char *path = CORDON_HELPER_PATH;
	struct stat st;

	/*
	 * The override exists for running the test suite from the build
	 * tree.  It is ignored when the installed helper is setuid (the
	 * administrator chose that helper) and refused if it names a setgid
	 * file, or a setuid one not owned by root; a root-owned setuid
	 * helper (the test suite's copy) is one the caller could start by
	 * hand anyway.
	 */
	if (over != NULL && over[0] != '\0') {
		if (stat(path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
			over = NULL;
		else if (over[0] != '/' ||
		    (stat(over, &st) == 0 && ((st.st_mode & S_ISGID) ||
		    ((st.st_mode & S_ISUID) && st.st_uid != 0))))
			return -CORDON_E_HELPER;
	}
	if (over != NULL && over[0] != '\0')
		path = over;
	if ((*out = strdup(path)) == NULL)
		return -CORDON_E_NOMEM;
	return 0;
}

int
cordon_new_run_id(char id[CORDON_RUN_ID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[CORDON_RUN_ID_LEN / 2];
	size_t got = 0, i;
	ssize_t n;

	while (got < sizeof(raw)) {
		n = getrandom(raw + got, sizeof(raw) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -CORDON_E_IO;
		got += (size_t)n;
	}
	for (i = 0; i < sizeof(raw); i++) {
		id[2 * i] = hex[raw[i] >> 4];
		id[2 * i + 1] = hex[raw[i] & 15];
	}
	id[CORDON_RUN_ID_LEN] = '\0';
	return 0;
}

int64_t
cordon_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
