/*
 * tp_select_model.h: what select/topoplace_cons_tres places with, loaded at
 * init and on reconfigure (never in the scheduling path): topoplace.conf,
 * the fabric as a tp_topo, the map between Slurm's node index and the
 * topo's host index, and the site's I/O servers.  A failed reload keeps
 * the previous model (the caller keeps it: this module only loads).
 *
 * Slurm-side (slurm_conf, the node table), slurmctld only, called with
 * slurmctld's locks held or before it schedules.  Errors are logged here,
 * once, in Slurm's log.
 */
#ifndef TP_SELECT_MODEL_H
#define TP_SELECT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "topo.h"
#include "topoplace_conf.h"

typedef struct tp_file_sig {
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
} tp_file_sig;

typedef struct tp_model {
	/* What was read, so reconfigure can tell whether anything changed. */
	tp_file_sig conf_sig, fabric_sig, map_sig;
	tp_config *config;
	tp_topo *topo;         /* NULL: no fabric, plain cons_tres */
	uint32_t *node_host;   /* Slurm node index -> topo host / NONE */
	uint32_t *host_node;   /* topo host -> Slurm node index / NONE */
	int node_count;        /* entries of node_host */
	uint32_t mapped_count; /* hosts of the topo that are Slurm nodes */
	uint32_t *ioservers;   /* IoServerHosts as topo hosts */
	uint32_t ioserver_count;
	char munge_socket[256];
	bool from_last_good; /* 24.11 reconfigure: the saved copy, not the file
	                      */
	const char *why;     /* "init" or "reconfigure": for later log lines */
} tp_model;

/* No host / no node in the maps above. */
#define TP_NONE UINT32_MAX

/*
 * Read topoplace.conf and the fabric (@why, "init" or "reconfigure",
 * names the occasion in the log).  NULL (error logged, one line) when the
 * configuration is bad and none can be kept (tp_sc_conf_on_error); a
 * model without topo when only the fabric could not be loaded (jobs then
 * go to plain cons_tres).  Free with tp_model_free.
 */
tp_model *tp_model_load(const char *why);

/* Free @m (NULL-safe). */
void tp_model_free(tp_model *m);

/* Map Slurm's nodes (the node table now) onto @m's topo by NodeName. */
void tp_model_map_nodes(tp_model *m);

/*
 * False, and the fabric dropped (logged once), when none of its hosts is
 * a Slurm node: no job could ever be placed on it.  True before Slurm's
 * nodes are known.
 */
bool tp_model_check_usable(tp_model *m, const char *why);

/* True when topoplace.conf and the fabric files @m was read from are
 * unchanged on disk (a reconfigure then keeps @m). */
bool tp_model_unchanged(const tp_model *m);

/* True when @m's DebugFlags include @flag (NULL model: none). */
bool tp_model_debug(const tp_model *m, uint32_t flag);

/* DebugFlags=Fabric: where Slurm's nodes are on the fabric. */
void tp_model_log_nodes(const tp_model *m, const char *why);

/*
 * True when the last load failed on topoplace.conf and the file (its path
 * into @path, @size bytes) is unchanged since: its error was said once.
 */
bool tp_model_conf_error_reported(char *path, size_t size);

#endif /* TP_SELECT_MODEL_H */
