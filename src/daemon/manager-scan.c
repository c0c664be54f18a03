/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The Manager's scans: those it makes on request (`lunctl rescan`), for unit attentions and
 * error thresholds, and its host scans (--scan=, scsi_mod.scan=manual) with the wait for
 * upper-level drivers to bind before readiness.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "hostfacts.h"
#include "log.h"
#include "scan-json.h"
#include "macro.h"
#include "manager-private.h"
#include "sysfs.h"

/* After the start-up scan, upper-level drivers bind to the new LUs asynchronously (sd probes in
 * the kernel's background): readiness waits for their nodes this long at most, polling. */
#define BIND_WAIT_USEC (10 * 1000 * 1000ULL)
#define BIND_POLL_USEC (20 * 1000ULL)

/*
 * REPORTED LUNS DATA HAS CHANGED: the scan engine asks the target for its LUN inventory (REPORT
 * LUNS) and adds the LUNs the kernel lacks and removes those a *successful* report no longer
 * lists (never a mounted or held one: engine/scan.h). The kernel's uevents for what it adds or
 * removes then update the inventory and the links as any hotplug does.
 */
static void scan_progress(Manager *m, const ScanEvent *ev)
{
	json_object *o, *p;

	if (!m->scan_client)
		return;
	p = json_object_new_object();
	if (ev->kind == SCAN_EVENT_HOST_BEGIN) {
		json_object_object_add(p, "host", json_object_new_int64(ev->host->host));
		json_object_object_add(p, "driver", json_object_new_string(ev->host->proc_name));
	} else {
		json_object_object_add(p, "targets_done", json_object_new_int64(ev->targets_done));
		json_object_object_add(p, "targets_total",
		                       json_object_new_int64(ev->targets_total));
	}
	o = json_object_new_object();
	json_object_object_add(o, "progress", p);
	if (control_client_send(m->scan_client, o) < 0)
		m->scan_client = NULL; /* progress is best effort; the reply tells the rest */
	json_object_put(o);
}

/* One event of a scan, handed over by the scan thread, in the loop's thread. */
static void on_scan_event(void *userdata, const ScanEvent *ev)
{
	Manager *m = userdata;
	const ScanAction *a = ev->action;
	LogDevice dev = {};
	json_object *o;

	if (ev->kind == SCAN_EVENT_DEBUG && ev->message) {
		log_debug("scan: %s", ev->message);
		return;
	}
	if (ev->kind == SCAN_EVENT_TARGET_DONE && ev->target) {
		const ScanTarget *t = ev->target;

		if (t->error < 0)
			log_warning_errno(t->error,
			                  "scan: target %s: %m%s%s; nothing added or removed there",
			                  t->hctl, t->detail[0] ? ": " : "", t->detail);
		else if (t->method == SCAN_METHOD_SEQUENTIAL)
			log_info("scan: target %s: sequential probe: %s", t->hctl, t->detail);
	}
	if (ev->kind == SCAN_EVENT_HOST_BEGIN || ev->kind == SCAN_EVENT_TARGET_DONE) {
		scan_progress(m, ev);
		return;
	}
	if (ev->kind != SCAN_EVENT_ACTION || !a || a->kind == SCAN_ACTION_PROBE)
		return;
	dev.hctl = a->hctl;
	if (a->error < 0)
		log_device_full(LOG_WARNING, a->error, &dev, "scan: %s failed (%s): %m",
		                scan_action_kind_name(a->kind), a->reason);
	else
		log_device_full(a->kind == SCAN_ACTION_KEEP ? LOG_NOTICE : LOG_INFO, 0, &dev,
		                "scan: %s (%s)", scan_action_kind_name(a->kind), a->reason);
	o = json_object_new_object();
	json_object_object_add(o, "hctl", json_object_new_string(a->hctl));
	json_object_object_add(o, "action", json_object_new_string(scan_action_kind_name(a->kind)));
	json_object_object_add(o, "reason", json_object_new_string(a->reason));
	if (a->error < 0)
		json_object_object_add(o, "error",
		                       json_object_new_string(strerrorname_np(-a->error) ?: "EIO"));
	manager_emit(m, "scan-action", o);
}

