/*
 * test_trace.c - the audit trace (broker/trace.c): runs and events
 * round-trip exactly, listing order and limits, schema versioning,
 * reconcile of runs whose broker died, and many processes writing one
 * database at once.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "trace.h"

#define RECONCILE_ERROR \
	"the broker ended before the run finished; its result is unknown"

/* One directory per TCase, made before the tests fork, removed after. */
static char tmpdir[] = "/tmp/cordon-test-trace.XXXXXX";

static void
rm_rf_at(int dfd, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if (unlinkat(dfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
		return;
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			rm_rf_at(dirfd(d), de->d_name);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static void
setup(void)
{
	strcpy(tmpdir, "/tmp/cordon-test-trace.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	/* The mode tests assume what a login shell usually has. */
	umask(022);
}

static void
teardown(void)
{
	rm_rf_at(AT_FDCWD, tmpdir);
}

/* A path under the test directory; each test uses its own. */
static const char *
tpath(const char *rel)
{
	static char buf[PATH_MAX];

	ck_assert_int_lt(snprintf(buf, sizeof(buf), "%s/%s", tmpdir, rel),
	    (int)sizeof(buf));
	return buf;
}

static struct cordon_trace *
open_ok(const char *rel)
{
	struct cordon_trace *t = NULL;

	ck_assert_int_eq(cordon_trace_open(tpath(rel), &t), 0);
	ck_assert_ptr_nonnull(t);
	return t;
}

/* A valid run id: 32 lowercase hex digits made from a and b. */
static void
make_id(char id[CORDON_RUN_ID_LEN + 1], unsigned a, unsigned b)
{
	snprintf(id, CORDON_RUN_ID_LEN + 1, "%08x%08x%016x", a, b, 0xc0ffeeU);
}

/* Everything a shell would mangle, plus a byte that is not UTF-8. */
static char *sample_argv[] = {
	"/usr/bin/cc",
	"two words",
	"say \"hi\" and 'bye'",
	"line one\nline two",
	"\xff",
	"",
	"back\\slash\ttab",
	NULL
};
#define SAMPLE_ARGC 7

/* A run as the broker records it at "create". */
static void
sample_begin(struct cordon_result *r, const char *id, int64_t created)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->run_id, id, CORDON_RUN_ID_LEN + 1);
	r->created_ms = created;
	r->argv = sample_argv;
	r->argc = SAMPLE_ARGC;
	r->cwd = "/home/builder/my project";
	r->uid = 4242;
	r->user = "builder";
	r->backend_requested = CORDON_BACKEND_LANDLOCK;
	r->backend = CORDON_BACKEND_AUTO;
	r->limits.cpu_ns = 3 * CORDON_NS_PER_SEC;
	r->limits.wall_ns = 7 * CORDON_NS_PER_SEC + 5;
	r->limits.memory_bytes = 256ULL << 20;
	r->limits.nofile = 64;
	r->limits.nproc = 32;
	r->network = true;
	r->outcome = 0;
	r->exit_code = -1;
	r->signal = 0;
	r->cap = CORDON_CAP_NONE;
	r->workdir_removed = -1;
	r->broker_pid = (uint32_t)getpid();
	r->broker_start = 987654321ULL;
}

/* The same run as the broker records it at the end. */
static void
sample_finish(struct cordon_result *r)
{
	r->ended_ms = r->created_ms + 1234;
	r->backend = CORDON_BACKEND_FLOOR;
	r->backend_reason = "landlock: ABI 0 \xc3\xa9 (kernel too old)";
	r->applied = (1U << CORDON_CAP_CPU) | (1U << CORDON_CAP_WALL) |
	    (1U << CORDON_CAP_MEMORY);
	r->kernel_enforced = 1U << CORDON_CAP_MEMORY; /* beside applied */
	r->outcome = CORDON_OUTCOME_CAP_HIT;
	r->exit_code = -1;
	r->signal = 9;
	r->cap = CORDON_CAP_MEMORY;
	r->cpu_ns = 1234567890123ULL;
	/* Above INT64_MAX: must still come back bit for bit. */
	r->wall_ns = UINT64_MAX - 5;
	r->max_rss = (256ULL << 20) + 4096;
	r->workdir = "/run/user/4242/cordon/run.\xfe";
	r->workdir_removed = 1;
	r->error = "note: killed at \"memory\"\n";
}

static void
assert_argv_eq(const struct cordon_result *got, char *const *argv,
    size_t argc)
{
	size_t i;

	ck_assert_uint_eq(got->argc, argc);
	ck_assert_ptr_nonnull(got->argv);
	for (i = 0; i < argc; i++) {
		ck_assert_ptr_nonnull(got->argv[i]);
		ck_assert_uint_eq(strlen(got->argv[i]), strlen(argv[i]));
		ck_assert_mem_eq(got->argv[i], argv[i], strlen(argv[i]) + 1);
	}
	ck_assert_ptr_null(got->argv[argc]);
}

static void
assert_result_eq(const struct cordon_result *got,
    const struct cordon_result *want)
{
	ck_assert_str_eq(got->run_id, want->run_id);
	ck_assert_int_eq(got->created_ms, want->created_ms);
	ck_assert_int_eq(got->ended_ms, want->ended_ms);
	assert_argv_eq(got, want->argv, want->argc);
	ck_assert_pstr_eq(got->cwd, want->cwd);
	ck_assert_uint_eq(got->uid, want->uid);
	ck_assert_pstr_eq(got->user, want->user);
	ck_assert_int_eq(got->backend_requested, want->backend_requested);
	ck_assert_int_eq(got->backend, want->backend);
	ck_assert_pstr_eq(got->backend_reason, want->backend_reason);
	ck_assert_uint_eq(got->limits.cpu_ns, want->limits.cpu_ns);
	ck_assert_uint_eq(got->limits.wall_ns, want->limits.wall_ns);
	ck_assert_uint_eq(got->limits.memory_bytes, want->limits.memory_bytes);
	ck_assert_uint_eq(got->limits.nofile, want->limits.nofile);
	ck_assert_uint_eq(got->limits.nproc, want->limits.nproc);
	ck_assert_int_eq(got->network, want->network);
	ck_assert_uint_eq(got->applied, want->applied);
	ck_assert_uint_eq(got->kernel_enforced, want->kernel_enforced);
	ck_assert_int_eq(got->outcome, want->outcome);
	ck_assert_int_eq(got->exit_code, want->exit_code);
	ck_assert_int_eq(got->signal, want->signal);
	ck_assert_int_eq(got->cap, want->cap);
	ck_assert_uint_eq(got->cpu_ns, want->cpu_ns);
	ck_assert_uint_eq(got->wall_ns, want->wall_ns);
	ck_assert_uint_eq(got->max_rss, want->max_rss);
	ck_assert_int_eq(got->workdir_removed, want->workdir_removed);
	ck_assert_pstr_eq(got->workdir, want->workdir);
	ck_assert_pstr_eq(got->error, want->error);
	ck_assert_uint_eq(got->broker_pid, want->broker_pid);
	ck_assert_uint_eq(got->broker_start, want->broker_start);
}

/* Runs one query on the database behind the library's back. */
static sqlite3_int64
sql_int(const char *rel, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	sqlite3_int64 v;

	ck_assert_int_eq(sqlite3_open_v2(tpath(rel), &db, SQLITE_OPEN_READWRITE,
	    NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void
sql_exec(const char *rel, const char *sql)
{
	sqlite3 *db = NULL;

	ck_assert_int_eq(sqlite3_open_v2(tpath(rel), &db, SQLITE_OPEN_READWRITE,
	    NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* Events read back, copied out of the callback. */
struct events {
	size_t n;
	int64_t ts[16];
	char *kind[16];
	char *detail[16];
};

static int
collect_event(const struct cordon_trace_event *ev, void *arg)
{
	struct events *e = arg;

	ck_assert_uint_lt(e->n, 16);
	e->ts[e->n] = ev->ts_ms;
	e->kind[e->n] = strdup(ev->kind);
	e->detail[e->n] = ev->detail == NULL ? NULL : strdup(ev->detail);
	e->n++;
	return 0;
}

static void
events_clear(struct events *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		free(e->kind[i]);
		free(e->detail[i]);
	}
	memset(e, 0, sizeof(*e));
}

/* ---- round trips ------------------------------------------------------- */

START_TEST(test_roundtrip)
{
	struct cordon_trace *t = open_ok("rt/trace.db");
	struct cordon_result in, out;
	char id[CORDON_RUN_ID_LEN + 1];

	make_id(id, 1, 1);
	sample_begin(&in, id, 1700000000123LL);
	ck_assert_int_eq(cordon_trace_begin(t, &in), 0);

	/* While running: nothing about the end is known yet. */
	ck_assert_int_eq(cordon_trace_get(t, id, &out), 0);
	assert_result_eq(&out, &in);
	ck_assert_int_eq(out.outcome, 0);
	ck_assert_int_eq(out.backend, CORDON_BACKEND_AUTO);
	ck_assert_int_eq(out.ended_ms, 0);
	cordon_result_clear(&out);

	sample_finish(&in);
	ck_assert_int_eq(cordon_trace_finish(t, &in, NULL, 0), 0);
	ck_assert_int_eq(cordon_trace_get(t, id, &out), 0);
	assert_result_eq(&out, &in);
	cordon_result_clear(&out);
	cordon_trace_close(t);

	/* Unknown states are NULL, so the sqlite3 shell shows them as such. */
	ck_assert_int_eq(sql_int("rt/trace.db", "SELECT count(*) FROM runs"
	    " WHERE backend = 'floor' AND outcome = 'cap_hit'"
	    " AND cap = 'memory' AND backend_requested = 'landlock'"), 1);
	/* The human-readable argv is valid JSON with every argument. */
	ck_assert_int_eq(sql_int("rt/trace.db",
	    "SELECT json_valid(argv) AND json_array_length(argv) = 7"
	    " FROM runs"), 1);
}
END_TEST

START_TEST(test_roundtrip_minimal)
{
	struct cordon_trace *t = open_ok("min/trace.db");
	struct cordon_result in, out;
	char id[CORDON_RUN_ID_LEN + 1];
	char *argv[] = { "", NULL };

	/* The least a caller can record: NULL strings stay NULL. */
	make_id(id, 1, 2);
	memset(&in, 0, sizeof(in));
	memcpy(in.run_id, id, sizeof(id));
	in.created_ms = 1;
	in.argv = argv;
	in.argc = 1;
	ck_assert_int_eq(cordon_trace_begin(t, &in), 0);
	ck_assert_int_eq(cordon_trace_get(t, id, &out), 0);
	assert_result_eq(&out, &in);
	cordon_result_clear(&out);
	cordon_trace_close(t);
}
END_TEST

START_TEST(test_events_in_order)
{
	struct cordon_trace *t = open_ok("ev/trace.db");
	struct cordon_result r;
	struct events got;
	char id[CORDON_RUN_ID_LEN + 1], other[CORDON_RUN_ID_LEN + 1];
	const struct cordon_trace_event mid[] = {
		{ 2000, "backend", "{\"backend\":\"floor\"}" },
		{ 2001, "created", "/run/user/1/cordon/x" },
	};
	const struct cordon_trace_event last[] = {
		{ 3000, "cap_hit", "memory" },
		{ 3001, "exit", NULL },
		{ 3002, "teardown", "ok" },
	};
	const char *kinds[] = { "create", "backend", "created", "cap_hit",
	    "exit", "teardown" };
	size_t i;

	memset(&got, 0, sizeof(got));
	make_id(id, 2, 1);
	make_id(other, 2, 2);
	sample_begin(&r, other, 500);
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);
	sample_begin(&r, id, 1000);
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);
	ck_assert_int_eq(cordon_trace_events_add(t, id, mid, 2), 0);
	ck_assert_int_eq(cordon_trace_events_add(t, id, NULL, 0), 0);
	/* Another run's events interleave; they must not show up. */
	ck_assert_int_eq(cordon_trace_events_add(t, other, last, 1), 0);
	sample_finish(&r);
	ck_assert_int_eq(cordon_trace_finish(t, &r, last, 3), 0);

	ck_assert_int_eq(cordon_trace_get_events(t, id, collect_event, &got),
	    0);
	ck_assert_uint_eq(got.n, 6);
	for (i = 0; i < got.n; i++)
		ck_assert_str_eq(got.kind[i], kinds[i]);
	/* "create" carries argv as JSON, timestamped when the run began. */
	ck_assert_int_eq(got.ts[0], 1000);
	ck_assert_ptr_nonnull(got.detail[0]);
	ck_assert_int_eq(got.detail[0][0], '[');
	ck_assert_int_eq(got.ts[1], 2000);
	ck_assert_str_eq(got.detail[1], "{\"backend\":\"floor\"}");
	ck_assert_str_eq(got.detail[2], "/run/user/1/cordon/x");
	ck_assert_str_eq(got.detail[3], "memory");
	ck_assert_ptr_null(got.detail[4]);
	ck_assert_int_eq(got.ts[5], 3002);
	ck_assert_str_eq(got.detail[5], "ok");
	events_clear(&got);

	ck_assert_int_eq(cordon_trace_get_events(t, other, collect_event,
	    &got), 0);
	ck_assert_uint_eq(got.n, 2);
	events_clear(&got);
	cordon_trace_close(t);
}
END_TEST

static int
stop_after_two(const struct cordon_trace_event *ev, void *arg)
{
	int *n = arg;

	return ++*n == 2 ? 7 : 0;
}

START_TEST(test_events_stop)
{
	struct cordon_trace *t = open_ok("evs/trace.db");
	struct cordon_result r;
	char id[CORDON_RUN_ID_LEN + 1];
	const struct cordon_trace_event ev[] = {
		{ 1, "a", NULL }, { 2, "b", NULL }, { 3, "c", NULL },
	};
	int n = 0;

	make_id(id, 3, 1);
	sample_begin(&r, id, 10);
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);
	ck_assert_int_eq(cordon_trace_events_add(t, id, ev, 3), 0);
	/* A nonzero return from the callback ends the walk and is returned. */
	ck_assert_int_eq(cordon_trace_get_events(t, id, stop_after_two, &n), 7);
	ck_assert_int_eq(n, 2);
	cordon_trace_close(t);
}
END_TEST

/* ---- listing ----------------------------------------------------------- */

struct listed {
	size_t n;
	char id[16][CORDON_RUN_ID_LEN + 1];
	int64_t created[16];
	int stop_at;
};

static int
collect_run(const struct cordon_result *r, void *arg)
{
	struct listed *l = arg;

	ck_assert_uint_lt(l->n, 16);
	/* Every listed run is complete, argv included. */
	assert_argv_eq(r, sample_argv, SAMPLE_ARGC);
	memcpy(l->id[l->n], r->run_id, CORDON_RUN_ID_LEN + 1);
	l->created[l->n] = r->created_ms;
	l->n++;
	return l->stop_at != 0 && (int)l->n == l->stop_at ? 42 : 0;
}

START_TEST(test_list_newest_first)
{
	struct cordon_trace *t = open_ok("list/trace.db");
	struct cordon_result r;
	struct listed l;
	/* Out of order, with a tie that insertion order must break. */
	const int64_t created[] = { 3000, 1000, 5000, 2000, 4000, 5000 };
	char id[6][CORDON_RUN_ID_LEN + 1];
	size_t i;

	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(cordon_trace_list(t, 0, collect_run, &l), 0);
	ck_assert_uint_eq(l.n, 0);

	for (i = 0; i < 6; i++) {
		make_id(id[i], 4, (unsigned)i);
		sample_begin(&r, id[i], created[i]);
		ck_assert_int_eq(cordon_trace_begin(t, &r), 0);
	}

	ck_assert_int_eq(cordon_trace_list(t, 0, collect_run, &l), 0);
	ck_assert_uint_eq(l.n, 6);
	ck_assert_str_eq(l.id[0], id[5]);
	ck_assert_str_eq(l.id[1], id[2]);
	ck_assert_str_eq(l.id[2], id[4]);
	ck_assert_str_eq(l.id[3], id[0]);
	ck_assert_str_eq(l.id[4], id[3]);
	ck_assert_str_eq(l.id[5], id[1]);
	for (i = 1; i < l.n; i++)
		ck_assert_int_ge(l.created[i - 1], l.created[i]);

	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(cordon_trace_list(t, 3, collect_run, &l), 0);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_str_eq(l.id[0], id[5]);
	ck_assert_str_eq(l.id[2], id[4]);

	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(cordon_trace_list(t, 100, collect_run, &l), 0);
	ck_assert_uint_eq(l.n, 6);

	memset(&l, 0, sizeof(l));
	l.stop_at = 2;
	ck_assert_int_eq(cordon_trace_list(t, 0, collect_run, &l), 42);
	ck_assert_uint_eq(l.n, 2);
	cordon_trace_close(t);
}
END_TEST

/* ---- errors ------------------------------------------------------------ */

START_TEST(test_unknown_run)
{
	struct cordon_trace *t = open_ok("nf/trace.db");
	struct cordon_result r, out;
	struct events got;
	char id[CORDON_RUN_ID_LEN + 1], known[CORDON_RUN_ID_LEN + 1];
	const struct cordon_trace_event ev = { 1, "exit", NULL };

	memset(&got, 0, sizeof(got));
	make_id(known, 5, 1);
	sample_begin(&r, known, 1);
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);

	make_id(id, 5, 2);
	ck_assert_int_eq(cordon_trace_get(t, id, &out), -CORDON_E_NOTFOUND);
	ck_assert_ptr_null(out.argv);
	ck_assert_int_eq(cordon_trace_get(t, "not-an-id", &out),
	    -CORDON_E_NOTFOUND);
	ck_assert_int_eq(cordon_trace_get_events(t, id, collect_event, &got),
	    -CORDON_E_NOTFOUND);
	ck_assert_uint_eq(got.n, 0);
	ck_assert_int_eq(cordon_trace_events_add(t, id, &ev, 1),
	    -CORDON_E_NOTFOUND);
	sample_begin(&r, id, 1);
	sample_finish(&r);
	ck_assert_int_eq(cordon_trace_finish(t, &r, &ev, 1),
	    -CORDON_E_NOTFOUND);
	cordon_trace_close(t);

	/* Nothing was left behind by the refused writes. */
	ck_assert_int_eq(sql_int("nf/trace.db",
	    "SELECT count(*) FROM runs"), 1);
	ck_assert_int_eq(sql_int("nf/trace.db", "SELECT count(*) FROM events"),
	    1);
}
END_TEST

START_TEST(test_invalid_input)
{
	struct cordon_trace *t = open_ok("inv/trace.db");
	struct cordon_result r;
	char id[CORDON_RUN_ID_LEN + 1];
	char *holey[] = { "cc", NULL, "x", NULL };
	const struct cordon_trace_event nokind = { 1, NULL, "x" };

	make_id(id, 6, 1);
	sample_begin(&r, id, 1);
	memcpy(r.run_id, "ABCDEF", 7);
	ck_assert_int_eq(cordon_trace_begin(t, &r), -CORDON_E_INVAL);

	sample_begin(&r, id, 1);
	r.argc = 0;
	ck_assert_int_eq(cordon_trace_begin(t, &r), -CORDON_E_INVAL);
	r.argv = holey;
	r.argc = 3;
	ck_assert_int_eq(cordon_trace_begin(t, &r), -CORDON_E_INVAL);

	sample_begin(&r, id, 1);
	r.backend_requested = CORDON_BACKEND_MAX_;
	ck_assert_int_eq(cordon_trace_begin(t, &r), -CORDON_E_RANGE);
	sample_begin(&r, id, 1);
	r.outcome = 99;
	ck_assert_int_eq(cordon_trace_begin(t, &r), -CORDON_E_RANGE);
	sample_begin(&r, id, 1);
	r.cap = -1;
	ck_assert_int_eq(cordon_trace_begin(t, &r), -CORDON_E_RANGE);

	/* Now a real run, and refused updates that must not touch it. */
	sample_begin(&r, id, 1);
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);
	ck_assert_int_eq(cordon_trace_events_add(t, id, &nokind, 1),
	    -CORDON_E_INVAL);
	sample_finish(&r);
	ck_assert_int_eq(cordon_trace_finish(t, &r, &nokind, 1),
	    -CORDON_E_INVAL);
	r.outcome = CORDON_OUTCOME_MAX_;
	ck_assert_int_eq(cordon_trace_finish(t, &r, NULL, 0), -CORDON_E_RANGE);
	cordon_trace_close(t);

	ck_assert_int_eq(sql_int("inv/trace.db", "SELECT count(*) FROM runs"
	    " WHERE outcome IS NULL"), 1);
	ck_assert_int_eq(sql_int("inv/trace.db", "SELECT count(*) FROM events"),
	    1);
}
END_TEST

START_TEST(test_begin_is_atomic)
{
	struct cordon_trace *t = open_ok("dup/trace.db");
	struct cordon_result r, out;
	char id[CORDON_RUN_ID_LEN + 1];

	make_id(id, 7, 1);
	sample_begin(&r, id, 100);
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);
	/* The same id again fails as a whole: no second "create" event. */
	sample_begin(&r, id, 200);
	ck_assert_int_eq(cordon_trace_begin(t, &r), -CORDON_E_TRACE);
	ck_assert_int_eq(cordon_trace_get(t, id, &out), 0);
	ck_assert_int_eq(out.created_ms, 100);
	cordon_result_clear(&out);
	/* The connection is still usable: no transaction was left open. */
	make_id(id, 7, 2);
	sample_begin(&r, id, 300);
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);
	cordon_trace_close(t);
	ck_assert_int_eq(sql_int("dup/trace.db", "SELECT count(*) FROM events"),
	    2);
}
END_TEST

