/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "claims.h"
#include "config.h"
#include "control.h"
#include "errors.h"
#include "hostscan.h"
#include "inventory.h"
#include "links.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "modload.h"
#include "monitor.h"
#include "policy-apply.h"
#include "scan-json.h"
#include "scan.h"
#include "scanquirk.h"
#include "sysfs.h"

/* Journal message IDs (sd-id128), one per decision an admin may want to find. */
#define MESSAGE_LINK_CREATED   "3f1c0d5e8a7b4c29b6e2d41f9a0c7e53"
#define MESSAGE_LINK_REMOVED   "a94e2b7c1d3f4e8a9c5b6d7e0f1a2b3c"
#define MESSAGE_LINK_FOREIGN   "5d7e9f1a2b3c4d5e8f9a0b1c2d3e4f50"
#define MESSAGE_NAME_COLLISION "c2b8e4f6a1d3457990ab12cd34ef5678"
#define MESSAGE_UEVENT_LOSS    "7e1f3a5c9b2d4f6a8c0e1b3d5f7a9c2e"
#define MESSAGE_SCAN_RESULT    "9b4d2e6f8a1c4357b0e2d4f6a8c1e3b5"

/* A burst of losses costs one resync per interval. */
#define RESYNC_INTERVAL_USEC (1 * 1000 * 1000ULL)

/* After the start-up scan, upper-level drivers bind to the new LUs asynchronously (sd probes in
 * the kernel's background): readiness waits for their nodes this long at most, polling. */
#define BIND_WAIT_USEC (10 * 1000 * 1000ULL)
#define BIND_POLL_USEC (20 * 1000ULL)

typedef enum LinkSet {
	LINKSET_SCSI, /* lund's own tree, every LU type */
	LINKSET_DISK, /* /dev/disk/by-id, when lund manages it (no udevd) */
	_LINKSET_MAX,
} LinkSet;

/* What one LU wants, while its links are being worked out: the strings are owned. */
typedef struct LinkWants {
	ClaimWant *v;
	size_t n;
} LinkWants;

typedef struct LinkReportCtx {
	Manager *m;
	LinkSet set;
} LinkReportCtx;

struct Manager {
	ManagerConfig config;
	char *root, *run_dir;
	sd_event *event;
	int rootfd, runfd;
	Inventory *inventory;
	PolicyEngine *policy;
	ScanQuirks *scan_quirks; /* hwdb + lund.conf LUND_SCAN_* / scan_* (scanquirk.h) */
	bool scan_quirk_warned;  /* a bad scan quirk value is logged once */
	ErrorTracker *errors;
	ModLoader *modload;
	Monitor *monitor;
	ControlServer *control;
	Links *links[_LINKSET_MAX];
	char *link_dir[_LINKSET_MAX];
	LinkReportCtx report_ctx[_LINKSET_MAX];
	Claims *claims;
	bool bulk;         /* collecting claims for a full reconcile, not applying them */
	const Lu *current; /* the LU whose links are being written, for log fields */

	sd_event_source *resync_source;
	uint64_t last_resync;
	uint64_t resyncs;
	const char *resync_reason;
	sd_event_source *status_source;
	uint64_t started;

	ControlClient *scan_client; /* gets the running scan's progress notes */
	pthread_mutex_t scan_lock;  /* held by whichever scan runs (manager_scan, host scans) */
	uint64_t scans;

	HostScanner *scanner;
	char *kernel_scan;     /* scsi_mod.scan as last read; NULL: scsi_mod not loaded */
	bool kernel_scan_read; /* read at least once */
	bool ready;            /* READY=1 sent */
	char (*bind_wait)[64]; /* LUs the start-up scan added whose driver has not bound */
	size_t n_bind_wait;
	sd_event_source *bind_source;
	uint64_t bind_deadline;
	uint64_t scan_started;
	uint64_t startup_scan_usec; /* how long the start-up scan took, 0 if none */
};

static const char *const scan_mode_table[_MANAGER_SCAN_MAX] = {
	[MANAGER_SCAN_AUTO] = "auto",
	[MANAGER_SCAN_ALWAYS] = "always",
	[MANAGER_SCAN_NEVER] = "never",
};

const char *manager_scan_mode_to_string(ManagerScanMode mode)
{
	return mode >= 0 && mode < _MANAGER_SCAN_MAX ? scan_mode_table[mode] : NULL;
}

ManagerScanMode manager_scan_mode_from_string(const char *s)
{
	for (ManagerScanMode i = 0; s && i < _MANAGER_SCAN_MAX; i++)
		if (streq(s, scan_mode_table[i]))
			return i;
	return _MANAGER_SCAN_INVALID;
}

static void link_wants_done(LinkWants *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->v[i].name);
		free((char *)l->v[i].target);
	}
	free(l->v);
	*l = (LinkWants){};
}

/* ---- events for monitoring clients ---- */

/* Device-supplied text (vendor, model) as valid UTF-8 JSON: anything but printable ASCII is
 * written "\xNN", so a client never receives a byte the device chose. */
static json_object *json_string_safe(const char *s)
{
	_cleanup_free_ char *out = NULL;
	size_t j = 0;

	if (!s)
		return NULL;
	out = malloc(strlen(s) * 4 + 1);
	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			out[j++] = (char)*p;
		else
			j += (size_t)sprintf(out + j, "\\x%02x", *p);
	}
	out[j] = 0;
	return json_object_new_string(out);
}

static json_object *json_str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static uint64_t realtime_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void emit(Manager *m, const char *event, json_object *o)
{
	if (!control_has_monitors(m->control)) {
		json_object_put(o);
		return;
	}
	if (!o)
		o = json_object_new_object();
	json_object_object_add(o, "event", json_object_new_string(event));
	json_object_object_add(o, "time_usec", json_object_new_uint64(realtime_usec()));
	control_broadcast(m->control, o);
	json_object_put(o);
}

/* Whether anyone listens: building an event costs more than handling most uevents. */
static bool want_events(Manager *m)
{
	return control_has_monitors(m->control);
}

static json_object *event_with_hctl(const Lu *lu)
{
	json_object *o = json_object_new_object();

	if (lu)
		json_object_object_add(o, "hctl", json_object_new_string(lu->hctl));
	return o;
}

static void status_dirty(Manager *m);

/* ---- links ---- */

static const char *link_message_id(LinkAction a)
{
	switch (a) {
	case LINK_CREATED:
	case LINK_UPDATED:
		return MESSAGE_LINK_CREATED;
	case LINK_REMOVED:
	case LINK_LOST:
		return MESSAGE_LINK_REMOVED;
	case LINK_FOREIGN:
		return MESSAGE_LINK_FOREIGN;
	default:
		return NULL;
	}
}

