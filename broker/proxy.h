/*
 * proxy.h - the egress proxy the broker runs for a run with an allow-list
 * (--allow-host): HTTP CONNECT, plain HTTP with absolute URIs and SOCKS5
 * on one listener, the one the run's init made inside the sandbox's net
 * namespace (helper/ns.c egress_listener) and the helper passed on.
 */
#ifndef CORDON_BROKER_PROXY_H
#define CORDON_BROKER_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "egress.h"

/* Bounds (a hostile client inside must not exhaust the broker). */
#define CORDON_PROXY_MAX_CONNS 64
#define CORDON_PROXY_HEAD_MAX 8192U    /* request line + headers */
#define CORDON_PROXY_HEAD_MS 10000     /* to send a complete request */
#define CORDON_PROXY_IDLE_MS 300000    /* a relay with no bytes moving */
#define CORDON_PROXY_MAX_EVENTS 1000   /* trace rows per run, then a count */

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

struct cordon_proxy;
struct cordon_config;
struct cordon_result;
struct cordon_trace;

/*
 * A proxy for cfg's allow-list (NULL in *out when it has none); no
 * thread, no socket until cordon_proxy_attach.
 */
int cordon_proxy_new(const struct cordon_config *cfg,
    struct cordon_proxy **out);
/*
 * The helper's EGRESS: takes listen_fd (closed on any error) and starts
 * the proxy's thread.  -CORDON_E_PROTO if no allow-list was asked for or
 * one is already attached.
 */
int cordon_proxy_attach(struct cordon_proxy *px, int listen_fd);
/*
 * The run is over: stops and joins the thread, closes every socket,
 * says in r what was applied and counted, writes one trace event per
 * connection (t may be NULL) and frees px.  NULL px: nothing to do.
 */
void cordon_proxy_end(struct cordon_proxy *px, struct cordon_trace *t,
    struct cordon_result *r);
/* The payload's proxy variables, NULL-terminated. */
#define CORDON_PROXY_NENV 8
extern const char *const cordon_proxy_env[CORDON_PROXY_NENV + 1];

#endif
