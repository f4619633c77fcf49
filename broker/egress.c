/*
 * egress.c - the egress allow-list's rules, apart from any socket: the
 * patterns of --allow-host and how a requested name or address matches
 * them, the address ranges a name may not resolve to unless allowed
 * literally, and name resolution (with the test resolver).  The proxy
 * that applies them is proxy.c.
 *
 * Matching is on the name the client asked for, never on what it
 * resolves to: "*.example.com" admits a.example.com and a.b.example.com,
 * not example.com nor evilexample.com.  Names are compared as ASCII
 * (IDN must come as punycode; a non-ASCII byte is refused, so two
 * spellings of one name cannot differ in how they match), case-folded,
 * with one trailing dot dropped.  An allowed name must then resolve to an
 * ordinary address: loopback, private, link-local, CGNAT, multicast,
 * unspecified, unique-local and reserved ranges (and IPv4-mapped or NAT64
 * forms of them) are refused unless an IP or CIDR pattern covers the
 * address itself - so DNS cannot rebind an allowed name onto the cloud
 * metadata endpoint or the host's own services.
 *
 * Also here, because they touch no socket: the parsers of a client's
 * request to the proxy (HTTP and SOCKS5), which the fuzz harness drives.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

#include "cordon.h"
#include "egress.h"
#include "proxy_req.h"
#include "policy.h"

bool
cordon_egress_test_hooks(void)
{
	/* A setuid/setgid broker (or one given capabilities) ignores them. */
	return getauxval(AT_SECURE) == 0;
}

int
cordon_egress_name_normalize(const char *in, size_t len,
    char out[CORDON_EGRESS_NAME_MAX + 1])
{
	size_t i, label = 0;
	unsigned char c;

	if (len > 0 && in[len - 1] == '.')
		len--;
	if (len == 0 || len > CORDON_EGRESS_NAME_MAX)
		return -CORDON_E_INVAL;
	for (i = 0; i < len; i++) {
		c = (unsigned char)in[i];
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (c == '.') {
			if (label == 0)
				return -CORDON_E_INVAL; /* an empty label */
			label = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_') {
			if (++label > 63)
				return -CORDON_E_INVAL;
		} else {
			return -CORDON_E_INVAL; /* non-ASCII, space, NUL, ... */
		}
		out[i] = (char)c;
	}
	if (label == 0)
		return -CORDON_E_INVAL; /* "a..": an empty last label */
	out[len] = '\0';
	return 0;
}

/* A port: 1-65535, decimal digits only. */
static int
parse_port(const char *s, uint16_t *port)
{
	unsigned long v = 0;
	size_t i;

	if (s[0] == '\0' || strlen(s) > 5)
		return -CORDON_E_INVAL;
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -CORDON_E_INVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -CORDON_E_INVAL;
	*port = (uint16_t)v;
	return 0;
}

/* addr[/bits] into p (ADDR); false if it is not an address. */
static bool
parse_addr(const char *s, struct cordon_egress_pattern *p)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	unsigned long bits;
	unsigned max, i;
	char *end;

	if (strlen(s) >= sizeof(buf))
		return false;
	memcpy(buf, s, strlen(s) + 1);
	if ((slash = strchr(buf, '/')) != NULL)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, p->addr) == 1) {
		p->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, p->addr) == 1) {
		p->family = AF_INET6;
		max = 128;
	} else {
		return false;
	}
	p->prefix = max;
	if (slash != NULL) {
		errno = 0;
		if (slash[1] < '0' || slash[1] > '9')
			return false;
		bits = strtoul(slash + 1, &end, 10);
		if (errno != 0 || *end != '\0' || bits > max)
			return false;
		p->prefix = (unsigned)bits;
	}
	/* Host bits must be zero: 10.1.2.3/8 is a typo, not a network. */
	for (i = p->prefix; i < max; i++)
		if ((p->addr[i / 8] & (0x80U >> (i % 8))) != 0)
			return false;
	p->kind = CORDON_EGRESS_ADDR;
	return true;
}

