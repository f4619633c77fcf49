/*
 * cli_posix.c - the cordon command's platform part on Linux and macOS
 * (cli_plat.h): files through O_NOFOLLOW and the at-functions of a
 * directory fd, and the signals.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_plat.h"
#include "plat.h"

struct cordon_cli_result_file {
	int dirfd;               /* FILE's directory */
	char *name;              /* FILE's last component */
};

int
cordon_cli_open_output(const char *path, bool *created)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

char *
cordon_cli_dest_sep(char *arg)
{
	return strchr(arg, ':');
}

bool
cordon_cli_same_file(int fd, const char *path)
{
	struct stat a, b;

	return stat(path, &b) == 0 && fstat(fd, &a) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int
cordon_cli_json_fd(int fd, char *why, size_t whysz)
{
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) < 0)
		(void)snprintf(why, whysz, "is not open");
	else if ((fl & O_ACCMODE) != O_WRONLY && (fl & O_ACCMODE) != O_RDWR)
		(void)snprintf(why, whysz, "is not open for writing");
	else if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		(void)snprintf(why, whysz, "cannot be made close-on-exec: %s",
		    strerror(errno));
	else
		return 0;
	return -1;
}

int
cordon_cli_write_all(int fd, const char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT, .revents = 0 };
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) >= 0) {
			buf += n;
			len -= (size_t)n;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			(void)poll(&p, 1, -1);
		} else if (errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

void
cordon_cli_result_close(struct cordon_cli_result_file *f)
{
	if (f == NULL)
		return;
	if (f->dirfd >= 0)
		(void)close(f->dirfd);
	free(f->name);
	free(f);
}

int
cordon_cli_result_open(const char *path, struct cordon_cli_result_file **out,
    char *why, size_t whysz)
{
	struct cordon_cli_result_file *f;
	const char *slash = strrchr(path, '/');
	char *dir = NULL;
	struct stat st;
	int r;

	*out = NULL;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		goto nomem;
	f->dirfd = -1;
	if ((f->name = strdup(slash != NULL ? slash + 1 : path)) == NULL ||
	    (dir = slash == NULL ? strdup(".") : slash == path ? strdup("/") :
	    strndup(path, (size_t)(slash - path))) == NULL)
		goto nomem;
	if (f->name[0] == '\0' || strcmp(f->name, ".") == 0 ||
	    strcmp(f->name, "..") == 0)
		(void)snprintf(why, whysz, "'%s' names a directory, not a file",
		    path);
	else if ((f->dirfd = open(dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		(void)snprintf(why, whysz, "%s: %s", dir, strerror(errno));
	else if (faccessat(f->dirfd, ".", W_OK | X_OK, 0) < 0)
		(void)snprintf(why, whysz, "cannot create files in %s: %s", dir,
		    strerror(errno));
	else if ((r = fstatat(f->dirfd, f->name, &st,
	    AT_SYMLINK_NOFOLLOW)) < 0 && errno != ENOENT)
		(void)snprintf(why, whysz, "%s: %s", path, strerror(errno));
	else if (r == 0 && S_ISLNK(st.st_mode))
		(void)snprintf(why, whysz, "%s is a symbolic link; cordon never "
		    "writes through one (name its target)", path);
	else if (r == 0 && !S_ISREG(st.st_mode))
		(void)snprintf(why, whysz, "%s exists and is not a regular file",
		    path);
	else {
		free(dir);
		*out = f;
		return 0;
	}
	free(dir);
	cordon_cli_result_close(f);
	return -1;
nomem:
	free(dir);
	cordon_cli_result_close(f);
	(void)snprintf(why, whysz, "out of memory");
	return -1;
}

/*
 * A fresh temp file in FILE's directory (O_EXCL and O_NOFOLLOW, so
 * nothing planted there is opened), mode 0600 whatever the umask,
 * written and synced, then renamed over FILE.  A reader sees the old
 * FILE or the whole record, never a part.  On failure the temp file is
 * removed and errno says why.
 */
int
cordon_cli_result_write(const struct cordon_cli_result_file *f,
    const char *rec, size_t len)
{
	char tmp[64];
	uint64_t rnd = 0;
	int fd = -1, tries, e;

	for (tries = 0; tries < 16 && fd < 0; tries++) {
		if (cordon_plat_random(&rnd, sizeof(rnd)) < 0)
			return -1;
		snprintf(tmp, sizeof(tmp), ".cordon-result-%016llx",
		    (unsigned long long)rnd);
		fd = openat(f->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0600) < 0 || cordon_cli_write_all(fd, rec, len) < 0 ||
	    fsync(fd) < 0) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) < 0) {
		e = errno;
		goto fail;
	}
	if (renameat(f->dirfd, tmp, f->dirfd, f->name) == 0)
		return 0;
	e = errno;
fail:
	(void)unlinkat(f->dirfd, tmp, 0);
	errno = e;
	return -1;
}

char *
cordon_cli_realpath(const char *path)
{
	return realpath(path, NULL);
}

int
cordon_cli_guard(int cancel[2], void (*handler)(int))
{
	struct sigaction sa;
	int i;

	cordon_plat_guard_self();
	if (pipe(cancel) < 0)
		return -1;
	/* No spawn runs in this process before the run: no window here. */
	for (i = 0; i < 2; i++)
		if (fcntl(cancel[i], F_SETFD, FD_CLOEXEC) < 0 ||
		    fcntl(cancel[i], F_SETFL, O_NONBLOCK) < 0)
			return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
	return 0;
}

void
cordon_cli_ignore_sigpipe(void)
{
	(void)signal(SIGPIPE, SIG_IGN);
}
