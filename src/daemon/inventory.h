/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the daemon knows: hosts → targets → logical units, keyed by H:C:T:L, each LU with its
 * type, INQUIRY strings, nodes and names. Built from sysfs (sys/bus/scsi/devices below the root
 * fd), updated by kernel uevents, rebuilt on demand (resync). No logging here: what changed is
 * handed to the owner's hooks, which log, link and publish it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hostfacts.h"
#include "lu-identify.h"
#include "macro.h"
#include "naming.h"
#include "probe.h"
#include "uevent.h"

typedef struct Host Host;
typedef struct Target Target;
typedef struct Lu Lu;
typedef struct Inventory Inventory;

/* SPC-6 table 50 (peripheral device type), the ones whose node or naming differs. */
enum {
	LU_TYPE_DISK = 0x00,
	LU_TYPE_TAPE = 0x01,
	LU_TYPE_WORM = 0x04,
	LU_TYPE_CDROM = 0x05,
	LU_TYPE_OPTICAL = 0x07,
	LU_TYPE_CHANGER = 0x08,
	LU_TYPE_ENCLOSURE = 0x0d,
	LU_TYPE_RBC = 0x0e,
	LU_TYPE_ZBC = 0x14,
};

typedef struct LuPartition {
	char *node; /* "sda1" */
	unsigned number;
} LuPartition;

/* An Lu's fields few LUs have, allocated with the first of them (lu_rare_get()) and kept until
 * the LU goes: the `Lu` one malloc chunk size class smaller for every other LU. Read them
 * through lu_tape() and the like. */
typedef struct LuRare {
	char *tape, *tape_nr; /* in the Lu's syspath allocation (Lu.syspath) */
	LuPartition *partitions;
	/* The dm-multipath map holding Lu.block ("dm-3") and its dm uuid ("mpath-<wwid>"), NULL
	 * when none does: kept by the owner (io/mpath.h), freed with the LU. */
	char *mpath, *mpath_uuid;
	uint16_t n_partitions; /* the kernel makes at most 255 (DISK_MAX_PARTS) */
} LuRare;

struct Lu {
	Target *target;
	Lu *next;
	uint64_t lun;
	char *hctl;    /* in the Lu's own allocation */
	char *syspath; /* relative to the root; the nodes below share its allocation */
	/* sysfs strings, trailing blanks removed; one copy of each in the inventory, shared by
	 * every LU that has it (daemon/strpool.h) */
	const char *vendor, *model, *revision;
	const char *state; /* sysfs "state": running, offline, ... */
	/* Nodes, relative to dev/ ("sda", "sr0", "sg0", "bsg/0:0:0:0"); a tape's in @rare. */
	char *block, *sg, *bsg;
	LuRare *rare; /* NULL: no tape node, partition or dm-multipath map */
	LuNaming naming;
	void *userdata;          /* the owner's per-LU state */
	uint64_t identify_token; /* the running identification's; others' results are dropped */
	/* The numbers and flags last, packed (one Lu per LU: 4096 of them and more). */
	unsigned scsi_level;
	unsigned generation;     /* last resync that saw it */
	int16_t naming_error;    /* why naming failed (-errno), 0 on success */
	uint16_t probe_commands; /* SCSI commands the last probe needed (at most UINT16_MAX) */
	int8_t type;             /* peripheral device type (5 bits), -1 unknown */
	bool probe_no_node : 1;  /* a page was neither cached nor readable: no node to ask yet */
	/* Its identification needs SCSI commands and runs off the loop (InventoryHooks.identify):
	 * until it ends the LU has no names, or only those it had before a re-probe that cannot
	 * change its identity. */
	bool naming_pending : 1;
	/* An identification of it has ended, in the loop or off it. Off it, this is set once
	 * the lu_changed and lu_identified hooks of that end have run: while they run for its
	 * first identification, it is still false. */
	bool identified : 1;
	/* The kernel has just added it and its identification off the loop reads what describes
	 * it (SCSI level, vendor, model, revision, state) as well: until that ends these are
	 * unknown (0, NULL). The end gives them with a lu_changed hook of LU_CHANGE_INFO and
	 * LU_CHANGE_PRODUCT. */
	bool info_pending : 1;
};

