/*
 * test_policy.c - policy/policy.c (the parser and the checks), and what
 * users rely on end to end: profiles and their precedence, ceilings that
 * refuse before anything runs, the system policy's ownership rules,
 * --env / --keep-env, --require failing closed, the helper enforcing the
 * policy by itself, and `cordon policy check` on the shipped files.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "policy.h"
#include "testutil.h"
#include "wire.h"

#define NAME "t.conf"

/* ---- the parser ---------------------------------------------------------- */

static int
parse(const char *text, size_t len, enum cordon_policy_kind want,
    struct cordon_policy *pol, struct cordon_profile *prof, char *err,
    size_t errsz)
{
	err[0] = '\0';
	return cordon_policy_parse(NAME, text, len, want, NULL, pol, prof, err,
	    errsz);
}

static const struct bad {
	const char *text;
	const char *error;
} bad_files[] = {
	{ "[bogus]\n", NAME ":1: unknown section [bogus] (a policy has "
	    "[ceilings] and [policy]; a profile has [profile])" },
	{ "[profile]\nfoo = 1\n", NAME ":2: unknown key 'foo' in [profile]" },
	{ "[ceilings]\ncpu = 1s\n", NAME ":2: unknown key 'cpu' in [ceilings]" },
	{ "[profile]\nmax_cpu = 1s\n",
	    NAME ":2: unknown key 'max_cpu' in [profile]" },
	{ "[profile]\nmemory = 12Q\n",
	    NAME ":2: memory: '12Q' is not a size (e.g. 512M, 2G)" },
	{ "[profile]\nmemory = -1G\n",
	    NAME ":2: memory: '-1G' is not a size (e.g. 512M, 2G)" },
	{ "[profile]\ncpu = 1 s\n", NAME ":2: cpu: '1 s' is not a duration "
	    "(e.g. 90s, 1.5, 500ms, 2m, 1h)" },
	{ "[profile]\nnproc = 1.5\n",
	    NAME ":2: nproc: '1.5' is not a whole number" },
	{ "[profile]\ncpu = 1s\ncpu = 2s\n",
	    NAME ":3: cpu is set twice (first on line 2)" },
	{ "[policy]\nrequire = memory\n\nrequire = cpu\n",
	    NAME ":4: require is set twice (first on line 2)" },
	{ "[profile]\ncpu 5s\n", NAME ":2: expected KEY = VALUE or [SECTION]" },
	{ "[profile]\n = 5\n", NAME ":2: no key before '='" },
	{ "[profile]\nCPU = 5\n", NAME ":2: 'CPU' is not a key" },
	{ "[profile]\nnofile = 2\n",
	    NAME ":2: nofile: 2 is out of range (4 to 1048576)" },
	{ "[profile]\nmemory = 2048T\n",
	    NAME ":2: memory: 2048T is out of range (1M to 1048576G)" },
	{ "[profile]\ncpu = 99999999999999999999\n", NAME ":2: cpu: "
	    "99999999999999999999 is out of range (0.001s to 604800s)" },
	{ "[profile]\nwall = 8d\n", NAME ":2: wall: '8d' is not a duration "
	    "(e.g. 90s, 1.5, 500ms, 2m, 1h)" },
	{ "[ceilings]\nmax_nproc = 0\n",
	    NAME ":2: max_nproc: 0 is out of range (1 to 4194304)" },
	{ "cpu = 1\n", NAME ":1: key 'cpu' before any [section]" },
	{ "[profile]\n[profile]\n",
	    NAME ":2: section [profile] given twice (first on line 1)" },
	{ "[ceilings]\n[profile]\n",
	    NAME ":2: section [profile] does not belong in a system policy" },
	{ "[profile]\n[policy]\n",
	    NAME ":2: section [policy] does not belong in a profile" },
	{ "[profile] x\n", NAME ":1: a section header is '[NAME]' with "
	    "nothing after it" },
	{ "[]\n", NAME ":1: unknown section [] (a policy has [ceilings] and "
	    "[policy]; a profile has [profile])" },
	{ "[profile]\r\n", NAME ":1: carriage return in the line (DOS line "
	    "endings are not accepted)" },
	{ "[profile]\ncpu = \x01\n",
	    NAME ":2: control character 0x01 in the line" },
	{ "[profile]\ncpu = 1\x7f\n",
	    NAME ":2: control character 0x7f in the line" },
	{ "[profile]\ncpu =\n", NAME ":2: cpu: empty value" },
	{ "[profile]\nnetwork = maybe\n",
	    NAME ":2: network: 'maybe' is not yes or no" },
	{ "[profile]\nnetwork = YES\n",
	    NAME ":2: network: 'YES' is not yes or no" },
	{ "[profile]\nbackend = docker\n", NAME ":2: backend: unknown backend "
	    "'docker' (auto, linux-ns, landlock, floor, job, appcontainer, "
	    "seatbelt)" },
	{ "[policy]\nrequire = memory, teleport\n", NAME ":2: require: "
	    "'teleport' is not a control (network-isolation, filesystem-"
	    "isolation, signal-scoping, memory, processes, cpu, wall, "
	    "open-files, output, disk)" },
	{ "[profile]\nrequire = memory,,cpu\n", NAME ":2: require: '' is not "
	    "a control (network-isolation, filesystem-isolation, "
	    "signal-scoping, memory, processes, cpu, wall, open-files, output, "
	    "disk)" },
	{ "[policy]\nallow_groups = wheel, *\n", NAME ":2: allow_groups: '*' "
	    "means everyone and cannot be listed with groups" },
	{ "[policy]\nnetwork_groups = a b\n",
	    NAME ":2: network_groups: 'a b' is not a group name" },
	{ "[policy]\nnetwork_groups = a,\n",
	    NAME ":2: network_groups: '' is not a group name" },
	{ "[policy]\ncgroup_parent = cordon\n",
	    NAME ":2: cgroup_parent: 'cordon' is not a clean absolute path" },
	{ "[policy]\ncgroup_parent = /a/../b\n",
	    NAME ":2: cgroup_parent: '/a/../b' is not a clean absolute path" },
	{ "[profile]\nenv = NOEQUALS\n",
	    NAME ":2: env: 'NOEQUALS' is not KEY=VALUE" },
	{ "[profile]\nenv = 1X=2\n", NAME ":2: env: '1X' is not a variable "
	    "that may be set (a name of letters, digits and '_' not starting "
	    "with a digit; HOME and TMPDIR are cordon's)" },
	{ "[profile]\nenv = HOME=/root\n", NAME ":2: env: 'HOME' is not a "
	    "variable that may be set (a name of letters, digits and '_' not "
	    "starting with a digit; HOME and TMPDIR are cordon's)" },
	{ "[profile]\nenv = A-B=1\n", NAME ":2: env: 'A-B' is not a variable "
	    "that may be set (a name of letters, digits and '_' not starting "
	    "with a digit; HOME and TMPDIR are cordon's)" },
	{ "[profile]\nenv = A=1\nenv = A=2\n", NAME ":3: env: A is set twice" },
	{ "[profile]\nkeep_env = A=1\n",
	    NAME ":2: keep_env: 'A=1' is not a variable name" },
	{ "[profile]\nkeep_env = X\nkeep_env = X\n",
	    NAME ":3: keep_env: X is given twice" },
	{ "[profile]\nkeep_env = HTTPS_PROXY\n", NAME ":2: keep_env: "
	    "HTTPS_PROXY is a proxy variable, which is never taken from the "
	    "environment; set it with env = HTTPS_PROXY=VALUE if the payload "
	    "must have it" },
	/* Comments and blank lines still count as lines. */
	{ "[profile]\n\n# comment\n  ; another\n\tbogus = 1\n",
	    NAME ":5: unknown key 'bogus' in [profile]" },
	{ "", NAME ": no section, so it is neither a policy nor a profile "
	    "(give the kind)" },
	{ "# only a comment", NAME ": no section, so it is neither a policy "
	    "nor a profile (give the kind)" },
};

