/*
 * probe.c - cordon_probe() and cordon_select(): ask the helper, which
 * alone decides what a run gets, what this host gives.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "wire.h"

int
cordon_probe(const cordon_config *cfg, cordon_fact_fn fn, void *arg,
    enum cordon_backend_id *backend, char *reason, size_t reasonsz)
{
	struct cordon_msg m;
	char *helper = NULL;
	pid_t pid = -1;
	int sock = -1, err, stop = 0;
	bool done = false;

	if (reason != NULL && reasonsz > 0)
		reason[0] = '\0';
	if ((err = cordon_helper_path(&helper)) < 0)
		return err;
	if ((err = cordon_start_helper(helper, &pid, &sock)) < 0)
		goto out;
	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_PROBE;
	m.u.probe_backend = (uint8_t)cfg->backend;
	if ((err = cordon_msg_send(sock, &m)) < 0)
		goto out;
	while (!done) {
		if ((err = cordon_msg_recv(sock, &m)) < 0) {
			if (err == -CORDON_E_EOF)
				err = -CORDON_E_HELPER;
			break;
		}
		switch (m.type) {
		case CORDON_MSG_FACT:
			if (fn != NULL && stop == 0)
				stop = fn(m.u.fact.key, m.u.fact.value, arg);
			break;
		case CORDON_MSG_BACKEND:
			*backend = (enum cordon_backend_id)m.u.backend.backend;
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
	if (err == 0 && stop != 0)
		err = stop;
out:
	if (sock >= 0)
		close(sock);
	if (pid > 0)
		(void)cordon_wait_helper(pid);
	free(helper);
	return err;
}

int
cordon_select(const cordon_config *cfg, enum cordon_backend_id *backend,
    char *reason, size_t reasonsz)
{
	/* One probe per process and requested backend (not thread-safe). */
	static struct {
		bool valid;
		int err;
		enum cordon_backend_id backend;
		char reason[CORDON_MAX_TEXT_LEN];
	} cache[CORDON_BACKEND_MAX_];
	int b = (int)cfg->backend;

	if (b < 0 || b >= CORDON_BACKEND_MAX_)
		return -CORDON_E_INVAL;
	if (!cache[b].valid) {
		cache[b].err = cordon_probe(cfg, NULL, NULL, &cache[b].backend,
		    cache[b].reason, sizeof(cache[b].reason));
		/* A helper that could not start is not an answer to keep. */
		cache[b].valid = cache[b].err != -CORDON_E_HELPER;
	}
	*backend = cache[b].backend;
	if (reason != NULL && reasonsz > 0)
		snprintf(reason, reasonsz, "%s", cache[b].reason);
	return cache[b].err;
}
