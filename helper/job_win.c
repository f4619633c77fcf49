/*
 * job_win.c - the Windows glue of the Job Object backend (mingw-w64
 * only): one run of a payload inside a Job Object, in a fresh workdir
 * that is destroyed on every exit path.  Which caps were applied and how
 * the run ended are not decided here: this file translates what Windows
 * says into job.h's plain facts and asks job.c.
 *
 * Theory of operation, in order:
 *   1. Refuse what cannot run before anything exists: bad limits, a
 *      workdir that already exists, --backend appcontainer where
 *      userenv.dll has no AppContainer functions (Wine).
 *   2. The workdir, with a protected DACL granting the invoker alone;
 *      with --backend appcontainer, the run's container profile and its
 *      grants (the AppContainer section below, steps b-c).
 *   3. The job: JOBOBJECT_EXTENDED_LIMIT_INFORMATION with the per-job
 *      user time, the job memory, the active process count when asked,
 *      KILL_ON_JOB_CLOSE and DIE_ON_UNHANDLED_EXCEPTION; then
 *      JOB_OBJECT_POST_AT_END_OF_JOB (the helper, not Windows, ends a run
 *      that used its CPU, so the cap is typed); then a completion port.
 *      The limits are read back (QueryInformationJobObject): only what
 *      the read-back shows is applied (job.c), and a --require'd cap
 *      that is not refuses the run here, before any payload exists.
 *   4. The payload is created CREATE_SUSPENDED (in the container, step
 *      d, for appcontainer), assigned to the job and only then resumed,
 *      so it runs no instruction outside the job; a failed assignment
 *      terminates it unresumed.  job_win_create stops here: the helper
 *      (main_win.c) reports CREATED and resumes it (job_win_release)
 *      only on the broker's GO.
 *   5. Follow: the payload's process handle, the completion port's
 *      messages, the wall deadline and the caller's stop (the broker
 *      gone), in one loop.  A cap message for
 *      an applied cap ends the run as the Linux backends do: the whole
 *      tree is terminated.
 *   6. The accounting is read, the job is terminated (every process in
 *      it, grandchildren included) and closed (KILL_ON_JOB_CLOSE is the
 *      backstop should this process die first).
 *   7. The workdir is removed after the job is gone, with bounded retries
 *      for files a dying process still holds, read-only attributes
 *      cleared, reparse points removed and never followed; then the
 *      container's grants are revoked and its profile deleted (step e).
 *   6 and 7 run on every path once anything exists (job_win_end).
 *
 * Every handle this file creates is non-inheritable (NULL security
 * attributes), so the payload inherits none of the job, the port or the
 * workdir's.
 */
#include "config.h"

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "job.h"
#include "types.h"
#include "winutil.h"

/* Polling step of the follow loop, ms (the removal's: winutil.c). */
#define STEP_MS 50
/* How long the end waits for the terminated payload, ms. */
#define REAP_MS 10000
/* The completion key of this run's port. */
#define PORT_KEY ((ULONG_PTR)0x636f72)
/* The exit code the job's processes get when the helper ends them. */
#define KILLED_CODE 0xC0DE0124U

static void
say(struct job_win_res *res, const char *f, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(struct job_win_res *res, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	(void)vsnprintf(res->err, sizeof(res->err), f, ap);
	va_end(ap);
}

/* --- the command line ----------------------------------------------------- */

/*
 * One argument, quoted so CommandLineToArgvW and the C runtime give it
 * back exactly: backslashes count only before a quote, so a run of n
 * backslashes before a quote (or before the closing quote) becomes 2n,
 * and the quote itself \".  Nothing is ever dropped or reinterpreted:
 * the payload gets the argv the broker was given.
 */
static void
quote_arg(struct cordon_wbuf *b, const wchar_t *a)
{
	size_t nbs = 0, i;

	if (a[0] != L'\0' && wcspbrk(a, L" \t\n\v\"") == NULL) {
		cordon_wbuf_str(b, a);
		return;
	}
	cordon_wbuf_str(b, L"\"");
	for (; *a != L'\0'; a++) {
		if (*a == L'\\') {
			nbs++;
			continue;
		}
		for (i = 0; i < (*a == L'"' ? 2 * nbs + 1 : nbs); i++)
			cordon_wbuf_str(b, L"\\");
		nbs = 0;
		cordon_wbuf_add(b, a, 1);
	}
	for (i = 0; i < 2 * nbs; i++)
		cordon_wbuf_str(b, L"\\");
	cordon_wbuf_str(b, L"\"");
}

/*
 * The command line.  The program name (argv[0]) is parsed by Windows
 * with no escapes at all, up to the next quote: one containing a quote
 * cannot be passed faithfully and is refused.
 */
static wchar_t *
command_line(char *const *argv, struct job_win_res *res)
{
	struct cordon_wbuf b = { NULL, 0, 0, false };
	size_t i;

	if (strchr(argv[0], '"') != NULL || argv[0][0] == '\0') {
		say(res, "the program name '%s' is empty or holds a quote, "
		    "which a Windows command line cannot carry", argv[0]);
		return NULL;
	}
	for (i = 0; argv[i] != NULL; i++) {
		wchar_t *w = cordon_win_widen(argv[i]);

		if (w == NULL) {
			say(res, "argument %lu is not valid UTF-8",
			    (unsigned long)i);
			free(b.p);
			return NULL;
		}
		if (i > 0)
			cordon_wbuf_str(&b, L" ");
		if (i == 0) {
			cordon_wbuf_str(&b, L"\"");
			cordon_wbuf_str(&b, w);
			cordon_wbuf_str(&b, L"\"");
		} else {
			quote_arg(&b, w);
		}
		free(w);
	}
	/* CreateProcessW's limit: 32767 characters with the terminator. */
	if (b.failed || b.len >= 32767) {
		say(res, "the command line is too long for Windows (32767 "
		    "characters at most)");
		free(b.p);
		return NULL;
	}
	return b.p;
}

/* --- the environment ------------------------------------------------------ */

/*
 * What a Windows process needs to start and find its system at all
 * (SystemRoot above all: without it Winsock and much of the system fail),
 * beside policy/env.c's allow-list.  None of these names a proxy.
 */
static const char *const win_needed[] = {
	"SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "COMSPEC", "PATHEXT",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS",
};

/* The upper-cased name of "KEY=VALUE" into key; false if it does not fit. */
static bool
env_key(const char *entry, char key[CORDON_ENV_MAX_NAME + 1])
{
	size_t n = strcspn(entry, "="), i;

	if (n == 0 || n > CORDON_ENV_MAX_NAME)
		return false;
	for (i = 0; i < n; i++)
		key[i] = entry[i] >= 'a' && entry[i] <= 'z' ?
		    (char)(entry[i] - 'a' + 'A') : entry[i];
	key[n] = '\0';
	return true;
}

/* Whether the upper-cased key is one Windows itself needs (win_needed). */
static bool
env_needed(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(win_needed) / sizeof(win_needed[0]); i++)
		if (strcmp(key, win_needed[i]) == 0)
			return true;
	return false;
}

