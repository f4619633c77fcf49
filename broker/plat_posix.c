/*
 * plat_posix.c - the broker's platform layer where Linux and macOS agree
 * (plat.h): the helper started by posix_spawn with its end of a
 * socketpair on fd 3, reaped by waitpid, signalled; poll on the channel
 * and the cancel fd; the invoker from the passwd database; directories
 * made 0700; the installed helper's path and setuid check; files opened
 * never through a link.  What differs - the socket type and how a
 * message crosses it, the default paths, random bytes, process start
 * times - is in plat_linux.c and plat_macos.c (plat_posix.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "plat_posix.h"
#include "policy.h"
#include "wire.h"

/*
 * Starts the helper with its end of a fresh socketpair on fd 3 and an
 * empty environment; it needs nothing of ours but the request (and a
 * test knob, below).  Only the
 * sanitizer build (for tests; configure refuses it for a setuid helper)
 * passes the sanitizer options on, so that the helper's reports land
 * where the test suite collects them (tests/sanitized.sh).
 *
 * posix_spawn, not fork: glibc's child shares our memory until it execs
 * (CLONE_VM | CLONE_VFORK), so the broker's page tables - sqlite's
 * mapping of the trace among them - are not copied for a child that only
 * moves one fd and execs; that copy was the largest part of the broker's
 * own cost per run.  dup2 of an fd onto itself clears its close-on-exec
 * flag (POSIX 2017, glibc >= 2.29), which covers sv[1] already being 3.
 * An exec failure comes back from posix_spawn itself, in errno here.
 */
int
cordon_start_helper_io(const char *path, pid_t *pid, int *sock, int infd,
    int outfd, int errfd)
{
	char *henv[8] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	char confdir[CORDON_MAX_PATH_LEN + 32];
	char *const hargv[] = { "cordon-helper", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	size_t i, k = 0;
	int sv[2], e, fd;
#ifdef CORDON_SANITIZERS
	for (i = 0; environ != NULL && environ[i] != NULL && k < 3; i++)
		if (strncmp(environ[i], "ASAN_OPTIONS=", 13) == 0 ||
		    strncmp(environ[i], "UBSAN_OPTIONS=", 14) == 0 ||
		    strncmp(environ[i], "LSAN_OPTIONS=", 13) == 0)
			henv[k++] = environ[i];
#endif
	/*
	 * The tests' knobs, each of which only a helper that is not setuid
	 * honours: "pretend an older Landlock" (it can only weaken the
	 * caller's own run, whose result then says what was not applied)
	 * and the cgroup the runs go under (a setuid helper keeps the
	 * system's choice).
	 */
	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		if (strncmp(environ[i], "CORDON_TEST_LANDLOCK_ABI=", 25) == 0 ||
		    strncmp(environ[i], "CORDON_CGROUP_PARENT=", 21) == 0)
			if (k < sizeof(henv) / sizeof(henv[0]) - 2)
				henv[k++] = environ[i];

	/* The test suite's configuration directory (policy.h), if honoured. */
	if (strcmp(cordon_confdir(), CORDON_SYSCONFDIR) != 0 &&
	    (size_t)snprintf(confdir, sizeof(confdir), "CORDON_CONFDIR=%s",
	    cordon_confdir()) < sizeof(confdir))
		henv[k++] = confdir;

	if (cordon_plat_chan_pair(sv) < 0)
		return -CORDON_E_HELPER;
	/*
	 * The payload's stdin and output files become the helper's fds 0-2
	 * (helper/helper.c passes them on, or pumps into them under an output cap):
	 * no fd travels over the socket.  Our end is moved above fd 3 first,
	 * so that neither of those dup2s can land on it.
	 */
	if (sv[1] <= CORDON_HELPER_FD) {
		fd = fcntl(sv[1], F_DUPFD_CLOEXEC, CORDON_HELPER_FD + 1);
		close(sv[1]);
		if ((sv[1] = fd) < 0) {
			close(sv[0]);
			return -CORDON_E_HELPER;
		}
	}
	if ((e = posix_spawn_file_actions_init(&fa)) == 0 &&
	    (e = posix_spawnattr_init(&attr)) != 0)
		posix_spawn_file_actions_destroy(&fa);
	if (e == 0) {
		if ((infd < 0 ||
		    (e = posix_spawn_file_actions_adddup2(&fa, infd, 0)) == 0) &&
		    (outfd < 0 ||
		    (e = posix_spawn_file_actions_adddup2(&fa, outfd, 1)) == 0) &&
		    (errfd < 0 ||
		    (e = posix_spawn_file_actions_adddup2(&fa, errfd, 2)) == 0) &&
		    (e = posix_spawn_file_actions_adddup2(&fa, sv[1],
		    CORDON_HELPER_FD)) == 0 &&
		    (e = cordon_plat_spawn_closefrom(&fa, &attr,
		    CORDON_HELPER_FD + 1)) == 0)
			e = posix_spawn(pid, path, &fa, &attr, hargv, henv);
		posix_spawnattr_destroy(&attr);
		posix_spawn_file_actions_destroy(&fa);
	}
	close(sv[1]);
	if (e != 0) {
		close(sv[0]);
		errno = e;
		return -CORDON_E_HELPER;
	}
	*sock = sv[0];
	return 0;
}

int
cordon_wait_helper(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

void
cordon_chan_shut(int sock)
{
	if (sock >= 0)
		(void)shutdown(sock, SHUT_WR);
}

void
cordon_chan_close(int sock)
{
	if (sock >= 0)
		(void)close(sock);
}

int
cordon_chan_wait(int sock, int cancel_fd, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = sock, .events = POLLIN },
		{ .fd = cancel_fd, .events = POLLIN },
	};
	int n = poll(pfd, 2, timeout_ms);

	if (n <= 0)
		return n;
	return (pfd[0].revents != 0 ? (int)CORDON_CHAN_READY : 0) |
	    (pfd[1].revents != 0 ? (int)CORDON_CHAN_CANCEL : 0);
}

