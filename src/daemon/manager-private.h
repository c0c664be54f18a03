/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The Manager's insides, shared by its files and nobody else (as udevd's manager is split):
 *   manager.c          life cycle, inventory hooks, resync, uevent reactions, readiness
 *   manager-links.c    the link scheme, the claims' link writes, link directory records
 *   manager-scan.c     scans on request and unit attention, host scans, driver bind wait
 *   manager-control.c  the control protocol: one request in, one reply out
 *   manager-json.c     the JSON of events, LUs, the inventory and the status
 *   manager-mpath.c    dm-multipath maps holding LUs' block nodes
 */

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "claims.h"
#include "control.h"
#include "errors.h"
#include "hostscan.h"
#include "inventory.h"
#include "links.h"
#include "linkscheme.h"
#include "manager.h"
#include "modload.h"
#include "monitor.h"
#include "namerec.h"
#include "namerule.h"
#include "policy-apply.h"
#include "scan.h"
#include "scanquirk.h"
#include "worker.h"

/* Journal message IDs (sd-id128), one per decision an admin may want to find. */
#define MESSAGE_LINK_CREATED   "3f1c0d5e8a7b4c29b6e2d41f9a0c7e53"
#define MESSAGE_LINK_REMOVED   "a94e2b7c1d3f4e8a9c5b6d7e0f1a2b3c"
#define MESSAGE_LINK_FOREIGN   "5d7e9f1a2b3c4d5e8f9a0b1c2d3e4f50"
#define MESSAGE_NAME_COLLISION "c2b8e4f6a1d3457990ab12cd34ef5678"
#define MESSAGE_UEVENT_LOSS    "7e1f3a5c9b2d4f6a8c0e1b3d5f7a9c2e"
#define MESSAGE_SCAN_RESULT    "9b4d2e6f8a1c4357b0e2d4f6a8c1e3b5"

typedef enum LinkSet {
	LINKSET_SCSI,      /* lund's own tree, every LU type */
	LINKSET_DISK,      /* /dev/disk/by-id, when lund manages it (no udevd) */
	LINKSET_SCSI_PATH, /* lund's by-path tree, every LU type */
	LINKSET_DISK_PATH, /* /dev/disk/by-path, when lund manages /dev/disk */
	_LINKSET_MAX,
} LinkSet;

typedef struct ListStream ListStream;
typedef struct ScanRequest ScanRequest;
typedef struct UdevRecords UdevRecords;
typedef struct LoginWait LoginWait;
typedef struct ExcludedLu ExcludedLu;
typedef struct ReservedLu ReservedLu;
typedef struct Hold Hold;

typedef struct LinkReportCtx {
	Manager *m;
	LinkSet set;
} LinkReportCtx;

/* The links one update wrote (created, updated, adopted) or removed, logged as one entry per LU
 * and kind when the update ends (manager-links.c): eight entries per new LU would be 40,000 for
 * a cold start of 4096 LUs, past journald's rate limit. The start-up reconciliation's links,
 * which name no LU, are logged in batches. */
enum { LINK_LOG_REMOVED, LINK_LOG_WRITTEN, _LINK_LOG_MAX };
typedef struct LinkLog {
	bool on;           /* an update runs: lines are collected, not logged one by one */
	const Lu *updated; /* the LU the update is for */
	const Lu *lu;      /* whose links the lines name */
	char *buf[_LINK_LOG_MAX];
	size_t len[_LINK_LOG_MAX], size[_LINK_LOG_MAX];
	unsigned n[_LINK_LOG_MAX]; /* links in each line */
} LinkLog;