struct Target {
	Host *host;
	Target *next;
	unsigned channel, id;
	Lu *lus;
	Lu *last_lu; /* the tail of @lus: the kernel adds LUNs in ascending order */
};

struct Host {
	Inventory *inventory;
	Host *next;
	unsigned number;
	Target *targets;
	/* its driver and transport, read once when it appears (lund.conf(5)'s driver= and
	 * transport= match them); none known when memory was short */
	HostFacts facts;
};

/* What changed in an LU when it was refreshed. */
typedef enum LuChange {
	LU_CHANGE_NODES = 1 << 0, /* block/tape/sg/bsg nodes or partitions */
	LU_CHANGE_NAMES = 1 << 1, /* IDs or names */
	LU_CHANGE_INFO = 1 << 2,  /* type, vendor, model, revision, state */
	/* type, vendor, model, revision, SCSI level: what a device's policy is matched on (with
	 * LU_CHANGE_INFO) */
	LU_CHANGE_PRODUCT = 1 << 3,
} LuChange;

/* SCSI unit attentions the kernel forwards as SDEV_UA= on a change uevent (scsi_lib.c). */
typedef enum LuUnitAttention {
	LU_UA_REPORTED_LUNS_CHANGED,
	LU_UA_CAPACITY_CHANGED,
	LU_UA_INQUIRY_CHANGED,
	LU_UA_POWER_ON_RESET,
	LU_UA_MODE_PARAMETERS_CHANGED,
	LU_UA_THIN_PROVISIONING_THRESHOLD,
	LU_UA_ALUA_STATE_CHANGED,
	LU_UA_OTHER,
	_LU_UA_MAX,
	_LU_UA_INVALID = -EINVAL,
} LuUnitAttention;

LuUnitAttention lu_unit_attention_from_string(const char *s);
const char *lu_unit_attention_to_string(LuUnitAttention ua);

typedef struct InventoryHooks {
	void (*lu_added)(Inventory *inv, Lu *lu, void *userdata);
	void (*lu_changed)(Inventory *inv, Lu *lu, LuChange what, void *userdata);
	/* Called before the LU is freed. */
	void (*lu_removed)(Inventory *inv, Lu *lu, void *userdata);
	/*
	 * A unit attention was reported and handled as far as the inventory can: @action says
	 * what was done ("rescan-target", "capacity-reread", "renamed", "policy", "none") and
	 * @error its result.
	 */
	void (*unit_attention)(Inventory *inv, Lu *lu, LuUnitAttention ua, const char *action,
	                       int error, void *userdata);
	/*
	 * REPORTED LUNS DATA HAS CHANGED: rescan this target. The scan engine (engine/scan.c)
	 * plugs in here; NULL means the inventory asks the kernel to scan the target's LUNs
	 * itself ("C T -" to the host's scan attribute), which finds new LUNs but removes none.
	 */
	int (*rescan_target)(Inventory *inv, Target *t, void *userdata);
	/* POWER ON, RESET OCCURRED: the device forgot its settings, re-apply policy. NULL:
	 * nothing to re-apply yet (the policy engine is not written). */
	int (*apply_policy)(Inventory *inv, Lu *lu, void *userdata);
	/*
	 * CAPACITY / INQUIRY DATA HAS CHANGED: write "1" to the LU's rescan attribute, which
	 * lasts as long as the kernel's re-read of the device. Set, the owner does it off the
	 * loop and calls inventory_rescan_done() when the write returns (0 when taken, -errno
	 * when not: the unit_attention hook then reports that error). NULL: the inventory writes
	 * it itself, in the caller's thread.
	 */
	int (*rescan_lu)(Inventory *inv, Lu *lu, LuUnitAttention ua, void *userdata);
	/*
	 * The kernel cached too little of an LU's pages: identifying it means SCSI commands,
	 * each of which may take as long as the device does. Set, the owner runs
	 * lu_identify_job_run(@job) off the loop and then calls inventory_identify_done() in the
	 * inventory's thread; the LU is pending (Lu.naming_pending) meanwhile. Takes @job (freed
	 * with lu_identify_job_free(), after the done call). Returns 0, or -errno when it could
	 * not be handed off (the LU is then left unidentified with that error). NULL: the
	 * commands are sent in the caller's thread.
	 */
	int (*identify)(Inventory *inv, LuIdentifyJob *job, void *userdata);
	/* An identification handed to the identify hook ended; @lu->naming_error says how (after
	 * lu_changed when its names changed). */
	void (*lu_identified)(Inventory *inv, Lu *lu, void *userdata);
	/* Does lund leave @lu alone on unit attention @ua (lund.conf(5) EXCLUSIONS and
	 * REACTIONS, lund(8) HOLDS)? Then it returns the action word the unit attention is
	 * reported with ("excluded", "reported") and nothing is done: no target rescan, capacity
	 * re-read, re-probe or policy. NULL (the hook or its return): lund acts. */
	const char *(*leave)(Inventory *inv, const Lu *lu, LuUnitAttention ua, void *userdata);
} InventoryHooks;

