/*
 * test_run.c - end-to-end: the real cordon and cordon-helper on the floor
 * (test_ns.c has the linux-ns backend's own).
 *
 * Each test runs `cordon run --json` with a scratch trace and workdir base
 * and checks what a user relies on: the exit status, the result record,
 * the trace rows and events, and that nothing of the run is left behind.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cordon.h"
#include "internal.h"
#include "testutil.h"
#include "wire.h"

#define MAXARGS 32

static struct scratch S;

static void
setup(void)
{
	scratch_init(&S);
}

static void
teardown(void)
{
	scratch_fini(&S);
}

/*
 * cordon run --json --trace=.. --workdir-base=.. OPTS... -- payload ARGS...
 * The variadic list is the options, then "--", then payload arguments;
 * "--" is replaced by "--" plus the payload's path.
 */
static int
crun(struct cmd *c, char *const env[], ...)
{
	char *argv[MAXARGS];
	const char *a;
	va_list ap;
	int n = 0;

	argv[n++] = (char *)cordon_bin();
	argv[n++] = "run";
	argv[n++] = "--json";
	argv[n++] = S.trace_opt;
	argv[n++] = S.base_opt;
	/* Unless a test says otherwise: these are the floor's tests. */
	argv[n++] = "--backend=floor";
	va_start(ap, env);
	while ((a = va_arg(ap, const char *)) != NULL && n < MAXARGS - 2) {
		argv[n++] = (char *)a;
		if (strcmp(a, "--") == 0)
			argv[n++] = (char *)payload_bin();
	}
	va_end(ap);
	argv[n] = NULL;
	return run_cmd(c, argv, env);
}

/* The run's workdir is gone and the base holds nothing but its lock. */
static void
assert_clean(const struct cmd *c)
{
	char *wd = json_get(c->out, "workdir");
	struct stat st;

	ck_assert_msg(json_is(c->out, "workdir_removed", "true"),
	    "workdir not removed: %s", c->out);
	if (wd != NULL && strcmp(wd, "null") != 0)
		ck_assert_msg(lstat(wd, &st) < 0 && errno == ENOENT,
		    "workdir %s still exists", wd);
	free(wd);
	/* Only ".lock" may remain in the base. */
	ck_assert_int_le(dir_entries(S.base), 1);
}

/* The trace has the run with these event kinds, in this order. */
static void
assert_events(const char *run_id, const char *want)
{
	char *got = trace_text(&S, "SELECT group_concat(kind, ',') FROM "
	    "(SELECT kind FROM events WHERE run_id = ?1 ORDER BY id)", run_id);

	ck_assert_msg(got != NULL && strcmp(got, want) == 0,
	    "events of %s: want %s, got %s", run_id, want,
	    got != NULL ? got : "(none)");
	free(got);
}

static char *
run_id_of(const struct cmd *c)
{
	char *id = json_get(c->out, "run_id");

	ck_assert_msg(id != NULL && strlen(id) == 32, "no run_id in: %s", c->out);
	return id;
}

START_TEST(exit_status_passes_through)
{
	struct cmd c;
	char *id;

	ck_assert_int_eq(crun(&c, NULL, "--", "exit", "3", NULL), 3);
	ck_assert(json_is(c.out, "outcome", "exited"));
	ck_assert(json_is(c.out, "exit_code", "3"));
	ck_assert(json_is(c.out, "cap", "null"));
	ck_assert(json_is(c.out, "backend", "floor"));
	assert_clean(&c);
	id = run_id_of(&c);
	assert_events(id, "create,backend,created,exit,teardown");
	ck_assert_int_eq(trace_count(&S, "SELECT exit_code FROM runs WHERE "
	    "run_id = ?1", id), 3);
	free(id);
	cmd_free(&c);
}
END_TEST

START_TEST(signal_gives_128_plus_n)
{
	struct cmd c;

	ck_assert_int_eq(crun(&c, NULL, "--", "kill", "15", NULL), 128 + 15);
	ck_assert(json_is(c.out, "outcome", "signaled"));
	ck_assert(json_is(c.out, "signal", "15"));
	ck_assert(json_is(c.out, "exit_code", "null"));
	assert_clean(&c);
	cmd_free(&c);
}
END_TEST

START_TEST(cpu_cap_sums_the_tree)
{
	struct cmd c;
	char *cpu, *id;

	/* Three processes at 0.8 s each: every one under 1 s, the sum over. */
	ck_assert_int_eq(crun(&c, NULL, "--cpu", "1", "--wall", "60", "--",
	    "spinfork", "3", "0.8", NULL), 124);
	ck_assert(json_is(c.out, "outcome", "cap_hit"));
	ck_assert(json_is(c.out, "cap", "cpu"));
	cpu = json_get(c.out, "cpu_seconds");
	ck_assert_ptr_nonnull(cpu);
	ck_assert_msg(atof(cpu) >= 1.0 && atof(cpu) < 2.0,
	    "cpu_seconds %s not just over the 1 s cap", cpu);
	ck_assert_msg(strstr(c.err, "CPU cap 1s hit; tree killed; workdir "
	    "removed") != NULL, "stderr: %s", c.err);
	assert_clean(&c);
	id = run_id_of(&c);
	assert_events(id, "create,backend,created,cap_hit,exit,teardown");
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs WHERE "
	    "run_id = ?1 AND outcome = 'cap_hit' AND cap = 'cpu'", id), 1);
	free(cpu);
	free(id);
	cmd_free(&c);
}
END_TEST

/*
 * The invoker SIGSTOPs the helper while the payload burns CPU: the
 * payload waits for "go" (stop_helper_while), then runs `payload ARGS`
 * under --cpu CAP.  Checks the run ended as a CPU cap hit, and returns
 * its cpu_seconds.
 */
static double
cpu_while_stopped(const char *cap, const char *args)
{
	char script[1024], *cpu;
	struct cmd c;
	double v;
	pid_t ctl;
	int status, rc;

	snprintf(script, sizeof(script), "touch ready; while [ ! -e go ]; do "
	    "sleep 0.05; done; exec '%s' %s", payload_bin(), args);
	ctl = stop_helper_while(S.base);
	{
		char *argv[] = { (char *)cordon_bin(), "run", "--json",
		    S.trace_opt, S.base_opt, "--backend=floor", "--cpu",
		    (char *)cap, "--wall", "120", "--", "/bin/sh", "-c", script,
		    NULL };

		rc = run_cmd(&c, argv, NULL);
	}
	ck_assert_int_eq(waitpid(ctl, &status, 0), ctl);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the helper was not stopped as planned (status %d)", status);
	ck_assert_msg(rc == 124 && json_is(c.out, "outcome", "cap_hit") &&
	    json_is(c.out, "cap", "cpu"), "%s: not a CPU cap hit (%d): %s",
	    args, rc, c.out);
	ck_assert_msg(strstr(c.err, "CPU cap") != NULL, "stderr: %s", c.err);
	cpu = json_get(c.out, "cpu_seconds");
	ck_assert_ptr_nonnull(cpu);
	v = atof(cpu);
	assert_clean(&c);
	free(cpu);
	cmd_free(&c);
	return v;
}

START_TEST(cpu_cap_holds_while_the_helper_is_stopped)
{
	double cpu;

	/*
	 * Two children at 0.8 s each: neither meets RLIMIT_CPU, the tree
	 * passes the 1 s cap unseen and the payload exits 0; the final
	 * accounting still makes it a cap hit, and says by how much.
	 */
	cpu = cpu_while_stopped("1", "spinfork 2 0.8");
	ck_assert_msg(cpu >= 1.6 && cpu < 3.0, "cpu_seconds %.3f", cpu);
	/*
	 * A child spinning for ever under a 0.5 s cap: RLIMIT_CPU (1 s, the
	 * cap rounded up) kills it there; its parent still exits 0.
	 */
	cpu = cpu_while_stopped("0.5", "spinfork 1 0");
	ck_assert_msg(cpu >= 0.5 && cpu < 1.5, "cpu_seconds %.3f: RLIMIT_CPU "
	    "is no backstop at the cap", cpu);
	/*
	 * The payload itself, killed by SIGXCPU at 1 s of the kernel's tick
	 * count, which may be a little ahead of the exact figure: the cap.
	 */
	cpu = cpu_while_stopped("1", "spin 0");
	ck_assert_msg(cpu >= 0.5 && cpu < 1.5, "cpu_seconds %.3f", cpu);
}
END_TEST

START_TEST(memory_cap_sums_the_tree)
{
	struct cmd c;
	char *rss, *enf;

	/* Four processes of 40 MiB: each far under 100 MiB, the sum over. */
	ck_assert_int_eq(crun(&c, NULL, "--memory", "100M", "--wall", "60",
	    "--", "allocfork", "4", "40", NULL), 124);
	ck_assert(json_is(c.out, "outcome", "cap_hit"));
	ck_assert(json_is(c.out, "cap", "memory"));
	rss = json_get(c.out, "max_rss_bytes");
	enf = json_get(c.out, "enforcement");
	/* The monitor kills past the cap; a cgroup never lets it get there. */
	if (enf != NULL && strstr(enf, "\"memory\":\"cgroup\"") != NULL)
		ck_assert_msg(rss != NULL && strtoull(rss, NULL, 10) <=
		    (100ULL << 20), "memory.peak %s over the cap", rss);
	else
		ck_assert_msg(rss != NULL && strtoull(rss, NULL, 10) >
		    (100ULL << 20), "max_rss_bytes %s not over the cap", rss);
	assert_clean(&c);
	free(enf);
	free(rss);
	cmd_free(&c);
}
END_TEST

START_TEST(memory_cap_counts_shared_memory)
{
	struct cmd c;

	/* MAP_SHARED anonymous memory must not be a way around the cap. */
	ck_assert_int_eq(crun(&c, NULL, "--memory", "64M", "--wall", "60",
	    "--", "shmalloc", "128", NULL), 124);
	ck_assert(json_is(c.out, "cap", "memory"));
	assert_clean(&c);
	cmd_free(&c);
}
END_TEST

START_TEST(memory_cap_counts_forked_pages_once)
{
	struct cmd c;

	/*
	 * 100 MiB shared copy-on-write by 8 children: 900 MiB of RSS summed,
	 * 100 MiB really used.  An ordinary fork-heavy build must not be
	 * killed for memory it does not have.
	 */
	ck_assert_int_eq(crun(&c, NULL, "--memory", "512M", "--wall", "2",
	    "--", "cow", "100", "8", NULL), 124);
	ck_assert_msg(json_is(c.out, "cap", "wall"), "%s", c.out);
	assert_clean(&c);
	cmd_free(&c);
}
END_TEST

START_TEST(wall_cap_kills_a_sleeper)
{
	struct cmd c;
	char *wall;

	ck_assert_int_eq(crun(&c, NULL, "--wall", "1", "--", "sleep", "60",
	    NULL), 124);
	ck_assert(json_is(c.out, "cap", "wall"));
	wall = json_get(c.out, "wall_seconds");
	ck_assert_msg(wall != NULL && atof(wall) >= 1.0 && atof(wall) < 10.0,
	    "wall_seconds %s", wall);
	ck_assert_msg(strstr(c.err, "cordon: wall-clock cap 1s hit; tree "
	    "killed; workdir removed") != NULL, "stderr: %s", c.err);
	assert_clean(&c);
	free(wall);
	cmd_free(&c);
}
END_TEST

START_TEST(process_cap_kills_the_tree)
{
	struct cmd c;

	ck_assert_int_eq(crun(&c, NULL, "--nproc", "5", "--wall", "60", "--",
	    "forkn", "20", NULL), 124);
	ck_assert(json_is(c.out, "cap", "processes"));
	ck_assert_msg(strstr(c.out, "\"processes\":true") != NULL,
	    "processes not applied: %s", c.out);
	assert_clean(&c);
	cmd_free(&c);
}
END_TEST

