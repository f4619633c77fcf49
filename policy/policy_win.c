/*
 * policy_win.c - the policy's part that differs per OS, on Windows
 * (mingw-w64; policy_posix.c is the POSIX one): whose file may be
 * trusted, where the configuration lives, and who is in which group.
 *
 * A file is trusted as policy_posix.c trusts one, in Windows terms:
 *   - its owner (the security descriptor's owner SID) is
 *     BUILTIN\Administrators or LocalSystem - Windows' root - or, for
 *     the invoker's own files (owner != (uid_t)-1: a user profile), the
 *     invoker's SID;
 *   - no ACE of its DACL lets anyone else write it (the mode's go-w): an
 *     allow ACE with a write, delete, WRITE_DAC or WRITE_OWNER right for
 *     a SID that is not one of those owners refuses it, and so does a
 *     NULL DACL (everyone may do everything);
 *   - it is opened with FILE_FLAG_OPEN_REPARSE_POINT and must be a plain
 *     file, not a directory and not a reparse point (a link or junction
 *     planted at the path is never followed), and is read through that
 *     one handle, bounded by CORDON_POLICY_MAX_FILE whatever its size
 *     said: what was checked is what is read.
 * Under Wine the owner and DACL are built from the Unix owner and mode
 * bits, so a Wine test sees the invoker as owner of every file it made.
 */
#include "config.h"

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "policy.h"
#include "policy_parser.h"
#include "winutil.h"

/* The rights that change a file or what may be done with it. */
#define WRITE_RIGHTS (FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | \
	FILE_WRITE_ATTRIBUTES | DELETE | WRITE_DAC | WRITE_OWNER | \
	GENERIC_WRITE | GENERIC_ALL)

/* Whether sid may write a file we trust: an owner we accept. */
static bool
trusted_writer(PSID sid, PSID self, bool self_ok)
{
	return IsWellKnownSid(sid, WinBuiltinAdministratorsSid) ||
	    IsWellKnownSid(sid, WinLocalSystemSid) ||
	    IsWellKnownSid(sid, WinCreatorOwnerSid) ||
	    (self_ok && EqualSid(sid, self));
}

/*
 * Why h's DACL lets someone we do not trust write the file, into why;
 * false when nobody else may.
 */
static bool
others_may_write(HANDLE h, bool self_ok, char *why, size_t whysz)
{
	struct cordon_win_sid me;
	PSECURITY_DESCRIPTOR sd = NULL;
	ACL_SIZE_INFORMATION info;
	ACCESS_ALLOWED_ACE *ace;
	LPWSTR text = NULL;
	PACL dacl = NULL;
	PSID self;
	DWORD i;
	bool bad = true;

	(void)snprintf(why, whysz, "its security descriptor cannot be read");
	if (GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
	    NULL, NULL, &dacl, NULL, &sd) != ERROR_SUCCESS ||
	    !cordon_win_self_sid(&me))
		goto out;
	self = CORDON_WIN_SID(&me);
	if (dacl == NULL) {
		(void)snprintf(why, whysz, "it has no DACL: everyone may write "
		    "it");
		goto out;
	}
	if (!GetAclInformation(dacl, &info, sizeof(info), AclSizeInformation))
		goto out;
	for (i = 0; i < info.AceCount; i++) {
		if (!GetAce(dacl, i, (void **)&ace))
			goto out;
		if (ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE ||
		    (ace->Header.AceFlags & INHERIT_ONLY_ACE) != 0 ||
		    (ace->Mask & WRITE_RIGHTS) == 0 ||
		    trusted_writer((PSID)&ace->SidStart, self, self_ok))
			continue;
		(void)ConvertSidToStringSidW((PSID)&ace->SidStart, &text);
		(void)snprintf(why, whysz, "its DACL lets %ls write it",
		    text != NULL ? text : L"another account");
		goto out;
	}
	bad = false;
out:
	if (text != NULL)
		(void)LocalFree(text);
	if (sd != NULL)
		(void)LocalFree(sd);
	return bad;
}

