/*
 * env.h - which environment variables reach the payload.
 *
 * The payload's environment is built from an allow-list, never from the
 * invoker's environment as a whole; proxy variables are removed whatever
 * else allows them, because on backends without a network boundary they
 * are how a payload would find a way out.  The broker filters with this
 * list and the helper filters again with the same list.
 */
#ifndef CORDON_POLICY_ENV_H
#define CORDON_POLICY_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* True if "KEY=VALUE" (or a bare KEY) may be passed to the payload. */
bool cordon_env_allowed(const char *entry);
/* True if KEY names a proxy variable (any case), which is never passed. */
bool cordon_env_is_proxy(const char *entry);
/*
 * True if the KEY of "KEY=VALUE" (or a bare KEY) may be set explicitly
 * (--env, --keep-env, a profile's env and keep_env): a portable name,
 * [A-Za-z_][A-Za-z0-9_]*, at most CORDON_ENV_MAX_NAME bytes, and not HOME
 * or TMPDIR, which the helper sets to the workdir.
 */
#define CORDON_ENV_MAX_NAME 128
bool cordon_env_settable(const char *entry);
/*
 * The index of the first of list's n entries ("KEY=VALUE" or a bare
 * "KEY") with entry's KEY, or n: the one lookup by KEY of the broker,
 * the policy parser and the helper.
 */
size_t cordon_env_find(char *const *list, size_t n, const char *entry);

#endif
