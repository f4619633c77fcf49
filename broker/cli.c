/*
 * cli.c - the cordon command: a thin layer over libcordon.
 *
 *   cordon run [options] -- COMMAND [ARG...]
 *   cordon trace list [--limit N] [--json] | show RUN_ID [--json] | export
 *   cordon probe [--backend NAME] [--json] | gc
 *   cordon policy check FILE [--kind policy|profile]
 *   cordon version | help
 *
 * Exit status follows timeout(1): the payload's status, 128+N for signal
 * N, 124 for a cap hit, 125 when cordon itself failed (including bad
 * flags), 126/127 when the command cannot be run or is not found.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_plat.h"
#include "egress.h"
#include "env.h"
#include "internal.h"
#include "json.h"
#include "parse.h"
#include "policy.h"
#include "policy_parser.h"
#include "trace.h"

#define EXIT_SANDBOX 125

static const char usage_text[] =
"usage: cordon run [options] -- COMMAND [ARG...]\n"
"       cordon trace list [--limit N] [--json] [--trace PATH]\n"
"       cordon trace show RUN_ID [--json] [--trace PATH]\n"
"       cordon trace export [--trace PATH]\n"
"       cordon probe [--backend NAME] [--json]\n"
"       cordon gc [--trace PATH] [--workdir-base DIR]\n"
"       cordon policy check FILE [--kind policy|profile]\n"
"       cordon version\n"
"\n"
"run options:\n"
"  --cpu SECONDS        CPU time of the whole process tree (default 60)\n"
"  --wall SECONDS       wall-clock time (default 120); e.g. 1.5, 90s, 500ms, 2m\n"
"  --memory SIZE        resident memory of the whole tree (default 2G); e.g. 512M\n"
"  --nofile N           open files per process (default 512)\n"
"  --nproc N            processes and threads in the tree (default: no cap)\n"
"  --network            allow network access (default: denied)\n"
"  --allow-host PATTERN no network but PATTERN (host, host:port, *.suffix, IP,\n"
"                       CIDR), through the broker's proxy (repeatable;\n"
"                       linux-ns)\n"
"  --backend NAME       one of this OS's, below (default auto)\n"
"  --profile NAME       apply profile NAME (system, then yours); flags override it\n"
"  --env KEY=VALUE      set a variable for the command (repeatable)\n"
"  --keep-env KEY       pass KEY from this environment (repeatable; not proxies)\n"
"  --require LIST       refuse to run unless these controls apply, e.g.\n"
"                       network-isolation,filesystem-isolation,memory,processes\n"
"  --json               print the result record as JSON on stdout, after the\n"
"                       command's own output (for people)\n"
"  --json-fd N          write the record to inherited fd N (3 or above), then\n"
"                       close it; the command never has N (for harnesses)\n"
"  --result FILE        write the record to FILE atomically (a new file, mode\n"
"                       0600, renamed over FILE; a symlink at FILE is refused)\n"
"  --trace PATH         trace database (default $XDG_STATE_HOME/cordon/trace.db)\n"
"  --workdir-base DIR   where workdirs are made (default $XDG_RUNTIME_DIR/cordon,\n"
"                       else $XDG_STATE_HOME/cordon/runs)\n"
"  --copy-in SRC[:DEST] copy a file or tree into the workdir before the run\n"
"  --copy-out PATH[:DEST]  copy PATH (in the workdir) out after the run; DEST\n"
"                       must not exist (default: PATH's last name, here)\n"
"  --copy-out-limit SIZE  at most SIZE bytes per --copy-out (default 1G)\n"
"  --ro-bind SRC[:DEST] SRC visible read-only at DEST inside (linux-ns;\n"
"                       landlock: readable where it is, DEST = SRC)\n"
"  --stdout FILE, --stderr FILE  the command's output to FILE\n"
"  --output-limit SIZE  at most SIZE bytes of stdout + stderr, then cap output\n"
"  --disk SIZE          at most SIZE bytes in the workdir, then cap disk\n"
"\n"
"exit status: the command's own; 128+N if killed by signal N; 124 if a cap\n"
"was hit; 125 if cordon failed; 126 if the command cannot run; 127 if not found\n";

static void
usage_error(const char *fmt_, ...) __attribute__((format(CORDON_PRINTF, 1, 2), noreturn));

static void
usage_error(const char *fmt_, ...)
{
	va_list ap;

	fputs("cordon: ", stderr);
	va_start(ap, fmt_);
	vfprintf(stderr, fmt_, ap);
	va_end(ap);
	fputs("\n(see 'cordon help')\n", stderr);
	exit(EXIT_SANDBOX);
}

static void
set_limit(cordon_config *cfg, enum cordon_cap_id cap, const char *flag,
    const char *arg)
{
	uint64_t v = 0;

	switch (cap) {
	case CORDON_CAP_CPU:
	case CORDON_CAP_WALL:
		if (cordon_parse_duration(arg, &v) < 0)
			usage_error("%s: '%s' is not a duration (e.g. 1.5, 90s, "
			    "500ms, 2m)", flag, arg);
		break;
	case CORDON_CAP_MEMORY:
	case CORDON_CAP_OUTPUT:
	case CORDON_CAP_DISK:
		if (cordon_parse_size(arg, &v) < 0)
			usage_error("%s: '%s' is not a size (e.g. 512M, 2G)",
			    flag, arg);
		break;
	default:
		if (cordon_parse_count(arg, &v) < 0)
			usage_error("%s: '%s' is not a whole number", flag, arg);
		break;
	}
	if (cordon_config_set_limit(cfg, cap, v) < 0)
		usage_error("%s: %s is out of range", flag, arg);
}

static void
set_path(int (*setter)(cordon_config *, const char *), cordon_config *cfg,
    const char *flag, const char *arg, const char *need)
{
	char *abs = NULL;
	char cwd[CORDON_MAX_PATH_LEN + 1];

	if (arg[0] == '\0')
		usage_error("%s: empty path", flag);
	if (!cordon_path_absolute(arg)) {
		if (getcwd(cwd, sizeof(cwd)) == NULL ||
		    asprintf(&abs, "%s/%s", cwd, arg) < 0)
			usage_error("%s: cannot make '%s' absolute", flag, arg);
	}
	if (setter(cfg, abs != NULL ? abs : arg) < 0)
		usage_error("%s: '%s' is not a usable path (%s)", flag, arg,
		    need);
	free(abs);
}

/* Options shared by every subcommand; run adds its own. */
enum {
	OPT_CPU = 256, OPT_WALL, OPT_MEMORY, OPT_NOFILE, OPT_NPROC,
	OPT_NETWORK, OPT_BACKEND, OPT_JSON, OPT_TRACE, OPT_WORKDIR_BASE,
	OPT_LIMIT, OPT_COPY_IN, OPT_COPY_OUT, OPT_COPY_OUT_LIMIT, OPT_RO_BIND,
	OPT_STDOUT, OPT_STDERR, OPT_OUTPUT_LIMIT, OPT_DISK, OPT_PROFILE, OPT_ENV,
	OPT_KEEP_ENV, OPT_REQUIRE, OPT_KIND, OPT_JSON_FD, OPT_RESULT,
	OPT_ALLOW_HOST,
};

