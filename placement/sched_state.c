/*
 * sched_state.c: running jobs, their recorded decisions and leaf holds.
 *
 * Every job keeps the names it was given (its nodes, its held nodes) and,
 * derived from them, indices into the current node table and fabric.  The
 * names are what survives: a new node table or fabric re-derives the
 * indices, a restart re-reads the names from the job's record.  That is
 * what lets a hold outlive a topoplace.conf that no longer parses.
 *
 * The occupancy is derived data too: rebuilt once after a change and read
 * by every job test, which is far more frequent than job begin and end.
 */
#include "tp_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "hostlist.h"
#include "sched_state.h"

/* A node of the table, by name (the name belongs to node_names). */
typedef struct node_entry {
	const char *name;
	uint32_t index;
} node_entry;

typedef struct sched_job {
	uint32_t job_id;
	tp_sched_record rec;
	char *nodes;        /* the job's hostlist as given */
	uint32_t *node_idx; /* its nodes in the node table */
	uint32_t node_n;
	uint32_t *host; /* its hosts in the fabric */
	uint32_t host_n;
	uint32_t *held_node; /* held nodes in the node table */
	uint32_t held_node_n;
	uint32_t *held_host; /* held hosts in the fabric */
	uint32_t held_host_n;
} sched_job;

struct tp_sched_state {
	char **node_names;       /* node index -> name */
	node_entry *node_sorted; /* the same in name order, for bsearch */
	uint32_t node_count;     /* node indices, named or not */
	uint32_t named_count;    /* entries of node_sorted */
	const tp_topo *topo;     /* borrowed; NULL: no fabric */
	sched_job *jobs;
	size_t job_count, job_cap;
	tp_host_use *use; /* one per fabric host, valid unless use_dirty */
	uint32_t use_hosts;
	bool use_dirty;
};

/* ---- records ----------------------------------------------------------- */

void tp_sched_record_clear(tp_sched_record *rec)
{
	if (!rec)
		return;
	free(rec->held);
	free(rec->shared_leaf);
	memset(rec, 0, sizeof(*rec));
}

/* Where a clause ends in @text before @limit: the cut leaves it whole. */
static size_t last_clause_end(const char *text, size_t limit)
{
	size_t word = 0;

	for (size_t i = limit; i > 0; i--) {
		char c = text[i - 1];

		if ((c == ';' || c == ':' || c == ',') && text[i] == ' ')
			return i - 1;
		if (!word && text[i] == ' ' && c != ' ')
			word = i;
	}
	return word;
}

char *tp_sched_reason_fit(const char *text, char *out, size_t size)
{
	static const char more[] = " (cut; the rest is in the log)";
	size_t len = strlen(text), cut;

	if (len < size) {
		memcpy(out, text, len + 1);
		return out;
	}
	if (size <= sizeof(more)) { /* no room for the mark: whole words */
		if (size) {
			cut = last_clause_end(text, size - 1);
			memcpy(out, text, cut);
			out[cut] = '\0';
		}
		return out;
	}
	cut = last_clause_end(text, size - sizeof(more));
	while (cut > 0 && text[cut - 1] == ' ')
		cut--;
	memcpy(out, text, cut);
	memcpy(out + cut, more, sizeof(more));
	return out;
}

/* How a record with held "" (a job that holds nothing) says it. */
#define HELD_NONE "(none)"

char *tp_sched_record_format(const tp_sched_record *rec, const char *note)
{
	char fitted[TP_SCHED_NOTE_MAX];
	const char *held = rec->held ? (rec->held[0] ? rec->held : HELD_NONE)
	                             : NULL;
	int n;
	char *text;

	if (note && note[0])
		note = tp_sched_reason_fit(note, fitted, sizeof(fitted));
	else
		note = NULL;
	n = snprintf(
	    NULL, 0, TP_SCHED_RECORD_PREFIX "placement=%s class=%s%s%s%s%s%s",
	    tp_placement_name(rec->policy), tp_jobclass_name(rec->job_class),
	    rec->has_profile ? " (profile)" : "", held ? " held=" : "",
	    held ? held : "", note ? ": " : "", note ? note : "");
	if (n < 0 || !(text = malloc((size_t)n + 1)))
		return NULL;
	snprintf(text, (size_t)n + 1,
	         TP_SCHED_RECORD_PREFIX "placement=%s class=%s%s%s%s%s%s",
	         tp_placement_name(rec->policy),
	         tp_jobclass_name(rec->job_class),
	         rec->has_profile ? " (profile)" : "", held ? " held=" : "",
	         held ? held : "", note ? ": " : "", note ? note : "");
	return text;
}

