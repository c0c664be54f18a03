/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The Manager's JSON: events for monitoring clients, and the LUs, inventory and status that
 * control replies carry.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "macro.h"
#include "manager-private.h"

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

void manager_emit(Manager *m, const char *event, json_object *o)
{
	if (!control_has_monitors(m->control)) {
		json_object_put(o);
		return;
	}
	if (!o)
		o = json_object_new_object();
	json_object_object_add(o, "event", json_object_new_string(event));
	json_object_object_add(o, "time_usec",
	                       json_object_new_uint64(clock_now_usec(CLOCK_REALTIME)));
	control_broadcast(m->control, o);
	json_object_put(o);
}

/* Whether anyone listens: building an event costs more than handling most uevents. */
bool manager_want_events(Manager *m)
{
	return control_has_monitors(m->control);
}

json_object *manager_event_hctl(const Lu *lu)
{
	json_object *o = json_object_new_object();

	if (lu)
		json_object_object_add(o, "hctl", json_object_new_string(lu->hctl));
	return o;
}

/* ---- LUs, inventory, status ---- */

/* The other paths of @lu's LU (lund(8), Paths and clones): the owners of its names that are
 * paths of it, each once; null when it is seen through one path only. */
/* A name that several paths of one LU claim: a collision of paths, or a name they all want on
 * the dm-multipath map holding them (manager-mpath.c), where their targets agree. */
static bool claim_of_paths(const Claim *c)
{
	if (c->collision)
		return !c->quarantined;
	if (!c->owners || !c->owners->next)
		return false;
	for (const ClaimOwner *o = c->owners; o; o = o->next)
		for (const ClaimOwner *p = o->next; p; p = p->next)
			if (!lu_same_lu(o->lu, p->lu))
				return false;
	return true;
}

/* @lu's standing on @c: as claims.h says, except that a path whose target the link has (the
 * map of a multipathed LU) is "linked" whichever path won. */
static const char *lu_claim_state(const Claim *c, const Lu *lu)
{
	if (!c->foreign && !c->collision && c->winner && c->winner != lu &&
	    streq_ptr(claim_target(c, c->winner), claim_target(c, lu)))
		return "linked";
	return claim_state(c, lu);
}

static json_object *lu_multipath_to_json(const Lu *lu)
{
	_cleanup_free_ char *name = NULL;
	json_object *o;

	if (!lu_mpath(lu) || !lu_mpath_uuid(lu))
		return NULL;
	if (asprintf(&name, "dm-uuid-%s", lu_mpath_uuid(lu)) < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "node", json_object_new_string(lu_mpath(lu)));
	json_object_object_add(o, "uuid", json_object_new_string(lu_mpath_uuid(lu)));
	json_object_object_add(o, "name", json_object_new_string(name));
	return o;
}

static json_object *lu_other_paths_to_json(const Lu *lu)
{
	json_object *a = NULL;
	ClaimView view;

	for (size_t i = 0; i < claims_n_of(lu); i++) {
		const Claim *c = claims_of(lu, i, &view);

		if (!claim_of_paths(c))
			continue;
		for (ClaimOwner *x = c->owners; x; x = x->next) {
			bool seen = false;

			if (x->lu == lu || (x->alias && c->superseded))
				continue;
			if (!a)
				a = json_object_new_array();
			for (size_t k = 0; k < json_object_array_length(a) && !seen; k++)
				seen = streq(
				        json_object_get_string(json_object_array_get_idx(a, k)),
				        x->lu->hctl);
			if (!seen)
				json_object_array_add(a, json_object_new_string(x->lu->hctl));
		}
	}
	return a;
}

void manager_lu_exclusion_json(Manager *m, const Lu *lu, json_object *o)
{
	ExclusionVerdict v;
	json_object *x;

	policy_lu_verdict(m->policy, lu, &v);
	if (!v.rule || !(x = json_object_new_object()))
		return;
	json_object_object_add(x, "kind", json_object_new_string(v.kind));
	json_object_object_add(x, "rule", json_object_new_string(v.rule));
	json_object_object_add(
	        x, "file", json_object_new_string(conf_get_path(policy_engine_conf(m->policy))));
	json_object_object_add(x, "line", json_object_new_int64(v.line));
	json_object_object_add(x, "names", json_object_new_boolean(v.names));
	json_object_object_add(o, "excluded", json_object_new_boolean(v.excluded));
	json_object_object_add(o, "exclusion", x);
}