static const struct option long_opts[] = {
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "wall", required_argument, NULL, OPT_WALL },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "nofile", required_argument, NULL, OPT_NOFILE },
	{ "nproc", required_argument, NULL, OPT_NPROC },
	{ "network", no_argument, NULL, OPT_NETWORK },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "workdir-base", required_argument, NULL, OPT_WORKDIR_BASE },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "copy-in", required_argument, NULL, OPT_COPY_IN },
	{ "copy-out", required_argument, NULL, OPT_COPY_OUT },
	{ "copy-out-limit", required_argument, NULL, OPT_COPY_OUT_LIMIT },
	{ "ro-bind", required_argument, NULL, OPT_RO_BIND },
	{ "stdout", required_argument, NULL, OPT_STDOUT },
	{ "stderr", required_argument, NULL, OPT_STDERR },
	{ "output-limit", required_argument, NULL, OPT_OUTPUT_LIMIT },
	{ "disk", required_argument, NULL, OPT_DISK },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "env", required_argument, NULL, OPT_ENV },
	{ "keep-env", required_argument, NULL, OPT_KEEP_ENV },
	{ "require", required_argument, NULL, OPT_REQUIRE },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "json-fd", required_argument, NULL, OPT_JSON_FD },
	{ "result", required_argument, NULL, OPT_RESULT },
	/* In the enum's order: parse_opts names one by c - OPT_CPU. */
	{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	bool json;
	unsigned limit;
	const char *out_path, *err_path;   /* --stdout, --stderr */
	int json_fd;                       /* --json-fd, or -1 */
	const char *result_path;           /* --result */
	/*
	 * run: the options that set the config, as given, kept by the one
	 * pass over argv and applied once, over the profile (apply_opts).
	 * NULL: applied as they are read.
	 */
	struct setting {
		int c;
		const char *arg;
	} *set;
	size_t nset;
};
#define OPTS_INIT { false, 0, NULL, NULL, -1, NULL, NULL, 0 }

/*
 * SRC[:DEST], split at the first ':' (so SRC cannot hold one; the library
 * API can).  kind: 0 copy-in, 1 copy-out, 2 ro-bind.
 */
static void
add_files(cordon_config *cfg, int kind, const char *flag, const char *arg)
{
	char *src = strdup(arg), *dest, *abs = NULL;
	int r;

	if (src == NULL || src[0] == '\0' || src[0] == ':')
		usage_error("%s: '%s' names no path", flag, arg);
	if ((dest = cordon_cli_dest_sep(src)) != NULL)
		*dest++ = '\0';
	if (dest != NULL && dest[0] == '\0')
		usage_error("%s: '%s' has an empty destination", flag, arg);
	if (kind == 2) {
		/* The path the invoker means, canonical: no "..", no links. */
		if ((abs = cordon_cli_realpath(src)) == NULL)
			usage_error("%s: %s: %s", flag, src, strerror(errno));
		r = cordon_config_add_ro_bind(cfg, abs, dest);
		if (r == -CORDON_E_INVAL) {
			char shown[CORDON_MAX_PATH_LEN + 1];

			/* Freed before usage_error exits (no leak to report). */
			(void)snprintf(shown, sizeof(shown), "%s",
			    dest != NULL ? dest : abs);
			free(abs);
			free(src);
			usage_error("%s: destination '%s' %s", flag, shown,
			    cordon_plat_bind_rule());
		}
	} else {
		r = kind == 0 ? cordon_config_add_copy_in(cfg, src, dest) :
		    cordon_config_add_copy_out(cfg, src, dest);
	}
	if (r < 0)
		usage_error("%s: '%s': %s", flag, arg, r == -CORDON_E_RANGE ?
		    "too many of them" : cordon_strerror(r));
	free(abs);
	free(src);
}

/* --profile and --kind, kept beside struct opts. */
static const char *opt_profile;
static enum cordon_policy_kind opt_kind = CORDON_KIND_ANY;

/* --env, --keep-env, --require: the environment and required controls. */
static void
set_policy_opt(cordon_config *cfg, int c, const char *arg)
{
	uint32_t mask = 0;
	char bad[80] = "";
	int cap;

	switch (c) {
	case OPT_ENV:
		if (strchr(arg, '=') == NULL)
			usage_error("--env: '%s' is not KEY=VALUE", arg);
		if (cordon_config_set_env(cfg, arg) < 0)
			usage_error("--env: '%.*s' is not a variable that may be set "
			    "(letters, digits and '_', not starting with a digit; "
			    "HOME and TMPDIR are set by cordon)",
			    (int)strcspn(arg, "="), arg);
		break;
	case OPT_KEEP_ENV:
		if (cordon_env_is_proxy(arg))
			usage_error("--keep-env: %s is a proxy variable, which is "
			    "never taken from the environment; give --env %s=VALUE "
			    "to set one explicitly", arg, arg);
		if (cordon_config_keep_env(cfg, arg) < 0)
			usage_error("--keep-env: '%s' is not a variable name "
			    "(letters, digits and '_'; not HOME or TMPDIR)", arg);
		break;
	case OPT_REQUIRE:
		if (cordon_require_parse(arg, &mask, bad, sizeof(bad)) < 0)
			usage_error("--require: '%s' is not a control (network-"
			    "isolation, filesystem-isolation, signal-scoping, memory, "
			    "processes, cpu, wall, open-files, output, disk)", bad);
		if (mask == 0)
			usage_error("--require: empty list");
		for (cap = 1; cap < CORDON_CAP_MAX_; cap++)
			if ((mask & (1U << cap)) != 0)
				(void)cordon_config_require(cfg,
				    (enum cordon_cap_id)cap);
		break;
	default:
		break;
	}
}


/* Whether option c sets the config (apply_opt), rather than the output. */
static bool
config_opt(int c)
{
	switch (c) {
	case OPT_JSON: case OPT_LIMIT: case OPT_STDOUT: case OPT_STDERR:
	case OPT_PROFILE: case OPT_KIND: case OPT_JSON_FD: case OPT_RESULT:
		return false;
	default:
		return true;
	}
}

