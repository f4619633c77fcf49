/*
 * seccomp.c - the baseline syscall filter of the payload (libseccomp).
 *
 * Namespaces do not cover every piece of kernel surface a payload could
 * reach.  This filter refuses, with EPERM rather than a kill so ordinary
 * programs degrade gracefully: the kernel keyring, bpf, perf_event_open,
 * userfaultfd, kexec and module loading, TIOCSTI/TIOCLINUX (typing into
 * the terminal the run was started from), syscalls of other ABIs (i386,
 * x32), and creating further user namespaces.  clone3 gets ENOSYS: its
 * flags sit behind a pointer a filter cannot read, and libc then falls
 * back to clone, whose flags the filter can.
 */
#include "config.h"

#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/ioctl.h>

#include <seccomp.h>

#include "helper.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

static const char *const denied[] = {
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module",
};

/*
 * Landlock (ABI 4) handles only TCP: where it denies TCP, these rules
 * close the rest of the network - UDP, raw and SCTP sockets, TCP-like
 * protocols it may not see (SCTP, MPTCP), packet sockets - and io_uring,
 * whose requests a filter could not see.  Unix sockets are untouched.
 */
static int
deny_inet(scmp_filter_ctx ctx)
{
	static const int fams[] = { AF_INET, AF_INET6 };
	static const int types[] = { SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET };
	static const int protos[] = { IPPROTO_SCTP, 262 /* IPPROTO_MPTCP */ };
	const uint32_t deny = SCMP_ACT_ERRNO(EACCES);
	size_t f, i;

	for (f = 0; f < 2; f++) {
		for (i = 0; i < 3; i++)
			if (seccomp_rule_add(ctx, deny, SCMP_SYS(socket), 2,
			    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fams[f], 0),
			    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, (scmp_datum_t)types[i]))
			    < 0)
				return -1;
		for (i = 0; i < 2; i++)
			if (seccomp_rule_add(ctx, deny, SCMP_SYS(socket), 2,
			    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fams[f], 0),
			    SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)protos[i], 0)) < 0)
				return -1;
	}
	return seccomp_rule_add(ctx, deny, SCMP_SYS(socket), 1,
	    SCMP_A0(SCMP_CMP_EQ, AF_PACKET, 0)) < 0 ||
	    seccomp_rule_add(ctx, deny, SCMP_SYS(io_uring_setup), 0) < 0 ? -1 : 0;
}

int
seccomp_baseline(bool no_inet)
{
	scmp_filter_ctx ctx;
	size_t i;
	int nr, r = -1;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return -1;
	/* Other ABIs: refused, not killed (libseccomp adds only ours). */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_ERRNO(EPERM)) < 0)
		goto out;
	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		nr = seccomp_syscall_resolve_name(denied[i]);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture */
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) < 0)
			goto out;
	}
	/* ioctl's request is an int: compare the low 32 bits only. */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU, TIOCSTI)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU, TIOCLINUX)) < 0)
		goto out;
	/* No user namespace inside the sandbox (policy may allow it later). */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3),
	    0) < 0)
		goto out;
	if (no_inet && deny_inet(ctx) < 0)
		goto out;
	r = seccomp_load(ctx) < 0 ? -1 : 0;
out:
	seccomp_release(ctx);
	return r;
}
