/*
 * explain.c: the explanation of a placement decision.
 *
 * Two halves that meet only at struct tp_explain: computing it (the core
 * calls, in the order the page tells them, stopping at the first error so
 * that no page is half true), and the page (wording, columns, wrapping),
 * which decides nothing.  `topoplace report explain --json` writes the same
 * struct, so a figure is computed once for both forms.
 */
#include "tp_config.h"

#include "explain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canvas.h"
#include "remap.h"

static const char *policy_meaning(tp_placement policy)
{
	switch (policy) {
	case TP_PLACEMENT_LEAF:
		return "whole leaves for this job alone, under as few pods as "
		       "possible";
	case TP_PLACEMENT_SHARED:
		return "leaves shared only with compatible job classes (never "
		       "io_heavy beside comm_sensitive)";
	case TP_PLACEMENT_PACK:
		return "as few leaves, then pods, as possible";
	case TP_PLACEMENT_SPREAD:
		return "as many leaves as possible, round robin over pods";
	case TP_PLACEMENT_OFF:
		return "no narrowing: every usable host";
	default:
		return "resolved by the site's configuration";
	}
}

static void put_names(FILE *f, const tp_topo *topo, const uint32_t *idx,
                      uint32_t count,
                      const char *(*name)(const tp_topo *, uint32_t))
{
	/* A page, not a dump: long lists are cut with a count. */
	const uint32_t shown = 16;

	for (uint32_t i = 0; i < count && i < shown; i++)
		fprintf(f, "%s%s", i ? " " : "", name(topo, idx[i]));
	if (count > shown)
		fprintf(f, " ... (%u in all)", count);
	if (!count)
		fputs("(none)", f);
}

/* Leaves and pods spanned by @hosts (ascending, distinct; arrays of
 * the topo's leaf / pod count, caller frees). */
static tp_status span(const tp_topo *topo, const uint32_t *hosts,
                      uint32_t count, uint32_t **leaves, uint32_t *nleaves,
                      uint32_t **pods, uint32_t *npods, tp_error *err)
{
	uint32_t nl = tp_topo_leaf_count(topo), np = tp_topo_pod_count(topo);
	uint8_t *seen_l = calloc(nl, 1), *seen_p = calloc(np, 1);

	*leaves = malloc(nl * sizeof(**leaves));
	*pods = malloc(np * sizeof(**pods));
	*nleaves = *npods = 0;
	if (!seen_l || !seen_p || !*leaves || !*pods) {
		free(seen_l);
		free(seen_p);
		free(*leaves);
		free(*pods);
		*leaves = *pods = NULL;
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "explain: out of memory");
	}
	for (uint32_t i = 0; i < count; i++) {
		uint32_t l = tp_topo_host_leaf(topo, hosts[i]);

		seen_l[l] = 1;
		seen_p[tp_topo_leaf_pod(topo, l)] = 1;
	}
	for (uint32_t l = 0; l < nl; l++)
		if (seen_l[l])
			(*leaves)[(*nleaves)++] = l;
	for (uint32_t p = 0; p < np; p++)
		if (seen_p[p])
			(*pods)[(*npods)++] = p;
	free(seen_l);
	free(seen_p);
	return TP_OK;
}

/* ---- computing the explanation ---------------------------------------- */

/* The class: classified from the summary, or as given. */
static tp_status classify(const tp_explain_input *in, tp_explain *ex,
                          tp_error *err)
{
	tp_jobclass_result cls;
	tp_status rc;

	ex->job_class = in->job_class;
	if (in->thresholds)
		ex->thresholds = *in->thresholds;
	else
		tp_jobclass_defaults(&ex->thresholds);
	if (!in->summary)
		return TP_OK;
	rc = tp_jobclass_classify(in->summary, in->thresholds, &cls, err);
	if (rc != TP_OK)
		return rc;
	ex->classified = true;
	ex->job_class = cls.job_class;
	snprintf(ex->class_reason, sizeof(ex->class_reason), "%s", cls.reason);
	ex->thresholds_source = in->thresholds_source ? in->thresholds_source
	                        : in->thresholds      ? "given by the caller"
	                                              : "topoplace's defaults";
	return TP_OK;
}

