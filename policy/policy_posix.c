/*
 * policy_posix.c - the policy's part that differs per OS, on Linux (and
 * macOS): a file is trusted by its owner's uid and its mode bits, the
 * configuration lives under $(sysconfdir), and groups are gids.
 * policy.c holds the parser and the checks every OS shares.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "policy.h"
#include "policy_parser.h"

#ifndef CORDON_SYSCONFDIR
#define CORDON_SYSCONFDIR "/etc/cordon"
#endif

/* n numbers, then a newline, from a line of a /proc file. */
static bool
proc_numbers(const char *s, unsigned long long *v, int n)
{
	char *end = NULL;
	int i;

	for (i = 0; i < n; i++) {
		errno = 0;
		v[i] = strtoull(s, &end, 10);
		if (errno != 0 || end == s)
			return false;
		s = end;
	}
	return *s == '\n';
}

/*
 * Whether *ov, the uid the kernel shows for an owner it cannot map here,
 * maps to no one in our user namespace, and whether that namespace leaves
 * its parent's uid 0 unmapped.  (The initial namespace maps everything:
 * never there.)
 */
static bool
root_and_overflow_unmapped(uid_t *ov)
{
	unsigned long long v = 0, m[3] = { 0, 0, 0 };
	char line[128];
	FILE *f;
	bool ok;

	if ((f = fopen("/proc/sys/kernel/overflowuid", "re")) == NULL)
		return false;
	ok = fgets(line, sizeof(line), f) != NULL &&
	    proc_numbers(line, &v, 1) && v < UINT32_MAX;
	(void)fclose(f);
	if (!ok || (f = fopen("/proc/self/uid_map", "re")) == NULL)
		return false;
	/* Each line: first uid inside, first uid in the parent, count. */
	while (ok && fgets(line, sizeof(line), f) != NULL)
		ok = proc_numbers(line, m, 3) && m[1] != 0 &&
		    !(m[0] <= v && v - m[0] < m[2]);
	ok = ok && !ferror(f);
	(void)fclose(f);
	*ov = (uid_t)v;
	return ok;
}

/*
 * Why a policy file whose owner shows as st->st_uid, which is neither root
 * nor the caller's owner, is not trusted; NULL when it is.  It is when
 * the file's real owner is unmapped in our user namespace, which is how a
 * root-owned system file looks there (unshare -Ur as a user, a rootless
 * container, cordon inside cordon) - and only then:
 *  - not in a set-id process (AT_SECURE): a setuid helper demands real
 *    root.  (Where root is unmapped the kernel ignores a setuid bit
 *    anyway, so such a helper has no privilege there to protect.)
 *  - the owner shows as the overflow uid, this namespace maps no uid to
 *    that one and does not map its parent's root, and we are mapped: the
 *    kernel shows the overflow uid for every owner it cannot map, so
 *    st_uid really means "not anyone in here" (in a namespace with no
 *    map at all our own files would look the same).
 *  - the directory holding the file (this very entry, not a link) is
 *    likewise unmapped-owned and not writable by group or others.
 * Then nobody in the namespace can change or replace the file: write
 * permission as owner needs the owner's uid, which is outside, and a
 * capability held in a user namespace never applies to an inode whose
 * owner it does not map (capable_wrt_inode_uidgid); the caller refuses
 * group- or other-writable files everywhere.  What the namespace cannot
 * tell is which outside user the owner is; the host itself refuses the
 * file unless it is root's.
 */