/* cordon run --backend=floor --nproc N --wall 20 -- /bin/sh -c script */
static int
nproc_sh(struct cmd *c, const char *nproc, const char *script)
{
	char *argv[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
	    S.base_opt, "--backend=floor", "--nproc", (char *)nproc, "--wall",
	    "20", "--", "/bin/sh", "-c", (char *)script, NULL };

	return run_cmd(c, argv, NULL);
}

/* Ends as the process cap, well before the wall cap; MEASURE line. */
static void
assert_nproc_hit(const struct cmd *c, const char *what)
{
	assert_cap_measured(c, "processes", what, "floor, root");
	assert_clean(c);
}

/*
 * Root's floor run on a host with a cgroup v1 pids hierarchy and no v2
 * cgroup (hybrid, as here): the payload is in a pids cgroup of the run's
 * own, made before its first instruction, with pids.max = N; the record
 * says the kernel holds the cap; the cgroup is gone after the run.  A
 * shell fork bomb is then refused by the kernel at N + 1 and typed from
 * pids.events at once (it once filled this machine's pid table under
 * load, when the monitor alone held it).
 */
START_TEST(root_floor_run_gets_a_v1_pids_cgroup)
{
	char want[128], path[512], *id;
	char *argv[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
		S.base_opt, "--backend=floor", "--nproc", "8", "--", "/bin/cat",
		"/proc/self/cgroup", NULL };
	struct statfs sf;
	struct stat st;
	struct cmd c;

	if (geteuid() != 0 || statfs("/sys/fs/cgroup/pids", &sf) < 0 ||
	    sf.f_type != 0x27e0eb || (statfs("/sys/fs/cgroup", &sf) == 0 &&
	    sf.f_type == 0x63677270)) {
		fprintf(stderr, "SKIP: root_floor_run_gets_a_v1_pids_cgroup needs "
		    "root and a cgroup v1 pids hierarchy without cgroup v2\n");
		return;
	}
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
	id = json_get(c.out, "run_id");
	ck_assert_ptr_nonnull(id);
	snprintf(want, sizeof(want), "/cordon-%s\n", id);
	ck_assert_msg(strstr(c.out, ":pids:") != NULL &&
	    strstr(strstr(c.out, ":pids:"), want) != NULL,
	    "the payload is not in the run's pids cgroup: %s", c.out);
	ck_assert_msg(strstr(c.out, "\"processes\":\"cgroup\"") != NULL,
	    "the record does not say the kernel holds the cap: %s", c.out);
	snprintf(path, sizeof(path), "/sys/fs/cgroup/pids/cordon-%s", id);
	ck_assert_msg(stat(path, &st) < 0, "%s is left", path);
	free(id);
	cmd_free(&c);
	/* Without --nproc, no cgroup: nothing claims a kernel cap. */
	argv[6] = "--wall";
	argv[7] = "30";
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
	ck_assert_msg(strstr(c.out, ":pids:/cordon-") == NULL, "%s", c.out);
	cmd_free(&c);
}
END_TEST

/*
 * The floor has no kernel limit (RLIMIT_NPROC would count the invoker's
 * every process, and holds no root): what the monitor sees.  A shell
 * fork bomb, short-lived children past the cap (a tree of exactly N
 * tasks is within it), and threads, which count as tasks.
 */
START_TEST(process_cap_counts_tasks_the_monitor_sees)
{
	struct cmd c;

	ck_assert_int_eq(nproc_sh(&c, "64", "b(){ b|b& }; b; sleep 30"), 124);
	assert_nproc_hit(&c, "shell fork bomb, --nproc 64");
	cmd_free(&c);
	ck_assert_int_eq(nproc_sh(&c, "16",
	    "for i in $(seq 15); do sleep 0.3 & done; wait"), 0);
	cmd_free(&c);
	ck_assert_int_eq(nproc_sh(&c, "16",
	    "for i in $(seq 200); do true & done; wait"), 124);
	assert_nproc_hit(&c, "200 x true &, --nproc 16");
	cmd_free(&c);
	ck_assert_int_eq(crun(&c, NULL, "--nproc", "8", "--", "threads", WITHIN_8,
	    "0.3", NULL), 0);
	ck_assert_msg(strstr(c.out, "threads: " WITHIN_8 " of " WITHIN_8 "\n") !=
	    NULL, "%s", c.out);
	cmd_free(&c);
	ck_assert_int_eq(crun(&c, NULL, "--nproc", "8", "--wall", "20", "--",
	    "threads", "20", "30", NULL), 124);
	assert_nproc_hit(&c, "20 threads, --nproc 8");
	cmd_free(&c);
}
END_TEST

START_TEST(unset_process_cap_is_not_applied)
{
	struct cmd c;

	ck_assert_int_eq(crun(&c, NULL, "--", "exit", "0", NULL), 0);
	ck_assert_msg(strstr(c.out, "\"processes\":false") != NULL &&
	    strstr(c.out, "\"network\":false") != NULL,
	    "applied map wrong: %s", c.out);
	/* The floor confines no file and scopes no signal, and says so. */
	ck_assert_msg(strstr(c.out, "\"filesystem\":false") != NULL &&
	    strstr(c.out, "\"scoping\":false") != NULL,
	    "applied map wrong: %s", c.out);
	cmd_free(&c);
}
END_TEST

START_TEST(double_forked_daemon_is_gone)
{
	struct cmd c;
	char pidfile[400];
	long pid;

	snprintf(pidfile, sizeof(pidfile), "%s/daemon.pid", S.root);
	ck_assert_int_eq(crun(&c, NULL, "--", "daemon", pidfile, NULL), 0);
	pid = wait_read_long(pidfile, 2000);
	ck_assert_msg(pid > 0, "the daemon never wrote its pid");
	ck_assert_msg(!pid_alive((pid_t)pid), "daemon %ld outlived the run",
	    pid);
	assert_clean(&c);
	cmd_free(&c);
}
END_TEST

START_TEST(workdir_is_cwd_home_and_tmpdir)
{
	struct cmd c;
	char *wd, want[600];

	ck_assert_int_eq(crun(&c, NULL, "--", "cwd", NULL), 0);
	wd = json_get(c.out, "workdir");
	ck_assert_ptr_nonnull(wd);
	snprintf(want, sizeof(want), "%s\n", wd);
	ck_assert_msg(strncmp(c.out, want, strlen(want)) == 0,
	    "cwd is not the workdir %s: %s", wd, c.out);
	ck_assert_msg(strncmp(wd, S.base, strlen(S.base)) == 0,
	    "workdir %s not under the base %s", wd, S.base);
	free(wd);
	cmd_free(&c);

	ck_assert_int_eq(crun(&c, NULL, "--", "env", NULL), 0);
	wd = json_get(c.out, "workdir");
	snprintf(want, sizeof(want), "\nHOME=%s\n", wd);
	ck_assert_msg(strstr(c.out, want) != NULL || strncmp(c.out, want + 1,
	    strlen(want + 1)) == 0, "HOME not the workdir: %s", c.out);
	snprintf(want, sizeof(want), "TMPDIR=%s\n", wd);
	ck_assert_msg(strstr(c.out, want) != NULL, "TMPDIR: %s", c.out);
	free(wd);
	cmd_free(&c);
}
END_TEST

START_TEST(environment_is_allow_listed)
{
	static char *env[] = {
		"http_proxy=http://proxy.invalid:3128",
		"HTTPS_PROXY=http://proxy.invalid:3128",
		"ALL_PROXY=socks5://proxy.invalid",
		"no_proxy=localhost",
		"SECRET_TOKEN=hunter2",
		"LD_PRELOAD=/nonexistent.so",
		"LANG=C.UTF-8",
		NULL
	};
	struct cmd c;

	ck_assert_int_eq(crun(&c, env, "--", "env", NULL), 0);
	ck_assert_msg(strstr(c.out, "proxy") == NULL &&
	    strstr(c.out, "PROXY") == NULL, "proxy leaked: %s", c.out);
	ck_assert_msg(strstr(c.out, "hunter2") == NULL, "secret leaked");
	ck_assert_msg(strstr(c.out, "LD_PRELOAD") == NULL, "LD_PRELOAD leaked");
	ck_assert_msg(strstr(c.out, "LANG=C.UTF-8\n") != NULL,
	    "allowed LANG missing: %s", c.out);
	cmd_free(&c);
}
END_TEST

START_TEST(only_stdio_reaches_the_payload)
{
	struct cmd c;
	int leak = open("/dev/null", O_RDONLY); /* inheritable on purpose */

	ck_assert_int_ge(leak, 3);
	ck_assert_int_eq(crun(&c, NULL, "--", "fds", NULL), 0);
	close(leak);
	/* The output starts with the fd list, before the JSON line. */
	ck_assert_msg(strncmp(c.out, "0\n1\n2\n{", 7) == 0,
	    "payload saw other fds: %s", c.out);
	cmd_free(&c);
}
END_TEST

START_TEST(inherited_sigchld_ignore_is_undone)
{
	struct cmd c;
	char *argv[] = { "/usr/bin/env", "--ignore-signal=CHLD",
	    (char *)cordon_bin(), "run", "--json", S.trace_opt, S.base_opt,
	    "--backend=floor", "--wall", "20", "--", (char *)payload_bin(),
	    "exit", "7", NULL };

	/* SIG_IGN survives exec; the helper must still see its child exit. */
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 7);
	ck_assert(json_is(c.out, "outcome", "exited"));
	cmd_free(&c);
}
END_TEST

START_TEST(payload_cannot_gain_privileges)
{
	struct cmd c;
	char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt, S.base_opt,
	    "--backend=floor", "--", "/bin/sh", "-c",
	    "grep NoNewPrivs /proc/self/status", NULL };

	ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
	ck_assert_msg(strstr(c.out, "NoNewPrivs:\t1") != NULL, "%s", c.out);
	cmd_free(&c);
}
END_TEST

START_TEST(sandbox_setup_failure_is_125)
{
	struct cmd c;
	char *argv[] = { "/usr/bin/prlimit", "--nofile=64:64",
	    (char *)cordon_bin(), "run", "--json", S.trace_opt, S.base_opt,
	    "--backend=floor", "--nofile", "4096", "--", (char *)payload_bin(),
	    "exit", "0", NULL };

	/* A cap the sandbox cannot apply is its failure, not the payload's. */
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 125);
	ck_assert(json_is(c.out, "outcome", "sandbox_error"));
	ck_assert_msg(strstr(c.err, "open-files cap 4096 is above the hard "
	    "limit 64") != NULL, "stderr: %s", c.err);
	assert_clean(&c);
	cmd_free(&c);
}
END_TEST

START_TEST(missing_command_is_127)
{
	struct cmd c;
	char *argv[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
	    S.base_opt, "--backend=floor", "--",
	    "/nonexistent/cordon-no-such-command", NULL };

	ck_assert_int_eq(run_cmd(&c, argv, NULL), 127);
	ck_assert(json_is(c.out, "outcome", "exited"));
	ck_assert_msg(strstr(c.err, "No such file or directory") != NULL,
	    "stderr: %s", c.err);
	assert_clean(&c);
	cmd_free(&c);
}
END_TEST

START_TEST(non_executable_is_126)
{
	struct cmd c;
	char file[400];
	int fd;

	snprintf(file, sizeof(file), "%s/not-exec", S.root);
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	{
		char *argv[] = { (char *)cordon_bin(), "run", "--json",
		    S.trace_opt, S.base_opt, "--backend=floor", "--", file,
		    NULL };

		/* As root, a 0644 file is still not executable. */
		ck_assert_int_eq(run_cmd(&c, argv, NULL), 126);
	}
	assert_clean(&c);
	cmd_free(&c);
}
END_TEST

