/*
 * plat_win.c - the broker's platform layer on Windows (plat.h; mingw-w64).
 *
 * Theory of operation:
 *   1. Two anonymous pipes, one a direction.  Our ends are never
 *      inheritable; the helper's ends are inheritable only from CreatePipe
 *      until CreateProcessW returns, and are closed here right after.
 *   2. CreateProcessW with STARTUPINFOEX's PROC_THREAD_ATTRIBUTE_HANDLE_LIST
 *      naming exactly the helper's two pipe ends and its three stdio
 *      handles: nothing else of ours is inherited, whatever else in this
 *      process is inheritable.  An inherited handle keeps its value, so
 *      the two pipe handles are passed by value on the helper's command
 *      line: `"PATH" --channel IN,OUT` (decimal), IN the end it reads
 *      requests from, OUT the one it writes events to.  Its environment
 *      is SystemRoot alone (without it Windows' own DLLs fail to load).
 *   3. Messages are common/frame.c's length-prefixed frames: the same
 *      bounded reader as everywhere (the length checked before anything
 *      is allocated), reading no byte past a frame.  A pipe whose writer
 *      is gone reads as EOF, so closing our ends tells the helper to stop
 *      and a helper that died ends our read.
 *   4. A helper and its channel are a slot of a small table (the int
 *      cordon_start_helper gives back); the pid is the process id.
 *   5. Paths under %LOCALAPPDATA%\cordon, which is made, if missing, with
 *      a protected DACL granting the invoker alone (common/winutil.c).
 *
 * The window in 1: another thread of the same program that calls
 * CreateProcess with bInheritHandles while a helper is being started
 * could inherit the helper's pipe ends, and the helper would then not see
 * EOF until that program's child exits.  Windows offers no atomic
 * alternative short of the handle list, which protects our own spawn only.
 */
#include "config.h"

#include <windows.h>
#include <bcrypt.h>
#include <io.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "frame.h"
#include "internal.h"
#include "policy.h"
#include "plat.h"
#include "types.h"
#include "winutil.h"

/* Helpers one process may have running at once (each run has one). */
#define MAX_HELPERS 64

struct slot {
	bool used;
	HANDLE to;      /* ours: broker -> helper, written */
	HANDLE from;    /* ours: helper -> broker, read */
	HANDLE proc;
	DWORD pid;
};

/* The exit code of a helper we killed: an NTSTATUS-sized code (> 255). */
#define KILLED_CODE 0xC0000409U

static struct slot slots[MAX_HELPERS];
static SRWLOCK slots_lock = SRWLOCK_INIT;

static void
close_handle(HANDLE *h)
{
	if (*h != NULL && *h != INVALID_HANDLE_VALUE)
		(void)CloseHandle(*h);
	*h = NULL;
}

/* A pipe: *ours never inheritable, *theirs inheritable (step 1). */
static bool
pipe_pair(HANDLE *ours, HANDLE *theirs, bool we_read)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	HANDLE r = NULL, w = NULL;

	if (!CreatePipe(&r, &w, &sa, 0))
		return false;
	*ours = we_read ? r : w;
	*theirs = we_read ? w : r;
	if (!SetHandleInformation(*ours, HANDLE_FLAG_INHERIT, 0)) {
		close_handle(&r);
		close_handle(&w);
		*ours = *theirs = NULL;
		return false;
	}
	return true;
}

/*
 * An inheritable copy of the CRT fd's handle, or of our own std handle
 * (which), or of NUL when there is none (a program without a console).
 */
static HANDLE
inheritable_stdio(int fd, DWORD which)
{
	HANDLE h = fd >= 0 ? (HANDLE)_get_osfhandle(fd) : GetStdHandle(which);
	HANDLE dup = NULL;
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };

	/*
	 * No handle: NULL, INVALID_HANDLE_VALUE (-1), or the UCRT's -2 for
	 * an fd with no stream - which is also GetCurrentThread()'s
	 * pseudo-handle, and must never be duplicated to the helper.
	 */
	if (h == NULL || (intptr_t)h < 0)
		return CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE,
		    FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0,
		    NULL);
	if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &dup,
	    0, TRUE, DUPLICATE_SAME_ACCESS))
		return NULL;
	return dup;
}

