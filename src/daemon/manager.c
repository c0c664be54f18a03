/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "clock.h"
#include "control-request.h"
#include "log.h"
#include "macro.h"
#include "manager-private.h"
#include "sysfs.h"

/* A burst of losses costs one resync per interval. */
#define RESYNC_INTERVAL_USEC (1 * 1000 * 1000ULL)
/* A resync's work per wake-up of the loop: about this long, checked every RESYNC_SLICE_LUS
 * LUs. The watchdog is fed, and uevents, requests and signals are served, between two. */
#define RESYNC_SLICE_USEC (10 * 1000ULL)
#define RESYNC_SLICE_LUS  16
/* How long shutdown waits for a running scan before leaving it behind in the kernel. */
#define SHUTDOWN_GRACE_USEC (5 * 1000 * 1000ULL)
/* A rescan write (the kernel re-reads the device) or a module load reported late after this;
 * the loop never waits for either. */
#define WORKER_JOB_TIMEOUT_USEC (60 * 1000 * 1000ULL)

static const char *const scan_mode_table[_MANAGER_SCAN_MAX] = {
	[MANAGER_SCAN_AUTO] = "auto",
	[MANAGER_SCAN_ALWAYS] = "always",
	[MANAGER_SCAN_NEVER] = "never",
};

DEFINE_NAME_LOOKUP(manager_scan_mode_to_string, ManagerScanMode, scan_mode_table)

/* ---- inventory hooks ---- */

const char *manager_lu_dir(const char *hctl, void *userdata)
{
	Manager *m = userdata;
	Lu *lu = m->inventory ? inventory_find(m->inventory, hctl) : NULL;

	return lu ? lu->syspath : NULL;
}

const char *manager_lu_block(const char *hctl, void *userdata)
{
	Manager *m = userdata;
	Lu *lu = m->inventory ? inventory_find(m->inventory, hctl) : NULL;

	return lu ? lu->block : NULL;
}

/* "added", with what identifies the LU: at its add, or when its identification off the loop
 * has ended. */
static void log_lu_added(const Lu *lu)
{
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };

	log_device_full(LOG_INFO, 0, &dev, "added: %s \"%s\" \"%s\"%s%s", lu_type_name(lu->type),
	                lu->vendor ?: "", lu->model ?: "", lu->naming.serial ? ", serial " : "",
	                lu->naming.serial ?: "");
}

static void on_lu_added(Inventory *inv, Lu *lu, void *userdata)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };

	/* Being identified: said with its serial when that ends (on_lu_identified()). */
	if (!lu->naming_pending)
		log_lu_added(lu);
	if (lu->naming_error < 0)
		log_device_full(LOG_WARNING, lu->naming_error, &dev,
		                "cannot identify it, no names: %m");
	if (manager_want_events(m))
		manager_emit(m, "lu-added", manager_lu_to_json(m, lu));
	/* A device's policy is matched on what describes it: with its identification when that
	 * reads it (LU_CHANGE_PRODUCT). */
	if (!lu->info_pending)
		(void)policy_apply(m->policy, lu, "add");
	manager_exclusion_update(m, lu, false);
	(void)error_tracker_enable(m->errors, lu->syspath, lu->hctl);
	(void)manager_mpath_update(m, lu);
	manager_state_watch(m, lu);
	manager_links_dirty(m, lu);
	manager_status_dirty(m);
}

static void on_lu_changed(Inventory *inv, Lu *lu, LuChange what, void *userdata)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };
	json_object *o, *w;

	log_device_full(
	        LOG_DEBUG, 0, &dev, "changed:%s%s%s", what & LU_CHANGE_NODES ? " nodes" : "",
	        what & LU_CHANGE_NAMES ? " names" : "", what & LU_CHANGE_INFO ? " info" : "");
	/* Not the end of its first identification: it had none to change. */
	if ((what & LU_CHANGE_NAMES) && lu->identified)
		log_device_full(LOG_NOTICE, 0, &dev, "identifiers changed, renaming");
	if (manager_want_events(m)) {
		o = manager_lu_to_json(m, lu);
		w = json_object_new_array();
		if (what & LU_CHANGE_NODES)
			json_object_array_add(w, json_object_new_string("nodes"));
		if (what & LU_CHANGE_NAMES)
			json_object_array_add(w, json_object_new_string("names"));
		if (what & LU_CHANGE_INFO)
			json_object_array_add(w, json_object_new_string("info"));
		json_object_object_add(o, "what", w);
		manager_emit(m, "lu-changed", o);
	}
	/* sd's max_retries exists only once the disk driver is bound; a new product (its
	 * description read, or changed) may have another policy */
	if ((what & (LU_CHANGE_NODES | LU_CHANGE_PRODUCT)) && !lu->info_pending)
		(void)policy_apply(m->policy, lu, "add");
	if (what & (LU_CHANGE_NAMES | LU_CHANGE_PRODUCT))
		manager_exclusion_update(m, lu, false);
	if (what & LU_CHANGE_NODES)
		(void)manager_mpath_update(m, lu);
	if (what & (LU_CHANGE_NODES | LU_CHANGE_NAMES))
		manager_links_dirty(m, lu);
	else if (what & LU_CHANGE_INFO)
		/* A path that stops or starts running moves its LU's names (lund(8), PATHS). */
		manager_links_refresh(m, lu);
	if (what & LU_CHANGE_INFO) {
		manager_state_watch(m, lu);
		manager_status_dirty(m);
	}
}

static void on_lu_removed(Inventory *inv, Lu *lu, void *userdata)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };

	log_device_full(LOG_INFO, 0, &dev, "removed");
	error_tracker_forget(m->errors, lu->hctl);
	if (inventory_n_lus(inv) <= 1) /* this one, whether or not still counted */
		error_tracker_kernel_may_change(m->errors);
	manager_emit(m, "lu-removed", manager_event_hctl(lu));
	manager_links_forget(m, lu);
	manager_update_links(m, lu, true);
	manager_exclusion_update(m, lu, true);
	manager_reservation_forget(m, lu->hctl);
	manager_status_dirty(m);
}

