/*
 * munge_auth.h: the munge credential backend of the profile store.
 *
 * sign calls munge_encode as the calling process (the credential carries
 * its uid); verify calls munge_decode against the local munged.  A
 * credential that munge reports expired, rewound or replayed is still
 * authentic (munge checked its MAC), so verify returns it with flags and
 * the store applies its own age policy; replays are expected, since a
 * stored profile is decoded every time it is read.
 */
#ifndef TP_MUNGE_AUTH_H
#define TP_MUNGE_AUTH_H

#include "store.h"

typedef struct tp_munge_config {
	const char *socket; /* munged socket path; NULL = munge's default */
	int ttl_s;          /* credential TTL for sign; 0 = munged's default */
} tp_munge_config;

/*
 * Fill @auth with the munge backend reading @config (which must outlive
 * @auth; it is not copied).
 */
void tp_munge_auth_init(tp_store_auth *auth, const tp_munge_config *config);

#endif /* TP_MUNGE_AUTH_H */
