/*
 * peer_bench.c: rank remapping against its peers, side by side in one run
 * (issue 5): block, cyclic, random, ours (tp_remap_compute), hierarchical
 * METIS recursive bisection with capacity repair (bench/metis_rb.c), Scotch
 * static mapping onto a tleaf target (libscotch) and TreeMatch as embedded
 * in Open MPI (only when built by bench/peers.sh against the archive that
 * bench/peers-setup.sh makes).
 *
 *   peer_bench [--matrices DIR|none] [--sizes 512,4096,...]
 *              [--families stencil3d,stencil2d,relabel,pareto,groups|none]
 *              [--peers metis-rb,scotch,treematch] [--trees 2,3]
 *              [--rpn 1,16] [--allocs leaves,part,frag]
 *              [--frag-seeds 1,2,3] [--seed S]
 *              [--max-peer-ranks N | scotch=N,treematch=N,metis-rb=N]
 *              [--trace on] [--search auto|full|fast] [--digest on]
 *              [--candidates N,..,all] [--scotch-candidate on|off]
 *
 * Defaults (about 3 minutes on 2 vCPUs): every matrix in DIR (default
 * tests/data/matrices), all five families at 512, 4,096, 16,384 and 65,536
 * ranks, trees 2 and 3, 1 and 16 ranks per host, all allocations;
 * Scotch up to 16,384 ranks (it takes about 30 s a mapping at 65,536, 600 s
 * at 262,144), TreeMatch up to 4,096 (a dense N x N matrix of doubles, 2.1
 * GB at 16,384); metis-rb and ours always.  A peer above its limit is
 * skipped with the reason in the row's notes.
 *
 * Every input is mapped onto hosts of a fat tree with 18 hosts per leaf
 * (3-level: pods of 18 leaves; 2-level: one pod), rpn slots per host.
 * Contiguous allocations take the first hosts of the tree: `part`,
 * ceil(ranks / rpn) hosts, so the last leaf is usually partly empty;
 * `leaves`, whole leaves (the job's leaves are all its own, some slots
 * stay idle).  `frag` is what a partly busy cluster hands out: the same
 * number of hosts as `part`, scattered over leaves (and pods) in uneven
 * counts, one busy map per --frag-seeds value (setup_fragmented).  The
 * metis-rb peer bisects the allocation's own tree (its children are the
 * allocated pods, leaves and hosts); Scotch maps onto the allocated slots
 * of the whole tree; TreeMatch runs on contiguous allocations only.  Per input
 * one row: block hop-bytes, the hop-bytes of each method as a ratio to block,
 * CPU seconds and peak RSS (VmHWM after resetting it through
 * /proc/self/clear_refs, MB, the input included) of the non-trivial methods.  A
 * closing summary counts the inputs where ours <= the best of block and all
 * peers, and < the best peer, then for contiguous and fragmented allocations
 * apart ours against each peer: lower, equal, higher and the worst ratio.  The
 * notes column says which partition won ("rb": the plain bisection candidate,
 * "hier": the hierarchical ones) and, for `frag`, how many leaves and pods the
 * allocation spans.  Last, CPU seconds per job size summed over its rows,
 * ours against metis-rb and Scotch.  --trace on prints the remapper's
 * debug log under each row (every candidate partition: its hop-bytes and
 * CPU microseconds) and, last, per job size, ranks per host and
 * contiguous/fragmented allocation, how often each candidate gave the
 * partition ours kept (and was the only one to reach it), on how many rows
 * the candidates after the first two lowered it by more than 0.1%, and
 * the CPU of the candidates, the leaf-wide polish and the host swaps over
 * metis-rb's (wins_print): what a rule that skips candidates would lose.
 * --digest on prints under each row a line "# digest" with ours' output
 * in full: a hash of the mapping (hosts and slots of every rank), its
 * hop-bytes and every field of tp_remap_stats, so that two builds can be
 * checked to return the same mapping on every input
 * (bench/remap_identity.sh).  --candidates 2,3,all runs ours once per
 * value on every input, with at most that many candidate partitions
 * (tp_remap_options.max_partitions; all: as the search decides; the row
 * shows the last value) and closes with a table per job size and ranks
 * per host (cands_print): for each value, the inputs where ours is above
 * the best of block and the peers, the worst ours/best, and ours/metis-rb
 * CPU: which candidates a rule on the input could drop without losing to
 * a peer.  Figures only: nothing passes or fails.
 *
 * Scotch: the target is a tleaf whose last level is the host's slots (one
 * more level below hosts when rpn > 1), restricted with SCOTCH_archSub to
 * the allocated slots; the graph is padded with isolated vertices to one
 * per slot, the strategy has balance 0 (gmap -b0, one vertex per slot) and
 * a deterministic context with a fixed seed (gmap -Cd).  tleaf distances
 * add link costs level by level from the bottom: links 1 (slot), 19
 * (host), 20 (leaf), 20 (pod) give 1, 20, 40, 60 for same host, same leaf,
 * same pod, across pods: hop distances 0, 2, 4, 6 times 10, the same host
 * 1 because a link cost of 0 is rejected.  TreeMatch gets the same tree
 * (tm_build_synthetic_topology with those costs) and binding constraints
 * naming the allocated slots, as Open MPI's topo/treematch does.
 */
#include "tp_config.h"

#include <dirent.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <scotch/scotch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost.h"
#include "metis_rb.h"
#include "pareto_graph.h"
#include "scotch_peer.h"
#include "remap.h"
#include "topo.h"
#include "tp_quiet.h"
#include "traffic.h"

#ifdef TP_PEER_TREEMATCH
#include <treematch.h>
#endif

enum { HOSTS_PER_LEAF = 18, LEAVES_PER_POD = 18 };

enum method {
	M_BLOCK,
	M_CYCLIC,
	M_RANDOM,
	M_OURS,
	M_METIS_RB,
	M_SCOTCH,
	M_TREEMATCH,
	M_COUNT
};

static const char *const method_names[M_COUNT] = {
    "block", "cyclic", "random", "ours", "metis-rb", "scotch", "treematch"};

/* Peers that can be switched off or limited in size. */
static bool peer_on[M_COUNT] = {true, true, true, true, true, true, true};
static uint32_t peer_max[M_COUNT] = {
    [M_BLOCK] = UINT32_MAX, [M_CYCLIC] = UINT32_MAX,   [M_RANDOM] = UINT32_MAX,
    [M_OURS] = UINT32_MAX,  [M_METIS_RB] = UINT32_MAX, [M_SCOTCH] = 16384,
    [M_TREEMATCH] = 4096,
};
static uint64_t seed = 1;

/* Summary counters. */
static unsigned n_inputs, n_le_best, n_lt_peer, n_eq_peer, n_compared;
static char losses[16384];
/* CPU seconds per job size, summed over its rows (the time table). */
#define SIZES_MAX 64
static struct size_time {
	uint32_t ranks;
	unsigned rows, rows_scotch;
	double ours, metis_rb, scotch, ours_beside_scotch;
} size_times[SIZES_MAX];
static unsigned n_size_times;
/* --trace on: the remapper's debug log, one line each, after its row. */
static bool trace;
/* --digest on: ours' mapping and stats, hashed, under each row. */
static bool digest;
static char digest_line[512];
/* --search: ours' candidate search (tp_remap_compute_search). */
static tp_remap_search search = TP_REMAP_SEARCH_AUTO;
/* --scotch-candidate off: ours without Scotch's mapping among its
 * candidates (tp_remap_options.without_scotch), as built --without-scotch. */
