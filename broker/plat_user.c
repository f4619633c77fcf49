/*
 * plat_user.c - the invoker's passwd entry and home directory, for the
 * platform files of Linux and macOS (plat_posix.h): a leaf, so that
 * plat_posix.c and each OS's file can both use it.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "plat_posix.h"

/*
 * uid's passwd entry through getpwuid_r, its strings in buf: libcordon
 * may run in a threaded program, where getpwuid's one static result can
 * be overwritten by another thread's lookup while we read it.
 */
int
cordon_plat_passwd(uid_t uid, struct passwd *pw, char *buf, size_t bufsz)
{
	struct passwd *found = NULL;
	int e;

	do {
		e = getpwuid_r(uid, pw, buf, bufsz, &found);
	} while (e == EINTR);
	return e == 0 && found != NULL ? 0 : -CORDON_E_INVAL;
}

/* An environment directory is used only if it is an absolute path. */
const char *
cordon_plat_env_dir(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] == '/' ? v : NULL;
}

/* dir + "/" + rest, allocated. */
int
cordon_plat_join(char **out, const char *dir, const char *rest)
{
	if (asprintf(out, "%s/%s", dir, rest) < 0) {
		*out = NULL;
		return -CORDON_E_NOMEM;
	}
	return 0;
}

/* $HOME if absolute, else the passwd entry's (its strings in pwbuf). */
const char *
cordon_plat_home(struct passwd *pw, char *pwbuf, size_t pwbufsz)
{
	const char *home = cordon_plat_env_dir("HOME");

	if (home != NULL)
		return home;
	if (cordon_plat_passwd(getuid(), pw, pwbuf, pwbufsz) < 0 ||
	    pw->pw_dir[0] != '/')
		return NULL;
	return pw->pw_dir;
}
