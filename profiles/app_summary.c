/*
 * app_summary.c: runs per application (app_summary.h).
 *
 * The newest run is the one with the latest file time, ties broken by the
 * file name, whose stamp starts with the write time in nanoseconds
 * (store.h): the same run tp_store_get reads as the newest.
 */
#include "app_summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_identity.h"

static bool same_app(const tp_app_summary *a, const tp_store_entry *e)
{
	return !strcmp(a->ns, e->ns) && !strcmp(a->name, e->name);
}

static bool newer(const tp_store_entry *e, const tp_app_summary *a)
{
	return e->mtime_s > a->newest_s ||
	       (e->mtime_s == a->newest_s &&
	        strcmp(e->file, a->newest_file) > 0);
}

tp_status tp_app_summaries(const tp_store_list *list, tp_app_summary **apps,
                           size_t *count, tp_error *err)
{
	tp_app_summary *out = NULL, *cur = NULL;
	size_t n = 0;

	*apps = NULL;
	*count = 0;
	if (!list->count)
		return TP_OK;
	/* At most one summary per run. */
	out = calloc(list->count, sizeof(*out));
	if (!out)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "application summary of %zu runs: out of "
		                    "memory",
		                    list->count);
	for (size_t i = 0; i < list->count; i++) {
		const tp_store_entry *e = &list->entries[i];

		if (!cur || !same_app(cur, e)) {
			for (size_t j = 0; j < n; j++) {
				if (same_app(&out[j], e)) {
					free(out);
					return tp_error_set(
					    err, TP_ERR_INVALID,
					    "run list: %s/%s/%s out of order",
					    e->ns, e->name, e->file);
				}
			}
			cur = &out[n++];
			snprintf(cur->ns, sizeof(cur->ns), "%s", e->ns);
			snprintf(cur->name, sizeof(cur->name), "%s", e->name);
			snprintf(cur->newest_file, sizeof(cur->newest_file),
			         "%s", e->file);
			cur->first_s = cur->newest_s = e->mtime_s;
			cur->script_key = tp_identity_is_script_key(e->name);
		} else if (newer(e, cur)) {
			snprintf(cur->newest_file, sizeof(cur->newest_file),
			         "%s", e->file);
			cur->newest_s = e->mtime_s;
		}
		if (e->mtime_s < cur->first_s)
			cur->first_s = e->mtime_s;
		cur->runs++;
	}
	*apps = out;
	*count = n;
	return TP_OK;
}