START_TEST(test_failure_rolls_back)
{
	struct cordon_trace *t = open_ok("rb/trace.db");
	struct cordon_result r, out;
	char id[CORDON_RUN_ID_LEN + 1], bad[CORDON_RUN_ID_LEN + 1];
	const struct cordon_trace_event ev[] = {
		{ 10, "exit", "0" },
		{ 11, "boom", NULL },
	};

	cordon_trace_close(t);
	/* Fail the database midway through a phase, after earlier writes. */
	make_id(bad, 11, 9);
	sql_exec("rb/trace.db", "CREATE TRIGGER boom BEFORE INSERT ON events"
	    " WHEN NEW.kind = 'boom' OR NEW.run_id = '"
	    "0000000b000000090000000000c0ffee'"
	    " BEGIN SELECT RAISE(ABORT, 'injected'); END");
	ck_assert_str_eq(bad, "0000000b000000090000000000c0ffee");
	t = open_ok("rb/trace.db");

	/* begin: the run row went in before its "create" event failed. */
	sample_begin(&r, bad, 1);
	ck_assert_int_eq(cordon_trace_begin(t, &r), -CORDON_E_TRACE);
	ck_assert_int_eq(cordon_trace_get(t, bad, &out), -CORDON_E_NOTFOUND);

	/* finish: the UPDATE and the first event went in before the second. */
	make_id(id, 11, 1);
	sample_begin(&r, id, 1);
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);
	sample_finish(&r);
	ck_assert_int_eq(cordon_trace_finish(t, &r, ev, 2), -CORDON_E_TRACE);
	ck_assert_int_eq(cordon_trace_events_add(t, id, ev, 2),
	    -CORDON_E_TRACE);
	ck_assert_int_eq(cordon_trace_get(t, id, &out), 0);
	ck_assert_int_eq(out.outcome, 0);
	ck_assert_int_eq(out.ended_ms, 0);
	cordon_result_clear(&out);

	/* The same connection still writes once the failure is gone. */
	ck_assert_int_eq(cordon_trace_finish(t, &r, ev, 1), 0);
	cordon_trace_close(t);
	ck_assert_int_eq(sql_int("rb/trace.db",
	    "SELECT count(*) FROM runs"), 1);
	ck_assert_int_eq(sql_int("rb/trace.db", "SELECT count(*) FROM events"),
	    2);
}
END_TEST

