/*
 * echo.c - a stand-in helper for tests/windows/chan.c: what the broker's
 * platform layer (broker/plat_win.c) starts, so its half of the channel
 * can be checked under Wine without the Windows helper.
 *
 *   echo.exe --channel IN,OUT
 *
 * Takes the two handles it was given (cordon_win_channel_parse), reads a REQUEST and its
 * ARGs as the real helper would (common/frame.c, only the types expected
 * at that point allowed), and answers with FACTs (its environment: 1000
 * for SystemRoot plus one per other variable; each ARG's length) and
 * EXIT carrying argv[1] as the exit code (an argv[1] of "egress": an
 * EGRESS first, which no pipe can carry the fd of).  It writes "echo: stdout" to
 * its stdout, then waits for the broker's EOF and exits 7.  Anything
 * unexpected exits 99 with a word on stderr.
 */
#include "config.h"

#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "frame.h"
#include "winutil.h"

static HANDLE in, out;

static void
fail(const char *why)
{
	fprintf(stderr, "echo: %s\n", why);
	exit(99);
}

static void
fact(const char *key, unsigned long v)
{
	struct cordon_msg m;
	char val[32];

	snprintf(val, sizeof(val), "%lu", v);
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_FACT;
	m.u.fact.key = (char *)(uintptr_t)key;
	m.u.fact.value = val;
	if (cordon_frame_send(cordon_win_pipe_write, out, &m) != 0)
		fail("cannot send a fact");
}

int
wmain(int argc, wchar_t **argv)
{
	struct cordon_msg m;
	wchar_t *env;
	unsigned long nenv = 0, i, nargs;
	int code = 0, egress = 0;

	if (argc != 3 || wcscmp(argv[1], L"--channel") != 0)
		fail("usage: echo.exe --channel IN,OUT");
	if (!cordon_win_channel_parse(argv[2], &in, &out))
		fail("--channel does not name two pipes");
	printf("echo: stdout\n");
	fflush(stdout);
	/* Wine adds its own WINE* variables and SystemDrive to every
	 * process; anything else but SystemRoot came from the broker. */
	for (env = GetEnvironmentStringsW(); env[0] != L'\0';
	    env += wcslen(env) + 1)
		if (wcsncmp(env, L"WINE", 4) != 0 &&
		    wcsncmp(env, L"SystemDrive=", 12) != 0)
			nenv += wcsncmp(env, L"SystemRoot=", 11) == 0 ? 1000 : 1;
	if (cordon_frame_recv(cordon_win_pipe_read, in,
	    cordon_msg_decode_allowed, CORDON_MSG_BIT(CORDON_MSG_REQUEST),
	    &m) != 0)
		fail("no REQUEST");
	nargs = m.u.request.argc;
	cordon_msg_clear(&m);
	fact("env", nenv);
	for (i = 0; i < nargs; i++) {
		if (cordon_frame_recv(cordon_win_pipe_read, in,
		    cordon_msg_decode_allowed, CORDON_MSG_BIT(CORDON_MSG_ARG),
		    &m) != 0)
			fail("no ARG");
		fact("arglen", (unsigned long)strlen(m.u.str));
		if (i == 1) {
			code = atoi(m.u.str);
			egress = strcmp(m.u.str, "egress") == 0;
		}
		cordon_msg_clear(&m);
	}
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_EGRESS;
	m.u.egress_port = CORDON_EGRESS_PORT;
	if (egress && cordon_frame_send(cordon_win_pipe_write, out, &m) != 0)
		fail("cannot send EGRESS");
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_EXIT;
	m.u.exit.outcome = CORDON_OUTCOME_EXITED;
	m.u.exit.cap = CORDON_CAP_NONE;
	m.u.exit.exit_code = code;
	m.u.exit.error = "";
	if (cordon_frame_send(cordon_win_pipe_write, out, &m) != 0)
		fail("cannot send EXIT");
	/* The broker closes its end: EOF, and nothing else, comes. */
	if (cordon_frame_recv(cordon_win_pipe_read, in,
	    cordon_msg_decode_allowed, 0, &m) != -CORDON_E_EOF)
		fail("no EOF");
	return 7;
}
