/*
 * test_sbpl.c - tests for helper/sbpl.c, the seatbelt profile generator.
 *
 * Two kinds of check over a matrix of run options (network on and off,
 * an egress port, --ro-bind sources, paths with spaces, quotes,
 * backslashes, parentheses, newlines and non-ASCII bytes):
 *
 * - rules, in C: (version 1) and (deny default) first; no write outside
 *   the workdir and the listed devices; no network rule without
 *   --network (an egress port opens localhost:PORT alone); no path in
 *   the text (not one '/'), every (param) passed; the size bound;
 * - the TinyScheme check: each profile is evaluated by Debian's
 *   tinyscheme with a prelude this file writes from helper/sbpl_names.h,
 *   in which every allowed operation, filter, symbol and modifier is a
 *   stub that checks its arguments.  An unknown or misspelt name is an
 *   unbound variable, an unbalanced form swallows or breaks the end
 *   marker, a (param) not passed with -D or a string where a path
 *   parameter belongs fails a stub.  Broken profiles show it can fail.
 *
 * Without tinyscheme the rule tests still run, and the suite says so
 * and exits 77 (skipped), never passed.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbpl.h"

#define TINYSCHEME "/usr/bin/tinyscheme"
#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool have_scheme;

/* ---- the TinyScheme prelude, written from sbpl_names.h ------------------ */

static const char prelude_head[] =
"(define (sbpl-fail . why)\n"
"  (display \"sbpl-check: \") (for-each display why) (newline)\n"
"  (error \"sbpl-check failed\"))\n"
"(define (sbpl-is? x t) (and (pair? x) (eq? (car x) t)))\n"
"(define sbpl-rules 0)\n"
"(define sbpl-versioned #f)\n"
"(define (sbpl-param-ref key)\n"
"  (if (not (string? key)) (sbpl-fail \"param: the key is not a string\"))\n"
"  (if (not (memq (string->symbol key) sbpl-params))\n"
"      (sbpl-fail \"param not passed with -D: \" key))\n"
"  (list 'param key))\n"
"(define param sbpl-param-ref)\n"
"(define (sbpl-filter name args kind)\n"
"  (cond\n"
"   ((eq? kind 'path)\n"
"    (if (not (and (= (length args) 1) (sbpl-is? (car args) 'param)))\n"
"        (sbpl-fail name \": a path must be one (param \\\"KEY\\\"), not \" args)))\n"
"   ((eq? kind 'name)\n"
"    (if (not (and (= (length args) 1) (string? (car args))))\n"
"        (sbpl-fail name \": wants one string\")))\n"
"   ((eq? kind 'symbol)\n"
"    (if (not (and (= (length args) 1) (sbpl-is? (car args) 'symbol)\n"
"                  (eq? (caddr (car args)) name)))\n"
"        (sbpl-fail name \": not one of its symbols: \" args)))\n"
"   ((eq? kind 'address)\n"
"    (if (not (and (= (length args) 2) (sbpl-is? (car args) 'symbol)\n"
"                  (eq? (caddr (car args)) name) (string? (cadr args))\n"
"                  (sbpl-local-port? (cadr args))))\n"
"        (sbpl-fail name \": wants a symbol and \\\"localhost:PORT\\\": \" args)))\n"
"   ((eq? kind 'filters)\n"
"    (if (or (null? args) (not (sbpl-all-filters? args)))\n"
"        (sbpl-fail name \": wants one or more filters\")))\n"
"   ((eq? kind 'filter)\n"
"    (if (not (and (= (length args) 1) (sbpl-all-filters? args)))\n"
"        (sbpl-fail name \": wants exactly one filter\"))))\n"
"  (list 'filter name))\n"
"(define (sbpl-all-filters? l)\n"
"  (or (null? l) (and (sbpl-is? (car l) 'filter) (sbpl-all-filters? (cdr l)))))\n"
/* (string->list and string=? of Debian's init.scm fail: not used.) */
"(define (sbpl-local-port? s)\n"
"  (and (> (string-length s) 10)\n"
"       (eq? (string->symbol (substring s 0 10)) (string->symbol \"localhost:\"))\n"
"       (let ((n (string->number (substring s 10 (string-length s)))))\n"
"         (and n (integer? n) (> n 0) (< n 65536)))))\n"
"(define (with . args)\n"
"  (if (not (and (= (length args) 1) (sbpl-is? (car args) 'modifier)))\n"
"      (sbpl-fail \"with: wants one modifier: \" args))\n"
"  (list 'with))\n"
/* ops first (at least one), then filters, then (with ...) modifiers. */
"(define (sbpl-rule action args)\n"
"  (if (not sbpl-versioned) (sbpl-fail action \" before (version 1)\"))\n"
"  (if (and (= sbpl-rules 0)\n"
"           (not (and (eq? action 'deny) (= (length args) 1)\n"
"                     (eq? (car args) default))))\n"
"      (sbpl-fail \"the first rule must be (deny default)\"))\n"
"  (if (not (and (pair? args) (sbpl-is? (car args) 'op)))\n"
"      (sbpl-fail action \": no operation\"))\n"
"  (let loop ((l args) (stage 'op))\n"
"    (if (pair? l)\n"
"        (let ((x (car l)))\n"
"          (cond ((and (eq? stage 'op) (sbpl-is? x 'op)) (loop (cdr l) 'op))\n"
"                ((and (not (eq? stage 'with)) (sbpl-is? x 'filter))\n"
"                 (loop (cdr l) 'filter))\n"
"                ((sbpl-is? x 'with) (loop (cdr l) 'with))\n"
"                (else (sbpl-fail action \": out of place: \" x))))))\n"
"  (set! sbpl-rules (+ sbpl-rules 1)))\n"
"(define (allow . args) (sbpl-rule 'allow args))\n"
"(define (deny . args) (sbpl-rule 'deny args))\n"
"(define (version . args)\n"
"  (if (or sbpl-versioned (not (and (= (length args) 1) (eqv? (car args) 1))))\n"
"      (sbpl-fail \"(version 1) must come first, once\"))\n"
"  (set! sbpl-versioned #t))\n"
/*
 * Reads the profile form by form: each must be one of the language's
 * top-level forms (so no Scheme builtin slips through), and the last
 * must be the end marker the test appended, which an unclosed form
 * swallows; a stray ')' is a reader error.
 */