/*
 * Whether the invoker's "KEY=VALUE" reaches the payload (the test
 * driver's environment; the helper's comes checked in the request).
 * Windows names are case-insensitive ("Path" is PATH), so the
 * allow-lists compare the upper-cased key; a proxy variable, in any
 * case, never passes (cordon_env_is_proxy), whatever else would allow it.
 */
static bool
env_passes(const char *entry)
{
	char key[CORDON_ENV_MAX_NAME + 1];

	if (!env_key(entry, key) || cordon_env_is_proxy(entry))
		return false;
	return cordon_env_allowed(key) || env_needed(key);
}

/* Whether key is one of the names the block sets to the workdir. */
static bool
env_ours(const char *key)
{
	return strcmp(key, "TEMP") == 0 || strcmp(key, "TMP") == 0 ||
	    strcmp(key, "USERPROFILE") == 0;
}

/*
 * Appends entry unless its name, compared without case as Windows does,
 * is already in b's first *nkeys names (kept in keys) or is one the block
 * sets itself.  The request holds at most CORDON_MAX_ENVC entries and
 * win_needed a few more, so JOB_WIN_MAX_ENV is never reached.
 */
#define JOB_WIN_MAX_ENV (CORDON_MAX_ENVC + 16)
static void
env_add(struct cordon_wbuf *b, const wchar_t *w, const char *entry,
    char (*keys)[CORDON_ENV_MAX_NAME + 1], size_t *nkeys)
{
	char key[CORDON_ENV_MAX_NAME + 1];
	size_t i;

	if (!env_key(entry, key) || env_ours(key) ||
	    cordon_env_is_proxy(entry) || *nkeys >= JOB_WIN_MAX_ENV)
		return;
	for (i = 0; i < *nkeys; i++)
		if (strcmp(keys[i], key) == 0)
			return;
	memcpy(keys[(*nkeys)++], key, sizeof(key));
	cordon_wbuf_add(b, w, wcslen(w) + 1);
}

/*
 * The payload's environment block.  With envp (the helper: the request's
 * environment, which intake.c checked against the allow-list) those
 * entries, then the names Windows itself needs (win_needed) from this
 * process's own environment (the broker gives the helper SystemRoot);
 * without (the test driver) the invoker's variables that env_passes.
 * Then TEMP, TMP and USERPROFILE set to the workdir (HOME and TMPDIR's
 * place on Windows).  Names are compared without case, as Windows
 * does: the first of "PATH" and "Path" wins, a proxy variable in any
 * case never passes, and no entry can set TEMP, TMP or USERPROFILE
 * beside ours.  The "=C:" entries (per-drive directories) are dropped.
 */