static void on_link_report(LinkAction a, const char *name, const char *target, int error,
                           void *userdata)
{
	LinkReportCtx *ctx = userdata;
	Manager *m = ctx->m;
	const char *dir = m->link_dir[ctx->set];
	LogDevice dev = { .hctl = m->current ? m->current->hctl : NULL };
	json_object *o;
	char ev[32];
	int level;

	switch (a) {
	case LINK_CREATED:
	case LINK_UPDATED:
	case LINK_REMOVED:
		level = LOG_INFO;
		break;
	case LINK_TEMP_REMOVED:
		level = LOG_DEBUG;
		break;
	default:
		level = LOG_WARNING;
	}
	if (a == LINK_FOREIGN)
		log_full(level, 0, &dev, link_message_id(a),
		         "/%s/%s: not a link lund made, leaving it alone", dir, name);
	else if (a == LINK_LOST)
		log_full(level, 0, &dev, link_message_id(a),
		         "/%s/%s: lund's link was replaced or removed by someone else, forgetting "
		         "it",
		         dir, name);
	else if (a == LINK_FAILED)
		log_full(level, error, &dev, NULL, "/%s/%s: failed to update link: %m", dir, name);
	else
		log_full(level, 0, &dev, link_message_id(a), "/%s/%s %s%s%s", dir, name,
		         link_action_name(a), target ? " -> " : "", target ?: "");

	if (!want_events(m))
		return;
	snprintf(ev, sizeof(ev), "link-%s", link_action_name(a));
	o = event_with_hctl(m->current);
	{
		_cleanup_free_ char *path = NULL;

		if (asprintf(&path, "/%s/%s", dir, name) >= 0)
			json_object_object_add(o, "path", json_object_new_string(path));
	}
	json_object_object_add(o, "name", json_object_new_string(name));
	if (target)
		json_object_object_add(o, "target", json_object_new_string(target));
	if (error < 0)
		json_object_object_add(o, "error",
		                       json_object_new_string(strerrorname_np(-error) ?: "EIO"));
	emit(m, ev, o);
}

/* The symlink target for node @node ("sda", "bsg/0:0:0:0") from link directory @dir. */
static char *node_target(const char *dir, const char *node)
{
	size_t depth = 1;
	bool under_dev = strneq(dir, "dev/", 4);
	char *t, *p;

	for (const char *c = dir; *c; c++)
		if (*c == '/' && c[1] && c[1] != '/')
			depth++;
	if (under_dev)
		depth--;
	t = malloc(depth * 3 + strlen("dev/") + strlen(node) + 1);
	if (!t)
		return NULL;
	p = t;
	for (size_t i = 0; i < depth; i++)
		p = stpcpy(p, "../");
	if (!under_dev)
		p = stpcpy(p, "dev/");
	strcpy(p, node);
	return t;
}

static int want_add(Manager *m, LinkWants *l, LinkSet set, const char *base, const char *suffix,
                    const char *node)
{
	_cleanup_free_ char *name = NULL, *target = NULL;
	ClaimWant *v;

	if (!m->links[set] || !node)
		return 0;
	if (asprintf(&name, "%s%s", base, suffix) < 0)
		return -ENOMEM;
	if (links_name_valid(name) < 0)
		return 0; /* a suffix pushed it past NAME_MAX: no such link */
	target = node_target(m->link_dir[set], node);
	if (!target)
		return -ENOMEM;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	v[l->n++] = (ClaimWant){ set, TAKE_PTR(name), TAKE_PTR(target) };
	return 0;
}

static bool type_is_disk_like(int type)
{
	return type == LU_TYPE_DISK || type == LU_TYPE_OPTICAL || type == LU_TYPE_RBC ||
	       type == LU_TYPE_ZBC || type == LU_TYPE_WORM || type == LU_TYPE_CDROM;
}

/* The link scheme, lund(8) LINKS. */
static int lu_wanted_links(Manager *m, const Lu *lu, LinkWants *ret)
{
	const char *primary = lu_primary_node(lu);
	bool cdrom = lu->block && strneq(lu->block, "sr", 2);
	int r = 0;

	for (size_t i = 0; i < lu->naming.n_names && r >= 0; i++) {
		const char *b = lu->naming.names[i];

		r = want_add(m, ret, LINKSET_SCSI, b, "", primary);
		if (r >= 0 && lu->type == LU_TYPE_TAPE)
			r = want_add(m, ret, LINKSET_SCSI, b, "-nst", lu->tape_nr);
		if (r >= 0)
			r = want_add(m, ret, LINKSET_SCSI, b, "-sg", lu->sg);

		if (r < 0 || !type_is_disk_like(lu->type) || !lu->block)
			continue;
		/* /dev/disk/by-id as udev's 60-persistent-storage.rules make it. */
		r = want_add(m, ret, LINKSET_DISK, b, "", lu->block);
		for (size_t p = 0; r >= 0 && !cdrom && p < lu->n_partitions; p++) {
			char suffix[32];

			snprintf(suffix, sizeof(suffix), "-part%u", lu->partitions[p].number);
			r = want_add(m, ret, LINKSET_DISK, b, suffix, lu->partitions[p].node);
		}
	}
	return r;
}

/* ClaimsOps: the claims' links written to this manager's link directories. */
static int link_op_add(void *userdata, unsigned set, const char *name, const char *target,
                       const Lu *lu)
{
	Manager *m = userdata;
	int r;

	m->current = lu;
	r = links_add(m->links[set], name, target);
	m->current = NULL;
	return r;
}

static int link_op_remove(void *userdata, unsigned set, const char *name, const Lu *lu)
{
	Manager *m = userdata;
	int r;

	m->current = lu;
	r = links_remove(m->links[set], name);
	m->current = NULL;
	return r;
}

static int link_op_reconcile(void *userdata, unsigned set, const LinkSpec *want, size_t n,
                             int *ret_results)
{
	Manager *m = userdata;
	LinksStats st = {};
	int r;

	r = links_reconcile(m->links[set], want, n, ret_results, &st);
	log_info("/%s: %u created, %u updated, %u removed, %u unchanged, %u foreign, %u lost, %u "
	         "failed",
	         m->link_dir[set], st.created, st.updated, st.removed, st.unchanged, st.foreign,
	         st.lost, st.failed);
	return r;
}

static void link_op_collision(void *userdata, const Claim *c, const Lu *winner)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = winner->hctl };
	json_object *o = event_with_hctl(winner), *others = json_object_new_array();
	_cleanup_free_ char *path = NULL;

	for (ClaimOwner *x = c->owners; x; x = x->next)
		if (x->lu != winner)
			json_object_array_add(others, json_object_new_string(x->lu->hctl));
	log_full(LOG_WARNING, 0, &dev, MESSAGE_NAME_COLLISION,
	         "/%s/%s is wanted by %zu logical units, giving it to %s (lowest H:C:T:L)",
	         m->link_dir[c->set], c->name, json_object_array_length(others) + 1, winner->hctl);
	if (asprintf(&path, "/%s/%s", m->link_dir[c->set], c->name) >= 0)
		json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "others", others);
	emit(m, "collision", o);
}

static void link_op_failed(void *userdata, const Claim *c, const char *target, int error,
                           const Lu *lu)
{
	Manager *m = userdata;

	m->current = lu;
	on_link_report(LINK_FAILED, c->name, target, error, &m->report_ctx[c->set]);
	m->current = NULL;
}

static const ClaimsOps link_ops = {
	.add = link_op_add,
	.remove = link_op_remove,
	.reconcile = link_op_reconcile,
	.collision = link_op_collision,
	.failed = link_op_failed,
};

