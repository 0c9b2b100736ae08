/*
 * topo.c: the host hierarchy (host -> leaf -> pod) with O(1) queries.
 */
#include "tp_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

struct leaf_override {
	uint32_t a, b;
	uint8_t hops;
};

struct tp_topo {
	bool finished;

	uint32_t host_count, host_cap;
	char **host_names;
	uint32_t *host_leaf;

	uint32_t leaf_count, leaf_cap;
	char **leaf_names;
	uint32_t *leaf_pod;

	uint32_t pod_count, pod_cap;
	char **pod_names;

	/* After finish: hosts of each leaf, leaves of each pod (CSR). */
	uint32_t *leaf_host_start, *leaf_host_list;
	uint32_t *pod_leaf_start, *pod_leaf_list;

	/* Name lookup: open addressing, power-of-two size, TP_TOPO_NONE = empty. */
	uint32_t *host_slots, *leaf_slots;
	uint32_t host_slot_mask, leaf_slot_mask;

	/* Irregular fabrics: measured leaf distances, dense after finish. */
	struct leaf_override *overrides;
	uint32_t override_count, override_cap;
	uint8_t *leaf_hops; /* leaf_count^2, or NULL for the plain hierarchy */
};

/* Grow *array of *cap elements of @size bytes to hold @need elements. */
static tp_status grow(void *array, uint32_t *cap, uint32_t need, size_t size,
		      tp_error *err)
{
	void **slot = array;
	uint32_t new_cap;
	void *p;

	if (need <= *cap)
		return TP_OK;
	new_cap = *cap ? *cap : 16;
	while (new_cap < need) {
		if (new_cap > UINT32_MAX / 2)
			return tp_error_set(err, TP_ERR_LIMIT,
					    "topology: more than %u objects",
					    UINT32_MAX / 2);
		new_cap *= 2;
	}
	p = realloc(*slot, (size_t)new_cap * size);
	if (!p)
		return tp_error_set(err, TP_ERR_NOMEM,
				    "topology: cannot grow to %u objects",
				    new_cap);
	*slot = p;
	*cap = new_cap;
	return TP_OK;
}

static uint32_t hash_name(const char *name)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *name; name++) {
		h ^= (unsigned char)*name;
		h *= 16777619u;
	}
	return h;
}

tp_status tp_topo_new(tp_topo **topo, tp_error *err)
{
	*topo = calloc(1, sizeof(**topo));
	if (!*topo)
		return tp_error_set(err, TP_ERR_NOMEM,
				    "topology: out of memory");
	return TP_OK;
}