static void
allow_host(cordon_config *cfg, const char *arg)
{
	struct cordon_egress_pattern p;
	char err[CORDON_MAX_TEXT_LEN];
	const char *why = cordon_plat_no_egress();

	if (why != NULL)
		usage_error("--allow-host: %s", why);
	if (cordon_egress_pattern_parse(arg, &p, err, sizeof(err)) < 0)
		usage_error("%s", err);
	if (cordon_config_allow_host(cfg, arg) < 0)
		usage_error("--allow-host: more than %u patterns",
		    CORDON_EGRESS_MAX_PATTERNS);
}

/* Sets what option c says in cfg; a value it refuses is a usage error. */
static void
apply_opt(cordon_config *cfg, int c, const char *arg)
{
	char names[128];
	uint64_t n = 0;
	int b;

	switch (c) {
	case OPT_CPU: set_limit(cfg, CORDON_CAP_CPU, "--cpu", arg); break;
	case OPT_WALL: set_limit(cfg, CORDON_CAP_WALL, "--wall", arg); break;
	case OPT_MEMORY: set_limit(cfg, CORDON_CAP_MEMORY, "--memory", arg); break;
	case OPT_NOFILE: set_limit(cfg, CORDON_CAP_NOFILE, "--nofile", arg); break;
	case OPT_NPROC: set_limit(cfg, CORDON_CAP_NPROC, "--nproc", arg); break;
	case OPT_NETWORK: cordon_config_set_network(cfg, true); break;
	case OPT_ALLOW_HOST: allow_host(cfg, arg); break;
	case OPT_BACKEND:
		if ((b = cordon_backend_from_name(arg)) < 0)
			usage_error("--backend: unknown backend '%s' (%s)", arg,
			    cordon_backends_here(names, sizeof(names)));
		if (cordon_config_set_backend(cfg,
		    (enum cordon_backend_id)b) < 0)
			usage_error("--backend: %s is not a backend of this OS "
			    "(%s)", arg, cordon_backends_here(names,
			    sizeof(names)));
		break;
	case OPT_TRACE:
		set_path(cordon_config_set_trace_path, cfg, "--trace", arg,
		    "too long");
		break;
	case OPT_WORKDIR_BASE:
		set_path(cordon_config_set_workdir_base, cfg, "--workdir-base",
		    arg, "too long, or not clean: a '.', '..' or empty part");
		break;
	case OPT_COPY_IN: add_files(cfg, 0, "--copy-in", arg); break;
	case OPT_COPY_OUT: add_files(cfg, 1, "--copy-out", arg); break;
	case OPT_RO_BIND: add_files(cfg, 2, "--ro-bind", arg); break;
	case OPT_COPY_OUT_LIMIT:
		if (cordon_parse_size(arg, &n) < 0 ||
		    cordon_config_set_copy_out_limit(cfg, n) < 0)
			usage_error("--copy-out-limit: '%s' is not a size "
			    "(e.g. 100M, 2G)", arg);
		break;
	case OPT_OUTPUT_LIMIT:
		set_limit(cfg, CORDON_CAP_OUTPUT, "--output-limit", arg);
		break;
	case OPT_DISK: set_limit(cfg, CORDON_CAP_DISK, "--disk", arg); break;
	default:
		set_policy_opt(cfg, c, arg);
		break;
	}
}

/* run: the options kept by parse_opts, in the order given. */
static void
apply_opts(cordon_config *cfg, const struct opts *o)
{
	size_t i;

	for (i = 0; i < o->nset; i++)
		apply_opt(cfg, o->set[i].c, o->set[i].arg);
}

static int
parse_opts(int argc, char **argv, cordon_config *cfg, struct opts *o,
    const char *cmd, const char *allowed)
{
	uint64_t n = 0;
	int c;

	opterr = 0;
	optind = 1;
	/*
	 * run: '+' stops at the first non-option, so COMMAND's flags stay its
	 * own.  Elsewhere options may follow operands (trace show ID --json).
	 */
	while ((c = getopt_long(argc, argv, strcmp(cmd, "run") == 0 ? "+" : "",
	    long_opts, NULL)) != -1) {
		if (c == '?') {
			if (optopt != 0)
				usage_error("%s: option '%s' needs a value", cmd,
				    argv[optind - 1]);
			usage_error("%s: unknown option '%s'", cmd,
			    argv[optind - 1]);
		}
		if (strchr(allowed, c - OPT_CPU + 'a') == NULL)
			usage_error("%s: option '--%s' does not apply here", cmd,
			    long_opts[c - OPT_CPU].name);
		if (config_opt(c) && o->set != NULL) {
			o->set[o->nset].c = c;
			o->set[o->nset++].arg = optarg;
			continue;
		}
		switch (c) {
		case OPT_JSON: o->json = true; break;
		case OPT_LIMIT:
			if (cordon_parse_count(optarg, &n) < 0 || n > 1000000000)
				usage_error("--limit: '%s' is not a whole number",
				    optarg);
			o->limit = (unsigned)n;
			break;
		case OPT_STDOUT: o->out_path = optarg; break;
		case OPT_STDERR: o->err_path = optarg; break;
		case OPT_PROFILE:
			if (!cordon_profile_name_valid(optarg))
				usage_error("--profile: '%s' is not a profile name "
				    "(1 to 64 of a-z, 0-9, '_' and '-')", optarg);
			opt_profile = optarg;
			break;
		case OPT_KIND:
			if (strcmp(optarg, "policy") == 0)
				opt_kind = CORDON_KIND_POLICY;
			else if (strcmp(optarg, "profile") == 0)
				opt_kind = CORDON_KIND_PROFILE;
			else
				usage_error("--kind: '%s' is not policy or profile",
				    optarg);
			break;
		case OPT_JSON_FD:
			if (cordon_parse_count(optarg, &n) < 0 || n > INT_MAX)
				usage_error("--json-fd: '%s' is not a file "
				    "descriptor number", optarg);
			o->json_fd = (int)n;
			break;
		case OPT_RESULT:
			if (optarg[0] == '\0')
				usage_error("--result: empty path");
			o->result_path = optarg;
			break;
		default:
			apply_opt(cfg, c, optarg);
			break;
		}
	}
	return optind;
}

/* Letters for parse_opts' allowed sets: OPT_CPU is 'a', OPT_WALL 'b', ... */
/* ... past 'z': OPT_ALLOW_HOST is '{'. */
#define ALLOW_RUN "abcdefghijlmnopqrstuvwyz{"
#define ALLOW_POLICY "x"
#define ALLOW_TRACE_LIST "hik"
#define ALLOW_TRACE_SHOW "hi"
#define ALLOW_TRACE_EXPORT "i"
#define ALLOW_GC "ij"
#define ALLOW_PROBE "gh"

static int cancel_pipe[2] = { -1, -1 };

static void
on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	(void)!write(cancel_pipe[1], &c, 1);
	errno = saved;
}

