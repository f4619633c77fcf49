/*
 * probe.c - cordon_probe() and cordon_select().  What needs no privilege
 * is found here: the kernel, each namespace type (unshared in throw-away
 * children), seccomp, the Landlock ABI, cgroups.  Whether the boundary
 * can really be built, and so which backend a run gets, only the helper
 * can say: it is asked with a PROBE message.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
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

#include "internal.h"
#include "wire.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* Where facts go: the caller's callback, until it says stop. */
struct facts {
	cordon_fact_fn fn;
	void *arg;
	int stop;
};

static void
emit(struct facts *st, const char *key, const char *value)
{
	if (st->fn != NULL && st->stop == 0)
		st->stop = st->fn(key, value, st->arg);
}

static const char *
errname(int e)
{
	const char *n = strerrorname_np(e);

	return n != NULL ? n : "unknown error";
}

/* Whether one namespace type can be unshared inside a new user namespace. */
static void
probe_one_ns(struct facts *st, const char *key, int flag)
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
probe_landlock(struct facts *st)
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
probe_cgroup(struct facts *st)
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

/* What needs no privilege, found here in the broker. */
static void
local_facts(struct facts *st)
{
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


/* "cpu, wall, ..." for the caps and controls in mask. */
static void
mask_text(char *buf, size_t sz, uint32_t mask)
{
	size_t n = 0;
	int cap;

	buf[0] = '\0';
	for (cap = 1; cap < CORDON_CAP_MAX_ && n < sz; cap++)
		if ((mask & (1U << cap)) != 0)
			n += (size_t)snprintf(buf + n, sz - n, "%s%s",
			    n > 0 ? ", " : "", cordon_cap_name(cap));
}

static int
probe(const cordon_config *cfg, cordon_fact_fn fn, void *arg,
    enum cordon_backend_id *backend, uint32_t *applied, char *reason,
    size_t reasonsz)
{
	char text[256];

	struct facts st = { fn, arg, 0 };
	struct cordon_msg m;
	char *helper = NULL;
	pid_t pid = -1;
	int sock = -1, err;
	bool done = false;

	if (reason != NULL && reasonsz > 0)
		reason[0] = '\0';
	if (fn != NULL)
		local_facts(&st);
	if ((err = cordon_helper_path(&helper)) < 0)
		return err;
	if ((err = cordon_start_helper(helper, &pid, &sock)) < 0)
		goto out;
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_PROBE;
	m.u.probe_backend = (uint8_t)cfg->backend;
	if ((err = cordon_chan_send(sock, &m)) < 0)
		goto out;
	while (!done) {
		if ((err = cordon_chan_recv(sock, &m)) < 0) {
			if (err == -CORDON_E_EOF)
				err = -CORDON_E_HELPER;
			break;
		}
		switch (m.type) {
		case CORDON_MSG_FACT:
			emit(&st, m.u.fact.key, m.u.fact.value);
			break;
		case CORDON_MSG_BACKEND:
			*backend = (enum cordon_backend_id)m.u.backend.backend;
			if (applied != NULL)
				*applied = m.u.backend.applied;
			/* What that backend applies to a run asking for all. */
			mask_text(text, sizeof(text), m.u.backend.applied);
			emit(&st, "applied", text);
			if (reason != NULL && reasonsz > 0)
				snprintf(reason, reasonsz, "%s", m.u.backend.reason);
			done = true;
			break;
		case CORDON_MSG_ERROR:
			if (reason != NULL && reasonsz > 0)
				snprintf(reason, reasonsz, "%s", m.u.error.message);
			err = -CORDON_E_UNAVAIL;
			done = true;
			break;
		default:
			err = -CORDON_E_PROTO;
			done = true;
			break;
		}
		cordon_msg_clear(&m);
	}
	if (err == 0 && st.stop != 0)
		err = st.stop;
out:
	if (sock >= 0)
		cordon_chan_close(sock);
	if (pid > 0)
		(void)cordon_wait_helper(pid);
	free(helper);
	return err;
}

int
cordon_probe(const cordon_config *cfg, cordon_fact_fn fn, void *arg,
    enum cordon_backend_id *backend, char *reason, size_t reasonsz)
{
	return probe(cfg, fn, arg, backend, NULL, reason, reasonsz);
}

int
cordon_select(const cordon_config *cfg, enum cordon_backend_id *backend,
    char *reason, size_t reasonsz)
{
	uint32_t applied = 0;

	return cordon_select_applied(cfg, backend, &applied, reason, reasonsz);
}

int
cordon_select_applied(const cordon_config *cfg,
    enum cordon_backend_id *backend, uint32_t *applied, char *reason,
    size_t reasonsz)
{
	/*
	 * One probe per process and requested backend.  Runs from several
	 * threads reach here (cordon_gate, for the required controls): the
	 * lock keeps an entry from being read while another thread fills it.
	 */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct {
		bool valid;
		int err;
		enum cordon_backend_id backend;
		uint32_t applied;
		char reason[CORDON_MAX_TEXT_LEN];
	} cache[CORDON_BACKEND_MAX_];
	int b = (int)cfg->backend, err;

	if (b < 0 || b >= CORDON_BACKEND_MAX_)
		return -CORDON_E_INVAL;
	(void)pthread_mutex_lock(&lock);
	if (!cache[b].valid) {
		cache[b].err = probe(cfg, NULL, NULL, &cache[b].backend,
		    &cache[b].applied, cache[b].reason, sizeof(cache[b].reason));
		/* A helper that could not start is not an answer to keep. */
		cache[b].valid = cache[b].err != -CORDON_E_HELPER;
	}
	*backend = cache[b].backend;
	*applied = cache[b].applied;
	if (reason != NULL && reasonsz > 0)
		snprintf(reason, reasonsz, "%s", cache[b].reason);
	err = cache[b].err;
	(void)pthread_mutex_unlock(&lock);
	return err;
}