/* The default: the first usable hosts in index order (cons_tres), and the
 * leaves and pods they span when they are enough. */
static tp_status find_default(const tp_explain_input *in, tp_explain *ex,
                              tp_error *err)
{
	uint32_t n = 0, hosts = tp_topo_host_count(in->topo);

	ex->default_hosts = malloc(in->nodes * sizeof(*ex->default_hosts));
	if (!ex->default_hosts)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "explain: out of memory");
	for (uint32_t h = 0; h < hosts && n < in->nodes; h++) {
		const tp_host_use *u = &in->use[h];

		if (u->state == TP_HOST_FREE ||
		    (u->state == TP_HOST_RESERVED && u->job_id == in->job_id))
			ex->default_hosts[n++] = h;
	}
	ex->default_host_count = n;
	if (n < in->nodes)
		return TP_OK;
	ex->default_possible = true;
	return span(in->topo, ex->default_hosts, n, &ex->default_leaves,
	            &ex->default_leaf_count, &ex->default_pods,
	            &ex->default_pod_count, err);
}

/* The cost of @hosts: block order (the default) or topoplace's mapping
 * (@ours, whose winning candidate is said in *@chosen). */
static tp_status evaluate(const tp_explain_input *in, const uint32_t *hosts,
                          uint32_t count, bool ours, tp_cost_report *rep,
                          const char **chosen, tp_error *err)
{
	tp_remap_host *rh = malloc(count * sizeof(*rh));
	tp_remap_mapping m = {0};
	tp_remap_stats st;
	tp_status rc;

	if (!rh)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "explain: out of memory");
	for (uint32_t i = 0; i < count; i++)
		rh[i] = (tp_remap_host){hosts[i], in->slots};
	rc = ours ? tp_remap_compute(in->topo, in->traffic, rh, count, in->seed,
	                             NULL, &m, &st, err)
	          : tp_remap_baseline(in->topo, in->traffic->ranks, rh, count,
	                              TP_REMAP_BLOCK, in->seed, &m, err);
	if (rc == TP_OK)
		rc = tp_cost_evaluate(in->topo, in->traffic, m.rank_host,
		                      in->params, rep, NULL, NULL, err);
	if (rc == TP_OK && ours && chosen)
		*chosen = st.chosen;
	tp_remap_mapping_free(&m);
	free(rh);
	return rc;
}

/* The default against topoplace, when both can be placed. */
static tp_status compare_costs(const tp_explain_input *in, tp_explain *ex,
                               tp_error *err)
{
	tp_status rc;

	if (!in->traffic || !ex->default_possible)
		return TP_OK;
	if ((uint64_t)in->nodes * in->slots < in->traffic->ranks)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s has %u ranks, %u hosts x %u slots "
		                    "hold only %llu",
		                    in->job ? in->job : "the profile",
		                    in->traffic->ranks, in->nodes, in->slots,
		                    (unsigned long long)in->nodes * in->slots);
	ex->mapping = "";
	rc = evaluate(in, ex->default_hosts, ex->default_host_count, false,
	              &ex->default_cost, NULL, err);
	if (rc == TP_OK)
		rc = evaluate(in, ex->alloc.hosts, ex->alloc.host_count, true,
		              &ex->topoplace_cost, &ex->mapping, err);
	if (rc != TP_OK)
		return rc;
	ex->has_costs = true;
	ex->hop_bytes_ratio = ex->default_cost.hop_bytes
	                          ? (double)ex->topoplace_cost.hop_bytes /
	                                (double)ex->default_cost.hop_bytes
	                          : NAN;
	ex->predicted_ratio =
	    ex->default_cost.predicted_s > 0
	        ? ex->topoplace_cost.predicted_s / ex->default_cost.predicted_s
	        : NAN;
	return TP_OK;
}

static tp_status place_io_servers(const tp_explain_input *in, tp_explain *ex,
                                  tp_error *err)
{
	tp_ioserver_request io = {.servers = in->io_servers,
	                          .policy = in->io_policy,
	                          .scope = in->io_scope,
	                          .job_hosts = ex->alloc.hosts,
	                          .job_host_count = ex->alloc.host_count,
	                          .job_id = in->job_id,
	                          .use = in->use,
	                          .seed = in->seed};

	if (!in->io_servers)
		return TP_OK;
	return tp_ioserver_place(in->topo, &io, &ex->io, err);
}

