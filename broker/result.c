/*
 * result.c - the result record: accessors, exit status, JSON.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

void
cordon_result_clear(struct cordon_result *r)
{
	size_t i;

	if (r->argv != NULL)
		for (i = 0; i < r->argc; i++)
			free(r->argv[i]);
	free(r->argv);
	free(r->cwd);
	free(r->user);
	free(r->backend_reason);
	free(r->workdir);
	free(r->error);
	for (i = 0; r->allow_hosts != NULL && i < r->nallow_hosts; i++)
		free(r->allow_hosts[i]);
	free(r->allow_hosts);
	memset(r, 0, sizeof(*r));
}

void
cordon_result_free(cordon_result *r)
{
	if (r == NULL)
		return;
	cordon_result_clear(r);
	free(r);
}

const char *cordon_result_run_id(const cordon_result *r) { return r->run_id; }
enum cordon_backend_id cordon_result_backend(const cordon_result *r) { return r->backend; }
const char *cordon_result_backend_reason(const cordon_result *r) { return r->backend_reason; }
enum cordon_outcome_id cordon_result_outcome(const cordon_result *r) { return (enum cordon_outcome_id)r->outcome; }
int cordon_result_exit_code(const cordon_result *r) { return r->exit_code; }
int cordon_result_signal(const cordon_result *r) { return r->signal; }
enum cordon_cap_id cordon_result_cap(const cordon_result *r) { return (enum cordon_cap_id)r->cap; }
double cordon_result_cpu_seconds(const cordon_result *r) { return (double)r->cpu_ns / 1e9; }
double cordon_result_wall_seconds(const cordon_result *r) { return (double)r->wall_ns / 1e9; }
uint64_t cordon_result_max_rss_bytes(const cordon_result *r) { return r->max_rss; }
bool cordon_result_workdir_removed(const cordon_result *r) { return r->workdir_removed == 1; }
const char *cordon_result_error(const cordon_result *r) { return r->error; }

bool
cordon_result_applied(const cordon_result *r, enum cordon_cap_id cap)
{
	return (int)cap > 0 && cap < CORDON_CAP_MAX_ &&
	    (r->applied & (1U << cap)) != 0;
}

int
cordon_result_exit_status(const cordon_result *r)
{
	/* Results asked for but not delivered: cordon failed, not the payload. */
	if (r->files_failed && (r->outcome == CORDON_OUTCOME_EXITED ||
	    r->outcome == CORDON_OUTCOME_SIGNALED))
		return 125;
	switch (r->outcome) {
	case CORDON_OUTCOME_EXITED:
		return r->exit_code;
	case CORDON_OUTCOME_SIGNALED:
		return 128 + r->signal;
	case CORDON_OUTCOME_CAP_HIT:
		return 124;
	default:
		return 125;
	}
}

/*
 * The helper's own words for a cap it was asked for and could not apply,
 * "; NAME: why" in BACKEND's reason (helper/main_win.c: what a Job
 * Object read back), copied into buf: false when it said none.
 */
static bool
helper_said(const struct cordon_result *r, int cap, char *buf, size_t bufsz)
{
	char key[32];
	const char *p, *end;

	if (r->backend_reason == NULL ||
	    snprintf(key, sizeof(key), "; %s: ", cordon_cap_name(cap)) < 0 ||
	    (p = strstr(r->backend_reason, key)) == NULL)
		return false;
	p += strlen(key);
	if ((end = strstr(p, "; ")) == NULL)
		end = p + strlen(p);
	(void)snprintf(buf, bufsz, "%.*s", (int)(end - p), p);
	return true;
}

