/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * User-level SCSI scanning: find the targets of each host, ask each target for its logical unit
 * inventory (REPORT LUNS through SG_IO), and add, remove or resize the LUs the kernel has
 * instantiated so that they match. Shared by the daemon and the CLI: nothing here prints; every
 * decision is returned in a ScanResult and reported, as it happens, through a callback.
 *
 * Safety rules (lunctl(8), "rescan"):
 *  - an LU is removed only when REPORT LUNS on its target *succeeded* without it; never after an
 *    error or a timeout, never when the target was probed sequentially (no authoritative list);
 *  - never when it is mounted, has holders, or cannot be opened exclusively, unless SCAN_FORCE;
 *  - well known LUs (W-LUNs) are never removed.
 *
 * Kernel interface used (all relative to the root fd):
 *  - sys/class/scsi_host/hostH/scan: "C T L" (any of them "-" for all) makes the kernel probe;
 *  - sys/bus/scsi/devices/H:C:T:L/delete: "1" removes the LU;
 *  - sys/bus/scsi/devices/H:C:T:L/rescan: "1" re-reads capacity and the VPD pages (Linux 6.1
 *    keeps the standard INQUIRY strings it read when the LU was added);
 *  - sys/bus/scsi/devices/H:C:T:L/uevent: after a rescan for changed IDs, a synthetic "change"
 *    with SYNTH_ARG_LUND=ids, so that lund (whoever ran the scan) re-derives the LU's names;
 *    the block device gets a plain "change" for udev's persistent-storage rules.
 *
 * Threads: hosts and targets are scanned by a bounded pool of worker threads (policy
 * max_workers). The progress callback is called with the engine's lock held, one call at a time,
 * so it needs no locking of its own; it must not call back into the engine.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Any host/channel/target/LUN in a ScanSelector. */
#define SCAN_ANY (-1)

/* One scope to scan: "H", "H:C:T" or "H:C:T:L"; unset fields are SCAN_ANY. */
typedef struct ScanSelector {
	int64_t host, channel, target, lun;
} ScanSelector;

/*
 * scan_selector_parse() - "host3", "3", "3:0:1" or "3:0:1:2" ("-" allowed for a field).
 * Returns 0 or -EINVAL.
 */
int scan_selector_parse(const char *s, ScanSelector *ret);

typedef enum ScanFlags {
	SCAN_ADD = 1 << 0,     /* instantiate reported LUs the kernel does not have */
	SCAN_REMOVE = 1 << 1,  /* delete LUs a successful REPORT LUNS no longer lists */
	SCAN_RESIZE = 1 << 2,  /* READ CAPACITY vs the block device size -> rescan */
	SCAN_FORCE = 1 << 3,   /* remove even when mounted, held or open */
	SCAN_DRY_RUN = 1 << 4, /* plan only: no write to sysfs at all */
	SCAN_IDS = 1 << 5,     /* INQUIRY/VPD vs the kernel's cache -> rescan, "change" uevent */
} ScanFlags;

/* One LU as sysfs shows it, or as REPORT LUNS reports it. */
typedef struct ScanLu {
	unsigned host, channel, target;
	uint64_t lun; /* Linux 64-bit LUN (lun_to_linux()) */
	char hctl[64];
	int type;    /* peripheral device type from sysfs, -1 if unknown */
	char *sg;    /* "sg3" or NULL */
	char *block; /* "sda" or NULL */
} ScanLu;

typedef enum ScanActionKind {
	SCAN_ACTION_PROBE,  /* ask the kernel to probe: LUN 0 of targets, or a LUN sequentially */
	SCAN_ACTION_ADD,    /* reported, not instantiated: "C T L" > scan */
	SCAN_ACTION_REMOVE, /* instantiated, not reported: "1" > delete */
	SCAN_ACTION_KEEP,   /* not reported, but kept: in use (no --force), or removal not asked */
	SCAN_ACTION_RESIZE, /* READ CAPACITY differs from the block device size: "1" > rescan */
	SCAN_ACTION_REIDENTIFY, /* INQUIRY/VPD differ from the kernel's cache: "1" > rescan */
	_SCAN_ACTION_KIND_MAX,
	_SCAN_ACTION_KIND_INVALID = -EINVAL,
} ScanActionKind;