/* `"PATH" --channel IN,OUT`, or NULL for a path a quote would break. */
static wchar_t *
helper_command_line(const wchar_t *path, HANDLE in, HANDLE out)
{
	struct cordon_wbuf b = { NULL, 0, 0, false };
	wchar_t num[64];

	if (wcschr(path, L'"') != NULL)
		return NULL;
	cordon_wbuf_str(&b, L"\"");
	cordon_wbuf_str(&b, path);
	(void)swprintf(num, sizeof(num) / sizeof(num[0]),
	    L"\" --channel %llu,%llu", (unsigned long long)(uintptr_t)in,
	    (unsigned long long)(uintptr_t)out);
	cordon_wbuf_str(&b, num);
	if (b.failed) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

/* "SystemRoot=...\0\0", or NULL. */
static wchar_t *
helper_env(void)
{
	wchar_t root[MAX_PATH + 1];
	struct cordon_wbuf b = { NULL, 0, 0, false };
	DWORD n = GetEnvironmentVariableW(L"SystemRoot", root, MAX_PATH + 1);

	if (n == 0 || n > MAX_PATH)
		return NULL;
	cordon_wbuf_str(&b, L"SystemRoot=");
	cordon_wbuf_str(&b, root);
	cordon_wbuf_add(&b, L"\0", 1); /* the block's second terminator */
	if (b.failed) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

/* A free slot, taken; -1 if all are in use. */
static int
slot_take(void)
{
	int i, found = -1;

	AcquireSRWLockExclusive(&slots_lock);
	for (i = 0; i < MAX_HELPERS && found < 0; i++)
		if (!slots[i].used) {
			memset(&slots[i], 0, sizeof(slots[i]));
			slots[i].used = true;
			found = i;
		}
	ReleaseSRWLockExclusive(&slots_lock);
	return found;
}

/* The slot's last handle is gone: free it. */
static void
slot_release_if_done(struct slot *s)
{
	AcquireSRWLockExclusive(&slots_lock);
	if (s->to == NULL && s->from == NULL && s->proc == NULL)
		s->used = false;
	ReleaseSRWLockExclusive(&slots_lock);
}

static struct slot *
slot_of(int sock)
{
	struct slot *s = NULL;

	AcquireSRWLockShared(&slots_lock);
	if (sock >= 0 && sock < MAX_HELPERS && slots[sock].used)
		s = &slots[sock];
	ReleaseSRWLockShared(&slots_lock);
	return s;
}

int
cordon_start_helper_io(const char *path, pid_t *pid, int *sock, int infd,
    int outfd, int errfd)
{
	STARTUPINFOEXW si;
	PROCESS_INFORMATION pi;
	HANDLE inherit[5] = { NULL, NULL, NULL, NULL, NULL };
	HANDLE to = NULL, from = NULL;
	wchar_t *wpath = NULL, *cmd = NULL, *env = NULL;
	SIZE_T attrsz = 0;
	DWORD e = 0;
	int k, i, r = -CORDON_E_HELPER;

	memset(&si, 0, sizeof(si));
	memset(&pi, 0, sizeof(pi));
	if ((k = slot_take()) < 0) {
		errno = EAGAIN;
		return -CORDON_E_HELPER;
	}
	if (!pipe_pair(&to, &inherit[0], false) ||
	    !pipe_pair(&from, &inherit[1], true) ||
	    (inherit[2] = inheritable_stdio(infd, STD_INPUT_HANDLE)) == NULL ||
	    (inherit[3] = inheritable_stdio(outfd, STD_OUTPUT_HANDLE)) == NULL ||
	    (inherit[4] = inheritable_stdio(errfd, STD_ERROR_HANDLE)) == NULL ||
	    inherit[2] == INVALID_HANDLE_VALUE ||
	    inherit[3] == INVALID_HANDLE_VALUE ||
	    inherit[4] == INVALID_HANDLE_VALUE ||
	    (wpath = cordon_win_widen(path)) == NULL ||
	    (cmd = helper_command_line(wpath, inherit[0], inherit[1])) == NULL ||
	    (env = helper_env()) == NULL) {
		e = GetLastError();
		goto out;
	}
	/* Step 2: exactly these five handles reach the helper. */
	(void)InitializeProcThreadAttributeList(NULL, 1, 0, &attrsz);
	if ((si.lpAttributeList = malloc(attrsz)) == NULL ||
	    !InitializeProcThreadAttributeList(si.lpAttributeList, 1, 0,
	    &attrsz)) {
		e = GetLastError();
		free(si.lpAttributeList);
		si.lpAttributeList = NULL;
		goto out;
	}
	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = inherit[2];
	si.StartupInfo.hStdOutput = inherit[3];
	si.StartupInfo.hStdError = inherit[4];
	if (!UpdateProcThreadAttribute(si.lpAttributeList, 0,
	    PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit, sizeof(inherit), NULL,
	    NULL) ||
	    !CreateProcessW(wpath, cmd, NULL, NULL, TRUE,
	    EXTENDED_STARTUPINFO_PRESENT | CREATE_UNICODE_ENVIRONMENT |
	    CREATE_NO_WINDOW, env, NULL, &si.StartupInfo, &pi)) {
		e = GetLastError();
		goto out;
	}
	close_handle(&pi.hThread);
	slots[k].to = to;
	slots[k].from = from;
	slots[k].proc = pi.hProcess;
	slots[k].pid = pi.dwProcessId;
	to = from = NULL;
	*pid = (pid_t)pi.dwProcessId;
	*sock = k;
	r = 0;
out:
	if (si.lpAttributeList != NULL) {
		DeleteProcThreadAttributeList(si.lpAttributeList);
		free(si.lpAttributeList);
	}
	for (i = 0; i < 5; i++)
		close_handle(&inherit[i]);
	close_handle(&to);
	close_handle(&from);
	free(wpath);
	free(cmd);
	free(env);
	if (r < 0) {
		slot_release_if_done(&slots[k]);
		errno = cordon_win_errno(e);
	}
	return r;
}

/*
 * The helper's exit code as wait(2) would encode an exit (code << 8).  A
 * code over 255 is an NTSTATUS (an exception, or TerminateProcess): that
 * is a helper that died, encoded as a SIGKILL, as on Linux.
 */
int
cordon_wait_helper(pid_t pid)
{
	struct slot *s = NULL;
	DWORD code = 0;
	int i, status = -1;

	AcquireSRWLockShared(&slots_lock);
	for (i = 0; i < MAX_HELPERS && s == NULL; i++)
		if (slots[i].used && slots[i].proc != NULL &&
		    slots[i].pid == (DWORD)pid)
			s = &slots[i];
	ReleaseSRWLockShared(&slots_lock);
	if (s == NULL)
		return -1;
	if (WaitForSingleObject(s->proc, INFINITE) == WAIT_OBJECT_0 &&
	    GetExitCodeProcess(s->proc, &code))
		status = code <= 255 ? (int)(code << 8) : 9;
	close_handle(&s->proc);
	slot_release_if_done(s);
	return status;
}

int
cordon_chan_send(int sock, const struct cordon_msg *m)
{
	struct slot *s = slot_of(sock);

	if (s == NULL || s->to == NULL)
		return -CORDON_E_INVAL;
	return cordon_frame_send(cordon_win_pipe_write, s->to, m);
}

int
cordon_chan_recv(int sock, struct cordon_msg *m)
{
	struct slot *s = slot_of(sock);

	memset(m, 0, sizeof(*m));
	if (s == NULL || s->from == NULL)
		return -CORDON_E_INVAL;
	return cordon_frame_recv(cordon_win_pipe_read, s->from, cordon_msg_decode_any, 0,
	    m);
}

/*
 * No fd travels over a pipe.  The only message that carries one (EGRESS,
 * the egress proxy's listening socket) answers a request the Windows
 * broker never makes, so one arriving is a broken helper's: refused.
 */
int
cordon_chan_recv_fd(int sock, struct cordon_msg *m, int *fd)
{
	int err;

	*fd = -1;
	if ((err = cordon_chan_recv(sock, m)) == 0 &&
	    m->type == CORDON_MSG_EGRESS) {
		cordon_msg_clear(m);
		memset(m, 0, sizeof(*m));
		return -CORDON_E_PROTO;
	}
	return err;
}

/* Our writing end closed: the helper reads EOF, we can still read. */
void
cordon_chan_shut(int sock)
{
	struct slot *s = slot_of(sock);

	if (s != NULL)
		close_handle(&s->to);
}

void
cordon_chan_close(int sock)
{
	struct slot *s = slot_of(sock);

	if (s == NULL)
		return;
	close_handle(&s->to);
	close_handle(&s->from);
	slot_release_if_done(s);
}

/*
 * Bytes waiting on a pipe we read, or its writer gone (the read then
 * sees EOF): either way, a read will not block.
 */
static bool
pipe_ready(HANDLE h)
{
	DWORD avail = 0;

	if (!PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL))
		return GetLastError() == ERROR_BROKEN_PIPE;
	return avail > 0;
}

int
cordon_chan_wait(int sock, int cancel_fd, int timeout_ms)
{
	struct slot *s = sock >= 0 ? slot_of(sock) : NULL;
	HANDLE cancel = INVALID_HANDLE_VALUE;
	ULONGLONG end = GetTickCount64() + (ULONGLONG)(timeout_ms > 0 ?
	    timeout_ms : 0);
	int found;

	if (sock >= 0 && (s == NULL || s->from == NULL)) {
		errno = EBADF;
		return -1;
	}
	if (cancel_fd >= 0 && (cancel = (HANDLE)_get_osfhandle(cancel_fd)) ==
	    INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	for (;;) {
		found = (s != NULL && pipe_ready(s->from) ?
		    (int)CORDON_CHAN_READY : 0) |
		    (cancel != INVALID_HANDLE_VALUE && pipe_ready(cancel) ?
		    (int)CORDON_CHAN_CANCEL : 0);
		if (found != 0 || GetTickCount64() >= end)
			return found;
		Sleep(10);
	}
}

int
cordon_helper_act(int sock, pid_t pid, enum cordon_helper_act act)
{
	struct slot *s = slot_of(sock);

	if (s == NULL || s->pid != (DWORD)pid)
		return -1;
	if (act == CORDON_HELPER_CANCEL)
		close_handle(&s->to);
	else if (act == CORDON_HELPER_KILL && s->proc != NULL)
		/* Over 255: cordon_wait_helper reads it as a killed helper. */
		(void)TerminateProcess(s->proc, KILLED_CODE);
	return 0;
}

/* --- the invoker --------------------------------------------------------- */

/*
 * The token's user SID, its last sub-authority as the uid; the name from
 * GetUserNameW (at most UNLEN + 1 = 257 wide characters).  A token we
 * cannot read leaves the uid 0 and the name unknown, as a Linux user
 * with no passwd entry has no name.
 */
int
cordon_invoker(uint32_t *uid, char **user)
{
	/* A TOKEN_USER and its SID, pointer-aligned. */
	DWORD_PTR info[(sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE) /
	    sizeof(DWORD_PTR) + 1];
	const TOKEN_USER *tu = (const TOKEN_USER *)(void *)info;
	wchar_t name[257];
	DWORD len = 0, n = (DWORD)(sizeof(name) / sizeof(name[0]));
	HANDLE tok = NULL;
	PUCHAR count;

	*uid = 0;
	*user = NULL;
	if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok)) {
		if (GetTokenInformation(tok, TokenUser, info, sizeof(info),
		    &len) && IsValidSid(tu->User.Sid) &&
		    (count = GetSidSubAuthorityCount(tu->User.Sid)) != NULL &&
		    *count > 0)
			*uid = (uint32_t)*GetSidSubAuthority(tu->User.Sid,
			    (DWORD)*count - 1);
		CloseHandle(tok);
	}
	if (GetUserNameW(name, &n) && (*user = cordon_win_narrow(name)) == NULL)
		return -CORDON_E_NOMEM;
	return 0;
}

