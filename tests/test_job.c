/*
 * test_job.c - tests for helper/job.c, the Windows Job Object backend's
 * decisions, on Linux with injected read-backs, messages and accounting.
 *
 * What Windows (and Wine) really return is the glue's business
 * (helper/job_win.c, driven under Wine by make check-windows); here every
 * branch of the decisions is driven with the values they may see.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "job.h"

#define SEC 1000000000ULL
#define MiB (1ULL << 20)

/* A run asking for CPU, wall, memory and processes. */
static const struct job_ask ask_all = {
	.cpu_ns = 2 * SEC, .wall_ns = 10 * SEC, .memory_bytes = 256 * MiB,
	.nofile = 512, .nproc = 4,
};

/* What real Windows reads back for ask_all. */
static struct job_readback
rb_windows(void)
{
	struct job_readback rb = {
		.queried = true,
		.flags = JOB_RB_TIME | JOB_RB_MEMORY | JOB_RB_ACTIVE |
		    JOB_RB_KILL_ON_CLOSE | JOB_RB_DIE_ON_EXCEPTION,
		.cpu_100ns = 2 * SEC / 100, .memory_bytes = 256 * MiB,
		.active_processes = 4, .post_at_end = true,
	};
	return rb;
}

/* What Wine 8 reads back: the query succeeds and says nothing. */
static struct job_readback
rb_wine(void)
{
	struct job_readback rb = { .queried = true };
	return rb;
}

static bool
has(const struct job_applied *ap, enum cordon_cap_id c)
{
	return (ap->applied & (1U << c)) != 0;
}

START_TEST(limits_round_up_cpu)
{
	struct job_ask a = { .cpu_ns = 1 };
	struct job_limits l;

	ck_assert_int_eq(job_limits_for(&a, &l), 0);
	ck_assert_uint_eq(l.cpu_100ns, 1);
	a.cpu_ns = 100;
	ck_assert_int_eq(job_limits_for(&a, &l), 0);
	ck_assert_uint_eq(l.cpu_100ns, 1);
	a.cpu_ns = 101;
	ck_assert_int_eq(job_limits_for(&a, &l), 0);
	ck_assert_uint_eq(l.cpu_100ns, 2);
	a.cpu_ns = UINT64_MAX;
	ck_assert_int_eq(job_limits_for(&a, &l), 0);
	ck_assert_uint_le(l.cpu_100ns, (uint64_t)INT64_MAX);
}
END_TEST

START_TEST(limits_copy_memory_and_nproc)
{
	struct job_limits l;

	ck_assert_int_eq(job_limits_for(&ask_all, &l), 0);
	ck_assert_uint_eq(l.cpu_100ns, 20000000);
	ck_assert_uint_eq(l.memory_bytes, 256 * MiB);
	ck_assert_uint_eq(l.active_processes, 4);
}
END_TEST

START_TEST(limits_refuse_wide_nproc)
{
	struct job_ask a = ask_all;
	struct job_limits l = { 7, 7, 7 };

	a.nproc = (uint64_t)UINT32_MAX + 1;
	ck_assert_int_eq(job_limits_for(&a, &l), -CORDON_E_RANGE);
	ck_assert_uint_eq(l.cpu_100ns, 7);
	ck_assert_uint_eq(l.memory_bytes, 7);
	ck_assert_uint_eq(l.active_processes, 7);
	a.nproc = UINT32_MAX;
	ck_assert_int_eq(job_limits_for(&a, &l), 0);
	ck_assert_uint_eq(l.active_processes, UINT32_MAX);
}
END_TEST

START_TEST(applied_when_read_back)
{
	struct job_readback rb = rb_windows();
	struct job_applied ap;

	job_applied_decide(&ask_all, &rb, &ap);
	ck_assert(has(&ap, CORDON_CAP_CPU));
	ck_assert(has(&ap, CORDON_CAP_MEMORY));
	ck_assert(has(&ap, CORDON_CAP_NPROC));
	ck_assert(has(&ap, CORDON_CAP_WALL));
	ck_assert_ptr_null(ap.why[CORDON_CAP_CPU]);
	ck_assert_ptr_null(ap.why[CORDON_CAP_MEMORY]);
	ck_assert_ptr_null(ap.why[CORDON_CAP_NPROC]);
	ck_assert(ap.kill_on_close);
}
END_TEST

