/*
 * test_vm.c - what only the VM matrix (tests/vm/) can show: a kernel other
 * than the build host's, and a host with unprivileged user namespaces
 * switched off (kernel.unprivileged_userns_clone=0).  Each test skips
 * unless the matrix started it (CORDON_VM set).
 *
 *   kernel_facts  `cordon probe` reports the guest kernel as it is: its
 *                 release, and the Landlock ABI the kernel itself answers
 *                 (CORDON_VM_LANDLOCK_ABI: what the matrix expects of it).
 *   userns_off    as an unprivileged user: auto degrades to landlock (or
 *                 the floor) with the reason; --backend linux-ns fails closed (125).
 *   landlock_old  a kernel whose Landlock is older than ABI 4 (6.1: ABI
 *                 2): the landlock backend runs, and what it cannot do
 *                 (network rules, scoping, below ABI 3 the file system)
 *                 is reported not applied with the ABI it needs, never
 *                 pretended; --require network-isolation runs nothing.
 *                 Skips unless CORDON_VM_LANDLOCK_ABI names the ABI.
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

static void setup(void) { scratch_init(&S); }

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
	/* The next best: landlock where the kernel has it, else the floor. */
	ck_assert(json_is(c.out, "backend", syscall(444, NULL, 0, 1U) > 0 ?
	    "landlock" : "floor"));
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

/*
 * The text of the object KEY ("applied", "not_applied") of a result: from
 * its '{' to the first '}' (its values are booleans and plain strings).
 */
static char *
object(const char *json, const char *key)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\":{", key);
	if ((p = strstr(json, pat)) == NULL || (e = strchr(p, '}')) == NULL)
		return strdup("");
	return strndup(p, (size_t)(e - p + 1));
}

/* Is "KEY":WANT (a literal: true, false, "text...) in the object OBJ? */
static bool
in_object(const char *json, const char *obj, const char *key,
    const char *want)
{
	char *o = object(json, obj), pat[256];
	bool yes;

	snprintf(pat, sizeof(pat), "\"%s\":%s", key, want);
	yes = strstr(o, pat) != NULL;
	if (!yes)
		fprintf(stderr, "%s: no %s in %s\n", obj, pat, o);
	free(o);
	return yes;
}

START_TEST(landlock_old)
{
	const char *want = getenv("CORDON_VM_LANDLOCK_ABI");
	char *run[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
	    S.base_opt, "--backend", "landlock", "--", "/bin/true", NULL };
	char *req[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
	    S.base_opt, "--backend", "landlock", "--require",
	    "network-isolation", "--", "/bin/sh", "-c", "echo payload-ran",
	    NULL };
	char *out, *v, fact[64];
	const char *pfx;
	struct cmd c;
	long abi;

	if (want == NULL) {
		printf("SKIP: landlock_old: CORDON_VM_LANDLOCK_ABI is not set "
		    "(tests/vm/matrix sets it for a kernel that has that ABI)\n");
		return;
	}
	/* landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) */
	abi = syscall(444, NULL, 0, 1U);
	ck_assert_msg(abi == atol(want) && abi > 0 && abi < 4, "this test "
	    "needs a kernel with Landlock ABI %s (below 4); this one has %ld",
	    want, abi);

	/* What the probe says of this Landlock, with the ABI each lacks. */
	out = probe();
	printf("probe: %s\n", out);
	snprintf(fact, sizeof(fact), "ABI %ld", abi);
	ck_assert(json_is(out, "landlock", fact));
	ck_assert(json_is(out, "landlock.network", "no: needs ABI 4"));
	ck_assert(json_is(out, "landlock.scoping", "no: needs ABI 6"));
	v = json_get(out, "landlock.filesystem");
	pfx = abi >= 3 ? "yes: " : "partial: truncate(2) needs ABI 3";
	ck_assert_msg(v != NULL && strncmp(v, pfx, strlen(pfx)) == 0,
	    "landlock.filesystem: %s", v);
	free(v);
	v = json_get(out, "landlock.backend");
	snprintf(fact, sizeof(fact), "yes: landlock ABI %ld: ", abi);
	ck_assert_msg(v != NULL && strncmp(v, fact, strlen(fact)) == 0,
	    "landlock.backend: %s", v);
	free(v);
	free(out);

	/* A run: landlock, and each missing control named with its ABI. */
	ck_assert_int_eq(run_cmd(&c, run, NULL), 0);
	printf("run: %s\n", c.out);
	ck_assert(json_is(c.out, "backend", "landlock"));
	ck_assert(json_is(c.out, "outcome", "exited"));
	v = json_get(c.out, "backend_reason");
	snprintf(fact, sizeof(fact), "landlock ABI %ld: ", abi);
	ck_assert_msg(v != NULL && strstr(v, fact) != NULL &&
	    strstr(v, "network isolation not applied (needs ABI 4)") != NULL &&
	    strstr(v, "scoping not applied (needs ABI 6)") != NULL &&
	    (abi >= 3 || strstr(v, "filesystem not applied (needs ABI 3") !=
	    NULL), "backend_reason: %s", v);
	free(v);
	ck_assert(in_object(c.out, "applied", "network", "false"));
	ck_assert(in_object(c.out, "applied", "scoping", "false"));
	ck_assert(in_object(c.out, "applied", "filesystem",
	    abi >= 3 ? "true" : "false"));
	ck_assert(in_object(c.out, "not_applied", "network",
	    "\"this kernel's Landlock has no network rules (needs ABI 4)\""));
	ck_assert(in_object(c.out, "not_applied", "scoping",
	    "\"this kernel's Landlock cannot scope signals and abstract "
	    "sockets (needs ABI 6)\""));
	if (abi < 3)
		ck_assert(in_object(c.out, "not_applied", "filesystem",
		    "\"this kernel's Landlock cannot confine truncate(2) "
		    "(needs ABI 3)\""));
	cmd_free(&c);

	/* Network isolation required: refused before anything runs. */
	ck_assert_int_eq(run_cmd(&c, req, NULL), 125);
	ck_assert_msg(strstr(c.out, "payload-ran") == NULL, "ran: %s", c.out);
	ck_assert_msg(strstr(c.err, "nothing was run") != NULL &&
	    strstr(c.err, "network-isolation: this kernel's Landlock has no "
	    "network rules (needs ABI 4)") != NULL, "stderr: %s", c.err);
	cmd_free(&c);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("vm");
	TCase *tc;
	SRunner *sr;
	int failed;

	if (getenv("CORDON_VM") == NULL) {
		printf("SKIP: test_vm runs inside the VM matrix (make check-vm)\n");
		return 77;
	}

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
	tc = tcase_create("landlock_old");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, landlock_old);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