static void on_unit_attention(Inventory *inv, Lu *lu, LuUnitAttention ua, const char *action,
                              int error, void *userdata)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };
	json_object *o;

	if (error < 0)
		log_device_full(LOG_WARNING, error, &dev, "unit attention %s: %s failed: %m",
		                lu_unit_attention_to_string(ua), action);
	else
		log_device_full(LOG_INFO, 0, &dev, "unit attention %s: %s",
		                lu_unit_attention_to_string(ua), action);
	o = manager_event_hctl(lu);
	json_object_object_add(o, "ua", json_object_new_string(lu_unit_attention_to_string(ua)));
	json_object_object_add(o, "action", json_object_new_string(action));
	if (error < 0)
		json_object_object_add(o, "error",
		                       json_object_new_string(strerrorname_np(-error) ?: "EIO"));
	manager_emit(m, "unit-attention", o);
}

static void on_lu_identified(Inventory *inv, Lu *lu, void *userdata)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };

	if (!lu->identified)
		log_lu_added(lu);
	/* with exclusions, its policy waited for its identity (policy_apply()) */
	if (!lu->info_pending && (exclusion_any(policy_engine_conf(m->policy)) ||
	                          reaction_any(policy_engine_conf(m->policy)))) {
		(void)policy_apply(m->policy, lu, "add");
		manager_exclusion_update(m, lu, false);
	}
	if (lu->naming_error == -ETIMEDOUT)
		log_device_full(LOG_WARNING, lu->naming_error, &dev,
		                "identifying it takes more than %llu s, no names until an event "
		                "re-probes it: %m",
		                (unsigned long long)(IDENTIFY_TIMEOUT_USEC / 1000000));
	else if (lu->naming_error < 0)
		log_device_full(LOG_WARNING, lu->naming_error, &dev,
		                "cannot identify it, no names: %m");
	else
		log_device_full(LOG_DEBUG, 0, &dev, "identified with %u SCSI commands",
		                lu->probe_commands);
	/* what a masked LU can no longer tell (lund(8) RESERVATIONS) */
	if (lu->naming_error >= 0)
		manager_reservation_refresh(m, lu);
	manager_status_dirty(m);
	if (m->ready_deferred && inventory_n_identifying(inv) == 0)
		manager_send_ready(m);
}

/* InventoryHooks.identify: off the loop, in the identification threads (lu-identify.h). */
static int on_identify(Inventory *inv, LuIdentifyJob *job, void *userdata)
{
	Manager *m = userdata;

	return identify_threads_submit(m->identify, job);
}

static void on_identify_done(LuIdentifyJob *job, int error, void *userdata)
{
	Manager *m = userdata;

	(void)inventory_identify_done(m->inventory, job, error);
}

size_t manager_n_identifying(const Manager *m)
{
	return m ? inventory_n_identifying(m->inventory) : 0;
}

static int on_apply_policy(Inventory *inv, Lu *lu, void *userdata)
{
	Manager *m = userdata;
	int r = policy_apply(m->policy, lu, "power-on-reset");

	return r < 0 ? r : 0;
}

static const char *on_leave(Inventory *inv, const Lu *lu, LuUnitAttention ua, void *userdata)
{
	static const ReactAction react[_LU_UA_MAX] = {
		[LU_UA_REPORTED_LUNS_CHANGED] = REACT_ADD,
		[LU_UA_CAPACITY_CHANGED] = REACT_RESIZE,
		[LU_UA_INQUIRY_CHANGED] = REACT_RENAME,
	};
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };
	ExclusionVerdict v;
	char why[160];

	policy_lu_verdict(m->policy, lu, &v);
	if (v.excluded || manager_lu_held(m, lu))
		return "excluded";
	/* luns = add still rescans (the scan leaves the removals); only "report" does not */
	if ((ua == LU_UA_REPORTED_LUNS_CHANGED || ua == LU_UA_CAPACITY_CHANGED ||
	     ua == LU_UA_INQUIRY_CHANGED) &&
	    manager_lu_reports(m, lu, react[ua], why, sizeof(why))) {
		log_device_full(LOG_NOTICE, 0, &dev, "unit attention %s: not acted on, %s",
		                lu_unit_attention_to_string(ua), why);
		return "reported";
	}
	return NULL;
}

/* ---- resync ---- */

static void manager_start_reconciled(Manager *m, int r);

/* The resync's end: the claims it collected made links, what waited for it goes on. */
static int resync_finish(Manager *m, int r)
{
	const char *again = m->resync_again;
	int k;

	m->resync_job = sd_event_source_disable_unref(m->resync_job);
	m->resync_again = NULL;
	claims_defer(m->claims, false);
	m->bulk = false;
	if (r < 0)
		log_warning_errno(r, "Resync from sysfs incomplete: %m");
	k = manager_reconcile_links(m);
	if (k < 0)
		log_warning_errno(k, "Reconciling links incomplete: %m");
	m->resyncs++;
	sd_event_now(m->event, CLOCK_MONOTONIC, &m->last_resync);
	{
		json_object *o = json_object_new_object();
		json_object_object_add(o, "reason", json_object_new_string(m->resync_reason));
		manager_emit(m, "resync", o);
	}
	manager_status_dirty(m);
	if (m->starting) {
		m->starting = false;
		manager_start_reconciled(m, r);
	}
	if (m->ready_after_resync) {
		m->ready_after_resync = false;
		manager_send_ready(m);
	}
	if (again)
		(void)manager_resync(m, again);
	return r < 0 ? r : k;
}