int
cordon_policy_read_text(const char *path, uid_t owner, char **textp,
    size_t *lenp, char *err, size_t errsz)
{
	BY_HANDLE_FILE_INFORMATION fi;
	wchar_t sid[128];
	char why[256];
	wchar_t *w = NULL;
	char *text = NULL;
	size_t len = 0;
	HANDLE h = INVALID_HANDLE_VALUE;
	enum cordon_win_owner who;
	DWORD e, got = 0;
	int r = 0;

	*textp = NULL;
	*lenp = 0;
	if ((w = cordon_win_widen(path)) == NULL) {
		(void)snprintf(err, errsz, "%s: not a valid UTF-8 path", path);
		return -CORDON_E_INVAL;
	}
	h = CreateFileW(w, GENERIC_READ | READ_CONTROL, FILE_SHARE_READ, NULL,
	    OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		e = GetLastError();
		(void)snprintf(err, errsz, "%s: cannot open it (Windows error "
		    "%lu)", path, (unsigned long)e);
		return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ?
		    -CORDON_E_NOTFOUND : -CORDON_E_IO;
	}
	if (!GetFileInformationByHandle(h, &fi)) {
		(void)snprintf(err, errsz, "%s: cannot read what it is", path);
		r = -CORDON_E_IO;
	} else if ((fi.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY |
	    FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DEVICE)) != 0) {
		(void)snprintf(err, errsz, "%s: not a regular file", path);
		r = -CORDON_E_INVAL;
	} else if ((who = cordon_win_owner(h, sid, sizeof(sid) /
	    sizeof(sid[0]))) == CORDON_WIN_OWNER_UNKNOWN) {
		(void)snprintf(err, errsz, "%s: its owner cannot be read", path);
		r = -CORDON_E_IO;
	} else if (who == CORDON_WIN_OWNER_OTHER ||
	    (who == CORDON_WIN_OWNER_SELF && owner == (uid_t)-1)) {
		(void)snprintf(err, errsz, "%s: owned by %ls, not by "
		    "Administrators or SYSTEM%s: refusing it (whoever owns it "
		    "could change what it allows)", path, sid,
		    owner == (uid_t)-1 ? "" : " or you");
		r = -CORDON_E_POLICY;
	} else if (others_may_write(h, owner != (uid_t)-1, why, sizeof(why))) {
		(void)snprintf(err, errsz, "%s: %s: refusing it", path, why);
		r = -CORDON_E_POLICY;
	} else if (fi.nFileSizeHigh != 0 ||
	    fi.nFileSizeLow > CORDON_POLICY_MAX_FILE) {
		(void)snprintf(err, errsz, "%s: larger than %u bytes", path,
		    CORDON_POLICY_MAX_FILE);
		r = -CORDON_E_TOOLONG;
	} else if ((text = malloc(CORDON_POLICY_MAX_FILE + 1)) == NULL) {
		r = -CORDON_E_NOMEM;
	}
	/* Read to EOF, never past the bound, whatever the size said. */
	while (r == 0 && len <= CORDON_POLICY_MAX_FILE) {
		if (!ReadFile(h, text + len, (DWORD)(CORDON_POLICY_MAX_FILE + 1 -
		    len), &got, NULL)) {
			(void)snprintf(err, errsz, "%s: read failed (Windows error "
			    "%lu)", path, (unsigned long)GetLastError());
			r = -CORDON_E_IO;
		}
		if (r < 0 || got == 0)
			break;
		len += got;
	}
	(void)CloseHandle(h);
	if (r == 0 && len > CORDON_POLICY_MAX_FILE) {
		(void)snprintf(err, errsz, "%s: larger than %u bytes", path,
		    CORDON_POLICY_MAX_FILE);
		r = -CORDON_E_TOOLONG;
	}
	if (r < 0) {
		free(text);
		text = NULL;
		len = 0;
	}
	*textp = text;
	*lenp = len;
	return r;
}

/*
 * %ProgramData%\cordon, which only administrators can write by
 * default; $CORDON_CONFDIR instead when it is an absolute path (the test
 * suite's: Windows has no setuid helper whose caller could aim it at a
 * file of their own).
 */
const char *
cordon_policy_confdir(void)
{
	static char dir[CORDON_MAX_PATH_LEN + 1];
	const char *over = getenv("CORDON_CONFDIR");
	wchar_t w[CORDON_MAX_PATH_LEN + 1];
	char *data;
	DWORD n;

	if (over != NULL && over[0] != '\0' && over[1] == ':' &&
	    (over[2] == '\\' || over[2] == '/'))
		return over;
	n = GetEnvironmentVariableW(L"ProgramData", w,
	    sizeof(w) / sizeof(w[0]));
	if (n == 0 || n >= sizeof(w) / sizeof(w[0]) ||
	    (data = cordon_win_narrow(w)) == NULL)
		return "C:\\ProgramData\\cordon";
	(void)snprintf(dir, sizeof(dir), "%s\\cordon", data);
	free(data);
	return dir;
}

uid_t
cordon_policy_self(void)
{
	return 0; /* any value but (uid_t)-1: the invoker's SID, above */
}

/*
 * Whether the process's token is in a group of the list: names are
 * looked up as accounts (LookupAccountNameW) and asked of the token
 * (CheckTokenMembership, which counts only enabled groups, as Windows'
 * own access checks do).  A number is a POSIX gid, which no Windows
 * account has: it matches none, and neither does an unknown name.
 */
static bool
in_groups(const struct cordon_groups *g, void *arg)
{
	BYTE sid[SECURITY_MAX_SID_SIZE];
	wchar_t domain[256], *w;
	DWORD sidsz, domsz;
	SID_NAME_USE use;
	uint64_t v = 0;
	BOOL member;
	size_t i;

	(void)arg;
	if (g->any)
		return true;
	for (i = 0; i < g->n; i++) {
		if (cordon_parse_count(g->name[i], &v) == 0 ||
		    (w = cordon_win_widen(g->name[i])) == NULL)
			continue;
		sidsz = sizeof(sid);
		domsz = sizeof(domain) / sizeof(domain[0]);
		member = FALSE;
		if (LookupAccountNameW(NULL, w, sid, &sidsz, domain, &domsz,
		    &use) && CheckTokenMembership(NULL, sid, &member) &&
		    member) {
			free(w);
			return true;
		}
		free(w);
	}
	return false;
}

int
cordon_policy_check_self(const struct cordon_policy *pol,
    const struct cordon_limits *l, bool network, char *err, size_t errsz)
{
	return cordon_policy_check_as(pol, l, network, "this account",
	    in_groups, NULL, err, errsz);
}
