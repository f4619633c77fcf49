/*
 * driver.c - the seatbelt backend end to end on a Mac, without the
 * broker: driver WORKDIR COMMAND [ARG...] canonicalises WORKDIR and
 * HOME, generates the profile (helper/sbpl.c), probes sandbox-exec and
 * runs COMMAND under it with the default caps (helper/seatbelt_macos.c),
 * and prints the outcome.  Cross-built by tools/macos-cross.sh to prove
 * the glue compiles and links against macOS's libc and libproc; it has
 * not been run here (no Mac).
 */
#include "config.h"

#include <limits.h>

#include "helper.h"
#include "sbpl.h"

int
main(int argc, char **argv)
{
	char workdir[PATH_MAX], home[PATH_MAX], err[512];
	struct sbpl_options o = { 0 };
	struct sbpl_profile p;
	struct monitor_result res;
	struct request req;
	char *envp[] = { NULL, NULL, NULL };
	static char envhome[PATH_MAX + 8], envtmp[PATH_MAX + 8];
	const char *h = getenv("HOME");

	if (argc < 3) {
		fprintf(stderr, "usage: %s WORKDIR COMMAND [ARG...]\n", argv[0]);
		return 2;
	}
	if (seatbelt_canonical(argv[1], workdir, err, sizeof(err)) < 0 ||
	    (h != NULL && seatbelt_canonical(h, home, err, sizeof(err)) < 0)) {
		fprintf(stderr, "driver: %s\n", err);
		return 125;
	}
	o.workdir = workdir;
	o.home = h != NULL ? home : NULL;
	if (sbpl_generate(&o, &p, err, sizeof(err)) < 0 ||
	    seatbelt_probe(err, sizeof(err)) < 0) {
		fprintf(stderr, "driver: %s\n", err);
		return 125;
	}
	memset(&req, 0, sizeof(req));
	req.limits.cpu_ns = 60 * CORDON_NS_PER_SEC;
	req.limits.wall_ns = 120 * CORDON_NS_PER_SEC;
	req.limits.memory_bytes = 2ULL << 30;
	req.limits.nofile = 512;
	req.argv = argv + 2;
	req.argc = (uint32_t)(argc - 2);
	(void)snprintf(envhome, sizeof(envhome), "HOME=%s", workdir);
	(void)snprintf(envtmp, sizeof(envtmp), "TMPDIR=%s", workdir);
	envp[0] = envhome;
	envp[1] = envtmp;
	req.envp = envp;
	if (seatbelt_run(&req, &p, workdir, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "driver: sandbox error: %s\n", err);
		sbpl_free(&p);
		return 125;
	}
	if (res.outcome == CORDON_OUTCOME_SANDBOX_ERROR) {
		fprintf(stderr, "driver: sandbox error: %s\n", res.error);
		sbpl_free(&p);
		return 125;
	}
	printf("outcome %s exit %d signal %d cap %s cpu %.3f s wall %.3f s "
	    "memory %llu bytes\n", cordon_outcome_name(res.outcome),
	    res.exit_code, res.signal,
	    res.outcome == CORDON_OUTCOME_CAP_HIT ? cordon_cap_name(res.cap) :
	    "-", (double)res.cpu_ns / 1e9, (double)res.wall_ns / 1e9,
	    (unsigned long long)res.max_mem);
	sbpl_free(&p);
	return res.outcome == CORDON_OUTCOME_CAP_HIT ? 124 : res.exit_code;
}
