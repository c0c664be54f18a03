/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Jobs off the event loop (daemon/worker.c): they run in worker threads, their results come back
 * in the loop's thread, in order on one thread; a job past its deadline is reported -ETIMEDOUT
 * while it still hangs, its late result dropped; shutdown gives hung jobs a grace period and
 * never waits beyond it.
 */

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "check-util.h"
#include "macro.h"
#include "worker.h"

static pthread_t loop_thread;

typedef struct Rec {
	int id;
	int result;
	bool ran_in_loop;   /* run() was called in the loop's thread: wrong */
	bool done_off_loop; /* done() was called off the loop's thread: wrong */
	bool hang;
} Rec;

static Rec *done_order[16];
static size_t n_done;
static unsigned n_freed;
static volatile bool release;

static void setup(void)
{
	loop_thread = pthread_self();
	n_done = 0;
	n_freed = 0;
	release = false;
}

static int job_run(void *data)
{
	Rec *r = data;

	if (pthread_equal(pthread_self(), loop_thread))
		r->ran_in_loop = true;
	while (r->hang && !__atomic_load_n(&release, __ATOMIC_ACQUIRE))
		usleep(1000);
	return -r->id;
}

static void job_done(void *data, int result)
{
	Rec *r = data;

	if (!pthread_equal(pthread_self(), loop_thread))
		r->done_off_loop = true;
	r->result = result;
	if (n_done < ELEMENTSOF(done_order))
		done_order[n_done++] = r;
}

static void job_free(void *data)
{
	__atomic_add_fetch(&n_freed, 1, __ATOMIC_RELEASE);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	return sd_event_exit(sd_event_source_get_event(s), -ETIMEDOUT);
}

/* Run the loop until @want results came back (10 s at most). */
static void run_until(sd_event *e, size_t want)
{
	sd_event_source *t = NULL;

	ck_assert_int_ge(sd_event_add_time_relative(e, &t, CLOCK_MONOTONIC, 10 * 1000000ULL, 0,
	                                            on_timeout, NULL),
	                 0);
	while (n_done < want)
		ck_assert_int_ge(sd_event_run(e, UINT64_MAX), 0);
	sd_event_source_disable_unref(t);
}

/* One thread: results in submission order, each in the loop's thread, data freed after. */
START_TEST(test_order)
{
	static Rec recs[5];
	sd_event *e = NULL;
	Worker *w = NULL;

	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_eq(worker_new(e, "test", 1, &w), 0);
	for (int i = 0; i < 5; i++) {
		recs[i] = (Rec){ .id = i + 1 };
		ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &recs[i], 0), 0);
	}
	ck_assert_uint_eq(worker_n_pending(w), 5);
	run_until(e, 5);
	for (int i = 0; i < 5; i++) {
		ck_assert_ptr_eq(done_order[i], &recs[i]);
		ck_assert_int_eq(recs[i].result, -(i + 1));
		ck_assert(!recs[i].ran_in_loop);
		ck_assert(!recs[i].done_off_loop);
	}
	ck_assert_uint_eq(worker_n_pending(w), 0);
	ck_assert_uint_eq(n_freed, 5);
	ck_assert_int_eq(worker_shutdown(w, 1000000), 0);
	sd_event_unref(e);
}
END_TEST

/*
 * Jobs that hang (rescan writes the kernel never finishes) are reported -ETIMEDOUT at their
 * deadlines while the loop goes on; one queued while every thread hangs times out unrun. Late
 * results are dropped, their data freed once their threads let go.
 */
START_TEST(test_deadline)
{
	static Rec hung, behind, other;
	sd_event *e = NULL;
	Worker *w = NULL;

	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_eq(worker_new(e, "test", 2, &w), 0);
	hung = (Rec){ .id = 1, .hang = true };
	behind = (Rec){ .id = 2, .hang = true };
	other = (Rec){ .id = 3 };
	ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &hung, 100 * 1000), 0);
	ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &behind, 200 * 1000), 0);
	run_until(e, 2);
	ck_assert_ptr_eq(done_order[0], &hung);
	ck_assert_int_eq(hung.result, -ETIMEDOUT);
	ck_assert_ptr_eq(done_order[1], &behind);
	ck_assert_int_eq(behind.result, -ETIMEDOUT);
	ck_assert_uint_eq(worker_n_timed_out(w), 2);
	ck_assert_uint_eq(worker_n_pending(w), 0);
	ck_assert_uint_eq(n_freed, 0); /* both still in their threads */

	/* Both threads hang: a new job waits, and times out in turn. */
	ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &other, 100 * 1000), 0);
	run_until(e, 3);
	ck_assert_int_eq(other.result, -ETIMEDOUT);
	ck_assert_uint_eq(n_freed, 1); /* never started: freed at once */

	__atomic_store_n(&release, true, __ATOMIC_RELEASE);
	for (int i = 0; i < 2000 && __atomic_load_n(&n_freed, __ATOMIC_ACQUIRE) < 3; i++) {
		(void)sd_event_run(e, 10 * 1000);
	}
	ck_assert_uint_eq(n_freed, 3);
	ck_assert_uint_eq(n_done, 3); /* the late results were not reported again */
	ck_assert_int_eq(worker_shutdown(w, 1000000), 0);
	sd_event_unref(e);
}
END_TEST