struct Manager {
	ManagerConfig config;
	char *root, *run_dir;
	sd_event *event;
	int rootfd, runfd;
	int lockfd;                 /* <run-dir>/lock, flock()ed: one lund per run dir */
	const char *reload_pending; /* a reload waits for the running scan (its quirks in use) */
	uint64_t reloads;           /* configurations loaded since start-up */
	Inventory *inventory;
	PolicyEngine *policy;
	ScanQuirks *scan_quirks; /* hwdb + lund.conf LUND_SCAN_* / scan_* (scanquirk.h) */
	bool scan_quirk_warned;  /* a bad scan quirk value is logged once */
	ErrorTracker *errors;
	ModLoader *modload;
	Monitor *monitor;
	ControlServer *control;
	Links *links[_LINKSET_MAX];
	char *link_dir[_LINKSET_MAX];
	LinkReportCtx report_ctx[_LINKSET_MAX];
	Claims *claims;
	sd_event_source *links_retry_source; /* reconcile again after failed link writes */
	uint64_t links_retry_usec;           /* its current backoff, 0 when nothing failed */
	/* An LU's wanted links could not be worked out (ENOMEM): its claims stand as they were,
	 * and the retry works every LU's out again. */
	bool links_wants_failed;
	int links_wants_error; /* tests: working out an LU's wanted links fails with this */
	sd_event_source *links_flush_source; /* writes the links of @links_dirty */
	Lu **links_dirty;                    /* LUs whose links wait for the end of their burst */
	size_t n_links_dirty, n_links_dirty_alloc;
	uint64_t links_dirty_since; /* CLOCK_MONOTONIC when the first of them was listed */
	/* manager-mpath.c: whether a device-mapper device was seen (sys/class/block read once, then
	 * dm uevents): until one is, no LU's holders are read. */
	bool dm_checked, dm_seen;
	bool links_flush_urgent; /* the batch is full or old: written ahead of the uevents */
	bool bulk;               /* collecting claims for a full reconcile, not applying them */
	const Lu *current;       /* the LU whose links are being written, for log fields */
	LinkLog link_log;
	bool udev_links;   /* udev makes the links of lund's trees from records (manager-udev.c) */
	int udevrecfd;     /* <run-dir>/udev */
	UdevRecords *udev; /* the records written, per LU */
	bool udev_resync;  /* a claim change named no LU, or too many: sync every LU */
	const Lu *udev_dirty[8]; /* other LUs whose names an update changed */
	size_t n_udev_dirty;

	/* The name records (manager-names.c), read only. */
	int names_dirfd; /* the state directory, -EBADF when there is none */
	sd_event_source *names_watch;
	sd_event_source *names_retry; /* the directory is missing: look again later */
	NameRecSet names_rec;         /* sorted by identity, then name */

	sd_event_source *resync_source;
	sd_event_source *resync_job; /* the resync under way, a slice per wake-up */
	const char *resync_again;    /* asked while one ran: the reason to do it once more */
	bool starting;               /* the start-up's reconciliation is under way */
	bool ready_after_resync;     /* readiness waits for the resync under way */
	uint64_t last_resync;
	uint64_t resyncs;
	const char *resync_reason;
	sd_event_source *status_source;
	uint64_t started;

	ControlClient *scan_client; /* gets the running scan's progress notes */
	ScanRequest *scan_requests; /* clients' scans, queued or running, awaiting their reply */
	pthread_mutex_t scan_lock;  /* held by whichever scan runs (manager_scan, host scans) */
	uint64_t scans;

	HostScanner *scanner;
	Worker *io_worker;      /* LUs' rescan attribute writes (unit attentions) */
	Worker *modload_worker; /* driver loading: one thread, libkmod's context is not shared */
	/* LUs' identification off the loop, from the kernel's cached pages or with SCSI
	 * commands (lu-identify.h) */
	IdentifyThreads *identify;
	bool ready_deferred;   /* readiness waits for the identifications under way */
	char *kernel_scan;     /* scsi_mod.scan as last read; NULL: scsi_mod not loaded */
	bool kernel_scan_read; /* read at least once */
	bool ready;            /* READY=1 sent */
	char (*bind_wait)[64]; /* LUs the start-up scan added whose driver has not bound */
	size_t n_bind_wait;
	sd_event_source *bind_source;
	uint64_t bind_deadline;
	uint64_t scan_started;
	uint64_t startup_scan_usec;    /* how long the start-up scan took, 0 if none */
	sd_event_source *state_source; /* re-reads the state of LUs not running (manager-state.c) */
	LoginWait *login_waits;        /* iSCSI sessions not logged in yet (manager-iscsi.c) */
	size_t n_login_waits;
	sd_event_source *login_source;
	uint64_t login_poll_usec;
	/* manager-exclude.c: the excluded LUs, for the scan threads */
	pthread_mutex_t excluded_lock;
	ExcludedLu *excluded;
	size_t n_excluded;
	/* a "list" page ends once its LUs take this many bytes of JSON (control-request.h) */
	size_t list_page_bytes;
	ListStream *list_streams; /* unpaged lists being written (manager-control.c) */
	/* manager-hold.c: holds, also read by the scan threads under excluded_lock */
	Hold *holds;
	size_t n_holds;
	sd_event_source *hold_timer;
	/* manager-reserve.c: the LUs this host was registered on when last read, shared with the
	 * refresh jobs (resv_worker) and the scan threads under resv_lock */
	pthread_mutex_t resv_lock;
	ReservedLu *reserved;
	size_t n_reserved;
	Worker *resv_worker;
};
/* manager.c */
int manager_resync(Manager *m, const char *reason);
/*
 * manager_reload() - re-read lund.conf and the hwdb (SIGHUP, `lunctl reload`), re-apply the
 * policy to every LU and log the result. A configuration that cannot be read or parsed is
 * refused and the old one kept (-EBADMSG or the -errno that kept it from being read; when
 * @ret_message is not NULL it may then be set to a sentence saying why, to free). While a scan
 * runs (it reads the scan quirks) the reload waits for it: returns 1 then.
 */