int
cordon_helper_act(int sock, pid_t pid, enum cordon_helper_act act)
{
	static const int sig[] = {
		[CORDON_HELPER_CANCEL] = SIGTERM,
		[CORDON_HELPER_CONTINUE] = SIGCONT,
		[CORDON_HELPER_KILL] = SIGKILL,
	};

	(void)sock;
	return pid > 0 ? kill(pid, sig[act]) : -1;
}

int
cordon_invoker(uint32_t *uid, char **user)
{
	char pwbuf[PW_BUF_LEN];
	struct passwd pw;

	*uid = (uint32_t)getuid();
	*user = NULL;
	if (cordon_plat_passwd(getuid(), &pw, pwbuf, sizeof(pwbuf)) == 0 &&
	    (*user = strdup(pw.pw_name)) == NULL)
		return -CORDON_E_NOMEM;
	return 0;
}

bool
cordon_helper_is_setuid(void)
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
	return cordon_helper_is_setuid() ? CORDON_SYSCONFDIR :
	    cordon_policy_confdir();
}

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

bool
cordon_path_absolute(const char *path)
{
	return path[0] == '/';
}

/* The default paths give no reason of their own here. */
const char *
cordon_plat_path_error(void)
{
	return "";
}

bool
cordon_helper_exited(int status, int *code, int *sig)
{
	*code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	*sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return WIFEXITED(status);
}

#define NOBODY_UID 65534

/*
 * Ours: made by the helper as us.  Root's linux-ns workdir was given to
 * nobody before the sandbox was built (its init opens it as nobody), and
 * that is the only other owner accepted, only for root: it lies in a base
 * that is root's alone (helper/workdir.c), at the name of this run, whose
 * lock the helper holds.
 */
int
cordon_workdir_open(const char *path)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) == 0 && (st.st_uid == getuid() ||
	    (getuid() == 0 && st.st_uid == NOBODY_UID)))
		return fd;
	close(fd);
	return -1;
}

bool
cordon_path_absent(const char *path)
{
	struct stat st;

	return lstat(path, &st) < 0 && errno == ENOENT;
}

int
cordon_create_private(const char *path)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
	    0600);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == EEXIST ? 0 : -CORDON_E_IO;
}