static void
format_limit(char *buf, size_t sz, int cap, uint64_t v)
{
	switch (cap) {
	case CORDON_CAP_CPU:
	case CORDON_CAP_WALL:
		snprintf(buf, sz, "%gs", (double)v / 1e9);
		break;
	case CORDON_CAP_MEMORY:
	case CORDON_CAP_OUTPUT:
	case CORDON_CAP_DISK:
		if (v % (1ULL << 30) == 0)
			snprintf(buf, sz, "%lluG", (unsigned long long)(v >> 30));
		else if (v % (1ULL << 20) == 0)
			snprintf(buf, sz, "%lluM", (unsigned long long)(v >> 20));
		else
			snprintf(buf, sz, "%llu bytes", (unsigned long long)v);
		break;
	default:
		snprintf(buf, sz, "%llu", (unsigned long long)v);
		break;
	}
}

static const char *
cap_human(int cap)
{
	switch (cap) {
	case CORDON_CAP_CPU: return "CPU";
	case CORDON_CAP_WALL: return "wall-clock";
	case CORDON_CAP_MEMORY: return "memory";
	case CORDON_CAP_NPROC: return "process";
	default: return cordon_cap_name(cap);
	}
}

/*
 * --stdout and --stderr are opened before the run (a bad path refuses
 * it at once), but neither emptied nor left behind by a run refused
 * later: a file that existed is emptied only right before the payload
 * starts (cordon_config's truncate_output), and one made here is
 * removed again by forget_outputs().
 */
static struct output { const char *path; bool created; } outputs[2];

static int
open_one(struct output *o, const char *path)
{
	o->path = path;
	return cordon_cli_open_output(path, &o->created);
}

/* A run refused after open_output: the files made for it go again. */
static void
forget_outputs(void)
{
	size_t i;

	for (i = 0; i < 2; i++)
		if (outputs[i].created && unlink(outputs[i].path) == 0)
			outputs[i].created = false;
}

static void
output_error(const char *flag, const char *path)
{
	int e = errno;

	forget_outputs();
	usage_error("%s: %s: %s", flag, path, strerror(e));
}

/*
 * --stdout / --stderr: opened here, as the invoker, never through a
 * symlink; the helper gets them as its fds 1 and 2.  One file named twice
 * is opened once, so the two streams append to one offset.
 */
static void
open_output(cordon_config *cfg, const char *out, const char *err)
{
	int ofd = -1, efd = -1;

	if (out != NULL && (ofd = open_one(&outputs[0], out)) < 0)
		output_error("--stdout", out);
	if (err != NULL) {
		if (ofd >= 0 && cordon_cli_same_file(ofd, err))
			efd = ofd;
		else if ((efd = open_one(&outputs[1], err)) < 0)
			output_error("--stderr", err);
	}
	cordon_config_set_stdout_fd(cfg, ofd);
	cordon_config_set_stderr_fd(cfg, efd);
	/* Emptied by the library right before the payload starts (run.c). */
	cfg->truncate_output = ofd >= 0 || efd >= 0;
}

/*
 * --json-fd and --result: the record apart from the payload's output.
 * Everything that can be checked is checked before the run (bad input
 * changes nothing: no trace row, no file); the record is written after
 * it, whatever the outcome, as long as cordon_run produced one.
 */
struct record_dest {
	int fd;                  /* --json-fd N, or -1 */
	struct cordon_cli_result_file *file; /* --result FILE, or NULL */
	const char *path;        /* FILE as given, for messages */
};

static const char *const stdio_name[] = { "stdin", "stdout", "stderr" };

/*
 * N must be open for writing and not 0-2, which the payload inherits and
 * writes to.  It is made close-on-exec, and the helper is started with
 * nothing but fds 0-2 and its socket (channel.c), so the payload never has N.
 */
static void
check_json_fd(int fd)
{
	char why[CORDON_MAX_TEXT_LEN];

	if (fd <= 2)
		usage_error("--json-fd: %d is the command's %s; give an fd of "
		    "its own (3 or above), or use --json", fd, stdio_name[fd]);
	if (cordon_cli_json_fd(fd, why, sizeof(why)) < 0)
		usage_error("--json-fd: fd %d %s", fd, why);
}

static void
record_dest_open(const struct opts *o, struct record_dest *d)
{
	char why[CORDON_MAX_TEXT_LEN];

	d->fd = -1;
	d->file = NULL;
	d->path = NULL;
	if (o->json_fd >= 0) {
		check_json_fd(o->json_fd);
		d->fd = o->json_fd;
	}
	d->path = o->result_path;
	if (o->result_path != NULL &&
	    cordon_cli_result_open(o->result_path, &d->file, why,
	    sizeof(why)) < 0)
		usage_error("--result: %s", why);
}

/* The record (json plus a newline) to each destination: 0 or 125. */
static int
record_dest_write(struct record_dest *d, const char *json)
{
	size_t len = strlen(json);
	char *rec;
	int rc = 0;

	if ((rec = malloc(len + 2)) == NULL) {
		fprintf(stderr, "cordon: out of memory writing the result\n");
		return EXIT_SANDBOX;
	}
	memcpy(rec, json, len);
	memcpy(rec + len, "\n", 2);
	if (d->fd >= 0) {
		if (cordon_cli_write_all(d->fd, rec, len + 1) < 0) {
			fprintf(stderr, "cordon: --json-fd: cannot write the "
			    "result to fd %d: %s\n", d->fd, strerror(errno));
			rc = EXIT_SANDBOX;
		}
		/* The reader sees the end of the record as end of file. */
		(void)close(d->fd);
		d->fd = -1;
	}
	if (d->file != NULL &&
	    cordon_cli_result_write(d->file, rec, len + 1) < 0) {
		fprintf(stderr, "cordon: --result: cannot write %s: %s\n",
		    d->path, strerror(errno));
		rc = EXIT_SANDBOX;
	}
	free(rec);
	return rc;
}

static void
record_dest_close(struct record_dest *d)
{
	cordon_cli_result_close(d->file);
	d->file = NULL;
}

/*
 * run's options, read once: precedence is defaults < profile (system,
 * then user) < flags, so the flags that set the config are kept while
 * argv is read and applied after the profile.  Returns COMMAND's index
 * in argv, or -1 (said on stderr) when the profile cannot be applied.
 */
