/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "conf.h"
#include "exclusion.h"
#include "grow.h"
#include "identify.h"
#include "log.h"
#include "lunctl-rescan-print.h"
#include "lunctl-rescan-range.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"
#include "scan-json.h"
#include "scan.h"
#include "reservation.h"
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

typedef struct QuirkCtx {
	ScanQuirks *quirks;
	pthread_mutex_t lock; /* one warning per bad value, not one per target */
	bool warned;
	/* lund.conf's exclusions and reactions, NULL when it has none */
	LundConf *conf;
	int rootfd;
	ResvConfig resv; /* [defaults] reservation_key */
} QuirkCtx;

/* lund.conf(5)'s exclusions and reactions, judged as lund judges them (an LU the kernel has on
 * its sysfs IDs, a LUN it lacks on its address and host); lund's holds are lund's alone. */
static bool conf_leaves(QuirkCtx *c, const ScanLu *slu, ScanActionKind what, char *why, size_t size)
{
	_cleanup_(lunctl_facts_done) LunctlFacts x = {};
	_cleanup_(identity_done) Identity ident = {};
	_cleanup_(lu_ref_done) LuRef lu = {
		.host = slu->host, .channel = slu->channel, .target = slu->target, .lun = slu->lun
	};
	bool known = false;

	if (slu->type >= 0 && probe_resolve(c->rootfd, slu->hctl, &lu) >= 0)
		known = identify_lu(c->rootfd, &lu, &(IdentifyOptions){ .flags = PROBE_SYSFS_ONLY },
		                    &ident) >= 0;
	lunctl_facts_read(c->rootfd, &lu, known ? &ident : NULL, &x);
	return exclusion_leaves(c->conf, &x.f, what, why, size);
}

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

/*
 * ScanPolicy.leave: lund.conf's exclusions and reactions, then, before a removal, the
 * reservation check, lund's (engine/reservation.h). Without lund, nothing was read while the LU
 * still answered: a masked LU's reservations are unknown, and it is removed (lund(8)
 * RESERVATIONS).
 */
static bool on_leave(void *userdata, const ScanLu *lu, ScanActionKind what, char *why, size_t size)
{
	QuirkCtx *c = userdata;
	PrinStatus now = {};
	int r;

	if (c->conf && conf_leaves(c, lu, what, why, size))
		return true;
	if (what != SCAN_ACTION_REMOVE || !resv_type_applies(lu->type) ||
	    !resv_can_tell(c->rootfd, lu->hctl, &c->resv))
		return false;
	r = resv_read_scan_lu(c->rootfd, lu, &c->resv, &now);
	return resv_decide(r, &now, NULL, why, size);
}