static bool without_scotch;
/*
 * --candidates: limits on ours' candidate partitions (0: all), each run
 * on every input; the row and the summaries above show the last.
 */
#define CAND_LIMITS 8
static uint32_t cand_limit[CAND_LIMITS];
static unsigned n_cand_limits;
#define CAND_KEYS 128
static struct cand_key {
	uint32_t ranks, rpn; /* 0, 0: every input */
	unsigned rows;
	double s_metis_rb; /* CPU s of metis-rb on rows that ran it */
	struct {
		unsigned above, below_peer; /* vs best of block + peers */
		double worst;               /* highest ours / best */
		double s_ours;              /* on rows that ran metis-rb */
		uint64_t partitions;        /* tp_remap_stats.partitions */
	} lim[CAND_LIMITS];
} cand_keys[CAND_KEYS];
static unsigned n_cand_keys;
static struct vs {
	unsigned wins, ties, losses;
	double worst; /* highest ours / peer */
} versus[2][M_COUNT];

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Add one row's CPU seconds to its size's sums. */
static void size_time_add(uint32_t ranks, const double *secs, const bool *have)
{
	struct size_time *st = NULL;

	for (unsigned i = 0; i < n_size_times; i++)
		if (size_times[i].ranks == ranks)
			st = &size_times[i];
	if (!st) {
		if (n_size_times == SIZES_MAX)
			return;
		st = &size_times[n_size_times++];
		st->ranks = ranks;
	}
	if (!have[M_OURS] || !have[M_METIS_RB])
		return;
	st->rows++;
	st->ours += secs[M_OURS];
	st->metis_rb += secs[M_METIS_RB];
	if (have[M_SCOTCH]) {
		st->rows_scotch++;
		st->scotch += secs[M_SCOTCH];
		st->ours_beside_scotch += secs[M_OURS];
	}
}

static int size_time_cmp(const void *a, const void *b)
{
	const struct size_time *x = a, *y = b;

	return (x->ranks > y->ranks) - (x->ranks < y->ranks);
}

static void size_times_print(void)
{
	qsort(size_times, n_size_times, sizeof(*size_times), size_time_cmp);
	printf("# time per size (CPU s summed over rows with ours and "
	       "metis-rb; scotch over its rows):\n"
	       "# %7s %5s %10s %10s %10s %9s %9s\n",
	       "ranks", "rows", "ours", "metis-rb", "scotch", "ours/mrb",
	       "ours/scot");
	for (unsigned i = 0; i < n_size_times; i++) {
		const struct size_time *st = &size_times[i];

		if (!st->rows)
			continue;
		printf("# %7u %5u %10.6f %10.6f", st->ranks, st->rows, st->ours,
		       st->metis_rb);
		if (st->rows_scotch)
			printf(" %10.6f", st->scotch);
		else
			printf(" %10s", "-");
		if (st->metis_rb > 0)
			printf(" %9.2f", st->ours / st->metis_rb);
		else
			printf(" %9s", "-");
		if (st->rows_scotch && st->scotch > 0)
			printf(" %9.2f\n", st->ours_beside_scotch / st->scotch);
		else
			printf(" %9s\n", "-");
	}
}

/* The remapper's debug lines, kept until its row is printed. */
static char trace_buf[1 << 16];

/*
 * --trace on: which of ours' candidate partitions wins, and what each
 * step costs, read back from the debug lines of one row (trace_sink) and
 * summed per job size, ranks per host and allocation (wins_print).  A
 * candidate "wins" a row when its refined hop-bytes are the lowest of the
 * row's candidates and no earlier one reached them (the one
 * tp_remap_compute_search keeps); "alone" when no other candidate reached
 * them at all: without it that row's partition would be worse.  "late":
 * rows where the candidates after the first two lowered the best by more
 * than 0.1%.
 */
#define CANDS_MAX 24
static struct row_trace {
	unsigned ncand;
	char name[CANDS_MAX][24]; /* "b0x1": kind, seed offset, tries */
	uint64_t refined[CANDS_MAX];
	uint64_t us_bisection, us_others, us_polish, us_swaps;
} row_trace;

#define WIN_KEYS 128
static struct win_key {
	uint32_t ranks, rpn;
	bool frag;
	unsigned rows, late;
	unsigned wins[CANDS_MAX], alone[CANDS_MAX];
	char name[CANDS_MAX][24];
	double s_metis_rb; /* the metis-rb peer's CPU s on these rows */
	uint64_t us_bisection, us_others, us_polish, us_swaps;
} win_keys[WIN_KEYS];
static unsigned n_win_keys;

static void row_trace_read(const char *message)
{
	struct row_trace *rt = &row_trace;
	const char *p;
	unsigned long long seed_off, us;
	char kind[24];
	int tries;

	if (sscanf(message, "remap: candidate %*u: %23s seed+%llu ncuts %d",
	           kind, &seed_off, &tries) == 3 &&
	    rt->ncand < CANDS_MAX && (p = strstr(message, "refined ")) &&
	    sscanf(p, "refined %" SCNu64 ", %llu us", &rt->refined[rt->ncand],
	           &us) == 2) {
		snprintf(rt->name[rt->ncand], sizeof(rt->name[0]),
		         "%c%llux%d%s", kind[0], seed_off, tries,
		         strstr(message, " rm:") || strstr(message, " rm fm")
		             ? "r"
		             : "");
		if (kind[0] == 'b')
			rt->us_bisection += us;
		else
			rt->us_others += us;
		rt->ncand++;
	} else if ((p = strstr(message, "leaf-wide polish: hop-bytes ")) &&
	           sscanf(p, "leaf-wide polish: hop-bytes %*u, %llu us",
	                  &us) == 1) {
		rt->us_polish += us;
	} else if ((p = strstr(message, "whole-host swaps: ")) &&
	           sscanf(p, "whole-host swaps: %*u, hop-bytes %*u, %llu us",
	                  &us) == 1) {
		rt->us_swaps += us;
	}
}

static void trace_sink(void *data, tp_log_level level, const char *message)
{
	size_t used = strlen(trace_buf);

	(void)data;
	(void)level;
	snprintf(trace_buf + used, sizeof(trace_buf) - used, "#   %s\n",
	         message);
	row_trace_read(message);
}

static struct win_key *win_key_get(uint32_t ranks, uint32_t rpn, bool frag)
{
	for (unsigned i = 0; i < n_win_keys; i++)
		if (win_keys[i].ranks == ranks && win_keys[i].rpn == rpn &&
		    win_keys[i].frag == frag)
			return &win_keys[i];
	if (n_win_keys == WIN_KEYS)
		return NULL;
	win_keys[n_win_keys] = (struct win_key){.ranks = ranks,
	                                        .rpn = rpn,
	                                        .frag = frag};
	return &win_keys[n_win_keys++];
}

/* The slot of candidate @name in @k (added if new; NULL when full). */
static unsigned win_slot(struct win_key *k, const char *name)
{
	unsigned j = 0;

	while (j < CANDS_MAX && k->name[j][0] && strcmp(k->name[j], name))
		j++;
	if (j < CANDS_MAX && !k->name[j][0])
		snprintf(k->name[j], sizeof(k->name[j]), "%s", name);
	return j;
}

