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

#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"
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
                          ev->action->hctl, ev->action->reason,
                          ev->action->error < 0 ? ": " : "",
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

static json_object *result_json(const ScanResult *r, ScanFlags flags)
{
        json_object *o = json_object_new_object(), *hosts, *targets, *actions;

        if (!o)
                return NULL;
        json_object_object_add(o, "dry_run", json_object_new_boolean(!!(flags & SCAN_DRY_RUN)));
        json_object_object_add(o, "scsi_commands", json_object_new_int64(r->commands));
        json_object_object_add(o, "failed", json_object_new_int64(r->failed));
        hosts = json_object_new_array();
        for (size_t i = 0; i < r->n_hosts; i++) {
                const ScanHost *h = &r->hosts[i];
                json_object *x = json_object_new_object();

                json_object_object_add(x, "host", json_object_new_int64(h->host));
                json_object_object_add(x, "driver", json_object_new_string(h->proc_name));
                json_object_object_add(x, "added", json_object_new_int64(h->added));
                json_object_object_add(x, "removed", json_object_new_int64(h->removed));
                json_object_object_add(x, "resized", json_object_new_int64(h->resized));
                json_object_object_add(x, "reidentified", json_object_new_int64(h->reidentified));
                json_object_object_add(x, "unchanged", json_object_new_int64(h->unchanged));
                json_object_object_add(x, "kept", json_object_new_int64(h->kept));
                json_object_object_add(x, "failed", json_object_new_int64(h->failed));
                json_object_object_add(x, "error", h->error < 0 ?
                                       json_object_new_string(strerror(-h->error)) : NULL);
                json_object_array_add(hosts, x);
        }
        json_object_object_add(o, "hosts", hosts);
        targets = json_object_new_array();
        for (size_t i = 0; i < r->n_targets; i++) {
                const ScanTarget *t = &r->targets[i];
                json_object *x = json_object_new_object();

                json_object_object_add(x, "target", json_object_new_string(t->hctl));
                json_object_object_add(x, "found_by", json_object_new_string(t->source));
                json_object_object_add(x, "via", t->via[0] ? json_object_new_string(t->via) : NULL);
                json_object_object_add(x, "method",
                                       json_object_new_string(scan_method_name(t->method)));
                json_object_object_add(x, "reported", json_object_new_int64((int64_t)t->reported));
                json_object_object_add(x, "scsi_commands", json_object_new_int64(t->commands));
                json_object_object_add(x, "error", t->error < 0 ?
                                       json_object_new_string(strerror(-t->error)) : NULL);
                json_object_object_add(x, "detail", t->detail[0] ?
                                       json_object_new_string(t->detail) : NULL);
                json_object_array_add(targets, x);
        }
        json_object_object_add(o, "targets", targets);
        actions = json_object_new_array();
        for (size_t i = 0; i < r->n_actions; i++) {
                const ScanAction *a = &r->actions[i];
                json_object *x = json_object_new_object();

                json_object_object_add(x, "action",
                                       json_object_new_string(scan_action_kind_name(a->kind)));
                json_object_object_add(x, "hctl", json_object_new_string(a->hctl));
                json_object_object_add(x, "reason", json_object_new_string(a->reason));
                if (a->path[0]) {
                        json_object_object_add(x, "path", json_object_new_string(a->path));
                        json_object_object_add(x, "value", json_object_new_string(a->value));
                }
                if (a->kind == SCAN_ACTION_RESIZE && a->error >= 0) {
                        json_object_object_add(x, "old_size", json_object_new_int64((int64_t)a->old_size));
                        json_object_object_add(x, "new_size", json_object_new_int64((int64_t)a->new_size));
                }
                json_object_object_add(x, "applied", json_object_new_boolean(a->applied));
                json_object_object_add(x, "error", a->error < 0 ?
                                       json_object_new_string(strerror(-a->error)) : NULL);
                json_object_array_add(actions, x);
        }
        json_object_object_add(o, "actions", actions);
        return o;
}

