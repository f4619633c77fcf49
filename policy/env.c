/*
 * env.c - the environment allow-list.  See env.h.
 */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "env.h"
#include "types.h"

/* Exact names that pass.  HOME and TMPDIR are set by the helper. */
static const char *const allowed[] = {
	"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME",
	"COLORTERM", "NO_COLOR", "SOURCE_DATE_EPOCH",
};

static const char *const proxies[] = {
	"http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy",
};

/* Length of the KEY part of "KEY=VALUE". */
static size_t
keylen(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq == NULL ? strlen(entry) : (size_t)(eq - entry);
}

bool
cordon_env_is_proxy(const char *entry)
{
	size_t n = keylen(entry), i;

	for (i = 0; i < sizeof(proxies) / sizeof(proxies[0]); i++)
		if (strlen(proxies[i]) == n &&
		    strncasecmp(entry, proxies[i], n) == 0)
			return true;
	return false;
}

bool
cordon_env_allowed(const char *entry)
{
	size_t n = keylen(entry), i;

	if (n == 0 || cordon_env_is_proxy(entry))
		return false;
	/* The locale categories: LC_ALL, LC_CTYPE, ... */
	if (n > 3 && cordon_env_name_eq(entry, "LC_", 3))
		return true;
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (strlen(allowed[i]) == n &&
		    cordon_env_name_eq(entry, allowed[i], n))
			return true;
	return false;
}

bool
cordon_env_settable(const char *entry)
{
	size_t n = keylen(entry), i;

	if (n == 0 || n > CORDON_ENV_MAX_NAME ||
	    (entry[0] >= '0' && entry[0] <= '9'))
		return false;
	for (i = 0; i < n; i++)
		if (!((entry[i] >= 'a' && entry[i] <= 'z') ||
		    (entry[i] >= 'A' && entry[i] <= 'Z') ||
		    (entry[i] >= '0' && entry[i] <= '9') || entry[i] == '_'))
			return false;
	return !((n == 4 && cordon_env_name_eq(entry, "HOME", 4)) ||
	    (n == 6 && cordon_env_name_eq(entry, "TMPDIR", 6)));
}

size_t
cordon_env_find(char *const *list, size_t n, const char *entry)
{
	size_t klen = keylen(entry), i;

	for (i = 0; i < n; i++)
		if (cordon_env_name_eq(list[i], entry, klen) &&
		    (list[i][klen] == '=' || list[i][klen] == '\0'))
			return i;
	return n;
}
