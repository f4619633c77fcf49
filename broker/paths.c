/*
 * paths.c - run ids and time (where things live - the configuration
 * directory, the defaults, the helper - differ per OS: plat.h).
 */
#include "config.h"

#include <time.h>

#include "internal.h"

int
cordon_new_run_id(char id[CORDON_RUN_ID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[CORDON_RUN_ID_LEN / 2];
	size_t i;

	if (cordon_plat_random(raw, sizeof(raw)) < 0)
		return -CORDON_E_IO;
	for (i = 0; i < sizeof(raw); i++) {
		id[2 * i] = hex[raw[i] >> 4];
		id[2 * i + 1] = hex[raw[i] & 15];
	}
	id[CORDON_RUN_ID_LEN] = '\0';
	return 0;
}

int64_t
cordon_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