/* Bring @lu's claims to what it wants now (nothing when @gone). */
static void lu_update_links(Manager *m, Lu *lu, bool gone)
{
	_cleanup_(link_wants_done) LinkWants want = {};
	int r;

	if (!gone) {
		r = lu_wanted_links(m, lu, &want);
		if (r < 0)
			log_warning_errno(r, "%s: cannot compute its links, ignoring: %m",
			                  lu->hctl);
	}
	r = claims_update(m->claims, lu, want.v, want.n);
	if (r < 0)
		log_error_errno(r, "%s: failed to claim its names, links not all updated: %m",
		                lu->hctl);
}

/* Full reconcile of every set from the claims (start-up, resync). */
static int reconcile_links(Manager *m)
{
	int ret = 0;

	for (LinkSet set = 0; set < _LINKSET_MAX; set++) {
		int r;

		if (!m->links[set])
			continue;
		r = claims_reconcile(m->claims, set);
		if (r < 0 && r != -EEXIST && ret == 0)
			ret = r;
	}
	return ret;
}

/* ---- inventory hooks ---- */

static json_object *lu_to_json(Manager *m, const Lu *lu);
static json_object *reply_ok(void);

static void on_lu_added(Inventory *inv, Lu *lu, void *userdata)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };

	log_device_full(LOG_INFO, 0, &dev, "added: %s \"%s\" \"%s\"%s%s", lu_type_name(lu->type),
	                lu->vendor ?: "", lu->model ?: "", lu->naming.serial ? ", serial " : "",
	                lu->naming.serial ?: "");
	if (lu->naming_error < 0 && lu->naming_error != -EOPNOTSUPP)
		log_device_full(LOG_WARNING, lu->naming_error, &dev,
		                "cannot identify it, no names: %m");
	if (want_events(m))
		emit(m, "lu-added", lu_to_json(m, lu));
	(void)policy_apply(m->policy, lu, "add");
	(void)error_tracker_enable(m->errors, lu->syspath, lu->hctl);
	lu_update_links(m, lu, false);
	status_dirty(m);
}

static void on_lu_changed(Inventory *inv, Lu *lu, LuChange what, void *userdata)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };
	json_object *o, *w;

	log_device_full(
	        LOG_DEBUG, 0, &dev, "changed:%s%s%s", what & LU_CHANGE_NODES ? " nodes" : "",
	        what & LU_CHANGE_NAMES ? " names" : "", what & LU_CHANGE_INFO ? " info" : "");
	if (what & LU_CHANGE_NAMES)
		log_device_full(LOG_NOTICE, 0, &dev, "identifiers changed, renaming");
	if (want_events(m)) {
		o = lu_to_json(m, lu);
		w = json_object_new_array();
		if (what & LU_CHANGE_NODES)
			json_object_array_add(w, json_object_new_string("nodes"));
		if (what & LU_CHANGE_NAMES)
			json_object_array_add(w, json_object_new_string("names"));
		if (what & LU_CHANGE_INFO)
			json_object_array_add(w, json_object_new_string("info"));
		json_object_object_add(o, "what", w);
		emit(m, "lu-changed", o);
	}
	/* sd's max_retries exists only once the disk driver is bound */
	if (what & LU_CHANGE_NODES)
		(void)policy_apply(m->policy, lu, "add");
	if (what & (LU_CHANGE_NODES | LU_CHANGE_NAMES))
		lu_update_links(m, lu, false);
}

static void on_lu_removed(Inventory *inv, Lu *lu, void *userdata)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };

	log_device_full(LOG_INFO, 0, &dev, "removed");
	error_tracker_forget(m->errors, lu->hctl);
	emit(m, "lu-removed", event_with_hctl(lu));
	lu_update_links(m, lu, true);
	status_dirty(m);
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
	o = event_with_hctl(lu);
	json_object_object_add(o, "ua", json_object_new_string(lu_unit_attention_to_string(ua)));
	json_object_object_add(o, "action", json_object_new_string(action));
	if (error < 0)
		json_object_object_add(o, "error",
		                       json_object_new_string(strerrorname_np(-error) ?: "EIO"));
	emit(m, "unit-attention", o);
}

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

/* Called from the engine's workers, one event at a time, while the loop waits in scan_run(). */
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
	emit(m, "scan-action", o);
}

/* ScanPolicy.quirk: the same hwdb and lund.conf scan quirks `lunctl rescan` uses. Scans run
 * from the event loop's thread; the engine's workers call this concurrently. */
