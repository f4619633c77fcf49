/*
 * policy.c - the configuration file parser and the policy checks.  See
 * policy.h for what the files are and README.md for the format.  The
 * keys of [profile] are set in profile.c, which the helper does not link:
 * it reads the system policy alone (cordon_policy_load), so a [profile]
 * section is refused there before any of its keys is looked at.
 *
 * Why the parser is safe on hostile input (the helper runs it, perhaps
 * setuid, and a user profile is written by whoever owns it): the file is
 * read whole, bounded by CORDON_POLICY_MAX_FILE, and walked line by line
 * with explicit lengths; a line over CORDON_POLICY_MAX_LINE, a NUL or
 * any other control character but a tab is an error before the line is
 * looked at; every line is copied into a fixed buffer of that size, so no
 * length is ever taken from the text itself; numbers go through the strict
 * readers of common/parse.c and are range-checked against the hard bounds
 * of types.h; lists have fixed maxima.  Results are built in scratch
 * copies and handed out only when the whole file is good: a bad file
 * changes nothing.
 *
 * What differs per OS - reading a file only if its owner can be trusted,
 * where the configuration lives, and who is in which group - is in
 * policy_posix.c (Linux, macOS) and policy_win.c.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "policy.h"
#include "policy_parser.h"

static const char *const section_names[SEC_MAX_] = {
	[SEC_CEILINGS] = "ceilings", [SEC_POLICY] = "policy",
	[SEC_PROFILE] = "profile",
};

/* Every key, by section; the [profile] ones are set by profile.c. */
const struct key cordon_policy_keys[] = {
	{ "max_cpu", SEC_CEILINGS, V_DURATION, CORDON_CAP_CPU, false },
	{ "max_wall", SEC_CEILINGS, V_DURATION, CORDON_CAP_WALL, false },
	{ "max_memory", SEC_CEILINGS, V_SIZE, CORDON_CAP_MEMORY, false },
	{ "max_nofile", SEC_CEILINGS, V_COUNT, CORDON_CAP_NOFILE, false },
	{ "max_nproc", SEC_CEILINGS, V_COUNT, CORDON_CAP_NPROC, false },
	{ "allow_groups", SEC_POLICY, V_GROUPS, 0, false },
	{ "network_groups", SEC_POLICY, V_GROUPS, 1, false },
	{ "require", SEC_POLICY, V_REQUIRE, 0, false },
	{ "cgroup_parent", SEC_POLICY, V_CGROUP, 0, false },
	{ "allow_hosts_max", SEC_CEILINGS, V_HOSTS, 0, false },
	{ "cpu", SEC_PROFILE, V_DURATION, CORDON_CAP_CPU, false },
	{ "wall", SEC_PROFILE, V_DURATION, CORDON_CAP_WALL, false },
	{ "memory", SEC_PROFILE, V_SIZE, CORDON_CAP_MEMORY, false },
	{ "nofile", SEC_PROFILE, V_COUNT, CORDON_CAP_NOFILE, false },
	{ "nproc", SEC_PROFILE, V_COUNT, CORDON_CAP_NPROC, false },
	{ "network", SEC_PROFILE, V_BOOL, 0, false },
	{ "backend", SEC_PROFILE, V_BACKEND, 0, false },
	{ "require", SEC_PROFILE, V_REQUIRE, 0, false },
	{ "env", SEC_PROFILE, V_ENV, 0, true },
	{ "keep_env", SEC_PROFILE, V_KEEP_ENV, 0, true },
	{ "allow_hosts", SEC_PROFILE, V_HOSTS, 0, true },
};

_Static_assert(sizeof(cordon_policy_keys) / sizeof(cordon_policy_keys[0]) ==
    CORDON_POLICY_NKEYS, "CORDON_POLICY_NKEYS is the number of keys");

/* Control names for --require and require =, by cap id. */
static const char *const control_names[CORDON_CAP_MAX_] = {
	[CORDON_CAP_CPU] = "cpu", [CORDON_CAP_WALL] = "wall",
	[CORDON_CAP_MEMORY] = "memory", [CORDON_CAP_NOFILE] = "open-files",
	[CORDON_CAP_NPROC] = "processes",
	[CORDON_CAP_NETWORK] = "network-isolation",
	[CORDON_CAP_OUTPUT] = "output", [CORDON_CAP_DISK] = "disk",
	[CORDON_CAP_FILESYSTEM] = "filesystem-isolation",
	[CORDON_CAP_SCOPING] = "signal-scoping",
};