static void free_names(char **names, uint32_t count)
{
	if (!names)
		return;
	for (uint32_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

void tp_topo_free(tp_topo *topo)
{
	if (!topo)
		return;
	free_names(topo->host_names, topo->host_count);
	free_names(topo->leaf_names, topo->leaf_count);
	free_names(topo->pod_names, topo->pod_count);
	free(topo->host_leaf);
	free(topo->leaf_pod);
	free(topo->leaf_host_start);
	free(topo->leaf_host_list);
	free(topo->pod_leaf_start);
	free(topo->pod_leaf_list);
	free(topo->host_slots);
	free(topo->leaf_slots);
	free(topo->overrides);
	free(topo->leaf_hops);
	free(topo);
}

static tp_status check_open(const tp_topo *topo, const char *what,
			    const char *name, tp_error *err)
{
	if (topo->finished)
		return tp_error_set(err, TP_ERR_INVALID,
				    "topology: cannot add %s '%s' after finish",
				    what, name ? name : "");
	if (!name || !*name)
		return tp_error_set(err, TP_ERR_INVALID,
				    "topology: %s with an empty name", what);
	return TP_OK;
}

tp_status tp_topo_add_pod(tp_topo *topo, const char *name, uint32_t *index,
			  tp_error *err)
{
	tp_status rc;
	char *copy;

	if ((rc = check_open(topo, "pod", name, err)) != TP_OK)
		return rc;
	if ((rc = grow(&topo->pod_names, &topo->pod_cap, topo->pod_count + 1,
		       sizeof(char *), err)) != TP_OK)
		return rc;
	if (!(copy = strdup(name)))
		return tp_error_set(err, TP_ERR_NOMEM,
				    "topology: out of memory");
	topo->pod_names[topo->pod_count] = copy;
	if (index)
		*index = topo->pod_count;
	topo->pod_count++;
	return TP_OK;
}

tp_status tp_topo_add_leaf(tp_topo *topo, const char *name, uint32_t pod,
			   uint32_t *index, tp_error *err)
{
	uint32_t cap;
	tp_status rc;
	char *copy;

	if ((rc = check_open(topo, "leaf", name, err)) != TP_OK)
		return rc;
	if (pod >= topo->pod_count)
		return tp_error_set(err, TP_ERR_INVALID,
				    "topology: leaf '%s': no pod %u (%u pods)",
				    name, pod, topo->pod_count);
	cap = topo->leaf_cap;
	if ((rc = grow(&topo->leaf_names, &cap, topo->leaf_count + 1,
		       sizeof(char *), err)) != TP_OK)
		return rc;
	cap = topo->leaf_cap;
	if ((rc = grow(&topo->leaf_pod, &cap, topo->leaf_count + 1,
		       sizeof(uint32_t), err)) != TP_OK)
		return rc;
	topo->leaf_cap = cap;
	if (!(copy = strdup(name)))
		return tp_error_set(err, TP_ERR_NOMEM,
				    "topology: out of memory");
	topo->leaf_names[topo->leaf_count] = copy;
	topo->leaf_pod[topo->leaf_count] = pod;
	if (index)
		*index = topo->leaf_count;
	topo->leaf_count++;
	return TP_OK;
}

tp_status tp_topo_add_host(tp_topo *topo, const char *name, uint32_t leaf,
			   uint32_t *index, tp_error *err)
{
	uint32_t cap;
	tp_status rc;
	char *copy;

	if ((rc = check_open(topo, "host", name, err)) != TP_OK)
		return rc;
	if (leaf >= topo->leaf_count)
		return tp_error_set(err, TP_ERR_INVALID,
				    "topology: host '%s': no leaf %u (%u leaves)",
				    name, leaf, topo->leaf_count);
	cap = topo->host_cap;
	if ((rc = grow(&topo->host_names, &cap, topo->host_count + 1,
		       sizeof(char *), err)) != TP_OK)
		return rc;
	cap = topo->host_cap;
	if ((rc = grow(&topo->host_leaf, &cap, topo->host_count + 1,
		       sizeof(uint32_t), err)) != TP_OK)
		return rc;
	topo->host_cap = cap;
	if (!(copy = strdup(name)))
		return tp_error_set(err, TP_ERR_NOMEM,
				    "topology: out of memory");
	topo->host_names[topo->host_count] = copy;
	topo->host_leaf[topo->host_count] = leaf;
	if (index)
		*index = topo->host_count;
	topo->host_count++;
	return TP_OK;
}

tp_status tp_topo_set_leaf_distance(tp_topo *topo, uint32_t a, uint32_t b,
				    unsigned hops, tp_error *err)
{
	tp_status rc;

	if (topo->finished)
		return tp_error_set(err, TP_ERR_INVALID,
				    "topology: leaf distance set after finish");
	if (a >= topo->leaf_count || b >= topo->leaf_count || a == b)
		return tp_error_set(err, TP_ERR_INVALID,
				    "topology: leaf distance %u-%u: bad leaves "
				    "(%u leaves)",
				    a, b, topo->leaf_count);
	if (hops < TP_HOPS_SAME_LEAF || hops > 255)
		return tp_error_set(err, TP_ERR_INVALID,
				    "topology: leaf distance %s-%s: %u hops is "
				    "not in 2..255",
				    topo->leaf_names[a], topo->leaf_names[b],
				    hops);
	if ((rc = grow(&topo->overrides, &topo->override_cap,
		       topo->override_count + 1, sizeof(*topo->overrides),
		       err)) != TP_OK)
		return rc;
	topo->overrides[topo->override_count++] =
		(struct leaf_override){ a, b, (uint8_t)hops };
	return TP_OK;
}

/* Build a name -> index table for @count names. */
static tp_status index_names(char **names, uint32_t count, uint32_t **slots,
			     uint32_t *mask, const char *what, tp_error *err)
{
	uint32_t size = 16;

	while (size < 2 * (uint64_t)count)
		size *= 2;
	*slots = malloc((size_t)size * sizeof(uint32_t));
	if (!*slots)
		return tp_error_set(err, TP_ERR_NOMEM,
				    "topology: out of memory");
	memset(*slots, 0xff, (size_t)size * sizeof(uint32_t));
	*mask = size - 1;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t slot = hash_name(names[i]) & *mask;

		while ((*slots)[slot] != TP_TOPO_NONE) {
			if (!strcmp(names[(*slots)[slot]], names[i]))
				return tp_error_set(err, TP_ERR_INVALID,
						    "topology: %s name '%s' "
						    "appears twice",
						    what, names[i]);
			slot = (slot + 1) & *mask;
		}
		(*slots)[slot] = i;
	}
	return TP_OK;
}

static uint32_t lookup(char **names, const uint32_t *slots, uint32_t mask,
		       const char *name)
{
	uint32_t slot;

	if (!slots || !name)
		return TP_TOPO_NONE;
	slot = hash_name(name) & mask;
	while (slots[slot] != TP_TOPO_NONE) {
		if (!strcmp(names[slots[slot]], name))
			return slots[slot];
		slot = (slot + 1) & mask;
	}
	return TP_TOPO_NONE;
}

/* Group @count members by @owner_of into CSR arrays over @owners owners. */
static tp_status group(const uint32_t *owner_of, uint32_t count,
		       uint32_t owners, uint32_t **start, uint32_t **list,
		       tp_error *err)
{
	uint32_t *fill;

	*start = calloc((size_t)owners + 1, sizeof(uint32_t));
	*list = malloc(((size_t)count + 1) * sizeof(uint32_t));
	fill = calloc((size_t)owners + 1, sizeof(uint32_t));
	if (!*start || !*list || !fill) {
		free(fill);
		return tp_error_set(err, TP_ERR_NOMEM,
				    "topology: out of memory");
	}
	for (uint32_t i = 0; i < count; i++)
		(*start)[owner_of[i] + 1]++;
	for (uint32_t o = 0; o < owners; o++)
		(*start)[o + 1] += (*start)[o];
	for (uint32_t i = 0; i < count; i++) {
		uint32_t o = owner_of[i];

		(*list)[(*start)[o] + fill[o]++] = i;
	}
	free(fill);
	return TP_OK;
}

tp_status tp_topo_finish(tp_topo *topo, tp_error *err)
{
	tp_status rc;

	if (topo->finished)
		return TP_OK;
	if (topo->host_count == 0)
		return tp_error_set(err, TP_ERR_INVALID,
				    "topology: no hosts");
	if ((rc = index_names(topo->host_names, topo->host_count,
			      &topo->host_slots, &topo->host_slot_mask, "host",
			      err)) != TP_OK)
		return rc;
	if ((rc = index_names(topo->leaf_names, topo->leaf_count,
			      &topo->leaf_slots, &topo->leaf_slot_mask, "leaf",
			      err)) != TP_OK)
		return rc;
	if ((rc = group(topo->host_leaf, topo->host_count, topo->leaf_count,
			&topo->leaf_host_start, &topo->leaf_host_list, err)) !=
	    TP_OK)
		return rc;
	if ((rc = group(topo->leaf_pod, topo->leaf_count, topo->pod_count,
			&topo->pod_leaf_start, &topo->pod_leaf_list, err)) !=
	    TP_OK)
		return rc;
	if (topo->override_count) {
		size_t n = topo->leaf_count;

		topo->leaf_hops = malloc(n * n);
		if (!topo->leaf_hops)
			return tp_error_set(err, TP_ERR_NOMEM,
					    "topology: out of memory for "
					    "%zu leaf distances",
					    n * n);
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = 0; b < n; b++)
				topo->leaf_hops[a * n + b] =
					(uint8_t)(a == b ? TP_HOPS_SAME_LEAF :
					 topo->leaf_pod[a] == topo->leaf_pod[b] ?
							  TP_HOPS_SAME_POD :
							  TP_HOPS_OTHER_POD);
		for (uint32_t i = 0; i < topo->override_count; i++) {
			const struct leaf_override *o = &topo->overrides[i];

			topo->leaf_hops[o->a * n + o->b] = o->hops;
			topo->leaf_hops[o->b * n + o->a] = o->hops;
		}
	}
	topo->finished = true;
	return TP_OK;
}

