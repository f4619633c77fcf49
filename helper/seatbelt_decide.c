/*
 * seatbelt_decide.c - which backend a macOS run gets, and what each
 * applies.  Plain C, no macOS header: decided from the probe's result
 * (seatbelt_probe, seatbelt_macos.c) and unit-tested on Linux
 * (tests/test_sbpl.c); the macOS helper (main_macos.c) only asks.
 *
 * The rule: auto takes seatbelt when sandbox-exec applies a profile, and
 * otherwise degrades to the floor (rlimits, the monitor, the ephemeral
 * workdir: no sandbox) with the probe's reason - inside another sandbox
 * sandbox-exec exits 71, "sandbox_apply: Operation not permitted".  A
 * backend asked for by name never degrades: seatbelt that cannot apply
 * is refused (the run exits 125), and so is every backend of another
 * system.
 */
#include "config.h"

#include <stdio.h>

#include "sbpl.h"
#include "types.h"

int
seatbelt_decide(enum cordon_backend_id want, bool probe_ok,
    const char *probe_why, enum cordon_backend_id *pick, char *reason,
    size_t reasonsz)
{
	const char *why = probe_why != NULL ? probe_why : "no reason given";

	switch (want) {
	case CORDON_BACKEND_AUTO:
		*pick = probe_ok ? CORDON_BACKEND_SEATBELT :
		    CORDON_BACKEND_FLOOR;
		(void)snprintf(reason, reasonsz, probe_ok ? "sandbox-exec "
		    "applies a profile" : "seatbelt unavailable: %s; the "
		    "floor runs the command unsandboxed", why);
		return 0;
	case CORDON_BACKEND_SEATBELT:
		if (!probe_ok) {
			(void)snprintf(reason, reasonsz, "%s", why);
			return -1;
		}
		*pick = CORDON_BACKEND_SEATBELT;
		(void)snprintf(reason, reasonsz, "requested");
		return 0;
	case CORDON_BACKEND_FLOOR:
		*pick = CORDON_BACKEND_FLOOR;
		(void)snprintf(reason, reasonsz, "requested");
		return 0;
	default:
		(void)snprintf(reason, reasonsz, "it does not run on macOS "
		    "(seatbelt, floor)");
		return -1;
	}
}

uint32_t
seatbelt_applied(enum cordon_backend_id b, bool network)
{
	/* The rlimits (spawn.c) and the monitor over the tree: both. */
	uint32_t applied = 1U << CORDON_CAP_CPU | 1U << CORDON_CAP_WALL |
	    1U << CORDON_CAP_MEMORY | 1U << CORDON_CAP_NOFILE;

	if (b != CORDON_BACKEND_SEATBELT)
		return applied;
	/*
	 * The profile (sbpl.c): writes only under the workdir; signals and
	 * process-info only within the sandbox; no network rule unless
	 * --network.  No process cap: RLIMIT_NPROC counts the user's
	 * processes on macOS, not the sandbox's.
	 */
	applied |= 1U << CORDON_CAP_FILESYSTEM | 1U << CORDON_CAP_SCOPING;
	if (!network)
		applied |= 1U << CORDON_CAP_NETWORK;
	return applied;
}
