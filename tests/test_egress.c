/*
 * test_egress.c - the egress allow-list (--allow-host): broker/egress.c's
 * patterns, matching and address ranges, proxy.c's request parsers, the
 * EGRESS message's fd rule, and runs through the proxy end to end on
 * linux-ns.
 *
 * The end-to-end cases start an upstream on the host's 127.0.0.1 (a
 * thread of the test) and map test names to it with the test resolver
 * (CORDON_TEST_HOSTS, a hosts file); the upstream is loopback, so the
 * allow-lists name 127.0.0.1 literally where a connection must work.
 * The payload (tests/payload) is bound in read-only at /srv/payload.
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon.h"
#include "egress.h"
#include "proxy.h"
#include "proxy_req.h"
#include "testutil.h"
#include "wire.h"

/* ---- egress.c: patterns ---- */

static struct cordon_egress_pattern pats[8];
static size_t npats;

static void
allow(const char *text)
{
	char err[256];

	ck_assert_msg(cordon_egress_pattern_parse(text, &pats[npats], err,
	    sizeof(err)) == 0, "%s: %s", text, err);
	npats++;
}

static bool
name_ok(const char *host, uint16_t port)
{
	char n[CORDON_EGRESS_NAME_MAX + 1];

	if (cordon_egress_name_normalize(host, strlen(host), n) < 0)
		return false;
	return cordon_egress_name_allowed(pats, npats, n, port);
}

