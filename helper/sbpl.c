/*
 * sbpl.c - the seatbelt backend's profile generator (sbpl.h says what
 * it is given and what it returns).
 *
 * What the profile allows, after (deny default):
 *   processes   exec and fork; signals and process-info only to the same
 *               sandbox (the payload and what it starts inherit it)
 *   reads       the whole file system but the secrets of the invoker's
 *               HOME (sbpl_home_secrets); the workdir and the --ro-bind
 *               sources always; mapping libraries as executable likewise
 *               (a test suite dlopen()s what it built in the workdir)
 *   writes      only the workdir (the payload's cwd, HOME and TMPDIR),
 *               /dev/null, /dev/zero, and ptys (/dev/ptmx, /dev/ttys*)
 *   sysctl-read and mach-lookup: the names of the tables below, each
 *               with why a compiler or a test suite needs it
 *   network     none; with --network all of it; with only an egress
 *               proxy port, outbound TCP to localhost:that port alone
 *
 * Why no path can change the profile: the text holds only names from
 * sbpl_names.h, fixed strings from the tables below (checked to be made
 * of safe characters), parameter keys we format ourselves and a port
 * number; every path is a (param "KEY") whose value sandbox-exec gets
 * as a separate -D argument and compares as a string, never parses.
 * Rules never depend on their order: the exceptions are inside the
 * rule they narrow (require-all / require-not), not a later deny.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl.h"
#include "types.h"

#define SBPL_NAME_(id, name, ...) name,
const char *const sbpl_op_names[SBPL_OP_N_] = {
	SBPL_OPERATIONS(SBPL_NAME_)
};
const char *const sbpl_filter_names[SBPL_FILTER_N_] = {
	SBPL_FILTERS(SBPL_NAME_)
};
const char *const sbpl_symbol_names[SBPL_SYMBOL_N_] = {
	SBPL_SYMBOLS(SBPL_NAME_)
};
const char *const sbpl_modifier_names[SBPL_MODIFIER_N_] = {
	SBPL_MODIFIERS(SBPL_NAME_)
};
#undef SBPL_NAME_
#define SBPL_ARG_(id, name, arg) arg,
const enum sbpl_arg sbpl_filter_args[SBPL_FILTER_N_] = {
	SBPL_FILTERS(SBPL_ARG_)
};
#undef SBPL_ARG_
#define SBPL_OF_(id, name, filter) SBPL_F_##filter,
const enum sbpl_filter sbpl_symbol_filters[SBPL_SYMBOL_N_] = {
	SBPL_SYMBOLS(SBPL_OF_)
};
#undef SBPL_OF_

/*
 * Below the invoker's HOME, unreadable (and not mappable) by the
 * payload.  The payload's own HOME is its workdir, so a tool looking for
 * its configuration finds none of these by $HOME; this list stops a
 * payload that names the real path.  Everything else in HOME stays
 * readable, as the rest of the system does: a sources tree or a
 * toolchain under HOME must keep working.
 */
const char *const sbpl_home_secrets[] = {
	".ssh",                 /* keys, known_hosts, agent config */
	".gnupg",               /* private keys */
	".aws",                 /* credentials */
	".azure",               /* tokens */
	".config/gcloud",       /* tokens */
	".kube",                /* cluster credentials */
	".docker/config.json",  /* registry auth */
	".netrc",               /* passwords */
	".git-credentials",     /* passwords of git's store helper */
	".npmrc",               /* registry tokens */
	".pypirc",              /* upload passwords */
	".cargo/credentials.toml", /* registry token */
	".password-store",      /* pass(1) */
	"Library/Keychains",    /* the login keychain's file */
	"Library/Cookies",      /* Safari's and the system's cookies */
	"Library/Safari",       /* history, saved forms */
	"Library/Mail",
	"Library/Messages",
	"Library/Application Support/Google/Chrome",      /* browser profiles: */
	"Library/Application Support/Chromium",           /* cookies, saved */
	"Library/Application Support/BraveSoftware",      /* passwords, */
	"Library/Application Support/Microsoft Edge",     /* sessions */
	"Library/Application Support/Firefox",
	/*
	 * cordon's own trace (broker/plat_macos.c): every run's argv, cwd
	 * and user.  The files, not the directory: the workdirs are under
	 * it, and a payload's realpath(3) of its cwd reads each parent.
	 */
	"Library/Application Support/cordon/trace.db",
	"Library/Application Support/cordon/trace.db-wal",
	"Library/Application Support/cordon/trace.db-shm",
};
const size_t sbpl_home_secrets_n =
    sizeof(sbpl_home_secrets) / sizeof(sbpl_home_secrets[0]);

