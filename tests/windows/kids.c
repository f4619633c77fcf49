/*
 * kids.c - the payload of tests/windows/run.sh (kids.exe), a Windows
 * program with one job per mode:
 *
 *   kids.exe exit N             exits N
 *   kids.exe sleep MS           sleeps MS milliseconds, exits 0
 *   kids.exe grandchild FILE    starts "kids.exe sleep 60000", writes its
 *                               pid to FILE, exits 0 at once
 *   kids.exe hold NAME          creates NAME here and starts a child that
 *                               holds it open and sleeps; exits 0 once
 *                               the child has it open
 *   kids.exe readonly NAME      creates NAME here, read-only; 2 if the
 *                               attribute did not stick
 *   kids.exe waitfor NAME       waits (30 s at most) for NAME to appear
 *                               here, exits 0 (1 if it never did)
 *   kids.exe breakaway FILE     starts "kids.exe sleep 60000" with
 *                               CREATE_BREAKAWAY_FROM_JOB; writes its pid
 *                               to FILE and exits 0, or 40 if refused
 *   kids.exe alive PID          1 if process PID is alive, 0 if not
 *   kids.exe kill PID           terminates PID (the negative control)
 *   kids.exe getenv NAME        prints NAME's value; 1 if it is unset
 *   kids.exe pipes V,V...       1 if a handle of one of these decimal
 *                               values is open here and is a pipe (not
 *                               one of our stdio), else 0
 *   kids.exe args ARG...        prints the arguments as [a][b]...
 */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Starts this program with ARGS and FLAGS; its process handle, or NULL. */
static HANDLE
start_self_flags(const wchar_t *args, DWORD flags, DWORD *pid)
{
	wchar_t self[MAX_PATH], cmd[2 * MAX_PATH];
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;

	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	if (GetModuleFileNameW(NULL, self, MAX_PATH) == 0 ||
	    swprintf(cmd, sizeof(cmd) / sizeof(cmd[0]), L"\"%ls\" %ls", self,
	    args) < 0 || !CreateProcessW(NULL, cmd, NULL, NULL, FALSE, flags,
	    NULL, NULL, &si, &pi))
		return NULL;
	CloseHandle(pi.hThread);
	*pid = pi.dwProcessId;
	return pi.hProcess;
}

static HANDLE
start_self(const wchar_t *args, DWORD *pid)
{
	return start_self_flags(args, 0, pid);
}

static int
grandchild(const wchar_t *file, DWORD flags)
{
	DWORD pid = 0;
	HANDLE h = start_self_flags(L"sleep 60000", flags, &pid);
	FILE *f;

	if (h == NULL && flags != 0)
		return 40;
	if (h == NULL || (f = _wfopen(file, L"w")) == NULL)
		return 10;
	fprintf(f, "%lu\n", (unsigned long)pid);
	return fclose(f) == 0 ? 0 : 11;
}

static int
hold(const wchar_t *name, int child)
{
	wchar_t args[MAX_PATH + 16];
	DWORD pid = 0;
	HANDLE f, h;
	int i;

	if (child) {
		/* No sharing: nobody else may open or delete it meanwhile. */
		f = CreateFileW(name, GENERIC_READ | GENERIC_WRITE, 0, NULL,
		    OPEN_EXISTING, 0, NULL);
		if (f == INVALID_HANDLE_VALUE)
			return 20;
		Sleep(60000);
		return 0;
	}
	f = CreateFileW(name, GENERIC_WRITE, 0, NULL, CREATE_NEW, 0, NULL);
	if (f == INVALID_HANDLE_VALUE)
		return 21;
	CloseHandle(f);
	swprintf(args, sizeof(args) / sizeof(args[0]), L"holdchild %ls", name);
	if ((h = start_self(args, &pid)) == NULL)
		return 22;
	/* Held once a share-nothing open fails. */
	for (i = 0; i < 200; i++) {
		f = CreateFileW(name, GENERIC_READ, 0, NULL, OPEN_EXISTING, 0,
		    NULL);
		if (f == INVALID_HANDLE_VALUE)
			return 0;
		CloseHandle(f);
		Sleep(25);
	}
	return 23;
}

