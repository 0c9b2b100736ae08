/*
 * app_summary.h: the store's runs grouped per application, for
 * `topoplace profile list --apps` (what the site records and keeps).
 *
 * In: a run listing (tp_store_list_runs: sorted by namespace, name, file,
 * not verified).  Out: one summary per namespace/name with the number of
 * runs kept, the first and last recording times (file times) and the
 * newest run's file, for the caller to read and classify.  Which names
 * are script keys (identity.h) is said, so a listing can show them as the
 * script of an application rather than as a name a user chose.
 * No I/O; no Slurm.
 */
#ifndef TP_APP_SUMMARY_H
#define TP_APP_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "tp_error.h"

typedef struct tp_app_summary {
	char ns[TP_STORE_NAME_MAX + 1];
	char name[TP_STORE_NAME_MAX + 1];
	char newest_file[TP_STORE_FILE_MAX + 1];
	unsigned runs;
	int64_t first_s;  /* oldest kept run's file time */
	int64_t newest_s; /* newest run's file time */
	bool script_key;  /* @name is a batch script's key */
} tp_app_summary;

/*
 * Group @list into *apps (malloc'd, caller frees; NULL when empty) and
 * *count, in @list's order.  TP_ERR_INVALID for a list out of order (a
 * name seen again after another), TP_ERR_NOMEM.
 */
tp_status tp_app_summaries(const tp_store_list *list, tp_app_summary **apps,
                           size_t *count, tp_error *err);

#endif /* TP_APP_SUMMARY_H */
