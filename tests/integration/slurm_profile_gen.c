/*
 * slurm_profile_gen.c: profiles of known class for the Slurm end-to-end
 * tests (slurm_place.sh), written unsigned (`topoplace profile put` signs
 * them as the submitting user).
 *
 *   slurm_profile_gen io_heavy|quiet|alltoall RANKS OUT
 *
 * io_heavy: every rank writes 2 GiB in 1 MiB requests in one second (2 GiB/s
 * per client, over the 1 GiB/s class threshold) and sends little.
 * quiet: a ring of small, rare messages and no I/O; up to 10^6 ranks.
 * alltoall: every rank sends to every other (RANKS^2 matrix entries: a
 * large profile, as a real all-to-all code records), no I/O.
 */
#include "tp_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

int main(int argc, char **argv)
{
	tp_profile_header header;
	tp_profile *profile = NULL;
	tp_error err;
	int io, all;
	unsigned long ranks, max_ranks;

	if (argc != 4 ||
	    (strcmp(argv[1], "io_heavy") && strcmp(argv[1], "quiet") &&
	     strcmp(argv[1], "alltoall"))) {
		fprintf(stderr, "usage: slurm_profile_gen "
		                "io_heavy|quiet|alltoall RANKS OUT\n");
		return 2;
	}
	io = !strcmp(argv[1], "io_heavy");
	all = !strcmp(argv[1], "alltoall");
	max_ranks = !strcmp(argv[1], "quiet") ? 1000000 : 4096;
	ranks = strtoul(argv[2], NULL, 10);
	if (ranks < 2 || ranks > max_ranks) {
		fprintf(stderr, "slurm_profile_gen: RANKS: 2..%lu\n",
		        max_ranks);
		return 2;
	}
	memset(&header, 0, sizeof(header));
	snprintf(header.app, sizeof(header.app), "%s", argv[1]);
	header.ranks = (uint32_t)ranks;
	header.duration_us = 1000000;
	if (tp_profile_new(&header, &profile, &err) != TP_OK)
		goto fail;
	for (uint32_t r = 0; r < ranks; r++) {
		/* A ring: 10 messages of 100 bytes per second per rank. */
		if (tp_profile_add_pair(profile, r, (r + 1) % ranks, 1000, 10,
		                        &err) != TP_OK)
			goto fail;
		for (uint32_t to = 0; all && to < ranks; to++)
			if (to != r && to != (r + 1) % ranks &&
			    tp_profile_add_pair(profile, r, to, 4096, 4,
			                        &err) != TP_OK)
				goto fail;
		if (io) {
			tp_profile_io_client c = {0};

			c.rank = r;
			c.requests = 2048;
			c.bytes = 2048ull << 20;
			c.interval_p10_us = c.interval_p50_us = 488;
			c.interval_p90_us = c.interval_p99_us = 488;
			if (tp_profile_add_io_client(profile, &c, &err) !=
			    TP_OK)
				goto fail;
			profile->io.requests += c.requests;
			profile->io.write_bytes += c.bytes;
			profile->io.size_hist[20] += c.requests;
			profile->io.time_us += 500000;
		}
	}
	if (tp_profile_finish(profile, &err) != TP_OK ||
	    tp_profile_write_file(argv[3], profile, &err) != TP_OK)
		goto fail;
	tp_profile_free(profile);
	return 0;
fail:
	fprintf(stderr, "slurm_profile_gen: %s\n", err.message);
	tp_profile_free(profile);
	return 1;
}
