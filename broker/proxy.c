/*
 * proxy.c - the egress proxy of a run with an allow-list (--allow-host).
 *
 * The bridge: the run's init makes a listener on 127.0.0.1:3128 inside
 * the sandbox's own net namespace (loopback only), the helper forwards it
 * unread (EGRESS, wire.h), and run.c hands it here.  One thread of the
 * broker, unprivileged, accepts the payload's connections on it, reads a
 * request - HTTP CONNECT, plain HTTP with an absolute http:// URI, or
 * SOCKS5 (first byte 0x05, no authentication, CONNECT) - decides by the
 * allow-list (egress.c), and opens the outbound connection itself in the
 * host's namespace, with the invoker's rights.  The payload never gets a
 * route: what it can do is send bytes to this thread.
 *
 * Why it is safe to parse here: this is the unprivileged broker, never
 * cordon-helper.  Every read is bounded (CORDON_PROXY_HEAD_MAX for a
 * request, fixed-size relay buffers), connections are capped
 * (CORDON_PROXY_MAX_CONNS: at the cap the oldest connection still
 * without a complete request is shed, so a flood of half-open
 * connections cannot keep a valid one out), a request must be complete
 * within CORDON_PROXY_HEAD_MS and a relay that moves nothing for
 * CORDON_PROXY_IDLE_MS is closed, and trace events are capped per run
 * (then counted).  The thread is not the broker's main loop, which keeps
 * following the helper whatever happens here; it blocks every signal,
 * and is stopped (a pipe), joined and its sockets closed on every end of
 * the run (cordon_proxy_end).
 *
 * Names are resolved off this thread: getaddrinfo blocks, and one slow
 * name must not stall the run's other connections.  A small pool of
 * resolver threads (at most CORDON_PROXY_RESOLVERS, started as work
 * comes) takes the lookups from a queue; each connection has at most one
 * lookup queued or running, so the queue is bounded by the connection
 * cap, and a lookup has CORDON_PROXY_RESOLVE_MS to answer before its
 * connection is failed (504) and its slot freed.  A resolver thread
 * touches nothing of a connection: it writes the answer into its own job
 * and wakes this thread through a pipe; a job whose connection has
 * meanwhile gone (matched by slot and generation) is dropped unread.  At
 * the end, idle resolvers are joined; one still inside getaddrinfo (it
 * cannot be interrupted) is detached and frees its job and, if last, the
 * pool when the lookup returns - the run does not wait for DNS.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "proxy.h"
#include "proxy_req.h"
#include "trace.h"

/* The proxy's own bytes: its answer, a request line, early data. */
#define RELAY_BUF (CORDON_PROXY_HEAD_MAX + 1024)
#define PUMP_ROUNDS 8
/* refuse()'s SOCKS5 code for a greeting with no method we speak. */
#define NO_METHOD 0xff
#define PIPE_CHUNK (1U << 20)
#define MAX_ADDRS 8
/* proxy_main's first pollfds: the stop pipe, the listener, the resolvers. */
#define NFIXED 3

const char *const cordon_proxy_env[CORDON_PROXY_NENV + 1] = {
	"http_proxy=http://127.0.0.1:3128",
	"https_proxy=http://127.0.0.1:3128",
	"HTTP_PROXY=http://127.0.0.1:3128",
	"HTTPS_PROXY=http://127.0.0.1:3128",
	"ALL_PROXY=socks5h://127.0.0.1:3128",
	"all_proxy=socks5h://127.0.0.1:3128",
	"no_proxy=localhost,127.0.0.1",
	"NO_PROXY=localhost,127.0.0.1",
	NULL,
};

/* ---- the proxy ---- */

enum conn_state {
	C_FREE, C_HEAD, C_SOCKS, C_RESOLVING, C_CONNECTING, C_RELAY
};

/* One name to resolve, owned by the pool until the proxy takes it back. */
struct rjob {
	struct rjob *next;
	int slot;            /* the connection that asked, */
	uint64_t gen;        /* and which one it was in that slot */
	char host[CORDON_EGRESS_NAME_MAX + 1];
	uint16_t port;
	int r;               /* cordon_egress_resolve's answer */
	struct sockaddr_storage addrs[MAX_ADDRS];
	size_t n;
};

/*
 * The resolver threads' shared state: refs is one for the proxy and one
 * per live thread; whoever drops the last frees it (a detached thread
 * may outlive the proxy, see above).
 */
struct resolvers {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rjob *queue, **qtail;  /* to resolve, oldest first */
	struct rjob *done;            /* answered, for the proxy */
	bool closing;
	int notify;                   /* the proxy's pipe (write end) */
	int refs, nthreads, idle, nqueued;
	struct resolver {
		struct resolvers *rs;
		pthread_t tid;
		bool in_lookup;       /* inside getaddrinfo: cannot be joined */
	} w[CORDON_PROXY_RESOLVERS];
	int hang_ms;                  /* the test resolver's "hang" */
};

struct conn {
	enum conn_state st;
	int cfd, ufd;
	uint8_t head[CORDON_PROXY_HEAD_MAX];
	size_t hlen;
	struct cordon_proxy_req req;
	struct sockaddr_storage addrs[MAX_ADDRS];
	size_t naddrs, ai;
	uint8_t *buf[2];     /* [0] client -> upstream, [1] back */
	size_t len[2], off[2];
	int pipe[2][2];      /* per direction, for splice(2) */
	size_t inpipe[2];    /* bytes in it */
	bool eof[2];
	uint64_t bytes[2];
	size_t ours;         /* of bytes[1], our own answer (200, SOCKS) */
	int64_t deadline, born;
	int idle_ms;         /* a relay's time without a byte moving */
	uint64_t gen;        /* which connection this slot holds */
	char host[CORDON_EGRESS_NAME_MAX + 1];
	char addr[INET6_ADDRSTRLEN];
	const char *proto;
};

