/*
 * priv.c - setuid mode: the only code that holds, uses or gives up root.
 *
 * A helper built with --with-priv-mode=setuid and installed setuid root
 * starts with euid 0 and the invoker's real uid.  helper.c's theory of
 * operation lists every step that runs with privilege and why it is safe;
 * this file holds those steps:
 *
 *   priv_start()  first thing in main: not dumpable, refuse what we were
 *                 not built for (setgid, an euid other than 0 or the
 *                 invoker's, file capabilities), empty environment, then
 *                 lower the euid to the invoker's, keeping 0 only as the
 *                 saved uid.  From here every file-system access, /proc
 *                 read and signal is the invoker's own.
 *   priv_raise()  euid 0 again, for the one clone() of the namespaces.
 *   priv_drop()   right after that clone (or before the floor or a probe):
 *                 setgroups (the invoker's own), setresgid, setresuid -
 *                 all ids the invoker's, saved uid included - then every
 *                 capability cleared through libcap, and priv_verify()
 *                 proves none of it can be regained.  Permanent.
 *   drop_all_caps()  in the payload (linux-ns, and landlock run by root):
 *                 bounding and ambient sets emptied, securebits locked,
 *                 every set cleared, and each read back to verify.
 *
 * A helper built for priv-mode none refuses to run setuid or setgid: it
 * would run the payload with ids that are not the invoker's.
 */
#include "config.h"

#include <grp.h>
#include <pwd.h>
#include <syslog.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include <linux/securebits.h>

#include <bsd/string.h>

#include "helper.h"

/* The test suite builds a setuid-capable copy from the normal build. */
#ifndef CORDON_SETUID_BUILD
#define CORDON_SETUID_BUILD CORDON_PRIV_SETUID
#endif

static struct {
	bool setuid;          /* started setuid root by a non-root invoker */
	bool dropped;         /* privilege given up for good */
	uid_t uid;            /* the invoker */
	gid_t gid;
	gid_t *groups;        /* the invoker's supplementary groups */
	int ngroups;
	char user[33];        /* the invoker's name, for the audit line */
} pv;

bool
priv_setuid(void)
{
	return pv.setuid;
}

/*
 * Not dumpable after every change of ids: the kernel resets it to
 * fs.suid_dumpable, which an administrator may have set to 1.
 */
static void
undumpable(void)
{
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		die_errno("prctl(PR_SET_DUMPABLE)");
}

/* True if the program file carries capabilities (setcap). */
static bool
has_file_caps(void)
{
	cap_t c, none;
	bool some = false;
	int fd;

	if ((fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) < 0)
		return false; /* no /proc: tree_init() refuses to run anyway */
	if ((c = cap_get_fd(fd)) != NULL && (none = cap_init()) != NULL) {
		some = cap_compare(c, none) != 0;
		cap_free(none);
	}
	cap_free(c);
	close(fd);
	return some;
}

void
priv_start(void)
{
	uid_t ruid = getuid(), euid = geteuid();
	int n;

	undumpable(); /* first: no ptrace, core or /proc/PID/mem for anyone */
	pv.setuid = CORDON_SETUID_BUILD && euid == 0 && ruid != 0;
	/* cppcheck-suppress knownConditionTrueFalse ; per build */
	if (getegid() != getgid() || (euid != ruid && !pv.setuid))
		die(CORDON_SETUID_BUILD ? "cordon-helper started with effective "
		    "ids (uid %u, gid %u) other than root or the caller's" :
		    "cordon-helper is installed setuid or setgid (euid %u, "
		    "egid %u), which this build does not support; remove the "
		    "bit (chmod u-s,g-s) or configure --with-priv-mode=setuid",
		    (unsigned)euid, (unsigned)getegid());
	if (has_file_caps())
		die("cordon-helper has file capabilities, which it does not use; "
		    "remove them (setcap -r)");
	/* cppcheck-suppress knownConditionTrueFalse ; per build */
	if (!pv.setuid)
		return;
	/* Nothing of the invoker's environment: the payload's comes in ENV. */
	if (clearenv() != 0)
		die("clearenv failed");
	pv.uid = ruid;
	pv.gid = getgid();
	if ((n = getgroups(0, NULL)) < 0)
		die_errno("getgroups");
	pv.groups = xcalloc((size_t)n, sizeof(gid_t));
	if ((pv.ngroups = getgroups(n, pv.groups)) < 0)
		die_errno("getgroups");
	openlog("cordon-helper", LOG_PID, LOG_AUTHPRIV);
	/* Lowered until the clone: everything we touch, we touch as them. */
	if (setresuid((uid_t)-1, ruid, 0) < 0)
		die_errno("setresuid");
	undumpable();
}

void
priv_raise(void)
{
	if (pv.setuid && !pv.dropped) {
		if (setresuid((uid_t)-1, 0, (uid_t)-1) < 0)
			die_errno("setresuid(raise)");
		undumpable();
	}
}

int
priv_verify(uid_t uid, gid_t gid)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0 ||
	    r != uid || e != uid || s != uid || rg != gid || eg != gid ||
	    sg != gid)
		return -1;
	/* setuid(0) must fail for anyone but root (root here: nobody's map). */
	if ((uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) ||
	    (gid != 0 && (setgid(0) == 0 || setegid(0) == 0))) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

void
priv_drop(void)
{
	if (!pv.setuid || pv.dropped)
		return;
	/* setgroups needs privilege: euid 0 once more, then down for good. */
	if (setresuid((uid_t)-1, 0, (uid_t)-1) < 0 ||
	    setgroups((size_t)pv.ngroups, pv.groups) < 0 ||
	    setresgid(pv.gid, pv.gid, pv.gid) < 0 ||
	    setresuid(pv.uid, pv.uid, pv.uid) < 0)
		die_errno("dropping privilege");
	if (!priv_clear_caps())
		die_errno("clearing capabilities");
	if (priv_verify(pv.uid, pv.gid) < 0)
		die("privilege could be regained after the drop");
	undumpable();
	pv.dropped = true;
}