"(define (sbpl-check-file path)\n"
"  (let ((port (open-input-file path)))\n"
"    (let loop ((form (read port)) (ended #f))\n"
"      (cond ((eof-object? form)\n"
"             (if (not ended) (sbpl-fail \"unbalanced: the end marker was never read\"))\n"
"             (display \"sbpl-check: ok, \") (display sbpl-rules)\n"
"             (display \" rules\") (newline))\n"
"            (ended (sbpl-fail \"a form after the end marker\"))\n"
"            ((and (pair? form) (eq? (car form) 'sbpl-check-end) (null? (cdr form)))\n"
"             (loop (read port) #t))\n"
"            ((not (and (pair? form) (memq (car form) '(version allow deny))))\n"
"             (sbpl-fail \"not an SBPL rule: \" form))\n"
"            (else (eval form) (loop (read port) #f))))))\n";

static char *
prelude(char *const *keys, size_t nkeys)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	fputs(prelude_head, f);
	for (i = 0; i < SBPL_OP_N_; i++)
		fprintf(f, "(define %s (list 'op \"%s\"))\n", sbpl_op_names[i],
		    sbpl_op_names[i]);
	for (i = 0; i < SBPL_SYMBOL_N_; i++)
		fprintf(f, "(define %s (list 'symbol '%s '%s))\n",
		    sbpl_symbol_names[i], sbpl_symbol_names[i],
		    sbpl_filter_names[sbpl_symbol_filters[i]]);
	for (i = 0; i < SBPL_FILTER_N_; i++) {
		static const char *const kinds[] = {
			[SBPL_ARG_PATH] = "path", [SBPL_ARG_NAME] = "name",
			[SBPL_ARG_SYMBOL] = "symbol",
			[SBPL_ARG_ADDRESS] = "address",
			[SBPL_ARG_FILTERS] = "filters",
			[SBPL_ARG_FILTER] = "filter",
		};
		fprintf(f, "(define (%s . a) (sbpl-filter '%s a '%s))\n",
		    sbpl_filter_names[i], sbpl_filter_names[i],
		    kinds[sbpl_filter_args[i]]);
	}
	for (i = 0; i < SBPL_MODIFIER_N_; i++)
		if (i != SBPL_M_WITH)
			fprintf(f, "(define %s (list 'modifier \"%s\"))\n",
			    sbpl_modifier_names[i], sbpl_modifier_names[i]);
	fputs("(define sbpl-params (list", f);
	for (i = 0; i < nkeys; i++)
		fprintf(f, " (string->symbol \"%s\")", keys[i]);
	fputs("))\n", f);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static void
write_file(const char *path, const char *a, const char *b)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(a, f);
	if (b != NULL)
		fputs(b, f);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * Evaluates text under the prelude with these -D keys: true if
 * tinyscheme exited 0 having read the end marker.  *out: what it said.
 */
