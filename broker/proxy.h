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

#include "egress.h"

/* Bounds (a hostile client inside must not exhaust the broker). */
#define CORDON_PROXY_MAX_CONNS 64
#define CORDON_PROXY_HEAD_MS 10000     /* to send a complete request */
#define CORDON_PROXY_IDLE_MS 300000    /* a relay with no bytes moving */
#define CORDON_PROXY_RESOLVERS 4       /* name lookups running at once */
#define CORDON_PROXY_RESOLVE_MS 10000  /* for a name's answer */
#define CORDON_PROXY_MAX_EVENTS 1000   /* trace rows per run, then a count */

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
/* cfg's allow-list, if it has one, into the record r (and its trace row). */
int cordon_proxy_record(const struct cordon_config *cfg,
    struct cordon_result *r);
/* The payload's proxy variables, NULL-terminated. */
#define CORDON_PROXY_NENV 8
extern const char *const cordon_proxy_env[CORDON_PROXY_NENV + 1];

#endif