/* One wake-up's share of the resync: LUs until RESYNC_SLICE_USEC have passed. */
static int resync_slice(Manager *m, bool *ret_done)
{
	uint64_t end = clock_now_usec(CLOCK_MONOTONIC) + RESYNC_SLICE_USEC;
	int r;

	do
		r = inventory_resync_step(m->inventory, RESYNC_SLICE_LUS, ret_done);
	while (!*ret_done && clock_now_usec(CLOCK_MONOTONIC) < end);
	return r;
}

static int on_resync_slice(sd_event_source *s, void *userdata)
{
	Manager *m = userdata;
	bool done = false;
	int r;

	r = resync_slice(m, &done);
	if (done)
		(void)resync_finish(m, r);
	return 0;
}

/*
 * Make the inventory match sysfs (inventory_resync()) in slices on the loop, uevents, requests
 * and signals served between two; then reconcile the links. One asked while one runs is done
 * once more after it (what it has read may have changed since), however many were asked. A
 * tree that one slice covers is done before this returns.
 */
int manager_resync(Manager *m, const char *reason)
{
	bool done = false;
	int r;

	if (m->resync_job) {
		m->resync_again = reason;
		return 0;
	}
	m->resync_reason = reason;
	manager_links_flush(m);
	r = inventory_resync_begin(m->inventory, false);
	if (r < 0)
		return resync_finish(m, r);
	m->bulk = true;
	claims_defer(m->claims, true);
	r = resync_slice(m, &done);
	if (done)
		return resync_finish(m, r);

	r = sd_event_add_defer(m->event, &m->resync_job, on_resync_slice, m);
	if (r >= 0)
		/* Clients and uevents first: a slice runs when nothing else is pending. */
		r = sd_event_source_set_priority(m->resync_job, SD_EVENT_PRIORITY_IDLE);
	if (r >= 0)
		/* a slice every wake-up until the end, not once */
		r = sd_event_source_set_enabled(m->resync_job, SD_EVENT_ON);
	if (r < 0) {
		log_warning_errno(r, "Cannot resync in slices, doing it in one go: %m");
		do
			r = inventory_resync_step(m->inventory, SIZE_MAX, &done);
		while (!done);
		return resync_finish(m, r);
	}
	return 0;
}

static int on_resync_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	Manager *m = userdata;

	m->resync_source = sd_event_source_disable_unref(m->resync_source);
	log_info("Resynchronising from sysfs (%s)", m->resync_reason);
	(void)manager_resync(m, m->resync_reason);
	return 0;
}

static void schedule_resync(Manager *m, const char *reason)
{
	uint64_t nowu = 0, delay = 0;
	int r;

	m->resync_reason = reason;
	if (m->resync_source)
		return;
	sd_event_now(m->event, CLOCK_MONOTONIC, &nowu);
	if (m->last_resync > 0 && nowu < m->last_resync + RESYNC_INTERVAL_USEC)
		delay = m->last_resync + RESYNC_INTERVAL_USEC - nowu;
	r = sd_event_add_time_relative(m->event, &m->resync_source, CLOCK_MONOTONIC, delay, 0,
	                               on_resync_timer, m);
	if (r < 0) {
		log_error_errno(r, "Failed to schedule a resync, doing it now: %m");
		(void)manager_resync(m, reason);
	}
}

/* ---- monitor callbacks ---- */

static void on_uevent(Monitor *mon, const Uevent *ev, void *userdata)
{
	manager_handle_uevent(userdata, ev);
}

/* ---- blocking kernel writes, off the loop ---- */

typedef struct ModloadJob {
	ModLoader *ml;
	char *hctl, *syspath, *modalias;
} ModloadJob;

static void modload_job_free(void *data)
{
	ModloadJob *j = data;

	free(j->hctl);
	free(j->syspath);
	free(j->modalias);
	free(j);
}

static int modload_job_run(void *data)
{
	ModloadJob *j = data;

	return modload_lu(j->ml, j->hctl, j->syspath, j->modalias);
}

static void modload_job_done(void *data, int r)
{
	ModloadJob *j = data;
	LogDevice dev = { .hctl = j->hctl };

	if (r == -ETIMEDOUT)
		log_device_full(LOG_WARNING, r, &dev,
		                "Loading its drivers takes more than %llu s, going on without "
		                "waiting",
		                (unsigned long long)(WORKER_JOB_TIMEOUT_USEC / 1000000));
}

/* Load what the LU needs (modload.h) in the module-loading thread: module init may take long. */
static void manager_load_drivers(Manager *m, const char *hctl, const char *syspath,
                                 const char *modalias)
{
	ModloadJob *j;

	if (!m->modload)
		return;
	j = calloc(1, sizeof(*j));
	if (!j)
		return;
	j->ml = m->modload;
	j->hctl = strdup(hctl);
	j->syspath = strdup(syspath);
	j->modalias = modalias ? strdup(modalias) : NULL;
	if (!j->hctl || !j->syspath || (modalias && !j->modalias)) {
		modload_job_free(j);
		return;
	}
	(void)worker_submit(m->modload_worker, modload_job_run, modload_job_done, modload_job_free,
	                    j, WORKER_JOB_TIMEOUT_USEC);
}

typedef struct RescanJob {
	Manager *m;
	int rootfd;
	LuUnitAttention ua;
	char *hctl;
	char *path;
} RescanJob;

static void rescan_job_free(void *data)
{
	RescanJob *j = data;

	free(j->hctl);
	free(j->path);
	free(j);
}

static int rescan_job_run(void *data)
{
	RescanJob *j = data;

	return sysfs_write_attr(j->rootfd, j->path, "1");
}

static void rescan_job_done(void *data, int r)
{
	RescanJob *j = data;

	(void)inventory_rescan_done(j->m->inventory, j->hctl, j->ua, r);
}

