/*
 * plat_posix.h - between plat_posix.c, what Linux and macOS share of the
 * platform layer (plat.h), and the file of each (plat_linux.c,
 * plat_macos.c): the hooks the shared code calls, and the shared
 * helpers the OS files use.  Not for any other file.
 */
#ifndef CORDON_BROKER_PLAT_POSIX_H
#define CORDON_BROKER_PLAT_POSIX_H

#include <pwd.h>
#include <spawn.h>
#include <stddef.h>
#include <sys/types.h>

/* passwd strings: getpwuid_r's buffer (sysconf's hint is often -1). */
#define PW_BUF_LEN 16384

/* --- each OS's file -------------------------------------------------------- */

/*
 * The channel's two ends, both close-on-exec: Linux SOCK_SEQPACKET;
 * macOS SOCK_STREAM (no SEQPACKET there) with SO_NOSIGPIPE.  -1 with
 * errno.
 */
int cordon_plat_chan_pair(int sv[2]);
/*
 * The helper is started with no fd of ours from `from` up: Linux a
 * closefrom file action, macOS POSIX_SPAWN_CLOEXEC_DEFAULT.  0 or an
 * errno value.
 */
int cordon_plat_spawn_closefrom(posix_spawn_file_actions_t *fa,
    posix_spawnattr_t *attr, int from);

/* --- plat_user.c, for both ------------------------------------------------ */

/* uid's passwd entry (getpwuid_r, thread-safe), its strings in buf. */
int cordon_plat_passwd(uid_t uid, struct passwd *pw, char *buf,
    size_t bufsz);
/* $name if it is an absolute path, else NULL. */
const char *cordon_plat_env_dir(const char *name);
/* $HOME if absolute, else the passwd entry's (its strings in pwbuf). */
const char *cordon_plat_home(struct passwd *pw, char *pwbuf,
    size_t pwbufsz);
/* dir + "/" + rest, allocated. */
int cordon_plat_join(char **out, const char *dir, const char *rest);

#endif
