/*
 * fuzz_proxy.c - what the payload sends the egress proxy (broker/egress.c:
 * cordon_proxy_parse_http, the SOCKS5 greeting and request) and the host
 * names in it (cordon_egress_name_normalize).
 *
 * The first byte picks the reader: 0 HTTP, 1 SOCKS5 (greeting, then the
 * request after what it used, as the proxy reads them), 2 a host name;
 * the rest is the bytes the client sent.  The input is copied to a buffer
 * of exactly its size, so a read past it is a sanitizer report.
 *
 * Properties, beyond "no crash, no sanitizer report":
 * - a complete request lies within the bytes given, and its host is a
 *   non-empty span of them of at most 255 bytes, its port non-zero;
 * - HTTP: a request is never longer than CORDON_PROXY_HEAD_MAX, its
 *   origin-form path lies inside the request line, and an error has a
 *   reason; a prefix of a complete request is never complete (the
 *   parser does not guess);
 * - a normalized name is lowercase ASCII letters, digits, '-', '_' and
 *   dots, never empty, never ends in a dot, at most 253 bytes, and
 *   normalizes to itself.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cordon.h"
#include "egress.h"
#include "proxy_req.h"
#include "fuzz.h"

static void
check_host(const struct cordon_proxy_req *r, const uint8_t *d, size_t n)
{
	FUZZ_CHECK(r->host_len >= 1 && r->host_len <= 255);
	FUZZ_CHECK((const uint8_t *)r->host >= d &&
	    (const uint8_t *)r->host + r->host_len <= d + n);
	FUZZ_CHECK(r->port != 0);
	FUZZ_CHECK(r->head_len <= n);
}

static void
http(const uint8_t *d, size_t n)
{
	struct cordon_proxy_req r, p;
	int rc = cordon_proxy_parse_http((const char *)d, n, &r);

	FUZZ_CHECK(rc == 1 || rc == 0 || rc == -CORDON_E_PROTO);
	if (rc < 0)
		FUZZ_CHECK(r.why != NULL);
	if (rc != 1)
		return;
	check_host(&r, d, n);
	FUZZ_CHECK(r.head_len <= CORDON_PROXY_HEAD_MAX);
	FUZZ_CHECK(r.proto == CORDON_PROXY_CONNECT ||
	    r.proto == CORDON_PROXY_HTTP);
	if (r.proto == CORDON_PROXY_HTTP)
		FUZZ_CHECK(r.path_off + r.path_len <= r.line_end &&
		    r.version_off < r.line_end);
	/* One byte short of the blank line: not complete. */
	FUZZ_CHECK(cordon_proxy_parse_http((const char *)d, r.head_len - 1,
	    &p) != 1);
}

static void
socks(const uint8_t *d, size_t n)
{
	struct cordon_proxy_req r;
	size_t used = 0;
	int rc = cordon_proxy_parse_socks_hello(d, n, &used);

	FUZZ_CHECK(rc == 1 || rc == 0 || rc == -CORDON_E_PROTO);
	FUZZ_CHECK(used <= n);
	if (rc != 1)
		return;
	rc = cordon_proxy_parse_socks_req(d + used, n - used, &r);
	FUZZ_CHECK(rc == 1 || rc == 0 || rc == -CORDON_E_PROTO);
	if (rc < 0)
		FUZZ_CHECK(r.why != NULL && r.socks_rep != 0);
	if (rc == 1)
		check_host(&r, d + used, n - used);
}

static void
name(const uint8_t *d, size_t n)
{
	char out[CORDON_EGRESS_NAME_MAX + 1], again[CORDON_EGRESS_NAME_MAX + 1];
	size_t i, len;

	if (cordon_egress_name_normalize((const char *)d, n, out) < 0)
		return;
	len = strlen(out);
	FUZZ_CHECK(len >= 1 && len <= CORDON_EGRESS_NAME_MAX);
	FUZZ_CHECK(out[len - 1] != '.');
	for (i = 0; i < len; i++)
		FUZZ_CHECK((out[i] >= 'a' && out[i] <= 'z') ||
		    (out[i] >= '0' && out[i] <= '9') || out[i] == '-' ||
		    out[i] == '_' || out[i] == '.');
	FUZZ_CHECK(cordon_egress_name_normalize(out, len, again) == 0 &&
	    strcmp(out, again) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *d;
	size_t n;

	if (size < 1)
		return 0;
	n = size - 1;
	/* Exactly n bytes (1 for n = 0): a read past them is reported. */
	if ((d = malloc(n != 0 ? n : 1)) == NULL)
		return 0;
	memcpy(d, data + 1, n);
	switch (data[0] % 3) {
	case 0:
		http(d, n);
		break;
	case 1:
		socks(d, n);
		break;
	default:
		name(d, n);
		break;
	}
	free(d);
	return 0;
}
