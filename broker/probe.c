/*
 * probe.c - cordon_probe() and cordon_select().  What needs no privilege
 * is found in the broker, by the platform (cordon_local_facts: on Linux
 * probe_linux.c - the kernel, each namespace type, seccomp, the Landlock
 * ABI, cgroups).  Whether the boundary
 * can really be built, and so which backend a run gets, only the helper
 * can say: it is asked with a PROBE message.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wire.h"


/* Where facts go: the caller's callback, until it says stop. */
struct facts {
	cordon_fact_fn fn;
	void *arg;
	int stop;
};

static void
emit(struct facts *st, const char *key, const char *value)
{
	if (st->fn != NULL && st->stop == 0)
		st->stop = st->fn(key, value, st->arg);
}

/* emit, as the platform's local facts call it. */
static void
emit_fact(void *st, const char *key, const char *value)
{
	emit(st, key, value);
}

/* "cpu, wall, ..." for the caps and controls in mask. */
static void
mask_text(char *buf, size_t sz, uint32_t mask)
{
	size_t n = 0;
	int cap;

	buf[0] = '\0';
	for (cap = 1; cap < CORDON_CAP_MAX_ && n < sz; cap++)
		if ((mask & (1U << cap)) != 0)
			n += (size_t)snprintf(buf + n, sz - n, "%s%s",
			    n > 0 ? ", " : "", cordon_cap_name(cap));
}

static int
probe(const cordon_config *cfg, cordon_fact_fn fn, void *arg,
    enum cordon_backend_id *backend, uint32_t *applied, char *reason,
    size_t reasonsz)
{
	char text[256];

	struct facts st = { fn, arg, 0 };
	struct cordon_msg m;
	char *helper = NULL;
	pid_t pid = -1;
	int sock = -1, err;
	bool done = false;

	if (reason != NULL && reasonsz > 0)
		reason[0] = '\0';
	if (fn != NULL)
		cordon_local_facts(emit_fact, &st);
	if ((err = cordon_helper_path(&helper)) < 0)
		return err;
	if ((err = cordon_start_helper(helper, &pid, &sock)) < 0)
		goto out;
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_PROBE;
	m.u.probe_backend = (uint8_t)cfg->backend;
	if ((err = cordon_chan_send(sock, &m)) < 0)
		goto out;
	while (!done) {
		if ((err = cordon_chan_recv(sock, &m)) < 0) {
			if (err == -CORDON_E_EOF)
				err = -CORDON_E_HELPER;
			break;
		}
		switch (m.type) {
		case CORDON_MSG_FACT:
			emit(&st, m.u.fact.key, m.u.fact.value);
			break;
		case CORDON_MSG_BACKEND:
			*backend = (enum cordon_backend_id)m.u.backend.backend;
			if (applied != NULL)
				*applied = m.u.backend.applied;
			/* What that backend applies to a run asking for all. */
			mask_text(text, sizeof(text), m.u.backend.applied);
			emit(&st, "applied", text);
			if (reason != NULL && reasonsz > 0)
				snprintf(reason, reasonsz, "%s", m.u.backend.reason);
			done = true;
			break;
		case CORDON_MSG_ERROR:
			if (reason != NULL && reasonsz > 0)
				snprintf(reason, reasonsz, "%s", m.u.error.message);
			err = -CORDON_E_UNAVAIL;
			done = true;
			break;
		default:
			err = -CORDON_E_PROTO;
			done = true;
			break;
		}
		cordon_msg_clear(&m);
	}
	if (err == 0 && st.stop != 0)
		err = st.stop;
out:
	if (sock >= 0)
		cordon_chan_close(sock);
	if (pid > 0)
		(void)cordon_wait_helper(pid);
	free(helper);
	return err;
}

int
cordon_probe(const cordon_config *cfg, cordon_fact_fn fn, void *arg,
    enum cordon_backend_id *backend, char *reason, size_t reasonsz)
{
	return probe(cfg, fn, arg, backend, NULL, reason, reasonsz);
}

int
cordon_select(const cordon_config *cfg, enum cordon_backend_id *backend,
    char *reason, size_t reasonsz)
{
	uint32_t applied = 0;

	return cordon_select_applied(cfg, backend, &applied, reason, reasonsz);
}

int
cordon_select_applied(const cordon_config *cfg,
    enum cordon_backend_id *backend, uint32_t *applied, char *reason,
    size_t reasonsz)
{
	/*
	 * One probe per process and requested backend.  Runs from several
	 * threads reach here (cordon_gate, for the required controls): the
	 * lock keeps an entry from being read while another thread fills it.
	 */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct {
		bool valid;
		int err;
		enum cordon_backend_id backend;
		uint32_t applied;
		char reason[CORDON_MAX_TEXT_LEN];
	} cache[CORDON_BACKEND_MAX_];
	int b = (int)cfg->backend, err;

	if (b < 0 || b >= CORDON_BACKEND_MAX_)
		return -CORDON_E_INVAL;
	(void)pthread_mutex_lock(&lock);
	if (!cache[b].valid) {
		cache[b].err = probe(cfg, NULL, NULL, &cache[b].backend,
		    &cache[b].applied, cache[b].reason, sizeof(cache[b].reason));
		/* A helper that could not start is not an answer to keep. */
		cache[b].valid = cache[b].err != -CORDON_E_HELPER;
	}
	*backend = cache[b].backend;
	*applied = cache[b].applied;
	if (reason != NULL && reasonsz > 0)
		snprintf(reason, reasonsz, "%s", cache[b].reason);
	err = cache[b].err;
	(void)pthread_mutex_unlock(&lock);
	return err;
}
