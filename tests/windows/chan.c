/*
 * chan.c - the broker's platform layer on Windows (broker/plat_win.c),
 * driven under Wine by tests/windows/run.sh with echo.exe as the helper:
 *
 *   chan.exe ECHO.EXE SCRATCHDIR
 *
 * One line per check, "check: ok NAME" or "check: FAILED NAME (why)";
 * exits 1 if any failed.  Checks: the helper starts with the channel's
 * two pipe handles and SystemRoot alone in its environment; a request
 * with the longest ARG (a frame larger than a pipe's buffer) crosses
 * whole; events come back; closing our end is the helper's EOF and its
 * exit code comes back in wait(2)'s encoding; a missing helper is an
 * error with ENOENT; after cordon_chan_shut the helper reads EOF while
 * its last messages still come; an EGRESS is refused (no fd crosses a
 * pipe); cordon_chan_wait times out, and finds a message, a cancel
 * byte and EOF; the helper's cancel and kill; random bytes, start
 * times, private parents of a path, the helper's path; the invoker is the token's user (name and RID); the default paths are under %LOCALAPPDATA%\cordon,
 * made with a protected DACL of one ACE; a relative %LOCALAPPDATA% is
 * refused; the remover takes a tree with a read-only file; the helper's
 * parse of --channel takes two pipes and refuses every malformed value.
 */
#include "config.h"

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "plat.h"
#include "winutil.h"

static int failed;

static void
check(int ok, const char *name, const char *why)
{
	printf("check: %s %s%s%s%s\n", ok ? "ok" : "FAILED", name,
	    ok ? "" : " (", ok ? "" : why, ok ? "" : ")");
	failed |= !ok;
}

static int
send_str(int sock, uint16_t type, const char *s)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.u.str = (char *)(uintptr_t)s;
	return cordon_chan_send(sock, &m);
}

/* A REQUEST for argc ARGs. */
static int
send_request(int sock, uint32_t argc)
{
	struct cordon_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_REQUEST;
	cordon_limits_default(&m.u.request.limits);
	m.u.request.run_id = "0123456789abcdef0123456789abcdef";
	m.u.request.workdir_base = "C:\\runs";
	m.u.request.argc = argc;
	return cordon_chan_send(sock, &m);
}

/* FACT key's value, the next message; -1 if it is not that fact. */
static long
recv_fact(int sock, const char *key)
{
	struct cordon_msg m;
	long v = -1;

	if (cordon_chan_recv(sock, &m) == 0 && m.type == CORDON_MSG_FACT &&
	    strcmp(m.u.fact.key, key) == 0)
		v = strtol(m.u.fact.value, NULL, 10);
	cordon_msg_clear(&m);
	return v;
}

static void
channel(const char *echo)
{
	struct cordon_msg m;
	char *big = malloc(CORDON_MAX_ARG_LEN + 1);
	pid_t pid = -1;
	int sock = -1, r, st;

	if (big == NULL)
		exit(2);
	memset(big, 'x', CORDON_MAX_ARG_LEN);
	big[CORDON_MAX_ARG_LEN] = '\0';
	r = cordon_start_helper_io(echo, &pid, &sock, -1, -1, -1);
	check(r == 0 && pid > 0 && sock >= 0, "the helper starts",
	    "cordon_start_helper failed");
	if (r != 0)
		return;
	r = send_request(sock, 3);
	r = r == 0 ? send_str(sock, CORDON_MSG_ARG, "kids.exe") : r;
	r = r == 0 ? send_str(sock, CORDON_MSG_ARG, "3") : r;
	r = r == 0 ? send_str(sock, CORDON_MSG_ARG, big) : r;
	check(r == 0, "a REQUEST and 3 ARGs, one of 131072 bytes, are sent",
	    cordon_strerror(r));
	check(recv_fact(sock, "env") == 1000, "the helper's environment is "
	    "SystemRoot alone", "another set");
	check(recv_fact(sock, "arglen") == 8 && recv_fact(sock, "arglen") == 1
	    && recv_fact(sock, "arglen") == CORDON_MAX_ARG_LEN,
	    "every ARG arrives whole, the longest split over many reads",
	    "lengths differ");
	r = cordon_chan_recv(sock, &m);
	check(r == 0 && m.type == CORDON_MSG_EXIT && m.u.exit.exit_code == 3,
	    "the helper's EXIT comes back", cordon_strerror(r));
	cordon_msg_clear(&m);
	cordon_chan_close(sock);
	st = cordon_wait_helper(pid);
	check(st == 7 << 8, "closing our end is the helper's EOF; its exit "
	    "code 7 comes back as a wait status", "another status");
	check(cordon_wait_helper(pid) == -1, "a helper is reaped once",
	    "reaped twice");
	free(big);

	errno = 0;
	r = cordon_start_helper_io("C:\\no\\such\\helper.exe", &pid, &sock, -1,
	    -1, -1);
	check(r == -CORDON_E_HELPER && errno == ENOENT,
	    "a missing helper: an error, ENOENT", "another result");
}