START_TEST(patterns_parse_and_refuse)
{
	static const char *good[] = {
		"example.com", "example.com:443", "*.example.com",
		"*.example.com:8080", "EXAMPLE.com.", "xn--bcher-kva.example",
		"1.2.3.4", "1.2.3.4:80", "10.0.0.0/8", "::1", "[::1]:443",
		"fd00::/8", "169.254.169.254", "a_b.example",
	};
	static const char *bad[] = {
		"", "*", "*.", "a..b", ".example.com", "exa mple.com",
		("b\xc3\xbc" "cher.example"), "example.com:0", "example.com:65536",
		"example.com:http", "10.1.2.3/8", "1.2.3.4/33", "::1/129",
		"[example.com]:80", "a.*.example.com", "example.com:443:1",
		"::1:443x", "[::1]443", "1.2.3.4/", "http://example.com",
		"example.com/path",
	};
	struct cordon_egress_pattern p;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(cordon_egress_pattern_parse(good[i], &p, err,
		    sizeof(err)) == 0, "%s refused: %s", good[i], err);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(cordon_egress_pattern_parse(bad[i], &p, err,
		    sizeof(err)) == -CORDON_E_INVAL, "%s accepted", bad[i]);
		ck_assert_msg(strstr(err, "--allow-host") != NULL, "%s", err);
	}
	ck_assert_int_eq(cordon_egress_pattern_parse("EXAMPLE.com.", &p, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(p.name, "example.com");
	ck_assert_int_eq(cordon_egress_pattern_parse("[::1]:443", &p, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(p.port, 443);
	ck_assert_int_eq(p.family, AF_INET6);
}
END_TEST

START_TEST(suffix_edges)
{
	npats = 0;
	allow("*.example.com");
	allow("exact.test:8443");
	ck_assert(name_ok("a.example.com", 443));
	ck_assert(name_ok("a.b.example.com", 443));
	ck_assert(name_ok("A.Example.COM", 443));
	ck_assert(name_ok("a.example.com.", 443));      /* one trailing dot */
	ck_assert(!name_ok("a.example.com..", 443));
	ck_assert(!name_ok("a.example.com.x.", 443));
	allow("a");
	ck_assert(name_ok("a.", 443));
	ck_assert(!name_ok("a..", 443)); /* the fuzzer's find: "a." kept */
	ck_assert(!name_ok("example.com", 443));        /* not the suffix */
	ck_assert(!name_ok("evilexample.com", 443));
	ck_assert(!name_ok("a.evilexample.com", 443));
	ck_assert(!name_ok("example.com.evil.net", 443));
	ck_assert(!name_ok("a.example.co", 443));
	ck_assert(!name_ok(".example.com", 443));
	/* IDN: punycode matches as ASCII; the Unicode form is refused. */
	ck_assert(name_ok("xn--bcher-kva.example.com", 443));
	ck_assert(!name_ok("b\xc3\xbc" "cher.example.com", 443));
	/* host:port limits the port. */
	ck_assert(name_ok("exact.test", 8443));
	ck_assert(!name_ok("exact.test", 443));
	ck_assert(!name_ok("a.exact.test", 8443));
	/* A name never matches an address pattern, nor the reverse. */
	npats = 0;
	allow("127.0.0.1");
	ck_assert(!name_ok("localhost", 80));
}
END_TEST

static struct sockaddr_storage
addr(const char *text, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)(void *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)(void *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
	} else {
		ck_assert_int_eq(inet_pton(AF_INET6, text, &a6->sin6_addr), 1);
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
	}
	return ss;
}

static const char *
special(const char *text)
{
	struct sockaddr_storage ss = addr(text, 80);

	return cordon_egress_addr_special((struct sockaddr *)&ss);
}

START_TEST(address_ranges)
{
	static const struct { const char *a, *range; } t[] = {
		{ "127.0.0.1", "loopback" }, { "127.255.1.2", "loopback" },
		{ "169.254.169.254", "link-local" }, { "10.1.2.3", "private" },
		{ "172.16.0.1", "private" }, { "172.31.255.255", "private" },
		{ "192.168.1.1", "private" }, { "100.64.0.1", "CGNAT" },
		{ "100.127.255.255", "CGNAT" }, { "224.0.0.1", "multicast" },
		{ "0.0.0.0", "unspecified" }, { "255.255.255.255", "reserved" },
		{ "::1", "loopback" }, { "::", "unspecified" },
		{ "fe80::1", "link-local" }, { "fd00::1", "unique-local" },
		{ "fc00::1", "unique-local" }, { "ff02::1", "multicast" },
		{ "::ffff:127.0.0.1", "loopback" },
		{ "::ffff:169.254.169.254", "link-local" },
		{ "64:ff9b::10.0.0.1", "private" },
		{ "8.8.8.8", NULL }, { "172.32.0.1", NULL },
		{ "100.128.0.1", NULL }, { "2001:4860:4860::8888", NULL },
		{ "::ffff:8.8.8.8", NULL }, { "169.255.0.1", NULL },
	};
	const char *got;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		got = special(t[i].a);
		if (t[i].range == NULL)
			ck_assert_msg(got == NULL, "%s: %s", t[i].a, got);
		else
			ck_assert_msg(got != NULL && strcmp(got, t[i].range) == 0,
			    "%s: %s, not %s", t[i].a, got, t[i].range);
	}
}
END_TEST

START_TEST(literal_addresses_and_cidrs)
{
	struct sockaddr_storage ss;

	npats = 0;
	allow("10.0.0.0/8");
	allow("192.0.2.7:443");
	allow("[2001:db8::1]:80");
	ss = addr("10.9.8.7", 1);
	ck_assert(cordon_egress_addr_allowed(pats, npats, (void *)&ss));
	ss = addr("11.0.0.1", 1);
	ck_assert(!cordon_egress_addr_allowed(pats, npats, (void *)&ss));
	ss = addr("192.0.2.7", 443);
	ck_assert(cordon_egress_addr_allowed(pats, npats, (void *)&ss));
	ss = addr("192.0.2.7", 80);
	ck_assert(!cordon_egress_addr_allowed(pats, npats, (void *)&ss));
	ss = addr("2001:db8::1", 80);
	ck_assert(cordon_egress_addr_allowed(pats, npats, (void *)&ss));
	ss = addr("2001:db8::2", 80);
	ck_assert(!cordon_egress_addr_allowed(pats, npats, (void *)&ss));
	/* An IPv4 pattern does not admit the mapped IPv6 form, nor v.v. */
	ss = addr("::ffff:10.0.0.1", 1);
	ck_assert(!cordon_egress_addr_allowed(pats, npats, (void *)&ss));
}
END_TEST

START_TEST(test_resolver)
{
	struct sockaddr_storage out[8];
	char path[] = "/tmp/cordon-hosts-XXXXXX", text[64];
	size_t n = 0;
	FILE *f;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fprintf(f, "# comment\n127.0.0.1 one.test Two.Test\n"
	    "::1 two.test\nnot-an-address three.test\n");
	fclose(f);
	setenv("CORDON_TEST_HOSTS", path, 1);
	ck_assert_int_eq(cordon_egress_resolve("one.test", 8080, out, 8, &n), 0);
	ck_assert_uint_eq(n, 1);
	cordon_egress_addr_text((struct sockaddr *)&out[0], text, sizeof(text));
	ck_assert_str_eq(text, "127.0.0.1");
	ck_assert_int_eq(ntohs(((struct sockaddr_in *)(void *)&out[0])->sin_port),
	    8080);
	ck_assert_int_eq(cordon_egress_resolve("two.test", 1, out, 8, &n), 0);
	ck_assert_uint_eq(n, 2);
	/* The file is the whole truth while it is set: no DNS behind it. */
	ck_assert_int_eq(cordon_egress_resolve("three.test", 1, out, 8, &n),
	    -CORDON_E_NOTFOUND);
	ck_assert_int_eq(cordon_egress_resolve("localhost", 1, out, 8, &n),
	    -CORDON_E_NOTFOUND);
	unsetenv("CORDON_TEST_HOSTS");
	unlink(path);
}
END_TEST

START_TEST(ceiling_coverage)
{
	static const struct { const char *max, *want; bool ok; } t[] = {
		{ "example.com", "example.com", true },
		{ "example.com", "example.com:443", true },
		{ "example.com:443", "example.com", false },
		{ "example.com:443", "example.com:80", false },
		{ "example.com", "a.example.com", false },
		{ "*.example.com", "a.example.com", true },
		{ "*.example.com", "*.a.example.com", true },
		{ "*.example.com", "*.example.com:8080", true },
		{ "*.example.com", "example.com", false },
		{ "*.example.com", "evilexample.com", false },
		{ "*.a.example.com", "*.example.com", false },
		{ "10.0.0.0/8", "10.1.0.0/16", true },
		{ "10.0.0.0/8", "10.1.2.3", true },
		{ "10.0.0.0/16", "10.0.0.0/8", false },
		{ "10.0.0.0/8", "11.0.0.0/8", false },
		{ "10.0.0.0/8", "a.example.com", false },
		{ "*.example.com", "10.0.0.1", false },
		{ "fd00::/8", "fd12::1", true },
	};
	struct cordon_egress_pattern c, p, list[4];
	char err[256];
	size_t i, n = 0;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ck_assert_int_eq(cordon_egress_pattern_parse(t[i].max, &c, err,
		    sizeof(err)), 0);
		ck_assert_int_eq(cordon_egress_pattern_parse(t[i].want, &p, err,
		    sizeof(err)), 0);
		ck_assert_msg(cordon_egress_covers(&c, &p) == t[i].ok,
		    "%s covers %s: not %d", t[i].max, t[i].want, t[i].ok);
	}
	ck_assert_int_eq(cordon_egress_list_parse(" a.test, *.b.test,10.0.0.0/8 ",
	    list, 4, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(cordon_egress_list_parse("a.test, b..test", list, 4,
	    &n, err, sizeof(err)), -CORDON_E_INVAL);
	ck_assert_msg(strstr(err, "b..test") != NULL, "%s", err);
	ck_assert_int_eq(cordon_egress_list_parse("a,b,c,d,e", list, 4, &n, err,
	    sizeof(err)), -CORDON_E_INVAL);
}
END_TEST

/* ---- proxy.c: the parsers ---- */

static int
http(const char *s, struct cordon_proxy_req *r)
{
	return cordon_proxy_parse_http(s, strlen(s), r);
}

START_TEST(http_requests_parse)
{
	struct cordon_proxy_req r;
	char big[CORDON_PROXY_HEAD_MAX + 16];
	const char *s;

	ck_assert_int_eq(http("CONNECT a.test:443 HTTP/1.1\r\nHost: a\r\n\r\n",
	    &r), 1);
	ck_assert_int_eq(r.proto, CORDON_PROXY_CONNECT);
	ck_assert_int_eq(r.port, 443);
	ck_assert_int_eq((int)r.host_len, 6);
	ck_assert(strncmp(r.host, "a.test", 6) == 0);
	ck_assert(!r.literal);
	ck_assert_int_eq(http("CONNECT [::1]:22 HTTP/1.1\r\n\r\n", &r), 1);
	ck_assert(r.literal);
	ck_assert_int_eq(http("CONNECT 10.0.0.1:22 HTTP/1.0\r\n\r\n", &r), 1);
	ck_assert(r.literal);
	s = "GET http://b.test:8080/x?y HTTP/1.1\r\nHost: b\r\n\r\nBODY";
	ck_assert_int_eq(http(s, &r), 1);
	ck_assert_int_eq(r.proto, CORDON_PROXY_HTTP);
	ck_assert_int_eq(r.port, 8080);
	ck_assert(strncmp(s + r.path_off, "/x?y", r.path_len) == 0);
	ck_assert_uint_eq(r.path_len, 4);
	ck_assert_uint_eq(r.head_len, strlen(s) - 4);
	ck_assert_int_eq(http("GET http://b.test HTTP/1.1\r\n\r\n", &r), 1);
	ck_assert_int_eq(r.port, 80);
	ck_assert_uint_eq(r.path_len, 0);
	/* Incomplete: more bytes wanted. */
	ck_assert_int_eq(http("CONNECT a.test:443 HTTP/1.1\r\n", &r), 0);
	ck_assert_int_eq(http("", &r), 0);
	/* Malformed: refused with a reason. */
	ck_assert_int_eq(http("CONNECT a.test HTTP/1.1\r\n\r\n", &r),
	    -CORDON_E_PROTO);
	ck_assert_ptr_nonnull(r.why);
	ck_assert_int_eq(http("GET https://a.test/ HTTP/1.1\r\n\r\n", &r),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(http("GET /relative HTTP/1.1\r\n\r\n", &r),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(http("GET http://u:p@a.test/ HTTP/1.1\r\n\r\n", &r),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(http("CONNECT a.test:443 HTTP/2\r\n\r\n", &r),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(http("CONNECT  a.test:443 HTTP/1.1\r\n\r\n", &r),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(http("CONNECT a.test:99999 HTTP/1.1\r\n\r\n", &r),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(http("CONNECT [zz]:1 HTTP/1.1\r\n\r\n", &r),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(http("CONNECT a\rb:1 HTTP/1.1\r\n\r\n", &r),
	    -CORDON_E_PROTO);
	/* Headers past 8 KiB: refused, not waited for. */
	memset(big, 'a', sizeof(big));
	ck_assert_int_eq(cordon_proxy_parse_http(big, sizeof(big), &r),
	    -CORDON_E_PROTO);
}
END_TEST

START_TEST(socks_requests_parse)
{
	static const uint8_t hello[] = { 5, 2, 2, 0 };
	static const uint8_t auth_only[] = { 5, 1, 2 };
	static const uint8_t byname[] = { 5, 1, 0, 3, 6, 'a', '.', 't', 'e',
		's', 't', 0x01, 0xbb };
	static const uint8_t byip[] = { 5, 1, 0, 1, 192, 0, 2, 1, 0, 80 };
	static const uint8_t bind[] = { 5, 2, 0, 1, 192, 0, 2, 1, 0, 80 };
	static const uint8_t atyp[] = { 5, 1, 0, 9, 0, 0 };
	struct cordon_proxy_req r;
	size_t used = 0;

	ck_assert_int_eq(cordon_proxy_parse_socks_hello(hello, 3, &used), 0);
	ck_assert_int_eq(cordon_proxy_parse_socks_hello(hello, 4, &used), 1);
	ck_assert_uint_eq(used, 4);
	ck_assert_int_eq(cordon_proxy_parse_socks_hello(auth_only, 3, &used),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(cordon_proxy_parse_socks_req(byname, 12, &r), 0);
	ck_assert_int_eq(cordon_proxy_parse_socks_req(byname, sizeof(byname),
	    &r), 1);
	ck_assert_int_eq(r.port, 443);
	ck_assert(!r.literal);
	ck_assert(strncmp(r.host, "a.test", r.host_len) == 0);
	ck_assert_int_eq(cordon_proxy_parse_socks_req(byip, sizeof(byip), &r),
	    1);
	ck_assert(r.literal);
	ck_assert_int_eq(r.port, 80);
	ck_assert_int_eq(cordon_proxy_parse_socks_req(bind, sizeof(bind), &r),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(r.socks_rep, 7);
	ck_assert_int_eq(cordon_proxy_parse_socks_req(atyp, sizeof(atyp), &r),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(r.socks_rep, 8);
}
END_TEST

/* ---- cordon policy check: the host patterns in a file ---- */

/* cordon policy check on a file holding text: its status, output in c. */
static int
policy_check(struct cmd *c, const char *dir, const char *name,
    const char *text)
{
	char path[300];
	char *argv[] = { (char *)cordon_bin(), "policy", "check", path, NULL };
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	return run_cmd(c, argv, NULL);
}

START_TEST(policy_check_parses_host_patterns)
{
	char dir[] = "/tmp/cordon-egress-pol-XXXXXX", cmd[64];
	struct cmd c;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* Each pattern of allow_hosts_max, as --allow-host parses it. */
	ck_assert_int_eq(policy_check(&c, dir, "good.conf", "[ceilings]\n"
	    "max_cpu = 10s\nallow_hosts_max = *.test,10.0.0.0/8 , "
	    "[::1]:443, xn--bcher-kva.example\n"), 0);
	ck_assert_msg(strstr(c.out, "ok (system policy)") != NULL, "%s",
	    c.out);
	cmd_free(&c);
	ck_assert_int_eq(policy_check(&c, dir, "bad.conf", "[ceilings]\n"
	    "max_cpu = 10s\nallow_hosts_max = *.test, a..b, 10.0.0.0/8\n"),
	    125);
	ck_assert_msg(strstr(c.err, "bad.conf:3: allow_hosts_max: 'a..b': "
	    "not a host name") != NULL, "%s", c.err);
	ck_assert(strstr(c.out, "ok") == NULL);
	cmd_free(&c);
	ck_assert_int_eq(policy_check(&c, dir, "cidr.conf", "[ceilings]\n"
	    "allow_hosts_max = 10.1.2.3/8\n"), 125);
	ck_assert_msg(strstr(c.err, "cidr.conf:2: allow_hosts_max: "
	    "'10.1.2.3/8'") != NULL, "%s", c.err);
	cmd_free(&c);
	ck_assert_int_eq(policy_check(&c, dir, "idn.conf", "[ceilings]\n"
	    "allow_hosts_max = b\xc3\xbc" "cher.example\n"), 125);
	ck_assert_msg(strstr(c.err, "idn.conf:2: allow_hosts_max: ") != NULL &&
	    strstr(c.err, "punycode") != NULL, "%s", c.err);
	cmd_free(&c);
	/* A profile's allow_hosts, one pattern a line, the same way. */
	ck_assert_int_eq(policy_check(&c, dir, "prof.conf", "[profile]\n"
	    "allow_hosts = ok.test\nallow_hosts = 1.2.3.4/33\n"), 125);
	ck_assert_msg(strstr(c.err, "prof.conf: allow_hosts: '1.2.3.4/33'") !=
	    NULL, "%s", c.err);
	cmd_free(&c);
	ck_assert_int_eq(policy_check(&c, dir, "prof2.conf", "[profile]\n"
	    "allow_hosts = ok.test\nallow_hosts = *.ok.test:443\n"), 0);
	cmd_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- the EGRESS message: an fd there and nowhere else ---- */

static int
open_fds(void)
{
	return dir_entries("/proc/self/fd");
}

START_TEST(fd_only_on_egress)
{
	struct cordon_msg m = { .type = CORDON_MSG_EGRESS }, got;
	struct cordon_msg w = { .type = CORDON_MSG_WORKDIR };
	int sp[2], fd = -1, before, devnull = open("/dev/null", O_RDONLY);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp), 0);
	before = open_fds();
	/* EGRESS with its fd: taken. */
	m.u.egress_port = CORDON_EGRESS_PORT;
	ck_assert_int_eq(cordon_msg_send_fd(sp[0], &m, devnull), 0);
	ck_assert_int_eq(cordon_msg_recv_fd(sp[1], &got, &fd), 0);
	ck_assert_int_eq(got.type, CORDON_MSG_EGRESS);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* An fd on another type: refused, and closed. */
	w.u.str = "/tmp/x";
	ck_assert_int_eq(cordon_msg_send_fd(sp[0], &w, devnull), 0);
	ck_assert_int_eq(cordon_msg_recv_fd(sp[1], &got, &fd),
	    -CORDON_E_PROTO);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(open_fds(), before);
	/* EGRESS without one: refused. */
	ck_assert_int_eq(cordon_msg_send(sp[0], &m), 0);
	ck_assert_int_eq(cordon_msg_recv_fd(sp[1], &got, &fd),
	    -CORDON_E_PROTO);
	/* Another port: refused, fd closed. */
	m.u.egress_port = 80;
	ck_assert_int_eq(cordon_msg_send_fd(sp[0], &m, devnull), 0);
	ck_assert_int_eq(cordon_msg_recv_fd(sp[1], &got, &fd),
	    -CORDON_E_RANGE);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(open_fds(), before);
	/* The helper's receive refuses an fd on anything, EGRESS too. */
	w.type = CORDON_MSG_GO;
	ck_assert_int_eq(cordon_msg_send_fd(sp[0], &w, devnull), 0);
	ck_assert_int_eq(cordon_msg_recv_allowed(sp[1],
	    CORDON_MSG_BIT(CORDON_MSG_GO), &got), -CORDON_E_PROTO);
	ck_assert_int_eq(open_fds(), before);
	close(sp[0]);
	close(sp[1]);
	close(devnull);
}
END_TEST

/* ---- runs through the proxy (linux-ns) ---- */

static struct scratch S;
static char hosts_path[400], hosts_env[420], payload_bind[600];
static int upstream_fd = -1, upstream_port;
static pthread_t upstream_thread;

/*
 * The upstream: to each connection, a banner, then the first line it
 * is sent (if any, within 300 ms) and which connection headers came with
 * it, then EOF.
 */
static void *
upstream_main(void *arg)
{
	char buf[4096], out[4300];
	const char *hdr;
	struct pollfd p;
	ssize_t n;
	size_t len;
	int c;

	(void)arg;
	while ((c = accept(upstream_fd, NULL, NULL)) >= 0) {
		(void)!write(c, "hello from upstream\n", 20);
		p.fd = c;
		p.events = POLLIN;
		if (poll(&p, 1, 300) == 1 && (n = read(c, buf,
		    sizeof(buf) - 1)) > 0) {
			buf[n] = '\0';
			hdr = strstr(buf, "\r\n");
			len = (size_t)snprintf(out, sizeof(out), "first line: %.*s\n"
			    "headers: close=%d keep-alive=%d\n",
			    (int)strcspn(buf, "\r\n"), buf, hdr != NULL &&
			    strstr(hdr, "\r\nConnection: close\r\n") != NULL,
			    hdr != NULL && strcasestr(hdr, "keep-alive") != NULL);
			(void)!write(c, out, len);
		}
		close(c);
	}
	return NULL;
}

static void
setup_runs(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	FILE *f;

	scratch_init(&S);
	upstream_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(upstream_fd, (struct sockaddr *)&sin,
	    sizeof(sin)), 0);
	ck_assert_int_eq(listen(upstream_fd, 64), 0);
	ck_assert_int_eq(getsockname(upstream_fd, (struct sockaddr *)&sin,
	    &len), 0);
	upstream_port = ntohs(sin.sin_port);
	ck_assert_int_eq(pthread_create(&upstream_thread, NULL, upstream_main,
	    NULL), 0);
	snprintf(hosts_path, sizeof(hosts_path), "%s/hosts", S.root);
	ck_assert_ptr_nonnull(f = fopen(hosts_path, "w"));
	fprintf(f, "127.0.0.1 allowed.test a.suffix.test rebind.test\n"
	    "169.254.169.254 meta.test\n127.0.0.1 denied.test\n"
	    "hang hang.test hang2.test hang3.test hang4.test\n"
	    "127.0.0.1 xn--bcher-kva.suffix.test evilsuffix.test silent.test\n");
	fclose(f);
	snprintf(hosts_env, sizeof(hosts_env), "CORDON_TEST_HOSTS=%s",
	    hosts_path);
	snprintf(payload_bind, sizeof(payload_bind), "--ro-bind=%s:/srv/payload",
	    payload_bin());
}

static void
teardown_runs(void)
{
	shutdown(upstream_fd, SHUT_RDWR);
	close(upstream_fd);
	scratch_fini(&S);
}

#define MAXARGS 48

/*
 * cordon run --json (trace, base, linux-ns, the payload bound) OPTS...
 * -- /srv/payload ARGS...: the list is OPTS, "--", ARGS, NULL.  The
 * extra environment: the test resolver and envx (or NULL).
 */
static int
egress_run(struct cmd *c, const char *envx, ...)
{
	char *argv[MAXARGS], *env[3] = { hosts_env, (char *)envx, NULL };
	const char *a;
	va_list ap;
	int n = 0;

	argv[n++] = (char *)cordon_bin();
	argv[n++] = "run";
	argv[n++] = "--json";
	argv[n++] = S.trace_opt;
	argv[n++] = S.base_opt;
	argv[n++] = "--backend=linux-ns";
	argv[n++] = payload_bind;
	va_start(ap, envx);
	while ((a = va_arg(ap, const char *)) != NULL && n < MAXARGS - 2) {
		argv[n++] = (char *)a;
		if (strcmp(a, "--") == 0)
			argv[n++] = "/srv/payload";
	}
	va_end(ap);
	argv[n] = NULL;
	return run_cmd(c, argv, env);
}

/* A count in the record's "egress" object. */
static long
egress_count(const char *json, const char *key)
{
	char k[64];
	const char *e = strstr(json, "\"egress\":{"), *p;

	ck_assert_msg(e != NULL, "no egress object: %s", json);
	snprintf(k, sizeof(k), "\"%s\":", key);
	ck_assert_ptr_nonnull(p = strstr(e, k));
	return strtol(p + strlen(k), NULL, 10);
}

/* The egress trace event whose detail has want in it, or NULL. */
static char *
egress_event(const char *want)
{
	return trace_text(&S, "SELECT detail FROM events WHERE kind = 'egress' "
	    "AND instr(detail, ?1) > 0", want);
}

static const char *
port_text(void)
{
	static char p[16];

	snprintf(p, sizeof(p), "%d", upstream_port);
	return p;
}

static const char *
allow_opt(const char *host)
{
	static char o[4][300];
	static int i;

	i = (i + 1) % 4;
	snprintf(o[i], sizeof(o[i]), "--allow-host=%s", host);
	return o[i];
}

START_TEST(connect_to_an_allowed_name_works)
{
	struct cmd c;
	char *ev;

	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("allowed.test"),
	    "--allow-host=127.0.0.1", "--", "proxy", "connect", "allowed.test",
	    port_text(), NULL), 0);
	ck_assert_msg(strstr(c.out, "HTTP/1.1 200") != NULL, "%s", c.out);
	ck_assert_msg(strstr(c.out, "hello from upstream") != NULL, "%s",
	    c.out);
	ck_assert(json_is(c.out, "backend", "linux-ns"));
	ck_assert_int_eq(egress_count(c.out, "allowed"), 1);
	ck_assert_int_eq(egress_count(c.out, "denied"), 0);
	ck_assert_ptr_nonnull(ev = egress_event("host=allowed.test"));
	ck_assert_msg(strstr(ev, "verdict=allowed") != NULL &&
	    strstr(ev, "address=127.0.0.1") != NULL &&
	    strstr(ev, "down=20") != NULL, "%s", ev);
	free(ev);
	cmd_free(&c);
}
END_TEST

/* cordon trace show ID [--json] of the run whose record is json. */
static void
trace_show(struct cmd *c, const char *json, bool as_json)
{
	char *id = json_get(json, "run_id");
	char *argv[] = { (char *)cordon_bin(), "trace", "show", id,
		S.trace_opt, as_json ? "--json" : NULL, NULL };

	ck_assert_ptr_nonnull(id);
	ck_assert_int_eq(run_cmd(c, argv, NULL), 0);
	free(id);
}

START_TEST(the_trace_names_the_allow_list)
{
	struct cmd c, t;
	char *hosts, *id;

	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("allowed.test"),
	    "--allow-host=127.0.0.1", "--", "proxy", "connect", "allowed.test",
	    port_text(), NULL), 0);
	/* The row, as an auditor's SQL sees it. */
	ck_assert_ptr_nonnull(id = json_get(c.out, "run_id"));
	hosts = trace_text(&S, "SELECT allow_hosts FROM runs WHERE run_id = ?1",
	    id);
	free(id);
	ck_assert_ptr_nonnull(hosts);
	ck_assert_str_eq(hosts, "allowed.test, 127.0.0.1");
	free(hosts);
	/* trace show: the patterns, the counts left to the events. */
	trace_show(&t, c.out, false);
	ck_assert_msg(strstr(t.out, "\negress    only allowed.test, "
	    "127.0.0.1 (--allow-host;") != NULL, "%s", t.out);
	ck_assert_msg(strstr(t.out, "verdict=allowed") != NULL, "%s", t.out);
	cmd_free(&t);
	trace_show(&t, c.out, true);
	ck_assert_msg(strstr(t.out, "\"egress\":{\"allow_hosts\":"
	    "[\"allowed.test\",\"127.0.0.1\"]") != NULL, "%s", t.out);
	ck_assert_msg(strstr(t.out, "\"allowed\":null") != NULL, "%s", t.out);
	cmd_free(&t);
	cmd_free(&c);
	/* A run without one: no egress line, a NULL column. */
	ck_assert_int_eq(egress_run(&c, NULL, "--", "exit", "0", NULL), 0);
	trace_show(&t, c.out, false);
	ck_assert(strstr(t.out, "\negress ") == NULL);
	cmd_free(&t);
	trace_show(&t, c.out, true);
	ck_assert_msg(strstr(t.out, "\"egress\":null") != NULL, "%s", t.out);
	cmd_free(&t);
	ck_assert_ptr_nonnull(id = json_get(c.out, "run_id"));
	hosts = trace_text(&S, "SELECT coalesce(allow_hosts, 'NULL') FROM runs "
	    "WHERE run_id = ?1", id);
	free(id);
	ck_assert_str_eq(hosts, "NULL");
	free(hosts);
	cmd_free(&c);
}
END_TEST

START_TEST(plain_http_is_forwarded_in_origin_form)
{
	struct cmd c;

	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("allowed.test"),
	    "--allow-host=127.0.0.1", "--", "proxy", "http", "allowed.test",
	    port_text(), "/some/path?q=1", NULL), 0);
	ck_assert_msg(strstr(c.out, "first line: GET /some/path?q=1 HTTP/1.1")
	    != NULL, "%s", c.out);
	/* One request per connection: the client's keep-alive is dropped. */
	ck_assert_msg(strstr(c.out, "headers: close=1 keep-alive=0") != NULL,
	    "%s", c.out);
	cmd_free(&c);
}
END_TEST

START_TEST(a_name_not_on_the_list_is_refused)
{
	struct cmd c;
	char *ev;

	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("allowed.test"),
	    "--allow-host=127.0.0.1", "--", "proxy", "connect", "denied.test",
	    port_text(), NULL), 0);
	ck_assert_msg(strstr(c.out, "HTTP/1.1 403 Forbidden") != NULL, "%s",
	    c.out);
	ck_assert(strstr(c.out, "hello from upstream") == NULL);
	ck_assert_int_eq(egress_count(c.out, "denied"), 1);
	ck_assert_int_eq(egress_count(c.out, "allowed"), 0);
	ck_assert_ptr_nonnull(ev = egress_event("host=denied.test"));
	ck_assert_msg(strstr(ev, "verdict=denied") != NULL &&
	    strstr(ev, "not on the allow list") != NULL, "%s", ev);
	free(ev);
	cmd_free(&c);
}
END_TEST

/*
 * One client through the proxy with *.suffix.test and 127.0.0.1 allowed:
 * `proxy MODE HOST port'; its output (c) holds want and not unwanted.
 */
static void
suffix_case(struct cmd *c, const char *mode, const char *host,
    const char *want, const char *unwanted)
{
	ck_assert_int_eq(egress_run(c, NULL, allow_opt("*.suffix.test"),
	    "--allow-host=127.0.0.1", "--", "proxy", mode, host, port_text(),
	    NULL), 0);
	ck_assert_msg(strstr(c->out, want) != NULL, "%s %s: %s", mode, host,
	    c->out);
	ck_assert_msg(unwanted == NULL || strstr(c->out, unwanted) == NULL,
	    "%s %s: %s", mode, host, c->out);
}

START_TEST(suffix_through_the_proxy)
{
	static const char *const hello = "hello from upstream";
	struct cmd c;
	char *ev;

	/* *.suffix.test: a.suffix.test passes, suffix.test itself not. */
	suffix_case(&c, "connect", "A.Suffix.Test.", hello, NULL);
	cmd_free(&c);
	suffix_case(&c, "connect", "suffix.test", "403", hello);
	cmd_free(&c);
	/* evilsuffix.test resolves, but is not under suffix.test. */
	suffix_case(&c, "connect", "evilsuffix.test", "403", hello);
	ck_assert_msg(strstr(c.out, "not on the allow list") != NULL, "%s",
	    c.out);
	cmd_free(&c);
	/* An IDN: its punycode form passes, its Unicode form is refused. */
	suffix_case(&c, "connect", "xn--bcher-kva.suffix.test", hello, NULL);
	cmd_free(&c);
	/* A request line is ASCII: CONNECT with it is malformed. */
	suffix_case(&c, "connect", "b\xc3\xbc" "cher.suffix.test",
	    "HTTP/1.1 400", hello);
	cmd_free(&c);
	/* SOCKS5 carries any bytes: the name is refused, saying why. */
	suffix_case(&c, "socks", "b\xc3\xbc" "cher.suffix.test",
	    "socks reply 2", hello);
	ck_assert_ptr_nonnull(ev = egress_event("punycode"));
	ck_assert_msg(strstr(ev, "verdict=denied proto=socks5") != NULL, "%s",
	    ev);
	free(ev);
	cmd_free(&c);
}
END_TEST

START_TEST(rebinding_to_special_addresses_is_refused)
{
	struct cmd c;
	char *ev;

	/* Allowed names, answers in loopback and link-local: refused. */
	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("rebind.test"),
	    "--", "proxy", "connect", "rebind.test", port_text(), NULL), 0);
	ck_assert_msg(strstr(c.out, "403") != NULL, "%s", c.out);
	ck_assert(strstr(c.out, "hello from upstream") == NULL);
	ck_assert_ptr_nonnull(ev = egress_event("host=rebind.test"));
	ck_assert_msg(strstr(ev, "127.0.0.1, a loopback address") != NULL,
	    "%s", ev);
	free(ev);
	cmd_free(&c);
	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("meta.test"),
	    "--", "proxy", "socks", "meta.test", "80", NULL), 0);
	ck_assert_msg(strstr(c.out, "socks reply 2") != NULL, "%s", c.out);
	ck_assert_ptr_nonnull(ev = egress_event("host=meta.test"));
	ck_assert_msg(strstr(ev, "169.254.169.254, a link-local") != NULL,
	    "%s", ev);
	free(ev);
	cmd_free(&c);
}
END_TEST

