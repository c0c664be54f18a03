/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* lunctl monitor: follow lund's decisions as they happen (lund(8), CONTROL PROTOCOL "monitor"). */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"
#include "probe.h"

/* One line per event: time, event, H:C:T:L, and what the event is about. */
static void print_event(json_object *e)
{
	json_object *v;
	uint64_t t = 0;
	struct tm tm;
	time_t sec;
	char ts[32] = "";
	const char *ev = json_str(e, "event") ?: "?";

	if (json_object_object_get_ex(e, "time_usec", &v))
		t = (uint64_t)json_object_get_int64(v);
	sec = (time_t)(t / 1000000);
	if (localtime_r(&sec, &tm))
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	printf("%s.%06" PRIu64 " %-15s %-12s", ts, t % 1000000, ev, json_str(e, "hctl") ?: "-");
	if (json_str(e, "path"))
		printf(" %s", json_str(e, "path"));
	/* a link's target; an LU's "target" is its target number */
	v = json_member(e, "target");
	if (v && json_object_is_type(v, json_type_string))
		printf(" -> %s", json_object_get_string(v));
	if (streq(ev, "lu-state"))
		printf(" %s -> %s (%s)", json_str(e, "previous") ?: "unknown",
		       json_str(e, "state") ?: "?", json_str(e, "source") ?: "?");
	if (json_str(e, "ua"))
		printf(" %s: %s", json_str(e, "ua"), json_str(e, "action") ?: "?");
	else if (json_str(e, "action"))
		printf(" %s", json_str(e, "action"));
	if (json_str(e, "reason"))
		printf(" %s", json_str(e, "reason"));
	if (streq(ev, "collision") && json_object_object_get_ex(e, "others", &v)) {
		printf(" (also wanted by");
		for (size_t i = 0; i < json_object_array_length(v); i++)
			printf(" %s", json_object_get_string(json_object_array_get_idx(v, i)));
		printf(")");
	}
	if (streq(ev, "lu-added") || streq(ev, "lu-changed")) {
		if (json_object_object_get_ex(e, "names", &v))
			for (size_t i = 0; i < json_object_array_length(v); i++)
				printf(" %s",
				       json_object_get_string(json_object_array_get_idx(v, i)));
	}
	if (streq(ev, "scan-done"))
		printf(" (%s%s): %s added, %s failed", json_str(e, "host") ? "host" : "every host",
		       json_str(e, "host") ?: "", json_str(e, "added") ?: "0",
		       json_str(e, "failed") ?: "0");
	if (json_str(e, "error"))
		printf(" error=%s", json_str(e, "error"));
	printf("\n");
}

#define MONITOR_FILTERS_MAX 64

/* The events lund sends (lund(8), CONTROL PROTOCOL "monitor"); "lu", "link" and "scan" name
 * their families. */
static const char *const event_names[] = {
	"lu-added",    "lu-changed", "lu-removed", "collision", "unit-attention", "scan-done",
	"scan-action", "resync",     "lu",         "link",      "scan",           "lu-state",
};

static bool event_name_known(const char *s)
{
	if (strncmp(s, "link-", 5) == 0 && s[5])
		return true;
	for (size_t i = 0; i < ELEMENTSOF(event_names); i++)
		if (streq(s, event_names[i]))
			return true;
	return false;
}

static bool event_matches(const char *filter, const char *ev)
{
	size_t n = strlen(filter);

	if (streq(filter, ev))
		return true;
	/* A family: "link" matches "link-created". */
	return !strchr(filter, '-') && strncmp(ev, filter, n) == 0 && ev[n] == '-';
}

/* "2", "2:0", "2:0:1" or "2:0:1:3": the LUs below that prefix. */
static bool hctl_prefix_valid(const char *s)
{
	unsigned parts = 1;

	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p == ':') {
			if (p == s || p[-1] == ':' || !p[1] || ++parts > 4)
				return false;
		} else if (*p < '0' || *p > '9')
			return false;
	}
	return true;
}

static bool device_matches(const char *filter, json_object *e)
{
	const char *hctl = json_str(e, "hctl"), *host = json_str(e, "host");
	size_t n = strlen(filter);

	if (hctl && strncmp(hctl, filter, n) == 0 && (hctl[n] == 0 || hctl[n] == ':'))
		return true;
	/* A host's scan-done names the host alone. */
	return host && !strchr(filter, ':') && streq(host, filter);
}

typedef struct MonitorFilter {
	char *events[MONITOR_FILTERS_MAX];
	size_t n_events;
	char *devices[MONITOR_FILTERS_MAX];
	size_t n_devices;
} MonitorFilter;

static void monitor_filter_done(MonitorFilter *f)
{
	for (size_t i = 0; i < f->n_events; i++)
		free(f->events[i]);
	for (size_t i = 0; i < f->n_devices; i++)
		free(f->devices[i]);
}

