/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The client side of lund's control socket (lund(8), CONTROL PROTOCOL): one JSON object per
 * line in both directions. Used by the verbs the daemon serves (status, names, monitor) and by
 * `list` when the daemon runs.
 */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct LundClient LundClient;

/*
 * How long a call waits for lund: connecting, sending the request and reading the reply, each
 * progress note starting the clock again. lunctl --timeout sets it for every call; otherwise a
 * request lund answers at once gets LUND_CLIENT_TIMEOUT_USEC, a scan (a call with a progress
 * callback: lund may work that long before it answers) LUND_CLIENT_SLOW_TIMEOUT_USEC. A call
 * that runs out returns -ETIMEDOUT. The monitor stream after its reply has no deadline.
 */
#define LUND_CLIENT_TIMEOUT_USEC      (30u * 1000000u)
#define LUND_CLIENT_SLOW_TIMEOUT_USEC (600u * 1000000u)
void lund_client_set_timeout(uint64_t usec); /* 0: the defaults above */
uint64_t lund_client_timeout(bool slow);

/*
 * lund_client_connect() - connect to <run_dir>/control (@run_dir NULL: $LUND_RUN_DIR, else the
 * built-in default). Returns 0, -ENOENT/-ECONNREFUSED when no daemon listens, -errno.
 */
int lund_client_connect(const char *run_dir, LundClient **ret);
LundClient *lund_client_free(LundClient *c);
static inline void lund_client_freep(LundClient **c)
{
	lund_client_free(*c);
}

/*
 * lund_client_call() - send @request (not consumed) and read its reply. A reply with "ok":
 * false is returned as -errno (its "error" member mapped back), the reply still stored in
 * *ret_reply when @ret_reply is not NULL, so the caller may print its "message".
 */
int lund_client_call(LundClient *c, json_object *request, json_object **ret_reply);

/*
 * lund_client_call_progress() - the same for a request the daemon answers slowly ("rescan"): the
 * objects with a "progress" member it sends before the reply go to @progress (may be NULL).
 */
typedef void (*LundProgressFn)(json_object *progress, void *userdata);
int lund_client_call_progress(LundClient *c, json_object *request, LundProgressFn progress,
                              void *userdata, json_object **ret_reply);

/*
 * lund_client_read() - the next object the daemon sends (monitor stream). Returns 1 with
 * *ret set, 0 at end of stream, -errno (-EBADMSG: a line that is not JSON).
 */
int lund_client_read(LundClient *c, json_object **ret);

/* errno from a name as the daemon sends it ("ENOENT"); EIO when unknown. */
int lund_errno_from_name(const char *name);
