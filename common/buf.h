/*
 * buf.h - a bounded byte buffer for wire messages, after OpenSSH's sshbuf.
 *
 * Every read from a received frame goes through a getter that checks the
 * remaining length first and returns a negative CORDON_E_* code instead of
 * reading past the end.  Integers are big-endian on the wire; strings are
 * a u32 length followed by that many bytes, never NUL-terminated on the
 * wire, and a string containing a NUL is rejected.  Nothing is ever cast
 * from received bytes to a struct.
 */
#ifndef CORDON_COMMON_BUF_H
#define CORDON_COMMON_BUF_H

#include <stddef.h>
#include <stdint.h>

struct cordon_buf {
	uint8_t *d;      /* data (borrowed for readers, owned for writers) */
	size_t len;      /* bytes of valid data */
	size_t off;      /* read offset (readers) */
	size_t cap;      /* allocated bytes (writers) */
	size_t max;      /* writers never grow past this */
	int owned;
};

/* A reader over len bytes that the caller keeps alive. */
void cordon_buf_reader(struct cordon_buf *b, const uint8_t *data, size_t len);
/* An empty writer that refuses to grow past max bytes. */
void cordon_buf_writer(struct cordon_buf *b, size_t max);
void cordon_buf_free(struct cordon_buf *b);

size_t cordon_buf_remaining(const struct cordon_buf *b);

int cordon_buf_get_u8(struct cordon_buf *b, uint8_t *v);
int cordon_buf_get_u16(struct cordon_buf *b, uint16_t *v);
int cordon_buf_get_u32(struct cordon_buf *b, uint32_t *v);
int cordon_buf_get_u64(struct cordon_buf *b, uint64_t *v);
int cordon_buf_get_i32(struct cordon_buf *b, int32_t *v);
/*
 * A string of at most maxlen bytes with no interior NUL, returned as a
 * freshly allocated NUL-terminated copy in *out (caller frees).
 */
int cordon_buf_get_cstring(struct cordon_buf *b, char **out, size_t maxlen);

int cordon_buf_put_u8(struct cordon_buf *b, uint8_t v);
int cordon_buf_put_u16(struct cordon_buf *b, uint16_t v);
int cordon_buf_put_u32(struct cordon_buf *b, uint32_t v);
int cordon_buf_put_u64(struct cordon_buf *b, uint64_t v);
int cordon_buf_put_i32(struct cordon_buf *b, int32_t v);
/* s may be NULL, which is sent as the empty string. */
int cordon_buf_put_cstring(struct cordon_buf *b, const char *s);

#endif