static int on_scan_quirk(void *userdata, int type, const char *vendor, const char *model,
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
 * Every scan lund makes on request goes through here, one at a time (the loop waits for it):
 * those of unit attentions and error thresholds, and those admins ask for with `lunctl rescan`.
 * Host scans (scsi_mod.scan=manual: start-up, new hosts) run in their own thread (hostscan.h);
 * both hold scan_lock for the whole scan, so no two scans ever run at once (a request made
 * during a host scan waits for it; the host scan thread never waits for the loop). The
 * kernel's uevents for what a scan adds or removes queue meanwhile and update the inventory
 * and the links afterwards, as any hotplug does. The hwdb and lund.conf scan quirks apply to
 * all of them.
 */
static int manager_scan(Manager *m, const char *why, const ScanSelector *sel, size_t n_sel,
                        ScanFlags flags, const ScanPolicy *request, ControlClient *progress,
                        ScanResult *ret)
{
	ScanPolicy pol = request ? *request : (ScanPolicy){};
	ScanContext ctx = {
		.rootfd = m->rootfd,
		.policy = &pol,
		.event = on_scan_event,
		.event_userdata = m,
	};
	unsigned added = 0, removed = 0, resized = 0, reidentified = 0, kept = 0;
	int r;

	if (scan_quirks_active(m->scan_quirks)) {
		pol.quirk = on_scan_quirk;
		pol.userdata = m;
	}
	pthread_mutex_lock(&m->scan_lock);
	m->scan_client = progress;
	r = scan_run(&ctx, sel, n_sel, flags, ret);
	m->scan_client = NULL;
	pthread_mutex_unlock(&m->scan_lock);
	m->scans++;
	if (r < 0) {
		log_full(LOG_WARNING, r, NULL, MESSAGE_SCAN_RESULT, "Scan (%s) failed: %m", why);
		return r;
	}
	for (size_t i = 0; i < ret->n_hosts; i++) {
		added += ret->hosts[i].added;
		removed += ret->hosts[i].removed;
		resized += ret->hosts[i].resized;
		reidentified += ret->hosts[i].reidentified;
		kept += ret->hosts[i].kept;
	}
	log_full(ret->failed > 0 ? LOG_WARNING : LOG_INFO, 0, NULL, MESSAGE_SCAN_RESULT,
	         "Scan (%s%s): %zu hosts, %zu targets, %u added, %u removed, %u resized, "
	         "%u reidentified, %u kept, %u failed, %u SCSI commands",
	         why, (flags & SCAN_DRY_RUN) ? ", dry run" : "", ret->n_hosts, ret->n_targets,
	         added, removed, resized, reidentified, kept, ret->failed, ret->commands);
	return 0;
}

static int on_rescan_target(Inventory *inv, Target *t, void *userdata)
{
	Manager *m = userdata;
	ScanSelector sel = {
		.host = t->host->number,
		.channel = t->channel,
		.target = t->id,
		.lun = SCAN_ANY,
	};
	ScanResult res = {};
	char why[64];
	int r;

	snprintf(why, sizeof(why), "target %u:%u:%u", t->host->number, t->channel, t->id);
	r = manager_scan(m, why, &sel, 1, SCAN_ADD | SCAN_REMOVE, NULL, NULL, &res);
	if (r >= 0 && res.failed > 0)
		r = -EIO;
	for (size_t i = 0; r >= 0 && i < res.n_targets; i++)
		if (res.targets[i].error < 0)
			r = res.targets[i].error;
	scan_result_done(&res);
	return r;
}

/*
 * {"cmd":"rescan","selectors":["2","0:0:1"],"add":true,"remove":false,"resize":false,
 *  "ids":false,"force":false,"dry_run":false,"timeout_ms":N,"jobs":N,"max_lun":N,"progress":true}
 */
static int request_rescan(Manager *m, ControlClient *c, json_object *req, json_object **ret)
{
	_cleanup_free_ ScanSelector *sel = NULL;
	json_object *sels = NULL, *v, *reply;
	ScanPolicy pol = {};
	ScanResult res = {};
	ScanFlags flags;
	size_t n_sel = 0;
	char why[64];
	int r;

	if (json_object_object_get_ex(req, "selectors", &sels)) {
		if (!json_object_is_type(sels, json_type_array))
			return -EINVAL;
		n_sel = json_object_array_length(sels);
		if (n_sel > 4096)
			return -E2BIG;
		sel = calloc(n_sel ?: 1, sizeof(*sel));
		if (!sel)
			return -ENOMEM;
		for (size_t i = 0; i < n_sel; i++) {
			json_object *x = json_object_array_get_idx(sels, i);

			if (!json_object_is_type(x, json_type_string) ||
			    scan_selector_parse(json_object_get_string(x), &sel[i]) < 0)
				return -EINVAL;
		}
	}
	flags = scan_flags_from_json(req);
	if (!(flags & (SCAN_ADD | SCAN_REMOVE | SCAN_RESIZE | SCAN_IDS)))
		flags |= SCAN_ADD;
	if (json_object_object_get_ex(req, "timeout_ms", &v))
		pol.timeout_ms = (unsigned)MIN(
		        json_object_get_int64(v) < 0 ? 0 : json_object_get_int64(v), 3600000);
	if (json_object_object_get_ex(req, "jobs", &v))
		pol.max_workers = (unsigned)MIN(
		        json_object_get_int64(v) < 0 ? 0 : json_object_get_int64(v), 256);
	if (json_object_object_get_ex(req, "max_lun", &v))
		pol.seq_max_lun = (uint64_t)MIN(
		        json_object_get_int64(v) < 0 ? 0 : json_object_get_int64(v), 100000);

	snprintf(why, sizeof(why), "request from pid %i", (int)control_client_pid(c));
	r = manager_scan(
	        m, why, sel, n_sel, flags, &pol,
	        json_object_object_get_ex(req, "progress", &v) && json_object_get_boolean(v) ? c
	                                                                                     : NULL,
	        &res);
	if (r < 0)
		return r;
	reply = reply_ok();
	json_object_object_add(reply, "result", scan_result_to_json(&res, flags, "lund"));
	scan_result_done(&res);
	*ret = reply;
	return 0;
}

/* An error threshold asked for its LU's target to be rescanned. */
static int on_error_rescan(const char *hctl, void *userdata)
{
	Manager *m = userdata;
	Lu *lu = inventory_find(m->inventory, hctl);

	return lu ? on_rescan_target(m->inventory, lu->target, m) : -ENODEV;
}

/* ---- host scans (--scan=, scsi_mod.scan=manual) ---- */

static void send_ready(Manager *m);
static int do_resync(Manager *m, const char *reason);

/*
 * Does lund scan hosts itself? With --scan=auto only when the kernel scans nothing
 * (scsi_mod.scan=manual). The parameter is re-read on every decision: scsi_mod is a module and
 * may be loaded after lund started, with the parameter from the kernel command line. Each new
 * answer is logged once.
 */
static bool host_scans_wanted(Manager *m)
{
	_cleanup_free_ char *v = NULL;
	bool want;

	if (!m->scanner)
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

static void on_host_scan_action(void *userdata, const ScanAction *a)
{
	ScanEvent ev = { .kind = SCAN_EVENT_ACTION, .action = a };

	on_scan_event(userdata, &ev);
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
	(void)do_resync(m, "start-up scan");
	send_ready(m);
	return 0;
}

static void on_host_scan_done(void *userdata, int64_t host, const char *reason, int r,
                              const ScanResult *res)
{
	Manager *m = userdata;
	bool startup = !m->ready && streq(reason, "start-up");
	unsigned added = 0, failed = 0;
	char what[32] = "every host";
	uint64_t nowu = 0;
	json_object *o;

	sd_event_now(m->event, CLOCK_MONOTONIC, &nowu);
	if (host != SCAN_ANY)
		snprintf(what, sizeof(what), "host%" PRId64, host);
	if (res)
		for (size_t i = 0; i < res->n_hosts; i++) {
			added += res->hosts[i].added;
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
		         "%u LUs added, %u failures, %u SCSI commands",
		         what, reason, (nowu - m->scan_started) / 1000, res->n_hosts,
		         res->n_targets, added, failed, res->commands);
	o = json_object_new_object();
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "host", host == SCAN_ANY ? NULL : json_object_new_int64(host));
	json_object_object_add(o, "added", json_object_new_int64(added));
	json_object_object_add(o, "failed", json_object_new_int64(failed));
	if (r < 0 && r != -ENOENT)
		json_object_object_add(o, "error",
		                       json_object_new_string(strerrorname_np(-r) ?: "EIO"));
	emit(m, "scan-done", o);
	m->scan_started = nowu; /* the next queued scan starts now */
	status_dirty(m);
	if (!startup)
		return;

	m->startup_scan_usec = nowu - m->started;
	/* Readiness means named: wait for the drivers of what the scan added to bind. */
	for (size_t i = 0; res && i < res->n_actions; i++) {
		const ScanAction *a = &res->actions[i];
		char(*v)[64];

		if (a->kind != SCAN_ACTION_ADD || !a->applied || a->error < 0)
			continue;
		v = reallocarray(m->bind_wait, m->n_bind_wait + 1, sizeof(*v));
		if (!v)
			break;
		m->bind_wait = v;
		snprintf(v[m->n_bind_wait++], sizeof(*v), "%s", a->hctl);
	}
	m->bind_deadline = nowu + BIND_WAIT_USEC;
	if (sd_event_add_time(m->event, &m->bind_source, CLOCK_MONOTONIC, nowu, 0, on_bind_poll,
	                      m) < 0)
		(void)on_bind_poll(NULL, UINT64_MAX, m);
}

static int queue_host_scan(Manager *m, int64_t host, const char *reason)
{
	int r;

	if (!host_scanner_busy(m->scanner))
		sd_event_now(m->event, CLOCK_MONOTONIC, &m->scan_started);
	r = host_scanner_queue(m->scanner, host, reason);
	if (r < 0)
		log_warning_errno(r, "Cannot scan (%s), ignoring: %m", reason);
	return r;
}

static long host_from_devpath(const char *devpath)
{
	for (const char *p = strstr(devpath, "/host"); p; p = strstr(p + 1, "/host")) {
		char *end;
		unsigned long v;

		if (p[5] < '0' || p[5] > '9')
			continue;
		errno = 0;
		v = strtoul(p + 5, &end, 10);
		if (errno == 0 && (*end == '/' || *end == 0) && v <= INT32_MAX)
			return (long)v;
	}
	return -1;
}

/*
 * A host, or a transport's target port, appeared: under scan=manual nobody else scans it. A
 * synthetic "add" (coldplug: udevadm trigger replays every device at boot) is not a new host:
 * the ones that existed when lund started were in its start-up scan, and those added since
 * sent a real event.
 */
static void maybe_scan_new(Manager *m, const Uevent *ev)
{
	const char *what;
	long host;

	if (!m->scanner || !ev->action || !streq(ev->action, "add") || !ev->subsystem ||
	    !ev->devpath || ev->synthetic)
		return;
	if (streq(ev->subsystem, "scsi_host"))
		what = "new host";
	else if (streq(ev->subsystem, "sas_end_device") ||
	         streq(ev->subsystem, "fc_remote_ports") || streq(ev->subsystem, "iscsi_session"))
		what = "new transport target";
	else
		return;
	host = host_from_devpath(ev->devpath);
	if (host < 0 || !host_scans_wanted(m))
		return;
	log_info("host%ld: %s (%s), scanning it for logical units", host, what, ev->devpath);
	(void)queue_host_scan(m, host, what);
}

static int on_apply_policy(Inventory *inv, Lu *lu, void *userdata)
{
	Manager *m = userdata;
	int r = policy_apply(m->policy, lu, "power-on-reset");

	return r < 0 ? r : 0;
}

/* ---- resync ---- */

static int do_resync(Manager *m, const char *reason)
{
	int r, k;

	m->bulk = true;
	claims_defer(m->claims, true);
	r = inventory_resync(m->inventory, false);
	claims_defer(m->claims, false);
	m->bulk = false;
	if (r < 0)
		log_warning_errno(r, "Resync from sysfs incomplete: %m");
	k = reconcile_links(m);
	if (k < 0)
		log_warning_errno(k, "Reconciling links incomplete: %m");
	m->resyncs++;
	m->resync_reason = reason;
	sd_event_now(m->event, CLOCK_MONOTONIC, &m->last_resync);
	{
		json_object *o = json_object_new_object();
		json_object_object_add(o, "reason", json_object_new_string(reason));
		emit(m, "resync", o);
	}
	status_dirty(m);
	return r < 0 ? r : k;
}

static int on_resync_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	Manager *m = userdata;

	m->resync_source = sd_event_source_disable_unref(m->resync_source);
	log_info("Resynchronising from sysfs (%s)", m->resync_reason);
	(void)do_resync(m, m->resync_reason);
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
		(void)do_resync(m, reason);
	}
}

