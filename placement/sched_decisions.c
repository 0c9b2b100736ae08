/*
 * sched_decisions.c: the pending jobs' decisions by job id (see the header
 * for why a table of its own, and its bounds).
 */
#include "tp_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_decisions.h"

/* Slots of a new table; it doubles at half full. */
#define FIRST_CAP 128

struct tp_decisions {
	tp_decision *slot; /* cap slots; job_id 0: empty */
	size_t cap;        /* a power of two, or 0 before the first get */
	size_t count;
	size_t max;
	int64_t stale_s;
	tp_decision_drop_fn on_drop;
	void *ctx;
};

static size_t home_slot(const tp_decisions *t, uint32_t job_id)
{
	return (job_id * 2654435761u) & (t->cap - 1); /* Knuth */
}

tp_decisions *tp_decisions_new(size_t max, int64_t stale_s,
                               tp_decision_drop_fn on_drop, void *ctx,
                               tp_error *err)
{
	tp_decisions *t;

	if (!max) {
		tp_error_set(err, TP_ERR_INVALID,
		             "decision table: at most 0 decisions");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		tp_error_set(err, TP_ERR_NOMEM,
		             "decision table: out of memory");
		return NULL;
	}
	t->max = max;
	t->stale_s = stale_s;
	t->on_drop = on_drop;
	t->ctx = ctx;
	return t;
}

void tp_decisions_free(tp_decisions *table)
{
	if (!table)
		return;
	free(table->slot);
	free(table);
}

tp_decision *tp_decisions_find(tp_decisions *table, uint32_t job_id)
{
	tp_decisions *t = table;

	if (!t->cap || !job_id)
		return NULL;
	for (size_t i = home_slot(t, job_id); t->slot[i].job_id;
	     i = (i + 1) & (t->cap - 1))
		if (t->slot[i].job_id == job_id)
			return &t->slot[i];
	return NULL;
}

/* A free slot of @job_id's probe chain, taken: @job_id is not in @t. */
static tp_decision *insert(tp_decisions *t, uint32_t job_id)
{
	size_t i = home_slot(t, job_id);

	while (t->slot[i].job_id)
		i = (i + 1) & (t->cap - 1);
	memset(&t->slot[i], 0, sizeof(t->slot[i]));
	t->slot[i].job_id = job_id;
	t->count++;
	return &t->slot[i];
}

/* The slot @d leaves: shift back the probe chain behind it. */
static void remove_slot(tp_decisions *t, tp_decision *d)
{
	size_t mask = t->cap - 1, hole = (size_t)(d - t->slot), j;

	if (t->on_drop)
		t->on_drop(d, t->ctx);
	for (j = (hole + 1) & mask; t->slot[j].job_id; j = (j + 1) & mask) {
		size_t home = home_slot(t, t->slot[j].job_id);

		/* Move j into the hole unless its home lies in (hole, j]. */
		if ((hole < j) ? (home <= hole || home > j)
		               : (home <= hole && home > j)) {
			t->slot[hole] = t->slot[j];
			hole = j;
		}
	}
	memset(&t->slot[hole], 0, sizeof(t->slot[hole]));
	t->count--;
}

void tp_decisions_drop(tp_decisions *table, uint32_t job_id)
{
	tp_decision *d = tp_decisions_find(table, job_id);

	if (d)
		remove_slot(table, d);
}

void tp_decisions_clear(tp_decisions *table)
{
	tp_decisions *t = table;

	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].job_id && t->on_drop)
			t->on_drop(&t->slot[i], t->ctx);
	if (t->cap)
		memset(t->slot, 0, t->cap * sizeof(*t->slot));
	t->count = 0;
}

size_t tp_decisions_count(const tp_decisions *table)
{
	return table->count;
}

/*
 * Full: drop the decisions not tested for stale_s (their ids collected
 * first: a drop moves slots); if that frees nothing, or there is no
 * memory to collect them, all.
 */
static void evict(tp_decisions *t, int64_t now, tp_decisions_eviction *ev)
{
	uint32_t *stale = malloc((t->count + 1) * sizeof(*stale));
	size_t n = 0;

	if (stale) {
		for (size_t i = 0; i < t->cap; i++)
			if (t->slot[i].job_id &&
			    now - t->slot[i].last_seen > t->stale_s)
				stale[n++] = t->slot[i].job_id;
		for (size_t i = 0; i < n; i++)
			tp_decisions_drop(t, stale[i]);
		free(stale);
	}
	ev->stale_dropped = n;
	if (t->count < t->max)
		return;
	tp_decisions_clear(t);
	ev->all_dropped = true;
}

/* Double the slots (or make the first ones), keeping every decision. */
static bool grow(tp_decisions *t)
{
	size_t cap = t->cap ? t->cap * 2 : FIRST_CAP, old_cap = t->cap;
	tp_decision *old = t->slot;

	if (cap < t->cap || cap > SIZE_MAX / sizeof(*t->slot))
		return false;
	t->slot = calloc(cap, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = old;
		return false;
	}
	t->cap = cap;
	t->count = 0;
	for (size_t k = 0; k < old_cap; k++)
		if (old[k].job_id)
			*insert(t, old[k].job_id) = old[k];
	free(old);
	return true;
}