const char *
cordon_not_applied_reason(const struct cordon_result *r, int cap, char *buf,
    size_t bufsz)
{
	const char *why = NULL;
	bool floor = r->backend == CORDON_BACKEND_FLOOR;
	bool ll = r->backend == CORDON_BACKEND_LANDLOCK;

	if (r->backend == CORDON_BACKEND_AUTO || cap <= 0 ||
	    cap >= CORDON_CAP_MAX_ || (r->applied & (1U << cap)) != 0)
		return NULL;
	switch (cap) {
	case CORDON_CAP_NETWORK:
		why = r->network ? "network access was asked for (--network)" :
		    floor ? "the floor backend has no network isolation" :
		    ll ? "this kernel's Landlock has no network rules (needs "
		    "ABI 4)" : NULL;
		break;
	case CORDON_CAP_FILESYSTEM:
		why = floor ? "the floor backend has no file-system isolation" :
		    ll ? "this kernel's Landlock cannot confine truncate(2) "
		    "(needs ABI 3)" : NULL;
		break;
	case CORDON_CAP_SCOPING:
		why = floor ? "the floor backend does not scope signals or "
		    "abstract sockets" : ll ? "this kernel's Landlock cannot "
		    "scope signals and abstract sockets (needs ABI 6)" : NULL;
		break;
	case CORDON_CAP_NPROC:
		why = r->limits.nproc == 0 ? "no process cap was set (--nproc)" :
		    NULL;
		break;
	case CORDON_CAP_OUTPUT:
		why = r->limits.output_bytes == 0 ? "no output cap was set "
		    "(--output-limit)" : NULL;
		break;
	case CORDON_CAP_DISK:
		why = r->limits.disk_bytes == 0 ? "no disk cap was set (--disk)" :
		    NULL;
		break;
	default:
		break;
	}
	if (why == NULL)
		why = cordon_backend_never(r->backend, cap);
	if (why != NULL)
		(void)snprintf(buf, bufsz, "%s", why);
	else if (!helper_said(r, cap, buf, bufsz))
		(void)snprintf(buf, bufsz, "the %s backend does not apply it on "
		    "this host", cordon_backend_name(r->backend));
	return buf;
}

const char *
cordon_result_not_applied(const cordon_result *r, enum cordon_cap_id cap,
    char *buf, size_t bufsz)
{
	return cordon_not_applied_reason(r, (int)cap, buf, bufsz);
}

static const char *
name_or_null(const char *(*name)(int), int v)
{
	return v == 0 ? NULL : name(v);
}

/* KEY: v, or null when v is 0 (no cap set). */
static void
key_u64_or_null(struct cordon_json *j, const char *key, uint64_t v)
{
	cordon_json_key(j, key);
	if (v != 0)
		cordon_json_u64(j, v);
	else
		cordon_json_null(j);
}

/* How the run ended and what it used. */
static void
json_outcome(const struct cordon_result *r, struct cordon_json *j)
{
	cordon_json_key(j, "run_id");
	cordon_json_str(j, r->run_id);
	cordon_json_key(j, "backend");
	cordon_json_str(j, name_or_null(cordon_backend_name, r->backend));
	cordon_json_key(j, "backend_reason");
	cordon_json_str(j, r->backend_reason);
	cordon_json_key(j, "outcome");
	cordon_json_str(j, name_or_null(cordon_outcome_name, r->outcome));
	cordon_json_key(j, "exit_code");
	if (r->outcome == CORDON_OUTCOME_EXITED)
		cordon_json_i64(j, r->exit_code);
	else
		cordon_json_null(j);
	cordon_json_key(j, "signal");
	if (r->signal != 0)
		cordon_json_i64(j, r->signal);
	else
		cordon_json_null(j);
	cordon_json_key(j, "cap");
	cordon_json_str(j, name_or_null(cordon_cap_name, r->cap));
	cordon_json_key(j, "cpu_seconds");
	cordon_json_double(j, (double)r->cpu_ns / 1e9);
	cordon_json_key(j, "wall_seconds");
	cordon_json_double(j, (double)r->wall_ns / 1e9);
	cordon_json_key(j, "max_rss_bytes");
	cordon_json_u64(j, r->max_rss);
}

/* "limits": what was asked. */
static void
json_limits(const struct cordon_result *r, struct cordon_json *j)
{
	cordon_json_key(j, "limits");
	cordon_json_obj_begin(j);
	cordon_json_key(j, "cpu_seconds");
	cordon_json_double(j, (double)r->limits.cpu_ns / 1e9);
	cordon_json_key(j, "wall_seconds");
	cordon_json_double(j, (double)r->limits.wall_ns / 1e9);
	cordon_json_key(j, "memory_bytes");
	cordon_json_u64(j, r->limits.memory_bytes);
	cordon_json_key(j, "nofile");
	cordon_json_u64(j, r->limits.nofile);
	key_u64_or_null(j, "processes", r->limits.nproc);
	cordon_json_key(j, "network");
	cordon_json_bool(j, r->network);
	key_u64_or_null(j, "output_bytes", r->limits.output_bytes);
	key_u64_or_null(j, "disk_bytes", r->limits.disk_bytes);
	cordon_json_obj_end(j);
}

/*
 * "applied", "not_applied" (each cap or control not applied, and why;
 * null: nothing ran) and "enforcement" (who enforces each applied
 * resource cap: the kernel or our monitor).
 */