/*
 * sysctl names the payload may read, one by one: what libc, a compiler
 * driver, a build tool or a language runtime asks at start-up.  Not
 * kern.proc.*: that would show every process of the host, not only the
 * sandbox's (process-info is scoped to the sandbox; sysctl is not).
 */
static const char *const sysctls[] = {
	"hw.ncpu",              /* sysconf(_SC_NPROCESSORS_CONF): make -j */
	"hw.activecpu",         /* sysconf(_SC_NPROCESSORS_ONLN) */
	"hw.logicalcpu",        /* std::thread::available_parallelism */
	"hw.logicalcpu_max",    /* os.cpu_count() */
	"hw.physicalcpu",       /* job-count heuristics (ninja, cargo) */
	"hw.physicalcpu_max",
	"hw.memsize",           /* total memory: JVM and jobserver sizing */
	"hw.pagesize",          /* getpagesize() of older libraries */
	"hw.cachelinesize",     /* allocators, -mcpu=native */
	"hw.l1dcachesize",      /* compiler host tuning */
	"hw.l2cachesize",
	"hw.byteorder",         /* configure scripts */
	"hw.cputype",           /* the compiler driver's host arch */
	"hw.cpusubtype",
	"hw.cpufamily",         /* -mcpu=native */
	"hw.machine",           /* uname(3) */
	"hw.model",             /* platform reports of test runners */
	"kern.ostype",          /* uname(3) */
	"kern.osrelease",       /* uname(3) */
	"kern.version",         /* uname(3) */
	"kern.hostname",        /* uname(3), gethostname(3) */
	"kern.osproductversion", /* the SDK and deployment target (xcrun) */
	"kern.osversion",       /* the build (platform.mac_ver()) */
	"kern.osvariant_status", /* libSystem's os_variant checks at start */
	"kern.argmax",          /* xargs, build tools sizing command lines */
	"kern.maxfilesperproc", /* runtimes sizing their fd tables */
	"kern.boottime",        /* uptime-based clocks of test harnesses */
	"machdep.cpu.brand_string", /* compiler host detection */
	"sysctl.proc_cputype",  /* the driver's arch of this process */
	"sysctl.proc_translated", /* Rosetta check (python, node, cmake) */
	"vm.loadavg",           /* getloadavg(3): make -l, ninja -l */
};

/* Prefixes, when a family is read by feature or by core type. */
static const char *const sysctl_prefixes[] = {
	"hw.optional.",         /* CPU features: runtime dispatch, -march=native */
	"hw.perflevel",         /* performance/efficiency core counts */
};

/* Mach services the payload may look up, one by one. */
static const char *const mach_names[] = {
	"com.apple.system.opendirectoryd.libinfo", /* getpwuid(3): whoami, id, ~user */
	"com.apple.system.notification_center", /* notify(3): libc's time zone */
	"com.apple.system.logger",      /* syslog(3) of libraries */
	"com.apple.bsd.dirhelper",      /* confstr(_CS_DARWIN_USER_TEMP_DIR) */
	"com.apple.cfprefsd.daemon",    /* CFPreferences reads: xcrun, swift */
	"com.apple.cfprefsd.agent",
};

/* With --network only: what TLS and name resolution look up. */
static const char *const mach_network_names[] = {
	"com.apple.trustd.agent",       /* certificate evaluation */
	"com.apple.SecurityServer",     /* the keychain's trust settings */
	"com.apple.SystemConfiguration.configd", /* proxies, interfaces */
	"com.apple.SystemConfiguration.DNSConfiguration", /* resolvers */
	"com.apple.networkd",           /* Network.framework */
};

/* Fixed device paths, passed as parameters like every other path. */
static const struct {
	const char *key, *path;
} devices[] = {
	{ "DEV_NULL", "/dev/null" },
	{ "DEV_ZERO", "/dev/zero" },
	{ "DEV_PTMX", "/dev/ptmx" },
	{ "DEV_TTYS", "/dev/ttys" },    /* a prefix: pty slaves /dev/ttysNNN */
};

