/*
 * mkseeds.c - writes the seed corpora of the fuzz harnesses.
 *
 *   tests/fuzz/mkseeds DIR       (make fuzz-seeds: DIR is tests/fuzz/corpus)
 *
 * Seeds are made with the real encoder, so they stay valid when the
 * protocol changes: rerun it (and commit the result) after changing
 * common/wire.c.  Each harness gets every valid shape it can read and a
 * few near misses, named for what they are; libFuzzer starts from these.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frame.h"
#include "wire.h"

#define RUN_ID "0123456789abcdef0123456789abcdef"

static const char *outdir;

static void
write_file(const char *target, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, target);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
	if ((f = fopen(path, "wb")) == NULL ||
	    (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static struct cordon_buf
encode(const struct cordon_msg *m)
{
	struct cordon_buf b;

	if (cordon_msg_encode(m, &b) < 0) {
		fprintf(stderr, "cannot encode message type %u\n", m->type);
		exit(1);
	}
	return b;
}

/* --- wire: single datagrams ------------------------------------------ */

static void
wire(const char *name, const struct cordon_msg *m)
{
	struct cordon_buf b = encode(m);

	write_file("wire", name, b.d, b.len);
	cordon_buf_free(&b);
}

static void
request(struct cordon_msg *m, uint32_t argc, uint32_t envc)
{
	memset(m, 0, sizeof(*m));
	m->type = CORDON_MSG_REQUEST;
	m->u.request.flags = 0;
	m->u.request.backend = CORDON_BACKEND_AUTO;
	cordon_limits_default(&m->u.request.limits);
	m->u.request.run_id = RUN_ID;
	m->u.request.workdir_base = "/tmp/cordon-0";
	m->u.request.argc = argc;
	m->u.request.envc = envc;
}

static void
str_msg(struct cordon_msg *m, uint16_t type, const char *s)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->u.str = (char *)(uintptr_t)s;
}