START_TEST(malformed_lines_name_file_and_line)
{
	struct cordon_policy pol;
	struct cordon_profile prof;
	char err[1024];

	cordon_policy_init(&pol);
	pol.ceiling[CORDON_CAP_CPU] = 42;
	cordon_profile_init(&prof);
	ck_assert_int_lt(parse(bad_files[_i].text, strlen(bad_files[_i].text),
	    CORDON_KIND_ANY, &pol, &prof, err, sizeof(err)), 0);
	ck_assert_msg(strcmp(err, bad_files[_i].error) == 0,
	    "input %d:\n got: %s\nwant: %s", _i, err, bad_files[_i].error);
	/* A bad file changes nothing. */
	ck_assert_uint_eq(pol.ceiling[CORDON_CAP_CPU], 42);
	ck_assert_uint_eq(prof.set, 0);
	ck_assert_uint_eq(prof.nenv, 0);
}
END_TEST

START_TEST(nul_long_lines_and_big_files)
{
	static const char nul[] = "[profile]\ncpu = 1\0s\n";
	struct cordon_profile prof;
	char err[1024], *text;
	size_t n;

	cordon_profile_init(&prof);
	ck_assert_int_lt(parse(nul, sizeof(nul) - 1, CORDON_KIND_ANY, NULL,
	    &prof, err, sizeof(err)), 0);
	ck_assert_str_eq(err, NAME ":2: NUL byte in the line");

	/* 1023 bytes and a newline fit; one more byte does not. */
	text = malloc(CORDON_POLICY_MAX_FILE + 2);
	ck_assert_ptr_nonnull(text);
	n = (size_t)sprintf(text, "[profile]\n#");
	memset(text + n, 'x', CORDON_POLICY_MAX_LINE - 2);
	n += CORDON_POLICY_MAX_LINE - 2;
	text[n++] = '\n';
	ck_assert_int_eq(parse(text, n, CORDON_KIND_ANY, NULL, &prof, err,
	    sizeof(err)), 0);
	text[n - 1] = 'x';
	text[n++] = '\n';
	ck_assert_int_lt(parse(text, n, CORDON_KIND_ANY, NULL, &prof, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(err, NAME ":2: line longer than 1023 bytes");
	/* The same without a final newline. */
	ck_assert_int_lt(parse(text, n - 1, CORDON_KIND_ANY, NULL, &prof, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(err, NAME ":2: line longer than 1023 bytes");

	memset(text, '\n', CORDON_POLICY_MAX_FILE + 1);
	ck_assert_int_eq(parse(text, CORDON_POLICY_MAX_FILE + 1,
	    CORDON_KIND_PROFILE, NULL, &prof, err, sizeof(err)),
	    -CORDON_E_TOOLONG);
	ck_assert_str_eq(err, NAME ": larger than 262144 bytes");
	free(text);
	cordon_profile_free(&prof);
}
END_TEST

START_TEST(kinds_and_what_was_asked)
{
	struct cordon_policy pol;
	struct cordon_profile prof;
	enum cordon_policy_kind got = CORDON_KIND_ANY;
	char err[1024];

	cordon_profile_init(&prof);
	ck_assert_int_lt(parse("[ceilings]\n", 11, CORDON_KIND_PROFILE, &pol,
	    &prof, err, sizeof(err)), 0);
	ck_assert_str_eq(err, NAME ":1: section [ceilings] does not belong in "
	    "a profile");
	ck_assert_int_lt(parse("[profile]\n", 10, CORDON_KIND_POLICY, &pol,
	    &prof, err, sizeof(err)), 0);
	ck_assert_str_eq(err, NAME ":1: section [profile] does not belong in "
	    "a system policy");
	/* A kind given: an empty file is that kind, with the defaults. */
	ck_assert_int_eq(cordon_policy_parse(NAME, "", 0, CORDON_KIND_POLICY,
	    &got, &pol, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(got, CORDON_KIND_POLICY);
	ck_assert(pol.allow.any && pol.network.any);
	ck_assert_int_eq(cordon_policy_parse(NAME, "[profile]", 9,
	    CORDON_KIND_ANY, &got, &pol, NULL, err, sizeof(err)), -CORDON_E_INVAL);
	ck_assert_str_eq(err, NAME ": is a profile, not what was asked for");
	/* With keys, too: a parser without profiles never reads them. */
	ck_assert_int_eq(cordon_policy_parse(NAME, "[profile]\ncpu = 10s\n",
	    20, CORDON_KIND_ANY, &got, &pol, NULL, err, sizeof(err)),
	    -CORDON_E_INVAL);
	ck_assert_str_eq(err, NAME ": is a profile, not what was asked for");
	ck_assert_int_eq(cordon_policy_parse(NAME, "[profile]", 9,
	    CORDON_KIND_ANY, &got, &pol, &prof, err, sizeof(err)), 0);
	ck_assert_int_eq(got, CORDON_KIND_PROFILE);
	cordon_profile_free(&prof);
}
END_TEST

START_TEST(a_full_policy_and_profile)
{
	static const char policy[] =
	    "# the system policy\n"
	    "[ceilings]\n"
	    "  max_cpu = 30s  \n"
	    "max_wall=2m\n"
	    "max_memory = 1.5G\n"
	    "max_nofile = 4096\n"
	    "max_nproc = 100\n"
	    "[policy]\n"
	    "allow_groups = *\n"
	    "network_groups =\n"
	    "require = network-isolation, scoping,nofile , processes\n"
	    "cgroup_parent = /cordon.slice";
	static const char profile[] =
	    "[profile]\n"
	    "cpu = 1.5\n"
	    "wall = 500ms\n"
	    "memory = 512M\n"
	    "nofile = 64\n"
	    "nproc = 0\n"
	    "network = yes\n"
	    "backend = floor\n"
	    "require = memory\n"
	    "env = A=b=c # not a comment\n"
	    "env = EMPTY=\n"
	    "keep_env = CC\n"
	    "keep_env = http_proxy_not\n";
	struct cordon_policy pol;
	struct cordon_profile prof;
	char err[1024];

	ck_assert_int_eq(parse(policy, sizeof(policy) - 1, CORDON_KIND_ANY,
	    &pol, NULL, err, sizeof(err)), 0);
	ck_assert_str_eq(pol.path, NAME);
	ck_assert_uint_eq(pol.ceiling[CORDON_CAP_CPU], 30 * CORDON_NS_PER_SEC);
	ck_assert_uint_eq(pol.ceiling_line[CORDON_CAP_CPU], 3);
	ck_assert_uint_eq(pol.ceiling[CORDON_CAP_WALL], 120 * CORDON_NS_PER_SEC);
	ck_assert_uint_eq(pol.ceiling[CORDON_CAP_MEMORY], 3ULL << 29);
	ck_assert_uint_eq(pol.ceiling[CORDON_CAP_NOFILE], 4096);
	ck_assert_uint_eq(pol.ceiling[CORDON_CAP_NPROC], 100);
	ck_assert(pol.allow.any);
	ck_assert(!pol.network.any && pol.network.n == 0);
	ck_assert_uint_eq(pol.require, 1U << CORDON_CAP_NETWORK |
	    1U << CORDON_CAP_SCOPING | 1U << CORDON_CAP_NOFILE |
	    1U << CORDON_CAP_NPROC);
	ck_assert_str_eq(pol.cgroup_parent, "/cordon.slice");

	cordon_profile_init(&prof);
	ck_assert_int_eq(parse(profile, sizeof(profile) - 1, CORDON_KIND_ANY,
	    NULL, &prof, err, sizeof(err)), 0);
	ck_assert_uint_eq(prof.set, 1U << CORDON_CAP_CPU | 1U << CORDON_CAP_WALL |
	    1U << CORDON_CAP_MEMORY | 1U << CORDON_CAP_NOFILE |
	    1U << CORDON_CAP_NPROC);
	ck_assert_uint_eq(prof.limit[CORDON_CAP_CPU], 1500000000ULL);
	ck_assert_uint_eq(prof.limit[CORDON_CAP_WALL], 500000000ULL);
	ck_assert_uint_eq(prof.limit[CORDON_CAP_MEMORY], 512ULL << 20);
	ck_assert_uint_eq(prof.limit[CORDON_CAP_NOFILE], 64);
	ck_assert_uint_eq(prof.limit[CORDON_CAP_NPROC], 0);
	ck_assert_int_eq(prof.network, 1);
	ck_assert_int_eq(prof.backend, CORDON_BACKEND_FLOOR);
	ck_assert_uint_eq(prof.require, 1U << CORDON_CAP_MEMORY);
	ck_assert_uint_eq(prof.nenv, 2);
	ck_assert_str_eq(prof.env[0], "A=b=c # not a comment");
	ck_assert_str_eq(prof.env[1], "EMPTY=");
	ck_assert_uint_eq(prof.nkeep, 2);
	ck_assert_str_eq(prof.keep_env[0], "CC");
	cordon_profile_free(&prof);
}
END_TEST

START_TEST(require_names)
{
	uint32_t m = 0;
	char bad[80];
	int cap;

	ck_assert_int_eq(cordon_require_parse("network-isolation,"
	    "filesystem-isolation, signal-scoping ,memory,processes,cpu,wall,"
	    "open-files,output,disk", &m, bad, sizeof(bad)), 0);
	ck_assert_uint_eq(m, ((1U << CORDON_CAP_MAX_) - 1) & ~1U);
	ck_assert_int_eq(cordon_require_parse("scoping, nofile", &m, bad,
	    sizeof(bad)), 0);
	ck_assert_uint_eq(m, 1U << CORDON_CAP_SCOPING | 1U << CORDON_CAP_NOFILE);
	ck_assert_int_eq(cordon_require_parse("  ", &m, bad, sizeof(bad)), 0);
	ck_assert_uint_eq(m, 0);
	ck_assert_int_lt(cordon_require_parse("network", &m, bad, sizeof(bad)),
	    0);
	ck_assert_str_eq(bad, "network");
	ck_assert_int_lt(cordon_require_parse("memory,", &m, bad, sizeof(bad)),
	    0);
	ck_assert_int_lt(cordon_require_parse("Memory", &m, bad, sizeof(bad)),
	    0);
	for (cap = 1; cap < CORDON_CAP_MAX_; cap++) {
		ck_assert_int_eq(cordon_require_parse(cordon_control_name(cap),
		    &m, bad, sizeof(bad)), 0);
		ck_assert_uint_eq(m, 1U << cap);
	}
}
END_TEST

START_TEST(profile_names)
{
	static const char *const good[] = { "c-build", "a", "x_1", "0" };
	static const char *const bad_names[] = { "", "../x", "a/b", "C-build",
	    "a.conf", "a b", ".", "..", "~x",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" };
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(cordon_profile_name_valid(good[i]), "%s", good[i]);
	for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
		ck_assert_msg(!cordon_profile_name_valid(bad_names[i]), "%s",
		    bad_names[i]);
}
END_TEST

START_TEST(checks_against_the_policy)
{
	static const char text[] = "[ceilings]\nmax_cpu = 30s\n"
	    "max_memory = 1G\nmax_nproc = 100\n[policy]\n"
	    "allow_groups = 12345, 54321\nnetwork_groups = 54321\n";
	struct cordon_policy pol;
	struct cordon_limits l;
	gid_t g1[] = { 7, 12345 }, g2[] = { 54321 };
	char err[1024];

	ck_assert_int_eq(parse(text, sizeof(text) - 1, CORDON_KIND_POLICY, &pol,
	    NULL, err, sizeof(err)), 0);
	cordon_limits_default(&l);
	l.cpu_ns = 30 * CORDON_NS_PER_SEC;
	l.memory_bytes = 1ULL << 30;
	l.nproc = 100;
	/* Exactly at the ceilings, a member by a supplementary group. */
	ck_assert_int_eq(cordon_policy_check(&pol, &l, false, 1000, 7, g1, 2,
	    err, sizeof(err)), 0);
	/* By the primary group. */
	ck_assert_int_eq(cordon_policy_check(&pol, &l, false, 1000, 12345, NULL,
	    0, err, sizeof(err)), 0);
	/* Not a member. */
	ck_assert_int_eq(cordon_policy_check(&pol, &l, false, 1000, 7, NULL, 0,
	    err, sizeof(err)), -CORDON_E_POLICY);
	ck_assert_str_eq(err, "uid 1000 may not use cordon: it is in no group "
	    "of allow_groups (t.conf)");
	/* Network only for 54321. */
	ck_assert_int_eq(cordon_policy_check(&pol, &l, true, 1000, 7, g1, 2,
	    err, sizeof(err)), -CORDON_E_POLICY);
	ck_assert_str_eq(err, "network: uid 1000 may not be given network "
	    "access: it is in no group of network_groups (t.conf)");
	ck_assert_int_eq(cordon_policy_check(&pol, &l, true, 1000, 7, g2, 1,
	    err, sizeof(err)), 0);
	/* One over each ceiling. */
	l.memory_bytes = (1ULL << 30) + 1;
	ck_assert_int_eq(cordon_policy_check(&pol, &l, false, 1000, 7, g1, 2,
	    err, sizeof(err)), -CORDON_E_POLICY);
	ck_assert_str_eq(err, "memory 1073741825 is over the system ceiling "
	    "max_memory = 1G (t.conf:3)");
	l.memory_bytes = 1ULL << 30;
	l.cpu_ns++;
	ck_assert_int_eq(cordon_policy_check(&pol, &l, false, 1000, 7, g1, 2,
	    err, sizeof(err)), -CORDON_E_POLICY);
	ck_assert_str_eq(err, "cpu 30s is over the system ceiling max_cpu = "
	    "30s (t.conf:2)");
	l.cpu_ns--;
	l.nproc = 0;
	ck_assert_int_eq(cordon_policy_check(&pol, &l, false, 1000, 7, g1, 2,
	    err, sizeof(err)), -CORDON_E_POLICY);
	ck_assert_str_eq(err, "nproc: no process cap was set, but the system "
	    "ceiling max_nproc is 100 (t.conf:4)");

	/* Group names resolve; unknown names match nobody. */
	cordon_policy_init(&pol);
	ck_assert_int_eq(parse("[policy]\nallow_groups = root, no-such-group\n",
	    43, CORDON_KIND_POLICY, &pol, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(cordon_policy_check(&pol, &l, false, 0, 0, NULL, 0,
	    err, sizeof(err)), 0);
	ck_assert_int_eq(cordon_policy_check(&pol, &l, false, 9, 9, NULL, 0,
	    err, sizeof(err)), -CORDON_E_POLICY);
	/* Empty: nobody. */
	ck_assert_int_eq(parse("[policy]\nallow_groups =\n", 24,
	    CORDON_KIND_POLICY, &pol, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(cordon_policy_check(&pol, &l, false, 0, 0, NULL, 0,
	    err, sizeof(err)), -CORDON_E_POLICY);
}
END_TEST

/* ---- files: ownership and mode ------------------------------------------- */

static struct scratch S;
static char confdir[400], xdg[400], env_conf[450], env_xdg[450];
static char *run_env[4];

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static void
setup(void)
{
	char p[600];

	scratch_init(&S);
	snprintf(confdir, sizeof(confdir), "%s/conf", S.root);
	snprintf(xdg, sizeof(xdg), "%s/xdg", S.root);
	ck_assert_int_eq(mkdir(confdir, 0755), 0);
	snprintf(p, sizeof(p), "%s/profiles.d", confdir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(mkdir(xdg, 0755), 0);
	snprintf(p, sizeof(p), "%s/cordon", xdg);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/cordon/profiles", xdg);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(env_conf, sizeof(env_conf), "CORDON_CONFDIR=%s", confdir);
	snprintf(env_xdg, sizeof(env_xdg), "XDG_CONFIG_HOME=%s", xdg);
	run_env[0] = env_conf;
	run_env[1] = env_xdg;
	run_env[2] = NULL;
}

static void
teardown(void)
{
	scratch_fini(&S);
}

static void
policy(const char *text, mode_t mode)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/policy.conf", confdir);
	write_file(p, text, mode);
}

static void
profile(bool system, const char *name, const char *text)
{
	char p[600];

	snprintf(p, sizeof(p), system ? "%s/profiles.d/%s.conf" :
	    "%s/cordon/profiles/%s.conf", system ? confdir : xdg, name);
	write_file(p, text, 0644);
}

START_TEST(file_owner_and_mode_are_checked)
{
	struct cordon_policy pol;
	char path[600], err[1024];

	snprintf(path, sizeof(path), "%s/policy.conf", confdir);
	/* Missing: the built-in defaults. */
	ck_assert_int_eq(cordon_policy_load(path, &pol, err, sizeof(err)), 0);
	ck_assert(pol.allow.any && pol.network.any && pol.path[0] == '\0');

	policy("[ceilings]\nmax_cpu = 1s\n", 0644);
	ck_assert_int_eq(cordon_policy_load(path, &pol, err, sizeof(err)), 0);
	ck_assert_uint_eq(pol.ceiling[CORDON_CAP_CPU], CORDON_NS_PER_SEC);

	ck_assert_int_eq(chmod(path, 0664), 0);
	ck_assert_int_eq(cordon_policy_load(path, &pol, err, sizeof(err)),
	    -CORDON_E_POLICY);
	ck_assert_msg(strstr(err, "writable by group or others (mode 0664): "
	    "refusing it") != NULL && strncmp(err, path, strlen(path)) == 0,
	    "%s", err);
	ck_assert_int_eq(chmod(path, 0646), 0);
	ck_assert_int_eq(cordon_policy_load(path, &pol, err, sizeof(err)),
	    -CORDON_E_POLICY);

	if (geteuid() == 0) {
		ck_assert_int_eq(chmod(path, 0644), 0);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(cordon_policy_load(path, &pol, err,
		    sizeof(err)), -CORDON_E_POLICY);
		ck_assert_msg(strstr(err, ": owned by uid 65534, not by root: "
		    "refusing it") != NULL, "%s", err);
		/* A user's profile may be the user's own. */
		ck_assert_int_eq(cordon_policy_read_file(path, 65534,
		    CORDON_KIND_POLICY, NULL, &pol, NULL, err, sizeof(err)), 0);
	} else {
		fprintf(stderr, "SKIP: not root: cannot chown to nobody\n");
	}

	/* Not a regular file (a FIFO must not hang the reader). */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	ck_assert_int_eq(cordon_policy_load(path, &pol, err, sizeof(err)),
	    -CORDON_E_INVAL);
	ck_assert_msg(strstr(err, "not a regular file") != NULL, "%s", err);
}
END_TEST

/* ---- end to end through the cordon binary -------------------------------- */

static int
cordon(struct cmd *c, const char *const *args)
{
	char *argv[32];
	size_t n = 0;

	argv[n++] = (char *)cordon_bin();
	argv[n++] = "run";
	argv[n++] = S.trace_opt;
	argv[n++] = S.base_opt;
	for (; *args != NULL && n < 31; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	return run_cmd(c, argv, run_env);
}

static bool
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Refused: exit 125, the message, nothing ran, nothing was recorded. */
static void
assert_refused(const char *const *args, const char *msg)
{
	char marker[400], script[600];
	const char *all[24];
	struct cmd c;
	size_t n = 0;
	long runs = exists(S.trace) ? trace_count(&S, "SELECT count(*) FROM "
	    "runs", NULL) : -1;
	int entries = exists(S.base) ? dir_entries(S.base) : 0;

	snprintf(marker, sizeof(marker), "%s/ran", S.root);
	snprintf(script, sizeof(script), "touch %s", marker);
	for (; *args != NULL && n < 18; args++)
		all[n++] = *args;
	all[n++] = "--";
	all[n++] = "/bin/sh";
	all[n++] = "-c";
	all[n++] = script;
	all[n] = NULL;
	ck_assert_int_eq(cordon(&c, all), 125);
	ck_assert_msg(strstr(c.err, msg) != NULL, "want '%s' in stderr: %s",
	    msg, c.err);
	ck_assert_msg(!exists(marker), "the command ran");
	ck_assert_msg(runs < 0 ? !exists(S.trace) : trace_count(&S,
	    "SELECT count(*) FROM runs", NULL) == runs,
	    "a refused run was recorded");
	ck_assert_msg((exists(S.base) ? dir_entries(S.base) : 0) == entries,
	    "a workdir was made");
	cmd_free(&c);
}

static char *
limits_of(const char *const *args)
{
	const char *all[24];
	struct cmd c;
	size_t n = 0;
	char *out;

	all[n++] = "--json";
	for (; *args != NULL && n < 20; args++)
		all[n++] = *args;
	all[n++] = "--";
	all[n++] = "/bin/true";
	all[n] = NULL;
	ck_assert_int_eq(cordon(&c, all), 0);
	out = json_get(c.out, "limits");
	ck_assert_ptr_nonnull(out);
	cmd_free(&c);
	return out;
}

START_TEST(precedence_defaults_profiles_flags)
{
	char *l;

	profile(true, "p", "[profile]\ncpu = 10s\nwall = 50s\nmemory = 512M\n"
	    "nproc = 64\n");
	profile(false, "p", "[profile]\nmemory = 256M\nnproc = 32\n");
	l = limits_of((const char *[]){ "--profile", "p", "--nproc", "16",
	    NULL });
	/* cpu and wall: system profile; memory: user profile; nproc: flag. */
	ck_assert_msg(strstr(l, "\"cpu_seconds\":10.000000,\"wall_seconds\":"
	    "50.000000,\"memory_bytes\":268435456,\"nofile\":512,"
	    "\"processes\":16") != NULL, "%s", l);
	free(l);
	/* A flag before --profile still wins. */
	l = limits_of((const char *[]){ "--memory", "100M", "--profile", "p",
	    NULL });
	ck_assert_msg(strstr(l, "\"memory_bytes\":104857600") != NULL &&
	    strstr(l, "\"processes\":32") != NULL, "%s", l);
	free(l);
	/* Only a user profile. */
	profile(false, "mine", "[profile]\nwall = 7s\n");
	l = limits_of((const char *[]){ "--profile", "mine", NULL });
	ck_assert_msg(strstr(l, "\"cpu_seconds\":60.000000,\"wall_seconds\":"
	    "7.000000") != NULL, "%s", l);
	free(l);
}
END_TEST

/*
 * The gate runs once, before the output files are opened: a refused run
 * leaves no --stdout or --stderr file.  A bad flag value beside a
 * profile is still a usage error (the flags are applied over it).
 */
START_TEST(refused_runs_open_no_output_files)
{
	char out[400], err[400];

	snprintf(out, sizeof(out), "%s/refused.out", S.root);
	snprintf(err, sizeof(err), "%s/refused.err", S.root);
	assert_refused((const char *[]){ "--stdout", out, "--stderr", err,
	    "--backend", "floor", "--require", "network-isolation", NULL },
	    "network-isolation: the floor backend has no network isolation");
	ck_assert_msg(!exists(out) && !exists(err), "an output file was made");
	policy("[ceilings]\nmax_memory = 1G\n", 0644);
	assert_refused((const char *[]){ "--stdout", out, "--memory", "2G",
	    NULL }, "over the system ceiling max_memory = 1G");
	ck_assert_msg(!exists(out), "an output file was made");
	profile(true, "p", "[profile]\ncpu = 10s\n");
	assert_refused((const char *[]){ "--profile", "p", "--cpu", "soon",
	    "--stdout", out, NULL }, "--cpu: 'soon' is not a duration");
	ck_assert_msg(!exists(out), "an output file was made");
}
END_TEST

START_TEST(profile_errors_refuse)
{
	profile(true, "broken", "[profile]\ncpu = 10s\nmemroy = 1G\n");
	assert_refused((const char *[]){ "--profile", "broken", NULL },
	    "/profiles.d/broken.conf:3: unknown key 'memroy' in [profile]");
	assert_refused((const char *[]){ "--profile", "absent", NULL },
	    "cordon: nothing was run: no profile absent: neither ");
	assert_refused((const char *[]){ "--profile", "../x", NULL },
	    "--profile: '../x' is not a profile name");
	assert_refused((const char *[]){ "--profile", "A", NULL },
	    "--profile: 'A' is not a profile name");
	/* Another OS's backend, named by a profile or the flag. */
	profile(false, "windows", "[profile]\nbackend = job\n");
	assert_refused((const char *[]){ "--profile", "windows", NULL },
	    "cordon: nothing was run: profile windows: backend job is not one "
	    "of this OS's (auto, linux-ns, landlock, floor)");
	assert_refused((const char *[]){ "--backend", "seatbelt", NULL },
	    "--backend: seatbelt is not a backend of this OS (auto, linux-ns, "
	    "landlock, floor)");
	/* A user profile others may write is refused. */
	profile(false, "loose", "[profile]\ncpu = 1s\n");
	{
		char p[600];

		snprintf(p, sizeof(p), "%s/cordon/profiles/loose.conf", xdg);
		ck_assert_int_eq(chmod(p, 0666), 0);
	}
	assert_refused((const char *[]){ "--profile", "loose", NULL },
	    "loose.conf: writable by group or others (mode 0666)");
}
END_TEST

START_TEST(ceilings_refuse_and_lower_defaults)
{
	char *l;

	policy("[ceilings]\nmax_cpu = 30s\nmax_memory = 1G\nmax_nproc = 100\n",
	    0644);
	/* Nothing asked: the defaults come down to the ceilings. */
	l = limits_of((const char *[]){ NULL });
	ck_assert_msg(strstr(l, "\"cpu_seconds\":30.000000") != NULL &&
	    strstr(l, "\"memory_bytes\":1073741824") != NULL &&
	    strstr(l, "\"processes\":100") != NULL, "%s", l);
	free(l);
	/* At the ceiling: fine. */
	l = limits_of((const char *[]){ "--memory", "1G", NULL });
	free(l);
	/* Over: refused, never lowered. */
	assert_refused((const char *[]){ "--memory", "2G", NULL },
	    "cordon: nothing was run: memory 2G is over the system ceiling "
	    "max_memory = 1G (");
	assert_refused((const char *[]){ "--cpu", "31", NULL },
	    "cpu 31s is over the system ceiling max_cpu = 30s (");
	assert_refused((const char *[]){ "--nproc", "0", NULL },
	    "nproc: no process cap was set, but the system ceiling max_nproc "
	    "is 100");
	/* A profile over a ceiling: refused too, and named. */
	profile(true, "big", "[profile]\nmemory = 4G\n");
	assert_refused((const char *[]){ "--profile", "big", NULL },
	    "memory 4G is over the system ceiling max_memory = 1G (");
	assert_refused((const char *[]){ "--profile", "big", NULL },
	    "; set by profile big");
	/* ... unless a flag brings it down. */
	l = limits_of((const char *[]){ "--profile", "big", "--memory", "512M",
	    NULL });
	free(l);
}
END_TEST

START_TEST(bad_system_policy_refuses_everything)
{
	policy("[ceilings]\nmax_cpu = 30s\n", 0666);
	assert_refused((const char *[]){ NULL },
	    "/conf/policy.conf: writable by group or others (mode 0666): "
	    "refusing it");
	policy("[ceilings]\nmax_cpu = lots\n", 0644);
	assert_refused((const char *[]){ NULL },
	    "/conf/policy.conf:2: max_cpu: 'lots' is not a duration");
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: not root: cannot chown to nobody\n");
		return;
	}
	{
		char p[600];

		policy("[ceilings]\nmax_cpu = 30s\n", 0644);
		snprintf(p, sizeof(p), "%s/policy.conf", confdir);
		ck_assert_int_eq(chown(p, 65534, 65534), 0);
	}
	assert_refused((const char *[]){ NULL },
	    "/conf/policy.conf: owned by uid 65534, not by root: refusing it");
}
END_TEST

START_TEST(network_and_allow_groups)
{
	struct cmd c;
	const char *dir;
	char helper_env[600], *env[8], marker[400], script[500], bin[500];
	char trace[400];

	policy("[policy]\nnetwork_groups =\n", 0644);
	assert_refused((const char *[]){ "--network", NULL },
	    "network: uid 0 may not be given network access: it is in no "
	    "group of network_groups (");
	profile(true, "net", "[profile]\nnetwork = yes\n");
	assert_refused((const char *[]){ "--profile", "net", NULL },
	    "may not be given network access");
	policy("[policy]\nnetwork_groups = 0\n", 0644);
	free(limits_of((const char *[]){ "--network", NULL }));

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: not root: cannot run as nobody\n");
		return;
	}
	/* Root's group may use cordon; nobody may not. */
	policy("[policy]\nallow_groups = root\n", 0644);
	free(limits_of((const char *[]){ NULL }));
	dir = nobody_bin_dir(&S);
	snprintf(helper_env, sizeof(helper_env), "CORDON_HELPER=%s/cordon-helper",
	    dir);
	snprintf(bin, sizeof(bin), "%s/cordon", dir);
	snprintf(trace, sizeof(trace), "%s/nobody/trace.db", S.root);
	snprintf(marker, sizeof(marker), "%s/nobody/ran", S.root);
	snprintf(script, sizeof(script), "touch %s", marker);
	env[0] = helper_env;
	env[1] = env_conf;
	env[2] = "HOME=/nonexistent";
	env[3] = "XDG_RUNTIME_DIR=";
	env[4] = NULL;
	{
		char *argv[] = { bin, "run", "--trace", trace, "--", "/bin/sh",
		    "-c", script, NULL };

		ck_assert_int_eq(run_cmd_as(&c, argv, env, NULL, 65534), 125);
	}
	ck_assert_msg(strstr(c.err, "uid 65534 may not use cordon: it is in no "
	    "group of allow_groups (") != NULL, "%s", c.err);
	ck_assert(!exists(marker));
	ck_assert(!exists(trace));
	cmd_free(&c);
}
END_TEST

/*
 * nobody runs cordon (args, NULL-terminated) through "sh -c PREFIX" -
 * e.g. "unshare -Ur" - with the test's confdir; the exit status.
 */
static int
as_nobody(struct cmd *c, const char *prefix, const char *const *args)
{
	static char helper_env[600], bin[500], trace[400], base[400], sh[100];
	const char *dir = nobody_bin_dir(&S);
	char *argv[32], *env[6];
	size_t n = 0;

	snprintf(helper_env, sizeof(helper_env), "CORDON_HELPER=%s/cordon-helper",
	    dir);
	snprintf(bin, sizeof(bin), "%s/cordon", dir);
	snprintf(trace, sizeof(trace), "--trace=%s/nobody/trace.db", S.root);
	snprintf(base, sizeof(base), "--workdir-base=%s/nobody/wd", S.root);
	snprintf(sh, sizeof(sh), "exec %s \"$0\" \"$@\"", prefix);
	env[0] = helper_env;
	env[1] = env_conf;
	env[2] = "HOME=/nonexistent";
	env[3] = "XDG_RUNTIME_DIR=";
	env[4] = NULL;
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = sh;
	argv[n++] = bin;
	argv[n++] = "run";
	argv[n++] = trace;
	argv[n++] = base;
	for (; *args != NULL && n < 31; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	return run_cmd_as(c, argv, env, NULL, 65534);
}

/*
 * Issue 15: in a user namespace that does not map host root (unshare -Ur
 * as a user, a rootless container, cordon in cordon) the root-owned
 * policy.conf shows as the overflow uid.  It is still the
 * administrator's, whom nobody inside can be: runs go on under it.  Group
 * write refuses it there as everywhere, and so do a directory that is
 * not as closed and a namespace that maps no one (where our own files
 * look the same).
 */
START_TEST(policy_in_a_user_namespace)
{
	static const char *const run[] = { "--json", "--", "/bin/sh", "-c",
	    "echo ran", NULL };
	static const char *const big[] = { "--memory", "2G", "--", "/bin/true",
	    NULL };
	struct cmd c;
	char *l;

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: not root: cannot run as nobody\n");
		return;
	}
	{
		char *argv[] = { "/bin/sh", "-c", "unshare -Ur true", NULL };

		if (run_cmd_as(&c, argv, NULL, NULL, 65534) != 0) {
			fprintf(stderr, "SKIP: nobody cannot unshare -Ur here: "
			    "%s\n", c.err);
			cmd_free(&c);
			return;
		}
		cmd_free(&c);
	}
	policy("[ceilings]\nmax_memory = 1G\n", 0644);
	ck_assert_msg(as_nobody(&c, "unshare -Ur", run) == 0, "%s", c.err);
	ck_assert_ptr_nonnull(strstr(c.out, "ran\n"));
	/* The ceiling lowered the default: the policy was read, and holds. */
	l = json_get(c.out, "limits");
	ck_assert_msg(l != NULL && strstr(l, "\"memory_bytes\":1073741824") !=
	    NULL, "%s", c.out);
	free(l);
	cmd_free(&c);
	ck_assert_int_eq(as_nobody(&c, "unshare -Ur", big), 125);
	ck_assert_msg(strstr(c.err, "memory 2G is over the system ceiling "
	    "max_memory = 1G") != NULL, "%s", c.err);
	cmd_free(&c);

	/* Group-writable: refused inside and outside alike. */
	policy("[ceilings]\nmax_memory = 1G\n", 0664);
	ck_assert_int_eq(as_nobody(&c, "unshare -Ur", run), 125);
	ck_assert_msg(strstr(c.err, "/conf/policy.conf: writable by group or "
	    "others (mode 0664): refusing it") != NULL, "%s", c.err);
	cmd_free(&c);
	ck_assert_int_eq(as_nobody(&c, "", run), 125);
	ck_assert_msg(strstr(c.err, "/conf/policy.conf: writable by group or "
	    "others (mode 0664): refusing it") != NULL, "%s", c.err);
	cmd_free(&c);

	/* Inside, its directory must be as closed as the file. */
	policy("[ceilings]\nmax_memory = 1G\n", 0644);
	ck_assert_int_eq(chmod(confdir, 0775), 0);
	ck_assert_int_eq(as_nobody(&c, "unshare -Ur", run), 125);
	ck_assert_msg(strstr(c.err, "/conf/policy.conf: owned by uid 65534, "
	    "not by root: refusing it") != NULL && strstr(c.err, "its "
	    "directory is not likewise unmapped-owned") != NULL, "%s", c.err);
	cmd_free(&c);
	ck_assert_int_eq(chmod(confdir, 0755), 0);

	/* A namespace that maps no one: nobody's own files look the same. */
	ck_assert_int_eq(as_nobody(&c, "unshare -U", run), 125);
	ck_assert_msg(strstr(c.err, "but so are you, so it may be yours") !=
	    NULL, "%s", c.err);
	cmd_free(&c);
}
END_TEST

START_TEST(env_and_keep_env)
{
	struct cmd c;
	char *env[6];

	profile(true, "e", "[profile]\nenv = FROM_PROFILE=1\nenv = OVER=profile\n"
	    "keep_env = KEEP_ME\n");
	env[0] = env_conf;
	env[1] = env_xdg;
	env[2] = "KEEP_ME=kept";
	env[3] = "NOT_KEPT=secret";
	env[4] = "http_proxy=http://leak:3128";
	env[5] = NULL;
	{
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, "--profile", "e", "--env", "OVER=flag",
		    "--env", "EQ=a=b", "--", "/usr/bin/env", NULL };

		ck_assert_int_eq(run_cmd(&c, argv, env), 0);
	}
	ck_assert_msg(strstr(c.out, "\nFROM_PROFILE=1\n") != NULL ||
	    strncmp(c.out, "FROM_PROFILE=1\n", 15) == 0, "%s", c.out);
	ck_assert_msg(strstr(c.out, "OVER=flag\n") != NULL, "%s", c.out);
	ck_assert_msg(strstr(c.out, "OVER=profile") == NULL, "%s", c.out);
	ck_assert_msg(strstr(c.out, "KEEP_ME=kept\n") != NULL, "%s", c.out);
	ck_assert_msg(strstr(c.out, "EQ=a=b\n") != NULL, "%s", c.out);
	ck_assert_msg(strstr(c.out, "NOT_KEPT") == NULL, "%s", c.out);
	ck_assert_msg(strstr(c.out, "proxy") == NULL, "%s", c.out);
	cmd_free(&c);
	/* A proxy only when set explicitly. */
	{
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, "--env", "http_proxy=http://explicit:1",
		    "--", "/usr/bin/env", NULL };

		ck_assert_int_eq(run_cmd(&c, argv, env), 0);
		ck_assert_msg(strstr(c.out, "http_proxy=http://explicit:1\n") !=
		    NULL, "%s", c.out);
		ck_assert_msg(strstr(c.out, "leak") == NULL, "%s", c.out);
		cmd_free(&c);
	}
	assert_refused((const char *[]){ "--keep-env", "http_proxy", NULL },
	    "--keep-env: http_proxy is a proxy variable, which is never taken "
	    "from the environment; give --env http_proxy=VALUE");
	assert_refused((const char *[]){ "--env", "HOME=/root", NULL },
	    "--env: 'HOME' is not a variable that may be set");
	assert_refused((const char *[]){ "--env", "NOVALUE", NULL },
	    "--env: 'NOVALUE' is not KEY=VALUE");
	assert_refused((const char *[]){ "--env", "A B=1", NULL },
	    "--env: 'A B' is not a variable that may be set");
	assert_refused((const char *[]){ "--keep-env", "1X", NULL },
	    "--keep-env: '1X' is not a variable name");
}
END_TEST

START_TEST(require_fails_closed_on_the_floor)
{
	struct cmd c;
	char *out;

	assert_refused((const char *[]){ "--backend", "floor", "--require",
	    "network-isolation", NULL },
	    "cordon: nothing was run: a required control is missing on this "
	    "host with the floor backend (requested): network-isolation: the "
	    "floor backend has no network isolation");
	assert_refused((const char *[]){ "--backend", "floor", "--require",
	    "filesystem-isolation,memory", NULL },
	    "filesystem-isolation: the floor backend has no file-system "
	    "isolation");
	assert_refused((const char *[]){ "--require", "processes", NULL },
	    "processes: no process cap was set (--nproc)");
	assert_refused((const char *[]){ "--require", "teleport", NULL },
	    "--require: 'teleport' is not a control");
	/* The system policy's require holds for every run. */
	policy("[policy]\nrequire = network-isolation\n", 0644);
	assert_refused((const char *[]){ "--backend", "floor", NULL },
	    "network-isolation: the floor backend has no network isolation");
	policy("[policy]\nrequire = processes\n", 0644);
	assert_refused((const char *[]){ NULL }, "processes: no process cap");
	/* What is met runs; what was not applied says why. */
	{
		const char *args[] = { "--json", "--backend", "floor", "--require",
		    "memory,cpu,wall,open-files,processes", "--nproc", "50",
		    "--", "/bin/true", NULL };

		ck_assert_int_eq(cordon(&c, args), 0);
	}
	out = json_get(c.out, "not_applied");
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, "\"network\":\"the floor backend has no "
	    "network isolation\"") != NULL && strstr(out, "\"filesystem\":\"the "
	    "floor backend has no file-system isolation\"") != NULL &&
	    strstr(out, "\"processes\"") == NULL && strstr(out, "\"memory\"") ==
	    NULL, "%s", out);
	free(out);
	cmd_free(&c);
}
END_TEST

/*
 * auto, on a host where user namespaces cannot be made: landlock, or the
 * floor where the kernel has no Landlock (the test knob pretends an ABI).
 */
START_TEST(require_fails_closed_without_user_namespaces)
{
	static const struct {
		const char *abi, *backend, *why;
	} v[] = {
		{ "0", "floor", "network-isolation: the floor backend has no "
		    "network isolation" },
		{ "3", "landlock", "network-isolation: this kernel's Landlock has "
		    "no network rules (needs ABI 4)" },
	};
	char script[4096], marker[400], want[200];
	struct cmd c;
	char *argv[] = { "/usr/bin/unshare", "-Ur", "/bin/sh", "-c", script,
	    NULL };
	size_t i;

	snprintf(marker, sizeof(marker), "%s/ran", S.root);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(script, sizeof(script),
		    "echo 0 > /proc/sys/user/max_user_namespaces || exit 99; "
		    "CORDON_TEST_LANDLOCK_ABI=%s exec '%s' run '%s' '%s' "
		    "--require network-isolation -- /bin/sh -c 'touch %s'",
		    v[i].abi, cordon_bin(), S.trace_opt, S.base_opt, marker);
		ck_assert_int_eq(run_cmd(&c, argv, run_env), 125);
		snprintf(want, sizeof(want), "a required control is missing on "
		    "this host with the %s backend (", v[i].backend);
		ck_assert_msg(strstr(c.err, want) != NULL &&
		    strstr(c.err, "linux-ns unavailable: ") != NULL &&
		    strstr(c.err, v[i].why) != NULL, "%s", c.err);
		ck_assert(!exists(marker));
		ck_assert(!exists(S.trace));
		cmd_free(&c);
	}
}
END_TEST

/*
 * The helper on its own, with crafted requests the broker would never
 * send: it loads the policy itself and refuses before creating anything.
 */
static char *
helper_refusal(uint32_t flags, uint8_t backend, uint64_t memory,
    uint32_t require)
{
	struct cordon_msg m;
	char marker[400], script[500], *err = NULL;
	char *args[] = { "/bin/sh", "-c", script };
	pid_t pid;
	int sock, i;

	snprintf(marker, sizeof(marker), "%s/ran", S.root);
	snprintf(script, sizeof(script), "touch %s", marker);
	ck_assert_int_eq(setenv("CORDON_CONFDIR", confdir, 1), 0);
	ck_assert_int_eq(cordon_start_helper(getenv("CORDON_HELPER"), &pid,
	    &sock), 0);
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_REQUEST;
	m.u.request.flags = flags;
	m.u.request.backend = backend;
	cordon_limits_default(&m.u.request.limits);
	m.u.request.limits.memory_bytes = memory;
	m.u.request.run_id = "0123456789abcdef0123456789abcdef";
	m.u.request.workdir_base = S.base;
	m.u.request.argc = 3;
	m.u.request.require = require;
	ck_assert_int_eq(cordon_msg_send(sock, &m), 0);
	for (i = 0; i < 3; i++) {
		m.type = CORDON_MSG_ARG;
		m.u.str = args[i];
		ck_assert_int_eq(cordon_msg_send(sock, &m), 0);
	}
	/* ERROR, then TEARDOWN; never BACKEND or CREATED. */
	while (cordon_msg_recv(sock, &m) == 0) {
		ck_assert_msg(m.type == CORDON_MSG_ERROR ||
		    m.type == CORDON_MSG_TEARDOWN, "got message %u", m.type);
		if (m.type == CORDON_MSG_ERROR && err == NULL)
			err = strdup(m.u.error.message);
		cordon_msg_clear(&m);
	}
	close(sock);
	ck_assert_int_eq(WEXITSTATUS(cordon_wait_helper(pid)), 125);
	ck_assert_msg(!exists(marker), "the command ran");
	ck_assert_msg(!exists(S.base) || dir_entries(S.base) == 0,
	    "a workdir was made");
	ck_assert_ptr_nonnull(err);
	unsetenv("CORDON_CONFDIR");
	return err;
}

START_TEST(helper_enforces_the_policy_itself)
{
	char *e;

	policy("[ceilings]\nmax_memory = 1G\n[policy]\nnetwork_groups =\n",
	    0644);
	e = helper_refusal(0, CORDON_BACKEND_FLOOR, 2ULL << 30, 0);
	ck_assert_msg(strstr(e, "refused by the system policy: memory 2G is "
	    "over the system ceiling max_memory = 1G (") != NULL, "%s", e);
	free(e);
	e = helper_refusal(CORDON_REQ_NETWORK, CORDON_BACKEND_FLOOR, 1ULL << 30,
	    0);
	ck_assert_msg(strstr(e, "may not be given network access") != NULL,
	    "%s", e);
	free(e);
	e = helper_refusal(0, CORDON_BACKEND_FLOOR, 1ULL << 30,
	    1U << CORDON_CAP_NETWORK);
	ck_assert_str_eq(e, "required control network-isolation cannot be "
	    "applied by the floor backend");
	free(e);
	/* The policy's require, even when the request has none. */
	policy("[policy]\nrequire = signal-scoping\n", 0644);
	e = helper_refusal(0, CORDON_BACKEND_FLOOR, 1ULL << 30, 0);
	ck_assert_str_eq(e, "required control signal-scoping cannot be "
	    "applied by the floor backend");
	free(e);
	/* An unreadable policy: nothing runs. */
	policy("[ceilings]\nmax_memory = 1G\n", 0666);
	e = helper_refusal(0, CORDON_BACKEND_FLOOR, 1ULL << 30, 0);
	ck_assert_msg(strstr(e, "system policy: ") == e &&
	    strstr(e, "writable by group or others") != NULL, "%s", e);
	free(e);
}
END_TEST

START_TEST(policy_check_command)
{
	static const char *const shipped[] = {
		"policy/default.conf", "policy/profiles/c-build.conf",
		"policy/profiles/python-test.conf",
		"policy/profiles/rust-build.conf",
	};
	const char *src = getenv("CORDON_SRCDIR");
	char path[600], bad_path[600];
	struct cmd c;
	size_t i;

	ck_assert_ptr_nonnull(src);
	for (i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		char *argv[] = { (char *)cordon_bin(), "policy", "check", path,
		    NULL };

		snprintf(path, sizeof(path), "%s/%s", src, shipped[i]);
		ck_assert_int_eq(run_cmd(&c, argv, run_env), 0);
		ck_assert_msg(strstr(c.out, i == 0 ? ": ok (system policy)" :
		    ": ok (profile)") != NULL, "%s: %s %s", path, c.out, c.err);
		cmd_free(&c);
	}
	snprintf(bad_path, sizeof(bad_path), "%s/bad.conf", S.root);
	write_file(bad_path, "[profile]\ncpu = 1s\nnetwork = on\n", 0644);
	{
		char *argv[] = { (char *)cordon_bin(), "policy", "check",
		    bad_path, NULL };

		ck_assert_int_eq(run_cmd(&c, argv, run_env), 125);
		ck_assert_msg(strstr(c.err, "bad.conf:3: network: 'on' is not yes "
		    "or no") != NULL, "%s", c.err);
		cmd_free(&c);
	}
	{
		char *argv[] = { (char *)cordon_bin(), "policy", "check",
		    "--kind", "policy", path, NULL };

		snprintf(path, sizeof(path), "%s/policy/profiles/c-build.conf",
		    src);
		ck_assert_int_eq(run_cmd(&c, argv, run_env), 125);
		ck_assert_msg(strstr(c.err, "c-build.conf:3: section [profile] "
		    "does not belong in a system policy") != NULL, "%s", c.err);
		cmd_free(&c);
	}
	/* The shipped profiles work as profiles. */
	snprintf(path, sizeof(path), "cp %s/policy/profiles/*.conf %s/profiles.d/",
	    src, confdir);
	ck_assert_int_eq(system(path), 0);
	free(limits_of((const char *[]){ "--profile", "c-build", NULL }));
	free(limits_of((const char *[]){ "--profile", "python-test", NULL }));
	free(limits_of((const char *[]){ "--profile", "rust-build", NULL }));
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("parser");
	TCase *e2e = tcase_create("end-to-end");

	tcase_add_loop_test(tc, malformed_lines_name_file_and_line, 0,
	    (int)(sizeof(bad_files) / sizeof(bad_files[0])));
	tcase_add_test(tc, nul_long_lines_and_big_files);
	tcase_add_test(tc, kinds_and_what_was_asked);
	tcase_add_test(tc, a_full_policy_and_profile);
	tcase_add_test(tc, require_names);
	tcase_add_test(tc, profile_names);
	tcase_add_test(tc, checks_against_the_policy);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(e2e, setup, teardown);
	tcase_set_timeout(e2e, 300);
	tcase_add_test(e2e, file_owner_and_mode_are_checked);
	tcase_add_test(e2e, precedence_defaults_profiles_flags);
	tcase_add_test(e2e, profile_errors_refuse);
	tcase_add_test(e2e, refused_runs_open_no_output_files);
	tcase_add_test(e2e, ceilings_refuse_and_lower_defaults);
	tcase_add_test(e2e, bad_system_policy_refuses_everything);
	tcase_add_test(e2e, network_and_allow_groups);
	tcase_add_test(e2e, policy_in_a_user_namespace);
	tcase_add_test(e2e, env_and_keep_env);
	tcase_add_test(e2e, require_fails_closed_on_the_floor);
	tcase_add_test(e2e, require_fails_closed_without_user_namespaces);
	tcase_add_test(e2e, helper_enforces_the_policy_itself);
	tcase_add_test(e2e, policy_check_command);
	suite_add_tcase(s, e2e);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
