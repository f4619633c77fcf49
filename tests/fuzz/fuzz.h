/*
 * fuzz.h - the one entry point every fuzz harness in tests/fuzz/ defines.
 *
 * Each harness is built twice: by `make fuzz` with clang's libFuzzer,
 * which calls it with generated inputs, and by `make check` with
 * replay.c, which calls it once per file of the harness's seed corpus
 * (corpus/NAME/) and regression inputs (regress/NAME/).  A harness reports
 * a bug by crashing (abort(), or a sanitizer); it returns 0 otherwise.
 */
#ifndef CORDON_TESTS_FUZZ_H
#define CORDON_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken property: say which, then crash so the input is kept. */
#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: fuzz property failed: %s\n", \
		    __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

#endif