/* Never on Windows, whatever was read back. */
START_TEST(never_applied_on_job)
{
	static const enum cordon_cap_id never[] = { CORDON_CAP_NOFILE,
	    CORDON_CAP_NETWORK, CORDON_CAP_FILESYSTEM, CORDON_CAP_SCOPING,
	    CORDON_CAP_OUTPUT, CORDON_CAP_DISK };
	struct job_readback rb = rb_windows();
	struct job_applied ap;
	size_t i;

	job_applied_decide(&ask_all, &rb, &ap);
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		ck_assert_msg(!has(&ap, never[i]), "cap %d applied",
		    (int)never[i]);
		ck_assert_ptr_nonnull(ap.why[never[i]]);
	}
	ck_assert_str_eq(ap.why[CORDON_CAP_NOFILE], "Windows has no "
	    "per-process handle limit a Job Object can set (no RLIMIT_NOFILE "
	    "equivalent)");
	ck_assert_ptr_nonnull(strstr(ap.why[CORDON_CAP_NETWORK], "no socket "
	    "rule"));
	ck_assert_ptr_nonnull(strstr(ap.why[CORDON_CAP_FILESYSTEM], "no path "
	    "rule"));
	/* Only the caps that exist, and CORDON_CAP_NONE never. */
	ck_assert_uint_eq(ap.applied & ~((1U << CORDON_CAP_MAX_) - 2), 0);
}
END_TEST

/*
 * An AppContainer adds network and filesystem to what the job read back
 * (and nothing the read-back did not show: under Wine's zeros, CPU and
 * memory stay not applied); scoping, open files, output and disk stay
 * not applied, each with its reason.
 */
START_TEST(appcontainer_adds_network_and_filesystem)
{
	static const enum cordon_cap_id still_not[] = { CORDON_CAP_NOFILE,
	    CORDON_CAP_SCOPING, CORDON_CAP_OUTPUT, CORDON_CAP_DISK };
	struct job_readback rb = rb_windows();
	struct job_applied ap;
	size_t i;

	job_applied_decide(&ask_all, &rb, &ap);
	job_applied_appcontainer(&ap);
	ck_assert(has(&ap, CORDON_CAP_NETWORK));
	ck_assert(has(&ap, CORDON_CAP_FILESYSTEM));
	ck_assert_ptr_null(ap.why[CORDON_CAP_NETWORK]);
	ck_assert_ptr_null(ap.why[CORDON_CAP_FILESYSTEM]);
	ck_assert(has(&ap, CORDON_CAP_CPU));
	for (i = 0; i < sizeof(still_not) / sizeof(still_not[0]); i++) {
		ck_assert_msg(!has(&ap, still_not[i]), "cap %d applied",
		    (int)still_not[i]);
		ck_assert_ptr_nonnull(ap.why[still_not[i]]);
	}
	ck_assert_int_eq(job_require_unmet(&ap, 1U << CORDON_CAP_NETWORK),
	    CORDON_CAP_NONE);
	ck_assert_int_eq(job_require_unmet(&ap, 1U << CORDON_CAP_SCOPING),
	    CORDON_CAP_SCOPING);

	memset(&rb, 0, sizeof(rb));
	rb.queried = true;
	job_applied_decide(&ask_all, &rb, &ap);
	job_applied_appcontainer(&ap);
	ck_assert(!has(&ap, CORDON_CAP_CPU));
	ck_assert(!has(&ap, CORDON_CAP_MEMORY));
	ck_assert_str_eq(ap.why[CORDON_CAP_MEMORY], JOB_WHY_NO_READBACK);
}
END_TEST

