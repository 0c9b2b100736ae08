/*
 * alloc_bench.c: time per leaf-allocation decision, each policy side by side,
 * on 648-, 1,296- and 5,184-host fat trees at several occupancies, for jobs
 * of 16 hosts, an eighth and half of the fabric.  "30% down" (hosts down at
 * random, no jobs) gives leaves of many different sizes: the hardest case
 * for the leaf policy's exact best fit, whose work grows with the distinct
 * leaf sizes and the job size.
 *
 * Prints figures only (never pass/fail on time).  Goal from issue 5: a leaf
 * allocation on a 5,000-node fabric in under 1 ms.
 *
 *   bench/alloc_bench [reps]      (default 15 decisions per seed, 7 seeds)
 */
#include "tp_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"

#define SEEDS 7

struct shape {
	const char *label;
	uint32_t pods, leaves_per_pod, hosts_per_leaf;
};

struct occupancy {
	const char *label;
	double busy_fraction;
	int scattered;        /* 1: random hosts; 0: jobs on contiguous runs */
	double down_fraction; /* of hosts, at random */
};

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Busy hosts by jobs of 1..72 hosts (contiguous runs, or scattered), hosts
 * down at random; job classes cycle quiet, io_heavy, comm_sensitive. */
static void fill(tp_host_use *use, uint32_t hosts, const struct occupancy *occ,
                 uint64_t seed)
{
	uint64_t rng = seed;
	uint32_t target = (uint32_t)(occ->busy_fraction * hosts), busy = 0;
	uint32_t job = 1000, guard = 0;

	memset(use, 0, sizeof(*use) * hosts);
	for (uint32_t i = 0; i < (uint32_t)(occ->down_fraction * hosts); i++)
		use[next_random(&rng) % hosts].state = TP_HOST_DOWN;
	while (busy < target && guard++ < 100000) {
		uint32_t size = 1 + (uint32_t)(next_random(&rng) % 72);
		uint32_t start = (uint32_t)(next_random(&rng) % hosts);

		job++;
		for (uint32_t k = 0; k < size && busy < target; k++) {
			uint32_t h = occ->scattered
			                 ? (uint32_t)(next_random(&rng) % hosts)
			                 : (start + k) % hosts;

			if (use[h].state != TP_HOST_FREE)
				continue;
			use[h].state = TP_HOST_BUSY;
			use[h].job_id = job;
			use[h].job_class = (tp_jobclass)(job % 3);
			busy++;
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const struct shape shapes[] = {
	    {"2-level 36x18", 1, 36, 18},
	    {"3-level 4x18x18", 4, 18, 18},
	    {"3-level 4x36x36", 4, 36, 36},
	};
	static const struct occupancy occs[] = {
	    {"empty", 0.0, 0, 0.01},          {"25% runs", 0.25, 0, 0.01},
	    {"50% runs", 0.50, 0, 0.01},      {"75% runs", 0.75, 0, 0.01},
	    {"50% scattered", 0.50, 1, 0.01}, {"30% down", 0.0, 0, 0.30},
	};
	static const tp_placement policies[] = {
	    TP_PLACEMENT_OFF,  TP_PLACEMENT_LEAF,   TP_PLACEMENT_SHARED,
	    TP_PLACEMENT_PACK, TP_PLACEMENT_SPREAD,
	};
	int reps = argc > 1 ? atoi(argv[1]) : 15;
	double *samples;

	if (reps < 1 || reps > 10000) {
		fprintf(stderr, "alloc_bench: reps '%s': expected 1..10000\n",
		        argv[1]);
		return 2;
	}
	samples = malloc(sizeof(double) * (size_t)reps * SEEDS);
	if (!samples)
		return 1;
	printf("# time per decision (tp_alloc_choose, plus tp_alloc_allowed "
	       "for leaf), %d samples each\n",
	       reps * SEEDS);
	printf("# >1ms = samples over 1 ms (on a shared machine: preemption); "
	       "x_off = median / median of policy off (scan, then hand back "
	       "every usable host)\n");
	printf("# job class per row: off quiet, leaf io_heavy, shared "
	       "comm_sensitive, pack quiet, spread io_heavy\n");
	printf("%-16s %5s %-14s %-13s %5s %5s %9s %9s %9s %5s %6s\n", "fabric",
	       "hosts", "occupancy", "policy", "nodes", "met%", "median_us",
	       "p99_us", "max_us", ">1ms", "x_off");
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const struct shape *sh = &shapes[s];
		tp_topo *topo;
		tp_error err;
		tp_host_use *use;
		uint32_t hosts;

		if (tp_topo_new_fattree(&topo, sh->pods, sh->leaves_per_pod,
		                        sh->hosts_per_leaf, &err) != TP_OK) {
			fprintf(stderr, "alloc_bench: %s\n", err.message);
			return 1;
		}
		hosts = tp_topo_host_count(topo);
		use = malloc(sizeof(*use) * hosts);
		if (!use)
			return 1;
		for (size_t o = 0; o < sizeof(occs) / sizeof(occs[0]); o++) {
			uint32_t sizes[3] = {16, hosts / 8, hosts / 2};

			for (int z = 0; z < 3; z++) {
				double off_median = 0;

				for (size_t p = 0;
				     p <
				     sizeof(policies) / sizeof(policies[0]) + 1;
				     p++) {
					int allowed =
					    p == sizeof(policies) /
					             sizeof(policies[0]);
					tp_alloc_request rq = {
					    .nodes = sizes[z],
					    .policy = allowed
					                  ? TP_PLACEMENT_LEAF
					                  : policies[p],
					    .job_class = (tp_jobclass)(p % 3),
					    .job_id = 1,
					};
					uint32_t n = 0, met = 0, over_ms;
					double med;
					char label[32];

					for (int seed = 0; seed < SEEDS;
					     seed++) {
						fill(use, hosts, &occs[o],
						     (uint64_t)seed * 7919 + o);
						for (int r = 0; r < reps; r++) {
							tp_alloc_result res;
							double t0 = now_us();
							tp_status st =
							    allowed
							        ? tp_alloc_allowed(
							              topo, use,
							              &rq, &res,
							              &err)
							        : tp_alloc_choose(
							              topo, use,
							              &rq, &res,
							              &err);

							met += st == TP_OK &&
							       res.met;
							tp_alloc_result_free(
							    &res);
							samples[n++] =
							    now_us() - t0;
							if (st != TP_OK) {
								fprintf(
								    stderr,
								    "alloc_"
								    "bench: "
								    "%s\n",
								    err.message);
								return 1;
							}
						}
					}
					qsort(samples, n, sizeof(double),
					      cmp_double);
					med = samples[n / 2];
					if (!p)
						off_median = med;
					snprintf(label, sizeof(label), "%s%s",
					         tp_placement_name(rq.policy),
					         allowed ? "+allowed" : "");
					over_ms = 0;
					for (uint32_t k = 0; k < n; k++)
						over_ms += samples[k] > 1000.0;
					printf(
					    "%-16s %5u %-14s %-13s %5u %5.0f "
					    "%9.1f %9.1f %9.1f %5u %6.2f\n",
					    sh->label, hosts, occs[o].label,
					    label, rq.nodes, 100.0 * met / n,
					    med, samples[(n * 99) / 100],
					    samples[n - 1], over_ms,
					    off_median > 0 ? med / off_median
					                   : 0);
				}
			}
		}
		free(use);
		tp_topo_free(topo);
	}
	free(samples);
	return 0;
}
