/*
 * ibnd_leaves - discover an InfiniBand fabric with libibnetdisc and print its
 * leaf switches with the hosts on each (integration-test helper).
 *
 * Switches are levelled by a breadth-first search from the channel adapters
 * (CA = level 0, a switch next to a CA = level 1 = leaf, then 2, 3, ...), as
 * in the fabric model of topoplace. Host and switch names are the first word
 * of the node description ("n0001 HCA-1" -> n0001).
 *
 * Usage: ibnd_leaves [--load CACHE] [--cache FILE]
 *   --load CACHE  read a fabric saved by ibnd_cache_fabric / ibnetdiscover
 *                 --cache instead of discovering one (no simulator needed)
 *   --cache FILE  also save the discovered fabric to FILE
 *
 * Output (sorted by name, one record per line):
 *   summary nodes=N switches=N cas=N leaves=N max_level=N unlevelled=N
 *   level L switches=N
 *   leaf NAME hosts=N HOST...
 * Exit status: 0 ok, 1 discovery or output failed, 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>

#define PROG     "ibnd_leaves"
#define NAME_LEN 64

struct node_slot {
	ibnd_node_t *node;
	int level; /* -1 until reached by the BFS */
	char name[NAME_LEN];
};

struct by_ptr {
	const ibnd_node_t *node;
	size_t index;
};

struct fabric_index {
	struct node_slot *slots;
	struct by_ptr *lookup; /* sorted by node pointer */
	size_t count;
};

static int cmp_by_ptr(const void *a, const void *b)
{
	const struct by_ptr *x = a, *y = b;

	if (x->node == y->node)
		return 0;
	return (uintptr_t)x->node < (uintptr_t)y->node ? -1 : 1;
}

static int cmp_name(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;

	return strcmp(*x, *y);
}