/* InventoryHooks.rescan_lu: the kernel re-reads the device while the write lasts. */
static int on_rescan_lu(Inventory *inv, Lu *lu, LuUnitAttention ua, void *userdata)
{
	Manager *m = userdata;
	RescanJob *j;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	*j = (RescanJob){ .m = m, .rootfd = m->rootfd, .ua = ua };
	j->hctl = strdup(lu->hctl);
	if (!j->hctl || asprintf(&j->path, "%s/rescan", lu->syspath) < 0) {
		j->path = NULL;
		rescan_job_free(j);
		return -ENOMEM;
	}
	return worker_submit(m->io_worker, rescan_job_run, rescan_job_done, rescan_job_free, j,
	                     WORKER_JOB_TIMEOUT_USEC);
}

/* UEVENT_LOAD_DRIVERS: without udevd nobody else loads the LU's upper driver and sg (modload.h). */
static int react_load_drivers(Manager *m, const Uevent *ev, UeventReaction what)
{
	_cleanup_free_ char *syspath = NULL;
	const char *base;

	if (!m->modload || !ev->devpath)
		return 0;
	base = strrchr(ev->devpath, '/');
	if (asprintf(&syspath, "sys%s", ev->devpath) >= 0)
		manager_load_drivers(m, base ? base + 1 : ev->devpath, syspath, ev->modalias);
	return 0;
}

static int react_reidentified(Manager *m, const Uevent *ev, UeventReaction what)
{
	const char *hctl;
	LogDevice dev;

	if (!ev->synth_lund || !streq(ev->synth_lund, "ids") || !ev->devpath)
		return 0;
	hctl = strrchr(ev->devpath, '/');
	dev = (LogDevice){ .hctl = hctl ? hctl + 1 : ev->devpath };
	log_device_full(LOG_INFO, 0, &dev,
	                "a scan found the identity changed and had it re-read: deriving IDs again");
	return 0;
}

static int react_error(Manager *m, const Uevent *ev, UeventReaction what)
{
	_cleanup_free_ char *node = NULL;
	const char *hctl;
	uint64_t now = 0;
	LogDevice dev;
	Lu *lu;

	if (ev->n_props == 0 || !ev->devpath)
		return 0;
	hctl = strrchr(ev->devpath, '/');
	lu = hctl ? inventory_find(m->inventory, hctl + 1) : NULL;
	if (!lu)
		return 0;
	if (lu->block && asprintf(&node, "/dev/%s", lu->block) < 0)
		node = NULL;
	dev = (LogDevice){ .hctl = lu->hctl, .devnode = node, .wwid = lu->naming.wwn };
	sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (error_tracker_handle(m->errors, lu->hctl, &dev, ev->props, ev->n_props, now) > 0)
		manager_status_dirty(m);
	return 0;
}

static int react_state(Manager *m, const Uevent *ev, UeventReaction what)
{
	return manager_state_event(m, ev);
}

static int react_new_host(Manager *m, const Uevent *ev, UeventReaction what)
{
	manager_scan_new_host(m, ev, what == UEVENT_NEW_HOST ? "new host" : "new transport target");
	return 0;
}

static int react_holder(Manager *m, const Uevent *ev, UeventReaction what)
{
	manager_reservation_uevent(m, ev);
	return manager_react_holder(m, ev);
}

/* Who carries out each reaction of core/uevent.c's table, in the table's order; the inventory's
 * (UEVENT_LU, UEVENT_HOST_REMOVED, UEVENT_NODE) are inventory_handle_uevent()'s. */
static int (*const reactions[_UEVENT_REACTION_MAX])(Manager *m, const Uevent *ev,
                                                    UeventReaction what) = {
	[UEVENT_LOAD_DRIVERS] = react_load_drivers,
	[UEVENT_REIDENTIFIED] = react_reidentified,
	[UEVENT_ERROR] = react_error,
	[UEVENT_STATE] = react_state,
	[UEVENT_NEW_HOST] = react_new_host,
	[UEVENT_NEW_TARGET_PORT] = react_new_host,
	[UEVENT_HOLDER] = react_holder,
};

void manager_handle_uevent(Manager *m, const Uevent *ev)
{
	UeventReactions what = uevent_reactions(ev);
	/* The inventory sees every event, in the place of its first reaction. */
	UeventReactions left = what | 1u << UEVENT_LU;

	for (UeventReaction i = 0; left != 0; i++) {
		int r;

		if (!(left & (1u << i)))
			continue;
		left &= ~(1u << i);
		if (i == UEVENT_LU)
			r = inventory_handle_uevent(m->inventory, ev, what);
		else if (reactions[i])
			r = reactions[i](m, ev, i);
		else
			continue;
		if (r < 0)
			log_warning_errno(
			        r, "%s %s (seqnum %" PRIu64 "): handling failed, ignoring: %m",
			        ev->action, ev->devpath, ev->seqnum);
	}
}

static void on_uevent_loss(Monitor *mon, MonitorLoss what, uint64_t expected, uint64_t got,
                           void *userdata)
{
	Manager *m = userdata;

	if (what == MONITOR_LOSS_ENOBUFS)
		log_full(LOG_WARNING, -ENOBUFS, NULL, MESSAGE_UEVENT_LOSS,
		         "Kernel uevents were lost (receive buffer overflow), will resync: %m");
	else
		log_full(LOG_NOTICE, 0, NULL, MESSAGE_UEVENT_LOSS,
		         "Uevent sequence gap (expected %" PRIu64 ", got %" PRIu64 "), will resync",
		         expected, got);
	schedule_resync(m, what == MONITOR_LOSS_ENOBUFS ? "enobufs" : "seqnum-gap");
}

static void on_monitor_error(Monitor *mon, int error, void *userdata)
{
	log_warning_errno(error, "Receiving kernel uevents failed, ignoring: %m");
}

/* ---- reload and signals ---- */

