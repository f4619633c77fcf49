/*
 * trace.c - the audit trace: opening and migrating the SQLite database,
 * recording each phase of a run, reading runs and events back, and
 * reconciling runs whose broker died.  See trace.h.
 *
 * Concurrency: every cordon process holds its own connection.  Writes are
 * BEGIN IMMEDIATE transactions, so the write lock is taken up front where
 * the busy timeout applies, instead of upgrading a read lock later (which
 * fails with SQLITE_BUSY without ever calling the busy handler).
 *
 * argv is stored twice: as the strings each followed by one NUL in
 * argv_blob, which is what is read back, and as a JSON array (json.h's
 * escapes: a byte that is not UTF-8 is "\udcXX") for people reading the
 * database with the sqlite3 shell.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "egress.h"
#include "json.h"
#include "trace.h"

#define TRACE_BUSY_TIMEOUT_MS 30000
/* PRAGMA journal_mode=WAL retries: 3000 * 10 ms, the busy timeout. */
#define TRACE_WAL_RETRIES 3000
#define TRACE_WAL_RETRY_NS 10000000L
/* Checkpoint once the WAL holds this many pages (a run writes ~17). */
#define TRACE_WAL_PAGES "128"

#define RECONCILE_ERROR \
	"the broker ended before the run finished; its result is unknown"

/*
 * Schema migrations, oldest first: entry i takes the database from
 * version i to i + 1.  A schema change is one more entry (and a bump of
 * CORDON_TRACE_SCHEMA_VERSION); entries already shipped never change.
 */
static const char *const migrations[] = {
	/* 1: initial schema. */
	"CREATE TABLE runs ("
	" run_id TEXT PRIMARY KEY,"
	" created_ms INTEGER NOT NULL,"
	" ended_ms INTEGER,"
	" argv TEXT NOT NULL,"
	" argv_blob BLOB NOT NULL,"
	" cwd TEXT,"
	" uid INTEGER,"
	" user TEXT,"
	" backend_requested TEXT,"
	" backend TEXT,"
	" backend_reason TEXT,"
	" cpu_limit_ns INTEGER,"
	" wall_limit_ns INTEGER,"
	" memory_limit INTEGER,"
	" nofile_limit INTEGER,"
	" nproc_limit INTEGER,"
	" network INTEGER,"
	" applied INTEGER,"
	" outcome TEXT,"
	" exit_code INTEGER,"
	" signal INTEGER,"
	" cap TEXT,"
	" cpu_ns INTEGER,"
	" wall_ns INTEGER,"
	" max_rss INTEGER,"
	" workdir TEXT,"
	" workdir_removed INTEGER,"
	" error TEXT,"
	" broker_pid INTEGER,"
	" broker_start INTEGER);"
	"CREATE INDEX runs_created_ms ON runs (created_ms);"
	/* Keeps reconcile from scanning every run ever recorded. */
	"CREATE INDEX runs_unfinished ON runs (run_id) WHERE outcome IS NULL;"
	"CREATE TABLE events ("
	" id INTEGER PRIMARY KEY,"
	" run_id TEXT NOT NULL REFERENCES runs (run_id),"
	" ts_ms INTEGER NOT NULL,"
	" kind TEXT NOT NULL,"
	" detail TEXT);"
	"CREATE INDEX events_run_id ON events (run_id);",
	/* 2: the output and disk caps asked for (NULL in older rows). */
	"ALTER TABLE runs ADD COLUMN output_limit INTEGER;"
	"ALTER TABLE runs ADD COLUMN disk_limit INTEGER;",
	/*
	 * 3: runs.argv in json.h's reversible form: a byte that is not UTF-8
	 * was "\u00XX", read back as U+00XX, and is now "\udcXX".  Only a
	 * row with "\u00" in it can differ (nothing else was escaped that
	 * way), so a large trace is not rewritten page by page.  argv_blob,
	 * always exact, is the source; the create events keep the text they
	 * were written with.
	 */
	"UPDATE runs SET argv = coalesce(cordon_argv_json(argv_blob), argv)"
	" WHERE instr(argv, '\\u00') > 0;",
	/* 4: the --allow-host patterns, "a, *.b" (NULL: none, or older). */
	"ALTER TABLE runs ADD COLUMN allow_hosts TEXT;",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) ==
    CORDON_TRACE_SCHEMA_VERSION, "one migration per schema version");

/*
 * The columns of runs as they are written and read.  Statement parameter
 * ?N is column N - 1 in this order; enum run_col must match it.
 */
#define RUN_COLUMNS \
	"run_id, created_ms, argv, argv_blob, cwd, uid, user," \
	" backend_requested, cpu_limit_ns, wall_limit_ns, memory_limit," \
	" nofile_limit, nproc_limit, network, broker_pid, broker_start," \
	" ended_ms, backend, backend_reason, applied, outcome, exit_code," \
	" signal, cap, cpu_ns, wall_ns, max_rss, workdir, workdir_removed," \
	" error, output_limit, disk_limit, allow_hosts"

enum run_col {
	/* Fixed when the run begins. */
	C_RUN_ID, C_CREATED_MS, C_ARGV, C_ARGV_BLOB, C_CWD, C_UID, C_USER,
	C_BACKEND_REQUESTED, C_CPU_LIMIT_NS, C_WALL_LIMIT_NS, C_MEMORY_LIMIT,
	C_NOFILE_LIMIT, C_NPROC_LIMIT, C_NETWORK, C_BROKER_PID,
	C_BROKER_START,
	/* Rewritten when it finishes. */
	C_ENDED_MS, C_BACKEND, C_BACKEND_REASON, C_APPLIED, C_OUTCOME,
	C_EXIT_CODE, C_SIGNAL, C_CAP, C_CPU_NS, C_WALL_NS, C_MAX_RSS,
	C_WORKDIR, C_WORKDIR_REMOVED, C_ERROR,
	/* Fixed when the run begins (schema 2). */
	C_OUTPUT_LIMIT, C_DISK_LIMIT,
	/* Fixed when the run begins (schema 4). */
	C_ALLOW_HOSTS,
	C_MAX_
};