/* Permitted, effective and inheritable emptied, and read back so. */
bool
priv_clear_caps(void)
{
	cap_t none, now = NULL;
	bool ok;

	if ((none = cap_init()) == NULL)
		return false;
	ok = cap_set_proc(none) == 0 && (now = cap_get_proc()) != NULL &&
	    cap_compare(none, now) == 0;
	cap_free(none);
	if (now != NULL)
		cap_free(now);
	return ok;
}

/*
 * Every capability gone, in every set, and kept gone: the bounding set
 * emptied (needs SETPCAP), the ambient set reset, securebits locked so not
 * even a uid-0 exec brings them back, then every set cleared.  Verified by
 * reading each back, never assumed: bounding, ambient, permitted,
 * effective, inheritable all empty and the securebits locked.
 */
int
drop_all_caps(void)
{
	static const unsigned long locked = SECBIT_NOROOT |
	    SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	cap_value_t c;
	bool same;
	int bits;

	/*
	 * Every bit the running kernel has, which may be more than these
	 * headers name (a helper linked statically, run on a newer kernel):
	 * up to the first that PR_CAPBSET_DROP calls EINVAL (64 at most).
	 */
	for (c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
			if (errno != EINVAL)
				return -1;
			break;
		}
	if (cap_reset_ambient() < 0)
		return -1;
	/* Not even a uid-0 exec could bring them back. */
	if (prctl(PR_SET_SECUREBITS, locked) < 0)
		return -1;
	same = priv_clear_caps();
	/* Read back: every bounding and ambient bit this kernel has. */
	for (c = 0; same && c < 64 && prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0;
	    c++)
		same = prctl(PR_CAPBSET_READ, c, 0, 0, 0) != 1 &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) != 1;
	bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	if (!same || bits < 0 || ((unsigned long)bits & locked) != locked ||
	    prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* The invoker's groups: what setgroups in the payload restores. */
int
priv_setgroups(void)
{
	return setgroups((size_t)pv.ngroups, pv.groups);
}

/*
 * Only the capabilities the init's steps need stay effective (setup):
 * mounts, pivot_root and the hostname (SYS_ADMIN), loopback (NET_ADMIN),
 * and dropping the rest in the payload (SETPCAP); then, before it forks
 * the payload, SETPCAP alone.  Without the DAC ones no path is opened
 * past the invoker's permissions.
 */
int
priv_init_caps(bool setup)
{
	static const cap_value_t keep[] = {
		CAP_SETPCAP, CAP_SYS_ADMIN, CAP_NET_ADMIN,
	};
	cap_t c;
	int r;

	if ((c = cap_get_proc()) == NULL)
		return -1;
	r = cap_clear_flag(c, CAP_EFFECTIVE) < 0 ||
	    cap_set_flag(c, CAP_EFFECTIVE, setup ? 3 : 1, keep, CAP_SET) < 0 ||
	    cap_set_proc(c) < 0 ? -1 : 0;
	cap_free(c);
	return r;
}

bool
audit_format(char *buf, size_t size, const char *event, const char *run_id,
    unsigned uid, const char *user, const char *cmd, const char *backend,
    const char *outcome, const char *cap)
{
	char c[65];
	size_t i;

	/* Bounded and printable: a command cannot forge a log line. */
	strlcpy(c, cmd, sizeof(c));
	for (i = 0; c[i] != '\0'; i++)
		if (c[i] < 0x21 || c[i] > 0x7e || c[i] == '"')
			c[i] = '?';
	return fmt(buf, size, "%s run=%s uid=%u user=%s backend=%s "
	    "command=\"%s%s\" outcome=%s cap=%s", event, run_id, uid, user,
	    backend, c, strlen(cmd) >= sizeof(c) ? "..." : "", outcome, cap);
}

void
priv_audit(const char *event, const struct request *req, const char *backend,
    const char *outcome, const char *cap)
{
	char line[512];
	struct passwd *pw;
	size_t i;

	if (!pv.setuid || req == NULL)
		return;
	if (pv.user[0] == '\0') {
		/* Looked up as the invoker; a name that is odd is not shown. */
		/* cppcheck-suppress getpwuidCalled ; single-threaded */
		pw = getpwuid(pv.uid);
		strlcpy(pv.user, pw != NULL ? pw->pw_name : "?", sizeof(pv.user));
		for (i = 0; pv.user[i] != '\0'; i++)
			if (pv.user[i] < 0x21 || pv.user[i] > 0x7e)
				pv.user[i] = '?';
	}
	if (!audit_format(line, sizeof(line), event, req->run_id,
	    (unsigned)pv.uid, pv.user, req->argv != NULL ? req->argv[0] : "",
	    backend, outcome, cap))
		return;
	/*
	 * The kernel stamps each datagram to /dev/log with the sender's real
	 * uid, which journald records as _UID.  Until the drop the saved uid
	 * is 0, so the real uid may be 0 for the one send - no other id
	 * moves, the euid stays the invoker's - and a line with _UID=0 is
	 * one only root could have sent.  After the drop (the end line) the
	 * real uid is the invoker's: that line is told by the _PID of its
	 * start line, a pid held by this helper until then.
	 */
	if (!pv.dropped && setresuid(0, (uid_t)-1, (uid_t)-1) < 0)
		die_errno("setresuid(audit)");
	syslog(LOG_NOTICE, "%s", line);
	if (!pv.dropped && setresuid(pv.uid, (uid_t)-1, (uid_t)-1) < 0)
		die_errno("setresuid(audit)");
}