struct gen {
	char *buf;
	size_t len;
	bool over;              /* the text passed SBPL_MAX_PROFILE */
	bool bad;               /* a string not of safe characters (a bug) */
	struct sbpl_param *params;
	size_t nparams, cap;
};

static void
put(struct gen *g, const char *s)
{
	size_t n = strlen(s);

	if (g->over)
		return;
	if (n > SBPL_MAX_PROFILE - g->len) {
		g->over = true;
		return;
	}
	memcpy(g->buf + g->len, s, n);
	g->len += n;
	g->buf[g->len] = '\0';
}

/*
 * A string written between quotes: only names from the tables and
 * "localhost:PORT".  Checked though they are ours, so a slip in a table
 * fails the generation instead of writing a quote into the profile.
 */
static void
put_quoted(struct gen *g, const char *s)
{
	const char *c;

	for (c = s; *c != '\0'; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' ||
		    *c == '-' || *c == ':'))
			g->bad = true;
	if (*s == '\0')
		g->bad = true;
	put(g, "\"");
	put(g, s);
	put(g, "\"");
}

static void
rule(struct gen *g, const char *action, enum sbpl_op op)
{
	put(g, "(");
	put(g, action);
	put(g, " ");
	put(g, sbpl_op_names[op]);
}

static void
also(struct gen *g, enum sbpl_op op)
{
	put(g, " ");
	put(g, sbpl_op_names[op]);
}

static void
end(struct gen *g)
{
	put(g, ")\n");
}

static void
open_filter(struct gen *g, enum sbpl_filter f, enum sbpl_arg want)
{
	if (sbpl_filter_args[f] != want)
		g->bad = true;
	put(g, " (");
	put(g, sbpl_filter_names[f]);
}

static void
close_filter(struct gen *g)
{
	put(g, ")");
}

/* (FILTER (param "KEY")): a path filter, always over a parameter. */
static void
f_path(struct gen *g, enum sbpl_filter f, const char *key)
{
	open_filter(g, f, SBPL_ARG_PATH);
	put(g, " (param ");
	put_quoted(g, key);
	put(g, ")");
	close_filter(g);
}

static void
f_name(struct gen *g, enum sbpl_filter f, const char *name)
{
	open_filter(g, f, SBPL_ARG_NAME);
	put(g, " ");
	put_quoted(g, name);
	close_filter(g);
}

static void
f_symbol(struct gen *g, enum sbpl_filter f, enum sbpl_symbol s)
{
	open_filter(g, f, SBPL_ARG_SYMBOL);
	if (sbpl_symbol_filters[s] != f)
		g->bad = true;
	put(g, " ");
	put(g, sbpl_symbol_names[s]);
	close_filter(g);
}

/* (require-all PATHFILTER (vnode-type CHARACTER-DEVICE)) */
static void
f_device(struct gen *g, enum sbpl_filter f, const char *key)
{
	open_filter(g, SBPL_F_REQUIRE_ALL, SBPL_ARG_FILTERS);
	f_path(g, f, key);
	f_symbol(g, SBPL_F_VNODE_TYPE, SBPL_S_CHARACTER_DEVICE);
	close_filter(g);
}

/* Adds KEY=value (value copied); the key, or NULL when out of memory. */
static const char *
param(struct gen *g, const char *key, size_t index, bool indexed,
    const char *dir, const char *rel)
{
	struct sbpl_param *p;
	size_t n;
	int r;

	/*
	 * Never grown: the keys returned point into the array, and a key
	 * must stay valid while later params are added (sbpl_generate sizes
	 * it for every param a profile can have).
	 */
	if (g->nparams == g->cap)
		return NULL;
	p = &g->params[g->nparams];
	r = indexed ? snprintf(p->key, sizeof(p->key), "%s_%zu", key, index) :
	    snprintf(p->key, sizeof(p->key), "%s", key);
	if (r < 0 || (size_t)r >= sizeof(p->key))
		return NULL;
	n = strlen(dir) + (rel != NULL ? 1 + strlen(rel) : 0) + 1;
	p->value = malloc(n);
	if (p->value == NULL)
		return NULL;
	/* HOME "/" gives "/.ssh", not "//.ssh": still canonical. */
	(void)snprintf(p->value, n, "%s%s%s", dir,
	    rel != NULL && strcmp(dir, "/") != 0 ? "/" : "",
	    rel != NULL ? rel : "");
	g->nparams++;
	return p->key;
}