static int
run_config(int argc, char **argv, cordon_config *cfg, struct opts *o)
{
	char perr[CORDON_MAX_TEXT_LEN] = "";
	int i;

	/* Each option takes one argv entry at least. */
	if ((o->set = calloc((size_t)argc, sizeof(*o->set))) == NULL) {
		fprintf(stderr, "cordon: out of memory\n");
		return -1;
	}
	i = parse_opts(argc, argv, cfg, o, "run", ALLOW_RUN);
	/* Without a profile, a bad value is said before a missing command. */
	if (opt_profile == NULL)
		apply_opts(cfg, o);
	if (i >= argc)
		usage_error("run: no command given (cordon run [options] -- "
		    "COMMAND [ARG...])");
	if (opt_profile != NULL) {
		if (cordon_config_load_profile(cfg, opt_profile, perr,
		    sizeof(perr)) < 0) {
			fprintf(stderr, "cordon: nothing was run: %s\n", perr);
			i = -1;
		} else {
			apply_opts(cfg, o);
		}
	}
	free(o->set);
	o->set = NULL;
	o->nset = 0;
	return i;
}

/*
 * Signals cancel the run through the library (cfg's cancel fd), so the
 * trace is whole; the platform also keeps the payload from reaching
 * into us (cli_plat.h).
 */
static int
guard_run(cordon_config *cfg)
{
	if (cordon_cli_guard(cancel_pipe, on_signal) < 0) {
		fprintf(stderr, "cordon: pipe: %s\n", strerror(errno));
		return -1;
	}
	cordon_config_set_cancel_fd(cfg, cancel_pipe[0]);
	return 0;
}

/* What the run's result means for the invoker, on stderr. */
static void
say_outcome(const cordon_config *cfg, const cordon_result *res)
{
	const char *err = cordon_result_error(res);
	char lim[32];

	/* A weaker boundary than auto hoped for is said, not hidden. */
	if (cfg->backend == CORDON_BACKEND_AUTO &&
	    cordon_result_backend(res) == CORDON_BACKEND_FLOOR)
		fprintf(stderr, "cordon: ran on the floor backend (not a jail): "
		    "%s\n", cordon_result_backend_reason(res));
	if (cfg->backend == CORDON_BACKEND_AUTO &&
	    cordon_result_backend(res) == CORDON_BACKEND_LANDLOCK)
		fprintf(stderr, "cordon: ran on the landlock backend (no "
		    "namespaces: weaker than linux-ns): %s\n",
		    cordon_result_backend_reason(res));
	switch (cordon_result_outcome(res)) {
	case CORDON_OUTCOME_CAP_HIT:
		format_limit(lim, sizeof(lim), cordon_result_cap(res),
		    cordon_config_get_limit(cfg, cordon_result_cap(res)));
		fprintf(stderr, "cordon: %s cap %s hit; tree killed; %s\n",
		    cap_human(cordon_result_cap(res)), lim,
		    cordon_result_workdir_removed(res) ? "workdir removed" :
		    "workdir NOT removed");
		break;
	case CORDON_OUTCOME_SANDBOX_ERROR:
		fprintf(stderr, "cordon: sandbox error: %s; %s\n",
		    err != NULL ? err : "unknown",
		    cordon_result_workdir_removed(res) ? "workdir removed" :
		    "workdir NOT removed");
		break;
	default:
		if (err != NULL)
			fprintf(stderr, "cordon: %s\n", err);
		break;
	}
}

/* --json, --json-fd, --result: the record; status, or 125 if it failed. */
static int
emit_record(const struct opts *o, struct record_dest *rd,
    const cordon_result *res, int status)
{
	char *json = NULL;

	/*
	 * Nothing is spawned from here on, so ignoring SIGPIPE reaches no
	 * payload: a reader gone from --json-fd or stdout is an error (125),
	 * not a silent kill.
	 */
	cordon_cli_ignore_sigpipe();
	if (!o->json && rd->fd < 0 && rd->file == NULL)
		return status;
	if (cordon_result_json(res, &json) < 0) {
		fprintf(stderr, "cordon: cannot format the result\n");
		return EXIT_SANDBOX;
	}
	if (record_dest_write(rd, json) != 0)
		status = EXIT_SANDBOX;
	if (o->json)
		printf("%s\n", json);
	free(json);
	return status;
}

/*
 * cordon run: the options once, the gate once (before --stdout, --stderr
 * or anything else is created), then the run on the effective request.
 */
static int
cmd_run(int argc, char **argv, cordon_config *cfg)
{
	struct opts o = OPTS_INIT;
	struct record_dest rd;
	struct cordon_config eff;
	cordon_result *res = NULL;
	char perr[CORDON_MAX_TEXT_LEN] = "";
	uint32_t require = 0;
	int i, r, status;

	if ((i = run_config(argc, argv, cfg, &o)) < 0)
		return EXIT_SANDBOX;
	record_dest_open(&o, &rd);
	/* The system policy and --require: refused before anything starts. */
	if ((r = cordon_admit(cfg, &eff, &require, perr, sizeof(perr))) < 0) {
		fprintf(stderr, "cordon: nothing was run: %s\n", perr[0] != '\0' ?
		    perr : cordon_strerror(r));
		record_dest_close(&rd);
		return EXIT_SANDBOX;
	}
	/* eff is cfg with the ceilings applied; both name the same files. */
	open_output(&eff, o.out_path, o.err_path);
	if (guard_run(&eff) < 0) {
		forget_outputs();
		record_dest_close(&rd);
		return EXIT_SANDBOX;
	}
	if ((r = cordon_admitted_run(&eff, require, argv + i, &res, perr,
	    sizeof(perr))) < 0) {
		fprintf(stderr, "cordon: nothing was run: %s\n",
		    perr[0] != '\0' ? perr : r == -CORDON_E_TRACE ? "the run "
		    "could not be recorded in the trace database" :
		    cordon_strerror(r));
		forget_outputs();
		record_dest_close(&rd);
		return EXIT_SANDBOX;
	}
	say_outcome(cfg, res);
	status = emit_record(&o, &rd, res, cordon_result_exit_status(res));
	record_dest_close(&rd);
	cordon_result_free(res);
	if (fflush(stdout) != 0)
		return EXIT_SANDBOX;
	return status;
}