/* ScanPolicy.quirk: the same hwdb and lund.conf scan quirks `lunctl rescan` uses. Scans run
 * from the event loop's thread; the engine's workers call this concurrently. */
int manager_scan_quirk(void *userdata, int type, const char *vendor, const char *model,
                       const char *revision, ScanQuirk *ret)
{
	Manager *m = userdata;
	char why[256] = "";
	int r;

	r = scan_quirks_lookup(m->scan_quirks, type, vendor, model, revision, ret, why,
	                       sizeof(why));
	if (r == -EINVAL) {
		if (!__atomic_exchange_n(&m->scan_quirk_warned, true, __ATOMIC_RELAXED))
			log_warning("%s, ignoring it", why);
		return 0; /* the valid keys still apply */
	}
	return r;
}

/*
 * The scans admins ask for with `lunctl rescan`. Every scan (these, unit attentions, error
 * thresholds, host scans under scsi_mod.scan=manual) runs in the scan thread (hostscan.h), one
 * after the other, holding scan_lock for the whole scan, so no two scans ever run at once. The
 * loop never waits for one: a request joins the queue behind the running scan and its client
 * gets the reply when its own scan ends, while every other client, the watchdog and SIGTERM are
 * served meanwhile. The kernel's uevents for what a scan adds or removes update the inventory
 * and the links afterwards, as any hotplug does. The hwdb and lund.conf scan quirks apply to
 * all of them.
 */
struct ScanRequest {
	Manager *m;
	ScanRequest *next;
	ControlClient *client; /* a reference */
	ScanFlags flags;
	bool progress;
	uint64_t wait_usec;
	sd_event_source *deadline; /* how long it may wait in the queue */
};

static ScanRequest *scan_request_free(ScanRequest *rq)
{
	if (!rq)
		return NULL;
	for (ScanRequest **p = &rq->m->scan_requests; *p; p = &(*p)->next)
		if (*p == rq) {
			*p = rq->next;
			break;
		}
	sd_event_source_disable_unref(rq->deadline);
	control_client_unref(rq->client);
	free(rq);
	return NULL;
}

static void scan_request_reply(ScanRequest *rq, json_object *reply)
{
	if (control_client_reply(rq->client, reply) < 0)
		log_debug("Scan request: the client pid %i is gone, its reply dropped",
		          (int)control_client_pid(rq->client));
	json_object_put(reply);
}

void manager_scan_requests_free(Manager *m)
{
	while (m->scan_requests) {
		scan_request_reply(m->scan_requests,
		                   control_error_reply(-ESHUTDOWN, "lund is stopping"));
		scan_request_free(m->scan_requests);
	}
}

static int on_scan_request_deadline(sd_event_source *src, uint64_t usec, void *userdata)
{
	ScanRequest *rq = userdata;
	const HostScanRequest *cur = host_scanner_current(rq->m->scanner);
	char msg[256];

	if (host_scanner_cancel(rq->m->scanner, rq) < 0)
		return 0; /* it runs now: its reply comes when it ends */
	snprintf(msg, sizeof(msg), "still queued after %" PRIu64 " s behind the scan \"%s\"",
	         rq->wait_usec / 1000000, cur ? cur->reason : "?");
	log_notice("Scan request from pid %i dropped: %s", (int)control_client_pid(rq->client),
	           msg);
	scan_request_reply(rq, control_error_reply(-ETIMEDOUT, msg));
	scan_request_free(rq);
	return 0;
}

