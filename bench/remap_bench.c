/*
 * remap_bench.c: hop-bytes and CPU time of rank mappings, side by side.
 *
 *   remap_bench [--matrices DIR] [--max-ranks N] [--seed S] [--tree 2|3]
 *
 * For every real matrix in DIR (default tests/data/matrices) and for
 * synthetic 7-point 3-D stencils of 512 .. 262,144 ranks (up to
 * --max-ranks), at 16 and 1 ranks per host, maps the ranks with block,
 * cyclic, random and tp_remap_compute onto the first hosts of a fat tree of
 * 18-host leaves, 3-level with 18-leaf pods or 2-level (--tree 2); the last
 * leaf is usually partly used.  Prints hop-bytes as ratios to block and the
 * CPU time of block and ours.  Figures only: nothing passes or fails.
 */
#include "tp_config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost.h"
#include "remap.h"
#include "topo.h"
#include "traffic.h"

enum { HOSTS_PER_LEAF = 18, LEAVES_PER_POD = 18 };

/* 3: pods of 18 leaves; 2: one pod (a 2-level tree). */
static int tree_levels = 3;

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int die(const char *what, const tp_error *err)
{
	fprintf(stderr, "remap_bench: %s: %s\n", what, err->message);
	exit(1);
}

/*
 * tp_topo_new_fattree names at most 9,999 hosts; this builds the same tree
 * with 6-digit names so 262,144 ranks fit.
 */
static tp_status build_fattree(tp_topo **topo, uint32_t pods,
                               uint32_t leaves_per_pod, uint32_t hosts_per_leaf,
                               tp_error *err)
{
	char name[32];
	uint32_t pod, leaf, host = 0, nleaf = 0;
	tp_status rc = tp_topo_new(topo, err);

	for (uint32_t p = 0; rc == TP_OK && p < pods; p++) {
		snprintf(name, sizeof(name), "pod%04u", p + 1);
		rc = tp_topo_add_pod(*topo, name, &pod, err);
		for (uint32_t l = 0; rc == TP_OK && l < leaves_per_pod; l++) {
			snprintf(name, sizeof(name), "leaf%05u", ++nleaf);
			rc = tp_topo_add_leaf(*topo, name, pod, &leaf, err);
			for (uint32_t h = 0; rc == TP_OK && h < hosts_per_leaf;
			     h++) {
				snprintf(name, sizeof(name), "h%06u", ++host);
				rc = tp_topo_add_host(*topo, name, leaf, NULL,
				                      err);
			}
		}
	}
	if (rc == TP_OK)
		rc = tp_topo_finish(*topo, err);
	return rc;
}

static void run_case(const char *label, const tp_traffic *t, uint32_t rpn,
                     uint64_t seed)
{
	uint32_t nhosts = (t->ranks + rpn - 1) / rpn;
	uint32_t leaves = (nhosts + HOSTS_PER_LEAF - 1) / HOSTS_PER_LEAF;
	uint32_t pods = (leaves + LEAVES_PER_POD - 1) / LEAVES_PER_POD;
	uint32_t leaves_per_pod = LEAVES_PER_POD;
	tp_topo *topo = NULL;
	tp_error err;
	tp_remap_host *hosts = malloc(nhosts * sizeof(*hosts));
	static const tp_remap_method methods[] = {
	    TP_REMAP_BLOCK, TP_REMAP_CYCLIC, TP_REMAP_RANDOM, TP_REMAP_TOPO};
	uint64_t hb[4];
	double secs[4];
	const char *chosen = "";

	if (!hosts)
		exit(1);
	if (tree_levels == 2) {
		pods = 1;
		leaves_per_pod = leaves;
	}
	if (build_fattree(&topo, pods, leaves_per_pod, HOSTS_PER_LEAF, &err) !=
	    TP_OK)
		die("fabric", &err);
	for (uint32_t i = 0; i < nhosts; i++)
		hosts[i] = (tp_remap_host){i, rpn};
	for (int m = 0; m < 4; m++) {
		tp_remap_mapping map;
		tp_remap_stats st;
		double t0 = cpu_s();
		tp_status rc;

		if (methods[m] == TP_REMAP_TOPO)
			rc = tp_remap_compute(topo, t, hosts, nhosts, seed,
			                      NULL, &map, &st, &err);
		else
			rc = tp_remap_baseline(topo, t->ranks, hosts, nhosts,
			                       methods[m], seed, &map, &err);
		secs[m] = cpu_s() - t0;
		if (rc != TP_OK)
			die(label, &err);
		hb[m] = tp_cost_hop_bytes(topo, t, map.rank_host);
		if (methods[m] == TP_REMAP_TOPO)
			chosen = st.chosen;
		tp_remap_mapping_free(&map);
	}
	printf("%-22s %7u %4u %5u %14llu %7.3f %7.3f %7.3f %9.1f %9.1f  %s\n",
	       label, t->ranks, rpn, nhosts, (unsigned long long)hb[0],
	       hb[0] ? (double)hb[1] / (double)hb[0] : 1.0,
	       hb[0] ? (double)hb[2] / (double)hb[0] : 1.0,
	       hb[0] ? (double)hb[3] / (double)hb[0] : 1.0, secs[0] * 1e3,
	       secs[3] * 1e3, chosen);
	fflush(stdout);
	free(hosts);
	tp_topo_free(topo);
}