START_TEST(wine_zero_readback_not_applied)
{
	struct job_readback rb = rb_wine();
	struct job_applied ap;

	job_applied_decide(&ask_all, &rb, &ap);
	ck_assert(!has(&ap, CORDON_CAP_CPU));
	ck_assert(!has(&ap, CORDON_CAP_MEMORY));
	ck_assert(!has(&ap, CORDON_CAP_NPROC));
	ck_assert_str_eq(ap.why[CORDON_CAP_CPU], JOB_WHY_NO_READBACK);
	ck_assert_str_eq(ap.why[CORDON_CAP_MEMORY], JOB_WHY_NO_READBACK);
	ck_assert_str_eq(ap.why[CORDON_CAP_NPROC], JOB_WHY_NO_READBACK);
	ck_assert_str_eq(JOB_WHY_NO_READBACK, "the job read back no limit "
	    "(Wine accepts job limits and enforces none)");
	/* The wall cap is the helper's own timer: still applied. */
	ck_assert(has(&ap, CORDON_CAP_WALL));
	ck_assert(!ap.kill_on_close);
}
END_TEST

/* A zero value is "no limit" even with the flag read back. */
START_TEST(zero_value_with_flag_not_applied)
{
	struct job_readback rb = rb_windows();
	struct job_applied ap;

	rb.memory_bytes = 0;
	job_applied_decide(&ask_all, &rb, &ap);
	ck_assert(!has(&ap, CORDON_CAP_MEMORY));
	ck_assert_str_eq(ap.why[CORDON_CAP_MEMORY], JOB_WHY_NO_READBACK);
	ck_assert(has(&ap, CORDON_CAP_CPU));
}
END_TEST

START_TEST(query_failed_not_applied)
{
	struct job_readback rb = rb_windows();
	struct job_applied ap;

	rb.queried = false;
	job_applied_decide(&ask_all, &rb, &ap);
	ck_assert(!has(&ap, CORDON_CAP_CPU));
	ck_assert(!has(&ap, CORDON_CAP_MEMORY));
	ck_assert(!has(&ap, CORDON_CAP_NPROC));
	ck_assert_ptr_nonnull(strstr(ap.why[CORDON_CAP_CPU],
	    "could not be read back"));
	ck_assert(!ap.kill_on_close);
}
END_TEST

START_TEST(different_value_not_applied)
{
	struct job_readback rb = rb_windows();
	struct job_applied ap;

	rb.cpu_100ns += 1;
	rb.memory_bytes *= 2;
	rb.active_processes = 5;
	job_applied_decide(&ask_all, &rb, &ap);
	ck_assert(!has(&ap, CORDON_CAP_CPU));
	ck_assert(!has(&ap, CORDON_CAP_MEMORY));
	ck_assert(!has(&ap, CORDON_CAP_NPROC));
	ck_assert_ptr_nonnull(strstr(ap.why[CORDON_CAP_CPU], "different"));
	ck_assert_ptr_nonnull(strstr(ap.why[CORDON_CAP_MEMORY], "different"));
	ck_assert_ptr_nonnull(strstr(ap.why[CORDON_CAP_NPROC], "different"));
}
END_TEST

/* The value is right but its flag is not set: the limit is not in force. */
START_TEST(missing_flag_not_applied)
{
	struct job_readback rb = rb_windows();
	struct job_applied ap;

	rb.flags &= ~(JOB_RB_TIME | JOB_RB_MEMORY | JOB_RB_ACTIVE);
	job_applied_decide(&ask_all, &rb, &ap);
	ck_assert(!has(&ap, CORDON_CAP_CPU));
	ck_assert(!has(&ap, CORDON_CAP_MEMORY));
	ck_assert(!has(&ap, CORDON_CAP_NPROC));
	ck_assert(ap.kill_on_close);
}
END_TEST

