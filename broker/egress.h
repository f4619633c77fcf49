/*
 * egress.h - the egress allow-list (--allow-host): patterns, matching,
 * the address ranges a name may not resolve to (egress.c), and the proxy
 * the broker runs for a run that has one (proxy.c).
 */
#ifndef CORDON_BROKER_EGRESS_H
#define CORDON_BROKER_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Only pointers to these here: proxy.h and egress.c include the OS's
 * socket header, which the Windows build (it has no egress) lacks.
 */
struct sockaddr;
struct sockaddr_storage;

/* Patterns per run, and the longest DNS name (without the trailing dot). */
#define CORDON_EGRESS_MAX_PATTERNS 256U
#define CORDON_EGRESS_NAME_MAX 253U

enum cordon_egress_kind {
	CORDON_EGRESS_NAME,    /* host: exactly that name */
	CORDON_EGRESS_SUFFIX,  /* *.suffix: any name strictly below suffix */
	CORDON_EGRESS_ADDR,    /* an IP literal or CIDR */
};

struct cordon_egress_pattern {
	enum cordon_egress_kind kind;
	char name[CORDON_EGRESS_NAME_MAX + 1]; /* NAME, SUFFIX: lowercase */
	int family;            /* ADDR: AF_INET or AF_INET6 */
	uint8_t addr[16];      /* ADDR: network order, host bits zero */
	unsigned prefix;       /* ADDR: bits that must match */
	uint16_t port;         /* 0: any port */
};

/*
 * Parses one --allow-host PATTERN: "host", "host:port", "*.suffix[:port]",
 * "IPv4[:port]", "[IPv6]:port", "IPv6", "ADDR/BITS".  Host names are
 * ASCII (IDN as punycode), case-folded, one trailing dot dropped.
 * -CORDON_E_INVAL with err naming what is wrong.
 */
int cordon_egress_pattern_parse(const char *text,
    struct cordon_egress_pattern *p, char *err, size_t errsz);

/*
 * A host name as a client sent it (len bytes, not NUL-terminated) made
 * comparable: lowercase, one trailing dot dropped, letters, digits, '-'
 * and '_' in labels of 1-63 bytes, at most CORDON_EGRESS_NAME_MAX in all.
 * -CORDON_E_INVAL for anything else (a non-ASCII byte: IDN must come as
 * punycode).
 */
int cordon_egress_name_normalize(const char *in, size_t len,
    char out[CORDON_EGRESS_NAME_MAX + 1]);

/* Whether normalized name host, port port, matches a NAME or SUFFIX. */
bool cordon_egress_name_allowed(const struct cordon_egress_pattern *p,
    size_t n, const char *host, uint16_t port);
/*
 * Whether ceiling admits everything pattern p does (the system policy's
 * allow_hosts_max): a name under a name or suffix, a suffix under a
 * suffix, a network inside a network, the port the same or unlimited.
 */
bool cordon_egress_covers(const struct cordon_egress_pattern *ceiling,
    const struct cordon_egress_pattern *p);
/*
 * The ceiling list text ("a, *.b, 10.0.0.0/8") split and parsed into
 * out (max entries); -CORDON_E_INVAL with err naming a bad entry.
 */
int cordon_egress_list_parse(const char *text,
    struct cordon_egress_pattern *out, size_t max, size_t *n, char *err,
    size_t errsz);
/*
 * A run's patterns as one text, "a, *.b, 10.0.0.0/8" (the trace's
 * runs.allow_hosts; the list syntax of allow_hosts_max), in *out to
 * free, and back.  Split: a pattern never holds ',' or a space (the
 * parser refuses both), so the text splits exactly.
 */
int cordon_egress_list_join(char *const *pats, size_t n, char **out);
int cordon_egress_list_split(const char *text, char ***out, size_t *n);
struct cordon_policy;
/*
 * The system policy's allow_hosts_max parsed into out (max entries), each
 * pattern as --allow-host would be; -CORDON_E_POLICY with err naming the
 * file, the line and the bad pattern (cordon policy check and the gate).
 */
int cordon_egress_ceiling_parse(const struct cordon_policy *pol,
    struct cordon_egress_pattern *out, size_t max, size_t *n, char *err,
    size_t errsz);
/* Whether address sa (port included) lies in an ADDR pattern. */
bool cordon_egress_addr_allowed(const struct cordon_egress_pattern *p,
    size_t n, const struct sockaddr *sa);
/*
 * The special range sa lies in ("loopback", "private", "link-local",
 * "CGNAT", "multicast", "unspecified", "unique-local", "reserved"), the
 * embedded IPv4 address of a mapped or NAT64 form classified as itself;
 * NULL for an ordinary public address.
 */
const char *cordon_egress_addr_special(const struct sockaddr *sa);

/*
 * The addresses of host, at most max of them, with port set: through
 * getaddrinfo, or - when CORDON_TEST_HOSTS names a hosts(5)-format file
 * and the broker is not AT_SECURE (a test hook a setuid or setgid caller
 * cannot set) - from that file alone.  0, or -CORDON_E_NOTFOUND; or,
 * from the test file only, CORDON_EGRESS_HANG for a name on a "hang"
 * line (the caller then stalls as for a DNS server that never answers).
 * Blocks as long as getaddrinfo does: the proxy calls it from its
 * resolver threads, never from the thread that relays.
 */
#define CORDON_EGRESS_HANG 1
int cordon_egress_resolve(const char *host, uint16_t port,
    struct sockaddr_storage *out, size_t max, size_t *n);

/* An address as text ("1.2.3.4", "::1"), port not included. */
void cordon_egress_addr_text(const struct sockaddr *sa, char *buf,
    size_t bufsz);

/* Whether a test hook (an environment variable) may be read here. */
bool cordon_egress_test_hooks(void);

#endif
