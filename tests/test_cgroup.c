/*
 * test_cgroup.c - per-run cgroups (helper/cgroup.c), or the monitor where
 * the host has none.
 *
 * Which one a host gives is what `cordon probe` says (cgroup.runs); every
 * test checks that runs agree with it.  On a host without a usable cgroup
 * v2 subtree (this CI machine: a hybrid) the caps still hold, through the
 * monitor, and the probe names the reason.  The VM matrix (tests/vm/) runs
 * the same tests where the kernel does the work and sets
 * CORDON_VM_EXPECT_CGROUP=1 (the probe must then say yes) or =0.
 *
 * Measurements for the record go to stdout as "MEASURE: ..." lines.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "testutil.h"

static struct scratch S;
static char parent[512]; /* the runs' parent cgroup, if probe said yes */

static void setup(void) { scratch_init(&S); }
static void teardown(void) { scratch_fini(&S); }

/* Runs cordon run --json ... -- payload ARGS; the exit status. */
static int
crun(struct cmd *c, const char *mem, const char *nproc, const char *a1,
    const char *a2)
{
	/*
	 * linux-ns sees only the system directories: a payload in a build
	 * tree elsewhere (not the VM's /opt) runs on the floor.
	 */
	bool sys = strncmp(payload_bin(), "/opt/", 5) == 0 ||
	    strncmp(payload_bin(), "/usr/", 5) == 0;
	char *argv[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
	    S.base_opt, sys ? "--backend=auto" : "--backend=floor", "--wall",
	    "120", "--memory", (char *)mem, "--nproc", (char *)nproc, "--",
	    (char *)payload_bin(), (char *)a1, (char *)a2, NULL };

	if (nproc == NULL)
		memmove(&argv[10], &argv[12], sizeof(char *) * 5);
	return run_cmd(c, argv, NULL);
}

/* Whether runs get a cgroup here, from the probe; checked against the VM. */
static bool
cgroups_here(void)
{
	char *argv[] = { (char *)cordon_bin(), "probe", "--json", NULL };
	const char *want = getenv("CORDON_VM_EXPECT_CGROUP");
	struct cmd c;
	char *v;
	bool yes;

	ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
	v = json_get(c.out, "cgroup.runs");
	ck_assert_msg(v != NULL, "no cgroup.runs fact: %s", c.out);
	printf("cgroup.runs: %s\n", v);
	yes = strncmp(v, "yes: a cgroup per run below ", 28) == 0;
	ck_assert_msg(yes || (strncmp(v, "no: ", 4) == 0 && strlen(v) > 12),
	    "cgroup.runs is neither yes nor no with a reason: %s", v);
	if (yes)
		ck_assert(sscanf(v + 28, "%511[^;]", parent) == 1);
	if (want != NULL)
		ck_assert_msg(yes == (strcmp(want, "1") == 0),
		    "expected cgroup.runs %s, got: %s", want, v);
	free(v);
	cmd_free(&c);
	return yes;
}

/* cordon-* entries left under the parent. */
static int
leftovers(void)
{
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (parent[0] == '\0' || (d = opendir(parent)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, "cordon-", 7) == 0;
	closedir(d);
	return n;
}

/* Processes whose command line names the payload's mode, anywhere. */
static int
still_running(const char *mode)
{
	char path[300], buf[512];
	struct dirent *e;
	DIR *d = opendir("/proc");
	FILE *f;
	size_t n;
	int found = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
		    (f = fopen(path, "re")) == NULL)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		/* argv[0] is the payload, argv[1] the mode. */
		found += strstr(buf, "payload") != NULL &&
		    n > strlen(buf) + 1 && strcmp(buf + strlen(buf) + 1, mode) == 0;
	}
	closedir(d);
	return found;
}

/*
 * Whether this run's process cap is a v1 pids cgroup's (cgroup.c): root's
 * floor or Landlock run where the host mounts the v1 pids controller and
 * gives no v2 cgroup.
 */
static bool
v1_pids(const char *out, bool cg)
{
	char *b = json_get(out, "backend");
	struct statfs sf;
	bool r = !cg && geteuid() == 0 && b != NULL &&
	    (strcmp(b, "floor") == 0 || strcmp(b, "landlock") == 0) &&
	    statfs("/sys/fs/cgroup/pids", &sf) == 0 && sf.f_type == 0x27e0eb;

	free(b);
	return r;
}

static void
assert_enforced(const char *out, const char *cap, bool cg)
{
	char *e = json_get(out, "enforcement"), want[64];

	snprintf(want, sizeof(want), "\"%s\":\"%s\"", cap,
	    cg ? "cgroup" : "monitor");
	ck_assert_msg(e != NULL && strstr(e, want) != NULL,
	    "enforcement %s, wanted %s", e, want);
	free(e);
}

