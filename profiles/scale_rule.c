/*
 * scale_rule.c: whether a profile scales to a job of another rank count
 * (scale_rule.h has the rule).
 */
#include "tp_config.h"

#include "scale_rule.h"

#include <stdio.h>
#include <string.h>

#include "app_identity.h"

void tp_scale_run_of_summary(const tp_profile_summary *summary,
                             tp_scale_run *run)
{
	memset(run, 0, sizeof(*run));
	run->ranks = summary->ranks;
	run->state = summary->stencil_state;
	if (run->state == TP_STENCIL_FOUND)
		run->stencil = summary->stencil;
	run->duration_us = summary->duration_us;
	snprintf(run->app, sizeof(run->app), "%s", summary->app);
}

/* A found stencil whose dimensions and extents are its ranks' own. */
static bool stencil_sound(const tp_scale_run *run)
{
	uint32_t extent[TP_STENCIL_DIMS_MAX];

	if (run->state != TP_STENCIL_FOUND || run->stencil.dims < 1 ||
	    run->stencil.dims > TP_STENCIL_DIMS_MAX)
		return false;
	tp_stencil_dims_create(run->ranks, run->stencil.dims, extent);
	for (unsigned k = 0; k < run->stencil.dims; k++)
		if (extent[k] < 2 || extent[k] != run->stencil.extent[k])
			return false;
	return true;
}

static bool same_layout(const tp_stencil *a, const tp_stencil *b)
{
	if (a->dims != b->dims)
		return false;
	for (unsigned k = 0; k < a->dims; k++)
		if (a->periodic[k] != b->periodic[k])
			return false;
	return true;
}

/* Why @run cannot be scaled from, into @v; false when it can. */
static bool run_refused(const tp_scale_run *run, const tp_scale_run *first,
                        tp_scale_verdict *v)
{
	char a[64], b[64];

	if (!run->ranks) {
		snprintf(v->text, sizeof(v->text),
		         "a run's summary cannot be read");
		return true;
	}
	if (run->state == TP_STENCIL_UNKNOWN) {
		snprintf(v->text, sizeof(v->text),
		         "its %u-rank run's summary predates stencil facts "
		         "(`topoplace profile summarize` rewrites it)",
		         run->ranks);
		return true;
	}
	if (run->state != TP_STENCIL_FOUND || !stencil_sound(run)) {
		snprintf(v->text, sizeof(v->text),
		         "its %u-rank run is not a stencil in MPI_Dims_create's "
		         "layout",
		         run->ranks);
		return true;
	}
	if (first && !same_layout(&first->stencil, &run->stencil)) {
		tp_stencil_format(&first->stencil, a, sizeof(a));
		tp_stencil_format(&run->stencil, b, sizeof(b));
		snprintf(v->text, sizeof(v->text),
		         "its runs disagree on the grid: %s at %u ranks, %s at "
		         "%u",
		         a, first->ranks, b, run->ranks);
		return true;
	}
	return false;
}

/* The distinct rank counts of @runs, ascending, as "16, 64". */
static unsigned sizes_seen(const tp_scale_run *runs, size_t count, char *buf,
                           size_t size)
{
	uint32_t last = 0;
	unsigned distinct = 0;
	size_t used = 0;

	buf[0] = '\0';
	for (;;) {
		uint32_t next = 0;

		for (size_t i = 0; i < count; i++)
			if (runs[i].ranks > last &&
			    (!next || runs[i].ranks < next))
				next = runs[i].ranks;
		if (!next)
			return distinct;
		if (used < size)
			used += (size_t)snprintf(buf + used, size - used,
			                         "%s%u", distinct ? ", " : "",
			                         next);
		distinct++;
		last = next;
	}
}

/* The run nearest @tasks in rank count: of two as near, the larger; of
 * one count, the newest (the last). */
static size_t nearest(const tp_scale_run *runs, size_t count, uint32_t tasks)
{
	size_t best = 0;

	for (size_t i = 1; i < count; i++) {
		uint64_t d = runs[i].ranks > tasks ? runs[i].ranks - tasks
		                                   : tasks - runs[i].ranks;
		uint64_t bd = runs[best].ranks > tasks
		                  ? runs[best].ranks - tasks
		                  : tasks - runs[best].ranks;

		if (d < bd || (d == bd && runs[i].ranks >= runs[best].ranks))
			best = i;
	}
	return best;
}

tp_scale_verdict tp_scale_decide(const tp_scale_run *runs, size_t count,
                                 uint32_t job_tasks)
{
	tp_scale_verdict v = {.scaled = false};
	size_t first = count > TP_IDENTITY_RUN_CANDIDATES_MAX
	                   ? count - TP_IDENTITY_RUN_CANDIDATES_MAX
	                   : 0;
	char seen[TP_SCALE_TEXT_MAX / 2], shape[64];
	bool periodic = false;

	if (!job_tasks || job_tasks < 2 || job_tasks > TP_STENCIL_RANKS_MAX) {
		snprintf(v.text, sizeof(v.text),
		         job_tasks ? "the job's %u tasks: a scaled profile has "
		                     "2 to %u"
		                   : "the job gave no task count (-n)",
		         job_tasks, TP_STENCIL_RANKS_MAX);
		return v;
	}
	if (count == 0) {
		snprintf(v.text, sizeof(v.text), "no stored run");
		return v;
	}
	runs += first;
	count -= first;
	for (size_t i = 0; i < count; i++)
		if (run_refused(&runs[i], i ? &runs[0] : NULL, &v))
			return v;
	if (sizes_seen(runs, count, seen, sizeof(seen)) < 2) {
		snprintf(v.text, sizeof(v.text),
		         "a stencil seen at %s ranks only: one size does not "
		         "show the application's layout at another",
		         seen);
		return v;
	}
	v.scaled = true;
	v.source = first + nearest(runs, count, job_tasks);
	for (unsigned k = 0; k < runs[0].stencil.dims; k++)
		periodic |= runs[0].stencil.periodic[k];
	snprintf(shape, sizeof(shape), "%u-D%s", runs[0].stencil.dims,
	         periodic ? " periodic" : "");
	snprintf(v.text, sizeof(v.text), "%s stencil seen at %s ranks", shape,
	         seen);
	return v;
}

tp_status tp_scale_build(const tp_scale_run *runs, size_t count,
                         const tp_scale_verdict *verdict, uint32_t job_tasks,
                         tp_profile **scaled, tp_stencil *shape,
                         tp_error *err)
{
	tp_profile_header header;
	const tp_scale_run *run;

	*scaled = NULL;
	if (!verdict->scaled || verdict->source >= count ||
	    !stencil_sound(&runs[verdict->source]))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "no stencil to scale (%s)", verdict->text);
	run = &runs[verdict->source];
	memset(&header, 0, sizeof(header));
	snprintf(header.app, sizeof(header.app), "%s",
	         run->app[0] ? run->app : "scaled");
	header.ranks = run->ranks;
	header.duration_us = run->duration_us;
	return tp_stencil_build(&run->stencil, &header, job_tasks, scaled,
	                        shape, err);
}
