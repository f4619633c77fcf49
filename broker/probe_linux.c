/*
 * probe_linux.c - what `cordon probe` finds on Linux without privilege,
 * in the broker (plat.h, cordon_local_facts): the kernel, each namespace
 * type (unshared in throw-away children), seccomp, the Landlock ABI,
 * cgroups.  What the helper can really build it says itself (probe.c).
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>
#include <seccomp.h>

#include "plat.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* Where facts go: plat.h's callback. */
struct sink {
	void (*fn)(void *arg, const char *key, const char *value);
	void *arg;
};

static void
emit(const struct sink *st, const char *key, const char *value)
{
	st->fn(st->arg, key, value);
}

static const char *
errname(int e)
{
	const char *n = strerrorname_np(e);

	return n != NULL ? n : "unknown error";
}

/* Whether one namespace type can be unshared inside a new user namespace. */
static void
probe_one_ns(const struct sink *st, const char *key, int flag)
{
	char v[96];
	pid_t pid;
	int ws = 0;

	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(100 + (errno & 63));
		_exit(unshare(flag) < 0 ? errno & 127 : 0);
	}
	if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws))
		(void)snprintf(v, sizeof(v), "unknown (the probe child failed)");
	else if (WEXITSTATUS(ws) == 0)
		(void)snprintf(v, sizeof(v), "yes");
	else if (WEXITSTATUS(ws) >= 100)
		(void)snprintf(v, sizeof(v), "no: %s from unshare(CLONE_NEWUSER)",
		    errname(WEXITSTATUS(ws) - 100));
	else
		(void)snprintf(v, sizeof(v), "no: %s", errname(WEXITSTATUS(ws)));
	emit(st, key, v);
}

static void
probe_landlock(const struct sink *st)
{
	char v[96];
	long abi;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi > 0)
		(void)snprintf(v, sizeof(v), "ABI %ld", abi);
	else if (errno == EOPNOTSUPP)
		(void)snprintf(v, sizeof(v), "no: disabled at boot (EOPNOTSUPP)");
	else
		(void)snprintf(v, sizeof(v), "no: %s", errname(errno));
	emit(st, "landlock", v);
	if (abi <= 0)
		return;
	/* What each level gives (the landlock backend uses all there is). */
	emit(st, "landlock.filesystem", abi >= 3 ? "yes: writes confined to "
	    "the workdir, reads to it and the system directories" :
	    "partial: truncate(2) needs ABI 3, so not reported applied");
	emit(st, "landlock.network", abi >= 4 ? "yes: TCP bind and connect "
	    "denied (ABI 4)" : "no: needs ABI 4");
	emit(st, "landlock.scoping", abi >= 6 ? "yes: signals and abstract "
	    "unix sockets stay in the sandbox (ABI 6)" : "no: needs ABI 6");
}

/* The cgroup v2 hierarchy this process is in, and whether it may write it. */
static void
probe_cgroup(const struct sink *st)
{
	char line[512], dir[600], v[700], *p;
	const char *root = "/sys/fs/cgroup";
	struct statfs sf;
	FILE *f;
	bool hybrid = false;

	if (statfs(root, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
		emit(st, "cgroup", "v2");
	} else if (statfs("/sys/fs/cgroup/unified", &sf) == 0 &&
	    sf.f_type == CGROUP2_SUPER_MAGIC) {
		emit(st, "cgroup", "hybrid: v1 controllers, v2 at "
		    "/sys/fs/cgroup/unified");
		root = "/sys/fs/cgroup/unified";
		hybrid = true;
	} else {
		emit(st, "cgroup", "v1 only");
		emit(st, "cgroup.delegated", "no: no cgroup v2 hierarchy");
		return;
	}
	line[0] = '\0';
	if ((f = fopen("/proc/self/cgroup", "re")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "0::", 3) == 0)
				break;
		(void)fclose(f);
	}
	if (strncmp(line, "0::", 3) != 0) {
		emit(st, "cgroup.delegated", "no: not in a v2 cgroup");
		return;
	}
	if ((p = strchr(line, '\n')) != NULL)
		*p = '\0';
	if ((size_t)snprintf(dir, sizeof(dir), "%s%s", root, line + 3) >=
	    sizeof(dir))
		return;
	/* Usable: we may create a child group, with memory and pids. */
	if ((size_t)snprintf(line, sizeof(line), "%s/cgroup.controllers",
	    dir) >= sizeof(line) || (f = fopen(line, "re")) == NULL) {
		(void)snprintf(v, sizeof(v), "no: cannot read %s/cgroup.controllers",
		    dir);
	} else {
		line[0] = '\0';
		p = fgets(line, sizeof(line), f);
		(void)fclose(f);
		if (p == NULL || strstr(line, "memory") == NULL ||
		    strstr(line, "pids") == NULL)
			(void)snprintf(v, sizeof(v), "no: %s offers no memory and "
			    "pids controllers%s", dir, hybrid ? " (hybrid host)" :
			    "");
		else if (access(dir, W_OK) < 0)
			(void)snprintf(v, sizeof(v), "no: %s is not writable (%s)", dir,
			    errname(errno));
		else
			(void)snprintf(v, sizeof(v), "yes: %s", dir);
	}
	emit(st, "cgroup.delegated", v);
}

void
cordon_local_facts(void (*fn)(void *arg, const char *key,
    const char *value), void *arg)
{
	const struct sink sink = { fn, arg }, *st = &sink;
	const struct scmp_version *sv = seccomp_version();
	struct utsname u;
	char v[256];

	if (uname(&u) == 0) {
		snprintf(v, sizeof(v), "%s %s %s", u.sysname, u.release,
		    u.machine);
		emit(st, "kernel", v);
	}
	probe_one_ns(st, "ns.mount", CLONE_NEWNS);
	probe_one_ns(st, "ns.pid", CLONE_NEWPID);
	probe_one_ns(st, "ns.net", CLONE_NEWNET);
	probe_one_ns(st, "ns.ipc", CLONE_NEWIPC);
	probe_one_ns(st, "ns.uts", CLONE_NEWUTS);
	probe_one_ns(st, "ns.cgroup", CLONE_NEWCGROUP);
	snprintf(v, sizeof(v), "%s (libseccomp %u.%u.%u, API level %u)",
	    prctl(PR_GET_SECCOMP) >= 0 ? "yes" : "no", sv->major, sv->minor,
	    sv->micro, seccomp_api_get());
	emit(st, "seccomp", v);
	probe_landlock(st);
	probe_cgroup(st);
	/* What --allow-host gets on each backend (gate.c refuses the rest). */
	emit(st, "egress", "linux-ns: the run's own net namespace, loopback "
	    "only, and the broker's proxy at 127.0.0.1:3128 inside it; "
	    "landlock: refused (connect limited by port, not address); "
	    "floor: refused (no network boundary)");
}