/* One row's candidates into its key's counts (rows with 2 or more). */
static void wins_add(uint32_t ranks, uint32_t rpn, bool frag,
                     double s_metis_rb)
{
	const struct row_trace *rt = &row_trace;
	struct win_key *k;
	uint64_t best = UINT64_MAX, best2 = UINT64_MAX;
	unsigned first = 0, reached = 0;

	if (rt->ncand < 2 || !(k = win_key_get(ranks, rpn, frag)))
		return;
	for (unsigned i = 0; i < rt->ncand; i++) {
		if (rt->refined[i] < best) {
			best = rt->refined[i];
			first = i;
		}
		if (i < 2 && rt->refined[i] < best2)
			best2 = rt->refined[i];
	}
	for (unsigned i = 0; i < rt->ncand; i++)
		reached += rt->refined[i] == best;
	k->rows++;
	for (unsigned i = 0; i < rt->ncand; i++) {
		unsigned j = win_slot(k, rt->name[i]);

		if (i == first && j < CANDS_MAX) {
			k->wins[j]++;
			k->alone[j] += reached == 1;
		}
	}
	k->late += (double)best2 > (double)best * 1.001;
	k->s_metis_rb += s_metis_rb;
	k->us_bisection += rt->us_bisection;
	k->us_others += rt->us_others;
	k->us_polish += rt->us_polish;
	k->us_swaps += rt->us_swaps;
}

static int win_key_cmp(const void *a, const void *b)
{
	const struct win_key *x = a, *y = b;

	if (x->ranks != y->ranks)
		return (x->ranks > y->ranks) - (x->ranks < y->ranks);
	if (x->rpn != y->rpn)
		return (x->rpn > y->rpn) - (x->rpn < y->rpn);
	return (int)x->frag - (int)y->frag;
}

static void wins_print(void)
{
	qsort(win_keys, n_win_keys, sizeof(*win_keys), win_key_cmp);
	printf("# candidate wins (--trace on; rows with 2 or more candidates):"
	       " per candidate (kind b/p/s/f: bisection, packed, spread or "
	       "Scotch (x0), flat; seed offset; x tries; r: random matching) "
	       "wins/alone; late: rows the "
	       "candidates after the first two lowered by > 0.1%%; CPU of the "
	       "bisection candidate, the others, the leaf-wide polish and the "
	       "host swaps over metis-rb's\n");
	for (unsigned i = 0; i < n_win_keys; i++) {
		const struct win_key *k = &win_keys[i];
		double m = k->s_metis_rb * 1e6;

		printf("# %6u ranks %2u/host %-6s rows %3u late %3u ", k->ranks,
		       k->rpn, k->frag ? "frag" : "contig", k->rows, k->late);
		if (m > 0)
			printf(" cpu %5.2f %5.2f %5.2f %5.2f ",
			       k->us_bisection / m, k->us_others / m,
			       k->us_polish / m, k->us_swaps / m);
		else
			printf(" cpu     -     -     -     - ");
		for (unsigned c = 0; c < CANDS_MAX && k->name[c][0]; c++)
			printf(" %s %u/%u", k->name[c], k->wins[c],
			       k->alone[c]);
		printf("\n");
	}
}

/* Reset the peak RSS to the current RSS (Linux >= 4.0). */
static void rss_reset(void)
{
	FILE *f;

	malloc_trim(0);
	f = fopen("/proc/self/clear_refs", "w");
	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

static double rss_peak_mb(void)
{
	char line[256];
	double kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtod(line + 6, NULL);
	fclose(f);
	return kb / 1024.0;
}

static void die(const char *what, const tp_error *err)
{
	fprintf(stderr, "peer_bench: %s: %s\n", what, err->message);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "peer_bench: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

static void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s ? s : 1);

	if (!p) {
		fprintf(stderr, "peer_bench: out of memory\n");
		exit(1);
	}
	return p;
}

static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---- the fabric and the allocation ---------------------------------- */

struct setup {
	int levels; /* 2 or 3 */
	uint32_t rpn, pods, leaves_per_pod, nhosts;
	uint32_t leaves_used, pods_used; /* by the allocation */
	tp_topo *topo;
	tp_remap_host *hosts; /* allocation order = ascending host index */
	uint32_t *position;   /* topo host -> allocation position or NONE */
};

#define NONE UINT32_MAX

/* Allocation kinds: contiguous (whole leaves, part of a leaf) or not. */
enum alloc_kind { A_LEAVES, A_PART, A_FRAG };

/* tp_topo_new_fattree names at most 9,999 hosts: 6-digit names here. */
static void build_fattree(tp_topo **topo, uint32_t pods,
                          uint32_t leaves_per_pod)
{
	char name[32];
	uint32_t pod, leaf, host = 0, nleaf = 0;
	tp_error err;
	tp_status rc = tp_topo_new(topo, &err);

	for (uint32_t p = 0; rc == TP_OK && p < pods; p++) {
		snprintf(name, sizeof(name), "pod%04u", p + 1);
		rc = tp_topo_add_pod(*topo, name, &pod, &err);
		for (uint32_t l = 0; rc == TP_OK && l < leaves_per_pod; l++) {
			snprintf(name, sizeof(name), "leaf%05u", ++nleaf);
			rc = tp_topo_add_leaf(*topo, name, pod, &leaf, &err);
			for (uint32_t h = 0; rc == TP_OK && h < HOSTS_PER_LEAF;
			     h++) {
				snprintf(name, sizeof(name), "h%06u", ++host);
				rc = tp_topo_add_host(*topo, name, leaf, NULL,
				                      &err);
			}
		}
	}
	if (rc == TP_OK)
		rc = tp_topo_finish(*topo, &err);
	if (rc != TP_OK)
		die("fabric", &err);
}

/* Where each allocated host sits, and how many leaves and pods it uses. */
static void setup_index(struct setup *s)
{
	uint32_t nh = tp_topo_host_count(s->topo), last_leaf = NONE,
	         last_pod = NONE;

	s->position = xmalloc(nh * sizeof(*s->position));
	for (uint32_t h = 0; h < nh; h++)
		s->position[h] = NONE;
	s->leaves_used = s->pods_used = 0;
	/* Hosts ascend, so a leaf's (and a pod's) hosts are adjacent. */
	for (uint32_t i = 0; i < s->nhosts; i++) {
		uint32_t leaf = tp_topo_host_leaf(s->topo, s->hosts[i].host);
		uint32_t pod = tp_topo_leaf_pod(s->topo, leaf);

		s->position[s->hosts[i].host] = i;
		if (leaf != last_leaf)
			s->leaves_used++;
		if (pod != last_pod)
			s->pods_used++;
		last_leaf = leaf;
		last_pod = pod;
	}
}

/*
 * The allocation a partly busy cluster hands out: every leaf with free
 * hosts has 1-18 of them, skewed low (1 + 18 u^3: a few leaves nearly
 * free, most with 1-5 hosts), and on a 3-level tree a pod has free hosts
 * on only some of its leaves (1 to a number growing with the job, so
 * small jobs spread over several pods).  The job takes every free host of
 * the leaves in tree order until it has enough, the last leaf maybe only
 * in part: uneven counts per leaf and per pod, as in "3 hosts on one leaf,
 * 1 on another, 5 on a third", never all on one leaf (3-level: one pod).
 * @fseed draws the busy map.
 */