static tp_status not_a_record(tp_error *err, const char *text)
{
	return tp_error_set(err, TP_ERR_PARSE,
	                    "SystemComment \"%.60s\": not a topoplace "
	                    "decision",
	                    text ? text : "");
}

tp_status tp_sched_record_parse(const char *text, tp_sched_record *rec,
                                tp_error *err)
{
	static const char profile[] = " (profile)", held[] = " held=";
	char policy[32], cls[32];
	const char *p;
	int used = 0;
	tp_error ignored;

	memset(rec, 0, sizeof(*rec));
	if (!text || strncmp(text, TP_SCHED_RECORD_PREFIX,
	                     strlen(TP_SCHED_RECORD_PREFIX)))
		return not_a_record(err, text);
	p = text + strlen(TP_SCHED_RECORD_PREFIX);
	if (sscanf(p, "placement=%31[a-z_] class=%31[a-z_]%n", policy, cls,
	           &used) < 2 ||
	    !used ||
	    tp_placement_parse(policy, &rec->policy, &ignored) != TP_OK ||
	    tp_jobclass_parse(cls, &rec->job_class, &ignored) != TP_OK)
		return not_a_record(err, text);
	p += used;
	if (!strncmp(p, profile, strlen(profile))) {
		rec->has_profile = true;
		p += strlen(profile);
	}
	if (!strncmp(p, held, strlen(held))) {
		size_t n;

		p += strlen(held);
		n = strcspn(p, " :");
		if (!n)
			return not_a_record(err, text);
		if (n == strlen(HELD_NONE) && !strncmp(p, HELD_NONE, n))
			rec->held = strdup("");
		else
			rec->held = strndup(p, n);
		if (!rec->held)
			return tp_error_set(err, TP_ERR_NOMEM,
			                    "SystemComment: out of memory");
		p += n;
	}
	if (*p && strncmp(p, ": ", 2)) {
		tp_sched_record_clear(rec);
		return not_a_record(err, text);
	}
	return TP_OK;
}

/* ---- the state ------------------------------------------------------- */

tp_status tp_sched_state_new(tp_sched_state **state, tp_error *err)
{
	*state = calloc(1, sizeof(**state));
	if (!*state)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "scheduler state: out of memory");
	return TP_OK;
}

static void job_clear_indices(sched_job *j)
{
	free(j->node_idx);
	free(j->host);
	free(j->held_node);
	free(j->held_host);
	j->node_idx = j->host = j->held_node = j->held_host = NULL;
	j->node_n = j->host_n = j->held_node_n = j->held_host_n = 0;
}

static void job_free(sched_job *j)
{
	job_clear_indices(j);
	tp_sched_record_clear(&j->rec);
	free(j->nodes);
}

static void nodes_free(char **names, node_entry *sorted, uint32_t count)
{
	for (uint32_t i = 0; names && i < count; i++)
		free(names[i]);
	free(names);
	free(sorted);
}

void tp_sched_state_free(tp_sched_state *state)
{
	if (!state)
		return;
	for (size_t i = 0; i < state->job_count; i++)
		job_free(&state->jobs[i]);
	free(state->jobs);
	nodes_free(state->node_names, state->node_sorted, state->node_count);
	free(state->use);
	free(state);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const node_entry *)a)->name,
	              ((const node_entry *)b)->name);
}

/* Node index of @name in the table, or TP_TOPO_NONE. */
static uint32_t node_find(const tp_sched_state *s, const char *name)
{
	size_t lo = 0, hi = s->named_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, s->node_sorted[mid].name);

		if (!c)
			return s->node_sorted[mid].index;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return TP_TOPO_NONE;
}

/* ---- resolving names into indices -------------------------------------- */

typedef struct index_list {
	uint32_t *v;
	uint32_t n, cap;
} index_list;

