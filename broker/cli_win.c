/*
 * cli_win.c - the cordon command's platform part on Windows (cli_plat.h;
 * mingw-w64).  Files are opened with FILE_FLAG_OPEN_REPARSE_POINT, so a
 * link or junction planted at a path is the thing opened (and refused),
 * never its target; the record's file is written beside FILE and moved
 * over it (MoveFileExW), as cli_posix.c renames.
 *
 * What Windows does not give here: a process cannot make itself
 * unreachable to other processes of its own user as PR_SET_DUMPABLE
 * does (the owner of a process object may always rewrite its DACL), so a
 * payload under the Job Object backend, which runs as the invoker, could
 * open cordon.exe; the AppContainer tier is what keeps it out.  And an
 * fd's access mode cannot be read back from the CRT, so --json-fd N is
 * checked to be open, not to be writable: a read-only N fails at the
 * write, 125.
 */
#include "config.h"

#include <windows.h>
#include <fcntl.h>
#include <io.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cli_plat.h"
#include "cordon.h"
#include "plat.h"
#include "winutil.h"

struct cordon_cli_result_file {
	wchar_t *dir;            /* FILE's directory, made absolute at open */
	wchar_t *path;           /* dir\name */
};

char *
cordon_cli_dest_sep(char *arg)
{
	bool drive = ((arg[0] >= 'A' && arg[0] <= 'Z') ||
	    (arg[0] >= 'a' && arg[0] <= 'z')) && arg[1] == ':';

	return strchr(drive ? arg + 2 : arg, ':');
}

/* A handle's file is a plain file, not a directory or reparse point. */
static bool
plain_file(HANDLE h)
{
	BY_HANDLE_FILE_INFORMATION fi;

	return GetFileInformationByHandle(h, &fi) &&
	    (fi.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY |
	    FILE_ATTRIBUTE_REPARSE_POINT)) == 0;
}

int
cordon_cli_open_output(const char *path, bool *created)
{
	wchar_t *w = cordon_win_widen(path);
	HANDLE h;
	int fd;

	*created = false;
	if (w == NULL) {
		errno = EINVAL;
		return -1;
	}
	h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
	    NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
	*created = h != INVALID_HANDLE_VALUE;
	if (h == INVALID_HANDLE_VALUE && GetLastError() == ERROR_FILE_EXISTS)
		h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ |
		    FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
		    FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		errno = cordon_win_errno(GetLastError());
		return -1;
	}
	/* A link is refused, as O_NOFOLLOW refuses one (ELOOP). */
	if (!plain_file(h)) {
		(void)CloseHandle(h);
		errno = ELOOP;
		return -1;
	}
	if ((fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY)) < 0)
		(void)CloseHandle(h);
	return fd;
}

/* The volume and file index of h: what names a file on Windows. */
static bool
file_id(HANDLE h, BY_HANDLE_FILE_INFORMATION *fi)
{
	return h != INVALID_HANDLE_VALUE && GetFileInformationByHandle(h, fi);
}

bool
cordon_cli_same_file(int fd, const char *path)
{
	BY_HANDLE_FILE_INFORMATION a, b;
	wchar_t *w = cordon_win_widen(path);
	HANDLE h;
	bool same;

	if (w == NULL)
		return false;
	h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ |
	    FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	    FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(w);
	same = file_id((HANDLE)_get_osfhandle(fd), &a) && file_id(h, &b) &&
	    a.dwVolumeSerialNumber == b.dwVolumeSerialNumber &&
	    a.nFileIndexHigh == b.nFileIndexHigh &&
	    a.nFileIndexLow == b.nFileIndexLow;
	if (h != INVALID_HANDLE_VALUE)
		(void)CloseHandle(h);
	return same;
}

int
cordon_cli_json_fd(int fd, char *why, size_t whysz)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);

	if (h == INVALID_HANDLE_VALUE)
		(void)snprintf(why, whysz, "is not open");
	else if (!SetHandleInformation(h, HANDLE_FLAG_INHERIT, 0))
		(void)snprintf(why, whysz, "cannot be made not inheritable "
		    "(Windows error %lu)", (unsigned long)GetLastError());
	else
		return 0;
	return -1;
}

int
cordon_cli_write_all(int fd, const char *buf, size_t len)
{
	int n;

	while (len > 0) {
		n = _write(fd, buf, len > INT_MAX ? INT_MAX : (unsigned)len);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		}
	}
	return 0;
}

void
cordon_cli_result_close(struct cordon_cli_result_file *f)
{
	if (f == NULL)
		return;
	free(f->dir);
	free(f->path);
	free(f);
}

/* The last '\\' or '/' of s, or NULL. */
static const char *
last_sep(const char *s)
{
	const char *a = strrchr(s, '\\'), *b = strrchr(s, '/');

	return a == NULL ? b : b == NULL ? a : a > b ? a : b;
}