static void setup_fragmented(struct setup *s, int levels, uint32_t nhosts,
                             uint64_t fseed)
{
	uint64_t st = fseed * 0x2545f4914f6cdd1dull + nhosts * 131ull +
	              (uint64_t)levels * 7 + s->rpn;
	uint32_t cap_leaves = 64, nleaves = 0, got = 0, pod_span;
	uint32_t *free_of_leaf = xmalloc(cap_leaves * sizeof(*free_of_leaf));

	/* Leaves with free hosts per pod: 1 .. span. */
	pod_span = nhosts / 24;
	pod_span = pod_span < 2 ? 2 : pod_span > 18 ? 18 : pod_span;
	while (got < nhosts) {
		uint32_t in_pod =
		    levels == 3 ? 1 + (uint32_t)(rng_next(&st) % pod_span) : 1;

		for (uint32_t l = 0; l < (levels == 3 ? LEAVES_PER_POD : 1);
		     l++) {
			uint32_t f = 0;

			if (l < in_pod && got < nhosts) {
				double u =
				    (double)(rng_next(&st) >> 11) * 0x1.0p-53;

				f = 1 + (uint32_t)(u * u * u * HOSTS_PER_LEAF);
				if (f > HOSTS_PER_LEAF)
					f = HOSTS_PER_LEAF;
				if (f > nhosts - got)
					f = nhosts - got;
				/* Never all on the first leaf (or pod). */
				if (nleaves <
				        (levels == 3 ? LEAVES_PER_POD : 1) &&
				    nhosts > 1 && got + f == nhosts)
					f--;
				got += f;
			}
			if (nleaves == cap_leaves) {
				cap_leaves *= 2;
				free_of_leaf =
				    realloc(free_of_leaf,
				            cap_leaves * sizeof(*free_of_leaf));
				if (!free_of_leaf) {
					fprintf(stderr, "peer_bench: out of "
					                "memory\n");
					exit(1);
				}
			}
			free_of_leaf[nleaves++] = f;
		}
	}
	if (levels == 2) {
		s->pods = 1;
		s->leaves_per_pod = nleaves;
	} else {
		s->pods = nleaves / LEAVES_PER_POD;
		s->leaves_per_pod = LEAVES_PER_POD;
	}
	build_fattree(&s->topo, s->pods, s->leaves_per_pod);
	s->nhosts = nhosts;
	s->hosts = xmalloc(nhosts * sizeof(*s->hosts));
	for (uint32_t l = 0, i = 0; l < nleaves; l++)
		for (uint32_t h = 0; h < free_of_leaf[l]; h++)
			s->hosts[i++] =
			    (tp_remap_host){l * HOSTS_PER_LEAF + h, s->rpn};
	free(free_of_leaf);
}

static void setup_make(struct setup *s, int levels, uint32_t ranks,
                       uint32_t rpn, enum alloc_kind kind, uint64_t fseed)
{
	uint32_t nhosts = (ranks + rpn - 1) / rpn;
	uint32_t leaves = (nhosts + HOSTS_PER_LEAF - 1) / HOSTS_PER_LEAF;

	s->levels = levels;
	s->rpn = rpn;
	if (kind == A_FRAG) {
		setup_fragmented(s, levels, nhosts, fseed);
		setup_index(s);
		return;
	}
	if (kind == A_LEAVES)
		nhosts = leaves * HOSTS_PER_LEAF;
	s->nhosts = nhosts;
	if (levels == 2) {
		s->pods = 1;
		s->leaves_per_pod = leaves;
	} else {
		s->pods = (leaves + LEAVES_PER_POD - 1) / LEAVES_PER_POD;
		s->leaves_per_pod = LEAVES_PER_POD;
	}
	build_fattree(&s->topo, s->pods, s->leaves_per_pod);
	s->hosts = xmalloc(nhosts * sizeof(*s->hosts));
	/* The first hosts of the tree. */
	for (uint32_t i = 0; i < nhosts; i++)
		s->hosts[i] = (tp_remap_host){i, rpn};
	setup_index(s);
}

static void setup_free(struct setup *s)
{
	tp_topo_free(s->topo);
	free(s->hosts);
	free(s->position);
}

/* ---- Scotch ---------------------------------------------------------- */

/* The Scotch peer (bench/scotch_peer.c) on this setup's fabric. */
static int map_scotch(const struct setup *s, const tp_traffic *t,
                      uint32_t *rank_host, const char **why)
{
	const struct scotch_peer_tree tree = {
	    .levels = s->levels,
	    .pods = s->pods,
	    .leaves_per_pod = s->leaves_per_pod,
	    .hosts_per_leaf = HOSTS_PER_LEAF,
	    .rpn = s->rpn,
	};

	return scotch_peer_map(&tree, s->hosts, s->nhosts, t, seed, rank_host,
	                       why);
}

/* ---- TreeMatch ------------------------------------------------------- */

#ifdef TP_PEER_TREEMATCH
static int map_treematch(const struct setup *s, const tp_traffic *t,
                         uint32_t *rank_host, const char **why)
{
	SCOTCH_Num size[4], link[4];
	double cost[5] = {0};
	const struct scotch_peer_tree target = {s->levels, s->pods,
	                                        s->leaves_per_pod,
	                                        HOSTS_PER_LEAF, s->rpn};
	int nlev = scotch_peer_levels(&target, size, link), arity[5];
	uint32_t n = t->ranks, nslots = s->nhosts * s->rpn;
	int *numbering = xmalloc(s->rpn * sizeof(*numbering));
	int *cons = xmalloc(nslots * sizeof(*cons));
	double **mat = xmalloc(n * sizeof(*mat));
	tm_topology_t *topo;
	tm_affinity_mat_t *aff;
	tm_tree_t *tree;
	tm_solution_t *sol;
	int rc = 0;

	/* As tgt_to_tm reads a tleaf: one more level, the leaves, arity 0. */
	for (int i = 0; i < nlev; i++) {
		arity[i] = (int)size[i];
		cost[i] = (double)link[i];
	}
	arity[nlev] = 0;
	cost[nlev] = 0;
	for (uint32_t i = 0; i < s->rpn; i++)
		numbering[i] = (int)i;
	for (uint32_t i = 0; i < nslots; i++)
		cons[i] = (int)i;
	for (uint32_t i = 0; i < n; i++)
		mat[i] = xcalloc(n, sizeof(**mat));
	/* Symmetric, as Open MPI's topo/treematch feeds it. */
	for (size_t i = 0; i < t->count; i++) {
		const tp_traffic_entry *e = &t->entries[i];

		if (e->src == e->dst)
			continue;
		mat[e->src][e->dst] += (double)e->bytes / 2;
		mat[e->dst][e->src] += (double)e->bytes / 2;
	}
	tm_set_verbose_level(ERROR);
	tm_set_max_nb_threads(1);
	topo = tm_build_synthetic_topology(arity, cost, nlev + 1, numbering,
	                                   (int)s->rpn);
	tm_topology_set_binding_constraints(cons, (int)nslots, topo);
	aff = tm_build_affinity_mat(mat, (int)n);
	tree = tm_build_tree_from_topology(topo, aff, NULL, NULL);
	sol = tm_compute_mapping(topo, tree);
	for (uint32_t r = 0; r < n; r++) {
		int c = sol->sigma[r];

		if (c < 0 || (uint32_t)c >= nslots) {
			*why = "sigma outside the allocated slots";
			rc = -1;
			break;
		}
		rank_host[r] = (uint32_t)c / s->rpn;
	}
	tm_free_solution(sol);
	tm_free_tree(tree);
	tm_free_topology(topo);
	tm_free_affinity_mat(aff); /* frees mat and its rows */
	free(numbering);
	free(cons);
	return rc;
}
#endif

/* ---- one input ------------------------------------------------------- */

/* Is @rank_host within capacity?  Peers' outputs are checked, not trusted. */
static bool valid(const struct setup *s, const uint32_t *rank_host,
                  uint32_t ranks)
{
	uint32_t *used = xcalloc(s->nhosts, sizeof(*used));
	uint32_t topo_hosts = tp_topo_host_count(s->topo);
	bool ok = true;

	for (uint32_t r = 0; r < ranks && ok; r++) {
		uint32_t pos = rank_host[r] < topo_hosts
		                   ? s->position[rank_host[r]]
		                   : NONE;

		ok = pos != NONE && ++used[pos] <= s->hosts[pos].slots;
	}
	free(used);
	return ok;
}