static const char *
unmapped_owner_untrusted(const char *path, const struct stat *st)
{
	char dir[CORDON_MAX_PATH_LEN + 1];
	const char *base, *why = NULL;
	struct stat dst, est;
	uid_t ov = 0;
	size_t n;
	int dfd;

	if (!root_and_overflow_unmapped(&ov) || st->st_uid != ov)
		return ""; /* not the case: the usual refusal */
	if (issetugid())
		return "a setuid cordon-helper trusts only a file root owns";
	if (getuid() == ov || geteuid() == ov)
		return "so are you, so it may be yours";
	base = strrchr(path, '/');
	n = base == NULL ? 1 : base == path ? 1 : (size_t)(base - path);
	if (n > CORDON_MAX_PATH_LEN)
		return "its directory cannot be checked";
	(void)snprintf(dir, sizeof(dir), "%.*s", (int)n, base == NULL ? "." :
	    path);
	base = base == NULL ? path : base + 1;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    fstat(dfd, &dst) < 0 ||
	    fstatat(dfd, base, &est, AT_SYMLINK_NOFOLLOW) < 0)
		why = "its directory cannot be checked";
	else if (dst.st_uid != ov || (dst.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		why = "its directory is not likewise unmapped-owned and closed "
		    "to group and others";
	else if (est.st_dev != st->st_dev || est.st_ino != st->st_ino)
		why = "it is not a file of that directory (a symbolic link?)";
	if (dfd >= 0)
		close(dfd);
	return why;
}

int
cordon_policy_read_text(const char *path, uid_t owner, char **textp,
    size_t *lenp, char *err, size_t errsz)
{
	struct stat st;
	const char *why = NULL;
	char *text = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, r = 0;

	*textp = NULL;
	*lenp = 0;
	/* O_NONBLOCK: a FIFO planted at the path must not hang us. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) < 0) {
		(void)snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? -CORDON_E_NOTFOUND : -CORDON_E_IO;
	}
	if (fstat(fd, &st) < 0) {
		(void)snprintf(err, errsz, "%s: %s", path, strerror(errno));
		r = -CORDON_E_IO;
	} else if (!S_ISREG(st.st_mode)) {
		(void)snprintf(err, errsz, "%s: not a regular file", path);
		r = -CORDON_E_INVAL;
	} else if (st.st_uid != 0 && (owner == (uid_t)-1 || st.st_uid != owner) &&
	    (why = unmapped_owner_untrusted(path, &st)) != NULL) {
		(void)snprintf(err, errsz, "%s: owned by uid %u, not by root%s: "
		    "refusing it (whoever owns it could change what it allows%s%s)",
		    path, (unsigned)st.st_uid, owner == (uid_t)-1 ? "" :
		    " or you", *why != '\0' ? "; its owner is unmapped in this "
		    "user namespace, but " : "", why);
		r = -CORDON_E_POLICY;
	} else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		(void)snprintf(err, errsz, "%s: writable by group or others "
		    "(mode %04o): refusing it (chmod go-w)", path,
		    (unsigned)(st.st_mode & 07777));
		r = -CORDON_E_POLICY;
	} else if (st.st_size > (off_t)CORDON_POLICY_MAX_FILE) {
		(void)snprintf(err, errsz, "%s: larger than %u bytes", path,
		    CORDON_POLICY_MAX_FILE);
		r = -CORDON_E_TOOLONG;
	} else if ((text = malloc(CORDON_POLICY_MAX_FILE + 1)) == NULL) {
		r = -CORDON_E_NOMEM;
	}
	/* Read to EOF, never past the bound, whatever st_size said. */
	while (r == 0 && len <= CORDON_POLICY_MAX_FILE) {
		n = read(fd, text + len, CORDON_POLICY_MAX_FILE + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			(void)snprintf(err, errsz, "%s: %s", path, strerror(errno));
			r = -CORDON_E_IO;
		}
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0) {
		free(text);
		text = NULL;
		len = 0;
	}
	*textp = text;
	*lenp = len;
	return r;
}

const char *
cordon_policy_confdir(void)
{
	/*
	 * secure_getenv returns NULL in a setuid or setgid process; the id
	 * comparison says the same for one that changed ids after exec.
	 */
	const char *over = secure_getenv("CORDON_CONFDIR");

	if (over != NULL && over[0] == '/' && getuid() == geteuid() &&
	    getgid() == getegid())
		return over;
	return CORDON_SYSCONFDIR;
}

/* Whether any of the ids is in the list; unknown group names match none. */
static bool
in_groups(const struct cordon_groups *g, gid_t gid, const gid_t *groups,
    size_t ngroups)
{
	char buf[16384];
	struct group gr, *found;
	uint64_t v = 0;
	gid_t want;
	size_t i, j;

	if (g->any)
		return true;
	for (i = 0; i < g->n; i++) {
		/* A number is a gid (never (gid_t)-1); anything else a name. */
		if (cordon_parse_count(g->name[i], &v) == 0) {
			if (v >= UINT32_MAX)
				continue;
			want = (gid_t)v;
		} else {
			found = NULL;
			if (getgrnam_r(g->name[i], &gr, buf, sizeof(buf),
			    &found) != 0 || found == NULL)
				continue;
			want = found->gr_gid;
		}
		if (want == gid)
			return true;
		for (j = 0; j < ngroups; j++)
			if (groups[j] == want)
				return true;
	}
	return false;
}

/* The invoker's ids, for cordon_policy_check_as. */
struct ids {
	gid_t gid;
	const gid_t *groups;
	size_t ngroups;
};

static bool
member(const struct cordon_groups *g, void *arg)
{
	const struct ids *ids = arg;

	return in_groups(g, ids->gid, ids->groups, ids->ngroups);
}

int
cordon_policy_check(const struct cordon_policy *pol,
    const struct cordon_limits *l, bool network, uid_t uid, gid_t gid,
    const gid_t *groups, size_t ngroups, char *err, size_t errsz)
{
	struct ids ids = { gid, groups, ngroups };
	char who[32];

	(void)snprintf(who, sizeof(who), "uid %u", (unsigned)uid);
	return cordon_policy_check_as(pol, l, network, who, member, &ids, err,
	    errsz);
}

int
cordon_policy_check_self(const struct cordon_policy *pol,
    const struct cordon_limits *l, bool network, char *err, size_t errsz)
{
	gid_t *groups = NULL;
	int n, r;

	if ((n = getgroups(0, NULL)) < 0 ||
	    (groups = calloc((size_t)n + 1, sizeof(gid_t))) == NULL ||
	    (n = getgroups(n, groups)) < 0) {
		free(groups);
		(void)snprintf(err, errsz, "cannot read the invoker's groups");
		return -CORDON_E_IO;
	}
	r = cordon_policy_check(pol, l, network, getuid(), getgid(), groups,
	    (size_t)n, err, errsz);
	free(groups);
	return r;
}

uid_t
cordon_policy_self(void)
{
	return getuid();
}