/* Statements every run uses, prepared once per connection. */
enum trace_stmt {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_INSERT_RUN,
	ST_UPDATE_RUN,
	ST_INSERT_EVENT,
	ST_GET_RUN,
	ST_MAX_
};

static const char *const stmt_sql[ST_MAX_] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_INSERT_RUN] = "INSERT INTO runs (" RUN_COLUMNS ") VALUES ("
	    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
	    " ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,"
	    " ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32,"
	    " ?33)",
	/* Same parameter numbers as the INSERT, so one binder serves both. */
	[ST_UPDATE_RUN] = "UPDATE runs SET"
	    " ended_ms = ?17, backend = ?18, backend_reason = ?19,"
	    " applied = ?20, outcome = ?21, exit_code = ?22, signal = ?23,"
	    " cap = ?24, cpu_ns = ?25, wall_ns = ?26, max_rss = ?27,"
	    " workdir = ?28, workdir_removed = ?29, error = ?30"
	    " WHERE run_id = ?1",
	[ST_INSERT_EVENT] = "INSERT INTO events (run_id, ts_ms, kind, detail)"
	    " VALUES (?1, ?2, ?3, ?4)",
	[ST_GET_RUN] = "SELECT " RUN_COLUMNS " FROM runs WHERE run_id = ?1",
};

struct cordon_trace {
	sqlite3 *db;
	sqlite3_stmt *st[ST_MAX_];
};

/* Propagate the first SQLite failure; keeps the binders flat. */
#define SQL_TRY(expr) \
	do { if ((rc = (expr)) != SQLITE_OK) goto out; } while (0)

/* ---- directories ------------------------------------------------------- */

/* ---- statements and transactions --------------------------------------- */

