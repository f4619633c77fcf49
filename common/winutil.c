/*
 * winutil.c - small Windows helpers the broker (broker/plat_win.c) and the
 * Job Object helper (helper/job_win.c) share; mingw-w64 builds only.
 * See winutil.h.
 */
#include "config.h"

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon_ids.h"
#include "winutil.h"

/* Polling step of the removal's retries, ms. */
#define RM_STEP_MS 50
/* Attempts at removing a tree: about 5 s of files still held. */
#define RM_ATTEMPTS 100
/* Deepest tree removed (each level is a frame and a handle). */
#define RM_MAX_DEPTH 128

/* UTF-8 to a new UTF-16 string; NULL if invalid or too long. */
wchar_t *
cordon_win_widen(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1,
	    NULL, 0);
	wchar_t *w;

	if (n <= 0)
		return NULL;
	w = calloc((size_t)n, sizeof(*w));
	if (w != NULL && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s,
	    -1, w, n) != n) {
		free(w);
		w = NULL;
	}
	return w;
}

/* UTF-16 to a new UTF-8 string; NULL if invalid. */
char *
cordon_win_narrow(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1,
	    NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0)
		return NULL;
	s = malloc((size_t)n);
	if (s != NULL && WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w,
	    -1, s, n, NULL, NULL) != n) {
		free(s);
		s = NULL;
	}
	return s;
}

/* --- a growing UTF-16 buffer ------------------------------------------- */

void
cordon_wbuf_add(struct cordon_wbuf *b, const wchar_t *s, size_t n)
{
	size_t need, cap;
	wchar_t *p;

	if (b->failed)
		return;
	/* len + n + 1 (a terminator always fits), checked. */
	if (__builtin_add_overflow(b->len, n, &need) ||
	    __builtin_add_overflow(need, 1, &need)) {
		b->failed = true;
		return;
	}
	if (need > b->cap) {
		cap = b->cap == 0 ? 256 : b->cap;
		while (cap < need)
			if (__builtin_mul_overflow(cap, 2, &cap)) {
				b->failed = true;
				return;
			}
		/* On failure b->p is kept, for the caller to free. */
		p = cap > SIZE_MAX / sizeof(*p) ? NULL :
		    realloc(b->p, cap * sizeof(*p));
		if (p == NULL) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n * sizeof(*s));
	b->len += n;
	b->p[b->len] = L'\0';
}

void
cordon_wbuf_str(struct cordon_wbuf *b, const wchar_t *s)
{
	cordon_wbuf_add(b, s, wcslen(s));
}

/* --- the invoker, and errors ---------------------------------------------- */

bool
cordon_win_self_sid(struct cordon_win_sid *out)
{
	HANDLE tok = NULL;
	DWORD n = 0, e;
	bool ok;

	ok = OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok) &&
	    GetTokenInformation(tok, TokenUser, out->buf, sizeof(out->buf),
	    &n);
	e = GetLastError();
	if (tok != NULL)
		(void)CloseHandle(tok);
	SetLastError(e);
	return ok;
}

int
cordon_win_errno(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
		return EACCES;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return EEXIST;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	default:
		return EIO;
	}
}

/* --- owners ---------------------------------------------------------------- */

enum cordon_win_owner
cordon_win_owner(HANDLE h, wchar_t *sid, size_t sidsz)
{
	struct cordon_win_sid self;
	PSECURITY_DESCRIPTOR sd = NULL;
	enum cordon_win_owner r = CORDON_WIN_OWNER_UNKNOWN;
	LPWSTR text = NULL;
	PSID owner = NULL;
	DWORD e;

	if (sidsz > 0)
		sid[0] = L'\0';
	if (GetSecurityInfo(h, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION,
	    &owner, NULL, NULL, NULL, &sd) != ERROR_SUCCESS || owner == NULL ||
	    !cordon_win_self_sid(&self))
		goto out;
	if (EqualSid(owner, CORDON_WIN_SID(&self)))
		r = CORDON_WIN_OWNER_SELF;
	else if (IsWellKnownSid(owner, WinBuiltinAdministratorsSid) ||
	    IsWellKnownSid(owner, WinLocalSystemSid))
		r = CORDON_WIN_OWNER_ADMIN;
	else
		r = CORDON_WIN_OWNER_OTHER;
	if (ConvertSidToStringSidW(owner, &text) && sidsz > 0)
		(void)swprintf(sid, sidsz, L"%ls", text);
out:
	e = GetLastError();
	if (text != NULL)
		(void)LocalFree(text);
	if (sd != NULL)
		(void)LocalFree(sd);
	SetLastError(e);
	return r;
}

/* --- private directories, and their removal -------------------------------- */

/*
 * A protected DACL that grants the invoker's SID full control and
 * nothing else, for a directory (inherited by what is created inside:
 * OICI) or a file; *sd to LocalFree.  Step of cordon_win_mkdir.
 */