int manager_scan_submit(Manager *m, ControlClient *c, const ScanSelector *sel, size_t n_sel,
                        ScanFlags flags, const ScanPolicy *pol, bool progress, uint64_t wait_usec)
{
	char why[64];
	ScanRequest *rq;
	int r;

	if (!m->scanner)
		return -EOPNOTSUPP;
	rq = calloc(1, sizeof(*rq));
	if (!rq)
		return -ENOMEM;
	rq->m = m;
	rq->flags = flags;
	rq->progress = progress;
	rq->wait_usec = wait_usec;
	rq->client = control_client_ref(c);
	snprintf(why, sizeof(why), "request from pid %i", (int)control_client_pid(c));
	if (!host_scanner_busy(m->scanner))
		sd_event_now(m->event, CLOCK_MONOTONIC, &m->scan_started);
	r = host_scanner_submit(m->scanner, &(HostScanRequest){
	                                            .sel = (ScanSelector *)sel,
	                                            .n_sel = n_sel,
	                                            .flags = flags,
	                                            .pol = *pol,
	                                            .reason = why,
	                                            .owner = rq,
	                                            .progress = progress,
	                                    });
	if (r < 0) {
		if (r == -EBUSY)
			log_notice("Scan (%s) refused: %u requests are queued already", why,
			           HOST_SCAN_QUEUE_MAX);
		control_client_unref(rq->client);
		free(rq);
		return r;
	}
	rq->next = m->scan_requests;
	m->scan_requests = rq;
	/* Queued behind another scan: bounded by the client's wait. */
	if (host_scanner_current(m->scanner) && host_scanner_current(m->scanner)->owner != rq) {
		log_info("Scan (%s) queued behind \"%s\" (%zu waiting)", why,
		         host_scanner_current(m->scanner)->reason,
		         host_scanner_n_queued(m->scanner));
		(void)sd_event_add_time_relative(m->event, &rq->deadline, CLOCK_MONOTONIC,
		                                 wait_usec, 0, on_scan_request_deadline, rq);
	}
	manager_status_dirty(m);
	return 0;
}

/* An owned request's scan ended (or was dropped): log it and answer its client. */
static void scan_request_done(Manager *m, const HostScanRequest *req, int r, const ScanResult *res)
{
	ScanRequest *rq = req->owner;
	unsigned added = 0, removed = 0, resized = 0, reidentified = 0, kept = 0;
	json_object *reply;

	m->scans++;
	if (r == -ECANCELED) {
		log_info("Scan (%s) dropped: its client went away before it started", req->reason);
		scan_request_free(rq);
		return;
	}
	if (r < 0) {
		log_full(r == -ENOENT ? LOG_INFO : LOG_WARNING, r, NULL, MESSAGE_SCAN_RESULT,
		         "Scan (%s) failed: %m", req->reason);
		scan_request_reply(rq, control_error_reply(r, NULL));
		scan_request_free(rq);
		return;
	}
	for (size_t i = 0; i < res->n_hosts; i++) {
		added += res->hosts[i].added;
		removed += res->hosts[i].removed;
		resized += res->hosts[i].resized;
		reidentified += res->hosts[i].reidentified;
		kept += res->hosts[i].kept;
	}
	log_full(res->failed > 0 ? LOG_WARNING : LOG_INFO, 0, NULL, MESSAGE_SCAN_RESULT,
	         "Scan (%s%s): %zu hosts, %zu targets, %u added, %u removed, %u resized, "
	         "%u reidentified, %u kept, %u failed, %u SCSI commands",
	         req->reason, (req->flags & SCAN_DRY_RUN) ? ", dry run" : "", res->n_hosts,
	         res->n_targets, added, removed, resized, reidentified, kept, res->failed,
	         res->commands);
	reply = manager_reply_ok();
	json_object_object_add(reply, "result", scan_result_to_json(res, req->flags, "lund"));
	scan_request_reply(rq, reply);
	scan_request_free(rq);
}

static bool on_host_scan_wanted(void *userdata, const HostScanRequest *req)
{
	ScanRequest *rq = req->owner;

	rq->deadline = sd_event_source_disable_unref(rq->deadline);
	return control_client_alive(rq->client);
}

/* A unit attention (REPORTED LUNS DATA HAS CHANGED) asks for its target to be rescanned: the
 * scan is queued for the scan thread; its result is logged when it ends (on_host_scan_done). */
int manager_rescan_target(Inventory *inv, Target *t, void *userdata)
{
	Manager *m = userdata;
	ScanSelector sel = {
		.host = t->host->number,
		.channel = t->channel,
		.target = t->id,
		.lun = SCAN_ANY,
	};

	return manager_queue_scope_scan(m, &sel, "reported LUNs changed");
}

