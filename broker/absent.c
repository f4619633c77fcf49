/*
 * absent.c - what the Windows and macOS builds of the broker leave out,
 * in their source lists instead of egress.c, proxy.c, files.c and gc.c
 * (Makefile.am).  Each entry point refuses, naming why, so nothing asked
 * for is taken and then silently not done: the CLI refuses the flags
 * first (125), and a library caller gets the error.
 *
 *   egress.c, proxy.c   the --allow-host allow-list and its proxy
 *                       (cordon_plat_no_egress() says why: no Windows
 *                       meaning; on macOS not ported yet, the proxy
 *                       relays with Linux's splice).  A run without
 *                       patterns has no proxy, as on Linux.
 *   files.c             --copy-in, --copy-out: not ported yet (the copies
 *                       use Linux's renameat2 and openat-based walks;
 *                       Windows has no at-functions); --ro-bind: no
 *                       mounts (cordon_plat_no_binds(): macOS, and
 *                       Windows but for an AppContainer's grants).
 *   gc.c                `cordon gc`: not ported yet (it reclaims
 *                       cgroups and reads Linux's mount ids); a helper
 *                       removes its own workdir on every exit it sees.
 */
#include "config.h"

#include <stdio.h>

#include "cordon.h"
#include "egress.h"
#include "gc.h"
#include "internal.h"
#include "plat.h"
#include "proxy.h"

const char *const cordon_proxy_env[CORDON_PROXY_NENV + 1] = { NULL };

int
cordon_egress_pattern_parse(const char *text, struct cordon_egress_pattern *p,
    char *err, size_t errsz)
{
	(void)p;
	(void)snprintf(err, errsz, "--allow-host %s: %s", text,
	    cordon_plat_no_egress());
	return -CORDON_E_INVAL;
}

bool
cordon_egress_covers(const struct cordon_egress_pattern *ceiling,
    const struct cordon_egress_pattern *p)
{
	return false;
}

/* An allow_hosts_max line is refused like a pattern, naming the file. */
int
cordon_egress_ceiling_parse(const struct cordon_policy *pol,
    struct cordon_egress_pattern *out, size_t max, size_t *n, char *err,
    size_t errsz)
{
	*n = 0;
	(void)snprintf(err, errsz, "allow_hosts_max: %s",
	    cordon_plat_no_egress());
	return -CORDON_E_POLICY;
}

int
cordon_proxy_new(const struct cordon_config *cfg, struct cordon_proxy **out)
{
	*out = NULL;
	return cfg->nallow_hosts == 0 ? 0 : -CORDON_E_INVAL;
}

/* The helper never sends EGRESS here: the channel refuses one. */
int
cordon_proxy_attach(struct cordon_proxy *px, int listen_fd)
{
	return -CORDON_E_PROTO;
}

void
cordon_proxy_end(struct cordon_proxy *px, struct cordon_trace *t,
    struct cordon_result *r)
{
}

int
cordon_proxy_record(const struct cordon_config *cfg, struct cordon_result *r)
{
	return cfg->nallow_hosts == 0 ? 0 : -CORDON_E_INVAL;
}

/* ---- files.c ------------------------------------------------------------- */

#define NO_COPIES "not available on %s yet: cordon does not copy files " \
	"in or out of the workdir there"

int
cordon_files_check(const cordon_config *cfg, char *err, size_t errsz)
{
	if (cfg->ncopy_in != 0)
		(void)snprintf(err, errsz, "--copy-in %s: " NO_COPIES,
		    cfg->copy_in[0].src, cordon_plat_name());
	else if (cfg->ncopy_out != 0)
		(void)snprintf(err, errsz, "--copy-out %s: " NO_COPIES,
		    cfg->copy_out[0].src, cordon_plat_name());
	else if (cfg->nbinds != 0 &&
	    cordon_plat_no_binds(cfg->backend) != NULL)
		(void)snprintf(err, errsz, "--ro-bind %s: %s",
		    cfg->binds[0].src, cordon_plat_no_binds(cfg->backend));
	else
		return 0;
	return -CORDON_E_INVAL;
}

int
cordon_copy_in(int wdfd, const struct cordon_copy *c, uint64_t limit,
    char *err, size_t errsz)
{
	(void)snprintf(err, errsz, "--copy-in %s: " NO_COPIES, c->src,
	    cordon_plat_name());
	return -1;
}

int
cordon_copy_out(int wdfd, const struct cordon_copy *c, uint64_t limit,
    const char *tag, char *err, size_t errsz)
{
	(void)snprintf(err, errsz, "--copy-out %s: " NO_COPIES, c->src,
	    cordon_plat_name());
	return -1;
}

/* ---- gc.c ---------------------------------------------------------------- */

int
cordon_gc(const cordon_config *cfg, char *msg, size_t msgsz)
{
	if (msg != NULL)
		(void)snprintf(msg, msgsz, "not available on %s yet: cordon "
		    "cannot yet tell a dead run's workdir from a live one's "
		    "there (Linux uses each run's flock)", cordon_plat_name());
	return -CORDON_E_UNAVAIL;
}

/*
 * After each run: nothing to sweep, since cordon_gc reclaims nothing
 * here (the helper removes its own workdir; what a killed one left
 * stays, and the run's record says so).
 */
void
cordon_gc_sweep(const char *base)
{
}