START_TEST(socks5_by_name_works_and_by_denied_ip_not)
{
	struct cmd c;
	char *ev;

	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("allowed.test"),
	    "--allow-host=127.0.0.1", "--", "proxy", "socks", "allowed.test",
	    port_text(), NULL), 0);
	ck_assert_msg(strstr(c.out, "socks reply 0\nhello from upstream") !=
	    NULL, "%s", c.out);
	cmd_free(&c);
	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("allowed.test"),
	    "--allow-host=127.0.0.1", "--", "proxy", "socks", "192.0.2.1",
	    "80", NULL), 0);
	ck_assert_msg(strstr(c.out, "socks reply 2") != NULL, "%s", c.out);
	ck_assert_ptr_nonnull(ev = egress_event("host=192.0.2.1"));
	ck_assert_msg(strstr(ev, "verdict=denied proto=socks5") != NULL, "%s",
	    ev);
	free(ev);
	cmd_free(&c);
}
END_TEST

START_TEST(a_direct_connection_has_no_route)
{
	struct cmd c;

	/* The host's loopback and any other address: neither is there. */
	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("allowed.test"),
	    "--allow-host=127.0.0.1", "--", "connect", "127.0.0.1",
	    port_text(), NULL), 1);
	ck_assert_msg(strstr(c.out, "connect: Connection refused") != NULL,
	    "%s", c.out);
	cmd_free(&c);
	ck_assert_int_eq(egress_run(&c, NULL, allow_opt("allowed.test"),
	    "--allow-host=127.0.0.1", "--", "connect", "192.0.2.1", "80",
	    NULL), 1);
	ck_assert_msg(strstr(c.out, "connect: Network is unreachable") != NULL,
	    "%s", c.out);
	cmd_free(&c);
}
END_TEST

