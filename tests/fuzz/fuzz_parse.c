/*
 * fuzz_parse.c - size, duration and count parsing (common/parse.c).
 *
 * These parse --memory, --cpu, --wall, --nofile and --nproc, and will
 * parse the same values in policy files.  The input is the text; a NUL
 * in it ends the string, as it would on a command line.
 *
 * Properties, beyond "no crash, no sanitizer report":
 * - on error the output is untouched (parse.h promises it);
 * - a plain count is also a size in bytes with the same value, and a
 *   duration in whole seconds (or out of range, never refused as text);
 * - an accepted count, printed back, parses to itself;
 * - a size is never less than its integer part: units only scale up;
 * - whatever is accepted starts with a digit (no sign, space or dot).
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "fuzz.h"
#include "parse.h"
#include "types.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL
#define MAX_TEXT 256

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[MAX_TEXT + 1], back[32];
	uint64_t count = SENTINEL, bytes = SENTINEL, ns = SENTINEL, again = 0;
	int rc, rs, rd;

	if (size > MAX_TEXT)
		size = MAX_TEXT;
	memcpy(s, data, size);
	s[size] = '\0';

	rc = cordon_parse_count(s, &count);
	rs = cordon_parse_size(s, &bytes);
	rd = cordon_parse_duration(s, &ns);
	FUZZ_CHECK(rc <= 0 && rs <= 0 && rd <= 0);
	FUZZ_CHECK(rc == 0 || count == SENTINEL);
	FUZZ_CHECK(rs == 0 || bytes == SENTINEL);
	FUZZ_CHECK(rd == 0 || ns == SENTINEL);

	if (rc == 0) {
		/* "N" is N bytes and N seconds: one grammar, three readers. */
		FUZZ_CHECK(rs == 0 && bytes == count);
		FUZZ_CHECK(rd == 0 ? ns / CORDON_NS_PER_SEC == count &&
		    ns % CORDON_NS_PER_SEC == 0 : rd == -CORDON_E_RANGE);
		/* Printed back without leading zeros, it parses the same. */
		snprintf(back, sizeof(back), "%" PRIu64, count);
		FUZZ_CHECK(cordon_parse_count(back, &again) == 0 &&
		    again == count);
	}
	if (rs == 0 && s[0] >= '0' && s[0] <= '9') {
		/* Units only ever scale up: never below the integer part. */
		uint64_t whole = 0;
		const char *p;

		for (p = s; *p >= '0' && *p <= '9'; p++)
			whole = whole * 10 + (uint64_t)(*p - '0');
		FUZZ_CHECK(bytes >= whole);
	}
	/* Nothing that is not a digit may start an accepted value. */
	if (rc == 0 || rs == 0 || rd == 0)
		FUZZ_CHECK(s[0] >= '0' && s[0] <= '9');
	return 0;
}