/* A bad flag: a clear error naming it, 125, no trace row, nothing run. */
static void
assert_rejected(const char *flag, const char *value, const char *needle)
{
	char marker[400], script[600];
	struct cmd c;
	struct stat st;

	snprintf(marker, sizeof(marker), "%s/ran", S.root);
	snprintf(script, sizeof(script), "touch %s", marker);
	{
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, (char *)flag, (char *)value, "--", "/bin/sh",
		    "-c", script, NULL };

		if (value == NULL) {
			argv[5] = "--";
			argv[6] = "/bin/sh";
			argv[7] = "-c";
			argv[8] = script;
			argv[9] = NULL;
		}
		ck_assert_int_eq(run_cmd(&c, argv, NULL), 125);
	}
	ck_assert_msg(strstr(c.err, needle) != NULL,
	    "error for %s does not name it: %s", flag, c.err);
	ck_assert_msg(stat(marker, &st) < 0, "the command ran anyway");
	ck_assert_msg(stat(S.trace, &st) < 0 || trace_count(&S,
	    "SELECT count(*) FROM runs", NULL) == 0, "a trace row was written");
	ck_assert_msg(stat(S.base, &st) < 0, "a workdir base was created");
	cmd_free(&c);
}

START_TEST(bad_flags_are_refused)
{
	assert_rejected("--bogus", NULL, "'--bogus'");
	assert_rejected("--cpu", "abc", "--cpu: 'abc'");
	assert_rejected("--cpu", "0", "--cpu: 0 is out of range");
	assert_rejected("--wall", "-1", "--wall: '-1'");
	assert_rejected("--memory", "5X", "--memory: '5X'");
	assert_rejected("--memory", "1K", "--memory: 1K is out of range");
	assert_rejected("--nofile", "1.5", "--nofile: '1.5'");
	assert_rejected("--nproc", "many", "--nproc: 'many'");
	assert_rejected("--backend", "chroot", "--backend: unknown backend "
	    "'chroot'");
	assert_rejected("--limit", "5", "option '--limit' does not apply");
}
END_TEST

START_TEST(unavailable_backend_is_a_sandbox_error)
{
	struct cmd c;

	/*
	 * Asked for by name, a backend that cannot run is never faked: here
	 * landlock on a kernel pretending to have none (the helper's test
	 * knob; test_landlock.c covers the real thing).
	 */
	char *const env[] = { "CORDON_TEST_LANDLOCK_ABI=0", NULL };

	ck_assert_int_eq(crun(&c, env, "--backend", "landlock", "--", "exit",
	    "0", NULL), 125);
	ck_assert(json_is(c.out, "outcome", "sandbox_error"));
	ck_assert_msg(strstr(c.err, "backend landlock is not available: the "
	    "kernel offers no Landlock") != NULL, "stderr: %s", c.err);
	ck_assert(json_is(c.out, "workdir_removed", "true"));
	cmd_free(&c);
}
END_TEST

START_TEST(planted_symlinks_do_not_reach_outside)
{
	char outside[400], victim[500], buf[64];
	struct cmd c;
	FILE *f;

	snprintf(outside, sizeof(outside), "%s/outside", S.root);
	ck_assert_int_eq(mkdir(outside, 0755), 0);
	snprintf(victim, sizeof(victim), "%s/victim", outside);
	f = fopen(victim, "w");
	ck_assert_ptr_nonnull(f);
	fputs("precious\n", f);
	fclose(f);

	ck_assert_int_eq(crun(&c, NULL, "--", "plant", outside, NULL), 0);
	assert_clean(&c);
	f = fopen(victim, "r");
	ck_assert_msg(f != NULL, "the outside file was removed");
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "precious\n");
	ck_assert_int_eq(dir_entries(outside), 1);
	cmd_free(&c);
}
END_TEST

START_TEST(broker_sigkill_leaves_nothing)
{
	char pidfile[400];
	char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt, S.base_opt,
	    "--backend=floor", "--", (char *)payload_bin(), "writepid", pidfile,
	    "600", NULL };
	struct timespec ts = { 0, 20000000 };
	pid_t broker;
	long pid;
	int i, status;
	struct cmd c;

	snprintf(pidfile, sizeof(pidfile), "%s/payload.pid", S.root);
	broker = spawn_cmd(argv);
	pid = wait_read_long(pidfile, 5000);
	ck_assert_msg(pid > 0, "the payload never started");
	/*
	 * The payload can start before the broker has read the helper's
	 * backend and created events; kill it only once they are in the
	 * trace, so the test checks that a kill loses none of them.
	 */
	for (i = 0; i < 250 && trace_count(&S, "SELECT count(*) FROM events "
	    "WHERE kind IN ('create', 'backend', 'created')", NULL) < 3; i++)
		nanosleep(&ts, NULL);
	ck_assert_int_eq(kill(broker, SIGKILL), 0);
	ck_assert_int_eq(waitpid(broker, &status, 0), broker);
	/* The helper sees EOF, kills the tree and tears down. */
	for (i = 0; i < 250 && (pid_alive((pid_t)pid) ||
	    dir_entries(S.base) > 1); i++)
		nanosleep(&ts, NULL);
	ck_assert_msg(!pid_alive((pid_t)pid), "payload outlived the broker");
	ck_assert_msg(dir_entries(S.base) <= 1, "workdir left behind");
	/* The trace has the run and what happened before the kill. */
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM events WHERE "
	    "kind IN ('create', 'backend', 'created')", NULL), 3);
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs WHERE "
	    "outcome IS NULL", NULL), 1);
	/* gc then records that the broker died. */
	{
		char *gargv[] = { (char *)cordon_bin(), "gc", S.trace_opt,
		    S.base_opt, NULL };

		ck_assert_int_eq(run_cmd(&c, gargv, NULL), 0);
	}
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs WHERE "
	    "outcome = 'sandbox_error'", NULL), 1);
	cmd_free(&c);
}
END_TEST

/* Runs sql on the scratch trace with a connection of the test's own. */
static sqlite3 *
trace_db(const char *sql)
{
	sqlite3 *db = NULL;
	char *msg = NULL;

	ck_assert_int_eq(sqlite3_open(S.trace, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_busy_timeout(db, 5000), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK,
	    "%s: %s", sql, msg != NULL ? msg : "?");
	return db;
}

/* cordon run on BACKEND of payload writepid MARKER SECONDS. */
static void
marker_argv(char *argv[10], const char *backend, const char *trace_opt,
    const char *marker, const char *seconds)
{
	char *v[] = { (char *)cordon_bin(), "run", (char *)trace_opt,
	    S.base_opt, (char *)backend, "--", (char *)payload_bin(),
	    "writepid", (char *)marker, (char *)seconds };

	memcpy(argv, v, sizeof(v));
}

/*
 * The create row cannot be committed (the trace refuses the insert, as a
 * full or broken database would), after the helper has built the whole
 * sandbox: the payload never runs, nothing is left, exit 125, no row.
 * Without the refusal the same run writes its marker: the test can fail.
 */
/* The first bytes of path (up to 63), or "(none)" if it cannot be read. */
static const char *
file_text(const char *path, char buf[64])
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return strcpy(buf, "(none)");
	n = fread(buf, 1, 63, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * --stdout and --stderr are opened before the run, but a run refused
 * after that (here: the trace will not take its create) leaves them as
 * they were - the existing file not emptied, the new one not made -
 * and a run that goes ahead empties the existing file first.  Before,
 * the refused run had emptied the one and made the other.
 */
START_TEST(refused_run_leaves_output_files_as_they_were)
{
	char out[400], err[400], buf[64];
	char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt, S.base_opt,
		"--backend=floor", "--stdout", out, "--stderr", err, "--",
		"/bin/sh", "-c", "echo hi; echo oops >&2", NULL };
	struct stat st;
	struct cmd c;
	FILE *f;

	snprintf(out, sizeof(out), "%s/out", S.root);
	snprintf(err, sizeof(err), "%s/err", S.root);
	ck_assert_ptr_nonnull(f = fopen(out, "w"));
	fputs("earlier output, longer than the next\n", f);
	fclose(f);
	ck_assert_int_eq(crun(&c, NULL, "--", "exit", "0", NULL), 0);
	cmd_free(&c);
	sqlite3_close(trace_db("CREATE TRIGGER refuse BEFORE INSERT ON runs "
	    "BEGIN SELECT RAISE(ABORT, 'test: no new runs'); END"));
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 125);
	ck_assert_msg(strstr(c.err, "nothing was run") != NULL, "%s", c.err);
	cmd_free(&c);
	ck_assert_str_eq(file_text(out, buf),
	    "earlier output, longer than the next\n");
	ck_assert_msg(stat(err, &st) < 0 && errno == ENOENT,
	    "--stderr's file was made for a refused run");
	sqlite3_close(trace_db("DROP TRIGGER refuse"));
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
	cmd_free(&c);
	ck_assert_str_eq(file_text(out, buf), "hi\n");
	ck_assert_str_eq(file_text(err, buf), "oops\n");
}
END_TEST

START_TEST(create_not_recorded_means_nothing_runs)
{
	static const char *const backends[] = {
		"--backend=floor", "--backend=linux-ns",
	};
	char marker[400], *argv[11] = { NULL };
	struct stat st;
	struct cmd c;
	size_t i;

	snprintf(marker, sizeof(marker), "%s/marker", S.root);
	ck_assert_int_eq(crun(&c, NULL, "--", "exit", "0", NULL), 0);
	cmd_free(&c);
	sqlite3_close(trace_db("CREATE TRIGGER refuse BEFORE INSERT ON runs "
	    "BEGIN SELECT RAISE(ABORT, 'test: no new runs'); END"));
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		marker_argv(argv, backends[i], S.trace_opt, marker, "0");
		ck_assert_int_eq(run_cmd(&c, argv, NULL), 125);
		ck_assert_msg(strstr(c.err, "cordon: nothing was run: the run "
		    "could not be recorded") != NULL, "%s: %s", backends[i],
		    c.err);
		ck_assert_msg(stat(marker, &st) < 0 && errno == ENOENT,
		    "%s: the payload ran", backends[i]);
		ck_assert_msg(dir_entries(S.base) <= 1, "%s: workdir left",
		    backends[i]);
		cmd_free(&c);
	}
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs", NULL), 1);
	/* The floor's payload can write the marker: it does once recorded. */
	sqlite3_close(trace_db("DROP TRIGGER refuse"));
	marker_argv(argv, backends[0], S.trace_opt, marker, "0");
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
	ck_assert_msg(stat(marker, &st) == 0, "the recorded run did not run");
	cmd_free(&c);
}
END_TEST

/* The trace cannot even be opened (its directory is a file): the same. */
START_TEST(trace_not_opened_means_nothing_runs)
{
	char marker[400], opt[400], *argv[11] = { NULL };
	struct stat st;
	struct cmd c;
	int fd;

	snprintf(marker, sizeof(marker), "%s/marker", S.root);
	snprintf(opt, sizeof(opt), "%s/file", S.root);
	ck_assert_int_ge(fd = open(opt, O_WRONLY | O_CREAT | O_EXCL, 0600), 0);
	close(fd);
	snprintf(opt, sizeof(opt), "--trace=%s/file/t.db", S.root);
	marker_argv(argv, "--backend=floor", opt, marker, "0");
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 125);
	ck_assert_msg(strstr(c.err, "cordon: nothing was run") != NULL, "%s",
	    c.err);
	ck_assert_msg(stat(marker, &st) < 0, "the payload ran");
	ck_assert_msg(dir_entries(S.base) <= 1, "workdir left behind");
	cmd_free(&c);
}
END_TEST