static void alloc_name(enum alloc_kind kind, uint64_t fseed, char *buf,
                       size_t size)
{
	if (kind == A_FRAG)
		snprintf(buf, size, "frag%llu", (unsigned long long)fseed);
	else
		snprintf(buf, size, "%s", kind == A_LEAVES ? "leaves" : "part");
}

/* Ours against one peer, per allocation class (contiguous, fragmented). */
static void tally(bool frag, int m, uint64_t ours, uint64_t peer)
{
	struct vs *v = &versus[frag][m];
	double ratio = peer ? (double)ours / (double)peer : ours ? 2.0 : 1.0;

	if (ours < peer)
		v->wins++;
	else if (ours == peer)
		v->ties++;
	else
		v->losses++;
	if (ratio > v->worst)
		v->worst = ratio;
}

/* FNV-1a over @n 32-bit words, continuing from @h. */
static uint64_t fnv1a_words(uint64_t h, const uint32_t *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (int b = 0; b < 4; b++) {
			h ^= (w[i] >> (8 * b)) & 0xff;
			h *= 0x100000001b3ull;
		}
	return h;
}

/*
 * Ours' whole output on one input, for --digest: the mapping's hash and
 * every stat, so a change that keeps hop-bytes but moves ranks shows.
 */
static void digest_set(const tp_remap_mapping *map, const tp_remap_stats *st)
{
	uint64_t h = fnv1a_words(0xcbf29ce484222325ull, map->rank_host,
	                         map->ranks);

	h = fnv1a_words(h, map->rank_slot, map->ranks);
	snprintf(digest_line, sizeof(digest_line),
	         "map %016llx hop-bytes %llu block %llu partition %llu "
	         "refined %llu chosen %s from %s moves %llu host-swaps %llu",
	         (unsigned long long)h, (unsigned long long)st->hop_bytes,
	         (unsigned long long)st->block_hop_bytes,
	         (unsigned long long)st->partition_hop_bytes,
	         (unsigned long long)st->refined_hop_bytes, st->chosen,
	         st->partition, (unsigned long long)st->moves,
	         (unsigned long long)st->host_swaps);
}

static struct cand_key *cand_key_get(uint32_t ranks, uint32_t rpn)
{
	for (unsigned i = 0; i < n_cand_keys; i++)
		if (cand_keys[i].ranks == ranks && cand_keys[i].rpn == rpn)
			return &cand_keys[i];
	if (n_cand_keys == CAND_KEYS)
		return NULL;
	cand_keys[n_cand_keys] = (struct cand_key){.ranks = ranks, .rpn = rpn};
	return &cand_keys[n_cand_keys++];
}

/* Ours with at most @limit candidate partitions: hop-bytes, CPU s. */
static uint64_t ours_limited(const struct setup *s, const tp_traffic *t,
                             uint32_t limit, double *secs,
                             uint32_t *partitions)
{
	tp_remap_options opt = {.search = search,
	                        .max_partitions = limit,
	                        .without_scotch = without_scotch};
	tp_remap_mapping map = {0};
	tp_remap_stats st;
	tp_error err;
	double t0 = cpu_s();

	if (tp_remap_compute_options(s->topo, t, s->hosts, s->nhosts, seed,
	                             &opt, NULL, &map, &st, &err) != TP_OK)
		die("--candidates", &err);
	*secs = cpu_s() - t0;
	*partitions = st.partitions;
	tp_remap_mapping_free(&map);
	return st.hop_bytes;
}

/*
 * --candidates: ours under every limit against @best, the best of block
 * and the peers (@best_peer: of the peers only), counted for the input's
 * size and ranks per host and for all inputs.  Every limit is run again
 * here, after one unmeasured run: the first run of ours after the peers
 * took up to 1.7 times as long as the same run repeated (caches), which
 * would charge the row's limit for it.  The last limit's hop-bytes must
 * be the row's (@ours_hb): the search is deterministic.
 */
static void cands_add(const struct setup *s, const tp_traffic *t, uint32_t rpn,
                      uint64_t ours_hb, uint64_t best, uint64_t best_peer,
                      double s_metis_rb, bool have_mrb)
{
	struct cand_key *k[2] = {cand_key_get(t->ranks, rpn),
	                         cand_key_get(0, 0)};
	double secs;
	uint32_t parts;

	(void)ours_limited(s, t, cand_limit[0], &secs, &parts);
	for (unsigned i = 0; i < n_cand_limits; i++) {
		uint64_t hb = ours_limited(s, t, cand_limit[i], &secs, &parts);
		double ratio = best ? (double)hb / (double)best : 1.0;

		if (i + 1 == n_cand_limits && hb != ours_hb) {
			fprintf(stderr, "peer_bench: --candidates: ours gave %llu "
			        "then %llu hop-bytes on the same input\n",
			        (unsigned long long)ours_hb,
			        (unsigned long long)hb);
			exit(1);
		}
		for (int j = 0; j < 2; j++) {
			if (!k[j])
				continue;
			k[j]->lim[i].above += hb > best;
			k[j]->lim[i].partitions += parts;
			k[j]->lim[i].below_peer += hb < best_peer;
			if (ratio > k[j]->lim[i].worst)
				k[j]->lim[i].worst = ratio;
			if (have_mrb)
				k[j]->lim[i].s_ours += secs;
		}
	}
	for (int j = 0; j < 2; j++)
		if (k[j]) {
			k[j]->rows++;
			if (have_mrb)
				k[j]->s_metis_rb += s_metis_rb;
		}
}

static int cand_key_cmp(const void *a, const void *b)
{
	const struct cand_key *x = a, *y = b;

	if (x->ranks != y->ranks)
		return (x->ranks > y->ranks) - (x->ranks < y->ranks);
	return (x->rpn > y->rpn) - (x->rpn < y->rpn);
}

static void cands_print(void)
{
	qsort(cand_keys, n_cand_keys, sizeof(*cand_keys), cand_key_cmp);
	printf("# candidates (--candidates): per job size and ranks per host "
	       "(0 0: all inputs), for each limit on ours' candidate "
	       "partitions: inputs above the best of block and the peers, the "
	       "worst ours/best, inputs below the best peer, the mean count "
	       "of partitions tried, ours/metis-rb CPU\n# %6s %3s %5s",
	       "ranks", "rpn", "rows");
	for (unsigned i = 0; i < n_cand_limits; i++) {
		char name[16];

		if (cand_limit[i])
			snprintf(name, sizeof(name), "N=%u", cand_limit[i]);
		else
			snprintf(name, sizeof(name), "N=all");
		printf(" | %5s %4s %6s %4s %4s %5s", name, "abv", "worst", "blw",
		       "prt", "cpu");
	}
	printf("\n");
	for (unsigned k = 0; k < n_cand_keys; k++) {
		const struct cand_key *c = &cand_keys[k];

		printf("# %6u %3u %5u", c->ranks, c->rpn, c->rows);
		for (unsigned i = 0; i < n_cand_limits; i++) {
			printf(" | %5s %4u %6.4f %4u %4.1f", "", c->lim[i].above,
			       c->lim[i].worst, c->lim[i].below_peer,
			       c->rows ? (double)c->lim[i].partitions / c->rows
			               : 0.0);
			if (c->s_metis_rb > 0)
				printf(" %5.2f", c->lim[i].s_ours / c->s_metis_rb);
			else
				printf(" %5s", "-");
		}
		printf("\n");
	}
}