/* An error threshold asked for its LU's target to be rescanned. */
int manager_error_rescan(const char *hctl, void *userdata)
{
	Manager *m = userdata;
	Lu *lu = inventory_find(m->inventory, hctl);
	ScanSelector sel;

	if (!lu)
		return -ENODEV;
	sel = (ScanSelector){
		.host = lu->target->host->number,
		.channel = lu->target->channel,
		.target = lu->target->id,
		.lun = SCAN_ANY,
	};
	return manager_queue_scope_scan(m, &sel, "error threshold");
}

/* Queue a full scan (adds and removals) of SEL; the scan's clock starts if none runs. */
int manager_queue_scope_scan(Manager *m, const ScanSelector *sel, const char *reason)
{
	if (!m->scanner)
		return -EOPNOTSUPP;
	if (!host_scanner_busy(m->scanner))
		sd_event_now(m->event, CLOCK_MONOTONIC, &m->scan_started);
	return host_scanner_queue_full(m->scanner, sel, SCAN_ADD | SCAN_REMOVE, reason);
}

/* ---- host scans (--scan=, scsi_mod.scan=manual) ---- */

/*
 * Does lund scan hosts itself? With --scan=auto only when the kernel scans nothing
 * (scsi_mod.scan=manual). The parameter is re-read on every decision: scsi_mod is a module and
 * may be loaded after lund started, with the parameter from the kernel command line. Each new
 * answer is logged once.
 */
bool manager_host_scans_wanted(Manager *m)
{
	_cleanup_free_ char *v = NULL;
	bool want;

	if (!m->scanner || m->config.scan == MANAGER_SCAN_NEVER)
		return false;
	if (m->config.scan == MANAGER_SCAN_ALWAYS)
		return true;
	if (m->config.scan != MANAGER_SCAN_AUTO)
		return false;
	if (sysfs_read_string(m->rootfd, "sys/module/scsi_mod/parameters/scan", &v) < 0)
		v = NULL;
	want = v && streq(v, "manual");
	if (!m->kernel_scan_read || !m->kernel_scan != !v || (v && !streq(v, m->kernel_scan))) {
		if (v)
			log_info("scsi_mod.scan=%s: %s", v,
			         want ? "the kernel scans nothing, lund scans every host"
			              : "the kernel scans its hosts, lund does not");
		else
			log_info("scsi_mod is not loaded: no host to scan yet");
		free(m->kernel_scan);
		m->kernel_scan = TAKE_PTR(v);
		m->kernel_scan_read = true;
	}
	return want;
}

static void on_host_scan_event(void *userdata, const HostScanRequest *req, const ScanEvent *ev)
{
	Manager *m = userdata;
	ScanRequest *rq = req->owner;

	/* Progress notes go to the client that asked for them, ahead of its reply. */
	m->scan_client = rq && rq->progress && control_client_alive(rq->client) ? rq->client : NULL;
	on_scan_event(m, ev);
	m->scan_client = NULL;
}

/* A driver for the LU's type is registered but not bound to it yet. */
static bool lu_driver_pending(Manager *m, const char *hctl)
{
	char path[128];
	const char *drv;
	uint64_t type;

	snprintf(path, sizeof(path), "sys/bus/scsi/devices/%s/driver", hctl);
	if (faccessat(m->rootfd, path, F_OK, 0) >= 0)
		return false;
	snprintf(path, sizeof(path), "sys/bus/scsi/devices/%s/type", hctl);
	if (sysfs_read_u64(m->rootfd, path, &type) < 0)
		return false; /* gone */
	switch (type) {
	case 0x00:
	case 0x07:
	case 0x0e:
	case 0x14:
		drv = "sd";
		break;
	case 0x05:
		drv = "sr";
		break;
	case 0x01:
		drv = "st";
		break;
	default:
		return false; /* sg (a class interface) is there already */
	}
	snprintf(path, sizeof(path), "sys/bus/scsi/drivers/%s", drv);
	return faccessat(m->rootfd, path, F_OK, 0) >= 0;
}