START_TEST(unasked_caps_say_so)
{
	struct job_ask a = { 0 };
	struct job_readback rb = rb_windows();
	struct job_applied ap;

	job_applied_decide(&a, &rb, &ap);
	ck_assert(!has(&ap, CORDON_CAP_CPU));
	ck_assert(!has(&ap, CORDON_CAP_WALL));
	ck_assert_str_eq(ap.why[CORDON_CAP_CPU], "no CPU cap was set (--cpu)");
	ck_assert_str_eq(ap.why[CORDON_CAP_MEMORY],
	    "no memory cap was set (--memory)");
	ck_assert_str_eq(ap.why[CORDON_CAP_NPROC],
	    "no process cap was set (--nproc)");
	ck_assert_str_eq(ap.why[CORDON_CAP_WALL],
	    "no wall cap was set (--wall)");
}
END_TEST

/* An ask job_limits_for refuses is not reported applied. */
START_TEST(refused_ask_not_applied)
{
	struct job_ask a = ask_all;
	struct job_readback rb = rb_windows();
	struct job_applied ap;

	a.nproc = (uint64_t)UINT32_MAX + 1;
	job_applied_decide(&a, &rb, &ap);
	ck_assert(!has(&ap, CORDON_CAP_CPU));
	ck_assert(!has(&ap, CORDON_CAP_NPROC));
}
END_TEST

START_TEST(require_unmet_names_the_cap)
{
	struct job_readback rb = rb_wine();
	struct job_applied ap;

	job_applied_decide(&ask_all, &rb, &ap);
	ck_assert_int_eq(job_require_unmet(&ap, 0), CORDON_CAP_NONE);
	ck_assert_int_eq(job_require_unmet(&ap, 1U << CORDON_CAP_WALL),
	    CORDON_CAP_NONE);
	ck_assert_int_eq(job_require_unmet(&ap, 1U << CORDON_CAP_WALL |
	    1U << CORDON_CAP_MEMORY), CORDON_CAP_MEMORY);
	ck_assert_int_eq(job_require_unmet(&ap, 1U << CORDON_CAP_NPROC |
	    1U << CORDON_CAP_CPU), CORDON_CAP_CPU);

	rb = rb_windows();
	job_applied_decide(&ask_all, &rb, &ap);
	ck_assert_int_eq(job_require_unmet(&ap, 1U << CORDON_CAP_CPU |
	    1U << CORDON_CAP_MEMORY | 1U << CORDON_CAP_NPROC |
	    1U << CORDON_CAP_WALL), CORDON_CAP_NONE);
	ck_assert_int_eq(job_require_unmet(&ap, 1U << CORDON_CAP_NETWORK),
	    CORDON_CAP_NETWORK);
	/* Bits past the last cap name nothing that could be applied. */
	ck_assert_int_eq(job_require_unmet(&ap, 1U << CORDON_CAP_MAX_),
	    CORDON_CAP_NONE);
}
END_TEST

/* --- outcomes ------------------------------------------------------------ */

static void
run_init(struct job_run *r, struct job_readback rb)
{
	memset(r, 0, sizeof(*r));
	r->rb = rb;
	job_applied_decide(&ask_all, &r->rb, &r->ap);
	r->acct.queried = true;
	r->end.started = true;
}

static void
decide(struct job_run *r)
{
	job_outcome_decide(&r->ap, &r->rb, &r->evs, &r->acct, &r->end, &r->out);
}

static void
expect_cap(const struct job_run *r, enum cordon_cap_id cap,
    enum job_evidence by)
{
	ck_assert_int_eq(r->out.outcome, CORDON_OUTCOME_CAP_HIT);
	ck_assert_int_eq(r->out.cap, cap);
	ck_assert_int_eq(r->out.by, by);
	ck_assert_int_eq(r->out.status, 124);
}

static void
expect_exited(const struct job_run *r, int status)
{
	ck_assert_int_eq(r->out.outcome, CORDON_OUTCOME_EXITED);
	ck_assert_int_eq(r->out.cap, CORDON_CAP_NONE);
	ck_assert_int_eq(r->out.by, JOB_BY_NONE);
	ck_assert_int_eq(r->out.status, status);
}

