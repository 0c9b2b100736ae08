/*
 * tp_profile_lookup.c: one worker thread reading profiles for slurmctld,
 * see tp_profile_lookup.h.
 *
 * A fixed table of max_pending entries; a ticket is an entry's index.
 * Queued entries are also in the FIFO ring of indices of their lane
 * (quick or full).  An entry forgotten while queued or being read is
 * marked so and freed by the lane's worker when it reaches it, so a ring
 * never holds an index twice and never overflows (an entry is in at most
 * one ring: it moves to the full lane only once its quick read is over).
 */
#include "tp_config.h"

#include "tp_profile_lookup.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LANES 2 /* indexed by tp_lookup_pass */

typedef enum entry_state {
	ENTRY_FREE = 0,
	ENTRY_QUEUED,
	ENTRY_QUEUED_FORGOTTEN, /* freed when the worker pops it */
	ENTRY_READING,
	ENTRY_READING_FORGOTTEN, /* freed when the read ends */
	ENTRY_DONE,
} entry_state;

typedef struct entry {
	entry_state state;
	tp_lookup_pass lane; /* QUEUED/READING: which lane holds it */
	uint64_t elapsed_us; /* read time in earlier lanes */
	tp_lookup_request request;
	tp_lookup_result result;
} entry;

typedef struct lane {
	tp_lookup *owner;
	tp_lookup_pass pass;
	pthread_t thread;
	bool started;
	pthread_cond_t work; /* the worker: something queued, or stop */
	uint32_t *ring;      /* queued entry indices, FIFO */
	size_t ring_head, ring_count;
	bool reading; /* the worker is in the reader */
} lane;