/* The steps, in the order the page tells them; @in->use is set. */
static tp_status compute(const tp_explain_input *in, tp_explain *ex,
                         tp_error *err)
{
	tp_alloc_request rq = {.nodes = in->nodes,
	                       .policy = in->policy,
	                       .job_id = in->job_id,
	                       .routing = in->routing,
	                       .leaf_remainder = in->leaf_remainder};
	tp_status rc;

	ex->topo = in->topo;
	ex->job = in->job ? in->job : "job";
	ex->job_id = in->job_id;
	ex->nodes = in->nodes;
	ex->policy = in->policy;
	ex->policy_source = in->policy_source;
	ex->has_traffic = in->traffic != NULL;
	ex->ranks = in->traffic ? in->traffic->ranks : 0;
	ex->slots = in->traffic ? in->slots : 0;
	ex->io_servers_requested = in->io_servers;
	ex->io_policy = in->io_policy;
	ex->io_scope = in->io_scope;
	ex->io_source = in->io_source;
	ex->hop_bytes_ratio = ex->predicted_ratio = NAN;

	rc = classify(in, ex, err);
	if (rc != TP_OK)
		return rc;
	rq.job_class = ex->job_class;
	rc = tp_alloc_choose(in->topo, in->use, &rq, &ex->alloc, err);
	if (rc != TP_OK || !ex->alloc.met)
		return rc;
	rc = find_default(in, ex, err);
	if (rc == TP_OK)
		rc = compare_costs(in, ex, err);
	if (rc == TP_OK)
		rc = place_io_servers(in, ex, err);
	return rc;
}

tp_status tp_explain_compute(const tp_explain_input *in_arg, tp_explain *ex,
                             tp_error *err)
{
	tp_explain_input in = *in_arg;
	tp_host_use *free_use = NULL;
	tp_status rc;

	memset(ex, 0, sizeof(*ex));
	if (in.traffic && in.slots == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "explain: 0 slots per host");
	if (!in.use) {
		/* The allocator wants one entry per host: all free. */
		free_use =
		    calloc(tp_topo_host_count(in.topo), sizeof(*free_use));
		if (!free_use)
			return tp_error_set(err, TP_ERR_NOMEM,
			                    "explain: out of memory");
		in.use = free_use;
	}
	rc = compute(&in, ex, err);
	free(free_use);
	return rc;
}

void tp_explain_free(tp_explain *ex)
{
	if (!ex)
		return;
	tp_alloc_result_free(&ex->alloc);
	free(ex->default_hosts);
	free(ex->default_leaves);
	free(ex->default_pods);
	tp_ioserver_result_free(&ex->io);
	ex->default_hosts = ex->default_leaves = ex->default_pods = NULL;
	ex->default_host_count = ex->default_leaf_count = 0;
	ex->default_pod_count = 0;
}

/* ---- the page ---------------------------------------------------------- */

static void put_class(FILE *f, const tp_explain *ex)
{
	const tp_jobclass_thresholds *t = &ex->thresholds;
	char a[32], b[32], c[32];

	fprintf(f, "Job class: %s\n", tp_jobclass_name(ex->job_class));
	if (!ex->classified) {
		fputs("  why: given on the command line (no profile to "
		      "classify)\n",
		      f);
		return;
	}
	fprintf(f, "  why: %s\n", ex->class_reason);
	tp_canvas_format_bytes((double)t->io_bytes_min, a, sizeof(a));
	tp_canvas_format_bytes(t->io_client_bytes_per_s_min, b, sizeof(b));
	fprintf(f,
	        "  io_heavy when: at least %s of I/O and %s/s per client "
	        "(for %u clients; less for more clients)\n",
	        a, b, t->io_reference_clients);
	tp_canvas_format_bytes((double)t->comm_small_message_bytes_max, a,
	                       sizeof(a));
	tp_canvas_format_bytes(t->comm_bytes_per_s_per_rank_min, c, sizeof(c));
	fprintf(f,
	        "  comm_sensitive when: messages of at most %s at %.0f/s "
	        "per rank or more, or %s/s per rank or more\n",
	        a, t->comm_messages_per_s_per_rank_min, c);
	fprintf(f, "  thresholds: %s\n", ex->thresholds_source);
}