int
cordon_policy_fail(struct ctx *c, const char *f, ...)
{
	va_list ap;
	int n;

	if (c->errsz == 0)
		return -CORDON_E_INVAL;
	n = snprintf(c->err, c->errsz, "%s:%u: ", c->name, c->line);
	if (n >= 0 && (size_t)n < c->errsz) {
		va_start(ap, f);
		(void)vsnprintf(c->err + n, c->errsz - (size_t)n, f, ap);
		va_end(ap);
	}
	return -CORDON_E_INVAL;
}

static uint64_t
limit_of(const struct cordon_limits *l, int cap)
{
	switch (cap) {
	case CORDON_CAP_CPU: return l->cpu_ns;
	case CORDON_CAP_WALL: return l->wall_ns;
	case CORDON_CAP_MEMORY: return l->memory_bytes;
	case CORDON_CAP_NOFILE: return l->nofile;
	case CORDON_CAP_NPROC: return l->nproc;
	default: return 0;
	}
}

/* A value of cap in the units people write, e.g. "90s", "2G", "512". */
static void
fmt_value(char *buf, size_t sz, int cap, uint64_t v)
{
	if (cap == CORDON_CAP_CPU || cap == CORDON_CAP_WALL)
		(void)snprintf(buf, sz, "%gs", (double)v / 1e9);
	else if (cap == CORDON_CAP_MEMORY && v % (1ULL << 30) == 0)
		(void)snprintf(buf, sz, "%lluG", (unsigned long long)(v >> 30));
	else if (cap == CORDON_CAP_MEMORY && v % (1ULL << 20) == 0)
		(void)snprintf(buf, sz, "%lluM", (unsigned long long)(v >> 20));
	else
		(void)snprintf(buf, sz, "%llu", (unsigned long long)v);
}

void
cordon_policy_init(struct cordon_policy *pol)
{
	memset(pol, 0, sizeof(*pol));
	pol->allow.any = true;
	pol->network.any = true;
}

const char *
cordon_control_name(int cap)
{
	return cap > 0 && cap < CORDON_CAP_MAX_ && control_names[cap] != NULL ?
	    control_names[cap] : "unknown";
}

static int
control_from_name(const char *w, size_t n)
{
	static const struct { const char *alias; int cap; } aliases[] = {
		{ "scoping", CORDON_CAP_SCOPING },
		{ "nofile", CORDON_CAP_NOFILE },
	};
	size_t i;

	for (i = 1; i < CORDON_CAP_MAX_; i++)
		if (control_names[i] != NULL && strlen(control_names[i]) == n &&
		    strncmp(w, control_names[i], n) == 0)
			return (int)i;
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strlen(aliases[i].alias) == n &&
		    strncmp(w, aliases[i].alias, n) == 0)
			return aliases[i].cap;
	return -1;
}

static bool
is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

int
cordon_require_parse(const char *list, uint32_t *mask, char *bad,
    size_t badsz)
{
	const char *p = list, *e;
	uint32_t m = 0;
	size_t n;
	int cap;

	while (is_space(*p))
		p++;
	if (*p == '\0') {
		*mask = 0;
		return 0;
	}
	for (;;) {
		while (is_space(*p))
			p++;
		e = strchrnul(p, ',');
		for (n = (size_t)(e - p); n > 0 && is_space(p[n - 1]); n--)
			;
		if ((cap = control_from_name(p, n)) < 0) {
			if (badsz > 0)
				(void)snprintf(bad, badsz, "%.*s", (int)(n > 64 ? 64 : n),
				    p);
			return -CORDON_E_INVAL;
		}
		m |= 1U << cap;
		if (*e == '\0')
			break;
		p = e + 1;
	}
	*mask = m;
	return 0;
}

/* One group name or gid: [A-Za-z0-9_.-], a trailing '$' (Samba), bounded. */
static bool
group_name_valid(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > CORDON_POLICY_MAX_GROUP_LEN || s[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '.' ||
		    s[i] == '-' || (s[i] == '$' && i == n - 1)))
			return false;
	return true;
}

