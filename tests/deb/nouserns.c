/*
 * nouserns.c - run a command on a host that, for it, has no user
 * namespaces: the case setuid mode is for (tests/deb/check-package.sh).
 *
 *   nouserns COMMAND [ARG...]        (as root)
 *
 * Loads a seccomp filter that fails every way of making a user namespace
 * - unshare and clone with CLONE_NEWUSER (EPERM), and clone3 (ENOSYS, so
 * libc falls back to clone, whose flags a filter can read) - then execs
 * COMMAND.  The filter holds for COMMAND and everything it starts.  Root
 * needs no PR_SET_NO_NEW_PRIVS to load it, so none is set, and a setuid
 * program below it still gains its owner's ids.  Nothing outside this
 * process tree changes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <seccomp.h>

int
main(int argc, char *argv[])
{
	static const struct {
		int nr;
		int err;
		int by_flag; /* only when the first argument has CLONE_NEWUSER */
	} deny[] = {
		{ SCMP_SYS(unshare), EPERM, 1 },
		{ SCMP_SYS(clone), EPERM, 1 },
		{ SCMP_SYS(clone3), ENOSYS, 0 },
	};
	struct scmp_arg_cmp newuser =
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER);
	scmp_filter_ctx ctx;
	size_t i;
	int r;

	if (argc < 2) {
		fprintf(stderr, "usage: nouserns COMMAND [ARG...]\n");
		return 2;
	}
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		fprintf(stderr, "nouserns: seccomp_init failed\n");
		return 1;
	}
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	for (i = 0; r == 0 && i < sizeof(deny) / sizeof(deny[0]); i++)
		r = deny[i].by_flag ?
		    seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(deny[i].err),
			deny[i].nr, 1, &newuser) :
		    seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(deny[i].err),
			deny[i].nr, 0, NULL);
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r != 0) {
		fprintf(stderr, "nouserns: cannot load the filter: %s\n",
		    strerror(r < 0 ? -r : r));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nouserns: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
