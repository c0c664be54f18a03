/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"
#include "scan-json.h"
#include "scan.h"
#include "scanquirk.h"
#include "sysfs.h"

typedef struct Progress {
	bool tty;
	bool shown;
} Progress;

static void on_event(void *userdata, const ScanEvent *ev)
{
	Progress *p = userdata;

	switch (ev->kind) {
	case SCAN_EVENT_DEBUG:
		log_debug("%s", ev->message);
		break;
	case SCAN_EVENT_ACTION:
		log_debug("%s %s: %s%s%s", scan_action_kind_name(ev->action->kind),
		          ev->action->hctl, ev->action->reason, ev->action->error < 0 ? ": " : "",
		          ev->action->error < 0 ? strerror(-ev->action->error) : "");
		break;
	case SCAN_EVENT_TARGET_DONE:
		if (ev->target->error < 0)
			log_debug("target %s: %s", ev->target->hctl, strerror(-ev->target->error));
		if (p->tty) {
			fprintf(stderr, "\r\033[Klunctl rescan: %u/%u targets scanned",
			        ev->targets_done, ev->targets_total);
			p->shown = true;
		}
		break;
	case SCAN_EVENT_HOST_BEGIN:
		if (p->tty) {
			fprintf(stderr, "\r\033[Klunctl rescan: host%u (%s)", ev->host->host,
			        ev->host->proc_name);
			p->shown = true;
		}
		break;
	}
}

