/*
 * librun.c - the library-path row of make bench (issue 20): one process
 * keeps one libcordon config and runs a command N times through
 * cordon_run(), as a harness linking libcordon would, and reports the
 * per-run latency and CPU.
 *
 *   librun [-s] [-g MS] [-n N] [-w WARMUP] [-b BACKEND] [-t TRACE] [--] COMMAND [ARG...]
 *
 * -g MS idles MS milliseconds between runs, untimed (a harness between
 * commands: what a helper started ahead of demand can overlap).
 * -s runs through one cordon_session (cordon_session_open, then
 * cordon_session_run each time: the trace and the policy kept open)
 * instead of cordon_run.
 *
 * Prints one line of JSON on stdout:
 *   {"runs":N,"failed":F,"median_ms":..,"p90_ms":..,"mean_ms":..,
 *    "cpu_self_ms":..,"cpu_children_ms":..,"p10_ms":..}
 * where the CPU figures are per run: this process (the broker side:
 * config, trace, result) and every process it waited for (the helper and,
 * through it, the init and the payload), from getrusage.  A run counts as
 * failed unless the payload exited 0; failures are reported, not timed
 * apart.  Built by `make bench` only.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cordon.h"

/* Seconds from a to b. */
static double
elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static double
cpu_s(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile (0..1) of n sorted values, nearest rank. */
static double
quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n + 0.999999);

	if (i == 0)
		i = 1;
	if (i > n)
		i = n;
	return v[i - 1];
}

static int
parse_count(const char *s, long *out)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0 || v > 10000000)
		return -1;
	*out = v;
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: librun [-s] [-g MS] [-n N] [-w WARMUP] [-b BACKEND] "
	    "[-t TRACE] [--] COMMAND [ARG...]\n");
	exit(2);
}

/* One run (through s if not NULL); 0 if the payload exited 0, else -1. */
static int
run_once(cordon_session *s, const cordon_config *cfg, char *const argv[])
{
	cordon_result *r = NULL;
	int err = s != NULL ? cordon_session_run(s, cfg, argv, &r) :
	    cordon_run(cfg, argv, &r);
	int ok;

	if (err < 0) {
		fprintf(stderr, "librun: %s%s%s\n", cordon_strerror(err),
		    s != NULL && cordon_session_error(s) != NULL ? ": " : "",
		    s != NULL && cordon_session_error(s) != NULL ?
		    cordon_session_error(s) : "");
		return -1;
	}
	ok = cordon_result_outcome(r) == CORDON_OUTCOME_EXITED &&
	    cordon_result_exit_code(r) == 0;
	if (!ok)
		fprintf(stderr, "librun: run %s ended %s%s%s\n",
		    cordon_result_run_id(r),
		    cordon_outcome_name(cordon_result_outcome(r)),
		    cordon_result_error(r) ? ": " : "",
		    cordon_result_error(r) ? cordon_result_error(r) : "");
	cordon_result_free(r);
	return ok ? 0 : -1;
}

int
main(int argc, char *argv[])
{
	long n = 1000, warmup = 3, failed = 0, gap_ms = 0;
	const char *backend = "linux-ns", *trace = NULL;
	cordon_config *cfg = NULL;
	cordon_session *s = NULL;
	double *t = NULL, sum = 0, self0, kids0;
	bool session = false;
	int c, b, err;

	while ((c = getopt(argc, argv, "+sg:n:w:b:t:")) != -1) {
		switch (c) {
		case 'g':
			if (parse_count(optarg, &gap_ms) < 0)
				usage();
			break;
		case 's':
			session = true;
			break;
		case 'n':
			if (parse_count(optarg, &n) < 0 || n == 0)
				usage();
			break;
		case 'w':
			if (parse_count(optarg, &warmup) < 0)
				usage();
			break;
		case 'b':
			backend = optarg;
			break;
		case 't':
			trace = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	cfg = cordon_config_new();
	b = cordon_backend_from_name(backend);
	if (cfg == NULL || b < 0 ||
	    cordon_config_set_backend(cfg, (enum cordon_backend_id)b) < 0 ||
	    (trace != NULL && cordon_config_set_trace_path(cfg, trace) < 0)) {
		fprintf(stderr, "librun: bad backend or trace path\n");
		return 2;
	}
	if (session && (err = cordon_session_open(cfg, &s)) < 0) {
		fprintf(stderr, "librun: cannot open a session: %s\n",
		    cordon_strerror(err));
		return 1;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (t == NULL) {
		fprintf(stderr, "librun: out of memory\n");
		return 1;
	}
	for (long i = 0; i < warmup; i++)
		if (run_once(s, cfg, argv + optind) < 0)
			failed++;
	self0 = cpu_s(RUSAGE_SELF);
	kids0 = cpu_s(RUSAGE_CHILDREN);
	for (long i = 0; i < n; i++) {
		struct timespec t0, t1;

		if (gap_ms > 0)
			(void)usleep((useconds_t)gap_ms * 1000);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (run_once(s, cfg, argv + optind) < 0)
			failed++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		t[i] = elapsed(&t0, &t1);
		sum += t[i];
	}
	self0 = cpu_s(RUSAGE_SELF) - self0;
	kids0 = cpu_s(RUSAGE_CHILDREN) - kids0;
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("{\"runs\":%ld,\"failed\":%ld,\"median_ms\":%.3f,"
	    "\"p90_ms\":%.3f,\"mean_ms\":%.3f,\"cpu_self_ms\":%.3f,"
	    "\"cpu_children_ms\":%.3f,\"p10_ms\":%.3f}\n", n, failed,
	    quantile(t, (size_t)n, 0.5) * 1e3, quantile(t, (size_t)n, 0.9) * 1e3,
	    sum / (double)n * 1e3, self0 / (double)n * 1e3,
	    kids0 / (double)n * 1e3, quantile(t, (size_t)n, 0.1) * 1e3);
	free(t);
	cordon_session_close(s);
	cordon_config_free(cfg);
	return failed ? 1 : 0;
}