static void
wire_seeds(void)
{
	static const uint8_t bad_version[] = { 0, 2, 0, 2, 0, 0, 0, 0 };
	static const uint8_t bad_type[] = { 0, 1, 0, 99 };
	static const uint8_t nul_in_string[] = { 0, 1, 0, 2, 0, 0, 0, 3,
	    'a', 0, 'b' };
	static const uint8_t long_string[] = { 0, 1, 0, 2, 0xff, 0xff, 0xff,
	    0xff, 'a' };
	uint8_t frame[64];
	struct cordon_msg m;
	struct cordon_buf b;

	request(&m, 2, 1);
	wire("request", &m);
	m.u.request.flags = CORDON_REQ_NETWORK;
	m.u.request.backend = CORDON_BACKEND_FLOOR;
	m.u.request.limits.nproc = 64;
	wire("request-network-floor-nproc", &m);
	m.u.request.require = 1U << CORDON_CAP_NETWORK | 1U << CORDON_CAP_NPROC;
	m.u.request.env_explicit = 1;
	wire("request-require-env-explicit", &m);
	str_msg(&m, CORDON_MSG_ARG, "/bin/sh");
	wire("arg", &m);
	str_msg(&m, CORDON_MSG_ARG, "");
	wire("arg-empty", &m);
	str_msg(&m, CORDON_MSG_ENV, "PATH=/usr/bin:/bin");
	wire("env", &m);
	str_msg(&m, CORDON_MSG_GC, "/run/user/1000/cordon");
	wire("gc", &m);
	str_msg(&m, CORDON_MSG_WORKDIR, "/run/user/1000/cordon/" RUN_ID);
	wire("workdir", &m);
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_GO;
	wire("go", &m);
	m.type = CORDON_MSG_BIND;
	m.u.bind.src = "/home/me/data";
	m.u.bind.dest = "/data";
	wire("bind", &m);
	m.u.bind.dest = "/data/../etc";
	wire("bind-dotdot", &m);
	request(&m, 1, 0);
	m.u.request.flags = CORDON_REQ_COPY_IN | CORDON_REQ_COPY_OUT;
	m.u.request.limits.output_bytes = 1 << 20;
	m.u.request.limits.disk_bytes = 10 << 20;
	m.u.request.bindc = 2;
	wire("request-files-output-disk", &m);

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_BACKEND;
	m.u.backend.backend = CORDON_BACKEND_FLOOR;
	m.u.backend.applied = 1U << CORDON_CAP_CPU | 1U << CORDON_CAP_WALL;
	m.u.backend.reason = "the only backend in this build";
	wire("backend", &m);

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_CREATED;
	m.u.created.workdir = "/tmp/cordon-0/" RUN_ID;
	m.u.created.pid = 4242;
	wire("created", &m);

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_CAP_HIT;
	m.u.cap_hit.cap = CORDON_CAP_MEMORY;
	m.u.cap_hit.observed = 3ULL << 30;
	m.u.cap_hit.limit = 2ULL << 30;
	wire("cap-hit", &m);

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_EXIT;
	m.u.exit.outcome = CORDON_OUTCOME_EXITED;
	m.u.exit.cap = CORDON_CAP_NONE;
	m.u.exit.exit_code = 3;
	m.u.exit.cpu_ns = 12345678;
	m.u.exit.wall_ns = 23456789;
	m.u.exit.max_rss = 1 << 20;
	wire("exit-exited", &m);
	m.u.exit.outcome = CORDON_OUTCOME_SIGNALED;
	m.u.exit.exit_code = -1;
	m.u.exit.signal = 15;
	wire("exit-signaled", &m);
	m.u.exit.outcome = CORDON_OUTCOME_CAP_HIT;
	m.u.exit.cap = CORDON_CAP_WALL;
	m.u.exit.signal = 9;
	wire("exit-cap-hit", &m);
	m.u.exit.outcome = CORDON_OUTCOME_SANDBOX_ERROR;
	m.u.exit.cap = CORDON_CAP_NONE;
	m.u.exit.signal = 0;
	m.u.exit.error = "cannot start the payload";
	wire("exit-sandbox-error", &m);

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_TEARDOWN;
	m.u.teardown.ok = 1;
	wire("teardown-ok", &m);
	m.u.teardown.ok = 0;
	m.u.teardown.error = "workdir NOT removed";
	wire("teardown-failed", &m);

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_ERROR;
	m.u.error.err = 13;
	m.u.error.message = "permission denied";
	wire("error", &m);

	/* Near misses: each one check away from valid. */
	write_file("wire", "bad-version", bad_version, sizeof(bad_version));
	write_file("wire", "bad-type", bad_type, sizeof(bad_type));
	write_file("wire", "nul-in-string", nul_in_string,
	    sizeof(nul_in_string));
	write_file("wire", "string-longer-than-frame", long_string,
	    sizeof(long_string));
	str_msg(&m, CORDON_MSG_ARG, "x");
	b = encode(&m);
	if (b.len >= sizeof(frame))
		exit(1);
	memcpy(frame, b.d, b.len);
	frame[b.len] = 'x';
	write_file("wire", "trailing-byte", frame, b.len + 1);
	write_file("wire", "truncated", frame, b.len - 1);
	cordon_buf_free(&b);
	write_file("wire", "empty", "", 0);
}

/* --- frame: byte streams of length-prefixed frames ----------------- */

/*
 * A stream: the read size byte fuzz_frame.c takes first, then frames
 * (each made by the real framer) and raw bytes.
 */
struct stream {
	uint8_t d[4096];
	size_t n;
};

static void
stream_bytes(struct stream *st, const void *p, size_t n)
{
	if (st->n + n > sizeof(st->d)) {
		fprintf(stderr, "frame seed too long\n");
		exit(1);
	}
	memcpy(st->d + st->n, p, n);
	st->n += n;
}

static void
stream_msg(struct stream *st, const struct cordon_msg *m)
{
	struct cordon_buf b;

	if (cordon_frame_encode(m, &b) < 0) {
		fprintf(stderr, "cannot frame message type %u\n", m->type);
		exit(1);
	}
	stream_bytes(st, b.d, b.len);
	cordon_buf_free(&b);
}