START_TEST(test_corrupt_row)
{
	struct cordon_trace *t = open_ok("bad/trace.db");
	struct cordon_result r, out;
	char id[CORDON_RUN_ID_LEN + 1];

	make_id(id, 8, 1);
	sample_begin(&r, id, 1);
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);
	cordon_trace_close(t);

	/* argv_blob whose last string has no terminating NUL. */
	sql_exec("bad/trace.db", "UPDATE runs SET argv_blob = X'616263'");
	t = open_ok("bad/trace.db");
	ck_assert_int_eq(cordon_trace_get(t, id, &out), -CORDON_E_TRACE);
	ck_assert_ptr_null(out.argv);
	cordon_trace_close(t);

	/* A backend name this build does not know. */
	sql_exec("bad/trace.db", "UPDATE runs SET argv_blob = X'6100',"
	    " backend = 'teleport'");
	t = open_ok("bad/trace.db");
	ck_assert_int_eq(cordon_trace_get(t, id, &out), -CORDON_E_TRACE);
	cordon_trace_close(t);
}
END_TEST

/* ---- opening, schema, files -------------------------------------------- */

START_TEST(test_schema_newer_refused)
{
	struct cordon_trace *t = open_ok("v/trace.db");

	cordon_trace_close(t);
	ck_assert_int_eq(sql_int("v/trace.db", "SELECT CAST(value AS INTEGER)"
	    " FROM meta WHERE key = 'schema_version'"),
	    CORDON_TRACE_SCHEMA_VERSION);

	sql_exec("v/trace.db", "UPDATE meta SET value = '999'"
	    " WHERE key = 'schema_version'");
	t = (struct cordon_trace *)1;
	ck_assert_int_eq(cordon_trace_open(tpath("v/trace.db"), &t),
	    -CORDON_E_TRACE);
	ck_assert_ptr_null(t);
	/* Refusing must not "repair" the newer database. */
	ck_assert_int_eq(sql_int("v/trace.db", "SELECT CAST(value AS INTEGER)"
	    " FROM meta WHERE key = 'schema_version'"), 999);

	sql_exec("v/trace.db", "UPDATE meta SET value = '1x'"
	    " WHERE key = 'schema_version'");
	ck_assert_int_eq(cordon_trace_open(tpath("v/trace.db"), &t),
	    -CORDON_E_TRACE);
}
END_TEST