static bool
scheme_ok(const char *text, char *const *keys, size_t nkeys, char **out)
{
	char dir[] = "/tmp/test_sbpl.XXXXXX", check[64], prof[64], outp[64];
	char *pre, *argv[] = { TINYSCHEME, check, NULL }, *log = NULL;
	size_t loglen = 0;
	FILE *f;
	pid_t pid;
	int status = -1, fd, c, tries;
	bool ok;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(check, sizeof(check), "%s/check.scm", dir);
	snprintf(prof, sizeof(prof), "%s/profile.sb", dir);
	snprintf(outp, sizeof(outp), "%s/out", dir);
	pre = prelude(keys, nkeys);
	write_file(prof, text, "\n(sbpl-check-end)\n");
	write_file(check, pre, NULL);
	f = fopen(check, "a");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "(sbpl-check-file \"%s\")\n", prof);
	ck_assert_int_eq(fclose(f), 0);
	free(pre);

	/*
	 * The machine is shared: a fork refused for a moment is retried.
	 * So is a tinyscheme that died of a signal: Debian's 1.42 segfaulted
	 * on about one run in 400 here, on input it then accepted, so a
	 * crash is no verdict on the profile; three in a row fail the test.
	 */
	for (tries = 0; tries < 3; tries++) {
		for (c = 0; (pid = fork()) < 0 && errno == EAGAIN && c < 50;
		    c++)
			usleep(100000);
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			fd = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(126);
			execv(argv[0], argv);
			_exit(126);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		if (!WIFSIGNALED(status))
			break;
	}
	f = fopen(outp, "r");
	ck_assert_ptr_nonnull(f);
	{
		FILE *m = open_memstream(&log, &loglen);

		ck_assert_ptr_nonnull(m);
		while ((c = fgetc(f)) != EOF)
			fputc(c, m);
		fprintf(m, "[tinyscheme: wait status %d]", status);
		ck_assert_int_eq(fclose(m), 0);
	}
	fclose(f);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 126)
		ck_abort_msg("could not start %s", TINYSCHEME);
	ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    strstr(log, "sbpl-check: ok") != NULL;
	unlink(check);
	unlink(prof);
	unlink(outp);
	rmdir(dir);
	if (out != NULL)
		*out = log;
	else
		free(log);
	return ok;
}

/* The keys of p, for the prelude. */
static char **
keys_of(const struct sbpl_profile *p)
{
	char **k = calloc(p->nparams + 1, sizeof(*k));
	size_t i;

	ck_assert_ptr_nonnull(k);
	for (i = 0; i < p->nparams; i++)
		k[i] = (char *)p->params[i].key;
	return k;
}

/* ---- the option matrix ----------------------------------------------------- */

static const char *const odd_paths[] = {
	"/Users/a b/work dir",
	"/private/tmp/q\"uote",
	"/private/tmp/back\\slash",
	"/private/tmp/pa(ren)s)",
	"/private/tmp/new\nline",
	("/Users/\xc3\xbcn\xc3\xaf/c\xc3\xb4" "de"),
	"/private/tmp/semi;colon\")(allow default)(",
	"/private/tmp/#|comment",
};

struct variant {
	const char *workdir, *home;
	bool network;
	uint16_t port;
	size_t nbinds;
};

/* Every combination: 8 workdirs x (home or not) x 3 network x 0..3 binds. */
static size_t
variant(size_t i, struct variant *v)
{
	size_t n = N(odd_paths) * 2 * 3 * 4;

	if (v == NULL)
		return n;
	v->workdir = odd_paths[i % N(odd_paths)];
	i /= N(odd_paths);
	v->home = i % 2 == 0 ? odd_paths[(i / 2) % N(odd_paths)] : NULL;
	i /= 2;
	v->network = i % 3 == 1;
	v->port = i % 3 == 2 ? 3128 : 0;
	i /= 3;
	v->nbinds = i % 4;
	return n;
}

static int
generate(const struct variant *v, struct sbpl_profile *p, char *err,
    size_t errsz)
{
	struct sbpl_options o = {
		.workdir = v->workdir, .home = v->home,
		.ro_binds = odd_paths, .nro_binds = v->nbinds,
		.network = v->network, .egress_port = v->port,
	};

	return sbpl_generate(&o, p, err, errsz);
}

static const char *
value_of(const struct sbpl_profile *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nparams; i++)
		if (strcmp(p->params[i].key, key) == 0)
			return p->params[i].value;
	return NULL;
}

