/*
 * paths.c - where things live: profiles, the helper, the configuration
 * directory (the defaults that differ per OS: plat.h); run ids; time.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "policy.h"

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