static void run_input(const char *label, const tp_traffic *t, int levels,
                      uint32_t rpn, enum alloc_kind kind, uint64_t fseed)
{
	struct setup s;
	char aname[32];
	uint64_t hb[M_COUNT];
	double secs[M_COUNT], mb[M_COUNT];
	bool have[M_COUNT] = {0};
	uint32_t *rank_host = xmalloc(t->ranks * sizeof(*rank_host));
	char note[512] = "";
	const char *chosen = "", *partition = "";
	uint64_t best_peer = UINT64_MAX;
	const tp_logger tracer = {trace_sink, NULL, TP_LOG_DEBUG};
	const tp_remap_options ours_opt = {
	    .search = search,
	    .max_partitions = n_cand_limits ? cand_limit[n_cand_limits - 1] : 0,
	    .without_scotch = without_scotch};

	setup_make(&s, levels, t->ranks, rpn, kind, fseed);
	alloc_name(kind, fseed, aname, sizeof(aname));
	if (kind == A_FRAG)
		snprintf(note, sizeof(note), " %u leaves/%u pods;",
		         s.leaves_used, s.pods_used);
	for (int m = 0; m < M_COUNT; m++) {
		tp_remap_mapping map = {0};
		tp_remap_stats st;
		tp_error err;
		const char *why = NULL;
		double t0;
		int rc = 0;

		if (!peer_on[m])
			continue;
		if (m == M_TREEMATCH && kind == A_FRAG) {
			/* Its binding constraints are only checked on the
			 * first hosts of the tree. */
			snprintf(note + strlen(note),
			         sizeof(note) - strlen(note),
			         " treematch skipped: fragmented;");
			continue;
		}
		if (m == M_TREEMATCH && t->ranks > peer_max[m]) {
			snprintf(note + strlen(note),
			         sizeof(note) - strlen(note),
			         " treematch skipped: dense matrix would need "
			         "%.1f GB;",
			         8.0 * t->ranks * t->ranks / 1e9);
			continue;
		}
		if (t->ranks > peer_max[m]) {
			snprintf(note + strlen(note),
			         sizeof(note) - strlen(note),
			         " %s skipped: above %u ranks;",
			         method_names[m], peer_max[m]);
			continue;
		}
		rss_reset();
		t0 = cpu_s();
		switch (m) {
		case M_BLOCK:
		case M_CYCLIC:
		case M_RANDOM:
			if (tp_remap_baseline(s.topo, t->ranks, s.hosts,
			                      s.nhosts,
			                      m == M_BLOCK    ? TP_REMAP_BLOCK
			                      : m == M_CYCLIC ? TP_REMAP_CYCLIC
			                                      : TP_REMAP_RANDOM,
			                      seed, &map, &err) != TP_OK)
				die(label, &err);
			memcpy(rank_host, map.rank_host,
			       t->ranks * sizeof(*rank_host));
			break;
		case M_OURS:
			trace_buf[0] = '\0';
			memset(&row_trace, 0, sizeof(row_trace));
			if (tp_remap_compute_options(
			        s.topo, t, s.hosts, s.nhosts, seed, &ours_opt,
			        trace ? &tracer : NULL, &map, &st, &err) != TP_OK)
				die(label, &err);
			memcpy(rank_host, map.rank_host,
			       t->ranks * sizeof(*rank_host));
			chosen = st.chosen;
			if (digest)
				digest_set(&map, &st);
			if (!strcmp(chosen, "partition"))
				partition =
				    !strcmp(st.partition, "bisection") ? "(rb)"
				    : !strcmp(st.partition, "scotch")
				        ? "(scotch)"
				    : !strcmp(st.partition, "flat") ? "(flat)"
				                                    : "(hier)";
			break;
		case M_METIS_RB: {
			tp_quiet quiet;
			tp_status mrc;

			/* METIS's prints off the table, as ours are
			 * (common/tp_quiet.h); the same few calls in both. */
			tp_quiet_begin(&quiet);
			mrc = metis_rb_map(s.topo, t, s.hosts, s.nhosts, seed,
			                   rank_host, &err);
			tp_quiet_end(&quiet);
			if (mrc != TP_OK)
				die(label, &err);
			break;
		}
		case M_SCOTCH:
			rc = map_scotch(&s, t, rank_host, &why);
			break;
#ifdef TP_PEER_TREEMATCH
		case M_TREEMATCH:
			rc = map_treematch(&s, t, rank_host, &why);
			break;
#endif
		default:
			break;
		}
		secs[m] = cpu_s() - t0;
		mb[m] = rss_peak_mb();
		tp_remap_mapping_free(&map);
		if (rc == 0 && !valid(&s, rank_host, t->ranks)) {
			rc = -1;
			why = "over a host's slots";
		}
		if (rc != 0) {
			snprintf(note + strlen(note),
			         sizeof(note) - strlen(note), " %s: %s;",
			         method_names[m], why ? why : "failed");
			continue;
		}
		/* rank_host holds topo host indices */
		hb[m] = tp_cost_hop_bytes(s.topo, t, rank_host);
		have[m] = true;
	}
	printf("%-18s %6u %d %2u %-6s %6u %14llu", label, t->ranks, levels, rpn,
	       aname, s.nhosts, (unsigned long long)hb[M_BLOCK]);
	for (int m = M_CYCLIC; m < M_COUNT; m++) {
		if (have[m])
			printf(" %6.3f",
			       hb[M_BLOCK] ? (double)hb[m] / (double)hb[M_BLOCK]
			                   : 1.0);
		else
			printf(" %6s", "-");
	}
	for (int m = M_OURS; m < M_COUNT; m++) {
		if (have[m])
			printf(" %7.3f", secs[m]);
		else
			printf(" %7s", "-");
	}
	for (int m = M_OURS; m < M_COUNT; m++) {
		if (have[m])
			printf(" %6.0f", mb[m]);
		else
			printf(" %6s", "-");
	}
	printf("  %s%s%s\n", chosen, partition, note);
	if (digest && have[M_OURS])
		printf("# digest %s %u %d %u %s %s\n", label, t->ranks, levels,
		       rpn, aname, digest_line);
	if (trace && have[M_OURS]) {
		fputs(trace_buf, stdout);
		wins_add(t->ranks, rpn, kind == A_FRAG,
		         have[M_METIS_RB] ? secs[M_METIS_RB] : 0);
	}
	fflush(stdout);
	size_time_add(t->ranks, secs, have);
	for (int m = M_CYCLIC; m < M_COUNT; m++)
		if (m != M_OURS && have[m] && hb[m] < best_peer)
			best_peer = hb[m];
	n_inputs++;
	if (have[M_OURS]) {
		uint64_t best =
		    best_peer < hb[M_BLOCK] ? best_peer : hb[M_BLOCK];

		if (n_cand_limits)
			cands_add(&s, t, rpn, hb[M_OURS], best, best_peer,
			          have[M_METIS_RB] ? secs[M_METIS_RB] : 0,
			          have[M_METIS_RB]);
		if (hb[M_OURS] <= best)
			n_le_best++;
		else
			snprintf(losses + strlen(losses),
			         sizeof(losses) - strlen(losses),
			         " %s/%u/%d/%u/%s", label, t->ranks, levels,
			         rpn, aname);
		for (int m = M_BLOCK; m < M_COUNT; m++)
			if (m != M_OURS && m != M_CYCLIC && m != M_RANDOM &&
			    have[m])
				tally(kind == A_FRAG, m, hb[M_OURS], hb[m]);
		if (best_peer != UINT64_MAX) {
			n_compared++;
			if (hb[M_OURS] < best_peer)
				n_lt_peer++;
			else if (hb[M_OURS] == best_peer)
				n_eq_peer++;
		}
	}
	free(rank_host);
	setup_free(&s);
}

