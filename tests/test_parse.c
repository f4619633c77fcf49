/*
 * test_parse.c - tests for common/parse.c, the names and bounds in
 * common/ids.c and common/types.c, and the environment allow-list in
 * policy/env.c.
 *
 * Every parser is checked on what it accepts (value exact), on what it
 * refuses (code exact), and that a refusal leaves *out untouched.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "env.h"
#include "parse.h"
#include "types.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* What a refused parse must leave in *out. */
#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define TiB (1ULL << 40)
#define SEC CORDON_NS_PER_SEC

struct ok { const char *s; uint64_t want; };
struct bad { const char *s; int err; };

typedef int (*parser)(const char *, uint64_t *);

static void
expect_ok(parser p, const char *name, const struct ok *c)
{
	uint64_t v = SENTINEL;
	int r = p(c->s, &v);

	ck_assert_msg(r == 0, "%s(\"%s\") = %d (%s), want success",
	    name, c->s, r, cordon_strerror(r));
	ck_assert_msg(v == c->want, "%s(\"%s\") gave %ju, want %ju",
	    name, c->s, (uintmax_t)v, (uintmax_t)c->want);
}

static void
expect_bad(parser p, const char *name, const struct bad *c)
{
	uint64_t v = SENTINEL;
	int r = p(c->s, &v);

	ck_assert_msg(r == c->err, "%s(\"%s\") = %d (%s), want %d (%s)",
	    name, c->s == NULL ? "(null)" : c->s, r, cordon_strerror(r),
	    c->err, cordon_strerror(c->err));
	ck_assert_msg(v == SENTINEL, "%s(\"%s\") wrote %ju to *out on error",
	    name, c->s == NULL ? "(null)" : c->s, (uintmax_t)v);
}

/* ======================================================================== */
/* cordon_parse_size                                                        */
/* ======================================================================== */

static const struct ok size_ok[] = {
	{ "0", 0 },
	{ "4096", 4096 },
	{ "512K", 512 * KiB },
	{ "512M", 512 * MiB },
	{ "2G", 2 * GiB },
	{ "1.5G", 1610612736ULL },
	{ "1T", TiB },
	{ "512MiB", 512 * MiB },
	{ "2GB", 2 * GiB },
	{ "1B", 1 },
	{ "0B", 0 },
	{ "1K", KiB }, { "1KB", KiB }, { "1KiB", KiB },
	{ "1M", MiB }, { "1MB", MiB }, { "1MiB", MiB },
	{ "1G", GiB }, { "1GiB", GiB },
	{ "1TB", TiB }, { "1TiB", TiB },
	{ "0.5K", 512 },
	{ "1.5K", 1536 },
	{ "0.25M", 256 * KiB },
	{ "2.125G", 2 * GiB + GiB / 8 },
	{ "18446744073709551615", UINT64_MAX },
	{ "18446744073709551615B", UINT64_MAX },
	{ "16777215T", 16777215ULL * TiB },
	{ "17179869183G", 17179869183ULL * GiB },
};

static const struct bad size_inval[] = {
	{ "", -CORDON_E_INVAL },
	{ NULL, -CORDON_E_INVAL },
	{ " 5", -CORDON_E_INVAL },
	{ "5 ", -CORDON_E_INVAL },
	{ "\t5", -CORDON_E_INVAL },
	{ "5\n", -CORDON_E_INVAL },
	{ "+5", -CORDON_E_INVAL },
	{ "-5", -CORDON_E_INVAL },
	{ "-0", -CORDON_E_INVAL },
	{ "1e3", -CORDON_E_INVAL },
	{ "0x10", -CORDON_E_INVAL },
	{ "5X", -CORDON_E_INVAL },
	{ "1.", -CORDON_E_INVAL },
	{ "1.K", -CORDON_E_INVAL },
	{ ".5", -CORDON_E_INVAL },
	{ ".5K", -CORDON_E_INVAL },
	{ "1.5", -CORDON_E_INVAL },     /* a fraction of a byte */
	{ "1.5B", -CORDON_E_INVAL },
	{ "0.5B", -CORDON_E_INVAL },
	{ "1.2.3", -CORDON_E_INVAL },
	{ "1,5G", -CORDON_E_INVAL },
	{ "K", -CORDON_E_INVAL },
	{ "B", -CORDON_E_INVAL },
	{ "5KK", -CORDON_E_INVAL },
	{ "5 K", -CORDON_E_INVAL },
	{ "5K ", -CORDON_E_INVAL },
	{ "5Ki", -CORDON_E_INVAL },
	{ "5iB", -CORDON_E_INVAL },
	{ "5KB5", -CORDON_E_INVAL },
	{ "5P", -CORDON_E_INVAL },
	{ "inf", -CORDON_E_INVAL },
	{ "nan", -CORDON_E_INVAL },
};

