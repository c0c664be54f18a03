/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The control protocol (lunctl(8), "CONTROL PROTOCOL"): one JSON request in, one reply out.
 * The socket, its peers and its framing are control.c's.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "macro.h"
#include "manager-private.h"
#include "probe.h"
#include "scan-json.h"

/*
 * {"cmd":"rescan","selectors":["2","0:0:1"],"add":true,"remove":false,"resize":false,
 *  "ids":false,"force":false,"dry_run":false,"timeout_ms":N,"jobs":N,"max_lun":N,"progress":true,
 *  "wait_ms":N}
 * The reply comes when the scan ends (it runs off the loop, after those queued before it).
 */
#define RESCAN_WAIT_DEFAULT_MS (10u * 60u * 1000u)
#define RESCAN_WAIT_MAX_MS     (24u * 3600u * 1000u)

static int request_rescan(Manager *m, ControlClient *c, json_object *req, json_object **ret)
{
	_cleanup_free_ ScanSelector *sel = NULL;
	json_object *sels = NULL, *v;
	ScanPolicy pol = {};
	ScanFlags flags;
	size_t n_sel = 0;
	uint64_t wait_ms = RESCAN_WAIT_DEFAULT_MS;
	bool progress;

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
	if (json_object_object_get_ex(req, "wait_ms", &v))
		wait_ms = (uint64_t)MIN(json_object_get_int64(v) < 0 ? 0 : json_object_get_int64(v),
		                        RESCAN_WAIT_MAX_MS);
	progress = json_object_object_get_ex(req, "progress", &v) && json_object_get_boolean(v);

	*ret = NULL; /* deferred: answered when the scan ends */
	return manager_scan_submit(m, c, sel, n_sel, flags, &pol, progress, wait_ms * 1000);
}

/*
 * {"cmd":"queue"}: what lund still has to do, for `lunctl settle`. "settled" is true when no
 * scan runs or waits, no resync or reload is pending, no driver bind is awaited and no uevent
 * waits in the monitor's socket. A link write waiting for its retry is reported but does not
 * count: its backoff is unbounded (a read-only link directory). Answered from the loop, so it
 * never waits for any of them.
 */
static json_object *request_queue(Manager *m)
{
	bool running = m->scanner && host_scanner_running(m->scanner);
	size_t queued = m->scanner ? host_scanner_n_queued(m->scanner) : 0;
	bool uevents = monitor_pending(m->monitor);
	bool resync = m->resync_source != NULL;
	bool reload = m->reload_pending != NULL;
	bool links = m->links_retry_source != NULL;
	json_object *reply = manager_reply_ok();

	json_object_object_add(reply, "settled",
	                       json_object_new_boolean(!running && queued == 0 && !uevents &&
	                                               !resync && !reload && m->n_bind_wait == 0));
	json_object_object_add(reply, "scan_running", json_object_new_boolean(running));
	json_object_object_add(reply, "scans_queued", json_object_new_int64((int64_t)queued));
	json_object_object_add(reply, "uevents_pending", json_object_new_boolean(uevents));
	json_object_object_add(reply, "resync_pending", json_object_new_boolean(resync));
	json_object_object_add(reply, "reload_pending", json_object_new_boolean(reload));
	json_object_object_add(reply, "link_retry_pending", json_object_new_boolean(links));
	json_object_object_add(reply, "bind_wait", json_object_new_int64((int64_t)m->n_bind_wait));
	return reply;
}

int manager_on_request(ControlServer *s, ControlClient *c, json_object *req,
                       json_object **ret_reply, bool *ret_monitor, void *userdata)
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
		reply = manager_reply_ok();
		json_object_object_add(reply, "hosts", manager_inventory_to_json(m));
	} else if (streq(cmd, "status"))
		reply = manager_status_to_json(m);
	else if (streq(cmd, "queue"))
		reply = request_queue(m);
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
			json_object *o = manager_lu_to_json(m, lu);

			reply = manager_reply_ok();
			json_object_object_foreach(o, key, val)
			        json_object_object_add(reply, key, json_object_get(val));
			json_object_put(o);
		}
	} else if (streq(cmd, "monitor")) {
		reply = manager_reply_ok();
		json_object_object_add(reply, "monitoring", json_object_new_boolean(true));
		*ret_monitor = true;
	} else if (streq(cmd, "rescan")) {
		int r = request_rescan(m, c, req, &reply);
		if (r == -EBUSY) {
			char msg[96];

			snprintf(msg, sizeof(msg), "%u scan requests are queued already, try later",
			         HOST_SCAN_QUEUE_MAX);
			reply = control_error_reply(r, msg);
		} else if (r < 0)
			return r;
	} else if (streq(cmd, "resync")) {
		int r = manager_resync(m, "request");
		if (r < 0)
			return r;
		reply = manager_status_to_json(m);
	} else if (streq(cmd, "reload")) {
		_cleanup_free_ char *msg = NULL;
		int r = manager_reload(m, "request", &msg);

		if (r < 0 && msg) {
			/* The reason, not just the errno: the admin has a file to fix. */
			reply = json_object_new_object();
			json_object_object_add(reply, "ok", json_object_new_boolean(false));
			json_object_object_add(
			        reply, "error",
			        json_object_new_string(strerrorname_np(-r) ?: "EIO"));
			json_object_object_add(reply, "message", json_object_new_string(msg));
			*ret_reply = reply;
			return 0;
		}
		if (r < 0)
			return r;
		reply = manager_reply_ok();
		json_object_object_add(reply, "pending", json_object_new_boolean(r > 0));
	} else
		return -EOPNOTSUPP;

	*ret_reply = reply;
	return 0;
}
