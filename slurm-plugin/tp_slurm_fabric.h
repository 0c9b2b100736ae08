/*
 * tp_slurm_fabric.h: the plugins' fabric loader.
 *
 * Kept apart from tp_slurm_core.c so the core adapter sees only the
 * finished tp_topo, never the fabric graph.
 */
#ifndef TP_SLURM_FABRIC_H
#define TP_SLURM_FABRIC_H

#include "topo.h"
#include "tp_error.h"

/*
 * Load the fabric as a tp_topo: from topology.conf @topology_conf when
 * @from_topology_conf, else from the ibnetdiscover cache @cache, mapping
 * node descriptions through @name_map (NULL: first word).
 */
tp_status tp_sf_load_topo(int from_topology_conf, const char *topology_conf,
                          const char *cache, const char *name_map,
                          tp_topo **topo, tp_error *err);

#endif /* TP_SLURM_FABRIC_H */