int
cordon_egress_pattern_parse(const char *text, struct cordon_egress_pattern *p,
    char *err, size_t errsz)
{
	char buf[CORDON_EGRESS_NAME_MAX + 16], *host = buf, *port = NULL, *c;
	const char *why = "not a host name, *.suffix, IP address or CIDR";

	memset(p, 0, sizeof(*p));
	if (strlen(text) >= sizeof(buf)) {
		why = "too long";
		goto bad;
	}
	memcpy(buf, text, strlen(text) + 1);
	if (buf[0] == '[') {
		/* [IPv6]:port */
		if ((c = strchr(buf, ']')) == NULL || (c[1] != '\0' &&
		    c[1] != ':'))
			goto bad;
		*c = '\0';
		host = buf + 1;
		port = c[1] == ':' ? c + 2 : NULL;
	} else if ((c = strchr(buf, ':')) != NULL && strchr(c + 1, ':') ==
	    NULL) {
		/* One colon: host:port (IPv6 has at least two). */
		*c = '\0';
		port = c + 1;
	}
	if (port != NULL && parse_port(port, &p->port) < 0) {
		why = "the port is not a number from 1 to 65535";
		goto bad;
	}
	if (parse_addr(host, p)) {
		if (buf[0] != '[' && port != NULL && p->family == AF_INET6)
			goto bad;
		return 0;
	}
	if (buf[0] == '[' || strchr(host, '/') != NULL ||
	    strchr(host, ':') != NULL)
		goto bad;
	p->kind = CORDON_EGRESS_NAME;
	if (strncmp(host, "*.", 2) == 0) {
		p->kind = CORDON_EGRESS_SUFFIX;
		host += 2;
	}
	if (cordon_egress_name_normalize(host, strlen(host), p->name) < 0) {
		why = "not a host name (ASCII letters, digits, '-', '_' and "
		    "dots; an IDN as punycode, xn--...)";
		goto bad;
	}
	if (strchr(p->name, '*') != NULL)
		goto bad;
	return 0;
bad:
	(void)snprintf(err, errsz, "--allow-host '%s': %s", text, why);
	return -CORDON_E_INVAL;
}

/* Whether name is strictly below suffix (a.b below b, not b itself). */
static bool
below(const char *name, const char *suffix)
{
	size_t hl = strlen(name), sl = strlen(suffix);

	return hl > sl + 1 && name[hl - sl - 1] == '.' &&
	    strcmp(name + hl - sl, suffix) == 0;
}

bool
cordon_egress_name_allowed(const struct cordon_egress_pattern *p, size_t n,
    const char *host, uint16_t port)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i].port != 0 && p[i].port != port)
			continue;
		if (p[i].kind == CORDON_EGRESS_NAME &&
		    strcmp(p[i].name, host) == 0)
			return true;
		if (p[i].kind != CORDON_EGRESS_SUFFIX)
			continue;
		if (below(host, p[i].name))
			return true;
	}
	return false;
}

/* sa's address bytes (4 or 16), its family and port. */
static const uint8_t *
addr_bytes(const struct sockaddr *sa, int *family, uint16_t *port)
{
	const struct sockaddr_in *a4;
	const struct sockaddr_in6 *a6;

	*family = sa->sa_family;
	if (sa->sa_family == AF_INET) {
		a4 = (const struct sockaddr_in *)(const void *)sa;
		*port = ntohs(a4->sin_port);
		return (const uint8_t *)&a4->sin_addr;
	}
	a6 = (const struct sockaddr_in6 *)(const void *)sa;
	*port = ntohs(a6->sin6_port);
	return (const uint8_t *)&a6->sin6_addr;
}

static bool
prefix_match(const uint8_t *a, const uint8_t *net, unsigned bits)
{
	unsigned full = bits / 8, rest = bits % 8;
	uint8_t mask;

	if (memcmp(a, net, full) != 0)
		return false;
	if (rest == 0)
		return true;
	mask = (uint8_t)(0xffU << (8 - rest));
	return (a[full] & mask) == (net[full] & mask);
}

bool
cordon_egress_addr_allowed(const struct cordon_egress_pattern *p, size_t n,
    const struct sockaddr *sa)
{
	const uint8_t *a;
	uint16_t port;
	int family;
	size_t i;

	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return false;
	a = addr_bytes(sa, &family, &port);
	for (i = 0; i < n; i++)
		if (p[i].kind == CORDON_EGRESS_ADDR && p[i].family == family &&
		    (p[i].port == 0 || p[i].port == port) &&
		    prefix_match(a, p[i].addr, p[i].prefix))
			return true;
	return false;
}