int manager_reload(Manager *m, const char *why, char **ret_message);

/*
 * manager_control_setup() - the control socket's access from lund.conf: [control] read_group=
 * opens it (mode 0660, that group) to the group's members for read-only requests; without one
 * it is root-only (0600). A group that does not resolve is logged and leaves it root-only.
 */
int manager_control_setup(Manager *m, const LundConf *conf);
/* A status change for the service manager, sent once per loop iteration at most. */
void manager_status_dirty(Manager *m);
void manager_send_ready(Manager *m);

/* manager-names.c */
/* Read the name records in the state directory (ManagerConfig.state_dir) and watch it; never
 * fails: without records no old name is kept. */
int manager_names_setup(Manager *m);
void manager_names_free(Manager *m);
/* The base names (as in LuNaming.names) recorded for @lu's identity that are its aliases, as
 * link_scheme_alias() decides them for @lu's link scheme input @in. *ret (free() it; the
 * strings belong to the records) and *ret_n; 0, -ENOMEM. */
int manager_names_aliases(Manager *m, const Lu *lu, const LinkSchemeInput *in, const char ***ret,
                          size_t *ret_n);

/* manager-mpath.c */
/*
 * manager_mpath_update() - read again which dm-multipath map holds @lu's block node into
 * lu->mpath and lu->mpath_uuid, logging a hand-over. Returns true when it changed (the caller
 * updates the LU's links).
 */
bool manager_mpath_update(Manager *m, Lu *lu);
/* UEVENT_HOLDER: a device-mapper device came, changed or went: its paths' holders read again. */
int manager_react_holder(Manager *m, const Uevent *ev);

/* manager-links.c */
/*
 * manager_lu_name_rule() - the naming rule the hwdb gives @lu (engine/namerule.h): a NameRule,
 * or -ENOMEM. @ret_match (may be NULL) gets the hwdb match string that chose it, or NULL.
 */
int manager_lu_name_rule(Manager *m, const Lu *lu, char **ret_match);

/* Claims, link writers and records for every configured link directory; retires old ones. */
int manager_links_setup(Manager *m);
/* Bring @lu's claims to what it wants now (nothing when @gone). */
void manager_update_links(Manager *m, Lu *lu, bool gone);
/*
 * manager_links_dirty() - @lu's nodes or names changed: its links are brought up to date once
 * the loop has no uevent left to dispatch, so that the burst of one LU's uevents (scsi_device,
 * sg, bsg, block, ...) costs one update. Immediately while collecting for a full reconcile or
 * without an event loop.
 */
void manager_links_dirty(Manager *m, Lu *lu);
/* Write the links still waiting now (resync, shutdown). */
void manager_links_flush(Manager *m);
/* The per-LU link log's buffers (manager-links.c). */
void manager_link_log_free(Manager *m);
/* @lu's wants are unchanged but the state that picks a name's winner (a path running) is not. */
void manager_links_refresh(Manager *m, Lu *lu);
/* @lu goes away: forget that its links wait (its update with gone=true follows). */
void manager_links_forget(Manager *m, const Lu *lu);
/* Full reconcile of every set from the claims (start-up, resync). */
int manager_reconcile_links(Manager *m);

