/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Transport timeouts: how long the SCSI transport class waits for a lost path before it fails
 * the I/O queued on it. They belong to the transport object above the LU, not to the LU: the
 * iSCSI session (sys/class/iscsi_session/sessionN/recovery_tmo, the "replacement timeout" of
 * open-iscsi) and the FC remote port (sys/class/fc_remote_ports/rport-H:C-N/fast_io_fail_tmo and
 * dev_loss_tmo). Every LU of a session or remote port shares them. The object is found from the
 * LU's device path, as udev's path_id finds it (pathid.h). All access is below a root dirfd.
 * Writing may wait on the transport class's locks: callers in lund's event loop hand it to a
 * worker.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum TportKind {
	TPORT_NONE, /* an LU on no transport with timeouts of its own */
	TPORT_ISCSI,
	TPORT_FC,
	_TPORT_KIND_MAX,
	_TPORT_KIND_INVALID = -EINVAL,
} TportKind;

typedef enum TportKnob {
	TPORT_RECOVERY_TMO,     /* iSCSI: "off" or seconds */
	TPORT_FAST_IO_FAIL_TMO, /* FC: "off" or seconds, below dev_loss_tmo */
	TPORT_DEV_LOSS_TMO,     /* FC: seconds; above 600 only with fast_io_fail_tmo set */
	_TPORT_KNOB_MAX,
	_TPORT_KNOB_INVALID = -EINVAL,
} TportKnob;

/* Longest canonical value tport_knob_validate() produces. */
#define TPORT_VALUE_MAX 16U

const char *tport_kind_to_string(TportKind k);
const char *tport_knob_to_string(TportKnob k);
TportKnob tport_knob_from_string(const char *s);
/* tport_knob_kind() - the transport @k belongs to. */
TportKind tport_knob_kind(TportKnob k);
/* tport_knob_help() - the accepted values, for messages ("off|0..3600 (s)"). */
const char *tport_knob_help(TportKnob k);

/*
 * tport_knob_validate() - check @value for @k without I/O and write its canonical form (what is
 * written to sysfs: "off" or plain decimal) to @ret (@size bytes). The kernel shows "off" of
 * recovery_tmo as "-1"; both are accepted and canonicalised to "off", so a value read back
 * compares equal. Returns 0, -EINVAL, -ENOBUFS.
 */
int tport_knob_validate(TportKnob k, const char *value, char *ret, size_t size);

/* tport_is_session() - the @n bytes at @s are an iSCSI session's name: "session" followed by
 * decimal digits only. */
bool tport_is_session(const char *s, size_t n);

typedef struct Tport {
	TportKind kind;
	char *name; /* "session3", "rport-5:0-0"; NULL for TPORT_NONE */
	char *dir;  /* its class directory below the root: "sys/class/iscsi_session/session3" */
} Tport;

void tport_done(Tport *t);

/*
 * tport_find() - the transport object of the LU at @syspath (below @rootfd; symlinks resolved
 * inside the root): the nearest ancestor named "session<N>" (iSCSI) or "rport-<H>:<C>-<N>"
 * (FC). Returns 0 (ret->kind TPORT_NONE when there is none), -ENOENT (no such LU), -ENOMEM.
 */
int tport_find(int rootfd, const char *syspath, Tport *ret);

/* tport_read() - @k's value (newline removed); -EOPNOTSUPP when @k is not of @t's transport,
 * -ENOENT when the attribute is absent, -errno. */
int tport_read(int rootfd, const Tport *t, TportKnob k, char **ret);

typedef struct TportResult {
	char *old[_TPORT_KNOB_MAX]; /* the value before, as the kernel showed it; NULL if unread */
	int error[_TPORT_KNOB_MAX]; /* 0, or why the wanted value is not set */
	bool changed[_TPORT_KNOB_MAX];
} TportResult;

void tport_result_done(TportResult *r);

/*
 * tport_apply() - set each @want[k] that is not NULL and differs from the current value, in an
 * order the kernel accepts: FC's fast_io_fail_tmo must stay below dev_loss_tmo, and dev_loss_tmo
 * may exceed 600 s only while fast_io_fail_tmo is set, so dev_loss_tmo goes first and a write
 * the kernel refuses (-EINVAL) is tried once more after the others. Knobs of another transport
 * are left alone (error[k] -EOPNOTSUPP). Returns the number changed (ret filled), or -ENOMEM.
 */
int tport_apply(int rootfd, const Tport *t, const char *const want[_TPORT_KNOB_MAX],
                TportResult *ret);