bool
cordon_egress_covers(const struct cordon_egress_pattern *c,
    const struct cordon_egress_pattern *p)
{
	if (c->port != 0 && c->port != p->port)
		return false;
	switch (c->kind) {
	case CORDON_EGRESS_NAME:
		return p->kind == CORDON_EGRESS_NAME &&
		    strcmp(c->name, p->name) == 0;
	case CORDON_EGRESS_SUFFIX:
		return (p->kind == CORDON_EGRESS_NAME ||
		    p->kind == CORDON_EGRESS_SUFFIX) &&
		    (below(p->name, c->name) || (p->kind ==
		    CORDON_EGRESS_SUFFIX && strcmp(p->name, c->name) == 0));
	case CORDON_EGRESS_ADDR:
		return p->kind == CORDON_EGRESS_ADDR && p->family == c->family &&
		    p->prefix >= c->prefix &&
		    prefix_match(p->addr, c->addr, c->prefix);
	}
	return false;
}

int
cordon_egress_list_parse(const char *text, struct cordon_egress_pattern *out,
    size_t max, size_t *n, char *err, size_t errsz)
{
	char item[CORDON_EGRESS_NAME_MAX + 16];
	const char *s = text, *e;
	size_t len;

	*n = 0;
	while (*s != '\0') {
		s += strspn(s, " \t,");
		if (*s == '\0')
			break;
		e = s + strcspn(s, " \t,");
		len = (size_t)(e - s);
		if (*n >= max || len >= sizeof(item)) {
			(void)snprintf(err, errsz, "'%.*s': too long, or too many "
			    "patterns", (int)(len > 64 ? 64 : len), s);
			return -CORDON_E_INVAL;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		if (cordon_egress_pattern_parse(item, &out[*n], err, errsz) < 0)
			return -CORDON_E_INVAL;
		(*n)++;
		s = e;
	}
	return 0;
}

int
cordon_egress_ceiling_parse(const struct cordon_policy *pol,
    struct cordon_egress_pattern *out, size_t max, size_t *n, char *err,
    size_t errsz)
{
	static const char flag[] = "--allow-host ";
	char why[CORDON_MAX_TEXT_LEN];

	if (cordon_egress_list_parse(pol->allow_hosts_max, out, max, n, why,
	    sizeof(why)) == 0)
		return 0;
	/* The parser speaks of the flag; here the pattern is in a file. */
	(void)snprintf(err, errsz, "%s:%u: allow_hosts_max: %s", pol->path,
	    pol->allow_hosts_max_line, strncmp(why, flag, sizeof(flag) - 1) ==
	    0 ? why + sizeof(flag) - 1 : why);
	return -CORDON_E_POLICY;
}

struct range {
	uint8_t net[16];
	unsigned bits;
	const char *name;
};

/* IPv4 ranges no allowed name may resolve to (RFC 6890 and friends). */
static const struct range ranges4[] = {
	{ { 0 }, 8, "unspecified" },
	{ { 10 }, 8, "private" },
	{ { 100, 64 }, 10, "CGNAT" },
	{ { 127 }, 8, "loopback" },
	{ { 169, 254 }, 16, "link-local" },
	{ { 172, 16 }, 12, "private" },
	{ { 192, 0, 0 }, 24, "reserved" },
	{ { 192, 168 }, 16, "private" },
	{ { 198, 18 }, 15, "reserved" },
	{ { 224 }, 4, "multicast" },
	{ { 240 }, 4, "reserved" },
};

static const struct range ranges6[] = {
	{ { 0 }, 128, "unspecified" },
	{ { [15] = 1 }, 128, "loopback" },
	{ { 0xfc }, 7, "unique-local" },
	{ { 0xfe, 0x80 }, 10, "link-local" },
	{ { 0xfe, 0xc0 }, 10, "reserved" },  /* deprecated site-local */
	{ { 0xff }, 8, "multicast" },
};

/* ::ffff:a.b.c.d and 64:ff9b::a.b.c.d carry an IPv4 address. */
static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b };