/* Overflow is out of range, not a syntax error. */
static const struct bad size_range[] = {
	{ "20000000T", -CORDON_E_RANGE },
	{ "16777216T", -CORDON_E_RANGE },       /* exactly 2^64 */
	{ "17179869184G", -CORDON_E_RANGE },    /* exactly 2^64 */
	{ "18014398509481984K", -CORDON_E_RANGE },
	{ "18446744073709551616", -CORDON_E_RANGE },    /* 2^64 */
	{ "18446744073709551616B", -CORDON_E_RANGE },
	{ "99999999999999999999999999", -CORDON_E_RANGE },
	{ "18446744073709551616.5K", -CORDON_E_RANGE },
};

START_TEST(t_size_ok)
{
	expect_ok(cordon_parse_size, "size", &size_ok[_i]);
}
END_TEST

START_TEST(t_size_inval)
{
	expect_bad(cordon_parse_size, "size", &size_inval[_i]);
}
END_TEST

START_TEST(t_size_range)
{
	expect_bad(cordon_parse_size, "size", &size_range[_i]);
}
END_TEST

/* ======================================================================== */
/* cordon_parse_duration                                                    */
/* ======================================================================== */

static const struct ok dur_ok[] = {
	{ "1.5", 1500000000ULL },
	{ "90s", 90 * SEC },
	{ "500ms", 500000000ULL },
	{ "2m", 120 * SEC },
	{ "1h", 3600 * SEC },
	{ "0.001", 1000000ULL },
	{ "1.25ms", 1250000ULL },
	{ "0", 0 },
	{ "0s", 0 },
	{ "1", SEC },
	{ "1ms", 1000000ULL },
	{ "0.000000001", 1 },
	{ "1.000000001s", SEC + 1 },
	{ "0.123456789", 123456789ULL },
	{ "1.5m", 90 * SEC },
	{ "0.5h", 1800 * SEC },
	{ "168h", CORDON_MAX_TIME_NS },
	{ "18446744073", 18446744073ULL * SEC },
	{ "18446744073.709551615", UINT64_MAX },
	{ "5124095h", 5124095ULL * 3600 * SEC },
};

static const struct bad dur_inval[] = {
	{ "", -CORDON_E_INVAL },
	{ NULL, -CORDON_E_INVAL },
	{ "1.", -CORDON_E_INVAL },
	{ "1.s", -CORDON_E_INVAL },
	{ ".5", -CORDON_E_INVAL },
	{ "abc", -CORDON_E_INVAL },
	{ "5 s", -CORDON_E_INVAL },
	{ " 5", -CORDON_E_INVAL },
	{ "5 ", -CORDON_E_INVAL },
	{ "-1", -CORDON_E_INVAL },
	{ "+1", -CORDON_E_INVAL },
	{ "1.0000000001", -CORDON_E_INVAL },    /* finer than a nanosecond */
	{ "5d", -CORDON_E_INVAL },
	{ "5S", -CORDON_E_INVAL },
	{ "5sec", -CORDON_E_INVAL },
	{ "5min", -CORDON_E_INVAL },
	{ "5us", -CORDON_E_INVAL },
	{ "5ns", -CORDON_E_INVAL },
	{ "1h30m", -CORDON_E_INVAL },
	{ "1.5.5", -CORDON_E_INVAL },
	{ "1e3", -CORDON_E_INVAL },
	{ "0x10", -CORDON_E_INVAL },
	{ "s", -CORDON_E_INVAL },
	{ "ms", -CORDON_E_INVAL },
	{ "inf", -CORDON_E_INVAL },
};

static const struct bad dur_range[] = {
	{ "18446744074", -CORDON_E_RANGE },
	{ "18446744074s", -CORDON_E_RANGE },
	{ "18446744073.709551616", -CORDON_E_RANGE },   /* 2^64 ns */
	{ "5124096h", -CORDON_E_RANGE },
	{ "307445735m", -CORDON_E_RANGE },
	{ "18446744073710ms", -CORDON_E_RANGE },
	{ "18446744073709551616", -CORDON_E_RANGE },
	{ "99999999999999999999ms", -CORDON_E_RANGE },
};

