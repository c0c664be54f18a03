/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The inventory's insides, shared by its three files and nobody else: inventory.c keeps the tree
 * and reads LUs from sysfs, inventory-identify.c identifies them (in the loop, or off it through
 * daemon/lu-identify.h), inventory-uevent.c carries out the inventory's reactions to uevents.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"
#include <dirent.h>

#include "pathid.h"
#include "ptrtable.h"
#include "strpool.h"
#include "udevctx.h"

struct Inventory {
	int rootfd;
	ProbeFlags probe_flags;
	InventoryHooks hooks;
	void *userdata;
	Host *hosts;
	size_t n_lus;
	size_t n_identifying; /* LUs with naming_pending */
	uint64_t identify_seq;
	unsigned generation;
	/* The resync under way (inventory_resync_begin()): the bus directory still being read,
	 * then the walk over the LUs it did not list (the next to look at); its first error. */
	DIR *resync_dir;
	Lu *resync_next;
	bool resync_running, resync_reprobe, resync_walking;
	int resync_error;
	/* Every LU by H:C:T:L, so that each uevent finds its LU in O(1). */
	PtrTable index;
	StrPool *strings; /* Lu.vendor, .model, .revision, .state */
	/* What identifying one LU reads that is the same for many: which udev rules files exist. */
	UdevRulesCache rules;
	/* The identification of every LU the kernel adds goes to the identify hook, one from the
	 * kernel's cache too (inventory_identify_off_loop()). */
	bool identify_off_loop;
};

/* inventory.c: the tree and what it reads of an LU */

/* The lu_changed hook, when something changed. */
void lu_changed(Inventory *inv, Lu *lu, LuChange what);
/* @lu (pending, counted) waits no more for an identification off the loop. */
void lu_pending_end(Inventory *inv, Lu *lu);
/* The rules udev reads, from the inventory's cache (udevctx.h), on CLOCK_MONOTONIC. */
void inventory_rules(Inventory *inv, UdevRules *ret);
/* @s without its trailing blanks, as the inventory's shared copy (strpool_put() it). */
const char *inventory_string_shared(Inventory *inv, char *s);
/* A text attribute of @syspath so shared; NULL when unreadable. */
const char *inventory_attr_shared(Inventory *inv, const char *syspath, const char *attr);
/* Let go of @lu's shared strings. */
void lu_put_strings(Inventory *inv, const Lu *lu);
void lu_partitions_clear(Lu *lu);
/* Add partition @node numbered @num to @lu's, kept ordered by number. */
int lu_partition_insert(Lu *lu, const char *node, uint64_t num);
/* Set @lu's syspath and nodes, all in one allocation. */
int lu_set_strings(Lu *lu, const char *syspath, const char *sg, const char *block, const char *tape,
                   const char *bsg);
/* @lu's nodes from sysfs, those @ref has not looked up yet with them. */
int lu_read_nodes(Inventory *inv, Lu *lu, LuRef *ref);
/* What describes @lu (SCSI level, INQUIRY strings, state), read through @ref. */
int lu_read_info(Inventory *inv, Lu *lu, LuRef *ref);
/* Each string @info holds that @lu has none of, trimmed and shared, as @lu's. */
void lu_take_strings(Inventory *inv, Lu *lu, LuIdentifyInfo *info);
/* What differs between @a and @b. */
LuChange lu_diff(const Lu *a, const Lu *b);
/* Read @hctl again (inventory_refresh()), from the directory @devpath and with the type @type
 * when the caller knows them (its add uevent; NULL, -1 otherwise): @kernel_add, the kernel's
 * own add. */
int inventory_refresh_at(Inventory *inv, const char *hctl, const char *devpath, int type,
                         bool reprobe, bool keep_names, bool kernel_add);
/* The device said its identity changed: read @hctl again and derive its IDs and names. */
int inventory_reprobe(Inventory *inv, const char *hctl);

/* inventory-identify.c: identifying an LU */

/* Whether the identification of an LU the kernel adds runs off the loop. */
bool lu_off_loop(const Inventory *inv);
/* Identify @lu in the caller's thread (true), or leave it to the identify hook (false; then
 * *@ret_cache_only: a job that reads the kernel's cache alone). */
bool lu_probe_names(Inventory *inv, Lu *lu, LuRef *ref, bool off_loop, bool *ret_cache_only);
/* @lu (not in the tree yet, or not counted) waits for an identification off the loop. */
void lu_set_pending(Inventory *inv, Lu *lu);
/* Hand @lu's identification (pending, counted) to the owner; on failure it ends here. */
void lu_identify_submit(Inventory *inv, Lu *lu, bool cache_only);