static wchar_t *
env_block(char *const *envp, const wchar_t *workdir, struct job_win_res *res)
{
	static const wchar_t *const set[] = { L"TEMP=", L"TMP=",
	    L"USERPROFILE=" };
	struct cordon_wbuf b = { NULL, 0, 0, false };
	char (*keys)[CORDON_ENV_MAX_NAME + 1] = calloc(JOB_WIN_MAX_ENV,
	    sizeof(*keys));
	wchar_t *all = GetEnvironmentStringsW(), *e;
	size_t i, nkeys = 0;

	if (all == NULL || keys == NULL) {
		say(res, "cannot read the environment (error %lu)",
		    GetLastError());
		free(keys);
		if (all != NULL)
			(void)FreeEnvironmentStringsW(all);
		return NULL;
	}
	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		wchar_t *w = cordon_win_widen(envp[i]);

		if (w == NULL)
			b.failed = true;
		else
			env_add(&b, w, envp[i], keys, &nkeys);
		free(w);
	}
	for (e = all; *e != L'\0'; e += wcslen(e) + 1) {
		char *u = cordon_win_narrow(e), key[CORDON_ENV_MAX_NAME + 1];
		bool pass = u != NULL && (envp == NULL ? env_passes(u) :
		    env_key(u, key) && env_needed(key));

		if (pass)
			env_add(&b, e, u, keys, &nkeys);
		free(u);
	}
	(void)FreeEnvironmentStringsW(all);
	free(keys);
	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		cordon_wbuf_str(&b, set[i]);
		cordon_wbuf_add(&b, workdir, wcslen(workdir) + 1);
	}
	/* The block ends with an empty string: wbuf keeps a terminator. */
	if (b.failed) {
		say(res, "out of memory building the environment, or an "
		    "entry that is not UTF-8");
		free(b.p);
		return NULL;
	}
	return b.p;
}

/* --- the workdir ---------------------------------------------------------- */

/* The workdir, private to the invoker (winutil.c); false, said, if not. */
static bool
workdir_make(const wchar_t *path, struct job_win_res *res)
{
	enum cordon_win_mkdir r = cordon_win_mkdir_private(path);
	DWORD e = GetLastError();

	if (r == CORDON_WIN_MKDIR_OK)
		return true;
	if (r == CORDON_WIN_MKDIR_SID)
		say(res, "cannot read the invoker's SID (error %lu)", e);
	else if (r == CORDON_WIN_MKDIR_ACL)
		say(res, "cannot build the workdir's ACL (error %lu)", e);
	else if (e == ERROR_ALREADY_EXISTS)
		say(res, "the workdir already exists; a run's workdir is "
		    "always new");
	else
		say(res, "cannot create the workdir (error %lu)", e);
	return false;
}

/* --- AppContainer --------------------------------------------------------- */

/*
 * The access tier (--backend appcontainer), inside the same job:
 *   a. userenv.dll's AppContainer functions, resolved at run time
 *      (Windows 8 and later export them; Wine's userenv does not), so one
 *      binary runs everywhere and says why when the tier is missing.
 *   b. A profile for this run alone, "cordon.run.<run id>"
 *      (CreateAppContainerProfile, no capabilities): its SID is the
 *      payload's identity.  One left by a helper that died is deleted
 *      first; the name is the run's, so it is no other run's.
 *   c. Explicit ACEs for that SID: the workdir (full control, inherited
 *      below it) and each --ro-bind source (read and execute, inherited),
 *      added to each object's DACL (GetNamedSecurityInfoW, SetEntriesInAclW
 *      GRANT_ACCESS, SetNamedSecurityInfoW).  Nothing else of the
 *      invoker's is granted: an AppContainer reaches only what names its
 *      SID or ALL APPLICATION PACKAGES (the system's read-only parts).
 *      So the program itself must be readable by the container: one
 *      under the system directories is; one elsewhere needs its
 *      directory given as a --ro-bind source, or CreateProcessW fails
 *      (ERROR_ACCESS_DENIED: 126).  Reaching the workdir through the
 *      invoker-only base relies on the traverse privilege
 *      (SeChangeNotifyPrivilege), which AppContainer tokens keep.
 *   d. The payload is created with PROC_THREAD_ATTRIBUTE_SECURITY_
 *      CAPABILITIES naming the SID and an empty capability list: no
 *      internetClient, no privateNetwork, so no network at all (loopback
 *      included: an AppContainer needs a loopback exemption, which is
 *      never made).  Suspended and assigned to the job as on the job
 *      backend.
 *   e. On every exit path (appcontainer_undo, from job_win_end): each
 *      grant revoked (REVOKE_ACCESS removes every ACE for the SID), then
 *      the profile deleted (DeleteAppContainerProfile), the SID freed.
 * None of this has run: the build host has only Wine, which lacks a.
 */
typedef HRESULT (WINAPI *create_profile_fn)(PCWSTR, PCWSTR, PCWSTR,
    PSID_AND_ATTRIBUTES, DWORD, PSID *);
typedef HRESULT (WINAPI *delete_profile_fn)(PCWSTR);
typedef HRESULT (WINAPI *derive_sid_fn)(PCWSTR, PSID *);

/* Grants made, for revoking: at most one per --ro-bind plus the workdir. */
#define AC_MAX_GRANTS (CORDON_MAX_BINDS + 1)

struct appcontainer {
	HMODULE userenv;
	create_profile_fn create;
	delete_profile_fn remove;
	derive_sid_fn derive;
	wchar_t name[64];          /* cordon.run.<run id> */
	bool profile;              /* made: deleted at the end */
	PSID sid;                  /* FreeSid at the end */
	wchar_t *granted[AC_MAX_GRANTS];
	size_t ngranted;
};