static int
readonly(const wchar_t *name)
{
	HANDLE f = CreateFileW(name, GENERIC_WRITE, 0, NULL, CREATE_NEW, 0,
	    NULL);
	DWORD a;

	if (f == INVALID_HANDLE_VALUE)
		return 30;
	CloseHandle(f);
	if (!SetFileAttributesW(name, FILE_ATTRIBUTE_READONLY))
		return 31;
	a = GetFileAttributesW(name);
	return a != INVALID_FILE_ATTRIBUTES &&
	    (a & FILE_ATTRIBUTE_READONLY) != 0 ? 0 : 2;
}

static int
waitfor(const wchar_t *name)
{
	int i;

	for (i = 0; i < 600; i++) {
		if (GetFileAttributesW(name) != INVALID_FILE_ATTRIBUTES)
			return 0;
		Sleep(50);
	}
	return 1;
}

static int
alive(DWORD pid)
{
	HANDLE h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION,
	    FALSE, pid);
	DWORD code = 0;
	int r;

	if (h == NULL)
		return 0;
	r = WaitForSingleObject(h, 0) == WAIT_TIMEOUT &&
	    GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
	CloseHandle(h);
	return r;
}

int
wmain(int argc, wchar_t **argv)
{
	const wchar_t *m = argc > 1 ? argv[1] : L"";
	const wchar_t *a = argc > 2 ? argv[2] : NULL;
	int i;

	if (wcscmp(m, L"args") == 0) {
		for (i = 2; i < argc; i++)
			wprintf(L"[%ls]", argv[i]);
		wprintf(L"\n");
		return 0;
	}
	if (a == NULL) {
		fwprintf(stderr, L"kids.exe: a mode and its argument\n");
		return 64;
	}
	if (wcscmp(m, L"exit") == 0)
		return _wtoi(a);
	if (wcscmp(m, L"sleep") == 0) {
		Sleep((DWORD)_wtoi(a));
		return 0;
	}
	if (wcscmp(m, L"grandchild") == 0)
		return grandchild(a, 0);
	if (wcscmp(m, L"breakaway") == 0)
		return grandchild(a, CREATE_BREAKAWAY_FROM_JOB);
	if (wcscmp(m, L"waitfor") == 0)
		return waitfor(a);
	if (wcscmp(m, L"hold") == 0)
		return hold(a, 0);
	if (wcscmp(m, L"holdchild") == 0)
		return hold(a, 1);
	if (wcscmp(m, L"readonly") == 0)
		return readonly(a);
	if (wcscmp(m, L"alive") == 0)
		return alive((DWORD)_wtoi(a));
	if (wcscmp(m, L"kill") == 0) {
		HANDLE h = OpenProcess(PROCESS_TERMINATE, FALSE,
		    (DWORD)_wtoi(a));

		return h != NULL && TerminateProcess(h, 9) ? 0 : 1;
	}
	if (wcscmp(m, L"pipes") == 0) {
		const wchar_t *v = a;

		for (; *v != L'\0'; v += *v == L',') {
			HANDLE h = (HANDLE)(uintptr_t)wcstoull(v, (wchar_t **)&v,
			    10);
			DWORD flags = 0;

			if (h != GetStdHandle(STD_INPUT_HANDLE) &&
			    h != GetStdHandle(STD_OUTPUT_HANDLE) &&
			    h != GetStdHandle(STD_ERROR_HANDLE) &&
			    GetHandleInformation(h, &flags) &&
			    GetFileType(h) == FILE_TYPE_PIPE) {
				wprintf(L"pipe %p is open here\n", h);
				return 1;
			}
			if (*v != L',' && *v != L'\0')
				return 64;
		}
		return 0;
	}
	if (wcscmp(m, L"getenv") == 0) {
		const wchar_t *v = _wgetenv(a);

		if (v == NULL)
			return 1;
		wprintf(L"%ls\n", v);
		return 0;
	}
	fwprintf(stderr, L"kids.exe: unknown mode %ls\n", m);
	return 64;
}