typedef struct ScanAction {
	ScanActionKind kind;
	unsigned host, channel, target;
	uint64_t lun;                /* meaningless for a PROBE of targets */
	char hctl[64];               /* "H:C:T:L", or "H:C:T" / "H" for probes */
	char path[128];              /* sysfs attribute written (relative to the root) */
	char value[64];              /* what is (or would be) written */
	char reason[256];            /* why: "reported, not instantiated", "mounted", ... */
	uint64_t old_size, new_size; /* RESIZE: bytes */
	bool applied;                /* written (never in a dry run) */
	int error;                   /* 0, or -errno of the write / of the check after it */
} ScanAction;

typedef enum ScanMethod {
	SCAN_METHOD_NONE,        /* the target was not asked (e.g. failed before) */
	SCAN_METHOD_REPORT_LUNS, /* REPORT LUNS succeeded: the list is authoritative */
	SCAN_METHOD_SEQUENTIAL,  /* no REPORT LUNS (quirk or SCSI-2): LUNs probed one by one */
	SCAN_METHOD_KERNEL,      /* no LU to send REPORT LUNS to: the kernel scanned the target */
	_SCAN_METHOD_MAX,
	_SCAN_METHOD_INVALID = -EINVAL,
} ScanMethod;

typedef struct ScanTarget {
	unsigned host, channel, target;
	char hctl[48];   /* "H:C:T" */
	char via[64];    /* the LU REPORT LUNS went to, "" if none */
	char source[16]; /* how the target was found: "sysfs", "sas", "fc", "iscsi" */
	ScanMethod method;
	int error;        /* 0, or why the target could not be scanned */
	char detail[160]; /* what went wrong in words, or why the method was chosen; "" if none */
	size_t reported;  /* LUs in the report (W-LUNs excluded) */
	size_t unchanged;
	unsigned commands; /* SCSI commands lund issued to this target */
} ScanTarget;

typedef struct ScanHost {
	unsigned host;
	char proc_name[64];
	int error; /* the host itself failed (e.g. the probe write) */
	unsigned added, removed, resized, unchanged, kept, failed;
	unsigned reidentified; /* LUs rescanned because their IDs changed (SCAN_IDS) */
} ScanHost;

typedef struct ScanResult {
	ScanHost *hosts;
	size_t n_hosts;
	ScanTarget *targets;
	size_t n_targets;
	ScanAction *actions;
	size_t n_actions;
	unsigned commands; /* SCSI commands issued by lund (not the kernel's own probes) */
	unsigned failed;   /* failed targets + failed actions + failed hosts */
} ScanResult;

void scan_result_done(ScanResult *r);

typedef enum ScanEventKind {
	SCAN_EVENT_HOST_BEGIN,  /* @host */
	SCAN_EVENT_TARGET_DONE, /* @target, after its actions */
	SCAN_EVENT_ACTION,      /* @action, after it was applied (or planned in a dry run) */
	SCAN_EVENT_DEBUG,       /* @message: a decision worth a debug line */
} ScanEventKind;

typedef struct ScanEvent {
	ScanEventKind kind;
	const ScanHost *host;
	const ScanTarget *target;
	const ScanAction *action;
	const char *message;
	/* progress */
	unsigned targets_done, targets_total, hosts_total;
} ScanEvent;

typedef void (*ScanEventFn)(void *userdata, const ScanEvent *ev);

/*
 * The I/O the engine does, injectable for tests (check-scan.c gives canned REPORT LUNS data and
 * records writes against a temporary tree). scan_io_default does SG_IO through src/io/sgio.c and
 * writes sysfs through src/io/sysfs.c. Each returns 0 or -errno and adds the SCSI commands it
 * issued to *commands.
 */