static int on_bind_poll(sd_event_source *src, uint64_t usec, void *userdata)
{
	Manager *m = userdata;
	size_t k = 0;

	for (size_t i = 0; i < m->n_bind_wait; i++)
		if (lu_driver_pending(m, m->bind_wait[i]))
			memmove(m->bind_wait[k++], m->bind_wait[i], sizeof(m->bind_wait[i]));
	m->n_bind_wait = k;
	if (k > 0 && usec < m->bind_deadline) {
		(void)sd_event_source_set_time(src, usec + BIND_POLL_USEC);
		return 0;
	}
	if (k > 0)
		log_notice("%zu logical units still have no upper-level driver bound after %llu s "
		           "(first %s), signalling readiness anyway",
		           k, (unsigned long long)(BIND_WAIT_USEC / 1000000), m->bind_wait[0]);
	else
		log_debug("Upper-level drivers bound to what the start-up scan added");
	m->bind_source = sd_event_source_disable_unref(m->bind_source);
	free(m->bind_wait);
	m->bind_wait = NULL;
	m->n_bind_wait = 0;
	(void)manager_resync(m, "start-up scan");
	manager_send_ready(m);
	return 0;
}

static void on_host_scan_done(void *userdata, const HostScanRequest *req, int r,
                              const ScanResult *res)
{
	Manager *m = userdata;
	int64_t host = host_scan_request_host(req);
	const char *reason = req->reason;
	bool startup = !m->ready && !req->owner && streq(reason, "start-up");
	unsigned added = 0, removed = 0, failed = 0;
	char what[32] = "every host";
	uint64_t nowu = 0;
	json_object *o;

	sd_event_now(m->event, CLOCK_MONOTONIC, &nowu);
	if (req->owner) {
		scan_request_done(m, req, r, res);
		m->scan_started = nowu;
		manager_status_dirty(m);
		if (m->reload_pending && !host_scanner_running(m->scanner))
			(void)manager_reload(m, m->reload_pending, NULL);
		return;
	}
	if (host != SCAN_ANY)
		snprintf(what, sizeof(what), "host%" PRId64, host);
	if (res)
		for (size_t i = 0; i < res->n_hosts; i++) {
			added += res->hosts[i].added;
			removed += res->hosts[i].removed;
			failed += res->hosts[i].failed;
		}
	if (r == -ENOENT)
		log_full(LOG_INFO, 0, NULL, MESSAGE_SCAN_RESULT, "Scan of %s (%s): no SCSI host",
		         what, reason);
	else if (r < 0)
		log_full(LOG_WARNING, r, NULL, MESSAGE_SCAN_RESULT, "Scan of %s (%s) failed: %m",
		         what, reason);
	else
		log_full(failed > 0 ? LOG_WARNING : LOG_INFO, 0, NULL, MESSAGE_SCAN_RESULT,
		         "Scan of %s (%s) done in %" PRIu64 " ms: %zu hosts, %zu targets, "
		         "%u LUs added, %u removed, %u failures, %u SCSI commands",
		         what, reason, (nowu - m->scan_started) / 1000, res->n_hosts,
		         res->n_targets, added, removed, failed, res->commands);
	o = json_object_new_object();
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "host", host == SCAN_ANY ? NULL : json_object_new_int64(host));
	json_object_object_add(o, "added", json_object_new_int64(added));
	json_object_object_add(o, "removed", json_object_new_int64(removed));
	json_object_object_add(o, "failed", json_object_new_int64(failed));
	if (r < 0 && r != -ENOENT)
		json_object_object_add(o, "error",
		                       json_object_new_string(strerrorname_np(-r) ?: "EIO"));
	manager_emit(m, "scan-done", o);
	m->scan_started = nowu; /* the next queued scan starts now */
	manager_status_dirty(m);
	if (m->reload_pending && !host_scanner_running(m->scanner))
		(void)manager_reload(m, m->reload_pending, NULL);
	if (!startup)
		return;

	m->startup_scan_usec = nowu - m->started;
	/* Readiness means named: wait for the drivers of what the scan added to bind. */
	for (size_t i = 0; res && i < res->n_actions; i++) {
		const ScanAction *a = &res->actions[i];

		if (a->kind != SCAN_ACTION_ADD || !a->applied || a->error < 0)
			continue;
		if (GREEDY_REALLOC_EXACT(m->bind_wait, m->n_bind_wait + 1) < 0)
			break;
		snprintf(m->bind_wait[m->n_bind_wait++], sizeof(*m->bind_wait), "%s", a->hctl);
	}
	m->bind_deadline = nowu + BIND_WAIT_USEC;
	if (sd_event_add_time(m->event, &m->bind_source, CLOCK_MONOTONIC, nowu, 0, on_bind_poll,
	                      m) < 0)
		(void)on_bind_poll(NULL, UINT64_MAX, m);
}

