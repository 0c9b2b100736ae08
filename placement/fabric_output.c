/*
 * fabric_output.c: a finished fabric as the placement model (tp_topo) and
 * as Slurm's topology.conf (topology/tree).
 */
#include "tp_config.h"

#include "fabric_internal.h"
#include "hostlist.h"
#include "tp_strbuf.h"
#include "tp_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- outputs ----------------------------------------------------------- */

tp_status tp_fabric_to_topo(const tp_fabric *f, tp_topo **out, tp_error *err)
{
	tp_topo *topo;
	tp_status rc;
	uint32_t placed = 0;

	*out = NULL;
	if (!f->finished)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: fabric not finished", f->source);
	for (uint32_t h = 0; h < f->host_count; h++)
		if (f->hosts[h].mapped && f->hosts[h].leaf != TP_FABRIC_NONE)
			placed++;
	if (placed == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: no host with a NodeName is cabled to "
		                    "a leaf switch",
		                    f->source);
	if ((rc = tp_topo_new(&topo, err)) != TP_OK)
		return rc;
	for (uint32_t p = 0; p < f->pod_count && rc == TP_OK; p++)
		rc = tp_topo_add_pod(topo, f->pod_names[p], NULL, err);
	for (uint32_t k = 0; k < f->leaf_count && rc == TP_OK; k++)
		rc = tp_topo_add_leaf(topo, f->nodes[f->leaves[k]].name,
		                      f->leaf_pod[k], NULL, err);
	for (uint32_t k = 0; k < f->leaf_count && rc == TP_OK; k++) {
		for (uint32_t j = f->leaf_host_start[k];
		     j < f->leaf_host_start[k + 1] && rc == TP_OK; j++) {
			const tp_fabric_host *h =
			    &f->hosts[f->leaf_host_list[j]];

			if (h->mapped)
				rc = tp_topo_add_host(topo, h->name, k, NULL,
				                      err);
		}
	}
	for (uint32_t a = 0; a < f->leaf_count && rc == TP_OK; a++) {
		for (uint32_t b = a + 1; b < f->leaf_count && rc == TP_OK;
		     b++) {
			unsigned d =
			    f->leaf_dist[(size_t)a * f->leaf_count + b];

			if (d != tp_fabric_tree_distance(f, a, b))
				rc = tp_topo_set_leaf_distance(topo, a, b, d,
				                               err);
		}
	}
	if (rc == TP_OK)
		rc = tp_topo_finish(topo, err);
	if (rc != TP_OK) {
		tp_topo_free(topo);
		return tp_error_prefix(err, "%s", f->source);
	}
	*out = topo;
	return TP_OK;
}

tp_status tp_fabric_write_topology_conf(const tp_fabric *f, FILE *out,
                                        const char *what, tp_error *err)
{
	const char **names;
	bool *has_hosts;
	char *list = NULL;
	tp_status rc = TP_OK;
	uint32_t top_count = 0;

	if (!f->finished)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: fabric not finished", f->source);
	names = calloc((size_t)f->host_count + f->leaf_count + f->pod_count + 1,
	               sizeof(*names));
	has_hosts = calloc((size_t)f->leaf_count + f->pod_count + 1,
	                   sizeof(*has_hosts));
	if (names == NULL || has_hosts == NULL) {
		free(names);
		free(has_hosts);
		return tp_fabric_nomem(err, "topology.conf");
	}
	fprintf(out,
	        "# topology.conf written by topoplace fabric from %s\n"
	        "# %" PRIu32 " hosts, %" PRIu32 " leaves, %" PRIu32
	        " pod(s), %d switch level(s); switches above the leaves are\n"
	        "# collapsed into one switch per pod and one root, so the "
	        "file forms one tree.\n",
	        f->source, f->host_count, f->leaf_count, f->pod_count,
	        f->max_level);
	for (uint32_t k = 0; k < f->leaf_count && rc == TP_OK; k++) {
		size_t n = 0;

		for (uint32_t j = f->leaf_host_start[k];
		     j < f->leaf_host_start[k + 1]; j++)
			if (f->hosts[f->leaf_host_list[j]].mapped)
				names[n++] =
				    f->hosts[f->leaf_host_list[j]].name;
		if (n == 0)
			continue;
		has_hosts[k] = true;
		has_hosts[f->leaf_count + f->leaf_pod[k]] = true;
		if ((rc = tp_hostlist_compress(names, n, &list, err)) != TP_OK)
			break;
		fprintf(out, "SwitchName=%s Nodes=%s\n",
		        f->nodes[f->leaves[k]].name, list);
		free(list);
		list = NULL;
	}
	if (rc == TP_OK && f->pod_count > 1) {
		for (uint32_t p = 0; p < f->pod_count && rc == TP_OK; p++) {
			size_t n = 0;

			if (!has_hosts[f->leaf_count + p])
				continue;
			for (uint32_t k = 0; k < f->leaf_count; k++)
				if (f->leaf_pod[k] == p && has_hosts[k])
					names[n++] =
					    f->nodes[f->leaves[k]].name;
			if ((rc = tp_hostlist_compress(names, n, &list, err)) !=
			    TP_OK)
				break;
			fprintf(out, "SwitchName=%s Switches=%s\n",
			        f->pod_names[p], list);
			free(list);
			list = NULL;
			top_count++;
		}
		if (rc == TP_OK && top_count > 1) {
			size_t n = 0;

			for (uint32_t p = 0; p < f->pod_count; p++)
				if (has_hosts[f->leaf_count + p])
					names[n++] = f->pod_names[p];
			rc = tp_hostlist_compress(names, n, &list, err);
			if (rc == TP_OK)
				fprintf(out, "SwitchName=root Switches=%s\n",
				        list);
		}
	} else if (rc == TP_OK) {
		size_t n = 0;

		for (uint32_t k = 0; k < f->leaf_count; k++)
			if (has_hosts[k])
				names[n++] = f->nodes[f->leaves[k]].name;
		if (n > 1) {
			rc = tp_hostlist_compress(names, n, &list, err);
			if (rc == TP_OK)
				fprintf(out, "SwitchName=root Switches=%s\n",
				        list);
		}
	}
	free(list);
	free(names);
	free(has_hosts);
	if (rc == TP_OK && (fflush(out) != 0 || ferror(out)))
		rc = tp_error_set(err, TP_ERR_IO, "%s: write error: %s", what,
		                  strerror(errno));
	return rc;
}