START_TEST(t_dur_ok)
{
	expect_ok(cordon_parse_duration, "duration", &dur_ok[_i]);
}
END_TEST

START_TEST(t_dur_inval)
{
	expect_bad(cordon_parse_duration, "duration", &dur_inval[_i]);
}
END_TEST

START_TEST(t_dur_range)
{
	expect_bad(cordon_parse_duration, "duration", &dur_range[_i]);
}
END_TEST

/* ======================================================================== */
/* cordon_parse_count                                                       */
/* ======================================================================== */

static const struct ok count_ok[] = {
	{ "0", 0 },
	{ "512", 512 },
	{ "1", 1 },
	{ "4194304", 4194304 },
	{ "18446744073709551615", UINT64_MAX },
};

static const struct bad count_bad[] = {
	{ "", -CORDON_E_INVAL },
	{ NULL, -CORDON_E_INVAL },
	{ "1.5", -CORDON_E_INVAL },
	{ "1.", -CORDON_E_INVAL },
	{ "-1", -CORDON_E_INVAL },
	{ "+1", -CORDON_E_INVAL },
	{ " 1", -CORDON_E_INVAL },
	{ "1 ", -CORDON_E_INVAL },
	{ "1k", -CORDON_E_INVAL },
	{ "1K", -CORDON_E_INVAL },
	{ "1e3", -CORDON_E_INVAL },
	{ "0x10", -CORDON_E_INVAL },
	{ "1,000", -CORDON_E_INVAL },
	{ "abc", -CORDON_E_INVAL },
	{ "18446744073709551616", -CORDON_E_RANGE },
	{ "99999999999999999999", -CORDON_E_RANGE },
	{ "184467440737095516150", -CORDON_E_RANGE },
};

START_TEST(t_count_ok)
{
	expect_ok(cordon_parse_count, "count", &count_ok[_i]);
}
END_TEST

START_TEST(t_count_bad)
{
	expect_bad(cordon_parse_count, "count", &count_bad[_i]);
}
END_TEST

/* ======================================================================== */
/* names (common/ids.c)                                                     */
/* ======================================================================== */

START_TEST(t_backend_names)
{
	static const char *const want[CORDON_BACKEND_MAX_] = {
		"auto", "linux-ns", "landlock", "floor", "job", "appcontainer",
		"seatbelt",
	};
	int i;

	for (i = 0; i < CORDON_BACKEND_MAX_; i++) {
		ck_assert_str_eq(cordon_backend_name(i), want[i]);
		ck_assert_int_eq(cordon_backend_from_name(want[i]), i);
		/* And back again from whatever the name function says. */
		ck_assert_int_eq(cordon_backend_from_name(cordon_backend_name(i)), i);
	}
	ck_assert_str_eq(cordon_backend_name(-1), "unknown");
	ck_assert_str_eq(cordon_backend_name(CORDON_BACKEND_MAX_), "unknown");
	ck_assert_str_eq(cordon_backend_name(INT_MAX), "unknown");
	ck_assert_str_eq(cordon_backend_name(INT_MIN), "unknown");
}
END_TEST

START_TEST(t_backend_unknown_name)
{
	static const char *const bad[] = {
		"", "unknown", "Auto", "AUTO", "Floor", "linux_ns", "linuxns",
		"linux", "ns", " floor", "floor ", "floor\n", "landlock2",
		"landloc", "none", "0", "1",
	};
	int i;

	ck_assert_int_eq(cordon_backend_from_name(NULL), -CORDON_E_INVAL);
	for (i = 0; i < N(bad); i++)
		ck_assert_msg(cordon_backend_from_name(bad[i]) == -CORDON_E_INVAL,
		    "backend \"%s\" accepted", bad[i]);
}
END_TEST