/*
 * runs.argv is json.h's reversible form (a byte that is not UTF-8 is
 * "\udcXX"), and schema 3 rewrites it from argv_blob in a trace written
 * by an older cordon, where that byte was "\u00XX".  The events keep the
 * text they were written with; a row whose blob is not one keeps its argv.
 */
/* sample_argv as runs.argv holds it, quoted for SQL. */
#define SAMPLE_ARGV_JSON(ff) "[\"/usr/bin/cc\",\"two words\"," \
	"\"say \\\"hi\\\" and ''bye''\",\"line one\\nline two\",\"" ff "\"," \
	"\"\",\"back\\\\slash\\ttab\"]"

START_TEST(test_schema3_argv_json)
{
	struct cordon_trace *t = open_ok("m3/trace.db");
	struct cordon_result in, out;
	char id[CORDON_RUN_ID_LEN + 1], bad[CORDON_RUN_ID_LEN + 1];

	make_id(id, 3, 1);
	sample_begin(&in, id, 10);
	ck_assert_int_eq(cordon_trace_begin(t, &in), 0);
	make_id(bad, 3, 2);
	sample_begin(&in, bad, 11);
	ck_assert_int_eq(cordon_trace_begin(t, &in), 0);
	cordon_trace_close(t);
	ck_assert_int_eq(sql_int("m3/trace.db", "SELECT count(*) FROM runs"
	    " WHERE argv = '" SAMPLE_ARGV_JSON("\\udcff") "'"), 2);

	/* As schema 2 wrote it (the tables are the same). */
	sql_exec("m3/trace.db", "UPDATE runs SET argv = '"
	    SAMPLE_ARGV_JSON("\\u00ff") "';"
	    "UPDATE events SET detail = '" SAMPLE_ARGV_JSON("\\u00ff") "';"
	    "UPDATE runs SET argv_blob = x'ff' WHERE created_ms = 11;"
	    "ALTER TABLE runs DROP COLUMN allow_hosts;"
	    "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
	t = open_ok("m3/trace.db");
	ck_assert_int_eq(cordon_trace_get(t, id, &out), 0);
	assert_argv_eq(&out, sample_argv, SAMPLE_ARGC);
	cordon_result_clear(&out);
	cordon_trace_close(t);
	ck_assert_int_eq(sql_int("m3/trace.db", "SELECT count(*) FROM runs"
	    " WHERE created_ms = 10 AND argv = '"
	    SAMPLE_ARGV_JSON("\\udcff") "'"), 1);
	ck_assert_int_eq(sql_int("m3/trace.db", "SELECT count(*) FROM runs"
	    " WHERE created_ms = 11 AND argv = '"
	    SAMPLE_ARGV_JSON("\\u00ff") "'"), 1);
	ck_assert_int_eq(sql_int("m3/trace.db", "SELECT count(*) FROM events"
	    " WHERE detail = '" SAMPLE_ARGV_JSON("\\u00ff") "'"), 2);
	ck_assert_int_eq(sql_int("m3/trace.db", "SELECT CAST(value AS INTEGER)"
	    " FROM meta WHERE key = 'schema_version'"),
	    CORDON_TRACE_SCHEMA_VERSION);
}
END_TEST

/*
 * Schema 4: runs.allow_hosts, the --allow-host patterns of a run ("a,
 * *.b"), read back into the record; NULL (no allow-list) in a row an
 * older cordon wrote, which then reads as before.
 */
START_TEST(test_schema4_allow_hosts)
{
	static char *pats[] = { "index.crates.io", "*.crates.io:443",
		"10.0.0.0/8", "[::1]:80" };
	struct cordon_trace *t = open_ok("m4/trace.db");
	struct cordon_result in, out;
	char id[CORDON_RUN_ID_LEN + 1], old[CORDON_RUN_ID_LEN + 1];
	size_t i;

	make_id(old, 4, 1);
	sample_begin(&in, old, 20);
	ck_assert_int_eq(cordon_trace_begin(t, &in), 0);
	cordon_trace_close(t);
	/* As schema 3 left it. */
	sql_exec("m4/trace.db", "ALTER TABLE runs DROP COLUMN allow_hosts;"
	    "UPDATE meta SET value = '3' WHERE key = 'schema_version'");
	t = open_ok("m4/trace.db");
	ck_assert_int_eq(cordon_trace_get(t, old, &out), 0);
	ck_assert(!out.egress);
	ck_assert_uint_eq(out.nallow_hosts, 0);
	cordon_result_clear(&out);

	make_id(id, 4, 2);
	sample_begin(&in, id, 21);
	in.egress = true;
	in.allow_hosts = pats;
	in.nallow_hosts = sizeof(pats) / sizeof(pats[0]);
	ck_assert_int_eq(cordon_trace_begin(t, &in), 0);
	ck_assert_int_eq(cordon_trace_get(t, id, &out), 0);
	ck_assert(out.egress);
	ck_assert(!out.egress_counted);
	ck_assert_uint_eq(out.nallow_hosts, in.nallow_hosts);
	for (i = 0; i < in.nallow_hosts; i++)
		ck_assert_str_eq(out.allow_hosts[i], pats[i]);
	cordon_result_clear(&out);
	cordon_trace_close(t);
	ck_assert_int_eq(sql_int("m4/trace.db", "SELECT count(*) FROM runs"
	    " WHERE allow_hosts = 'index.crates.io, *.crates.io:443,"
	    " 10.0.0.0/8, [::1]:80'"), 1);
	ck_assert_int_eq(sql_int("m4/trace.db", "SELECT count(*) FROM runs"
	    " WHERE allow_hosts IS NULL"), 1);
}
END_TEST

START_TEST(test_not_a_database)
{
	struct cordon_trace *t = NULL;
	FILE *f;
	int i;

	ck_assert_int_eq(mkdir(tpath("junk"), 0700), 0);
	ck_assert_ptr_nonnull(f = fopen(tpath("junk/trace.db"), "w"));
	for (i = 0; i < 200; i++)
		fputs("this is not an SQLite database\n", f);
	fclose(f);
	ck_assert_int_eq(cordon_trace_open(tpath("junk/trace.db"), &t),
	    -CORDON_E_TRACE);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(cordon_trace_open("", &t), -CORDON_E_INVAL);
}
END_TEST

START_TEST(test_reopen_keeps_data)
{
	struct cordon_trace *t = open_ok("re/trace.db");
	struct cordon_result in, out;
	struct events got;
	char id[CORDON_RUN_ID_LEN + 1];

	memset(&got, 0, sizeof(got));
	make_id(id, 9, 1);
	sample_begin(&in, id, 5);
	ck_assert_int_eq(cordon_trace_begin(t, &in), 0);
	sample_finish(&in);
	ck_assert_int_eq(cordon_trace_finish(t, &in, NULL, 0), 0);
	cordon_trace_close(t);

	t = open_ok("re/trace.db");
	ck_assert_int_eq(cordon_trace_get(t, id, &out), 0);
	assert_result_eq(&out, &in);
	cordon_result_clear(&out);
	ck_assert_int_eq(cordon_trace_get_events(t, id, collect_event, &got),
	    0);
	ck_assert_uint_eq(got.n, 1);
	events_clear(&got);
	cordon_trace_close(t);

	ck_assert_int_eq(sql_int("re/trace.db",
	    "SELECT count(*) FROM meta"), 1);
	ck_assert_int_eq(sql_int("re/trace.db", "SELECT count(*)"
	    " FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
}
END_TEST

static void
assert_mode(const char *rel, mode_t type, mode_t perm)
{
	struct stat st;

	ck_assert_int_eq(lstat(tpath(rel), &st), 0);
	ck_assert_uint_eq(st.st_mode & S_IFMT, type);
	ck_assert_uint_eq(st.st_mode & 07777, perm);
}

START_TEST(test_parents_private)
{
	struct cordon_trace *t = NULL;

	/* An existing parent keeps its mode; new ones are 0700. */
	ck_assert_int_eq(mkdir(tpath("keep"), 0755), 0);
	t = open_ok("keep/state/cordon/trace.db");
	cordon_trace_close(t);
	assert_mode("keep", S_IFDIR, 0755);
	assert_mode("keep/state", S_IFDIR, 0700);
	assert_mode("keep/state/cordon", S_IFDIR, 0700);
	/* The trace holds users' argv: not for other users to read. */
	assert_mode("keep/state/cordon/trace.db", S_IFREG, 0600);

	/* Doubled slashes name nothing new. */
	t = open_ok("dbl//x//trace.db");
	cordon_trace_close(t);
	assert_mode("dbl/x", S_IFDIR, 0700);
}
END_TEST

/* ---- reconcile --------------------------------------------------------- */

START_TEST(test_reconcile)
{
	struct cordon_trace *t = NULL;
	struct cordon_result r, out;
	struct events got;
	char dead[CORDON_RUN_ID_LEN + 1], live[CORDON_RUN_ID_LEN + 1];
	char done[CORDON_RUN_ID_LEN + 1], reused[CORDON_RUN_ID_LEN + 1];
	char nostart[CORDON_RUN_ID_LEN + 1];
	const char *done_error;
	uint64_t mystart;
	int64_t before;
	pid_t pid;
	int status = 0;

	memset(&got, 0, sizeof(got));
	/*
	 * A pid that surely names no process now: a child already reaped.
	 * Forked before opening, so no SQLite connection crosses the fork.
	 */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	t = open_ok("rc/trace.db");
	mystart = cordon_proc_start_time((uint32_t)getpid());
	ck_assert_uint_ne(mystart, 0);

	make_id(dead, 10, 1);
	sample_begin(&r, dead, 1);
	r.broker_pid = (uint32_t)pid;
	r.broker_start = 12345;
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);

	make_id(live, 10, 2);
	sample_begin(&r, live, 2);
	r.broker_pid = (uint32_t)getpid();
	r.broker_start = mystart;
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);

	/* Finished runs are never touched, whatever became of their broker. */
	make_id(done, 10, 3);
	sample_begin(&r, done, 3);
	r.broker_pid = (uint32_t)pid;
	sample_finish(&r);
	r.outcome = CORDON_OUTCOME_EXITED;
	r.cap = CORDON_CAP_NONE;
	r.exit_code = 3;
	done_error = r.error;
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);

	/* A live pid with another start time is a reused pid. */
	make_id(reused, 10, 4);
	sample_begin(&r, reused, 4);
	r.broker_pid = (uint32_t)getpid();
	r.broker_start = mystart + 1;
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);

	/* A dead broker whose start time was never known (0). */
	make_id(nostart, 10, 5);
	sample_begin(&r, nostart, 5);
	r.broker_pid = (uint32_t)pid;
	r.broker_start = 0;
	ck_assert_int_eq(cordon_trace_begin(t, &r), 0);

	before = cordon_now_ms();
	ck_assert_int_eq(cordon_trace_reconcile(t), 3);

	ck_assert_int_eq(cordon_trace_get(t, dead, &out), 0);
	ck_assert_int_eq(out.outcome, CORDON_OUTCOME_SANDBOX_ERROR);
	ck_assert_pstr_eq(out.error, RECONCILE_ERROR);
	ck_assert_int_ge(out.ended_ms, before);
	/* The rest of the record is what the broker wrote. */
	assert_argv_eq(&out, sample_argv, SAMPLE_ARGC);
	ck_assert_uint_eq(out.broker_pid, (uint32_t)pid);
	cordon_result_clear(&out);
	ck_assert_int_eq(cordon_trace_get_events(t, dead, collect_event, &got),
	    0);
	ck_assert_uint_eq(got.n, 2);
	ck_assert_str_eq(got.kind[0], "create");
	ck_assert_str_eq(got.kind[1], "error");
	ck_assert_pstr_eq(got.detail[1], RECONCILE_ERROR);
	ck_assert_int_ge(got.ts[1], before);
	events_clear(&got);

	ck_assert_int_eq(cordon_trace_get(t, reused, &out), 0);
	ck_assert_int_eq(out.outcome, CORDON_OUTCOME_SANDBOX_ERROR);
	cordon_result_clear(&out);
	ck_assert_int_eq(cordon_trace_get(t, nostart, &out), 0);
	ck_assert_int_eq(out.outcome, CORDON_OUTCOME_SANDBOX_ERROR);
	cordon_result_clear(&out);

	ck_assert_int_eq(cordon_trace_get(t, live, &out), 0);
	ck_assert_int_eq(out.outcome, 0);
	ck_assert_ptr_null(out.error);
	ck_assert_int_eq(out.ended_ms, 0);
	cordon_result_clear(&out);
	ck_assert_int_eq(cordon_trace_get_events(t, live, collect_event, &got),
	    0);
	ck_assert_uint_eq(got.n, 1);
	events_clear(&got);

	ck_assert_int_eq(cordon_trace_get(t, done, &out), 0);
	ck_assert_int_eq(out.outcome, CORDON_OUTCOME_EXITED);
	ck_assert_int_eq(out.exit_code, 3);
	ck_assert_pstr_eq(out.error, done_error);
	cordon_result_clear(&out);

	/* Marked once only. */
	ck_assert_int_eq(cordon_trace_reconcile(t), 0);
	cordon_trace_close(t);
	ck_assert_int_eq(sql_int("rc/trace.db", "SELECT count(*) FROM events"
	    " WHERE kind = 'error'"), 3);
}
END_TEST

