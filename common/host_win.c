/*
 * host_win.c - what common/ reads differently on Windows: the host's own
 * absolute paths, --ro-bind sources and environment names (types.h:
 * cordon_path_native, cordon_bind_native, cordon_env_name_eq).
 * configure picks this file or host_posix.c.
 *
 * Paths, and why this is safe: a path that passes names one file, the same one to
 * every Windows API, whatever the current drive or directory.  Only the
 * drive form "X:\a\b" is taken, with "\" as the one separator, so the
 * path is never relative to a drive's current directory ("C:a"), never
 * UNC or a device path ("\\server\share", "\\?\", "\\.\"), and never
 * rewritten by Win32's normalisation: that drops a component's
 * trailing dots and spaces and resolves "." and "..", so those are
 * refused rather than left to alias another name.  ":" past the drive
 * (an alternate data stream), the other characters Windows forbids in
 * a name (<>"|?* and controls) and the DOS device names (CON, NUL,
 * COM1..., with or without an extension, which open a device anywhere
 * in a path) are refused too.
 */
#include "config.h"

#include <string.h>

#include "types.h"

/*
 * CON, PRN, AUX, NUL, COM0-9, LPT0-9 in any case, alone or as
 * "NAME.ext"; COM and LPT with a superscript 1, 2 or 3 too (UTF-8
 * C2 B9, C2 B2, C2 B3), which Windows also reserves.
 */
static bool
device_name(const char *c, size_t n)
{
	static const char *const dev[] = { "con", "prn", "aux", "nul" };
	char s[6];
	size_t i, stem = 0;

	while (stem < n && c[stem] != '.')
		stem++;
	if (stem != 3 && stem != 4 && stem != 5)
		return false;
	for (i = 0; i < stem; i++)
		s[i] = (char)(c[i] >= 'A' && c[i] <= 'Z' ? c[i] + 32 : c[i]);
	s[stem] = '\0';
	if (stem == 3) {
		for (i = 0; i < sizeof(dev) / sizeof(dev[0]); i++)
			if (strcmp(s, dev[i]) == 0)
				return true;
		return false;
	}
	if (strncmp(s, "com", 3) != 0 && strncmp(s, "lpt", 3) != 0)
		return false;
	if (stem == 4)
		return s[3] >= '0' && s[3] <= '9';
	return (unsigned char)s[3] == 0xc2 && ((unsigned char)s[4] == 0xb9 ||
	    (unsigned char)s[4] == 0xb2 || (unsigned char)s[4] == 0xb3);
}

/* One component, c[0..n): not empty, ".", ".." or a device; legal bytes. */
static bool
component_ok(const char *c, size_t n)
{
	size_t i;

	if (n == 0 || c[n - 1] == '.' || c[n - 1] == ' ' || device_name(c, n))
		return false;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)c[i];

		if (ch < 0x20 || ch == 0x7f || strchr("<>:\"/|?*", ch) != NULL)
			return false;
	}
	return true;
}

bool
cordon_path_native(const char *p)
{
	const char *c, *e;

	if (p == NULL || strlen(p) > CORDON_MAX_PATH_LEN ||
	    !((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) ||
	    p[1] != ':' || p[2] != '\\')
		return false;
	if (p[3] == '\0')
		return true;
	for (c = p + 2; *c == '\\'; c = e) {
		e = c + 1 + strcspn(c + 1, "\\");
		if (!component_ok(c + 1, (size_t)(e - (c + 1))))
			return false;
	}
	return true;
}

/*
 * Nothing is mounted on Windows: a read-only source is granted to an
 * AppContainer where it is, so its destination is itself.
 */
bool
cordon_bind_native(const char *src, const char *dest)
{
	return cordon_path_native(src) && dest != NULL &&
	    strcmp(src, dest) == 0;
}

/*
 * Windows' environment names are case-insensitive: "Path" is PATH, and
 * a block with both is one variable.  ASCII folding only, as the names
 * the allow-list holds are ASCII; any other byte must match exactly.
 */
bool
cordon_env_name_eq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char x = a[i] >= 'a' && a[i] <= 'z' ? (char)(a[i] - 32) : a[i];
		char y = b[i] >= 'a' && b[i] <= 'z' ? (char)(b[i] - 32) : b[i];

		if (x != y)
			return false;
		if (x == '\0')
			return true;
	}
	return true;
}