struct cordon_proxy {
	struct cordon_egress_pattern *pats;
	size_t npats;
	int listen_fd, wake[2];
	bool running;
	pthread_t thread;
	int head_ms, resolve_ms, idle_ms;
	uint64_t gens;       /* connections accepted so far */
	struct resolvers *res;
	int resolved[2];     /* the resolvers' wake-up pipe */
	struct conn *conns;
	pthread_mutex_t mu;  /* the events and counts below */
	struct cordon_trace_event *ev;
	size_t nev;
	uint64_t allowed, denied, failed, dropped, unlisted;
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
event(struct cordon_proxy *px, uint64_t *count, const char *fmt, ...)
    __attribute__((format(CORDON_PRINTF, 3, 4)));

/* Counts one connection and, within the cap, records it. */
static void
event(struct cordon_proxy *px, uint64_t *count, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	pthread_mutex_lock(&px->mu);
	(*count)++;
	if (px->nev >= CORDON_PROXY_MAX_EVENTS) {
		px->unlisted++;
	} else {
		va_start(ap, fmt);
		if (vasprintf(&s, fmt, ap) < 0)
			s = NULL;
		va_end(ap);
		if (s != NULL) {
			px->ev[px->nev].ts_ms = cordon_now_ms();
			px->ev[px->nev].kind = "egress";
			px->ev[px->nev].detail = s;
			px->nev++;
		}
	}
	pthread_mutex_unlock(&px->mu);
}

/* A free slot: every fd -1. */
static void
conn_reset(struct conn *c)
{
	memset(c, 0, sizeof(*c));
	c->st = C_FREE;
	c->cfd = c->ufd = -1;
	c->pipe[0][0] = c->pipe[0][1] = c->pipe[1][0] = c->pipe[1][1] = -1;
}

static void
conn_close(struct conn *c)
{
	int i;

	if (c->cfd >= 0)
		close(c->cfd);
	if (c->ufd >= 0)
		close(c->ufd);
	for (i = 0; i < 4; i++)
		if (c->pipe[i / 2][i % 2] >= 0)
			close(c->pipe[i / 2][i % 2]);
	free(c->buf[0]);
	free(c->buf[1]);
	conn_reset(c);
}

/* ---- the resolver threads ---- */

/* Drops one reference, the lock held; frees the pool if it was the last. */
static void
res_unref(struct resolvers *rs)
{
	bool last = --rs->refs == 0;
	struct rjob *j;

	pthread_mutex_unlock(&rs->mu);
	if (!last)
		return;
	while ((j = rs->queue) != NULL) {
		rs->queue = j->next;
		free(j);
	}
	while ((j = rs->done) != NULL) {
		rs->done = j->next;
		free(j);
	}
	pthread_cond_destroy(&rs->cv);
	pthread_mutex_destroy(&rs->mu);
	free(rs);
}

/*
 * The test resolver's "hang": waits as a lookup that never answers
 * would, but wakes when the proxy ends (so the end is not held up).
 */
static void
res_hang(struct resolvers *rs)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += rs->hang_ms / 1000;
	until.tv_nsec += (long)(rs->hang_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (!rs->closing &&
	    pthread_cond_timedwait(&rs->cv, &rs->mu, &until) == 0)
		;
}

static void *
res_main(void *arg)
{
	struct resolver *me = arg;
	struct resolvers *rs = me->rs;
	struct rjob *j;
	int r;

	pthread_mutex_lock(&rs->mu);
	for (;;) {
		while (!rs->closing && rs->queue == NULL) {
			rs->idle++;
			pthread_cond_wait(&rs->cv, &rs->mu);
			rs->idle--;
		}
		if (rs->closing)
			break;
		j = rs->queue;
		if ((rs->queue = j->next) == NULL)
			rs->qtail = &rs->queue;
		rs->nqueued--;
		me->in_lookup = true;
		pthread_mutex_unlock(&rs->mu);
		r = cordon_egress_resolve(j->host, j->port, j->addrs, MAX_ADDRS,
		    &j->n);
		pthread_mutex_lock(&rs->mu);
		me->in_lookup = false;
		if (r == CORDON_EGRESS_HANG) {
			res_hang(rs);
			r = -CORDON_E_NOTFOUND;
		}
		j->r = r;
		if (rs->closing) {
			free(j);
			break;
		}
		j->next = rs->done;
		rs->done = j;
		(void)!write(rs->notify, "r", 1);
	}
	res_unref(rs); /* unlocks */
	return NULL;
}

/* A queued lookup whose connection is gone: dropped before it runs. */
static void
res_cancel(struct cordon_proxy *px, int slot, uint64_t gen)
{
	struct resolvers *rs = px->res;
	struct rjob **pp, *j;

	pthread_mutex_lock(&rs->mu);
	for (pp = &rs->queue; (j = *pp) != NULL; pp = &j->next)
		if (j->slot == slot && j->gen == gen) {
			*pp = j->next;
			if (*pp == NULL)
				rs->qtail = pp;
			rs->nqueued--;
			free(j);
			break;
		}
	pthread_mutex_unlock(&rs->mu);
}

/*
 * Queues c's name; a thread is started if fewer are idle than names
 * wait, and there are fewer than CORDON_PROXY_RESOLVERS.  False if out of memory.
 */
static bool
res_submit(struct cordon_proxy *px, struct conn *c, int slot)
{
	struct resolvers *rs = px->res;
	struct resolver *w;
	sigset_t all, old;
	struct rjob *j;
	bool ok = true;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		return false;
	j->slot = slot;
	j->gen = c->gen;
	j->port = c->req.port;
	memcpy(j->host, c->host, sizeof(j->host));
	pthread_mutex_lock(&rs->mu);
	*rs->qtail = j;
	rs->qtail = &j->next;
	/*
	 * More queued than idle threads to take them (a thread signalled but
	 * not yet awake still counts as idle): one more thread, so a name
	 * queued behind a hung lookup is not left to wait for it.
	 */
	if (++rs->nqueued > rs->idle && rs->nthreads < CORDON_PROXY_RESOLVERS) {
		/* Signals stay the caller's: the thread takes none. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		w = &rs->w[rs->nthreads++];
		w->rs = rs;
		w->in_lookup = false;
		rs->refs++;
		if (pthread_create(&w->tid, NULL, res_main, w) != 0) {
			rs->nthreads--;
			rs->refs--;
			/* Another thread may still take it; else it times out. */
			ok = rs->nthreads > 0;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_cond_signal(&rs->cv);
	pthread_mutex_unlock(&rs->mu);
	if (!ok)
		res_cancel(px, slot, c->gen);
	return ok;
}

/* The answered lookups, oldest first, taken from the pool. */
static struct rjob *
res_take(struct cordon_proxy *px)
{
	struct rjob *j, *rev = NULL, *next;
	char drain[64];

	while (read(px->resolved[0], drain, sizeof(drain)) > 0)
		;
	pthread_mutex_lock(&px->res->mu);
	j = px->res->done;
	px->res->done = NULL;
	pthread_mutex_unlock(&px->res->mu);
	for (; j != NULL; j = next) {
		next = j->next;
		j->next = rev;
		rev = j;
	}
	return rev;
}

/*
 * The end: idle threads are told to go and joined; a thread inside
 * getaddrinfo is detached and lets go of the pool when it returns.
 */
static void
res_end(struct resolvers *rs)
{
	pthread_t join[CORDON_PROXY_RESOLVERS];
	int i, n = 0;

	if (rs == NULL)
		return;
	pthread_mutex_lock(&rs->mu);
	rs->closing = true;
	pthread_cond_broadcast(&rs->cv);
	for (i = 0; i < rs->nthreads; i++)
		if (rs->w[i].in_lookup)
			pthread_detach(rs->w[i].tid);
		else
			join[n++] = rs->w[i].tid;
	res_unref(rs); /* unlocks; rs may be gone from here */
	for (i = 0; i < n; i++)
		pthread_join(join[i], NULL);
}

/* A short answer to the client, best effort: it is closed right after. */
static void
say(int fd, const void *s, size_t n)
{
	(void)!send(fd, s, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void
refuse(struct cordon_proxy *px, struct conn *c, int code, uint8_t rep,
    const char *why)
{
	char msg[512];
	uint8_t sr[10] = { 5, rep, 0, 1 };
	int n;

	if (c->req.proto == CORDON_PROXY_SOCKS5 && rep == NO_METHOD) {
		say(c->cfd, "\x05\xff", 2); /* the greeting's answer */
	} else if (c->req.proto == CORDON_PROXY_SOCKS5) {
		say(c->cfd, sr, sizeof(sr));
	} else {
		n = snprintf(msg, sizeof(msg), "HTTP/1.1 %d %s\r\n"
		    "Content-Type: text/plain\r\nConnection: close\r\n\r\n"
		    "cordon: %s: %s\n", code, code == 403 ? "Forbidden" :
		    code == 502 ? "Bad Gateway" : "Bad Request",
		    c->host[0] != '\0' ? c->host : "request", why);
		if (n > 0)
			say(c->cfd, msg, (size_t)n < sizeof(msg) ? (size_t)n :
			    sizeof(msg) - 1);
	}
	event(px, &px->denied, "verdict=denied proto=%s host=%s port=%u "
	    "address=- up=0 down=0 reason=%s", c->proto,
	    c->host[0] != '\0' ? c->host : "-", (unsigned)c->req.port, why);
	conn_close(c);
}

/*
 * The verdict on a parsed request by what it names: NULL when it may go
 * on (an address asked for literally is then in c->addrs; a name must
 * still be resolved), else why it is refused.
 */
static const char *
decide(struct cordon_proxy *px, struct conn *c)
{
	const struct sockaddr *sa;

	c->naddrs = 0;
	if (c->req.literal) {
		sa = (const struct sockaddr *)&c->req.addr;
		cordon_egress_addr_text(sa, c->host, sizeof(c->host));
		if (!cordon_egress_addr_allowed(px->pats, px->npats, sa))
			return "the address is not on the allow list";
		c->addrs[0] = c->req.addr;
		c->naddrs = 1;
		return NULL;
	}
	if (cordon_egress_name_normalize(c->req.host, c->req.host_len,
	    c->host) < 0) {
		c->host[0] = '\0';
		return "not an ASCII host name (an IDN must come as punycode)";
	}
	if (!cordon_egress_name_allowed(px->pats, px->npats, c->host,
	    c->req.port))
		return "not on the allow list";
	return NULL;
}

/*
 * An allowed name's answers: those it may use go to c->addrs; NULL, or
 * why none may (every one in a special range not allowed literally).
 */
static const char *
answers(struct cordon_proxy *px, struct conn *c,
    const struct sockaddr_storage *got, size_t n, char *why, size_t whysz)
{
	const struct sockaddr *sa;
	const char *range = NULL;
	char text[INET6_ADDRSTRLEN] = "";
	size_t i;

	c->naddrs = 0;
	for (i = 0; i < n && i < MAX_ADDRS; i++) {
		sa = (const struct sockaddr *)&got[i];
		if (cordon_egress_addr_special(sa) != NULL &&
		    !cordon_egress_addr_allowed(px->pats, px->npats, sa)) {
			if (range == NULL) {
				range = cordon_egress_addr_special(sa);
				cordon_egress_addr_text(sa, text, sizeof(text));
			}
			continue;
		}
		c->addrs[c->naddrs++] = got[i];
	}
	if (c->naddrs == 0 && range == NULL)
		return "resolves to no address";
	if (c->naddrs == 0) {
		(void)snprintf(why, whysz, "resolves to %s, a %s address not "
		    "allowed literally", text, range);
		return why;
	}
	return NULL;
}

/* Starts a connection to the next address; false when none is left. */
static bool
connect_next(struct conn *c)
{
	const struct sockaddr *sa;

	while (c->ai < c->naddrs) {
		sa = (const struct sockaddr *)&c->addrs[c->ai++];
		if (c->ufd >= 0)
			close(c->ufd);
		cordon_egress_addr_text(sa, c->addr, sizeof(c->addr));
		c->ufd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (c->ufd < 0)
			continue;
		if (connect(c->ufd, sa, sa->sa_family == AF_INET ?
		    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)) ==
		    0 || errno == EINPROGRESS)
			return true;
	}
	return false;
}

/* Queues n bytes for direction d (they fit: a request is <= 8 KiB). */
static void
queue(struct conn *c, int d, const void *p, size_t n)
{
	memcpy(c->buf[d] + c->len[d], p, n);
	c->len[d] += n;
}

/* The connection's addresses are known and allowed: connect. */
static void
start_connect(struct cordon_proxy *px, struct conn *c)
{
	if ((c->buf[0] = malloc(RELAY_BUF)) == NULL ||
	    (c->buf[1] = malloc(RELAY_BUF)) == NULL ||
	    pipe2(c->pipe[0], O_CLOEXEC | O_NONBLOCK) < 0 ||
	    pipe2(c->pipe[1], O_CLOEXEC | O_NONBLOCK) < 0 || !connect_next(c)) {
		refuse(px, c, 502, 4, "cannot connect");
		return;
	}
	/* Larger pipes, fewer rounds (best effort: pipe-max-size bounds it). */
	(void)fcntl(c->pipe[0][1], F_SETPIPE_SZ, (int)PIPE_CHUNK);
	(void)fcntl(c->pipe[1][1], F_SETPIPE_SZ, (int)PIPE_CHUNK);
	c->st = C_CONNECTING;
	c->deadline = now_ms() + px->head_ms;
}

/*
 * No address to try: the name did not resolve in time or at all.  An
 * upstream failure, not a refusal by the list.
 */
static void
name_failed(struct cordon_proxy *px, struct conn *c, bool timeout)
{
	static const char gw_timeout[] = "HTTP/1.1 504 Gateway Timeout\r\n"
	    "Connection: close\r\n\r\n";
	static const char bad_gw[] = "HTTP/1.1 502 Bad Gateway\r\n"
	    "Connection: close\r\n\r\n";
	static const uint8_t sunreach[10] = { 5, 4, 0, 1 };

	event(px, &px->failed, "verdict=failed proto=%s host=%s port=%u "
	    "address=- up=0 down=0 reason=%s", c->proto, c->host,
	    (unsigned)c->req.port, timeout ? "no answer from the resolver in "
	    "time" : "the name does not resolve");
	if (c->req.proto == CORDON_PROXY_SOCKS5)
		say(c->cfd, sunreach, sizeof(sunreach));
	else if (timeout)
		say(c->cfd, gw_timeout, sizeof(gw_timeout) - 1);
	else
		say(c->cfd, bad_gw, sizeof(bad_gw) - 1);
	conn_close(c);
}

/* The request was complete and parsed: decide, then resolve or connect. */
static void
on_request(struct cordon_proxy *px, struct conn *c)
{
	const char *no;

	if ((no = decide(px, c)) != NULL) {
		refuse(px, c, 403, 2, no);
		return;
	}
	if (c->req.literal) {
		start_connect(px, c);
		return;
	}
	if (!res_submit(px, c, (int)(c - px->conns))) {
		refuse(px, c, 502, 4, "out of memory");
		return;
	}
	c->st = C_RESOLVING;
	c->deadline = now_ms() + px->resolve_ms;
}

/* Answers from the resolver threads, for connections still waiting. */
static void
on_resolved(struct cordon_proxy *px)
{
	struct rjob *j, *next;
	struct conn *c;
	const char *no;
	char why[256];

	for (j = res_take(px); j != NULL; j = next) {
		next = j->next;
		c = &px->conns[j->slot];
		if (c->st != C_RESOLVING || c->gen != j->gen) {
			free(j); /* its connection timed out or went */
			continue;
		}
		if (j->r < 0)
			name_failed(px, c, false);
		else if ((no = answers(px, c, j->addrs, j->n, why,
		    sizeof(why))) != NULL)
			refuse(px, c, 403, 2, no);
		else
			start_connect(px, c);
		free(j);
	}
}

/* Whether a header line (name: value) is one of the hop-by-hop names. */
static bool
hop_header(const char *line, size_t n)
{
	static const char *const names[] = { "connection", "keep-alive",
	    "proxy-connection" };
	size_t i, k;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		k = strlen(names[i]);
		if (n > k && line[k] == ':' && strncasecmp(line, names[i], k) == 0)
			return true;
	}
	return false;
}

/*
 * A plain HTTP request's headers, as sent but for Connection, Keep-Alive
 * and Proxy-Connection (and their folded continuation lines), then
 * "Connection: close": one request per connection.  The host was checked
 * for the first request only; a second one on a kept-alive connection
 * could name another site served at the same address (a CDN's), so the
 * server is told to close after the first and to read nothing more.
 */
static void
queue_headers(struct conn *c, const char *h, size_t n)
{
	static const char close_[] = "Connection: close\r\n\r\n";
	const char *end = h + n, *eol;
	bool drop = false;

	while (h < end) {
		/* A bare LF ends a line too, for servers that take it so. */
		eol = memchr(h, '\n', (size_t)(end - h));
		eol = eol != NULL ? eol + 1 : end;
		if (h[0] != ' ' && h[0] != '\t')
			drop = hop_header(h, (size_t)(eol - h));
		if (!drop)
			queue(c, 0, h, (size_t)(eol - h));
		h = eol;
	}
	queue(c, 0, close_, sizeof(close_) - 1);
}

/* Connected upstream: the client's answer, what is already read, relay. */
static void
on_connected(struct conn *c)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	static const uint8_t sok[10] = { 5, 0, 0, 1 };
	const char *h = (const char *)c->head;
	size_t rest = c->hlen - c->req.head_len;

	switch (c->req.proto) {
	case CORDON_PROXY_CONNECT:
		queue(c, 1, ok, sizeof(ok) - 1);
		c->ours = sizeof(ok) - 1;
		break;
	case CORDON_PROXY_SOCKS5:
		queue(c, 1, sok, sizeof(sok));
		c->ours = sizeof(sok);
		break;
	case CORDON_PROXY_HTTP:
		/* Origin form: "METHOD /path VERSION", the rest as sent. */
		queue(c, 0, h, c->req.method_len + 1);
		if (c->req.path_len == 0)
			queue(c, 0, "/", 1);
		queue(c, 0, h + c->req.path_off, c->req.path_len);
		queue(c, 0, " ", 1);
		queue(c, 0, h + c->req.version_off, c->req.line_end + 2 -
		    c->req.version_off);
		/* The headers between the request line and the blank line. */
		queue_headers(c, h + c->req.line_end + 2, c->req.head_len -
		    c->req.line_end - 4);
		break;
	}
	queue(c, 0, c->head + c->req.head_len, rest);
	c->st = C_RELAY;
}

/* A relay is over (why: NULL when one side closed or failed). */
static void
end_relay(struct cordon_proxy *px, struct conn *c, const char *why)
{
	event(px, &px->allowed, "verdict=allowed proto=%s host=%s port=%u "
	    "address=%s up=%llu down=%llu reason=%s", c->proto, c->host,
	    (unsigned)c->req.port, c->addr, (unsigned long long)c->bytes[0],
	    (unsigned long long)(c->bytes[1] > c->ours ? c->bytes[1] - c->ours :
	    0), why != NULL ? why : "-");
	conn_close(c);
}

/* Reads request bytes; parses when there may be a whole request. */
static void
on_head(struct cordon_proxy *px, struct conn *c)
{
	ssize_t n;
	size_t used = 0;
	int r;

	n = recv(c->cfd, c->head + c->hlen, sizeof(c->head) - c->hlen,
	    MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* Gone before a whole request: counted, not listed. */
		pthread_mutex_lock(&px->mu);
		px->dropped++;
		pthread_mutex_unlock(&px->mu);
		conn_close(c);
		return;
	}
	c->hlen += (size_t)n;
	if (c->st == C_HEAD && c->head[0] == 5) {
		c->proto = "socks5";
		c->req.proto = CORDON_PROXY_SOCKS5;
		r = cordon_proxy_parse_socks_hello(c->head, c->hlen, &used);
		if (r < 0) {
			refuse(px, c, 400, NO_METHOD, "SOCKS5 without a method we "
			    "speak (no authentication)");
			return;
		}
		if (r == 0)
			return;
		say(c->cfd, "\x05\x00", 2);
		memmove(c->head, c->head + used, c->hlen - used);
		c->hlen -= used;
		c->st = C_SOCKS;
	}
	if (c->st == C_SOCKS)
		r = cordon_proxy_parse_socks_req(c->head, c->hlen, &c->req);
	else
		r = cordon_proxy_parse_http((const char *)c->head, c->hlen,
		    &c->req);
	if (c->st == C_HEAD)
		c->proto = c->req.proto == CORDON_PROXY_CONNECT ? "connect" :
		    "http";
	if (r < 0)
		refuse(px, c, 400, c->req.socks_rep, c->req.why);
	else if (r > 0)
		on_request(px, c);
	else if (c->hlen == sizeof(c->head))
		refuse(px, c, 400, 1, "request over 8 KiB");
}

/*
 * What the proxy queued itself in direction d (its answer, a rewritten
 * request line, bytes that came with the request) goes first, from
 * c->buf[d].  False when the connection is broken.
 */
static bool
send_queued(struct conn *c, int d, int dst, int64_t now)
{
	ssize_t n;

	while (c->len[d] > 0) {
		n = send(dst, c->buf[d] + c->off[d], c->len[d], MSG_NOSIGNAL |
		    MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->off[d] += (size_t)n;
		c->len[d] -= (size_t)n;
		c->bytes[d] += (uint64_t)n;
		c->deadline = now + c->idle_ms;
	}
	return true;
}

/*
 * Moves bytes in direction d as far as the sockets let it: socket to
 * pipe to socket with splice(2), so the payload's bytes are never copied
 * into the broker, a bounded number of rounds (a busy relay does not
 * starve the others).  False when the connection is broken.
 */
static bool
pump(struct conn *c, int d, int64_t now)
{
	int src = d == 0 ? c->cfd : c->ufd, dst = d == 0 ? c->ufd : c->cfd;
	int round;
	ssize_t n;

	if (!send_queued(c, d, dst, now))
		return false;
	if (c->len[d] > 0)
		return true; /* the other side is full: wait for POLLOUT */
	for (round = 0; round < PUMP_ROUNDS; round++) {
		if (c->inpipe[d] == 0 && !c->eof[d]) {
			n = splice(src, NULL, c->pipe[d][1], NULL, PIPE_CHUNK,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n == 0) {
				c->eof[d] = true;
				(void)shutdown(dst, SHUT_WR);
			} else if (n < 0) {
				return errno == EAGAIN || errno == EINTR;
			} else {
				c->inpipe[d] = (size_t)n;
				c->deadline = now + c->idle_ms;
			}
		}
		if (c->inpipe[d] == 0)
			return true;
		n = splice(c->pipe[d][0], NULL, dst, NULL, c->inpipe[d],
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->inpipe[d] -= (size_t)n;
		c->bytes[d] += (uint64_t)n;
		c->deadline = now + c->idle_ms;
		if (c->inpipe[d] != 0)
			return true; /* the other side is full: wait for POLLOUT */
	}
	return true;
}

/* No address of the name could be connected to. */
static void
upstream_failed(struct cordon_proxy *px, struct conn *c, int err)
{
	static const char bad_gw[] = "HTTP/1.1 502 Bad Gateway\r\n"
	    "Connection: close\r\n\r\n";
	static const uint8_t srefused[10] = { 5, 5, 0, 1 };

	event(px, &px->failed, "verdict=failed proto=%s host=%s port=%u "
	    "address=%s up=0 down=0 reason=%s", c->proto, c->host,
	    (unsigned)c->req.port, c->addr, strerror(err));
	if (c->req.proto == CORDON_PROXY_SOCKS5)
		say(c->cfd, srefused, sizeof(srefused));
	else
		say(c->cfd, bad_gw, sizeof(bad_gw) - 1);
	conn_close(c);
}

static void
on_io(struct cordon_proxy *px, struct conn *c, short crev, short urev,
    int64_t now)
{
	socklen_t el = sizeof(int);
	int err = 0;

	if (c->st == C_HEAD || c->st == C_SOCKS) {
		if (crev != 0)
			on_head(px, c);
		return;
	}
	if (c->st == C_CONNECTING) {
		if (urev == 0)
			return;
		if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
			err = errno;
		if (err != 0) {
			if (!connect_next(c))
				upstream_failed(px, c, err);
			return;
		}
		on_connected(c);
		c->deadline = now + c->idle_ms;
	}
	if (!pump(c, 0, now) || !pump(c, 1, now)) {
		end_relay(px, c, NULL);
		return;
	}
	if (c->eof[0] && c->eof[1] && c->len[0] + c->inpipe[0] == 0 &&
	    c->len[1] + c->inpipe[1] == 0)
		end_relay(px, c, NULL);
}

/* What to poll for on c's two sockets. */
static void
wanted(const struct conn *c, short *cev, short *uev)
{
	*cev = *uev = 0;
	switch (c->st) {
	case C_HEAD:
	case C_SOCKS:
		*cev = POLLIN;
		break;
	case C_CONNECTING:
		*uev = POLLOUT;
		break;
	case C_RELAY:
		if (c->len[0] + c->inpipe[0] == 0 && !c->eof[0])
			*cev |= POLLIN;
		if (c->len[0] + c->inpipe[0] > 0)
			*uev |= POLLOUT;
		if (c->len[1] + c->inpipe[1] == 0 && !c->eof[1])
			*uev |= POLLIN;
		if (c->len[1] + c->inpipe[1] > 0)
			*cev |= POLLOUT;
		break;
	default:
		break;
	}
}

/*
 * A free slot for a new connection: at the cap, the oldest one still
 * without a complete request is shed (a flood of half-open connections
 * churns through the oldest of its own, never through relays).  NULL if
 * every slot relays or connects.
 */
static struct conn *
slot(struct cordon_proxy *px)
{
	struct conn *oldest = NULL, *c;
	int i;

	for (i = 0; i < CORDON_PROXY_MAX_CONNS; i++) {
		c = &px->conns[i];
		if (c->st == C_FREE)
			return c;
		if ((c->st == C_HEAD || c->st == C_SOCKS) &&
		    (oldest == NULL || c->born < oldest->born))
			oldest = c;
	}
	if (oldest != NULL) {
		pthread_mutex_lock(&px->mu);
		px->dropped++;
		pthread_mutex_unlock(&px->mu);
		conn_close(oldest);
	}
	return oldest;
}

static void
on_accept(struct cordon_proxy *px, int64_t now)
{
	struct conn *c;
	int fd, i;

	/* A bounded batch: the other connections get their turn too. */
	for (i = 0; i < CORDON_PROXY_MAX_CONNS; i++) {
		fd = accept4(px->listen_fd, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if ((c = slot(px)) == NULL) {
			close(fd);
			pthread_mutex_lock(&px->mu);
			px->dropped++;
			pthread_mutex_unlock(&px->mu);
			continue;
		}
		/*
		 * The payload's side is a loopback hop in the run's own
		 * namespace: nothing there to pace or to back off from.  The
		 * host's congestion control (BBR, say, which paces segments
		 * with a timer) is for real links; here it only costs CPU.
		 * Reno (always built in, open to every user) does not pace.
		 * The upstream side keeps the host's choice.  Best effort.
		 */
		(void)setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "reno",
		    (socklen_t)strlen("reno"));
		c->st = C_HEAD;
		c->gen = ++px->gens;
		c->idle_ms = px->idle_ms;
		c->cfd = fd;
		c->ufd = -1;
		c->born = now;
		c->deadline = now + px->head_ms;
		c->proto = "unknown";
	}
}

/* Connections past their deadline: a request too slow, a dead relay. */
static void
expire(struct cordon_proxy *px, int64_t now)
{
	struct conn *c;
	int i;

	for (i = 0; i < CORDON_PROXY_MAX_CONNS; i++) {
		c = &px->conns[i];
		if (c->st == C_FREE || c->deadline > now)
			continue;
		if (c->st == C_HEAD || c->st == C_SOCKS) {
			pthread_mutex_lock(&px->mu);
			px->dropped++;
			pthread_mutex_unlock(&px->mu);
			conn_close(c);
		} else if (c->st == C_RESOLVING) {
			res_cancel(px, i, c->gen);
			name_failed(px, c, true);
		} else if (c->st == C_CONNECTING) {
			upstream_failed(px, c, ETIMEDOUT);
		} else {
			end_relay(px, c, "cut: no byte moved for the idle "
			    "timeout");
		}
	}
}

static void *
proxy_main(void *arg)
{
	struct cordon_proxy *px = arg;
	struct pollfd pfd[NFIXED + 2 * CORDON_PROXY_MAX_CONNS];
	int64_t now, next;
	short cev, uev;
	int i, n, k, timeout;

	for (;;) {
		now = now_ms();
		next = now + 60000;
		pfd[0] = (struct pollfd){ .fd = px->wake[0], .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = px->listen_fd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = px->resolved[0], .events = POLLIN };
		for (i = 0; i < CORDON_PROXY_MAX_CONNS; i++) {
			wanted(&px->conns[i], &cev, &uev);
			k = NFIXED + 2 * i;
			pfd[k] = (struct pollfd){ .fd = cev != 0 ?
			    px->conns[i].cfd : -1, .events = cev };
			pfd[k + 1] = (struct pollfd){ .fd = uev != 0 ?
			    px->conns[i].ufd : -1, .events = uev };
			if (px->conns[i].st != C_FREE &&
			    px->conns[i].deadline < next)
				next = px->conns[i].deadline;
		}
		timeout = next > now ? (int)(next - now) : 0;
		n = poll(pfd, NFIXED + 2 * CORDON_PROXY_MAX_CONNS, timeout);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && pfd[0].revents != 0)
			break;
		now = now_ms();
		for (i = 0; n > 0 && i < CORDON_PROXY_MAX_CONNS; i++) {
			k = NFIXED + 2 * i;
			if (px->conns[i].st != C_FREE &&
			    (pfd[k].revents != 0 || pfd[k + 1].revents != 0))
				on_io(px, &px->conns[i], pfd[k].revents,
				    pfd[k + 1].revents, now);
		}
		if (n > 0 && pfd[2].revents != 0)
			on_resolved(px);
		if (n > 0 && pfd[1].revents != 0)
			on_accept(px, now);
		expire(px, now);
	}
	for (i = 0; i < CORDON_PROXY_MAX_CONNS; i++)
		if (px->conns[i].st == C_RELAY)
			end_relay(px, &px->conns[i], "cut: the run ended");
		else if (px->conns[i].st != C_FREE)
			conn_close(&px->conns[i]);
	return NULL;
}

/*
 * A timeout in ms from a test hook, like the test resolver never read
 * under AT_SECURE, and never longer than the real one (def).
 */
static int
test_ms(const char *name, int def)
{
	const char *ms;
	uint64_t v = 0;

	if (cordon_egress_test_hooks() && (ms = getenv(name)) != NULL &&
	    cordon_parse_count(ms, &v) == 0 && v > 0 && v <= (uint64_t)def)
		return (int)v;
	return def;
}

int
cordon_proxy_new(const struct cordon_config *cfg, struct cordon_proxy **out)
{
	struct cordon_proxy *px;
	char err[CORDON_MAX_TEXT_LEN];
	size_t i;
	int r = -CORDON_E_NOMEM;

	*out = NULL;
	if (cfg->nallow_hosts == 0)
		return 0;
	if ((px = calloc(1, sizeof(*px))) == NULL)
		return -CORDON_E_NOMEM;
	px->listen_fd = px->wake[0] = px->wake[1] = -1;
	px->resolved[0] = px->resolved[1] = -1;
	px->head_ms = test_ms("CORDON_TEST_PROXY_HEAD_MS", CORDON_PROXY_HEAD_MS);
	px->resolve_ms = test_ms("CORDON_TEST_PROXY_RESOLVE_MS",
	    CORDON_PROXY_RESOLVE_MS);
	px->idle_ms = test_ms("CORDON_TEST_PROXY_IDLE_MS", CORDON_PROXY_IDLE_MS);
	pthread_mutex_init(&px->mu, NULL);
	if ((px->pats = calloc(cfg->nallow_hosts, sizeof(*px->pats))) == NULL ||
	    (px->ev = calloc(CORDON_PROXY_MAX_EVENTS, sizeof(*px->ev))) ==
	    NULL ||
	    (px->conns = calloc(CORDON_PROXY_MAX_CONNS,
	    sizeof(*px->conns))) == NULL)
		goto fail;
	for (i = 0; i < CORDON_PROXY_MAX_CONNS; i++)
		conn_reset(&px->conns[i]);
	for (i = 0; i < cfg->nallow_hosts; i++, px->npats++)
		if ((r = cordon_egress_pattern_parse(cfg->allow_hosts[i],
		    &px->pats[i], err, sizeof(err))) < 0)
			goto fail;
	*out = px;
	return 0;
fail:
	cordon_proxy_end(px, NULL, NULL);
	return r;
}

int
cordon_proxy_attach(struct cordon_proxy *px, int listen_fd)
{
	sigset_t all, old;
	int r;

	if (px == NULL || px->listen_fd >= 0) {
		close(listen_fd);
		return -CORDON_E_PROTO;
	}
	px->listen_fd = listen_fd;
	if (fcntl(listen_fd, F_SETFL, O_NONBLOCK) < 0 ||
	    pipe2(px->wake, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    pipe2(px->resolved, O_CLOEXEC | O_NONBLOCK) < 0)
		return -CORDON_E_IO;
	if ((px->res = calloc(1, sizeof(*px->res))) == NULL)
		return -CORDON_E_NOMEM;
	pthread_mutex_init(&px->res->mu, NULL);
	pthread_cond_init(&px->res->cv, NULL);
	px->res->qtail = &px->res->queue;
	px->res->notify = px->resolved[1];
	px->res->refs = 1;
	/* The test resolver's "hang" outlasts the wait for an answer. */
	px->res->hang_ms = 6 * CORDON_PROXY_RESOLVE_MS;
	/* Signals stay the caller's: the thread takes none. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&px->thread, NULL, proxy_main, px);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return -CORDON_E_NOMEM;
	px->running = true;
	return 0;
}

int
cordon_proxy_record(const struct cordon_config *cfg, struct cordon_result *r)
{
	size_t i;

	if (cfg->nallow_hosts == 0)
		return 0;
	r->egress = true;
	if ((r->allow_hosts = calloc(cfg->nallow_hosts + 1,
	    sizeof(char *))) == NULL)
		return -CORDON_E_NOMEM;
	for (i = 0; i < cfg->nallow_hosts; i++, r->nallow_hosts++)
		if ((r->allow_hosts[i] = strdup(cfg->allow_hosts[i])) == NULL)
			return -CORDON_E_NOMEM;
	return 0;
}

static void
say_applied(const struct cordon_proxy *px, struct cordon_result *r)
{
	r->egress = true;
	r->egress_counted = true;
	r->egress_attached = px->running;
	r->egress_allowed = px->allowed;
	r->egress_denied = px->denied;
	r->egress_failed = px->failed;
	r->egress_dropped = px->dropped;
}

void
cordon_proxy_end(struct cordon_proxy *px, struct cordon_trace *t,
    struct cordon_result *r)
{
	struct cordon_trace_event sum;
	size_t i;
	int k;

	if (px == NULL)
		return;
	if (px->running) {
		(void)!write(px->wake[1], "x", 1);
		pthread_join(px->thread, NULL);
	}
	/* Before the pipe closes: no resolver writes to it after this. */
	res_end(px->res);
	if (r != NULL)
		say_applied(px, r);
	if (t != NULL && r != NULL) {
		sum.ts_ms = cordon_now_ms();
		sum.kind = "egress";
		if (asprintf(&sum.detail, "summary: %llu allowed, %llu denied, "
		    "%llu failed upstream, %llu dropped before a request "
		    "(capacity, timeout or closed), %llu not listed one by one",
		    (unsigned long long)px->allowed,
		    (unsigned long long)px->denied,
		    (unsigned long long)px->failed,
		    (unsigned long long)px->dropped,
		    (unsigned long long)px->unlisted) < 0)
			sum.detail = NULL;
		if (px->nev > 0)
			(void)cordon_trace_events_add(t, r->run_id, px->ev,
			    px->nev);
		if (sum.detail != NULL && px->running)
			(void)cordon_trace_events_add(t, r->run_id, &sum, 1);
		free(sum.detail);
	}
	for (i = 0; px->ev != NULL && i < px->nev; i++)
		free(px->ev[i].detail);
	for (k = 0; k < 2; k++) {
		if (px->wake[k] >= 0)
			close(px->wake[k]);
		if (px->resolved[k] >= 0)
			close(px->resolved[k]);
	}
	if (px->listen_fd >= 0)
		close(px->listen_fd);
	pthread_mutex_destroy(&px->mu);
	free(px->pats);
	free(px->ev);
	free(px->conns);
	free(px);
}