int
cordon_cli_result_open(const char *path, struct cordon_cli_result_file **out,
    char *why, size_t whysz)
{
	struct cordon_cli_result_file *f = NULL;
	const char *sep = last_sep(path), *name = sep != NULL ? sep + 1 : path;
	char *dir = NULL;
	wchar_t *wdir = NULL, *wname = NULL;
	DWORD n, attrs;

	*out = NULL;
	if (name[0] == '\0' || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0) {
		(void)snprintf(why, whysz, "'%s' names a directory, not a file",
		    path);
		return -1;
	}
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (dir = sep == NULL ? strdup(".") : sep == path ? strdup("\\") :
	    strndup(path, (size_t)(sep - path + (sep[-1] == ':')))) == NULL ||
	    (wdir = cordon_win_widen(dir)) == NULL ||
	    (wname = cordon_win_widen(name)) == NULL) {
		(void)snprintf(why, whysz, "out of memory, or not UTF-8");
		goto fail;
	}
	/* Fixed now: a later change of the current directory moves nothing. */
	if ((n = GetFullPathNameW(wdir, 0, NULL, NULL)) == 0 ||
	    (f->dir = calloc(n, sizeof(wchar_t))) == NULL ||
	    GetFullPathNameW(wdir, n, f->dir, NULL) >= n ||
	    (f->path = calloc(n + wcslen(wname) + 2, sizeof(wchar_t))) ==
	    NULL) {
		(void)snprintf(why, whysz, "%s: cannot make it absolute", dir);
		goto fail;
	}
	(void)swprintf(f->path, n + wcslen(wname) + 2, L"%ls%ls%ls", f->dir,
	    f->dir[wcslen(f->dir) - 1] == L'\\' ? L"" : L"\\", wname);
	attrs = GetFileAttributesW(f->dir);
	if (attrs == INVALID_FILE_ATTRIBUTES ||
	    (attrs & FILE_ATTRIBUTE_DIRECTORY) == 0) {
		(void)snprintf(why, whysz, "%s: not a directory", dir);
		goto fail;
	}
	attrs = GetFileAttributesW(f->path);
	if (attrs != INVALID_FILE_ATTRIBUTES &&
	    (attrs & FILE_ATTRIBUTE_REPARSE_POINT) != 0) {
		(void)snprintf(why, whysz, "%s is a link; cordon never writes "
		    "through one (name its target)", path);
		goto fail;
	}
	if (attrs != INVALID_FILE_ATTRIBUTES &&
	    (attrs & FILE_ATTRIBUTE_DIRECTORY) != 0) {
		(void)snprintf(why, whysz, "%s exists and is not a regular file",
		    path);
		goto fail;
	}
	free(dir);
	free(wdir);
	free(wname);
	*out = f;
	return 0;
fail:
	free(dir);
	free(wdir);
	free(wname);
	cordon_cli_result_close(f);
	return -1;
}

/*
 * A new file in FILE's directory, private to the invoker (CREATE_NEW:
 * nothing planted there is opened), written and flushed, then moved over
 * FILE: a reader sees the old FILE or the whole record.  MoveFileExW
 * replaces a link at FILE itself, never what it points to.
 */
int
cordon_cli_result_write(const struct cordon_cli_result_file *f,
    const char *rec, size_t len)
{
	wchar_t tmp[MAX_PATH + 64];
	uint64_t rnd = 0;
	HANDLE h = INVALID_HANDLE_VALUE;
	DWORD done = 0, e = 0;
	int tries;

	for (tries = 0; tries < 16 && h == INVALID_HANDLE_VALUE; tries++) {
		if (cordon_plat_random(&rnd, sizeof(rnd)) < 0 ||
		    swprintf(tmp, sizeof(tmp) / sizeof(tmp[0]),
		    L"%ls\\.cordon-result-%016llx", f->dir,
		    (unsigned long long)rnd) < 0) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (cordon_win_create_private(tmp, &h) != CORDON_WIN_MKDIR_OK &&
		    GetLastError() != ERROR_FILE_EXISTS) {
			errno = cordon_win_errno(GetLastError());
			return -1;
		}
	}
	if (h == INVALID_HANDLE_VALUE) {
		errno = EEXIST;
		return -1;
	}
	while (len > 0 && e == 0) {
		if (!WriteFile(h, rec, len > 1U << 30 ? 1U << 30 : (DWORD)len,
		    &done, NULL))
			e = GetLastError();
		rec += done;
		len -= done;
	}
	if (e == 0 && !FlushFileBuffers(h))
		e = GetLastError();
	(void)CloseHandle(h);
	if (e == 0 && MoveFileExW(tmp, f->path, MOVEFILE_REPLACE_EXISTING |
	    MOVEFILE_WRITE_THROUGH))
		return 0;
	if (e == 0)
		e = GetLastError();
	(void)DeleteFileW(tmp);
	errno = cordon_win_errno(e);
	return -1;
}

/*
 * The final path of what path names (GetFinalPathNameByHandleW: links
 * and junctions resolved, as realpath does), without the "\\?\" prefix.
 */
char *
cordon_cli_realpath(const char *path)
{
	wchar_t *w = cordon_win_widen(path), buf[MAX_PATH + 8], *p = buf;
	HANDLE h;
	DWORD n;
	char *out = NULL;

	if (w == NULL) {
		errno = EINVAL;
		return NULL;
	}
	h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ |
	    FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	    FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		errno = cordon_win_errno(GetLastError());
		return NULL;
	}
	n = GetFinalPathNameByHandleW(h, buf, sizeof(buf) / sizeof(buf[0]),
	    FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	(void)CloseHandle(h);
	if (n == 0 || n >= sizeof(buf) / sizeof(buf[0])) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (wcsncmp(p, L"\\\\?\\", 4) == 0)
		p += 4;
	if ((out = cordon_win_narrow(p)) == NULL)
		errno = ENOMEM;
	return out;
}

/*
 * The cancel pipe, not inheritable (the helper and payload never hold
 * it); Ctrl-C, Ctrl-Break and SIGTERM (raise) cancel the run.  Nothing
 * makes this process unreachable to the payload: the header says why.
 */
int
cordon_cli_guard(int cancel[2], void (*handler)(int))
{
	cordon_plat_guard_self();
	if (_pipe(cancel, 4096, _O_BINARY | _O_NOINHERIT) < 0)
		return -1;
	(void)signal(SIGINT, handler);
	(void)signal(SIGTERM, handler);
	(void)signal(SIGBREAK, handler);
	return 0;
}

/* Windows has no SIGPIPE: a write to a closed pipe fails (EPIPE). */
void
cordon_cli_ignore_sigpipe(void)
{
}
