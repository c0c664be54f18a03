/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The kernel companion patchset's error uevent (kernel/0004-*.patch): on a ULD command's final
 * failure, a scsi_device with evt_error=1 sends a KOBJ_CHANGE uevent carrying
 *
 *   SDEV_ERROR=1 SDEV_ERROR_CLASS=<class> SDEV_ERROR_RETRY=0 SDEV_ERROR_RETRYABLE=0|1
 *   SDEV_ERROR_ERRNO SDEV_ERROR_RESULT SDEV_ERROR_STATUS SDEV_ERROR_SK SDEV_ERROR_ASC
 *   SDEV_ERROR_ASCQ SDEV_ERROR_OPCODE SDEV_ERROR_SECTOR SDEV_ERROR_SUPPRESSED
 *
 * all decimal. This parser is pure: it takes the event's properties as "KEY=VALUE" strings (as
 * libudev or the uevent socket give them) and fills a caller-owned ErrEvent. The input is
 * treated as hostile: any uevent sender on the netlink socket can forge one.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ErrClass {
	ERRCLASS_TRANSPORT,  /* DID_TRANSPORT_*, ABORTED COMMAND 08h/47h/4Bh */
	ERRCLASS_TIMEOUT,    /* the command timed out */
	ERRCLASS_TARGET,     /* the target failed the command (CHECK CONDITION, no finer class) */
	ERRCLASS_NEXUS,      /* reservation conflict / nexus failure */
	ERRCLASS_MEDIUM,     /* MEDIUM ERROR */
	ERRCLASS_PROTECTION, /* T10 PI (guard/app/ref tag) */
	ERRCLASS_SPACE,      /* thin provisioning: out of space */
	ERRCLASS_DEVICE,     /* HARDWARE ERROR and other device failures */
	ERRCLASS_DRIVER,     /* the LLD or the midlayer failed it */
	_ERRCLASS_MAX,
	_ERRCLASS_INVALID = -EINVAL,
} ErrClass;

/*
 * The class names themselves are the kernel's: lund knows the nine above (its policy and the
 * threshold name them) but takes any other the kernel offers (errors/<class>, SDEV_ERROR_CLASS)
 * as a class of its own, reported under its name. Those names are bounded: at most
 * ERRCLASS_NAME_MAX characters of [a-z0-9_-], and at most ERRCLASS_TABLE_MAX classes in all,
 * the nine known ones included; anything else is not a class name and is ignored.
 */
#define ERRCLASS_NAME_MAX  31U
#define ERRCLASS_TABLE_MAX 32U

/* Longest value accepted for an SDEV_ERROR_* key: a 64-bit decimal is 20 digits. */
#define ERREVENT_VALUE_MAX 20U
/* Longest property line looked at at all (the kernel's uevent buffer is 2048 bytes). */
#define ERREVENT_LINE_MAX 2048U
/* More properties than a uevent can carry (UEVENT_NUM_ENVP is 64) is not a kernel event. */
#define ERREVENT_PROPS_MAX 64U

typedef struct ErrEvent {
	ErrClass class; /* _ERRCLASS_INVALID: a class lund does not know, named by @class_name */
	char class_name[ERRCLASS_NAME_MAX + 1]; /* SDEV_ERROR_CLASS, whether known or not */
	bool retryable;                         /* SDEV_ERROR_RETRYABLE */
	uint8_t retry;                          /* SDEV_ERROR_RETRY, 0: a final failure */
	int error;                              /* SDEV_ERROR_ERRNO, positive, 1..4095 */
	uint8_t result;                         /* SDEV_ERROR_RESULT: host byte */
	uint8_t status;                         /* SDEV_ERROR_STATUS: SAM status */
	uint8_t sk; /* SDEV_ERROR_SK: sense key 0..15, 0 without sense */
	uint8_t asc, ascq;
	uint8_t opcode;      /* SDEV_ERROR_OPCODE */
	uint64_t sector;     /* SDEV_ERROR_SECTOR: first 512-byte sector not transferred */
	uint32_t suppressed; /* SDEV_ERROR_SUPPRESSED: events dropped by the rate limit before */
} ErrEvent;

/*
 * errevent_parse() - parse the properties @props[0..@n) of one uevent.
 * Properties other than SDEV_ERROR* are ignored, so the whole uevent may be passed; unknown
 * SDEV_ERROR_* keys are ignored too (a newer kernel may add some).
 * Returns 0 and fills *ret; -ENODATA when SDEV_ERROR is absent (not an error event);
 * -EBADMSG when SDEV_ERROR is not "1", a known key is missing or repeated, a value is empty,
 * longer than ERREVENT_VALUE_MAX, not plain decimal (no sign, space or leading zeros) or out of
 * range, the class is no class name (errclass_name_valid(); an unknown but valid name is
 * accepted, with class _ERRCLASS_INVALID), an entry has no '=' or is longer than
 * ERREVENT_LINE_MAX, or
 * there are more than ERREVENT_PROPS_MAX properties. *ret is written only on success.
 */
int errevent_parse(const char *const *props, size_t n, ErrEvent *ret);

/* errclass_to_string() - the kernel's class name, NULL when out of range. */
const char *errclass_to_string(ErrClass c);
/* errclass_from_string() - the class named @s, _ERRCLASS_INVALID when unknown or NULL. */
ErrClass errclass_from_string(const char *s);

/* errclass_name_valid() - whether the @len bytes at @s can name a class: 1..ERRCLASS_NAME_MAX
 * of [a-z0-9_-]. */
bool errclass_name_valid(const char *s, size_t len);

/*
 * The class names met so far, each with a small number (its id, below ERRCLASS_TABLE_MAX): the
 * known classes first, their id their ErrClass, then the others as they come. One table for
 * all LUs (the kernel's class set is the same for each), so that an LU keeps ids, not names.
 */
typedef struct ErrClassTable {
	unsigned n;
	char names[ERRCLASS_TABLE_MAX][ERRCLASS_NAME_MAX + 1];
} ErrClassTable;

/* errclass_table_init() - the known classes only. */
void errclass_table_init(ErrClassTable *t);
/*
 * errclass_table_intern() - the id of the class named by the @len bytes at @name, added when
 * new. Returns the id, -EBADMSG when it is no class name (errclass_name_valid()), -ENOBUFS when
 * it is new and the table is full.
 */
int errclass_table_intern(ErrClassTable *t, const char *name, size_t len);
/* errclass_table_name() - the name of @id, NULL when there is none. */
const char *errclass_table_name(const ErrClassTable *t, unsigned id);