/* ---- monitor callbacks ---- */

static void on_uevent(Monitor *mon, const Uevent *ev, void *userdata)
{
	manager_handle_uevent(userdata, ev);
}

void manager_handle_uevent(Manager *m, const Uevent *ev)
{
	int r;

	/* Without udevd nobody else loads the LU's upper driver and sg (modload.h). */
	if (m->modload && ev->action && streq(ev->action, "add") && ev->subsystem &&
	    streq(ev->subsystem, "scsi") && ev->devtype && streq(ev->devtype, "scsi_device") &&
	    ev->devpath) {
		_cleanup_free_ char *syspath = NULL;
		const char *base = strrchr(ev->devpath, '/');

		if (asprintf(&syspath, "sys%s", ev->devpath) >= 0)
			(void)modload_lu(m->modload, base ? base + 1 : ev->devpath, syspath,
			                 ev->modalias);
	}

	if (ev->synth_lund && streq(ev->synth_lund, "ids") && ev->action &&
	    streq(ev->action, "change") && ev->devpath) {
		const char *hctl = strrchr(ev->devpath, '/');
		LogDevice dev = { .hctl = hctl ? hctl + 1 : ev->devpath };

		log_device_full(
		        LOG_INFO, 0, &dev,
		        "a scan found the identity changed and had it re-read: deriving IDs again");
	}

	if (ev->n_props > 0 && ev->devpath && streq(ev->action, "change")) {
		const char *hctl = strrchr(ev->devpath, '/');
		Lu *lu = hctl ? inventory_find(m->inventory, hctl + 1) : NULL;
		uint64_t now = 0;

		if (lu) {
			_cleanup_free_ char *node = NULL;
			LogDevice dev;

			if (lu->block && asprintf(&node, "/dev/%s", lu->block) < 0)
				node = NULL;
			dev = (LogDevice){ .hctl = lu->hctl,
				           .devnode = node,
				           .wwid = lu->naming.wwn };

			sd_event_now(m->event, CLOCK_MONOTONIC, &now);
			if (error_tracker_handle(m->errors, lu->hctl, &dev, ev->props, ev->n_props,
			                         now) > 0)
				status_dirty(m);
		}
	}

	maybe_scan_new(m, ev);

	r = inventory_handle_uevent(m->inventory, ev);
	if (r < 0)
		log_warning_errno(r, "%s %s (seqnum %" PRIu64 "): handling failed, ignoring: %m",
		                  ev->action, ev->devpath, ev->seqnum);
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
static void status_dirty(Manager *m)
{
	if (m->status_source || m->bulk)
		return;
	(void)sd_event_add_defer(m->event, &m->status_source, on_status, m);
}

/* ---- control requests ---- */

static json_object *lu_to_json(Manager *m, const Lu *lu)
{
	json_object *o = json_object_new_object(), *nodes = json_object_new_object(),
	            *names = json_object_new_array(), *links = json_object_new_array(),
	            *parts = json_object_new_array();
	Claim *const *claims = claims_of(lu);

	json_object_object_add(o, "hctl", json_object_new_string(lu->hctl));
	json_object_object_add(o, "host", json_object_new_int64(lu->target->host->number));
	json_object_object_add(o, "channel", json_object_new_int64(lu->target->channel));
	json_object_object_add(o, "target", json_object_new_int64(lu->target->id));
	json_object_object_add(o, "lun", json_object_new_uint64(lu->lun));
	json_object_object_add(o, "type", json_object_new_int(lu->type));
	json_object_object_add(o, "type_name", json_object_new_string(lu_type_name(lu->type)));
	json_object_object_add(o, "scsi_level", json_object_new_int64(lu->scsi_level));
	json_object_object_add(o, "vendor", json_string_safe(lu->vendor));
	json_object_object_add(o, "model", json_string_safe(lu->model));
	json_object_object_add(o, "revision", json_string_safe(lu->revision));
	json_object_object_add(o, "state", json_str_or_null(lu->state));

#define NODE(key, v)                                                                            \
	do {                                                                                    \
		if (v) {                                                                        \
			_cleanup_free_ char *_p = NULL;                                         \
			if (asprintf(&_p, "/dev/%s", (v)) >= 0)                                 \
				json_object_object_add(nodes, key, json_object_new_string(_p)); \
		}                                                                               \
	} while (false)
	NODE("block", lu->block);
	NODE("tape", lu->tape);
	NODE("tape_nr", lu->tape_nr);
	NODE("sg", lu->sg);
	NODE("bsg", lu->bsg);
#undef NODE
	json_object_object_add(o, "nodes", nodes);
	for (size_t i = 0; i < lu->n_partitions; i++) {
		json_object *p = json_object_new_object();
		_cleanup_free_ char *dev = NULL;

		if (asprintf(&dev, "/dev/%s", lu->partitions[i].node) < 0)
			dev = NULL;
		json_object_object_add(p, "node", json_str_or_null(dev));
		json_object_object_add(p, "number",
		                       json_object_new_int64(lu->partitions[i].number));
		json_object_array_add(parts, p);
	}
	json_object_object_add(o, "partitions", parts);

	json_object_object_add(o, "bus", json_str_or_null(lu->naming.bus));
	json_object_object_add(o, "serial", json_str_or_null(lu->naming.serial));
	json_object_object_add(o, "wwn", json_str_or_null(lu->naming.wwn));
	for (size_t i = 0; i < lu->naming.n_names; i++)
		json_object_array_add(names, json_object_new_string(lu->naming.names[i]));
	json_object_object_add(o, "names", names);
	/* scsi_id's view, for `lunctl list`: the same strings and properties it computes
	 * itself when no daemon answers. */
	if (lu->naming.id_vendor) {
		json_object *id = json_object_new_object(), *props = json_object_new_object();

		json_object_object_add(id, "type", json_str_or_null(lu->naming.id_type));
		/* scsi_id has already replaced what is neither allowed ASCII nor valid UTF-8. */
		json_object_object_add(id, "vendor", json_str_or_null(lu->naming.id_vendor));
		json_object_object_add(id, "model", json_str_or_null(lu->naming.id_model));
		json_object_object_add(id, "revision", json_str_or_null(lu->naming.id_revision));
		json_object_object_add(id, "serial", json_str_or_null(lu->naming.id_serial));
		json_object_object_add(o, "id", id);
		for (const char *kv = lu_naming_next_prop(&lu->naming, NULL); kv;
		     kv = lu_naming_next_prop(&lu->naming, kv)) {
			const char *eq = strchr(kv, '=');
			_cleanup_free_ char *key = eq ? strndup(kv, (size_t)(eq - kv)) : NULL;

			if (key)
				json_object_object_add(props, key, json_object_new_string(eq + 1));
		}
		json_object_object_add(o, "properties", props);
	}
	if (lu->naming_error < 0)
		json_object_object_add(
		        o, "naming_error",
		        json_object_new_string(strerrorname_np(-lu->naming_error) ?: "EIO"));
	json_object_object_add(o, "probe_commands", json_object_new_int64(lu->probe_commands));

	for (size_t i = 0; claims && claims[i]; i++) {
		const Claim *c = claims[i];
		json_object *l = json_object_new_object();
		_cleanup_free_ char *path = NULL;

		if (asprintf(&path, "/%s/%s", m->link_dir[c->set], c->name) < 0)
			path = NULL;
		json_object_object_add(l, "path", json_str_or_null(path));
		json_object_object_add(l, "target", json_str_or_null(claim_target(c, lu)));
		json_object_object_add(l, "state", json_object_new_string(claim_state(c, lu)));
		json_object_array_add(links, l);
	}
	json_object_object_add(o, "links", links);
	return o;
}

static json_object *reply_ok(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ok", json_object_new_boolean(true));
	return o;
}

static json_object *inventory_to_json(Manager *m)
{
	json_object *hosts = json_object_new_array();

	for (Host *h = inventory_hosts(m->inventory); h; h = h->next) {
		json_object *ho = json_object_new_object(), *targets = json_object_new_array();

		json_object_object_add(ho, "host", json_object_new_int64(h->number));
		for (Target *t = h->targets; t; t = t->next) {
			json_object *to = json_object_new_object(), *lus = json_object_new_array();

			json_object_object_add(to, "channel", json_object_new_int64(t->channel));
			json_object_object_add(to, "target", json_object_new_int64(t->id));
			for (Lu *lu = t->lus; lu; lu = lu->next)
				json_object_array_add(lus, lu_to_json(m, lu));
			json_object_object_add(to, "lus", lus);
			json_object_array_add(targets, to);
		}
		json_object_object_add(ho, "targets", targets);
		json_object_array_add(hosts, ho);
	}
	return hosts;
}

typedef struct StatusWalk {
	Manager *m;
	json_object *collisions, *foreign;
	size_t linked;
} StatusWalk;

static void status_claim(const Claim *c, void *userdata)
{
	StatusWalk *w = userdata;
	_cleanup_free_ char *path = NULL;

	if (c->winner)
		w->linked++;
	if (asprintf(&path, "/%s/%s", w->m->link_dir[c->set], c->name) < 0)
		return;
	if (c->foreign)
		json_object_array_add(w->foreign, json_object_new_string(path));
	if (c->collision) {
		json_object *o = json_object_new_object(), *owners = json_object_new_array();

		json_object_object_add(o, "path", json_object_new_string(path));
		json_object_object_add(o, "winner",
		                       json_str_or_null(c->winner ? c->winner->hctl : NULL));
		for (ClaimOwner *x = c->owners; x; x = x->next)
			json_object_array_add(owners, json_object_new_string(x->lu->hctl));
		json_object_object_add(o, "owners", owners);
		json_object_array_add(w->collisions, o);
	}
}

static json_object *status_to_json(Manager *m)
{
	const MonitorStats *ms = m->monitor ? monitor_stats(m->monitor) : NULL;
	json_object *o = reply_ok(), *mon = json_object_new_object(),
	            *dirs = json_object_new_array();
	StatusWalk w = { m, json_object_new_array(), json_object_new_array(), 0 };
	size_t hosts = 0, targets = 0;
	uint64_t nowu = 0;

	for (Host *h = inventory_hosts(m->inventory); h; h = h->next, hosts++)
		for (Target *t = h->targets; t; t = t->next)
			targets++;
	claims_foreach(m->claims, status_claim, &w);
	sd_event_now(m->event, CLOCK_MONOTONIC, &nowu);

	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "protocol", json_object_new_int(1));
	json_object_object_add(o, "pid", json_object_new_int64(getpid()));
	json_object_object_add(o, "uptime_usec", json_object_new_uint64(nowu - m->started));
	json_object_object_add(o, "root", json_object_new_string(m->root));
	json_object_object_add(o, "run_dir", json_object_new_string(m->run_dir));
	for (LinkSet s = 0; s < _LINKSET_MAX; s++)
		if (m->links[s]) {
			_cleanup_free_ char *p = NULL;
			if (asprintf(&p, "/%s", m->link_dir[s]) >= 0)
				json_object_array_add(dirs, json_object_new_string(p));
		}
	json_object_object_add(o, "link_dirs", dirs);
	json_object_object_add(o, "hosts", json_object_new_int64((int64_t)hosts));
	json_object_object_add(o, "targets", json_object_new_int64((int64_t)targets));
	json_object_object_add(o, "lus",
	                       json_object_new_int64((int64_t)inventory_n_lus(m->inventory)));
	json_object_object_add(o, "names", json_object_new_int64((int64_t)claims_n(m->claims)));
	json_object_object_add(o, "links", json_object_new_int64((int64_t)w.linked));
	json_object_object_add(o, "collisions", w.collisions);
	json_object_object_add(o, "foreign", w.foreign);
	json_object_object_add(o, "resyncs", json_object_new_uint64(m->resyncs));
	json_object_object_add(o, "last_resync_reason", json_str_or_null(m->resync_reason));
	if (ms) {
		json_object_object_add(mon, "received", json_object_new_uint64(ms->received));
		json_object_object_add(mon, "dispatched", json_object_new_uint64(ms->dispatched));
		json_object_object_add(mon, "enobufs", json_object_new_uint64(ms->enobufs));
		json_object_object_add(mon, "seqnum_gaps", json_object_new_uint64(ms->gaps));
		json_object_object_add(mon, "last_seqnum", json_object_new_uint64(ms->last_seqnum));
		json_object_object_add(mon, "receive_buffer", json_object_new_uint64(ms->rcvbuf));
	}
	json_object_object_add(o, "monitor", ms ? mon : (json_object_put(mon), NULL));
	json_object_object_add(o, "clients", json_object_new_int64(control_n_clients(m->control)));
	json_object_object_add(o, "errors", error_tracker_json(m->errors));
	{
		json_object *hs = json_object_new_object();

		json_object_object_add(
		        hs, "mode",
		        json_object_new_string(manager_scan_mode_to_string(m->config.scan)));
		json_object_object_add(hs, "kernel_scan", json_str_or_null(m->kernel_scan));
		json_object_object_add(hs, "scans",
		                       json_object_new_int64(host_scanner_n_done(m->scanner)));
		json_object_object_add(hs, "busy",
		                       json_object_new_boolean(host_scanner_busy(m->scanner)));
		json_object_object_add(hs, "startup_scan_usec",
		                       json_object_new_uint64(m->startup_scan_usec));
		json_object_object_add(o, "host_scan", hs);
	}
	json_object_object_add(o, "ready", json_object_new_boolean(m->ready));
	return o;
}

