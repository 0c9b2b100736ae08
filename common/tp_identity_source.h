/*
 * tp_identity_source.h: which key chose a job's profile, and the words
 * users read for it ("by script hash").
 *
 * The rule that picks the key is profiles/app_identity.h's
 * (tp_identity_resolve); the words are here, on the ground floor, because
 * placement/sched_policy.c writes them into SystemComment from
 * slurmctld's lookup answer and must not include profiles/: one copy of
 * the words, so the job's SystemComment and its output (slurmd's batch
 * preparation) never name a key two ways.
 */
#ifndef TP_IDENTITY_SOURCE_H
#define TP_IDENTITY_SOURCE_H

/*
 * Which key chose a job's profile (tp_identity_resolve), most specific
 * first: the user's word, then what the job runs, then what it is called.
 */
typedef enum tp_identity_source {
	TP_IDENTITY_NONE = 0,     /* nothing to look up */
	TP_IDENTITY_COMM_PROFILE, /* --comm-profile */
	TP_IDENTITY_SCRIPT,       /* the batch script's key, which has runs */
	TP_IDENTITY_SCRIPT_LINK,  /* the application its script's key links to */
	TP_IDENTITY_JOB_NAME,     /* the job name */
} tp_identity_source;

/* What users read for @source: "--comm-profile", "script hash",
 * "script hash, via executable", "job name" (as in "by script hash"),
 * "none". */
const char *tp_identity_source_name(tp_identity_source source);

#endif /* TP_IDENTITY_SOURCE_H */
