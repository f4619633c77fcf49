/*
 * probe.c - the helper's part of a probe: what only the helper can know.
 *
 * `cordon probe` shows facts from two places.  The broker finds what needs
 * no privilege (kernel, each namespace type, seccomp, Landlock, cgroups);
 * the helper, which alone decides what a run gets, answers a PROBE with
 * whether it is setuid and whether it can really build the linux-ns
 * boundary (in a throw-away child, ns.c), then the backend auto would
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
    enum cordon_backend_id *pick, char *reason, size_t reasonsz)
{
	if (want == CORDON_BACKEND_LANDLOCK) {
		(void)fmt(reason, reasonsz, "not in this build of cordon-helper");
		return -1;
	}
	if (want == CORDON_BACKEND_LINUX_NS && !ns_ok) {
		(void)fmt(reason, reasonsz, "%s", nserr); /* fail closed */
		return -1;
	}
	*pick = ns_ok && want != CORDON_BACKEND_FLOOR ?
	    CORDON_BACKEND_LINUX_NS : CORDON_BACKEND_FLOOR;
	if (want != CORDON_BACKEND_AUTO)
		(void)fmt(reason, reasonsz, "requested");
	else if (ns_ok)
		(void)fmt(reason, reasonsz, "user namespaces available");
	else
		(void)fmt(reason, reasonsz, "linux-ns unavailable: %s", nserr);
	return 0;
}

void
probe_report(int sock, enum cordon_backend_id want)
{
	struct cordon_msg m;
	char v[CORDON_MAX_TEXT_LEN], reason[CORDON_MAX_TEXT_LEN];
	char nserr[CORDON_MAX_TEXT_LEN] = "";
	enum cordon_backend_id pick = CORDON_BACKEND_FLOOR;
	bool per_ns = false, ns_ok;
	int fd;

	(void)fmt(v, sizeof(v), "%u%s", (unsigned)getuid(), getuid() == 0 ?
	    " (root: the linux-ns payload runs as nobody)" : "");
	fact(sock, "invoker.uid", v);
	fact(sock, "helper.setuid", geteuid() != getuid() ? "yes" : "no");

	/* The real thing, minus the payload: what a run's init does first. */
	ns_ok = ns_probe(nserr, sizeof(nserr), &per_ns) == 0;
	if (!ns_ok)
		(void)fmt(v, sizeof(v), "no: %s", nserr);
	fact(sock, "linux-ns", ns_ok ? "yes: user, mount, pid, net, ipc, uts "
	    "and cgroup namespaces, private root, loopback" : v);
	fact(sock, "rlimit_nproc.per_namespace", !ns_ok ? "unknown" : per_ns ?
	    "yes: --nproc is also a kernel limit" :
	    "no: --nproc is enforced by the monitor alone");

	/* The same search a run makes (root may create the parent). */
	if ((fd = cgroup_parent(reason, sizeof(reason))) >= 0)
		close(fd);
	(void)fmt(v, sizeof(v), fd >= 0 ? "yes: a cgroup per run below %s; "
	    "memory and processes capped by the kernel" : "no: %s", reason);
	fact(sock, "cgroup.runs", v);

	memset(&m, 0, sizeof(m));
	if (backend_decide(want, ns_ok, nserr, &pick, reason,
	    sizeof(reason)) < 0) {
		(void)fmt(v, sizeof(v), "backend %s is not available: %s",
		    cordon_backend_name(want), reason);
		m.type = CORDON_MSG_ERROR;
		m.u.error.message = v;
	} else {
		m.type = CORDON_MSG_BACKEND;
		m.u.backend.backend = (uint8_t)pick;
		m.u.backend.reason = reason;
	}
	(void)cordon_msg_send(sock, &m);
}
