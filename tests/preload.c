/*
 * preload.c - a library that leaves a marker file when it is loaded: the
 * test that LD_PRELOAD reaches neither the setuid helper nor its payload
 * (tests/test_setuid.c) first shows that it works on an ordinary program.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void
leave_marker(void)
{
	const char *m = getenv("CORDON_PRELOAD_MARKER");
	int fd;

	if (m != NULL && (fd = open(m, O_WRONLY | O_CREAT, 0644)) >= 0)
		close(fd);
}