struct tp_lookup {
	pthread_mutex_t lock;
	pthread_cond_t done; /* waiters: a result is ready */
	tp_lookup_reader reader;
	tp_lookup_notify notify;
	void *ctx;
	size_t cap;
	entry *entries;
	uint32_t *free_stack; /* free entry indices */
	size_t free_count;
	lane lanes[LANES];
	size_t outstanding; /* entries not FREE */
	bool stopping;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Caller holds the lock. */
static void entry_release(tp_lookup *lk, uint32_t index)
{
	memset(&lk->entries[index], 0, sizeof(lk->entries[index]));
	lk->free_stack[lk->free_count++] = index;
	lk->outstanding--;
}

/* Caller holds the lock. */
static void lane_push(lane *ln, size_t cap, uint32_t index)
{
	ln->ring[(ln->ring_head + ln->ring_count) % cap] = index;
	ln->ring_count++;
	pthread_cond_signal(&ln->work);
}

static void *worker_main(void *arg)
{
	lane *ln = arg;
	tp_lookup *lk = ln->owner;

	pthread_mutex_lock(&lk->lock);
	for (;;) {
		uint32_t index;
		entry *e;
		tp_lookup_request request;
		tp_lookup_result result;
		uint64_t t0;

		while (!lk->stopping && ln->ring_count == 0)
			pthread_cond_wait(&ln->work, &lk->lock);
		if (lk->stopping)
			break;
		index = ln->ring[ln->ring_head];
		ln->ring_head = (ln->ring_head + 1) % lk->cap;
		ln->ring_count--;
		e = &lk->entries[index];
		if (e->state == ENTRY_QUEUED_FORGOTTEN) {
			entry_release(lk, index);
			continue;
		}
		e->state = ENTRY_READING;
		request = e->request;
		ln->reading = true;
		pthread_mutex_unlock(&lk->lock);

		/* The slow part, with no lock held. */
		memset(&result, 0, sizeof(result));
		result.status = TP_ERR_INTERNAL;
		t0 = now_us();
		lk->reader(&request, ln->pass, &result, lk->ctx);
		result.job_id = request.job_id;

		pthread_mutex_lock(&lk->lock);
		ln->reading = false;
		e->elapsed_us += now_us() - t0;
		if (e->state == ENTRY_READING_FORGOTTEN) {
			entry_release(lk, index);
			continue;
		}
		if (ln->pass == TP_LOOKUP_QUICK && result.needs_full_read) {
			e->state = ENTRY_QUEUED;
			e->lane = TP_LOOKUP_FULL;
			lane_push(&lk->lanes[TP_LOOKUP_FULL], lk->cap, index);
			continue;
		}
		result.needs_full_read = false;
		result.elapsed_us = e->elapsed_us;
		e->result = result;
		e->state = ENTRY_DONE;
		pthread_cond_broadcast(&lk->done);
		if (lk->notify) {
			pthread_mutex_unlock(&lk->lock);
			lk->notify(lk->ctx);
			pthread_mutex_lock(&lk->lock);
		}
	}
	pthread_mutex_unlock(&lk->lock);
	return NULL;
}

static void lookup_free(tp_lookup *lk)
{
	free(lk->entries);
	free(lk->free_stack);
	for (int i = 0; i < LANES; i++)
		free(lk->lanes[i].ring);
	free(lk);
}

/* Wake and join the started workers; the lock is not held. */
static void stop_workers(tp_lookup *lk)
{
	pthread_mutex_lock(&lk->lock);
	lk->stopping = true;
	for (int i = 0; i < LANES; i++)
		pthread_cond_broadcast(&lk->lanes[i].work);
	pthread_cond_broadcast(&lk->done);
	pthread_mutex_unlock(&lk->lock);
	for (int i = 0; i < LANES; i++)
		if (lk->lanes[i].started)
			pthread_join(lk->lanes[i].thread, NULL);
	for (int i = 0; i < LANES; i++)
		pthread_cond_destroy(&lk->lanes[i].work);
	pthread_cond_destroy(&lk->done);
	pthread_mutex_destroy(&lk->lock);
}

tp_status tp_lookup_start(tp_lookup_reader reader, tp_lookup_notify notify,
                          void *ctx, size_t max_pending, tp_lookup **lookup,
                          tp_error *err)
{
	tp_lookup *lk;
	int rc = 0;

	*lookup = NULL;
	if (!reader || max_pending == 0 || max_pending > UINT32_MAX)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile lookup: no reader or a bad queue "
		                    "size (%zu)",
		                    max_pending);
	lk = calloc(1, sizeof(*lk));
	if (!lk)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "profile lookup: out of memory");
	lk->entries = calloc(max_pending, sizeof(*lk->entries));
	lk->free_stack = malloc(max_pending * sizeof(*lk->free_stack));
	for (int i = 0; i < LANES; i++)
		lk->lanes[i].ring =
		    malloc(max_pending * sizeof(*lk->lanes[i].ring));
	if (!lk->entries || !lk->free_stack || !lk->lanes[0].ring ||
	    !lk->lanes[1].ring) {
		lookup_free(lk);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "profile lookup: out of memory for %zu "
		                    "entries",
		                    max_pending);
	}
	lk->reader = reader;
	lk->notify = notify;
	lk->ctx = ctx;
	lk->cap = max_pending;
	/* Lowest index on top: tickets start at 0. */
	for (size_t i = max_pending; i-- > 0;)
		lk->free_stack[lk->free_count++] = (uint32_t)i;
	pthread_mutex_init(&lk->lock, NULL);
	{
		pthread_condattr_t attr;

		/* Timed waits on the monotonic clock (immune to clock
		 * steps). */
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&lk->done, &attr);
		pthread_condattr_destroy(&attr);
	}
	for (int i = 0; i < LANES; i++) {
		lk->lanes[i].owner = lk;
		lk->lanes[i].pass = (tp_lookup_pass)i;
		pthread_cond_init(&lk->lanes[i].work, NULL);
	}
	for (int i = 0; i < LANES && rc == 0; i++) {
		rc = pthread_create(&lk->lanes[i].thread, NULL, worker_main,
		                    &lk->lanes[i]);
		lk->lanes[i].started = rc == 0;
	}
	if (rc != 0) {
		stop_workers(lk);
		lookup_free(lk);
		return tp_error_set(err, TP_ERR_INTERNAL,
		                    "profile lookup: cannot start its threads: "
		                    "%s",
		                    strerror(rc));
	}
	*lookup = lk;
	return TP_OK;
}