static int cmp_slot_ptr_name(const void *a, const void *b)
{
	const struct node_slot *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* First word of a node description, or the GUID when it is empty. */
static void node_name(const ibnd_node_t *node, char *buf, size_t len)
{
	size_t n = strcspn(node->nodedesc, " \t");

	if (n == 0) {
		snprintf(buf, len, "0x%016llx", (unsigned long long)node->guid);
		return;
	}
	if (n >= len)
		n = len - 1;
	memcpy(buf, node->nodedesc, n);
	buf[n] = '\0';
}

static long find_slot(const struct fabric_index *fx, const ibnd_node_t *node)
{
	struct by_ptr key = {node, 0};
	const struct by_ptr *hit;

	hit = bsearch(&key, fx->lookup, fx->count, sizeof(key), cmp_by_ptr);
	return hit == NULL ? -1 : (long)hit->index;
}

/* Build the node table; returns 0 or -ENOMEM. */
static int index_fabric(ibnd_fabric_t *fabric, struct fabric_index *fx)
{
	size_t count = 0, i = 0;

	for (ibnd_node_t *n = fabric->nodes; n != NULL; n = n->next)
		count++;
	fx->count = count;
	fx->slots = calloc(count ? count : 1, sizeof(*fx->slots));
	fx->lookup = calloc(count ? count : 1, sizeof(*fx->lookup));
	if (fx->slots == NULL || fx->lookup == NULL)
		return -ENOMEM;
	for (ibnd_node_t *n = fabric->nodes; n != NULL; n = n->next, i++) {
		fx->slots[i].node = n;
		fx->slots[i].level = -1;
		node_name(n, fx->slots[i].name, sizeof(fx->slots[i].name));
		fx->lookup[i].node = n;
		fx->lookup[i].index = i;
	}
	qsort(fx->lookup, count, sizeof(*fx->lookup), cmp_by_ptr);
	return 0;
}

/* BFS from every CA over switches; fills slots[].level. */
static int level_switches(struct fabric_index *fx)
{
	size_t *queue, head = 0, tail = 0;

	queue = malloc((fx->count ? fx->count : 1) * sizeof(*queue));
	if (queue == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < fx->count; i++) {
		if (fx->slots[i].node->type == IB_NODE_CA) {
			fx->slots[i].level = 0;
			queue[tail++] = i;
		}
	}
	while (head < tail) {
		struct node_slot *cur = &fx->slots[queue[head++]];
		ibnd_node_t *node = cur->node;

		for (int p = 1; p <= node->numports; p++) {
			ibnd_port_t *port = node->ports[p];
			long next;

			if (port == NULL || port->remoteport == NULL)
				continue;
			if (port->remoteport->node->type != IB_NODE_SWITCH)
				continue;
			next = find_slot(fx, port->remoteport->node);
			if (next < 0 || fx->slots[next].level >= 0)
				continue;
			fx->slots[next].level = cur->level + 1;
			queue[tail++] = (size_t)next;
		}
	}
	free(queue);
	return 0;
}

/* Print one leaf with its distinct hosts, sorted. */
static int print_leaf(const struct fabric_index *fx,
                      const struct node_slot *leaf)
{
	const ibnd_node_t *node = leaf->node;
	const char **hosts;
	size_t n = 0, distinct = 0;

	hosts = calloc((size_t)node->numports + 1, sizeof(*hosts));
	if (hosts == NULL)
		return -ENOMEM;
	for (int p = 1; p <= node->numports; p++) {
		ibnd_port_t *port = node->ports[p];
		long peer;

		if (port == NULL || port->remoteport == NULL ||
		    port->remoteport->node->type != IB_NODE_CA)
			continue;
		peer = find_slot(fx, port->remoteport->node);
		if (peer >= 0)
			hosts[n++] = fx->slots[peer].name;
	}
	qsort(hosts, n, sizeof(*hosts), cmp_name);
	/* A host with several ports on this leaf counts once. */
	for (size_t i = 0; i < n; i++)
		if (distinct == 0 || strcmp(hosts[distinct - 1], hosts[i]) != 0)
			hosts[distinct++] = hosts[i];
	printf("leaf %s hosts=%zu", leaf->name, distinct);
	for (size_t i = 0; i < distinct; i++)
		printf(" %s", hosts[i]);
	printf("\n");
	free(hosts);
	return 0;
}

static int report(struct fabric_index *fx)
{
	size_t switches = 0, cas = 0, leaves = 0, unlevelled = 0;
	int max_level = 0;
	const struct node_slot **leaf_list;

	leaf_list = calloc(fx->count ? fx->count : 1, sizeof(*leaf_list));
	if (leaf_list == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < fx->count; i++) {
		const struct node_slot *s = &fx->slots[i];

		if (s->node->type == IB_NODE_CA)
			cas++;
		if (s->node->type != IB_NODE_SWITCH)
			continue;
		switches++;
		if (s->level < 0)
			unlevelled++;
		if (s->level > max_level)
			max_level = s->level;
		if (s->level == 1)
			leaf_list[leaves++] = s;
	}
	printf("summary nodes=%zu switches=%zu cas=%zu leaves=%zu max_level=%d "
	       "unlevelled=%zu\n",
	       fx->count, switches, cas, leaves, max_level, unlevelled);
	for (int level = 1; level <= max_level; level++) {
		size_t at = 0;

		for (size_t i = 0; i < fx->count; i++)
			if (fx->slots[i].node->type == IB_NODE_SWITCH &&
			    fx->slots[i].level == level)
				at++;
		printf("level %d switches=%zu\n", level, at);
	}
	qsort(leaf_list, leaves, sizeof(*leaf_list), cmp_slot_ptr_name);
	for (size_t i = 0; i < leaves; i++) {
		if (print_leaf(fx, leaf_list[i]) != 0) {
			free(leaf_list);
			return -ENOMEM;
		}
	}
	free(leaf_list);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: " PROG " [--load CACHE] [--cache FILE]\n"
	    "Discover the fabric (or load a cached one) and print its leaf\n"
	    "switches with their hosts.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"load", required_argument, NULL, 'l'},
	    {"cache", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *load = NULL, *cache = NULL;
	struct fabric_index fx = {NULL, NULL, 0};
	ibnd_fabric_t *fabric;
	int opt, status = 0;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":l:c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			load = optarg;
			break;
		case 'c':
			cache = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, PROG ": %s needs a value\n",
			        argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, PROG ": unknown option '%s'\n",
			        argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n",
		        argv[optind]);
		return 2;
	}

	if (load != NULL) {
		fabric = ibnd_load_fabric(load, 0);
		if (fabric == NULL) {
			fprintf(stderr, PROG ": cannot load fabric cache %s\n",
			        load);
			return 1;
		}
	} else {
		struct ibnd_config config;

		memset(&config, 0, sizeof(config));
		fabric = ibnd_discover_fabric(NULL, 0, NULL, &config);
		if (fabric == NULL) {
			fprintf(stderr, PROG ": fabric discovery failed "
			                     "(ibnd_discover_fabric)\n");
			return 1;
		}
	}
	if (cache != NULL && ibnd_cache_fabric(fabric, cache, 0) != 0) {
		fprintf(stderr, PROG ": cannot write fabric cache %s\n", cache);
		status = 1;
	}

	if (index_fabric(fabric, &fx) != 0 || level_switches(&fx) != 0 ||
	    report(&fx) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		status = 1;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": writing the report failed: %s\n",
		        strerror(errno));
		status = 1;
	}
	free(fx.slots);
	free(fx.lookup);
	ibnd_destroy_fabric(fabric);
	return status;
}
