/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "grow.h"
#include "hostscan.h"
#include "macro.h"
#include "worker.h"

typedef HostScanRequest Request;

static void request_done(Request *r)
{
	free(r->sel);
	free(r->reason);
	*r = (Request){};
}

/* What the scan thread saw, copied for the loop. */
typedef struct Note {
	ScanEventKind kind;
	union {
		ScanAction action;
		ScanHost host;
		ScanTarget target;
	};
	unsigned targets_done, targets_total, hosts_total;
} Note;

/*
 * The loop holds one reference, the running scan's worker job another: a scan that outlives
 * host_scanner_shutdown() (a kernel write that does not return) keeps what it writes to.
 */
struct HostScanner {
	unsigned n_ref;
	sd_event *event;
	sd_event_source *source;
	Worker *worker; /* one thread: one scan at a time; made for the first scan */
	int rootfd;
	const ScanIo *io;
	void *io_userdata;
	int efd; /* the loop's doorbell for notes */
	HostScanCallbacks cb;
	void *userdata;

	Request *queue; /* waiting to run, in the loop's thread only */
	size_t n_queue;

	/* The running scan. The job reads these while it runs; the loop changes them only when
	 * no job runs. */
	bool running;
	Request current;
	ScanPolicy pol;
	bool have_pol;
	pthread_mutex_t *serialize;
	/* The job's result, written before it returns (the worker hands it to the loop). */
	ScanResult res;

	pthread_mutex_t lock; /* notes, shared with the running job */
	Note *notes;          /* decided or seen, not yet handed to the loop */
	size_t n_notes;

	unsigned n_done;
};