tp_status tp_lookup_submit(tp_lookup *lk, const tp_lookup_request *request,
                           uint32_t *ticket, tp_error *err)
{
	uint32_t index;

	pthread_mutex_lock(&lk->lock);
	if (lk->free_count == 0) {
		size_t cap = lk->cap;

		pthread_mutex_unlock(&lk->lock);
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "profile lookup: %zu lookups already "
		                    "outstanding",
		                    cap);
	}
	index = lk->free_stack[--lk->free_count];
	lk->entries[index].state = ENTRY_QUEUED;
	lk->entries[index].lane = TP_LOOKUP_QUICK;
	lk->entries[index].request = *request;
	lk->outstanding++;
	*ticket = index;
	lane_push(&lk->lanes[TP_LOOKUP_QUICK], lk->cap, index);
	pthread_mutex_unlock(&lk->lock);
	return TP_OK;
}

/* The entry of (@job_id, @ticket) if it is that job's; lock held. */
static entry *entry_of(tp_lookup *lk, uint32_t job_id, uint32_t ticket)
{
	entry *e;

	if (ticket >= lk->cap)
		return NULL;
	e = &lk->entries[ticket];
	if (e->state == ENTRY_FREE || e->state == ENTRY_QUEUED_FORGOTTEN ||
	    e->state == ENTRY_READING_FORGOTTEN || e->request.job_id != job_id)
		return NULL;
	return e;
}

bool tp_lookup_wait(tp_lookup *lk, uint32_t job_id, uint32_t ticket,
                    uint64_t wait_us)
{
	uint64_t deadline = now_us() + wait_us;
	bool ready = false;

	pthread_mutex_lock(&lk->lock);
	for (;;) {
		entry *e = entry_of(lk, job_id, ticket);
		struct timespec ts;
		const lane *ln;
		uint64_t t;
		bool next;

		if (!e)
			break;
		if (e->state == ENTRY_DONE) {
			ready = true;
			break;
		}
		/* Being read, or first in its lane with nothing being read
		 * there. */
		ln = &lk->lanes[e->lane];
		next = e->state == ENTRY_READING ||
		       (!ln->reading && ln->ring_count &&
		        ln->ring[ln->ring_head] == ticket);
		t = now_us();
		if (!next || t >= deadline || lk->stopping)
			break;
		ts.tv_sec = (time_t)(deadline / 1000000u);
		ts.tv_nsec = (long)(deadline % 1000000u) * 1000;
		if (pthread_cond_timedwait(&lk->done, &lk->lock, &ts) ==
		    ETIMEDOUT) {
			e = entry_of(lk, job_id, ticket);
			ready = e && e->state == ENTRY_DONE;
			break;
		}
	}
	pthread_mutex_unlock(&lk->lock);
	return ready;
}

bool tp_lookup_take(tp_lookup *lk, uint32_t job_id, uint32_t ticket,
                    tp_lookup_result *result)
{
	entry *e;
	bool ready = false;

	pthread_mutex_lock(&lk->lock);
	e = entry_of(lk, job_id, ticket);
	if (e && e->state == ENTRY_DONE) {
		*result = e->result;
		entry_release(lk, ticket);
		ready = true;
	}
	pthread_mutex_unlock(&lk->lock);
	return ready;
}

void tp_lookup_forget(tp_lookup *lk, uint32_t job_id, uint32_t ticket)
{
	entry *e;

	if (!lk)
		return;
	pthread_mutex_lock(&lk->lock);
	e = entry_of(lk, job_id, ticket);
	if (e) {
		if (e->state == ENTRY_QUEUED)
			e->state = ENTRY_QUEUED_FORGOTTEN;
		else if (e->state == ENTRY_READING)
			e->state = ENTRY_READING_FORGOTTEN;
		else /* ENTRY_DONE */
			entry_release(lk, ticket);
	}
	pthread_mutex_unlock(&lk->lock);
}

size_t tp_lookup_outstanding(tp_lookup *lk)
{
	size_t n;

	pthread_mutex_lock(&lk->lock);
	n = lk->outstanding;
	pthread_mutex_unlock(&lk->lock);
	return n;
}

void tp_lookup_stop(tp_lookup *lk)
{
	if (!lk)
		return;
	stop_workers(lk);
	lookup_free(lk);
}
