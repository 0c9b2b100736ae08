/*
 * fuzz_fabric_cache: libFuzzer target for the ibnetdiscover cache reader
 * (tp_discover_parse_cache: every count, port number and reference is
 * checked against the bytes) and the model built from what it accepts.
 * No files are written; everything allocated is freed.
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>

#include "discover.h"
#include "fabric.h"
#include "route.h"
#include "topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_fabric *f = NULL;
	tp_topo *topo = NULL;
	tp_routes *r = NULL;
	tp_error err;

	if (tp_discover_parse_cache(data, size, "fuzz", NULL, &f, &err) !=
	    TP_OK)
		return 0;
	if (tp_fabric_to_topo(f, &topo, &err) == TP_OK)
		tp_topo_free(topo);
	if (tp_routes_new_dmodk(f, &r, &err) == TP_OK) {
		uint32_t path[TP_ROUTE_MAX_HOPS];
		size_t n;
		uint32_t hosts = tp_fabric_host_count(f);

		for (uint32_t a = 0; a < hosts && a < 8; a++)
			for (uint32_t b = 0; b < hosts && b < 8; b++)
				tp_routes_path(r, a, b, path, TP_ROUTE_MAX_HOPS,
				               &n, &err);
		tp_routes_free(r);
	}
	tp_fabric_free(f);
	return 0;
}