static bool
appcontainer_resolve(struct appcontainer *ac, struct job_win_res *res)
{
	static const char *const fns[] = { "CreateAppContainerProfile",
	    "DeleteAppContainerProfile",
	    "DeriveAppContainerSidFromAppContainerName" };
	FARPROC got[3] = { NULL, NULL, NULL };
	size_t i;

	ac->userenv = LoadLibraryExW(L"userenv.dll", NULL,
	    LOAD_LIBRARY_SEARCH_SYSTEM32);
	if (ac->userenv == NULL) {
		say(res, "--backend appcontainer: userenv.dll cannot be loaded "
		    "(error %lu), so there is no AppContainer here",
		    GetLastError());
		return false;
	}
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if ((got[i] = GetProcAddress(ac->userenv, fns[i])) == NULL) {
			say(res, "--backend appcontainer: userenv.dll has no "
			    "%s, so this system cannot create an AppContainer "
			    "(Wine does not implement them; Windows 8 and "
			    "later do)", fns[i]);
			return false;
		}
	/* The documented signatures (userenv.h), through void (*)(void). */
	ac->create = (create_profile_fn)(void (*)(void))got[0];
	ac->remove = (delete_profile_fn)(void (*)(void))got[1];
	ac->derive = (derive_sid_fn)(void (*)(void))got[2];
	return true;
}

/* b. This run's profile and its SID. */
static bool
appcontainer_profile(struct appcontainer *ac, const char *run_id,
    struct job_win_res *res)
{
	HRESULT hr;

	if (run_id == NULL || strlen(run_id) > 40 ||
	    strspn(run_id, "0123456789abcdef") != strlen(run_id)) {
		say(res, "--backend appcontainer: the run id is not hex");
		return false;
	}
	(void)swprintf(ac->name, sizeof(ac->name) / sizeof(ac->name[0]),
	    L"cordon.run.%hs", run_id);
	/* One a dead helper left: the run id is this run's, never another's. */
	(void)ac->remove(ac->name);
	hr = ac->create(ac->name, L"cordon run", L"one cordon run's sandbox",
	    NULL, 0, &ac->sid);
	if (FAILED(hr)) {
		say(res, "--backend appcontainer: CreateAppContainerProfile "
		    "failed (HRESULT 0x%08lx)", (unsigned long)hr);
		ac->sid = NULL;
		return false;
	}
	ac->profile = true;
	return true;
}

/*
 * Adds (grant) or removes (revoke) the SID's ACE on path's DACL.  The
 * object is named by its full path; inheritance carries the grant below
 * a directory (and SetNamedSecurityInfoW walks the tree to apply it).
 */
static DWORD
appcontainer_ace(const struct appcontainer *ac, const wchar_t *path,
    ACCESS_MODE mode, DWORD rights)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PACL old = NULL, acl = NULL;
	EXPLICIT_ACCESSW ea;
	DWORD e;

	e = GetNamedSecurityInfoW(path, SE_FILE_OBJECT,
	    DACL_SECURITY_INFORMATION, NULL, NULL, &old, NULL, &sd);
	if (e != ERROR_SUCCESS)
		return e;
	memset(&ea, 0, sizeof(ea));
	ea.grfAccessPermissions = rights;
	ea.grfAccessMode = mode;
	ea.grfInheritance = SUB_CONTAINERS_AND_OBJECTS_INHERIT;
	ea.Trustee.TrusteeForm = TRUSTEE_IS_SID;
	ea.Trustee.TrusteeType = TRUSTEE_IS_WELL_KNOWN_GROUP;
	ea.Trustee.ptstrName = (LPWSTR)ac->sid;
	e = SetEntriesInAclW(1, &ea, old, &acl);
	if (e == ERROR_SUCCESS)
		e = SetNamedSecurityInfoW((LPWSTR)(uintptr_t)path,
		    SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, acl,
		    NULL);
	if (acl != NULL)
		(void)LocalFree(acl);
	(void)LocalFree(sd);
	return e;
}

/* c. One grant, remembered for the revoke before it is made. */
static bool
appcontainer_grant(struct appcontainer *ac, const char *path, DWORD rights,
    struct job_win_res *res)
{
	wchar_t *w = cordon_win_widen(path);
	DWORD e;

	if (w == NULL || ac->ngranted >= AC_MAX_GRANTS) {
		say(res, "--backend appcontainer: cannot grant '%s'", path);
		free(w);
		return false;
	}
	ac->granted[ac->ngranted++] = w;
	if ((e = appcontainer_ace(ac, w, GRANT_ACCESS, rights)) !=
	    ERROR_SUCCESS) {
		say(res, "--backend appcontainer: cannot grant the container "
		    "'%s' (error %lu)", path, e);
		return false;
	}
	return true;
}

/*
 * e. Every grant revoked, then the profile deleted.  A revoke that fails
 * is said in res->err (the ACE names a SID no process will have once the
 * profile is gone, but it is the invoker's to see).
 */