/* ---- many processes, one database -------------------------------------- */

#define WRITERS 8
#define RUNS_EACH 50

/* In a forked writer: no Check asserts, just an exit status. */
static int
writer(const char *path, unsigned n)
{
	struct cordon_trace *t = NULL;
	struct cordon_result r;
	char id[CORDON_RUN_ID_LEN + 1];
	struct cordon_trace_event ev = { 0, "exit", "0" };
	unsigned i;

	if (cordon_trace_open(path, &t) != 0)
		return 2;
	for (i = 0; i < RUNS_EACH; i++) {
		make_id(id, 100 + n, i);
		sample_begin(&r, id, 1000000 + (int64_t)n * RUNS_EACH + i);
		if (cordon_trace_begin(t, &r) != 0)
			return 3;
		sample_finish(&r);
		r.outcome = CORDON_OUTCOME_EXITED;
		r.cap = CORDON_CAP_NONE;
		r.exit_code = 0;
		r.signal = 0;
		if (cordon_trace_finish(t, &r, &ev, 1) != 0)
			return 4;
	}
	cordon_trace_close(t);
	return 0;
}

struct tally {
	struct cordon_trace *t;
	size_t runs, events, finished;
};

static int
count_event(const struct cordon_trace_event *ev, void *arg)
{
	struct tally *c = arg;

	c->events++;
	return 0;
}