static const char *
special4(const uint8_t *a)
{
	size_t i;

	for (i = 0; i < sizeof(ranges4) / sizeof(ranges4[0]); i++)
		if (prefix_match(a, ranges4[i].net, ranges4[i].bits))
			return ranges4[i].name;
	return NULL;
}

const char *
cordon_egress_addr_special(const struct sockaddr *sa)
{
	const uint8_t *a;
	uint16_t port;
	int family;
	size_t i;

	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return "reserved";
	a = addr_bytes(sa, &family, &port);
	if (family == AF_INET)
		return special4(a);
	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
		return special4(a + 12);
	for (i = 0; i < sizeof(ranges6) / sizeof(ranges6[0]); i++)
		if (prefix_match(a, ranges6[i].net, ranges6[i].bits))
			return ranges6[i].name;
	return NULL;
}

void
cordon_egress_addr_text(const struct sockaddr *sa, char *buf, size_t bufsz)
{
	const uint8_t *a;
	uint16_t port;
	int family;

	if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    (a = addr_bytes(sa, &family, &port)) == NULL ||
	    inet_ntop(family, a, buf, (socklen_t)bufsz) == NULL)
		(void)snprintf(buf, bufsz, "?");
}

/* Adds the literal address text (port port) to out, if there is room. */
static void
add_addr(const char *text, uint16_t port, struct sockaddr_storage *out,
    size_t max, size_t *n)
{
	struct sockaddr_in *a4;
	struct sockaddr_in6 *a6;

	if (*n >= max)
		return;
	memset(&out[*n], 0, sizeof(out[*n]));
	a4 = (struct sockaddr_in *)(void *)&out[*n];
	a6 = (struct sockaddr_in6 *)(void *)&out[*n];
	if (inet_pton(AF_INET, text, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		(*n)++;
	} else if (inet_pton(AF_INET6, text, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		(*n)++;
	}
}

/* Test resolver lines read at most; longer files are cut there. */
#define TEST_HOSTS_MAX_LINES 4096

/* host's addresses from a hosts(5)-format file (the test resolver). */
static int
resolve_file(const char *path, const char *host, uint16_t port,
    struct sockaddr_storage *out, size_t max, size_t *n)
{
	char line[512], *save = NULL, *addr, *name;
	FILE *f;
	int lines = 0;

	if ((f = fopen(path, "re")) == NULL)
		return -CORDON_E_NOTFOUND;
	while (lines++ < TEST_HOSTS_MAX_LINES &&
	    fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "#\n")] = '\0';
		if ((addr = strtok_r(line, " \t", &save)) == NULL)
			continue;
		while ((name = strtok_r(NULL, " \t", &save)) != NULL) {
			if (strcasecmp(name, host) != 0)
				continue;
			/* "hang NAME": a DNS server that never answers. */
			if (strcmp(addr, "hang") == 0) {
				(void)fclose(f);
				return CORDON_EGRESS_HANG;
			}
			add_addr(addr, port, out, max, n);
		}
	}
	(void)fclose(f); /* read only: nothing to lose */
	return *n > 0 ? 0 : -CORDON_E_NOTFOUND;
}

int
cordon_egress_resolve(const char *host, uint16_t port,
    struct sockaddr_storage *out, size_t max, size_t *n)
{
	struct addrinfo hints, *res = NULL, *ai;
	const char *file;
	struct sockaddr_in *a4;
	struct sockaddr_in6 *a6;

	*n = 0;
	if (cordon_egress_test_hooks() &&
	    (file = getenv("CORDON_TEST_HOSTS")) != NULL && file[0] != '\0')
		return resolve_file(file, host, port, out, max, n);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_ADDRCONFIG;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return -CORDON_E_NOTFOUND;
	for (ai = res; ai != NULL && *n < max; ai = ai->ai_next) {
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
		    ai->ai_addrlen > sizeof(out[0]))
			continue;
		memset(&out[*n], 0, sizeof(out[*n]));
		memcpy(&out[*n], ai->ai_addr, ai->ai_addrlen);
		a4 = (struct sockaddr_in *)(void *)&out[*n];
		a6 = (struct sockaddr_in6 *)(void *)&out[*n];
		if (ai->ai_family == AF_INET)
			a4->sin_port = htons(port);
		else
			a6->sin6_port = htons(port);
		(*n)++;
	}
	freeaddrinfo(res);
	return *n > 0 ? 0 : -CORDON_E_NOTFOUND;
}

