/*
 * probe.c - what this host gives: the answer to a PROBE message, shown by
 * `cordon probe` and used by the broker's select.
 *
 * Every finding comes from trying the thing, not from version numbers:
 * namespaces are created in throw-away children, Landlock is asked for
 * its ABI, the seccomp API level is read from libseccomp.  Nothing here
 * touches the invoker's files; the children exit at once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>
#include <seccomp.h>

#include "helper.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

static void
fact(int sock, const char *key, const char *value)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_FACT;
	m.u.fact.key = (char *)(uintptr_t)key;
	m.u.fact.value = (char *)(uintptr_t)value;
	(void)cordon_msg_send(sock, &m);
}

static const char *
errname(int e)
{
	const char *n = strerrorname_np(e);

	return n != NULL ? n : "unknown error";
}

/* Whether one namespace type can be unshared inside a new user namespace. */
static void
probe_one_ns(int sock, const char *key, int flag)
{
	char v[96];
	pid_t pid;
	int st = 0;

	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(100 + (errno & 63));
		_exit(unshare(flag) < 0 ? errno & 127 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		(void)fmt(v, sizeof(v), "unknown (the probe child failed)");
	else if (WEXITSTATUS(st) == 0)
		(void)fmt(v, sizeof(v), "yes");
	else if (WEXITSTATUS(st) >= 100)
		(void)fmt(v, sizeof(v), "no: %s from unshare(CLONE_NEWUSER)",
		    errname(WEXITSTATUS(st) - 100));
	else
		(void)fmt(v, sizeof(v), "no: %s", errname(WEXITSTATUS(st)));
	fact(sock, key, v);
}

static void
probe_landlock(int sock)
{
	char v[96];
	long abi;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi > 0)
		(void)fmt(v, sizeof(v), "ABI %ld", abi);
	else if (errno == EOPNOTSUPP)
		(void)fmt(v, sizeof(v), "no: disabled at boot (EOPNOTSUPP)");
	else
		(void)fmt(v, sizeof(v), "no: %s", errname(errno));
	fact(sock, "landlock", v);
}

/* The cgroup v2 hierarchy this process is in, and whether it may write it. */
static void
probe_cgroup(int sock)
{
	char line[512], dir[600], v[700], *p;
	const char *root = "/sys/fs/cgroup";
	struct statfs sf;
	FILE *f;
	bool hybrid = false;

	if (statfs(root, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
		fact(sock, "cgroup", "v2");
	} else if (statfs("/sys/fs/cgroup/unified", &sf) == 0 &&
	    sf.f_type == CGROUP2_SUPER_MAGIC) {
		fact(sock, "cgroup", "hybrid: v1 controllers, v2 at "
		    "/sys/fs/cgroup/unified");
		root = "/sys/fs/cgroup/unified";
		hybrid = true;
	} else {
		fact(sock, "cgroup", "v1 only");
		fact(sock, "cgroup.delegated", "no: no cgroup v2 hierarchy");
		return;
	}
	line[0] = '\0';
	if ((f = fopen("/proc/self/cgroup", "re")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "0::", 3) == 0)
				break;
		fclose(f);
	}
	if (strncmp(line, "0::", 3) != 0) {
		fact(sock, "cgroup.delegated", "no: not in a v2 cgroup");
		return;
	}
	if ((p = strchr(line, '\n')) != NULL)
		*p = '\0';
	if (!fmt(dir, sizeof(dir), "%s%s", root, line + 3))
		return;
	/* Usable: we may create a child group, with memory and pids. */
	if (!fmt(line, sizeof(line), "%s/cgroup.controllers", dir) ||
	    (f = fopen(line, "re")) == NULL) {
		(void)fmt(v, sizeof(v), "no: cannot read %s/cgroup.controllers",
		    dir);
	} else {
		line[0] = '\0';
		p = fgets(line, sizeof(line), f);
		fclose(f);
		if (p == NULL || strstr(line, "memory") == NULL ||
		    strstr(line, "pids") == NULL)
			(void)fmt(v, sizeof(v), "no: %s offers no memory and "
			    "pids controllers%s", dir, hybrid ? " (hybrid host)" :
			    "");
		else if (access(dir, W_OK) < 0)
			(void)fmt(v, sizeof(v), "no: %s is not writable (%s)", dir,
			    errname(errno));
		else
			(void)fmt(v, sizeof(v), "yes: %s", dir);
	}
	fact(sock, "cgroup.delegated", v);
}

