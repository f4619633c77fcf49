/*
 * gate.c - the gate every run passes before anything is recorded or
 * started (cordon_admit): the system policy (who may run, ceilings, who
 * may have network) and the required controls against the backend that
 * would run.  cordon_config_check is the same gate, asked in advance,
 * with a probe; a run's gate starts no probe helper: what no run of the
 * backend asked for could apply is refused here, the rest against the
 * run's own helper's BACKEND, before anything is recorded (run.c).
 *
 * The helper loads the same policy with the same parser and refuses what
 * it forbids by itself (helper/helper.c's main, through
 * cordon_policy_enforce in policy/policy.c); the broker's check is there
 * to say so clearly, with exit 125, before anything starts.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"
#include "internal.h"
#include "policy.h"

int
cordon_require_unmet(const struct cordon_config *eff, uint32_t require,
    enum cordon_backend_id b, uint32_t capable, const char *reason,
    char *err, size_t errsz)
{
	struct cordon_result would;
	char why[256];
	uint32_t miss;
	size_t n;
	int cap;

	/* What the backend gives, minus what this run declines. */
	if (eff->network)
		capable &= ~(1U << CORDON_CAP_NETWORK);
	if (eff->limits.nproc == 0)
		capable &= ~(1U << CORDON_CAP_NPROC);
	if (eff->limits.output_bytes == 0)
		capable &= ~(1U << CORDON_CAP_OUTPUT);
	if (eff->limits.disk_bytes == 0)
		capable &= ~(1U << CORDON_CAP_DISK);
	if ((miss = require & ~capable) == 0)
		return 0;
	memset(&would, 0, sizeof(would));
	would.backend = b;
	would.applied = capable;
	would.network = eff->network;
	would.limits = eff->limits;
	/* Borrowed, for the helper's own words on a cap (never freed). */
	would.backend_reason = (char *)(uintptr_t)reason;
	n = (size_t)snprintf(err, errsz, "a required control is missing on "
	    "this host with the %s backend (%s):", cordon_backend_name(b),
	    reason);
	for (cap = 1; cap < CORDON_CAP_MAX_ && n < errsz; cap++)
		if ((miss & (1U << cap)) != 0)
			n += (size_t)snprintf(err + n, errsz - n, " %s: %s;",
			    cordon_control_name(cap),
			    cordon_not_applied_reason(&would, cap, why, sizeof(why)));
	if (n > 0 && n < errsz && err[n - 1] == ';')
		err[n - 1] = '\0';
	return -CORDON_E_UNMET;
}

/*
 * cordon_config_check: the required controls against what the probe
 * (a PROBE helper, its answer cached for the process) says the backend
 * that would run applies.
 */
static int
check_required_probed(const struct cordon_config *eff, uint32_t require,
    char *err, size_t errsz)
{
	char reason[CORDON_MAX_TEXT_LEN] = "";
	enum cordon_backend_id b = CORDON_BACKEND_FLOOR;
	uint32_t capable = 0;
	int r;

	r = cordon_select_applied(eff, &b, &capable, reason, sizeof(reason));
	if (r == -CORDON_E_UNAVAIL) {
		(void)snprintf(err, errsz, "backend %s is not available: %s",
		    cordon_backend_name(eff->backend), reason);
		return r;
	}
	if (r < 0) {
		(void)snprintf(err, errsz, "cannot tell which backend would run "
		    "(%s), so the required controls cannot be checked",
		    cordon_strerror(r));
		return r;
	}
	return cordon_require_unmet(eff, require, b, capable, reason, err,
	    errsz);
}

/*
 * A run: no probe.  What no run of the backend asked for could apply is
 * refused here, before anything starts (no output file is opened, no
 * helper started); the most any backend applies - linux-ns with every
 * cap it enforces, what auto would try first; Landlock's, whose rules
 * depend on the kernel's ABI, at most as much - bounds it.  What this
 * host really gives is checked against the run's own helper's BACKEND,
 * with the payload held before its execve (run.c, require_met).
 */