/* The keys of every (param "KEY") on one line, in *keys; how many. */
static size_t
line_params(const char *line, size_t len, char keys[][SBPL_MAX_KEY],
    size_t max)
{
	const char *c = line, *end = line + len, *q;
	size_t n = 0;

	while ((c = strstr(c, "(param \"")) != NULL && c < end) {
		c += strlen("(param \"");
		q = strchr(c, '"');
		ck_assert_ptr_nonnull(q);
		ck_assert_uint_lt((size_t)(q - c), SBPL_MAX_KEY);
		ck_assert_uint_lt(n, max);
		memcpy(keys[n], c, (size_t)(q - c));
		keys[n][q - c] = '\0';
		n++;
	}
	return n;
}

static bool
writes_something(const char *line, size_t len)
{
	static const char *const w[] = { "file-write", "file-ioctl" };
	size_t i;

	for (i = 0; i < N(w); i++) {
		const char *c = strstr(line, w[i]);

		if (c != NULL && c < line + len)
			return true;
	}
	return false;
}

/* ---- rules ------------------------------------------------------------------- */

START_TEST(deny_default_first)
{
	struct variant v;
	struct sbpl_profile p;
	char err[256];

	variant((size_t)_i, &v);
	ck_assert_int_eq(generate(&v, &p, err, sizeof(err)), 0);
	ck_assert_ptr_eq(strstr(p.text, "(version 1)\n(deny default)\n"),
	    p.text);
	/* Nothing else is denied: the exceptions live inside allows. */
	ck_assert_ptr_null(strstr(p.text + strlen("(version 1)\n(deny default)\n"),
	    "(deny "));
	ck_assert_uint_eq(strlen(p.text), p.len);
	sbpl_free(&p);
}
END_TEST

START_TEST(writes_only_workdir_and_devices)
{
	static const char *const ok[] = { "WORKDIR", "DEV_NULL", "DEV_ZERO",
	    "DEV_PTMX", "DEV_TTYS" };
	char keys[64][SBPL_MAX_KEY];
	struct variant v;
	struct sbpl_profile p;
	const char *line, *nl;
	size_t n, k, j, writers = 0;
	char err[256];

	variant((size_t)_i, &v);
	ck_assert_int_eq(generate(&v, &p, err, sizeof(err)), 0);
	for (line = p.text; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		if (!writes_something(line, (size_t)(nl - line)))
			continue;
		writers++;
		ck_assert_ptr_eq(strstr(line, "(allow "), line);
		n = line_params(line, (size_t)(nl - line), keys, N(keys));
		/* A write rule with no path filter would allow every path. */
		ck_assert_uint_ge(n, 1);
		for (k = 0; k < n; k++) {
			for (j = 0; j < N(ok); j++)
				if (strcmp(keys[k], ok[j]) == 0)
					break;
			ck_assert_msg(j < N(ok), "write rule over %s: %.*s",
			    keys[k], (int)(nl - line), line);
		}
	}
	ck_assert_uint_eq(writers, 5);
	ck_assert_str_eq(value_of(&p, "WORKDIR"), v.workdir);
	ck_assert_str_eq(value_of(&p, "DEV_NULL"), "/dev/null");
	ck_assert_str_eq(value_of(&p, "DEV_ZERO"), "/dev/zero");
	sbpl_free(&p);
}
END_TEST

START_TEST(network_only_when_asked)
{
	struct variant v;
	struct sbpl_profile p;
	char err[256];

	variant((size_t)_i, &v);
	ck_assert_int_eq(generate(&v, &p, err, sizeof(err)), 0);
	if (v.network) {
		ck_assert_ptr_nonnull(strstr(p.text, "(allow network*)\n"));
		ck_assert_ptr_nonnull(strstr(p.text, "(allow system-socket)\n"));
	} else if (v.port != 0) {
		const char *c = strstr(p.text, "network");

		ck_assert_ptr_nonnull(c);
		ck_assert_ptr_eq(strstr(p.text, "(allow network-outbound "
		    "(remote ip \"localhost:3128\"))\n"), c - strlen("(allow "));
		ck_assert_ptr_null(strstr(c + 1, "network"));
		ck_assert_ptr_null(strstr(p.text, "system-socket"));
	} else {
		ck_assert_ptr_null(strstr(p.text, "network"));
		ck_assert_ptr_null(strstr(p.text, "remote"));
		ck_assert_ptr_null(strstr(p.text, "system-socket"));
	}
	sbpl_free(&p);
}
END_TEST