void
probe_report(int sock, enum cordon_backend_id want)
{
	const struct scmp_version *sv = seccomp_version();
	struct utsname u;
	struct cordon_msg m;
	char v[CORDON_MAX_TEXT_LEN], reason[CORDON_MAX_TEXT_LEN];
	char nserr[CORDON_MAX_TEXT_LEN] = "";
	bool per_ns = false, ns_ok;
	enum cordon_backend_id pick;

	if (uname(&u) == 0 && fmt(v, sizeof(v), "%s %s %s", u.sysname,
	    u.release, u.machine))
		fact(sock, "kernel", v);
	(void)fmt(v, sizeof(v), "%u%s", (unsigned)getuid(), getuid() == 0 ?
	    " (root: the linux-ns payload runs as nobody)" : "");
	fact(sock, "invoker.uid", v);
	fact(sock, "helper.setuid", geteuid() != getuid() ? "yes" : "no");
	probe_one_ns(sock, "ns.mount", CLONE_NEWNS);
	probe_one_ns(sock, "ns.pid", CLONE_NEWPID);
	probe_one_ns(sock, "ns.net", CLONE_NEWNET);
	probe_one_ns(sock, "ns.ipc", CLONE_NEWIPC);
	probe_one_ns(sock, "ns.uts", CLONE_NEWUTS);
	probe_one_ns(sock, "ns.cgroup", CLONE_NEWCGROUP);

	/* The real thing, minus the payload: what a run's init does first. */
	ns_ok = ns_probe(nserr, sizeof(nserr), &per_ns) == 0;
	if (!ns_ok)
		(void)fmt(v, sizeof(v), "no: %s", nserr);
	fact(sock, "linux-ns", ns_ok ? "yes: user, mount, pid, net, ipc, uts "
	    "and cgroup namespaces, private root, loopback" : v);
	fact(sock, "rlimit_nproc.per_namespace", !ns_ok ? "unknown" : per_ns ?
	    "yes: --nproc is also a kernel limit" :
	    "no: --nproc is enforced by the monitor alone");
	if (fmt(v, sizeof(v), "%s (libseccomp %u.%u.%u, API level %u)",
	    prctl(PR_GET_SECCOMP) >= 0 ? "yes" : "no", sv->major, sv->minor,
	    sv->micro, seccomp_api_get()))
		fact(sock, "seccomp", v);
	probe_landlock(sock);
	probe_cgroup(sock);

	if (want == CORDON_BACKEND_LANDLOCK || (want == CORDON_BACKEND_LINUX_NS &&
	    !ns_ok)) {
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_ERROR;
		(void)fmt(v, sizeof(v), "backend %s is not available: %s",
		    cordon_backend_name(want), want == CORDON_BACKEND_LANDLOCK ?
		    "not in this build of cordon-helper" : nserr);
		m.u.error.message = v;
		(void)cordon_msg_send(sock, &m);
		return;
	}
	if (want == CORDON_BACKEND_FLOOR || !ns_ok) {
		pick = CORDON_BACKEND_FLOOR;
		(void)fmt(reason, sizeof(reason), "%s%s", want ==
		    CORDON_BACKEND_FLOOR ? "requested" : "linux-ns unavailable: ",
		    want == CORDON_BACKEND_FLOOR ? "" : nserr);
	} else {
		pick = CORDON_BACKEND_LINUX_NS;
		(void)fmt(reason, sizeof(reason), "%s", want ==
		    CORDON_BACKEND_AUTO ? "user namespaces available" :
		    "requested");
	}
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_BACKEND;
	m.u.backend.backend = (uint8_t)pick;
	m.u.backend.applied = 0;
	m.u.backend.reason = reason;
	(void)cordon_msg_send(sock, &m);
}
