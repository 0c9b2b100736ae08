/*
 * tp_select_ops.h: the select interface of the Slurm version being built
 * against, as select/topoplace_cons_tres needs it to load and call
 * select/cons_tres: the table of entry points (slurm_select_ops_t) and
 * the list of their symbol names, in the same order.
 *
 * The list must be exactly the loading Slurm's: plugin_context_create()
 * fails on a name cons_tres does not export, and Slurm itself makes a
 * select plugin that lacks one of its names fatal for slurmctld and every
 * client.  Each version has its own file, copied from that version's
 * src/{common,interfaces}/select.[ch]; doc/slurm-versions.md says what
 * changed between them.
 */
#ifndef TP_SELECT_OPS_H
#define TP_SELECT_OPS_H

#include "tp_slurm_compat.h"

#if TP_SLURM_22_05
#include "tp_select_ops_22_05.h"
#else
#include "tp_select_ops_24_11.h"
#endif

#endif