START_TEST(paths_only_as_params)
{
	char keys[64][SBPL_MAX_KEY];
	struct variant v;
	struct sbpl_profile p;
	const char *line, *nl;
	size_t n, k, i, used = 0;
	char err[256], name[SBPL_MAX_KEY + 24];

	variant((size_t)_i, &v);
	ck_assert_int_eq(generate(&v, &p, err, sizeof(err)), 0);
	/* No path is in the text: not one '/', not one of its bytes' runs. */
	ck_assert_ptr_null(strchr(p.text, '/'));
	ck_assert_ptr_null(strchr(p.text, '\\'));
	for (i = 0; i < p.nparams; i++)
		ck_assert_ptr_null(strstr(p.text, p.params[i].value));
	/* Every (param) used was passed, and every one passed is used. */
	for (line = p.text; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		n = line_params(line, (size_t)(nl - line), keys, N(keys));
		for (k = 0; k < n; k++)
			ck_assert_ptr_nonnull(value_of(&p, keys[k]));
		used += n;
	}
	ck_assert_uint_eq(used, p.nparams);
	for (i = 0; i < p.nparams; i++) {
		snprintf(name, sizeof(name), "\"%s\"", p.params[i].key);
		ck_assert_ptr_nonnull(strstr(p.text, name));
	}
	/* The values are the paths given, byte for byte. */
	for (i = 0; i < v.nbinds; i++) {
		snprintf(name, sizeof(name), "RO_%zu", i);
		ck_assert_str_eq(value_of(&p, name), odd_paths[i]);
	}
	ck_assert_ptr_null(value_of(&p, v.nbinds == 0 ? "RO_0" : "RO_3"));
	if (v.home != NULL) {
		char want[SBPL_MAX_PATH * 2];

		for (i = 0; i < sbpl_home_secrets_n; i++) {
			snprintf(name, sizeof(name), "SECRET_%zu", i);
			snprintf(want, sizeof(want), "%s/%s", v.home,
			    sbpl_home_secrets[i]);
			ck_assert_str_eq(value_of(&p, name), want);
		}
	} else {
		ck_assert_ptr_null(value_of(&p, "SECRET_0"));
	}
	sbpl_free(&p);
}
END_TEST

START_TEST(secrets_stay_unreadable)
{
	static const char *const must[] = { ".ssh", ".gnupg", ".aws", ".netrc",
	    "Library/Keychains", "Library/Application Support/Google/Chrome",
	    "Library/Application Support/Firefox", "Library/Safari",
	    "Library/Application Support/cordon/trace.db" };
	struct sbpl_options o = { .workdir = "/private/var/w", .home = "/" };
	struct sbpl_profile p;
	char err[256], key[SBPL_MAX_KEY + 8], want[96];
	size_t i, j;

	for (i = 0; i < N(must); i++) {
		for (j = 0; j < sbpl_home_secrets_n; j++)
			if (strcmp(must[i], sbpl_home_secrets[j]) == 0)
				break;
		ck_assert_msg(j < sbpl_home_secrets_n, "%s readable", must[i]);
	}
	/* Each secret is a require-not of the one broad read rule. */
	ck_assert_int_eq(sbpl_generate(&o, &p, err, sizeof(err)), 0);
	for (j = 0; j < sbpl_home_secrets_n; j++) {
		snprintf(key, sizeof(key), "SECRET_%zu", j);
		snprintf(want, sizeof(want),
		    "(require-not (subpath (param \"%s\")))", key);
		ck_assert_ptr_nonnull(strstr(p.text, want));
		/* HOME "/": "/.ssh", not "//.ssh". */
		ck_assert_int_eq(value_of(&p, key)[1], sbpl_home_secrets[j][0]);
	}
	sbpl_free(&p);
}
END_TEST

