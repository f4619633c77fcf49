/*
 * json.h - a small JSON writer for the result record and trace output.
 *
 * Commas are placed automatically; strings are escaped, and bytes that are
 * not valid UTF-8 (argv may hold any bytes) are written as \u00XX escapes
 * of the byte, so the output is always valid JSON.
 */
#ifndef CORDON_BROKER_JSON_H
#define CORDON_BROKER_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CORDON_JSON_MAX_DEPTH 16

struct cordon_json {
	char *s;
	size_t len, cap;
	int err;                            /* first error, sticky */
	int depth;
	bool first[CORDON_JSON_MAX_DEPTH];  /* no element yet at this depth */
	bool after_key;
};

void cordon_json_init(struct cordon_json *j);
/* Returns the text (caller frees) or NULL with *err set; resets j. */
char *cordon_json_finish(struct cordon_json *j, int *err);
void cordon_json_free(struct cordon_json *j);

void cordon_json_obj_begin(struct cordon_json *j);
void cordon_json_obj_end(struct cordon_json *j);
void cordon_json_arr_begin(struct cordon_json *j);
void cordon_json_arr_end(struct cordon_json *j);
void cordon_json_key(struct cordon_json *j, const char *key);
void cordon_json_str(struct cordon_json *j, const char *s); /* NULL: null */
void cordon_json_u64(struct cordon_json *j, uint64_t v);
void cordon_json_i64(struct cordon_json *j, int64_t v);
void cordon_json_double(struct cordon_json *j, double v);
void cordon_json_bool(struct cordon_json *j, bool v);
void cordon_json_null(struct cordon_json *j);

#endif