typedef struct ScanIo {
	/* REPORT LUNS (select report 0) through @lu's sg or bsg node: the whole response. */
	int (*report_luns)(void *userdata, int rootfd, const ScanLu *lu, unsigned timeout_ms,
	                   uint8_t **ret_buf, size_t *ret_len, unsigned *commands);
	/*
	 * INQUIRY: standard data (@page < 0) or VPD page @page, at most @alloc bytes (at most
	 * 65535): what the device returned, which may be shorter. May be NULL (SCAN_IDS then
	 * checks nothing).
	 */
	int (*inquiry)(void *userdata, int rootfd, const ScanLu *lu, int page, size_t alloc,
	               unsigned timeout_ms, uint8_t **ret_buf, size_t *ret_len, unsigned *commands);
	/* READ CAPACITY(16), falling back to (10): the capacity in bytes. */
	int (*read_capacity)(void *userdata, int rootfd, const ScanLu *lu, unsigned timeout_ms,
	                     uint64_t *ret_bytes, unsigned *commands);
	/* Write a sysfs attribute. */
	int (*write_attr)(void *userdata, int rootfd, const char *path, const char *value);
	/* 0 when block device @devname ("sda") can be opened O_EXCL, -EBUSY when it is in use. */
	int (*open_exclusive)(void *userdata, int rootfd, const char *devname);
} ScanIo;

extern const ScanIo scan_io_default;

/* How one target is to be scanned, when it differs from the default (REPORT LUNS). */
typedef struct ScanQuirk {
	bool sequential;  /* no usable REPORT LUNS: probe LUNs 1, 2, ... one by one */
	bool sparse;      /* sequential: go on past a LUN that does not exist */
	uint64_t max_lun; /* sequential: probe LUNs below this; 0: the policy's seq_max_lun */
} ScanQuirk;

typedef struct ScanPolicy {
	unsigned timeout_ms;  /* per SCSI command lund sends; 0: 10 s */
	unsigned retries;     /* extra tries after BUSY/NOT READY; timeouts are not retried */
	unsigned max_workers; /* threads; 0: 8 */
	uint64_t seq_max_lun; /* sequential probing: LUNs 0..seq_max_lun-1; 0: 8 */
	bool seq_sparse;      /* sequential: keep going past a missing LUN */
	/*
	 * Per-device quirk (lund.hwdb(7) LUND_SCAN_*, lund.conf(5) scan_*; see scanquirk.h),
	 * asked once per target with the peripheral type and INQUIRY strings of the LU REPORT
	 * LUNS would go to. Fills @ret (zeroed by the caller); a negative return is reported
	 * as a debug event and the target scanned without quirk. May be NULL. Called from
	 * worker threads, without the engine's lock.
	 */
	int (*quirk)(void *userdata, int type, const char *vendor, const char *model,
	             const char *revision, ScanQuirk *ret);
	/*
	 * The one policy decision (exclusions, holds, reaction policy; lund.conf(5)): does the
	 * scan leave @lu alone instead of the action @what (ADD, REMOVE, RESIZE or REIDENTIFY)?
	 * @lu->type is -1 for a reported LUN not instantiated yet. True records a KEEP action
	 * whose reason the callback writes to @why (@size bytes) as a phrase: "excluded by
	 * [exclude NAME]", "held by a hold on 2:0:1 (...)". May be NULL. Called from worker
	 * threads.
	 */
	bool (*leave)(void *userdata, const ScanLu *lu, ScanActionKind what, char *why,
	              size_t size);
	void *userdata; /* for quirk and leave */
} ScanPolicy;

typedef struct ScanContext {
	int rootfd;
	const ScanIo *io; /* NULL: scan_io_default */
	void *io_userdata;
	const ScanPolicy *policy; /* NULL: defaults */
	ScanEventFn event;        /* may be NULL */
	void *event_userdata;
} ScanContext;

/*
 * scan_run() - scan the hosts/targets/LUs selected by @sel (@n_sel 0: every host) and, unless
 * SCAN_DRY_RUN, apply the plan. Returns 0 with *ret filled (individual failures are in it and
 * counted in ret->failed), -ENOENT when no selected host exists, -errno on a setup failure.
 */
int scan_run(const ScanContext *ctx, const ScanSelector *sel, size_t n_sel, ScanFlags flags,
             ScanResult *ret);

const char *scan_action_kind_name(ScanActionKind k);
const char *scan_method_name(ScanMethod m);

/* Pure helpers, exposed for tests. */

/*
 * scan_lun_set_from_report() - the Linux LUNs of a REPORT LUNS response, W-LUNs left out,
 * sorted and deduplicated. Returns 0 with a malloc'd array (NULL when empty), -EBADMSG.
 */
int scan_lun_set_from_report(const uint8_t *buf, size_t len, uint64_t **ret, size_t *ret_n);

/* True when @lun (Linux form) is a well known LUN (first byte 0xc1 in SAM form). */
bool scan_lun_is_wlun(uint64_t lun);