/*
 * A run given up: after cordon_chan_shut the helper reads EOF (echo.exe
 * exits 7 only on EOF), while what it sent before is still read; and an
 * EGRESS, which carries an fd on Linux, is refused here with no fd.
 */
static void
shut_and_egress(const char *echo)
{
	struct cordon_msg m;
	HANDLE proc;
	pid_t pid = -1;
	int sock = -1, r, fd = 5, gone;

	if (cordon_start_helper_io(echo, &pid, &sock, -1, -1, -1) != 0) {
		check(0, "the helper starts (shut)", "cordon_start_helper failed");
		return;
	}
	r = send_request(sock, 2);
	r = r == 0 ? send_str(sock, CORDON_MSG_ARG, "kids.exe") : r;
	r = r == 0 ? send_str(sock, CORDON_MSG_ARG, "egress") : r;
	cordon_chan_shut(sock);
	check(r == 0 && send_request(sock, 0) == -CORDON_E_INVAL,
	    "after cordon_chan_shut nothing more is sent", "sent");
	check(recv_fact(sock, "env") == 1000 && recv_fact(sock, "arglen") == 8 &&
	    recv_fact(sock, "arglen") == 6, "after cordon_chan_shut the "
	    "helper's messages are still read", "lost");
	r = cordon_chan_recv_fd(sock, &m, &fd);
	check(r == -CORDON_E_PROTO && fd == -1 && m.type == 0,
	    "an EGRESS is refused: no fd crosses a pipe", cordon_strerror(r));
	r = cordon_chan_recv_fd(sock, &m, &fd);
	check(r == 0 && fd == -1 && m.type == CORDON_MSG_EXIT,
	    "cordon_chan_recv_fd reads an EXIT, no fd", cordon_strerror(r));
	cordon_msg_clear(&m);
	/* Before our reading end is closed: the shut alone was its EOF. */
	proc = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)pid);
	gone = proc != NULL && WaitForSingleObject(proc, 10000) == WAIT_OBJECT_0;
	if (proc != NULL)
		CloseHandle(proc);
	cordon_chan_close(sock);
	check(gone && cordon_wait_helper(pid) == 7 << 8, "cordon_chan_shut "
	    "alone is the helper's EOF (it exits 7 before we close)",
	    gone ? "another status" : "still running");
}

/*
 * cordon_chan_wait and cordon_helper_act: nothing to read times out;
 * a message, a cancel byte and a dead helper's EOF are each found; the
 * cancel closes only our writing end (the helper's EOF: echo.exe exits
 * 7); the kill reads back as a killed helper.
 */
