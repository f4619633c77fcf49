/*
 * winutil.h - small Windows helpers shared by the broker's platform file
 * (broker/plat_win.c) and the Job Object helper (helper/job_win.c):
 * UTF-8 <-> UTF-16, a growing UTF-16 buffer, a directory private to the
 * invoker, the tree remover, and pipes as frame.h's transports.  Built
 * by mingw-w64 only.
 */
#ifndef CORDON_COMMON_WINUTIL_H
#define CORDON_COMMON_WINUTIL_H

#include <windows.h>

#include <stdbool.h>
#include <stddef.h>

/* UTF-8 to a new UTF-16 string, and back; NULL if invalid. */
wchar_t *cordon_win_widen(const char *s);
char *cordon_win_narrow(const wchar_t *w);

/* A growing UTF-16 string, always terminated; failed sticks. */
struct cordon_wbuf {
	wchar_t *p;
	size_t len, cap;
	bool failed;
};
void cordon_wbuf_add(struct cordon_wbuf *b, const wchar_t *s, size_t n);
void cordon_wbuf_str(struct cordon_wbuf *b, const wchar_t *s);

/* The invoker's user SID (the process token's TokenUser). */
struct cordon_win_sid {
	BYTE buf[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
};
#define CORDON_WIN_SID(s) (((TOKEN_USER *)(void *)(s)->buf)->User.Sid)
bool cordon_win_self_sid(struct cordon_win_sid *out);
/* errno for a Win32 error, for a caller's strerror (EIO for the rest). */
int cordon_win_errno(DWORD e);

/* Who owns a file or directory (cordon_win_owner). */
enum cordon_win_owner {
	CORDON_WIN_OWNER_SELF,     /* the invoker's own SID */
	CORDON_WIN_OWNER_ADMIN,    /* BUILTIN\Administrators or LocalSystem */
	CORDON_WIN_OWNER_OTHER,    /* anyone else: its SID in the text */
	CORDON_WIN_OWNER_UNKNOWN,  /* not readable (GetLastError() says) */
};
/*
 * The owner of the object h is open on (with READ_CONTROL), and its SID
 * as text ("S-1-5-21-...") into sid, sidsz wide chars, for a message.
 */
enum cordon_win_owner cordon_win_owner(HANDLE h, wchar_t *sid, size_t sidsz);

enum cordon_win_mkdir {
	CORDON_WIN_MKDIR_OK = 0,
	CORDON_WIN_MKDIR_SID,      /* the invoker's SID could not be read */
	CORDON_WIN_MKDIR_ACL,      /* its ACL could not be built */
	CORDON_WIN_MKDIR_CREATE,   /* CreateDirectoryW failed (or it exists) */
};
/*
 * A new directory whose protected DACL grants the invoker alone full
 * control, inherited by everything inside; GetLastError() says why not.
 */
enum cordon_win_mkdir cordon_win_mkdir_private(const wchar_t *path);
/*
 * The same for a file: created (it must not exist; ERROR_FILE_EXISTS
 * otherwise) empty, with a DACL granting the invoker alone; its handle,
 * open for writing, in *out unless out is NULL (then it is closed).
 */
enum cordon_win_mkdir cordon_win_create_private(const wchar_t *path,
    HANDLE *out);
/*
 * Removes path and everything below it: read-only, system and hidden
 * attributes cleared, reparse points removed as themselves and never
 * followed, the whole removal retried for about 5 s while a file is
 * still held open.  true once path no longer exists.
 */
bool cordon_win_rmtree(const wchar_t *path);

/*
 * A pipe handle (ctx) as common/frame.h's transports: the end of the
 * stream when the writer is gone (ERROR_BROKEN_PIPE), -CORDON_E_EOF on a
 * write the reader is gone for.
 */
int cordon_win_pipe_read(void *ctx, void *buf, size_t n);
int cordon_win_pipe_write(void *ctx, const void *buf, size_t n);

/*
 * The helper's "--channel IN,OUT" value (broker/plat_win.c): two decimal
 * handle values, each a pipe, different; false (both NULL) otherwise.
 */
bool cordon_win_channel_parse(const wchar_t *arg, HANDLE *in, HANDLE *out);

#endif
