/*
 * test_vm.c - what only the VM matrix (tests/vm/) can show: a kernel other
 * than the build host's, and a host with unprivileged user namespaces
 * switched off (kernel.unprivileged_userns_clone=0).  Each test skips
 * unless the matrix started it (CORDON_VM set).
 *
 *   kernel_facts  `cordon probe` reports the guest kernel as it is: its
 *                 release, and the Landlock ABI the kernel itself answers
 *                 (CORDON_VM_LANDLOCK_ABI: what the matrix expects of it).
 *   userns_off    as an unprivileged user: auto degrades to the floor
 *                 with the reason; --backend linux-ns fails closed (125).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "testutil.h"

static struct scratch S;

static void
setup(void)
{
	if (getenv("CORDON_VM") == NULL) {
		printf("SKIP: test_vm runs inside the VM matrix (make check-vm)\n");
		exit(77);
	}
	scratch_init(&S);
}

static void teardown(void) { scratch_fini(&S); }

static char *
probe(void)
{
	char *argv[] = { (char *)cordon_bin(), "probe", "--json", NULL };
	struct cmd c;
	char *out;

	ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
	out = strdup(c.out);
	cmd_free(&c);
	return out;
}

START_TEST(kernel_facts)
{
	const char *want = getenv("CORDON_VM_LANDLOCK_ABI");
	char *out = probe(), *kernel = json_get(out, "kernel");
	char *ll = json_get(out, "landlock"), abi[32];
	struct utsname u;
	long v;

	printf("probe: %s\n", out);
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_msg(kernel != NULL && strstr(kernel, u.release) != NULL,
	    "kernel fact %s, uname %s", kernel, u.release);
	/* landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) */
	v = syscall(444, NULL, 0, 1U);
	snprintf(abi, sizeof(abi), "ABI %ld", v);
	ck_assert_msg(v > 0 && ll != NULL && strcmp(ll, abi) == 0,
	    "landlock fact %s, kernel says %ld", ll, v);
	if (want != NULL)
		ck_assert_msg(v == atol(want), "a kernel with Landlock ABI %s "
		    "was expected, this one has %ld", want, v);
	free(kernel);
	free(ll);
	free(out);
}
END_TEST

START_TEST(userns_off)
{
	char *run[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
	    S.base_opt, "--", (char *)payload_bin(), "exit", "3", NULL };
	char *ns[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
	    S.base_opt, "--backend", "linux-ns", "--", (char *)payload_bin(),
	    "exit", "3", NULL };
	char *out = probe(), *v = json_get(out, "linux-ns");
	struct cmd c;

	ck_assert_msg(getuid() != 0, "run this as an unprivileged user");
	ck_assert_msg(v != NULL && strncmp(v, "no: ", 4) == 0,
	    "linux-ns fact: %s", v);
	free(v);
	ck_assert_int_eq(run_cmd(&c, run, NULL), 3);
	ck_assert(json_is(c.out, "backend", "floor"));
	v = json_get(c.out, "backend_reason");
	ck_assert_msg(v != NULL && strstr(v, "linux-ns unavailable: ") != NULL,
	    "backend_reason %s", v);
	free(v);
	cmd_free(&c);
	ck_assert_int_eq(run_cmd(&c, ns, NULL), 125);
	ck_assert_msg(strstr(c.err, "linux-ns") != NULL, "stderr: %s", c.err);
	cmd_free(&c);
	free(out);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("vm");
	TCase *tc;
	SRunner *sr;
	int failed;

	tc = tcase_create("kernel_facts");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, kernel_facts);
	suite_add_tcase(s, tc);
	tc = tcase_create("userns_off");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, userns_off);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