/* Resets a cached statement and drops bindings to the caller's memory. */
static void
stmt_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* Runs a statement that returns no rows to completion. */
static int
stmt_exec(sqlite3_stmt *st)
{
	int rc;

	rc = sqlite3_step(st);
	stmt_done(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int
tx_begin(struct cordon_trace *t)
{
	return stmt_exec(t->st[ST_BEGIN]) == SQLITE_OK ? 0 : -CORDON_E_TRACE;
}

static int
tx_commit(struct cordon_trace *t)
{
	return stmt_exec(t->st[ST_COMMIT]) == SQLITE_OK ? 0 : -CORDON_E_TRACE;
}

/*
 * Safe to call whatever state the transaction is in: SQLite may already
 * have rolled it back itself (on SQLITE_FULL, SQLITE_NOMEM, ...), and a
 * failed COMMIT leaves it open.
 */
static void
tx_rollback(struct cordon_trace *t)
{
	if (!sqlite3_get_autocommit(t->db))
		(void)stmt_exec(t->st[ST_ROLLBACK]);
}

static int
bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

/*
 * uint64_t values go in as their two's complement int64 and come back out
 * the same way, so even values above INT64_MAX round-trip.
 */
static int
bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	return sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

/* Enum names, NULL for the value that means "not known yet". */
static const char *
backend_or_null(int b)
{
	return b == CORDON_BACKEND_AUTO ? NULL : cordon_backend_name(b);
}

static const char *
outcome_or_null(int o)
{
	return o == 0 ? NULL : cordon_outcome_name(o);
}

static const char *
cap_or_null(int c)
{
	return c == CORDON_CAP_NONE ? NULL : cordon_cap_name(c);
}

/*
 * Maps a stored name back to its enum value by asking the name function
 * about each value in [lo, hi), so the names live only in ids.c.
 * NULL is def; an unknown name is a database this build cannot read.
 */
static int
name_to_id(const char *(*name)(int), int lo, int hi, int def,
    const unsigned char *s, int *out)
{
	int i;

	if (s == NULL) {
		*out = def;
		return 0;
	}
	for (i = lo; i < hi; i++) {
		if (strcmp((const char *)s, name(i)) == 0) {
			*out = i;
			return 0;
		}
	}
	return -CORDON_E_TRACE;
}

/* The values a run can take, checked before anything is written. */
static int
result_check(const struct cordon_result *r)
{
	if (!cordon_run_id_valid(r->run_id))
		return -CORDON_E_INVAL;
	if ((unsigned)r->backend_requested >= CORDON_BACKEND_MAX_ ||
	    (unsigned)r->backend >= CORDON_BACKEND_MAX_ ||
	    r->outcome < 0 || r->outcome >= CORDON_OUTCOME_MAX_ ||
	    r->cap < 0 || r->cap >= CORDON_CAP_MAX_)
		return -CORDON_E_RANGE;
	return 0;
}

static int
events_check(const struct cordon_trace_event *ev, size_t n)
{
	size_t i;

	if (n > 0 && ev == NULL)
		return -CORDON_E_INVAL;
	for (i = 0; i < n; i++)
		if (ev[i].kind == NULL || ev[i].kind[0] == '\0')
			return -CORDON_E_INVAL;
	return 0;
}

/*
 * The run_id and the columns that finish rewrites: the parameters INSERT
 * and UPDATE share.
 */
static int
bind_outcome(sqlite3_stmt *st, const struct cordon_result *r)
{
	int rc = SQLITE_OK;

	SQL_TRY(bind_text(st, 1 + C_RUN_ID, r->run_id));
	if (r->ended_ms == 0)
		SQL_TRY(sqlite3_bind_null(st, 1 + C_ENDED_MS));
	else
		SQL_TRY(sqlite3_bind_int64(st, 1 + C_ENDED_MS, r->ended_ms));
	SQL_TRY(bind_text(st, 1 + C_BACKEND, backend_or_null(r->backend)));
	SQL_TRY(bind_text(st, 1 + C_BACKEND_REASON, r->backend_reason));
	/* The cgroup-enforced caps ride in the upper half of applied. */
	SQL_TRY(sqlite3_bind_int64(st, 1 + C_APPLIED, r->applied |
	    (int64_t)r->kernel_enforced << 16));
	SQL_TRY(bind_text(st, 1 + C_OUTCOME, outcome_or_null(r->outcome)));
	SQL_TRY(sqlite3_bind_int(st, 1 + C_EXIT_CODE, r->exit_code));
	SQL_TRY(sqlite3_bind_int(st, 1 + C_SIGNAL, r->signal));
	SQL_TRY(bind_text(st, 1 + C_CAP, cap_or_null(r->cap)));
	SQL_TRY(bind_u64(st, 1 + C_CPU_NS, r->cpu_ns));
	SQL_TRY(bind_u64(st, 1 + C_WALL_NS, r->wall_ns));
	SQL_TRY(bind_u64(st, 1 + C_MAX_RSS, r->max_rss));
	SQL_TRY(bind_text(st, 1 + C_WORKDIR, r->workdir));
	SQL_TRY(sqlite3_bind_int(st, 1 + C_WORKDIR_REMOVED,
	    r->workdir_removed));
	SQL_TRY(bind_text(st, 1 + C_ERROR, r->error));
out:
	return rc;
}

/* The columns fixed when the run begins. */
static int
bind_identity(sqlite3_stmt *st, const struct cordon_result *r,
    const char *argv_json, const char *blob, size_t bloblen,
    const char *hosts)
{
	const struct cordon_limits *l = &r->limits;
	int rc = SQLITE_OK;

	SQL_TRY(sqlite3_bind_int64(st, 1 + C_CREATED_MS, r->created_ms));
	SQL_TRY(bind_text(st, 1 + C_ARGV, argv_json));
	SQL_TRY(sqlite3_bind_blob(st, 1 + C_ARGV_BLOB, blob, (int)bloblen,
	    SQLITE_STATIC));
	SQL_TRY(bind_text(st, 1 + C_CWD, r->cwd));
	SQL_TRY(sqlite3_bind_int64(st, 1 + C_UID, r->uid));
	SQL_TRY(bind_text(st, 1 + C_USER, r->user));
	SQL_TRY(bind_text(st, 1 + C_BACKEND_REQUESTED,
	    cordon_backend_name(r->backend_requested)));
	SQL_TRY(bind_u64(st, 1 + C_CPU_LIMIT_NS, l->cpu_ns));
	SQL_TRY(bind_u64(st, 1 + C_WALL_LIMIT_NS, l->wall_ns));
	SQL_TRY(bind_u64(st, 1 + C_MEMORY_LIMIT, l->memory_bytes));
	SQL_TRY(bind_u64(st, 1 + C_NOFILE_LIMIT, l->nofile));
	SQL_TRY(bind_u64(st, 1 + C_NPROC_LIMIT, l->nproc));
	SQL_TRY(sqlite3_bind_int(st, 1 + C_NETWORK, r->network ? 1 : 0));
	SQL_TRY(sqlite3_bind_int64(st, 1 + C_BROKER_PID, r->broker_pid));
	SQL_TRY(bind_u64(st, 1 + C_BROKER_START, r->broker_start));
	SQL_TRY(bind_u64(st, 1 + C_OUTPUT_LIMIT, l->output_bytes));
	SQL_TRY(bind_u64(st, 1 + C_DISK_LIMIT, l->disk_bytes));
	SQL_TRY(bind_text(st, 1 + C_ALLOW_HOSTS, hosts));
out:
	return rc;
}

/* Inserts n events of run_id inside the caller's transaction. */
static int
insert_events(struct cordon_trace *t, const char *run_id,
    const struct cordon_trace_event *ev, size_t n)
{
	sqlite3_stmt *st = t->st[ST_INSERT_EVENT];
	int64_t ts;
	size_t i;
	int rc = SQLITE_OK;

	for (i = 0; i < n; i++) {
		/* No event happened in 1970: 0 means "now". */
		ts = ev[i].ts_ms != 0 ? ev[i].ts_ms : cordon_now_ms();
		SQL_TRY(bind_text(st, 1, run_id));
		SQL_TRY(sqlite3_bind_int64(st, 2, ts));
		SQL_TRY(bind_text(st, 3, ev[i].kind));
		SQL_TRY(bind_text(st, 4, ev[i].detail));
		SQL_TRY(stmt_exec(st));
	}
out:
	stmt_done(st);
	if (rc == SQLITE_OK)
		return 0;
	/* The foreign key is the only way an event insert names no run. */
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return -CORDON_E_NOTFOUND;
	return -CORDON_E_TRACE;
}

/* ---- argv as JSON ------------------------------------------------------ */

/*
 * argv_blob (strings each followed by one NUL) as the JSON array of
 * runs.argv, for people reading the trace.  Shared by the writer and the
 * schema 3 migration, so both give one form.
 */
static int
blob_to_json(const char *b, size_t n, char **out)
{
	struct cordon_json j;
	size_t off;
	int err = 0;

	*out = NULL;
	if (n == 0 || b[n - 1] != '\0')
		return -CORDON_E_INVAL;
	cordon_json_init(&j);
	cordon_json_arr_begin(&j);
	for (off = 0; off < n; off += strlen(b + off) + 1)
		cordon_json_str(&j, b + off);
	cordon_json_arr_end(&j);
	if ((*out = cordon_json_finish(&j, &err)) != NULL)
		return 0;
	return err < 0 ? err : -CORDON_E_NOMEM;
}

/*
 * cordon_argv_json(argv_blob), for migration 3; NULL for a blob that is
 * not one (the migration then keeps the row's argv as it was).  Direct
 * only: a trigger or view in a crafted database cannot call it.
 */
static void
sql_argv_json(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *b;
	char *json = NULL;
	int n, r;

	(void)argc;
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB ||
	    (n = sqlite3_value_bytes(argv[0])) <= 0 ||
	    (b = sqlite3_value_blob(argv[0])) == NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if ((r = blob_to_json(b, (size_t)n, &json)) == -CORDON_E_INVAL)
		sqlite3_result_null(ctx);
	else if (r < 0)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_text(ctx, json, -1, free);
}

/* ---- opening and migrating --------------------------------------------- */

static int
exec_sql(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ?
	    0 : -CORDON_E_TRACE;
}

/*
 * Runs a journal_mode pragma and says whether the answer is "wal".
 *
 * Changing the journal mode can return SQLITE_BUSY without calling the
 * busy handler while another connection has the database open, which is
 * what happens when several processes create a trace together.  So it is
 * retried here, bounded like the busy timeout.
 */
static int
journal_mode_wal(sqlite3 *db, const char *sql, bool *iswal)
{
	const struct timespec pause = { 0, TRACE_WAL_RETRY_NS };
	const unsigned char *mode;
	sqlite3_stmt *st = NULL;
	int tries, rc;

	for (tries = 0; ; tries++) {
		rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
		if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
			break;
		sqlite3_finalize(st);
		st = NULL;
		if ((rc & 0xff) != SQLITE_BUSY || tries >= TRACE_WAL_RETRIES)
			return -CORDON_E_TRACE;
		nanosleep(&pause, NULL);
	}
	mode = sqlite3_column_text(st, 0);
	*iswal = mode != NULL &&
	    sqlite3_stricmp((const char *)mode, "wal") == 0;
	sqlite3_finalize(st);
	return 0;
}

static int
set_wal(sqlite3 *db)
{
	bool iswal = false;
	int r;

	/* Only the change needs the lock that makes the pragma busy. */
	if ((r = journal_mode_wal(db, "PRAGMA journal_mode", &iswal)) < 0 ||
	    iswal)
		return r;
	if ((r = journal_mode_wal(db, "PRAGMA journal_mode=WAL", &iswal)) < 0)
		return r;
	/*
	 * A database that cannot do WAL (in memory, or on a file system
	 * without shared memory) would serialise every reader behind each
	 * writer, which the trace's concurrency promise rules out.
	 */
	return iswal ? 0 : -CORDON_E_TRACE;
}

/* Strict parse of the stored version; anything odd is not ours to touch. */
static int
parse_version(const unsigned char *s, int *version)
{
	char *end = NULL;
	long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -CORDON_E_TRACE;
	errno = 0;
	v = strtol((const char *)s, &end, 10);
	if (errno != 0 || *end != '\0' || v > INT_MAX)
		return -CORDON_E_TRACE;
	*version = (int)v;
	return 0;
}

/* The schema version, 0 for a database cordon has not written yet. */
static int
read_version(sqlite3 *db, int *version)
{
	sqlite3_stmt *st = NULL;
	int rc, r = -CORDON_E_TRACE;

	*version = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master"
	    " WHERE type = 'table' AND name = 'meta'", -1, &st, NULL) !=
	    SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		goto out;
	if (sqlite3_column_int(st, 0) == 0) {
		r = 0;
		goto out;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta"
	    " WHERE key = 'schema_version'", -1, &st, NULL) != SQLITE_OK)
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		r = 0;
	else if (rc == SQLITE_ROW)
		r = parse_version(sqlite3_column_text(st, 0), version);
out:
	sqlite3_finalize(st);
	return r;
}