static int
check_required_static(const struct cordon_config *eff, uint32_t require,
    char *err, size_t errsz)
{
	uint32_t capable = 1U << CORDON_CAP_CPU | 1U << CORDON_CAP_WALL |
	    1U << CORDON_CAP_MEMORY | 1U << CORDON_CAP_NOFILE |
	    1U << CORDON_CAP_NPROC | 1U << CORDON_CAP_OUTPUT |
	    1U << CORDON_CAP_DISK;

	if (eff->backend != CORDON_BACKEND_FLOOR)
		capable |= 1U << CORDON_CAP_NETWORK |
		    1U << CORDON_CAP_FILESYSTEM | 1U << CORDON_CAP_SCOPING;
	/* auto is held to linux-ns's set, as the helper's own admit() does. */
	if (eff->backend == CORDON_BACKEND_AUTO)
		return cordon_require_unmet(eff, require,
		    CORDON_BACKEND_LINUX_NS, capable, "the strongest auto can "
		    "select", err, errsz);
	return cordon_require_unmet(eff, require, eff->backend, capable,
	    "requested", err, errsz);
}

/*
 * The system policy's allow_hosts_max: every --allow-host pattern must
 * lie inside one of its patterns.  Not set: any pattern may be asked for.
 */
static int
check_hosts_max(const struct cordon_policy *pol, const cordon_config *cfg,
    char *err, size_t errsz)
{
	struct cordon_egress_pattern *max = NULL, want;
	char why[CORDON_MAX_TEXT_LEN];
	size_t i, j, n = 0;
	int r = 0;

	if (!pol->allow_hosts_max_set || cfg->nallow_hosts == 0)
		return 0;
	if ((max = calloc(CORDON_EGRESS_MAX_PATTERNS, sizeof(*max))) == NULL)
		return -CORDON_E_NOMEM;
	if ((r = cordon_egress_ceiling_parse(pol, max,
	    CORDON_EGRESS_MAX_PATTERNS, &n, err, errsz)) < 0)
		goto out;
	for (i = 0; i < cfg->nallow_hosts; i++) {
		if (cordon_egress_pattern_parse(cfg->allow_hosts[i], &want, why,
		    sizeof(why)) < 0) {
			(void)snprintf(err, errsz, "%s", why);
			r = -CORDON_E_INVAL;
			goto out;
		}
		for (j = 0; j < n && !cordon_egress_covers(&max[j], &want); j++)
			;
		if (j == n) {
			(void)snprintf(err, errsz, "--allow-host %s is outside "
			    "the hosts the system policy allows (%s: "
			    "allow_hosts_max = %s)", cfg->allow_hosts[i],
			    pol->path, pol->allow_hosts_max);
			r = -CORDON_E_POLICY;
			goto out;
		}
	}
out:
	free(max);
	return r;
}

int
cordon_gate_policy_path(char *path, size_t pathsz, char *err, size_t errsz)
{
	if ((size_t)snprintf(path, pathsz, "%s/%s", cordon_confdir(),
	    CORDON_POLICY_FILE) >= pathsz) {
		(void)snprintf(err, errsz, "the policy path is too long");
		return -CORDON_E_TOOLONG;
	}
	return 0;
}

