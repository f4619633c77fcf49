/*
 * landlock.c - the landlock backend: the floor (floor.c), plus a Landlock
 * domain the payload enters just before execve.
 *
 * Landlock needs neither privilege nor namespaces, so it works where user
 * namespaces are blocked.  The helper builds the ruleset here, before the
 * fork, so a failure is a sandbox error naming the path; the child enters
 * it (landlock_enter) after PR_SET_NO_NEW_PRIVS, which Landlock requires,
 * and then loads the baseline seccomp filter.  The domain is made in the
 * child: the helper stays outside it and can still sample, signal and
 * kill the whole tree, while the payload's tree, which inherits the
 * domain, cannot signal anything outside it (scoping, ABI >= 6).
 *
 * What the ruleset allows (everything else it handles is refused):
 *   the workdir (cwd, HOME, TMPDIR)   every right
 *   system directories, --ro-bind     read, list, execute
 *   /dev                              list only; not the disks
 *   null zero full tty random urandom read, write, ioctl
 * So a write anywhere else - $HOME, /etc, the host's /tmp - fails, and
 * so does a read of anything outside those paths.
 *
 * What each ABI gives, and so what is reported applied:
 *   1-2  writes confined, but truncate(2) is not controlled: FILESYSTEM
 *        is not reported applied;
 *   3    FILESYSTEM;
 *   4    NETWORK, unless --network: TCP bind and connect handled with no
 *        port allowed, and (seccomp.c) no UDP, raw, SCTP, MPTCP or
 *        packet socket and no io_uring, which Landlock does not cover;
 *   6    SCOPING: signals and abstract unix sockets stay in the domain.
 * Landlock does not restrict connecting to a named unix socket the
 * payload can reach by file permissions (the README says so).
 */
#include "config.h"

#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/landlock.h>

#include "helper.h"

/* Debian 12's linux/landlock.h stops at ABI 1 and 2. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)                /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)             /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)             /* ABI 4 */
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)            /* ABI 5 */
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)      /* ABI 6 */
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* The kernel's structs, as of ABI 6 (a larger attr with zeros is fine). */
struct ll_attr {
	uint64_t handled_fs, handled_net, scoped;
};
struct ll_path {
	uint64_t allowed;
	int32_t parent_fd;
} __attribute__((packed));

#define FS_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
	LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_DEV (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* The only rights a rule on a non-directory may carry. */
#define FS_FILE (FS_DEV | LANDLOCK_ACCESS_FS_EXECUTE)

/* Beyond the workdir (every right); a path missing here is skipped. */
static const struct {
	const char *path;
	uint64_t access;
} rules[] = {
	{ "/usr", FS_READ }, { "/bin", FS_READ }, { "/sbin", FS_READ },
	{ "/lib", FS_READ }, { "/lib32", FS_READ }, { "/lib64", FS_READ },
	{ "/libx32", FS_READ }, { "/etc", FS_READ }, { "/opt", FS_READ },
	{ "/proc", FS_READ }, { "/sys", FS_READ },
	{ "/dev", LANDLOCK_ACCESS_FS_READ_DIR }, { "/dev/null", FS_DEV },
	{ "/dev/zero", FS_DEV }, { "/dev/full", FS_DEV }, { "/dev/tty", FS_DEV },
	{ "/dev/random", FS_DEV }, { "/dev/urandom", FS_DEV },
};

int
landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	/* Tests pretend an older kernel; never honoured in a setuid helper. */
	const char *t = getauxval(AT_SECURE) != 0 ? NULL :
	    getenv("CORDON_TEST_LANDLOCK_ABI");

	if (abi < 0)
		return 0;
	if (t != NULL && t[0] >= '0' && t[0] <= '9' && t[1] == '\0' &&
	    t[0] - '0' < abi)
		abi = t[0] - '0';
	return (int)abi;
}