static enum cordon_win_mkdir
private_sd(PSECURITY_DESCRIPTOR *sd, bool dir)
{
	struct cordon_win_sid self;
	DWORD e = 0;
	LPWSTR sid = NULL;
	wchar_t sddl[256];
	enum cordon_win_mkdir r = CORDON_WIN_MKDIR_SID;

	*sd = NULL;
	if (!cordon_win_self_sid(&self) ||
	    !ConvertSidToStringSidW(CORDON_WIN_SID(&self), &sid))
		goto out;
	r = CORDON_WIN_MKDIR_ACL;
	if (swprintf(sddl, sizeof(sddl) / sizeof(sddl[0]),
	    L"D:P(A;%ls;FA;;;%ls)", dir ? L"OICI" : L"", sid) < 0 ||
	    !ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl,
	    SDDL_REVISION_1, sd, NULL))
		goto out;
	r = CORDON_WIN_MKDIR_OK;
out:
	e = GetLastError();
	if (sid != NULL)
		(void)LocalFree(sid);
	SetLastError(e);
	return r;
}

/*
 * Creates the directory path, which must not exist, with private_sd's
 * DACL: no other user, and no group the invoker is in, can list, read or
 * write it (nor any ACE inherited from the parent).  0, or which step
 * failed, GetLastError() kept.
 */
enum cordon_win_mkdir
cordon_win_mkdir_private(const wchar_t *path)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, FALSE };
	enum cordon_win_mkdir r;
	DWORD e;

	if ((r = private_sd(&sa.lpSecurityDescriptor, true)) !=
	    CORDON_WIN_MKDIR_OK)
		return r;
	r = CORDON_WIN_MKDIR_CREATE;
	if (CreateDirectoryW(path, &sa))
		r = CORDON_WIN_MKDIR_OK;
	e = GetLastError();
	(void)LocalFree(sa.lpSecurityDescriptor);
	SetLastError(e);
	return r;
}

enum cordon_win_mkdir
cordon_win_create_private(const wchar_t *path, HANDLE *out)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, FALSE };
	enum cordon_win_mkdir r;
	HANDLE h;
	DWORD e;

	if (out != NULL)
		*out = INVALID_HANDLE_VALUE;
	if ((r = private_sd(&sa.lpSecurityDescriptor, false)) !=
	    CORDON_WIN_MKDIR_OK)
		return r;
	r = CORDON_WIN_MKDIR_CREATE;
	h = CreateFileW(path, GENERIC_WRITE, 0, &sa, CREATE_NEW,
	    FILE_ATTRIBUTE_NORMAL, NULL);
	if (h != INVALID_HANDLE_VALUE) {
		if (out != NULL)
			*out = h;
		else
			(void)CloseHandle(h);
		r = CORDON_WIN_MKDIR_OK;
	}
	e = GetLastError();
	(void)LocalFree(sa.lpSecurityDescriptor);
	SetLastError(e);
	return r;
}

