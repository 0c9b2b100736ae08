/*
 * fabric_diff.c: what changed between two finished fabrics (switches,
 * hosts, leaves, cables), for `topoplace fabric diff` and for slurmctld's
 * reload of a changed fabric.
 */
#include "tp_config.h"

#include "fabric_internal.h"
#include "hostlist.h"
#include "tp_strbuf.h"
#include "tp_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diff -------------------------------------------------------------- */

struct pair {
	const char *a, *b; /* a <= b */
	uint32_t count;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;
	int c = strcmp(p->a, q->a);

	return c != 0 ? c : strcmp(p->b, q->b);
}

/* Cables between named nodes, counted per unordered name pair. */
static tp_status cable_pairs(const tp_fabric *f, struct pair **out,
                             size_t *count, tp_error *err)
{
	struct pair *v = calloc((size_t)f->link_count + 1, sizeof(*v));
	size_t n = 0;

	*out = NULL;
	*count = 0;
	if (v == NULL)
		return tp_fabric_nomem(err, "diff");
	for (uint32_t l = 0; l < f->link_count; l++) {
		const char *a = f->nodes[f->links[l].node[0]].name;
		const char *b = f->nodes[f->links[l].node[1]].name;

		if (strcmp(a, b) > 0) {
			const char *t = a;

			a = b;
			b = t;
		}
		v[l].a = a;
		v[l].b = b;
		v[l].count = 1;
	}
	qsort(v, f->link_count, sizeof(*v), cmp_pair);
	for (uint32_t l = 0; l < f->link_count; l++) {
		if (n > 0 && cmp_pair(&v[n - 1], &v[l]) == 0)
			v[n - 1].count++;
		else
			v[n++] = v[l];
	}
	*out = v;
	*count = n;
	return TP_OK;
}

static const char *leaf_name_of(const tp_fabric *f, const tp_fabric_host *h)
{
	return h->leaf == TP_FABRIC_NONE ? "no leaf"
	                                 : f->nodes[f->leaves[h->leaf]].name;
}

static bool node_kept(const tp_fabric *f, const char *name)
{
	return tp_fabric_find_node(f, name) != TP_FABRIC_NONE;
}

static tp_status diff_switches(const tp_fabric *x, const tp_fabric *y,
                               bool leaves_only, tp_fabric_finding_kind kind,
                               const char *verb, tp_fabric_findings *out,
                               tp_error *err)
{
	tp_status rc;

	for (uint32_t k = 0; k < x->node_count; k++) {
		const tp_fabric_node *n = &x->nodes[x->name_order[k]];
		uint32_t m;

		if (n->type != TP_FABRIC_SWITCH ||
		    (leaves_only && n->level != 1))
			continue;
		m = tp_fabric_find_node(y, n->name);
		if (m != TP_FABRIC_NONE &&
		    y->nodes[m].type == TP_FABRIC_SWITCH &&
		    (!leaves_only || y->nodes[m].level == 1))
			continue;
		if (n->level == 1) {
			uint32_t c = x->leaf_host_start[n->leaf + 1] -
			             x->leaf_host_start[n->leaf];

			rc = tp_fabric_findings_add(
			    out, kind, err, "%s leaf %s (%" PRIu32 " host%s)",
			    verb, n->name, c, c == 1 ? "" : "s");
		} else {
			rc = tp_fabric_findings_add(out, kind, err,
			                            "%s switch %s (level %d)",
			                            verb, n->name, n->level);
		}
		if (rc != TP_OK)
			return rc;
	}
	return TP_OK;
}