static void
waits(const char *echo)
{
	struct cordon_msg m;
	ULONGLONG t0;
	pid_t pid = -1;
	int sock = -1, fds[2], r, w0, w1, w2;

	if (cordon_start_helper_io(echo, &pid, &sock, -1, -1, -1) != 0 ||
	    _pipe(fds, 64, _O_BINARY) != 0) {
		check(0, "the helper starts (wait)", "cordon_start_helper failed");
		return;
	}
	t0 = GetTickCount64();
	w0 = cordon_chan_wait(sock, fds[0], 200);
	check(w0 == 0 && GetTickCount64() - t0 >= 150, "cordon_chan_wait: "
	    "nothing to read, no cancel: times out", "found something");
	r = send_request(sock, 1);
	r = r == 0 ? send_str(sock, CORDON_MSG_ARG, "kids.exe") : r;
	w1 = cordon_chan_wait(sock, -1, 5000);
	check(r == 0 && w1 == (int)CORDON_CHAN_READY, "cordon_chan_wait finds "
	    "the helper's message", "not found");
	check(_write(fds[1], "c", 1) == 1 &&
	    cordon_chan_wait(-1, fds[0], 0) == (int)CORDON_CHAN_CANCEL,
	    "cordon_chan_wait finds a byte on the cancel fd", "not found");
	cordon_helper_act(sock, pid, CORDON_HELPER_CANCEL);
	check(send_request(sock, 1) == -CORDON_E_INVAL &&
	    recv_fact(sock, "env") == 1000 && recv_fact(sock, "arglen") == 8 &&
	    cordon_chan_recv(sock, &m) == 0 && m.type == CORDON_MSG_EXIT, "the cancel closes our writing end "
	    "only: what the helper sent is still read", "lost");
	cordon_msg_clear(&m);
	w2 = cordon_chan_wait(sock, -1, 10000);
	check(w2 == (int)CORDON_CHAN_READY && cordon_chan_recv(sock, &m) ==
	    -CORDON_E_EOF, "the helper gone, cordon_chan_wait finds its EOF",
	    "not found");
	cordon_chan_close(sock);
	check(cordon_wait_helper(pid) == 7 << 8, "the cancel is the helper's "
	    "EOF (it exits 7)", "another status");
	_close(fds[0]);
	_close(fds[1]);

	if (cordon_start_helper_io(echo, &pid, &sock, -1, -1, -1) != 0) {
		check(0, "the helper starts (kill)", "cordon_start_helper failed");
		return;
	}
	cordon_helper_act(sock, pid, CORDON_HELPER_KILL);
	check(cordon_wait_helper(pid) == 9, "a killed helper reads back as "
	    "killed (status 9)", "another status");
	cordon_chan_close(sock);
}

/*
 * The invoker: the name is %USERNAME% (Wine sets it from the Unix user,
 * Windows from the logon), the uid the last field of the token user's
 * SID as ConvertSidToStringSid spells it.
 */
static void
invoker(void)
{
	BYTE tu[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
	char want[257], *user = NULL, *sid = NULL, *dash;
	DWORD n = 0;
	HANDLE tok = NULL;
	uint32_t uid = 0;
	int r, ok = 0;

	if (GetEnvironmentVariableA("USERNAME", want, sizeof(want)) == 0)
		want[0] = '\0';
	r = cordon_invoker(&uid, &user);
	check(r == 0 && user != NULL && want[0] != '\0' &&
	    _stricmp(user, want) == 0, "the invoker's name is %USERNAME%",
	    user != NULL ? user : "none");
	if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok) &&
	    GetTokenInformation(tok, TokenUser, tu, sizeof(tu), &n) &&
	    ConvertSidToStringSidA(((TOKEN_USER *)(void *)tu)->User.Sid, &sid) &&
	    (dash = strrchr(sid, '-')) != NULL)
		ok = uid != 0 && strtoul(dash + 1, NULL, 10) == uid;
	if (sid != NULL)
		printf("# invoker %s, sid %s, uid %u\n", user != NULL ? user :
		    "?", sid, (unsigned)uid);
	check(ok, "the invoker's uid is its SID's RID", "another number");
	if (sid != NULL)
		LocalFree(sid);
	if (tok != NULL)
		CloseHandle(tok);
	free(user);
}

/* Running under Wine (its ntdll exports wine_get_version). */
static int
under_wine(void)
{
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");

	return nt != NULL && GetProcAddress(nt, "wine_get_version") != NULL;
}

