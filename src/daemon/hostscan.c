/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "hostscan.h"
#include "macro.h"

typedef struct Request {
	int64_t host;
	const char *reason;
} Request;

struct HostScanner {
	sd_event *event;
	sd_event_source *source;
	int rootfd;
	const ScanIo *io;
	void *io_userdata;
	int efd;
	HostScanCallbacks cb;
	void *userdata;

	Request *queue; /* waiting to run, in the loop's thread only */
	size_t n_queue;

	/* The running scan. Fields below the lock are shared with the scan thread. */
	bool running;
	pthread_t thread;
	Request current;
	ScanSelector sel;
	pthread_mutex_t lock;
	ScanAction *actions; /* decided, not yet handed to the loop */
	ScanPolicy pol;
	bool have_pol;
	pthread_mutex_t *serialize;
	size_t n_actions;
	bool finished;
	int result;
	ScanResult res;

	unsigned n_done;
};

static void wake(HostScanner *s)
{
	uint64_t one = 1;

	/* A full counter still wakes the loop: the write is only a doorbell. */
	(void)!write(s->efd, &one, sizeof(one));
}

/* In the scan thread, with the engine's lock held: copy the action for the loop. */
static void on_engine_event(void *userdata, const ScanEvent *ev)
{
	HostScanner *s = userdata;
	ScanAction *v;

	if (ev->kind != SCAN_EVENT_ACTION || !ev->action || ev->action->kind == SCAN_ACTION_PROBE)
		return;
	pthread_mutex_lock(&s->lock);
	v = reallocarray(s->actions, s->n_actions + 1, sizeof(*v));
	if (v) {
		s->actions = v;
		s->actions[s->n_actions++] = *ev->action;
	}
	pthread_mutex_unlock(&s->lock);
	wake(s);
}

static void *scan_thread(void *arg)
{
	HostScanner *s = arg;
	ScanContext ctx = {
		.rootfd = s->rootfd,
		.io = s->io,
		.io_userdata = s->io_userdata,
		.event = on_engine_event,
		.event_userdata = s,
	};
	ScanResult res = {};
	int r;

	if (s->have_pol)
		ctx.policy = &s->pol;
	if (s->serialize)
		pthread_mutex_lock(s->serialize);
	r = scan_run(&ctx, s->current.host == SCAN_ANY ? NULL : &s->sel,
	             s->current.host == SCAN_ANY ? 0 : 1, SCAN_ADD, &res);
	if (s->serialize)
		pthread_mutex_unlock(s->serialize);
	pthread_mutex_lock(&s->lock);
	s->result = r;
	s->res = res;
	s->finished = true;
	pthread_mutex_unlock(&s->lock);
	wake(s);
	return NULL;
}

static int start_next(HostScanner *s)
{
	int r;

	while (!s->running && s->n_queue > 0) {
		s->current = s->queue[0];
		memmove(s->queue, s->queue + 1, (s->n_queue - 1) * sizeof(*s->queue));
		s->n_queue--;
		s->sel = (ScanSelector){
			.host = s->current.host,
			.channel = SCAN_ANY,
			.target = SCAN_ANY,
			.lun = SCAN_ANY,
		};
		s->finished = false;
		s->result = 0;
		s->res = (ScanResult){};
		r = -pthread_create(&s->thread, NULL, scan_thread, s);
		if (r == 0) {
			s->running = true;
			return 0;
		}
		/* No thread: report the scan as failed rather than block the loop with it. */
		if (s->cb.done)
			s->cb.done(s->userdata, s->current.host, s->current.reason, r, NULL);
		s->n_done++;
	}
	return 0;
}

/* Hand what the thread decided to the loop; reap a finished scan and start the next. */
static void drain(HostScanner *s)
{
	ScanAction *actions;
	size_t n;
	bool finished;

	pthread_mutex_lock(&s->lock);
	actions = TAKE_PTR(s->actions);
	n = s->n_actions;
	s->n_actions = 0;
	finished = s->finished;
	pthread_mutex_unlock(&s->lock);

	for (size_t i = 0; i < n && s->cb.action; i++)
		s->cb.action(s->userdata, &actions[i]);
	free(actions);

	if (!s->running || !finished)
		return;
	pthread_join(s->thread, NULL);
	s->running = false;
	s->n_done++;
	if (s->cb.done)
		s->cb.done(s->userdata, s->current.host, s->current.reason, s->result,
		           s->result >= 0 ? &s->res : NULL);
	scan_result_done(&s->res);
	(void)start_next(s);
}

static int on_eventfd(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	HostScanner *s = userdata;
	uint64_t v;

	(void)!read(fd, &v, sizeof(v));
	drain(s);
	return 0;
}

int host_scanner_new(sd_event *e, int rootfd, const HostScanCallbacks *cb, void *userdata,
                     HostScanner **ret)
{
	HostScanner *s;
	int r;

	assert_return(e && rootfd >= 0 && cb && ret, -EINVAL);

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->event = sd_event_ref(e);
	s->rootfd = rootfd;
	s->cb = *cb;
	s->userdata = userdata;
	pthread_mutex_init(&s->lock, NULL);
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->efd < 0) {
		r = -errno;
		host_scanner_free(s);
		return r;
	}
	r = sd_event_add_io(e, &s->source, s->efd, EPOLLIN, on_eventfd, s);
	if (r < 0) {
		host_scanner_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

void host_scanner_set_io(HostScanner *s, const ScanIo *io, void *io_userdata)
{
	s->io = io;
	s->io_userdata = io_userdata;
}

void host_scanner_set_policy(HostScanner *s, const ScanPolicy *pol, pthread_mutex_t *serialize)
{
	s->have_pol = pol;
	if (pol)
		s->pol = *pol;
	s->serialize = serialize;
}

HostScanner *host_scanner_free(HostScanner *s)
{
	if (!s)
		return NULL;
	if (s->running) {
		pthread_join(s->thread, NULL);
		scan_result_done(&s->res);
	}
	sd_event_source_disable_unref(s->source);
	sd_event_unref(s->event);
	if (s->efd >= 0)
		close(s->efd);
	free(s->actions);
	free(s->queue);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return NULL;
}

int host_scanner_queue(HostScanner *s, int64_t host, const char *reason)
{
	Request *v;

	assert_return(s && reason, -EINVAL);

	/* Merge: a queued scan of every host covers any one host; a host queued once is enough. */
	for (size_t i = 0; i < s->n_queue; i++)
		if (s->queue[i].host == SCAN_ANY || s->queue[i].host == host)
			return 0;
	if (host == SCAN_ANY)
		s->n_queue = 0;
	v = reallocarray(s->queue, s->n_queue + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->queue = v;
	s->queue[s->n_queue++] = (Request){ host, reason };
	return start_next(s);
}

bool host_scanner_busy(const HostScanner *s)
{
	return s && (s->running || s->n_queue > 0);
}

unsigned host_scanner_n_done(const HostScanner *s)
{
	return s ? s->n_done : 0;
}
