/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The control protocol (lunctl(8), "CONTROL PROTOCOL"): one JSON request in, one reply out.
 * The socket, its peers and its framing are control.c's.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confcheck.h"
#include "control-request.h"
#include "log.h"
#include "macro.h"
#include "manager-private.h"
#include "probe.h"
#include "scan-json.h"

/* The reply comes when the scan ends (it runs off the loop, after those queued before it). */
static int request_rescan(Manager *m, ControlClient *c, const ControlRequest *req,
                          json_object **ret)
{
	ScanPolicy pol = req->policy;

	*ret = NULL; /* deferred: answered when the scan ends */
	return manager_scan_submit(m, c, req->selectors, req->n_selectors, req->flags, &pol,
	                           req->progress, req->wait_ms * 1000);
}

/*
 * {"cmd":"queue"}: what lund still has to do, for `lunctl settle`. "settled" is true when no
 * scan runs or waits, no resync or reload is pending, no driver bind is awaited, no LU is being
 * identified, no uevent waits in the monitor's socket and no link write failed: a name that
 * is not on disk is not settled, whatever keeps it off (a read-only or full link directory);
 * `lunctl settle --timeout` bounds the wait. Answered from the loop, so it never waits for
 * any of them.
 */
static json_object *request_queue(Manager *m)
{
	bool running = m->scanner && host_scanner_running(m->scanner);
	size_t queued = m->scanner ? host_scanner_n_queued(m->scanner) : 0;
	bool uevents = monitor_pending(m->monitor);
	bool resync = m->resync_source != NULL;
	bool resyncing = m->resync_job != NULL;
	bool reload = m->reload_pending != NULL;
	bool links = m->links_retry_source != NULL;
	size_t identifying = inventory_n_identifying(m->inventory);
	bool links_dirty = m->links_flush_source != NULL;
	json_object *reply = manager_reply_ok();

	json_object_object_add(reply, "settled",
	                       json_object_new_boolean(!running && queued == 0 && !uevents &&
	                                               !resync && !resyncing && !reload &&
	                                               m->n_bind_wait == 0 && identifying == 0 &&
	                                               !links_dirty && !links));
	json_object_object_add(reply, "scan_running", json_object_new_boolean(running));
	json_object_object_add(reply, "scans_queued", json_object_new_int64((int64_t)queued));
	json_object_object_add(reply, "uevents_pending", json_object_new_boolean(uevents));
	json_object_object_add(reply, "resync_pending", json_object_new_boolean(resync));
	json_object_object_add(reply, "resync_running", json_object_new_boolean(resyncing));
	json_object_object_add(reply, "reload_pending", json_object_new_boolean(reload));
	json_object_object_add(reply, "link_retry_pending", json_object_new_boolean(links));
	json_object_object_add(reply, "links_pending", json_object_new_boolean(links_dirty));
	json_object_object_add(reply, "bind_wait", json_object_new_int64((int64_t)m->n_bind_wait));
	json_object_object_add(reply, "identifying", json_object_new_int64((int64_t)identifying));
	/* udevd makes the links: they exist once udev's queue is empty too (lunctl settle). */
	json_object_object_add(reply, "udev_links", json_object_new_boolean(m->udev_links));
	return reply;
}

/* Does @lu come after the cursor of @req (H:C:T:L order, the inventory's)? */
static int cmp_hctl(unsigned h1, unsigned c1, unsigned t1, uint64_t l1, unsigned h2, unsigned c2,
                    unsigned t2, uint64_t l2)
{
	if (h1 != h2)
		return h1 < h2 ? -1 : 1;
	if (c1 != c2)
		return c1 < c2 ? -1 : 1;
	if (t1 != t2)
		return t1 < t2 ? -1 : 1;
	if (l1 != l2)
		return l1 < l2 ? -1 : 1;
	return 0;
}

/* The first LU after H:C:T:L @h:@c:@t:@l (the first of all without @has). */
static Lu *lu_after(Manager *m, bool has, unsigned h, unsigned c, unsigned t, uint64_t l)
{
	char hctl[64];
	Lu *lu;

	if (!has)
		return inventory_first_lu(m->inventory);
	snprintf(hctl, sizeof(hctl), "%u:%u:%u:%" PRIu64, h, c, t, l);
	lu = inventory_find(m->inventory, hctl);
	if (lu)
		return inventory_next_lu(lu);
	/* gone meanwhile (or never there): the walk from the first */
	for (lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu))
		if (cmp_hctl(lu->target->host->number, lu->target->channel, lu->target->id, lu->lun,
		             h, c, t, l) > 0)
			break;
	return lu;
}