static int
parse_groups(struct ctx *c, const char *key, const char *v,
    struct cordon_groups *g)
{
	const char *p = v, *e;
	size_t n;

	memset(g, 0, sizeof(*g));
	if (strcmp(v, "*") == 0) {
		g->any = true;
		return 0;
	}
	if (*v == '\0')
		return 0; /* nobody */
	for (;;) {
		while (is_space(*p))
			p++;
		e = strchrnul(p, ',');
		for (n = (size_t)(e - p); n > 0 && is_space(p[n - 1]); n--)
			;
		if (n == 1 && *p == '*')
			return fail(c, "%s: '*' means everyone and cannot be "
			    "listed with groups", key);
		if (!group_name_valid(p, n))
			return fail(c, "%s: '%.*s' is not a group name", key,
			    (int)(n > 64 ? 64 : n), p);
		if (g->n == CORDON_POLICY_MAX_GROUPS)
			return fail(c, "%s: more than %u groups", key,
			    CORDON_POLICY_MAX_GROUPS);
		memcpy(g->name[g->n], p, n);
		g->name[g->n++][n] = '\0';
		if (*e == '\0')
			return 0;
		p = e + 1;
	}
}

/* An absolute path of printable characters without "." or ".." parts. */
static bool
cgroup_path_valid(const char *v)
{
	const char *p;

	if (v[0] != '/' || strlen(v) > CORDON_MAX_PATH_LEN)
		return false;
	for (p = v; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	for (p = v; *p != '\0'; p = strchrnul(p + 1, '/'))
		if (strncmp(p, "/./", 3) == 0 || strcmp(p, "/.") == 0 ||
		    strncmp(p, "/../", 4) == 0 || strcmp(p, "/..") == 0 ||
		    strncmp(p, "//", 2) == 0)
			return false;
	return true;
}

int
cordon_policy_limit(struct ctx *c, const struct key *k, const char *v, uint64_t *out)
{
	static const char *const what[] = {
		[V_DURATION] = "a duration (e.g. 90s, 1.5, 500ms, 2m, 1h)",
		[V_SIZE] = "a size (e.g. 512M, 2G)",
		[V_COUNT] = "a whole number",
	};
	uint64_t lo = 0, hi = 0, x = 0;
	char a[32], b[32];
	int r;

	r = k->type == V_DURATION ? cordon_parse_duration(v, &x) :
	    k->type == V_SIZE ? cordon_parse_size(v, &x) :
	    cordon_parse_count(v, &x);
	if (r == -CORDON_E_INVAL)
		return fail(c, "%s: '%s' is not %s", k->name, v, what[k->type]);
	switch (k->cap) {
	case CORDON_CAP_CPU:
	case CORDON_CAP_WALL:
		lo = CORDON_MIN_TIME_NS;
		hi = CORDON_MAX_TIME_NS;
		break;
	case CORDON_CAP_MEMORY:
		lo = CORDON_MIN_MEMORY;
		hi = CORDON_MAX_MEMORY;
		break;
	case CORDON_CAP_NOFILE:
		lo = CORDON_MIN_NOFILE;
		hi = CORDON_MAX_NOFILE;
		break;
	default:
		/* nproc = 0 is "no cap"; a ceiling of 0 would be meaningless. */
		lo = k->sec == SEC_CEILINGS ? 1 : 0;
		hi = CORDON_MAX_NPROC;
		break;
	}
	if (r < 0 || x < lo || x > hi) {
		fmt_value(a, sizeof(a), k->cap, lo);
		fmt_value(b, sizeof(b), k->cap, hi);
		return fail(c, "%s: %s is out of range (%s to %s)", k->name, v,
		    a, b);
	}
	*out = x;
	return 0;
}

/*
 * A key of [ceilings] or [policy]; a [profile] key goes to the profile
 * parser the broker gave (policy/profile.c), which the helper does not
 * link: it reads the system policy alone, where [profile] is refused.
 */
static int
set_key(struct ctx *c, const struct key *k, const char *v)
{
	char bad[80];
	uint32_t mask = 0;
	uint64_t x = 0;
	int r;

	/*
	 * Without a profile parser (the helper links none) a profile's keys
	 * are passed over: the file is refused once read, as "a profile, not
	 * what was asked for" (cordon_policy_parse), so none takes effect.
	 */
	if (k->sec == SEC_PROFILE)
		return c->profile_key != NULL ? c->profile_key(c, k, v) : 0;
	if (*v == '\0' && k->type != V_GROUPS && k->type != V_REQUIRE)
		return fail(c, "%s: empty value", k->name);
	switch (k->type) {
	case V_DURATION:
	case V_SIZE:
	case V_COUNT:
		if ((r = cordon_policy_limit(c, k, v, &x)) < 0)
			return r;
		c->pol->ceiling[k->cap] = x;
		c->pol->ceiling_line[k->cap] = c->line;
		return 0;
	case V_GROUPS:
		return parse_groups(c, k->name, v, k->cap != 0 ?
		    &c->pol->network : &c->pol->allow);
	case V_REQUIRE:
		if (cordon_require_parse(v, &mask, bad, sizeof(bad)) < 0)
			return fail(c, REQUIRE_BAD, bad);
		c->pol->require = mask;
		return 0;
	case V_CGROUP:
		if (!cgroup_path_valid(v))
			return fail(c, "cgroup_parent: '%s' is not a clean absolute "
			    "path", v);
		memcpy(c->pol->cgroup_parent, v, strlen(v) + 1);
		return 0;
	case V_HOSTS:
		/* Kept as text: the broker's gate parses and applies it. */
		if (strlen(v) >= sizeof(c->pol->allow_hosts_max))
			return fail(c, "%s: longer than %zu bytes", k->name,
			    sizeof(c->pol->allow_hosts_max) - 1);
		memcpy(c->pol->allow_hosts_max, v, strlen(v) + 1);
		c->pol->allow_hosts_max_set = true;
		c->pol->allow_hosts_max_line = c->line;
		return 0;
	default:
		break;
	}
	return fail(c, "internal error");
}

static int
section_line(struct ctx *c, const char *s)
{
	enum policy_kind_ kind;
	size_t n = strlen(s);
	int i, sec = SEC_NONE;

	if (s[n - 1] != ']')
		return fail(c, "a section header is '[NAME]' with nothing after "
		    "it");
	for (i = SEC_CEILINGS; i < SEC_MAX_; i++)
		if (strlen(section_names[i]) == n - 2 &&
		    strncmp(s + 1, section_names[i], n - 2) == 0)
			sec = i;
	if (sec == SEC_NONE)
		return fail(c, "unknown section %s (a policy has [ceilings] and "
		    "[policy]; a profile has [profile])", s);
	kind = sec == SEC_PROFILE ? K_PROFILE : K_POLICY;
	if (c->kind != K_ANY && c->kind != kind)
		return fail(c, "section %s does not belong in a %s", s,
		    c->kind == K_POLICY ? "system policy" : "profile");
	if (c->sec_line[sec] != 0)
		return fail(c, "section %s given twice (first on line %u)", s,
		    c->sec_line[sec]);
	c->kind = kind;
	c->sec = (enum section)sec;
	c->sec_line[sec] = c->line;
	return 0;
}

static int
key_line(struct ctx *c, char *s)
{
	char *eq = strchr(s, '='), *k, *v, *e;
	size_t i;

	if (eq == NULL)
		return fail(c, "expected KEY = VALUE or [SECTION]");
	for (e = eq; e > s && is_space(e[-1]); e--)
		;
	*e = '\0';
	k = s;
	for (v = eq + 1; is_space(*v); v++)
		;
	if (*k == '\0')
		return fail(c, "no key before '='");
	for (e = k; *e != '\0'; e++)
		if (!((*e >= 'a' && *e <= 'z') || *e == '_'))
			return fail(c, "'%s' is not a key", k);
	if (c->sec == SEC_NONE)
		return fail(c, "key '%s' before any [section]", k);
	for (i = 0; i < CORDON_POLICY_NKEYS; i++) {
		if (cordon_policy_keys[i].sec != c->sec || strcmp(cordon_policy_keys[i].name, k) != 0)
			continue;
		if (!cordon_policy_keys[i].repeat && c->key_line[i] != 0)
			return fail(c, "%s is set twice (first on line %u)", k,
			    c->key_line[i]);
		c->key_line[i] = c->line;
		return set_key(c, &cordon_policy_keys[i], v);
	}
	return fail(c, "unknown key '%s' in [%s]", k, section_names[c->sec]);
}

/* One line (without its newline), already bounded in length. */
static int
one_line(struct ctx *c, const char *p, size_t n)
{
	char buf[CORDON_POLICY_MAX_LINE + 1] = "", *s, *e;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];

		if (ch == '\0')
			return fail(c, "NUL byte in the line");
		if (ch == '\r')
			return fail(c, "carriage return in the line (DOS line "
			    "endings are not accepted)");
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return fail(c, "control character 0x%02x in the line", ch);
	}
	memcpy(buf, p, n);
	buf[n] = '\0';
	for (s = buf; is_space(*s); s++)
		;
	for (e = s + strlen(s); e > s && is_space(e[-1]); e--)
		;
	*e = '\0';
	if (*s == '\0' || *s == '#' || *s == ';')
		return 0;
	return *s == '[' ? section_line(c, s) : key_line(c, s);
}