/*
 * --require without a PROBE helper: cordon_run starts one helper, the
 * run's own, and holds the run to the required controls at its BACKEND
 * (run.c, require_met).  The helper is a wrapper that counts its starts.
 * Each refusal: exit 125, "nothing was run" naming the control, no trace
 * file, no workdir, the payload never ran.  Met: one helper start.
 */
static void
counting_helper(char *wrapper, size_t wsz, char *count, size_t csz)
{
	FILE *f;

	snprintf(count, csz, "%s/helper-starts", S.root);
	snprintf(wrapper, wsz, "%s/helper.sh", S.root);
	ck_assert_ptr_nonnull(f = fopen(wrapper, "w"));
	fprintf(f, "#!/bin/sh\necho started >> '%s'\nexec '%s' \"$@\"\n", count,
	    getenv("CORDON_HELPER"));
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(wrapper, 0755), 0);
}

/* Lines in path (0 if it does not exist). */
static int
count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, ch;

	if (f == NULL)
		return 0;
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/* Removes the scratch trace with its WAL and shared-memory files. */
static void
unlink_trace(void)
{
	char p[340];

	ck_assert_int_eq(unlink(S.trace), 0);
	snprintf(p, sizeof(p), "%s-wal", S.trace);
	(void)unlink(p);
	snprintf(p, sizeof(p), "%s-shm", S.trace);
	(void)unlink(p);
}

/*
 * The trace's three files (a NULL path: absent), to show a refused run
 * wrote none of them: not a row, not a schema migration, not a WAL.
 */
static const char *const trace_suffix[3] = { "", "-wal", "-shm" };

/* Copies each of the trace's files that exists beside it, as ".was". */
static void
trace_files(char *copy[3])
{
	char p[340], cmd[800];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", S.trace, trace_suffix[i]);
		copy[i] = NULL;
		if (access(p, F_OK) < 0)
			continue;
		ck_assert_int_ne(asprintf(&copy[i], "%s.was", p), -1);
		snprintf(cmd, sizeof(cmd), "cp -p '%s' '%s'", p, copy[i]);
		ck_assert_int_eq(system(cmd), 0);
	}
}

/* Each file as it was (cmp: byte for byte), or still absent. */
static void
assert_trace_files(char *copy[3])
{
	char p[340], cmd[800];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", S.trace, trace_suffix[i]);
		if (copy[i] == NULL) {
			ck_assert_msg(access(p, F_OK) < 0, "%s was made", p);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", p, copy[i]);
		ck_assert_msg(system(cmd) == 0, "%s changed", p);
		(void)unlink(copy[i]);
		free(copy[i]);
	}
}

static void
assert_require_refused(char *const env[], const char *backend,
    const char *require, const char *msg, int starts, const char *count)
{
	char marker[400], script[500];
	struct stat st;
	struct cmd c;
	char *argv[12] = { (char *)cordon_bin(), "run", S.trace_opt,
	    S.base_opt, (char *)backend };
	int entries = stat(S.base, &st) < 0 ? 0 : dir_entries(S.base);
	size_t n = 5;

	if (require != NULL) {
		argv[n++] = "--require";
		argv[n++] = (char *)require;
	}
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n] = NULL;
	unlink(count);
	snprintf(marker, sizeof(marker), "%s/ran", S.root);
	snprintf(script, sizeof(script), "touch %s", marker);
	ck_assert_int_eq(run_cmd(&c, argv, env), 125);
	ck_assert_msg(strncmp(c.err, "cordon: nothing was run: ", 25) == 0 &&
	    strstr(c.err, msg) != NULL, "want '%s': %s", msg, c.err);
	ck_assert_msg(stat(marker, &st) < 0, "the command ran");
	ck_assert_msg(stat(S.trace, &st) < 0, "the trace was made");
	ck_assert_msg((stat(S.base, &st) < 0 ? 0 : dir_entries(S.base)) ==
	    entries, "a workdir was left");
	ck_assert_int_eq(count_lines(count), starts);
	cmd_free(&c);
}

START_TEST(require_is_checked_without_a_probe)
{
	char wrapper[400], count[400], helper_env[420], confdir[400];
	char conf_env[420], p[450];
	char *env[] = { helper_env, NULL, NULL, NULL };
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	struct cmd c;
	FILE *f;

	counting_helper(wrapper, sizeof(wrapper), count, sizeof(count));
	snprintf(helper_env, sizeof(helper_env), "CORDON_HELPER=%s", wrapper);
	/* What the backend asked for can never apply: no helper at all. */
	assert_require_refused(env, "--backend=floor", "network-isolation",
	    "a required control is missing on this host with the floor "
	    "backend (requested): network-isolation: the floor backend has no "
	    "network isolation", 0, count);
	assert_require_refused(env, "--backend=linux-ns", "processes",
	    "processes: no process cap was set (--nproc)", 0, count);
	/* Met: one helper, the run's own (the probe used to make it two). */
	{
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, "--backend=floor", "--require", "memory,cpu",
		    "--", "/bin/true", NULL };

		unlink(count);
		ck_assert_int_eq(run_cmd(&c, argv, env), 0);
		ck_assert_int_eq(count_lines(count), 1);
		ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs",
		    NULL), 1);
		cmd_free(&c);
		unlink_trace();
	}
	if (abi < 4) {
		fprintf(stderr, "test_run: SKIP the BACKEND refusals: they "
		    "pretend Landlock ABI 3, and this kernel's Landlock ABI is "
		    "%ld (needs 4 or more)\n", abi);
		return;
	}
	/* Built, held before its execve, then refused at BACKEND. */
	env[1] = "CORDON_TEST_LANDLOCK_ABI=3";
	assert_require_refused(env, "--backend=landlock", "network-isolation",
	    "a required control is missing on this host with the landlock "
	    "backend (requested; landlock ABI 3: ", 1, count);
	assert_require_refused(env, "--backend=landlock", "scoping,memory",
	    "scoping: this kernel's Landlock cannot scope signals and "
	    "abstract sockets (needs ABI 6)", 1, count);
	/* A trace that exists is left as it was: no row, no byte. */
	{
		char marker[400], script[450], *before[3];
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, "--backend=landlock", "--require", "scoping",
		    "--", "/bin/sh", "-c", script, NULL };

		ck_assert_int_eq(crun(&c, NULL, "--", "exit", "0", NULL), 0);
		cmd_free(&c);
		trace_files(before);
		snprintf(marker, sizeof(marker), "%s/ran", S.root);
		snprintf(script, sizeof(script), "touch %s", marker);
		ck_assert_int_eq(run_cmd(&c, argv, env), 125);
		ck_assert_msg(strstr(c.err, "scoping: this kernel's Landlock") !=
		    NULL, "%s", c.err);
		ck_assert_msg(access(marker, F_OK) < 0, "the command ran");
		assert_trace_files(before);
		ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs",
		    NULL), 1);
		cmd_free(&c);
		unlink_trace();
	}
	/* The system policy's: the helper refuses it itself, before BACKEND. */
	snprintf(confdir, sizeof(confdir), "%s/conf", S.root);
	ck_assert_int_eq(mkdir(confdir, 0755), 0);
	snprintf(p, sizeof(p), "%s/policy.conf", confdir);
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fputs("[policy]\nrequire = network-isolation\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(p, 0644), 0);
	snprintf(conf_env, sizeof(conf_env), "CORDON_CONFDIR=%s", confdir);
	env[2] = conf_env;
	assert_require_refused(env, "--backend=landlock", NULL,
	    "required control network-isolation cannot be applied by the "
	    "landlock backend", 1, count);
}
END_TEST

/* Writes text to path with mode (the policy loader checks both). */
static void
put_file(const char *path, const char *text, mode_t mode)
{
	FILE *f;

	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* One run through s; its return, the result freed. */
static int
session_true(cordon_session *s, const cordon_config *cfg)
{
	char *argv[] = { "/bin/true", NULL };
	cordon_result *r = NULL;
	int err = cordon_session_run(s, cfg, argv, &r);

	if (err == 0) {
		ck_assert_int_eq(cordon_result_outcome(r), CORDON_OUTCOME_EXITED);
		ck_assert_int_eq(cordon_result_exit_code(r), 0);
		ck_assert(cordon_result_workdir_removed(r));
		ck_assert_ptr_null(cordon_session_error(s));
	} else {
		ck_assert_ptr_null(r);
	}
	cordon_result_free(r);
	return err;
}

/*
 * cordon_session_*: runs on one open trace, each recorded; the policy
 * kept parsed and read again when its file changes (contents, mode);
 * refusals record nothing and say why; another trace is refused.
 */
START_TEST(session_keeps_the_trace_and_rereads_the_policy)
{
	char confdir[400], pol[450], other[400];
	cordon_config *cfg = cordon_config_new(), *opts = cordon_config_new();
	cordon_session *s = NULL;
	const char *why;
	int i;

	snprintf(confdir, sizeof(confdir), "%s/conf", S.root);
	ck_assert_int_eq(mkdir(confdir, 0755), 0);
	snprintf(pol, sizeof(pol), "%s/policy.conf", confdir);
	ck_assert_int_eq(setenv("CORDON_CONFDIR", confdir, 1), 0);
	ck_assert_int_eq(cordon_config_set_trace_path(opts, S.trace), 0);
	ck_assert_int_eq(cordon_config_set_workdir_base(cfg, S.base), 0);
	ck_assert_int_eq(cordon_config_set_backend(cfg, CORDON_BACKEND_FLOOR),
	    0);
	ck_assert_int_eq(cordon_session_open(opts, &s), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(session_true(s, cfg), 0);
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs WHERE "
	    "outcome = 'exited'", NULL), 3);
	/* A policy that appears is read: a ceiling under the cap refuses. */
	ck_assert_int_eq(cordon_config_set_limit(cfg, CORDON_CAP_MEMORY,
	    2ULL << 30), 0);
	put_file(pol, "[ceilings]\nmax_memory = 1G\n", 0644);
	ck_assert_int_eq(session_true(s, cfg), -CORDON_E_POLICY);
	ck_assert_ptr_nonnull(why = cordon_session_error(s));
	ck_assert_msg(strstr(why, "max_memory = 1G") != NULL, "%s", why);
	/*
	 * Changed: read again, now it runs.  (Kernels without multigrain
	 * timestamps stamp files per tick: each change waits one out.)
	 */
	usleep(20000);
	put_file(pol, "[ceilings]\nmax_memory = 4G\n", 0644);
	ck_assert_int_eq(session_true(s, cfg), 0);
	/* Only the mode changed (ctime): read again, and refused for it. */
	usleep(20000);
	ck_assert_int_eq(chmod(pol, 0666), 0);
	ck_assert_int_eq(session_true(s, cfg), -CORDON_E_POLICY);
	ck_assert_msg(strstr(cordon_session_error(s), "writable by group or "
	    "others") != NULL, "%s", cordon_session_error(s));
	/* Gone: the built-in defaults. */
	ck_assert_int_eq(unlink(pol), 0);
	ck_assert_int_eq(session_true(s, cfg), 0);
	/* A required control the floor lacks: refused, nothing recorded. */
	ck_assert_int_eq(cordon_config_require(cfg, CORDON_CAP_NETWORK), 0);
	ck_assert_int_eq(session_true(s, cfg), -CORDON_E_UNMET);
	ck_assert_msg(strstr(cordon_session_error(s), "network-isolation: the "
	    "floor backend has no network isolation") != NULL, "%s",
	    cordon_session_error(s));
	cordon_config_free(cfg);
	cfg = cordon_config_new();
	ck_assert_int_eq(cordon_config_set_workdir_base(cfg, S.base), 0);
	ck_assert_int_eq(cordon_config_set_backend(cfg, CORDON_BACKEND_FLOOR),
	    0);
	/* The session's trace or none: another is a mistake. */
	snprintf(other, sizeof(other), "%s/other.db", S.root);
	ck_assert_int_eq(cordon_config_set_trace_path(cfg, other), 0);
	ck_assert_int_eq(session_true(s, cfg), -CORDON_E_INVAL);
	ck_assert_msg(strstr(cordon_session_error(s), other) != NULL, "%s",
	    cordon_session_error(s));
	ck_assert_int_eq(access(other, F_OK), -1);
	ck_assert_int_eq(cordon_config_set_trace_path(cfg, S.trace), 0);
	ck_assert_int_eq(session_true(s, cfg), 0);
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs", NULL),
	    6);
	ck_assert_int_eq(dir_entries(S.base) <= 1, 1);
	cordon_session_close(s);
	cordon_session_close(NULL);
	cordon_config_free(cfg);
	cordon_config_free(opts);
	unsetenv("CORDON_CONFDIR");
}
END_TEST