/*
 * path's DACL grants the invoker and no one else: an allow ACE for the
 * token's user, none for Everyone, Users or Authenticated Users, and the
 * DACL protected from inheritance.  Wine keeps no DACL on a Unix file
 * system and synthesises one from the mode bits, without the protected
 * flag: that flag is checked on Windows only.
 */
static int
private_acl(const char *path)
{
	wchar_t *w = cordon_win_widen(path);
	PSECURITY_DESCRIPTOR sd = NULL;
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	ACL_SIZE_INFORMATION info;
	BYTE tu[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
	BYTE world[SECURITY_MAX_SID_SIZE], users[SECURITY_MAX_SID_SIZE],
	    auth[SECURITY_MAX_SID_SIZE];
	DWORD n = sizeof(world), rev = 0, i;
	HANDLE tok = NULL;
	PACL dacl = NULL;
	ACCESS_ALLOWED_ACE *ace;
	PSID sid;
	int mine = 0, others = 0, ok = 0;

	if (w == NULL || !OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY,
	    &tok) || !GetTokenInformation(tok, TokenUser, tu, sizeof(tu), &n) ||
	    !CreateWellKnownSid(WinWorldSid, NULL, world, &(DWORD){ sizeof(world) }) ||
	    !CreateWellKnownSid(WinBuiltinUsersSid, NULL, users, &(DWORD){ sizeof(users) }) ||
	    !CreateWellKnownSid(WinAuthenticatedUserSid, NULL, auth, &(DWORD){ sizeof(auth) }) ||
	    GetNamedSecurityInfoW(w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
	    NULL, NULL, &dacl, NULL, &sd) != ERROR_SUCCESS || dacl == NULL ||
	    !GetSecurityDescriptorControl(sd, &ctl, &rev) ||
	    !GetAclInformation(dacl, &info, sizeof(info), AclSizeInformation))
		goto out;
	for (i = 0; i < info.AceCount; i++) {
		if (!GetAce(dacl, i, (void **)&ace) ||
		    ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE)
			continue;
		sid = (PSID)&ace->SidStart;
		if (EqualSid(sid, ((TOKEN_USER *)(void *)tu)->User.Sid))
			mine = 1;
		else if (EqualSid(sid, world) || EqualSid(sid, users) ||
		    EqualSid(sid, auth))
			others = 1;
	}
	ok = mine && !others &&
	    (under_wine() || (ctl & SE_DACL_PROTECTED) != 0);
out:
	if (sd != NULL)
		LocalFree(sd);
	if (tok != NULL)
		CloseHandle(tok);
	free(w);
	return ok;
}

static void
paths(const char *scratch)
{
	char want[MAX_PATH * 2], ro[MAX_PATH * 2], *p = NULL;
	wchar_t *w;
	HANDLE h;
	int r;

	w = cordon_win_widen(scratch);
	SetEnvironmentVariableW(L"LOCALAPPDATA", w);
	free(w);
	r = cordon_default_workdir_base(&p);
	snprintf(want, sizeof(want), "%s\\cordon\\runs", scratch);
	check(r == 0 && p != NULL && strcmp(p, want) == 0 &&
	    GetFileAttributesA(want) != INVALID_FILE_ATTRIBUTES,
	    "the workdir base is %LOCALAPPDATA%\\cordon\\runs, made",
	    p != NULL ? p : "none");
	free(p);
	p = NULL;
	r = cordon_default_trace_path(&p);
	snprintf(want, sizeof(want), "%s\\cordon\\trace.db", scratch);
	check(r == 0 && p != NULL && strcmp(p, want) == 0,
	    "the trace is %LOCALAPPDATA%\\cordon\\trace.db",
	    p != NULL ? p : "none");
	free(p);
	snprintf(want, sizeof(want), "%s\\cordon", scratch);
	check(private_acl(want), "%LOCALAPPDATA%\\cordon grants the invoker "
	    "alone", "another DACL");
	snprintf(want, sizeof(want), "%s\\open", scratch);
	CreateDirectoryA(want, NULL);
	check(!private_acl(want), "control: a directory made with the "
	    "default ACL fails that check", "passed");

	SetEnvironmentVariableW(L"LOCALAPPDATA", L"relative\\dir");
	p = NULL;
	r = cordon_default_trace_path(&p);
	check(r == -CORDON_E_INVAL && p == NULL, "a relative %LOCALAPPDATA% "
	    "is refused", "taken");

	snprintf(want, sizeof(want), "%s\\tree", scratch);
	snprintf(ro, sizeof(ro), "%s\\tree\\sub", scratch);
	CreateDirectoryA(want, NULL);
	CreateDirectoryA(ro, NULL);
	snprintf(ro, sizeof(ro), "%s\\tree\\sub\\ro.txt", scratch);
	h = CreateFileA(ro, GENERIC_WRITE, 0, NULL, CREATE_NEW,
	    FILE_ATTRIBUTE_READONLY, NULL);
	if (h != INVALID_HANDLE_VALUE)
		CloseHandle(h);
	r = cordon_plat_remove_tree(want);
	check(h != INVALID_HANDLE_VALUE && r == 0 &&
	    GetFileAttributesA(want) == INVALID_FILE_ATTRIBUTES,
	    "the remover takes a tree with a read-only file", "left");
}