int
cordon_policy_parse_with(const char *name, const char *text, size_t len,
    enum cordon_policy_kind want, enum cordon_policy_kind *got,
    struct cordon_policy *pol, struct cordon_profile *prof,
    cordon_profile_key_fn profile_key, char *err, size_t errsz)
{
	struct cordon_policy spol;
	struct ctx c;
	const char *p = text, *end = text + len, *nl;
	size_t n;
	int r = 0;

	memset(&c, 0, sizeof(c));
	c.name = name;
	c.err = err;
	c.errsz = errsz;
	c.kind = want == CORDON_KIND_POLICY ? K_POLICY :
	    want == CORDON_KIND_PROFILE ? K_PROFILE : K_ANY;
	cordon_policy_init(&spol);
	c.pol = &spol;
	c.prof = prof;
	c.profile_key = profile_key;
	if (len > CORDON_POLICY_MAX_FILE) {
		r = -CORDON_E_TOOLONG;
		(void)snprintf(err, errsz, "%s: larger than %u bytes", name,
		    CORDON_POLICY_MAX_FILE);
		goto out;
	}
	while (p < end && r == 0) {
		c.line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		if (n + 1 > CORDON_POLICY_MAX_LINE)
			r = fail(&c, "line longer than %u bytes",
			    CORDON_POLICY_MAX_LINE - 1);
		else
			r = one_line(&c, p, n);
		p += n + (nl != NULL);
	}
	if (r == 0 && c.kind == K_ANY) {
		r = -CORDON_E_INVAL;
		(void)snprintf(err, errsz, "%s: no section, so it is neither a "
		    "policy nor a profile (give the kind)", name);
	}
	if (r == 0 && ((c.kind == K_POLICY && pol == NULL) ||
	    (c.kind == K_PROFILE && (prof == NULL || profile_key == NULL)))) {
		r = -CORDON_E_INVAL;
		(void)snprintf(err, errsz, "%s: is a %s, not what was asked for",
		    name, c.kind == K_POLICY ? "system policy" : "profile");
	}
out:
	if (r == 0 && got != NULL)
		*got = c.kind == K_POLICY ? CORDON_KIND_POLICY :
		    CORDON_KIND_PROFILE;
	if (r == 0 && c.kind == K_POLICY) {
		(void)snprintf(spol.path, sizeof(spol.path), "%s", name);
		*pol = spol;
	}
	return r;
}

