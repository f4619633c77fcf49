/*
 * replay.c - runs one fuzz harness over its seed corpus and regression
 * inputs, as a Check suite in make check (no clang or libFuzzer needed).
 *
 * Built once per harness with FUZZ_TARGET naming it.  The inputs are the
 * files of $CORDON_FUZZ_DIR/corpus/FUZZ_TARGET/ (seeds: valid messages and
 * near misses) and $CORDON_FUZZ_DIR/regress/FUZZ_TARGET/ (every input
 * that ever crashed the harness, kept so the bug stays fixed).  Each
 * input is a test case named after its file, so a failure names the
 * input to rerun:
 *
 *     tests/fuzz/out/fuzz_wire tests/fuzz/regress/wire/crash-...
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef FUZZ_TARGET
#error "build with -DFUZZ_TARGET='\"name\"'"
#endif

#define MAX_INPUT_BYTES (1U << 20)
#define MAX_INPUTS 4096

static char *paths[MAX_INPUTS];
static size_t npaths;

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the regular files of dir; a missing dir is an empty one. */
static void
collect(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *p;

	if (d == NULL) {
		if (errno != ENOENT) {
			perror(dir);
			exit(EXIT_FAILURE);
		}
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (npaths == MAX_INPUTS) {
			fprintf(stderr, "%s: more than %u inputs\n", dir,
			    MAX_INPUTS);
			exit(EXIT_FAILURE);
		}
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0) {
			perror("asprintf");
			exit(EXIT_FAILURE);
		}
		paths[npaths++] = p;
	}
	closedir(d);
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	uint8_t *buf = malloc(MAX_INPUT_BYTES);
	ssize_t n;
	size_t got = 0;
	int fd;

	ck_assert_ptr_nonnull(buf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	while ((n = read(fd, buf + got, MAX_INPUT_BYTES - got)) > 0)
		got += (size_t)n;
	ck_assert_msg(n == 0, "%s: read failed or over %u bytes", path,
	    MAX_INPUT_BYTES);
	close(fd);
	*len = got;
	return buf;
}

START_TEST(replay_one)
{
	size_t len = 0;
	uint8_t *data = slurp(paths[_i], &len);

	/* libFuzzer hands a copy of exactly len bytes; so do we. */
	uint8_t *copy = malloc(len == 0 ? 1 : len);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, data, len);
	free(data);
	ck_assert_int_eq(LLVMFuzzerTestOneInput(copy, len), 0);
	free(copy);
}
END_TEST

int
main(void)
{
	const char *base = getenv("CORDON_FUZZ_DIR");
	char dir[4096];
	Suite *s;
	SRunner *sr;
	TCase *tc;
	size_t i;
	int failed;

	if (base == NULL) {
		fprintf(stderr, "CORDON_FUZZ_DIR is not set: run the tests "
		    "with 'make check'\n");
		return EXIT_FAILURE;
	}
	snprintf(dir, sizeof(dir), "%s/corpus/%s", base, FUZZ_TARGET);
	collect(dir);
	snprintf(dir, sizeof(dir), "%s/regress/%s", base, FUZZ_TARGET);
	collect(dir);
	if (npaths == 0) {
		fprintf(stderr, "no inputs for the %s harness in %s\n",
		    FUZZ_TARGET, base);
		return EXIT_FAILURE;
	}
	qsort(paths, npaths, sizeof(paths[0]), cmp_str);

	s = suite_create("fuzz-replay-" FUZZ_TARGET);
	for (i = 0; i < npaths; i++) {
		/* One case per input: a failure line names the file. */
		tc = tcase_create(paths[i] + strlen(base) + 1);
		tcase_add_loop_test(tc, replay_one, (int)i, (int)i + 1);
		suite_add_tcase(s, tc);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
