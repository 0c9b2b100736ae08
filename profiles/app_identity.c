/*
 * app_identity.c: script keys (app_identity.h).
 *
 * Why 128 bits of the hash and not all 256: the key must fit a store name
 * (at most 64 characters) with room for the prefix, and 128 bits keep
 * accidental collisions out of reach for any number of scripts a site
 * will ever see; a deliberate collision would only make a user's own jobs
 * share a profile, since keys are looked up in that user's namespace.
 */
#include "app_identity.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sha256.h"
#include "store.h"
#include "tp_file.h"

void tp_identity_script_key(const char *script, size_t len,
                            char key[TP_IDENTITY_SCRIPT_KEY_SIZE])
{
	uint8_t digest[TP_SHA256_BYTES];
	char hex[65];
	const char *nul = len ? memchr(script, '\0', len) : NULL;

	if (nul)
		len = (size_t)(nul - script);
	tp_sha256(script, len, digest);
	tp_sha256_hex(digest, hex);
	key[0] = 's';
	key[1] = '-';
	memcpy(key + 2, hex, TP_IDENTITY_SCRIPT_KEY_SIZE - 3);
	key[TP_IDENTITY_SCRIPT_KEY_SIZE - 1] = '\0';
}

tp_status tp_identity_script_key_file(const char *path,
                                      char key[TP_IDENTITY_SCRIPT_KEY_SIZE],
                                      tp_error *err)
{
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	tp_status rc;

	if (stat(path, &st) && errno == ENOENT)
		return tp_error_set(err, TP_ERR_NOTFOUND,
		                    "batch script %s: no such file", path);
	rc = tp_file_read(path, "batch script", TP_IDENTITY_SCRIPT_MAX_BYTES,
	                  &data, &len, err);
	if (rc != TP_OK)
		return rc;
	tp_identity_script_key(data, len, key);
	free(data);
	return TP_OK;
}

bool tp_identity_is_script_key(const char *name)
{
	if (!name || strncmp(name, "s-", 2) ||
	    strlen(name) != TP_IDENTITY_SCRIPT_KEY_SIZE - 1)
		return false;
	for (const char *c = name + 2; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			return false;
	return true;
}

tp_identity_profile tp_identity_job_profile(const char *comm_profile,
                                            const char *job_name,
                                            const char *user)
{
	tp_identity_profile profile = {0};

	profile.named = comm_profile && comm_profile[0];
	profile.name = profile.named ? comm_profile : job_name;
	profile.lookup = profile.name && tp_store_valid_name(profile.name) &&
	                 user && tp_store_valid_name(user);
	return profile;
}

tp_identity_run_choice tp_identity_choose_run(const uint32_t *run_ranks,
                                              size_t count, uint32_t job_tasks)
{
	tp_identity_run_choice choice = {count ? count - 1 : 0, false, false};

	for (size_t i = count; job_tasks && i-- > 0;) {
		if (run_ranks[i] == job_tasks) {
			choice.index = i;
			choice.matched = true;
			choice.over_newest = i + 1 < count;
			break;
		}
	}
	return choice;
}