static void
appcontainer_undo(struct appcontainer *ac, struct job_win_res *res)
{
	size_t i;
	DWORD e;

	for (i = 0; i < ac->ngranted; i++) {
		if (ac->sid != NULL && (e = appcontainer_ace(ac, ac->granted[i],
		    REVOKE_ACCESS, 0)) != ERROR_SUCCESS &&
		    e != ERROR_FILE_NOT_FOUND && e != ERROR_PATH_NOT_FOUND)
			(void)snprintf(res->err + strlen(res->err),
			    sizeof(res->err) - strlen(res->err), "%sthe "
			    "container's grant on a --ro-bind source could not "
			    "be revoked (error %lu)", res->err[0] != '\0' ?
			    "; " : "", e);
		free(ac->granted[i]);
		ac->granted[i] = NULL;
	}
	ac->ngranted = 0;
	if (ac->profile)
		(void)ac->remove(ac->name);
	ac->profile = false;
	if (ac->sid != NULL)
		(void)FreeSid(ac->sid);
	ac->sid = NULL;
	if (ac->userenv != NULL)
		(void)FreeLibrary(ac->userenv);
	ac->userenv = NULL;
}

/*
 * d. The attribute list naming the container with no capability, for
 * CreateProcessW (EXTENDED_STARTUPINFO_PRESENT).
 */
static bool
appcontainer_attrs(const struct appcontainer *ac, SECURITY_CAPABILITIES *sc,
    STARTUPINFOEXW *si, struct job_win_res *res)
{
	SIZE_T n = 0;

	memset(sc, 0, sizeof(*sc));
	sc->AppContainerSid = ac->sid;
	sc->Capabilities = NULL;   /* none: no network, loopback included */
	sc->CapabilityCount = 0;
	(void)InitializeProcThreadAttributeList(NULL, 1, 0, &n);
	if ((si->lpAttributeList = malloc(n)) == NULL ||
	    !InitializeProcThreadAttributeList(si->lpAttributeList, 1, 0, &n)) {
		free(si->lpAttributeList);
		si->lpAttributeList = NULL;
		say(res, "--backend appcontainer: cannot build the attribute "
		    "list (error %lu)", GetLastError());
		return false;
	}
	if (!UpdateProcThreadAttribute(si->lpAttributeList, 0,
	    PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES, sc, sizeof(*sc), NULL,
	    NULL)) {
		say(res, "--backend appcontainer: cannot name the container "
		    "(error %lu)", GetLastError());
		return false;
	}
	return true;
}

/* --- the job -------------------------------------------------------------- */

static uint32_t
rb_flags(DWORD f)
{
	return ((f & JOB_OBJECT_LIMIT_JOB_TIME) ? JOB_RB_TIME : 0) |
	    ((f & JOB_OBJECT_LIMIT_JOB_MEMORY) ? JOB_RB_MEMORY : 0) |
	    ((f & JOB_OBJECT_LIMIT_ACTIVE_PROCESS) ? JOB_RB_ACTIVE : 0) |
	    ((f & JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE) ?
	    JOB_RB_KILL_ON_CLOSE : 0) |
	    ((f & JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION) ?
	    JOB_RB_DIE_ON_EXCEPTION : 0);
}

/* Sets the limits and the port; reads the limits back into res->run.rb. */
static bool
job_setup(HANDLE job, HANDLE port, const struct job_limits *l,
    struct job_win_res *res)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION x;
	JOBOBJECT_BASIC_LIMIT_INFORMATION *b = &x.BasicLimitInformation;
	JOBOBJECT_END_OF_JOB_TIME_INFORMATION eoj = {
	    JOB_OBJECT_POST_AT_END_OF_JOB };
	JOBOBJECT_ASSOCIATE_COMPLETION_PORT acp = { (PVOID)PORT_KEY, port };
	struct job_readback *rb = &res->run.rb;
	DWORD n = 0;

	memset(&x, 0, sizeof(x));
	b->LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
	    JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
	if (l->cpu_100ns != 0) {
		b->LimitFlags |= JOB_OBJECT_LIMIT_JOB_TIME;
		b->PerJobUserTimeLimit.QuadPart = (LONGLONG)l->cpu_100ns;
	}
	if (l->memory_bytes != 0) {
		b->LimitFlags |= JOB_OBJECT_LIMIT_JOB_MEMORY;
		x.JobMemoryLimit = (SIZE_T)l->memory_bytes;
	}
	if (l->active_processes != 0) {
		b->LimitFlags |= JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
		b->ActiveProcessLimit = l->active_processes;
	}
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation,
	    &x, sizeof(x))) {
		say(res, "cannot set the job's limits (error %lu)",
		    GetLastError());
		return false;
	}
	/*
	 * Refused by Wine (ERROR_INVALID_FUNCTION).  Without it Windows
	 * itself terminates a job at its time limit, and the accounting
	 * types the cap; so a refusal is recorded by the read-back, not
	 * fatal.
	 */
	(void)SetInformationJobObject(job, JobObjectEndOfJobTimeInformation,
	    &eoj, sizeof(eoj));
	if (!SetInformationJobObject(job,
	    JobObjectAssociateCompletionPortInformation, &acp, sizeof(acp))) {
		say(res, "cannot attach a completion port to the job (error "
		    "%lu)", GetLastError());
		return false;
	}

	memset(&x, 0, sizeof(x));
	rb->queried = QueryInformationJobObject(job,
	    JobObjectExtendedLimitInformation, &x, sizeof(x), &n) &&
	    n == sizeof(x);
	if (rb->queried) {
		rb->flags = rb_flags(b->LimitFlags);
		rb->cpu_100ns = b->PerJobUserTimeLimit.QuadPart < 0 ? 0 :
		    (uint64_t)b->PerJobUserTimeLimit.QuadPart;
		rb->memory_bytes = x.JobMemoryLimit;
		rb->active_processes = b->ActiveProcessLimit;
	}
	memset(&eoj, 0, sizeof(eoj));
	rb->post_at_end = QueryInformationJobObject(job,
	    JobObjectEndOfJobTimeInformation, &eoj, sizeof(eoj), &n) &&
	    eoj.EndOfJobTimeAction == JOB_OBJECT_POST_AT_END_OF_JOB;
	return true;
}