int manager_queue_host_scan(Manager *m, int64_t host, const char *reason)
{
	int r;

	if (!host_scanner_busy(m->scanner))
		sd_event_now(m->event, CLOCK_MONOTONIC, &m->scan_started);
	r = host_scanner_queue(m->scanner, host, reason);
	if (r < 0)
		log_warning_errno(r, "Cannot scan (%s), ignoring: %m", reason);
	return r;
}

/*
 * A host, or a transport's target port, appeared: under scan=manual nobody else scans it. A
 * synthetic "add" (coldplug: udevadm trigger replays every device at boot) is not a new host:
 * the ones that existed when lund started were in its start-up scan, and those added since
 * sent a real event.
 */
void manager_scan_new_host(Manager *m, const Uevent *ev, const char *what)
{
	_cleanup_(hostfacts_done) HostFacts facts = {};
	ExclusionFacts f = { .channel = -1, .target = -1, .lun = -1, .type = -1 };
	ReactVerdict v;
	unsigned host;

	if (!m->scanner || !ev->devpath || ev->synthetic)
		return;
	if (uevent_devpath_host(ev->devpath, &host) < 0 || !manager_host_scans_wanted(m))
		return;
	/* lund.conf(5) REACTIONS, new_hosts =: judged on the host's number, driver and transport */
	f.host = host;
	if (reaction_any(policy_engine_conf(m->policy)) &&
	    hostfacts_read(m->rootfd, host, &facts) >= 0) {
		f.driver = facts.driver;
		f.transport = facts.kind;
	}
	reaction_judge(policy_engine_conf(m->policy), &f, REACT_SCAN_HOST, &v);
	if (v.report) {
		char why[160];

		reaction_why(&v, why, sizeof(why));
		log_notice("host%u: %s (%s), not scanned: %s", host, what, ev->devpath, why);
		return;
	}
	/* A session not logged in yet has no target to find: scanned once it is. */
	if (manager_iscsi_login_wait(m, ev, host))
		return;
	log_info("host%u: %s (%s), scanning it for logical units", host, what, ev->devpath);
	(void)manager_queue_host_scan(m, host, what);
}

/* The scan thread serves host scans (unless --scan=never) and every target rescan. */
void manager_host_scan_setup(Manager *m)
{
	static const HostScanCallbacks scb = {
		.event = on_host_scan_event,
		.done = on_host_scan_done,
		.wanted = on_host_scan_wanted,
	};
	int r;

	r = host_scanner_new(m->event, m->rootfd, &scb, m, &m->scanner);
	if (r < 0) {
		log_warning_errno(r, "Cannot scan in the background, continuing without: %m");
		return;
	}
	manager_host_scan_set_policy(m);
}

void manager_host_scan_set_policy(Manager *m)
{
	/* every removal is asked too: the reservation check (manager-reserve.c) */
	host_scanner_set_policy(m->scanner,
	                        &(ScanPolicy){ .quirk = scan_quirks_active(m->scan_quirks)
	                                                        ? manager_scan_quirk
	                                                        : NULL,
	                                       .leave = manager_scan_leave,
	                                       .userdata = m },
	                        &m->scan_lock);
}