START_TEST(exit_code_passes_through)
{
	struct job_run r;

	run_init(&r, rb_windows());
	job_events_add(&r.evs, JOB_EV_NEW_PROCESS);
	job_events_add(&r.evs, JOB_EV_EXIT_PROCESS);
	job_events_add(&r.evs, JOB_EV_ACTIVE_PROCESS_ZERO);
	r.end.exited = true;
	r.end.exit_code = 3;
	decide(&r);
	expect_exited(&r, 3);
	r.end.exit_code = 0;
	decide(&r);
	expect_exited(&r, 0);
}
END_TEST

START_TEST(wide_exit_code_is_failure)
{
	struct job_run r;

	run_init(&r, rb_windows());
	r.end.exited = true;
	r.end.exit_code = 0x100;   /* 8 bits of it would read as success */
	decide(&r);
	expect_exited(&r, 255);
	r.end.exit_code = 0xC0000005U;
	decide(&r);
	expect_exited(&r, 255);
	r.end.exit_code = 255;
	decide(&r);
	expect_exited(&r, 255);
}
END_TEST

START_TEST(memory_message_is_cap_memory)
{
	struct job_run r;

	run_init(&r, rb_windows());
	job_events_add(&r.evs, JOB_EV_NEW_PROCESS);
	job_events_add(&r.evs, JOB_EV_JOB_MEMORY_LIMIT);
	r.end.exited = true;
	r.end.exit_code = 0;
	decide(&r);
	expect_cap(&r, CORDON_CAP_MEMORY, JOB_BY_MESSAGE);
}
END_TEST

START_TEST(end_of_job_time_is_cap_cpu)
{
	struct job_run r;

	run_init(&r, rb_windows());
	job_events_add(&r.evs, JOB_EV_END_OF_JOB_TIME);
	decide(&r);
	expect_cap(&r, CORDON_CAP_CPU, JOB_BY_MESSAGE);
}
END_TEST

START_TEST(active_process_limit_is_cap_processes)
{
	struct job_run r;

	run_init(&r, rb_windows());
	job_events_add(&r.evs, JOB_EV_ACTIVE_PROCESS_LIMIT);
	decide(&r);
	expect_cap(&r, CORDON_CAP_NPROC, JOB_BY_MESSAGE);
}
END_TEST

START_TEST(wall_timer_is_cap_wall)
{
	struct job_run r;

	run_init(&r, rb_wine());
	job_events_add(&r.evs, JOB_EV_NEW_PROCESS);
	job_events_add(&r.evs, JOB_EV_WALL);
	decide(&r);
	expect_cap(&r, CORDON_CAP_WALL, JOB_BY_WALL);
}
END_TEST

/* The first event naming an applied cap wins. */
START_TEST(first_cap_event_wins)
{
	struct job_run r;

	run_init(&r, rb_windows());
	job_events_add(&r.evs, JOB_EV_JOB_MEMORY_LIMIT);
	job_events_add(&r.evs, JOB_EV_WALL);
	job_events_add(&r.evs, JOB_EV_END_OF_JOB_TIME);
	decide(&r);
	expect_cap(&r, CORDON_CAP_MEMORY, JOB_BY_MESSAGE);

	run_init(&r, rb_windows());
	job_events_add(&r.evs, JOB_EV_WALL);
	job_events_add(&r.evs, JOB_EV_JOB_MEMORY_LIMIT);
	decide(&r);
	expect_cap(&r, CORDON_CAP_WALL, JOB_BY_WALL);
}
END_TEST