/*
 * What paths.c and trace.c ask of the platform: random bytes, a process's
 * start time (0 once it is gone), the parents of a path made private,
 * and the helper's path ($CORDON_HELPER absolute or refused, else
 * cordon-helper.exe beside this program).
 */
static void
ids_and_paths(const char *echo, const char *scratch)
{
	unsigned char a[16], b[16], zero[16] = { 0 };
	char dir[MAX_PATH * 2], file[MAX_PATH * 2], *h = NULL;
	wchar_t self[MAX_PATH + 1], *slash;
	uint64_t t1, t2;
	pid_t pid = -1;
	int sock = -1, r;

	check(cordon_plat_random(a, sizeof(a)) == 0 &&
	    cordon_plat_random(b, sizeof(b)) == 0 && memcmp(a, b, 16) != 0 &&
	    memcmp(a, zero, 16) != 0, "cordon_plat_random: two draws differ",
	    "the same");
	t1 = cordon_proc_start_time((uint32_t)GetCurrentProcessId());
	t2 = cordon_proc_start_time((uint32_t)GetCurrentProcessId());
	r = cordon_start_helper_io(echo, &pid, &sock, -1, -1, -1);
	if (r == 0) {
		cordon_chan_close(sock);
		(void)cordon_wait_helper(pid);
	}
	check(t1 != 0 && t1 == t2 && r == 0 &&
	    cordon_proc_start_time((uint32_t)pid) == 0, "a process's start "
	    "time: set, stable, 0 once it has exited", "another value");

	snprintf(file, sizeof(file), "%s\\p\\q/r\\\\trace.db", scratch);
	r = cordon_mkdir_parents(file);
	snprintf(dir, sizeof(dir), "%s\\p\\q\\r", scratch);
	check(r == 0 && GetFileAttributesA(dir) & FILE_ATTRIBUTE_DIRECTORY &&
	    GetFileAttributesA(dir) != INVALID_FILE_ATTRIBUTES &&
	    private_acl(dir) && cordon_mkdir_parents(file) == 0 &&
	    GetFileAttributesA(strcat(dir, "\\trace.db")) ==
	    INVALID_FILE_ATTRIBUTES, "cordon_mkdir_parents makes the parents "
	    "('\\' or '/', doubled), private, not the file; again: no error",
	    "not so");
	snprintf(file, sizeof(file), "%s\\afile", scratch);
	CloseHandle(CreateFileA(file, GENERIC_WRITE, 0, NULL, CREATE_NEW, 0,
	    NULL));
	strcat(file, "\\x\\trace.db");
	check(cordon_mkdir_parents(file) == -CORDON_E_IO, "a parent that is a "
	    "file: an error", "taken");

	SetEnvironmentVariableW(L"CORDON_HELPER", L"relative\\helper.exe");
	check(cordon_helper_path(&h) == -CORDON_E_HELPER && h == NULL,
	    "a relative $CORDON_HELPER is refused", "taken");
	SetEnvironmentVariableW(L"CORDON_HELPER", L"C:\\x\\helper.exe");
	r = cordon_helper_path(&h);
	check(r == 0 && h != NULL && strcmp(h, "C:\\x\\helper.exe") == 0,
	    "an absolute $CORDON_HELPER is taken", h != NULL ? h : "none");
	free(h);
	h = NULL;
	SetEnvironmentVariableW(L"CORDON_HELPER", NULL);
	r = cordon_helper_path(&h);
	if (GetModuleFileNameW(NULL, self, MAX_PATH) == 0 ||
	    (slash = wcsrchr(self, L'\\')) == NULL)
		self[0] = L'\0';
	else
		wcscpy(slash + 1, L"cordon-helper.exe");
	slash = h != NULL ? cordon_win_widen(h) : NULL;
	check(r == 0 && slash != NULL && self[0] != L'\0' &&
	    wcscmp(slash, self) == 0, "the helper is cordon-helper.exe beside "
	    "the program", h != NULL ? h : "none");
	free(slash);
	free(h);
	check(cordon_plat_no_egress() != NULL &&
	    strstr(cordon_plat_no_egress(), "Windows") != NULL,
	    "--allow-host has a reason to be refused, naming Windows", "none");
}