START_TEST(half_open_flood_is_shed_and_counted)
{
	struct cmd c;

	/* 1,000 held half-open connections, then one real request. */
	ck_assert_int_eq(egress_run(&c, NULL, "--nofile=2048",
	    allow_opt("allowed.test"), "--allow-host=127.0.0.1", "--", "flood",
	    "1000", "allowed.test", port_text(), NULL), 0);
	ck_assert_msg(strstr(c.out, "half-open: 1000") != NULL, "%s", c.out);
	ck_assert_msg(strstr(c.out, "hello from upstream") != NULL, "%s",
	    c.out);
	ck_assert_int_eq(egress_count(c.out, "allowed"), 1);
	/* All but the last CORDON_PROXY_MAX_CONNS were shed at the cap. */
	ck_assert_int_ge(egress_count(c.out, "dropped"),
	    1000 - CORDON_PROXY_MAX_CONNS);
	cmd_free(&c);
}
END_TEST

START_TEST(slowloris_is_cut_at_the_header_timeout)
{
	struct cmd c;

	ck_assert_int_eq(egress_run(&c, "CORDON_TEST_PROXY_HEAD_MS=1000",
	    allow_opt("allowed.test"), "--allow-host=127.0.0.1", "--",
	    "slowloris", "allowed.test", port_text(), NULL), 0);
	ck_assert_msg(strstr(c.out, "slowloris: cut after") != NULL, "%s",
	    c.out);
	ck_assert_msg(strstr(c.out, "hello from upstream") != NULL, "%s",
	    c.out);
	ck_assert_int_ge(egress_count(c.out, "dropped"), 1);
	cmd_free(&c);
}
END_TEST