/* ---- synthetic inputs ------------------------------------------------ */

static tp_traffic *traffic_new(uint32_t n)
{
	tp_traffic *t;
	tp_error err;

	if (tp_traffic_new(&t, n, &err) != TP_OK)
		die("traffic", &err);
	return t;
}

static void add(tp_traffic *t, uint32_t a, uint32_t b, uint64_t bytes)
{
	tp_error err;

	if (tp_traffic_add(t, a, b, bytes, 1, &err) != TP_OK)
		die("traffic", &err);
}

/* Largest divisor of n that is <= limit. */
static uint32_t divisor_below(uint32_t n, double limit)
{
	for (uint32_t d = (uint32_t)limit; d > 1; d--)
		if (n % d == 0)
			return d;
	return 1;
}

/* 3-D 7-point (or 2-D 5-point when z = 1) stencil, 1 MB per face. */
static tp_traffic *stencil(uint32_t n, bool three_d, const uint32_t *perm)
{
	uint32_t x, y, z;
	tp_traffic *t = traffic_new(n);

	if (three_d) {
		z = divisor_below(n, cbrt((double)n) + 1e-9);
		y = divisor_below(n / z, sqrt((double)(n / z)) + 1e-9);
	} else {
		z = 1;
		y = divisor_below(n, sqrt((double)n) + 1e-9);
	}
	x = n / z / y;
	for (uint32_t k = 0; k < z; k++)
		for (uint32_t j = 0; j < y; j++)
			for (uint32_t i = 0; i < x; i++) {
				uint32_t r = (k * y + j) * x + i;
				uint32_t nb[3] = {i + 1 < x ? r + 1 : r,
				                  j + 1 < y ? r + x : r,
				                  k + 1 < z ? r + x * y : r};

				for (int d = 0; d < 3; d++) {
					uint32_t a = r, b = nb[d];

					if (a == b)
						continue;
					if (perm) {
						a = perm[a];
						b = perm[b];
					}
					add(t, a, b, 1000000);
					add(t, b, a, 1000000);
				}
			}
	tp_traffic_normalize(t);
	return t;
}

/* Random graph: each rank sends to 4 random ranks, Pareto(1.2) bytes. */
static tp_traffic *pareto(uint32_t n)
{
	tp_traffic *t;
	tp_error err;

	if (pareto_graph(n, seed, &t, &err) != TP_OK)
		die("traffic", &err);
	return t;
}

/* All-to-all within groups of 24 consecutive ranks, 64 KB per pair. */
static tp_traffic *groups(uint32_t n)
{
	tp_traffic *t = traffic_new(n);

	for (uint32_t g0 = 0; g0 < n; g0 += 24)
		for (uint32_t a = g0; a < g0 + 24 && a < n; a++)
			for (uint32_t b = g0; b < g0 + 24 && b < n; b++)
				if (a != b)
					add(t, a, b, 65536);
	tp_traffic_normalize(t);
	return t;
}

static tp_traffic *family_make(const char *fam, uint32_t n)
{
	if (!strcmp(fam, "stencil3d"))
		return stencil(n, true, NULL);
	if (!strcmp(fam, "stencil2d"))
		return stencil(n, false, NULL);
	if (!strcmp(fam, "relabel")) {
		uint32_t *perm = xmalloc(n * sizeof(*perm));
		uint64_t st = seed * 104729 + n;
		tp_traffic *t;

		for (uint32_t i = 0; i < n; i++)
			perm[i] = i;
		for (uint32_t i = n; i > 1; i--) {
			uint32_t j = (uint32_t)(rng_next(&st) % i);
			uint32_t x = perm[i - 1];

			perm[i - 1] = perm[j];
			perm[j] = x;
		}
		t = stencil(n, true, perm);
		free(perm);
		return t;
	}
	if (!strcmp(fam, "pareto"))
		return pareto(n);
	if (!strcmp(fam, "groups"))
		return groups(n);
	return NULL;
}

/* ---- driver ----------------------------------------------------------- */

#define MAXLIST 16

/* Every tree x ranks per host x allocation an input is mapped onto. */
static struct {
	int trees[MAXLIST], ntrees;
	uint32_t rpn[MAXLIST];
	int nrpn;
	enum alloc_kind kind[4 * MAXLIST];
	uint64_t fseed[4 * MAXLIST];
	int nalloc;
} layouts;

static void run_layouts(const char *label, const tp_traffic *t)
{
	for (int a = 0; a < layouts.ntrees; a++)
		for (int b = 0; b < layouts.nrpn; b++)
			for (int c = 0; c < layouts.nalloc; c++)
				run_input(label, t, layouts.trees[a],
				          layouts.rpn[b], layouts.kind[c],
				          layouts.fseed[c]);
}

