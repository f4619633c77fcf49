/*
 * test_intake.c - helper/intake.c over a byte stream: the request as the
 * macOS helper reads it (main_macos.c: common/frame.c's frames on a
 * SOCK_STREAM socketpair) and as cordon-helper.exe reads it from its pipe
 * (main_win.c, also driven under Wine by tests/windows/runner.c), here on
 * Linux with the same receive, cordon_frame_recv_fd with
 * cordon_msg_decode_allowed.
 *
 * A writer child sends the frames one byte per write, so every frame
 * arrives split; intake must give back exactly what was sent.  Bad
 * input - a 4 GiB length, a type out of sequence, a frame cut short, an
 * ENV off the allow-list - must die() naming it (the hook jumps back
 * here, as tests/fuzz/fuzz_intake.c does) with everything read freed
 * by request_free().
 */
#include "config.h"

#include <check.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frame.h"
#include "request.h"

#define RUN_ID "0123456789abcdef0123456789abcdef"

static jmp_buf died;
static char why[1024];
/* Static: changed between setjmp and longjmp. */
static struct request req;

static void
on_die(const char *msg)
{
	(void)snprintf(why, sizeof(why), "%s", msg);
	longjmp(died, 1);
}

static int
recv_stream(void *ctx, uint32_t want, struct cordon_msg *m)
{
	return cordon_frame_recv_fd(*(const int *)ctx,
	    cordon_msg_decode_allowed, want, m);
}

/* Appends m's frame to buf at *len. */
static void
put(uint8_t *buf, size_t cap, size_t *len, const struct cordon_msg *m)
{
	struct cordon_buf b;

	ck_assert_int_eq(cordon_frame_encode(m, &b), 0);
	ck_assert_uint_le(*len + b.len, cap);
	memcpy(buf + *len, b.d, b.len);
	*len += b.len;
	cordon_buf_free(&b);
}

static void
put_str(uint8_t *buf, size_t cap, size_t *len, uint16_t type,
    const char *s)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.u.str = (char *)(uintptr_t)s;
	put(buf, cap, len, &m);
}

static void
put_request(uint8_t *buf, size_t cap, size_t *len, uint32_t argc,
    uint32_t envc)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_REQUEST;
	cordon_limits_default(&m.u.request.limits);
	m.u.request.run_id = RUN_ID;
	m.u.request.workdir_base = "/tmp/runs";
	m.u.request.argc = argc;
	m.u.request.envc = envc;
	put(buf, cap, len, &m);
}

/*
 * Reads a request from bytes, written one per write() by a child on a
 * stream socketpair; 0 if intake took it, -1 if it died (why says).
 */
static int
intake_bytes(const uint8_t *bytes, size_t n)
{
	volatile int r = 0;
	int sv[2], status = 0;
	pid_t pid;
	size_t i;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		for (i = 0; i < n; i++)
			if (write(sv[1], bytes + i, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(sv[1]);
	why[0] = '\0';
	set_die_hook(on_die);
	if (setjmp(died) == 0)
		intake_read_from(recv_stream, &sv[0], &req);
	else
		r = -1;
	set_die_hook(NULL);
	close(sv[0]);
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, &status, 0);
	return r;
}

/* Bytes intake must refuse, die() saying want; nothing kept. */
static void
refused(const uint8_t *bytes, size_t n, const char *want)
{
	ck_assert_int_eq(intake_bytes(bytes, n), -1);
	ck_assert_msg(strstr(why, want) != NULL, "%s", why);
	request_free(&req);
}

START_TEST(split_frames_read_whole)
{
	uint8_t buf[4096];
	size_t len = 0;

	put_request(buf, sizeof(buf), &len, 2, 1);
	put_str(buf, sizeof(buf), &len, CORDON_MSG_ARG, "/bin/echo");
	put_str(buf, sizeof(buf), &len, CORDON_MSG_ARG, "a b\"c");
	put_str(buf, sizeof(buf), &len, CORDON_MSG_ENV, "LANG=C.UTF-8");
	ck_assert_int_eq(intake_bytes(buf, len), 0);
	ck_assert_str_eq(req.run_id, RUN_ID);
	ck_assert_str_eq(req.workdir_base, "/tmp/runs");
	ck_assert_uint_eq(req.argc, 2);
	ck_assert_str_eq(req.argv[0], "/bin/echo");
	ck_assert_str_eq(req.argv[1], "a b\"c");
	ck_assert_ptr_null(req.argv[2]);
	ck_assert_str_eq(req.envp[0], "LANG=C.UTF-8");
	request_free(&req);
}
END_TEST

START_TEST(huge_length_refused)
{
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 0, 1, 0, 1 };

	refused(huge, sizeof(huge), "too long");
}
END_TEST

START_TEST(out_of_sequence_refused)
{
	uint8_t buf[4096];
	size_t len = 0;

	put_str(buf, sizeof(buf), &len, CORDON_MSG_ARG, "/bin/true");
	refused(buf, len, "unexpected message type 2");
}
END_TEST

START_TEST(cut_short_refused)
{
	uint8_t buf[4096];
	size_t len = 0;

	put_request(buf, sizeof(buf), &len, 1, 0);
	put_str(buf, sizeof(buf), &len, CORDON_MSG_ARG, "/bin/true");
	/* The last frame without its last byte, then EOF. */
	refused(buf, len - 1, "truncated");
}
END_TEST

START_TEST(env_off_the_allow_list_refused)
{
	uint8_t buf[4096];
	size_t len = 0;

	put_request(buf, sizeof(buf), &len, 1, 1);
	put_str(buf, sizeof(buf), &len, CORDON_MSG_ARG, "/bin/true");
	put_str(buf, sizeof(buf), &len, CORDON_MSG_ENV,
	    "http_proxy=http://proxy.invalid:3128");
	refused(buf, len, "not on the allow-list: http_proxy");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("intake");
	TCase *t = tcase_create("stream");
	SRunner *sr;
	int failed;

	tcase_add_test(t, split_frames_read_whole);
	tcase_add_test(t, huge_length_refused);
	tcase_add_test(t, out_of_sequence_refused);
	tcase_add_test(t, cut_short_refused);
	tcase_add_test(t, env_off_the_allow_list_refused);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