START_TEST(a_hung_lookup_does_not_stall_the_others)
{
	struct cmd c;
	char *ev;
	double other = 99;
	const char *p;

	/*
	 * hang.test's lookup never answers (the test resolver's "hang"):
	 * allowed.test, asked for meanwhile, still goes through at once,
	 * and hang.test's client gets a 504 when its wait is over.
	 */
	ck_assert_int_eq(egress_run(&c, "CORDON_TEST_PROXY_RESOLVE_MS=3000",
	    allow_opt("hang.test"), allow_opt("allowed.test"),
	    "--allow-host=127.0.0.1", "--", "stall", "hang.test",
	    "allowed.test", port_text(), NULL), 0);
	ck_assert_msg(strstr(c.out, "HTTP/1.1 200") != NULL &&
	    strstr(c.out, "hello from upstream") != NULL, "%s", c.out);
	ck_assert_ptr_nonnull(p = strstr(c.out, "other: answered in "));
	other = strtod(p + strlen("other: answered in "), NULL);
	ck_assert_msg(other < 2.0, "the other request waited %.1f s: %s",
	    other, c.out);
	ck_assert_msg(strstr(c.out, "stalled: HTTP/1.1 504 Gateway Timeout") !=
	    NULL, "%s", c.out);
	ck_assert_int_eq(egress_count(c.out, "allowed"), 1);
	ck_assert_int_eq(egress_count(c.out, "failed"), 1);
	ck_assert_ptr_nonnull(ev = egress_event("host=hang.test"));
	ck_assert_msg(strstr(ev, "verdict=failed") != NULL &&
	    strstr(ev, "no answer from the resolver in time") != NULL, "%s",
	    ev);
	free(ev);
	cmd_free(&c);
}
END_TEST