/* Never claim an unapplied cap, even on the kernel's word. */
START_TEST(message_for_unapplied_cap_ignored)
{
	struct job_run r;

	run_init(&r, rb_wine());
	job_events_add(&r.evs, JOB_EV_JOB_MEMORY_LIMIT);
	job_events_add(&r.evs, JOB_EV_END_OF_JOB_TIME);
	job_events_add(&r.evs, JOB_EV_ACTIVE_PROCESS_LIMIT);
	r.acct.user_100ns = UINT64_MAX;
	r.acct.peak_job_memory = UINT64_MAX;
	r.end.exited = true;
	r.end.exit_code = 1;
	decide(&r);
	expect_exited(&r, 1);

	/* A later event for an applied cap still counts. */
	job_events_add(&r.evs, JOB_EV_WALL);
	decide(&r);
	expect_cap(&r, CORDON_CAP_WALL, JOB_BY_WALL);
}
END_TEST

/* No per-process memory limit is set: its message is no cap of the run. */
START_TEST(process_memory_message_ignored)
{
	struct job_run r;

	run_init(&r, rb_windows());
	job_events_add(&r.evs, JOB_EV_PROCESS_MEMORY_LIMIT);
	job_events_add(&r.evs, JOB_EV_ABNORMAL_EXIT_PROCESS);
	r.end.exited = true;
	r.end.exit_code = 2;
	decide(&r);
	expect_exited(&r, 2);
}
END_TEST

START_TEST(accounting_cpu_over_cap)
{
	struct job_run r;

	run_init(&r, rb_windows());
	r.acct.user_100ns = r.rb.cpu_100ns;
	r.end.exited = true;
	r.end.exit_code = 0;
	decide(&r);
	expect_cap(&r, CORDON_CAP_CPU, JOB_BY_ACCOUNTING);

	r.acct.user_100ns = r.rb.cpu_100ns - 1;
	/* Kernel time is not what the job's limit counts. */
	r.acct.kernel_100ns = r.rb.cpu_100ns * 10;
	decide(&r);
	expect_exited(&r, 0);
}
END_TEST

/* The 90 % rule: peak within 90 % of the cap and the payload failed. */
START_TEST(accounting_memory_ninety_percent)
{
	struct job_run r;
	uint64_t cap = 256 * MiB, edge = cap - cap / 10;

	run_init(&r, rb_windows());
	r.end.exited = true;
	r.end.exit_code = 1;
	r.acct.peak_job_memory = edge;
	decide(&r);
	expect_cap(&r, CORDON_CAP_MEMORY, JOB_BY_ACCOUNTING);

	r.acct.peak_job_memory = edge - 1;
	decide(&r);
	expect_exited(&r, 1);

	/* Succeeded close to the cap: nothing was taken from it. */
	r.acct.peak_job_memory = cap;
	r.end.exit_code = 0;
	decide(&r);
	expect_exited(&r, 0);

	/* Killed by an exception near the cap: failed too. */
	r.end.exit_code = 0xC0000017U;   /* STATUS_NO_MEMORY */
	decide(&r);
	expect_cap(&r, CORDON_CAP_MEMORY, JOB_BY_ACCOUNTING);
}
END_TEST

/* CPU from accounting ranks before memory from accounting. */
START_TEST(accounting_cpu_before_memory)
{
	struct job_run r;

	run_init(&r, rb_windows());
	r.end.exited = true;
	r.end.exit_code = 1;
	r.acct.peak_job_memory = r.rb.memory_bytes;
	r.acct.user_100ns = r.rb.cpu_100ns;
	decide(&r);
	expect_cap(&r, CORDON_CAP_CPU, JOB_BY_ACCOUNTING);
}
END_TEST

START_TEST(accounting_not_queried_decides_nothing)
{
	struct job_run r;

	run_init(&r, rb_windows());
	r.acct.queried = false;
	r.acct.user_100ns = UINT64_MAX;
	r.acct.peak_job_memory = UINT64_MAX;
	r.end.exited = true;
	r.end.exit_code = 9;
	decide(&r);
	expect_exited(&r, 9);
}
END_TEST

START_TEST(not_started_is_sandbox_error)
{
	struct job_run r;

	run_init(&r, rb_windows());
	r.end.started = false;
	job_events_add(&r.evs, JOB_EV_WALL);
	decide(&r);
	ck_assert_int_eq(r.out.outcome, CORDON_OUTCOME_SANDBOX_ERROR);
	ck_assert_int_eq(r.out.cap, CORDON_CAP_NONE);
	ck_assert_int_eq(r.out.status, 125);
}
END_TEST

