/*
 * ns.c - the linux-ns backend: user, mount, pid, net, ipc, uts and cgroup
 * namespaces, a private root, and a minimal init as pid 1.
 *
 * Processes (host view):
 *   helper  clone()s the init with every new namespace, writes its uid and
 *           gid maps, then lets it go on (sync pipe).
 *   init    pid 1 inside.  Takes the payload's ids, builds the private
 *           root, sets the hostname, brings loopback up, forks the
 *           payload, drops every capability of its own and waits,
 *           watching the process cap (wait_payload).  When the payload
 *           exits, or the cap is hit, it reports on the status pipe
 *           and exits, which makes the kernel kill everything left in the
 *           pid namespace: nothing of the run can outlive its init, and
 *           the init dies with the helper (PR_SET_PDEATHSIG).  It is not
 *           dumpable, and signals from inside cannot kill a pid 1 that
 *           installed no handler.
 *   payload forked by the init: its own session, no capabilities in any
 *           namespace (bounding, ambient, inheritable, permitted and
 *           effective sets all empty), PR_SET_NO_NEW_PRIVS, rlimits, the
 *           baseline seccomp filter; then it waits at the barrier
 *           (spawn.c) until the broker's GO, and execve.
 *
 * Why the mounts are safe: every mount is made with the fd-based mount
 * API.  The system directories are cloned with open_tree(AT_SYMLINK_
 * NOFOLLOW) from root-owned paths (a user cannot plant anything there);
 * the user-controlled workdir and its base are reopened in the new mount
 * namespace with O_NOFOLLOW and must be, by device and inode, the very
 * directories the helper created and holds open.  Mount points are created by us inside fresh tmpfs
 * instances nobody else can reach.  The old root is detached with
 * pivot_root(".", ".") + umount2(MNT_DETACH), so nothing of the host is
 * reachable but what was placed in the new root: the system directories
 * read-only, nosuid, nodev; /work (the workdir) read-write; a fresh /proc;
 * a minimal /dev; /tmp and /dev/shm, two directories of one private tmpfs
 * (sized to the memory or disk cap); and each --ro-bind source, cloned by the
 * init with the invoker's own access (open_tree, AT_SYMLINK_NOFOLLOW) and
 * made read-only, nosuid, nodev all the way down (AT_RECURSIVE) before it
 * is placed at its destination: mount points made by us, in the fresh
 * root tmpfs, at a destination that is clean and outside what the root
 * already holds (cordon_bind_dest_valid, checked by intake.c).
 *
 * Failures before the payload's execve are reported on the error socket as
 * (stage, errno), as on the floor (floor.c), so the helper can degrade to
 * the floor (auto) or fail closed (--backend linux-ns).
 *
 * Capabilities in setuid mode
 * ---------------------------
 * Without a user namespace the init's capabilities are the host's, so
 * here is every function that runs while it holds any, with what it uses
 * (helper.c's steps 4-6 say how they are gained and given up).  From the
 * clone until take_ids() the child holds root's full set; take_ids()
 * changes to the invoker's ids keeping the sets, and priv_init_caps(true)
 * leaves only SYS_ADMIN, NET_ADMIN and SETPCAP effective (no DAC override:
 * every path is opened with the invoker's own access).  Each function
 * below also says why it is safe, in its own comment.
 *   ns_start child   take_ids: SETUID, SETGID (the invoker's ids, groups)
 *   gather           SYS_ADMIN: mount(MS_REC | MS_PRIVATE) of the run's
 *                    own mount namespace, open_tree clones (clone_system,
 *                    workdir, --ro-bind sources), reopen_same of the base
 *   build_root       SYS_ADMIN: new_fs, move_mount, place, place_bind,
 *                    tmp_dir, build_dev, setattr, pivot_root, umount2
 *   strip_foreign_proc  SYS_ADMIN: umount2 of every other procfs
 *   close_all_but    none (fds only)
 *   sethostname      SYS_ADMIN, of the run's own uts namespace
 *   loopback_up      NET_ADMIN, of the run's own net namespace
 *   egress_listener  none (socket, bind above 1023, listen; one fd sent)
 *   unshare(CLONE_NEWUSER), write_maps  none (as any user may)
 *   nproc_is_per_ns  none (test forks, counted in the new user namespace)
 *   priv_init_caps(false)  lowers the effective set to SETPCAP alone
 *   payload          SETPCAP: drop_all_caps (priv.c) empties the bounding
 *                    set, then every set, verified, before the execve
 *   init, after the fork: every capability cleared and read back
 *                    (priv_clear_caps) before wait_payload.
 *   probe_child      (cordon probe) SYS_ADMIN: mount(MS_REC | MS_PRIVATE)
 *                    and new_fs (tmpfs, proc) in the probe's own mount
 *                    namespace, which the probe then leaves behind.
 */
#include "config.h"

#include <grp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/securebits.h>

#include <bsd/string.h>
#include <bsd/unistd.h>

#include "helper.h"

#define NS_FLAGS (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | \
	CLONE_NEWUTS | CLONE_NEWCGROUP)

#define NOBODY 65534

/* Host directories visible read-only inside, where they exist. */
static const char *const system_dirs[] = {
	"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt",
};

/* Device nodes bound from the host into the private /dev. */
static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty",
};

/* One thing to place in the new root, prepared before the root exists. */
struct entry {
	const char *name;
	int tree;            /* an open_tree() clone, or -1 */
	char link[256];      /* or a symlink target ("" if none) */
};

struct ns_ids {
	uid_t uid;
	gid_t gid;
	bool drop_groups;    /* root invoked us: no supplementary groups */
	bool setuid;         /* setuid mode: no user namespace (priv.c) */
};

static int write_maps(pid_t pid, const struct ns_ids *ids);

/*
 * Sets mount attributes on the mount fd refers to (and, if asked, below).
 * SYS_ADMIN; safe: fd is a mount of this run's own mount namespace, and
 * the attributes set only ever restrict (read-only, nosuid, nodev, noexec).
 */
static int
setattr(int fd, uint64_t set, bool recursive)
{
	struct mount_attr a;

	memset(&a, 0, sizeof(a));
	a.attr_set = set;
	return mount_setattr(fd, "", AT_EMPTY_PATH |
	    (recursive ? AT_RECURSIVE : 0), &a, sizeof(a));
}

/*
 * A fresh, detached instance of a pseudo file system.  SYS_ADMIN; safe: a
 * new tmpfs, proc or devpts instance reaches nothing of the host.
 */