static int
migrate(sqlite3 *db)
{
	char sql[128];
	int version = 0, r;

	/* Most opens find the schema current and need no write lock. */
	if ((r = read_version(db, &version)) < 0)
		return r;
	if (version > CORDON_TRACE_SCHEMA_VERSION)
		return -CORDON_E_TRACE;
	if (version == CORDON_TRACE_SCHEMA_VERSION)
		return 0;

	if ((r = exec_sql(db, "BEGIN IMMEDIATE")) < 0)
		return r;
	/* Another process may have migrated since the look above. */
	if ((r = exec_sql(db, "CREATE TABLE IF NOT EXISTS meta"
	    " (key TEXT PRIMARY KEY, value TEXT)")) < 0 ||
	    (r = read_version(db, &version)) < 0)
		goto out;
	if (version > CORDON_TRACE_SCHEMA_VERSION) {
		r = -CORDON_E_TRACE;
		goto out;
	}
	for (; version < CORDON_TRACE_SCHEMA_VERSION; version++)
		if ((r = exec_sql(db, migrations[version])) < 0)
			goto out;
	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO meta (key, value)"
	    " VALUES ('schema_version', '%d')", CORDON_TRACE_SCHEMA_VERSION);
	if ((r = exec_sql(db, sql)) < 0)
		goto out;
	r = exec_sql(db, "COMMIT");