/*
 * A client's request to the proxy (proxy.c), read here, apart from any
 * socket: pure functions of the bytes received so far, every read
 * bounded by len, for the fuzz harness too (tests/fuzz/fuzz_proxy.c).
 */

/* Splits "host:port" or "[v6]:port" (port needed unless def != 0). */
static int
parse_authority(const char *s, size_t len, uint16_t def,
    struct cordon_proxy_req *r)
{
	const char *host = s, *colon = NULL, *p;
	size_t hl = len, i;
	unsigned long port = 0;
	char lit[INET6_ADDRSTRLEN];
	struct sockaddr_in *a4 = (struct sockaddr_in *)(void *)&r->addr;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)(void *)&r->addr;

	if (len > 0 && s[0] == '[') {
		if ((p = memchr(s, ']', len)) == NULL)
			return -CORDON_E_PROTO;
		host = s + 1;
		hl = (size_t)(p - host);
		if ((size_t)(p + 1 - s) < len) {
			if (p[1] != ':')
				return -CORDON_E_PROTO;
			colon = p + 1;
		}
	} else {
		for (i = len; i > 0; i--)
			if (s[i - 1] == ':') {
				colon = s + i - 1;
				hl = i - 1;
				break;
			}
	}
	if (colon != NULL) {
		p = colon + 1;
		if (p == s + len || s + len - p > 5)
			return -CORDON_E_PROTO;
		for (; p < s + len; p++) {
			if (*p < '0' || *p > '9')
				return -CORDON_E_PROTO;
			port = port * 10 + (unsigned long)(*p - '0');
		}
	} else {
		port = def;
	}
	if (port == 0 || port > 65535 || hl == 0 || hl > 255)
		return -CORDON_E_PROTO;
	r->host = host;
	r->host_len = hl;
	r->port = (uint16_t)port;
	memset(&r->addr, 0, sizeof(r->addr));
	r->literal = false;
	if (hl < sizeof(lit)) {
		memcpy(lit, host, hl);
		lit[hl] = '\0';
		if (s[0] != '[' && inet_pton(AF_INET, lit, &a4->sin_addr) == 1) {
			a4->sin_family = AF_INET;
			a4->sin_port = htons(r->port);
			r->literal = true;
		} else if (s[0] == '[' &&
		    inet_pton(AF_INET6, lit, &a6->sin6_addr) == 1) {
			a6->sin6_family = AF_INET6;
			a6->sin6_port = htons(r->port);
			r->literal = true;
		} else if (s[0] == '[') {
			return -CORDON_E_PROTO;
		}
	}
	return 0;
}

static int
bad(struct cordon_proxy_req *r, const char *why, uint8_t rep)
{
	r->why = why;
	r->socks_rep = rep;
	return -CORDON_E_PROTO;
}

/* A token of the request line: visible ASCII, no space. */
static bool
visible(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
			return false;
	return n > 0;
}

int
cordon_proxy_parse_http(const char *buf, size_t len,
    struct cordon_proxy_req *r)
{
	const char *end = NULL, *sp1, *sp2, *auth, *slash;
	size_t i, n = len < CORDON_PROXY_HEAD_MAX ? len : CORDON_PROXY_HEAD_MAX;
	size_t line, alen;

