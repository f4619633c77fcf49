/*
 * cli_plat.h - what the cordon command (cli.c) does differently on each
 * OS, one file per OS (Makefile.am's lists): cli_posix.c (Linux and
 * macOS; POSIX at-functions) and cli_win.c (Windows).  The library's own platform
 * layer is plat.h.
 */
#ifndef CORDON_BROKER_CLI_PLAT_H
#define CORDON_BROKER_CLI_PLAT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * --stdout / --stderr FILE for writing, never through a link: created
 * (*created true) or, if it exists, opened as it is (emptied only right
 * before the payload starts).  An fd, or -1 with errno set.
 */
int cordon_cli_open_output(const char *path, bool *created);

/*
 * The ':' of SRC:DEST (--copy-in, --copy-out, --ro-bind) in arg, or NULL:
 * the first one, past a drive's ("C:\src:dest") on Windows.
 */
char *cordon_cli_dest_sep(char *arg);

/* Whether path names the file fd is open on (--stderr as --stdout). */
bool cordon_cli_same_file(int fd, const char *path);

/*
 * --json-fd N (3 or above, the caller checked) must be open for writing;
 * it is made not inheritable, so the helper and payload never have it.
 * 0, or -1 with why ("is not open", ...) in why.
 */
int cordon_cli_json_fd(int fd, char *why, size_t whysz);

/* All of buf to fd, waiting out a non-blocking fd; -1 with errno. */
int cordon_cli_write_all(int fd, const char *buf, size_t len);

/*
 * --result FILE: its directory is fixed now, so the record lands in the
 * directory that was meant even if a path above it changes during the
 * run; FILE must be absent or a regular file (a link is refused, never
 * written through).  The record is written whole or not at all: a new
 * file beside FILE, private to the invoker, renamed over it.  Open: 0,
 * or -1 with why in why; write: 0, or -1 with errno.
 */
struct cordon_cli_result_file;
int cordon_cli_result_open(const char *path,
    struct cordon_cli_result_file **out, char *why, size_t whysz);
int cordon_cli_result_write(const struct cordon_cli_result_file *f,
    const char *rec, size_t len);
void cordon_cli_result_close(struct cordon_cli_result_file *f);

/* The canonical path (no "..", no links) of an existing path, allocated. */
char *cordon_cli_realpath(const char *path);

/*
 * For the run: a pipe whose read end becomes the run's cancel fd
 * (cancel[0]; cancel[1] is what handler writes a byte to), handler for
 * the signals that end cordon, and the process made unreachable to the
 * payload where the OS allows (plat.h, cordon_plat_guard_self).  0, or
 * -1 with errno.
 */
int cordon_cli_guard(int cancel[2], void (*handler)(int));

/* A reader gone from stdout or --json-fd is an error, not a kill. */
void cordon_cli_ignore_sigpipe(void);

#endif