static int index_push(index_list *l, uint32_t x)
{
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 16;
		uint32_t *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = x;
	return 0;
}

typedef struct resolve_ctx {
	const tp_sched_state *s;
	index_list nodes, hosts;
} resolve_ctx;

static tp_status resolve_one(void *ctx, const char *name, tp_error *err)
{
	resolve_ctx *r = ctx;
	uint32_t node = node_find(r->s, name);
	uint32_t host =
	    r->s->topo ? tp_topo_find_host(r->s->topo, name) : TP_TOPO_NONE;

	if ((node != TP_TOPO_NONE && index_push(&r->nodes, node) < 0) ||
	    (host != TP_TOPO_NONE && host < tp_topo_host_count(r->s->topo) &&
	     index_push(&r->hosts, host) < 0))
		return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	return TP_OK;
}

/* Bound on the names of one hostlist: no list names more than all. */
static size_t names_max(const tp_sched_state *s)
{
	return (size_t)s->node_count +
	       (s->topo ? tp_topo_host_count(s->topo) : 0) + 1024;
}

/* The nodes and hosts @hostlist names; arrays malloc'ed (maybe NULL). */
static tp_status resolve(const tp_sched_state *s, const char *hostlist,
                         const char *what, uint32_t **nodes, uint32_t *node_n,
                         uint32_t **hosts, uint32_t *host_n, tp_error *err)
{
	resolve_ctx r = {s, {0}, {0}};
	tp_status rc = TP_OK;

	if (hostlist && hostlist[0])
		rc = tp_hostlist_expand(hostlist, names_max(s),
		                                 resolve_one, &r, err);
	if (rc != TP_OK) {
		free(r.nodes.v);
		free(r.hosts.v);
		return tp_error_prefix(err, "%s \"%.60s\"", what, hostlist);
	}
	*nodes = r.nodes.v;
	*node_n = r.nodes.n;
	*hosts = r.hosts.v;
	*host_n = r.hosts.n;
	return TP_OK;
}

/*
 * The hold of a whole-leaf job from the fabric: every host of the leaves
 * its hosts are on that is a node of the table (all of them when there is
 * no table yet), as a hostlist into j->rec.held.  Its remainder's shared
 * leaf (rec.shared_leaf) is left out: "" when that leaves nothing.
 */
static tp_status derive_hold(const tp_sched_state *s, sched_job *j,
                             tp_error *err)
{
	uint32_t leaves = tp_topo_leaf_count(s->topo);
	bool *seen = calloc(leaves ? leaves : 1, sizeof(*seen));
	const char **names = NULL;
	size_t count = 0, cap = 0;
	tp_status rc = TP_OK;

	if (!seen)
		return tp_error_set(err, TP_ERR_NOMEM, "hold: out of memory");
	for (uint32_t k = 0; k < j->host_n && rc == TP_OK; k++) {
		uint32_t leaf = tp_topo_host_leaf(s->topo, j->host[k]), n = 0;
		const uint32_t *on;

		if (leaf >= leaves || seen[leaf])
			continue;
		seen[leaf] = true;
		if (j->rec.shared_leaf &&
		    !strcmp(tp_topo_leaf_name(s->topo, leaf),
		            j->rec.shared_leaf))
			continue;
		on = tp_topo_leaf_hosts(s->topo, leaf, &n);
		for (uint32_t x = 0; x < n; x++) {
			const char *name = tp_topo_host_name(s->topo, on[x]);

			if (s->named_count &&
			    node_find(s, name) == TP_TOPO_NONE)
				continue;
			if (count == cap) {
				size_t c = cap ? cap * 2 : 32;
				const char **v = realloc(names, c * sizeof(*v));

				if (!v) {
					rc =
					    tp_error_set(err, TP_ERR_NOMEM,
					                 "hold: out of memory");
					break;
				}
				names = v;
				cap = c;
			}
			names[count++] = name;
		}
	}
	if (rc == TP_OK && count)
		rc = tp_hostlist_compress(names, count, &j->rec.held, err);
	else if (rc == TP_OK && j->rec.shared_leaf &&
	         !(j->rec.held = strdup("")))
		rc = tp_error_set(err, TP_ERR_NOMEM, "hold: out of memory");
	free(names);
	free(seen);
	return rc;
}