/*
 * A job with an earlier deadline than every listed one moves the timer forward; a timer left
 * at the deadline of a job already finished sets the next one when it fires.
 */
START_TEST(test_deadline_order)
{
	static Rec quick, slow, late, fast;
	sd_event *e = NULL;
	Worker *w = NULL;

	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_eq(worker_new(e, "test", 1, &w), 0);
	slow = (Rec){ .id = 1, .hang = true };
	late = (Rec){ .id = 2, .hang = true };
	ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &slow, 2000 * 1000), 0);
	ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &late, 100 * 1000), 0);
	run_until(e, 2);
	ck_assert_ptr_eq(done_order[0], &late); /* queued behind the hung one, not run */
	ck_assert_ptr_eq(done_order[1], &slow);
	ck_assert_int_eq(late.result, -ETIMEDOUT);
	ck_assert_int_eq(slow.result, -ETIMEDOUT);
	__atomic_store_n(&release, true, __ATOMIC_RELEASE);
	for (int i = 0; i < 2000 && __atomic_load_n(&n_freed, __ATOMIC_ACQUIRE) < 2; i++)
		(void)sd_event_run(e, 10 * 1000);
	__atomic_store_n(&release, false, __ATOMIC_RELEASE);

	/* the timer is set for the finished one's deadline, then for the hung one's */
	quick = (Rec){ .id = 3 };
	fast = (Rec){ .id = 4, .hang = true };
	ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &quick, 50 * 1000), 0);
	ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &fast, 300 * 1000), 0);
	run_until(e, 4);
	ck_assert_int_eq(quick.result, -3);
	ck_assert_int_eq(fast.result, -ETIMEDOUT);
	ck_assert_uint_eq(worker_n_timed_out(w), 3);
	__atomic_store_n(&release, true, __ATOMIC_RELEASE);
	ck_assert_int_eq(worker_shutdown(w, 1000000), 0);
	sd_event_unref(e);
}
END_TEST

/* Shutdown with a job hung in the kernel: it returns after the grace, leaving the thread. */
START_TEST(test_shutdown_hung)
{
	static Rec hung, queued;
	sd_event *e = NULL;
	Worker *w = NULL;

	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_eq(worker_new(e, "test", 1, &w), 0);
	hung = (Rec){ .id = 1, .hang = true };
	queued = (Rec){ .id = 2 };
	ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &hung, 0), 0);
	ck_assert_int_eq(worker_submit(w, job_run, job_done, job_free, &queued, 0), 0);
	usleep(50 * 1000); /* the first job is running */
	ck_assert_int_eq(worker_shutdown(w, 200 * 1000), -ETIMEDOUT);
	ck_assert_uint_eq(n_done, 0);  /* no callback after shutdown */
	ck_assert_uint_eq(n_freed, 1); /* the queued job, dropped */
	/* The kernel lets go: the abandoned thread frees the rest by itself. */
	__atomic_store_n(&release, true, __ATOMIC_RELEASE);
	for (int i = 0; i < 2000 && __atomic_load_n(&n_freed, __ATOMIC_ACQUIRE) < 2; i++)
		usleep(1000);
	ck_assert_uint_eq(n_freed, 2);
	for (int i = 0; i < 2000 && worker_live_threads() > 0; i++)
		usleep(1000);
	ck_assert_uint_eq(worker_live_threads(), 0); /* and the worker with it */
	ck_assert_uint_eq(n_done, 0);
	sd_event_unref(e);
}
END_TEST

static Suite *worker_suite(void)
{
	Suite *s = suite_create("worker");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_deadline);
	tcase_add_test(tc, test_deadline_order);
	tcase_add_test(tc, test_shutdown_hung);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(worker_suite)
