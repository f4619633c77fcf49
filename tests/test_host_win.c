/*
 * test_host_win.c - common/host_win.c, the Windows build's check of the
 * workdir paths the wire carries (types.h: cordon_path_native), built
 * here on Linux from the same file cordon.exe and cordon-helper.exe
 * link.  A path Win32 would read as relative, UNC, a device, a stream,
 * or rewrite (dots, spaces, "..") is an attack on the helper's idea of
 * where the workdir is; each is refused.  And the environment's names,
 * which Windows reads without case: the invoker's "Path" is PATH, and
 * a proxy variable in any spelling never passes.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "env.h"
#include "types.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const good[] = {
	"C:\\",
	"c:\\",
	"C:\\Users\\me\\AppData\\Local\\cordon\\runs",
	"Z:\\tmp\\a b\\c.d",
	"C:\\caf\xc3\xa9\\runs",
	"C:\\CONSOLE\\x",     /* a device name only when the whole stem */
	"C:\\com\\nul1\\lpt\\com10",
	"C:\\com\xc2\xb4\\lpt\xc2\xb9x",  /* not a superscript 1-3; longer */
	"C:\\.hidden\\x",
	"C:\\a..b",
};

static const char *const bad[] = {
	"",
	"C",
	"C:",
	"C:a\\b",              /* relative to drive C's current directory */
	"\\a\\b",              /* relative to the current drive */
	"/tmp/x",
	"C:/x",
	"C:\\a/b",
	"\\\\server\\share\\x", /* UNC */
	"\\\\?\\C:\\x",         /* Win32 parsing turned off */
	"\\\\.\\pipe\\x",       /* a device namespace */
	"1:\\x",
	"C:\\\\x",
	"C:\\a\\",
	"C:\\a\\\\b",
	"C:\\a\\.\\b",
	"C:\\a\\..\\b",
	"C:\\a\\..",
	"C:\\a.",              /* Win32 drops the dot: "C:\a" */
	"C:\\a ",              /* and the space */
	"C:\\a\\b...\\c",
	"C:\\a:stream",        /* an alternate data stream */
	"C:\\a\\NUL",
	"C:\\a\\nul.txt",
	"C:\\con",
	"C:\\x\\Aux.log\\y",
	"C:\\PRN",
	"C:\\COM1",
	"C:\\lpt9.log",
	"C:\\COM\xc2\xb9",          /* COM1 with a superscript one */
	"C:\\lpt\xc2\xb3.txt",
	"C:\\a\x01",
	"C:\\a\tb",
	"C:\\a\x7f",
	"C:\\a|b",
	"C:\\a*",
	"C:\\a?",
	"C:\\a<b",
	"C:\\a>b",
	"C:\\a\"b",
};

START_TEST(t_good)
{
	ck_assert_msg(cordon_path_native(good[_i]), "refused: %s", good[_i]);
}
END_TEST

START_TEST(t_bad)
{
	ck_assert_msg(!cordon_path_native(bad[_i]), "taken: %s", bad[_i]);
}
END_TEST

/* The length bound: CORDON_MAX_PATH_LEN bytes pass, one more does not. */
START_TEST(t_length)
{
	static char p[CORDON_MAX_PATH_LEN + 2];

	memset(p, 'a', sizeof(p) - 1);
	memcpy(p, "C:\\", 3);
	p[CORDON_MAX_PATH_LEN] = '\0';
	ck_assert(cordon_path_native(p));
	p[CORDON_MAX_PATH_LEN] = 'a';
	p[CORDON_MAX_PATH_LEN + 1] = '\0';
	ck_assert(!cordon_path_native(p));
}
END_TEST

START_TEST(t_env_names)
{
	static const char *const pass[] = { "PATH=C:\\w", "Path=C:\\w",
	    "path=x", "Lang=C", "lc_all=C", "Tz=UTC" };
	static const char *const refused[] = { "Https_Proxy=h", "ALL_PROXY=h",
	    "PATHX=x", "Pat=x", "HOME=x", "LD_PRELOAD=x", "PATH\xc3\xa9=x" };
	char *list[] = { "TERM=x", "Path=C:\\w" };
	int i;

	for (i = 0; i < N(pass); i++)
		ck_assert_msg(cordon_env_allowed(pass[i]), "refused: %s",
		    pass[i]);
	for (i = 0; i < N(refused); i++)
		ck_assert_msg(!cordon_env_allowed(refused[i]), "taken: %s",
		    refused[i]);
	/* One variable, whatever the spelling: --env PATH=... replaces it. */
	ck_assert_uint_eq(cordon_env_find(list, 2, "PATH=y"), 1);
	ck_assert_uint_eq(cordon_env_find(list, 2, "term"), 0);
	ck_assert_uint_eq(cordon_env_find(list, 2, "PAT=y"), 2);
	ck_assert(!cordon_env_settable("Home=x"));
	ck_assert(!cordon_env_settable("tmpdir=x"));
	ck_assert(cordon_env_name_eq("ab", "AB", 2));
	ck_assert(!cordon_env_name_eq("a\xc3", "A\xe3", 2));
}
END_TEST

/* A read-only source is read where it is: its destination is itself. */
START_TEST(t_binds)
{
	ck_assert(cordon_bind_native("C:\\src", "C:\\src"));
	ck_assert(cordon_bind_native("Z:\\etc\\ssl", "Z:\\etc\\ssl"));
	ck_assert(!cordon_bind_native("C:\\src", "C:\\other"));
	ck_assert(!cordon_bind_native("C:\\src", "/srv/src"));
	ck_assert(!cordon_bind_native("C:\\src", NULL));
	ck_assert(!cordon_bind_native("/etc", "/etc"));
	ck_assert(!cordon_bind_native("C:\\a\\..\\b", "C:\\a\\..\\b"));
	ck_assert(!cordon_bind_native("\\\\server\\share",
	    "\\\\server\\share"));
}
END_TEST

static Suite *
host_win_suite(void)
{
	Suite *s = suite_create("host_win");
	TCase *tc = tcase_create("native");

	tcase_add_loop_test(tc, t_good, 0, N(good));
	tcase_add_loop_test(tc, t_bad, 0, N(bad));
	tcase_add_test(tc, t_length);
	tcase_add_test(tc, t_env_names);
	tcase_add_test(tc, t_binds);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(host_win_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? 1 : 0;
}