/* A 7-point stencil on an x*y*z grid (non-periodic), 1 MB per face. */
static tp_traffic *stencil3d(uint32_t x, uint32_t y, uint32_t z)
{
	tp_traffic *t;
	tp_error err;

	if (tp_traffic_new(&t, x * y * z, &err) != TP_OK)
		die("stencil", &err);
	for (uint32_t k = 0; k < z; k++)
		for (uint32_t j = 0; j < y; j++)
			for (uint32_t i = 0; i < x; i++) {
				uint32_t r = (k * y + j) * x + i;
				int d[6][3] = {{1, 0, 0}, {-1, 0, 0},
				               {0, 1, 0}, {0, -1, 0},
				               {0, 0, 1}, {0, 0, -1}};

				for (int n = 0; n < 6; n++) {
					long a = (long)i + d[n][0];
					long b = (long)j + d[n][1];
					long c = (long)k + d[n][2];

					if (a < 0 || b < 0 || c < 0 || a >= x ||
					    b >= y || c >= z)
						continue;
					if (tp_traffic_add(
					        t, r,
					        (uint32_t)((c * y + b) * x + a),
					        1000000, 100, &err) != TP_OK)
						die("stencil", &err);
				}
			}
	tp_traffic_normalize(t);
	return t;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	const char *dir = "tests/data/matrices";
	uint32_t max_ranks = 262144;
	uint64_t seed = 1;
	static const uint32_t grids[][3] = {
	    {8, 8, 8}, {16, 16, 16}, {32, 32, 16}, {64, 32, 32}, {64, 64, 64}};
	char *names[256];
	int count = 0;
	DIR *d;
	struct dirent *de;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--matrices"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--max-ranks"))
			max_ranks = (uint32_t)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--tree"))
			tree_levels = atoi(argv[i + 1]) == 2 ? 2 : 3;
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 10);
	}
	printf("# %d-level fat tree: %d hosts/leaf, %d leaves/pod; first "
	       "hosts in order; seed %llu\n",
	       tree_levels, HOSTS_PER_LEAF,
	       tree_levels == 2 ? 0 : LEAVES_PER_POD, (unsigned long long)seed);
	printf("%-22s %7s %4s %5s %14s %7s %7s %7s %9s %9s  %s\n", "input",
	       "ranks", "rpn", "hosts", "block_hopB", "cyclic", "random",
	       "ours", "block_ms", "ours_ms", "ours_from");
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d)) && count < 256) {
			size_t l = strlen(de->d_name);

			if (l > 4 && !strcmp(de->d_name + l - 4, ".txt"))
				names[count++] = strdup(de->d_name);
		}
		closedir(d);
	}
	qsort(names, (size_t)count, sizeof(*names), name_cmp);
	for (int i = 0; i < count; i++) {
		char path[4096];
		tp_traffic *t;
		tp_error err;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (tp_traffic_read_file(path, NULL, &t, &err) != TP_OK)
			die(path, &err);
		run_case(names[i], t, 1, seed);
		run_case(names[i], t, 16, seed);
		tp_traffic_free(t);
		free(names[i]);
	}
	for (size_t g = 0; g < sizeof(grids) / sizeof(*grids); g++) {
		char label[64];
		tp_traffic *t;

		if (grids[g][0] * grids[g][1] * grids[g][2] > max_ranks)
			break;
		t = stencil3d(grids[g][0], grids[g][1], grids[g][2]);
		snprintf(label, sizeof(label), "stencil3d-%ux%ux%u",
		         grids[g][0], grids[g][1], grids[g][2]);
		run_case(label, t, 16, seed);
		run_case(label, t, 1, seed);
		tp_traffic_free(t);
	}
	return 0;
}
