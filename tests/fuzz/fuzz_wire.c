/*
 * fuzz_wire.c - the wire decoder, both directions.
 *
 * One datagram is one message.  cordon_msg_decode() reads either
 * direction: the bodies the helper decodes (REQUEST, ARG, ENV, BIND, GO,
 * PROBE: common/wire_helper.c) and those the broker decodes (BACKEND,
 * CREATED, CAP_HIT, EXIT, TEARDOWN, ERROR, FACT, WORKDIR, and the retired
 * GC: common/wire_broker.c).  The input is the datagram, as is; it is
 * also read by the helper's own cordon_msg_decode_allowed(), with every
 * broker -> helper type allowed, which must agree with cordon_msg_decode
 * on it, and with none allowed, which must refuse it undecoded.
 *
 * Properties, beyond "no crash, no leak, no sanitizer report":
 * - a rejected frame leaves the message zeroed (nothing half-owned);
 * - an accepted frame is canonical: encoding the decoded message gives
 *   back exactly the input bytes (the decoder accepts no two spellings of
 *   one message, and drops nothing it was given);
 * - an accepted message's strings are within their bounds.
 */
#include "config.h"

#include <stdbool.h>
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

/* Every broker -> helper type: what a helper may ever be asked to read. */
#define TO_HELPER (CORDON_MSG_BIT(CORDON_MSG_REQUEST) | \
	CORDON_MSG_BIT(CORDON_MSG_ARG) | CORDON_MSG_BIT(CORDON_MSG_ENV) | \
	CORDON_MSG_BIT(CORDON_MSG_BIND) | CORDON_MSG_BIT(CORDON_MSG_GO) | \
	CORDON_MSG_BIT(CORDON_MSG_PROBE))

/*
 * The helper's decoder on the same frame: with nothing allowed it refuses
 * without owning anything; with every broker -> helper type allowed it
 * accepts exactly what cordon_msg_decode accepted of those types, alike.
 */
static void
check_allowed(const uint8_t *data, size_t size, bool full_ok,
    uint16_t full_type)
{
	struct cordon_msg a;
	struct cordon_buf out;
	bool want;
	int r;

	r = cordon_msg_decode_allowed(data, size, 0, &a);
	FUZZ_CHECK(r < 0);
	a.type = 0;
	FUZZ_CHECK(all_zero(&a, sizeof(a)));
	want = full_ok && full_type < 32 &&
	    (TO_HELPER & CORDON_MSG_BIT(full_type)) != 0;
	r = cordon_msg_decode_allowed(data, size, TO_HELPER, &a);
	FUZZ_CHECK((r == 0) == want);
	if (r < 0) {
		a.type = 0;
		FUZZ_CHECK(all_zero(&a, sizeof(a)));
		return;
	}
	FUZZ_CHECK(cordon_msg_encode(&a, &out) == 0);
	FUZZ_CHECK(out.len == size && memcmp(out.d, data, size) == 0);
	cordon_buf_free(&out);
	cordon_msg_clear(&a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cordon_msg m;
	struct cordon_buf out;
	int r;

	r = cordon_msg_decode(data, size, &m);
	check_allowed(data, size, r == 0, m.type);
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
