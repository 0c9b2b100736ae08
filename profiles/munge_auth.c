/*
 * munge_auth.c: munge_encode / munge_decode behind tp_store_auth.
 */
#include "tp_config.h"

#include <munge.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "munge_auth.h"

static tp_status make_ctx(const tp_munge_config *cfg, munge_ctx_t *ctx,
                          tp_error *err)
{
	munge_err_t rc;

	*ctx = munge_ctx_create();
	if (!*ctx)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "munge: cannot create a context");
	if (cfg && cfg->socket) {
		rc = munge_ctx_set(*ctx, MUNGE_OPT_SOCKET, cfg->socket);
		if (rc != EMUNGE_SUCCESS) {
			munge_ctx_destroy(*ctx);
			return tp_error_set(err, TP_ERR_INVALID,
			                    "munge: socket %s: %s", cfg->socket,
			                    munge_strerror(rc));
		}
	}
	return TP_OK;
}

/* The socket @ctx talks to: the configured one or munge's default. */
static const char *socket_name(munge_ctx_t ctx)
{
	char *path = NULL;

	if (munge_ctx_get(ctx, MUNGE_OPT_SOCKET, &path) == EMUNGE_SUCCESS &&
	    path)
		return path;
	return "(munge's default socket)";
}

/*
 * The error of a failed munge call.  An unreachable munged (EMUNGE_SOCKET)
 * says nothing about the credential: TP_ERR_IO naming the socket, so
 * nobody mistakes a stopped daemon for a bad profile.
 */
static tp_status munge_failure(munge_ctx_t ctx, munge_err_t rc,
                               const char *call, tp_error *err)
{
	/* munge_ctx_get clears the context's error string: ask it first. */
	const char *socket = socket_name(ctx);
	const char *why = munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx)
	                                          : munge_strerror(rc);

	if (rc == EMUNGE_SOCKET)
		return tp_error_set(err, TP_ERR_IO,
		                    "munged unreachable at socket %s: %s: %s",
		                    socket, call, why);
	return tp_error_set(err, TP_ERR_AUTH, "%s via %s: %s", call, socket,
	                    why);
}

static tp_status munge_sign(void *data, const char *payload, char **cred,
                            tp_error *err)
{
	const tp_munge_config *cfg = data;
	munge_ctx_t ctx;
	munge_err_t rc;
	tp_status st;

	*cred = NULL;
	st = make_ctx(cfg, &ctx, err);
	if (st != TP_OK)
		return st;
	if (cfg && cfg->ttl_s > 0 &&
	    munge_ctx_set(ctx, MUNGE_OPT_TTL, cfg->ttl_s) != EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		return tp_error_set(err, TP_ERR_INVALID, "munge: bad TTL %d",
		                    cfg->ttl_s);
	}
	rc = munge_encode(cred, ctx, payload, (int)strlen(payload));
	if (rc != EMUNGE_SUCCESS) {
		st = munge_failure(ctx, rc, "munge_encode", err);
		free(*cred);
		*cred = NULL;
	}
	munge_ctx_destroy(ctx);
	return st;
}

static tp_status munge_verify(void *data, const char *cred, tp_store_cred *out,
                              tp_error *err)
{
	const tp_munge_config *cfg = data;
	void *buf = NULL;
	int len = 0, ttl = 0;
	time_t encoded = 0;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	munge_ctx_t ctx;
	munge_err_t rc;
	tp_status st;

	memset(out, 0, sizeof(*out));
	st = make_ctx(cfg, &ctx, err);
	if (st != TP_OK)
		return st;
	rc = munge_decode(cred, ctx, &buf, &len, &uid, &gid);
	switch (rc) {
	case EMUNGE_SUCCESS:
	case EMUNGE_CRED_REPLAYED:
	case EMUNGE_CRED_EXPIRED:
	case EMUNGE_CRED_REWOUND:
		break;
	default:
		st = munge_failure(ctx, rc, "munge_decode", err);
		goto out;
	}
	munge_ctx_get(ctx, MUNGE_OPT_ENCODE_TIME, &encoded);
	munge_ctx_get(ctx, MUNGE_OPT_TTL, &ttl);
	if (len < 0 || (buf && memchr(buf, '\0', (size_t)len))) {
		st = tp_error_set(err, TP_ERR_AUTH,
		                  "munge credential payload is not text");
		goto out;
	}
	out->payload = malloc((size_t)len + 1);
	if (!out->payload) {
		st = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (len)
		memcpy(out->payload, buf, (size_t)len);
	out->payload[len] = '\0';
	out->uid = uid;
	out->encoded_s = encoded;
	out->ttl_s = ttl;
	out->backend_expired = rc == EMUNGE_CRED_EXPIRED;
	out->rewound = rc == EMUNGE_CRED_REWOUND;
out:
	free(buf);
	munge_ctx_destroy(ctx);
	return st;
}

void tp_munge_auth_init(tp_store_auth *auth, const tp_munge_config *config)
{
	auth->sign = munge_sign;
	auth->verify = munge_verify;
	auth->data = (void *)config;
}