int inventory_new(int rootfd, ProbeFlags probe_flags, const InventoryHooks *hooks, void *userdata,
                  Inventory **ret);
Inventory *inventory_free(Inventory *inv);

/* inventory_forget_caches() - what identification keeps across LUs (udev's rules files) read
 * again from the next LU on: a reload, a resync. */
void inventory_forget_caches(Inventory *inv);
Host *inventory_hosts(const Inventory *inv);
size_t inventory_n_lus(const Inventory *inv);

/* Iterate every LU in H:C:T:L order. */
Lu *inventory_first_lu(const Inventory *inv);
Lu *inventory_next_lu(const Lu *lu);

Lu *inventory_find(const Inventory *inv, const char *hctl);

/*
 * inventory_resync() - make the inventory match sysfs: add LUs that appeared, refresh every
 * known one (nodes always, names when @reprobe), remove LUs that are gone. Hooks fire for each
 * difference. Returns 0 or -errno (sysfs unreadable; the inventory is left as it was).
 */
int inventory_resync(Inventory *inv, bool reprobe);

/*
 * inventory_resync_begin() - start inventory_resync(@inv, @reprobe) in slices, which
 * inventory_resync_step() then does: between two steps, uevents may refresh or remove any LU
 * (one refreshed counts as seen by this resync). Beginning again restarts it. Returns 0 or
 * -errno (sysfs unreadable; nothing is started).
 */
int inventory_resync_begin(Inventory *inv, bool reprobe);

/*
 * inventory_resync_step() - read at most @budget more LUs of the resync under way. Sets
 * *@ret_done once it is over (also when none was under way); then returns its first error,
 * or 0. Returns 0 while more is to be done.
 */
int inventory_resync_step(Inventory *inv, size_t budget, bool *ret_done);

/* inventory_resync_running() - whether a resync begun is not over yet. */
bool inventory_resync_running(const Inventory *inv);

/*
 * inventory_refresh() - (re)read one LU from sysfs: adds it if new, refreshes nodes, and
 * re-probes its IDs when new or @reprobe. An LU that vanished from sysfs is removed.
 * Returns 0, or -errno.
 */
int inventory_refresh(Inventory *inv, const char *hctl, bool reprobe);
/*
 * inventory_reread_state() - read @lu's sysfs "state" again, nothing else. Returns 1 when it
 * changed (the lu_changed hook has been called with LU_CHANGE_INFO), 0 when not, or when the LU
 * is gone from sysfs (its remove event follows).
 */