static void put_decision(FILE *f, const tp_explain *ex)
{
	const tp_alloc_result *res = &ex->alloc;

	fputs("Hosts: ", f);
	put_names(f, ex->topo, res->hosts, res->host_count, tp_topo_host_name);
	fprintf(f, "\nLeaves: ");
	put_names(f, ex->topo, res->leaves, res->leaf_count, tp_topo_leaf_name);
	fprintf(f, " (%u of %u)\nPods: ", res->leaf_count,
	        tp_topo_leaf_count(ex->topo));
	put_names(f, ex->topo, res->pods, res->pod_count, tp_topo_pod_name);
	fprintf(f, " (%u of %u)\n", res->pod_count,
	        tp_topo_pod_count(ex->topo));
	if (res->reserved_count) {
		fputs("Held for this job (rest of its leaves): ", f);
		put_names(f, ex->topo, res->reserved, res->reserved_count,
		          tp_topo_host_name);
		fputc('\n', f);
	}
	fprintf(f, "Why: %s\n", res->reason);
}

static void put_default(FILE *f, const tp_explain *ex)
{
	uint32_t nl = ex->default_leaf_count, np = ex->default_pod_count;

	fputs("\nDefault (first free hosts in index order, as cons_tres "
	      "hands them out):\n  ",
	      f);
	if (!ex->default_possible) {
		fputs("not possible now\n", f);
		return;
	}
	fprintf(f, "%u lea%s, %u pod%s: ", nl, nl == 1 ? "f" : "ves", np,
	        np == 1 ? "" : "s");
	put_names(f, ex->topo, ex->default_leaves, nl, tp_topo_leaf_name);
	fputc('\n', f);
}

static const char *const class_label[TP_COST_CLASSES] = {
    "  bytes on-node", "  bytes same leaf", "  bytes same pod",
    "  bytes across pods"};

static void put_costs(FILE *f, const tp_explain *ex)
{
	const tp_cost_report *def = &ex->default_cost;
	const tp_cost_report *ours = &ex->topoplace_cost;
	const char *def_name = "default (block)";
	char ours_name[48], a[32], b[32];
	/* Columns as wide as their headings ("topoplace (partition)" is
	 * wider than the figures), so headings sit over their figures. */
	int w = 18;

	fprintf(f,
	        "\nCommunication: %u ranks, %u per host (predicted with "
	        "the max-rate model of topoplace-cost(1))\n",
	        ex->ranks, ex->slots);
	snprintf(ours_name, sizeof(ours_name), "topoplace (%s)", ex->mapping);
	if ((int)strlen(def_name) > w)
		w = (int)strlen(def_name);
	if ((int)strlen(ours_name) > w)
		w = (int)strlen(ours_name);
	fprintf(f, "  %-22s %*s %*s\n", "", w, def_name, w, ours_name);
	tp_canvas_format_bytes((double)def->hop_bytes, a, sizeof(a));
	tp_canvas_format_bytes((double)ours->hop_bytes, b, sizeof(b));
	fprintf(f, "  %-22s %*s %*s\n", "hop-bytes (B x hops)", w, a, w, b);
	for (int k = 0; k < TP_COST_CLASSES; k++) {
		tp_canvas_format_bytes((double)def->class_bytes[k], a,
		                       sizeof(a));
		tp_canvas_format_bytes((double)ours->class_bytes[k], b,
		                       sizeof(b));
		fprintf(f, "  %-22s %*s %*s\n", class_label[k], w, a, w, b);
	}
	fprintf(f, "  %-22s %*.6g %*.6g\n", "predicted time (s)", w,
	        def->predicted_s, w, ours->predicted_s);
	if (!isnan(ex->hop_bytes_ratio))
		fprintf(f, "  hop-bytes: %.3f of the default",
		        ex->hop_bytes_ratio);
	else
		fputs("  hop-bytes: the default has none", f);
	if (!isnan(ex->predicted_ratio))
		fprintf(f, "; predicted time: %.3f of the default\n",
		        ex->predicted_ratio);
	else
		fputs("\n", f);
}