/* These strings are stored in traces and JSON: they are API. */
START_TEST(t_cap_outcome_names)
{
	static const char *const caps[CORDON_CAP_MAX_] = {
		"none", "cpu", "wall", "memory", "nofile", "processes", "network",
		"output", "disk", "filesystem", "scoping",
	};
	static const char *const outcomes[CORDON_OUTCOME_MAX_] = {
		NULL, "exited", "signaled", "cap_hit", "sandbox_error",
	};
	int i;

	for (i = 0; i < CORDON_CAP_MAX_; i++)
		ck_assert_str_eq(cordon_cap_name(i), caps[i]);
	ck_assert_str_eq(cordon_cap_name(-1), "unknown");
	ck_assert_str_eq(cordon_cap_name(CORDON_CAP_MAX_), "unknown");
	ck_assert_str_eq(cordon_cap_name(INT_MIN), "unknown");

	for (i = CORDON_OUTCOME_EXITED; i < CORDON_OUTCOME_MAX_; i++)
		ck_assert_str_eq(cordon_outcome_name(i), outcomes[i]);
	ck_assert_str_eq(cordon_outcome_name(0), "unknown");
	ck_assert_str_eq(cordon_outcome_name(-1), "unknown");
	ck_assert_str_eq(cordon_outcome_name(CORDON_OUTCOME_MAX_), "unknown");
}
END_TEST

START_TEST(t_strerror)
{
	int i, j;

	for (i = 0; i < CORDON_E_MAX_; i++) {
		ck_assert_str_ne(cordon_strerror(i), "unknown");
		/* Codes are returned negated; both spellings work. */
		ck_assert_str_eq(cordon_strerror(-i), cordon_strerror(i));
		for (j = 0; j < i; j++)
			ck_assert_str_ne(cordon_strerror(i), cordon_strerror(j));
	}
	ck_assert_str_eq(cordon_strerror(CORDON_E_MAX_), "unknown");
	ck_assert_str_eq(cordon_strerror(-CORDON_E_MAX_), "unknown");
	ck_assert_str_eq(cordon_strerror(INT_MAX), "unknown");
	ck_assert_str_eq(cordon_strerror(-INT_MAX), "unknown");
}
END_TEST

/* Any int is a valid argument, including the one that cannot be negated. */
START_TEST(t_strerror_int_min)
{
	ck_assert_str_eq(cordon_strerror(INT_MIN), "unknown");
}
END_TEST

/* ======================================================================== */
/* run ids and limits                                                       */
/* ======================================================================== */

/* What another OS's backend never applies: said once (common/ids.c). */
START_TEST(t_backend_never)
{
	int c;

	for (c = 0; c < CORDON_CAP_MAX_; c++)
		ck_assert_ptr_null(cordon_backend_never(CORDON_BACKEND_LINUX_NS,
		    c));
	/* What the job reads back or times itself is the helper's to say. */
	ck_assert_ptr_null(cordon_backend_never(CORDON_BACKEND_JOB,
	    CORDON_CAP_CPU));
	ck_assert_ptr_null(cordon_backend_never(CORDON_BACKEND_JOB,
	    CORDON_CAP_MEMORY));
	ck_assert_ptr_null(cordon_backend_never(CORDON_BACKEND_JOB,
	    CORDON_CAP_NPROC));
	ck_assert_ptr_null(cordon_backend_never(CORDON_BACKEND_JOB,
	    CORDON_CAP_WALL));
	ck_assert_ptr_nonnull(cordon_backend_never(CORDON_BACKEND_JOB,
	    CORDON_CAP_NETWORK));
	/* The container confines network and files; the job, the rest. */
	ck_assert_ptr_null(cordon_backend_never(CORDON_BACKEND_APPCONTAINER,
	    CORDON_CAP_NETWORK));
	ck_assert_ptr_null(cordon_backend_never(CORDON_BACKEND_APPCONTAINER,
	    CORDON_CAP_FILESYSTEM));
	ck_assert_str_eq(cordon_backend_never(CORDON_BACKEND_APPCONTAINER,
	    CORDON_CAP_NOFILE), cordon_backend_never(CORDON_BACKEND_JOB,
	    CORDON_CAP_NOFILE));
	ck_assert_str_ne(cordon_backend_never(CORDON_BACKEND_APPCONTAINER,
	    CORDON_CAP_SCOPING), cordon_backend_never(CORDON_BACKEND_JOB,
	    CORDON_CAP_SCOPING));
	ck_assert_ptr_nonnull(cordon_backend_never(CORDON_BACKEND_SEATBELT,
	    CORDON_CAP_NPROC));
}
END_TEST

