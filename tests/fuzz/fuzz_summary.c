/*
 * fuzz_summary.c: libFuzzer target for the profile summary parser
 * (tp_summary_parse), which slurmctld runs as root on files in users'
 * store namespaces.
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_profile_summary *first = malloc(sizeof(*first));
	tp_profile_summary *again = malloc(sizeof(*again));
	tp_error err;
	char *text = NULL;

	if (!first || !again)
		__builtin_trap();
	/* Whatever it accepts prints and parses back to the same summary. */
	if (tp_summary_parse("fuzz", (const char *)data, size, first, &err) ==
	    TP_OK) {
		if (tp_summary_format(first, &text, &err) != TP_OK ||
		    tp_summary_parse("again", text, strlen(text), again,
		                     &err) != TP_OK ||
		    memcmp(first, again, sizeof(*first)))
			__builtin_trap();
		free(text);
	}
	free(first);
	free(again);
	return 0;
}