/* Clears read-only (and system, hidden) so the entry can be deleted. */
static void
make_deletable(const wchar_t *p, DWORD attrs)
{
	FILE_BASIC_INFO bi;
	HANDLE h;

	if ((attrs & (FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_SYSTEM |
	    FILE_ATTRIBUTE_HIDDEN)) == 0)
		return;
	/*
	 * Through a handle to the entry itself (OPEN_REPARSE_POINT): a link
	 * or junction has its own attributes cleared, never its target's,
	 * which may lie outside the tree.  Zero times are left unchanged.
	 */
	h = CreateFileW(p, FILE_WRITE_ATTRIBUTES, FILE_SHARE_READ |
	    FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	    FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return;
	memset(&bi, 0, sizeof(bi));
	/* What is left, or NORMAL (valid only alone; 0 would change nothing). */
	bi.FileAttributes = attrs & ~(DWORD)(FILE_ATTRIBUTE_READONLY |
	    FILE_ATTRIBUTE_SYSTEM | FILE_ATTRIBUTE_HIDDEN |
	    FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY);
	if (bi.FileAttributes == 0)
		bi.FileAttributes = FILE_ATTRIBUTE_NORMAL;
	(void)SetFileInformationByHandle(h, FileBasicInfo, &bi, sizeof(bi));
	(void)CloseHandle(h);
}

static bool rm_entry(struct cordon_wbuf *path, DWORD attrs, int depth);

/*
 * Empties the directory path->p.  Why it is safe: it runs after the job
 * is terminated and closed, so no process of the payload remains to
 * swap a directory for a link while it works; even so, a reparse point
 * (junction, symbolic link, mount point) is removed as itself and never
 * entered (rm_entry), from the attributes FindFirstFileExW reports for
 * the entry, not from its target.
 */
static bool
rm_children(struct cordon_wbuf *path, int depth)
{
	WIN32_FIND_DATAW fd;
	size_t base = path->len;
	HANDLE h;
	bool ok = true;

	cordon_wbuf_str(path, L"\\*");
	if (path->failed)
		return false;
	h = FindFirstFileExW(path->p, FindExInfoBasic, &fd,
	    FindExSearchNameMatch, NULL, 0);
	path->len = base;
	path->p[base] = L'\0';
	if (h == INVALID_HANDLE_VALUE)
		return GetLastError() == ERROR_FILE_NOT_FOUND;
	do {
		if (wcscmp(fd.cFileName, L".") == 0 ||
		    wcscmp(fd.cFileName, L"..") == 0)
			continue;
		cordon_wbuf_str(path, L"\\");
		cordon_wbuf_str(path, fd.cFileName);
		if (path->failed || !rm_entry(path, fd.dwFileAttributes,
		    depth + 1))
			ok = false;
		path->len = base;
		if (path->p != NULL)
			path->p[base] = L'\0';
	} while (!path->failed && FindNextFileW(h, &fd));
	(void)FindClose(h);
	return ok && !path->failed;
}

static bool
rm_entry(struct cordon_wbuf *path, DWORD attrs, int depth)
{
	bool dir = (attrs & FILE_ATTRIBUTE_DIRECTORY) != 0;

	if (depth > RM_MAX_DEPTH)
		return false;
	make_deletable(path->p, attrs);
	if ((attrs & FILE_ATTRIBUTE_REPARSE_POINT) != 0)
		return dir ? RemoveDirectoryW(path->p) != 0 :
		    DeleteFileW(path->p) != 0;
	if (!dir)
		return DeleteFileW(path->p) != 0;
	return rm_children(path, depth) && RemoveDirectoryW(path->p) != 0;
}

/*
 * Removes path and all it holds.  A file a dying process still
 * has open cannot be deleted yet (or is only marked for deletion until
 * its last handle closes), so the whole removal is retried, STEP_MS
 * apart, RM_ATTEMPTS times; it has succeeded only when path no longer
 * exists.
 */
bool
cordon_win_rmtree(const wchar_t *path)
{
	struct cordon_wbuf b = { NULL, 0, 0, false };
	DWORD attrs;
	int i;
	bool gone = false;

	for (i = 0; i < RM_ATTEMPTS && !gone; i++) {
		if (i > 0)
			Sleep(RM_STEP_MS);
		attrs = GetFileAttributesW(path);
		if (attrs == INVALID_FILE_ATTRIBUTES) {
			gone = GetLastError() == ERROR_FILE_NOT_FOUND ||
			    GetLastError() == ERROR_PATH_NOT_FOUND;
			continue;
		}
		b.len = 0;
		b.failed = false;
		cordon_wbuf_str(&b, path);
		if (!b.failed)
			(void)rm_entry(&b, attrs, 0);
	}
	free(b.p);
	return gone;
}

/* --- pipes as frame.h transports ------------------------------------------ */

int
cordon_win_pipe_read(void *ctx, void *buf, size_t n)
{
	DWORD got = 0;

	if (n > MAXDWORD)
		n = MAXDWORD;
	if (!ReadFile((HANDLE)ctx, buf, (DWORD)n, &got, NULL))
		return GetLastError() == ERROR_BROKEN_PIPE ? 0 : -CORDON_E_IO;
	/* 0 bytes from a pipe: a zero-length write, or the end; either way
	 * the stream ends here (frame.c never writes 0 bytes). */
	return (int)got;
}

int
cordon_win_pipe_write(void *ctx, const void *buf, size_t n)
{
	DWORD put = 0, e;

	if (n > MAXDWORD)
		n = MAXDWORD;
	if (!WriteFile((HANDLE)ctx, buf, (DWORD)n, &put, NULL)) {
		e = GetLastError();
		return e == ERROR_BROKEN_PIPE || e == ERROR_NO_DATA ?
		    -CORDON_E_EOF : -CORDON_E_IO;
	}
	return (int)put;
}

/* --- the helper's end of the channel ------------------------------------- */

/* A handle value in decimal up to stop: digits only, not 0, no overflow. */
static bool
handle_value(const wchar_t **s, wchar_t stop, HANDLE *h)
{
	unsigned long long v = 0;
	const wchar_t *p = *s;

	if (*p < L'0' || *p > L'9')
		return false;
	for (; *p >= L'0' && *p <= L'9'; p++) {
		if (v > (UINTPTR_MAX - (unsigned)(*p - L'0')) / 10)
			return false;
		v = v * 10 + (unsigned)(*p - L'0');
	}
	if (*p != stop || v == 0)
		return false;
	*h = (HANDLE)(uintptr_t)v;
	*s = p;
	return true;
}

/*
 * Why this is safe: the value is parsed strictly (no sign, no space, no
 * overflow, nothing after it) and then only used if it names a pipe in
 * this process; the two must differ.  The broker's handle list
 * (plat_win.c) let the helper inherit these two pipes and its stdio
 * alone, so a value naming anything else is refused, not used.
 */
bool
cordon_win_channel_parse(const wchar_t *arg, HANDLE *in, HANDLE *out)
{
	*in = *out = NULL;
	if (!handle_value(&arg, L',', in))
		return false;
	arg++;
	if (!handle_value(&arg, L'\0', out) || *in == *out ||
	    GetFileType(*in) != FILE_TYPE_PIPE ||
	    GetFileType(*out) != FILE_TYPE_PIPE) {
		*in = *out = NULL;
		return false;
	}
	return true;
}