START_TEST(t_run_id_valid)
{
	static const char *const good[] = {
		"0123456789abcdef0123456789abcdef",
		"00000000000000000000000000000000",
		"ffffffffffffffffffffffffffffffff",
	};
	static const char *const bad[] = {
		"",
		"0123456789abcdef0123456789abcde",      /* 31 */
		"0123456789abcdef0123456789abcdef0",    /* 33 */
		"0123456789abcdef0123456789abcdef\n",
		"0123456789ABCDEF0123456789ABCDEF",
		"A123456789abcdef0123456789abcdef",
		"0123456789abcdef0123456789abcdeF",
		"0123456789abcdef0123456789abcdeg",
		"g123456789abcdef0123456789abcdef",
		"0123456789abcdef 123456789abcdef",
		"0123456789abcdef-123456789abcdef",
		"01234567-89ab-cdef-0123-456789abcdef",
		"0x23456789abcdef0123456789abcdef",
		"../../../../../../../../etc/pas",
		"0123456789abcdef0123456789abcd\xc3\xa9",
	};
	int i;

	for (i = 0; i < N(good); i++)
		ck_assert_msg(cordon_run_id_valid(good[i]), "\"%s\" refused", good[i]);
	ck_assert(!cordon_run_id_valid(NULL));
	for (i = 0; i < N(bad); i++)
		ck_assert_msg(!cordon_run_id_valid(bad[i]), "\"%s\" accepted", bad[i]);
}
END_TEST

START_TEST(t_limits_default)
{
	struct cordon_limits l;

	memset(&l, 0xff, sizeof(l));
	cordon_limits_default(&l);
	/* What cordon.h promises. */
	ck_assert_uint_eq(l.cpu_ns, 60 * SEC);
	ck_assert_uint_eq(l.wall_ns, 120 * SEC);
	ck_assert_uint_eq(l.memory_bytes, 2 * GiB);
	ck_assert_uint_eq(l.nofile, 512);
	ck_assert_uint_eq(l.nproc, 0);
	ck_assert_int_eq(cordon_limits_check(&l), 0);
}
END_TEST

/* Each cap just inside and just outside its bounds. */
static const struct {
	int cap;
	size_t off;
	uint64_t lo, hi;
	int has_lo;
} bounds[] = {
	{ CORDON_CAP_CPU, offsetof(struct cordon_limits, cpu_ns),
	    CORDON_MIN_TIME_NS, CORDON_MAX_TIME_NS, 1 },
	{ CORDON_CAP_WALL, offsetof(struct cordon_limits, wall_ns),
	    CORDON_MIN_TIME_NS, CORDON_MAX_TIME_NS, 1 },
	{ CORDON_CAP_MEMORY, offsetof(struct cordon_limits, memory_bytes),
	    CORDON_MIN_MEMORY, CORDON_MAX_MEMORY, 1 },
	{ CORDON_CAP_NOFILE, offsetof(struct cordon_limits, nofile),
	    CORDON_MIN_NOFILE, CORDON_MAX_NOFILE, 1 },
	/* 0 is "no cap" for nproc, so it has no lower bound. */
	{ CORDON_CAP_NPROC, offsetof(struct cordon_limits, nproc),
	    0, CORDON_MAX_NPROC, 0 },
};

static int
check_with(int k, uint64_t v)
{
	struct cordon_limits l;

	cordon_limits_default(&l);
	memcpy((char *)&l + bounds[k].off, &v, sizeof(v));
	return cordon_limits_check(&l);
}

START_TEST(t_limits_bounds)
{
	int bad = -bounds[_i].cap;

	ck_assert_int_eq(check_with(_i, bounds[_i].lo), 0);
	ck_assert_int_eq(check_with(_i, bounds[_i].hi), 0);
	ck_assert_int_eq(check_with(_i, bounds[_i].hi + 1), bad);
	ck_assert_int_eq(check_with(_i, UINT64_MAX), bad);
	if (bounds[_i].has_lo) {
		ck_assert_int_eq(check_with(_i, bounds[_i].lo - 1), bad);
		ck_assert_int_eq(check_with(_i, 0), bad);
	}
}
END_TEST

