/*
 * fuzz_profile_coll.c: libFuzzer target for the `.coll` companion parser
 * of the matrix importer (tp_profile_parse_collectives).  The matrix text
 * itself is placement/traffic.c's parser.
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
	tp_profile *p;
	tp_error err;

	memset(&h, 0, sizeof(h));
	strcpy(h.app, "fuzz");
	h.ranks = 8;
	if (tp_profile_new(&h, &p, &err) != TP_OK)
		return 0;
	if (tp_profile_parse_collectives(p, "fuzz", (const char *)data, size,
	                                 &err) == TP_OK)
		(void)tp_profile_finish(p, &err);
	tp_profile_free(p);
	return 0;
}