tp_decision *tp_decisions_get(tp_decisions *table, uint32_t job_id, int64_t now,
                              tp_decisions_eviction *eviction, tp_error *err)
{
	tp_decisions *t = table;
	tp_decision *d;

	memset(eviction, 0, sizeof(*eviction));
	if (!job_id) {
		tp_error_set(err, TP_ERR_INVALID, "decision table: job id 0");
		return NULL;
	}
	d = tp_decisions_find(t, job_id);
	if (d)
		return d;
	if (t->count >= t->max)
		evict(t, now, eviction);
	if (2 * (t->count + 1) > t->cap && !grow(t)) {
		tp_error_set(err, TP_ERR_NOMEM,
		             "decision table: out of memory for %zu decisions",
		             t->count + 1);
		return NULL;
	}
	return insert(t, job_id);
}

void tp_decision_verdict(tp_decision *decision, const tp_topo *topo,
                         const tp_sched_verdict *verdict)
{
	const tp_alloc_result *res = &verdict->alloc;
	const char *leaf;

	if (verdict->kind == TP_SCHED_FALLBACK) {
		snprintf(decision->note, sizeof(decision->note), "%s",
		         verdict->note);
		decision->failed = true;
		return;
	}
	if (verdict->kind != TP_SCHED_PLACE)
		return;
	decision->leaf_wait_passed = res->leaf_wait_passed;
	decision->leaf_waited_s = verdict->leaf_waited_s;
	decision->leaf_wait_bound_s = verdict->leaf_wait_bound_s;
	decision->isolation_wait_passed = res->isolation_wait_passed;
	/* Read only at the start of a job that gave isolation up. */
	if (res->isolation_wait_passed)
		snprintf(decision->isolation_note,
		         sizeof(decision->isolation_note), "%s", verdict->note);
	decision->remainder_leaf[0] = '\0';
	snprintf(decision->pod_exposure, sizeof(decision->pod_exposure), "%s",
	         res->pod_exposure);
	tp_alloc_remainder_summary(topo, res, decision->remainder_summary,
	                           sizeof(decision->remainder_summary));
	if (!res->remainder_hosts)
		return;
	/* A name too long to keep would not match: the whole leaf is held,
	 * as before LeafRemainder. */
	leaf = tp_topo_leaf_name(topo, res->remainder_leaf);
	if (strlen(leaf) < sizeof(decision->remainder_leaf))
		strcpy(decision->remainder_leaf, leaf);
}

tp_decision_start tp_decision_started(tp_decision *decision,
                                      tp_sched_record *rec)
{
	tp_decision *d = decision;
	char note[2 * TP_SCHED_NOTE_MAX + 8];

	memset(rec, 0, sizeof(*rec));
	rec->policy = TP_PLACEMENT_OFF;
	rec->job_class = TP_JOBCLASS_QUIET;
	if (!d || d->failed)
		return TP_STARTED_AS_DECIDED;
	rec->policy = d->policy;
	rec->job_class = d->job_class;
	rec->has_profile = d->has_profile;
	if (d->isolation_wait_passed) {
		/* Started where Slurm put it: nothing held.  Where users
		 * look: placed otherwise than asked. */
		rec->policy = TP_PLACEMENT_OFF;
		snprintf(note, sizeof(note), "%s%s%s", d->isolation_note,
		         d->note[0] ? "; " : "", d->note);
		tp_sched_reason_fit(note, d->note, sizeof(d->note));
		return TP_STARTED_ISOLATION_GIVEN_UP;
	}
	if (d->pod_exposure[0]) {
		/* Where users look: isolated at leaf level only. */
		snprintf(note, sizeof(note), "%s%s%s", d->pod_exposure,
		         d->note[0] ? "; " : "", d->note);
		tp_sched_reason_fit(note, d->note, sizeof(d->note));
	}
	if (d->leaf_wait_passed) {
		/* Started under shared's rules: no leftover held. */
		rec->policy = TP_PLACEMENT_SHARED;
		/* Where users look: placed otherwise than asked. */
		snprintf(
		    note, TP_SCHED_NOTE_MAX,
		    "leaf gave way to shared after %u s (bound %u s)%s%.100s",
		    d->leaf_waited_s, d->leaf_wait_bound_s,
		    d->note[0] ? "; " : "", d->note);
		memcpy(d->note, note, sizeof(d->note));
		return TP_STARTED_LEAF_GAVE_WAY;
	}
	if (d->remainder_summary[0]) {
		/* Where users look: not all on whole leaves. */
		snprintf(note, sizeof(note), "%s%s%s", d->remainder_summary,
		         d->note[0] ? "; " : "", d->note);
		tp_sched_reason_fit(note, d->note, sizeof(d->note));
		if (d->remainder_leaf[0])
			rec->shared_leaf = d->remainder_leaf;
	}
	return TP_STARTED_AS_DECIDED;
}