/* Ended, not by itself, with no evidence of a cap: cordon's failure. */
START_TEST(ended_without_evidence_is_sandbox_error)
{
	struct job_run r;

	run_init(&r, rb_windows());
	r.end.exited = false;
	decide(&r);
	ck_assert_int_eq(r.out.outcome, CORDON_OUTCOME_SANDBOX_ERROR);
	ck_assert_int_eq(r.out.status, 125);
}
END_TEST

START_TEST(events_bounded)
{
	struct job_events evs;
	size_t i;

	memset(&evs, 0, sizeof(evs));
	for (i = 0; i < JOB_MAX_EVENTS + 5; i++)
		job_events_add(&evs, i == 0 ? JOB_EV_WALL : JOB_EV_NEW_PROCESS);
	ck_assert_uint_eq(evs.n, JOB_MAX_EVENTS);
	ck_assert_uint_eq(evs.dropped, 5);
	ck_assert_int_eq(evs.ev[0], JOB_EV_WALL);
	ck_assert_int_eq(evs.ev[JOB_MAX_EVENTS - 1], JOB_EV_NEW_PROCESS);
}
END_TEST

START_TEST(evidence_names)
{
	ck_assert_str_eq(job_evidence_name(JOB_BY_NONE), "none");
	ck_assert_str_eq(job_evidence_name(JOB_BY_MESSAGE), "message");
	ck_assert_str_eq(job_evidence_name(JOB_BY_WALL), "wall-timer");
	ck_assert_str_eq(job_evidence_name(JOB_BY_ACCOUNTING), "accounting");
}
END_TEST

static Suite *
job_suite(void)
{
	Suite *s = suite_create("job");
	TCase *t = tcase_create("limits");

	tcase_add_test(t, limits_round_up_cpu);
	tcase_add_test(t, limits_copy_memory_and_nproc);
	tcase_add_test(t, limits_refuse_wide_nproc);
	suite_add_tcase(s, t);

	t = tcase_create("applied");
	tcase_add_test(t, applied_when_read_back);
	tcase_add_test(t, never_applied_on_job);
	tcase_add_test(t, appcontainer_adds_network_and_filesystem);
	tcase_add_test(t, wine_zero_readback_not_applied);
	tcase_add_test(t, zero_value_with_flag_not_applied);
	tcase_add_test(t, query_failed_not_applied);
	tcase_add_test(t, different_value_not_applied);
	tcase_add_test(t, missing_flag_not_applied);
	tcase_add_test(t, unasked_caps_say_so);
	tcase_add_test(t, refused_ask_not_applied);
	tcase_add_test(t, require_unmet_names_the_cap);
	suite_add_tcase(s, t);

	t = tcase_create("outcome");
	tcase_add_test(t, exit_code_passes_through);
	tcase_add_test(t, wide_exit_code_is_failure);
	tcase_add_test(t, memory_message_is_cap_memory);
	tcase_add_test(t, end_of_job_time_is_cap_cpu);
	tcase_add_test(t, active_process_limit_is_cap_processes);
	tcase_add_test(t, wall_timer_is_cap_wall);
	tcase_add_test(t, first_cap_event_wins);
	tcase_add_test(t, message_for_unapplied_cap_ignored);
	tcase_add_test(t, process_memory_message_ignored);
	tcase_add_test(t, accounting_cpu_over_cap);
	tcase_add_test(t, accounting_memory_ninety_percent);
	tcase_add_test(t, accounting_cpu_before_memory);
	tcase_add_test(t, accounting_not_queried_decides_nothing);
	tcase_add_test(t, not_started_is_sandbox_error);
	tcase_add_test(t, ended_without_evidence_is_sandbox_error);
	tcase_add_test(t, events_bounded);
	tcase_add_test(t, evidence_names);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(job_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