/*
 * Canonical as realpath(3) returns it: absolute, no empty, "." or ".."
 * component (common/types.c), within macOS's PATH_MAX.  What is refused
 * here would make Seatbelt's string comparison miss.
 */
static bool
canonical(const char *p)
{
	return cordon_path_clean(p) && strlen(p) <= SBPL_MAX_PATH;
}

#define FAIL(what, path) cordon_errf(err, errsz, "seatbelt profile: %s%s%s", \
	(what), (path) != NULL ? ": " : "", (path) != NULL ? (path) : "")

static int
check_options(const struct sbpl_options *o, char *err, size_t errsz)
{
	size_t i;

	if (!canonical(o->workdir))
		return FAIL("the workdir is not a canonical absolute path",
		    o->workdir);
	if (strcmp(o->workdir, "/") == 0)
		return FAIL("the workdir cannot be /", NULL);
	if (o->home != NULL && !canonical(o->home))
		return FAIL("HOME is not a canonical absolute path", o->home);
	if (o->nro_binds != 0 && o->ro_binds == NULL)
		return FAIL("no --ro-bind list", NULL);
	for (i = 0; i < o->nro_binds; i++)
		if (!canonical(o->ro_binds[i]))
			return FAIL("a --ro-bind source is not a canonical "
			    "absolute path", o->ro_binds[i]);
	return 0;
}

/* Reads: everything but the secrets; the workdir and ro-binds always. */
static bool
reads(struct gen *g, const struct sbpl_options *o)
{
	const char *key;
	size_t i;

	rule(g, "allow", SBPL_FILE_READ);
	also(g, SBPL_FILE_MAP_EXECUTABLE);
	if (o->home != NULL) {
		open_filter(g, SBPL_F_REQUIRE_ALL, SBPL_ARG_FILTERS);
		for (i = 0; i < sbpl_home_secrets_n; i++) {
			key = param(g, "SECRET", i, true, o->home,
			    sbpl_home_secrets[i]);
			if (key == NULL)
				return false;
			open_filter(g, SBPL_F_REQUIRE_NOT, SBPL_ARG_FILTER);
			f_path(g, SBPL_F_SUBPATH, key);
			close_filter(g);
		}
		close_filter(g);
	}
	end(g);
	for (i = 0; i < o->nro_binds; i++) {
		key = param(g, "RO", i, true, o->ro_binds[i], NULL);
		if (key == NULL)
			return false;
		rule(g, "allow", SBPL_FILE_READ);
		also(g, SBPL_FILE_MAP_EXECUTABLE);
		f_path(g, SBPL_F_SUBPATH, key);
		end(g);
	}
	return true;
}

/* Writes: the workdir, /dev/null and /dev/zero, ptys. */
static bool
writes(struct gen *g, const struct sbpl_options *o)
{
	const char *key[4];
	size_t i;

	key[0] = param(g, "WORKDIR", 0, false, o->workdir, NULL);
	if (key[0] == NULL)
		return false;
	rule(g, "allow", SBPL_FILE_READ);
	also(g, SBPL_FILE_WRITE);
	also(g, SBPL_FILE_MAP_EXECUTABLE);
	f_path(g, SBPL_F_SUBPATH, key[0]);
	end(g);
	for (i = 0; i < 4; i++) {
		key[i] = param(g, devices[i].key, 0, false, devices[i].path,
		    NULL);
		if (key[i] == NULL)
			return false;
	}
	for (i = 0; i < 2; i++) {
		rule(g, "allow", SBPL_FILE_WRITE_DATA);
		f_device(g, SBPL_F_LITERAL, key[i]);
		end(g);
	}
	/* openpty(3): the multiplexer, then the slave it hands out. */
	rule(g, "allow", SBPL_PSEUDO_TTY);
	end(g);
	rule(g, "allow", SBPL_FILE_WRITE_DATA);
	also(g, SBPL_FILE_IOCTL);
	f_device(g, SBPL_F_LITERAL, key[2]);
	end(g);
	rule(g, "allow", SBPL_FILE_WRITE_DATA);
	also(g, SBPL_FILE_IOCTL);
	f_device(g, SBPL_F_PREFIX, key[3]);
	end(g);
	return true;
}