tp_status tp_topo_new_fattree(tp_topo **topo, uint32_t pods,
			      uint32_t leaves_per_pod, uint32_t hosts_per_leaf,
			      tp_error *err)
{
	uint64_t hosts = (uint64_t)pods * leaves_per_pod * hosts_per_leaf;
	char name[32];
	tp_status rc;
	uint32_t host = 0;

	if (!pods || !leaves_per_pod || !hosts_per_leaf)
		return tp_error_set(err, TP_ERR_INVALID,
				    "fat tree %ux%ux%u: every count must be > 0",
				    pods, leaves_per_pod, hosts_per_leaf);
	if (hosts > 9999 || (uint64_t)pods * leaves_per_pod > 999 || pods > 99)
		return tp_error_set(err, TP_ERR_LIMIT,
				    "fat tree %ux%ux%u: more than 99 pods, 999 "
				    "leaves or 9999 hosts",
				    pods, leaves_per_pod, hosts_per_leaf);
	if ((rc = tp_topo_new(topo, err)) != TP_OK)
		return rc;
	for (uint32_t p = 0; p < pods; p++) {
		snprintf(name, sizeof(name), "pod%02u", p + 1);
		if ((rc = tp_topo_add_pod(*topo, name, NULL, err)) != TP_OK)
			goto fail;
		for (uint32_t l = 0; l < leaves_per_pod; l++) {
			uint32_t leaf;

			snprintf(name, sizeof(name), "leaf%03u",
				 p * leaves_per_pod + l + 1);
			if ((rc = tp_topo_add_leaf(*topo, name, p, &leaf,
						   err)) != TP_OK)
				goto fail;
			for (uint32_t h = 0; h < hosts_per_leaf; h++) {
				snprintf(name, sizeof(name), "n%04u", ++host);
				if ((rc = tp_topo_add_host(*topo, name, leaf,
							   NULL, err)) != TP_OK)
					goto fail;
			}
		}
	}
	if ((rc = tp_topo_finish(*topo, err)) != TP_OK)
		goto fail;
	return TP_OK;
fail:
	tp_topo_free(*topo);
	*topo = NULL;
	return rc;
}

