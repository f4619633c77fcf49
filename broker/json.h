/*
 * json.h - a small JSON writer for the result record and trace output.
 *
 * Commas are placed automatically.  Strings may hold any bytes (argv,
 * paths) and are written so that a reader gets those bytes back exactly:
 *
 *   - valid UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
 *     U+10FFFF) is written as it is, except '"' and '\' (escaped with a
 *     backslash), newline and tab ("\n", "\t"), and the other controls
 *     U+0001-U+001F, U+007F and U+0080-U+009F ("\u00XX": never raw to a
 *     terminal);
 *   - each byte that is not part of valid UTF-8 (always 0x80-0xff) is
 *     written "\udcXX", XX its value in lowercase hex: the lone low
 *     surrogate U+DC80-U+DCFF, as Python's surrogateescape does.
 *
 * Valid UTF-8 cannot encode a surrogate, so a decoded U+DC80-U+DCFF only
 * ever stands for a raw byte, and the text "\udcff" in a string is written
 * "\\udcff" and decodes to those six characters.  README.md ("The result
 * record") gives the reader's side.
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

/*
 * Length of the valid UTF-8 sequence at s (1-4; 1 for NUL), 0 if the byte
 * at s does not start one.  Reads no further than the first byte that
 * breaks the sequence, so never past s's terminating NUL.
 */
size_t cordon_utf8_len(const char *s);
/* Whether the n-byte sequence at s is a C0 control, DEL or a C1 control. */
bool cordon_utf8_is_control(const char *s, size_t n);

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