static int split_list(char *s, char **out)
{
	int n = 0;

	for (char *tok = strtok(s, ","); tok && n < MAXLIST;
	     tok = strtok(NULL, ","))
		out[n++] = tok;
	return n;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int method_find(const char *name)
{
	for (int m = 0; m < M_COUNT; m++)
		if (!strcmp(name, method_names[m]))
			return m;
	fprintf(stderr, "peer_bench: unknown peer '%s'\n", name);
	exit(2);
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: peer_bench [--matrices DIR|none] [--sizes N,..] "
	        "[--families F,..|none] [--peers P,..] [--trees 2,3] "
	        "[--rpn 1,16] [--allocs leaves,part,frag] [--frag-seeds 1,2,3] "
	        "[--seed S] [--trace on|off] [--search auto|full|fast] "
	        "[--digest on|off] [--candidates N,..,all] "
	        "[--scotch-candidate on|off] [--max-peer-ranks N|peer=N,..]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dir = "tests/data/matrices";
	char sizes_s[256] = "512,4096,16384,65536";
	char fams_s[256] = "stencil3d,stencil2d,relabel,pareto,groups";
	char trees_s[64] = "2,3", rpn_s[64] = "1,16",
	     allocs_s[64] = "leaves,part,frag", fseeds_s[128] = "1,2,3";
	char *sizes[MAXLIST], *fams[MAXLIST], *trees[MAXLIST], *rpns[MAXLIST],
	    *allocs[MAXLIST], *fseeds[MAXLIST];
	int nsizes, nfams, ntrees, nrpn, nallocs, nfseeds;
	char *names[256];
	int count = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--matrices"))
			dir = v;
		else if (!strcmp(a, "--sizes"))
			snprintf(sizes_s, sizeof(sizes_s), "%s", v);
		else if (!strcmp(a, "--families"))
			snprintf(fams_s, sizeof(fams_s), "%s", v);
		else if (!strcmp(a, "--trees"))
			snprintf(trees_s, sizeof(trees_s), "%s", v);
		else if (!strcmp(a, "--rpn"))
			snprintf(rpn_s, sizeof(rpn_s), "%s", v);
		else if (!strcmp(a, "--allocs"))
			snprintf(allocs_s, sizeof(allocs_s), "%s", v);
		else if (!strcmp(a, "--frag-seeds"))
			snprintf(fseeds_s, sizeof(fseeds_s), "%s", v);
		else if (!strcmp(a, "--trace"))
			trace = !strcmp(v, "on");
		else if (!strcmp(a, "--digest"))
			digest = !strcmp(v, "on");
		else if (!strcmp(a, "--scotch-candidate")) {
			if (strcmp(v, "on") && strcmp(v, "off"))
				usage();
			without_scotch = !strcmp(v, "off");
		}
		else if (!strcmp(a, "--search")) {
			tp_error err = {0};

			if (tp_remap_search_parse(v, &search, &err) != TP_OK)
				die("--search", &err);
		}
		else if (!strcmp(a, "--candidates")) {
			char buf[256], *p[MAXLIST];
			int np;

			snprintf(buf, sizeof(buf), "%s", v);
			np = split_list(buf, p);
			if (np > CAND_LIMITS)
				usage();
			n_cand_limits = 0;
			for (int j = 0; j < np; j++) {
				char *end;
				unsigned long lim =
				    strcmp(p[j], "all") ? strtoul(p[j], &end, 10)
				                        : 0;

				if (strcmp(p[j], "all") &&
				    (*end || lim == 0 || lim > 64))
					usage();
				cand_limit[n_cand_limits++] = (uint32_t)lim;
			}
		} else if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--peers")) {
			char buf[256], *p[MAXLIST];
			int np;

			snprintf(buf, sizeof(buf), "%s", v);
			peer_on[M_METIS_RB] = peer_on[M_SCOTCH] =
			    peer_on[M_TREEMATCH] = false;
			np = strcmp(buf, "none") ? split_list(buf, p) : 0;
			for (int j = 0; j < np; j++)
				peer_on[method_find(p[j])] = true;
		} else if (!strcmp(a, "--max-peer-ranks")) {
			char buf[256], *p[MAXLIST];
			int np;

			snprintf(buf, sizeof(buf), "%s", v);
			np = split_list(buf, p);
			for (int j = 0; j < np; j++) {
				char *eq = strchr(p[j], '=');

				if (eq) {
					*eq = '\0';
					peer_max[method_find(p[j])] =
					    (uint32_t)strtoul(eq + 1, NULL, 10);
				} else {
					peer_max[M_METIS_RB] =
					    peer_max[M_SCOTCH] =
					        peer_max[M_TREEMATCH] =
					            (uint32_t)strtoul(p[j],
					                              NULL, 10);
				}
			}
		} else
			usage();
	}
	nsizes = split_list(sizes_s, sizes);
	nfams = strcmp(fams_s, "none") ? split_list(fams_s, fams) : 0;
	ntrees = split_list(trees_s, trees);
	nrpn = split_list(rpn_s, rpns);
	nallocs = split_list(allocs_s, allocs);
	nfseeds = split_list(fseeds_s, fseeds);
	for (int a = 0; a < ntrees; a++)
		layouts.trees[layouts.ntrees++] = atoi(trees[a]);
	for (int b = 0; b < nrpn; b++)
		layouts.rpn[layouts.nrpn++] = (uint32_t)atoi(rpns[b]);
	for (int c = 0; c < nallocs; c++) {
		if (!strcmp(allocs[c], "frag")) {
			for (int f = 0; f < nfseeds; f++) {
				layouts.kind[layouts.nalloc] = A_FRAG;
				layouts.fseed[layouts.nalloc++] =
				    strtoull(fseeds[f], NULL, 10);
			}
		} else if (!strcmp(allocs[c], "leaves") ||
		           !strcmp(allocs[c], "part")) {
			layouts.kind[layouts.nalloc++] =
			    !strcmp(allocs[c], "leaves") ? A_LEAVES : A_PART;
		} else {
			fprintf(stderr, "peer_bench: unknown allocation '%s'\n",
			        allocs[c]);
			return 2;
		}
	}

	printf("# peer_bench: fat trees of %d hosts/leaf (3-level: %d "
	       "leaves/pod); seed %llu; ours' search %s\n",
	       HOSTS_PER_LEAF, LEAVES_PER_POD, (unsigned long long)seed,
	       tp_remap_search_name(search));
#ifdef TP_PEER_TREEMATCH
	printf("# treematch: built in; dense matrix, run up to %u ranks "
	       "(%.2f GB)\n",
	       peer_max[M_TREEMATCH],
	       8.0 * peer_max[M_TREEMATCH] * peer_max[M_TREEMATCH] / 1e9);
#else
	printf("# treematch: not built (run bench/peers-setup.sh, then "
	       "bench/peers.sh)\n");
	peer_on[M_TREEMATCH] = false;
#endif
	printf("# scotch: run up to %u ranks; metis-rb: ", peer_max[M_SCOTCH]);
	if (peer_max[M_METIS_RB] == UINT32_MAX)
		printf("no limit\n");
	else
		printf("up to %u ranks\n", peer_max[M_METIS_RB]);
	printf("# hop-bytes as ratio to block (lower is better); CPU s and "
	       "peak RSS MB of ours, metis-rb, scotch, treematch\n");
	printf("%-18s %6s %s %2s %-6s %6s %14s %6s %6s %6s %6s %6s %6s %7s "
	       "%7s %7s %7s %6s %6s %6s %6s  %s\n",
	       "input", "ranks", "L", "pn", "alloc", "hosts", "block_hopB",
	       "cyclic", "random", "ours", "mt-rb", "scotch", "tm", "s_ours",
	       "s_mtrb", "s_scot", "s_tm", "MB_our", "MB_mrb", "MB_sco",
	       "MB_tm", "ours_from / notes");

	if (strcmp(dir, "none")) {
		DIR *d = opendir(dir);
		struct dirent *de;

		if (!d) {
			fprintf(stderr, "peer_bench: cannot open %s\n", dir);
			return 1;
		}
		while ((de = readdir(d)) && count < 256) {
			size_t l = strlen(de->d_name);

			if (l > 4 && !strcmp(de->d_name + l - 4, ".txt"))
				names[count++] = strdup(de->d_name);
		}
		closedir(d);
		qsort(names, (size_t)count, sizeof(*names), name_cmp);
	}
	for (int i = 0; i < count; i++) {
		char path[4096];
		tp_traffic *t;
		tp_error err;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (tp_traffic_read_file(path, NULL, &t, &err) != TP_OK)
			die(path, &err);
		run_layouts(names[i], t);
		tp_traffic_free(t);
		free(names[i]);
	}
	for (int s = 0; s < nsizes; s++) {
		uint32_t n = (uint32_t)strtoul(sizes[s], NULL, 10);

		for (int f = 0; f < nfams; f++) {
			tp_traffic *t = family_make(fams[f], n);
			char label[64];

			if (!t) {
				fprintf(stderr,
				        "peer_bench: unknown family "
				        "'%s'\n",
				        fams[f]);
				return 2;
			}
			snprintf(label, sizeof(label), "%s", fams[f]);
			run_layouts(label, t);
			tp_traffic_free(t);
		}
	}
	printf("# summary: %u inputs; ours <= best of block and all peers on "
	       "%u; ours < best peer on %u of %u (equal on %u)\n",
	       n_inputs, n_le_best, n_lt_peer, n_compared, n_eq_peer);
	if (losses[0])
		printf("# ours above the best on:%s\n", losses);
	for (int f = 0; f < 2; f++)
		for (int m = M_BLOCK; m < M_COUNT; m++) {
			const struct vs *v = &versus[f][m];

			if (v->wins + v->ties + v->losses == 0)
				continue;
			printf(
			    "# %s, ours vs %s: %u lower, %u equal, %u higher; "
			    "worst ours/%s %.4f\n",
			    f ? "fragmented" : "contiguous", method_names[m],
			    v->wins, v->ties, v->losses, method_names[m],
			    v->worst);
		}
	size_times_print();
	if (trace)
		wins_print();
	if (n_cand_limits)
		cands_print();
	return 0;
}
