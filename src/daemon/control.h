/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The control socket: AF_UNIX SOCK_STREAM at <run-dir>/control, mode 0600, one JSON object per
 * line in both directions (lund(8), CONTROL PROTOCOL). Peers are checked with SO_PEERCRED: root,
 * or the user the daemon runs as; with a read group (control_set_read_group()) the socket is
 * 0660 in that group and its members are let in as read-only clients
 * (control_client_read_only()), whose handler refuses what would change anything. This file is the
 * transport only; requests are answered by the owner's handler.
 */

#include <json-c/json.h>
#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

/* Each limit below is answered with a JSON error reply, logged, and the connection closed. */
/* Request lines are at most this long. */
#define CONTROL_REQUEST_MAX (64u * 1024u)
/* Bytes queued for a client that does not read its replies or monitor stream. */
#define CONTROL_BACKLOG_MAX (16u * 1024u * 1024u)
/* Connections of users other than root and lund's own, in all and per user: a member of the
 * read group cannot shut root out. Root's and lund's own user's count against neither. */
#define CONTROL_CLIENTS_MAX     64
#define CONTROL_CLIENTS_PER_UID 16
/* A client that neither sends a request nor monitors is answered ETIMEDOUT and closed after
 * this long (LUND_CONTROL_IDLE_TIMEOUT_MS overrides it); so is one whose last reply does not
 * drain in that time. */
#define CONTROL_IDLE_TIMEOUT_USEC (30u * 1000000u)

typedef struct ControlServer ControlServer;
typedef struct ControlClient ControlClient;

/*
 * Answer one request: return 0 with *ret_reply set (the server adds "id" when the request had
 * one), or -errno for the server to send {"ok":false,"error":...}. Set *ret_monitor to true to
 * subscribe the client to control_broadcast(). Return 0 with *ret_reply left NULL to answer
 * later with control_client_reply() (work done off the loop): the client's later requests wait
 * for that reply, and it has no idle timeout meanwhile. Keep a reference to the client.
 */
typedef int (*ControlHandler)(ControlServer *s, ControlClient *c, json_object *request,
                              json_object **ret_reply, bool *ret_monitor, void *userdata);

int control_new(sd_event *e, const char *path, ControlHandler handler, void *userdata,
                ControlServer **ret);
ControlServer *control_free(ControlServer *s);

/* Send @event to every monitoring client (one line each). */
void control_broadcast(ControlServer *s, json_object *event);
bool control_has_monitors(const ControlServer *s);
unsigned control_n_clients(const ControlServer *s);

/*
 * Send @o to one client now (a progress note ahead of its reply). A client whose connection is
 * gone gives -ECONNRESET: its memory stays valid while a reference is held, so a handler (or
 * work finishing later) may keep one across anything that drops clients.
 */
int control_client_send(ControlClient *c, json_object *o);
ControlClient *control_client_ref(ControlClient *c);
/*
 * The deferred reply to @c's request (takes nothing: @reply stays the caller's; its "id" is
 * added). -ECONNRESET when the client is gone, -EINVAL when nothing was deferred.
 */
int control_client_reply(ControlClient *c, json_object *reply);
/*
 * A deferred reply written in parts, for one too large to build at once: control_client_write()
 * queues @text as it is (together the parts make one JSON object, without its newline; the
 * request's "id", control_client_pending_id(), is the owner's to write), control_client_end()
 * ends the line and lets the client's later requests go on. Write a part only while
 * control_client_backlog() is small: a client that reads nothing for the idle timeout after a
 * part is disconnected. -ECONNRESET once the client is gone (write no more), -EINVAL when
 * nothing was deferred.
 */
int control_client_write(ControlClient *c, const char *text, size_t len);
int control_client_end(ControlClient *c);
json_object *control_client_pending_id(const ControlClient *c);
size_t control_client_backlog(const ControlClient *c);
/* {"ok":false,"error":"E...","message":...}; @message NULL: strerror(). */
json_object *control_error_reply(int error, const char *message);
/* Still connected. */
bool control_client_alive(const ControlClient *c);
ControlClient *control_client_unref(ControlClient *c);

/*
 * control_set_read_group() - open the socket to group @gid (mode 0660, that group) for read-only
 * clients, or close it again with (gid_t)-1 (mode 0600, lund's own group). Connected clients
 * keep what they were given. 0 or -errno from chown()/chmod().
 */
int control_set_read_group(ControlServer *s, gid_t gid);
/* A client let in only as a member of the read group. */
bool control_client_read_only(const ControlClient *c);

uid_t control_client_uid(const ControlClient *c);
pid_t control_client_pid(const ControlClient *c);
