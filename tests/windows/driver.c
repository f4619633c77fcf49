/*
 * driver.c - drives helper/job_win.c under Wine (tests/windows/run.sh):
 * one run of COMMAND in WORKDIR inside a Job Object, then one line on
 * stdout saying what was applied and how the run ended:
 *
 *   driver.exe [--cpu DUR] [--wall DUR] [--memory SIZE] [--nproc N]
 *              [--require CAP,...] [--backend job|appcontainer]
 *              WORKDIR COMMAND [ARG...]
 *
 *   result: outcome=exited status=3 cap=none by=none workdir=removed ...
 *
 * It exits with the status cordon would: the payload's, 124 for a cap,
 * 125 for a refusal or a sandbox failure, 126/127 for a command that
 * could not be run.  A bad flag is refused before anything is made.
 * This is a test driver, not cordon.exe: that waits for the portable
 * core (broker and channel on Windows).
 */
#include "config.h"

#include <windows.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon_ids.h"
#include "job.h"
#include "parse.h"

static int
usage(const char *why, const char *arg)
{
	fprintf(stderr, "driver: %s%s%s\nusage: driver.exe [--cpu DUR] "
	    "[--wall DUR] [--memory SIZE] [--nproc N] [--require CAP,...] "
	    "[--backend "
	    "job|appcontainer] WORKDIR COMMAND [ARG...]\n", why,
	    arg != NULL ? ": " : "", arg != NULL ? arg : "");
	return 125;
}

static void
print_result(const struct job_win_res *res)
{
	int c;
	const char *sep = "";

	printf("result: outcome=%s status=%d cap=%s by=%s workdir=%s "
	    "kill_on_close=%s post_at_end=%s user_100ns=%llu "
	    "peak_memory=%llu processes=%lu events=%zu applied=",
	    cordon_outcome_name(res->run.out.outcome), res->run.out.status,
	    res->run.out.cap == CORDON_CAP_NONE ? "none" :
	    cordon_cap_name(res->run.out.cap),
	    job_evidence_name(res->run.out.by),
	    res->workdir_removed ? "removed" : "left",
	    res->run.ap.kill_on_close ? "true" : "false",
	    res->run.rb.post_at_end ? "true" : "false",
	    (unsigned long long)res->run.acct.user_100ns,
	    (unsigned long long)res->run.acct.peak_job_memory,
	    (unsigned long)res->run.acct.total_processes, res->run.evs.n);
	for (c = 1; c < CORDON_CAP_MAX_; c++)
		if ((res->run.ap.applied & (1U << c)) != 0) {
			printf("%s%s", sep, cordon_cap_name(c));
			sep = ",";
		}
	for (c = 1; c < CORDON_CAP_MAX_; c++)
		if (res->run.ap.why[c] != NULL)
			printf(" | %s: not applied: %s", cordon_cap_name(c),
			    res->run.ap.why[c]);
	printf("\n");
	(void)fflush(stdout);
}

/* --require CAP[,CAP...]: the caps by their names (common/ids.c). */
static int
require_parse(const char *v, uint32_t *out)
{
	uint32_t bits = 0;
	size_t n;
	int c;

	for (;;) {
		n = strcspn(v, ",");
		for (c = 1; c < CORDON_CAP_MAX_; c++)
			if (strlen(cordon_cap_name(c)) == n &&
			    strncmp(v, cordon_cap_name(c), n) == 0)
				break;
		if (c == CORDON_CAP_MAX_)
			return -CORDON_E_INVAL;
		bits |= 1U << c;
		if (v[n] == '\0')
			break;
		v += n + 1;
	}
	*out = bits;
	return 0;
}

/* argv as UTF-8 (the C runtime's char argv is in the ANSI code page). */
static char **
utf8_argv(int argc, wchar_t **wargv)
{
	char **argv = calloc((size_t)argc + 1, sizeof(*argv));
	int i, n;

	for (i = 0; argv != NULL && i < argc; i++) {
		n = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL,
		    NULL);
		argv[i] = n > 0 ? malloc((size_t)n) : NULL;
		if (argv[i] == NULL || WideCharToMultiByte(CP_UTF8, 0, wargv[i],
		    -1, argv[i], n, NULL, NULL) != n)
			return NULL;
	}
	return argv;
}

int
wmain(int argc, wchar_t **wargv)
{
	struct job_win_req req;
	struct job_win_res res;
	char **argv = utf8_argv(argc, wargv);
	char run_id[32];
	int i = 1;

	if (argv == NULL)
		return usage("cannot read the arguments", NULL);
	memset(&req, 0, sizeof(req));
	req.ask.wall_ns = 120ULL * 1000000000ULL;
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int r = 0;

		if (v == NULL)
			return usage("a value is missing after", f);
		if (strcmp(f, "--cpu") == 0)
			r = cordon_parse_duration(v, &req.ask.cpu_ns);
		else if (strcmp(f, "--wall") == 0)
			r = cordon_parse_duration(v, &req.ask.wall_ns);
		else if (strcmp(f, "--memory") == 0)
			r = cordon_parse_size(v, &req.ask.memory_bytes);
		else if (strcmp(f, "--nproc") == 0)
			r = cordon_parse_count(v, &req.ask.nproc);
		else if (strcmp(f, "--backend") == 0 &&
		    strcmp(v, "appcontainer") == 0)
			req.appcontainer = true;
		else if (strcmp(f, "--backend") == 0 && strcmp(v, "job") == 0)
			req.appcontainer = false;
		else if (strcmp(f, "--backend") == 0)
			return usage("unknown backend (job or "
			    "appcontainer)", v);
		else if (strcmp(f, "--require") == 0)
			r = require_parse(v, &req.require);
		else
			return usage("unknown option", f);
		if (r != 0)
			return usage(cordon_strerror(r), v);
	}
	if (argc - i < 2)
		return usage("a workdir and a command are needed", NULL);
	req.workdir = argv[i];
	req.argv = argv + i + 1;
	/* --backend appcontainer names its profile after the run id. */
	(void)snprintf(run_id, sizeof(run_id), "%08lx%016llx",
	    (unsigned long)GetCurrentProcessId(),
	    (unsigned long long)GetTickCount64());
	req.run_id = run_id;
	if (job_win_run(&req, &res) != 0) {
		fprintf(stderr, "driver: nothing was run: %s\n", res.err);
		return res.run.out.status;
	}
	print_result(&res);
	if (!res.workdir_removed) {
		fprintf(stderr, "driver: %s\n", res.err);
		return 125;
	}
	return res.run.out.status;
}
