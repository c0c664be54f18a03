/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "worker.h"

typedef enum JobState {
	JOB_QUEUED,
	JOB_RUNNING,
	JOB_FINISHED,
} JobState;

typedef struct Job {
	struct Job *next;
	WorkerRunFn run;
	WorkerDoneFn done;
	WorkerFreeFn free_data;
	void *data;
	uint64_t deadline; /* CLOCK_MONOTONIC µs; UINT64_MAX: none */
	JobState state;    /* under the lock */
	bool reported;     /* done called (the result or -ETIMEDOUT); loop only */
	int result;
} Job;

struct Worker {
	sd_event *event;
	sd_event_source *io, *timer;
	int efd;
	pthread_mutex_t lock;
	pthread_cond_t work;  /* a job queued, or stopping */
	pthread_cond_t ended; /* a thread ended */
	Job *jobs;            /* every job not yet freed, oldest first; list changed by the loop */
	Job **tail;           /* where the next job goes: the last job's next, or &jobs */
	/* No queued job before this one (NULL: look from the start): the threads take jobs in
	 * order, so each looks on from where the last one was taken, not over every job still
	 * listed (thousands while a storm of LUs is identified). */
	Job *scan;
	size_t n_deadlines; /* jobs listed with a deadline: none, no timer to arm */
	uint64_t armed;     /* when the timer fires; UINT64_MAX: off */
	unsigned live;      /* threads running */
	bool stopping;
	bool abandoned; /* the loop side is gone: the last thread frees the rest */
	size_t n_pending;
	uint64_t n_timed_out;
};

/* Worker threads alive in the process, abandoned ones included. */
static unsigned live_threads;

static void job_free(Job *j)
{
	if (j->free_data)
		j->free_data(j->data);
	free(j);
}

static void worker_free_memory(Worker *w)
{
	for (Job *j = w->jobs, *next; j; j = next) {
		next = j->next;
		job_free(j);
	}
	safe_close(w->efd);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->ended);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

static void *worker_thread(void *arg)
{
	Worker *w = arg;
	bool last;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		Job *j = NULL;
		int r;

		for (Job *k = w->scan ?: w->jobs; k && !w->stopping; k = k->next)
			if (k->state == JOB_QUEUED) {
				j = k;
				break;
			}
		if (!j) {
			if (w->stopping)
				break;
			pthread_cond_wait(&w->work, &w->lock);
			continue;
		}
		j->state = JOB_RUNNING;
		w->scan = j;
		pthread_mutex_unlock(&w->lock);
		r = j->run(j->data);
		pthread_mutex_lock(&w->lock);
		j->result = r;
		j->state = JOB_FINISHED;
		if (!w->abandoned) {
			uint64_t one = 1;

			(void)!write(w->efd, &one, sizeof(one));
		}
	}
	last = --w->live == 0 && w->abandoned;
	pthread_cond_broadcast(&w->ended);
	pthread_mutex_unlock(&w->lock);
	if (last)
		worker_free_memory(w);
	__atomic_sub_fetch(&live_threads, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void set_timer(Worker *w, uint64_t when)
{
	w->armed = when;
	if (when == UINT64_MAX) {
		(void)sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
		return;
	}
	(void)sd_event_source_set_time(w->timer, when);
	(void)sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
}

/* The timer at the earliest deadline of a job not yet reported: a walk over every job, so
 * only when it fires. A job submitted or finished in between moves it only when that is
 * cheap (an earlier deadline, or none left); a timer that fires for a job already gone
 * finds nothing late and sets the next deadline. */
static void arm_timer(Worker *w)
{
	uint64_t next = UINT64_MAX;

	for (Job *j = w->n_deadlines > 0 ? w->jobs : NULL; j; j = j->next)
		if (!j->reported && j->deadline < next)
			next = j->deadline;
	set_timer(w, next);
}

/* Take the jobs matching @want off the list (under the lock), oldest first. */
static Job *detach(Worker *w, bool (*want)(const Job *j, uint64_t now), uint64_t now)
{
	Job *out = NULL, **tail = &out, **p;

	for (p = &w->jobs; *p;) {
		Job *j = *p;

		if (want(j, now)) {
			*p = j->next;
			j->next = NULL;
			*tail = j;
			tail = &j->next;
			if (j->deadline != UINT64_MAX)
				w->n_deadlines--;
		} else
			p = &j->next;
	}
	w->tail = p;
	w->scan = NULL; /* it may be gone */
	return out;
}

static bool is_finished(const Job *j, uint64_t now)
{
	return j->state == JOB_FINISHED;
}

static bool is_expired_queued(const Job *j, uint64_t now)
{
	return j->state == JOB_QUEUED && j->deadline <= now;
}

static bool is_queued(const Job *j, uint64_t now)
{
	return j->state == JOB_QUEUED;
}

static void report(Worker *w, Job *j, int r)
{
	if (j->reported)
		return;
	j->reported = true;
	w->n_pending--;
	if (r == -ETIMEDOUT)
		w->n_timed_out++;
	if (j->done)
		j->done(j->data, r);
}

static int on_eventfd(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Worker *w = userdata;
	uint64_t v;
	Job *done;

	(void)!read(fd, &v, sizeof(v));
	pthread_mutex_lock(&w->lock);
	done = detach(w, is_finished, 0);
	pthread_mutex_unlock(&w->lock);
	/* Callbacks may submit: the list is not walked while they run. */
	for (Job *j = done, *next; j; j = next) {
		next = j->next;
		report(w, j, j->result);
		job_free(j);
	}
	if (w->n_deadlines == 0 && w->armed != UINT64_MAX)
		set_timer(w, UINT64_MAX);
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	Worker *w = userdata;
	Job *dropped, *late[64];
	size_t n = 0;

	pthread_mutex_lock(&w->lock);
	dropped = detach(w, is_expired_queued, usec);
	for (Job *j = w->jobs; j && n < ELEMENTSOF(late); j = j->next)
		if (!j->reported && j->state == JOB_RUNNING && j->deadline <= usec)
			late[n++] = j; /* its thread lets go of it later */
	pthread_mutex_unlock(&w->lock);
	for (size_t i = 0; i < n; i++)
		report(w, late[i], -ETIMEDOUT);
	for (Job *j = dropped, *next; j; j = next) {
		next = j->next;
		report(w, j, -ETIMEDOUT);
		job_free(j);
	}
	arm_timer(w);
	return 0;
}

int worker_new(sd_event *e, const char *name, unsigned n_threads, Worker **ret)
{
	Worker *w;
	int r;

	assert_return(e && ret && n_threads > 0, -EINVAL);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->ended, NULL);
	w->tail = &w->jobs;
	w->armed = UINT64_MAX;
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0) {
		r = -errno;
		worker_free_memory(w);
		return r;
	}
	w->event = sd_event_ref(e);
	r = sd_event_add_io(e, &w->io, w->efd, EPOLLIN, on_eventfd, w);
	if (r >= 0)
		r = sd_event_add_time(e, &w->timer, CLOCK_MONOTONIC, UINT64_MAX, 0, on_timer, w);
	if (r >= 0)
		r = sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
	if (r >= 0) {
		(void)sd_event_source_set_description(w->io, name);
		(void)sd_event_source_set_description(w->timer, name);
	}
	for (unsigned i = 0; r >= 0 && i < n_threads; i++) {
		pthread_t t;

		pthread_mutex_lock(&w->lock);
		w->live++;
		pthread_mutex_unlock(&w->lock);
		__atomic_add_fetch(&live_threads, 1, __ATOMIC_ACQUIRE);
		r = -pthread_create(&t, NULL, worker_thread, w);
		if (r < 0) {
			__atomic_sub_fetch(&live_threads, 1, __ATOMIC_RELEASE);
			pthread_mutex_lock(&w->lock);
			w->live--;
			pthread_mutex_unlock(&w->lock);
			if (i > 0)
				r = 0; /* fewer threads, still a worker */
			break;
		}
		pthread_detach(t);
	}
	if (r < 0) {
		(void)worker_shutdown(w, 0);
		return r;
	}
	*ret = w;
	return 0;
}