out:
	if (r < 0 && !sqlite3_get_autocommit(db))
		(void)exec_sql(db, "ROLLBACK");
	return r;
}

int
cordon_trace_open(const char *path, struct cordon_trace **out)
{
	struct cordon_trace *t = NULL;
	int i, r;

	*out = NULL;
	if (path == NULL || path[0] == '\0')
		return -CORDON_E_INVAL;
	if (strlen(path) > CORDON_MAX_PATH_LEN)
		return -CORDON_E_TOOLONG;
	if ((r = cordon_mkdir_parents(path)) < 0 ||
	    (r = cordon_create_private(path)) < 0)
		return r;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return -CORDON_E_NOMEM;

	r = -CORDON_E_TRACE;
	/* One connection per process, never shared between threads. */
	if (sqlite3_open_v2(path, &t->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		goto out;
	/* Extended codes: insert_events tells a missing run by its code. */
	if (sqlite3_extended_result_codes(t->db, 1) != SQLITE_OK ||
	    sqlite3_busy_timeout(t->db, TRACE_BUSY_TIMEOUT_MS) != SQLITE_OK ||
	    /*
	     * Each cordon process opens the trace once: checkpointing at every
	     * close would reset the WAL and pay two fsyncs per run.  Writers
	     * still checkpoint automatically as the WAL grows.
	     */
	    sqlite3_db_config(t->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1,
	    (int *)NULL) != SQLITE_OK ||
	    (r = set_wal(t->db)) < 0 ||
	    /*
	     * In WAL mode NORMAL loses nothing when a process dies, only the
	     * last commits on power loss, and saves an fsync per phase.
	     */
	    (r = exec_sql(t->db, "PRAGMA synchronous=NORMAL")) < 0 ||
	    /*
	     * The first connection to open the trace (every cordon run, as a
	     * rule) rebuilds the WAL index by reading and checksumming every
	     * frame in the WAL: with the default 1000-page checkpoint that is
	     * up to 4 MiB per run.  A short WAL costs a checkpoint every few
	     * runs and reads a tenth of that.
	     */
	    (r = exec_sql(t->db, "PRAGMA wal_autocheckpoint=" TRACE_WAL_PAGES))
	    < 0 ||
	    /* Pages read through a mapping, not one pread each (~170/run). */
	    (r = exec_sql(t->db, "PRAGMA mmap_size=268435456")) < 0 ||
	    (r = exec_sql(t->db, "PRAGMA foreign_keys=ON")) < 0)
		goto out;
	if (sqlite3_create_function_v2(t->db, "cordon_argv_json", 1,
	    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
	    sql_argv_json, NULL, NULL, NULL) != SQLITE_OK) {
		r = -CORDON_E_TRACE;
		goto out;
	}
	if ((r = migrate(t->db)) < 0)
		goto out;
	/* After migrating: the statements name tables that only exist now. */
	for (i = 0; i < ST_MAX_; i++) {
		if (sqlite3_prepare_v3(t->db, stmt_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &t->st[i], NULL) != SQLITE_OK) {
			r = -CORDON_E_TRACE;
			goto out;
		}
	}
	*out = t;
	t = NULL;
	r = 0;
out:
	cordon_trace_close(t);
	return r;
}

void
cordon_trace_close(struct cordon_trace *t)
{
	int i;

	if (t == NULL)
		return;
	for (i = 0; i < ST_MAX_; i++)
		sqlite3_finalize(t->st[i]);
	/* Closing NULL is a no-op; a failed open still returns a handle. */
	sqlite3_close_v2(t->db);
	free(t);
}

/* ---- writing ----------------------------------------------------------- */

/* argv as its strings, each followed by one NUL. */
static int
argv_to_blob(const struct cordon_result *r, char **blob, size_t *len)
{
	size_t i, n = 0, l;
	char *b, *p;

	*blob = NULL;
	*len = 0;
	for (i = 0; i < r->argc; i++) {
		if (r->argv[i] == NULL)
			return -CORDON_E_INVAL;
		if (__builtin_add_overflow(n, strlen(r->argv[i]), &n) ||
		    __builtin_add_overflow(n, 1, &n))
			return -CORDON_E_TOOLONG;
	}
	/* sqlite3_bind_blob takes an int. */
	if (n > INT_MAX)
		return -CORDON_E_TOOLONG;
	if ((b = malloc(n)) == NULL)
		return -CORDON_E_NOMEM;
	for (i = 0, p = b; i < r->argc; i++) {
		l = strlen(r->argv[i]) + 1;
		memcpy(p, r->argv[i], l);
		p += l;
	}
	*blob = b;
	*len = n;
	return 0;
}

int
cordon_trace_begin(struct cordon_trace *t, const struct cordon_result *r)
{
	return cordon_trace_begin_with(t, r, NULL, 0);
}

int
cordon_trace_begin_with(struct cordon_trace *t, const struct cordon_result *r,
    const struct cordon_trace_event *ev, size_t n)
{
	sqlite3_stmt *st = t->st[ST_INSERT_RUN];
	struct cordon_trace_event create;
	char *blob = NULL, *json = NULL, *hosts = NULL;
	size_t bloblen = 0;
	int r2;

	if ((r2 = result_check(r)) < 0 || (r2 = events_check(ev, n)) < 0)
		return r2;
	if (r->argc < 1 || r->argv == NULL)
		return -CORDON_E_INVAL;
	if ((r2 = argv_to_blob(r, &blob, &bloblen)) < 0 ||
	    (r2 = blob_to_json(blob, bloblen, &json)) < 0 ||
	    (r->egress && (r2 = cordon_egress_list_join(r->allow_hosts,
	    r->nallow_hosts, &hosts)) < 0))
		goto out;

	if ((r2 = tx_begin(t)) < 0)
		goto out;
	if (bind_identity(st, r, json, blob, bloblen, hosts) != SQLITE_OK ||
	    bind_outcome(st, r) != SQLITE_OK || stmt_exec(st) != SQLITE_OK) {
		r2 = -CORDON_E_TRACE;
		goto out;
	}
	create.ts_ms = r->created_ms;
	create.kind = "create";
	create.detail = json;
	if ((r2 = insert_events(t, r->run_id, &create, 1)) < 0 ||
	    (n != 0 && (r2 = insert_events(t, r->run_id, ev, n)) < 0))
		goto out;
	r2 = tx_commit(t);
out:
	stmt_done(st);
	if (r2 < 0)
		tx_rollback(t);
	free(blob);
	free(json);
	free(hosts);
	return r2;
}

int
cordon_trace_events_add(struct cordon_trace *t, const char *run_id,
    const struct cordon_trace_event *ev, size_t n)
{
	int r;

	if (!cordon_run_id_valid(run_id))
		return -CORDON_E_INVAL;
	if ((r = events_check(ev, n)) < 0)
		return r;
	if (n == 0)
		return 0;
	if ((r = tx_begin(t)) < 0)
		return r;
	if ((r = insert_events(t, run_id, ev, n)) == 0)
		r = tx_commit(t);
	if (r < 0)
		tx_rollback(t);
	return r;
}

int
cordon_trace_finish(struct cordon_trace *t, const struct cordon_result *r,
    const struct cordon_trace_event *ev, size_t n)
{
	sqlite3_stmt *st = t->st[ST_UPDATE_RUN];
	int r2;

	if ((r2 = result_check(r)) < 0 || (r2 = events_check(ev, n)) < 0)
		return r2;
	if ((r2 = tx_begin(t)) < 0)
		return r2;
	if (bind_outcome(st, r) != SQLITE_OK || stmt_exec(st) != SQLITE_OK) {
		r2 = -CORDON_E_TRACE;
		goto out;
	}
	if (sqlite3_changes(t->db) == 0) {
		r2 = -CORDON_E_NOTFOUND;
		goto out;
	}
	if ((r2 = insert_events(t, r->run_id, ev, n)) < 0)
		goto out;
	r2 = tx_commit(t);
out:
	stmt_done(st);
	if (r2 < 0)
		tx_rollback(t);
	return r2;
}

/* ---- reading ----------------------------------------------------------- */

/* A copy of a text column; NULL stays NULL. */
static int
col_strdup(sqlite3_stmt *st, int i, char **out)
{
	const unsigned char *s;
	int n;

	*out = NULL;
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return 0;
	if ((s = sqlite3_column_text(st, i)) == NULL)
		return -CORDON_E_NOMEM;
	n = sqlite3_column_bytes(st, i);
	if ((*out = malloc((size_t)n + 1)) == NULL)
		return -CORDON_E_NOMEM;
	memcpy(*out, s, (size_t)n);
	(*out)[n] = '\0';
	return 0;
}

/* Splits argv_blob back into strings; it must end with a NUL. */
static int
blob_to_argv(sqlite3_stmt *st, int i, struct cordon_result *r)
{
	const char *b, *p, *end;
	size_t argc = 0, k, l;
	int n;

	b = sqlite3_column_blob(st, i);
	n = sqlite3_column_bytes(st, i);
	if (b == NULL || n <= 0 || b[n - 1] != '\0')
		return -CORDON_E_TRACE;
	end = b + n;
	for (p = b; p < end; p++)
		if (*p == '\0')
			argc++;
	/* Set before filling, so cordon_result_clear frees a partial argv. */
	if ((r->argv = calloc(argc + 1, sizeof(*r->argv))) == NULL)
		return -CORDON_E_NOMEM;
	r->argc = argc;
	for (k = 0, p = b; k < argc; k++) {
		l = strlen(p) + 1;
		if ((r->argv[k] = malloc(l)) == NULL)
			return -CORDON_E_NOMEM;
		memcpy(r->argv[k], p, l);
		p += l;
	}
	return 0;
}

/* Fills r (zeroed first) from a row in RUN_COLUMNS order. */
static int
row_to_result(sqlite3_stmt *st, struct cordon_result *r)
{
	struct cordon_limits *l = &r->limits;
	const unsigned char *id;
	int v = 0, e;

	memset(r, 0, sizeof(*r));
	id = sqlite3_column_text(st, C_RUN_ID);
	if (id == NULL || sqlite3_column_bytes(st, C_RUN_ID) !=
	    CORDON_RUN_ID_LEN)
		return -CORDON_E_TRACE;
	memcpy(r->run_id, id, CORDON_RUN_ID_LEN);
	r->run_id[CORDON_RUN_ID_LEN] = '\0';

	r->created_ms = sqlite3_column_int64(st, C_CREATED_MS);
	r->ended_ms = sqlite3_column_int64(st, C_ENDED_MS);
	r->uid = (uint32_t)sqlite3_column_int64(st, C_UID);
	l->cpu_ns = (uint64_t)sqlite3_column_int64(st, C_CPU_LIMIT_NS);
	l->wall_ns = (uint64_t)sqlite3_column_int64(st, C_WALL_LIMIT_NS);
	l->memory_bytes = (uint64_t)sqlite3_column_int64(st, C_MEMORY_LIMIT);
	l->nofile = (uint64_t)sqlite3_column_int64(st, C_NOFILE_LIMIT);
	l->nproc = (uint64_t)sqlite3_column_int64(st, C_NPROC_LIMIT);
	r->network = sqlite3_column_int(st, C_NETWORK) != 0;
	r->applied = (uint32_t)sqlite3_column_int64(st, C_APPLIED) & 0xffff;
	r->kernel_enforced = (uint32_t)(sqlite3_column_int64(st, C_APPLIED) >>
	    16) & 0xffff;
	r->exit_code = sqlite3_column_int(st, C_EXIT_CODE);
	r->signal = sqlite3_column_int(st, C_SIGNAL);
	r->cpu_ns = (uint64_t)sqlite3_column_int64(st, C_CPU_NS);
	r->wall_ns = (uint64_t)sqlite3_column_int64(st, C_WALL_NS);
	r->max_rss = (uint64_t)sqlite3_column_int64(st, C_MAX_RSS);
	r->workdir_removed = sqlite3_column_int(st, C_WORKDIR_REMOVED);
	r->broker_pid = (uint32_t)sqlite3_column_int64(st, C_BROKER_PID);
	r->broker_start = (uint64_t)sqlite3_column_int64(st, C_BROKER_START);
	l->output_bytes = (uint64_t)sqlite3_column_int64(st, C_OUTPUT_LIMIT);
	l->disk_bytes = (uint64_t)sqlite3_column_int64(st, C_DISK_LIMIT);

	if ((e = name_to_id(cordon_backend_name, 0, CORDON_BACKEND_MAX_,
	    CORDON_BACKEND_AUTO,
	    sqlite3_column_text(st, C_BACKEND_REQUESTED), &v)) < 0)
		return e;
	r->backend_requested = v;
	if ((e = name_to_id(cordon_backend_name, 0, CORDON_BACKEND_MAX_,
	    CORDON_BACKEND_AUTO, sqlite3_column_text(st, C_BACKEND), &v)) < 0)
		return e;
	r->backend = v;
	if ((e = name_to_id(cordon_outcome_name, 1, CORDON_OUTCOME_MAX_, 0,
	    sqlite3_column_text(st, C_OUTCOME), &r->outcome)) < 0 ||
	    (e = name_to_id(cordon_cap_name, 0, CORDON_CAP_MAX_,
	    CORDON_CAP_NONE, sqlite3_column_text(st, C_CAP), &r->cap)) < 0)
		return e;

	if ((e = blob_to_argv(st, C_ARGV_BLOB, r)) < 0 ||
	    (e = col_strdup(st, C_CWD, &r->cwd)) < 0 ||
	    (e = col_strdup(st, C_USER, &r->user)) < 0 ||
	    (e = col_strdup(st, C_BACKEND_REASON, &r->backend_reason)) < 0 ||
	    (e = col_strdup(st, C_WORKDIR, &r->workdir)) < 0 ||
	    (e = col_strdup(st, C_ERROR, &r->error)) < 0)
		return e;
	/* The allow-list asked for; its counts are in the egress events. */
	if (sqlite3_column_type(st, C_ALLOW_HOSTS) != SQLITE_NULL) {
		r->egress = true;
		if ((e = cordon_egress_list_split((const char *)
		    sqlite3_column_text(st, C_ALLOW_HOSTS), &r->allow_hosts,
		    &r->nallow_hosts)) < 0)
			return e;
	}
	return 0;
}

int
cordon_trace_get(struct cordon_trace *t, const char *run_id,
    struct cordon_result *r)
{
	sqlite3_stmt *st = t->st[ST_GET_RUN];
	int rc, e;

	memset(r, 0, sizeof(*r));
	/* A malformed id cannot have been recorded. */
	if (!cordon_run_id_valid(run_id))
		return -CORDON_E_NOTFOUND;
	if (bind_text(st, 1, run_id) != SQLITE_OK) {
		e = -CORDON_E_TRACE;
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		e = -CORDON_E_NOTFOUND;
	else if (rc != SQLITE_ROW)
		e = -CORDON_E_TRACE;
	else if ((e = row_to_result(st, r)) < 0)
		cordon_result_clear(r);
out:
	stmt_done(st);
	return e;
}

/*
 * The walks below prepare their statement per call rather than caching
 * it: a callback may itself read the trace (export lists runs and reads
 * each one's events), and a cached statement would be reset under it.
 * A nonzero return from fn stops the walk and is returned.
 */
int
cordon_trace_get_events(struct cordon_trace *t, const char *run_id,
    int (*fn)(const struct cordon_trace_event *ev, void *arg), void *arg)
{
	struct cordon_trace_event ev;
	sqlite3_stmt *st = NULL;
	size_t seen = 0;
	int rc, r = -CORDON_E_TRACE;

	if (!cordon_run_id_valid(run_id))
		return -CORDON_E_NOTFOUND;
	/* The index on run_id holds the rowid (id), so no sort is needed. */
	if (sqlite3_prepare_v2(t->db, "SELECT ts_ms, kind, detail FROM events"
	    " WHERE run_id = ?1 ORDER BY id", -1, &st, NULL) != SQLITE_OK ||
	    bind_text(st, 1, run_id) != SQLITE_OK)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		seen++;
		ev.ts_ms = sqlite3_column_int64(st, 0);
		if ((ev.kind = (const char *)sqlite3_column_text(st, 1)) ==
		    NULL) {
			r = -CORDON_E_TRACE;
			goto out;
		}
		/* A copy: fn must not be able to write into SQLite's memory. */
		if ((r = col_strdup(st, 2, &ev.detail)) < 0)
			goto out;
		r = fn(&ev, arg);
		free(ev.detail);
		if (r != 0)
			goto out;
	}
	/* Every run has its "create" event, so none means no such run. */
	if (rc != SQLITE_DONE)
		r = -CORDON_E_TRACE;
	else
		r = seen == 0 ? -CORDON_E_NOTFOUND : 0;
out:
	sqlite3_finalize(st);
	return r;
}

int
cordon_trace_list(struct cordon_trace *t, unsigned limit,
    int (*fn)(const struct cordon_result *r, void *arg), void *arg)
{
	struct cordon_result res;
	sqlite3_stmt *st = NULL;
	int rc, r = -CORDON_E_TRACE;

	/*
	 * runs_created_ms holds the rowid after created_ms, so this walks
	 * the index backwards and stops after `limit` rows.
	 */
	if (sqlite3_prepare_v2(t->db, "SELECT " RUN_COLUMNS " FROM runs"
	    " ORDER BY created_ms DESC, rowid DESC LIMIT ?1", -1, &st,
	    NULL) != SQLITE_OK ||
	    /* A negative LIMIT is no limit. */
	    sqlite3_bind_int64(st, 1, limit == 0 ? -1 : (sqlite3_int64)limit) !=
	    SQLITE_OK)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((r = row_to_result(st, &res)) == 0)
			r = fn(&res, arg);
		cordon_result_clear(&res);
		if (r != 0)
			goto out;
	}
	r = rc == SQLITE_DONE ? 0 : -CORDON_E_TRACE;
out:
	sqlite3_finalize(st);
	return r;
}

/* ---- reconcile --------------------------------------------------------- */

struct orphan {
	char run_id[CORDON_RUN_ID_LEN + 1];
};

/*
 * A pid alone could have been reused by now; pid and start time together
 * name one process per boot.  cordon_proc_start_time() says 0 for a
 * process that is gone, so 0 never matches, even a recorded 0.
 */
static bool
broker_alive(uint32_t pid, uint64_t start)
{
	uint64_t cur;

	if (pid == 0)
		return false;
	cur = cordon_proc_start_time(pid);
	return cur != 0 && cur == start;
}

/* Unfinished runs whose broker is gone. */
static int
find_orphans(struct cordon_trace *t, struct orphan **out, size_t *n)
{
	struct orphan *o = NULL, *no;
	sqlite3_stmt *st = NULL;
	const unsigned char *id;
	size_t cap = 0, len = 0;
	int rc, r = -CORDON_E_TRACE;

	*out = NULL;
	*n = 0;
	/* Served by the partial index runs_unfinished. */
	if (sqlite3_prepare_v2(t->db, "SELECT run_id, broker_pid, broker_start"
	    " FROM runs WHERE outcome IS NULL", -1, &st, NULL) != SQLITE_OK)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_text(st, 0);
		if (id == NULL ||
		    sqlite3_column_bytes(st, 0) != CORDON_RUN_ID_LEN)
			continue;
		if (broker_alive((uint32_t)sqlite3_column_int64(st, 1),
		    (uint64_t)sqlite3_column_int64(st, 2)))
			continue;
		if (len == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			if ((no = reallocarray(o, cap, sizeof(*o))) == NULL) {
				r = -CORDON_E_NOMEM;
				goto out;
			}
			o = no;
		}
		memcpy(o[len].run_id, id, CORDON_RUN_ID_LEN);
		o[len].run_id[CORDON_RUN_ID_LEN] = '\0';
		len++;
	}
	if (rc != SQLITE_DONE)
		goto out;
	*out = o;
	*n = len;
	o = NULL;
	r = 0;
out:
	sqlite3_finalize(st);
	free(o);
	return r;
}