void
landlock_describe(int abi, bool network, char *buf, size_t bufsz)
{
	(void)fmt(buf, bufsz, "landlock ABI %d: %s; %s; %s", abi, abi >= 3 ?
	    "writes confined to the workdir" : "filesystem not applied (needs "
	    "ABI 3: truncate is not controlled)", network ?
	    "network allowed (--network)" : abi >= 4 ? "TCP bind and connect "
	    "denied" : "network isolation not applied (needs ABI 4)",
	    abi >= 6 ? "signals and abstract sockets scoped" :
	    "scoping not applied (needs ABI 6)");
}

/* Allows access (what handled covers of it) beneath fd. */
static int
allow_fd(int rs, int fd, uint64_t access, uint64_t handled)
{
	struct ll_path pb = { 0, fd };
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	pb.allowed = access & handled & (S_ISDIR(st.st_mode) ? ~0ULL : FS_FILE);
	if (pb.allowed == 0)
		return 0;
	return syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH,
	    &pb, 0) < 0 ? -1 : 0;
}

/* A path missing on this host is skipped: there is nothing to allow. */
static int
allow_path(int rs, const char *path, uint64_t access, uint64_t handled,
    char *err, size_t errsz)
{
	int fd = open(path, O_PATH | O_CLOEXEC), r;

	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if ((r = fd < 0 ? -1 : allow_fd(rs, fd, access, handled)) < 0)
		ERR("Landlock rule for %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return r;
}

int
landlock_ruleset(const struct request *req, const struct workdir *wd,
    struct landlock *ll, char *err, size_t errsz)
{
	bool network = (req->flags & CORDON_REQ_NETWORK) != 0;
	struct ll_attr a = { (1ULL << 13) - 1, 0, 0 }; /* ABI 1's rights */
	size_t i;
	int r = 0;

	if (ll->abi >= 2)
		a.handled_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (ll->abi >= 3)
		a.handled_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (ll->abi >= 5)
		a.handled_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	/* Handled with no port rule: every TCP bind and connect refused. */
	if (ll->abi >= 4 && !network)
		a.handled_net = LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP;
	if (ll->abi >= 6)
		a.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
		    LANDLOCK_SCOPE_SIGNAL;
	ll->deny_inet = a.handled_net != 0;
	ll->ruleset = (int)syscall(SYS_landlock_create_ruleset, &a, sizeof(a),
	    0);
	if (ll->ruleset < 0)
		return ERR("landlock_create_ruleset: %s", strerror(errno));
	if (allow_fd(ll->ruleset, wd->fd, a.handled_fs, a.handled_fs) < 0)
		r = ERR("Landlock rule for the workdir: %s", strerror(errno));
	for (i = 0; r == 0 && i < sizeof(rules) / sizeof(rules[0]); i++)
		r = allow_path(ll->ruleset, rules[i].path, rules[i].access,
		    a.handled_fs, err, errsz);
	/* --ro-bind SRC: readable where it is (start_payload: DEST == SRC). */
	for (i = 0; r == 0 && i < req->bindc; i++)
		r = allow_path(ll->ruleset, req->binds[i].src, FS_READ,
		    a.handled_fs, err, errsz);
	if (r < 0) {
		close(ll->ruleset);
		ll->ruleset = -1;
		return -1;
	}
	/*
	 * Every rule is in, or the run does not start: nothing is partial,
	 * and backend_applied() reports what this ABI handles.
	 */
	return 0;
}

/* In the payload's child, after PR_SET_NO_NEW_PRIVS, before closefrom. */
void
landlock_enter(const struct landlock *ll)
{
	/* Root's payload keeps uid 0 but no capability in any set. */
	if (geteuid() == 0 && drop_all_caps() < 0)
		spawn_fail(3, SPAWN_CAPS);
	if (syscall(SYS_landlock_restrict_self, ll->ruleset, 0) < 0)
		spawn_fail(3, SPAWN_LANDLOCK);
	if (seccomp_baseline(ll->deny_inet) < 0)
		spawn_fail(3, SPAWN_SECCOMP);
}