static bool filter_wants(const MonitorFilter *f, json_object *e)
{
	const char *ev = json_str(e, "event") ?: "";
	bool ok = f->n_events == 0;

	for (size_t i = 0; !ok && i < f->n_events; i++)
		ok = event_matches(f->events[i], ev);
	if (!ok)
		return false;
	if (f->n_devices == 0)
		return true;
	for (size_t i = 0; i < f->n_devices; i++)
		if (device_matches(f->devices[i], e))
			return true;
	return false;
}

/* --event KIND[,KIND...] */
static int add_events(MonitorFilter *f, const char *arg)
{
	_cleanup_free_ char *copy = strdup(arg);
	char *save = NULL;

	if (!copy)
		return log_error_errno(-ENOMEM, "Out of memory"), EXIT_DEVICE;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!event_name_known(t)) {
			log_error("--event: unknown event '%s'", t);
			return EXIT_USAGE;
		}
		if (f->n_events == MONITOR_FILTERS_MAX) {
			log_error("at most %u --event kinds", MONITOR_FILTERS_MAX);
			return EXIT_USAGE;
		}
		f->events[f->n_events] = strdup(t);
		if (!f->events[f->n_events])
			return log_error_errno(-ENOMEM, "Out of memory"), EXIT_DEVICE;
		f->n_events++;
	}
	return EXIT_OK;
}

/* --device H[:C[:T[:L]]] or a device node, sysfs path or bare node name (resolved now). */
static int add_device(MonitorFilter *f, const Options *o, const char *arg)
{
	char *d;

	if (f->n_devices == MONITOR_FILTERS_MAX) {
		log_error("at most %u --device filters", MONITOR_FILTERS_MAX);
		return EXIT_USAGE;
	}
	if (hctl_prefix_valid(arg))
		d = strdup(arg);
	else {
		_cleanup_(lu_ref_done) LuRef lu = {};
		_cleanup_close_ int rootfd = -EBADF;
		int r = lunctl_resolve(o, arg, 0, &rootfd, &lu);

		if (r != EXIT_OK)
			return r;
		d = strdup(lu.hctl);
	}
	if (!d)
		return log_error_errno(-ENOMEM, "Out of memory"), EXIT_DEVICE;
	f->devices[f->n_devices++] = d;
	return EXIT_OK;
}

int verb_monitor(int argc, char *argv[], Options *o)
{
	enum { OPT_EVENT = 0x100, OPT_DEVICE };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	_cleanup_(lund_client_freep) LundClient *cl = NULL;
	_cleanup_(monitor_filter_done) MonitorFilter f = {};
	_cleanup_(json_object_putp) json_object *req = NULL;
	json_object *reply = NULL;
	int c, r;

	while ((c = lunctl_getopt(argc, argv, "Jh", longopts, o, "monitor")) != -1) {
		switch (c) {
		case OPT_EVENT:
			r = add_events(&f, optarg);
			if (r != EXIT_OK)
				return r;
			break;
		case OPT_DEVICE:
			r = add_device(&f, o, optarg);
			if (r != EXIT_OK)
				return r;
			break;
		case 'h':
			printf("Usage: lunctl monitor [--event KIND[,KIND...]]... [--device "
			       "DEVICE]... "
			       "[--json]\n"
			       "\n"
			       "Follow lund's decisions as they happen (needs lund).\n"
			       "\n"
			       "     --event <kind>   only these events: lu-added, lu-changed, "
			       "lu-removed,\n"
			       "                      link-*, collision, unit-attention, "
			       "scan-action,\n"
			       "                      scan-done, resync, lu-state; or a family: "
			       "lu, "
			       "link, scan\n"
			       "     --device <dev>   only events about this LU or those below an\n"
			       "                      H[:C[:T[:L]]] prefix (a node is resolved at "
			       "start)\n"
			       " -J, --json           print each event as lund sends it\n"
			       " -h, --help           display this help\n");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		log_error("monitor takes no arguments (filter with --device)");
		return EXIT_USAGE;
	}

	r = lund_client_connect(NULL, &cl);
	if (r < 0) {
		log_error_errno(
		        r, "Failed to connect to lund's control socket (is lund running?): %m");
		return EXIT_DEVICE;
	}
	req = json_object_new_object();
	if (!req)
		return exit_code_from_errno(-ENOMEM);
	json_object_object_add(req, "cmd", json_object_new_string("monitor"));
	r = lund_client_call(cl, req, &reply);
	json_object_put(reply);
	if (r < 0) {
		log_error_errno(r, "lund refused to stream events: %m");
		return EXIT_DEVICE;
	}
	/* Line-buffered, so a pipe reader sees each event as it happens. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		json_object *e = NULL;

		r = lund_client_read(cl, &e);
		if (r <= 0)
			break;
		if (!filter_wants(&f, e))
			;
		else if (o->output == OUTPUT_JSON)
			printf("%s\n",
			       json_object_to_json_string_ext(
			               e, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		else
			print_event(e);
		json_object_put(e);
		if (ferror(stdout))
			return EXIT_DEVICE;
	}
	if (r < 0) {
		log_error_errno(r, "Lost the event stream: %m");
		return EXIT_DEVICE;
	}
	return EXIT_OK; /* lund closed the connection (it stopped) */
}
