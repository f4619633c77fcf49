/*
 * egress_list.c - a run's --allow-host patterns as the one text the
 * trace stores (runs.allow_hosts), and back (egress.h).  Plain strings,
 * on every OS: the Windows build, which has no egress allow-list, still
 * reads and writes the trace's column.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon.h"
#include "egress.h"

int
cordon_egress_list_join(char *const *pats, size_t n, char **out)
{
	size_t i, len = 1, off = 0;
	char *s;

	*out = NULL;
	for (i = 0; i < n; i++)
		len += strlen(pats[i]) + 2;
	if ((s = malloc(len)) == NULL)
		return -CORDON_E_NOMEM;
	s[0] = '\0';
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(s + off, len - off, "%s%s",
		    i == 0 ? "" : ", ", pats[i]);
	*out = s;
	return 0;
}

int
cordon_egress_list_split(const char *text, char ***out, size_t *n)
{
	const char *s = text, *e;
	char **v;
	size_t k = 0, len;

	*out = NULL;
	*n = 0;
	if (text == NULL)
		return -CORDON_E_NOMEM;
	for (e = text; *e != '\0'; e++)
		k += *e == ',';
	if ((v = calloc(k + 2, sizeof(*v))) == NULL)
		return -CORDON_E_NOMEM;
	*out = v;
	while (*s != '\0') {
		s += strspn(s, " ,");
		len = strcspn(s, " ,");
		if (len == 0)
			break;
		if ((v[*n] = strndup(s, len)) == NULL)
			return -CORDON_E_NOMEM;
		(*n)++;
		s += len;
	}
	return 0;
}