static void
frame_seeds(void)
{
#define MAXP1 (CORDON_WIRE_MAX_FRAME + 1U)
	static const struct { const char *name; uint8_t d[8]; size_t n; } bad[] = {
		{ "length-over-max", { (uint8_t)(MAXP1 >> 24),
		    (uint8_t)(MAXP1 >> 16), (uint8_t)(MAXP1 >> 8),
		    (uint8_t)MAXP1, 0, 1, 0, 2 }, 8 },
		{ "length-all-ones", { 0xff, 0xff, 0xff, 0xff, 0, 1 }, 6 },
		{ "length-zero", { 0, 0, 0, 0, 0, 1, 0, 7 }, 8 },
		{ "length-under-header", { 0, 0, 0, 3, 0, 1, 0 }, 7 },
		{ "half-a-length", { 0, 0 }, 2 },
	};
#undef MAXP1
	struct cordon_msg m;
	struct stream st;
	uint8_t step;
	size_t i;

	/* A request train, read 1, 7 and 256 bytes at a time. */
	for (step = 0; step < 3; step++) {
		st.n = 0;
		stream_bytes(&st, step == 0 ? "\x00" : step == 1 ?
		    "\x06" : "\xff", 1);
		request(&m, 2, 1);
		stream_msg(&st, &m);
		str_msg(&m, CORDON_MSG_ARG, "/bin/echo");
		stream_msg(&st, &m);
		str_msg(&m, CORDON_MSG_ARG, "hi");
		stream_msg(&st, &m);
		str_msg(&m, CORDON_MSG_ENV, "PATH=/usr/bin:/bin");
		stream_msg(&st, &m);
		memset(&m, 0, sizeof(m));
		m.type = CORDON_MSG_GO;
		stream_msg(&st, &m);
		write_file("frame", step == 0 ? "request-train-1" : step == 1 ?
		    "request-train-7" : "request-train-256", st.d, st.n);
	}

	/* The helper's events, then the stream cut inside a frame. */
	st.n = 0;
	stream_bytes(&st, "\x02", 1);
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_BACKEND;
	m.u.backend.backend = CORDON_BACKEND_FLOOR;
	m.u.backend.applied = 1U << CORDON_CAP_CPU;
	m.u.backend.reason = "no namespaces";
	stream_msg(&st, &m);
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_TEARDOWN;
	m.u.teardown.ok = 1;
	m.u.teardown.error = "";
	stream_msg(&st, &m);
	write_file("frame", "events", st.d, st.n);
	write_file("frame", "events-cut", st.d, st.n - 3);

	/* Near misses: lengths refused before anything is allocated. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st.n = 0;
		stream_bytes(&st, "\x03", 1);
		stream_bytes(&st, bad[i].d, bad[i].n);
		write_file("frame", bad[i].name, st.d, st.n);
	}
}

/* --- intake: datagram sequences ------------------------------------- */

struct seq {
	uint8_t d[8192];
	size_t n;
};

static void
seq_add(struct seq *s, const struct cordon_msg *m)
{
	struct cordon_buf b = encode(m);

	if (s->n + 2 + b.len > sizeof(s->d)) {
		fprintf(stderr, "intake seed too long\n");
		exit(1);
	}
	s->d[s->n++] = (uint8_t)(b.len >> 8);
	s->d[s->n++] = (uint8_t)b.len;
	memcpy(s->d + s->n, b.d, b.len);
	s->n += b.len;
	cordon_buf_free(&b);
}

static void
seq_request(struct seq *s, const char *const *argv, uint32_t argc,
    const char *const *envp, uint32_t envc)
{
	struct cordon_msg m;
	uint32_t i;

	s->n = 0;
	request(&m, argc, envc);
	seq_add(s, &m);
	for (i = 0; i < argc; i++) {
		str_msg(&m, CORDON_MSG_ARG, argv[i]);
		seq_add(s, &m);
	}
	for (i = 0; i < envc; i++) {
		str_msg(&m, CORDON_MSG_ENV, envp[i]);
		seq_add(s, &m);
	}
}

static void
intake_seeds(void)
{
	static const char *const argv[] = { "/bin/sh", "-c", "echo hi" };
	static const char *const envp[] = { "PATH=/usr/bin:/bin", "LANG=C",
	    "LC_ALL=C.UTF-8", "TERM=xterm" };
	static const char *const not_allowed[] = { "LD_PRELOAD=/tmp/x.so" };
	static const char *const proxy[] = { "HTTP_PROXY=http://p:3128" };
	static const char *const twice[] = { "LANG=C", "LANG=en_US.UTF-8" };
	static const char *const explicit_env[] = { "LANG=C",
	    "CARGO_NET_OFFLINE=true", "http_proxy=http://explicit:1" };
	static const char *const empty_cmd[] = { "" };
	static const uint8_t eof_first[] = { 0, 0 };
	struct cordon_msg m;
	struct seq s;
	uint32_t i;

	seq_request(&s, argv, 3, envp, 4);
	write_file("intake", "request", s.d, s.n);
	seq_request(&s, argv, 1, NULL, 0);
	write_file("intake", "request-no-env", s.d, s.n);
	seq_request(&s, argv, 3, envp, 2);
	s.n -= 10; /* the last ENV cut short */
	write_file("intake", "request-truncated", s.d, s.n);
	seq_request(&s, argv, 3, not_allowed, 1);
	write_file("intake", "env-not-allowed", s.d, s.n);
	seq_request(&s, argv, 3, proxy, 1);
	write_file("intake", "env-proxy", s.d, s.n);
	/* Explicit entries (--env, a profile): any settable name, a proxy too. */
	s.n = 0;
	request(&m, 3, 3);
	m.u.request.env_explicit = 2;
	m.u.request.require = 1U << CORDON_CAP_NETWORK | 1U << CORDON_CAP_MEMORY;
	seq_add(&s, &m);
	for (i = 0; i < 3; i++) {
		str_msg(&m, CORDON_MSG_ARG, argv[i]);
		seq_add(&s, &m);
	}
	for (i = 0; i < 3; i++) {
		str_msg(&m, CORDON_MSG_ENV, explicit_env[i]);
		seq_add(&s, &m);
	}
	write_file("intake", "env-explicit", s.d, s.n);
	/* An explicit HOME (the helper sets it) is refused. */
	s.n = 0;
	request(&m, 1, 1);
	m.u.request.env_explicit = 1;
	seq_add(&s, &m);
	str_msg(&m, CORDON_MSG_ARG, argv[0]);
	seq_add(&s, &m);
	str_msg(&m, CORDON_MSG_ENV, "HOME=/root");
	seq_add(&s, &m);
	write_file("intake", "env-explicit-home", s.d, s.n);
	seq_request(&s, argv, 3, twice, 2);
	write_file("intake", "env-twice", s.d, s.n);
	seq_request(&s, empty_cmd, 1, NULL, 0);
	write_file("intake", "empty-command", s.d, s.n);

	/* An ENV where an ARG belongs. */
	s.n = 0;
	request(&m, 1, 0);
	seq_add(&s, &m);
	str_msg(&m, CORDON_MSG_ENV, "PATH=/bin");
	seq_add(&s, &m);
	write_file("intake", "wrong-type", s.d, s.n);

	s.n = 0;
	str_msg(&m, CORDON_MSG_GC, "/tmp/cordon-0");
	seq_add(&s, &m);
	write_file("intake", "gc", s.d, s.n);
	s.n = 0;
	str_msg(&m, CORDON_MSG_GC, "/tmp/../etc");
	seq_add(&s, &m);
	write_file("intake", "gc-dotdot", s.d, s.n);

	/* Two ro-binds after the request; then one out of bounds. */
	s.n = 0;
	request(&m, 1, 0);
	m.u.request.bindc = 2;
	m.u.request.limits.disk_bytes = 10 << 20;
	m.u.request.limits.output_bytes = 1 << 20;
	seq_add(&s, &m);
	str_msg(&m, CORDON_MSG_ARG, "true");
	seq_add(&s, &m);
	m.type = CORDON_MSG_BIND;
	m.u.bind.src = "/srv/data";
	m.u.bind.dest = "/data";
	seq_add(&s, &m);
	m.u.bind.src = "/etc/hostname";
	m.u.bind.dest = "/x/y/hostname";
	seq_add(&s, &m);
	write_file("intake", "binds", s.d, s.n);
	s.n -= 30;
	write_file("intake", "binds-truncated", s.d, s.n);

	write_file("intake", "eof-first", eof_first, sizeof(eof_first));
}

/* --- parse: texts ----------------------------------------------------- */

static void
parse_seeds(void)
{
	static const char *const texts[] = {
		"0", "4096", "512K", "512KB", "512KiB", "2M", "1.5G", "2GiB",
		"1T", "16777215T", "18446744073709551615",
		"18446744073709551616", "1.5", "90s", "500ms", "2m", "1h",
		"0.000000001", "1.0000000001", "1e3", " 5", "5 ", "+5", "-5",
		"0x10", ".5", "5.", "1..5", "1.5B", "007",
	};
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		snprintf(name, sizeof(name), "text-%02zu", i);
		write_file("parse", name, texts[i], strlen(texts[i]));
	}
}

