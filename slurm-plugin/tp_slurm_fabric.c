/*
 * tp_slurm_fabric.c: the fabric model for the plugins (never a live sweep).
 */
#include <stddef.h>

#include "discover.h"
#include "fabric.h"
#include "tp_slurm_fabric.h"

tp_status tp_sf_load_topo(int from_topology_conf, const char *topology_conf,
                          const char *cache, const char *name_map,
                          tp_topo **topo, tp_error *err)
{
	tp_fabric_name_map *map = NULL;
	tp_fabric *fabric = NULL;
	tp_status rc;

	if (from_topology_conf) {
		rc =
		    tp_discover_load_topology_conf(topology_conf, &fabric, err);
	} else {
		if (name_map) {
			rc = tp_fabric_name_map_load(name_map, &map, err);
			if (rc != TP_OK)
				return rc;
		}
		rc = tp_discover_load_cache(cache, map, &fabric, err);
		tp_fabric_name_map_free(map);
	}
	if (rc != TP_OK)
		return rc;
	rc = tp_fabric_to_topo(fabric, topo, err);
	tp_fabric_free(fabric);
	return rc;
}
