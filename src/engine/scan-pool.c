/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The worker pool: host jobs and the target jobs they queue, run by up to pol.max_workers
 * threads. The queue is a FIFO under Scan.lock; the pool is done when the queue is empty and no
 * worker is running a job (a running job may still queue more).
 *
 * The pool starts with one worker and grows by one every SCAN_POOL_GROW_MS while jobs wait and
 * every worker is busy: a target answers REPORT LUNS in well under a millisecond, and then one
 * thread drains the queue before a second would have started (eight threads started up front
 * were a sixth of lunctl rescan's own time on a 1-vCPU guest); a slow or dead target (up to its
 * command timeout) has the pool at its full width within 8 * SCAN_POOL_GROW_MS.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "macro.h"
#include "scan-private.h"

int scan_push_job_locked(Scan *s, Job j)
{
	if (s->q_head + s->q_len == s->q_cap) {
		if (s->q_head > 0) {
			memmove(s->queue, s->queue + s->q_head, s->q_len * sizeof(Job));
			s->q_head = 0;
		} else if (GREEDY_REALLOC(s->queue, s->q_cap, s->q_len + 1) < 0) {
			return s->fatal = -ENOMEM;
		}
	}
	s->queue[s->q_head + s->q_len++] = j;
	/* one job, one idle worker: waking them all for it only has them queue on the lock */
	pthread_cond_signal(&s->cond);
	return 0;
}

#define SCAN_POOL_GROW_MS 10u

static bool pool_done_locked(const Scan *s)
{
	return s->q_len == 0 && s->running == 0;
}

static void *worker(void *arg)
{
	Scan *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		Job j;

		while (s->q_len == 0 && s->running > 0)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->q_len == 0)
			break;
		j = s->queue[s->q_head++];
		s->q_len--;
		s->running++;
		pthread_mutex_unlock(&s->lock);

		if (j.is_host)
			scan_run_host(s, &s->hosts[j.index]);
		else {
			TargetJob *tj;

			pthread_mutex_lock(&s->lock);
			tj = s->targets[j.index]; /* the pointer array may move, not *tj */
			pthread_mutex_unlock(&s->lock);
			scan_run_target(s, tj);
		}

		pthread_mutex_lock(&s->lock);
		s->running--;
		/* The idle workers wait for a job or for the end: no job queued and none
		 * running, when no job can queue another. */
		if (pool_done_locked(s)) {
			pthread_cond_broadcast(&s->cond);
			pthread_cond_signal(&s->pool_cond);
		}
	}
	pthread_cond_broadcast(&s->cond);
	pthread_cond_signal(&s->pool_cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void deadline_after_ms(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_nsec += (long)ms * 1000000L;
	ts->tv_sec += ts->tv_nsec / 1000000000L;
	ts->tv_nsec %= 1000000000L;
}

int scan_pool_run(Scan *s)
{
	_cleanup_free_ pthread_t *threads = NULL;
	unsigned n_threads = 0;

	threads = calloc(s->pol.max_workers, sizeof(*threads));
	if (!threads)
		return -ENOMEM;

	pthread_mutex_lock(&s->lock);
	while (!pool_done_locked(s)) {
		struct timespec deadline;

		/* One more worker when none is idle, and none while one is: a worker that
		 * has not yet taken its job counts as idle. */
		if (s->q_len > 0 && s->running >= n_threads && n_threads < s->pol.max_workers) {
			if (pthread_create(&threads[n_threads], NULL, worker, s) == 0)
				n_threads++;
			else if (n_threads == 0)
				break; /* no thread at all: run the jobs here, below */
		}
		if (n_threads == 0)
			break;
		deadline_after_ms(&deadline, SCAN_POOL_GROW_MS);
		(void)pthread_cond_timedwait(&s->pool_cond, &s->lock, &deadline);
	}
	pthread_mutex_unlock(&s->lock);
	if (n_threads == 0)
		worker(s); /* one job at a time, in this thread */
	for (unsigned i = 0; i < n_threads; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