static void scanner_free_memory(HostScanner *s)
{
	if (s->efd >= 0)
		close(s->efd);
	free(s->notes);
	scan_result_done(&s->res);
	request_done(&s->current);
	for (size_t i = 0; i < s->n_queue; i++)
		request_done(&s->queue[i]);
	free(s->queue);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static HostScanner *scanner_ref(HostScanner *s)
{
	__atomic_add_fetch(&s->n_ref, 1, __ATOMIC_RELAXED);
	return s;
}

/* In either thread: the loop's, or the worker thread that lets go of a scan last. */
static void scanner_unref(HostScanner *s)
{
	if (__atomic_sub_fetch(&s->n_ref, 1, __ATOMIC_ACQ_REL) == 0)
		scanner_free_memory(s);
}

static void wake(HostScanner *s)
{
	uint64_t one = 1;

	/* A full counter still wakes the loop: the write is only a doorbell. */
	(void)!write(s->efd, &one, sizeof(one));
}

static uint64_t now_usec(HostScanner *s)
{
	uint64_t u = 0;

	if (s->event)
		(void)sd_event_now(s->event, CLOCK_MONOTONIC, &u);
	return u;
}

int64_t host_scan_request_host(const HostScanRequest *req)
{
	int64_t h;

	if (!req || req->n_sel == 0)
		return SCAN_ANY;
	h = req->sel[0].host;
	for (size_t i = 1; i < req->n_sel; i++)
		if (req->sel[i].host != h)
			return SCAN_ANY;
	return h;
}

/* In the scan thread, with the engine's lock held: copy what the loop wants to see. */
static void on_engine_event(void *userdata, const ScanEvent *ev)
{
	HostScanner *s = userdata;
	Note n = { .kind = ev->kind,
		   .targets_done = ev->targets_done,
		   .targets_total = ev->targets_total,
		   .hosts_total = ev->hosts_total };

	switch (ev->kind) {
	case SCAN_EVENT_ACTION:
		if (!ev->action || ev->action->kind == SCAN_ACTION_PROBE)
			return;
		n.action = *ev->action;
		break;
	case SCAN_EVENT_HOST_BEGIN:
		if (!ev->host)
			return;
		n.host = *ev->host;
		break;
	case SCAN_EVENT_TARGET_DONE:
		if (!ev->target)
			return;
		n.target = *ev->target;
		break;
	default:
		return;
	}
	pthread_mutex_lock(&s->lock);
	if (GREEDY_REALLOC_EXACT(s->notes, s->n_notes + 1) >= 0)
		s->notes[s->n_notes++] = n;
	pthread_mutex_unlock(&s->lock);
	wake(s);
}

/* In the worker's thread: the scan itself. */
static int scan_job_run(void *data)
{
	HostScanner *s = data;
	ScanContext ctx = {
		.rootfd = s->rootfd,
		.io = s->io,
		.io_userdata = s->io_userdata,
		.event = on_engine_event,
		.event_userdata = s,
	};
	ScanPolicy pol = s->current.pol;
	ScanResult res = {};
	int r;

	/* The request's own limits, the owner's quirks. */
	if (s->have_pol) {
		pol.quirk = s->pol.quirk;
		pol.leave = s->pol.leave;
		pol.userdata = s->pol.userdata;
	}
	ctx.policy = &pol;
	if (s->serialize)
		pthread_mutex_lock(s->serialize);
	r = scan_run(&ctx, s->current.n_sel > 0 ? s->current.sel : NULL, s->current.n_sel,
	             s->current.flags, &res);
	if (s->serialize)
		pthread_mutex_unlock(s->serialize);
	s->res = res;
	return r;
}

static void scan_job_done(void *data, int r);

static void scan_job_free(void *data)
{
	scanner_unref(data);
}

static int start_next(HostScanner *s)
{
	int r;

	while (!s->running && s->n_queue > 0) {
		s->current = s->queue[0];
		memmove(s->queue, s->queue + 1, (s->n_queue - 1) * sizeof(*s->queue));
		s->n_queue--;
		if (s->current.owner && s->cb.wanted && !s->cb.wanted(s->userdata, &s->current)) {
			if (s->cb.done)
				s->cb.done(s->userdata, &s->current, -ECANCELED, NULL);
			request_done(&s->current);
			continue;
		}
		s->current.started_usec = now_usec(s);
		s->res = (ScanResult){};
		s->running = true;
		/* The thread comes with the first scan: a lund that never scans has none. */
		r = s->worker ? 0 : worker_new(s->event, "host-scan", 1, &s->worker);
		/* No deadline: a scan takes as long as the kernel's probes (shutdown has one). */
		if (r >= 0)
			r = worker_submit(s->worker, scan_job_run, scan_job_done, scan_job_free,
			                  scanner_ref(s), 0);
		if (r >= 0)
			return 0;
		/* Not started: report the scan as failed rather than block the loop with it. */
		s->running = false;
		if (s->cb.done)
			s->cb.done(s->userdata, &s->current, r, NULL);
		request_done(&s->current);
		s->n_done++;
	}
	return 0;
}

/* Hand what the running scan decided or saw to the loop. */
static void drain(HostScanner *s)
{
	Note *notes;
	size_t n;

	pthread_mutex_lock(&s->lock);
	notes = TAKE_PTR(s->notes);
	n = s->n_notes;
	s->n_notes = 0;
	pthread_mutex_unlock(&s->lock);

	for (size_t i = 0; i < n && s->cb.event && s->running; i++) {
		ScanEvent ev = {
			.kind = notes[i].kind,
			.targets_done = notes[i].targets_done,
			.targets_total = notes[i].targets_total,
			.hosts_total = notes[i].hosts_total,
		};

		if (ev.kind == SCAN_EVENT_ACTION)
			ev.action = &notes[i].action;
		else if (ev.kind == SCAN_EVENT_HOST_BEGIN)
			ev.host = &notes[i].host;
		else
			ev.target = &notes[i].target;
		s->cb.event(s->userdata, &s->current, &ev);
	}
	free(notes);
}

/* In the loop: the scan ended. Its last notes first, then its result; then the next scan. */
static void scan_job_done(void *data, int r)
{
	HostScanner *s = data;
	Request current;
	ScanResult res;

	drain(s);
	s->running = false;
	s->n_done++;
	/* The callback may queue the next request: the finished one is ours from here on. */
	current = s->current;
	s->current = (Request){};
	res = s->res;
	s->res = (ScanResult){};
	if (s->cb.done)
		s->cb.done(s->userdata, &current, r, r >= 0 ? &res : NULL);
	scan_result_done(&res);
	request_done(&current);
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
	s->n_ref = 1;
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

/* The loop lets go: its callbacks are never called again. A scan still running keeps the
 * rest until it ends (scan_job_free()). */
static HostScanner *scanner_release(HostScanner *s)
{
	s->source = sd_event_source_disable_unref(s->source);
	s->event = sd_event_unref(s->event);
	scanner_unref(s);
	return NULL;
}

HostScanner *host_scanner_free(HostScanner *s)
{
	if (!s)
		return NULL;
	(void)worker_shutdown(TAKE_PTR(s->worker), WORKER_WAIT_FOREVER);
	return scanner_release(s);
}

int host_scanner_shutdown(HostScanner *s, uint64_t grace_usec)
{
	int r;

	if (!s)
		return 0;
	/* A scan stuck in the kernel (a scan write that does not return) is left to its thread,
	 * which lets go of the scanner if the kernel ever does. */
	r = worker_shutdown(TAKE_PTR(s->worker), grace_usec);
	scanner_release(s);
	return r == -ETIMEDOUT ? -ETIMEDOUT : 0;
}

int host_scanner_queue(HostScanner *s, int64_t host, const char *reason)
{
	ScanSelector sel = {
		.host = host,
		.channel = SCAN_ANY,
		.target = SCAN_ANY,
		.lun = SCAN_ANY,
	};

	return host_scanner_queue_full(s, &sel, SCAN_ADD, reason);
}

static bool request_covers(const Request *q, const ScanSelector *sel, ScanFlags flags)
{
	if (q->owner || q->flags != flags)
		return false;
	if (q->n_sel == 0)
		return true;
	return q->n_sel == 1 && q->sel[0].host == sel->host && q->sel[0].channel == sel->channel &&
	       q->sel[0].target == sel->target && q->sel[0].lun == sel->lun;
}

static int queue_append(HostScanner *s, const Request *req)
{
	Request n = *req;

	n.sel = NULL;
	n.reason = strdup(req->reason ?: "");
	if (req->n_sel > 0)
		n.sel = reallocarray(NULL, req->n_sel, sizeof(*n.sel));
	if (!n.reason || (req->n_sel > 0 && !n.sel)) {
		request_done(&n);
		return -ENOMEM;
	}
	if (req->n_sel > 0)
		memcpy(n.sel, req->sel, req->n_sel * sizeof(*n.sel));
	n.queued_usec = now_usec(s);
	n.started_usec = 0;
	if (GREEDY_REALLOC_EXACT(s->queue, s->n_queue + 1) < 0) {
		request_done(&n);
		return -ENOMEM;
	}
	s->queue[s->n_queue++] = n;
	return start_next(s);
}

int host_scanner_queue_full(HostScanner *s, const ScanSelector *sel, ScanFlags flags,
                            const char *reason)
{
	size_t k = 0;
	bool all;

	assert_return(s && sel && reason, -EINVAL);

	all = sel->host == SCAN_ANY;
	/* Merge: a queued scan of every host covers any other of the same kind; one queued
	 * request for the same LUs is enough. Clients' requests are never merged: each gets
	 * its own reply. */
	for (size_t i = 0; i < s->n_queue; i++)
		if (request_covers(&s->queue[i], sel, flags))
			return 0;
	if (all) {
		for (size_t i = 0; i < s->n_queue; i++)
			if (s->queue[i].owner || s->queue[i].flags != flags)
				s->queue[k++] = s->queue[i];
			else
				request_done(&s->queue[i]);
		s->n_queue = k;
	}
	return queue_append(s, &(Request){
	                               .sel = all ? NULL : (ScanSelector *)sel,
	                               .n_sel = all ? 0 : 1,
	                               .flags = flags,
	                               .reason = (char *)reason,
	                       });
}

int host_scanner_submit(HostScanner *s, const HostScanRequest *req)
{
	size_t owned = 0;

	assert_return(s && req && req->owner && (req->sel || req->n_sel == 0), -EINVAL);

	for (size_t i = 0; i < s->n_queue; i++)
		owned += !!s->queue[i].owner;
	if (owned >= HOST_SCAN_QUEUE_MAX)
		return -EBUSY;
	return queue_append(s, req);
}

int host_scanner_cancel(HostScanner *s, const void *owner)
{
	if (!s || !owner)
		return -ENOENT;
	if (s->running && s->current.owner == owner)
		return -EBUSY;
	for (size_t i = 0; i < s->n_queue; i++)
		if (s->queue[i].owner == owner) {
			request_done(&s->queue[i]);
			memmove(s->queue + i, s->queue + i + 1,
			        (s->n_queue - i - 1) * sizeof(*s->queue));
			s->n_queue--;
			return 0;
		}
	return -ENOENT;
}

const HostScanRequest *host_scanner_current(const HostScanner *s)
{
	return s && s->running ? &s->current : NULL;
}

const HostScanRequest *host_scanner_queued(const HostScanner *s, size_t i)
{
	return s && i < s->n_queue ? &s->queue[i] : NULL;
}

size_t host_scanner_n_queued(const HostScanner *s)
{
	return s ? s->n_queue : 0;
}

bool host_scanner_running(const HostScanner *s)
{
	return s && s->running;
}

bool host_scanner_busy(const HostScanner *s)
{
	return s && (s->running || s->n_queue > 0);
}

unsigned host_scanner_n_done(const HostScanner *s)
{
	return s ? s->n_done : 0;
}