/* --- policy: whole files, the first byte the kind asked for ---------- */

static void
policy_seeds(void)
{
	static const char *const texts[] = {
		/* any */
		"\0[ceilings]\nmax_cpu = 1h\nmax_wall = 2h\nmax_memory = 16G\n"
		"max_nofile = 65536\nmax_nproc = 4096\n[policy]\n"
		"allow_groups = *\nnetwork_groups = wheel, 1000, build$\n"
		"require = network-isolation, memory, processes\n"
		"cgroup_parent = /cordon.slice\n",
		"\0# comment\n; comment\n\n[profile]\ncpu = 10m\nwall = 1.5\n"
		"memory = 512MiB\nnofile = 4096\nnproc = 0\nnetwork = no\n"
		"backend = linux-ns\nrequire = scoping, nofile\n"
		"env = CARGO_NET_OFFLINE=true\nenv = A=b=c\nkeep_env = CC\n",
		"\0[profile]\n[policy]\n",
		"\0[profile]\r\ncpu = 1\r\n",
		"\0[bogus]\n",
		"\0cpu = 1\n",
		"\0[profile]\ncpu = 1\ncpu = 2\n",
		"\0[profile]\nenv = HOME=/x\nkeep_env = http_proxy\n",
		"\0[policy]\nallow_groups =\nnetwork_groups = *, x\n",
		"\0[ceilings]\nmax_nproc = 0\nmax_memory = 99999999999999999999\n",
		/* policy */
		"\1",
		"\1[policy]\nrequire =\n",
		"\1[profile]\n",
		/* profile */
		"\2[profile]\nnetwork = yes\nbackend = floor\n",
		"\2[ceilings]\n",
		"\2[profile]\nmemory 1G\n",
	};
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		snprintf(name, sizeof(name), "file-%02zu", i);
		/* The kind byte may be NUL: strlen from the text after it. */
		write_file("policy", name, texts[i], 1 + strlen(texts[i] + 1));
	}
	/* A NUL inside a line. */
	write_file("policy", "nul-in-line", "\2[profile]\ncpu = 1\0s\n", 21);
}