START_TEST(lookups_in_flight_are_bounded)
{
	struct cmd c;
	const char *p;
	int n = 0;

	/*
	 * As many hung lookups as there are resolver threads: a fifth name
	 * waits in the queue, never in a new thread, and gets its 504.
	 */
	ck_assert_int_eq(CORDON_PROXY_RESOLVERS, 4);
	ck_assert_int_eq(egress_run(&c, "CORDON_TEST_PROXY_RESOLVE_MS=2000",
	    allow_opt("*.test"), "--allow-host=127.0.0.1", "--", "stall",
	    "hang.test,hang2.test,hang3.test,hang4.test", "allowed.test",
	    port_text(), NULL), 0);
	ck_assert_msg(strstr(c.out, "hello from upstream") == NULL, "%s",
	    c.out);
	for (p = c.out; (p = strstr(p, "HTTP/1.1 504")) != NULL; p++)
		n++;
	ck_assert_msg(n == 5, "%d 504s: %s", n, c.out);
	ck_assert_int_eq(egress_count(c.out, "failed"), 5);
	cmd_free(&c);
}
END_TEST

START_TEST(an_idle_relay_is_cut)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	char port[16], *ev;
	struct cmd c;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	/*
	 * A server that never says a word (the kernel completes the
	 * handshake; nothing accepts): the relay moves no byte either way
	 * and is cut at the idle timeout, before the payload's own 5 s.
	 */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	snprintf(port, sizeof(port), "%d", ntohs(sin.sin_port));
	ck_assert_int_eq(egress_run(&c, "CORDON_TEST_PROXY_IDLE_MS=1000",
	    allow_opt("silent.test"), "--allow-host=127.0.0.1", "--", "proxy",
	    "connect", "silent.test", port, NULL), 0);
	ck_assert_msg(strstr(c.out, "HTTP/1.1 200") != NULL, "%s", c.out);
	ck_assert_ptr_nonnull(ev = egress_event("host=silent.test"));
	ck_assert_msg(strstr(ev, "verdict=allowed") != NULL &&
	    strstr(ev, "up=0 down=0 reason=cut: no byte moved for the idle "
	    "timeout") != NULL, "%s", ev);
	free(ev);
	cmd_free(&c);
	close(fd);
}
END_TEST