int
cordon_policy_load(const char *path, struct cordon_policy *pol, char *err,
    size_t errsz)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	/* A system policy only: no profile parser, so [profile] is refused. */
	r = cordon_policy_read_text(path, (uid_t)-1, &text, &len, err, errsz);
	if (r == -CORDON_E_NOTFOUND) {
		cordon_policy_init(pol);
		return 0;
	}
	if (r == 0)
		r = cordon_policy_parse_with(path, text, len, CORDON_KIND_POLICY,
		    NULL, pol, NULL, NULL, err, errsz);
	free(text);
	return r;
}

int
cordon_policy_path(char *buf, size_t bufsz, const char *rel)
{
	int n = snprintf(buf, bufsz, "%s/%s", cordon_policy_confdir(), rel);

	return n < 0 || (size_t)n >= bufsz ? -CORDON_E_TOOLONG : 0;
}

const char *
cordon_policy_source(const struct cordon_policy *pol)
{
	return pol->path[0] != '\0' ? pol->path : "the built-in policy";
}

int
cordon_policy_check_ceilings(const struct cordon_policy *pol,
    const struct cordon_limits *l, char *err, size_t errsz)
{
	static const int caps[] = {
		CORDON_CAP_CPU, CORDON_CAP_WALL, CORDON_CAP_MEMORY,
		CORDON_CAP_NOFILE, CORDON_CAP_NPROC,
	};
	static const char *const flag[CORDON_CAP_MAX_] = {
		[CORDON_CAP_CPU] = "cpu", [CORDON_CAP_WALL] = "wall",
		[CORDON_CAP_MEMORY] = "memory", [CORDON_CAP_NOFILE] = "nofile",
		[CORDON_CAP_NPROC] = "nproc",
	};
	char a[32], b[32];
	uint64_t v, max;
	size_t i;
	int cap;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		cap = caps[i];
		max = pol->ceiling[cap];
		v = limit_of(l, cap);
		if (max == 0 || (v != 0 && v <= max))
			continue;
		fmt_value(b, sizeof(b), cap, max);
		if (v == 0)
			(void)snprintf(err, errsz, "nproc: no process cap was "
			    "set, but the system ceiling max_nproc is %s (%s:%u)",
			    b, cordon_policy_source(pol), pol->ceiling_line[cap]);
		else {
			fmt_value(a, sizeof(a), cap, v);
			(void)snprintf(err, errsz, "%s %s is over the system "
			    "ceiling max_%s = %s (%s:%u)", flag[cap], a, flag[cap],
			    b, cordon_policy_source(pol), pol->ceiling_line[cap]);
		}
		return -CORDON_E_POLICY;
	}
	return 0;
}