START_TEST(memory_cap)
{
	bool cg = cgroups_here();
	unsigned long long rss, lim = 64ULL << 20;
	struct cmd c;
	char *v;

	ck_assert_int_eq(crun(&c, "64M", NULL, "alloc", "400"), 124);
	ck_assert_msg(json_is(c.out, "cap", "memory"), "%s", c.out);
	assert_enforced(c.out, "memory", cg);
	v = json_get(c.out, "max_rss_bytes");
	rss = strtoull(v, NULL, 10);
	printf("MEASURE: memory cap 64 MiB, alloc 400 MiB, enforced by %s: "
	    "max_rss %llu bytes, overshoot %lld bytes\n",
	    cg ? "cgroup" : "monitor", rss, (long long)(rss - lim));
	/* The kernel never charges past memory.max: no overshoot at all. */
	if (cg)
		ck_assert_msg(rss <= lim, "memory.peak %llu over %llu", rss, lim);
	ck_assert_int_eq(leftovers(), 0);
	free(v);
	cmd_free(&c);
}
END_TEST

START_TEST(fork_bomb)
{
	bool cg = cgroups_here();
	struct cmd c;
	char *wall;

	ck_assert_int_eq(crun(&c, "256M", "16", "forkbomb", NULL), 124);
	ck_assert_msg(json_is(c.out, "cap", "processes"), "%s", c.out);
	wall = json_get(c.out, "wall_seconds");
	printf("MEASURE: fork bomb, --nproc 16, enforced by %s: ended after "
	    "%s s\n", cg ? "cgroup" : "monitor", wall);
	free(wall);
	assert_enforced(c.out, "processes", cg || v1_pids(c.out, cg));
	ck_assert_int_eq(leftovers(), 0);
	ck_assert_int_eq(still_running("forkbomb"), 0); /* cgroup.kill took all */
	cmd_free(&c);
}
END_TEST

/* An ordinary run: its own figures, and nothing left behind. */
START_TEST(ordinary_run)
{
	bool cg = cgroups_here();
	struct cmd c;
	char *cpu;

	ck_assert_int_eq(crun(&c, "128M", "8", "spin", "0.3"), 0);
	ck_assert(json_is(c.out, "outcome", "exited"));
	assert_enforced(c.out, "memory", cg);
	assert_enforced(c.out, "processes", cg || v1_pids(c.out, cg));
	cpu = json_get(c.out, "cpu_seconds");
	ck_assert_msg(strtod(cpu, NULL) >= 0.3, "cpu_seconds %s", cpu);
	ck_assert_int_eq(leftovers(), 0);
	free(cpu);
	cmd_free(&c);
}
END_TEST

/*
 * A parent that is no cgroup (the test-only override, pointed at a plain
 * directory): nothing is created or written there, the run falls back to
 * the monitor, and probe names the reason.
 */
START_TEST(bogus_parent_falls_back)
{
	char env[400], *envv[] = { env, NULL }, *v, junk[400];
	char *probe[] = { (char *)cordon_bin(), "probe", "--json", NULL };
	char *run[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
	    S.base_opt, "--backend=floor", "--memory", "64M", "--",
	    (char *)payload_bin(), "alloc", "200", NULL };
	struct cmd c;

	snprintf(env, sizeof(env), "CORDON_CGROUP_PARENT=%s", S.root);
	ck_assert_int_eq(run_cmd(&c, probe, envv), 0);
	v = json_get(c.out, "cgroup.runs");
	ck_assert_msg(v != NULL && strncmp(v, "no: ", 4) == 0, "%s", v);
	free(v);
	cmd_free(&c);
	ck_assert_int_eq(run_cmd(&c, run, envv), 124);
	ck_assert(json_is(c.out, "cap", "memory"));
	assert_enforced(c.out, "memory", false);
	cmd_free(&c);
	snprintf(junk, sizeof(junk), "%s/cgroup.subtree_control", S.root);
	ck_assert_int_ne(access(junk, F_OK), 0);
	snprintf(parent, sizeof(parent), "%s", S.root);
	ck_assert_int_eq(leftovers(), 0);
	parent[0] = '\0';
}
END_TEST

/* A dead helper's cgroup (its flock is free) is reclaimed by cordon gc. */
START_TEST(gc_reclaims)
{
	char *gc[] = { (char *)cordon_bin(), "gc", S.trace_opt, S.base_opt,
	    NULL };
	char dead[700];
	struct cmd c;

	if (!cgroups_here())
		return;
	ck_assert_int_eq(crun(&c, "64M", NULL, "exit", "0"), 0);
	cmd_free(&c);
	snprintf(dead, sizeof(dead), "%s/cordon-00000000000000000000000000000000",
	    parent);
	ck_assert_int_eq(mkdir(dead, 0755), 0);
	ck_assert_int_eq(run_cmd(&c, gc, NULL), 0);
	ck_assert_msg(strstr(c.out, "1 cgroup(s)") != NULL ||
	    strstr(c.err, "1 cgroup(s)") != NULL, "%s%s", c.out, c.err);
	ck_assert_int_eq(leftovers(), 0);
	cmd_free(&c);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("cgroup");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, memory_cap);
	tcase_add_test(tc, fork_bomb);
	tcase_add_test(tc, ordinary_run);
	tcase_add_test(tc, gc_reclaims);
	tcase_add_test(tc, bogus_parent_falls_back);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