int
cordon_trace_reconcile(struct cordon_trace *t)
{
	struct cordon_trace_event ev;
	struct orphan *o = NULL;
	sqlite3_stmt *st = NULL;
	int64_t now;
	size_t n = 0, i;
	int rc = SQLITE_OK, marked = 0, r;

	/* Looked up outside the write lock: reading /proc takes a while. */
	if ((r = find_orphans(t, &o, &n)) < 0 || n == 0)
		goto out;
	r = -CORDON_E_TRACE;
	/*
	 * "outcome IS NULL" again: the run may have finished since it was
	 * found, and a real result must never be overwritten.
	 */
	if (sqlite3_prepare_v2(t->db, "UPDATE runs SET outcome = ?1,"
	    " error = ?2, ended_ms = ?3 WHERE run_id = ?4 AND outcome IS NULL",
	    -1, &st, NULL) != SQLITE_OK)
		goto out;
	if ((r = tx_begin(t)) < 0)
		goto out;
	now = cordon_now_ms();
	ev.ts_ms = now;
	ev.kind = "error";
	ev.detail = RECONCILE_ERROR;
	for (i = 0; i < n; i++) {
		SQL_TRY(bind_text(st, 1,
		    cordon_outcome_name(CORDON_OUTCOME_SANDBOX_ERROR)));
		SQL_TRY(bind_text(st, 2, RECONCILE_ERROR));
		SQL_TRY(sqlite3_bind_int64(st, 3, now));
		SQL_TRY(bind_text(st, 4, o[i].run_id));
		SQL_TRY(stmt_exec(st));
		if (sqlite3_changes(t->db) == 0)
			continue;
		if ((r = insert_events(t, o[i].run_id, &ev, 1)) < 0)
			goto out;
		marked++;
	}
	r = tx_commit(t);
out:
	if (rc != SQLITE_OK)
		r = -CORDON_E_TRACE;
	if (r < 0)
		tx_rollback(t);
	sqlite3_finalize(st);
	free(o);
	return r < 0 ? r : marked;
}
