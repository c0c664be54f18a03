/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One control request (lund(8), CONTROL PROTOCOL) taken apart and checked before anything acts
 * on it: which command, its arguments within their limits, and whether it only reads lund's
 * state. No I/O and no logging; every byte comes from a local client and is hostile input.
 */

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scan.h"

/* A "list" page holds at most this many LUs (a page of 1000 is about 1.5 MB of JSON), and it
 * ends early, with "next", once its LUs take this many bytes of JSON: an LU with many names
 * (--manage-disk-links, partitions) is larger, and no page the protocol allows may overrun
 * the client's 16 MiB backlog (control.h). */
#define CONTROL_LIST_LIMIT_MAX  10000u
#define CONTROL_LIST_PAGE_BYTES (4u * 1024u * 1024u)
/* "rescan" takes at most this many selectors. */
#define CONTROL_SELECTORS_MAX 4096u
/* How long a "rescan" may wait in the queue for the scans before it (wait_ms), and at most. */
#define CONTROL_RESCAN_WAIT_DEFAULT_MS (10u * 60u * 1000u)
#define CONTROL_RESCAN_WAIT_MAX_MS     (24u * 3600u * 1000u)

typedef enum ControlCommand {
	CONTROL_LIST,
	CONTROL_STATUS,
	CONTROL_NAMES,
	CONTROL_MONITOR,
	CONTROL_RESCAN,
	CONTROL_RESYNC,
	CONTROL_RELOAD,
	CONTROL_QUEUE,
	CONTROL_HOLD,
	CONTROL_RELEASE,
	_CONTROL_COMMAND_MAX,
	_CONTROL_COMMAND_INVALID = -EINVAL,
} ControlCommand;

typedef struct ControlRequest {
	ControlCommand cmd;
	/* list: LUs after this H:C:T:L only (has_after), at most limit of them (0: all) */
	bool has_after;
	unsigned after_host, after_channel, after_target;
	uint64_t after_lun;
	unsigned limit;
	/* names: the device as the client named it (points into the request object) */
	const char *device;
	/* rescan */
	ScanSelector *selectors; /* owned */
	size_t n_selectors;
	ScanFlags flags;
	ScanPolicy policy;
	bool progress;
	uint64_t wait_ms; /* CONTROL_RESCAN_WAIT_DEFAULT_MS unless the request says */
	/* hold, release: the scope ("2", "2:0:1", "2:0:1:3"), as given and parsed; hold: why
	 * (at most CONTROL_HOLD_REASON_MAX bytes, points into the request) and for how long
	 * (0: until released) */
	const char *scope;
	ScanSelector scope_sel;
	const char *reason;
	uint64_t timeout_sec;
} ControlRequest;

/* A hold's reason is at most this long; it lasts at most this long (a year). */
#define CONTROL_HOLD_REASON_MAX  512u
#define CONTROL_HOLD_TIMEOUT_MAX (366u * 24u * 3600u)

void control_request_done(ControlRequest *r);

/* The command's name ("list"), or NULL. */
const char *control_command_to_string(ControlCommand c);
ControlCommand control_command_from_string(const char *s);

/*
 * control_command_read_only() - does @c leave lund's state, the kernel's and the links as they
 * are? Read-only commands are what members of lund.conf's [control] read_group may send.
 */
bool control_command_read_only(ControlCommand c);

/*
 * control_request_from_json() - @o as a request. Returns 0 with *ret filled (strings point into
 * @o, which must outlive it), -EBADMSG when @o is not an object with a string "cmd",
 * -EOPNOTSUPP for an unknown command, -EINVAL for an argument of the wrong type or out of
 * range, -E2BIG for too many selectors, -ENOMEM. *ret is written only on success.
 */
int control_request_from_json(json_object *o, ControlRequest *ret);

/*
 * control_request_parse_object() - @len bytes of one request line (without its newline, at most
 * CONTROL_REQUEST_MAX) as a JSON object: exactly one object, nothing after it but white space.
 * Returns 0 with *ret set (the caller puts it), -EBADMSG, -EMSGSIZE, -ENOMEM.
 */
int control_request_parse_object(const char *buf, size_t len, json_object **ret);

/*
 * control_request_parse() - one request line (without its newline) as control.c receives it:
 * @len bytes of JSON, at most CONTROL_REQUEST_MAX. Returns what control_request_from_json()
 * returns, and -EBADMSG for bytes that are not one JSON object; on success *ret_object holds
 * the parsed object (the caller puts it) and *ret the request pointing into it.
 */
int control_request_parse(const char *buf, size_t len, json_object **ret_object,
                          ControlRequest *ret);