/* (Re)compute @j's indices from its names in the current table/fabric. */
static tp_status job_resolve(tp_sched_state *s, sched_job *j, tp_error *err)
{
	tp_status rc;

	job_clear_indices(j);
	rc = resolve(s, j->nodes, "nodes", &j->node_idx, &j->node_n, &j->host,
	             &j->host_n, err);
	if (rc == TP_OK && !j->rec.held && j->rec.policy == TP_PLACEMENT_LEAF &&
	    s->topo)
		rc = derive_hold(s, j, err);
	if (rc == TP_OK && j->rec.held)
		rc = resolve(s, j->rec.held, "held nodes", &j->held_node,
		             &j->held_node_n, &j->held_host, &j->held_host_n,
		             err);
	if (rc != TP_OK)
		job_clear_indices(j);
	s->use_dirty = true;
	return rc;
}

/* Re-resolve every job; the first error is returned, the rest go on. */
static tp_status resolve_all(tp_sched_state *s, tp_error *err)
{
	tp_status first = TP_OK;

	for (size_t i = 0; i < s->job_count; i++) {
		tp_error e;
		tp_status rc = job_resolve(s, &s->jobs[i], &e);

		if (rc != TP_OK && first == TP_OK) {
			first = rc;
			*err = e;
			tp_error_prefix(err, "job %u", s->jobs[i].job_id);
		}
	}
	s->use_dirty = true;
	return first;
}

tp_status tp_sched_set_nodes(tp_sched_state *s, const char *const *names,
                             uint32_t count, tp_error *err)
{
	char **copy = calloc(count ? count : 1, sizeof(*copy));
	node_entry *sorted = calloc(count ? count : 1, sizeof(*sorted));
	uint32_t named = 0;

	if (!copy || !sorted) {
		free(copy);
		free(sorted);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "node table: out of memory");
	}
	for (uint32_t i = 0; i < count; i++) {
		if (!names[i])
			continue; /* an empty slot of the table */
		copy[i] = strdup(names[i]);
		if (!copy[i]) {
			nodes_free(copy, sorted, count);
			return tp_error_set(err, TP_ERR_NOMEM,
			                    "node table: out of memory");
		}
		sorted[named].name = copy[i];
		sorted[named++].index = i;
	}
	qsort(sorted, named, sizeof(*sorted), by_name);
	for (uint32_t i = 1; i < named; i++)
		if (!strcmp(sorted[i - 1].name, sorted[i].name)) {
			tp_status rc = tp_error_set(
			    err, TP_ERR_INVALID,
			    "node table: node %s listed twice", sorted[i].name);

			nodes_free(copy, sorted, count);
			return rc;
		}
	nodes_free(s->node_names, s->node_sorted, s->node_count);
	s->node_names = copy;
	s->node_sorted = sorted;
	s->node_count = count;
	s->named_count = named;
	return resolve_all(s, err);
}

tp_status tp_sched_set_topo(tp_sched_state *s, const tp_topo *topo,
                            tp_error *err)
{
	s->topo = topo;
	free(s->use);
	s->use = NULL;
	s->use_hosts = 0;
	return resolve_all(s, err);
}

static sched_job *job_find(const tp_sched_state *s, uint32_t job_id)
{
	for (size_t i = 0; i < s->job_count; i++)
		if (s->jobs[i].job_id == job_id)
			return &s->jobs[i];
	return NULL;
}

void tp_sched_job_drop(tp_sched_state *s, uint32_t job_id)
{
	sched_job *j = job_find(s, job_id);

	if (!j)
		return;
	job_free(j);
	*j = s->jobs[--s->job_count];
	s->use_dirty = true;
}

