/*
 * discover.h: where a tp_fabric comes from.
 *
 *   - live: libibnetdisc sweeps the fabric through a local HCA port (needs
 *     an InfiniBand device and a subnet manager that assigned LIDs);
 *   - an ibnetdiscover cache (ibnetdiscover --cache, ibnd_cache_fabric), so
 *     slurmctld never sweeps the fabric in its scheduling path;
 *   - Slurm's topology.conf (no ports, LIDs or routes) for sites without IB
 *     access.
 *
 * Every function returns a finished fabric (tp_fabric_finish done with the
 * given name map, which may be NULL) or an error naming the input.
 */
#ifndef TP_DISCOVER_H
#define TP_DISCOVER_H

#include <stddef.h>

#include "fabric.h"
#include "tp_error.h"

/* Limits on topology.conf input (a malformed file must not exhaust memory). */
#define TP_TOPOLOGY_CONF_MAX_BYTES (64u << 20)
#define TP_TOPOLOGY_CONF_MAX_NAMES 200000u

/*
 * Sweep the fabric with libibnetdisc from HCA @ca_name port @ca_port (NULL,
 * 0: the first active port).  When @cache_path is not NULL, the raw sweep is
 * also saved there as an ibnetdiscover cache.  Errors: TP_ERR_IO when there
 * is no usable port or the sweep fails, naming the device.
 */
tp_status tp_discover_live(const char *ca_name, int ca_port,
                           const char *cache_path,
                           const tp_fabric_name_map *map, tp_fabric **fabric,
                           tp_error *err);

/* Largest ibnetdiscover cache read (a 10,000-node fabric is ~15 MB). */
#define TP_CACHE_MAX_BYTES (256u << 20)

/*
 * Parse the bytes of an ibnetdiscover cache (ibnetdiscover --cache,
 * ibnd_cache_fabric; format version 1), checking every count, port number
 * and reference against the data.  @origin names it in errors.  Errors:
 * TP_ERR_PARSE ("<origin>: truncated ...", "not an ibnetdiscover cache").
 */
tp_status tp_discover_parse_cache(const void *data, size_t len,
                                  const char *origin,
                                  const tp_fabric_name_map *map,
                                  tp_fabric **fabric, tp_error *err);

/*
 * Load an ibnetdiscover cache file (see above).  Errors: TP_ERR_IO (cannot
 * open or read), TP_ERR_PARSE (not a cache, truncated, inconsistent).
 */
tp_status tp_discover_load_cache(const char *path,
                                 const tp_fabric_name_map *map,
                                 tp_fabric **fabric, tp_error *err);

/*
 * Parse the text of a Slurm topology.conf (topology/tree: SwitchName=,
 * Switches=, Nodes=, LinkSpeed=; hostlist ranges such as n[0001-0018,20];
 * '#' comments; '\' line continuation; keys case-insensitive).  @origin
 * names the input in errors: "<origin>: line N: <what>".  Every switch a
 * Switches= names must be defined.  Hosts are CAs with one port per switch
 * that lists them; the fabric has no real ports (tp_fabric_has_ports false).
 */
tp_status tp_discover_parse_topology_conf(const char *text, size_t len,
                                          const char *origin,
                                          tp_fabric **fabric, tp_error *err);

/* Read and parse topology.conf file @path (see above). */
tp_status tp_discover_load_topology_conf(const char *path, tp_fabric **fabric,
                                         tp_error *err);

#endif /* TP_DISCOVER_H */