START_TEST(t_limits_bound_values)
{
	/* The bounds themselves, as types.h documents them. */
	ck_assert_uint_eq(CORDON_MIN_TIME_NS, 1000000ULL);
	ck_assert_uint_eq(CORDON_MAX_TIME_NS, 7ULL * 24 * 3600 * SEC);
	ck_assert_uint_eq(CORDON_MIN_MEMORY, MiB);
	ck_assert_uint_eq(CORDON_MAX_MEMORY, 1ULL << 50);
	ck_assert_uint_eq(CORDON_MIN_NOFILE, 4);
	ck_assert_uint_eq(CORDON_MAX_NOFILE, 1ULL << 20);
	ck_assert_uint_eq(CORDON_MAX_NPROC, 1ULL << 22);
}
END_TEST

START_TEST(t_limits_first_bad)
{
	struct cordon_limits l;

	/* Several out of range: the first in cap order is reported. */
	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(cordon_limits_check(&l), -CORDON_CAP_CPU);
	cordon_limits_default(&l);
	l.wall_ns = 0;
	l.nproc = UINT64_MAX;
	ck_assert_int_eq(cordon_limits_check(&l), -CORDON_CAP_WALL);
}
END_TEST

/* ======================================================================== */
/* the environment allow-list (policy/env.c)                                */
/* ======================================================================== */

START_TEST(t_env_allowed)
{
	static const char *const good[] = {
		"PATH=/usr/bin:/bin", "PATH", "PATH=", "LANG=C.UTF-8",
		"LANGUAGE=en", "LC_ALL=C", "LC_ALL", "LC_CTYPE=en_US.UTF-8",
		"LC_MESSAGES=C", "TERM=xterm-256color", "TZ=UTC", "USER=u",
		"LOGNAME=u", "COLORTERM=truecolor", "NO_COLOR=1",
		"SOURCE_DATE_EPOCH=0", "PATH=a=b",
	};
	int i;

	for (i = 0; i < N(good); i++)
		ck_assert_msg(cordon_env_allowed(good[i]), "\"%s\" refused", good[i]);
}
END_TEST

START_TEST(t_env_refused)
{
	static const char *const bad[] = {
		"HOME=/root", "HOME", "LD_PRELOAD=/tmp/x.so", "LD_LIBRARY_PATH=/tmp",
		"SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "TMPDIR=/tmp", "SHELL=/bin/sh",
		"BASH_ENV=/tmp/x", "ENV=/tmp/x", "IFS= ", "PYTHONPATH=/tmp",
		"DISPLAY=:0", "XDG_RUNTIME_DIR=/run/user/0",
		/* Prefixes, suffixes and case of allowed names. */
		"PATHX=/bin", "PAT=/bin", "XPATH=/bin", "path=/bin", "Path=/bin",
		"LANGX=C", "lang=C", "lc_all=C", "LC=C", "LC", "TERMINFO=/tmp",
		/* The LC_ family needs a category name. */
		"LC_", "LC_=x",
		/* No key at all. */
		"=x", "=", "", "=PATH=/bin",
	};
	int i;

	for (i = 0; i < N(bad); i++)
		ck_assert_msg(!cordon_env_allowed(bad[i]), "\"%s\" allowed", bad[i]);
}
END_TEST

/*
 * Proxy variables are refused by their own check, in any case, not merely
 * because nothing on the allow-list names them.
 */
START_TEST(t_env_proxies)
{
	static const char *const proxies[] = {
		"http_proxy=http://10.0.0.1:3128", "HTTPS_PROXY=http://x:1",
		"All_Proxy=socks5://x:1", "no_proxy=localhost", "NO_PROXY=*",
		"HTTP_PROXY=x", "https_proxy=x", "ALL_PROXY=x", "ftp_proxy=x",
		"FTP_PROXY=x", "http_proxy", "all_proxy=",
	};
	static const char *const not_proxies[] = {
		"PATH=/bin", "http=x", "proxy=x", "http_proxyx=x", "xhttp_proxy=x",
		"http_prox=x", "=http_proxy", "", "LC_ALL=http_proxy",
	};
	int i;

	for (i = 0; i < N(proxies); i++) {
		ck_assert_msg(cordon_env_is_proxy(proxies[i]),
		    "\"%s\" not seen as a proxy", proxies[i]);
		ck_assert_msg(!cordon_env_allowed(proxies[i]),
		    "\"%s\" allowed", proxies[i]);
	}
	for (i = 0; i < N(not_proxies); i++)
		ck_assert_msg(!cordon_env_is_proxy(not_proxies[i]),
		    "\"%s\" seen as a proxy", not_proxies[i]);
	/* A value mentioning a proxy does not taint an allowed key. */
	ck_assert(cordon_env_allowed("LC_ALL=http_proxy"));
}
END_TEST