static int
count_run(const struct cordon_result *r, void *arg)
{
	struct tally *c = arg;

	c->runs++;
	if (r->outcome == CORDON_OUTCOME_EXITED)
		c->finished++;
	/* Reading events from inside a listing is what export does. */
	return cordon_trace_get_events(c->t, r->run_id, count_event, c);
}

START_TEST(test_concurrent_writers)
{
	struct tally c;
	char path[PATH_MAX];
	pid_t pids[WRITERS];
	int go[2], status, failed = 0;
	unsigned i;
	char b;

	memset(&c, 0, sizeof(c));
	snprintf(path, sizeof(path), "%s", tpath("conc/trace.db"));
	ck_assert_int_eq(pipe(go), 0);
	for (i = 0; i < WRITERS; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			close(go[1]);
			/* All start at once, on a database not made yet. */
			if (read(go[0], &b, 1) != 0)
				_exit(1);
			_exit(writer(path, i));
		}
	}
	close(go[0]);
	close(go[1]);
	for (i = 0; i < WRITERS; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	}
	ck_assert_int_eq(failed, 0);

	c.t = open_ok("conc/trace.db");
	ck_assert_int_eq(cordon_trace_list(c.t, 0, count_run, &c), 0);
	ck_assert_uint_eq(c.runs, WRITERS * RUNS_EACH);
	ck_assert_uint_eq(c.finished, WRITERS * RUNS_EACH);
	ck_assert_uint_eq(c.events, 2 * WRITERS * RUNS_EACH);
	cordon_trace_close(c.t);
	ck_assert_int_eq(sql_int("conc/trace.db",
	    "SELECT count(*) FROM events"), 2 * WRITERS * RUNS_EACH);
}
END_TEST

static Suite *
trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("trace");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_roundtrip_minimal);
	tcase_add_test(tc, test_events_in_order);
	tcase_add_test(tc, test_events_stop);
	tcase_add_test(tc, test_list_newest_first);
	tcase_add_test(tc, test_unknown_run);
	tcase_add_test(tc, test_invalid_input);
	tcase_add_test(tc, test_begin_is_atomic);
	tcase_add_test(tc, test_failure_rolls_back);
	tcase_add_test(tc, test_corrupt_row);
	tcase_add_test(tc, test_schema_newer_refused);
	tcase_add_test(tc, test_schema3_argv_json);
	tcase_add_test(tc, test_schema4_allow_hosts);
	tcase_add_test(tc, test_not_a_database);
	tcase_add_test(tc, test_reopen_keeps_data);
	tcase_add_test(tc, test_parents_private);
	tcase_add_test(tc, test_reconcile);
	tcase_add_test(tc, test_concurrent_writers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(trace_suite());
	int failures;

	srunner_run_all(sr, CK_NORMAL);
	failures = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failures != 0;
}
