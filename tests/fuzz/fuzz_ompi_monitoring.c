/*
 * fuzz_ompi_monitoring.c: libFuzzer target for the Open MPI pml/coll
 * monitoring importer (tp_profile_parse_ompi_monitoring).
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_profile_header h;
	const char *label = "fuzz";
	const char *text = (const char *)data;
	tp_profile *p;
	tp_error err;

	memset(&h, 0, sizeof(h));
	strcpy(h.app, "fuzz");
	h.ranks = 64;
	if (tp_profile_new(&h, &p, &err) != TP_OK)
		return 0;
	if (tp_profile_parse_ompi_monitoring(p, &label, &text, &size, 1, 100000,
	                                     &err) == TP_OK)
		(void)tp_profile_finish(p, &err);
	tp_profile_free(p);
	return 0;
}
