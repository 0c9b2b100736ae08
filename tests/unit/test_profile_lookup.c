/*
 * test_profile_lookup.c: the select plugin's profile lookups run on their
 * own thread (slurm-plugin/tp_profile_lookup.c).  A fake reader that can
 * be held at a gate stands in for the store and munged, so the tests can
 * prove what matters to slurmctld: results come back in order and once;
 * a caller never waits behind a stuck reader for more than its bound;
 * forgotten jobs are never read or are discarded; the queue is bounded;
 * stopping with work queued and a read in progress loses nothing and
 * leaks nothing (run under valgrind and ASan by tests/run-all).
 */
#include "tp_config.h"

#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tp_profile_lookup.h"
#include "tp_slurm_core.h"

/* The fake reader: records the jobs it read, can be held at a gate. */
typedef struct fake {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool hold;        /* readers wait while set */
	bool hold_full;   /* full-lane readers wait while set */
	uint32_t entered; /* readers that reached the gate */
	uint32_t full_entered; /* full-lane readers that reached theirs */
	uint32_t read[64];
	uint32_t read_count;
	uint32_t notified;
} fake;

static void fake_init(fake *f)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
}

static void fake_destroy(fake *f)
{
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
}

/* Job ids from FAKE_BIG on have a "big" profile: the quick pass asks for
 * a full read. */
#define FAKE_BIG 1000

static void fake_reader(const tp_lookup_request *rq, tp_lookup_pass pass,
                        tp_lookup_result *res, void *ctx)
{
	fake *f = ctx;

	if (rq->job_id >= FAKE_BIG && pass == TP_LOOKUP_QUICK) {
		res->needs_full_read = true;
		return;
	}
	pthread_mutex_lock(&f->lock);
	if (pass == TP_LOOKUP_FULL) {
		f->full_entered++;
		pthread_cond_broadcast(&f->cond);
		while (f->hold_full)
			pthread_cond_wait(&f->cond, &f->lock);
	}
	f->entered++;
	pthread_cond_broadcast(&f->cond);
	while (f->hold)
		pthread_cond_wait(&f->cond, &f->lock);
	if (f->read_count < 64)
		f->read[f->read_count++] = rq->job_id;
	pthread_mutex_unlock(&f->lock);
	/* "quiet" for even job ids, not found for odd ones. */
	if (rq->job_id % 2 == 0) {
		res->status = TP_OK;
		res->job_class = TP_JOBCLASS_QUIET;
		snprintf(res->reason, sizeof(res->reason), "read %.64s/%.64s",
		         rq->user, rq->name);
	} else {
		res->status = TP_ERR_NOTFOUND;
		snprintf(res->error, sizeof(res->error), "no profile %.64s",
		         rq->name);
	}
}