int inventory_reread_state(Inventory *inv, Lu *lu);

/*
 * inventory_rescan_done() - the rescan_lu hook's write for @hctl returned @error: finish the
 * unit attention @ua (INQUIRY DATA HAS CHANGED: re-derive the IDs and names) and report it
 * through the unit_attention hook. Returns 0 or -errno.
 */
int inventory_rescan_done(Inventory *inv, const char *hctl, LuUnitAttention ua, int error);
int inventory_remove(Inventory *inv, const char *hctl);

/* LUs whose identification runs off the loop. */
size_t inventory_n_identifying(const Inventory *inv);
/*
 * inventory_identify_off_loop() - with @b, every LU the kernel adds (its add uevent) is
 * identified through the identify hook, also when the kernel's cache holds each page it needs
 * (no SCSI command): its pages, path_id's walk and the derivation of its IDs leave the loop's
 * thread as well, which then has only its inventory, claims and links to do while thousands of
 * LUs arrive at once. The LU is pending meanwhile (Lu.naming_pending), as for an identification
 * that needs commands. LUs a resync finds are identified in the caller's thread still: the
 * reconciliation that follows a resync needs their names. Without @b, only identifications
 * that need commands go to the hook.
 */
void inventory_identify_off_loop(Inventory *inv, bool b);
/*
 * inventory_identify_done() - @job ended with @error (-ETIMEDOUT: it is still running and
 * nothing of its result is read). The result is taken only when its LU is still there and
 * still waits for this identification (not removed, not re-probed since); otherwise it is
 * dropped. Returns 1 when taken, 0 when dropped, -errno.
 */
int inventory_identify_done(Inventory *inv, LuIdentifyJob *job, int error);

/*
 * inventory_handle_uevent() - the inventory's part of @ev, whose reactions (core/uevent.h) are
 * @what, uevent_reactions(@ev): UEVENT_LU, UEVENT_HOST_REMOVED and UEVENT_NODE (the others are
 * not the inventory's). Every uevent comes here, whatever @what, and before the reactions that
 * follow these in the table: a SCSI host or target that came or went makes path_id's walks read
 * their ancestors again. Returns 0 (also for events of no interest) or -errno.
 */
int inventory_handle_uevent(Inventory *inv, const Uevent *ev, UeventReactions what);

/* lu_is_cdrom() - whether @lu's block node is a CD/DVD drive's (sr). */
static inline bool lu_is_cdrom(const Lu *lu)
{
	return lu->block && lu->block[0] == 's' && lu->block[1] == 'r';
}

/* lu_running() - whether the kernel has @lu running (no state read counts as running). */
static inline bool lu_running(const Lu *lu)
{
	return !lu->state || streq(lu->state, "running");
}

/* @lu's rare fields (LuRare), NULL or 0 when it has none. */
static inline const char *lu_tape(const Lu *lu)
{
	return lu->rare ? lu->rare->tape : NULL;
}
static inline const char *lu_tape_nr(const Lu *lu)
{
	return lu->rare ? lu->rare->tape_nr : NULL;
}
static inline const char *lu_mpath(const Lu *lu)
{
	return lu->rare ? lu->rare->mpath : NULL;
}
static inline const char *lu_mpath_uuid(const Lu *lu)
{
	return lu->rare ? lu->rare->mpath_uuid : NULL;
}
static inline size_t lu_n_partitions(const Lu *lu)
{
	return lu->rare ? lu->rare->n_partitions : 0;
}
static inline const LuPartition *lu_partitions(const Lu *lu)
{
	return lu->rare ? lu->rare->partitions : NULL;
}
/* lu_rare_get() - @lu's LuRare, allocated (all unset) when it has none; NULL when out of
 * memory. */
LuRare *lu_rare_get(Lu *lu);

/* lu_relation() - lu_naming_relation() of @a's and @b's naming. */
LuRelation lu_relation(const Lu *a, const Lu *b);
const char *lu_type_name(int type);