/* The first child pid of pid listed in /proc, or -1. */
static pid_t
first_child(pid_t pid)
{
	char path[96];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return (pid_t)v;
}

/*
 * Built and held: the broker's helper has a child, and the run its
 * workdir.  The child (or -1 after 5 s); *helper the helper.
 */
static pid_t
await_held(pid_t broker, pid_t *helper)
{
	struct timespec ts = { 0, 20000000 };
	pid_t held = -1;
	int i;

	*helper = -1;
	for (i = 0; i < 250 && (held < 0 || dir_entries(S.base) < 1); i++) {
		nanosleep(&ts, NULL);
		if ((*helper = first_child(broker)) > 0)
			held = first_child(*helper);
	}
	return held;
}

/*
 * Cancelled (SIGTERM to cordon) while the broker waits for the trace's
 * write lock, before GO: once the lock is free the create is committed,
 * but the payload is never let go - the run ends as interrupted (128 +
 * 15, a row saying so), nothing of it runs and nothing is left.  Before
 * the fix GO went out first and the helper's SIGTERM came after the
 * payload had started: the marker was written.
 */
START_TEST(cancel_before_go_runs_nothing)
{
	static const char *const backends[] = {
		"--backend=floor", "--backend=linux-ns",
	};
	struct timespec ts = { 0, 20000000 };
	char marker[400], *argv[11] = { NULL };
	pid_t broker, helper = -1, held = -1;
	struct stat st;
	sqlite3 *db;
	size_t b;
	int i, status;

	snprintf(marker, sizeof(marker), "%s/marker", S.root);
	for (b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		db = trace_db("BEGIN IMMEDIATE");
		marker_argv(argv, backends[b], S.trace_opt, marker, "0");
		broker = spawn_cmd(argv);
		held = await_held(broker, &helper);
		ck_assert_msg(held > 0, "%s: the helper never started its child",
		    backends[b]);
		ck_assert_int_eq(kill(broker, SIGTERM), 0);
		for (i = 0; i < 5; i++)
			nanosleep(&ts, NULL);
		ck_assert_int_eq(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL),
		    SQLITE_OK);
		sqlite3_close(db);
		ck_assert_int_eq(waitpid(broker, &status, 0), broker);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) ==
		    128 + SIGTERM, "%s: status %d", backends[b], status);
		ck_assert_msg(stat(marker, &st) < 0, "%s: the payload ran after "
		    "the run was cancelled", backends[b]);
		ck_assert_msg(!pid_alive(held) && !pid_alive(helper),
		    "%s: the held child or the helper is left", backends[b]);
		ck_assert_msg(dir_entries(S.base) <= 1, "%s: workdir left behind",
		    backends[b]);
		held = helper = -1;
	}
	/* The record says the command never started (it never exec'd). */
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs WHERE "
	    "outcome = 'signaled' AND signal = 15 AND error = 'interrupted by "
	    "signal 15 before the command started'", NULL), 2);
}
END_TEST

/*
 * The broker waits for the trace's write lock (held here) before GO: the
 * helper has built the run and holds the payload, which must not run.
 * A broker killed then leaves nothing: the helper sees EOF, kills the
 * held child and removes the workdir.  Released instead, the lock lets
 * the same run go on and the payload run.
 */
START_TEST(payload_waits_for_the_create_row)
{
	struct timespec ts = { 0, 20000000 };
	char marker[400], *argv[11] = { NULL };
	pid_t broker, helper = -1, held = -1;
	struct stat st;
	struct cmd c;
	sqlite3 *db;
	int i, status, pass;

	snprintf(marker, sizeof(marker), "%s/marker", S.root);
	ck_assert_int_eq(crun(&c, NULL, "--", "exit", "0", NULL), 0);
	cmd_free(&c);
	for (pass = 0; pass < 2; pass++) {
		db = trace_db("BEGIN IMMEDIATE");
		marker_argv(argv, "--backend=floor", S.trace_opt, marker, "0");
		broker = spawn_cmd(argv);
		held = await_held(broker, &helper);
		ck_assert_msg(held > 0, "the helper never started its child");
		/* Give it time it would use to run, were it not held. */
		for (i = 0; i < 25; i++)
			nanosleep(&ts, NULL);
		ck_assert_msg(stat(marker, &st) < 0,
		    "the payload ran before its create row was committed");
		ck_assert_msg(pid_alive(held), "the held child died");
		if (pass == 0) {
			ck_assert_int_eq(kill(broker, SIGKILL), 0);
			ck_assert_int_eq(waitpid(broker, &status, 0), broker);
			for (i = 0; i < 250 && (pid_alive(held) ||
			    pid_alive(helper) || dir_entries(S.base) > 1); i++)
				nanosleep(&ts, NULL);
			ck_assert_msg(!pid_alive(held) && !pid_alive(helper),
			    "the held child or the helper outlived the broker");
			ck_assert_msg(dir_entries(S.base) <= 1,
			    "workdir left behind");
			ck_assert_msg(stat(marker, &st) < 0, "the payload ran");
			sqlite3_close(db); /* rolls back */
		} else {
			ck_assert_int_eq(sqlite3_exec(db, "ROLLBACK", NULL, NULL,
			    NULL), SQLITE_OK);
			ck_assert_int_eq(waitpid(broker, &status, 0), broker);
			ck_assert_msg(WIFEXITED(status) &&
			    WEXITSTATUS(status) == 0, "status %d", status);
			ck_assert_msg(stat(marker, &st) == 0,
			    "the run never ran once recorded");
			sqlite3_close(db);
		}
		held = helper = -1;
	}
	/* The killed broker's run never reached the trace. */
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs", NULL), 2);
}
END_TEST

/*
 * The helper on its own, held at CREATED (the payload built, before its
 * execve): what comes instead of GO - another type, or EOF - ends the run
 * with nothing of the command run: ERROR, TEARDOWN, exit 125, the held
 * child gone, the workdir removed.  GO itself lets it run.
 */
START_TEST(held_helper_takes_only_go)
{
	static const char *const backends_name[] = { "floor", "linux-ns" };
	static const uint8_t backends[] = {
		CORDON_BACKEND_FLOOR, CORDON_BACKEND_LINUX_NS,
	};
	char marker[400], script[500];
	char *args[] = { "/bin/sh", "-c", script };
	struct cordon_msg m;
	struct stat st;
	bool error, teardown;
	pid_t helper, held;
	int sock, i, status, what;
	size_t b;

	snprintf(marker, sizeof(marker), "%s/ran", S.root);
	snprintf(script, sizeof(script), "touch %s", marker);
	/* what: 0 an ARG, 1 EOF, 2 GO (floor only: it can write the marker). */
	for (b = 0; b < 2; b++)
	for (what = 0; what < (b == 0 ? 3 : 2); what++) {
		ck_assert_int_eq(cordon_start_helper(getenv("CORDON_HELPER"),
		    &helper, &sock), 0);
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_REQUEST;
		m.u.request.backend = backends[b];
		cordon_limits_default(&m.u.request.limits);
		m.u.request.run_id = "0123456789abcdef0123456789abcdef";
		m.u.request.workdir_base = S.base;
		m.u.request.argc = 3;
		ck_assert_int_eq(cordon_msg_send(sock, &m), 0);
		for (i = 0; i < 3; i++) {
			m.type = CORDON_MSG_ARG;
			m.u.str = args[i];
			ck_assert_int_eq(cordon_msg_send(sock, &m), 0);
		}
		held = -1;
		while (held < 0 && cordon_msg_recv(sock, &m) == 0) {
			ck_assert_msg(m.type == CORDON_MSG_BACKEND ||
			    m.type == CORDON_MSG_CREATED, "%s: got %u",
			    backends_name[b], m.type);
			if (m.type == CORDON_MSG_CREATED)
				held = (pid_t)m.u.created.pid;
			cordon_msg_clear(&m);
		}
		ck_assert_msg(held > 0, "%s: no CREATED", backends_name[b]);
		/* Held: it has had time to run, were it not. */
		usleep(300000);
		ck_assert_msg(stat(marker, &st) < 0, "%s: ran before GO",
		    backends_name[b]);
		ck_assert_msg(pid_alive(held), "%s: the held child is gone",
		    backends_name[b]);
		memset(&m, 0, sizeof(m));
		if (what == 0) {
			m.type = CORDON_MSG_ARG;
			m.u.str = "extra";
			ck_assert_int_eq(cordon_msg_send(sock, &m), 0);
		} else if (what == 1) {
			ck_assert_int_eq(shutdown(sock, SHUT_WR), 0);
		} else {
			m.type = CORDON_MSG_GO;
			ck_assert_int_eq(cordon_msg_send(sock, &m), 0);
		}
		error = teardown = false;
		while (cordon_msg_recv(sock, &m) == 0) {
			error |= m.type == CORDON_MSG_ERROR;
			teardown |= m.type == CORDON_MSG_TEARDOWN;
			cordon_msg_clear(&m);
		}
		close(sock);
		status = cordon_wait_helper(helper);
		ck_assert_msg(teardown, "%s/%d: no TEARDOWN", backends_name[b],
		    what);
		ck_assert_msg(!pid_alive(held), "%s/%d: the held child lives",
		    backends_name[b], what);
		ck_assert_msg(dir_entries(S.base) <= 1, "%s/%d: workdir left",
		    backends_name[b], what);
		if (what == 2) {
			ck_assert_msg(!error && WIFEXITED(status) &&
			    WEXITSTATUS(status) == 0, "GO: status %d", status);
			ck_assert_msg(stat(marker, &st) == 0, "GO: never ran");
			ck_assert_int_eq(unlink(marker), 0);
		} else {
			ck_assert_msg(error && WIFEXITED(status) &&
			    WEXITSTATUS(status) == 125, "%s/%d: error %d, "
			    "status %d", backends_name[b], what, error, status);
			ck_assert_msg(stat(marker, &st) < 0, "%s/%d: it ran",
			    backends_name[b], what);
		}
	}
}
END_TEST