static void
names(struct gen *g, enum sbpl_op op, enum sbpl_filter f,
    const char *const *v, size_t n)
{
	size_t i;

	rule(g, "allow", op);
	for (i = 0; i < n; i++)
		f_name(g, f, v[i]);
	end(g);
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void
network(struct gen *g, const struct sbpl_options *o)
{
	char addr[32];

	if (o->network) {
		rule(g, "allow", SBPL_NETWORK);
		end(g);
		rule(g, "allow", SBPL_SYSTEM_SOCKET);
		end(g);
		names(g, SBPL_MACH_LOOKUP, SBPL_F_GLOBAL_NAME,
		    mach_network_names, NELEM(mach_network_names));
	} else if (o->egress_port != 0) {
		/* Only the broker's egress proxy, on the loopback. */
		(void)snprintf(addr, sizeof(addr), "localhost:%u",
		    (unsigned)o->egress_port);
		rule(g, "allow", SBPL_NETWORK_OUTBOUND);
		open_filter(g, SBPL_F_REMOTE, SBPL_ARG_ADDRESS);
		put(g, " ");
		put(g, sbpl_symbol_names[SBPL_S_IP]);
		put(g, " ");
		put_quoted(g, addr);
		close_filter(g);
		end(g);
	}
}

void
sbpl_free(struct sbpl_profile *p)
{
	size_t i;

	for (i = 0; i < p->nparams; i++)
		free(p->params[i].value);
	free(p->params);
	free(p->text);
	memset(p, 0, sizeof(*p));
}

int
sbpl_generate(const struct sbpl_options *o, struct sbpl_profile *p,
    char *err, size_t errsz)
{
	struct gen g;

	memset(p, 0, sizeof(*p));
	memset(&g, 0, sizeof(g));
	if (check_options(o, err, errsz) < 0)
		return -1;
	g.buf = malloc(SBPL_MAX_PROFILE + 1);
	/* The secrets, the ro-binds, WORKDIR and the four devices. */
	g.cap = sbpl_home_secrets_n + o->nro_binds + 5;
	g.params = calloc(g.cap, sizeof(*g.params));
	if (g.buf == NULL || g.params == NULL) {
		free(g.buf);
		free(g.params);
		return FAIL("out of memory", NULL);
	}
	g.buf[0] = '\0';

	put(&g, "(version 1)\n");
	rule(&g, "deny", SBPL_DEFAULT);
	end(&g);
	rule(&g, "allow", SBPL_PROCESS_EXEC);
	end(&g);
	rule(&g, "allow", SBPL_PROCESS_FORK);
	end(&g);
	rule(&g, "allow", SBPL_SIGNAL);
	f_symbol(&g, SBPL_F_TARGET, SBPL_S_SAME_SANDBOX);
	end(&g);
	rule(&g, "allow", SBPL_PROCESS_INFO);
	f_symbol(&g, SBPL_F_TARGET, SBPL_S_SAME_SANDBOX);
	end(&g);
	if (!reads(&g, o) || !writes(&g, o))
		goto nomem;
	names(&g, SBPL_SYSCTL_READ, SBPL_F_SYSCTL_NAME, sysctls,
	    NELEM(sysctls));
	names(&g, SBPL_SYSCTL_READ, SBPL_F_SYSCTL_NAME_PREFIX,
	    sysctl_prefixes, NELEM(sysctl_prefixes));
	names(&g, SBPL_MACH_LOOKUP, SBPL_F_GLOBAL_NAME, mach_names,
	    NELEM(mach_names));
	/* CFPreferences of the compiler driver and xcrun (read only). */
	rule(&g, "allow", SBPL_USER_PREFERENCE_READ);
	end(&g);
	/* POSIX semaphores: Python's multiprocessing locks. */
	rule(&g, "allow", SBPL_IPC_POSIX_SEM);
	end(&g);
	network(&g, o);

	if (g.over) {
		(void)cordon_errf(err, errsz, "seatbelt profile: longer than "
		    "Seatbelt's limit of %u bytes (too many --ro-bind paths?)",
		    SBPL_MAX_PROFILE);
		goto out;
	}
	if (g.bad) {
		(void)FAIL("internal error: a string outside sbpl_names.h's "
		    "rules", NULL);
		goto out;
	}
	p->text = g.buf;
	p->len = g.len;
	p->params = g.params;
	p->nparams = g.nparams;
	return 0;
nomem:
	(void)FAIL("out of memory", NULL);
out:
	p->params = g.params;
	p->nparams = g.nparams;
	sbpl_free(p);
	free(g.buf);
	return -1;
}