tp_status tp_sched_job_add(tp_sched_state *s, uint32_t job_id,
                           const tp_sched_record *rec, const char *nodes,
                           tp_error *err)
{
	sched_job j = {0};
	tp_status rc;

	j.job_id = job_id;
	j.rec = *rec;
	j.rec.held = rec->held ? strdup(rec->held) : NULL;
	j.rec.shared_leaf = rec->shared_leaf ? strdup(rec->shared_leaf) : NULL;
	j.nodes = strdup(nodes ? nodes : "");
	if (!j.nodes || (rec->held && !j.rec.held) ||
	    (rec->shared_leaf && !j.rec.shared_leaf)) {
		job_free(&j);
		return tp_error_set(err, TP_ERR_NOMEM, "job %u: out of memory",
		                    job_id);
	}
	rc = job_resolve(s, &j, err);
	if (rc != TP_OK) {
		job_free(&j);
		return tp_error_prefix(err, "job %u", job_id);
	}
	tp_sched_job_drop(s, job_id);
	if (s->job_count == s->job_cap) {
		size_t cap = s->job_cap ? s->job_cap * 2 : 64;
		sched_job *v = realloc(s->jobs, cap * sizeof(*v));

		if (!v) {
			job_free(&j);
			return tp_error_set(err, TP_ERR_NOMEM,
			                    "job %u: out of memory", job_id);
		}
		s->jobs = v;
		s->job_cap = cap;
	}
	s->jobs[s->job_count++] = j;
	s->use_dirty = true;
	return TP_OK;
}

tp_status tp_sched_job_recover(tp_sched_state *s, uint32_t job_id,
                               const char *text, const char *nodes,
                               tp_error *err)
{
	tp_sched_record rec;
	tp_status rc = tp_sched_record_parse(text, &rec, err);

	if (rc != TP_OK)
		return rc;
	rc = tp_sched_job_add(s, job_id, &rec, nodes, err);
	tp_sched_record_clear(&rec);
	return rc;
}

const tp_sched_record *tp_sched_job_record(const tp_sched_state *s,
                                           uint32_t job_id)
{
	const sched_job *j = job_find(s, job_id);

	return j ? &j->rec : NULL;
}

size_t tp_sched_job_count(const tp_sched_state *s)
{
	return s->job_count;
}

size_t tp_sched_unresolved_count(const tp_sched_state *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->job_count; i++)
		if (s->jobs[i].rec.policy == TP_PLACEMENT_LEAF &&
		    !s->jobs[i].rec.held)
			n++;
	return n;
}

void tp_sched_for_each_held(const tp_sched_state *s, uint32_t except_job,
                            void (*fn)(void *ctx, uint32_t node), void *ctx)
{
	for (size_t i = 0; i < s->job_count; i++) {
		const sched_job *j = &s->jobs[i];

		if (j->job_id == except_job)
			continue;
		for (uint32_t k = 0; k < j->held_node_n; k++)
			fn(ctx, j->held_node[k]);
	}
}

const tp_host_use *tp_sched_occupancy(tp_sched_state *s, tp_error *err)
{
	uint32_t hosts;

	if (!s->topo)
		return NULL;
	hosts = tp_topo_host_count(s->topo);
	if (!s->use || s->use_hosts != hosts) {
		free(s->use);
		s->use = calloc(hosts ? hosts : 1, sizeof(*s->use));
		s->use_hosts = s->use ? hosts : 0;
		if (!s->use) {
			tp_error_set(err, TP_ERR_NOMEM,
			             "occupancy of %u hosts: out of memory",
			             hosts);
			return NULL;
		}
		s->use_dirty = true;
	}
	if (!s->use_dirty)
		return s->use;
	memset(s->use, 0, hosts * sizeof(*s->use));
	for (size_t i = 0; i < s->job_count; i++) {
		const sched_job *j = &s->jobs[i];

		for (uint32_t k = 0; k < j->host_n; k++) {
			tp_host_use *u = &s->use[j->host[k]];

			u->state = TP_HOST_BUSY;
			u->job_id = j->job_id;
			u->job_class =
			    tp_jobclass_on_fabric(j->rec.job_class, j->host_n);
		}
	}
	for (size_t i = 0; i < s->job_count; i++) {
		const sched_job *j = &s->jobs[i];

		for (uint32_t k = 0; k < j->held_host_n; k++) {
			tp_host_use *u = &s->use[j->held_host[k]];

			if (u->state != TP_HOST_FREE)
				continue;
			u->state = TP_HOST_RESERVED;
			u->job_id = j->job_id;
			u->job_class =
			    tp_jobclass_on_fabric(j->rec.job_class, j->host_n);
		}
	}
	s->use_dirty = false;
	return s->use;
}