/* manager-udev.c */
/* Under --udev-links (auto: udevd expected and 59-lund.rules installed): the records
 * directory, and lund's own links in those trees removed (udev makes them). */
int manager_udev_setup(Manager *m);
/* Is link set @set udev's to write? */
bool manager_udev_set(const Manager *m, unsigned set);
/* Bring @lu's records to the names it wins now (none when @gone), telling udev of changes. */
void manager_udev_sync_lu(Manager *m, const Lu *lu, bool gone);
/* A claim of @lu (NULL: unknown) changed during an update: its records follow after it. */
void manager_udev_mark(Manager *m, const Lu *lu);
/* After an update of @lu: its records and those of every LU marked meanwhile. */
void manager_udev_flush(Manager *m, const Lu *lu, bool gone);
/* Every LU's records; records of LUs no longer present, and of an earlier run, removed. */
void manager_udev_sync_all(Manager *m);
UdevRecords *udev_records_free(UdevRecords *u);

/* manager-state.c */
/* UEVENT_STATE: SDEV_STATE= (the device went offline): its state read again, logged. */
int manager_state_event(Manager *m, const Uevent *ev);
/* @lu (NULL: any) may not be running, or may hold names other paths want: watch the state of
 * those LUs (manager-state.c) while there are any. */
void manager_state_watch(Manager *m, const Lu *lu);
/* ErrorStateFn (errors.h): a round of the error tracker read the LU @hctl's counters; its state
 * is read again as the watch reads it, and watched from then on if it changed. */
void manager_state_seen(const char *hctl, void *userdata);
void manager_state_free(Manager *m);
/* {"H:C:T:L": state} of the LUs not running, for `status`. */
json_object *manager_state_json(Manager *m);

/* manager-exclude.c */
/* @lu was added, changed or (@gone) removed, or the configuration reloaded: judge it again for
 * the scans' list of excluded LUs. */
void manager_exclusion_update(Manager *m, const Lu *lu, bool gone);
void manager_exclusion_free(Manager *m);
/* Does a [react] section say lund only reports @what for @lu (in the inventory)? Then true, with
 * the phrase saying which in @why. Exclusions and holds are the caller's to ask first. */
bool manager_lu_reports(Manager *m, const Lu *lu, ReactAction what, char *why, size_t size);
/* ScanPolicy.leave: a held LU, an LU of that list, else one whose address, type and host an
 * [exclude] takes, or whose [react] says to report @what only. */
bool manager_scan_leave(void *userdata, const ScanLu *lu, ScanActionKind what, char *why,
                        size_t size);

/* manager-reserve.c (lund(8), RESERVATIONS) */
/* Read @lu's reservations off the loop and remember whether this host is registered. */
void manager_reservation_refresh(Manager *m, const Lu *lu);
/* A "change" of an LU's disk: its reservations may have changed (udev's watch). */
void manager_reservation_uevent(Manager *m, const Uevent *ev);
void manager_reservation_forget(Manager *m, const char *hctl);
/* In a scan thread, before @lu is removed: keep it (true, @why) when this host is registered
 * on it or holds it, now or, when it no longer answers, when last read. */
bool manager_reservation_keeps(Manager *m, const ScanLu *lu, char *why, size_t size);
/* Stop every unpaged list still being written (their clients get no more). */
void manager_list_streams_free(Manager *m);
/* [{hctl, reservations, kept}] for `status`. */
json_object *manager_reservations_json(Manager *m);
void manager_reservations_free(Manager *m);

/* manager-hold.c (lund(8), HOLDS) */
/* Hold @scope (H, H:C:T or H:C:T:L) for @reason, @timeout_sec (0: until released); replaces a
 * hold on the same scope. 0, -E2BIG (too many holds), -ENOMEM. */
