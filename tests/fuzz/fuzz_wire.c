/*
 * fuzz_wire.c - the wire decoder, both directions.
 *
 * One datagram is one message, and cordon_msg_decode() is the only code
 * that turns a received datagram into a message, whichever side receives
 * it: the helper decodes REQUEST, ARG, ENV and GC from the broker, the
 * broker decodes BACKEND, CREATED, CAP_HIT, EXIT, TEARDOWN and ERROR
 * from the helper.  The input is the datagram, as is.
 *
 * Properties, beyond "no crash, no leak, no sanitizer report":
 * - a rejected frame leaves the message zeroed (nothing half-owned);
 * - an accepted frame is canonical: encoding the decoded message gives
 *   back exactly the input bytes (the decoder accepts no two spellings of
 *   one message, and drops nothing it was given);
 * - an accepted message's strings are within their bounds.
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "wire.h"

static int
all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

static void
check_strings(const struct cordon_msg *m)
{
	switch (m->type) {
	case CORDON_MSG_REQUEST:
		FUZZ_CHECK(strlen(m->u.request.run_id) == CORDON_RUN_ID_LEN);
		FUZZ_CHECK(strlen(m->u.request.workdir_base) <=
		    CORDON_MAX_PATH_LEN);
		FUZZ_CHECK(m->u.request.workdir_base[0] == '/');
		break;
	case CORDON_MSG_ARG:
	case CORDON_MSG_ENV:
		FUZZ_CHECK(strlen(m->u.str) <= CORDON_MAX_ARG_LEN);
		break;
	case CORDON_MSG_GC:
		FUZZ_CHECK(strlen(m->u.str) <= CORDON_MAX_PATH_LEN);
		FUZZ_CHECK(m->u.str[0] == '/');
		break;
	case CORDON_MSG_CREATED:
		FUZZ_CHECK(strlen(m->u.created.workdir) <= CORDON_MAX_PATH_LEN);
		break;
	default:
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cordon_msg m;
	struct cordon_buf out;
	int r;

	r = cordon_msg_decode(data, size, &m);
	if (r < 0) {
		FUZZ_CHECK(all_zero(&m, sizeof(m)));
		return 0;
	}
	FUZZ_CHECK(r == 0);
	check_strings(&m);
	r = cordon_msg_encode(&m, &out);
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(out.len == size);
	FUZZ_CHECK(memcmp(out.d, data, size) == 0);
	cordon_buf_free(&out);
	cordon_msg_clear(&m);
	return 0;
}
