/*
 * parse.h - strict parsing of sizes, durations and counts from text.
 *
 * No leading or trailing space, no sign, no empty number, overflow is an
 * error; every function returns 0 or a negative CORDON_E_* and leaves *out
 * untouched on error.
 */
#ifndef CORDON_COMMON_PARSE_H
#define CORDON_COMMON_PARSE_H

#include <stdint.h>

/* "4096", "512K", "512M", "2G", "1.5G", "1T"; also "MiB"/"MB"-style. Binary units. */
int cordon_parse_size(const char *s, uint64_t *bytes);
/* "1.5" (seconds), "90s", "500ms", "2m", "1h"; fractions to the ns. */
int cordon_parse_duration(const char *s, uint64_t *ns);
/* A plain decimal count: "0", "512". */
int cordon_parse_count(const char *s, uint64_t *n);

#endif