static void print_human(const ScanResult *r, ScanFlags flags)
{
        bool dry = flags & SCAN_DRY_RUN;

        for (size_t i = 0; i < r->n_actions; i++) {
                const ScanAction *a = &r->actions[i];

                /* Probes are plumbing: shown in a dry run (they are writes) and when they fail. */
                if (a->kind == SCAN_ACTION_PROBE && !dry && a->error >= 0)
                        continue;
                printf("%s%-6s %-16s %s", dry && a->kind != SCAN_ACTION_KEEP ? "would " : "",
                       scan_action_kind_name(a->kind), a->hctl, a->reason);
                if (dry && a->path[0])
                        printf(" [echo '%s' > /%s]", a->value, a->path);
                if (a->error < 0)
                        printf(": FAILED: %s", strerror(-a->error));
                printf("\n");
        }
        for (size_t i = 0; i < r->n_targets; i++)
                if (r->targets[i].error < 0)
                        printf("failed target %s%s%s: %s%s%s; nothing added or removed there\n",
                               r->targets[i].hctl, r->targets[i].via[0] ? " via " : "",
                               r->targets[i].via, strerror(-r->targets[i].error),
                               r->targets[i].detail[0] ? ": " : "", r->targets[i].detail);
                else if (r->targets[i].method == SCAN_METHOD_SEQUENTIAL)
                        printf("target %s: sequential probe: %s\n", r->targets[i].hctl,
                               r->targets[i].detail);
        for (size_t i = 0; i < r->n_hosts; i++)
                if (r->hosts[i].error < 0)
                        printf("failed host%u: %s\n", r->hosts[i].host,
                               strerror(-r->hosts[i].error));

        printf("%-8s %-14s %6s %8s %8s", "HOST", "DRIVER", dry ? "+ADD" : "ADDED",
               dry ? "+REMOVE" : "REMOVED", dry ? "+RESIZE" : "RESIZED");
        if (flags & SCAN_IDS)
                printf(" %8s", dry ? "+REIDENT" : "REIDENT");
        printf(" %10s %5s %7s\n", "UNCHANGED", "KEPT", "FAILED");
        for (size_t i = 0; i < r->n_hosts; i++) {
                const ScanHost *h = &r->hosts[i];
                char name[24];

                snprintf(name, sizeof(name), "host%u", h->host);
                printf("%-8s %-14s %6u %8u %8u", name, h->proc_name, h->added, h->removed,
                       h->resized);
                if (flags & SCAN_IDS)
                        printf(" %8u", h->reidentified);
                printf(" %10u %5u %7u\n", h->unchanged, h->kept, h->failed);
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

/*
 * The seam for the daemon: when lund runs, `lunctl rescan` is to send this request over the
 * control socket so that scans never race each other (the daemon calls the same scan_run()).
 * Until the socket protocol has a scan request, the CLI always scans directly, as it does when
 * the daemon is not running.
 */
static int rescan_direct(const Options *o, const ScanSelector *sel, size_t n_sel, ScanFlags flags,
                         ScanPolicy *pol, const char *hwdb, const char *conf, bool no_quirks,
                         Progress *progress, ScanResult *ret)
{
        _cleanup_close_ int rootfd = -EBADF;
        QuirkCtx qc = { .lock = PTHREAD_MUTEX_INITIALIZER };
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
        if (rootfd < 0)
                return log_error_errno(rootfd, "Failed to open root directory '%s': %m",
                                       o->root ?: "/");
        ctx = (ScanContext) {
                .rootfd = rootfd,
                .policy = pol,
                .event = on_event,
                .event_userdata = progress,
        };
        r = scan_run(&ctx, sel, n_sel, flags, ret);
        scan_quirks_free(qc.quirks);
        pthread_mutex_destroy(&qc.lock);
        return r;
}

static void help(void)
{
        printf("Usage: lunctl rescan [options] [HOST|H:C:T|H:C:T:L ...]\n"
               "\n"
               "Scan SCSI hosts from user space: REPORT LUNS per target, then add, remove or\n"
               "resize logical units to match. Without --add/--remove/--resize/--ids: --add.\n"
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
               "     --hwdb <file>    compiled hwdb for scan quirks (default: the system's)\n"
               "     --config <file>  lund.conf for scan quirks (default /etc/lund/lund.conf)\n"
               "     --no-quirks      ignore hwdb and lund.conf: REPORT LUNS everywhere\n"
               " -h, --help           display this help\n");
}

int verb_rescan(int argc, char *argv[], Options *o)
{
        enum { OPT_TIMEOUT = 0x100, OPT_JOBS, OPT_MAX_LUN, OPT_HWDB, OPT_CONFIG, OPT_NO_QUIRKS };
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
                { "hwdb", required_argument, NULL, OPT_HWDB },
                { "config", required_argument, NULL, OPT_CONFIG },
                { "no-quirks", no_argument, NULL, OPT_NO_QUIRKS },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        _cleanup_free_ ScanSelector *sel = NULL;
        ScanPolicy pol = {};
        ScanResult res = {};
        Progress progress = {};
        ScanFlags flags = 0, what = 0;
        const char *hwdb = NULL, *conf = NULL;
        bool no_quirks = false;
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
                        break;
                case OPT_CONFIG:
                        conf = optarg;
                        break;
                case OPT_NO_QUIRKS:
                        no_quirks = true;
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
        r = rescan_direct(o, sel, n_sel, flags, &pol, hwdb, conf, no_quirks, &progress, &res);
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
                json_object *j = result_json(&res, flags);

                r = j ? output_json(stdout, j) : -ENOMEM;
                json_object_put(j);
                if (r < 0) {
                        scan_result_done(&res);
                        return EXIT_DEVICE;
                }
        } else
                print_human(&res, flags);

        r = res.failed > 0 ? EXIT_DEVICE : EXIT_OK;
        scan_result_done(&res);
        return r;
}
