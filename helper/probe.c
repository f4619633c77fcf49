/*
 * probe.c - the helper's part of a probe: what only the helper can know.
 *
 * `cordon probe` shows facts from two places.  The broker finds what needs
 * no privilege (kernel, each namespace type, seccomp, Landlock, cgroups);
 * the helper, which alone decides what a run gets, answers a PROBE with
 * whether it is setuid, whether it can really build the linux-ns
 * boundary (in a throw-away child, ns.c), the Landlock ABI it would use
 * and what that gives (landlock.c), then the backend auto would
 * pick or an error for a backend asked for by name that it cannot build.
 */
#include "config.h"


#include "helper.h"

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

int
backend_decide(enum cordon_backend_id want, bool ns_ok, const char *nserr,
    int landlock_abi, enum cordon_backend_id *pick, char *reason,
    size_t reasonsz)
{
	/* The other systems' backends: never here, never a degrade. */
	if (want >= CORDON_BACKEND_JOB) {
		(void)fmt(reason, reasonsz, "it runs only on %s",
		    want == CORDON_BACKEND_SEATBELT ? "macOS" : "Windows");
		return -1;
	}
	/* Asked for by name: that backend or nothing (fail closed). */
	if (want == CORDON_BACKEND_LINUX_NS && !ns_ok) {
		(void)fmt(reason, reasonsz, "%s", nserr);
		return -1;
	}
	if (want == CORDON_BACKEND_LANDLOCK && landlock_abi < 1) {
		(void)fmt(reason, reasonsz, "the kernel offers no Landlock "
		    "(not built in, or not enabled at boot)");
		return -1;
	}
	/* auto: the ladder linux-ns, landlock, floor. */
	if (want == CORDON_BACKEND_AUTO)
		want = ns_ok ? CORDON_BACKEND_LINUX_NS : landlock_abi > 0 ?
		    CORDON_BACKEND_LANDLOCK : CORDON_BACKEND_FLOOR;
	else
		nserr = NULL;
	*pick = want;
	if (nserr == NULL)
		(void)fmt(reason, reasonsz, "requested");
	else if (ns_ok)
		(void)fmt(reason, reasonsz, "user namespaces available");
	else
		(void)fmt(reason, reasonsz, "linux-ns unavailable: %s%s", nserr,
		    want == CORDON_BACKEND_FLOOR ? "; no Landlock either" : "");
	return 0;
}

uint32_t
backend_applied(enum cordon_backend_id b, const struct request *req,
    int abi)
{
	bool isolate = (req->flags & CORDON_REQ_NETWORK) == 0;
	uint32_t applied = 1U << CORDON_CAP_CPU | 1U << CORDON_CAP_WALL |
	    1U << CORDON_CAP_MEMORY | 1U << CORDON_CAP_NOFILE;

	/* The monitor enforces these on every backend, when asked. */
	if (req->limits.nproc != 0)
		applied |= 1U << CORDON_CAP_NPROC;
	if (req->limits.output_bytes != 0)
		applied |= 1U << CORDON_CAP_OUTPUT;
	if (req->limits.disk_bytes != 0)
		applied |= 1U << CORDON_CAP_DISK;
	/*
	 * linux-ns: a private read-only root, and pid, ipc and net
	 * namespaces of its own.  Landlock: truncate(2) is handled from ABI
	 * 3, TCP from 4, signals and abstract sockets from 6 (landlock.c).
	 * The floor has none of them.
	 */
	if (b == CORDON_BACKEND_LINUX_NS)
		applied |= 1U << CORDON_CAP_FILESYSTEM |
		    1U << CORDON_CAP_SCOPING |
		    (isolate ? 1U << CORDON_CAP_NETWORK : 0);
	if (b == CORDON_BACKEND_LANDLOCK)
		applied |= (abi >= 3 ? 1U << CORDON_CAP_FILESYSTEM : 0) |
		    (abi >= 6 ? 1U << CORDON_CAP_SCOPING : 0) |
		    (abi >= 4 && isolate ? 1U << CORDON_CAP_NETWORK : 0);
	return applied;
}

void
probe_report(int sock, enum cordon_backend_id want)
{
	struct cordon_msg m;
	char v[CORDON_MAX_TEXT_LEN], reason[CORDON_MAX_TEXT_LEN];
	char nserr[CORDON_MAX_TEXT_LEN] = "";
	enum cordon_backend_id pick = CORDON_BACKEND_FLOOR;
	/* What the backend gives a run that asks for everything. */
	struct request all = { .limits.nproc = 1, .limits.output_bytes = 1,
	    .limits.disk_bytes = 1 };
	bool per_ns = false, ns_ok;
	int abi, fd;

	(void)fmt(v, sizeof(v), "%u%s", (unsigned)getuid(), getuid() == 0 ?
	    " (root: the linux-ns payload runs as nobody)" : "");
	fact(sock, "invoker.uid", v);
	fact(sock, "helper.setuid", priv_setuid() ? "yes" : "no");

	/* The real thing, minus the payload: what a run's init does first. */
	ns_ok = ns_probe(nserr, sizeof(nserr), &per_ns) == 0;
	if (!ns_ok)
		(void)fmt(v, sizeof(v), "no: %s", nserr);
	fact(sock, "linux-ns", ns_ok ? "yes: user, mount, pid, net, ipc, uts "
	    "and cgroup namespaces, private root, loopback" : v);
	fact(sock, "rlimit_nproc.per_namespace", !ns_ok ? "unknown" : per_ns ?
	    "yes: --nproc is also a kernel limit" :
	    "no: --nproc is enforced by the monitor alone");

	if ((abi = landlock_abi()) > 0) {
		landlock_describe(abi, false, reason, sizeof(reason));
		(void)fmt(v, sizeof(v), "yes: %s", reason);
	}
	fact(sock, "landlock.backend", abi > 0 ? v : "no: the kernel offers "
	    "no Landlock");

	/* The same search a run makes (root may create the parent). */
	if ((fd = cgroup_parent(reason, sizeof(reason))) >= 0)
		close(fd);
	(void)fmt(v, sizeof(v), fd >= 0 ? "yes: a cgroup per run below %s; "
	    "memory and processes capped by the kernel" : "no: %s", reason);
	fact(sock, "cgroup.runs", v);

	memset(&m, 0, sizeof(m));
	if (backend_decide(want, ns_ok, nserr, abi, &pick, reason,
	    sizeof(reason)) < 0) {
		(void)fmt(v, sizeof(v), "backend %s is not available: %s",
		    cordon_backend_name(want), reason);
		m.type = CORDON_MSG_ERROR;
		m.u.error.message = v;
	} else {
		m.type = CORDON_MSG_BACKEND;
		m.u.backend.backend = (uint8_t)pick;
		m.u.backend.applied = backend_applied(pick, &all, abi);
		m.u.backend.reason = reason;
	}
	(void)cordon_msg_send(sock, &m);
}