static int on_request(ControlServer *s, ControlClient *c, json_object *req, json_object **ret_reply,
                      bool *ret_monitor, void *userdata)
{
	Manager *m = userdata;
	json_object *cmdo = NULL, *devo = NULL, *reply;
	const char *cmd;

	if (!json_object_object_get_ex(req, "cmd", &cmdo) ||
	    !json_object_is_type(cmdo, json_type_string))
		return -EBADMSG;
	cmd = json_object_get_string(cmdo);
	log_debug("control: \"%s\" from pid %i uid %u", cmd, (int)control_client_pid(c),
	          (unsigned)control_client_uid(c));

	if (streq(cmd, "list")) {
		reply = reply_ok();
		json_object_object_add(reply, "hosts", inventory_to_json(m));
	} else if (streq(cmd, "status"))
		reply = status_to_json(m);
	else if (streq(cmd, "names")) {
		_cleanup_(lu_ref_done) LuRef ref = {};
		Lu *lu;
		int r;

		if (!json_object_object_get_ex(req, "device", &devo) ||
		    !json_object_is_type(devo, json_type_string))
			return -EINVAL;
		r = probe_resolve(m->rootfd, json_object_get_string(devo), &ref);
		if (r < 0)
			return r;
		lu = inventory_find(m->inventory, ref.hctl);
		if (!lu)
			return -ENOENT;
		{
			json_object *o = lu_to_json(m, lu);

			reply = reply_ok();
			json_object_object_foreach(o, key, val)
			        json_object_object_add(reply, key, json_object_get(val));
			json_object_put(o);
		}
	} else if (streq(cmd, "monitor")) {
		reply = reply_ok();
		json_object_object_add(reply, "monitoring", json_object_new_boolean(true));
		*ret_monitor = true;
	} else if (streq(cmd, "rescan")) {
		int r = request_rescan(m, c, req, &reply);
		if (r < 0)
			return r;
	} else if (streq(cmd, "resync")) {
		int r = do_resync(m, "request");
		if (r < 0)
			return r;
		reply = status_to_json(m);
	} else
		return -EOPNOTSUPP;

	*ret_reply = reply;
	return 0;
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
	m->rootfd = m->runfd = -EBADF;
	m->scan_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	m->root = strdup(config->root ?: "/");
	m->run_dir = strdup(config->run_dir);
	m->link_dir[LINKSET_SCSI] = strdup(config->link_dir);
	if (config->disk_link_dir)
		m->link_dir[LINKSET_DISK] = strdup(config->disk_link_dir);
	if (!m->root || !m->run_dir || !m->link_dir[LINKSET_SCSI] ||
	    (config->disk_link_dir && !m->link_dir[LINKSET_DISK])) {
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

Manager *manager_free(Manager *m)
{
	if (!m)
		return NULL;
	host_scanner_free(m->scanner);
	sd_event_source_disable_unref(m->bind_source);
	free(m->bind_wait);
	free(m->kernel_scan);
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
	for (LinkSet s = 0; s < _LINKSET_MAX; s++) {
		links_free(m->links[s]);
		free(m->link_dir[s]);
	}
	sd_event_source_disable_unref(m->resync_source);
	sd_event_source_disable_unref(m->status_source);
	sd_event_unref(m->event);
	safe_close(m->rootfd);
	safe_close(m->runfd);
	free(m->root);
	free(m->run_dir);
	free(m);
	return NULL;
}

/*
 * Records of a link directory live in <run-dir>/links/<dir escaped>, the path with '-' for '/'
 * and "\x2d" for '-' (systemd's unit name escaping), so that records are bound to the directory
 * they describe and a changed --link-dir never mistakes one directory's links for another's.
 */
static char *record_dir_for(const char *link_dir)
{
	char *r = malloc(strlen("links/") + strlen(link_dir) * 4 + 1), *p;

	if (!r)
		return NULL;
	p = stpcpy(r, "links/");
	for (const char *c = link_dir; *c; c++) {
		if (*c == '/')
			*p++ = '-';
		else if (*c == '-' || *c == '\\')
			p += sprintf(p, "\\x%02x", (unsigned char)*c);
		else
			*p++ = *c;
	}
	*p = 0;
	return r;
}

static char *link_dir_from_record(const char *name)
{
	char *r = malloc(strlen(name) + 1), *p = r;

	if (!r)
		return NULL;
	for (const char *c = name; *c; c++) {
		unsigned v;

		if (*c == '-')
			*p++ = '/';
		else if (c[0] == '\\' && c[1] == 'x' && sscanf(c + 2, "%2x", &v) == 1 && v > 0) {
			*p++ = (char)v;
			c += 3;
		} else
			*p++ = *c;
	}
	*p = 0;
	return r;
}

static void drop_records(int runfd, const char *record)
{
	_cleanup_close_ int fd =
	        openat(runfd, record, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d)
		return;
	fd = -EBADF;
	for (struct dirent *de; (de = readdir(d));)
		if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	(void)unlinkat(runfd, record, AT_REMOVEDIR);
}

/* A link directory lund no longer manages (--manage-disk-links dropped, --link-dir changed):
 * remove the links it made there, then its records. */
static void retire_old_link_dirs(Manager *m)
{
	_cleanup_close_ int fd = -EBADF;
	DIR *d;

	fd = openat(m->runfd, "links", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d)
		return;
	fd = -EBADF;
	for (struct dirent *de; (de = readdir(d));) {
		_cleanup_free_ char *dir = NULL, *record = NULL;
		LinkReportCtx ctx = { m, LINKSET_SCSI };
		bool active = false;
		Links *l = NULL;
		LinksStats st = {};
		int r;

		if (de->d_name[0] == '.')
			continue;
		dir = link_dir_from_record(de->d_name);
		if (!dir || isempty(dir) || dir[0] == '/' || strstr(dir, ".."))
			continue;
		for (LinkSet s = 0; s < _LINKSET_MAX; s++)
			if (m->link_dir[s] && streq(m->link_dir[s], dir))
				active = true;
		if (active || asprintf(&record, "links/%s", de->d_name) < 0)
			continue;
		if (faccessat(m->rootfd, dir, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
			/* The directory is gone, and the links with it: forget the records. */
			drop_records(m->runfd, record);
			continue;
		}
		log_info("/%s is no longer managed, removing lund's links there", dir);
		r = links_new(m->rootfd, dir, m->runfd, record, NULL, &ctx, &l);
		if (r >= 0)
			r = links_reconcile(l, NULL, 0, NULL, &st);
		links_free(l);
		if (r < 0)
			log_warning_errno(r, "/%s: could not remove old links, ignoring: %m", dir);
		else {
			log_info("/%s: %u links removed, %u lost", dir, st.removed, st.lost);
			(void)unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		}
	}
	closedir(d);
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
		.rescan_target = on_rescan_target,
		.apply_policy = on_apply_policy,
	};
	static const MonitorCallbacks mcb = {
		.event = on_uevent,
		.loss = on_uevent_loss,
		.error = on_monitor_error,
	};
	_cleanup_free_ char *sock = NULL;
	ErrorThreshold threshold;
	sigset_t ss;
	int r;

	sd_event_now(m->event, CLOCK_MONOTONIC, &m->started);

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	/* No handler: sd-event leaves the loop on these. */
	r = sd_event_add_signal(m->event, NULL, SIGTERM, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGINT, NULL, NULL);
	if (r < 0)
		return log_error_errno(r, "Failed to handle SIGTERM/SIGINT: %m");
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

	r = claims_new(&link_ops, m, &m->claims);
	if (r < 0)
		return log_error_errno(r, "Failed to set up link claims: %m");
	for (LinkSet s = 0; s < _LINKSET_MAX; s++) {
		_cleanup_free_ char *record = NULL;

		if (!m->link_dir[s])
			continue;
		record = record_dir_for(m->link_dir[s]);
		if (!record)
			return log_error_errno(-ENOMEM, "Out of memory");
		m->report_ctx[s] = (LinkReportCtx){ m, s };
		r = links_new(m->rootfd, m->link_dir[s], m->runfd, record, on_link_report,
		              &m->report_ctx[s], &m->links[s]);
		if (r < 0)
			return log_error_errno(r, "Failed to set up /%s: %m", m->link_dir[s]);
	}
	retire_old_link_dirs(m);

	r = policy_engine_new(m->rootfd, m->config.conf_path, m->config.hwdb_path, &m->policy);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the policy engine: %m");
	/* The policy engine has logged what is wrong with lund.conf; -EBADMSG still leaves the
	 * hwdb's quirks. */
	r = scan_quirks_new(m->config.hwdb_path, m->config.conf_path, &m->scan_quirks);
	if (r < 0 && r != -EBADMSG)
		return log_error_errno(r, "Failed to load the scan quirks: %m");

	r = error_threshold_parse(m->config.error_threshold ?: "transport:10/60:log", &threshold);
	if (r < 0)
		return log_error_errno(r, "Invalid error threshold \"%s\"",
		                       m->config.error_threshold);
	r = error_tracker_new(m->rootfd, &threshold, on_error_rescan, m, &m->errors);
	if (r >= 0)
		r = error_tracker_attach_event(m->errors, m->event, 5 * 1000000ULL);
	if (r < 0)
		return log_error_errno(r, "Failed to set up error tracking: %m");

	r = inventory_new(m->rootfd, m->config.probe_flags, &hooks, m, &m->inventory);
	if (r < 0)
		return log_error_errno(r, "Failed to create the inventory: %m");

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
	r = control_new(m->event, sock, on_request, m, &m->control);
	if (r < 0)
		return log_error_errno(r, "Failed to create the control socket %s: %m", sock);

	r = modload_new(m->rootfd, m->config.modload, &m->modload);
	if (r < 0)
		log_warning_errno(r, "Cannot load drivers, continuing without: %m");

	r = do_resync(m, "start-up");
	if (r < 0)
		log_warning_errno(r, "Start-up scan incomplete, continuing: %m");
	/* Coldplug: LUs that were there before lund may lack their drivers too. Their nodes
	 * arrive as uevents, like any other. */
	if (modload_active(m->modload))
		for (Lu *lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu))
			if (!lu->sg || (!lu->block && !lu->tape))
				(void)modload_lu(m->modload, lu->hctl, lu->syspath, NULL);
	m->resyncs = 0;

	if (m->config.scan != MANAGER_SCAN_NEVER) {
		static const HostScanCallbacks scb = {
			.action = on_host_scan_action,
			.done = on_host_scan_done,
		};

		r = host_scanner_new(m->event, m->rootfd, &scb, m, &m->scanner);
		if (r < 0)
			log_warning_errno(r, "Cannot scan hosts, continuing without: %m");
		else
			host_scanner_set_policy(
			        m->scanner,
			        scan_quirks_active(m->scan_quirks)
			                ? &(ScanPolicy){ .quirk = on_scan_quirk, .userdata = m }
			                : NULL,
			        &m->scan_lock);
	}
	if (host_scans_wanted(m)) {
		/* Readiness waits for the scan: units ordered after lund see every LU named. */
		log_info("Scanning every host for logical units before signalling readiness "
		         "(--scan=%s)",
		         manager_scan_mode_to_string(m->config.scan));
		(void)sd_notify(false, "STATUS=Scanning SCSI hosts");
		if (queue_host_scan(m, SCAN_ANY, "start-up") >= 0)
			return 0;
	} else
		log_info("Not scanning hosts (--scan=%s, scsi_mod.scan=%s)",
		         manager_scan_mode_to_string(m->config.scan), m->kernel_scan ?: "unknown");
	send_ready(m);
	return 0;
}

static void send_ready(Manager *m)
{
	uint64_t nowu = 0;

	if (m->ready)
		return;
	m->ready = true;
	m->resyncs = 0;
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