static void fake_notify(void *ctx)
{
	fake *f = ctx;

	pthread_mutex_lock(&f->lock);
	f->notified++;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void fake_set_hold(fake *f, bool hold)
{
	pthread_mutex_lock(&f->lock);
	f->hold = hold;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* Wait until *@counter (guarded by the fake's lock) reaches @n, 10 s at
 * most; returns its value. */
static uint32_t fake_wait_count(fake *f, const uint32_t *counter, uint32_t n)
{
	struct timespec ts;
	uint32_t v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&f->lock);
	while (*counter < n)
		if (pthread_cond_timedwait(&f->cond, &f->lock, &ts) != 0)
			break;
	v = *counter;
	pthread_mutex_unlock(&f->lock);
	return v;
}

/* Readers that reached the gate, results notified. */
#define fake_wait_entered(f, n)                                                \
	assert_true(fake_wait_count((f), &(f)->entered, (n)) >= (n))
#define fake_wait_notified(f, n)                                               \
	assert_int_equal(fake_wait_count((f), &(f)->notified, (n)), (n))

static tp_lookup_request request_for(uint32_t job_id)
{
	tp_lookup_request rq;

	memset(&rq, 0, sizeof(rq));
	rq.job_id = job_id;
	snprintf(rq.user, sizeof(rq.user), "alice");
	snprintf(rq.name, sizeof(rq.name), "app%u", job_id);
	return rq;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void test_results_come_back_in_order_and_once(void **state)
{
	fake f;
	tp_lookup *lk;
	tp_error err;
	uint32_t tickets[4];
	tp_lookup_result res;

	(void)state;
	fake_init(&f);
	assert_int_equal(tp_lookup_start(fake_reader, fake_notify, &f, 8, &lk,
	                                 &err),
	                 TP_OK);
	fake_set_hold(&f, true);
	for (uint32_t j = 0; j < 4; j++) {
		tp_lookup_request rq = request_for(100 + j);

		assert_int_equal(tp_lookup_submit(lk, &rq, &tickets[j], &err),
		                 TP_OK);
	}
	assert_int_equal(tp_lookup_outstanding(lk), 4);
	/* Nothing is ready while the reader is held. */
	assert_false(tp_lookup_take(lk, 100, tickets[0], &res));
	fake_set_hold(&f, false);
	fake_wait_notified(&f, 4);
	for (uint32_t j = 0; j < 4; j++)
		assert_int_equal(f.read[j], 100 + j); /* FIFO */

	assert_true(tp_lookup_take(lk, 100, tickets[0], &res));
	assert_int_equal(res.job_id, 100);
	assert_int_equal(res.status, TP_OK);
	assert_string_equal(res.reason, "read alice/app100");
	assert_true(tp_lookup_take(lk, 101, tickets[1], &res));
	assert_int_equal(res.status, TP_ERR_NOTFOUND);
	assert_string_equal(res.error, "no profile app101");
	/* Claimed once only; another job's ticket gives nothing. */
	assert_false(tp_lookup_take(lk, 100, tickets[0], &res));
	assert_false(tp_lookup_take(lk, 999, tickets[2], &res));
	assert_true(tp_lookup_take(lk, 102, tickets[2], &res));
	assert_true(tp_lookup_take(lk, 103, tickets[3], &res));
	assert_int_equal(tp_lookup_outstanding(lk), 0);
	tp_lookup_stop(lk);
	fake_destroy(&f);
}

static void test_wait_is_bounded_behind_a_stuck_reader(void **state)
{
	fake f;
	tp_lookup *lk;
	tp_error err;
	uint32_t t1, t2;
	tp_lookup_request r1 = request_for(10), r2 = request_for(12);
	uint64_t t0, spent;

	(void)state;
	fake_init(&f);
	assert_int_equal(
	    tp_lookup_start(fake_reader, NULL, &f, 8, &lk, &err), TP_OK);
	fake_set_hold(&f, true);
	assert_int_equal(tp_lookup_submit(lk, &r1, &t1, &err), TP_OK);
	fake_wait_entered(&f, 1); /* job 10 is being read, and stuck */
	assert_int_equal(tp_lookup_submit(lk, &r2, &t2, &err), TP_OK);

	/* Job 12 is queued behind the stuck read: no wait at all. */
	t0 = mono_us();
	assert_false(tp_lookup_wait(lk, 12, t2, 2000000));
	spent = mono_us() - t0;
	assert_true(spent < 1000000);

	/* Job 10 is the one being read: waits its bound, then gives up. */
	t0 = mono_us();
	assert_false(tp_lookup_wait(lk, 10, t1, 50000));
	spent = mono_us() - t0;
	assert_true(spent >= 50000);
	assert_true(spent < 2000000);

	/* Released: the wait sees the result. */
	fake_set_hold(&f, false);
	assert_true(tp_lookup_wait(lk, 10, t1, 10000000));
	assert_true(tp_lookup_wait(lk, 12, t2, 10000000));
	tp_lookup_stop(lk); /* unclaimed results are freed */
	fake_destroy(&f);
}

static void test_wait_for_the_only_lookup_returns_its_result(void **state)
{
	fake f;
	tp_lookup *lk;
	tp_error err;
	uint32_t t;
	tp_lookup_request rq = request_for(42);
	tp_lookup_result res;

	(void)state;
	fake_init(&f);
	assert_int_equal(
	    tp_lookup_start(fake_reader, NULL, &f, 4, &lk, &err), TP_OK);
	assert_int_equal(tp_lookup_submit(lk, &rq, &t, &err), TP_OK);
	/* First in line with nothing being read: the caller may wait. */
	assert_true(tp_lookup_wait(lk, 42, t, 10000000));
	assert_true(tp_lookup_take(lk, 42, t, &res));
	assert_int_equal(res.status, TP_OK);
	tp_lookup_stop(lk);
	fake_destroy(&f);
}

static void test_forgotten_jobs_are_not_read_or_are_discarded(void **state)
{
	fake f;
	tp_lookup *lk;
	tp_error err;
	uint32_t t1, t2, t3;
	tp_lookup_request r1 = request_for(20), r2 = request_for(22),
	                  r3 = request_for(24);
	tp_lookup_result res;

	(void)state;
	fake_init(&f);
	assert_int_equal(tp_lookup_start(fake_reader, fake_notify, &f, 4, &lk,
	                                 &err),
	                 TP_OK);
	fake_set_hold(&f, true);
	assert_int_equal(tp_lookup_submit(lk, &r1, &t1, &err), TP_OK);
	fake_wait_entered(&f, 1);
	assert_int_equal(tp_lookup_submit(lk, &r2, &t2, &err), TP_OK);
	assert_int_equal(tp_lookup_submit(lk, &r3, &t3, &err), TP_OK);
	tp_lookup_forget(lk, 20, t1); /* being read */
	tp_lookup_forget(lk, 22, t2); /* queued */
	fake_set_hold(&f, false);
	fake_wait_notified(&f, 1); /* only job 24 reports */
	assert_true(tp_lookup_take(lk, 24, t3, &res));
	assert_false(tp_lookup_take(lk, 20, t1, &res));
	assert_false(tp_lookup_take(lk, 22, t2, &res));
	/* Job 22 was never read; job 20's read was discarded. */
	assert_int_equal(f.read_count, 2);
	assert_int_equal(f.read[0], 20);
	assert_int_equal(f.read[1], 24);
	assert_int_equal(tp_lookup_outstanding(lk), 0);
	/* Forgetting again, or a stale ticket, is harmless. */
	tp_lookup_forget(lk, 20, t1);
	tp_lookup_forget(lk, 24, t3);
	tp_lookup_stop(lk);
	fake_destroy(&f);
}

static void test_queue_is_bounded_and_slots_are_reused(void **state)
{
	fake f;
	tp_lookup *lk;
	tp_error err;
	uint32_t t[3];
	tp_lookup_request rq;
	tp_lookup_result res;

	(void)state;
	fake_init(&f);
	assert_int_equal(tp_lookup_start(fake_reader, fake_notify, &f, 2, &lk,
	                                 &err),
	                 TP_OK);
	fake_set_hold(&f, true);
	rq = request_for(30);
	assert_int_equal(tp_lookup_submit(lk, &rq, &t[0], &err), TP_OK);
	rq = request_for(32);
	assert_int_equal(tp_lookup_submit(lk, &rq, &t[1], &err), TP_OK);
	rq = request_for(34);
	assert_int_equal(tp_lookup_submit(lk, &rq, &t[2], &err),
	                 TP_ERR_LIMIT);
	assert_string_equal(err.message,
	                    "profile lookup: 2 lookups already outstanding");
	fake_set_hold(&f, false);
	fake_wait_notified(&f, 2);
	assert_true(tp_lookup_take(lk, 30, t[0], &res));
	/* A freed slot takes a new job; the old ticket is not its. */
	assert_int_equal(tp_lookup_submit(lk, &rq, &t[2], &err), TP_OK);
	assert_int_equal(t[2], t[0]);
	fake_wait_notified(&f, 3);
	assert_false(tp_lookup_take(lk, 30, t[2], &res));
	assert_true(tp_lookup_take(lk, 34, t[2], &res));
	assert_int_equal(res.job_id, 34);
	tp_lookup_stop(lk);
	fake_destroy(&f);
}

/* Releases the fake's gate after 100 ms (while stop waits for the read). */
static void *release_later(void *arg)
{
	usleep(100000);
	fake_set_hold(arg, false);
	return NULL;
}

static void test_stop_with_work_queued_and_a_read_in_progress(void **state)
{
	fake f;
	tp_lookup *lk;
	tp_error err;
	uint32_t t;
	pthread_t releaser;

	(void)state;
	fake_init(&f);
	assert_int_equal(
	    tp_lookup_start(fake_reader, NULL, &f, 16, &lk, &err), TP_OK);
	fake_set_hold(&f, true);
	for (uint32_t j = 0; j < 10; j++) {
		tp_lookup_request rq = request_for(50 + j);

		assert_int_equal(tp_lookup_submit(lk, &rq, &t, &err), TP_OK);
	}
	fake_wait_entered(&f, 1);
	assert_int_equal(pthread_create(&releaser, NULL, release_later, &f),
	                 0);
	tp_lookup_stop(lk); /* returns once the stuck read has ended */
	pthread_join(releaser, NULL);
	/* The read in progress finished; nothing queued after it ran. */
	assert_int_equal(f.read_count, 1);
	assert_int_equal(f.read[0], 50);
	fake_destroy(&f);
}

static void test_bad_arguments_are_refused(void **state)
{
	tp_lookup *lk = (tp_lookup *)1;
	tp_error err;

	(void)state;
	assert_int_equal(tp_lookup_start(NULL, NULL, NULL, 4, &lk, &err),
	                 TP_ERR_INVALID);
	assert_null(lk);
	assert_int_equal(
	    tp_lookup_start(fake_reader, NULL, NULL, 0, &lk, &err),
	    TP_ERR_INVALID);
	assert_string_equal(err.message, "profile lookup: no reader or a bad "
	                                 "queue size (0)");
	tp_lookup_stop(NULL);
}

/*
 * A lookup that needs a big profile read whole moves to the full lane; a
 * small job's lookup queued after it is answered while that read is still
 * in progress (issue #14: a small job waited 7.4 s behind a big one).
 */
static void test_small_lookup_is_not_queued_behind_a_big_one(void **state)
{
	fake f;
	tp_lookup *lk;
	tp_error err;
	tp_lookup_request rq;
	tp_lookup_result res;
	uint32_t big, small;

	(void)state;
	fake_init(&f);
	f.hold_full = true;
	assert_int_equal(tp_lookup_start(fake_reader, NULL, &f, 8, &lk, &err),
	                 TP_OK);
	memset(&rq, 0, sizeof(rq));
	rq.job_id = FAKE_BIG;
	assert_int_equal(tp_lookup_submit(lk, &rq, &big, &err), TP_OK);
	/* The big read is in progress (held) before the small job comes. */
	pthread_mutex_lock(&f.lock);
	while (f.full_entered < 1)
		pthread_cond_wait(&f.cond, &f.lock);
	pthread_mutex_unlock(&f.lock);
	rq.job_id = 2;
	assert_int_equal(tp_lookup_submit(lk, &rq, &small, &err), TP_OK);
	assert_true(tp_lookup_wait(lk, 2, small, 5000000));
	assert_true(tp_lookup_take(lk, 2, small, &res));
	assert_int_equal(res.status, TP_OK);
	assert_false(res.needs_full_read);
	/* The big one is still being read, and waiting on it is bounded. */
	assert_false(tp_lookup_wait(lk, FAKE_BIG, big, 1000));
	assert_false(tp_lookup_take(lk, FAKE_BIG, big, &res));

	pthread_mutex_lock(&f.lock);
	f.hold_full = false;
	pthread_cond_broadcast(&f.cond);
	pthread_mutex_unlock(&f.lock);
	assert_true(tp_lookup_wait(lk, FAKE_BIG, big, 5000000));
	assert_true(tp_lookup_take(lk, FAKE_BIG, big, &res));
	assert_int_equal(res.status, TP_OK);
	assert_false(res.needs_full_read);
	assert_int_equal(res.job_id, FAKE_BIG);
	assert_int_equal(tp_lookup_outstanding(lk), 0);
	tp_lookup_stop(lk);
	fake_destroy(&f);
}

/*
 * slurmctld's real reader (tp_sc_lookup_read) refuses a stored profile
 * over TP_LOOKUP_PROFILE_MAX_BYTES from its size alone: nothing is read or
 * decoded (the file here is sparse garbage, so reading it would say
 * "not a topoplace profile" instead), and no munged is needed to get there.
 */
static void test_real_reader_refuses_a_profile_over_the_lookup_limit(void **st)
{
	struct passwd *pw = getpwuid(geteuid());
	char root[] = "/tmp/tp_lookup_limit.XXXXXX", path[512], cmd[600];
	const char *run = "0000000000000001-00000001-00000001.tpp";
	tp_lookup_request request;
	tp_lookup_result result;
	int fd;

	(void)st;
	assert_non_null(pw);
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/%s", root, pw->pw_name);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%s/big", root, pw->pw_name);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%s/big/%s", root, pw->pw_name, run);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)TP_LOOKUP_PROFILE_MAX_BYTES + 1),
	                 0);
	close(fd);

	memset(&request, 0, sizeof(request));
	memset(&result, 0, sizeof(result));
	request.job_id = 7;
	snprintf(request.user, sizeof(request.user), "%s", pw->pw_name);
	snprintf(request.name, sizeof(request.name), "big");
	snprintf(request.store, sizeof(request.store), "%s", root);
	snprintf(request.munge_socket, sizeof(request.munge_socket),
	         "%s/no-munged.socket", root);
	request.keep = 8;
	request.max_age_s = 3600;
	tp_jobclass_defaults(&request.thresholds);
	/* No summary: the quick pass leaves a run this big to the full
	 * lane, and says why. */
	tp_sc_lookup_read(&request, TP_LOOKUP_QUICK, &result, NULL);
	assert_true(result.needs_full_read);
	if (!strstr(result.note, "no summary") ||
	    !strstr(result.note, "read the whole run (67108865 bytes)"))
		fail_msg("note '%s'", result.note);
	memset(&result, 0, sizeof(result));
	tp_sc_lookup_read(&request, TP_LOOKUP_FULL, &result, NULL);
	assert_int_equal(result.status, TP_ERR_LIMIT);
	if (!strstr(result.error, "over slurmctld's lookup limit of 64 MiB, "
	                          "placed without it") ||
	    !strstr(result.error, "bytes > limit 67108864"))
		fail_msg("error '%s'", result.error);

	/* One byte under the limit is read (and then refused as garbage). */
	assert_int_equal(truncate(path, (off_t)TP_LOOKUP_PROFILE_MAX_BYTES - 1),
	                 0);
	memset(&result, 0, sizeof(result));
	tp_sc_lookup_read(&request, TP_LOOKUP_FULL, &result, NULL);
	assert_int_not_equal(result.status, TP_ERR_LIMIT);
	assert_int_not_equal(result.status, TP_OK);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/*
 * An interactive step reads at most a third of RemapMemory of a profile
 * (decoding takes about three times the file), never more than
 * slurmctld's cap (task/topoplace, topoplace.conf(5) RemapMemory).
 */
static void test_step_profile_limit_is_a_third_of_remap_memory(void **state)
{
	(void)state;
	assert_int_equal(tp_sc_step_profile_max_bytes(96ull << 20),
	                 32ull << 20);
	assert_int_equal(tp_sc_step_profile_max_bytes(16ull << 20),
	                 (16ull << 20) / 3);
	/* The default RemapMemory (256 MiB) and anything larger: 64 MiB. */
	assert_int_equal(tp_sc_step_profile_max_bytes(256ull << 20),
	                 TP_LOOKUP_PROFILE_MAX_BYTES);
	assert_int_equal(tp_sc_step_profile_max_bytes(16ull << 30),
	                 TP_LOOKUP_PROFILE_MAX_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_results_come_back_in_order_and_once),
	    cmocka_unit_test(test_wait_is_bounded_behind_a_stuck_reader),
	    cmocka_unit_test(test_wait_for_the_only_lookup_returns_its_result),
	    cmocka_unit_test(test_forgotten_jobs_are_not_read_or_are_discarded),
	    cmocka_unit_test(test_queue_is_bounded_and_slots_are_reused),
	    cmocka_unit_test(test_stop_with_work_queued_and_a_read_in_progress),
	    cmocka_unit_test(test_bad_arguments_are_refused),
	    cmocka_unit_test(
	        test_real_reader_refuses_a_profile_over_the_lookup_limit),
	    cmocka_unit_test(test_small_lookup_is_not_queued_behind_a_big_one),
	    cmocka_unit_test(
	        test_step_profile_limit_is_a_third_of_remap_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
