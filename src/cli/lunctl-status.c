/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* lunctl status: what the daemon reports about itself (lund(8), CONTROL PROTOCOL "status"). */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"

static const char *str(json_object *o, const char *key)
{
        json_object *v;

        if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
                return NULL;
        return json_object_get_string(v);
}

static int64_t num(json_object *o, const char *key)
{
        json_object *v;

        return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static json_object *member(json_object *o, const char *key)
{
        json_object *v;

        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Connect and send one command; on failure log why and return the exit code to use. */
int lunctl_daemon_call(const char *cmd, const char *key, const char *value, json_object **ret)
{
        _cleanup_(lund_client_freep) LundClient *c = NULL;
        json_object *reply = NULL;
        int r;

        r = lund_client_connect(NULL, &c);
        if (r < 0) {
                log_error_errno(r, "Failed to connect to lund's control socket (is lund running?): %m");
                return EXIT_DEVICE;
        }
        r = lund_client_call_cmd(c, cmd, key, value, &reply);
        if (r < 0) {
                const char *msg = reply ? str(reply, "message") : NULL;

                if (msg)
                        log_error("lund: %s%s%s", value ?: "", value ? ": " : "", msg);
                else
                        log_error_errno(r, "Request \"%s\" failed: %m", cmd);
                json_object_put(reply);
                return exit_code_from_errno(r == -ENOENT ? -ENODEV : r);
        }
        *ret = reply;
        return EXIT_OK;
}

/* Command failures the kernel reported (the companion patchset's SDEV_ERROR events). */
static void print_errors(json_object *s)
{
        json_object *errs = member(s, "errors"), *lus = errs ? member(errs, "lus") : NULL;

        if (!errs || json_object_is_type(errs, json_type_null))
                return;
        printf("Error events:  threshold %s\n", str(errs, "threshold") ?: "?");
        if (!lus || !json_object_is_type(lus, json_type_object))
                return;
        json_object_object_foreach(lus, hctl, e) {
                json_object *cl = member(e, "classes"), *polled = member(e, "polled");

                if (polled && json_object_get_boolean(polled)) {
                        printf("  %s: ioerr_cnt +%" PRIi64 ", iotmo_cnt +%" PRIi64
                               " since lund started (no error events on this kernel: polled)\n",
                               hctl, num(e, "ioerr_cnt_growth"), num(e, "iotmo_cnt_growth"));
                        continue;
                }
                printf("  %s: %" PRIi64 " errors (", hctl, num(e, "total"));
                if (cl && json_object_is_type(cl, json_type_object)) {
                        bool first = true;

                        json_object_object_foreach(cl, name, n) {
                                printf("%s%s %" PRIi64, first ? "" : ", ", name,
                                       json_object_get_int64(n));
                                first = false;
                        }
                }
                printf("), %" PRIi64 " suppressed by the kernel, %" PRIi64 " malformed, %" PRIi64
                       " threshold actions\n",
                       num(e, "suppressed"), num(e, "malformed"), num(e, "threshold_actions"));
        }
}

static void print_status(json_object *s)
{
        json_object *mon = member(s, "monitor"), *a;
        uint64_t up = (uint64_t)num(s, "uptime_usec");

        printf("lund %s, pid %" PRIi64 ", up %" PRIu64 ".%01" PRIu64 " s\n", str(s, "version") ?: "?",
               num(s, "pid"), up / 1000000, up / 100000 % 10);
        printf("Root:          %s\n", str(s, "root") ?: "?");
        printf("Run directory: %s\n", str(s, "run_dir") ?: "?");
        a = member(s, "link_dirs");
        printf("Link dirs:    ");
        for (size_t i = 0; a && i < json_object_array_length(a); i++)
                printf(" %s", json_object_get_string(json_object_array_get_idx(a, i)));
        printf("\n");
        printf("Inventory:     %" PRIi64 " hosts, %" PRIi64 " targets, %" PRIi64 " logical units\n",
               num(s, "hosts"), num(s, "targets"), num(s, "lus"));
        printf("Names:         %" PRIi64 " wanted, %" PRIi64 " linked\n", num(s, "names"),
               num(s, "links"));
        a = member(s, "collisions");
        printf("Collisions:    %zu\n", a ? json_object_array_length(a) : 0);
        for (size_t i = 0; a && i < json_object_array_length(a); i++) {
                json_object *c = json_object_array_get_idx(a, i), *ow = member(c, "owners");

                printf("  %s -> %s (wanted by", str(c, "path") ?: "?", str(c, "winner") ?: "nobody");
                for (size_t k = 0; ow && k < json_object_array_length(ow); k++)
                        printf(" %s", json_object_get_string(json_object_array_get_idx(ow, k)));
                printf(")\n");
        }
        a = member(s, "foreign");
        printf("Foreign files: %zu\n", a ? json_object_array_length(a) : 0);
        for (size_t i = 0; a && i < json_object_array_length(a); i++)
                printf("  %s\n", json_object_get_string(json_object_array_get_idx(a, i)));
        printf("Resyncs:       %" PRIi64 "%s%s%s\n", num(s, "resyncs"),
               str(s, "last_resync_reason") ? " (last: " : "", str(s, "last_resync_reason") ?: "",
               str(s, "last_resync_reason") ? ")" : "");
        if (mon && !json_object_is_type(mon, json_type_null))
                printf("Uevents:       %" PRIi64 " received, %" PRIi64 " handled, %" PRIi64
                       " overflows, %" PRIi64 " sequence gaps, last seqnum %" PRIi64
                       ", buffer %" PRIi64 " bytes\n",
                       num(mon, "received"), num(mon, "dispatched"), num(mon, "enobufs"),
                       num(mon, "seqnum_gaps"), num(mon, "last_seqnum"), num(mon, "receive_buffer"));
        else
                printf("Uevents:       not monitored\n");
        printf("Clients:       %" PRIi64 "\n", num(s, "clients"));

        print_errors(s);
}

int verb_status(int argc, char *argv[], Options *o)
{
        _cleanup_(json_object_putp) json_object *reply = NULL;
        int r;

        r = lunctl_parse_noargs(argc, argv, o, "status", NULL);
        if (r >= 0)
                return r;
        r = lunctl_daemon_call("status", NULL, NULL, &reply);
        if (r != EXIT_OK)
                return r;
        if (o->output == OUTPUT_JSON) {
                json_object_object_del(reply, "ok");
                return output_json(stdout, reply) < 0 ? EXIT_DEVICE : EXIT_OK;
        }
        print_status(reply);
        return EXIT_OK;
}