int manager_reload(Manager *m, const char *why, char **ret_message)
{
	_cleanup_(conf_unrefp) LundConf *conf = NULL;
	PolicyEngine *policy = NULL;
	ScanQuirks *quirks = NULL;
	unsigned changed = 0, failed = 0;
	size_t n = 0;
	int r;

	log_info("Reloading the configuration (%s)", why);
	r = policy_conf_load(m->config.conf_path, m->config.hwdb_path, &conf);
	if (r < 0)
		return log_warning_errno(r, "Reload (%s) failed, keeping the old configuration: %m",
		                         why);
	r = conf_file_error(conf);
	if (r < 0 && r != -ENOENT && ret_message) {
		/* a syntax error: the first one, where lunctl check-config shows it */
		const ConfError *e = conf_n_errors(conf) > 0 ? conf_error(conf, 0) : NULL;

		if ((e ? asprintf(ret_message,
		                  "%s:%u: cannot parse (%s), the old configuration stays",
		                  conf_get_path(conf), e->line, e->message)
		       : asprintf(ret_message, "%s: %s, the old configuration stays",
		                  conf_get_path(conf),
		                  r == -EBADMSG ? "cannot parse" : strerror(-r))) < 0)
			*ret_message = NULL;
	}
	if (r < 0 && r != -ENOENT)
		return log_warning_errno(r,
		                         "Reload (%s): %s is not usable, keeping the old "
		                         "configuration: %m",
		                         why, conf_get_path(conf));
	r = conf_hwdb_error(conf);
	if (r < 0 && r != -ENOENT && conf_hwdb_path(conf) && ret_message &&
	    asprintf(ret_message, "hwdb %s: %s, the old configuration stays", conf_hwdb_path(conf),
	             strerror(-r)) < 0)
		*ret_message = NULL;
	if (r < 0 && r != -ENOENT && conf_hwdb_path(conf))
		return log_warning_errno(r,
		                         "Reload (%s): the hwdb %s is not usable, keeping the "
		                         "old configuration: %m",
		                         why, conf_hwdb_path(conf));
	/* The scan thread reads the quirks for the whole of a scan, under scan_lock. */
	if (pthread_mutex_trylock(&m->scan_lock) != 0) {
		log_info("Reload (%s) waits for the running scan to end", why);
		m->reload_pending = why;
		return 1;
	}
	r = policy_engine_new(m->rootfd, conf, &policy);
	if (r >= 0)
		r = scan_quirks_new_from_conf(conf, &quirks);
	if (r < 0) {
		pthread_mutex_unlock(&m->scan_lock);
		policy_engine_free(policy);
		return log_warning_errno(r, "Reload (%s) failed, keeping the old configuration: %m",
		                         why);
	}
	policy_engine_free(m->policy);
	m->policy = policy;
	policy_engine_set_worker(m->policy, m->io_worker);
	scan_quirks_free(m->scan_quirks);
	m->scan_quirks = quirks;
	m->scan_quirk_warned = false;
	if (m->scanner && !host_scanner_running(m->scanner))
		manager_host_scan_set_policy(m);
	pthread_mutex_unlock(&m->scan_lock);
	m->reload_pending = NULL;
	m->reloads++;
	/* udev's rules files may have changed with the configuration */
	inventory_forget_caches(m->inventory);
	(void)manager_control_setup(m, conf);

	for (Lu *lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu)) {
		int k = policy_apply(m->policy, lu, "reload");

		n++;
		if (k < 0)
			failed++;
		else
			changed += (unsigned)k;
		/* The hwdb's naming rule may have changed (LUND_NAME_IDENTITY), and the
		 * exclusions. */
		manager_exclusion_update(m, lu, false);
		manager_links_dirty(m, lu);
	}
	log_info("Reloaded the configuration (%s): %s%s, policy re-applied to %zu logical units: "
	         "%u attributes changed, %u failed",
	         why, conf_get_path(conf), conf_file_error(conf) == -ENOENT ? " (not present)" : "",
	         n, changed, failed);
	manager_status_dirty(m);
	return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	(void)manager_reload(userdata, "SIGHUP", NULL);
	return 0;
}

