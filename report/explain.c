/*
 * explain.c: the one-page explanation of a placement decision.
 */
#include "tp_config.h"

#include "explain.h"

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

static void put_class(FILE *f, const tp_explain_input *in,
                      const tp_jobclass_result *cls)
{
	tp_jobclass_thresholds t;
	char a[32], b[32], c[32];

	if (in->thresholds)
		t = *in->thresholds;
	else
		tp_jobclass_defaults(&t);
	fprintf(f, "Job class: %s\n", tp_jobclass_name(cls->job_class));
	if (!in->summary) {
		fputs("  why: given on the command line (no profile to "
		      "classify)\n",
		      f);
		return;
	}
	fprintf(f, "  why: %s\n", cls->reason);
	tp_canvas_format_bytes((double)t.io_bytes_min, a, sizeof(a));
	tp_canvas_format_bytes(t.io_client_bytes_per_s_min, b, sizeof(b));
	fprintf(f,
	        "  io_heavy when: at least %s of I/O and %s/s per client "
	        "(for %u clients; less for more clients)\n",
	        a, b, t.io_reference_clients);
	tp_canvas_format_bytes((double)t.comm_small_message_bytes_max, a,
	                       sizeof(a));
	tp_canvas_format_bytes(t.comm_bytes_per_s_per_rank_min, c, sizeof(c));
	fprintf(f,
	        "  comm_sensitive when: messages of at most %s at %.0f/s "
	        "per rank or more, or %s/s per rank or more\n",
	        a, t.comm_messages_per_s_per_rank_min, c);
	fprintf(f, "  thresholds: %s\n",
	        in->thresholds_source ? in->thresholds_source
	        : in->thresholds      ? "given by the caller"
	                              : "topoplace's defaults");
}

static const char *const class_label[TP_COST_CLASSES] = {
    "  bytes on-node", "  bytes same leaf", "  bytes same pod",
    "  bytes across pods"};

static void put_costs(FILE *f, const tp_cost_report *def,
                      const tp_cost_report *ours, const char *ours_name)
{
	const char *def_name = "default (block)";
	char a[32], b[32];
	/* Columns as wide as their headings ("topoplace (partition)" is
	 * wider than the figures), so headings sit over their figures. */
	int w = 18;

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
	if (def->hop_bytes)
		fprintf(f, "  hop-bytes: %.3f of the default",
		        (double)ours->hop_bytes / (double)def->hop_bytes);
	else
		fputs("  hop-bytes: the default has none", f);
	if (def->predicted_s > 0)
		fprintf(f, "; predicted time: %.3f of the default\n",
		        ours->predicted_s / def->predicted_s);
	else
		fputs("\n", f);
}

/* The default: the first usable hosts in index order (cons_tres). */
static uint32_t default_hosts(const tp_explain_input *in, uint32_t *out)
{
	uint32_t n = 0, hosts = tp_topo_host_count(in->topo);

	for (uint32_t h = 0; h < hosts && n < in->nodes; h++) {
		const tp_host_use *u = in->use ? &in->use[h] : NULL;

		if (!u || u->state == TP_HOST_FREE ||
		    (u->state == TP_HOST_RESERVED && u->job_id == in->job_id))
			out[n++] = h;
	}
	return n;
}

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