START_TEST(network_wins_over_egress)
{
	struct sbpl_options o = { .workdir = "/w/x", .network = true,
	    .egress_port = 8080 };
	struct sbpl_profile p;
	char err[256];

	ck_assert_int_eq(sbpl_generate(&o, &p, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(p.text, "(allow network*)"));
	ck_assert_ptr_null(strstr(p.text, "8080"));
	sbpl_free(&p);
}
END_TEST

START_TEST(bad_options_refused)
{
	static const char *const bad[] = { "relative/w", "", "/", "/a//b",
	    "/a/", "/a/./b", "/a/../b", "/a/..", "/a/.", "//a" };
	static const char *const one[] = { "/ok", "not/absolute" };
	struct sbpl_options o;
	struct sbpl_profile p;
	char err[256], longp[SBPL_MAX_PATH + 2];
	size_t i;

	for (i = 0; i < N(bad); i++) {
		memset(&o, 0, sizeof(o));
		o.workdir = bad[i];
		err[0] = '\0';
		ck_assert_int_eq(sbpl_generate(&o, &p, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, "workdir") != NULL, "%s: %s", bad[i],
		    err);
		ck_assert_ptr_null(p.text);
		ck_assert_ptr_null(p.params);
		ck_assert_uint_eq(p.nparams, 0);
		if (strcmp(bad[i], "/") == 0)
			continue;
		/* The same paths as HOME or as a --ro-bind source. */
		o.workdir = "/w";
		o.home = bad[i];
		ck_assert_int_eq(sbpl_generate(&o, &p, err, sizeof(err)), -1);
		ck_assert_ptr_nonnull(strstr(err, "HOME"));
		o.home = NULL;
		o.ro_binds = (const char *const[]){ "/fine", bad[i] };
		o.nro_binds = 2;
		ck_assert_int_eq(sbpl_generate(&o, &p, err, sizeof(err)), -1);
		ck_assert_ptr_nonnull(strstr(err, "--ro-bind"));
		ck_assert_ptr_null(p.text);
	}
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(sbpl_generate(&o, &p, err, sizeof(err)), -1);
	o.workdir = "/w";
	o.ro_binds = one;
	o.nro_binds = 2;
	ck_assert_int_eq(sbpl_generate(&o, &p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not/absolute"));
	/* Longer than macOS's PATH_MAX. */
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	o.nro_binds = 0;
	o.workdir = longp;
	ck_assert_int_eq(sbpl_generate(&o, &p, err, sizeof(err)), -1);
	longp[SBPL_MAX_PATH] = '\0';
	ck_assert_int_eq(sbpl_generate(&o, &p, err, sizeof(err)), 0);
	sbpl_free(&p);
}
END_TEST

/* Past 65,535 bytes the profile is refused whole, never cut short. */
/*
 * The macOS backend decision (seatbelt_decide.c): sandbox-exec refusing
 * inside another sandbox (exit 71) degrades auto to the floor with that
 * reason, and refuses --backend seatbelt (the run exits 125); the floor
 * claims no sandbox cap.
 */
START_TEST(seatbelt_degrades_to_floor)
{
	static const char why71[] = "/usr/bin/sandbox-exec refused the "
	    "profile (exit 71: sandbox_apply: Operation not permitted)";
	enum cordon_backend_id pick = CORDON_BACKEND_MAX_;
	char reason[256];
	uint32_t sandboxed = 1U << CORDON_CAP_FILESYSTEM |
	    1U << CORDON_CAP_NETWORK | 1U << CORDON_CAP_SCOPING;

	ck_assert_int_eq(seatbelt_decide(CORDON_BACKEND_AUTO, false, why71,
	    &pick, reason, sizeof(reason)), 0);
	ck_assert_int_eq(pick, CORDON_BACKEND_FLOOR);
	ck_assert_ptr_nonnull(strstr(reason, why71));
	ck_assert_ptr_nonnull(strstr(reason, "seatbelt unavailable"));
	ck_assert_uint_eq(seatbelt_applied(pick, false) & sandboxed, 0);
	ck_assert(seatbelt_applied(pick, false) & (1U << CORDON_CAP_MEMORY));

	pick = CORDON_BACKEND_MAX_;
	ck_assert_int_eq(seatbelt_decide(CORDON_BACKEND_SEATBELT, false,
	    why71, &pick, reason, sizeof(reason)), -1);
	ck_assert_int_eq(pick, CORDON_BACKEND_MAX_);
	ck_assert_str_eq(reason, why71);

	ck_assert_int_eq(seatbelt_decide(CORDON_BACKEND_AUTO, true, NULL,
	    &pick, reason, sizeof(reason)), 0);
	ck_assert_int_eq(pick, CORDON_BACKEND_SEATBELT);
	ck_assert_uint_eq(seatbelt_applied(pick, false) & sandboxed,
	    sandboxed);
	/* --network: the profile has no network rule, so no claim. */
	ck_assert_uint_eq(seatbelt_applied(pick, true) &
	    (1U << CORDON_CAP_NETWORK), 0);
	ck_assert_uint_eq(seatbelt_applied(pick, false) &
	    (1U << CORDON_CAP_NPROC), 0);

	ck_assert_int_eq(seatbelt_decide(CORDON_BACKEND_FLOOR, true, NULL,
	    &pick, reason, sizeof(reason)), 0);
	ck_assert_int_eq(pick, CORDON_BACKEND_FLOOR);
	ck_assert_int_eq(seatbelt_decide(CORDON_BACKEND_LINUX_NS, true, NULL,
	    &pick, reason, sizeof(reason)), -1);
	ck_assert_int_eq(seatbelt_decide(CORDON_BACKEND_JOB, true, NULL,
	    &pick, reason, sizeof(reason)), -1);
	ck_assert_ptr_nonnull(strstr(reason, "does not run on macOS"));
}
END_TEST

START_TEST(size_bound)
{
	enum { MAXB = 2000 };
	char **binds = calloc(MAXB, sizeof(*binds));
	struct sbpl_options o = { .workdir = "/w", .home = "/Users/me" };
	struct sbpl_profile p;
	char err[256];
	size_t n, last = 0;

	ck_assert_ptr_nonnull(binds);
	for (n = 0; n < MAXB; n++) {
		ck_assert_int_gt(asprintf(&binds[n], "/ro/%zu", n), 0);
	}
	o.ro_binds = (const char *const *)binds;
	for (n = 0; n < MAXB; n++) {
		o.nro_binds = n;
		if (sbpl_generate(&o, &p, err, sizeof(err)) < 0)
			break;
		ck_assert_uint_le(p.len, SBPL_MAX_PROFILE);
		ck_assert_uint_eq(strlen(p.text), p.len);
		last = p.len;
		sbpl_free(&p);
	}
	ck_assert_uint_lt(n, MAXB);
	ck_assert_msg(strstr(err, "65535") != NULL, "%s", err);
	ck_assert_ptr_null(p.text);
	ck_assert_ptr_null(p.params);
	/* The one that fit came within a rule of the limit. */
	ck_assert_uint_gt(last, SBPL_MAX_PROFILE - 100);
	for (n = 0; n < MAXB; n++)
		free(binds[n]);
	free(binds);
}
END_TEST

/* Every entry of the lists is distinct, and ops never collide. */
START_TEST(names_distinct)
{
	size_t i, j;

	for (i = 0; i < SBPL_OP_N_; i++)
		for (j = i + 1; j < SBPL_OP_N_; j++)
			ck_assert_str_ne(sbpl_op_names[i], sbpl_op_names[j]);
	for (i = 0; i < SBPL_FILTER_N_; i++)
		for (j = 0; j < SBPL_OP_N_; j++)
			ck_assert_str_ne(sbpl_filter_names[i], sbpl_op_names[j]);
	for (i = 0; i < SBPL_SYMBOL_N_; i++)
		ck_assert_int_eq(sbpl_filter_args[sbpl_symbol_filters[i]] ==
		    SBPL_ARG_SYMBOL || sbpl_filter_args[sbpl_symbol_filters[i]]
		    == SBPL_ARG_ADDRESS, 1);
}
END_TEST

/* ---- the TinyScheme check ------------------------------------------------ */

START_TEST(scheme_accepts_every_variant)
{
	struct variant v;
	struct sbpl_profile p;
	char err[256], **keys, *out = NULL;

	variant((size_t)_i, &v);
	ck_assert_int_eq(generate(&v, &p, err, sizeof(err)), 0);
	keys = keys_of(&p);
	ck_assert_msg(scheme_ok(p.text, keys, p.nparams, &out),
	    "tinyscheme refused variant %d:\n%s\n---\n%s", _i, out, p.text);
	free(out);
	/* The same profile with one -D missing fails. */
	ck_assert(p.nparams > 1);
	ck_assert(!scheme_ok(p.text, keys + 1, p.nparams - 1, NULL));
	free(keys);
	sbpl_free(&p);
}
END_TEST

static char *const base_keys[] = { "WORKDIR" };
#define GOOD "(version 1)\n(deny default)\n"

static void
refused(const char *text, const char *why)
{
	char *out = NULL;

	ck_assert_msg(!scheme_ok(text, base_keys, N(base_keys), &out),
	    "accepted: %s", text);
	ck_assert_msg(strstr(out, why) != NULL, "%s: said %s", text, out);
	free(out);
}

/* The check fails each kind of broken profile, and passes its fix. */
START_TEST(scheme_refuses_broken)
{
	static const struct {
		const char *bad, *fixed, *why;
	} cases[] = {
		{ GOOD "(allow file-reed*)\n", GOOD "(allow file-read*)\n",
		  "unbound variable: file-reed*" },
		{ GOOD "(allow file-read* (subpth (param \"WORKDIR\")))\n",
		  GOOD "(allow file-read* (subpath (param \"WORKDIR\")))\n",
		  "unbound variable: subpth" },
		{ GOOD "(allow file-read* (subpath (param \"WORKDIR\"))\n",
		  GOOD "(allow file-read* (subpath (param \"WORKDIR\")))\n",
		  "end marker was never read" },
		{ GOOD "(allow file-read*))\n", GOOD "(allow file-read*)\n",
		  "syntax error" },
		{ GOOD "(allow file-write* (subpath (param \"HOME\")))\n",
		  GOOD "(allow file-write* (subpath (param \"WORKDIR\")))\n",
		  "param not passed with -D: HOME" },
		{ GOOD "(allow file-write* (subpath \"/Users\"))\n",
		  GOOD "(allow file-write* (subpath (param \"WORKDIR\")))\n",
		  "a path must be one (param" },
		{ GOOD "(allow file-read* (literal (param \"WORKDIR\") \"x\"))\n",
		  GOOD "(allow file-read* (literal (param \"WORKDIR\")))\n",
		  "a path must be one (param" },
		{ GOOD "(allow signal (target CHARACTER-DEVICE))\n",
		  GOOD "(allow signal (target same-sandbox))\n",
		  "not one of its symbols" },
		{ GOOD "(allow signal (target same-sandbox) (with reprot))\n",
		  GOOD "(allow signal (target same-sandbox) (with report))\n",
		  "unbound variable: reprot" },
		{ GOOD "(allow signal (with report) (target same-sandbox))\n",
		  GOOD "(allow signal (target same-sandbox) (with report))\n",
		  "out of place" },
		{ GOOD "(allow network-outbound (remote ip \"example.com:80\"))\n",
		  GOOD "(allow network-outbound (remote ip \"localhost:80\"))\n",
		  "localhost:PORT" },
		{ GOOD "(allow (sysctl-name \"hw.ncpu\"))\n",
		  GOOD "(allow sysctl-read (sysctl-name \"hw.ncpu\"))\n",
		  "no operation" },
		{ GOOD "(allow sysctl-read (sysctl-name hw.ncpu))\n",
		  GOOD "(allow sysctl-read (sysctl-name \"hw.ncpu\"))\n",
		  "unbound variable: hw.ncpu" },
		{ GOOD "(allow file-read* (require-not))\n",
		  GOOD "(allow file-read* (require-not (literal (param \"WORKDIR\"))))\n",
		  "exactly one filter" },
		{ GOOD "(display \"hi\")\n", GOOD,
		  "not an SBPL rule" },
		{ "(deny default)\n", GOOD, "before (version 1)" },
		{ "(version 1)\n(allow default)\n", GOOD,
		  "first rule must be (deny default)" },
		{ "(version 2)\n(deny default)\n", GOOD,
		  "(version 1) must come first" },
		{ GOOD "(allow file-read* \"unquoted\n", GOOD,
		  "" },
	};
	size_t i;

	for (i = 0; i < N(cases); i++) {
		refused(cases[i].bad, cases[i].why);
		ck_assert_msg(scheme_ok(cases[i].fixed, base_keys,
		    N(base_keys), NULL), "fix refused: %s", cases[i].fixed);
	}
}
END_TEST

static Suite *
sbpl_suite(void)
{
	Suite *s = suite_create("sbpl");
	TCase *tc = tcase_create("rules");
	int n = (int)variant(0, NULL);

	tcase_add_loop_test(tc, deny_default_first, 0, n);
	tcase_add_loop_test(tc, writes_only_workdir_and_devices, 0, n);
	tcase_add_loop_test(tc, network_only_when_asked, 0, n);
	tcase_add_loop_test(tc, paths_only_as_params, 0, n);
	tcase_add_test(tc, secrets_stay_unreadable);
	tcase_add_test(tc, network_wins_over_egress);
	tcase_add_test(tc, bad_options_refused);
	tcase_add_test(tc, size_bound);
	tcase_add_test(tc, seatbelt_degrades_to_floor);
	tcase_add_test(tc, names_distinct);
	suite_add_tcase(s, tc);
	if (have_scheme) {
		tc = tcase_create("tinyscheme");
		tcase_add_loop_test(tc, scheme_accepts_every_variant, 0, n);
		tcase_add_test(tc, scheme_refuses_broken);
		suite_add_tcase(s, tc);
	}
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	have_scheme = access(TINYSCHEME, X_OK) == 0;
	sr = srunner_create(sbpl_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (failed != 0)
		return EXIT_FAILURE;
	if (!have_scheme) {
		fprintf(stderr, "SKIP: " TINYSCHEME " is missing (Debian "
		    "package tinyscheme): the profiles were not evaluated, "
		    "only their rules checked\n");
		return 77;
	}
	return EXIT_SUCCESS;
}