/* A completion-port message as a job.h event; 0 for one of no interest. */
static enum job_event
msg_event(DWORD msg)
{
	switch (msg) {
	case JOB_OBJECT_MSG_END_OF_JOB_TIME:
		return JOB_EV_END_OF_JOB_TIME;
	case JOB_OBJECT_MSG_JOB_MEMORY_LIMIT:
		return JOB_EV_JOB_MEMORY_LIMIT;
	case JOB_OBJECT_MSG_PROCESS_MEMORY_LIMIT:
		return JOB_EV_PROCESS_MEMORY_LIMIT;
	case JOB_OBJECT_MSG_ACTIVE_PROCESS_LIMIT:
		return JOB_EV_ACTIVE_PROCESS_LIMIT;
	case JOB_OBJECT_MSG_ACTIVE_PROCESS_ZERO:
		return JOB_EV_ACTIVE_PROCESS_ZERO;
	case JOB_OBJECT_MSG_NEW_PROCESS:
		return JOB_EV_NEW_PROCESS;
	case JOB_OBJECT_MSG_EXIT_PROCESS:
		return JOB_EV_EXIT_PROCESS;
	case JOB_OBJECT_MSG_ABNORMAL_EXIT_PROCESS:
		return JOB_EV_ABNORMAL_EXIT_PROCESS;
	default:
		return (enum job_event)0;
	}
}

/*
 * Takes every message waiting on the port.  True if one is a cap the job
 * applied: the run ends there and the tree is terminated, as a cap does
 * on every backend.
 */
static bool
drain(HANDLE port, struct job_win_res *res)
{
	DWORD msg = 0;
	ULONG_PTR key = 0;
	LPOVERLAPPED ov = NULL;
	bool cap = false;

	while (GetQueuedCompletionStatus(port, &msg, &key, &ov, 0)) {
		enum job_event e = msg_event(msg);
		enum cordon_cap_id c = e == JOB_EV_END_OF_JOB_TIME ?
		    CORDON_CAP_CPU : e == JOB_EV_JOB_MEMORY_LIMIT ?
		    CORDON_CAP_MEMORY : e == JOB_EV_ACTIVE_PROCESS_LIMIT ?
		    CORDON_CAP_NPROC : CORDON_CAP_NONE;

		/* Only this job posts to this port; the key says so. */
		if (key != PORT_KEY || e == 0)
			continue;
		job_events_add(&res->run.evs, e);
		if (c != CORDON_CAP_NONE &&
		    (res->run.ap.applied & (1U << c)) != 0)
			cap = true;
	}
	return cap;
}

/*
 * Until the payload exits, a cap message, the wall deadline, or the
 * caller's stop (the broker gone) says true.
 */
static void
follow(HANDLE proc, HANDLE port, const struct job_win_req *req,
    struct job_win_res *res)
{
	ULONGLONG start = GetTickCount64();
	uint64_t wall_ns = req->ask.wall_ns;
	ULONGLONG wall_ms = wall_ns / 1000000 + (wall_ns % 1000000 != 0);
	DWORD code = 0;

	for (;;) {
		ULONGLONG now = GetTickCount64(), left = STEP_MS;

		if (drain(port, res))
			return;
		if (req->stop != NULL && req->stop(req->stop_ctx)) {
			res->stopped = true;
			return;
		}
		if (wall_ns != 0) {
			if (now - start >= wall_ms) {
				job_events_add(&res->run.evs, JOB_EV_WALL);
				return;
			}
			left = wall_ms - (now - start);
		}
		if (WaitForSingleObject(proc, left < STEP_MS ? (DWORD)left :
		    STEP_MS) == WAIT_OBJECT_0)
			break;
	}
	(void)drain(port, res);
	/* Signalled, so it has exited: even a code of 259 (STILL_ACTIVE). */
	if (GetExitCodeProcess(proc, &code)) {
		res->run.end.exited = true;
		res->run.end.exit_code = code;
	}
}

static void
account(HANDLE job, struct job_win_res *res)
{
	JOBOBJECT_BASIC_AND_IO_ACCOUNTING_INFORMATION a;
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION x;
	DWORD n = 0;

	memset(&a, 0, sizeof(a));
	memset(&x, 0, sizeof(x));
	res->run.acct.queried = QueryInformationJobObject(job,
	    JobObjectBasicAndIoAccountingInformation, &a, sizeof(a), &n) &&
	    QueryInformationJobObject(job, JobObjectExtendedLimitInformation,
	    &x, sizeof(x), &n);
	if (!res->run.acct.queried)
		return;
	res->run.acct.user_100ns = (uint64_t)a.BasicInfo.TotalUserTime.QuadPart;
	res->run.acct.kernel_100ns =
	    (uint64_t)a.BasicInfo.TotalKernelTime.QuadPart;
	res->run.acct.total_processes = a.BasicInfo.TotalProcesses;
	res->run.acct.active_processes = a.BasicInfo.ActiveProcesses;
	res->run.acct.peak_job_memory = x.PeakJobMemoryUsed;
}