int worker_submit(Worker *w, WorkerRunFn run, WorkerDoneFn done, WorkerFreeFn free_data, void *data,
                  uint64_t timeout_usec)
{
	Job *j;
	uint64_t now = 0;

	if (!w || !run) {
		if (free_data)
			free_data(data);
		return -EINVAL;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		if (free_data)
			free_data(data);
		return -ENOMEM;
	}
	(void)sd_event_now(w->event, CLOCK_MONOTONIC, &now);
	*j = (Job){
		.run = run,
		.done = done,
		.free_data = free_data,
		.data = data,
		.deadline = timeout_usec ? now + timeout_usec : UINT64_MAX,
		.state = JOB_QUEUED,
	};
	pthread_mutex_lock(&w->lock);
	*w->tail = j;
	w->tail = &j->next;
	if (j->deadline != UINT64_MAX)
		w->n_deadlines++;
	w->n_pending++;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	if (j->deadline < w->armed)
		set_timer(w, j->deadline);
	return 0;
}

unsigned worker_live_threads(void)
{
	return __atomic_load_n(&live_threads, __ATOMIC_ACQUIRE);
}

size_t worker_n_pending(const Worker *w)
{
	return w ? w->n_pending : 0;
}

uint64_t worker_n_timed_out(const Worker *w)
{
	return w ? w->n_timed_out : 0;
}

int worker_shutdown(Worker *w, uint64_t grace_usec)
{
	struct timespec until;
	Job *queued;
	bool gone;

	if (!w)
		return 0;
	w->io = sd_event_source_disable_unref(w->io);
	w->timer = sd_event_source_disable_unref(w->timer);
	w->event = sd_event_unref(w->event);

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(grace_usec / 1000000ULL);
	until.tv_nsec += (long)(grace_usec % 1000000ULL) * 1000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	queued = detach(w, is_queued, 0);
	pthread_cond_broadcast(&w->work);
	while (w->live > 0)
		if (grace_usec == WORKER_WAIT_FOREVER)
			pthread_cond_wait(&w->ended, &w->lock);
		else if (pthread_cond_timedwait(&w->ended, &w->lock, &until) != 0)
			break;
	gone = w->live == 0;
	if (!gone)
		w->abandoned = true; /* the last thread out frees the worker */
	pthread_mutex_unlock(&w->lock);
	for (Job *j = queued, *next; j; j = next) {
		next = j->next;
		job_free(j);
	}
	if (!gone)
		return -ETIMEDOUT;
	worker_free_memory(w);
	return 0;
}