uint32_t tp_topo_host_count(const tp_topo *topo)
{
	return topo->host_count;
}

uint32_t tp_topo_leaf_count(const tp_topo *topo)
{
	return topo->leaf_count;
}

uint32_t tp_topo_pod_count(const tp_topo *topo)
{
	return topo->pod_count;
}

const char *tp_topo_host_name(const tp_topo *topo, uint32_t host)
{
	return host < topo->host_count ? topo->host_names[host] : NULL;
}

const char *tp_topo_leaf_name(const tp_topo *topo, uint32_t leaf)
{
	return leaf < topo->leaf_count ? topo->leaf_names[leaf] : NULL;
}

const char *tp_topo_pod_name(const tp_topo *topo, uint32_t pod)
{
	return pod < topo->pod_count ? topo->pod_names[pod] : NULL;
}

uint32_t tp_topo_host_leaf(const tp_topo *topo, uint32_t host)
{
	return host < topo->host_count ? topo->host_leaf[host] : TP_TOPO_NONE;
}

uint32_t tp_topo_leaf_pod(const tp_topo *topo, uint32_t leaf)
{
	return leaf < topo->leaf_count ? topo->leaf_pod[leaf] : TP_TOPO_NONE;
}

const uint32_t *tp_topo_leaf_hosts(const tp_topo *topo, uint32_t leaf,
				   uint32_t *count)
{
	if (!topo->finished || leaf >= topo->leaf_count) {
		*count = 0;
		return NULL;
	}
	*count = topo->leaf_host_start[leaf + 1] - topo->leaf_host_start[leaf];
	return topo->leaf_host_list + topo->leaf_host_start[leaf];
}

const uint32_t *tp_topo_pod_leaves(const tp_topo *topo, uint32_t pod,
				   uint32_t *count)
{
	if (!topo->finished || pod >= topo->pod_count) {
		*count = 0;
		return NULL;
	}
	*count = topo->pod_leaf_start[pod + 1] - topo->pod_leaf_start[pod];
	return topo->pod_leaf_list + topo->pod_leaf_start[pod];
}

uint32_t tp_topo_find_host(const tp_topo *topo, const char *name)
{
	return lookup(topo->host_names, topo->host_slots, topo->host_slot_mask,
		      name);
}

uint32_t tp_topo_find_leaf(const tp_topo *topo, const char *name)
{
	return lookup(topo->leaf_names, topo->leaf_slots, topo->leaf_slot_mask,
		      name);
}

unsigned tp_topo_leaf_distance(const tp_topo *topo, uint32_t a, uint32_t b)
{
	if (topo->leaf_hops)
		return topo->leaf_hops[(size_t)a * topo->leaf_count + b];
	if (a == b)
		return TP_HOPS_SAME_LEAF;
	return topo->leaf_pod[a] == topo->leaf_pod[b] ? TP_HOPS_SAME_POD :
							TP_HOPS_OTHER_POD;
}

unsigned tp_topo_distance(const tp_topo *topo, uint32_t a, uint32_t b)
{
	if (a == b)
		return TP_HOPS_SAME_HOST;
	return tp_topo_leaf_distance(topo, topo->host_leaf[a],
				     topo->host_leaf[b]);
}