tp_status tp_fabric_diff(const tp_fabric *x, const tp_fabric *y,
                         tp_fabric_findings *out, tp_error *err)
{
	bool ports = x->has_ports && y->has_ports;
	tp_status rc;
	struct pair *px = NULL, *py = NULL;
	size_t nx = 0, ny = 0;
	uint32_t pod_changes = 0;

	if (!x->finished || !y->finished)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "fabric diff: fabric not finished");
	if ((rc = diff_switches(x, y, !ports, TP_FINDING_SWITCH_GONE,
	                        "gone:", out, err)) != TP_OK ||
	    (rc = diff_switches(y, x, !ports, TP_FINDING_SWITCH_NEW,
	                        "new:", out, err)) != TP_OK)
		return rc;
	for (uint32_t h = 0; h < x->host_count; h++) {
		const tp_fabric_host *a = &x->hosts[h];
		uint32_t m = tp_fabric_find_host(y, a->name);

		if (m == TP_FABRIC_NONE)
			rc = tp_fabric_findings_add(
			    out, TP_FINDING_HOST_GONE, err,
			    "gone: host %s (was on %s)", a->name,
			    leaf_name_of(x, a));
		else if (strcmp(leaf_name_of(x, a),
		                leaf_name_of(y, &y->hosts[m])) != 0)
			rc = tp_fabric_findings_add(
			    out, TP_FINDING_HOST_MOVED, err,
			    "moved: host %s from %s to %s", a->name,
			    leaf_name_of(x, a), leaf_name_of(y, &y->hosts[m]));
		if (rc != TP_OK)
			return rc;
	}
	for (uint32_t h = 0; h < y->host_count; h++) {
		const tp_fabric_host *b = &y->hosts[h];

		if (tp_fabric_find_host(x, b->name) == TP_FABRIC_NONE &&
		    (rc = tp_fabric_findings_add(out, TP_FINDING_HOST_NEW, err,
		                                 "new: host %s on %s", b->name,
		                                 leaf_name_of(y, b))) != TP_OK)
			return rc;
	}
	/* pod grouping of the leaves both know */
	for (uint32_t a = 0; a < x->leaf_count; a++) {
		const char *an = x->nodes[x->leaves[a]].name;
		uint32_t ya = tp_fabric_find_node(y, an);

		if (ya == TP_FABRIC_NONE || y->nodes[ya].leaf == TP_FABRIC_NONE)
			continue;
		for (uint32_t b = a + 1; b < x->leaf_count; b++) {
			const char *bn = x->nodes[x->leaves[b]].name;
			uint32_t yb = tp_fabric_find_node(y, bn);
			bool before, after;

			if (yb == TP_FABRIC_NONE ||
			    y->nodes[yb].leaf == TP_FABRIC_NONE)
				continue;
			before = x->leaf_pod[a] == x->leaf_pod[b];
			after = y->leaf_pod[y->nodes[ya].leaf] ==
			        y->leaf_pod[y->nodes[yb].leaf];
			if (before == after)
				continue;
			if (pod_changes++ < LIST_MAX &&
			    (rc = tp_fabric_findings_add(
			         out, TP_FINDING_POD_CHANGED, err,
			         "pods: leaves %s and %s %s", an, bn,
			         before ? "were in one pod, now are not"
			                : "were in different pods, now "
			                  "share one")) != TP_OK)
				return rc;
		}
	}
	if (pod_changes > LIST_MAX &&
	    (rc = tp_fabric_findings_add(out, TP_FINDING_POD_CHANGED, err,
	                                 "pods: ... and %" PRIu32
	                                 " more leaf pairs regrouped",
	                                 pod_changes - LIST_MAX)) != TP_OK)
		return rc;
	if (!ports)
		return TP_OK;
	if ((rc = cable_pairs(x, &px, &nx, err)) != TP_OK ||
	    (rc = cable_pairs(y, &py, &ny, err)) != TP_OK)
		goto out;
	for (size_t i = 0, j = 0; i < nx || j < ny;) {
		int c = i == nx ? 1 : j == ny ? -1 : cmp_pair(&px[i], &py[j]);

		if (c < 0) {
			/* links of a vanished node were reported with it */
			if (node_kept(y, px[i].a) && node_kept(y, px[i].b))
				rc = tp_fabric_findings_add(
				    out, TP_FINDING_LINK_GONE, err,
				    "gone: %" PRIu32 " cable%s %s - %s",
				    px[i].count, px[i].count == 1 ? "" : "s",
				    px[i].a, px[i].b);
			i++;
		} else if (c > 0) {
			if (node_kept(x, py[j].a) && node_kept(x, py[j].b))
				rc = tp_fabric_findings_add(
				    out, TP_FINDING_LINK_NEW, err,
				    "new: %" PRIu32 " cable%s %s - %s",
				    py[j].count, py[j].count == 1 ? "" : "s",
				    py[j].a, py[j].b);
			j++;
		} else {
			if (px[i].count != py[j].count)
				rc = tp_fabric_findings_add(
				    out, TP_FINDING_LINK_COUNT, err,
				    "cables %s - %s: %" PRIu32 " -> %" PRIu32,
				    px[i].a, px[i].b, px[i].count, py[j].count);
			i++;
			j++;
		}
		if (rc != TP_OK)
			goto out;
	}
out:
	free(px);
	free(py);
	return rc;
}