static tp_status explain(const tp_explain_input *in, FILE *f, tp_error *err)
{
	tp_jobclass_result cls = {.job_class = in->job_class};
	tp_alloc_request rq = {
	    .nodes = in->nodes, .policy = in->policy, .job_id = in->job_id};
	tp_alloc_result res = {0};
	uint32_t *def = NULL, ndef, *dl = NULL, *dp = NULL, ndl, ndp;
	tp_status rc;

	if (in->summary) {
		rc = tp_jobclass_classify(in->summary, in->thresholds, &cls,
		                          err);
		if (rc != TP_OK)
			return rc;
	}
	rq.job_class = cls.job_class;
	fprintf(f, "Placement of %s: %u host%s\n\n", in->job ? in->job : "job",
	        in->nodes, in->nodes == 1 ? "" : "s");
	fprintf(f, "Policy: %s: %s\n", tp_placement_name(in->policy),
	        policy_meaning(in->policy));
	if (in->policy_source)
		fprintf(f, "  from: %s\n", in->policy_source);
	put_class(f, in, &cls);

	rc = tp_alloc_choose(in->topo, in->use, &rq, &res, err);
	if (rc != TP_OK)
		goto out;
	fputc('\n', f);
	if (!res.met) {
		fprintf(f, "Decision: the job waits: %s\n", res.reason);
		goto out;
	}
	fputs("Hosts: ", f);
	put_names(f, in->topo, res.hosts, res.host_count, tp_topo_host_name);
	fprintf(f, "\nLeaves: ");
	put_names(f, in->topo, res.leaves, res.leaf_count, tp_topo_leaf_name);
	fprintf(f, " (%u of %u)\nPods: ", res.leaf_count,
	        tp_topo_leaf_count(in->topo));
	put_names(f, in->topo, res.pods, res.pod_count, tp_topo_pod_name);
	fprintf(f, " (%u of %u)\n", res.pod_count, tp_topo_pod_count(in->topo));
	if (res.reserved_count) {
		fputs("Held for this job (rest of its leaves): ", f);
		put_names(f, in->topo, res.reserved, res.reserved_count,
		          tp_topo_host_name);
		fputc('\n', f);
	}
	fprintf(f, "Why: %s\n", res.reason);

	def = malloc(in->nodes * sizeof(*def));
	if (!def) {
		rc = tp_error_set(err, TP_ERR_NOMEM, "explain: out of memory");
		goto out;
	}
	ndef = default_hosts(in, def);
	fputs("\nDefault (first free hosts in index order, as cons_tres "
	      "hands them out):\n  ",
	      f);
	if (ndef < in->nodes) {
		fputs("not possible now\n", f);
	} else {
		rc = span(in->topo, def, ndef, &dl, &ndl, &dp, &ndp, err);
		if (rc != TP_OK)
			goto out;
		fprintf(f, "%u lea%s, %u pod%s: ", ndl, ndl == 1 ? "f" : "ves",
		        ndp, ndp == 1 ? "" : "s");
		put_names(f, in->topo, dl, ndl, tp_topo_leaf_name);
		fputc('\n', f);
	}

	if (in->traffic && ndef == in->nodes) {
		tp_cost_report rd, ro;
		const char *chosen = "";
		char name[48];

		if ((uint64_t)in->nodes * in->slots < in->traffic->ranks) {
			rc = tp_error_set(
			    err, TP_ERR_INVALID,
			    "%s has %u ranks, %u hosts x %u slots "
			    "hold only %llu",
			    in->job ? in->job : "the profile",
			    in->traffic->ranks, in->nodes, in->slots,
			    (unsigned long long)in->nodes * in->slots);
			goto out;
		}
		rc = evaluate(in, def, ndef, false, &rd, NULL, err);
		if (rc == TP_OK)
			rc = evaluate(in, res.hosts, res.host_count, true, &ro,
			              &chosen, err);
		if (rc != TP_OK)
			goto out;
		fprintf(
		    f,
		    "\nCommunication: %u ranks, %u per host (predicted with "
		    "the max-rate model of topoplace-cost(1))\n",
		    in->traffic->ranks, in->slots);
		snprintf(name, sizeof(name), "topoplace (%s)", chosen);
		put_costs(f, &rd, &ro, name);
	} else if (!in->traffic) {
		fputs("\nCommunication: no profile given: no hop-bytes or time "
		      "predicted\n",
		      f);
	}

	if (in->io_servers) {
		tp_ioserver_request io = {.servers = in->io_servers,
		                          .policy = in->io_policy,
		                          .scope = in->io_scope,
		                          .job_hosts = res.hosts,
		                          .job_host_count = res.host_count,
		                          .job_id = in->job_id,
		                          .use = in->use,
		                          .seed = in->seed};
		tp_ioserver_result ior;

		rc = tp_ioserver_place(in->topo, &io, &ior, err);
		if (rc != TP_OK)
			goto out;
		fprintf(f, "\nI/O servers (%s): ",
		        tp_ioserver_policy_name(in->io_policy));
		put_names(f, in->topo, ior.servers, ior.server_count,
		          tp_topo_host_name);
		fprintf(f, "\n  why: %s\n", ior.reason);
		if (in->io_source)
			fprintf(f, "  from: %s\n", in->io_source);
		tp_ioserver_result_free(&ior);
	} else {
		fputs("\nI/O servers: none requested\n", f);
	}
out:
	free(def);
	free(dl);
	free(dp);
	tp_alloc_result_free(&res);
	return rc;
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

tp_status tp_explain_placement(const tp_explain_input *in_arg, char **text,
                               tp_error *err)
{
	tp_explain_input local = *in_arg, *in = &local;
	tp_host_use *free_use = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	tp_status rc;

	*text = NULL;
	if (in->traffic && in->slots == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "explain: 0 slots per host");
	if (!in->use) {
		/* The allocator wants one entry per host: all free. */
		free_use =
		    calloc(tp_topo_host_count(in->topo), sizeof(*free_use));
		if (!free_use)
			return tp_error_set(err, TP_ERR_NOMEM,
			                    "explain: out of memory");
		in->use = free_use;
	}
	f = open_memstream(&buf, &len);
	if (!f) {
		free(free_use);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "explain: out of memory");
	}
	rc = explain(in, f, err);
	free(free_use);
	if (fclose(f) != 0 && rc == TP_OK)
		rc = tp_error_set(err, TP_ERR_NOMEM,
		                  "explain: out of memory for the text");
	if (rc != TP_OK) {
		free(buf);
		return rc;
	}
	*text = wrap_text(buf, TP_EXPLAIN_COLUMNS);
	free(buf);
	if (!*text)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "explain: out of memory for the text");
	return TP_OK;
}