/* The status CreateProcessW's failure gives: 127 not found, 126 not run. */
static int
spawn_status(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
		return 127;
	case ERROR_ACCESS_DENIED:
	case ERROR_BAD_EXE_FORMAT:
	case ERROR_EXE_MACHINE_TYPE_MISMATCH:
		return 126;
	default:
		return 125;
	}
}

/* Full path of the workdir with the \\?\ prefix (no MAX_PATH limit). */
static wchar_t *
full_path(const char *p, struct job_win_res *res)
{
	wchar_t *w = cordon_win_widen(p), *full = NULL;
	DWORD n;

	if (w == NULL) {
		say(res, "the workdir is not valid UTF-8");
		return NULL;
	}
	n = GetFullPathNameW(w, 0, NULL, NULL);
	if (n != 0 && n < 32000 && (full = calloc((size_t)n + 4,
	    sizeof(*full))) != NULL) {
		wcscpy(full, L"\\\\?\\");
		if (GetFullPathNameW(w, n, full + 4, NULL) >= n) {
			free(full);
			full = NULL;
		}
	}
	if (full == NULL)
		say(res, "cannot resolve the workdir path '%s'", p);
	free(w);
	return full;
}

/* One run's handles and paths, from job_win_create to job_win_end. */
struct job_win {
	const struct job_win_req *req;
	wchar_t *dir, *cmd, *env;
	HANDLE job, port;
	PROCESS_INFORMATION pi;
	bool made;        /* the workdir is this run's: removed at the end */
	bool followed;    /* released and followed: the outcome is decided */
	struct appcontainer ac;  /* --backend appcontainer: undone at the end */
};

/*
 * 6 and 7 for every path: the job terminated and closed, the handles
 * closed, the workdir removed; the outcome decided if the run was
 * followed.  Frees w.
 */
void
job_win_end(struct job_win *w, struct job_win_res *res)
{
	if (w == NULL)
		return;
	if (w->job != NULL) {
		(void)TerminateJobObject(w->job, KILLED_CODE);
		(void)CloseHandle(w->job);
	}
	/* Also outside the job (a failed assignment: never resumed). */
	if (w->pi.hProcess != NULL)
		(void)TerminateProcess(w->pi.hProcess, KILLED_CODE);
	/* Bounded: a run never hangs on its own teardown. */
	if (w->pi.hProcess != NULL) {
		(void)WaitForSingleObject(w->pi.hProcess, REAP_MS);
		(void)CloseHandle(w->pi.hProcess);
	}
	if (w->pi.hThread != NULL)
		(void)CloseHandle(w->pi.hThread);
	if (w->port != NULL)
		(void)CloseHandle(w->port);
	if (w->made) {
		res->workdir_removed = cordon_win_rmtree(w->dir);
		/* The workdir's own grant went with it (not found: ignored). */
		if (!res->workdir_removed && w->followed)
			say(res, "the workdir could not be removed");
		else if (!res->workdir_removed)
			(void)snprintf(res->err + strlen(res->err),
			    sizeof(res->err) - strlen(res->err), "; and the "
			    "workdir could not be removed");
	}
	/* Every process of the container is gone: its grants and profile. */
	appcontainer_undo(&w->ac, res);
	if (w->followed)
		job_outcome_decide(&res->run.ap, &res->run.rb, &res->run.evs,
		    &res->run.acct, &res->run.end, &res->run.out);
	free(w->env);
	free(w->cmd);
	free(w->dir);
	free(w);
}

int
job_win_create(const struct job_win_req *req, struct job_win_res *res,
    struct job_win **out)
{
	struct job_limits lim;
	struct job_win *w;
	STARTUPINFOEXW si;
	SECURITY_CAPABILITIES sc;
	enum cordon_cap_id unmet = CORDON_CAP_NONE;
	size_t i;
	BOOL ok;