/* --- paths ---------------------------------------------------------------- */

/* An absolute path: X:\ or \\server\ (a drive-relative X:dir is not). */
static bool
absolute(const wchar_t *p)
{
	return (iswalpha(p[0]) && p[1] == L':' && p[2] == L'\\') ||
	    (p[0] == L'\\' && p[1] == L'\\');
}

/* %var% as UTF-8 if it is an absolute path, else NULL. */
static char *
known_dir(const wchar_t *var)
{
	wchar_t buf[MAX_PATH + 1];
	DWORD n = GetEnvironmentVariableW(var, buf, MAX_PATH + 1);

	if (n < 3 || n > MAX_PATH || !absolute(buf))
		return NULL;
	return cordon_win_narrow(buf);
}

bool
cordon_path_absolute(const char *p)
{
	return (isalpha((unsigned char)p[0]) && p[1] == ':' &&
	    (p[2] == '\\' || p[2] == '/')) ||
	    ((p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/'));
}

/* Why this thread's last default path was refused (plat.h). */
static __thread char path_why[CORDON_MAX_TEXT_LEN];

const char *
cordon_plat_path_error(void)
{
	return path_why;
}

/*
 * An existing directory (not a link or junction: the handle is the
 * entry's own, FILE_FLAG_OPEN_REPARSE_POINT) owned by the invoker's SID;
 * its owner's SID as text in sid otherwise.
 */
static enum cordon_win_owner
dir_owner(const wchar_t *w, wchar_t *sid, size_t sidsz)
{
	enum cordon_win_owner o = CORDON_WIN_OWNER_UNKNOWN;
	BY_HANDLE_FILE_INFORMATION fi;
	HANDLE h;

	h = CreateFileW(w, READ_CONTROL | FILE_READ_ATTRIBUTES,
	    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
	    OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS |
	    FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return o;
	if (GetFileInformationByHandle(h, &fi) &&
	    (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0 &&
	    (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) == 0)
		o = cordon_win_owner(h, sid, sidsz);
	(void)CloseHandle(h);
	return o;
}

/*
 * path, made private to the invoker if missing (step 5).  An existing
 * one must be a directory, not a reparse point, and the invoker's own:
 * it lives in the user's own profile, where no other user can create it
 * first, so one owned by someone else (an administrator's, or another
 * account's through a shared profile) was put there by them, and its
 * DACL is theirs to change: the trace would hold the user's argv and
 * cwd where that owner can read them.  Refused, -CORDON_E_POLICY, with
 * cordon_plat_path_error() saying whose it is.
 */
static int
private_dir(const char *path)
{
	wchar_t *w = cordon_win_widen(path), sid[128];
	enum cordon_win_owner o;
	int r = -CORDON_E_IO;

	path_why[0] = '\0';
	if (w == NULL)
		return -CORDON_E_INVAL;
	if (cordon_win_mkdir_private(w) == CORDON_WIN_MKDIR_OK)
		r = 0;
	else if (GetLastError() != ERROR_ALREADY_EXISTS)
		(void)snprintf(path_why, sizeof(path_why), "%s cannot be made "
		    "(Windows error %lu)", path, (unsigned long)GetLastError());
	else if ((o = dir_owner(w, sid, sizeof(sid) / sizeof(sid[0]))) ==
	    CORDON_WIN_OWNER_SELF)
		r = 0;
	else if (o == CORDON_WIN_OWNER_UNKNOWN)
		(void)snprintf(path_why, sizeof(path_why), "%s is not a "
		    "directory of its own (a file, link or junction?), or its "
		    "owner cannot be read", path);
	else {
		(void)snprintf(path_why, sizeof(path_why), "%s is owned by %ls, "
		    "not by you: refusing to keep cordon's files in it (its "
		    "owner can read and change them)", path, sid);
		r = -CORDON_E_POLICY;
	}
	free(w);
	return r;
}

/* a + b + c, allocated (msvcrt has no asprintf); -CORDON_E_NOMEM. */
static int
concat(char **out, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if ((*out = malloc(la + lb + lc + 1)) == NULL)
		return -CORDON_E_NOMEM;
	memcpy(*out, a, la);
	memcpy(*out + la, b, lb);
	memcpy(*out + la + lb, c, lc + 1);
	return 0;
}

/* %LOCALAPPDATA%\cordon, made private, + "\" + rest (made too if dir). */
static int
local_path(char **out, const char *rest, bool dir)
{
	char *base = NULL, *top = NULL;
	int r = -CORDON_E_INVAL;

	*out = NULL;
	if ((base = known_dir(L"LOCALAPPDATA")) == NULL)
		return r;
	if ((r = concat(&top, base, "\\cordon", "")) < 0 ||
	    (r = private_dir(top)) < 0 ||
	    (r = concat(out, top, "\\", rest)) < 0)
		goto out;
	r = dir ? private_dir(*out) : 0;
	if (r < 0) {
		free(*out);
		*out = NULL;
	}
out:
	free(base);
	free(top);
	return r;
}

int
cordon_default_trace_path(char **out)
{
	return local_path(out, "trace.db", false);
}

/* The runs' base; each run's workdir, runs\<id>, the helper makes. */
int
cordon_default_workdir_base(char **out)
{
	return local_path(out, "runs", true);
}

int
cordon_user_profile_path(char **out, const char *name)
{
	char *base = known_dir(L"APPDATA"), *dir = NULL;
	int r;

	*out = NULL;
	if (base == NULL)
		return -CORDON_E_INVAL;
	if ((r = concat(&dir, base, "\\cordon\\profiles\\", name)) == 0)
		r = concat(out, dir, ".conf", "");
	free(dir);
	free(base);
	return r;
}

static bool
is_sep(char c)
{
	return c == '\\' || c == '/';
}

/*
 * How much of p is its root, never made: "X:\" (3), "\\server\share\"
 * (up to and with the separator after the share), else 0 (relative).
 */
static size_t
root_len(const char *p)
{
	size_t i = 2;
	int seps = 0;

	if (isalpha((unsigned char)p[0]) && p[1] == ':' && is_sep(p[2]))
		return 3;
	if (!is_sep(p[0]) || !is_sep(p[1]))
		return 0;
	for (; p[i] != '\0' && seps < 2; i++)
		seps += is_sep(p[i]);
	return i;
}

/*
 * Each parent made with the invoker-only DACL of step 5; one that exists
 * (whatever it is, as mkdir -p takes it) is left alone.
 */
int
cordon_mkdir_parents(const char *path)
{
	char *p = strdup(path), *c, save;
	wchar_t *w;
	int r = 0;

	if (p == NULL)
		return -CORDON_E_NOMEM;
	for (c = p + root_len(p); *c != '\0' && r == 0; c++) {
		/* A separator first, doubled or last names nothing new. */
		if (!is_sep(*c) || c == p || is_sep(c[-1]))
			continue;
		save = *c;
		*c = '\0';
		if ((w = cordon_win_widen(p)) == NULL)
			r = -CORDON_E_INVAL;
		else if (cordon_win_mkdir_private(w) != CORDON_WIN_MKDIR_OK &&
		    GetLastError() != ERROR_ALREADY_EXISTS)
			r = -CORDON_E_IO;
		free(w);
		*c = save;
	}
	free(p);
	return r;
}

/* --- the helper, ids, processes -------------------------------------------- */

/* Any object of this module: GetModuleHandleEx finds the module by it. */
static const char module_anchor;

/*
 * $CORDON_HELPER (absolute, or refused), else cordon-helper.exe beside
 * the module holding this code: Windows installs a program's files in
 * one directory, and no configure-time path is where the user unpacks.
 */
int
cordon_helper_path(char **out)
{
	static const wchar_t name[] = L"cordon-helper.exe";
	wchar_t buf[MAX_PATH + sizeof(name) / sizeof(name[0])], *slash;
	HMODULE self = NULL;
	DWORD n;

	*out = NULL;
	n = GetEnvironmentVariableW(L"CORDON_HELPER", buf, MAX_PATH + 1);
	if (n > 0) {
		if (n > MAX_PATH || !absolute(buf))
			return -CORDON_E_HELPER;
	} else {
		if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
		    GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
		    (LPCWSTR)(const void *)&module_anchor, &self) ||
		    (n = GetModuleFileNameW(self, buf, MAX_PATH + 1)) == 0 ||
		    n > MAX_PATH || (slash = wcsrchr(buf, L'\\')) == NULL)
			return -CORDON_E_HELPER;
		memcpy(slash + 1, name, sizeof(name));
	}
	if ((*out = cordon_win_narrow(buf)) == NULL)
		return -CORDON_E_NOMEM;
	return 0;
}

bool
cordon_helper_is_setuid(void)
{
	return false;
}

int
cordon_plat_random(void *buf, size_t n)
{
	if (n > ULONG_MAX || !BCRYPT_SUCCESS(BCryptGenRandom(NULL, buf,
	    (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
		return -CORDON_E_IO;
	return 0;
}

/* A process that has exited (its object kept by a handle) is gone: 0. */
uint64_t
cordon_proc_start_time(uint32_t pid)
{
	FILETIME made, ended, kernel, user;
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	DWORD code = 0;
	uint64_t v = 0;

	if (h == NULL)
		return 0;
	if (GetExitCodeProcess(h, &code) && code == STILL_ACTIVE &&
	    GetProcessTimes(h, &made, &ended, &kernel, &user))
		v = (uint64_t)made.dwHighDateTime << 32 | made.dwLowDateTime;
	CloseHandle(h);
	return v;
}

/*
 * The allow-list confines the payload's network to the broker's proxy
 * (a network namespace, Landlock or Seatbelt) and hands the proxy its
 * listening socket over the channel (SCM_RIGHTS); a Job Object confines
 * no network and a pipe carries no socket.
 */
const char *
cordon_plat_no_egress(void)
{
	return "not available on Windows: a Job Object cannot confine the "
	    "command's network to the egress proxy";
}

const char *
cordon_plat_no_binds(int backend)
{
	/* job_win.c grants an AppContainer's SID read on each source. */
	return backend == CORDON_BACKEND_APPCONTAINER ? NULL :
	    "not available on the job backend: a Job Object has no mounts and "
	    "no path rule (--backend appcontainer grants a source read "
	    "access where it is)";
}

/* --- removal --------------------------------------------------------------- */

int
cordon_plat_remove_tree(const char *path)
{
	wchar_t *w = cordon_win_widen(path);
	bool gone;

	if (w == NULL)
		return -CORDON_E_INVAL;
	gone = cordon_win_rmtree(w);
	free(w);
	return gone ? 0 : -CORDON_E_IO;
}

/* --- what shared code asks of files and processes -------------------------- */

/*
 * cordon_wait_helper's status: an exit code up to 255 as code << 8, a
 * killed helper (TerminateProcess's KILLED_CODE, or any code over 255 -
 * an NTSTATUS of a crash) as 9.
 */
bool
cordon_helper_exited(int status, int *code, int *sig)
{
	bool exited = status >= 0 && (status & 0xff) == 0;

	*code = exited ? (status >> 8) & 0xff : -1;
	*sig = exited ? 0 : status & 0x7f;
	return exited;
}

/*
 * The workdir's own entry (never a junction's target: the handle is
 * opened with FILE_FLAG_OPEN_REPARSE_POINT and refused if it is one),
 * owned by the invoker's SID, as a CRT fd.
 */
int
cordon_workdir_open(const char *path)
{
	BY_HANDLE_FILE_INFORMATION fi;
	wchar_t *w = cordon_win_widen(path);
	HANDLE h;
	int fd = -1;

	if (w == NULL)
		return -1;
	h = CreateFileW(w, READ_CONTROL | FILE_READ_ATTRIBUTES |
	    FILE_LIST_DIRECTORY, FILE_SHARE_READ | FILE_SHARE_WRITE |
	    FILE_SHARE_DELETE, NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS |
	    FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return -1;
	if (GetFileInformationByHandle(h, &fi) &&
	    (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0 &&
	    (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) == 0 &&
	    cordon_win_owner(h, NULL, 0) == CORDON_WIN_OWNER_SELF)
		fd = _open_osfhandle((intptr_t)h, 0);
	if (fd < 0)
		(void)CloseHandle(h);
	return fd;
}

bool
cordon_path_absent(const char *path)
{
	wchar_t *w = cordon_win_widen(path);
	DWORD e;

	if (w == NULL)
		return false;
	e = GetFileAttributesW(w) == INVALID_FILE_ATTRIBUTES ?
	    GetLastError() : ERROR_SUCCESS;
	free(w);
	return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND;
}

int
cordon_create_private(const char *path)
{
	wchar_t *w = cordon_win_widen(path);
	int r = 0;

	if (w == NULL)
		return -CORDON_E_IO;
	if (cordon_win_create_private(w, NULL) != CORDON_WIN_MKDIR_OK &&
	    GetLastError() != ERROR_FILE_EXISTS)
		r = -CORDON_E_IO;
	free(w);
	return r;
}

bool
cordon_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_mtime == b->st_mtime &&
	    a->st_ctime == b->st_ctime;
}

/* No setuid helper here: the policy's own choice (policy_win.c). */
const char *
cordon_confdir(void)
{
	return cordon_policy_confdir();
}

/*
 * `cordon probe`'s facts found here: the Windows version as the kernel
 * reports it (RtlGetVersion: GetVersionEx lies to programs without a
 * compatibility manifest), and what --allow-host gets (nothing).
 */
void
cordon_local_facts(void (*fn)(void *arg, const char *key,
    const char *value), void *arg)
{
	typedef LONG (WINAPI *get_version_fn)(OSVERSIONINFOW *);
	OSVERSIONINFOW v = { .dwOSVersionInfoSize = sizeof(v) };
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	get_version_fn get = NULL;
	char text[96];

	if (ntdll != NULL)
		get = (get_version_fn)(void (*)(void))GetProcAddress(ntdll,
		    "RtlGetVersion");
	if (get != NULL && get(&v) == 0) {
		(void)snprintf(text, sizeof(text), "Windows NT %lu.%lu build %lu",
		    (unsigned long)v.dwMajorVersion,
		    (unsigned long)v.dwMinorVersion,
		    (unsigned long)v.dwBuildNumber);
		fn(arg, "kernel", text);
	}
	fn(arg, "egress", cordon_plat_no_egress());
}

/* Nothing can: cli_win.c's header says why. */
void
cordon_plat_guard_self(void)
{
}

const char *
cordon_plat_name(void)
{
	return "Windows";
}

/* The backends this OS's helper has (plat.h). */
uint32_t
cordon_plat_backends(void)
{
	return 1U << CORDON_BACKEND_AUTO | 1U << CORDON_BACKEND_JOB |
	    1U << CORDON_BACKEND_APPCONTAINER;
}

const char *
cordon_plat_bind_rule(void)
{
	return "must be the source itself: Windows mounts nothing, an "
	    "AppContainer reads a source where it is (give no DEST)";
}
