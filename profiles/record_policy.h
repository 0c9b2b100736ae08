/*
 * record_policy.h: which jobs the site records a communication profile
 * of, without the user asking (ProfileRecord in topoplace.conf(5)).
 *
 * In: the partition's policy (mode, ProfileMaxAge, whether users may opt
 * out, the applications never recorded) and what is known of one job (its
 * application name, the user's --comm-record choice, its job id, whether a
 * profile of the application exists and how old the newest run is).  Out:
 * record or not, and the reason in words for the job's log and output.
 *
 * The decision is a pure function of its input, so every node of a job
 * and every retry reaches the same answer: the profiler gathers at
 * MPI_Finalize and must be preloaded into all ranks or none.  Sampling
 * is by job id for the same reason (no counter to share between daemons).
 *
 * Filled by the config (tp_config_settings.record); strings in it point
 * into the config.  No Slurm, no I/O.
 */
#ifndef TP_RECORD_POLICY_H
#define TP_RECORD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_error.h"

/* ProfileRecordExclude holds at most this many application names. */
#define TP_RECORD_EXCLUDE_MAX 32

/* ProfileRecord=sample:N takes 2 <= N <= this. */
#define TP_RECORD_SAMPLE_MAX 1000000u

typedef enum tp_record_mode {
	TP_RECORD_OFF = 0, /* only jobs whose user asks (--comm-record) */
	TP_RECORD_FIRST,   /* the first run of each application */
	TP_RECORD_SAMPLE,  /* the first run, then 1 job in N (by job id) */
	TP_RECORD_STALE,   /* the first run, and runs whose newest profile is
	                      older than ProfileMaxAge */
	TP_RECORD_ALWAYS,  /* every run */
} tp_record_mode;

/* The user's --comm-record flag. */
typedef enum tp_record_user {
	TP_RECORD_USER_UNSET = 0, /* no flag: the site decides */
	TP_RECORD_USER_YES,       /* --comm-record[=NAME] */
	TP_RECORD_USER_NO,        /* --comm-record=no */
} tp_record_user;

typedef struct tp_record_policy {
	tp_record_mode mode;
	uint32_t sample_every; /* N of sample:N, else 0 */
	int64_t max_age_s;     /* ProfileMaxAge; 0: no age limit */
	bool allow_user_off;   /* ProfileRecordAllowUserOff */
	const char *exclude[TP_RECORD_EXCLUDE_MAX]; /* ProfileRecordExclude */
	size_t exclude_count;
} tp_record_policy;

typedef struct tp_record_job {
	const char *app; /* the application's profile name; NULL:
	                    unknown (never recorded automatically) */
	tp_record_user user;
	uint64_t job_id;
	bool has_profile;     /* a stored run of @app exists */
	int64_t newest_age_s; /* age of the newest run, if has_profile */
	/* What the runs were counted under when it is not @app, for the
	 * reason ("this batch script": a batch job's runs are its script's,
	 * tp_identity_resolve, though its job name may have runs); NULL:
	 * @app. */
	const char *runs_of;
} tp_record_job;

/*
 * Parse a ProfileRecord value ("off", "first", "sample:N", "stale",
 * "always"; case-insensitive) into @mode and @every (N, else 0).
 * TP_ERR_INVALID naming the value and what is accepted.
 */
tp_status tp_record_mode_parse(const char *text, tp_record_mode *mode,
                               uint32_t *every, tp_error *err);

/* The value as the file spells it ("sample:10") into @buf of @size. */
void tp_record_mode_format(tp_record_mode mode, uint32_t every, char *buf,
                           size_t size);

/*
 * Parse a ProfileRecordExclude value: application names separated by
 * commas, each a valid store name, at most TP_RECORD_EXCLUDE_MAX.  The
 * names are written NUL-separated into @buf (of @size bytes; the caller
 * keeps it as long as @policy) and pointed to from @policy->exclude.
 * "none" or "" clears the list.  TP_ERR_INVALID / TP_ERR_LIMIT.
 */
tp_status tp_record_exclude_parse(const char *text, char *buf, size_t size,
                                  tp_record_policy *policy, tp_error *err);

/* Whether @app is on the policy's exclude list. */
bool tp_record_excluded(const tp_record_policy *policy, const char *app);

/*
 * Whether @job is recorded under @policy, and why, into @reason of @size
 * bytes ("ProfileRecord=first: no profile of lulesh yet").  The user's
 * --comm-record always records; --comm-record=no stops automatic
 * recording only where allow_user_off (the reason then says the site
 * recorded anyway); excluded applications and jobs with no application
 * name are never recorded automatically.
 */
bool tp_record_decide(const tp_record_policy *policy, const tp_record_job *job,
                      char *reason, size_t size);

#endif /* TP_RECORD_POLICY_H */