static json_object *jarray(json_object *o, const char *key)
{
	json_object *v = json_member(o, key);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

/* The human form, from the result's JSON (scan-json.h): the same whether this process or lund
 * scanned. */
static void print_human(json_object *res)
{
	json_object *dryo, *actions = jarray(res, "actions"), *targets = jarray(res, "targets"),
	                   *hosts = jarray(res, "hosts");
	bool dry =
	        json_object_object_get_ex(res, "dry_run", &dryo) && json_object_get_boolean(dryo);
	bool ids = json_member(res, "ids") && json_object_get_boolean(json_member(res, "ids"));

	for (size_t i = 0; actions && i < json_object_array_length(actions); i++) {
		json_object *a = json_object_array_get_idx(actions, i);
		const char *kind = json_str(a, "action") ?: "?", *path = json_str(a, "path"),
		           *error = json_str(a, "error");

		/* Probes are plumbing: shown in a dry run (they are writes) and when they fail. */
		if (streq(kind, "probe") && !dry && !error)
			continue;
		printf("%s%-6s %-16s %s", dry && !streq(kind, "keep") ? "would " : "", kind,
		       json_str(a, "hctl") ?: "", json_str(a, "reason") ?: "");
		if (dry && path)
			printf(" [echo '%s' > /%s]", json_str(a, "value") ?: "", path);
		if (error)
			printf(": FAILED: %s", error);
		printf("\n");
	}
	for (size_t i = 0; targets && i < json_object_array_length(targets); i++) {
		json_object *t = json_object_array_get_idx(targets, i);
		const char *error = json_str(t, "error"), *via = json_str(t, "via"),
		           *detail = json_str(t, "detail"), *method = json_str(t, "method");

		if (error)
			printf("failed target %s%s%s: %s%s%s; nothing added or removed there\n",
			       json_str(t, "target") ?: "", via ? " via " : "", via ?: "", error,
			       detail ? ": " : "", detail ?: "");
		else if (method && streq(method, "sequential"))
			printf("target %s: sequential probe: %s\n", json_str(t, "target") ?: "",
			       detail ?: "");
	}
	for (size_t i = 0; hosts && i < json_object_array_length(hosts); i++) {
		json_object *h = json_object_array_get_idx(hosts, i);
		const char *error = json_str(h, "error");

		if (error)
			printf("failed host%" PRIi64 ": %s\n", json_int(h, "host"), error);
	}

	printf("%-8s %-14s %6s %8s %8s", "HOST", "DRIVER", dry ? "+ADD" : "ADDED",
	       dry ? "+REMOVE" : "REMOVED", dry ? "+RESIZE" : "RESIZED");
	if (ids)
		printf(" %8s", dry ? "+REIDENT" : "REIDENT");
	printf(" %10s %5s %7s\n", "UNCHANGED", "KEPT", "FAILED");
	for (size_t i = 0; hosts && i < json_object_array_length(hosts); i++) {
		json_object *h = json_object_array_get_idx(hosts, i);
		char name[32];

		snprintf(name, sizeof(name), "host%" PRIi64, json_int(h, "host"));
		printf("%-8s %-14s %6" PRIi64 " %8" PRIi64 " %8" PRIi64, name,
		       json_str(h, "driver") ?: "", json_int(h, "added"), json_int(h, "removed"),
		       json_int(h, "resized"));
		if (ids)
			printf(" %8" PRIi64, json_int(h, "reidentified"));
		printf(" %10" PRIi64 " %5" PRIi64 " %7" PRIi64 "\n", json_int(h, "unchanged"),
		       json_int(h, "kept"), json_int(h, "failed"));
	}
}

typedef struct QuirkCtx {
	ScanQuirks *quirks;
	pthread_mutex_t lock; /* one warning per bad value, not one per target */
	bool warned;
} QuirkCtx;

static int on_quirk(void *userdata, int type, const char *vendor, const char *model,
                    const char *revision, ScanQuirk *ret)
{
	QuirkCtx *c = userdata;
	char why[256] = "";
	int r;

	r = scan_quirks_lookup(c->quirks, type, vendor, model, revision, ret, why, sizeof(why));
	if (r == -EINVAL) {
		pthread_mutex_lock(&c->lock);
		if (!c->warned)
			log_warning("%s, ignoring it", why);
		c->warned = true;
		pthread_mutex_unlock(&c->lock);
		return 0; /* the valid keys still apply */
	}
	return r;
}

static int rescan_direct(const Options *o, const ScanSelector *sel, size_t n_sel, ScanFlags flags,
                         ScanPolicy *pol, const char *hwdb, const char *conf, bool no_quirks,
                         Progress *progress, json_object **ret)
{
	_cleanup_close_ int rootfd = -EBADF;
	QuirkCtx qc = { .lock = PTHREAD_MUTEX_INITIALIZER };
	ScanResult res = {};
	ScanContext ctx;
	int r;

	if (!no_quirks) {
		r = scan_quirks_new(hwdb, conf, &qc.quirks);
		if (r == -EBADMSG)
			log_warning("%s: cannot parse, no scan quirks from it",
			            conf ?: "/etc/lund/lund.conf");
		else if (r < 0)
			return log_error_errno(r, "Failed to load the scan quirks: %m");
		if (scan_quirks_active(qc.quirks)) {
			pol->quirk = on_quirk;
			pol->userdata = &qc;
		}
	}

	rootfd = sysfs_open_root(o->root);
	if (rootfd < 0) {
		scan_quirks_free(qc.quirks);
		return log_error_errno(rootfd, "Failed to open root directory '%s': %m",
		                       o->root ?: "/");
	}
	ctx = (ScanContext){
		.rootfd = rootfd,
		.policy = pol,
		.event = on_event,
		.event_userdata = progress,
	};
	r = scan_run(&ctx, sel, n_sel, flags, &res);
	scan_quirks_free(qc.quirks);
	pthread_mutex_destroy(&qc.lock);
	if (r < 0)
		return r;
	*ret = scan_result_to_json(&res, flags, "lunctl");
	scan_result_done(&res);
	return *ret ? 0 : -ENOMEM;
}

static void on_daemon_progress(json_object *p, void *userdata)
{
	Progress *progress = userdata;
	json_object *v;

	if (!progress->tty)
		return;
	if (json_object_object_get_ex(p, "targets_total", &v)) {
		json_object *done = NULL;

		(void)json_object_object_get_ex(p, "targets_done", &done);
		fprintf(stderr,
		        "\r\033[Klunctl rescan (lund): %" PRIi64 "/%" PRIi64 " targets scanned",
		        json_object_get_int64(done), json_object_get_int64(v));
	} else if (json_object_object_get_ex(p, "host", &v)) {
		json_object *drv = NULL;

		(void)json_object_object_get_ex(p, "driver", &drv);
		fprintf(stderr, "\r\033[Klunctl rescan (lund): host%" PRIi64 " (%s)",
		        json_object_get_int64(v), drv ? json_object_get_string(drv) : "");
	} else
		return;
	progress->shown = true;
}

#define RESCAN_BUSY_WAIT_SEC 600

/*
 * When lund runs, the scan is its: the request goes over the control socket and lund runs the
 * same engine, one scan at a time, so scans never race each other (nor lund's own reactions to
 * unit attentions), and lund's per-device policy applies. Returns 1 when no daemon listens.
 */
static int rescan_daemon(char **args, size_t n_args, ScanFlags flags, const ScanPolicy *pol,
                         Progress *progress, json_object **ret)
{
	_cleanup_(lund_client_freep) LundClient *c = NULL;
	_cleanup_(json_object_putp) json_object *req = NULL;
	json_object *reply = NULL, *sels, *result;
	int r;

	r = lund_client_connect(NULL, &c);
	if (r == -ENOENT || r == -ECONNREFUSED)
		return 1;
	if (r < 0)
		return log_error_errno(r, "Failed to connect to lund's control socket: %m");
	req = json_object_new_object();
	sels = json_object_new_array();
	if (!req || !sels) {
		json_object_put(sels);
		return -ENOMEM;
	}
	json_object_object_add(req, "cmd", json_object_new_string("rescan"));
	for (size_t i = 0; i < n_args; i++)
		json_object_array_add(sels, json_object_new_string(args[i]));
	json_object_object_add(req, "selectors", sels);
	scan_flags_to_json(req, flags);
	if (pol->timeout_ms)
		json_object_object_add(req, "timeout_ms", json_object_new_int64(pol->timeout_ms));
	if (pol->max_workers)
		json_object_object_add(req, "jobs", json_object_new_int64(pol->max_workers));
	if (pol->seq_max_lun)
		json_object_object_add(req, "max_lun",
		                       json_object_new_int64((int64_t)pol->seq_max_lun));
	json_object_object_add(req, "progress", json_object_new_boolean(progress->tty));
	/* lund queues the request behind any running scan and answers when it has run; it
	 * answers ETIMEDOUT if it is still waiting after this long. */
	json_object_object_add(req, "wait_ms", json_object_new_int64(RESCAN_BUSY_WAIT_SEC * 1000));

	/* A full queue is refused (EBUSY): ask again, for RESCAN_BUSY_WAIT_SEC at most. */
	for (unsigned waited = 0;; waited++) {
		r = lund_client_call_progress(c, req, on_daemon_progress, progress, &reply);
		if (r != -EBUSY || waited >= RESCAN_BUSY_WAIT_SEC * 2)
			break;
		if (waited == 0)
			log_info("lund's scan queue is full, waiting for room");
		json_object_put(TAKE_PTR(reply));
		usleep(500 * 1000);
	}
	if (r < 0) {
		json_object *msg;

		/* -ENOENT: no such host, reported by the caller as for a direct scan */
		if (r != -ENOENT && reply && json_object_object_get_ex(reply, "message", &msg))
			log_error("lund: %s", json_object_get_string(msg));
		json_object_put(reply);
		return r;
	}
	if (!json_object_object_get_ex(reply, "result", &result) ||
	    !json_object_is_type(result, json_type_object)) {
		json_object_put(reply);
		return log_error_errno(-EBADMSG, "lund sent a rescan reply without a result");
	}
	*ret = json_object_get(result);
	json_object_put(reply);
	return 0;
}

static void help(void)
{
	printf("Usage: lunctl rescan [options] [HOST|H:C:T|H:C:T:L ...]\n"
	       "\n"
	       "Scan SCSI hosts from user space: REPORT LUNS per target, then add, remove or\n"
	       "resize logical units to match. Without --add/--remove/--resize/--ids: --add.\n"
	       "When lund runs, it does the scan (one at a time, with its device policy).\n"
	       "\n"
	       "Options:\n"
	       " -a, --add            add LUs the targets report and the kernel lacks\n"
	       " -r, --remove         remove LUs a successful REPORT LUNS no longer lists\n"
	       " -s, --resize         rescan LUs whose capacity changed\n"
	       " -i, --ids            rescan LUs whose INQUIRY strings or VPD page 0x83/0x80\n"
	       "                      differ from the kernel's copy (2 SCSI commands per LU)\n"
	       " -f, --force          remove even when mounted, held or open\n"
	       " -n, --dry-run        print the plan, change nothing\n"
	       " -J, --json           print JSON\n"
	       "     --timeout <sec>  per SCSI command lunctl sends (default 10)\n"
	       "     --jobs <n>       hosts/targets scanned in parallel (default 8)\n"
	       "     --max-lun <n>    sequential probing: LUNs below <n> (default 8) for devices\n"
	       "                      without REPORT LUNS; a LUND_SCAN_MAX_LUN quirk wins\n"
	       "     --direct         scan from this process even when lund runs\n"
	       "     --hwdb <file>    compiled hwdb for scan quirks (default: the system's)\n"
	       "     --config <file>  lund.conf for scan quirks (default /etc/lund/lund.conf)\n"
	       "     --no-quirks      ignore hwdb and lund.conf: REPORT LUNS everywhere\n"
	       "                      (these three scan from this process, as --direct)\n"
	       " -h, --help           display this help\n");
}

int verb_rescan(int argc, char *argv[], Options *o)
{
	enum {
		OPT_TIMEOUT = 0x100,
		OPT_JOBS,
		OPT_MAX_LUN,
		OPT_DIRECT,
		OPT_HWDB,
		OPT_CONFIG,
		OPT_NO_QUIRKS
	};
	static const struct option longopts[] = {
		{ "add", no_argument, NULL, 'a' },
		{ "remove", no_argument, NULL, 'r' },
		{ "resize", no_argument, NULL, 's' },
		{ "ids", no_argument, NULL, 'i' },
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "max-lun", required_argument, NULL, OPT_MAX_LUN },
		{ "direct", no_argument, NULL, OPT_DIRECT },
		{ "hwdb", required_argument, NULL, OPT_HWDB },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "no-quirks", no_argument, NULL, OPT_NO_QUIRKS },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	_cleanup_free_ ScanSelector *sel = NULL;
	ScanPolicy pol = {};
	_cleanup_(json_object_putp) json_object *res = NULL;
	Progress progress = {};
	const char *hwdb = NULL, *conf = NULL;
	bool direct = false, no_quirks = false;
	ScanFlags flags = 0, what = 0;
	size_t n_sel = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "arsifnJh", longopts, NULL)) != -1) {
		unsigned long v;
		char *end;

		switch (c) {
		case 'a':
			what |= SCAN_ADD;
			break;
		case 'r':
			what |= SCAN_REMOVE;
			break;
		case 's':
			what |= SCAN_RESIZE;
			break;
		case 'i':
			what |= SCAN_IDS;
			break;
		case OPT_HWDB:
			hwdb = optarg;
			direct = true;
			break;
		case OPT_CONFIG:
			conf = optarg;
			direct = true;
			break;
		case OPT_NO_QUIRKS:
			no_quirks = true;
			direct = true;
			break;
		case 'f':
			flags |= SCAN_FORCE;
			break;
		case 'n':
			flags |= SCAN_DRY_RUN;
			break;
		case 'J':
			o->output = OUTPUT_JSON;
			break;
		case OPT_DIRECT:
			direct = true;
			break;
		case OPT_TIMEOUT:
		case OPT_JOBS:
		case OPT_MAX_LUN:
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != 0 || v == 0 || v > 100000) {
				log_error("Invalid number '%s'", optarg);
				return EXIT_USAGE;
			}
			if (c == OPT_TIMEOUT)
				pol.timeout_ms = (unsigned)v * 1000;
			else if (c == OPT_JOBS)
				pol.max_workers = (unsigned)v;
			else
				pol.seq_max_lun = v;
			break;
		case 'h':
			help();
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'lunctl rescan --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	flags |= what ?: SCAN_ADD;

	if (optind < argc) {
		sel = calloc(argc - optind, sizeof(*sel));
		if (!sel)
			return log_error_errno(-ENOMEM, "Out of memory"), EXIT_DEVICE;
	}
	for (int i = optind; i < argc; i++) {
		if (scan_selector_parse(argv[i], &sel[n_sel]) < 0) {
			log_error("Invalid scan target '%s' (HOST, H:C:T or H:C:T:L)", argv[i]);
			return EXIT_USAGE;
		}
		n_sel++;
	}

	progress.tty = o->output != OUTPUT_JSON && isatty(STDERR_FILENO);
	/* --root points at another tree: never the daemon's. */
	r = 1;
	if (!direct && !o->root)
		r = rescan_daemon(argv + optind, n_sel, flags, &pol, &progress, &res);
	if (r > 0)
		r = rescan_direct(o, sel, n_sel, flags, &pol, hwdb, conf, no_quirks, &progress,
		                  &res);
	if (progress.shown)
		fprintf(stderr, "\r\033[K");
	if (r == -ENOENT && n_sel == 0) {
		log_info("No SCSI host, nothing to scan.");
		return EXIT_OK;
	}
	if (r == -ENOENT) {
		log_error("No such SCSI host.");
		return EXIT_DEVICE;
	}
	if (r < 0) {
		log_error_errno(r, "Scan failed: %m");
		return EXIT_DEVICE;
	}

	if (o->output == OUTPUT_JSON) {
		if (output_json(stdout, res) < 0)
			return EXIT_DEVICE;
	} else
		print_human(res);

	{
		json_object *f;

		return json_object_object_get_ex(res, "failed", &f) && json_object_get_int64(f) > 0
		               ? EXIT_DEVICE
		               : EXIT_OK;
	}
}