int manager_hold(Manager *m, const ScanSelector *scope, const char *reason, uint64_t timeout_sec);
/* Release the hold on exactly @scope and rescan it. 0, -ENOENT when there is none. */
int manager_release(Manager *m, const ScanSelector *scope);
/* Is the LU at H:C:T:L held? With @why: "a hold on SCOPE (REASON)". Any thread. */
bool manager_held(Manager *m, uint64_t host, uint64_t channel, uint64_t target, uint64_t lun,
                  char *why, size_t size);
bool manager_lu_held(Manager *m, const Lu *lu);
/* The holds of the run directory's "holds" file (at start). */
void manager_holds_load(Manager *m);
void manager_holds_free(Manager *m);
json_object *manager_holds_json(Manager *m);

/* manager-iscsi.c */
/* An add of iscsi_session @ev on @host: true when the session is not logged in yet and is
 * watched until it is (its host scanned then); false when the caller scans now. */
bool manager_iscsi_login_wait(Manager *m, const Uevent *ev, unsigned host);
/* At start-up: watch every session that is not logged in yet. */
void manager_iscsi_watch_all(Manager *m);
/* {"sessionN": {host, state, age_usec}} of the sessions watched, for `status`. */
json_object *manager_iscsi_json(Manager *m);
void manager_iscsi_free(Manager *m);

/* manager-scan.c */
/*
 * manager_scan_submit() - queue a client's scan for the scan thread; the client (referenced)
 * gets its reply with control_client_reply() when the scan ends, ETIMEDOUT when it waited in
 * the queue longer than @wait_usec. 0 (deferred) or -errno (-EBUSY: the queue is full).
 */
int manager_scan_submit(Manager *m, ControlClient *c, const ScanSelector *sel, size_t n_sel,
                        ScanFlags flags, const ScanPolicy *pol, bool progress, uint64_t wait_usec);
/* Answer every client still waiting for a scan (ESHUTDOWN) and forget them. */
void manager_scan_requests_free(Manager *m);
int manager_scan_quirk(void *userdata, int type, const char *vendor, const char *model,
                       const char *revision, ScanQuirk *ret);
/* InventoryHooks.rescan_target */
int manager_rescan_target(Inventory *inv, Target *t, void *userdata);
/* ErrorTracker's rescan action */
int manager_error_rescan(const char *hctl, void *userdata);
int manager_queue_scope_scan(Manager *m, const ScanSelector *sel, const char *reason);
/* The LU @hctl's directory below the root as the inventory has it (ErrorDirFn); NULL when it
 * does not know the LU. */
const char *manager_lu_dir(const char *hctl, void *userdata);
/* The block node of the LU @hctl ("sda"), NULL: not known or none (ErrorBlockFn). */
const char *manager_lu_block(const char *hctl, void *userdata);
/* The host scanner, unless --scan=never. */
void manager_host_scan_setup(Manager *m);
/* The scan quirks (when lund.conf or the hwdb has any) for the background scanner's scans. */
void manager_host_scan_set_policy(Manager *m);
bool manager_host_scans_wanted(Manager *m);
int manager_queue_host_scan(Manager *m, int64_t host, const char *reason);
/* UEVENT_NEW_HOST, UEVENT_NEW_TARGET_PORT: under scan=manual nobody else scans it. */
void manager_scan_new_host(Manager *m, const Uevent *ev, const char *what);

/* manager-control.c */
int manager_on_request(ControlServer *s, ControlClient *c, json_object *req,
                       json_object **ret_reply, bool *ret_monitor, void *userdata);

/* manager-json.c */
/* Send event @event (takes @o, which may be NULL) to the monitoring clients. */
void manager_emit(Manager *m, const char *event, json_object *o);
/* Whether anyone listens: building an event costs more than handling most uevents. */
bool manager_want_events(Manager *m);
json_object *manager_event_hctl(const Lu *lu);
json_object *manager_reply_ok(void);
json_object *manager_lu_to_json(Manager *m, const Lu *lu);
/* @lu's exclusion (lund.conf(5) EXCLUSIONS) into @o: "excluded" (bool) and "exclusion" {kind,
 * rule, file, line, names} when an [exclude] or an [exception] decided; nothing otherwise. */
void manager_lu_exclusion_json(Manager *m, const Lu *lu, json_object *o);
json_object *manager_status_to_json(Manager *m);