static int on_sigusr(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	log_info("Received %s (pid %u), ignoring", si->ssi_signo == SIGUSR1 ? "SIGUSR1" : "SIGUSR2",
	         si->ssi_pid);
	return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	Manager *m = userdata;

	log_info("Received %s, stopping", si->ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
	return sd_event_exit(m->event, 0);
}

static int setup_signals(Manager *m)
{
	static const struct {
		int signo;
		sd_event_signal_handler_t handler;
	} table[] = {
		{ SIGTERM, on_sigterm }, { SIGINT, on_sigterm }, { SIGHUP, on_sighup },
		{ SIGUSR1, on_sigusr },  { SIGUSR2, on_sigusr },
	};
	sigset_t ss;
	int r;

	/* Writes to a peer that went away fail with EPIPE instead of killing the daemon. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&ss);
	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		sigaddset(&ss, table[i].signo);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
		r = sd_event_add_signal(m->event, NULL, table[i].signo, table[i].handler, m);
		if (r < 0)
			return log_error_errno(r, "Failed to handle signal %s: %m",
			                       sigabbrev_np(table[i].signo) ?: "?");
	}
	return 0;
}

/*
 * One lund per run dir: an flock() on <run-dir>/lock, held until exit, with the holder's PID
 * in it. A second instance would take over the control socket and scan beside the first.
 */
static int take_lock(Manager *m)
{
	char buf[32] = "";
	ssize_t k;
	int fd;

	fd = openat(m->runfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return log_error_errno(-errno, "Failed to open %s/lock: %m", m->run_dir);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = -errno;

		if (r == -EWOULDBLOCK) {
			k = pread(fd, buf, sizeof(buf) - 1, 0);
			buf[k > 0 ? k : 0] = 0;
			buf[strcspn(buf, "\n")] = 0;
			log_error("Another lund (PID %s) is running on %s, exiting",
			          buf[0] ? buf : "unknown", m->run_dir);
		} else
			log_error_errno(r, "Failed to lock %s/lock: %m", m->run_dir);
		close(fd);
		return r;
	}
	k = snprintf(buf, sizeof(buf), "%i\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)k, 0) != k)
		log_warning_errno(-errno, "Failed to write the PID to %s/lock, ignoring: %m",
		                  m->run_dir);
	m->lockfd = fd;
	return 0;
}

/* ---- status ---- */

static int on_status(sd_event_source *s, void *userdata)
{
	Manager *m = userdata;

	m->status_source = sd_event_source_disable_unref(m->status_source);
	(void)sd_notifyf(false, "STATUS=%s %zu logical units, %zu names",
	                 m->ready ? "Managing" : "Scanning SCSI hosts before readiness:",
	                 inventory_n_lus(m->inventory), claims_n(m->claims));
	return 0;
}

/* Once per loop iteration at most, whatever the storm. */
void manager_status_dirty(Manager *m)
{
	if (m->status_source || m->bulk)
		return;
	(void)sd_event_add_defer(m->event, &m->status_source, on_status, m);
}

/* ---- life cycle ---- */

int manager_new(const ManagerConfig *config, Manager **ret)
{
	_cleanup_free_ Manager *m = NULL;
	int r;

	assert_return(config && config->run_dir && config->run_dir[0] == '/', -EINVAL);
	assert_return(config->link_dir && config->link_dir[0] != '/', -EINVAL);
	assert_return(ret, -EINVAL);

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->config = *config;
	m->list_page_bytes = CONTROL_LIST_PAGE_BYTES;
	{
		/* Tests shorten a list page; anything unparsable keeps the default. */
		const char *e = getenv("LUND_CONTROL_LIST_PAGE_BYTES");
		char *end = NULL;
		unsigned long n = e ? strtoul(e, &end, 10) : 0;

		if (e && end && *end == 0 && n > 0 && n <= CONTROL_LIST_PAGE_BYTES)
			m->list_page_bytes = n;
	}
	m->rootfd = m->runfd = m->lockfd = m->udevrecfd = m->names_dirfd = -EBADF;
	m->scan_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	m->excluded_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	m->resv_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	m->root = strdup(config->root ?: "/");
	m->run_dir = strdup(config->run_dir);
	m->link_dir[LINKSET_SCSI] = strdup(config->link_dir);
	if (config->disk_link_dir)
		m->link_dir[LINKSET_DISK] = strdup(config->disk_link_dir);
	if (config->path_link_dir)
		m->link_dir[LINKSET_SCSI_PATH] = strdup(config->path_link_dir);
	if (config->disk_path_link_dir)
		m->link_dir[LINKSET_DISK_PATH] = strdup(config->disk_path_link_dir);
	if (!m->root || !m->run_dir || !m->link_dir[LINKSET_SCSI] ||
	    (config->disk_link_dir && !m->link_dir[LINKSET_DISK]) ||
	    (config->path_link_dir && !m->link_dir[LINKSET_SCSI_PATH]) ||
	    (config->disk_path_link_dir && !m->link_dir[LINKSET_DISK_PATH])) {
		manager_free(TAKE_PTR(m));
		return -ENOMEM;
	}

	r = sd_event_default(&m->event);
	if (r < 0) {
		manager_free(TAKE_PTR(m));
		return r;
	}
	*ret = TAKE_PTR(m);
	return 0;
}

/*
 * Work that outlived the grace (a scan, a rescan or transport write, a module load, an
 * identification): its thread is in a kernel call that may never return, and
 * would keep the process (and the unit) alive with it. Say what is stuck and end the process
 * now, with a status of its own (lund(8), EXIT STATUS).
 */
_Noreturn static void exit_stuck(Manager *m, const char *what, uint64_t running_usec)
{
	log_error("Work stuck in the kernel after the %llu s shutdown grace: \"%s\", running "
	          "for %" PRIu64 " s; exiting without it (status %d)",
	          (unsigned long long)(SHUTDOWN_GRACE_USEC / 1000000), what, running_usec / 1000000,
	          LUND_EXIT_SCAN_STUCK);
	/* Only the socket goes, so nobody talks to a dead daemon. The rest (the root fd, the
	 * quirks, the scan lock) is the stuck thread's: no destructor may run under it. */
	control_free(m->control);
	(void)sd_notifyf(false,
	                 "STOPPING=1\nSTATUS=Exiting with work stuck in the kernel "
	                 "(%s)",
	                 what);
	fflush(stdout);
	fflush(stderr);
	_exit(LUND_EXIT_SCAN_STUCK);
}

/* What is left of the shutdown grace that began at @start. */
static uint64_t grace_left(uint64_t start)
{
	uint64_t spent = clock_now_usec(CLOCK_MONOTONIC) - start;

	return spent >= SHUTDOWN_GRACE_USEC ? 0 : SHUTDOWN_GRACE_USEC - spent;
}

Manager *manager_free(Manager *m)
{
	const HostScanRequest *cur;
	char what[256] = "";
	uint64_t nowu = 0, running = 0, start;

	if (!m)
		return NULL;
	cur = host_scanner_current(m->scanner);
	if (cur) {
		(void)sd_event_now(m->event, CLOCK_MONOTONIC, &nowu);
		running = nowu > cur->started_usec ? nowu - cur->started_usec : 0;
		snprintf(what, sizeof(what), "%s%s", cur->reason,
		         host_scan_request_host(cur) == SCAN_ANY ? ", every host" : "");
		if (host_scan_request_host(cur) != SCAN_ANY)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), ", host%" PRId64,
			         host_scan_request_host(cur));
	}
	/* Clients still waiting for a scan: none will come. */
	manager_scan_requests_free(m);
	/* One grace for everything that may be in the kernel: the scan, rescan writes, module
	 * loads. Whatever outlives it is named, and the process ends without it. */
	start = clock_now_usec(CLOCK_MONOTONIC);
	if (host_scanner_shutdown(m->scanner, grace_left(start)) == -ETIMEDOUT)
		exit_stuck(m, what, running + SHUTDOWN_GRACE_USEC);
	policy_engine_set_worker(m->policy, NULL);
	if (worker_shutdown(m->io_worker, grace_left(start)) == -ETIMEDOUT)
		exit_stuck(m, "a write to a logical unit's rescan or transport attribute",
		           SHUTDOWN_GRACE_USEC);
	if (worker_shutdown(m->modload_worker, grace_left(start)) == -ETIMEDOUT)
		exit_stuck(m, "a module load", SHUTDOWN_GRACE_USEC);
	if (worker_shutdown(m->resv_worker, grace_left(start)) == -ETIMEDOUT)
		exit_stuck(m, "reading a logical unit's reservations", SHUTDOWN_GRACE_USEC);
	/* freed: the links flushed below submit nothing to them */
	m->io_worker = m->modload_worker = m->resv_worker = NULL;
	if (identify_threads_stop(m->identify, false, grace_left(start)) == -ETIMEDOUT)
		exit_stuck(m, "identifying a logical unit with SCSI commands", SHUTDOWN_GRACE_USEC);
	if (identify_threads_stop(m->identify, true, grace_left(start)) == -ETIMEDOUT)
		exit_stuck(m, "reading a logical unit's pages in sysfs", SHUTDOWN_GRACE_USEC);
	m->identify = identify_threads_free(m->identify);
	sd_event_source_disable_unref(m->bind_source);
	manager_state_free(m);
	manager_iscsi_free(m);
	manager_exclusion_free(m);
	manager_reservations_free(m);
	manager_holds_free(m);
	free(m->bind_wait);
	free(m->kernel_scan);
	/* Links still waiting for the end of a burst are written before lund goes. */
	if (m->claims)
		manager_links_flush(m);
	free(m->links_dirty);
	manager_link_log_free(m);
	manager_list_streams_free(m);
	control_free(m->control);
	monitor_free(m->monitor);
	if (m->inventory)
		for (Lu *lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu))
			claims_forget(lu);
	inventory_free(m->inventory);
	policy_engine_free(m->policy);
	scan_quirks_free(m->scan_quirks);
	error_tracker_free(m->errors);
	modload_free(m->modload);
	claims_free(m->claims);
	manager_names_free(m);
	udev_records_free(m->udev);
	safe_close(m->udevrecfd);
	for (LinkSet s = 0; s < _LINKSET_MAX; s++) {
		links_free(m->links[s]);
		free(m->link_dir[s]);
	}
	sd_event_source_disable_unref(m->resync_source);
	sd_event_source_disable_unref(m->resync_job);
	sd_event_source_disable_unref(m->links_retry_source);
	sd_event_source_disable_unref(m->status_source);
	sd_event_unref(m->event);
	safe_close(m->rootfd);
	safe_close(m->runfd);
	safe_close(m->lockfd);
	free(m->root);
	free(m->run_dir);
	free(m);
	return NULL;
}
static int mkdir_p(const char *path, mode_t mode)
{
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int manager_start(Manager *m)
{
	static const InventoryHooks hooks = {
		.lu_added = on_lu_added,
		.lu_changed = on_lu_changed,
		.lu_removed = on_lu_removed,
		.unit_attention = on_unit_attention,
		.rescan_target = manager_rescan_target,
		.apply_policy = on_apply_policy,
		.rescan_lu = on_rescan_lu,
		.identify = on_identify,
		.lu_identified = on_lu_identified,
		.leave = on_leave,
	};
	static const MonitorCallbacks mcb = {
		.event = on_uevent,
		.loss = on_uevent_loss,
		.error = on_monitor_error,
	};
	_cleanup_(conf_unrefp) LundConf *conf = NULL;
	_cleanup_free_ char *sock = NULL;
	ErrorThreshold threshold;
	int r;

	sd_event_now(m->event, CLOCK_MONOTONIC, &m->started);

	r = setup_signals(m);
	if (r < 0)
		return r;
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		log_warning_errno(r, "Failed to enable the watchdog, ignoring: %m");

	m->rootfd = sysfs_open_root(m->root);
	if (m->rootfd < 0)
		return log_error_errno(m->rootfd, "Failed to open root %s: %m", m->root);
	r = mkdir_p(m->run_dir, 0755);
	if (r < 0)
		return log_error_errno(r, "Failed to create %s: %m", m->run_dir);
	m->runfd = open(m->run_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (m->runfd < 0)
		return log_error_errno(-errno, "Failed to open %s: %m", m->run_dir);
	r = take_lock(m);
	if (r < 0)
		return r;
	/* before the start-up scan and names: a hold outlives a restart */
	manager_holds_load(m);

	r = manager_links_setup(m);
	if (r < 0)
		return r;
	(void)manager_names_setup(m);
	r = manager_udev_setup(m);
	if (r < 0)
		return r;

	/* lund.conf and the hwdb are read once; the policy engine and the scan quirks share them.
	 * What is wrong with lund.conf is logged here; a file that cannot be parsed still leaves
	 * the hwdb. */
	r = policy_conf_load(m->config.conf_path, m->config.hwdb_path, &conf);
	if (r < 0)
		return log_error_errno(r, "Failed to load the configuration: %m");
	r = policy_engine_new(m->rootfd, conf, &m->policy);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the policy engine: %m");
	r = scan_quirks_new_from_conf(conf, &m->scan_quirks);
	if (r < 0)
		return log_error_errno(r, "Failed to load the scan quirks: %m");

	r = error_threshold_parse(m->config.error_threshold ?: "transport:10/60:log", &threshold);
	if (r < 0)
		return log_error_errno(r, "Invalid error threshold \"%s\"",
		                       m->config.error_threshold);
	r = error_tracker_new(m->rootfd, &threshold, manager_error_rescan, m, &m->errors);
	if (r >= 0) {
		error_tracker_set_dir_fn(m->errors, manager_lu_dir);
		error_tracker_set_block_fn(m->errors, manager_lu_block);
		error_tracker_set_state_fn(m->errors, manager_state_seen);
		error_tracker_prefer_events(m->errors, m->config.error_events);
		r = error_tracker_attach_event(m->errors, m->event, 5 * 1000000ULL);
	}
	if (r < 0)
		return log_error_errno(r, "Failed to set up error tracking: %m");

	r = worker_new(m->event, "rescan-writes", 2, &m->io_worker);
	if (r < 0)
		return log_error_errno(r, "Failed to start the thread for rescan writes: %m");
	r = identify_threads_new(m->event, on_identify_done, m, &m->identify);
	if (r < 0)
		return log_error_errno(r, "Failed to set up identification: %m");
	r = identify_threads_start(m->identify, false);
	if (r < 0)
		log_warning_errno(r,
		                  "Cannot identify logical units off the event loop, sending their "
		                  "SCSI commands in it: %m");
	policy_engine_set_worker(m->policy, m->io_worker);
	r = inventory_new(m->rootfd, m->config.probe_flags, &hooks, m, &m->inventory);
	if (r < 0)
		return log_error_errno(r, "Failed to create the inventory: %m");
	/* A storm of new LUs (a boot, an array mapping its LUNs) then shares out across the
	 * CPUs: the loop's thread keeps the inventory, claims and links. */
	r = identify_threads_start(m->identify, true);
	if (r < 0)
		log_warning_errno(r, "Cannot identify logical units from sysfs off the event loop, "
		                     "doing it in it: %m");
	else
		inventory_identify_off_loop(m->inventory, true);

	/* Listen first, scan second: what happens during the scan queues in the socket. */
	if (!m->config.no_monitor) {
		r = monitor_new(m->event, m->config.receive_buffer, &mcb, m, &m->monitor);
		if (r < 0)
			return log_error_errno(r, "Failed to listen to kernel uevents: %m");
		log_debug("Kernel uevent receive buffer: %zu bytes",
		          monitor_stats(m->monitor)->rcvbuf);
	}

	if (asprintf(&sock, "%s/control", m->run_dir) < 0)
		return log_error_errno(-ENOMEM, "Out of memory");
	r = control_new(m->event, sock, manager_on_request, m, &m->control);
	if (r < 0)
		return log_error_errno(r, "Failed to create the control socket %s: %m", sock);
	(void)manager_control_setup(m, conf);

	r = modload_new(m->rootfd, m->config.modload, &m->modload);
	if (r < 0)
		log_warning_errno(r, "Cannot load drivers, continuing without: %m");
	if (m->modload) {
		r = worker_new(m->event, "modload", 1, &m->modload_worker);
		if (r < 0)
			return log_error_errno(r,
			                       "Failed to start the thread for driver loads: %m");
	}

	manager_host_scan_setup(m);
	/* The rest of the start-up once the reconciliation is over (manager_start_reconciled()). */
	m->starting = true;
	(void)manager_resync(m, "start-up");
	return 0;
}

/* The start-up's reconciliation is over (@r its result): drivers, host scans, readiness. */
static void manager_start_reconciled(Manager *m, int r)
{
	if (r < 0)
		log_warning_errno(r, "Start-up scan incomplete, continuing: %m");
	/* Coldplug: LUs that were there before lund may lack their drivers too. Their nodes
	 * arrive as uevents, like any other. */
	if (modload_active(m->modload))
		for (Lu *lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu))
			if (!lu->sg || (!lu->block && !lu_tape(lu)))
				manager_load_drivers(m, lu->hctl, lu->syspath, NULL);
	m->resyncs = 0;

	if (manager_host_scans_wanted(m)) {
		/* Readiness waits for the scan: units ordered after lund see every LU named. */
		log_info("Scanning every host for logical units before signalling readiness "
		         "(--scan=%s)",
		         manager_scan_mode_to_string(m->config.scan));
		(void)sd_notify(false, "STATUS=Scanning SCSI hosts");
		/* Sessions still logging in are scanned again once they have. */
		manager_iscsi_watch_all(m);
		if (manager_queue_host_scan(m, SCAN_ANY, "start-up") >= 0)
			return;
	} else
		log_info("Not scanning hosts (--scan=%s, scsi_mod.scan=%s)",
		         manager_scan_mode_to_string(m->config.scan), m->kernel_scan ?: "unknown");
	manager_send_ready(m);
}

void manager_send_ready(Manager *m)
{
	uint64_t nowu = 0;

	if (m->ready)
		return;
	/* Nor before the resync under way (the start-up's, the start-up scan's) is over. */
	if (m->resync_job) {
		m->ready_after_resync = true;
		return;
	}
	/* Units ordered after lund see every LU named: the identifications under way end first
	 * (each within IDENTIFY_TIMEOUT_USEC). */
	if (inventory_n_identifying(m->inventory) > 0) {
		if (!m->ready_deferred)
			log_info("Readiness waits for %zu logical units being identified",
			         inventory_n_identifying(m->inventory));
		m->ready_deferred = true;
		return;
	}
	m->ready_deferred = false;
	m->ready = true;
	m->resyncs = 0;
	/* The start-up's own memory back to the system: the enumeration of every device and the
	 * reconcile's arrays, freed between what the LUs keep, left whole free pages in the heap
	 * (0.3 MiB of RssAnon at 4096 LUs); once, not per event. */
	(void)malloc_trim(0);
	sd_event_now(m->event, CLOCK_MONOTONIC, &nowu);
	(void)sd_notifyf(false, "READY=1\nSTATUS=Managing %zu logical units, %zu names",
	                 inventory_n_lus(m->inventory), claims_n(m->claims));
	/* "Ready:" is what scripts wait for; keep it first. */
	log_info("Ready: %zu logical units, %zu names, after %" PRIu64 " ms",
	         inventory_n_lus(m->inventory), claims_n(m->claims), (nowu - m->started) / 1000);
}

int manager_run(Manager *m)
{
	int r = sd_event_loop(m->event);

	(void)sd_notify(false, "STOPPING=1\nSTATUS=Stopping");
	return r;
}
