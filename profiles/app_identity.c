/*
 * app_identity.c: script keys and the identity rule (app_identity.h).
 *
 * Why the script key comes before the job name and not after: a job name
 * is what users type and share ("job", "run.sh", an array's name), so a
 * name's runs may come from several applications; the script key names
 * exactly one text.  It only wins when that text ran before: a script
 * never seen still gets its name's profile (a rename of an application is
 * common, an unrelated script under a reused name is the exception), and
 * the recording policy treats it as new, so its next run finds its own.
 *
 * Why 128 bits of the hash and not all 256: the key must fit a store name
 * (at most 64 characters) with room for the prefix, and 128 bits keep
 * accidental collisions out of reach for any number of scripts a site
 * will ever see; a deliberate collision would only make a user's own jobs
 * share a profile, since keys are looked up in that user's namespace.
 */
#include "app_identity.h"

#include <errno.h>
#include <stdio.h>
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

/*
 * The runs of @user/@name into *@count and the newest file time into
 * *@newest_s.  A store, namespace or name that does not exist has none.
 */
static tp_status count_runs(const tp_store_options *opt, const char *user,
                            const char *name, size_t *count, int64_t *newest_s,
                            tp_error *err)
{
	tp_store_list runs = {0};
	tp_status rc;

	*count = 0;
	*newest_s = 0;
	rc = tp_store_list_runs(opt, user, name, &runs, err);
	if (rc == TP_ERR_NOTFOUND)
		return TP_OK;
	if (rc != TP_OK) {
		tp_error_prefix(err, "profile %s/%s: listing its runs", user,
		                name);
		return rc;
	}
	for (size_t i = 0; i < runs.count; i++)
		if (runs.entries[i].mtime_s > *newest_s)
			*newest_s = runs.entries[i].mtime_s;
	*count = runs.count;
	tp_store_list_free(&runs);
	return TP_OK;
}

_Static_assert(TP_IDENTITY_NAME_MAX == TP_STORE_NAME_MAX,
               "tp_identity_key.linked holds a store name");

/*
 * Rule 2b of tp_identity_resolve: the application @script_key's link
 * names, into @key when it has runs.  Whatever keeps the link from being
 * followed is only said in @key->why: the job falls to its name.
 */
static tp_status follow_script_link(const tp_store_options *opt,
                                    const char *user, const char *script_key,
                                    bool by_command, tp_identity_key *key,
                                    tp_error *err)
{
	char target[TP_STORE_NAME_MAX + 1];
	tp_store_link_rule rule = TP_STORE_LINK_PROGRAM;
	size_t runs = 0;
	int64_t newest_s = 0;
	uint64_t job_id = 0;
	tp_error link_err;
	tp_status rc;

	rc = tp_store_read_link(opt, user, script_key, target, &job_id, &rule,
	                        &link_err);
	if (rc == TP_ERR_NOTFOUND)
		return TP_OK;
	if (rc != TP_OK) {
		snprintf(key->why, sizeof(key->why), "link not followed: %.200s",
		         link_err.message);
		return TP_OK;
	}
	/* A link of the program alone may join scripts that run one solver
	 * with other inputs: not under the rule that tells them apart. */
	if (by_command && rule != TP_STORE_LINK_COMMAND) {
		snprintf(key->why, sizeof(key->why),
		         "its batch script %s links to %s by program alone "
		         "(JobId=%llu), not followed under "
		         "ProfileByExecutable=command",
		         script_key, target, (unsigned long long)job_id);
		return TP_OK;
	}
	rc = count_runs(opt, user, target, &runs, &newest_s, err);
	if (rc != TP_OK)
		return rc;
	if (!runs) {
		snprintf(key->why, sizeof(key->why),
		         "its batch script %s links to %s, which has no runs",
		         script_key, target);
		return TP_OK;
	}
	key->source = TP_IDENTITY_SCRIPT_LINK;
	snprintf(key->linked, sizeof(key->linked), "%s", target);
	key->name = key->linked;
	key->link_job_id = job_id;
	key->app_runs = runs;
	key->newest_mtime_s = newest_s;
	snprintf(key->why, sizeof(key->why),
	         "its batch script %s never ran, but runs the program of %s "
	         "(%zu runs; linked by JobId=%llu)",
	         script_key, target, runs, (unsigned long long)job_id);
	return TP_OK;
}

tp_status tp_identity_resolve(const tp_store_options *opt, const char *user,
                              const tp_identity_profile *profile,
                              const char *script_key, tp_identity_key *key,
                              tp_error *err)
{
	bool script = script_key && script_key[0] && !profile->named && user &&
	              tp_store_valid_name(user) &&
	              tp_store_valid_name(script_key);
	char link_note[sizeof(key->why)] = "";
	size_t runs = 0;
	int64_t newest_s = 0;
	tp_status rc;

	memset(key, 0, sizeof(*key));
	if (profile->named && !profile->lookup) {
		snprintf(key->why, sizeof(key->why),
		         "--comm-profile %.64s is not a profile name",
		         profile->name ? profile->name : "");
		return TP_OK;
	}
	if (script) {
		rc = count_runs(opt, user, script_key, &runs, &newest_s, err);
		if (rc != TP_OK)
			return rc;
		if (runs) {
			key->source = TP_IDENTITY_SCRIPT;
			key->name = script_key;
			key->app_runs = runs;
			key->newest_mtime_s = newest_s;
			snprintf(key->why, sizeof(key->why),
			         "its batch script %s has %zu runs", script_key,
			         runs);
			return TP_OK;
		}
		rc = profile->skip_link
		         ? TP_OK
		         : follow_script_link(opt, user, script_key,
		                              profile->link_by_command, key, err);
		if (rc != TP_OK || key->source == TP_IDENTITY_SCRIPT_LINK)
			return rc;
		/* Why its link was not followed, if it has one. */
		snprintf(link_note, sizeof(link_note), "%s%.200s",
		         key->why[0] ? "; " : "", key->why);
	}
	if (!profile->lookup) {
		snprintf(key->why, sizeof(key->why),
		         "%s, and the job name is no profile name%.120s",
		         script ? "its batch script never ran"
		                : "no batch script",
		         link_note);
		return TP_OK;
	}
	key->source =
	    profile->named ? TP_IDENTITY_COMM_PROFILE : TP_IDENTITY_JOB_NAME;
	key->name = profile->name;
	if (script) {
		/* A new script is a new application, whatever the name's runs
		 * (app_runs stays 0); the name's profile is only a guess. */
		snprintf(key->why, sizeof(key->why),
		         "its batch script %s never ran%.160s", script_key,
		         link_note);
		return TP_OK;
	}
	rc = count_runs(opt, user, profile->name, &runs, &newest_s, err);
	if (rc != TP_OK)
		return rc;
	key->app_runs = runs;
	key->newest_mtime_s = newest_s;
	snprintf(key->why, sizeof(key->why), "%s",
	         profile->named ? "--comm-profile: the user's word"
	                        : "no batch script");
	return TP_OK;
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