START_TEST(helper_sigkill_is_reclaimed)
{
	char pidfile[400];
	char *argv[] = { (char *)cordon_bin(), "run", "--json", S.trace_opt,
	    S.base_opt, "--backend=floor", "--", (char *)payload_bin(),
	    "writepid", pidfile, "600", NULL };
	char path[96], buf[256];
	pid_t broker;
	long pid, helper;
	FILE *f;
	int status;

	snprintf(pidfile, sizeof(pidfile), "%s/payload.pid", S.root);
	broker = spawn_cmd(argv);
	pid = wait_read_long(pidfile, 5000);
	ck_assert_msg(pid > 0, "the payload never started");
	/* The payload's parent is the helper. */
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_int_eq(sscanf(strrchr(buf, ')') + 2, "%*c %ld", &helper), 1);
	ck_assert_int_eq(kill((pid_t)helper, SIGKILL), 0);
	ck_assert_int_eq(waitpid(broker, &status, 0), broker);
	ck_assert_int_eq(WEXITSTATUS(status), 125);
	/* PR_SET_PDEATHSIG took the payload; the broker reclaimed the dir. */
	{
		struct timespec ts = { 0, 20000000 };
		int i;

		for (i = 0; i < 100 && pid_alive((pid_t)pid); i++)
			nanosleep(&ts, NULL);
	}
	ck_assert_msg(!pid_alive((pid_t)pid), "payload outlived its helper");
	ck_assert_msg(dir_entries(S.base) <= 1, "workdir not reclaimed");
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs WHERE "
	    "outcome = 'sandbox_error' AND workdir_removed = 1", NULL), 1);
}
END_TEST

/*
 * The helper makes the workdir before it starts the payload and names it
 * to the broker only after (CREATED).  A helper killed in between left a
 * workdir the broker was never told about: the run must still reclaim it
 * and say so truthfully.  The kill lands as soon as the workdir appears,
 * which on this machine is nearly always before CREATED; wherever it
 * lands, nothing may be left and the record must not lie.
 */
START_TEST(helper_killed_before_naming_the_workdir_is_reclaimed)
{
	char pidfile[400];
	char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt, S.base_opt,
	    "--backend=floor", "--", (char *)payload_bin(), "writepid",
	    pidfile, "600", NULL };
	char path[96], buf[4096] __attribute__((aligned(8)));
	struct inotify_event *ev;
	pid_t broker;
	long helper = 0, pid;
	bool made = false;
	ssize_t n, off;
	FILE *f;
	int ino, status, i;

	snprintf(pidfile, sizeof(pidfile), "%s/payload.pid", S.root);
	ck_assert_int_eq(mkdir(S.base, 0700), 0);
	ino = inotify_init1(IN_CLOEXEC);
	ck_assert_int_ge(ino, 0);
	ck_assert_int_ge(inotify_add_watch(ino, S.base, IN_CREATE), 0);
	broker = spawn_cmd(argv);
	while (!made) {
		n = read(ino, buf, sizeof(buf));
		ck_assert_int_gt(n, 0);
		for (off = 0; off < n; off += (ssize_t)sizeof(*ev) + ev->len) {
			ev = (struct inotify_event *)(void *)(buf + off);
			if ((ev->mask & IN_ISDIR) != 0)
				made = true;
		}
	}
	/* The workdir exists: the helper (the broker's only child) made it. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)broker,
	    (int)broker);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%ld", &helper), 1);
	fclose(f);
	ck_assert_int_eq(kill((pid_t)helper, SIGKILL), 0);
	close(ino);
	ck_assert_int_eq(waitpid(broker, &status, 0), broker);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 125,
	    "a killed helper is a sandbox error (125), got status %d", status);
	/* The base's own .lock may stay; the run's lock and workdir may not. */
	ck_assert_msg(dir_entries(S.base) <= 1, "workdir not reclaimed: %d "
	    "entries left in %s", dir_entries(S.base), S.base);
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs WHERE "
	    "outcome = 'sandbox_error' AND workdir_removed = 1", NULL), 1);
	/*
	 * A payload that got as far as running does not outlive its helper
	 * (PR_SET_PDEATHSIG); one that did not never will (floor.c checks
	 * its parent after arming it).
	 */
	pid = wait_read_long(pidfile, 10);
	for (i = 0; i < 100 && pid > 0 && pid_alive((pid_t)pid); i++)
		usleep(20000);
	ck_assert_msg(pid <= 0 || !pid_alive((pid_t)pid),
	    "the payload outlived its helper");
}
END_TEST

START_TEST(concurrent_runs_lose_no_row)
{
	enum { N = 8, EACH = 5 };
	pid_t pids[N];
	int i, k, status;

	for (i = 0; i < N; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			for (k = 0; k < EACH; k++) {
				struct cmd c;

				if (crun(&c, NULL, "--", "exit", "0", NULL) != 0)
					_exit(1);
				cmd_free(&c);
			}
			_exit(0);
		}
	}
	for (i = 0; i < N; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "a concurrent run failed");
	}
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM runs WHERE "
	    "outcome = 'exited'", NULL), N * EACH);
	ck_assert_int_eq(trace_count(&S, "SELECT count(*) FROM events",
	    NULL), N * EACH * 5);
}
END_TEST

START_TEST(trace_list_and_show)
{
	struct cmd c, l;
	char *id;

	ck_assert_int_eq(crun(&c, NULL, "--", "exit", "7", NULL), 7);
	id = run_id_of(&c);
	{
		char *argv[] = { (char *)cordon_bin(), "trace", "list",
		    S.trace_opt, NULL };

		ck_assert_int_eq(run_cmd(&l, argv, NULL), 0);
		ck_assert_msg(strstr(l.out, id) != NULL, "list: %s", l.out);
		cmd_free(&l);
	}
	{
		char *argv[] = { (char *)cordon_bin(), "trace", "show", id,
		    "--json", S.trace_opt, NULL };

		ck_assert_int_eq(run_cmd(&l, argv, NULL), 0);
		ck_assert(json_is(l.out, "exit_code", "7"));
		ck_assert_msg(strstr(l.out, "\"kind\":\"teardown\"") != NULL,
		    "show: %s", l.out);
		cmd_free(&l);
	}
	{
		char *argv[] = { (char *)cordon_bin(), "trace", "show",
		    "0123456789abcdef0123456789abcdef", S.trace_opt, NULL };

		ck_assert_int_eq(run_cmd(&l, argv, NULL), 125);
		ck_assert_msg(strstr(l.err, "no run") != NULL, "%s", l.err);
		cmd_free(&l);
	}
	free(id);
	cmd_free(&c);
}
END_TEST

/* An export or listing that could not be written is not a success. */
START_TEST(trace_output_to_a_full_disk_fails)
{
	static const char *const subs[] = { "list", "export" };
	struct cmd c, l;
	size_t i;

	ck_assert_int_eq(crun(&c, NULL, "--", "exit", "0", NULL), 0);
	cmd_free(&c);
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		char *argv[] = { "/bin/sh", "-c",
		    "exec \"$0\" trace \"$1\" \"$2\" >/dev/full",
		    (char *)cordon_bin(), (char *)subs[i], S.trace_opt, NULL };

		ck_assert_int_eq(run_cmd(&l, argv, NULL), 125);
		ck_assert_msg(strstr(l.err, "standard output") != NULL,
		    "trace %s: %s", subs[i], l.err);
		cmd_free(&l);
	}
}
END_TEST

/* argv round-trips exactly, bytes and all. */
START_TEST(argv_is_recorded_exactly)
{
	struct cmd c;
	char *id, *blob;
	static const char odd[] = "a b\"c\\d\ne\xff";

	ck_assert_int_eq(crun(&c, NULL, "--", "exit", odd, "", NULL), 0);
	id = run_id_of(&c);
	blob = trace_text(&S, "SELECT hex(argv_blob) FROM runs WHERE run_id = ?1",
	    id);
	ck_assert_ptr_nonnull(blob);
	/* "exit\0a b"c\d\ne\xff\0\0" after the payload path. */
	ck_assert_msg(strstr(blob, "6578697400" "6120622263" "5C640A65FF00" "00")
	    != NULL, "argv blob: %s", blob);
	free(blob);
	free(id);
	cmd_free(&c);
}
END_TEST

/* The argv of the record in json, decoded: the payload, "exit", want. */
static void
assert_argv_json(const char *what, const char *json, const char *const *want,
    size_t nwant)
{
	size_t n = 0, i;
	char **v = json_get_strv(json, "argv", &n);

	ck_assert_msg(v != NULL, "%s: no argv array of strings in: %s", what,
	    json);
	ck_assert_msg(n == nwant + 2, "%s: %zu arguments, want %zu", what, n,
	    nwant + 2);
	ck_assert_str_eq(v[0], payload_bin());
	ck_assert_str_eq(v[1], "exit");
	for (i = 0; i < nwant; i++)
		ck_assert_msg(strcmp(v[i + 2], want[i]) == 0,
		    "%s: argument %zu does not decode to the bytes that ran: %s",
		    what, i + 2, json);
	strv_free(v);
}

static void
assert_printable(const char *what, const char *out)
{
	size_t bad = 0;

	ck_assert_msg(utf8_printable(out, strlen(out), &bad),
	    "%s: not printable at byte %zu: %s", what, bad, out + bad);
}

/*
 * Every byte value 1-255 in one argument, and beside it valid UTF-8, C1
 * controls, a literal "\udcff" and bytes that only look like UTF-8: the
 * JSON of run --json, trace show --json and trace export decodes (a JSON
 * decoder, then surrogateescape) to the bytes that ran, and every output
 * stays printable UTF-8.
 */
START_TEST(argv_bytes_round_trip_through_json)
{
	char all[256], *id, path[400], line[8192], *nl;
	const char *want[6];
	struct cmd c, l;
	size_t i, n;
	int fd;

	for (i = 0; i < 255; i++)
		all[i] = (char)(i + 1);
	all[255] = '\0';
	want[0] = "0";
	want[1] = all;
	want[2] = "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80";
	want[3] = "\xc2\x9b" "31m\xc2\x85";
	want[4] = "\\udcff\\u00ff";
	/* An encoded surrogate, overlong, past U+10FFFF, cut short. */
	want[5] = "\xed\xb3\xbf" "\xc0\xaf" "\xf4\x90\x80\x80" "\xe2\x9c";
	ck_assert_int_eq(crun(&c, NULL, "--", "exit", want[0], want[1], want[2],
	    want[3], want[4], want[5], NULL), 0);
	assert_argv_json("run --json", c.out, want, 6);
	assert_printable("run --json", c.out);
	id = run_id_of(&c);
	{
		char *argv[] = { (char *)cordon_bin(), "trace", "show", id,
		    "--json", S.trace_opt, NULL };

		ck_assert_int_eq(run_cmd(&l, argv, NULL), 0);
		assert_argv_json("trace show --json", l.out, want, 6);
		assert_printable("trace show --json", l.out);
		/* The reader README.md names, where there is one. */
		snprintf(path, sizeof(path), "%s/show.json", S.root);
		ck_assert_int_ge(fd = open(path, O_WRONLY | O_CREAT, 0600), 0);
		ck_assert_int_eq(write(fd, l.out, strlen(l.out)),
		    (ssize_t)strlen(l.out));
		close(fd);
		cmd_free(&l);
	}
	if (access("/usr/bin/python3", X_OK) == 0) {
		char *argv[] = { "/usr/bin/python3", "-c", "import json, sys; "
		    "sys.stdout.buffer.write(b'\\0'.join(a.encode('utf-8', "
		    "'surrogateescape') for a in json.load(sys.stdin)['argv']"
		    "[2:]))", NULL };

		ck_assert_int_eq(run_cmd_in(&l, argv, NULL, path), 0);
		for (i = 0, n = 0; i < 6; i++) {
			ck_assert_msg(strcmp(l.out + n, want[i]) == 0,
			    "python3 decodes argument %zu differently", i + 2);
			n += strlen(want[i]) + 1;
		}
		cmd_free(&l);
	}
	{
		char *argv[] = { (char *)cordon_bin(), "trace", "export",
		    S.trace_opt, NULL };

		ck_assert_int_eq(run_cmd(&l, argv, NULL), 0);
		assert_argv_json("trace export", l.out, want, 6);
		assert_printable("trace export", l.out);
		cmd_free(&l);
	}
	{
		char *argv[] = { (char *)cordon_bin(), "trace", "list",
		    S.trace_opt, NULL };

		ck_assert_int_eq(run_cmd(&l, argv, NULL), 0);
		assert_printable("trace list", l.out);
		cmd_free(&l);
	}
	{
		char *argv[] = { (char *)cordon_bin(), "trace", "show", id,
		    S.trace_opt, NULL };

		ck_assert_int_eq(run_cmd(&l, argv, NULL), 0);
		assert_printable("trace show", l.out);
		/* The argv line is a shell line: bash reads back the bytes. */
		ck_assert_ptr_nonnull(nl = strstr(l.out, "\nargv      "));
		snprintf(line, sizeof(line), "printf '%%s\\0' %.*s",
		    (int)strcspn(nl + 11, "\n"), nl + 11);
		cmd_free(&l);
	}
	{
		char *argv[] = { "/bin/bash", "-c", line, NULL };

		ck_assert_int_eq(run_cmd(&l, argv, NULL), 0);
		n = strlen(payload_bin()) + strlen("exit") + 2;
		for (i = 0; i < 6; i++) {
			ck_assert_msg(strcmp(l.out + n, want[i]) == 0,
			    "the human argv line reads back differently at "
			    "argument %zu: %s", i + 2, line);
			n += strlen(want[i]) + 1;
		}
		cmd_free(&l);
	}
	free(id);
	cmd_free(&c);
}
END_TEST

