/*
 * fuzz_profile.c: libFuzzer target for the profile file decoder
 * (tp_profile_decode), the reader slurmctld runs on store files.
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "sha256.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode_one(const uint8_t *data, size_t size)
{
	tp_profile_limits lim = tp_profile_default_limits();
	tp_profile *p = NULL;
	tp_error err;

	/* Small limits so the fuzzer explores them, not the allocator. */
	lim.max_ranks = 1 << 16;
	lim.max_pairs = 1 << 16;
	if (tp_profile_decode("fuzz", data, size, &lim, &p, &err) == TP_OK) {
		unsigned minor = data[10] | (unsigned)data[11] << 8;
		uint8_t *again = NULL, *third = NULL;
		size_t len = 0, len3 = 0;
		tp_profile *q = NULL;

		if (tp_profile_encode(p, &again, &len, &err) != TP_OK)
			__builtin_trap();
		/* Anything accepted at the minor this code writes is
		 * canonical: it re-encodes to itself. */
		if (minor == TP_PROFILE_VERSION_MINOR &&
		    (len != size || memcmp(again, data, size)))
			__builtin_trap();
		/* Any other accepted minor (an older one, or a newer one
		 * whose extra sections this reader skips) is rewritten at the
		 * current minor, and that rewrite is a fixed point. */
		if (tp_profile_decode("fuzz-again", again, len, &lim, &q, &err) != TP_OK ||
		    tp_profile_encode(q, &third, &len3, &err) != TP_OK ||
		    len3 != len || memcmp(third, again, len))
			__builtin_trap();
		/* A minor-0 file carries no exec section: its run is unknown. */
		if (minor == TP_PROFILE_VERSION_MINOR_NO_EXEC &&
		    (p->exec.path[0] != '\0' || q->exec.path[0] != '\0'))
			__builtin_trap();
		/* A file older than minor 2 carries no args section: its
		 * arguments are unknown, and stay so when rewritten. */
		if (minor <= TP_PROFILE_VERSION_MINOR_NO_ARGS &&
		    (p->exec.args_method != TP_EXEC_ARGS_NONE ||
		     q->exec.args_method != TP_EXEC_ARGS_NONE))
			__builtin_trap();
		free(third);
		free(again);
		tp_profile_free(q);
		tp_profile_free(p);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t body = 0;
	uint8_t *fixed;

	decode_one(data, size);
	/* Random bytes almost never carry a valid SHA-256: decode a copy
	 * with the digest repaired too, so the section parsers get fuzzed. */
	if (size < TP_PROFILE_HEADER_BYTES)
		return 0;
	for (int i = 0; i < 8; i++)
		body |= (uint64_t)data[16 + i] << (8 * i);
	if (body > size - TP_PROFILE_HEADER_BYTES ||
	    size - TP_PROFILE_HEADER_BYTES - body < TP_SHA256_BYTES)
		return 0;
	fixed = malloc(size);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	tp_sha256(fixed, TP_PROFILE_HEADER_BYTES + body,
	          fixed + TP_PROFILE_HEADER_BYTES + body);
	decode_one(fixed, size);
	free(fixed);
	return 0;
}