json_object *manager_lu_to_json(Manager *m, const Lu *lu)
{
	json_object *o = json_object_new_object(), *nodes = json_object_new_object(),
	            *names = json_object_new_array(), *links = json_object_new_array(),
	            *parts = json_object_new_array();
	_cleanup_(identity_done) Identity sid = {};
	ClaimView view;

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
	NODE("tape", lu_tape(lu));
	NODE("tape_nr", lu_tape_nr(lu));
	NODE("sg", lu->sg);
	NODE("bsg", lu->bsg);
#undef NODE
	json_object_object_add(o, "nodes", nodes);
	for (size_t i = 0; i < lu_n_partitions(lu); i++) {
		json_object *p = json_object_new_object();
		_cleanup_free_ char *dev = NULL;

		if (asprintf(&dev, "/dev/%s", lu_partitions(lu)[i].node) < 0)
			dev = NULL;
		json_object_object_add(p, "node", json_str_or_null(dev));
		json_object_object_add(p, "number",
		                       json_object_new_int64(lu_partitions(lu)[i].number));
		json_object_array_add(parts, p);
	}
	json_object_object_add(o, "partitions", parts);

	json_object_object_add(o, "bus", json_str_or_null(lu->naming.bus));
	json_object_object_add(o, "serial", json_str_or_null(lu->naming.serial));
	json_object_object_add(o, "wwn", json_str_or_null(lu->naming.wwn));
	for (size_t i = 0; i < lu->naming.n_names; i++)
		json_object_array_add(names, json_object_new_string(lu->naming.names[i]));
	json_object_object_add(o, "names", names);
	manager_lu_exclusion_json(m, lu, o);
	/* scsi_id's view, for `lunctl list`: the same strings and properties it computes
	 * itself when no daemon answers. */
	if (lu_naming_scsi_id(&lu->naming, &sid) >= 0) {
		json_object *id = json_object_new_object(), *props = json_object_new_object();

		json_object_object_add(id, "type", json_str_or_null(sid.id->type));
		/* scsi_id has already replaced what is neither allowed ASCII nor valid UTF-8. */
		json_object_object_add(id, "vendor", json_str_or_null(sid.id->vendor));
		json_object_object_add(id, "model", json_str_or_null(sid.id->model));
		json_object_object_add(id, "revision", json_str_or_null(sid.id->revision));
		json_object_object_add(
		        id, "serial",
		        json_str_or_null(sid.id->have_serial ? sid.id->serial : NULL));
		json_object_object_add(o, "id", id);
		for (const char *kv = identity_next_line(&sid, NULL, true); kv;
		     kv = identity_next_line(&sid, kv, true)) {
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
	/* identification with SCSI commands under way: no names (or the previous ones) till then */
	json_object_object_add(o, "identifying", json_object_new_boolean(lu->naming_pending));

	for (size_t i = 0; i < claims_n_of(lu); i++) {
		const Claim *c = claims_of(lu, i, &view);
		json_object *l = json_object_new_object();
		_cleanup_free_ char *path = NULL;

		if (asprintf(&path, "/%s/%s", m->link_dir[c->set], c->name) < 0)
			path = NULL;
		json_object_object_add(l, "path", json_str_or_null(path));
		json_object_object_add(l, "target", json_str_or_null(claim_target(c, lu)));
		json_object_object_add(l, "state", json_object_new_string(lu_claim_state(c, lu)));
		json_object_object_add(l, "alias", json_object_new_boolean(claim_is_alias(c, lu)));
		json_object_array_add(links, l);
	}
	json_object_object_add(o, "links", links);
	json_object_object_add(o, "paths", lu_other_paths_to_json(lu));
	json_object_object_add(o, "multipath", lu_multipath_to_json(lu));
	return o;
}

json_object *manager_reply_ok(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ok", json_object_new_boolean(true));
	return o;
}

typedef struct StatusWalk {
	Manager *m;
	json_object *collisions, *foreign;
	size_t linked;
} StatusWalk;

/* The dm-multipath map that holds @c's paths (manager-mpath.c), null when none does. */
static json_object *paths_multipath_to_json(const Claim *c)
{
	for (ClaimOwner *x = c->owners; x; x = x->next)
		if (lu_mpath(x->lu))
			return lu_multipath_to_json(x->lu);
	return NULL;
}

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
	if (c->collision || claim_of_paths(c)) {
		json_object *o = json_object_new_object(), *owners = json_object_new_array();

		json_object_object_add(o, "path", json_object_new_string(path));
		json_object_object_add(o, "winner",
		                       json_str_or_null(c->winner ? c->winner->hctl : NULL));
		json_object_object_add(o, "kind",
		                       json_object_new_string(c->quarantined ? "clones" : "paths"));
		if (!c->quarantined)
			json_object_object_add(o, "multipath", paths_multipath_to_json(c));
		for (ClaimOwner *x = c->owners; x; x = x->next)
			json_object_array_add(owners, json_object_new_string(x->lu->hctl));
		json_object_object_add(o, "owners", owners);
		json_object_array_add(w->collisions, o);
	}
}

/* One scan, running or queued, for `lunctl status`. */
static json_object *scan_request_to_json(const HostScanRequest *req, uint64_t nowu)
{
	json_object *o = json_object_new_object(), *sels = json_object_new_array();
	uint64_t since = req->started_usec ?: req->queued_usec;

	json_object_object_add(o, "reason", json_object_new_string(req->reason));
	for (size_t i = 0; i < req->n_sel; i++) {
		const ScanSelector *x = &req->sel[i];
		char buf[96];

		if (x->channel == SCAN_ANY)
			snprintf(buf, sizeof(buf), "%" PRId64, x->host);
		else if (x->lun == SCAN_ANY)
			snprintf(buf, sizeof(buf), "%" PRId64 ":%" PRId64 ":%" PRId64, x->host,
			         x->channel, x->target);
		else
			snprintf(buf, sizeof(buf), "%" PRId64 ":%" PRId64 ":%" PRId64 ":%" PRId64,
			         x->host, x->channel, x->target, x->lun);
		json_object_array_add(sels, json_object_new_string(buf));
	}
	json_object_object_add(o, "selectors", sels);
	json_object_object_add(o, "client", json_object_new_boolean(req->owner != NULL));
	json_object_object_add(o, "age_usec",
	                       json_object_new_uint64(nowu > since ? nowu - since : 0));
	return o;
}

json_object *manager_status_to_json(Manager *m)
{
	const MonitorStats *ms = m->monitor ? monitor_stats(m->monitor) : NULL;
	json_object *o = manager_reply_ok(), *mon = json_object_new_object(),
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
	json_object_object_add(
	        o, "identifying",
	        json_object_new_int64((int64_t)inventory_n_identifying(m->inventory)));
	json_object_object_add(o, "links", json_object_new_int64((int64_t)w.linked));
	/* Names whose last write failed: retried with back-off (lund(8), LINKS). */
	json_object_object_add(o, "links_failed",
	                       json_object_new_int64((int64_t)claims_failed(m->claims)));
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
	json_object_object_add(o, "holds", manager_holds_json(m));
	json_object_object_add(o, "reserved", manager_reservations_json(m));
	json_object_object_add(o, "not_running", manager_state_json(m));
	json_object_object_add(o, "iscsi_logins_waiting", manager_iscsi_json(m));
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
		json_object_object_add(hs, "running",
		                       json_object_new_boolean(host_scanner_running(m->scanner)));
		json_object_object_add(hs, "queued",
		                       json_object_new_uint64(host_scanner_n_queued(m->scanner)));
		{
			const HostScanRequest *cur = host_scanner_current(m->scanner);
			json_object *q = json_object_new_array();

			json_object_object_add(hs, "current",
			                       cur ? scan_request_to_json(cur, nowu) : NULL);
			for (size_t i = 0; host_scanner_queued(m->scanner, i); i++)
				json_object_array_add(
				        q, scan_request_to_json(host_scanner_queued(m->scanner, i),
				                                nowu));
			json_object_object_add(hs, "queue", q);
		}
		json_object_object_add(hs, "startup_scan_usec",
		                       json_object_new_uint64(m->startup_scan_usec));
		json_object_object_add(o, "host_scan", hs);
	}
	json_object_object_add(o, "reloads", json_object_new_uint64(m->reloads));
	json_object_object_add(o, "ready", json_object_new_boolean(m->ready));
	return o;
}