static int
open_trace(const cordon_config *cfg, struct cordon_trace **t)
{
	char *path = NULL;
	int r;

	if (cfg->trace_path != NULL)
		path = strdup(cfg->trace_path);
	else if (cordon_default_trace_path(&path) < 0)
		path = NULL;
	if (path == NULL) {
		fprintf(stderr, "cordon: cannot find the trace database%s%s\n",
		    *cordon_plat_path_error() != '\0' ? ": " : "",
		    cordon_plat_path_error());
		return -1;
	}
	if ((r = cordon_trace_open(path, t)) < 0) {
		fprintf(stderr, "cordon: cannot open the trace %s: %s\n", path,
		    cordon_strerror(r));
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

static void
iso_time(char *buf, size_t sz, int64_t ms)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;

	if (gmtime_r(&s, &tm) == NULL ||
	    strftime(buf, sz, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, sz, "?");
}

/*
 * Free text for a terminal (paths, reasons, event details): controls,
 * C1 controls and bytes that are not UTF-8 become \xNN, so nothing a
 * payload or a path holds can move the cursor or recolour the screen.
 * Not reversible (a literal "\x1b" looks the same); the JSON is exact.
 */
static void
print_text(FILE *f, const char *s)
{
	size_t n, k;

	if (s == NULL) {
		fputc('-', f);
		return;
	}
	for (; *s != '\0'; s += n) {
		n = cordon_utf8_len(s);
		if (n == 0 || cordon_utf8_is_control(s, n)) {
			n = n == 0 ? 1 : n;
			for (k = 0; k < n; k++)
				fprintf(f, "\\x%02x", (unsigned char)s[k]);
		} else {
			(void)fwrite(s, 1, n, f);
		}
	}
}

/*
 * One argument as a shell reads it back: bare when it is only characters
 * no shell treats specially, else in $'...' (bash, zsh, ksh, POSIX.1-2024
 * sh) with \\, \', \n, \t, and \xNN for controls and bytes that are
 * not UTF-8.  So the argv line of trace list/show is printable and still
 * names the bytes that ran.
 */
static void
print_arg(FILE *f, const char *s)
{
	static const char bare[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
	size_t n, k;

	if (s[0] != '\0' && s[strspn(s, bare)] == '\0') {
		fputs(s, f);
		return;
	}
	fputs("$'", f);
	for (; *s != '\0'; s += n) {
		n = cordon_utf8_len(s);
		if (*s == '\\' || *s == '\'') {
			fputc('\\', f);
			fputc(*s, f);
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else if (*s == '\t') {
			fputs("\\t", f);
		} else if (n == 0 || cordon_utf8_is_control(s, n)) {
			n = n == 0 ? 1 : n;
			for (k = 0; k < n; k++)
				fprintf(f, "\\x%02x", (unsigned char)s[k]);
		} else {
			(void)fwrite(s, 1, n, f);
		}
	}
	fputc('\'', f);
}

/* argv as one shell line for humans (the JSON has it exactly). */
static void
print_argv(FILE *f, const struct cordon_result *r)
{
	size_t i;

	for (i = 0; i < r->argc; i++) {
		fputs(i == 0 ? "" : " ", f);
		print_arg(f, r->argv[i]);
	}
}

static int
list_one(const struct cordon_result *r, void *arg)
{
	struct cordon_json *j = arg;
	char when[32], code[16];

	if (j != NULL) {
		cordon_json_obj_begin(j);
		cordon_result_json_fields(r, j);
		cordon_json_obj_end(j);
		return 0;
	}
	iso_time(when, sizeof(when), r->created_ms);
	if (r->outcome == CORDON_OUTCOME_EXITED)
		snprintf(code, sizeof(code), "%d", r->exit_code);
	else if (r->outcome == CORDON_OUTCOME_SIGNALED)
		snprintf(code, sizeof(code), "sig%d", r->signal);
	else
		snprintf(code, sizeof(code), "-");
	printf("%s  %s  %-8s  %-13s  %-5s  %-9s  %8.3fs  ", r->run_id, when,
	    r->backend != 0 ? cordon_backend_name(r->backend) : "-",
	    r->outcome != 0 ? cordon_outcome_name(r->outcome) : "running",
	    code, r->cap != 0 ? cordon_cap_name(r->cap) : "-",
	    (double)r->wall_ns / 1e9);
	print_argv(stdout, r);
	putchar('\n');
	return 0;
}

static int
event_json(const struct cordon_trace_event *ev, void *arg)
{
	struct cordon_json *j = arg;

	cordon_json_obj_begin(j);
	cordon_json_key(j, "ts_ms");
	cordon_json_i64(j, ev->ts_ms);
	cordon_json_key(j, "kind");
	cordon_json_str(j, ev->kind);
	cordon_json_key(j, "detail");
	cordon_json_str(j, ev->detail);
	cordon_json_obj_end(j);
	return 0;
}

static int
event_text(const struct cordon_trace_event *ev, void *arg)
{
	char when[32];

	(void)arg;
	iso_time(when, sizeof(when), ev->ts_ms);
	printf("  %s.%03d  %-9s ", when, (int)(ev->ts_ms % 1000), ev->kind);
	print_text(stdout, ev->detail != NULL ? ev->detail : "");
	putchar('\n');
	return 0;
}

/* trace show RUN_ID, for a person; every stored string through print_text. */
static int
show_text(struct cordon_trace *t, const struct cordon_result *r)
{
	char when[32], why[256], lim[32];
	int c;

	iso_time(when, sizeof(when), r->created_ms);
	printf("run       %s\ncreated   %s\nuser      ", r->run_id, when);
	print_text(stdout, r->user);
	printf(" (uid %u)\ncwd       ", r->uid);
	print_text(stdout, r->cwd);
	printf("\nargv      ");
	print_argv(stdout, r);
	printf("\nbackend   %s (",
	    r->backend != 0 ? cordon_backend_name(r->backend) : "-");
	print_text(stdout, r->backend_reason);
	printf(")\noutcome   %s\n", r->outcome != 0 ?
	    cordon_outcome_name(r->outcome) : "running or unknown");
	if (r->outcome == CORDON_OUTCOME_EXITED)
		printf("exit      %d\n", r->exit_code);
	if (r->signal != 0)
		printf("signal    %d\n", r->signal);
	if (r->cap != 0) {
		format_limit(lim, sizeof(lim), r->cap,
		    cordon_config_get_limit(&(cordon_config){
		    .limits = r->limits }, r->cap));
		printf("cap       %s (%s)\n", cordon_cap_name(r->cap), lim);
	}
	printf("cpu       %.3f s\nwall      %.3f s\nmax rss   %llu "
	    "bytes\nworkdir   ", (double)r->cpu_ns / 1e9,
	    (double)r->wall_ns / 1e9, (unsigned long long)r->max_rss);
	print_text(stdout, r->workdir);
	printf(" (%s)\n", r->workdir_removed == 1 ? "removed" :
	    r->workdir_removed == 0 ? "NOT removed" : "unknown");
	for (c = 1; c < CORDON_CAP_MAX_; c++)
		if (cordon_not_applied_reason(r, c, why, sizeof(why)) != NULL) {
			printf("unapplied %s: ", cordon_cap_name(c));
			print_text(stdout, why);
			putchar('\n');
		}
	if (r->egress) {
		printf("egress    only ");
		for (c = 0; (size_t)c < r->nallow_hosts; c++) {
			fputs(c == 0 ? "" : ", ", stdout);
			print_text(stdout, r->allow_hosts[c]);
		}
		printf(" (--allow-host; each connection is an egress event)\n");
	}
	if (r->error != NULL) {
		printf("error     ");
		print_text(stdout, r->error);
		putchar('\n');
	}
	printf("events\n");
	return cordon_trace_get_events(t, r->run_id, event_text, NULL);
}

/* One run with its events, as a JSON object into j. */
static int
run_json(struct cordon_trace *t, const struct cordon_result *r,
    struct cordon_json *j)
{
	cordon_json_obj_begin(j);
	cordon_result_json_fields(r, j);
	cordon_json_key(j, "events");
	cordon_json_arr_begin(j);
	if (cordon_trace_get_events(t, r->run_id, event_json, j) < 0)
		return -1;
	cordon_json_arr_end(j);
	cordon_json_obj_end(j);
	return 0;
}

static int
print_json(struct cordon_json *j)
{
	char *s;
	int err;

	if ((s = cordon_json_finish(j, &err)) == NULL) {
		fprintf(stderr, "cordon: cannot format JSON: %s\n",
		    cordon_strerror(err));
		return EXIT_SANDBOX;
	}
	printf("%s\n", s);
	free(s);
	return 0;
}

static int
export_one(const struct cordon_result *r, void *arg)
{
	struct cordon_trace *t = arg;
	struct cordon_json j;

	cordon_json_init(&j);
	if (run_json(t, r, &j) < 0) {
		cordon_json_free(&j);
		return -1;
	}
	return print_json(&j) == 0 ? 0 : -1;
}

/* trace list [--json]: the latest runs, 20 unless --limit says. */
static int
trace_list(struct cordon_trace *t, const struct opts *o, int *rc)
{
	struct cordon_json j;
	int err;

	cordon_json_init(&j);
	if (o->json)
		cordon_json_arr_begin(&j);
	err = cordon_trace_list(t, o->limit == 0 && !o->json ? 20 : o->limit,
	    list_one, o->json ? &j : NULL);
	if (o->json) {
		cordon_json_arr_end(&j);
		if (err == 0)
			*rc = print_json(&j);
	}
	cordon_json_free(&j);
	return err;
}

/* trace show RUN_ID [--json]: one run and its events. */
static int
trace_show(struct cordon_trace *t, const char *id, const struct opts *o,
    int *rc)
{
	struct cordon_result r;
	struct cordon_json j;
	int err;

	memset(&r, 0, sizeof(r));
	cordon_json_init(&j);
	err = cordon_trace_get(t, id, &r);
	if (err == -CORDON_E_NOTFOUND) {
		fprintf(stderr, "cordon: no run %s in the trace\n", id);
		*rc = EXIT_SANDBOX;
		err = 0;
	} else if (err == 0 && o->json) {
		if ((err = run_json(t, &r, &j)) == 0)
			*rc = print_json(&j);
	} else if (err == 0) {
		err = show_text(t, &r);
	}
	cordon_result_clear(&r);
	cordon_json_free(&j);
	return err;
}

/* cordon trace list | show RUN_ID | export: reads, never writes. */
static int
cmd_trace(int argc, char **argv, cordon_config *cfg)
{
	static const struct {
		const char *name, *allowed;
	} subs[] = {
		{ "list", ALLOW_TRACE_LIST },
		{ "show", ALLOW_TRACE_SHOW },
		{ "export", ALLOW_TRACE_EXPORT },
	};
	struct opts o = OPTS_INIT;
	struct cordon_trace *t = NULL;
	char cmd[32];
	const char *sub;
	size_t k;
	int i, rc = 0, err;

	if (argc < 2)
		usage_error("trace: expected list, show RUN_ID or export");
	sub = argv[1];
	for (k = 0; k < sizeof(subs) / sizeof(subs[0]) &&
	    strcmp(sub, subs[k].name) != 0; k++)
		;
	if (k == sizeof(subs) / sizeof(subs[0]))
		usage_error("trace: unknown subcommand '%s' (list, show, export)",
		    sub);
	(void)snprintf(cmd, sizeof(cmd), "trace %s", sub);
	i = parse_opts(argc - 1, argv + 1, cfg, &o, cmd, subs[k].allowed) + 1;
	if (strcmp(sub, "show") == 0 ? i != argc - 1 : i != argc)
		usage_error("trace %s: unexpected arguments", sub);
	if (strcmp(sub, "show") == 0 && !cordon_run_id_valid(argv[i]))
		usage_error("trace show: '%s' is not a run id (32 hex digits)",
		    argv[i]);
	if (open_trace(cfg, &t) < 0)
		return EXIT_SANDBOX;
	if (strcmp(sub, "list") == 0)
		err = trace_list(t, &o, &rc);
	else if (strcmp(sub, "export") == 0)
		err = cordon_trace_list(t, 0, export_one, t);
	else
		err = trace_show(t, argv[i], &o, &rc);
	if (err < 0) {
		fprintf(stderr, "cordon: reading the trace failed: %s\n",
		    cordon_strerror(err));
		rc = EXIT_SANDBOX;
	}
	cordon_trace_close(t);
	return rc;
}

static int
cmd_gc(int argc, char **argv, cordon_config *cfg)
{
	struct opts o = OPTS_INIT;
	struct cordon_trace *t = NULL;
	char msg[256] = "";
	int r, marked, rc = 0;

	if (parse_opts(argc, argv, cfg, &o, "gc", ALLOW_GC) != argc)
		usage_error("gc: unexpected arguments");
	if ((r = cordon_gc(cfg, msg, sizeof(msg))) < 0) {
		fprintf(stderr, "cordon: gc: %s\n", msg[0] != '\0' ? msg :
		    cordon_strerror(r));
		rc = EXIT_SANDBOX;
	} else {
		printf("%s\n", msg);
	}
	if (open_trace(cfg, &t) < 0)
		return EXIT_SANDBOX;
	if ((marked = cordon_trace_reconcile(t)) < 0) {
		fprintf(stderr, "cordon: gc: reconciling the trace failed\n");
		rc = EXIT_SANDBOX;
	} else {
		printf("marked %d unfinished run(s) whose broker is gone\n",
		    marked);
	}
	cordon_trace_close(t);
	return rc;
}

struct probe_out {
	struct cordon_json *j;   /* NULL: text */
};

static int
print_fact(const char *key, const char *value, void *arg)
{
	struct probe_out *po = arg;

	if (po->j != NULL) {
		cordon_json_key(po->j, key);
		cordon_json_str(po->j, value);
	} else {
		printf("%-28s %s\n", key, value);
	}
	return 0;
}

static int
cmd_probe(int argc, char **argv, cordon_config *cfg)
{
	struct opts o = OPTS_INIT;
	enum cordon_backend_id b = CORDON_BACKEND_FLOOR;
	struct cordon_json j;
	struct probe_out po = { NULL };
	char reason[CORDON_MAX_TEXT_LEN];
	int r, rc;

	if (parse_opts(argc, argv, cfg, &o, "probe", ALLOW_PROBE) != argc)
		usage_error("probe: unexpected arguments");
	cordon_json_init(&j);
	if (o.json) {
		po.j = &j;
		cordon_json_obj_begin(&j);
	}
	r = cordon_probe(cfg, print_fact, &po, &b, reason, sizeof(reason));
	if (r < 0 && r != -CORDON_E_UNAVAIL) {
		cordon_json_free(&j);
		fprintf(stderr, "cordon: probe failed: %s\n", cordon_strerror(r));
		return EXIT_SANDBOX;
	}
	rc = r < 0 ? EXIT_SANDBOX : 0;
	if (o.json) {
		cordon_json_key(&j, "backend");
		cordon_json_str(&j, r < 0 ? NULL : cordon_backend_name(b));
		cordon_json_key(&j, "backend_reason");
		cordon_json_str(&j, reason);
		cordon_json_obj_end(&j);
		if (print_json(&j) != 0)
			rc = EXIT_SANDBOX;
	} else {
		printf("%-28s %s\n%-28s %s\n", "backend", r < 0 ? "none" :
		    cordon_backend_name(b), "backend_reason", reason);
		if (r == 0 && b == CORDON_BACKEND_FLOOR)
			printf("%-28s %s\n", "note", "the floor is not a jail: "
			    "no file-system or network boundary");
		if (r == 0 && b == CORDON_BACKEND_LANDLOCK)
			printf("%-28s %s\n", "note", "landlock confines writes "
			    "and reads to the workdir and system directories, "
			    "and TCP, signals and abstract sockets as its ABI "
			    "allows; no private root or namespaces");
	}
	cordon_json_free(&j);
	return rc;
}

/*
 * The host patterns of a file the policy parser read as text (the helper
 * links that parser and never sees a pattern): allow_hosts_max's, or a
 * profile's allow_hosts, each as --allow-host parses it.
 */
static int
egress_check(enum cordon_policy_kind got, const struct cordon_policy *pol,
    const struct cordon_profile *prof, char *err, size_t errsz)
{
	struct cordon_egress_pattern *max, p;
	char why[CORDON_MAX_TEXT_LEN];
	size_t i, n = 0;
	int r = 0;

	if (got == CORDON_KIND_POLICY && pol->allow_hosts_max_set) {
		if ((max = calloc(CORDON_EGRESS_MAX_PATTERNS,
		    sizeof(*max))) == NULL)
			return -CORDON_E_NOMEM;
		r = cordon_egress_ceiling_parse(pol, max,
		    CORDON_EGRESS_MAX_PATTERNS, &n, err, errsz);
		free(max);
	}
	for (i = 0; got == CORDON_KIND_PROFILE && r == 0 &&
	    i < prof->nallow_hosts; i++)
		if ((r = cordon_egress_pattern_parse(prof->allow_hosts[i], &p,
		    why, sizeof(why))) < 0)
			if (snprintf(err, errsz, "%s: allow_hosts: %s", prof->path,
			    why + strlen("--allow-host ")) < 0)
				err[0] = '\0';
	return r;
}

/* cordon policy check FILE [--kind policy|profile]: validates, runs nothing. */
static int
cmd_policy(int argc, char **argv, cordon_config *cfg)
{
	struct opts o = OPTS_INIT;
	enum cordon_policy_kind got = CORDON_KIND_ANY;
	struct cordon_policy pol;
	struct cordon_profile prof;
	char err[CORDON_MAX_TEXT_LEN] = "", *text = NULL;
	size_t len = 0;
	int i;

	if (argc < 2 || strcmp(argv[1], "check") != 0)
		usage_error("policy: expected 'check FILE [--kind policy|profile]'");
	argc--;
	argv++;
	i = parse_opts(argc, argv, cfg, &o, "policy check", ALLOW_POLICY);
	if (i != argc - 1)
		usage_error("policy check: expected one FILE");
	cordon_profile_init(&prof);
	/* Owned by root or by you (a draft), and not writable by others. */
	if (cordon_policy_read_file(argv[i], cordon_policy_self(), opt_kind,
	    &got, &pol, &prof, err, sizeof(err)) < 0 ||
	    egress_check(got, &pol, &prof, err, sizeof(err)) < 0) {
		cordon_profile_free(&prof);
		fprintf(stderr, "cordon: %s\n", err);
		return EXIT_SANDBOX;
	}
	cordon_profile_free(&prof);
	printf("%s: ok (%s)\n", argv[i], got == CORDON_KIND_POLICY ?
	    "system policy" : "profile");
	/* Allowed as your draft, but the helper would refuse it. */
	if (got == CORDON_KIND_POLICY && cordon_policy_read_text(argv[i],
	    (uid_t)-1, &text, &len, err, sizeof(err)) == -CORDON_E_POLICY)
		printf("note: as the system policy it would be refused: %s\n",
		    err);
	free(text);
	return 0;
}

/*
 * stdout's error flag is sticky: one check here covers every printf
 * before it.  A listing or an export cut short by a full disk or a
 * closed pipe must not exit 0 as if the record were complete.
 */
static int
stdout_checked(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cordon: error writing to standard output\n");
		return EXIT_SANDBOX;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	cordon_config *cfg;
	char names[128];
	int rc;

	if (argc < 2)
		usage_error("no command given");
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		fputs(usage_text, stdout);
		printf("\nbackends here: %s\n", cordon_backends_here(names,
		    sizeof(names)));
		return stdout_checked(0);
	}
	if (strcmp(argv[1], "version") == 0 ||
	    strcmp(argv[1], "--version") == 0) {
		printf("cordon %s\n", PACKAGE_VERSION);
		return stdout_checked(0);
	}
	if ((cfg = cordon_config_new()) == NULL) {
		fprintf(stderr, "cordon: out of memory\n");
		return EXIT_SANDBOX;
	}
	if (strcmp(argv[1], "run") == 0)
		rc = cmd_run(argc - 1, argv + 1, cfg);
	else if (strcmp(argv[1], "trace") == 0)
		rc = cmd_trace(argc - 1, argv + 1, cfg);
	else if (strcmp(argv[1], "gc") == 0)
		rc = cmd_gc(argc - 1, argv + 1, cfg);
	else if (strcmp(argv[1], "probe") == 0)
		rc = cmd_probe(argc - 1, argv + 1, cfg);
	else if (strcmp(argv[1], "policy") == 0)
		rc = cmd_policy(argc - 1, argv + 1, cfg);
	else
		usage_error("unknown command '%s'", argv[1]);
	cordon_config_free(cfg);
	return stdout_checked(rc);
}