/* The gate with the system policy as loaded (policy), or read now (NULL). */
static int
gate(const cordon_config *cfg, const struct cordon_policy *policy,
    struct cordon_config *eff, uint32_t *require, bool probe, char *err,
    size_t errsz)
{
	struct cordon_policy pol;
	char path[CORDON_MAX_PATH_LEN + 1];
	uint64_t *v;
	size_t i, n;
	int r, cap;

	*eff = *cfg;
	if (policy != NULL)
		pol = *policy;
	else if ((r = cordon_gate_policy_path(path, sizeof(path), err,
	    errsz)) < 0 || (r = cordon_policy_load(path, &pol, err, errsz)) < 0)
		return r;
	/*
	 * A cap nobody set is the built-in default, lowered to the ceiling
	 * where the ceiling is below it (a default never breaks the policy);
	 * under a process ceiling a run without a process cap gets it.  A cap
	 * somebody set - a profile, a flag, a caller - is checked, never
	 * changed: over its ceiling the run is refused.
	 */
	for (i = 0; i < CORDON_NLIMITS; i++) {
		cap = cordon_limit_caps[i];
		v = cordon_limit_slot(&eff->limits, cap);
		if ((cfg->limits_set & (1U << cap)) == 0 &&
		    pol.ceiling[cap] != 0 && (*v == 0 || *v > pol.ceiling[cap]))
			*v = pol.ceiling[cap];
	}
	if ((r = check_hosts_max(&pol, cfg, err, errsz)) < 0)
		return r;
	/* An allow-list is network access, for network_groups too. */
	if ((r = cordon_policy_check_self(&pol, &eff->limits, eff->network ||
	    eff->nallow_hosts != 0, err, errsz)) < 0) {
		/* Say where a value over a ceiling came from, if a profile. */
		for (i = 0; strstr(err, "ceiling") != NULL && i < CORDON_NLIMITS; i++) {
			cap = cordon_limit_caps[i];
			v = cordon_limit_slot(&eff->limits, cap);
			if (pol.ceiling[cap] == 0 || (*v != 0 &&
			    *v <= pol.ceiling[cap]))
				continue;
			n = strlen(err);
			if ((cfg->limits_from_profile & (1U << cap)) != 0 &&
			    n < errsz)
				(void)snprintf(err + n, errsz - n, "; set by profile "
				    "%s", cfg->profile);
			break;
		}
		return r;
	}
	*require = cfg->require | pol.require;
	if (*require == 0)
		return 0;
	return probe ? check_required_probed(eff, *require, err, errsz) :
	    check_required_static(eff, *require, err, errsz);
}

/*
 * --allow-host: only on linux-ns (the bridge is a listener in the run's
 * own net namespace), never with --network (which allows everything).
 * Landlock can limit TCP connect to a port, not to an address: the
 * payload could reach any host on the proxy's port number, so it is
 * refused rather than reported as an allow-list.  On the floor it would
 * be an environment variable and nothing more.
 */
static int
check_egress(const cordon_config *cfg, char *err, size_t errsz)
{
	if (cfg->nallow_hosts == 0)
		return 0;
	if (cfg->network)
		(void)snprintf(err, errsz, "--allow-host and --network "
		    "contradict: --network allows every host, --allow-host "
		    "only those named");
	else if (cfg->backend == CORDON_BACKEND_FLOOR)
		(void)snprintf(err, errsz, "--allow-host needs the linux-ns "
		    "backend: the floor has no network boundary, so an "
		    "allow-list there would be a proxy variable and nothing "
		    "more");
	else if (cfg->backend == CORDON_BACKEND_LANDLOCK)
		(void)snprintf(err, errsz, "--allow-host needs the linux-ns "
		    "backend: Landlock limits TCP connect by port, not by "
		    "address, so the payload could reach any host on the "
		    "proxy's port");
	else
		return 0;
	return -CORDON_E_INVAL;
}

static int
admit(const cordon_config *cfg, const struct cordon_policy *pol,
    struct cordon_config *eff, uint32_t *require, bool probe, char *err,
    size_t errsz)
{
	if (errsz > 0)
		err[0] = '\0';
	if (cordon_limits_check(&cfg->limits) != 0) {
		(void)snprintf(err, errsz, "a cap is out of range");
		return -CORDON_E_RANGE;
	}
	if (cordon_files_check(cfg, err, errsz) < 0 ||
	    check_egress(cfg, err, errsz) < 0)
		return -CORDON_E_INVAL;
	return gate(cfg, pol, eff, require, probe, err, errsz);
}

int
cordon_admit(const cordon_config *cfg, struct cordon_config *eff,
    uint32_t *require, char *err, size_t errsz)
{
	return admit(cfg, NULL, eff, require, false, err, errsz);
}

int
cordon_admit_with(const cordon_config *cfg, const struct cordon_policy *pol,
    struct cordon_config *eff, uint32_t *require, char *err, size_t errsz)
{
	return admit(cfg, pol, eff, require, false, err, errsz);
}

int
cordon_config_check(const cordon_config *cfg, char *err, size_t errsz)
{
	struct cordon_config eff;
	uint32_t require = 0;

	return admit(cfg, NULL, &eff, &require, true, err, errsz);
}