START_TEST(refusals_change_nothing)
{
	static const char *const bad[][2] = {
		{ "--network", "contradict" },
		{ "--backend=floor", "floor has no network boundary" },
		{ "--backend=landlock", "by port, not by address" },
	};
	char *argv[12];
	struct cmd c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		argv[0] = (char *)cordon_bin();
		argv[1] = "run";
		argv[2] = S.trace_opt;
		argv[3] = S.base_opt;
		argv[4] = "--allow-host=example.com";
		argv[5] = (char *)bad[i][0];
		argv[6] = "--";
		argv[7] = "/bin/true";
		argv[8] = NULL;
		ck_assert_int_eq(run_cmd(&c, argv, NULL), 125);
		ck_assert_msg(strstr(c.err, bad[i][1]) != NULL, "%s", c.err);
		cmd_free(&c);
	}
	argv[4] = "--allow-host=b\xc3\xbc" "cher.example";
	argv[5] = "--";
	argv[6] = "/bin/true";
	argv[7] = NULL;
	ck_assert_int_eq(run_cmd(&c, argv, NULL), 125);
	ck_assert_msg(strstr(c.err, "punycode") != NULL, "%s", c.err);
	cmd_free(&c);
	/* Refused before anything was recorded: not even a trace file. */
	ck_assert_int_ne(access(S.trace, F_OK), 0);
}
END_TEST

/* A file with text in it (made, or replaced). */
static void
put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* cordon run (trace, base) OPTS... with env: its exit status in c. */
static int
plain_run(struct cmd *c, char *const env[], ...)
{
	char *argv[MAXARGS];
	const char *a;
	va_list ap;
	int n = 0;

	argv[n++] = (char *)cordon_bin();
	argv[n++] = "run";
	argv[n++] = S.trace_opt;
	argv[n++] = S.base_opt;
	va_start(ap, env);
	while ((a = va_arg(ap, const char *)) != NULL && n < MAXARGS - 1)
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	return run_cmd(c, argv, env);
}

