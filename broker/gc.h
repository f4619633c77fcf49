/*
 * gc.h - reclaiming dead runs' workdirs and cgroups (gc.c), with the
 * invoker's rights; cordon_gc() itself is declared in cordon.h.
 */
#ifndef CORDON_BROKER_GC_H
#define CORDON_BROKER_GC_H

#include <stddef.h>

/*
 * Reclaims the workdirs under the base open at base_fd whose helper died
 * (their <id>.lock is free), waiting at most patience_ms for the base
 * lock.  Returns the count, or -1 with err.
 */
int workdir_gc(int base_fd, int patience_ms, char *err, size_t errsz);
/* After a run: the same at base, quietly and never waiting. */
void cordon_gc_sweep(const char *base);

#endif
