/*
 * fuzz_topology_conf: libFuzzer target for the Slurm topology.conf reader
 * (tp_discover_parse_topology_conf) and, through it, hostlist expansion,
 * fabric finishing, the topology.conf writer and the hierarchy reduction.
 * No files are written; everything allocated is freed.
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "discover.h"
#include "fabric.h"
#include "topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_fabric *f = NULL;
	tp_topo *topo = NULL;
	tp_error err;
	FILE *null_out;

	if (tp_discover_parse_topology_conf((const char *)data, size, "fuzz",
	                                    &f, &err) != TP_OK)
		return 0;
	if (tp_fabric_to_topo(f, &topo, &err) == TP_OK)
		tp_topo_free(topo);
	null_out = fopen("/dev/null", "w");
	if (null_out != NULL) {
		tp_fabric_write_topology_conf(f, null_out, "/dev/null", &err);
		fclose(null_out);
	}
	tp_fabric_free(f);
	return 0;
}