START_TEST(the_policy_ceiling_and_profiles)
{
	char conf[400], dir[500], env[420], xdg[520], path[600];
	char *e1[] = { env, NULL }, *e2[] = { env, xdg, hosts_env, NULL };
	struct cmd c;

	/* A system policy naming the hosts anyone may be allowed. */
	snprintf(conf, sizeof(conf), "%s/conf", S.root);
	ck_assert_int_eq(mkdir(conf, 0755), 0);
	snprintf(path, sizeof(path), "%s/policy.conf", conf);
	put_file(path, "[ceilings]\nallow_hosts_max = *.test, 127.0.0.0/8\n");
	snprintf(env, sizeof(env), "CORDON_CONFDIR=%s", conf);
	ck_assert_int_eq(plain_run(&c, e1, "--allow-host=evil.example", "--",
	    "/bin/true", NULL), 125);
	ck_assert_msg(strstr(c.err, "--allow-host evil.example is outside") !=
	    NULL, "%s", c.err);
	cmd_free(&c);
	ck_assert_int_eq(plain_run(&c, e1, "--allow-host=0.0.0.0/0", "--",
	    "/bin/true", NULL), 125);
	ck_assert_msg(strstr(c.err, "outside") != NULL, "%s", c.err);
	cmd_free(&c);
	ck_assert_int_ne(access(S.trace, F_OK), 0);

	/* Inside it, from a profile: the run goes through. */
	snprintf(dir, sizeof(dir), "%s/xdg", S.root);
	snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s", dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/cordon", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/cordon/profiles", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/cordon/profiles/gate.conf", dir);
	put_file(path, "[profile]\nallow_hosts = allowed.test\n"
	    "allow_hosts = 127.0.0.1\n");
	ck_assert_int_eq(plain_run(&c, e2, "--profile=gate",
	    "--backend=linux-ns", payload_bind, "--", "/srv/payload", "proxy",
	    "connect", "allowed.test", port_text(), NULL), 0);
	ck_assert_msg(strstr(c.out, "hello from upstream") != NULL, "%s %s",
	    c.out, c.err);
	cmd_free(&c);

	/* A bad pattern in a profile: named, with its file. */
	put_file(path, "[profile]\nallow_hosts = a..test\n");
	ck_assert_int_eq(plain_run(&c, e2, "--profile=gate", "--", "/bin/true",
	    NULL), 125);
	ck_assert_msg(strstr(c.err, "allow_hosts: 'a..test'") != NULL &&
	    strstr(c.err, "gate.conf") != NULL, "%s", c.err);
	cmd_free(&c);
	put_file(path, "[profile]\nallow_hosts = a.test, b.test\n");
	ck_assert_int_eq(plain_run(&c, e2, "--profile=gate", "--", "/bin/true",
	    NULL), 125);
	ck_assert_msg(strstr(c.err, "not one pattern") != NULL, "%s", c.err);
	cmd_free(&c);
}
END_TEST

/* Threads and fds of this process, for what a run leaves behind. */
static int
tasks(void)
{
	return dir_entries("/proc/self/task");
}

START_TEST(nothing_is_left_after_the_run)
{
	cordon_config *cfg = cordon_config_new();
	cordon_result *r = NULL;
	char *argv[] = { "/srv/payload", "proxy", "connect", "allowed.test",
		(char *)port_text(), NULL };
	int fds, threads;

	setenv("CORDON_TEST_HOSTS", hosts_path, 1);
	ck_assert_int_eq(cordon_config_set_trace_path(cfg, S.trace), 0);
	ck_assert_int_eq(cordon_config_set_workdir_base(cfg, S.base), 0);
	ck_assert_int_eq(cordon_config_set_backend(cfg,
	    CORDON_BACKEND_LINUX_NS), 0);
	ck_assert_int_eq(cordon_config_add_ro_bind(cfg, payload_bin(),
	    "/srv/payload"), 0);
	ck_assert_int_eq(cordon_config_allow_host(cfg, "allowed.test"), 0);
	ck_assert_int_eq(cordon_config_allow_host(cfg, "127.0.0.1"), 0);
	ck_assert_int_eq(cordon_config_allow_host(cfg, "bad host"),
	    -CORDON_E_INVAL);
	fds = open_fds();
	threads = tasks();
	ck_assert_int_eq(cordon_run(cfg, argv, &r), 0);
	ck_assert_int_eq(cordon_result_exit_code(r), 0);
	/* The proxy's thread joined, its listener and sockets closed. */
	ck_assert_int_eq(tasks(), threads);
	ck_assert_int_eq(open_fds(), fds);
	cordon_result_free(r);
	cordon_config_free(cfg);
	unsetenv("CORDON_TEST_HOSTS");
}
END_TEST

/* Whether a linux-ns run works here at all (else the runs are skipped). */
static bool
linux_ns_works(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "d=$(mktemp -d) && '%s' run "
	    "--trace=\"$d/t.db\" --workdir-base=\"$d/wd\" --backend=linux-ns "
	    "-- /bin/true; r=$?; rm -rf \"$d\"; exit $r", cordon_bin());
	return system(cmd) == 0;
}

int
main(void)
{
	Suite *s = suite_create("egress");
	TCase *unit = tcase_create("rules");
	TCase *runs = tcase_create("runs");
	SRunner *sr;
	bool ns = linux_ns_works();
	int failed;

	tcase_add_test(unit, patterns_parse_and_refuse);
	tcase_add_test(unit, suffix_edges);
	tcase_add_test(unit, address_ranges);
	tcase_add_test(unit, literal_addresses_and_cidrs);
	tcase_add_test(unit, test_resolver);
	tcase_add_test(unit, ceiling_coverage);
	tcase_add_test(unit, http_requests_parse);
	tcase_add_test(unit, socks_requests_parse);
	tcase_add_test(unit, fd_only_on_egress);
	tcase_add_test(unit, policy_check_parses_host_patterns);
	suite_add_tcase(s, unit);
	if (ns) {
		tcase_add_checked_fixture(runs, setup_runs, teardown_runs);
		tcase_set_timeout(runs, 120);
		tcase_add_test(runs, connect_to_an_allowed_name_works);
		tcase_add_test(runs, plain_http_is_forwarded_in_origin_form);
		tcase_add_test(runs, the_trace_names_the_allow_list);
		tcase_add_test(runs, a_name_not_on_the_list_is_refused);
		tcase_add_test(runs, suffix_through_the_proxy);
		tcase_add_test(runs, rebinding_to_special_addresses_is_refused);
		tcase_add_test(runs, socks5_by_name_works_and_by_denied_ip_not);
		tcase_add_test(runs, a_direct_connection_has_no_route);
		tcase_add_test(runs, half_open_flood_is_shed_and_counted);
		tcase_add_test(runs, slowloris_is_cut_at_the_header_timeout);
		tcase_add_test(runs, a_hung_lookup_does_not_stall_the_others);
		tcase_add_test(runs, lookups_in_flight_are_bounded);
		tcase_add_test(runs, an_idle_relay_is_cut);
		tcase_add_test(runs, refusals_change_nothing);
		tcase_add_test(runs, the_policy_ceiling_and_profiles);
		tcase_add_test(runs, nothing_is_left_after_the_run);
		suite_add_tcase(s, runs);
	} else {
		fprintf(stderr, "SKIP: the linux-ns backend cannot be built on "
		    "this host: the runs through the proxy were not tested "
		    "(only the rules and parsers were)\n");
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	/* Runs not tested are a skip, never a pass. */
	return failed != 0 ? 1 : ns ? 0 : 77;
}