static void put_io_servers(FILE *f, const tp_explain *ex)
{
	if (!ex->io_servers_requested) {
		fputs("\nI/O servers: none requested\n", f);
		return;
	}
	fprintf(f,
	        "\nI/O servers (%s): ", tp_ioserver_policy_name(ex->io_policy));
	put_names(f, ex->topo, ex->io.servers, ex->io.server_count,
	          tp_topo_host_name);
	fprintf(f, "\n  why: %s\n", ex->io.reason);
	if (ex->io_source)
		fprintf(f, "  from: %s\n", ex->io_source);
}

static void put_page(FILE *f, const tp_explain *ex)
{
	fprintf(f, "Placement of %s: %u host%s\n\n", ex->job, ex->nodes,
	        ex->nodes == 1 ? "" : "s");
	fprintf(f, "Policy: %s: %s\n", tp_placement_name(ex->policy),
	        policy_meaning(ex->policy));
	if (ex->policy_source)
		fprintf(f, "  from: %s\n", ex->policy_source);
	put_class(f, ex);
	fputc('\n', f);
	if (!ex->alloc.met) {
		fprintf(f, "Decision: the job waits: %s\n", ex->alloc.reason);
		return;
	}
	put_decision(f, ex);
	put_default(f, ex);
	if (ex->has_costs)
		put_costs(f, ex);
	else if (!ex->has_traffic)
		fputs("\nCommunication: no profile given: no hop-bytes or time "
		      "predicted\n",
		      f);
	put_io_servers(f, ex);
}

/*
 * Where the continuation of an overlong line starts: under the text after
 * the line's label ("Why: ", "  io_heavy when: "), or 4 columns in when
 * the label is long or missing.
 */
static size_t continuation_indent(const char *line, size_t len)
{
	size_t lead = strspn(line, " ");
	const char *colon = memchr(line, ':', len);

	if (colon && (size_t)(colon - line) + 2 <= 32 &&
	    (size_t)(colon - line) + 1 < len && colon[1] == ' ')
		return (size_t)(colon - line) + 2;
	return lead + 4;
}

/* One line of @len bytes, broken at spaces into lines of @width at most. */
static void wrap_line(FILE *f, const char *s, size_t len, size_t width)
{
	size_t indent = continuation_indent(s, len), avail = width;
	size_t keep = indent; /* never break inside the label */

	while (len > avail) {
		size_t cut = avail;

		while (cut > keep && s[cut] != ' ')
			cut--;
		if (cut <= keep) {
			/* one word longer than the room: keep it whole */
			cut = avail;
			while (cut < len && s[cut] != ' ')
				cut++;
			if (cut >= len)
				break;
		}
		fwrite(s, 1, cut, f);
		fprintf(f, "\n%*s", (int)indent, "");
		while (cut < len && s[cut] == ' ')
			cut++;
		s += cut;
		len -= cut;
		avail = width - indent;
		keep = 0;
	}
	fwrite(s, 1, len, f);
}

/* @text with its long lines wrapped (a new string, NULL on no memory). */
static char *wrap_text(const char *text, size_t width)
{
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	if (!f)
		return NULL;
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);

		wrap_line(f, text, len, width);
		if (nl)
			fputc('\n', f);
		text += len + (nl ? 1 : 0);
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

tp_status tp_explain_text(const tp_explain *ex, char **text, tp_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*text = NULL;
	if (!f)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "explain: out of memory");
	put_page(f, ex);
	if (fclose(f) != 0) {
		free(buf);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "explain: out of memory for the text");
	}
	*text = wrap_text(buf, TP_EXPLAIN_COLUMNS);
	free(buf);
	if (!*text)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "explain: out of memory for the text");
	return TP_OK;
}

tp_status tp_explain_placement(const tp_explain_input *in, char **text,
                               tp_error *err)
{
	tp_explain ex;
	tp_status rc;

	*text = NULL;
	rc = tp_explain_compute(in, &ex, err);
	if (rc == TP_OK)
		rc = tp_explain_text(&ex, text, err);
	tp_explain_free(&ex);
	return rc;
}
