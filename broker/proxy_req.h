/*
 * proxy_req.h - the egress proxy's request parsers (egress.c), apart
 * from the proxy's life (proxy.h), so that only the files that parse
 * requests - egress.c, proxy.c, their tests and fuzz harness - need the
 * OS's socket header.
 */
#ifndef CORDON_BROKER_PROXY_REQ_H
#define CORDON_BROKER_PROXY_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The request bound (request line + headers) the parsers enforce. */
#define CORDON_PROXY_HEAD_MAX 8192U

enum cordon_proxy_proto {
	CORDON_PROXY_CONNECT = 1,  /* HTTP CONNECT host:port */
	CORDON_PROXY_HTTP,         /* plain HTTP, absolute http:// URI */
	CORDON_PROXY_SOCKS5,
};

/* One parsed request, pointing into the bytes it was parsed from. */
struct cordon_proxy_req {
	enum cordon_proxy_proto proto;
	const char *host;          /* as the client sent it, not terminated */
	size_t host_len;           /* 1-255 */
	bool literal;              /* the client asked for an IP address */
	struct sockaddr_storage addr; /* then: it, with the port */
	uint16_t port;
	size_t head_len;           /* bytes the request took */
	/* CORDON_PROXY_HTTP: "METHOD PATH VERSION" for the origin server. */
	size_t method_len, path_off, path_len, version_off, line_end;
	const char *why;           /* what was wrong, on an error */
	uint8_t socks_rep;         /* SOCKS5: the reply code for the error */
};

/*
 * The parsers: pure functions of the bytes received so far (the fuzz
 * harness calls them).  1: a complete request in *r; 0: more bytes
 * needed; -CORDON_E_PROTO: malformed (r->why says why).
 */
int cordon_proxy_parse_http(const char *buf, size_t len,
    struct cordon_proxy_req *r);
/* SOCKS5 greeting: 1 when "no authentication" is offered (*used bytes). */
int cordon_proxy_parse_socks_hello(const uint8_t *buf, size_t len,
    size_t *used);
int cordon_proxy_parse_socks_req(const uint8_t *buf, size_t len,
    struct cordon_proxy_req *r);

#endif