/*
 * The helper's parse of --channel: two pipes, strictly spelt.  Attacks:
 * a sign, a space, a zero, an overflow, trailing bytes, one handle twice,
 * a handle that is not a pipe.
 */
static void
channel_arg(void)
{
	static const wchar_t *const bad[] = { L"", L",", L"1", L"1,", L",1",
	    L"+R,W", L" R,W", L"R,W ", L"R,Wx", L"0,W", L"R,0", L"-1,W",
	    L"R,R", L"R,N", L"99999999999999999999999,W", L"R;W" };
	HANDLE r = NULL, w = NULL, in, out, nul;
	wchar_t good[64], arg[128], num[32];
	const wchar_t *p;
	size_t i;
	int ok = 1;

	nul = CreateFileW(L"NUL", GENERIC_READ, 0, NULL, OPEN_EXISTING, 0,
	    NULL);
	if (!CreatePipe(&r, &w, NULL, 0) || nul == INVALID_HANDLE_VALUE) {
		check(0, "the --channel parse", "no pipe");
		return;
	}
	swprintf(good, 64, L"%llu,%llu", (unsigned long long)(uintptr_t)r,
	    (unsigned long long)(uintptr_t)w);
	check(cordon_win_channel_parse(good, &in, &out) && in == r &&
	    out == w, "--channel IN,OUT names two pipes: taken", "refused");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		arg[0] = L'\0';
		for (p = bad[i]; *p != L'\0'; p++) {
			num[0] = *p;
			num[1] = L'\0';
			if (*p == L'R' || *p == L'W' || *p == L'N')
				swprintf(num, 32, L"%llu", (unsigned long long)
				    (uintptr_t)(*p == L'R' ? r : *p == L'W' ? w :
				    nul));
			wcscat(arg, num);
		}
		if (cordon_win_channel_parse(arg, &in, &out) || in != NULL ||
		    out != NULL) {
			printf("# --channel '%ls' was taken\n", arg);
			ok = 0;
		}
	}
	check(ok, "--channel refuses 16 malformed values (sign, space, "
	    "zero, overflow, trailing bytes, one handle twice, not a pipe)",
	    "one was taken");
	CloseHandle(r);
	CloseHandle(w);
	CloseHandle(nul);
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: chan.exe ECHO.EXE SCRATCHDIR\n");
		return 2;
	}
	channel(argv[1]);
	shut_and_egress(argv[1]);
	waits(argv[1]);
	invoker();
	channel_arg();
	paths(argv[2]);
	ids_and_paths(argv[1], argv[2]);
	return failed;
}