/* ---- the record apart from the output: --json-fd, --result ---------- */

/* path opened with flags, moved to an fd >= 20 that children inherit. */
static int
open_high(const char *path, int flags)
{
	int fd = open(path, flags, 0600), hi;

	ck_assert_int_ge(fd, 0);
	hi = fcntl(fd, F_DUPFD, 20);
	ck_assert_int_ge(hi, 20);
	close(fd);
	return hi;
}

/* The whole file, NUL-terminated. */
static char *
slurp(const char *path)
{
	char *b = NULL;
	long n;
	FILE *f = fopen(path, "r");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	ck_assert_int_ge(n = ftell(f), 0);
	rewind(f);
	ck_assert_ptr_nonnull(b = calloc(1, (size_t)n + 1));
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return b;
}

/* One JSON object and a newline, for a run the trace has, with outcome. */
static char *
assert_record(const char *what, const char *rec, const char *outcome)
{
	char *id = json_get(rec, "run_id"), *got;
	size_t n = strlen(rec);

	ck_assert_msg(n > 2 && rec[0] == '{' && rec[n - 2] == '}' &&
	    rec[n - 1] == '\n' && strchr(rec, '\n') == rec + n - 1,
	    "%s: not one JSON line: '%s'", what, rec);
	ck_assert_msg(id != NULL && strlen(id) == 32, "%s: no run_id", what);
	ck_assert_msg(json_is(rec, "outcome", outcome), "%s: %s", what, rec);
	got = trace_text(&S, "SELECT outcome FROM runs WHERE run_id = ?1", id);
	ck_assert_msg(got != NULL && strcmp(got, outcome) == 0,
	    "%s: the trace has run %s as %s", what, id,
	    got != NULL ? got : "(none)");
	free(got);
	return id;
}

/*
 * A payload whose output does not end in a newline no longer runs into
 * the record: stdout is the payload's alone, the record is on fd N, and
 * the payload never had N.
 */
START_TEST(json_fd_keeps_the_record_apart)
{
	char path[400], fdarg[16], *rec, *id;
	struct cmd c;
	int fd;

	snprintf(path, sizeof(path), "%s/record", S.root);
	fd = open_high(path, O_WRONLY | O_CREAT | O_TRUNC);
	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	{
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, "--backend=floor", "--json-fd", fdarg, "--",
		    "/bin/sh", "-c", "printf x", NULL };

		ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
		ck_assert_str_eq(c.out, "x");
		cmd_free(&c);
	}
	rec = slurp(path);
	id = assert_record("--json-fd", rec, "exited");
	free(id);
	free(rec);
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	{
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, "--backend=floor", "--json-fd", fdarg, "--",
		    (char *)payload_bin(), "fds", NULL };

		ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
		/* Only stdio: not N, though the payload's parent had it. */
		ck_assert_str_eq(c.out, "0\n1\n2\n");
		cmd_free(&c);
	}
	close(fd);
	rec = slurp(path);
	id = assert_record("--json-fd", rec, "exited");
	free(id);
	free(rec);
}
END_TEST

/*
 * Every outcome that has a record writes it to --json-fd and --result
 * alike: exited, signaled, cap_hit, and a sandbox error after the create.
 */
START_TEST(record_is_written_on_every_outcome)
{
	static const struct {
		const char *outcome;
		int status;
		const char *pre, *opt, *val;   /* pre: prlimit's option */
		const char *args[3];
	} cases[] = {
		{ "exited", 3, NULL, NULL, NULL, { "exit", "3", NULL } },
		{ "signaled", 128 + 15, NULL, NULL, NULL, { "kill", "15", NULL } },
		{ "cap_hit", 124, NULL, "--wall", "0.3", { "sleep", "60", NULL } },
		{ "sandbox_error", 125, "--nofile=64:64", "--nofile", "4096",
		    { "exit", "0", NULL } },
	};
	char path[400], res[400], fdarg[16], *rec, *id, *id2;
	char *argv[24];
	struct cmd c;
	size_t i;
	int fd, n;

	snprintf(path, sizeof(path), "%s/record", S.root);
	snprintf(res, sizeof(res), "%s/result.json", S.root);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fd = open_high(path, O_WRONLY | O_CREAT | O_TRUNC);
		snprintf(fdarg, sizeof(fdarg), "%d", fd);
		n = 0;
		if (cases[i].pre != NULL) {
			argv[n++] = "/usr/bin/prlimit";
			argv[n++] = (char *)cases[i].pre;
		}
		argv[n++] = (char *)cordon_bin();
		argv[n++] = "run";
		argv[n++] = S.trace_opt;
		argv[n++] = S.base_opt;
		argv[n++] = "--backend=floor";
		argv[n++] = "--json-fd";
		argv[n++] = fdarg;
		argv[n++] = "--result";
		argv[n++] = res;
		if (cases[i].opt != NULL) {
			argv[n++] = (char *)cases[i].opt;
			argv[n++] = (char *)cases[i].val;
		}
		argv[n++] = "--";
		argv[n++] = (char *)payload_bin();
		argv[n++] = (char *)cases[i].args[0];
		argv[n++] = (char *)cases[i].args[1];
		argv[n] = NULL;
		ck_assert_int_eq(run_cmd(&c, argv, NULL), cases[i].status);
		ck_assert_msg(strchr(c.out, '{') == NULL, "record on stdout: %s",
		    c.out);
		cmd_free(&c);
		close(fd);
		rec = slurp(path);
		id = assert_record(cases[i].outcome, rec, cases[i].outcome);
		free(rec);
		rec = slurp(res);
		id2 = assert_record(cases[i].outcome, rec, cases[i].outcome);
		ck_assert_str_eq(id, id2);
		free(rec);
		free(id);
		free(id2);
	}
}
END_TEST

/*
 * --result replaces FILE atomically with a private file, leaves no temp
 * file, and a symlink planted at FILE during the run is replaced, not
 * written through.
 */
START_TEST(result_file_is_atomic_private_and_never_followed)
{
	char dir[400], file[500], victim[500], script[1200], *rec, *id;
	struct stat before, after;
	struct cmd c;
	int fd;

	snprintf(dir, sizeof(dir), "%s/out", S.root);
	snprintf(file, sizeof(file), "%s/result.json", dir);
	snprintf(victim, sizeof(victim), "%s/victim", S.root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_ge(fd = open(file, O_WRONLY | O_CREAT, 0644), 0);
	ck_assert_int_eq(write(fd, "old", 3), 3);
	close(fd);
	ck_assert_int_eq(stat(file, &before), 0);
	{
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, "--backend=floor", "--result", file, "--",
		    (char *)payload_bin(), "exit", "0", NULL };

		ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
		cmd_free(&c);
	}
	ck_assert_int_eq(lstat(file, &after), 0);
	ck_assert(S_ISREG(after.st_mode));
	ck_assert_uint_eq(after.st_mode & 07777, 0600);
	ck_assert_msg(after.st_ino != before.st_ino, "FILE was rewritten in "
	    "place, not replaced");
	ck_assert_int_eq(dir_entries(dir), 1);
	rec = slurp(file);
	id = assert_record("--result", rec, "exited");
	free(id);
	free(rec);

	/* FILE absent at the start; the payload plants a link there. */
	ck_assert_int_eq(unlink(file), 0);
	snprintf(script, sizeof(script), "ln -s '%s' '%s'", victim, file);
	{
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, "--backend=floor", "--result", file, "--",
		    "/bin/sh", "-c", script, NULL };

		ck_assert_int_eq(run_cmd(&c, argv, NULL), 0);
		cmd_free(&c);
	}
	ck_assert_int_eq(lstat(file, &after), 0);
	ck_assert_msg(S_ISREG(after.st_mode), "the planted link is still there");
	ck_assert_msg(lstat(victim, &after) < 0 && errno == ENOENT,
	    "the record went through the link");
	ck_assert_int_eq(dir_entries(dir), 1);
	rec = slurp(file);
	id = assert_record("--result", rec, "exited");
	free(id);
	free(rec);
}
END_TEST

/* Bad --json-fd and --result: 125 before anything runs, nothing made. */
START_TEST(bad_record_destinations_are_refused)
{
	char p[400], q[400], fdarg[16];
	struct stat st;
	struct cmd c;
	int fd;

	assert_rejected("--json-fd", "0", "--json-fd: 0 is the command's stdin");
	assert_rejected("--json-fd", "1", "--json-fd: 1 is the command's "
	    "stdout");
	assert_rejected("--json-fd", "2", "--json-fd: 2 is the command's "
	    "stderr");
	assert_rejected("--json-fd", "-4", "--json-fd: '-4' is not a file "
	    "descriptor number");
	assert_rejected("--json-fd", "", "--json-fd: '' is not a file");
	assert_rejected("--json-fd", "987", "--json-fd: fd 987 is not open");
	fd = open_high("/dev/null", O_RDONLY);
	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	snprintf(p, sizeof(p), "--json-fd: fd %d is not open for writing", fd);
	assert_rejected("--json-fd", fdarg, p);
	close(fd);

	assert_rejected("--result", "", "--result: empty path");
	snprintf(p, sizeof(p), "%s/no-such-dir/result.json", S.root);
	assert_rejected("--result", p, "No such file or directory");
	snprintf(p, sizeof(p), "%s/", S.root);
	assert_rejected("--result", p, "names a directory, not a file");
	snprintf(p, sizeof(p), "%s/..", S.root);
	assert_rejected("--result", p, "names a directory, not a file");
	snprintf(p, sizeof(p), "%s/adir", S.root);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	assert_rejected("--result", p, "exists and is not a regular file");
	snprintf(p, sizeof(p), "%s/link", S.root);
	snprintf(q, sizeof(q), "%s/target", S.root);
	ck_assert_int_eq(symlink(q, p), 0);
	assert_rejected("--result", p, "is a symbolic link");
	ck_assert_msg(lstat(q, &st) < 0, "the link's target was created");

	/* A bad fd with a good --result: the file is not created either. */
	snprintf(p, sizeof(p), "%s/made.json", S.root);
	{
		char *argv[] = { (char *)cordon_bin(), "run", S.trace_opt,
		    S.base_opt, "--result", p, "--json-fd", "987", "--",
		    "/bin/true", NULL };

		ck_assert_int_eq(run_cmd(&c, argv, NULL), 125);
		cmd_free(&c);
	}
	ck_assert_msg(lstat(p, &st) < 0, "--result was created");
	ck_assert_msg(lstat(S.trace, &st) < 0, "the trace was created");
}
END_TEST