static int
new_fs(const char *type, const char *const *opts, unsigned int attrs)
{
	int fs, mnt = -1, e;

	if ((fs = fsopen(type, FSOPEN_CLOEXEC)) < 0)
		return -1;
	for (; opts != NULL && opts[0] != NULL; opts += 2)
		if (fsconfig(fs, opts[1] != NULL ? FSCONFIG_SET_STRING :
		    FSCONFIG_SET_FLAG, opts[0], opts[1], 0) < 0)
			goto out;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
out:
	e = errno;
	close(fs);
	errno = e;
	return mnt;
}

/*
 * Places a detached mount at dirfd/name, creating the mount point.
 * SYS_ADMIN; safe: dirfd is in the fresh root tmpfs (or /dev's), which
 * nobody else can reach, and the name is created here, O_EXCL, no link.
 */
static int
place(int mnt, int dirfd, const char *name, bool is_file)
{
	int fd;

	if (is_file) {
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	} else if (mkdirat(dirfd, name, 0755) < 0) {
		return -1;
	}
	return move_mount(mnt, "", dirfd, name, MOVE_MOUNT_F_EMPTY_PATH);
}

/*
 * Clones the host's system directories (or recreates their symlinks).
 * SYS_ADMIN; safe: fixed root-owned paths, AT_SYMLINK_NOFOLLOW, made
 * read-only, nosuid, nodev all the way down before they are placed.
 */