	*out = NULL;
	memset(res, 0, sizeof(*res));
	res->run.out.outcome = CORDON_OUTCOME_SANDBOX_ERROR;
	res->run.out.status = 125;
	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si.StartupInfo);

	/* 1. Refusals, before anything exists. */
	if (req->argv == NULL || req->argv[0] == NULL) {
		say(res, "no command to run");
		return -1;
	}
	if (job_limits_for(&req->ask, &lim) != 0) {
		say(res, "--nproc %llu does not fit a job's active process "
		    "limit (32 bits)", (unsigned long long)req->ask.nproc);
		return -1;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		say(res, "out of memory");
		return -1;
	}
	w->req = req;
	if (req->appcontainer && !appcontainer_resolve(&w->ac, res))
		goto fail;
	w->dir = full_path(req->workdir, res);
	w->cmd = w->dir == NULL ? NULL : command_line(req->argv, res);
	w->env = w->cmd == NULL ? NULL : env_block(req->envp, w->dir + 4,
	    res);
	if (w->env == NULL)
		goto fail;

	/* 2. The workdir. */
	if (!workdir_make(w->dir, res))
		goto fail;
	w->made = res->workdir_made = true;
	/* b, c: the container's profile, then its grants (the ACEs). */
	if (req->appcontainer) {
		if (!appcontainer_profile(&w->ac, req->run_id, res) ||
		    !appcontainer_grant(&w->ac, req->workdir, GENERIC_ALL, res))
			goto fail;
		for (i = 0; i < req->nro; i++)
			if (!appcontainer_grant(&w->ac, req->ro[i],
			    GENERIC_READ | GENERIC_EXECUTE, res))
				goto fail;
	}

	/* 3. The job, its limits read back, and what they decide. */
	w->job = CreateJobObjectW(NULL, NULL);
	w->port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);
	if (w->job == NULL || w->port == NULL) {
		say(res, "cannot create the job (error %lu)", GetLastError());
		goto fail;
	}
	if (!job_setup(w->job, w->port, &lim, res))
		goto fail;
	job_applied_decide(&req->ask, &res->run.rb, &res->run.ap);
	if (req->appcontainer)
		job_applied_appcontainer(&res->run.ap);
	unmet = job_require_unmet(&res->run.ap, req->require);
	if (unmet != CORDON_CAP_NONE) {
		say(res, "--require %s: not applied: %s",
		    cordon_cap_name(unmet), res->run.ap.why[unmet]);
		goto fail;
	}

	/* d: the container, named with no capability. */
	if (req->appcontainer && !appcontainer_attrs(&w->ac, &sc, &si, res))
		goto fail;
	/* 4. Suspended and assigned; resumed only by job_win_release. */
	ok = CreateProcessW(NULL, w->cmd, NULL, NULL, TRUE,
	    CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT |
	    (si.lpAttributeList != NULL ? EXTENDED_STARTUPINFO_PRESENT : 0),
	    w->env, w->dir + 4, &si.StartupInfo, &w->pi);
	if (si.lpAttributeList != NULL) {
		DeleteProcThreadAttributeList(si.lpAttributeList);
		free(si.lpAttributeList);
		si.lpAttributeList = NULL;
	}
	if (!ok) {
		DWORD e = GetLastError();

		res->run.out.status = spawn_status(e);
		say(res, "cannot run '%s': %s (error %lu)", req->argv[0],
		    res->run.out.status == 127 ? "not found" :
		    res->run.out.status == 126 ? "not executable" :
		    "CreateProcess failed", e);
		memset(&w->pi, 0, sizeof(w->pi));
		goto fail;
	}
	if (!AssignProcessToJobObject(w->job, w->pi.hProcess)) {
		say(res, "cannot put the payload in the job (error %lu); it "
		    "was never resumed", GetLastError());
		goto fail;
	}
	res->pid = w->pi.dwProcessId;
	*out = w;
	return 0;
fail:
	if (si.lpAttributeList != NULL) {
		DeleteProcThreadAttributeList(si.lpAttributeList);
		free(si.lpAttributeList);
	}
	job_win_end(w, res);
	return -1;
}

int
job_win_release(struct job_win *w, struct job_win_res *res)
{
	if (ResumeThread(w->pi.hThread) == (DWORD)-1) {
		say(res, "cannot resume the payload (error %lu)",
		    GetLastError());
		return -1;
	}
	res->run.end.started = true;
	return 0;
}

void
job_win_follow(struct job_win *w, struct job_win_res *res)
{
	/* 5. Follow; 6. account (job_win_end ends every process in it). */
	follow(w->pi.hProcess, w->port, w->req, res);
	account(w->job, res);
	w->followed = true;
}

int
job_win_probe(const struct job_ask *ask, bool appcontainer,
    struct job_win_res *res)
{
	struct appcontainer ac;
	struct job_limits lim;
	HANDLE job = NULL, port = NULL;
	bool ok = false;

	memset(res, 0, sizeof(*res));
	memset(&ac, 0, sizeof(ac));
	ok = !appcontainer || appcontainer_resolve(&ac, res);
	appcontainer_undo(&ac, res); /* nothing made: the library freed */
	if (!ok)
		return -1;
	if (job_limits_for(ask, &lim) != 0) {
		say(res, "the probe's limits do not fit a job");
		return -1;
	}
	job = CreateJobObjectW(NULL, NULL);
	port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);
	if (job == NULL || port == NULL)
		say(res, "cannot create a job (error %lu)", GetLastError());
	else if ((ok = job_setup(job, port, &lim, res))) {
		job_applied_decide(ask, &res->run.rb, &res->run.ap);
		if (appcontainer)
			job_applied_appcontainer(&res->run.ap);
	}
	/* Empty: closing it ends nothing. */
	if (job != NULL)
		(void)CloseHandle(job);
	if (port != NULL)
		(void)CloseHandle(port);
	return ok ? 0 : -1;
}

int
job_win_run(const struct job_win_req *req, struct job_win_res *res)
{
	struct job_win *w = NULL;
	int r = -1;

	if (job_win_create(req, res, &w) < 0)
		return -1;
	if (job_win_release(w, res) == 0) {
		job_win_follow(w, res);
		r = 0;
	}
	job_win_end(w, res);
	return r;
}
