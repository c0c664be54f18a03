/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* lunctl monitor: follow lund's decisions as they happen (lund(8), CONTROL PROTOCOL "monitor"). */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"

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
	if (json_str(e, "target"))
		printf(" -> %s", json_str(e, "target"));
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

int verb_monitor(int argc, char *argv[], Options *o)
{
	_cleanup_(lund_client_freep) LundClient *cl = NULL;
	json_object *reply = NULL;
	int r;

	r = lunctl_parse_noargs(argc, argv, o, "monitor", NULL);
	if (r >= 0)
		return r;

	r = lund_client_connect(NULL, &cl);
	if (r < 0) {
		log_error_errno(
		        r, "Failed to connect to lund's control socket (is lund running?): %m");
		return EXIT_DEVICE;
	}
	r = lund_client_call_cmd(cl, "monitor", NULL, NULL, &reply);
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
		if (o->output == OUTPUT_JSON)
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