/* --- proxy: a reader byte (0 HTTP, 1 SOCKS5, 2 name), then bytes --- */

static void
proxy_seeds(void)
{
	static const struct { const char *text; size_t n; } t[] = {
#define T(s) { s, sizeof(s) - 1 }
		T("\0CONNECT a.example.com:443 HTTP/1.1\r\nHost: a\r\n\r\n"),
		T("\0CONNECT [::1]:22 HTTP/1.1\r\n\r\n"),
		T("\0CONNECT 10.0.0.1:8080 HTTP/1.0\r\n\r\nearly data"),
		T("\0GET http://b.test:8080/x?y HTTP/1.1\r\nHost: b\r\n\r\n"),
		T("\0GET http://b.test HTTP/1.1\r\n\r\n"),
		T("\0GET http://u:p@b.test/ HTTP/1.1\r\n\r\n"),
		T("\0GET https://b.test/ HTTP/1.1\r\n\r\n"),
		T("\0CONNECT a.test HTTP/1.1\r\n\r\n"),
		T("\0CONNECT a.test:443 HTTP/1.1\r\n"),
		T("\0CONNECT a\rb:1 HTTP/1.1\r\n\r\n"),
		T("\1\x05\x01\x00\x05\x01\x00\x03\x06a.test\x01\xbb"),
		T("\1\x05\x02\x02\x00\x05\x01\x00\x01\xc0\x00\x02\x01\x00\x50"),
		T("\1\x05\x01\x00\x05\x01\x00\x04"
		    "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01\x00\x50"),
		T("\1\x05\x01\x02"),
		T("\1\x05\x01\x00\x05\x02\x00\x01\x01\x02\x03\x04\x00\x50"),
		T("\1\x05\x01\x00\x05\x01\x00\x03\x00\x00\x50"),
		T("\2A.Example.COM."),
		T("\2xn--bcher-kva.example"),
		T("\2b\xc3\xbc" "cher.example"),
		T("\2a..b"),
		T("\2."),
#undef T
	};
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(name, sizeof(name), "req-%02zu", i);
		write_file("proxy", name, t[i].text, t[i].n);
	}
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0755) < 0 && errno != EEXIST) {
		perror(outdir);
		return 1;
	}
	wire_seeds();
	frame_seeds();
	intake_seeds();
	parse_seeds();
	policy_seeds();
	proxy_seeds();
	return 0;
}