	memset(r, 0, sizeof(*r));
	/* The blank line, within the first n bytes. */
	if ((end = memmem(buf, n, "\r\n\r\n", 4)) != NULL)
		end += 4;
	if (end == NULL)
		return n >= CORDON_PROXY_HEAD_MAX ?
		    bad(r, "request headers over 8 KiB", 0) : 0;
	r->head_len = (size_t)(end - buf);
	for (line = 0; buf[line] != '\r'; line++)
		;
	if (buf[line + 1] != '\n')
		return bad(r, "a bare CR in the request line", 0);
	r->line_end = line;
	if ((sp1 = memchr(buf, ' ', line)) == NULL ||
	    (sp2 = memchr(sp1 + 1, ' ', line - (size_t)(sp1 + 1 - buf))) ==
	    NULL || !visible(buf, (size_t)(sp1 - buf)) ||
	    !visible(sp1 + 1, (size_t)(sp2 - sp1 - 1)) ||
	    !visible(sp2 + 1, line - (size_t)(sp2 + 1 - buf)))
		return bad(r, "malformed request line", 0);
	if (line - (size_t)(sp2 + 1 - buf) != 8 ||
	    (memcmp(sp2 + 1, "HTTP/1.1", 8) != 0 &&
	    memcmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return bad(r, "not HTTP/1.0 or HTTP/1.1", 0);
	r->method_len = (size_t)(sp1 - buf);
	r->version_off = (size_t)(sp2 + 1 - buf);
	auth = sp1 + 1;
	alen = (size_t)(sp2 - auth);
	if (r->method_len == 7 && memcmp(buf, "CONNECT", 7) == 0) {
		r->proto = CORDON_PROXY_CONNECT;
		if (parse_authority(auth, alen, 0, r) < 0)
			return bad(r, "CONNECT needs host:port", 0);
		return 1;
	}
	r->proto = CORDON_PROXY_HTTP;
	if (alen < 7 || strncasecmp(auth, "http://", 7) != 0)
		return bad(r, "not an absolute http:// URI (https goes "
		    "through CONNECT)", 0);
	auth += 7;
	alen -= 7;
	for (i = 0; i < alen && auth[i] != '/' && auth[i] != '?'; i++)
		if (auth[i] == '@')
			return bad(r, "user information in the URI", 0);
	slash = auth + i;
	if (parse_authority(auth, i, 80, r) < 0)
		return bad(r, "malformed host in the URI", 0);
	r->path_off = (size_t)(slash - buf);
	r->path_len = (size_t)(sp2 - slash);
	return 1;
}

int
cordon_proxy_parse_socks_hello(const uint8_t *buf, size_t len, size_t *used)
{
	size_t i;

	*used = 0;
	if (len < 2)
		return len == 1 && buf[0] != 5 ? -CORDON_E_PROTO : 0;
	if (buf[0] != 5 || buf[1] == 0)
		return -CORDON_E_PROTO;
	if (len < 2U + buf[1])
		return 0;
	*used = 2U + buf[1];
	for (i = 0; i < buf[1]; i++)
		if (buf[2 + i] == 0)
			return 1;
	return -CORDON_E_PROTO; /* no method we speak */
}

int
cordon_proxy_parse_socks_req(const uint8_t *buf, size_t len,
    struct cordon_proxy_req *r)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)(void *)&r->addr;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)(void *)&r->addr;
	size_t need, alen;

	memset(r, 0, sizeof(*r));
	r->proto = CORDON_PROXY_SOCKS5;
	if (len < 5)
		return 0;
	if (buf[0] != 5 || buf[2] != 0)
		return bad(r, "malformed SOCKS5 request", 1);
	if (buf[1] != 1)
		return bad(r, "SOCKS5: only CONNECT is served", 7);
	switch (buf[3]) {
	case 1:
		alen = 4;
		need = 4 + 4 + 2;
		break;
	case 3:
		alen = buf[4];
		need = 4 + 1 + alen + 2;
		if (alen == 0)
			return bad(r, "SOCKS5: an empty host name", 1);
		break;
	case 4:
		alen = 16;
		need = 4 + 16 + 2;
		break;
	default:
		return bad(r, "SOCKS5: unknown address type", 8);
	}
	if (len < need)
		return 0;
	r->head_len = need;
	r->port = (uint16_t)(buf[need - 2] << 8 | buf[need - 1]);
	if (r->port == 0)
		return bad(r, "SOCKS5: port 0", 1);
	if (buf[3] == 3) {
		r->host = (const char *)buf + 5;
		r->host_len = alen;
		return 1;
	}
	r->literal = true;
	r->host = (const char *)buf + 4;
	r->host_len = alen;
	if (buf[3] == 1) {
		a4->sin_family = AF_INET;
		memcpy(&a4->sin_addr, buf + 4, 4);
		a4->sin_port = htons(r->port);
	} else {
		a6->sin6_family = AF_INET6;
		memcpy(&a6->sin6_addr, buf + 4, 16);
		a6->sin6_port = htons(r->port);
	}
	return 1;
}