int
cordon_policy_check_as(const struct cordon_policy *pol,
    const struct cordon_limits *l, bool network, const char *who,
    bool (*member)(const struct cordon_groups *g, void *arg), void *arg,
    char *err, size_t errsz)
{
	int r;

	if (!member(&pol->allow, arg)) {
		(void)snprintf(err, errsz, "%s may not use cordon: it is in no "
		    "group of allow_groups (%s)", who, cordon_policy_source(pol));
		return -CORDON_E_POLICY;
	}
	if (l == NULL)
		return 0;
	if ((r = cordon_policy_check_ceilings(pol, l, err, errsz)) < 0)
		return r;
	if (network && !member(&pol->network, arg)) {
		(void)snprintf(err, errsz, "network: %s may not be given network "
		    "access: it is in no group of network_groups (%s)", who,
		    cordon_policy_source(pol));
		return -CORDON_E_POLICY;
	}
	return 0;
}

int
cordon_policy_enforce(const struct cordon_limits *l, bool network,
    uint32_t *require, char *err, size_t errsz)
{
	char path[CORDON_MAX_PATH_LEN + 1], why[CORDON_MAX_TEXT_LEN] = "";
	struct cordon_policy pol;
	int r;

	cordon_policy_init(&pol);
	if ((r = cordon_policy_path(path, sizeof(path), CORDON_POLICY_FILE)) < 0)
		(void)snprintf(why, sizeof(why), "its path is too long");
	else
		r = cordon_policy_load(path, &pol, why, sizeof(why));
	if (r < 0) {
		(void)snprintf(err, errsz, "system policy: %s", why);
		return r;
	}
	if ((r = cordon_policy_check_self(&pol, l, network, why,
	    sizeof(why))) < 0) {
		(void)snprintf(err, errsz, "refused by the system policy: %s", why);
		return r;
	}
	if (require != NULL)
		*require |= pol.require;
	return 0;
}

int
cordon_require_check(uint32_t require, uint32_t applied, const char *backend,
    char *err, size_t errsz)
{
	uint32_t miss = require & ~applied;
	int cap = 1;

	if (miss == 0)
		return 0;
	while (cap < CORDON_CAP_MAX_ && (miss & (1U << cap)) == 0)
		cap++;
	(void)snprintf(err, errsz, "required control %s cannot be applied by "
	    "the %s backend", cordon_control_name(cap), backend);
	return -CORDON_E_UNMET;
}