/*
 * {"cmd":"list"} with "limit" (without: request_list_stream()): hosts[].targets[].lus[], at
 * most that many LUs after "after" (an H:C:T:L, exclusive) in H:C:T:L order, fewer once they
 * take page_bytes of JSON (at least one), and "next" (the last one's H:C:T:L) when more follow;
 * the client asks again with "after": next. Pages are taken from the live inventory: an LU
 * added or removed between two pages is listed or not, never twice.
 */
static json_object *request_list(Manager *m, const ControlRequest *req)
{
	json_object *reply = manager_reply_ok(), *hosts = json_object_new_array();
	json_object *targets = NULL, *lus = NULL;
	const Lu *last = NULL;
	size_t n = 0, bytes = 0;
	Lu *lu = lu_after(m, req->has_after, req->after_host, req->after_channel, req->after_target,
	                  req->after_lun);

	json_object_object_add(reply, "hosts", hosts);
	for (; lu && n < req->limit && bytes < m->list_page_bytes; lu = inventory_next_lu(lu)) {
		const Target *t = lu->target;
		json_object *o = manager_lu_to_json(m, lu);
		size_t len = 0;

		/* a host or target other than the last LU's gets its own object */
		if (!last || last->target->host != t->host) {
			json_object *ho = json_object_new_object();

			targets = json_object_new_array();
			json_object_object_add(ho, "host", json_object_new_int64(t->host->number));
			json_object_object_add(ho, "targets", targets);
			json_object_array_add(hosts, ho);
		}
		if (!last || last->target != t) {
			json_object *to = json_object_new_object();

			lus = json_object_new_array();
			json_object_object_add(to, "channel", json_object_new_int64(t->channel));
			json_object_object_add(to, "target", json_object_new_int64(t->id));
			json_object_object_add(to, "lus", lus);
			json_object_array_add(targets, to);
		}
		if (o)
			(void)json_object_to_json_string_length(
			        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
		json_object_array_add(lus, o);
		bytes += len;
		last = lu;
		n++;
	}
	if (lu && last)
		json_object_object_add(reply, "next", json_object_new_string(last->hctl));
	return reply;
}

/*
 * An unpaged {"cmd":"list"}, whatever the inventory's size: written to the client in parts from
 * the loop, at most LIST_STREAM_LUS LUs a wake-up, and only while the client has read what it
 * was sent (less than LIST_STREAM_BACKLOG queued), so that lund's memory and the loop's pauses
 * are the same at 100,000 LUs as at 10. The parts make the reply one built whole would be:
 * hosts[].targets[].lus[] in H:C:T:L order. LUs are taken from the live inventory after the
 * last one written: one added or removed meanwhile is listed or not, never twice.
 */
#define LIST_STREAM_LUS        256
#define LIST_STREAM_BACKLOG    (1024u * 1024u)
#define LIST_STREAM_WAIT_USEC  (10u * 1000u)
#define LIST_STREAM_JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

struct ListStream {
	ListStream *next;
	Manager *m;
	ControlClient *client;
	sd_event_source *source;
	bool started;
	bool has_last; /* the last LU written, or the request's "after" */
	unsigned last_host, last_channel, last_target;
	uint64_t last_lun;
	bool open; /* an LU was written: its host's and its target's arrays are open */
};

static ListStream *list_stream_free(ListStream *ls)
{
	if (!ls)
		return NULL;
	for (ListStream **p = &ls->m->list_streams; *p; p = &(*p)->next)
		if (*p == ls) {
			*p = ls->next;
			break;
		}
	sd_event_source_disable_unref(ls->source);
	control_client_unref(ls->client);
	free(ls);
	return NULL;
}

void manager_list_streams_free(Manager *m)
{
	while (m->list_streams)
		list_stream_free(m->list_streams);
}

/* The first LU after the last one written (after the request's "after" at first). */
static Lu *list_stream_next(const ListStream *ls)
{
	return lu_after(ls->m, ls->has_last, ls->last_host, ls->last_channel, ls->last_target,
	                ls->last_lun);
}

/* One part into @f: the reply's head first, its tail once no LU is left (*ret_done). */
static int list_stream_part(ListStream *ls, FILE *f, bool *ret_done)
{
	Lu *lu = list_stream_next(ls);

	if (!ls->started) {
		json_object *id = control_client_pending_id(ls->client);

		fputs("{\"ok\":true,", f);
		if (id)
			fprintf(f, "\"id\":%s,",
			        json_object_to_json_string_ext(id, LIST_STREAM_JSON_FLAGS));
		fputs("\"hosts\":[", f);
		ls->started = true;
	}
	for (unsigned k = 0; lu && k < LIST_STREAM_LUS; k++, lu = inventory_next_lu(lu)) {
		const Target *t = lu->target;
		/* a host or target other than the last LU's closes its arrays and opens its own */
		bool new_host = !ls->open || t->host->number != ls->last_host;
		bool new_target =
		        new_host || t->channel != ls->last_channel || t->id != ls->last_target;
		json_object *o = manager_lu_to_json(ls->m, lu);

		if (!o)
			return -ENOMEM;
		if (ls->open && new_target)
			fputs(new_host ? "]}]}," : "]},", f);
		if (new_host)
			fprintf(f, "{\"host\":%u,\"targets\":[", t->host->number);
		if (new_target)
			fprintf(f, "{\"channel\":%u,\"target\":%u,\"lus\":[", t->channel, t->id);
		fprintf(f, "%s%s", new_target ? "" : ",",
		        json_object_to_json_string_ext(o, LIST_STREAM_JSON_FLAGS));
		json_object_put(o);
		ls->open = ls->has_last = true;
		ls->last_host = t->host->number;
		ls->last_channel = t->channel;
		ls->last_target = t->id;
		ls->last_lun = lu->lun;
	}
	*ret_done = !lu;
	if (!lu)
		fputs(ls->open ? "]}]}]}" : "]}", f);
	return 0;
}

static int on_list_stream(sd_event_source *s, uint64_t usec, void *userdata)
{
	ListStream *ls = userdata;
	_cleanup_free_ char *buf = NULL;
	bool done = false;
	size_t size = 0;
	FILE *f;
	int r;

	if (!control_client_alive(ls->client)) {
		list_stream_free(ls);
		return 0;
	}
	if (control_client_backlog(ls->client) < LIST_STREAM_BACKLOG) {
		f = open_memstream(&buf, &size);
		if (!f)
			r = -ENOMEM;
		else {
			r = list_stream_part(ls, f, &done);
			if (fclose(f) != 0 && r >= 0)
				r = -ENOMEM;
		}
		if (r >= 0)
			r = control_client_write(ls->client, buf, size);
		if (r >= 0 && done)
			r = control_client_end(ls->client);
		if (r < 0 || done) {
			if (r < 0)
				log_warning_errno(r,
				                  "control: listing to client pid %i stopped: %m",
				                  (int)control_client_pid(ls->client));
			list_stream_free(ls);
			return 0;
		}
	}
	/* the next part now, or once the client has read some of what it was sent */
	(void)sd_event_source_set_time_relative(s, control_client_backlog(ls->client) <
	                                                           LIST_STREAM_BACKLOG
	                                                   ? 0
	                                                   : LIST_STREAM_WAIT_USEC);
	(void)sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

/* An unpaged list: deferred (*ret_reply NULL) and written by on_list_stream(). */
static int request_list_stream(Manager *m, ControlClient *c, const ControlRequest *req,
                               json_object **ret_reply)
{
	ListStream *ls = calloc(1, sizeof(*ls));
	int r;

	if (!ls)
		return -ENOMEM;
	ls->m = m;
	ls->client = control_client_ref(c);
	ls->next = m->list_streams;
	m->list_streams = ls;
	if (req->has_after) {
		ls->has_last = true;
		ls->last_host = req->after_host;
		ls->last_channel = req->after_channel;
		ls->last_target = req->after_target;
		ls->last_lun = req->after_lun;
	}
	/* 1 µs: the default accuracy would let each part wait up to 250 ms */
	r = sd_event_add_time_relative(m->event, &ls->source, CLOCK_MONOTONIC, 0, 1, on_list_stream,
	                               ls);
	if (r >= 0)
		/* clients, uevents and their work first: a part when nothing else is pending */
		r = sd_event_source_set_priority(ls->source, SD_EVENT_PRIORITY_IDLE);
	if (r < 0) {
		list_stream_free(ls);
		return r;
	}
	(void)sd_event_source_set_description(ls->source, "list");
	*ret_reply = NULL;
	return 0;
}

int manager_on_request(ControlServer *s, ControlClient *c, json_object *obj,
                       json_object **ret_reply, bool *ret_monitor, void *userdata)
{
	_cleanup_(control_request_done) ControlRequest req = {};
	Manager *m = userdata;
	json_object *reply;
	int r;

	r = control_request_from_json(obj, &req);
	if (r < 0)
		return r;
	log_debug("control: \"%s\" from pid %i uid %u", control_command_to_string(req.cmd),
	          (int)control_client_pid(c), (unsigned)control_client_uid(c));

	if (control_client_read_only(c) && !control_command_read_only(req.cmd)) {
		_cleanup_free_ char *msg = NULL;

		if (asprintf(&msg,
		             "permission denied: \"%s\" changes lund's state; members of lund's "
		             "read group may only send read-only requests (list, status, names, "
		             "monitor, queue)",
		             control_command_to_string(req.cmd)) < 0)
			return -ENOMEM;
		log_info("control: refused \"%s\" from read-only client pid %i uid %u",
		         control_command_to_string(req.cmd), (int)control_client_pid(c),
		         (unsigned)control_client_uid(c));
		*ret_reply = control_error_reply(-EPERM, msg);
		return 0;
	}

	switch (req.cmd) {
	case CONTROL_LIST:
		if (req.limit == 0)
			return request_list_stream(m, c, &req, ret_reply);
		reply = request_list(m, &req);
		break;
	case CONTROL_STATUS:
		reply = manager_status_to_json(m);
		break;
	case CONTROL_QUEUE:
		reply = request_queue(m);
		break;
	case CONTROL_NAMES: {
		_cleanup_(lu_ref_done) LuRef ref = {};
		json_object *o;
		Lu *lu;

		r = probe_resolve(m->rootfd, req.device, &ref);
		lu = r < 0 ? NULL : inventory_find(m->inventory, ref.hctl);
		/* The read group learns of LUs, not whether a path exists or what it is: one
		 * answer for every path that names none. */
		if (!lu && control_client_read_only(c))
			return -ENODEV;
		if (r < 0)
			return r;
		if (!lu)
			return -ENOENT;
		o = manager_lu_to_json(m, lu);
		reply = manager_reply_ok();
		json_object_object_foreach(o, key, val)
		        json_object_object_add(reply, key, json_object_get(val));
		json_object_put(o);
		break;
	}
	case CONTROL_MONITOR:
		reply = manager_reply_ok();
		json_object_object_add(reply, "monitoring", json_object_new_boolean(true));
		*ret_monitor = true;
		break;
	case CONTROL_RESCAN:
		r = request_rescan(m, c, &req, &reply);
		if (r == -EBUSY) {
			char msg[96];

			snprintf(msg, sizeof(msg), "%u scan requests are queued already, try later",
			         HOST_SCAN_QUEUE_MAX);
			reply = control_error_reply(r, msg);
		} else if (r < 0)
			return r;
		break;
	case CONTROL_RESYNC:
		r = manager_resync(m, "request");
		if (r < 0)
			return r;
		reply = manager_status_to_json(m);
		/* A large tree is still being read: `lunctl settle` waits for it. */
		json_object_object_add(reply, "resync_running",
		                       json_object_new_boolean(m->resync_job != NULL));
		break;
	case CONTROL_HOLD:
		r = manager_hold(m, &req.scope_sel, req.reason, req.timeout_sec);
		if (r < 0)
			return r;
		reply = manager_reply_ok();
		json_object_object_add(reply, "holds", manager_holds_json(m));
		break;
	case CONTROL_RELEASE:
		r = manager_release(m, &req.scope_sel);
		if (r == -ENOENT) {
			*ret_reply = control_error_reply(
			        r, "no hold on that scope (lunctl status lists them)");
			return 0;
		}
		if (r < 0)
			return r;
		reply = manager_reply_ok();
		json_object_object_add(reply, "holds", manager_holds_json(m));
		break;
	case CONTROL_RELOAD: {
		_cleanup_free_ char *msg = NULL;

		r = manager_reload(m, "request", &msg);
		/* The reason, not just the errno: the admin has a file to fix. */
		if (r < 0 && msg) {
			*ret_reply = control_error_reply(r, msg);
			return 0;
		}
		if (r < 0)
			return r;
		reply = manager_reply_ok();
		json_object_object_add(reply, "pending", json_object_new_boolean(r > 0));
		if (r == 0) {
			/* What lund ignores of the file it now applies, in check-config's words. */
			json_object *problems = json_object_new_array();

			if (problems)
				(void)conf_check(policy_engine_conf(m->policy),
				                 conf_check_report_json, problems);
			json_object_object_add(reply, "problems", problems);
		}
		break;
	}
	default:
		return -EOPNOTSUPP;
	}

	*ret_reply = reply;
	return 0;
}

int manager_control_setup(Manager *m, const LundConf *conf)
{
	const char *name = conf_read_group(conf);
	gid_t gid = (gid_t)-1;
	int r;

	if (!m->control)
		return 0;
	if (name) {
		r = conf_group_lookup(name, &gid);
		if (r < 0)
			/* Closed rather than open to a group nobody meant. */
			log_warning_errno(
			        r,
			        "lund.conf: [control] read_group \"%s\" cannot be resolved, "
			        "the control socket stays root-only: %m",
			        name);
	}
	r = control_set_read_group(m->control, gid);
	if (r < 0)
		return log_warning_errno(r, "Failed to set the control socket's group: %m");
	if (gid != (gid_t)-1)
		log_info("Control socket open to group \"%s\" (gid %u) for read-only requests",
		         name, (unsigned)gid);
	return 0;
}