static int
clone_system(struct entry *e, size_t n)
{
	char path[64];
	struct stat st;
	ssize_t len;
	size_t i;

	for (i = 0; i < n; i++) {
		e[i].name = system_dirs[i];
		e[i].tree = -1;
		e[i].link[0] = '\0';
		if (!fmt(path, sizeof(path), "/%s", system_dirs[i]))
			return -1;
		if (lstat(path, &st) < 0) {
			if (errno == ENOENT)
				continue;
			return -1;
		}
		if (S_ISLNK(st.st_mode)) {
			/* Merged /usr: /bin -> usr/bin.  Root's link, copied. */
			len = readlink(path, e[i].link, sizeof(e[i].link) - 1);
			if (len < 0)
				return -1;
			e[i].link[len] = '\0';
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		e[i].tree = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
		if (e[i].tree < 0 || setattr(e[i].tree, MOUNT_ATTR_RDONLY |
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true) < 0)
			return -1;
	}
	return 0;
}

/*
 * /dev: a small tmpfs with bound nodes, a private devpts, and shm.
 * SYS_ADMIN; safe: fixed host nodes only (null, zero, ...), nosuid and
 * noexec; devpts a new instance; /dev itself read-only at the end.
 */
static int
build_dev(int root, int shm, int errfd)
{
	static const char *const devfs_opts[] = { "mode", "0755", "size",
		"64k", NULL };
	static const char *const pts_opts[] = { "newinstance", NULL,
		"ptmxmode", "0666", "mode", "0620", NULL };
	static const char *const links[][2] = {
		{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
		{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
		{ "ptmx", "pts/ptmx" },
	};
	char path[32];
	size_t i;
	int dev, m;

	if ((dev = new_fs("tmpfs", devfs_opts, MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NOEXEC)) < 0 || place(dev, root, "dev", false) < 0)
		spawn_fail(errfd, SPAWN_DEV);
	for (i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
		if (!fmt(path, sizeof(path), "/dev/%s", dev_nodes[i]))
			spawn_fail(errfd, SPAWN_DEV);
		m = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
		if (m < 0 && errno == ENOENT)
			continue;
		if (m < 0 || setattr(m, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
		    false) < 0 || place(m, dev, dev_nodes[i], true) < 0)
			spawn_fail(errfd, SPAWN_DEV);
		close(m);
	}
	if ((m = new_fs("devpts", pts_opts, MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NOEXEC)) < 0 || place(m, dev, "pts", false) < 0)
		spawn_fail(errfd, SPAWN_DEVPTS);
	close(m);
	if (place(shm, dev, "shm", false) < 0)
		spawn_fail(errfd, SPAWN_DEV);
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlinkat(links[i][1], dev, links[i][0]) < 0)
			spawn_fail(errfd, SPAWN_DEV);
	/* Nothing new can be created in /dev itself (pts, shm stay writable). */
	if (setattr(dev, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NOEXEC, false) < 0)
		spawn_fail(errfd, SPAWN_DEV);
	return dev;
}

/*
 * Opens path as a directory and checks it is the one held open as fd.
 * Runs with SYS_ADMIN effective, but opens with the invoker's access (no
 * DAC override) and O_NOFOLLOW: a swapped path is refused (ESTALE).
 */
static int
reopen_same(const char *path, int fd)
{
	struct stat want, got;
	int nfd;

	if (fstat(fd, &want) < 0 ||
	    (nfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -1;
	if (fstat(nfd, &got) < 0 || got.st_dev != want.st_dev ||
	    got.st_ino != want.st_ino) {
		close(nfd);
		errno = ESTALE;
		return -1;
	}
	return nfd;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void
unescape(char *s)
{
	char *d = s;

	for (; *s != '\0'; d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
			    (s[3] - '0'));
			s += 4;
		} else {
			*d = *s++;
		}
	}
	*d = '\0';
}

/*
 * Setuid mode: no procfs in the new root but the sandbox's own.  Without
 * a user namespace between them, the payload shares the invoker's uid
 * and user namespace with the invoker's host processes, so the kernel's
 * ptrace checks let it follow /proc/PID/root, cwd, fd and map_files of
 * any host procfs back to the host's writable mounts, read-only bind or
 * not.  A host procfs can come in with a recursive clone (a build chroot
 * with its own /proc under /opt, or --ro-bind /:/host); every proc mount
 * but ours (by mount id) is detached here, after pivot_root, while the
 * init still holds CAP_SYS_ADMIN and before anything of the payload's
 * runs.  Detaching the mount point takes whatever lies on top there (and
 * below it) with it; the passes go on until mountinfo lists no foreign
 * proc, so one hidden under another mount at the same point goes too.
 * Paths are not followed (UMOUNT_NOFOLLOW), and nobody else can change
 * this mount namespace meanwhile.  SYS_ADMIN; safe: umount2 only, in the
 * run's own mount namespace, which can only take away.
 */
static int
strip_foreign_proc(void)
{
	char mp[4097], type[32], *line = NULL, *sep, *end;
	struct statx ours;
	size_t cap = 0;
	int pass, found = 1;
	long id;
	FILE *f;

	if (statx(AT_FDCWD, "/proc", AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
	    &ours) < 0 || (ours.stx_mask & STATX_MNT_ID) == 0)
		return -1;
	for (pass = 0; found && pass < 16; pass++) {
		if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
			return -1;
		found = 0;
		while (getline(&line, &cap, f) > 0) {
			/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ... - TYPE ... */
			id = strtol(line, &end, 10);
			if (end == line ||
			    sscanf(end, "%*s %*s %*s %4096s", mp) != 1 ||
			    (sep = strstr(line, " - ")) == NULL ||
			    sscanf(sep + 3, "%31s", type) != 1)
				continue;
			if (strcmp(type, "proc") != 0 ||
			    (uint64_t)id == ours.stx_mnt_id)
				continue;
			unescape(mp);
			found = 1;
			(void)umount2(mp, MNT_DETACH | UMOUNT_NOFOLLOW);
		}
		(void)fclose(f);
	}
	free(line);
	return found ? -1 : 0;
}

/* What build_root() prepares under the caller's ids, before the switch. */
struct sources {
	struct entry sys[sizeof(system_dirs) / sizeof(system_dirs[0])];
	int bind[CORDON_MAX_BINDS]; /* open_tree() clones of --ro-bind sources */
	int work;            /* open_tree() clone of the workdir */
	int base;            /* the workdir base, reopened in this namespace */
};

/*
 * Clones every source before anything is covered, and while the init
 * still has the helper's ids: root's 0700 workdir base is unreadable to
 * the nobody the payload will be.  SYS_ADMIN (open_tree); safe: system
 * directories as clone_system says, the workdir and base only once
 * reopen_same proved them the helper's own, --ro-bind sources with the
 * invoker's access and made read-only, nosuid, nodev.
 */
static void
gather(const struct workdir *wd, const struct request *req, struct sources *src,
    int errfd)
{
	uint32_t i;
	int wfd;

	/* Nothing we mount may propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		spawn_fail(errfd, SPAWN_MOUNT_PRIVATE);
	if (clone_system(src->sys, sizeof(src->sys) / sizeof(src->sys[0])) < 0)
		spawn_fail(errfd, SPAWN_SYSTEM_DIRS);
	/*
	 * The helper's fds name mounts of the old namespace, which mount
	 * calls refuse; reopen both here and check they are the very same
	 * directories (device and inode), so a path swapped in meanwhile is
	 * never what gets mounted.
	 */
	for (i = 0; i < req->bindc; i++) {
		src->bind[i] = open_tree(AT_FDCWD, req->binds[i].src,
		    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
		    AT_SYMLINK_NOFOLLOW);
		if (src->bind[i] < 0 || setattr(src->bind[i], MOUNT_ATTR_RDONLY |
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true) < 0)
			spawn_fail(errfd, SPAWN_BIND);
	}
	if ((wfd = reopen_same(wd->path, wd->fd)) < 0)
		spawn_fail(errfd, SPAWN_WORKDIR);
	if ((src->base = reopen_same(req->workdir_base, wd->base_fd)) < 0)
		spawn_fail(errfd, SPAWN_ROOT);
	src->work = open_tree(wfd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_EMPTY_PATH);
	if (src->work < 0 || setattr(src->work, MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV, false) < 0)
		spawn_fail(errfd, SPAWN_WORKDIR);
	close(wfd);
}

/*
 * Places a --ro-bind clone at dest, making its mount point in the root.
 * SYS_ADMIN; safe: every directory on the way is made here, in the fresh
 * root tmpfs, opened O_NOFOLLOW; dest passed cordon_bind_dest_valid.
 */
static int
place_bind(int root, int tree, const char *dest)
{
	char path[CORDON_MAX_PATH_LEN + 1], *c, *slash;
	struct stat st;
	int dir = root, next, r;

	if (fstat(tree, &st) < 0 || !fmt(path, sizeof(path), "%s", dest + 1))
		return -1;
	/* Intermediate directories: ours, in the fresh tmpfs; no links. */
	for (c = path; (slash = strchr(c, '/')) != NULL; c = slash + 1) {
		*slash = '\0';
		if ((mkdirat(dir, c, 0755) < 0 && errno != EEXIST) ||
		    (next = openat(dir, c, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0) {
			r = -1;
			goto out;
		}
		if (dir != root)
			close(dir);
		dir = next;
	}
	r = place(tree, dir, c, !S_ISDIR(st.st_mode));
out:
	if (dir != root)
		close(dir);
	return r;
}

/*
 * A directory name of the tmpfs at dir, mode 1777 (whatever our umask),
 * as a detached bind mount of its own.  SYS_ADMIN (open_tree); safe: dir
 * is the run's private tmpfs, just made.
 */
static int
tmp_dir(int dir, const char *name)
{
	if (mkdirat(dir, name, 0700) < 0 || fchmodat(dir, name, 01777, 0) < 0)
		return -1;
	return open_tree(dir, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
}

/*
 * Builds the private root from the gathered sources and moves into it.
 * Runs in the init, which holds every capability of the new user
 * namespace and nothing outside, under the payload's ids (so what it
 * creates in the new tmpfs instances has owners mapped in here).  In
 * setuid mode SYS_ADMIN; safe: every mount is made in the run's own
 * mount namespace, from the sources gather() checked, and the old root
 * is detached whole (pivot_root, umount2 MNT_DETACH).
 */
static void
build_root(const struct request *req, struct sources *src, bool setuid_mode,
    int errfd)
{
	static const char *const root_opts[] = { "mode", "0755", "size",
		"64k", NULL };
	char tmpsize[32];
	const char *tmp_opts[] = { "mode", "1777", "size", tmpsize, NULL };
	size_t i, nsys = sizeof(src->sys) / sizeof(src->sys[0]);
	uint64_t tmpbytes = req->limits.memory_bytes;
	int root, m, dev, t, tmp = -1, shm = -1;

	/*
	 * The new root is a tmpfs attached over the workdir base - in this
	 * mount namespace only, and gone with pivot_root - because a move
	 * into a detached tree is not possible on every kernel.
	 */
	if ((root = new_fs("tmpfs", root_opts, MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV)) < 0 ||
	    move_mount(root, "", src->base, "", MOVE_MOUNT_F_EMPTY_PATH |
	    MOVE_MOUNT_T_EMPTY_PATH) < 0)
		spawn_fail(errfd, SPAWN_ROOT);
	close(src->base);
	for (i = 0; i < nsys; i++) {
		if (src->sys[i].link[0] != '\0') {
			if (symlinkat(src->sys[i].link, root, src->sys[i].name) < 0)
				spawn_fail(errfd, SPAWN_SYSTEM_DIRS);
		} else if (src->sys[i].tree >= 0) {
			if (place(src->sys[i].tree, root, src->sys[i].name,
			    false) < 0)
				spawn_fail(errfd, SPAWN_SYSTEM_DIRS);
			close(src->sys[i].tree);
		}
	}
	for (i = 0; i < req->bindc; i++) {
		if (place_bind(root, src->bind[i], req->binds[i].dest) < 0)
			spawn_fail(errfd, SPAWN_BIND);
		close(src->bind[i]);
	}
	if (place(src->work, root, "work", false) < 0)
		spawn_fail(errfd, SPAWN_WORKDIR);
	close(src->work);
	/* proc of the new pid namespace: only the sandbox's processes. */
	if ((m = new_fs("proc", NULL, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	    MOUNT_ATTR_NOEXEC)) < 0 || place(m, root, "proc", false) < 0)
		spawn_fail(errfd, SPAWN_PROC);
	close(m);
	/*
	 * /tmp and /dev/shm: one private tmpfs, bounded by the memory (and
	 * disk) cap, so the two together hold no more than the cap, and the
	 * monitor counts what they hold as the run's memory (tree.c).  It
	 * gets two directories, each bound where it belongs; the bind at
	 * /tmp covers the tmpfs's own root, and with it the other directory.
	 */
	if (req->limits.disk_bytes != 0 && req->limits.disk_bytes < tmpbytes)
		tmpbytes = req->limits.disk_bytes;
	if (!fmt(tmpsize, sizeof(tmpsize), "%llu", (unsigned long long)tmpbytes))
		spawn_fail(errfd, SPAWN_TMP);
	if ((m = new_fs("tmpfs", tmp_opts, MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV)) < 0 || place(m, root, "tmp", false) < 0 ||
	    (t = openat(root, "tmp", O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || (shm = tmp_dir(t, "shm")) < 0 ||
	    (tmp = tmp_dir(t, "tmp")) < 0 || move_mount(tmp, "", root, "tmp",
	    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		spawn_fail(errfd, SPAWN_TMP);
	close(tmp);
	close(t);
	close(m);
	dev = build_dev(root, shm, errfd);
	close(shm);
	close(dev);
	/* "/" itself read-only; /work, /tmp, /dev/shm are their own mounts. */
	if (setattr(root, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV, false) < 0)
		spawn_fail(errfd, SPAWN_ROOT);

	/* Enter it and detach the old root entirely. */
	if (fchdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/work") < 0)
		spawn_fail(errfd, SPAWN_PIVOT);
	close(root);
	if (setuid_mode && strip_foreign_proc() < 0)
		spawn_fail(errfd, SPAWN_PROC);
}

/* Closes every fd above 2 except a and b.  No capability used. */
static void
close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 3)
		(void)close_range(3, (unsigned)lo - 1, 0);
	if (hi > lo + 1)
		(void)close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	(void)close_range((unsigned)hi + 1, ~0U, 0);
}

/*
 * Loopback up, so servers on 127.0.0.1 inside work.  NET_ADMIN; safe:
 * called only without --network, in the run's own new net namespace,
 * whose only interface is lo.
 */
static int
loopback_up(void)
{
	struct ifreq ifr;
	int s, r = -1;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	strlcpy(ifr.ifr_name, "lo", sizeof(ifr.ifr_name));
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		r = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return r;
}

/*
 * Whether RLIMIT_NPROC counts per user namespace (kernel >= 5.14): with a
 * soft limit of 2 in a fresh namespace (the init is 1), a child may fork
 * once more but not twice.  On an older kernel the count is the user's
 * across the host, and already the first fork fails.  Uses no capability
 * (in setuid mode it runs in the invoker's new user namespace, or not at
 * all); its children only fork and exit.
 */
static bool
nproc_is_per_ns(void)
{
	struct rlimit old, two;
	pid_t a;
	int st = 0;

	if (getrlimit(RLIMIT_NPROC, &old) < 0 ||
	    (old.rlim_max != RLIM_INFINITY && old.rlim_max < 2))
		return false;
	two.rlim_cur = 2;
	two.rlim_max = old.rlim_max;
	if (setrlimit(RLIMIT_NPROC, &two) < 0)
		return false;
	a = fork();
	if (a == 0) {
		pid_t b = fork();

		if (b == 0)
			_exit(0);
		if (b > 0)
			(void)waitpid(b, NULL, 0);
		_exit(b < 0 && errno == EAGAIN ? 0 : 1);
	}
	(void)setrlimit(RLIMIT_NPROC, &old);
	if (a < 0 || waitpid(a, &st, 0) != a)
		return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * The payload's RLIMIT_NPROC with --nproc N, counted in its own user
 * namespace, where the init is one task.  The init tests for the tree
 * past N (NPROC_PAST: the init and N + 1 tasks); the kernel refuses a
 * fork only NPROC_SLACK tasks above that.  The slack keeps the
 * evidence: a refused bomb's count decays before the next test, as
 * living shells reap their own children (measured: of 120 shell fork
 * bombs with --nproc 64, 6 fell from the kernel's ceiling of N + 4 to
 * below N + 2 within the 6 ms before the next test, after 35 refused
 * forks each, and ended at the wall cap).  Within it go the init's own
 * test child, and the one reap reap_orphans makes between two tests.
 * The slack does not loosen the cap: a tree past N is a cap hit, and
 * killed, as soon as a test sees it; it only bounds how far a tree the
 * init has not tested yet can grow before the kernel stops it.
 */
#define NPROC_PAST(n) ((rlim_t)(n) + 2)
#define NPROC_SLACK(n) ((rlim_t)(n) / 4 + 16)
#define NPROC_LIMIT(n) (NPROC_PAST(n) + NPROC_SLACK(n))

/*
 * Whether the namespace holds at least `past' tasks: a fork refused at
 * RLIMIT_NPROC = past and allowed at `above', one above the payload's
 * own limit (which the tree may fill: NPROC_LIMIT), so it was the
 * namespace's count that refused it, not the host (threads-max, pid_max,
 * a systemd TasksMax), whose EAGAIN looks the same.  Each test child
 * exits at once and is reaped before the next test.  The init's own soft limit is ours to
 * move (the payload set its own, hard); it forks nothing else.
 */
static bool
ns_full(rlim_t past, rlim_t above)
{
	struct rlimit rl;
	rlim_t i;
	pid_t p;

	if (getrlimit(RLIMIT_NPROC, &rl) < 0)
		return false;
	for (i = 0; i < 2; i++) {
		rl.rlim_cur = i == 0 ? past : above;
		if (setrlimit(RLIMIT_NPROC, &rl) < 0)
			return false; /* no room above: cannot tell, so not full */
		if ((p = fork()) == 0)
			_exit(0);
		/* Refused for another reason, or above the limit as well. */
		if (p < 0 && (i == 1 || errno != EAGAIN))
			return false;
		if (p > 0) {
			(void)waitpid(p, NULL, 0);
			if (i == 0)
				return false; /* room below past: within the cap */
		}
	}
	return true;
}

/* The payload, forked by the init: drop everything, then execve. */
static void NORETURN
payload(const struct request *req, const struct ns_ids *ids, int errfd,
    bool nproc_ns)
{
	struct rlimit rl;

	spawn_child_prepare(errfd);
	closefrom(4);

	if (spawn_rlimits(req) < 0)
		spawn_fail(3, SPAWN_RLIMIT);
	/*
	 * In a fresh user namespace RLIMIT_NPROC counts this namespace's
	 * tasks: the kernel holds the tree at NPROC_LIMIT, NPROC_SLACK
	 * above what the init tests for, and a tree past nproc shows so to
	 * the init (init()).
	 */
	if (req->limits.nproc != 0 && nproc_ns) {
		rl.rlim_cur = rl.rlim_max = NPROC_LIMIT(req->limits.nproc);
		if (setrlimit(RLIMIT_NPROC, &rl) < 0)
			spawn_fail(3, SPAWN_RLIMIT);
	}
	/* ... and neither the caps nor another id can come back. */
	if (drop_all_caps() < 0 || priv_verify(ids->uid, ids->gid) < 0)
		spawn_fail(3, SPAWN_CAPS);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		spawn_fail(3, SPAWN_NNP);
	if (seccomp_baseline(false) < 0)
		spawn_fail(3, SPAWN_SECCOMP);
	/* Everything is set up: held here until the broker's GO (spawn.c). */
	spawn_barrier(3);
	environ = req->envp;
	execvp(req->argv[0], req->argv);
	spawn_fail(3, SPAWN_EXEC);
}

/*
 * Becomes the payload's ids, keeping this namespace's capabilities.  In
 * setuid mode (called right after the clone, with root's full set):
 * SETUID, SETGID; safe: the ids and groups are the invoker's own.
 */
static int
take_ids(const struct ns_ids *ids)
{
	if (prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP) < 0 ||
	    (ids->drop_groups && setgroups(0, NULL) < 0) ||
	    (ids->setuid && priv_setgroups() < 0) ||
	    setresgid(ids->gid, ids->gid, ids->gid) < 0 ||
	    setresuid(ids->uid, ids->uid, ids->uid) < 0)
		return -1;
	return 0;
}

/* How often an init that watches the cap tests and reaps orphans. */
#define ORPHAN_TICK_NS (100 * 1000000ULL)
/*
 * ... and how soon after the last test once an orphan has exited: on a
 * 6.18 kernel a shell fork bomb reached its ceiling and died out within
 * one 100 ms tick, so no test saw it past the cap.  Testing every 5 ms
 * always cost the init 4.5 % of a core for a quiet payload (one fork per
 * test); only orphans' exits bring the test forward, which a build whose
 * processes reap their own children does not cause.
 */
#define ORPHAN_BUSY_NS (5 * 1000000ULL)

/* Whether the payload has ended, leaving it unreaped (it still counts). */
static bool
payload_ended(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT |
	    __WALL) == 0 && si.si_pid == pid;
}

/*
 * Reaps every ended child but the payload, which stays for the next
 * test: reaped here, its end would go untested (a bomb that stopped at
 * its refused fork just after a test found room).  waitid() names the
 * first ended child; once that is the payload, the rest wait for the
 * test after its end, and then for the namespace's teardown.
 *
 * Each reap is preceded by a test (ns_full): a reap frees a slot the
 * bomb may take at once, and one that filled the namespace, was
 * refused and died while this loop reaped its orphans one by one left
 * no trace by the loop's end (1 shell fork bomb in 40 ended at the wall
 * cap, on a quiet 6.18 machine).  Between a test and the next one, only
 * one reap, within NPROC_SLACK.  True when a test found the namespace
 * full.  The cost: one test fork per orphan; none for a build whose
 * processes reap their own children.
 */
static bool
reap_orphans(pid_t pid, rlim_t past, rlim_t above)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT |
		    __WALL) < 0 && errno == EINTR)
			continue;
		if (si.si_pid == 0 || si.si_pid == pid)
			return false;
		if (ns_full(past, above))
			return true;
		(void)waitpid(si.si_pid, NULL, __WALL);
	}
}

/*
 * Waits for the payload: its wait status, or SPAWN_NPROC_FULL.
 *
 * With nproc != 0 (RLIMIT_NPROC counts this namespace's tasks, and no
 * cgroup counts them for us) the init is what sees the tree go past the
 * cap.  The kernel keeps no count of refused forks, and a fork bomb's
 * processes live for microseconds, so a sample rarely finds the tree
 * past the cap.  But a task counts until it is reaped, and a bomb's are
 * orphans, which only we reap: so orphans are reaped every
 * ORPHAN_TICK_NS (ORPHAN_BUSY_NS once one has exited), after testing
 * whether the namespace is full.  A tree
 * that went past the cap since the last tick is still past it, unless
 * its own processes reaped what they forked; the payload's end is
 * tested at once, and the payload is reaped only after a test that
 * began after its end, so a payload that stops at its first refused
 * fork is caught too, whenever a tick fell.  The cost: an orphan's
 * zombie counts (as the kernel counts it) until the next tick.
 */
static int
wait_payload(pid_t pid, uint64_t nproc)
{
	rlim_t past = nproc != 0 ? NPROC_PAST(nproc) : 0;
	rlim_t above = NPROC_LIMIT(nproc) + 1;
	uint64_t last = now_ns(), next = last + ORPHAN_TICK_NS, t;
	struct timespec ts;
	sigset_t chld;
	int status = 0;
	bool ended;
	pid_t p;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while (past != 0) {
		t = now_ns();
		t = next > t ? next - t : 0;
		ts.tv_sec = (time_t)(t / CORDON_NS_PER_SEC);
		ts.tv_nsec = (long)(t % CORDON_NS_PER_SEC);
		/* It is blocked; an exit brings the test forward. */
		if (sigtimedwait(&chld, NULL, &ts) == SIGCHLD &&
		    next > last + ORPHAN_BUSY_NS)
			next = last + ORPHAN_BUSY_NS;
		/* Read before the test: an end seen here is an end it covers. */
		ended = payload_ended(pid);
		if (!ended && now_ns() < next)
			continue; /* an orphan: it waits for the tick */
		if (ns_full(past, above))
			return SPAWN_NPROC_FULL;
		/* The test's own children's SIGCHLD: not an orphan's. */
		while (sigtimedwait(&chld, NULL, &(struct timespec){ 0, 0 }) ==
		    SIGCHLD)
			;
		if (ended)
			break; /* tested after its end: now it may go */
		if (reap_orphans(pid, past, above))
			return SPAWN_NPROC_FULL;
		last = now_ns();
		next = last + ORPHAN_TICK_NS;
	}
	for (;;) {
		p = past != 0 ? waitpid(pid, &status, __WALL) :
		    waitpid(-1, &status, __WALL);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			_exit(126);
		if (p == pid)
			return status;
	}
}

/*
 * The egress bridge (CORDON_REQ_EGRESS): a TCP listener on
 * 127.0.0.1:CORDON_EGRESS_PORT made here, in the run's own new net
 * namespace, and sent to the helper on the sync socket (SCM_RIGHTS); the
 * helper passes it on to the broker, whose unprivileged proxy accepts
 * on it.  Uses no capability (the port is above 1023; socket, bind and
 * listen as any user).  Why it is safe: the socket belongs to the
 * sandbox's namespace, whose only interface is lo, so its holder can
 * only accept connections the payload makes, and the payload can only
 * send bytes to the broker's proxy - which parses them unprivileged, and
 * connects out with the invoker's rights.  The helper forwards the fd
 * and parses nothing.  No SO_REUSEPORT: nothing inside can bind the port
 * beside it and take its connections.  The init keeps no copy, so the
 * payload never inherits one.
 */
static int
egress_listener(int syncfd)
{
	struct sockaddr_in a;
	int s, r = -1;

	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(CORDON_EGRESS_PORT);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    listen(s, SOMAXCONN) == 0 &&
	    cordon_send_with_fd(syncfd, "l", 1, s) == 0)
		r = 0;
	close(s);
	close(syncfd);
	return r;
}

/*
 * pid 1: set up, fork the payload, wait, report, exit.  Signals stay
 * blocked as the helper left them; it needs none.
 */
static void NORETURN
init(const struct request *req, const struct workdir *wd,
    const struct ns_ids *ids, int errfd, int statusfd, int syncfd)
{
	bool network = (req->flags & CORDON_REQ_NETWORK) != 0;
	bool nproc_ns = false, userns = false, watch;
	struct sources src;
	pid_t pid;
	int status;

	gather(wd, req, &src, errfd);
	/* A change of euid clears the parent-death signal: set it again. */
	if ((!ids->setuid && take_ids(ids) < 0) ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		spawn_fail(errfd, SPAWN_IDS);
	build_root(req, &src, ids->setuid, errfd);
	if (!network && loopback_up() < 0)
		spawn_fail(errfd, SPAWN_LOOPBACK);
	if (syncfd >= 0 && egress_listener(syncfd) < 0)
		spawn_fail(errfd, SPAWN_EGRESS);
	/* Nothing of the helper's (socket, workdir fds) stays in here. */
	close_all_but(errfd, statusfd);
	if (sethostname("cordon", 6) < 0)
		spawn_fail(errfd, SPAWN_HOSTNAME);
	/*
	 * Setuid mode, once the root is built: a user namespace of the
	 * invoker's own (mapping only their uid and gid) between the payload
	 * and the host, where the host lets root make one.  The kernel's
	 * ptrace checks then refuse the payload every host process's /proc
	 * links, whatever procfs it could reach (defence in depth over
	 * strip_foreign_proc), and RLIMIT_NPROC counts this namespace's
	 * processes, as without setuid.  Made here, the namespace owns no
	 * mount, net or uts namespace: we lose nothing over them.  Where it
	 * cannot be made (user.max_user_namespaces = 0, a filter) the run
	 * goes on as before.  The maps are written by ourselves, as an
	 * unprivileged user does, so only for these moments are we dumpable:
	 * no payload exists yet, and we hold no privilege over the host now.
	 */
	if (ids->setuid && unshare(CLONE_NEWUSER) == 0) {
		if (prctl(PR_SET_DUMPABLE, 1) < 0 || write_maps(getpid(), ids) < 0 ||
		    prctl(PR_SET_DUMPABLE, 0) < 0)
			spawn_fail(errfd, SPAWN_IDS);
		userns = true;
	}
	/* Without a user namespace the limit would count the user's host-wide. */
	if (req->limits.nproc != 0 && (!ids->setuid || userns))
		nproc_ns = nproc_is_per_ns();
	/*
	 * Nothing in effect that would exempt the payload's fork from the
	 * invoker's RLIMIT_NPROC (SYS_ADMIN): only SETPCAP, which the payload
	 * needs to empty its bounding set.
	 */
	if (ids->setuid && priv_init_caps(false) < 0)
		spawn_fail(errfd, SPAWN_CAPS);
	/*
	 * We watch the cap where the kernel counts per namespace, unless
	 * the run's cgroup does it (our test forks would be refused there,
	 * counted as the payload's).
	 */
	watch = nproc_ns && cgroup_events_fd() < 0;

	pid = fork();
	if (pid < 0)
		spawn_fail(errfd, SPAWN_FORK);
	if (pid == 0)
		payload(req, ids, errfd, nproc_ns);
	close(errfd);
	/*
	 * pid 1 needs no privilege to wait (and never execs: no bounding
	 * set).  Read back: should the clear not hold, the payload is killed
	 * rather than run beside an init with capabilities.
	 */
	if (!priv_clear_caps()) {
		(void)kill(pid, SIGKILL);
		_exit(126);
	}
	/*
	 * The setup report (whether we watch the cap), only now: the helper
	 * reads it before it says CREATED, and the broker's GO, which lets
	 * the held payload exec, comes only after that - so the payload never
	 * runs a single instruction of its own beside an init that still
	 * holds a capability.  No report (we died above) fails the run.
	 */
	if (write(statusfd, &(int){ watch }, sizeof(int)) != sizeof(int)) {
		(void)kill(pid, SIGKILL);
		_exit(126);
	}
	status = wait_payload(pid, watch ? req->limits.nproc : 0);
	(void)!write(statusfd, &status, sizeof(status));
	_exit(0);
}

/* True in the host's own user namespace, where uid 0 is real root. */
static bool
in_initial_userns(void)
{
	char buf[128];
	ssize_t n;
	int fd;

	if ((fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC)) < 0)
		return true; /* no user namespaces at all */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* The initial namespace maps everything: "0 0 4294967295". */
	return strstr(buf, " 0 ") != NULL && strstr(buf, "4294967295") != NULL &&
	    strtoul(buf, NULL, 10) == 0;
}

static int
write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	ssize_t n, len = (ssize_t)strlen(text);
	int fd;

	if (!fmt(path, sizeof(path), "/proc/%d/%s", pid, name) ||
	    (fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	n = write(fd, text, (size_t)len);
	close(fd);
	return n == len ? 0 : -1;
}

/* Maps exactly one uid and one gid: the payload's, to the same ids outside. */
static int
write_maps(pid_t pid, const struct ns_ids *ids)
{
	char map[64];

	/* Unprivileged: setgroups must be denied before a gid map. */
	if (!ids->drop_groups && write_file(pid, "setgroups", "deny") < 0)
		return -1;
	if (!fmt(map, sizeof(map), "%u %u 1\n", (unsigned)ids->uid,
	    (unsigned)ids->uid) || write_file(pid, "uid_map", map) < 0)
		return -1;
	if (!fmt(map, sizeof(map), "%u %u 1\n", (unsigned)ids->gid,
	    (unsigned)ids->gid) || write_file(pid, "gid_map", map) < 0)
		return -1;
	return 0;
}

/* Closes what is still open of two pipes. */
static void
close_pipes(int a[2], int b[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		if (a[i] >= 0)
			close(a[i]);
		if (b[i] >= 0)
			close(b[i]);
	}
}

/* The payload's ids inside: the invoker's, or nobody for real root. */
static void
choose_ids(struct ns_ids *ids)
{
	/*
	 * Root invoking cordon does not make the payload root: nobody.  (Uid
	 * 0 in a user namespace of someone else's is not root, and there
	 * nobody may not even be mapped: then the ids stay as they are.)
	 */
	ids->uid = getuid();
	ids->gid = getgid();
	ids->drop_groups = ids->uid == 0 && in_initial_userns();
	ids->setuid = priv_setuid();
	if (ids->drop_groups) {
		ids->uid = NOBODY;
		ids->gid = NOBODY;
	}
}

/* What the namespace child gets; the helper keeps the pipes' read ends. */
struct init_args {
	const struct request *req;
	const struct workdir *wd;
	const struct ns_ids *ids;
	int ep[2], stp[2];   /* error and status pipes ({ -1, -1 } at first) */
	bool keep_sync;      /* egress: the sync socket stays open past "g" */
	int sync[2];         /* then: [0] the child's end, [1] the helper's */
};

/*
 * Clones a child into new namespaces (flags), gives it its one-id maps,
 * and lets it run fn(a), which never returns; the pipes of a are made
 * here and their write ends left to the child.  The child waits on a
 * socketpair: it says "r" once it is dumpable (an unprivileged helper can
 * only write the maps of a dumpable child), the helper writes the maps
 * and answers "g", and the child makes itself undumpable again before
 * anything but our code runs in it.  It dies with the helper.
 */
static pid_t
ns_start(int flags, void (*fn)(struct init_args *), struct init_args *a,
    char *err, size_t errsz)
{
	const struct ns_ids *ids = a->ids;
	int sync[2], r = 0;
	pid_t pid;
	char c;

	/* The error "pipe" is a socket: the payload's barrier answers on it. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, a->ep) < 0 ||
	    pipe2(a->stp, O_CLOEXEC) < 0)
		return ERR("pipe: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sync) < 0)
		return ERR("socketpair: %s", strerror(errno));
	/*
	 * A raw clone (into the run's cgroup where there is one): fork
	 * semantics, with every namespace new.  In setuid mode no user
	 * namespace (root makes the others), and the only moment the helper
	 * itself holds privilege.
	 */
	if (ids->setuid)
		flags &= ~CLONE_NEWUSER;
	priv_raise();
	pid = cgroup_clone((unsigned long long)flags);
	if (pid != 0) {
		int saved = errno;

		priv_drop();
		errno = saved;
	}
	if (pid < 0) {
		(void)fmt(err, errsz, "user namespaces unavailable: %s from "
		    "clone", strerrorname_np(errno) != NULL ?
		    strerrorname_np(errno) : strerror(errno));
		close(sync[0]);
		close(sync[1]);
		return -1;
	}
	if (pid == 0) {
		close(sync[1]);
		/*
		 * Setuid mode: the invoker's ids now (keeping the caps the
		 * init needs), the death signal re-armed after the change,
		 * and the helper's "g" below proves it was still alive then.
		 * Only a child waiting for its maps is ever dumpable.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || (ids->setuid &&
		    (take_ids(ids) < 0 || priv_init_caps(true) < 0 ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)) ||
		    prctl(PR_SET_DUMPABLE, !ids->setuid) < 0 ||
		    write(sync[0], "r", 1) != 1 ||
		    read(sync[0], &c, 1) != 1 || prctl(PR_SET_DUMPABLE, 0) < 0)
			_exit(126); /* the helper died or gave up */
		if (a->keep_sync)
			a->sync[0] = sync[0];
		else
			close(sync[0]);
		fn(a);
		_exit(126);
	}
	close(sync[0]);
	if (read(sync[1], &c, 1) != 1)
		r = ERR("the namespace child did not start");
	else if (!ids->setuid && write_maps(pid, ids) < 0)
		r = ERR("cannot write the uid/gid maps: %s", strerror(errno));
	else if (write(sync[1], "g", 1) != 1)
		r = ERR("the namespace child died: %s", strerror(errno));
	if (r == 0 && a->keep_sync)
		a->sync[1] = sync[1];
	else
		close(sync[1]);
	close(a->ep[1]);
	close(a->stp[1]);
	a->ep[1] = a->stp[1] = -1;
	if (r == 0)
		return pid;
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, __WALL);
	return -1;
}

static void
run_init(struct init_args *a)
{
	init(a->req, a->wd, a->ids, a->ep[1], a->stp[1], a->sync[0]);
}

/*
 * The init's egress listener, from the sync socket into sp->egress_fd.
 * The helper reads one byte and at most one fd (cordon_recv_byte_fd
 * closes and refuses anything more) and checks, from the kernel, that
 * the fd is a listening TCP socket; it parses nothing else.  It came
 * before the payload's execve (the init sent it before the fork).
 */
static int
egress_take(int sock, struct spawn *sp, char *err, size_t errsz)
{
	int fd = -1, v = 0, t = 0;
	socklen_t len = sizeof(v), tlen = sizeof(t);
	char c = 0;

	if (cordon_recv_byte_fd(sock, &c, &fd) < 0 || fd < 0 || c != 'l' ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &t, &tlen) < 0 ||
	    v != 1 || t != IPPROTO_TCP) {
		if (fd >= 0)
			close(fd);
		return ERR("the init sent no egress listener");
	}
	sp->egress_fd = fd;
	return 0;
}

static int
give_nobody(int dirfd, const char *name, const struct stat *st, void *arg)
{
	(void)st;
	(void)arg;
	return fchownat(dirfd, name, NOBODY, NOBODY, AT_SYMLINK_NOFOLLOW);
}

/*
 * Root's files copied in (only the broker, root too, has written there,
 * between READY and GO: the payload is still held) go to nobody, so the
 * payload can use them.  Safe: nothing of the run has executed yet, and
 * workdir_walk changes nothing through a symbolic link.
 */
int
ns_give_copied(const struct workdir *wd)
{
	return workdir_walk(wd->fd, give_nobody, NULL) != 0 ? -1 : 0;
}

int
ns_spawn(const struct request *req, struct workdir *wd, struct spawn *sp,
    char *err, size_t errsz)
{
	struct ns_ids ids;
	struct init_args a = { .req = req, .wd = wd, .ids = &ids,
		.ep = { -1, -1 }, .stp = { -1, -1 }, .sync = { -1, -1 },
		.keep_sync = (req->flags & CORDON_REQ_EGRESS) != 0 };
	int flags = NS_FLAGS, r = -1;
	pid_t pid;

	*sp = (struct spawn){ .pid = -1, .pidfd = -1, .status_fd = -1,
		.gate_fd = -1, .egress_fd = -1 };
	choose_ids(&ids);
	sp->chown_nobody = ids.drop_groups;
	/*
	 * The workdir goes to nobody before the init reopens it as nobody;
	 * files are copied in only later, while the payload is held
	 * (ns_give_copied).
	 */
	if (ids.drop_groups && fchown(wd->fd, NOBODY, NOBODY) < 0)
		return ERR("cannot give the workdir to nobody: %s",
		    strerror(errno));
	if ((req->flags & CORDON_REQ_NETWORK) == 0)
		flags |= CLONE_NEWNET;
	if (spawn_check_limits(req, err, errsz) < 0)
		return -1;
	if ((pid = ns_start(flags, run_init, &a, err, errsz)) < 0)
		goto out;
	sp->pid = pid;
	/* The payload is built and held before its exec (spawn_barrier). */
	if (spawn_wait_ready(a.ep[0], err, errsz) < 0)
		goto fail;
	/*
	 * The init's setup report, written once it has forked the payload
	 * and cleared its own capabilities: GO follows this read.
	 */
	if (read(a.stp[0], &r, sizeof(r)) != sizeof(r)) {
		r = ERR("the init sent no setup report");
		goto fail;
	}
	sp->nproc_init = r != 0;
	if (a.keep_sync && egress_take(a.sync[1], sp, err, errsz) < 0)
		goto fail;
	sp->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	sp->status_fd = a.stp[0];
	sp->gate_fd = a.ep[0];
	a.stp[0] = a.ep[0] = -1;
	r = 0;
	goto out;
fail:
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, __WALL);
	sp->pid = -1;
	r = -1;
out:
	close_pipes(a.ep, a.stp);
	if (a.sync[1] >= 0)
		close(a.sync[1]);
	return r;
}

/*
 * The probe child: what a run's init does first - take the ids, make the
 * mounts private, mount a tmpfs and a proc - then whether RLIMIT_NPROC
 * counts per namespace.  Reports on the error pipe like a run.
 */
static void
probe_child(struct init_args *a)
{
	int m, ok;

	if (!a->ids->setuid && take_ids(a->ids) < 0)
		spawn_fail(a->ep[1], SPAWN_IDS);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		spawn_fail(a->ep[1], SPAWN_MOUNT_PRIVATE);
	if ((m = new_fs("tmpfs", NULL, MOUNT_ATTR_NOSUID)) < 0)
		spawn_fail(a->ep[1], SPAWN_ROOT);
	close(m);
	if ((m = new_fs("proc", NULL, MOUNT_ATTR_NOSUID)) < 0)
		spawn_fail(a->ep[1], SPAWN_PROC);
	close(m);
	ok = !a->ids->setuid && nproc_is_per_ns();
	(void)!write(a->stp[1], &ok, sizeof(ok));
	_exit(0);
}

int
ns_probe(char *err, size_t errsz, bool *nproc_per_ns)
{
	struct spawn sp = { .pid = -1 };
	struct ns_ids ids;
	struct init_args a = { .ids = &ids, .ep = { -1, -1 },
		.stp = { -1, -1 } };
	int r = -1, ok = 0;
	pid_t pid;

	*nproc_per_ns = false;
	choose_ids(&ids);
	if ((pid = ns_start(NS_FLAGS | CLONE_NEWNET, probe_child, &a, err,
	    errsz)) < 0)
		goto out;
	/* EOF on the error pipe: the child got through (or died silently). */
	r = spawn_wait_exec(a.ep[0], &sp, err, errsz);
	if (r == 0 && read(a.stp[0], &ok, sizeof(ok)) != sizeof(ok))
		r = ERR("the probe child died");
	*nproc_per_ns = ok != 0;
	(void)waitpid(pid, NULL, __WALL);
out:
	close_pipes(a.ep, a.stp);
	return r;
}