static void
json_applied(const struct cordon_result *r, struct cordon_json *j)
{
	char why[256];
	int cap, i;

	cordon_json_key(j, "applied");
	cordon_json_obj_begin(j);
	for (cap = 1; cap < CORDON_CAP_MAX_; cap++) {
		cordon_json_key(j, cordon_cap_name(cap));
		cordon_json_bool(j, (r->applied & (1U << cap)) != 0);
	}
	cordon_json_obj_end(j);
	cordon_json_key(j, "not_applied");
	if (r->backend == CORDON_BACKEND_AUTO) {
		cordon_json_null(j);
	} else {
		cordon_json_obj_begin(j);
		for (cap = 1; cap < CORDON_CAP_MAX_; cap++)
			if (cordon_not_applied_reason(r, cap, why, sizeof(why)) !=
			    NULL) {
				cordon_json_key(j, cordon_cap_name(cap));
				cordon_json_str(j, why);
			}
		cordon_json_obj_end(j);
	}
	cordon_json_key(j, "enforcement");
	cordon_json_obj_begin(j);
	for (i = 0; i < 2; i++) {
		cap = i == 0 ? CORDON_CAP_MEMORY : CORDON_CAP_NPROC;
		cordon_json_key(j, cordon_cap_name(cap));
		cordon_json_str(j, (r->applied & (1U << cap)) == 0 ? NULL :
		    (r->kernel_enforced & (1U << cap)) != 0 ? "cgroup" :
		    "monitor");
	}
	cordon_json_obj_end(j);
}

/* The teardown, the error, and who ran what, where and when. */
static void
json_record(const struct cordon_result *r, struct cordon_json *j)
{
	size_t i;

	cordon_json_key(j, "workdir_removed");
	if (r->workdir_removed < 0)
		cordon_json_null(j);
	else
		cordon_json_bool(j, r->workdir_removed == 1);
	cordon_json_key(j, "error");
	cordon_json_str(j, r->error);
	cordon_json_key(j, "argv");
	cordon_json_arr_begin(j);
	for (i = 0; i < r->argc; i++)
		cordon_json_str(j, r->argv[i]);
	cordon_json_arr_end(j);
	cordon_json_key(j, "cwd");
	cordon_json_str(j, r->cwd);
	cordon_json_key(j, "user");
	cordon_json_str(j, r->user);
	cordon_json_key(j, "uid");
	cordon_json_u64(j, r->uid);
	cordon_json_key(j, "workdir");
	cordon_json_str(j, r->workdir);
	cordon_json_key(j, "created_ms");
	cordon_json_i64(j, r->created_ms);
	cordon_json_key(j, "ended_ms");
	if (r->ended_ms != 0)
		cordon_json_i64(j, r->ended_ms);
	else
		cordon_json_null(j);
}

/*
 * "egress": null without --allow-host; else the patterns, what enforced
 * them, and what the proxy counted (broker/proxy.c).
 */
static void
json_egress(const struct cordon_result *r, struct cordon_json *j)
{
	const struct { const char *key; uint64_t n; } counts[] = {
		{ "allowed", r->egress_allowed },
		{ "denied", r->egress_denied },
		{ "failed", r->egress_failed },
		{ "dropped", r->egress_dropped },
	};
	size_t i;

	cordon_json_key(j, "egress");
	if (!r->egress) {
		cordon_json_null(j);
		return;
	}
	cordon_json_obj_begin(j);
	cordon_json_key(j, "allow_hosts");
	cordon_json_arr_begin(j);
	for (i = 0; i < r->nallow_hosts; i++)
		cordon_json_str(j, r->allow_hosts[i]);
	cordon_json_arr_end(j);
	cordon_json_key(j, "mechanism");
	cordon_json_str(j, r->egress_attached ? "linux-ns: the run's own "
	    "network namespace, loopback only; the broker's proxy on "
	    "127.0.0.1:3128 inside it (HTTP CONNECT, http://, SOCKS5)" : NULL);
	/* Read back from the trace: the counts are in its egress events. */
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		cordon_json_key(j, counts[i].key);
		if (r->egress_counted)
			cordon_json_u64(j, counts[i].n);
		else
			cordon_json_null(j);
	}
	cordon_json_obj_end(j);
}

/* The record's fields, always in this order. */
void
cordon_result_json_fields(const struct cordon_result *r, struct cordon_json *j)
{
	json_outcome(r, j);
	json_limits(r, j);
	json_applied(r, j);
	json_egress(r, j);
	json_record(r, j);
}

int
cordon_result_json(const cordon_result *r, char **json)
{
	struct cordon_json j;
	int err;

	cordon_json_init(&j);
	cordon_json_obj_begin(&j);
	cordon_result_json_fields(r, &j);
	cordon_json_obj_end(&j);
	*json = cordon_json_finish(&j, &err);
	return err;
}
