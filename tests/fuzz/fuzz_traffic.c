/*
 * fuzz_traffic.c: libFuzzer target for the communication-matrix reader.
 * Any bytes must give either a normalized matrix whose entries are in
 * range and sorted, or one error; never a crash, a leak or UB.  The CSR
 * views of an accepted matrix are built too, and small ones (<= 64 ranks,
 * hostile byte counts included) are remapped and costed on a 16-host tree:
 * the result must place every rank and never cost more than block.
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cost.h"
#include "remap.h"
#include "traffic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_traffic_limits lim = tp_traffic_default_limits();
	tp_traffic *t = NULL;
	tp_traffic_csr *c = NULL;
	tp_error err;

	/* Small bounds keep each run fast; the limits are what is tested. */
	lim.max_ranks = 4096;
	lim.max_entries = 10000;
	lim.max_file_bytes = 1 << 20;
	if (tp_traffic_parse("fuzz", (const char *)data, size, &lim, &t,
	                     &err) != TP_OK)
		return 0;
	for (size_t i = 0; i < t->count; i++) {
		if (t->entries[i].src >= t->ranks ||
		    t->entries[i].dst >= t->ranks)
			abort();
		if (i && (t->entries[i - 1].src > t->entries[i].src ||
		          (t->entries[i - 1].src == t->entries[i].src &&
		           t->entries[i - 1].dst >= t->entries[i].dst)))
			abort();
	}
	if (tp_traffic_csr_build(t, TP_TRAFFIC_CSR_UNDIRECTED, &c, &err) ==
	    TP_OK)
		tp_traffic_csr_free(c);
	if (tp_traffic_csr_build(t, TP_TRAFFIC_CSR_DIRECTED, &c, &err) == TP_OK)
		tp_traffic_csr_free(c);
	if (t->ranks <= 64) {
		tp_topo *topo;
		tp_remap_host hosts[16];
		tp_remap_mapping m;
		tp_remap_stats st;
		tp_cost_report rep;

		if (tp_topo_new_fattree(&topo, 2, 2, 4, &err) != TP_OK)
			abort();
		for (uint32_t i = 0; i < 16; i++)
			hosts[i] = (tp_remap_host){i, 4};
		if (tp_remap_compute(topo, t, hosts, 16, 1, NULL, &m, &st,
		                     &err) != TP_OK)
			abort();
		if (st.hop_bytes > st.block_hop_bytes ||
		    tp_cost_hop_bytes(topo, t, m.rank_host) != st.hop_bytes)
			abort();
		if (tp_cost_evaluate(topo, t, m.rank_host, NULL, &rep, NULL,
		                     NULL, &err) != TP_OK)
			abort();
		tp_remap_mapping_free(&m);
		tp_topo_free(topo);
	}
	tp_traffic_free(t);
	return 0;
}
