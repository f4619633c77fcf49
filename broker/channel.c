/*
 * channel.c - a run's request to the helper: REQUEST, then its ARG, ENV
 * and BIND messages.  Starting and reaping the helper, and the channel's
 * bytes, are the platform's (plat.h: plat_linux.c, plat_win.c); what the
 * answers mean is for the caller (run.c follows a run's events, probe.c
 * a PROBE's facts).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "wire.h"

/* The helper with the caller's stdio (plat.h). */
int
cordon_start_helper(const char *path, pid_t *pid, int *sock)
{
	return cordon_start_helper_io(path, pid, sock, -1, -1, -1);
}

int
cordon_send_request(int sock, const cordon_config *cfg, const char *base,
    const struct cordon_result *r, char **envp, uint32_t envc,
    uint32_t require, uint32_t env_explicit)
{
	struct cordon_msg m;
	size_t i;
	int err;

	memset(&m, 0, sizeof(m));
	m.type = CORDON_MSG_REQUEST;
	m.u.request.flags = cfg->network ? CORDON_REQ_NETWORK : 0;
	m.u.request.backend = (uint8_t)cfg->backend;
	m.u.request.limits = cfg->limits;
	m.u.request.run_id = (char *)(uintptr_t)r->run_id;
	m.u.request.workdir_base = (char *)(uintptr_t)base;
	m.u.request.argc = (uint32_t)r->argc;
	m.u.request.envc = envc;
	m.u.request.bindc = (uint32_t)cfg->nbinds;
	if (cfg->ncopy_in != 0)
		m.u.request.flags |= CORDON_REQ_COPY_IN;
	if (cfg->ncopy_out != 0)
		m.u.request.flags |= CORDON_REQ_COPY_OUT;
	if (cfg->nallow_hosts != 0)
		m.u.request.flags |= CORDON_REQ_EGRESS;
	m.u.request.require = require;
	m.u.request.env_explicit = env_explicit;
	if ((err = cordon_chan_send(sock, &m)) < 0)
		return err;
	for (i = 0; i < r->argc; i++) {
		m.type = CORDON_MSG_ARG;
		m.u.str = r->argv[i];
		if ((err = cordon_chan_send(sock, &m)) < 0)
			return err;
	}
	for (i = 0; i < envc; i++) {
		m.type = CORDON_MSG_ENV;
		m.u.str = envp[i];
		if ((err = cordon_chan_send(sock, &m)) < 0)
			return err;
	}
	for (i = 0; i < cfg->nbinds; i++) {
		m.type = CORDON_MSG_BIND;
		m.u.bind.src = cfg->binds[i].src;
		m.u.bind.dest = cfg->binds[i].dest;
		if ((err = cordon_chan_send(sock, &m)) < 0)
			return err;
	}
	return 0;
}