static int rescan_direct(const Options *o, const ScanSelector *sel, size_t n_sel, ScanFlags flags,
                         ScanPolicy *pol, const char *hwdb, const char *conf, bool no_quirks,
                         Progress *progress, ScanResult *ret)
{
	_cleanup_close_ int rootfd = -EBADF;
	QuirkCtx qc = { .lock = PTHREAD_MUTEX_INITIALIZER };
	ScanContext ctx;
	int r;

	rootfd = sysfs_open_root(o->root);
	if (rootfd < 0)
		return log_error_errno(rootfd, "Failed to open root directory '%s': %m",
		                       o->root ?: "/");
	if (!no_quirks) {
		r = scan_quirks_new(hwdb, conf, &qc.quirks);
		if (r == -EBADMSG)
			log_warning("%s: cannot parse, no scan quirks from it",
			            conf ?: LUND_CONF_DEFAULT);
		else if (r < 0)
			return log_error_errno(r, "Failed to load the scan quirks: %m");
		if (scan_quirks_active(qc.quirks)) {
			pol->quirk = on_quirk;
			pol->userdata = &qc;
		}
	}
	/* what lund would leave alone by this lund.conf, left alone here too: a dry run with
	 * --config previews a changed policy; its reservation keys count even with --no-quirks */
	r = conf_load_file(conf, &qc.conf);
	if (r == -ENOMEM) {
		scan_quirks_free(qc.quirks);
		return log_error_errno(r, "Out of memory");
	}
	resv_config_from_conf(r >= 0 ? qc.conf : NULL, &qc.resv);
	if (r < 0 || no_quirks || (!exclusion_any(qc.conf) && !reaction_any(qc.conf)))
		qc.conf = conf_unref(qc.conf);
	qc.rootfd = rootfd;
	pol->leave = on_leave;
	pol->userdata = &qc;
	ctx = (ScanContext){
		.rootfd = rootfd,
		.policy = pol,
		.event = on_event,
		.event_userdata = progress,
	};
	r = scan_run(&ctx, sel, n_sel, flags, ret);
	scan_quirks_free(qc.quirks);
	conf_unref(qc.conf);
	pthread_mutex_destroy(&qc.lock);
	return r;
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

/*
 * rescan-scsi-bus.sh's options that lunctl does not take with the same meaning: each is refused
 * with what to use instead, so that none silently means something else. (lunctl(8) carries the
 * same table.) Short letters first; the options lunctl shares with it (-a, -s, -u, --add,
 * --remove, --resize, --update, --hosts, --channels, --ids, --luns) are not here.
 */
static const ForeignOption rsb_options[] = {
	{ 'r', NULL, false, "remove devices",
	  "use --remove: removal is destructive and has no short option here" },
	{ 'f', "flush", false, "flush failed multipath devices",
	  "no equivalent, multipath maps are multipathd's; -f is not --force here, which is long "
	  "only" },
	{ 'i', "issue-lip", false, "issue a Fibre Channel LIP reset",
	  "no equivalent, lunctl never resets a link; re-reading identities is -u/--update" },
	{ 'I', "issue-lip-wait", true, "issue a Fibre Channel LIP reset and wait",
	  "no equivalent, lunctl never resets a link" },
	{ 'c', NULL, false, "scan channels 0 and 1",
	  "every channel is scanned by default; --channels 0-1 restricts the scan to those" },
	{ 'l', NULL, false, "scan LUNs 0-7",
	  "REPORT LUNS gives every LUN; --luns 0-7 restricts the scan to those, --max-lun 8 bounds "
	  "the sequential probe of devices without REPORT LUNS" },
	{ 'L', NULL, true, "scan LUNs 0-NUM",
	  "use --luns 0-NUM (REPORT LUNS gives every LUN; --max-lun bounds the sequential probe)" },
	{ 'w', "wide", false, "scan target IDs 0-15",
	  "the target probe covers every ID the host allows; --ids restricts it" },
	{ 'm', "multipath", false, "update multipath devices",
	  "no equivalent, multipath maps are multipathd's" },
	{ 'd', NULL, false, "debug output", "use --json for every action and its reason" },
	{ 'V', "version", false, "print the version", "use lunctl --version" },
	{ 0, "alltargets", false, "scan all targets, not only existing ones",
	  "use -a/--add: the target probe already covers every target the host allows" },
	{ 0, "forceremove", false, "remove stale devices (dangerous)",
	  "use --remove, and --force for LUs that are mounted, held or open; lunctl removes only "
	  "what a successful REPORT LUNS no longer lists" },
	{ 0, "forcerescan", false, "remove and re-add existing devices (dangerous)",
	  "no equivalent, lunctl never removes a live LU to rescan it: -u/--update re-reads its "
	  "identity, -s/--resize its capacity" },
	{ 0, "nooptscan", false, "go on probing LUNs when LUN 0 is missing",
	  "no equivalent needed: REPORT LUNS does not stop at a missing LUN 0" },
	{ 0, "attachpq3", false, "kernel flag: attach sg to LUN 0 with PQ=3",
	  "no equivalent, a kernel flag for the kernel's own scan; lunctl sends REPORT LUNS "
	  "itself" },
	{ 0, "largelun", false, "kernel flag: LUNs above 7 on SCSI-2 devices",
	  "no equivalent, a kernel flag for the kernel's own scan; lunctl sends REPORT LUNS "
	  "itself" },
	{ 0, "reportlun2", false, "kernel flag: REPORT LUNS on SCSI-2 devices",
	  "no equivalent, a kernel flag for the kernel's own scan; lunctl sends REPORT LUNS "
	  "itself" },
	{ 0, "sparselun", false, "kernel flag: sparse LUNs",
	  "no equivalent, a kernel flag for the kernel's own scan; lunctl sends REPORT LUNS "
	  "itself" },
	{ 0, "sync", false, "sync file systems before removing",
	  "no equivalent: lunctl refuses to remove a mounted or held LU unless --force" },
	{ 0, "nosync", false, "do not sync before removing",
	  "no equivalent: lunctl refuses to remove a mounted or held LU unless --force" },
	{ 0, "color", false, "coloured OLD/NEW/DEL prefixes", "no equivalent" },
	{ 0, "ignore-rev", false, "ignore a changed revision with --update",
	  "no equivalent: -u/--update reports every change of INQUIRY or VPD data" },
};

static void help(void)
{
	printf("Usage: lunctl rescan [options] [HOST|H:C:T|H:C:T:L ...]\n"
	       "\n"
	       "Scan SCSI hosts from user space: REPORT LUNS per target, then add, remove or\n"
	       "resize logical units to match. Without --add/--remove/--resize/--update: --add.\n"
	       "When lund runs, it does the scan (one at a time, with its device policy).\n"
	       "Destructive actions have long options only; options of rescan-scsi-bus.sh that\n"
	       "mean something else here are refused with their equivalent (see lunctl(8)).\n"
	       "\n"
	       "Options:\n"
	       " -a, --add            add LUs the targets report and the kernel lacks\n"
	       "     --remove         remove LUs a successful REPORT LUNS no longer lists\n"
	       " -s, --resize         rescan LUs whose capacity changed\n"
	       " -u, --update         rescan LUs whose INQUIRY strings or VPD page 0x83/0x80\n"
	       "                      differ from the kernel's copy (2 SCSI commands per LU)\n"
	       "     --force          remove even when mounted, held or open\n"
	       "     --hosts <list>   scan these hosts (\"0-3,5\"), as the HOST arguments do\n"
	       "     --channels <list> only these channels\n"
	       "     --ids <list>     only these target IDs\n"
	       "     --luns <list>    only these LUNs\n"
	       " -n, --dry-run        print the plan, change nothing\n"
	       " -J, --json           print JSON\n"
	       "     --timeout <sec>  per SCSI command lunctl sends (default 10)\n"
	       "     --jobs <n>       hosts/targets scanned in parallel, at most (default 8)\n"
	       "     --max-lun <n>    sequential probing: LUNs below <n> (default 8) for devices\n"
	       "                      without REPORT LUNS; a LUND_SCAN_MAX_LUN quirk wins\n"
	       "     --direct         scan from this process even when lund runs\n"
	       "     --hwdb <file>    compiled hwdb for scan quirks (default: the system's)\n"
	       "     --config <file>  lund.conf for scan quirks, exclusions and reactions "
	       "(default\n"
	       "                      " LUND_CONF_DEFAULT ")\n"
	       "     --no-quirks      ignore hwdb and lund.conf: REPORT LUNS everywhere\n"
	       "                      (these three scan from this process, as --direct)\n"
	       " -h, --help           display this help\n"
	       "\n"
	       "A list is rescan-scsi-bus.sh's: N or N-M, separated by commas, no blanks.\n");
}

/* At most this many scopes from the lists: lund takes 4096 selectors in a 64 KiB request. */
#define RESCAN_SELECTORS_MAX 2048

enum { LIST_HOSTS, LIST_CHANNELS, LIST_IDS, LIST_LUNS, _LIST_MAX };

static const struct {
	const char *option, *what;
	uint64_t max;
} lists[_LIST_MAX] = {
	[LIST_HOSTS] = { "--hosts", "host", UINT32_MAX },
	[LIST_CHANNELS] = { "--channels", "channel", UINT32_MAX },
	[LIST_IDS] = { "--ids", "target ID", UINT32_MAX },
	[LIST_LUNS] = { "--luns", "LUN", INT64_MAX },
};

static int list_append(RangeList *l, const RangeList *more)
{
	if (GREEDY_REALLOC_EXACT(l->v, l->n + more->n) < 0)
		return -ENOMEM;
	memcpy(l->v + l->n, more->v, more->n * sizeof(*l->v));
	l->n += more->n;
	return 0;
}

/* The hosts under --root (or /), when the lists name none: the scopes need a host each. */
static int all_hosts(const Options *o, RangeList *ret)
{
	_cleanup_close_ int rootfd = sysfs_open_root(o->root);
	_cleanup_(closedirp) DIR *d = NULL;
	int r;

	if (rootfd < 0)
		return rootfd;
	r = sysfs_opendir(rootfd, "sys/class/scsi_host", &d);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	for (struct dirent *de; (de = readdir(d));) {
		unsigned h;

		if (sysfs_scsi_host_parse(de->d_name, &h) < 0)
			continue;
		if (GREEDY_REALLOC_EXACT(ret->v, ret->n + 1) < 0)
			return -ENOMEM;
		ret->v[ret->n++] = (Range){ h, h };
	}
	return 0;
}

/*
 * The scopes the lists select: every host x channel x ID x LUN combination, a list not given
 * matching anything (SCAN_ANY). Returns 0 with the selectors and their "H:C:T:L" strings (for
 * lund), or the exit code to return.
 */
static int expand_lists_values(const Options *o, RangeList l[_LIST_MAX], uint64_t *v[_LIST_MAX],
                               ScanSelector **ret_sel, char ***ret_str, size_t *ret_n)
{
	size_t n[_LIST_MAX] = {}, total = 1, k = 0;
	ScanSelector *sel;
	char **str;
	int r;

	if (l[LIST_HOSTS].n == 0) {
		r = all_hosts(o, &l[LIST_HOSTS]);
		if (r < 0) {
			log_error_errno(r, "Failed to enumerate SCSI hosts: %m");
			return EXIT_DEVICE;
		}
		if (l[LIST_HOSTS].n == 0) {
			*ret_sel = NULL;
			*ret_str = NULL;
			*ret_n = 0;
			return EXIT_OK;
		}
	}
	for (size_t i = 0; i < _LIST_MAX; i++) {
		if (l[i].n == 0)
			continue;
		r = range_list_values(&l[i], RESCAN_SELECTORS_MAX, &v[i], &n[i]);
		if (r == -E2BIG || (r >= 0 && total * n[i] > RESCAN_SELECTORS_MAX)) {
			log_error("--hosts, --channels, --ids and --luns select more than %u "
			          "addresses together; narrow them",
			          RESCAN_SELECTORS_MAX);
			return EXIT_USAGE;
		}
		if (r < 0)
			return log_error_errno(r, "Out of memory"), EXIT_DEVICE;
		total *= n[i];
	}
	sel = calloc(total, sizeof(*sel));
	str = calloc(total + 1, sizeof(*str));
	if (!sel || !str) {
		free(sel);
		free(str);
		return log_error_errno(-ENOMEM, "Out of memory"), EXIT_DEVICE;
	}
	for (size_t i = 0; i < total; i++) {
		int64_t f[_LIST_MAX];
		size_t rest = i;
		char part[_LIST_MAX][24];

		for (size_t j = _LIST_MAX; j-- > 0;) {
			if (n[j] == 0) {
				f[j] = SCAN_ANY;
				snprintf(part[j], sizeof(part[j]), "-");
				continue;
			}
			f[j] = (int64_t)v[j][rest % n[j]];
			rest /= n[j];
			snprintf(part[j], sizeof(part[j]), "%" PRId64, f[j]);
		}
		sel[k] = (ScanSelector){ f[LIST_HOSTS], f[LIST_CHANNELS], f[LIST_IDS],
			                 f[LIST_LUNS] };
		if (asprintf(&str[k], "%s:%s:%s:%s", part[0], part[1], part[2], part[3]) < 0) {
			strv_free_n(str, k);
			free(sel);
			return log_error_errno(-ENOMEM, "Out of memory"), EXIT_DEVICE;
		}
		k++;
	}
	*ret_sel = sel;
	*ret_str = str;
	*ret_n = k;
	return EXIT_OK;
}

static int expand_lists(const Options *o, RangeList l[_LIST_MAX], ScanSelector **ret_sel,
                        char ***ret_str, size_t *ret_n)
{
	uint64_t *v[_LIST_MAX] = {};
	int r = expand_lists_values(o, l, v, ret_sel, ret_str, ret_n);

	/* (a cleanup attribute on the array would free its first element only) */
	for (size_t i = 0; i < _LIST_MAX; i++)
		free(v[i]);
	return r;
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
		OPT_NO_QUIRKS,
		OPT_REMOVE,
		OPT_FORCE,
		OPT_HOSTS,
		OPT_CHANNELS,
		OPT_IDS,
		OPT_LUNS,
	};
	static const struct option base_opts[] = {
		{ "add", no_argument, NULL, 'a' },
		{ "remove", no_argument, NULL, OPT_REMOVE },
		{ "resize", no_argument, NULL, 's' },
		{ "update", no_argument, NULL, 'u' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "hosts", required_argument, NULL, OPT_HOSTS },
		{ "channels", required_argument, NULL, OPT_CHANNELS },
		{ "ids", required_argument, NULL, OPT_IDS },
		{ "luns", required_argument, NULL, OPT_LUNS },
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
		{},
	};
	static const ForeignOptions rsb = { "rescan-scsi-bus.sh", rsb_options,
		                            ELEMENTSOF(rsb_options) };
	_cleanup_free_ ScanSelector *sel = NULL;
	char **sel_str = NULL;
	RangeList lists_given[_LIST_MAX] = {};
	ScanPolicy pol = {};
	/* lund's result arrives as JSON; this process's own is printed straight from the
	 * ScanResult: a human table needs neither a JSON tree nor libjson-c. */
	_cleanup_(json_object_putp) json_object *res = NULL;
	_cleanup_(scan_result_done) ScanResult own = {};
	bool scanned_here = false;
	Progress progress = {};
	const char *hwdb = NULL, *conf = NULL;
	bool direct = false, no_quirks = false, have_lists = false;
	ScanFlags flags = 0, what = 0;
	size_t n_sel = 0;
	int c, r, ret = EXIT_USAGE;

	while ((c = lunctl_getopt_foreign(argc, argv, "asunJh", base_opts, &rsb, o, "rescan")) !=
	       -1) {
		unsigned long v;
		char *end;

		switch (c) {
		case 'a':
			what |= SCAN_ADD;
			break;
		case OPT_REMOVE:
			what |= SCAN_REMOVE;
			break;
		case 's':
			what |= SCAN_RESIZE;
			break;
		case 'u':
			what |= SCAN_IDS;
			break;
		case OPT_HOSTS:
		case OPT_CHANNELS:
		case OPT_IDS:
		case OPT_LUNS: {
			size_t which = (size_t)(c - OPT_HOSTS);
			RangeList more = {};
			char err[256];

			r = range_list_parse(optarg, lists[which].max, lists[which].what, &more,
			                     err, sizeof(err));
			if (r == -EINVAL) {
				log_error("%s: %s", lists[which].option, err);
				goto finish;
			}
			if (r >= 0)
				r = list_append(&lists_given[which], &more);
			range_list_done(&more);
			if (r < 0) {
				log_error_errno(r, "Out of memory");
				ret = EXIT_DEVICE;
				goto finish;
			}
			have_lists = true;
			break;
		}
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
		case OPT_FORCE:
			flags |= SCAN_FORCE;
			break;
		case 'n':
			flags |= SCAN_DRY_RUN;
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
				goto finish;
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
			ret = EXIT_OK;
			goto finish;
		default:
			goto finish;
		}
	}
	flags |= what ?: SCAN_ADD;

	if (have_lists) {
		/* HOST arguments join --hosts, as rescan-scsi-bus.sh takes them; a narrower scope
		 * and the lists would contradict each other. */
		for (int i = optind; i < argc; i++) {
			ScanSelector one;
			RangeList h = {};

			if (scan_selector_parse(argv[i], &one) < 0 || one.channel != SCAN_ANY ||
			    one.target != SCAN_ANY || one.lun != SCAN_ANY) {
				log_error("'%s': with --hosts, --channels, --ids or --luns the "
				          "arguments "
				          "can only be host numbers",
				          argv[i]);
				goto finish;
			}
			h.v = &(Range){ (uint64_t)one.host, (uint64_t)one.host };
			h.n = 1;
			if (list_append(&lists_given[LIST_HOSTS], &h) < 0) {
				log_error_errno(-ENOMEM, "Out of memory");
				ret = EXIT_DEVICE;
				goto finish;
			}
		}
		ret = expand_lists(o, lists_given, &sel, &sel_str, &n_sel);
		if (ret != EXIT_OK)
			goto finish;
		if (n_sel == 0) {
			log_info("No SCSI host, nothing to scan.");
			goto finish;
		}
	} else {
		if (optind < argc) {
			sel = calloc(argc - optind, sizeof(*sel));
			if (!sel) {
				log_error_errno(-ENOMEM, "Out of memory");
				ret = EXIT_DEVICE;
				goto finish;
			}
		}
		for (int i = optind; i < argc; i++) {
			if (scan_selector_parse(argv[i], &sel[n_sel]) < 0) {
				log_error("Invalid scan target '%s' (HOST, H:C:T or H:C:T:L)",
				          argv[i]);
				goto finish;
			}
			n_sel++;
		}
	}

	progress.tty = o->output != OUTPUT_JSON && isatty(STDERR_FILENO);
	/* --root points at another tree: never the daemon's. */
	r = 1;
	if (!direct && !o->root)
		r = rescan_daemon(have_lists ? sel_str : argv + optind, n_sel, flags, &pol,
		                  &progress, &res);
	if (r > 0) {
		r = rescan_direct(o, sel, n_sel, flags, &pol, hwdb, conf, no_quirks, &progress,
		                  &own);
		scanned_here = true;
	}
	if (progress.shown)
		fprintf(stderr, "\r\033[K");
	if (r == -ENOENT && n_sel == 0) {
		log_info("No SCSI host, nothing to scan.");
		ret = EXIT_OK;
		goto finish;
	}
	if (r == -ENOENT) {
		log_error("No such SCSI host.");
		ret = EXIT_DEVICE;
		goto finish;
	}
	if (r < 0) {
		log_error_errno(r, "Scan failed: %m");
		ret = EXIT_DEVICE;
		goto finish;
	}

	if (scanned_here && o->output == OUTPUT_JSON) {
		res = scan_result_to_json(&own, flags, "lunctl");
		if (!res) {
			log_error_errno(-ENOMEM, "Out of memory");
			ret = EXIT_DEVICE;
			goto finish;
		}
	}
	if (o->output == OUTPUT_JSON) {
		if (output_json(stdout, res) < 0) {
			ret = EXIT_DEVICE;
			goto finish;
		}
	} else if (scanned_here)
		rescan_print_result(stdout, &own, flags);
	else
		rescan_print_json(stdout, res);

	if (scanned_here)
		ret = own.failed > 0 ? EXIT_DEVICE : EXIT_OK;
	else {
		json_object *f;

		ret = json_object_object_get_ex(res, "failed", &f) && json_object_get_int64(f) > 0
		              ? EXIT_DEVICE
		              : EXIT_OK;
	}
finish:
	strv_free_n(sel_str, n_sel);
	for (size_t i = 0; i < _LIST_MAX; i++)
		range_list_done(&lists_given[i]);
	return ret;
}
