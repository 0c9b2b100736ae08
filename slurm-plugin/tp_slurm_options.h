/*
 * tp_slurm_options.h: topoplace's user flags, checked and canonicalised.
 *
 * One place for the rules of every flag, so that sbatch/salloc/srun (the
 * SPANK plugin, at submission), slurmctld (the select plugin, reading the
 * job's SPANK environment) and slurmstepd (the task plugin) agree on what a
 * value means.  No Slurm dependency: unit-testable and fuzzable alone.
 */
#ifndef TP_SLURM_OPTIONS_H
#define TP_SLURM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "tp_error.h"
#include "window.h"

/* The flags, in the order they are registered. */
typedef enum tp_opt_id {
	TP_OPT_PLACEMENT = 0,
	TP_OPT_COMM_PROFILE,
	TP_OPT_COMM_RECORD,
	TP_OPT_RANK_REMAP,
	TP_OPT_IO_SERVERS,
	TP_OPT_IO_THROTTLE,
	TP_OPT_COUNT
} tp_opt_id;

/* Largest --io-servers accepted. */
#define TP_OPT_IO_SERVERS_MAX 65536u

/* Room for any canonical value (profile names are at most 64 bytes). */
#define TP_OPT_VALUE_MAX 80

/* What a flag looks like to users and inside Slurm. */
typedef struct tp_opt_info {
	const char *name;    /* "placement": --placement, option name */
	const char *arginfo; /* the value shown by --help */
	const char *usage;   /* one line for --help */
	int has_arg;         /* 1 required, 2 optional (SPANK convention) */
	const char *env;     /* TOPOPLACE_* variable in the step */
} tp_opt_info;

/* The static description of flag @id (NULL for an unknown id). */
const tp_opt_info *tp_opt_info_get(tp_opt_id id);

/*
 * Check @value (NULL: the flag was given without a value, allowed for
 * optional-argument flags only) for flag @id and write its canonical form
 * into @canon (TP_OPT_VALUE_MAX bytes): "leaf", "2000us", "4", "" for
 * --comm-record without a name.  On a bad value returns TP_ERR_INVALID with
 * one line "--<flag>: <what is wrong> (expected ...)".
 */
tp_status tp_opt_check(tp_opt_id id, const char *value,
                       char canon[TP_OPT_VALUE_MAX], tp_error *err);

/* Everything the flags of one job say; unset flags have their defaults. */
typedef struct tp_opt_values {
	tp_placement placement;              /* TP_PLACEMENT_AUTO when unset */
	char comm_profile[TP_OPT_VALUE_MAX]; /* "" when unset */
	bool comm_record;
	char comm_record_name[TP_OPT_VALUE_MAX]; /* "" : the job name */
	bool rank_remap;                 /* true unless --rank-remap=off */
	uint32_t io_servers;             /* 0 when unset */
	tp_throttle_request io_throttle; /* mode AUTO when unset */
	bool comm_record_off; /* --comm-record=no: opts out of ProfileRecord */
} tp_opt_values;

/* The defaults (no flag given). */
void tp_opt_values_init(tp_opt_values *values);

/*
 * Apply flag @id = @value to @values (checked as by tp_opt_check).  On a
 * bad value @values is left unchanged for that flag.
 */
tp_status tp_opt_values_set(tp_opt_values *values, tp_opt_id id,
                            const char *value, tp_error *err);

#endif /* TP_SLURM_OPTIONS_H */
