/*
 * fuzz_intake.c - the helper's request reader (helper/intake.c), the
 * first code of the helper that untrusted bytes reach.
 *
 * The input is a sequence of datagrams, each a 2-byte big-endian length
 * and that many bytes (a length past the end takes what is left; a last
 * odd byte is dropped).  They are sent as they are into a SOCK_SEQPACKET
 * socketpair, the sending end is closed, and intake_read() reads the
 * request from the other end exactly as the helper does: through
 * cordon_msg_recv_allowed() (each type checked against the one expected
 * before its body is decoded; GC, retired, is refused like any other
 * unexpected type), with the sequence, size, allow-list and path checks
 * of intake.c.  A zero-length datagram reads as EOF, as it does in the
 * helper.  Datagrams that do not fit in the socket's buffer are dropped
 * (the reader then sees EOF early), so one input always runs the same way.
 *
 * intake_read() dies on bad input: die() runs the hook the harness sets,
 * which jumps back here instead of exiting, and request_free() frees
 * what was read so far (intake.c keeps everything it received reachable
 * from the request for that).  No fork: libFuzzer sees the coverage of
 * every path, and LeakSanitizer checks the die() paths too.
 *
 * Properties of an accepted request, beyond "no crash, no leak":
 * argv and envp have exactly argc and envc entries and a NULL after them,
 * the command name is not empty, every variable is on the allow-list and
 * none is given twice, argv plus envp are within CORDON_MAX_ARGV_BYTES,
 * and the limits, run id and workdir base pass their checks again.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "env.h"
#include "fuzz.h"
#include "helper.h"

static jmp_buf died;
/* Static, not automatic: it is changed between setjmp and longjmp. */
static struct request req;

static void
on_die(const char *why)
{
	(void)why;
	longjmp(died, 1);
}

/* Sends the datagrams of the input; stops when the socket is full. */
static void
send_frames(int fd, const uint8_t *data, size_t size)
{
	size_t off = 0, n;
	ssize_t w;

	while (size - off >= 2) {
		n = (size_t)data[off] << 8 | data[off + 1];
		off += 2;
		if (n > size - off)
			n = size - off;
		do {
			w = send(fd, data + off, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		} while (w < 0 && errno == EINTR);
		if (w < 0)
			return; /* full (EAGAIN) or too big (EMSGSIZE): stop */
		off += n;
	}
}

/* Absolute, and no empty, "." or ".." component ("/" alone is fine). */
static bool
path_clean(const char *p)
{
	const char *c = p, *s;
	size_t n;

	if (p[0] != '/')
		return false;
	if (p[1] == '\0')
		return true;
	while (*c != '\0') {
		s = c + 1;
		n = strcspn(s, "/");
		if (n == 0 || strncmp(s, ".", n) == 0 || strncmp(s, "..", n) == 0)
			return false;
		c = s + n;
	}
	return true;
}

static void
check_request(const struct request *q)
{
	size_t total = 0, klen;
	uint32_t i, k;

	/* PROBE: only the backend asked for, in range; nothing else. */
	if (q->probe_only) {
		FUZZ_CHECK(q->workdir_base == NULL && q->argv == NULL &&
		    q->envp == NULL);
		FUZZ_CHECK(q->backend < CORDON_BACKEND_MAX_);
		return;
	}
	FUZZ_CHECK(q->workdir_base != NULL && path_clean(q->workdir_base));
	FUZZ_CHECK(cordon_run_id_valid(q->run_id));
	FUZZ_CHECK(cordon_limits_check(&q->limits) == 0);
	FUZZ_CHECK((q->flags & ~CORDON_REQ_FLAGS_ALL) == 0);
	FUZZ_CHECK(q->backend < CORDON_BACKEND_MAX_);
	FUZZ_CHECK(q->argc >= 1 && q->argc <= CORDON_MAX_ARGC);
	FUZZ_CHECK(q->envc <= CORDON_MAX_ENVC && q->env_explicit <= q->envc);
	FUZZ_CHECK((q->require & 1U) == 0 &&
	    (q->require >> CORDON_CAP_MAX_) == 0);
	for (i = 0; i < q->argc; i++) {
		FUZZ_CHECK(q->argv[i] != NULL);
		total += strlen(q->argv[i]) + 1;
	}
	FUZZ_CHECK(q->argv[q->argc] == NULL);
	FUZZ_CHECK(q->argv[0][0] != '\0');
	for (i = 0; i < q->envc; i++) {
		FUZZ_CHECK(q->envp[i] != NULL);
		/* Inherited: allow-listed; explicit (the last few): settable. */
		FUZZ_CHECK(i < q->envc - q->env_explicit ?
		    cordon_env_allowed(q->envp[i]) :
		    cordon_env_settable(q->envp[i]));
		klen = (size_t)(strchr(q->envp[i], '=') - q->envp[i]);
		FUZZ_CHECK(klen > 0);
		for (k = 0; k < i; k++)
			FUZZ_CHECK(strncmp(q->envp[k], q->envp[i], klen + 1) != 0);
		total += strlen(q->envp[i]) + 1;
	}
	FUZZ_CHECK(q->envp[q->envc] == NULL);
	FUZZ_CHECK(total <= CORDON_MAX_ARGV_BYTES);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];

	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv) == 0);
	send_frames(sv[1], data, size);
	close(sv[1]);
	if (setjmp(died) == 0) {
		set_die_hook(on_die);
		intake_read(sv[0], &req);
		check_request(&req);
	}
	set_die_hook(NULL);
	request_free(&req);
	close(sv[0]);
	return 0;
}