/*
 * As an unprivileged user (nobody), a payload that locks directories with
 * chmod 000 still has its workdir removed.  As root the permission bits do
 * not bite, so this is the test that proves the chmod handling.
 */
START_TEST(unprivileged_chmod_000_is_removed)
{
	char bin_c[400], bin_h[400], cmdline[2048];
	const char *dir = nobody_bin_dir(&S);
	pid_t pid;
	int status;

	snprintf(bin_c, sizeof(bin_c), "%s/cordon", dir);
	snprintf(bin_h, sizeof(bin_h), "%s/cordon-helper", dir);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char trace[400], base[400], helper_env[450], script[600];
		char *argv[] = { bin_c, "run", trace, base, "--backend=floor",
		    "--", "/bin/sh", "-c", script, NULL };

		/* Not root already: run the same scenario as ourselves. */
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 ||
		    setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0))
			_exit(90);
		snprintf(trace, sizeof(trace), "--trace=%s/nobody/t.db", S.root);
		snprintf(base, sizeof(base), "--workdir-base=%s/nobody/wd", S.root);
		snprintf(helper_env, sizeof(helper_env), "CORDON_HELPER=%s", bin_h);
		putenv(helper_env);
		putenv("HOME=/nonexistent");
		unsetenv("XDG_RUNTIME_DIR");
		snprintf(script, sizeof(script), "mkdir -p a/b/c && touch a/b/c/f "
		    "&& chmod 000 a/b/c a/b && chmod 500 a && mkdir d && chmod 0 d");
		execv(bin_c, argv);
		_exit(91);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "run as nobody failed: status %d", status);
	snprintf(cmdline, sizeof(cmdline), "%s/nobody/wd", S.root);
	ck_assert_msg(dir_entries(cmdline) <= 1,
	    "nobody's workdir with 000 directories was left behind");
}
END_TEST

/*
 * Run in run_cmd_as()'s child, as root, before it becomes nobody: a
 * private mount namespace whose /tmp is a fresh tmpfs where another user
 * (root) has made /tmp/cordon-65534 first, as anyone can; the scratch
 * dir, which lived in /tmp, is bound back in.  Exits 98 if it cannot.
 */
static void
squat_tmp(void)
{
	char self[64];
	int fd = -1;

	/* The fd is opened in the new namespace: a bind needs its mount. */
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    (fd = open(S.root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777") < 0 ||
	    mkdir("/tmp/cordon-65534", 0755) < 0 || mkdir(S.root, 0711) < 0 ||
	    snprintf(self, sizeof(self), "/proc/self/fd/%d", fd) < 0 ||
	    mount(self, S.root, NULL, MS_BIND, NULL) < 0) {
		perror("squat_tmp");
		_exit(98);
	}
	close(fd);
}

/*
 * A user without a runtime dir (cron, CI, su) gets the default workdir
 * base: it must be a name no other user can make first.  It was
 * /tmp/cordon-UID, so another user's mkdir made every later run and gc
 * of UID exit 125; now it is in the user's own state directory.
 */
START_TEST(default_base_cannot_be_taken_by_another_user)
{
	char bin[450], helper_env[450], home[300], home_env[320], want[400];
	char *env[] = { helper_env, home_env, "XDG_RUNTIME_DIR=",
	    "XDG_STATE_HOME=", NULL };
	char *run[] = { bin, "run", "--json", "--backend=floor", "--",
	    "/bin/true", NULL };
	char *gc[] = { bin, "gc", NULL };
	const char *dir;
	struct cmd c, g;
	struct stat st;
	char *wd;

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: not root: cannot be another user\n");
		return;
	}
	dir = nobody_bin_dir(&S);
	snprintf(bin, sizeof(bin), "%s/cordon", dir);
	snprintf(helper_env, sizeof(helper_env), "CORDON_HELPER=%s/"
	    "cordon-helper", dir);
	snprintf(home, sizeof(home), "%s/nobody/home", S.root);
	snprintf(home_env, sizeof(home_env), "HOME=%s", home);
	ck_assert_int_eq(mkdir(home, 0700), 0);
	ck_assert_int_eq(chown(home, 65534, 65534), 0);

	run_cmd_hook = squat_tmp;
	run_cmd_as(&c, run, env, NULL, 65534);
	run_cmd_as(&g, gc, env, NULL, 65534);
	run_cmd_hook = NULL;
	if (c.status == 98) {
		fprintf(stderr, "SKIP: no private mount namespace: %s\n", c.err);
		cmd_free(&c);
		cmd_free(&g);
		return;
	}
	ck_assert_msg(c.status == 0, "run: status %d: %s", c.status, c.err);
	ck_assert_msg(g.status == 0, "gc: status %d: %s", g.status, g.err);
	/* Made in nobody's state dir, private, and emptied after the run. */
	snprintf(want, sizeof(want), "%s/.local/state/cordon/runs", home);
	ck_assert_msg(lstat(want, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == 65534 && (st.st_mode & 07777) == 0700,
	    "no private base at %s", want);
	wd = json_get(c.out, "workdir");
	ck_assert_msg(wd != NULL && strncmp(wd, want, strlen(want)) == 0 &&
	    wd[strlen(want)] == '/', "workdir %s is not in %s", wd, want);
	free(wd);
	ck_assert_int_le(dir_entries(want), 1);
	cmd_free(&c);
	cmd_free(&g);
}
END_TEST

/*
 * libcordon's cordon_config_set_stdin_fd: the payload reads the given fd,
 * every byte of it (NUL and bytes that are not UTF-8 included), and the
 * library leaves the fd open for its caller.  Floor and auto (linux-ns
 * where it can be built) alike: the helper passes its own fd 0 on.
 */
START_TEST(stdin_fd_feeds_the_payload)
{
	static const char data[] = "line one\n\xff\xfe\x80 not UTF-8\0 a NUL\n";
	const enum cordon_backend_id backend = _i == 0 ? CORDON_BACKEND_FLOOR :
	    CORDON_BACKEND_AUTO;
	char *const argv[] = { "/bin/cat", NULL };
	char out[400], got[sizeof(data) + 16];
	cordon_config *cfg = cordon_config_new();
	cordon_result *r = NULL;
	int in[2], ofd, n;

	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	/* Less than a pipe holds: the write end is closed before the run. */
	ck_assert_int_eq(write(in[1], data, sizeof(data) - 1),
	    (ssize_t)sizeof(data) - 1);
	close(in[1]);
	snprintf(out, sizeof(out), "%s/out", S.root);
	ofd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(ofd, 0);
	ck_assert_int_eq(cordon_config_set_backend(cfg, backend), 0);
	ck_assert_int_eq(cordon_config_set_trace_path(cfg, S.trace), 0);
	ck_assert_int_eq(cordon_config_set_workdir_base(cfg, S.base), 0);
	cordon_config_set_stdin_fd(cfg, in[0]);
	cordon_config_set_stdout_fd(cfg, ofd);

	ck_assert_int_eq(cordon_run(cfg, argv, &r), 0);
	ck_assert_msg(cordon_result_outcome(r) == CORDON_OUTCOME_EXITED &&
	    cordon_result_exit_code(r) == 0, "outcome %s, exit %d, error %s",
	    cordon_outcome_name(cordon_result_outcome(r)),
	    cordon_result_exit_code(r), cordon_result_error(r));
	n = (int)pread(ofd, got, sizeof(got), 0);
	ck_assert_int_eq(n, (int)sizeof(data) - 1);
	ck_assert(memcmp(got, data, sizeof(data) - 1) == 0);
	/* The caller's fds stay the caller's. */
	ck_assert_int_ge(fcntl(in[0], F_GETFD), 0);
	ck_assert_int_ge(fcntl(ofd, F_GETFD), 0);
	cordon_result_free(r);
	cordon_config_free(cfg);
	close(in[0]);
	close(ofd);
}
END_TEST

static Suite *
run_suite(void)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("floor");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, exit_status_passes_through);
	tcase_add_test(tc, signal_gives_128_plus_n);
	tcase_add_test(tc, cpu_cap_sums_the_tree);
	tcase_add_test(tc, cpu_cap_holds_while_the_helper_is_stopped);
	tcase_add_test(tc, memory_cap_sums_the_tree);
	tcase_add_test(tc, memory_cap_counts_shared_memory);
	tcase_add_test(tc, memory_cap_counts_forked_pages_once);
	tcase_add_test(tc, wall_cap_kills_a_sleeper);
	tcase_add_test(tc, process_cap_kills_the_tree);
	tcase_add_test(tc, process_cap_counts_tasks_the_monitor_sees);
	tcase_add_test(tc, root_floor_run_gets_a_v1_pids_cgroup);
	tcase_add_test(tc, unset_process_cap_is_not_applied);
	tcase_add_test(tc, double_forked_daemon_is_gone);
	tcase_add_test(tc, workdir_is_cwd_home_and_tmpdir);
	tcase_add_test(tc, environment_is_allow_listed);
	tcase_add_test(tc, only_stdio_reaches_the_payload);
	tcase_add_test(tc, inherited_sigchld_ignore_is_undone);
	tcase_add_test(tc, payload_cannot_gain_privileges);
	tcase_add_test(tc, sandbox_setup_failure_is_125);
	tcase_add_test(tc, missing_command_is_127);
	tcase_add_test(tc, non_executable_is_126);
	tcase_add_test(tc, bad_flags_are_refused);
	tcase_add_test(tc, unavailable_backend_is_a_sandbox_error);
	tcase_add_test(tc, planted_symlinks_do_not_reach_outside);
	tcase_add_test(tc, broker_sigkill_leaves_nothing);
	tcase_add_test(tc, helper_sigkill_is_reclaimed);
	tcase_add_test(tc, create_not_recorded_means_nothing_runs);
	tcase_add_test(tc, trace_not_opened_means_nothing_runs);
	tcase_add_test(tc, require_is_checked_without_a_probe);
	tcase_add_test(tc, session_keeps_the_trace_and_rereads_the_policy);
	tcase_add_test(tc, payload_waits_for_the_create_row);
	tcase_add_test(tc, refused_run_leaves_output_files_as_they_were);
	tcase_add_test(tc, cancel_before_go_runs_nothing);
	tcase_add_test(tc, held_helper_takes_only_go);
	tcase_add_test(tc, helper_killed_before_naming_the_workdir_is_reclaimed);
	tcase_add_test(tc, concurrent_runs_lose_no_row);
	tcase_add_test(tc, trace_list_and_show);
	tcase_add_test(tc, trace_output_to_a_full_disk_fails);
	tcase_add_test(tc, argv_is_recorded_exactly);
	tcase_add_test(tc, argv_bytes_round_trip_through_json);
	tcase_add_test(tc, json_fd_keeps_the_record_apart);
	tcase_add_test(tc, record_is_written_on_every_outcome);
	tcase_add_test(tc, result_file_is_atomic_private_and_never_followed);
	tcase_add_test(tc, bad_record_destinations_are_refused);
	tcase_add_test(tc, unprivileged_chmod_000_is_removed);
	tcase_add_test(tc, default_base_cannot_be_taken_by_another_user);
	tcase_add_loop_test(tc, stdin_fd_feeds_the_payload, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(run_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