/* The one lookup by KEY (policy/env.c), used by the broker and the policy. */
START_TEST(t_env_find)
{
	char *list[] = { "PATH=/bin", "KEEP", "EMPTY=", "A=1=2", "PATHX=y" };
	size_t n = N(list);

	ck_assert_uint_eq(cordon_env_find(list, n, "PATH=/usr/bin"), 0);
	ck_assert_uint_eq(cordon_env_find(list, n, "PATH"), 0);
	/* A bare KEY in the list matches KEY=VALUE and KEY alike. */
	ck_assert_uint_eq(cordon_env_find(list, n, "KEEP=v"), 1);
	ck_assert_uint_eq(cordon_env_find(list, n, "KEEP"), 1);
	ck_assert_uint_eq(cordon_env_find(list, n, "EMPTY"), 2);
	/* The KEY ends at the first '='. */
	ck_assert_uint_eq(cordon_env_find(list, n, "A=3"), 3);
	ck_assert_uint_eq(cordon_env_find(list, n, "PATHX"), 4);
	/* A prefix or an extension of a KEY is another KEY. */
	ck_assert_uint_eq(cordon_env_find(list, n, "PAT=x"), n);
	ck_assert_uint_eq(cordon_env_find(list, n, "KEEPX"), n);
	ck_assert_uint_eq(cordon_env_find(list, n, "A"), 3);
	ck_assert_uint_eq(cordon_env_find(list, n, "B"), n);
	ck_assert_uint_eq(cordon_env_find(list, 0, "PATH"), 0);
	/* Only the first n entries are looked at. */
	ck_assert_uint_eq(cordon_env_find(list, 4, "PATHX"), 4);
}
END_TEST

/* The error helper (common/types.c): -1, the text, errno kept. */
START_TEST(t_errf)
{
	char err[8];

	errno = EXDEV;
	ck_assert_int_eq(cordon_errf(err, sizeof(err), "%s %d", "bad", 42),
	    -1);
	ck_assert_str_eq(err, "bad 42");
	ck_assert_int_eq(errno, EXDEV);
	/* Cut to the buffer, still a string; no buffer at all is allowed. */
	ck_assert_int_eq(cordon_errf(err, sizeof(err), "%s", "much too long"),
	    -1);
	ck_assert_str_eq(err, "much to");
	ck_assert_int_eq(cordon_errf(NULL, 0, "%s", "nowhere"), -1);
}
END_TEST

static Suite *
parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc;

	tc = tcase_create("size");
	tcase_add_loop_test(tc, t_size_ok, 0, N(size_ok));
	tcase_add_loop_test(tc, t_size_inval, 0, N(size_inval));
	tcase_add_loop_test(tc, t_size_range, 0, N(size_range));
	suite_add_tcase(s, tc);

	tc = tcase_create("duration");
	tcase_add_loop_test(tc, t_dur_ok, 0, N(dur_ok));
	tcase_add_loop_test(tc, t_dur_inval, 0, N(dur_inval));
	tcase_add_loop_test(tc, t_dur_range, 0, N(dur_range));
	suite_add_tcase(s, tc);

	tc = tcase_create("count");
	tcase_add_loop_test(tc, t_count_ok, 0, N(count_ok));
	tcase_add_loop_test(tc, t_count_bad, 0, N(count_bad));
	suite_add_tcase(s, tc);

	tc = tcase_create("types");
	tcase_add_test(tc, t_backend_names);
	tcase_add_test(tc, t_backend_unknown_name);
	tcase_add_test(tc, t_cap_outcome_names);
	tcase_add_test(tc, t_strerror);
	tcase_add_test(tc, t_strerror_int_min);
	tcase_add_test(tc, t_run_id_valid);
	tcase_add_test(tc, t_backend_never);
	tcase_add_test(tc, t_limits_default);
	tcase_add_loop_test(tc, t_limits_bounds, 0, N(bounds));
	tcase_add_test(tc, t_limits_bound_values);
	tcase_add_test(tc, t_limits_first_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("env");
	tcase_add_test(tc, t_env_allowed);
	tcase_add_test(tc, t_env_refused);
	tcase_add_test(tc, t_env_proxies);
	tcase_add_test(tc, t_env_find);
	tcase_add_test(tc, t_errf);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(parse_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? 1 : 0;
}
