/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The daemon's inventory against a fake sysfs tree: each row applies one kernel uevent (after
 * changing the tree the way the kernel would have) and checks the hooks fired and the files
 * the inventory wrote.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check-util.h"
#include "inventory.h"
#include "macro.h"

static CheckTree tree;

/* Page 0x83 of one LU: NAA 0x5001405f123456@last, then, unless @port is 0, relative target port
 * @port, padded past what LuNaming keeps of it by a target device designator of @pad bytes. */
typedef struct Pg83 {
	uint8_t data[16 + 8 + 4 + UINT8_MAX];
	size_t len;
} Pg83;

#define PG83(last, port, pad) pg83(&(Pg83){ .len = 0 }, (last), (port), (pad))

static const Pg83 *pg83(Pg83 *pg, uint8_t last, uint8_t port, uint8_t pad)
{
	static const uint8_t naa[] = { 0x00, 0x83, 0x00, 0x0c, 0x01, 0x03, 0x00, 0x08,
		                       0x50, 0x01, 0x40, 0x5f, 0x12, 0x34, 0x56 };

	memcpy(pg->data, naa, sizeof(naa));
	pg->data[sizeof(naa)] = last;
	pg->len = sizeof(naa) + 1;
	if (port) {
		memcpy(pg->data + pg->len,
		       (const uint8_t[]){ 0x01, 0x14, 0x00, 0x04, 0, 0, 0, port }, 8);
		pg->len += 8;
	}
	if (pad) {
		memcpy(pg->data + pg->len, (const uint8_t[]){ 0x02, 0x21, 0x00, pad }, 4);
		memset(pg->data + pg->len + 4, 'A', pad);
		pg->len += 4 + pad;
	}
	pg->data[2] = (uint8_t)((pg->len - 4) >> 8);
	pg->data[3] = (uint8_t)(pg->len - 4);
	return pg;
}

/* An LU of type @type as QEMU's scsi-hd shows one, with @node (a disk, or st* a tape), @sg and
 * page 0x83 @pg83 unless NULL. No `rev`: tests count the reads of vendor, model and rev. */
static void put_lu(const char *hctl, int type, const char *node, const char *sg, const Pg83 *pg83)
{
	uint8_t inq[36] = { (uint8_t)type, 0, 6, 2, 31 };
	bool tape = node && node[1] == 't';

	memcpy(inq + 8, "QEMU    QEMU HARDDISK   2.5+", 28);
	check_tree_put_lu(
	        &tree,
	        &(CheckLu){ .hctl = hctl,
	                    .type = type,
	                    .vendor = "QEMU",
	                    .model = "QEMU HARDDISK",
	                    .scsi_level = 7,
	                    .block = { tape ? NULL : node, "8:0\n" },
	                    .tape = { tape ? node : NULL, "8:0\n" },
	                    .sg = { sg, "21:0\n" },
	                    .attrs = { { "inquiry", .data = inq, .len = sizeof(inq) },
	                               { "rescan", "" },
	                               { pg83 ? "vpd_pg83" : NULL, .data = pg83 ? pg83->data : NULL,
	                                 .len = pg83 ? pg83->len : 0 } } });
}

static void rm_lu(const char *hctl)
{
	char p[PATH_MAX];

	xsnprintf(p, "sys/bus/scsi/devices/%s", hctl);
	check_tree_rm(&tree, p);
}

typedef struct Counts {
	unsigned added, removed, changed, names_changed, nodes_changed, ua, rescan_target;
	LuChange last_what;
	char last_ua_action[32];
} Counts;

static Counts counts;

static void on_added(Inventory *inv, Lu *lu, void *u)
{
	counts.added++;
}

static void on_changed(Inventory *inv, Lu *lu, LuChange what, void *u)
{
	counts.changed++;
	counts.last_what = what;
	if (what & LU_CHANGE_NAMES)
		counts.names_changed++;
	if (what & LU_CHANGE_NODES)
		counts.nodes_changed++;
}

static void on_removed(Inventory *inv, Lu *lu, void *u)
{
	counts.removed++;
}

static void on_ua(Inventory *inv, Lu *lu, LuUnitAttention ua, const char *action, int error,
                  void *u)
{
	counts.ua++;
	snprintf(counts.last_ua_action, sizeof(counts.last_ua_action), "%s", action);
}

static int on_rescan_target(Inventory *inv, Target *t, void *u)
{
	counts.rescan_target++;
	return 0;
}

static void setup(void)
{
	check_tree_new(&tree, "check-inventory");

	put_lu("0:0:0:0", 0, "sda", "sg0", PG83(0x78, 0, 0));
	put_lu("0:0:1:0", 1, "st0", "sg1", NULL);
	put_lu("2:0:0:3", 0x0d, NULL, "sg2", NULL);
	check_tree_put_str(&tree, "sys/bus/scsi/devices/host0/uevent", "");
	check_tree_put_str(&tree, "sys/bus/scsi/devices/target0:0:0/uevent", "");
	check_tree_put_str(&tree, "sys/class/scsi_host/host0/scan", "");
	memset(&counts, 0, sizeof(counts));
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static Inventory *new_inventory(bool hook_rescan)
{
	InventoryHooks hooks = {
		.lu_added = on_added,
		.lu_changed = on_changed,
		.lu_removed = on_removed,
		.unit_attention = on_ua,
		.rescan_target = hook_rescan ? on_rescan_target : NULL,
	};
	Inventory *inv = NULL;

	ck_assert_int_eq(inventory_new(tree.fd, PROBE_SYSFS_ONLY, &hooks, NULL, &inv), 0);
	ck_assert_int_eq(inventory_resync(inv, false), 0);
	ck_assert_uint_eq(counts.added, 3);
	memset(&counts, 0, sizeof(counts));
	return inv;
}

START_TEST(test_initial)
{
	Inventory *inv = new_inventory(false);
	Lu *lu;
	size_t n = 0;

	ck_assert_uint_eq(inventory_n_lus(inv), 3);
	for (lu = inventory_first_lu(inv); lu; lu = inventory_next_lu(lu))
		n++;
	ck_assert_uint_eq(n, 3);

	lu = inventory_find(inv, "0:0:0:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_str_eq(lu->block, "sda");
	ck_assert_str_eq(lu->sg, "sg0");
	ck_assert_str_eq(lu->vendor, "QEMU");
	ck_assert_uint_eq(lu->probe_commands, 0);
	/* scsi_id's view, rebuilt for `lunctl list` (page 0x83 NAA 0x5001405f12345678). */
	{
		_cleanup_(identity_done) Identity sid = {};
		bool scsi = false, serial = false;
		size_t np = 0;

		ck_assert_int_eq(lu_naming_scsi_id(&lu->naming, &sid), 0);
		ck_assert_str_eq(sid.id->type, "disk");
		ck_assert_str_eq(sid.id->vendor, "QEMU");
		ck_assert_str_eq(sid.id->model, "QEMU_HARDDISK");
		ck_assert(sid.id->have_serial);
		ck_assert_str_eq(sid.id->serial, "35001405f12345678");
		for (const char *kv = identity_next_line(&sid, NULL, true); kv;
		     kv = identity_next_line(&sid, kv, true), np++) {
			scsi |= streq(kv, "ID_SCSI=1");
			serial |= streq(kv, "ID_SERIAL=35001405f12345678");
		}
		/* scsi_id's set only: no sg_inq SCSI_* line. */
		ck_assert_uint_eq(np, sid.n_lines);
		ck_assert_uint_eq(sid.n_udev_lines, sid.n_lines);
		ck_assert(scsi && serial);
	}
	/* The IDs and names kept (naming.c packs them into one block, the IDs inside the names
	 * they end). */
	ck_assert_str_eq(lu->naming.serial, "35001405f12345678");
	ck_assert_str_eq(lu->naming.wwn, "0x5001405f12345678");
	ck_assert_uint_eq(lu->naming.n_names, 2);
	ck_assert_str_eq(lu->naming.names[0], "scsi-35001405f12345678");
	ck_assert_str_eq(lu->naming.names[1], "wwn-0x5001405f12345678");
	ck_assert_ptr_eq(lu->naming.serial, lu->naming.names[0] + strlen("scsi-"));
	ck_assert_ptr_eq(lu->naming.wwn, lu->naming.names[1] + strlen("wwn-"));
	/* Page 0x83 kept whole: its path keys come from it, none stored. */
	ck_assert(lu->naming.keys_in_pages);
	ck_assert_ptr_null(lu->naming.lu_key);
	{
		_cleanup_free_ char *lu_key = NULL, *port_key = NULL;

		ck_assert_int_eq(lu_naming_path_keys(&lu->naming, &lu_key, &port_key), 0);
		ck_assert_str_eq(lu_key, "0103:5001405f12345678");
		ck_assert_str_eq(port_key, "");
	}

	lu = inventory_find(inv, "0:0:1:0");
	ck_assert_str_eq(lu_tape(lu), "st0");
	ck_assert_str_eq(lu_tape_nr(lu), "nst0");

	lu = inventory_find(inv, "2:0:0:3");
	ck_assert_int_eq(lu->type, LU_TYPE_ENCLOSURE);
	ck_assert_str_eq(lu->sg, "sg2");
	ck_assert_ptr_null(inventory_find(inv, "9:9:9:9"));
	ck_assert_ptr_null(inventory_find(inv, "host0"));

	/* A resync of an unchanged tree changes nothing. */
	ck_assert_int_eq(inventory_resync(inv, false), 0);
	ck_assert_uint_eq(counts.added + counts.removed + counts.changed, 0);
	inventory_free(inv);
}
END_TEST

/* A resync a step of one LU at a time while a uevent takes an LU away after step _i (0 to 7:
 * during the directory's reading, during the walk over what the bus no longer lists, once when
 * the walk would look at it next, and after the end): what sysfs says at the end, each LU added
 * or removed once. */
START_TEST(test_resync_steps)
{
	Inventory *inv = new_inventory(false);
	unsigned steps = 0;
	bool done = false;

	rm_lu("0:0:0:0");
	put_lu("0:0:0:1", 0, "sdb", "sg3", NULL);
	put_lu("0:0:0:2", 0, "sdc", "sg4", NULL);
	ck_assert(!inventory_resync_running(inv));
	ck_assert_int_eq(inventory_resync_begin(inv, false), 0);
	ck_assert(inventory_resync_running(inv));
	while (!done) {
		ck_assert_int_eq(inventory_resync_step(inv, 1, &done), 0);
		if (steps++ == (unsigned)_i) {
			rm_lu("0:0:0:1");
			(void)inventory_remove(inv, "0:0:0:1");
		}
		ck_assert_uint_lt(steps, 20);
	}
	ck_assert(!inventory_resync_running(inv));
	if (steps <= (unsigned)_i) {
		/* the resync took fewer steps: the uevent after it */
		rm_lu("0:0:0:1");
		(void)inventory_remove(inv, "0:0:0:1");
	}
	ck_assert_ptr_null(inventory_find(inv, "0:0:0:0"));
	ck_assert_ptr_null(inventory_find(inv, "0:0:0:1"));
	ck_assert_ptr_nonnull(inventory_find(inv, "0:0:0:2"));
	ck_assert_ptr_nonnull(inventory_find(inv, "0:0:1:0"));
	ck_assert_ptr_nonnull(inventory_find(inv, "2:0:0:3"));
	ck_assert_uint_eq(inventory_n_lus(inv), 3);
	/* 0:0:0:1 added and removed when the resync read it before the uevent, neither after */
	ck_assert_uint_eq(counts.added, 1 + (counts.removed == 2));
	ck_assert_uint_le(counts.removed, 2);
	/* nothing left under way: a step after the end is done at once */
	ck_assert_int_eq(inventory_resync_step(inv, 1, &done), 0);
	ck_assert(done);
	inventory_free(inv);
}
END_TEST

/* ---- uevents ---- */

static void tree_none(void)
{
}

static void tree_remove_lu(void)
{
	rm_lu("0:0:0:0");
}

static void tree_new_lu(void)
{
	put_lu("0:0:0:1", 0, "sdb", "sg3", NULL);
}

static void tree_new_partition(void)
{
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/block/sda/sda1/partition", "1\n");
}

static void tree_new_id(void)
{
	const Pg83 *pg = PG83(0x79, 0, 0);

	check_tree_put(&tree, "sys/bus/scsi/devices/0:0:0:0/vpd_pg83", pg->data, pg->len);
}

static void tree_remove_host2(void)
{
	rm_lu("2:0:0:3");
}

/* Target 0:0:1 went with its LU; the LU of target 0:0:0 changed its vendor string without an
 * event of its own (nothing re-reads it on the other target's removal). */
static void tree_remove_target1(void)
{
	uint8_t inq[36] = { 0, 0, 6, 2, 31 };

	rm_lu("0:0:1:0");
	/* The kernel's vendor attribute is the INQUIRY data's bytes 8-15: both change. */
	memcpy(inq + 8, "OTHER   QEMU HARDDISK   2.5+", 28);
	check_tree_put(&tree, "sys/bus/scsi/devices/0:0:0:0/inquiry", inq, sizeof(inq));
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/vendor", "OTHER   \n");
}

typedef struct UeventCase {
	const char *what;
	void (*tree)(void);
	Uevent ev;
	bool hook_rescan;
	size_t n_lus;
	Counts expect;
	const char *file, *content; /* a file the inventory should have written */
} UeventCase;

#define DEVPATH0 "/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:0/0:0:0:0"

static const UeventCase uevent_cases[] = {
	{ "scsi_device remove",
	  tree_remove_lu,
	  { "remove", "scsi", "scsi_device", DEVPATH0 },
	  false,
	  2,
	  { .removed = 1 } },
	{ "scsi_device remove of an unknown LU",
	  tree_none,
	  { "remove", "scsi", "scsi_device", "/devices/host5/target5:0:0/5:0:0:0" },
	  false,
	  3,
	  {} },
	{ "scsi_device add",
	  tree_new_lu,
	  { "add", "scsi", "scsi_device", "/devices/x/host0/target0:0:0/0:0:0:1" },
	  false,
	  4,
	  { .added = 1 } },
	{ "sg node add of an unknown LU adds it",
	  tree_new_lu,
	  { "add", "scsi_generic", NULL, "/devices/x/host0/target0:0:0/0:0:0:1/scsi_generic/sg3" },
	  false,
	  4,
	  { .added = 1 } },
	{ "partition add: nodes changed",
	  tree_new_partition,
	  { "add", "block", "partition", DEVPATH0 "/block/sda/sda1" },
	  false,
	  3,
	  { .changed = 1, .nodes_changed = 1 } },
	{ "block event of a non-SCSI device ignored",
	  tree_none,
	  { "add", "block", "disk", "/devices/virtual/block/loop0" },
	  false,
	  3,
	  {} },
	{ "other subsystem ignored",
	  tree_remove_lu,
	  { "remove", "net", NULL, "/devices/virtual/net/lo" },
	  false,
	  3,
	  {} },
	{ "capacity changed: rescan written",
	  tree_none,
	  { "change", "scsi", "scsi_device", DEVPATH0, "CAPACITY_DATA_HAS_CHANGED" },
	  false,
	  3,
	  { .ua = 1, .last_ua_action = "capacity-reread" },
	  "sys/bus/scsi/devices/0:0:0:0/rescan",
	  "1" },
	{ "reported luns changed: kernel target scan",
	  tree_none,
	  { "change", "scsi", "scsi_device", DEVPATH0, "REPORTED_LUNS_DATA_HAS_CHANGED" },
	  false,
	  3,
	  { .ua = 1, .last_ua_action = "rescan-target" },
	  "sys/class/scsi_host/host0/scan",
	  "0 0 -" },
	{ "reported luns changed: scan engine hook",
	  tree_none,
	  { "change", "scsi", "scsi_device", DEVPATH0, "REPORTED_LUNS_DATA_HAS_CHANGED" },
	  true,
	  3,
	  { .ua = 1, .rescan_target = 1, .last_ua_action = "rescan-target" },
	  "sys/class/scsi_host/host0/scan",
	  "" },
	{ "inquiry changed: re-probed and renamed",
	  tree_new_id,
	  { "change", "scsi", "scsi_device", DEVPATH0, "INQUIRY_DATA_HAS_CHANGED" },
	  false,
	  3,
	  { .ua = 1, .changed = 1, .names_changed = 1, .last_ua_action = "reprobed" } },
	{ "scan's synthetic change after a rescan for changed IDs: re-probed and renamed",
	  tree_new_id,
	  { "change", "scsi", "scsi_device", DEVPATH0, NULL, "ids" },
	  false,
	  3,
	  { .changed = 1, .names_changed = 1 } },
	{ "plain change of the same LU: IDs carried over, not re-probed",
	  tree_new_id,
	  { "change", "scsi", "scsi_device", DEVPATH0 },
	  false,
	  3,
	  {} },
	{ "power on reset: policy hook",
	  tree_none,
	  { "change", "scsi", "scsi_device", DEVPATH0, "POWER_ON_RESET_OCCURRED" },
	  false,
	  3,
	  { .ua = 1, .last_ua_action = "policy" } },
	{ "host removal drops what sysfs lost",
	  tree_remove_host2,
	  { "remove", "scsi", "scsi_host", "/devices/x/host2" },
	  false,
	  2,
	  { .removed = 1 } },
	{ "target removal drops what sysfs lost below that target, reads no other",
	  tree_remove_target1,
	  { "remove", "scsi", "scsi_target", "/devices/x/host0/target0:0:1" },
	  false,
	  2,
	  { .removed = 1 } },
	{ "target removal with an unreadable target name: the whole host re-read",
	  tree_remove_target1,
	  { "remove", "scsi", "scsi_target", "/devices/x/host0/target0:x:1" },
	  false,
	  2,
	  { .removed = 1, .changed = 1 } },
};

/* Paths and clones tell apart alike whether the keys are derived from the kept page 0x83 or
 * kept themselves (a page longer than LuNaming keeps). */
START_TEST(test_path_keys)
{
	static const struct {
		const char *hctl;
		uint8_t port, pad;
	} lus[] = {
		{ "3:0:0:0", 1, 0 },   { "3:0:1:0", 2, 0 },   { "3:0:2:0", 1, 0 },
		{ "3:0:3:0", 2, 250 }, { "3:0:4:0", 1, 250 },
	};
	/* Each pair's relation: the same LU through another port is a path, through the
	 * same port a clone. */
	static const struct {
		unsigned a, b;
		LuRelation rel;
	} pairs[] = {
		{ 0, 1, LU_RELATION_PATHS },  { 0, 2, LU_RELATION_CLONES },
		{ 0, 3, LU_RELATION_PATHS },  { 0, 4, LU_RELATION_CLONES },
		{ 3, 4, LU_RELATION_PATHS },  { 4, 1, LU_RELATION_PATHS },
		{ 3, 1, LU_RELATION_CLONES },
	};
	Inventory *inv = NULL;
	const Lu *lu[ELEMENTSOF(lus)];

	for (size_t i = 0; i < ELEMENTSOF(lus); i++) {
		char sg[16];

		xsnprintf(sg, "sg%zu", 10 + i);
		put_lu(lus[i].hctl, 0, NULL, sg, PG83(0x78, lus[i].port, lus[i].pad));
	}
	ck_assert_int_eq(inventory_new(tree.fd, PROBE_SYSFS_ONLY, NULL, NULL, &inv), 0);
	ck_assert_int_eq(inventory_resync(inv, false), 0);
	for (size_t i = 0; i < ELEMENTSOF(lus); i++) {
		_cleanup_free_ char *lu_key = NULL, *port_key = NULL;
		char port[32];

		lu[i] = inventory_find(inv, lus[i].hctl);
		ck_assert_ptr_nonnull(lu[i]);
		ck_assert_int_eq(lu[i]->naming_error, 0);
		ck_assert(lu[i]->naming.keys_in_pages == (lus[i].pad == 0));
		ck_assert(!lu[i]->naming.lu_key == (lus[i].pad == 0));
		ck_assert_int_eq(lu_naming_path_keys(&lu[i]->naming, &lu_key, &port_key), 0);
		ck_assert_str_eq(lu_key, "0103:5001405f12345678");
		xsnprintf(port, "0114:0000000%u", lus[i].port);
		ck_assert_str_eq(port_key, port);
	}
	for (size_t i = 0; i < ELEMENTSOF(pairs); i++) {
		ck_assert_int_eq(lu_relation(lu[pairs[i].a], lu[pairs[i].b]), pairs[i].rel);
		ck_assert_int_eq(lu_relation(lu[pairs[i].b], lu[pairs[i].a]), pairs[i].rel);
	}
	inventory_free(inv);
}
END_TEST

/* lund.hwdb's unit-serial name from the pages the inventory keeps per LU: scsi_id --page=0x80's
 * ID_SERIAL, not the identity's NAA; no page 0x80 no name. */
START_TEST(test_unit_serial)
{
	static const uint8_t pg80[] = { 0x00, 0x80, 0x00, 0x0a, ' ', 'U', 'S',
		                        'N',  '-',  '0',  '0',  '0', '1', ' ' };
	char name[NAME_MAX + 1];
	Inventory *inv;
	Lu *lu;

	check_tree_put(&tree, "sys/bus/scsi/devices/0:0:0:0/vpd_pg80", pg80, sizeof(pg80));
	inv = new_inventory(false);
	lu = inventory_find(inv, "0:0:0:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_str_eq(lu->naming.names[0], "scsi-35001405f12345678");
	ck_assert_int_eq(lu_naming_rule_name(&lu->naming, NAME_RULE_UNIT_SERIAL, name), 1);
	ck_assert_str_eq(name, "scsi-SQEMU_QEMU_HARDDISK_USN-0001");
	lu = inventory_find(inv, "2:0:0:3");
	ck_assert_ptr_nonnull(lu);
	ck_assert_int_eq(lu_naming_rule_name(&lu->naming, NAME_RULE_UNIT_SERIAL, name), 0);
	ck_assert_str_eq(name, "");
	inventory_free(inv);
}
END_TEST

/* @n's scsi_id view as its properties, one "KEY=VALUE\n" after the other; NULL when it has
 * none (the error in *@ret_r). */
static char *scsi_id_text(const LuNaming *n, int *ret_r)
{
	_cleanup_(identity_done) Identity sid = {};
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	*ret_r = lu_naming_scsi_id(n, &sid);
	if (*ret_r < 0)
		return NULL;
	f = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s|%s|%s|%s\n", sid.id->type, sid.id->vendor, sid.id->model,
	        sid.id->have_serial ? sid.id->serial : "-");
	for (const char *kv = identity_next_line(&sid, NULL, true); kv;
	     kv = identity_next_line(&sid, kv, true))
		fprintf(f, "%s\n", kv);
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

/* The scsi_id lines `lunctl id --export` prints first for @pd, one "KEY=VALUE\n" after the
 * other. */
static char *scsi_id_lines(const LuRef *ref, const ProbeData *pd)
{
	const IdentifyOptions opts = { .flags = PROBE_SYSFS_ONLY, .udev_lines_only = true };
	_cleanup_(identity_done) Identity ident = {};
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	ck_assert_int_eq(identify_pages(tree.fd, ref, pd, &opts, &ident), 0);
	f = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(f);
	for (const char *kv = identity_next_line(&ident, NULL, true); kv;
	     kv = identity_next_line(&ident, kv, true))
		fprintf(f, "%s\n", kv);
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

/*
 * Pages the kernel caches are kept as those a command read are: the scsi_id view (the lines
 * `lunctl id --export` prints from the same pages), the relation and the unit-serial name are
 * those of the bytes the LU was named from. Files that change or vanish afterwards change none
 * of them: a link never depends on a later read of sysfs (the next identification renames).
 * Two namings are equal when their kept bytes are, whatever the bytes were read from.
 */
START_TEST(test_pages_kept)
{
	static const uint8_t pg80[] = { 0x00, 0x80, 0x00, 0x0a, ' ', 'U', 'S',
		                        'N',  '-',  '0',  '0',  '0', '1', ' ' };
	static const uint8_t pg80_other[] = { 0x00, 0x80, 0x00, 0x0a, ' ', 'U', 'S',
		                              'N',  '-',  '0',  '0',  '0', '2', ' ' };
	_cleanup_(lu_naming_done) LuNaming kept = {}, other = {};
	_cleanup_(probe_data_done) ProbeData pd = {};
	_cleanup_(lu_ref_done) LuRef ref = {};
	_cleanup_free_ char *view = NULL, *view_kept = NULL, *again = NULL, *lines = NULL;
	char name[NAME_MAX + 1], name_kept[NAME_MAX + 1];
	Inventory *inv = NULL;
	uint8_t *pg80_read;
	const Pg83 *pg;
	Lu *lu, *lu1;
	int r;

	put_lu("3:0:0:0", 0, NULL, "sg10", PG83(0x78, 1, 0));
	check_tree_put(&tree, "sys/bus/scsi/devices/3:0:0:0/vpd_pg80", pg80, sizeof(pg80));
	put_lu("3:0:1:0", 0, NULL, "sg11", PG83(0x78, 2, 0));
	ck_assert_int_eq(inventory_new(tree.fd, PROBE_SYSFS_ONLY, NULL, NULL, &inv), 0);
	ck_assert_int_eq(inventory_resync(inv, false), 0);
	lu = inventory_find(inv, "3:0:0:0");
	lu1 = inventory_find(inv, "3:0:1:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_ptr_nonnull(lu1);

	/* The same LU named from the same bytes as if a command had read them: equal. */
	ck_assert_int_eq(probe_resolve(tree.fd, "3:0:0:0", &ref), 0);
	ck_assert_int_eq(probe_read(tree.fd, &ref, PROBE_SYSFS_ONLY, &pd), 0);
	for (ProbePage p = 0; p < _PROBE_PAGE_MAX; p++)
		if (pd.buf[p])
			pd.source[p] = PROBE_SOURCE_SGIO;
	ck_assert_int_eq(lu_compute_names(tree.fd, &ref, &pd, 7, false, NULL, &kept), 0);
	ck_assert(lu_naming_equal(&kept, &lu->naming));
	ck_assert(lu_naming_equal(&lu->naming, &kept));
	ck_assert(!lu_naming_equal(&kept, &lu1->naming));

	/* The view is what the identify path makes of the same pages, line for line. */
	view = scsi_id_text(&lu->naming, &r);
	ck_assert_int_eq(r, 0);
	view_kept = scsi_id_text(&kept, &r);
	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(view, view_kept);
	ck_assert_ptr_nonnull(strstr(view, "ID_SERIAL=35001405f12345678\n"));
	lines = scsi_id_lines(&ref, &pd);
	ck_assert_str_eq(strchr(view, '\n') + 1, lines);
	ck_assert_int_eq(lu_relation(lu, lu1), LU_RELATION_PATHS);
	ck_assert_int_eq(lu_naming_relation(&kept, &lu1->naming), LU_RELATION_PATHS);
	ck_assert_int_eq(lu_naming_rule_name(&lu->naming, NAME_RULE_UNIT_SERIAL, name), 1);
	ck_assert_int_eq(lu_naming_rule_name(&kept, NAME_RULE_UNIT_SERIAL, name_kept), 1);
	ck_assert_str_eq(name, name_kept);
	ck_assert_str_eq(name, "scsi-SQEMU_QEMU_HARDDISK_USN-0001");

	/* Another page 0x80, the same names: not equal, its bytes differ. */
	pg80_read = pd.buf[PROBE_PG80];
	ck_assert_uint_eq(pd.len[PROBE_PG80], sizeof(pg80_other));
	memcpy(pg80_read, pg80_other, sizeof(pg80_other));
	ck_assert_int_eq(lu_compute_names(tree.fd, &ref, &pd, 7, false, NULL, &other), 0);
	ck_assert_str_eq(other.names[0], lu->naming.names[0]);
	ck_assert(!lu_naming_equal(&other, &lu->naming));
	ck_assert(!lu_naming_equal(&lu->naming, &other));
	ck_assert_int_eq(lu_naming_rule_name(&other, NAME_RULE_UNIT_SERIAL, name), 1);
	ck_assert_str_eq(name, "scsi-SQEMU_QEMU_HARDDISK_USN-0002");

	/* Page 0x80 changed in sysfs since the naming: the same view and unit-serial name. */
	check_tree_put(&tree, "sys/bus/scsi/devices/3:0:0:0/vpd_pg80", pg80_other,
	               sizeof(pg80_other));
	again = scsi_id_text(&lu->naming, &r);
	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(again, view);
	ck_assert_int_eq(lu_naming_rule_name(&lu->naming, NAME_RULE_UNIT_SERIAL, name), 1);
	ck_assert_str_eq(name, "scsi-SQEMU_QEMU_HARDDISK_USN-0001");

	/* Another LU's page 0x83 in its place, then page 0x83 gone, then the whole LU: still
	 * the paths it was named as. */
	pg = PG83(0x78, 2, 0);
	check_tree_put(&tree, "sys/bus/scsi/devices/3:0:0:0/vpd_pg83", pg->data, pg->len);
	ck_assert_int_eq(lu_relation(lu, lu1), LU_RELATION_PATHS);
	check_tree_rm(&tree, "sys/bus/scsi/devices/3:0:0:0/vpd_pg83");
	ck_assert_int_eq(lu_relation(lu, lu1), LU_RELATION_PATHS);
	rm_lu("3:0:0:0");
	ck_assert_int_eq(lu_relation(lu, lu1), LU_RELATION_PATHS);
	ck_assert_int_eq(lu_relation(lu1, lu), LU_RELATION_PATHS);
	free(again);
	again = scsi_id_text(&lu->naming, &r);
	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(again, view);
	inventory_free(inv);
}
END_TEST

START_TEST(test_uevent)
{
	const UeventCase *c = &uevent_cases[_i];
	Inventory *inv = new_inventory(c->hook_rescan);

	c->tree();
	ck_assert_int_eq(inventory_handle_uevent(inv, &c->ev, uevent_reactions(&c->ev)), 0);
	ck_assert_msg(inventory_n_lus(inv) == c->n_lus, "%s: %zu LUs", c->what,
	              inventory_n_lus(inv));
	ck_assert_msg(counts.added == c->expect.added && counts.removed == c->expect.removed &&
	                      counts.changed == c->expect.changed &&
	                      counts.names_changed == c->expect.names_changed &&
	                      counts.nodes_changed == c->expect.nodes_changed &&
	                      counts.ua == c->expect.ua &&
	                      counts.rescan_target == c->expect.rescan_target,
	              "%s: added %u removed %u changed %u (names %u nodes %u) ua %u rescan %u",
	              c->what, counts.added, counts.removed, counts.changed, counts.names_changed,
	              counts.nodes_changed, counts.ua, counts.rescan_target);
	ck_assert_str_eq(counts.last_ua_action, c->expect.last_ua_action);
	if (c->file) {
		_cleanup_free_ char *got = check_tree_get(&tree, c->file);

		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, c->content);
	}
	inventory_free(inv);
}
END_TEST

/* ---- rescan writes handed to the owner (rescan_lu): the kernel's re-read may take long ---- */

static char taken_hctl[64];
static LuUnitAttention taken_ua;

static int on_rescan_lu(Inventory *inv, Lu *lu, LuUnitAttention ua, void *u)
{
	snprintf(taken_hctl, sizeof(taken_hctl), "%s", lu->hctl);
	taken_ua = ua;
	return 0;
}

/* The owner's leave hook: capacity changes reported only (lund.conf's capacity = report). */
static const char *on_leave_capacity(Inventory *inv, const Lu *lu, LuUnitAttention ua, void *u)
{
	return ua == LU_UA_CAPACITY_CHANGED ? "reported" : NULL;
}

/* A unit attention the owner leaves alone is reported with its word and not acted on: no rescan
 * written; the others are handled as before. */
START_TEST(test_ua_left)
{
	InventoryHooks hooks = {
		.lu_added = on_added,
		.lu_changed = on_changed,
		.unit_attention = on_ua,
		.leave = on_leave_capacity,
	};
	Uevent cap = { "change", "scsi", "scsi_device", DEVPATH0 };
	Uevent luns = cap;
	Inventory *inv = NULL;
	_cleanup_free_ char *got = NULL, *scan = NULL;

	cap.sdev_ua = "CAPACITY_DATA_HAS_CHANGED";
	luns.sdev_ua = "REPORTED_LUNS_DATA_HAS_CHANGED";
	ck_assert_int_eq(inventory_new(tree.fd, PROBE_SYSFS_ONLY, &hooks, NULL, &inv), 0);
	ck_assert_int_eq(inventory_resync(inv, false), 0);
	memset(&counts, 0, sizeof(counts));

	ck_assert_int_eq(inventory_handle_uevent(inv, &cap, uevent_reactions(&cap)), 0);
	ck_assert_uint_eq(counts.ua, 1);
	ck_assert_str_eq(counts.last_ua_action, "reported");
	got = check_tree_get(&tree, "sys/bus/scsi/devices/0:0:0:0/rescan");
	ck_assert(!got || !*got);
	ck_assert_int_eq(inventory_handle_uevent(inv, &luns, uevent_reactions(&luns)), 0);
	ck_assert_str_eq(counts.last_ua_action, "rescan-target");
	scan = check_tree_get(&tree, "sys/class/scsi_host/host0/scan");
	ck_assert_str_eq(scan, "0 0 -");
	inventory_free(inv);
}
END_TEST

/* The inventory writes nothing and reports nothing until the owner says the write returned;
 * then INQUIRY DATA HAS CHANGED re-derives the names, as when it wrote the attribute itself. */
START_TEST(test_rescan_deferred)
{
	InventoryHooks hooks = {
		.lu_added = on_added,
		.lu_changed = on_changed,
		.unit_attention = on_ua,
		.rescan_lu = on_rescan_lu,
	};
	Uevent cap = { "change", "scsi", "scsi_device", DEVPATH0 };
	Uevent inq = cap;
	Inventory *inv = NULL;
	_cleanup_free_ char *got = NULL;

	cap.sdev_ua = "CAPACITY_DATA_HAS_CHANGED";
	inq.sdev_ua = "INQUIRY_DATA_HAS_CHANGED";
	ck_assert_int_eq(inventory_new(tree.fd, PROBE_SYSFS_ONLY, &hooks, NULL, &inv), 0);
	ck_assert_int_eq(inventory_resync(inv, false), 0);
	memset(&counts, 0, sizeof(counts));

	taken_hctl[0] = 0;
	ck_assert_int_eq(inventory_handle_uevent(inv, &cap, uevent_reactions(&cap)), 0);
	ck_assert_str_eq(taken_hctl, "0:0:0:0");
	ck_assert_int_eq(taken_ua, LU_UA_CAPACITY_CHANGED);
	ck_assert_uint_eq(counts.ua, 0);
	got = check_tree_get(&tree, "sys/bus/scsi/devices/0:0:0:0/rescan");
	ck_assert(!got || !*got); /* not written here */
	ck_assert_int_eq(inventory_rescan_done(inv, "0:0:0:0", LU_UA_CAPACITY_CHANGED, -ETIMEDOUT),
	                 -ETIMEDOUT);
	ck_assert_uint_eq(counts.ua, 1);
	ck_assert_str_eq(counts.last_ua_action, "capacity-reread");

	tree_new_id();
	ck_assert_int_eq(inventory_handle_uevent(inv, &inq, uevent_reactions(&inq)), 0);
	ck_assert_int_eq(taken_ua, LU_UA_INQUIRY_CHANGED);
	ck_assert_uint_eq(counts.ua, 1);
	ck_assert_uint_eq(counts.names_changed, 0);
	ck_assert_int_eq(inventory_rescan_done(inv, "0:0:0:0", LU_UA_INQUIRY_CHANGED, 0), 0);
	ck_assert_uint_eq(counts.ua, 2);
	ck_assert_uint_eq(counts.names_changed, 1);
	ck_assert_str_eq(counts.last_ua_action, "reprobed");
	/* An LU gone by the time the write returns: nothing to report on. */
	rm_lu("0:0:0:0");
	(void)inventory_rescan_done(inv, "0:0:0:0", LU_UA_INQUIRY_CHANGED, 0);
	ck_assert_uint_eq(counts.ua, 2);
	inventory_free(inv);
}
END_TEST

/* ---- node events of a known LU: the event names the node, sysfs is not read again ---- */

/* A uevent, through the inventory's one entrance with the reactions core/uevent.c's table gives
 * it, as the daemon's dispatch hands it over. */
static void send_uevent(Inventory *inv, const char *action, const char *subsystem,
                        const char *devtype, const char *devpath)
{
	Uevent ev = { action, subsystem, devtype, devpath };

	ck_assert_int_eq(inventory_handle_uevent(inv, &ev, uevent_reactions(&ev)), 0);
}

/* A tape's nodes, partitions and a dm-multipath map sit in a side allocation, made for the LUs
 * that have one: the others' `Lu` a chunk size class smaller. What the owner noted there (the
 * map) survives the LU being read again; what sysfs says (nodes, partitions) is read again. */
START_TEST(test_rare_fields)
{
	Inventory *inv = new_inventory(false);
	Lu *lu = inventory_find(inv, "0:0:0:0"), *tape = inventory_find(inv, "0:0:1:0");
	LuRare *rare;

	/* malloc's chunk: the request and its 8-byte header, rounded to 16; the H:C:T:L of a
	 * 4-digit LUN on a 2-digit target after the `Lu`. */
	ck_assert_uint_le((sizeof(Lu) + sizeof("0:0:12:1023") + 8 + 15) / 16 * 16, 256);
	ck_assert_ptr_null(lu->rare);
	ck_assert_ptr_null(inventory_find(inv, "2:0:0:3")->rare);
	ck_assert_ptr_null(lu_mpath(lu));
	ck_assert_uint_eq(lu_n_partitions(lu), 0);
	ck_assert_ptr_nonnull(tape->rare);
	ck_assert_str_eq(lu_tape(tape), "st0");
	ck_assert_ptr_null(lu_mpath(tape));

	rare = lu_rare_get(lu);
	ck_assert_ptr_nonnull(rare);
	ck_assert_ptr_eq(lu_rare_get(lu), rare);
	rare->mpath = strdup("dm-3");
	rare->mpath_uuid = strdup("mpath-35001405f12345678");
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/block/sda/sda1/partition", "1\n");
	send_uevent(inv, "add", "block", "partition", DEVPATH0 "/block/sda/sda1");
	ck_assert_ptr_eq(lu->rare, rare);
	ck_assert_uint_eq(lu_n_partitions(lu), 1);
	/* Read again from sysfs (a node it did not expect): partitions read, the map kept. */
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/block/sda/sda2/partition", "2\n");
	send_uevent(inv, "add", "block", "disk", DEVPATH0 "/block/sdz");
	ck_assert_ptr_eq(inventory_find(inv, "0:0:0:0"), lu);
	ck_assert_uint_eq(lu_n_partitions(lu), 2);
	ck_assert_str_eq(lu_partitions(lu)[1].node, "sda2");
	ck_assert_str_eq(lu_mpath(lu), "dm-3");
	ck_assert_str_eq(lu_mpath_uuid(lu), "mpath-35001405f12345678");
	/* The tape read again keeps its nodes. */
	ck_assert_int_eq(inventory_refresh(inv, "0:0:1:0", true), 0);
	ck_assert_str_eq(lu_tape(tape), "st0");
	ck_assert_str_eq(lu_tape_nr(tape), "nst0");
	/* The disk goes: its partitions with it, the map the owner's to clear. */
	send_uevent(inv, "remove", "block", "disk", DEVPATH0 "/block/sda");
	ck_assert_uint_eq(lu_n_partitions(lu), 0);
	ck_assert_str_eq(lu_mpath(lu), "dm-3");
	inventory_free(inv);
}
END_TEST

START_TEST(test_node_events)
{
	Inventory *inv = new_inventory(false);
	Lu *lu = inventory_find(inv, "0:0:0:0");

	/* sg goes away in the event; the tree still shows it, so only the event can say so. */
	send_uevent(inv, "remove", "scsi_generic", NULL, DEVPATH0 "/scsi_generic/sg0");
	ck_assert_ptr_null(lu->sg);
	ck_assert_uint_eq(counts.nodes_changed, 1);
	ck_assert_str_eq(lu->block, "sda");

	/* bsg appears; the same event again changes nothing. */
	send_uevent(inv, "add", "bsg", NULL, DEVPATH0 "/bsg/0:0:0:0");
	ck_assert_str_eq(lu->bsg, "bsg/0:0:0:0");
	send_uevent(inv, "add", "bsg", NULL, DEVPATH0 "/bsg/0:0:0:0");
	ck_assert_uint_eq(counts.nodes_changed, 2);

	/* Partitions, in whatever order their events come, are kept ordered by number. */
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/block/sda/sda2/partition", "2\n");
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/block/sda/sda1/partition", "1\n");
	send_uevent(inv, "add", "block", "partition", DEVPATH0 "/block/sda/sda2");
	send_uevent(inv, "add", "block", "partition", DEVPATH0 "/block/sda/sda1");
	ck_assert_uint_eq(lu_n_partitions(lu), 2);
	ck_assert_str_eq(lu_partitions(lu)[0].node, "sda1");
	ck_assert_uint_eq(lu_partitions(lu)[0].number, 1);
	ck_assert_str_eq(lu_partitions(lu)[1].node, "sda2");
	ck_assert_uint_eq(counts.nodes_changed, 4);
	send_uevent(inv, "remove", "block", "partition", DEVPATH0 "/block/sda/sda1");
	ck_assert_uint_eq(lu_n_partitions(lu), 1);
	ck_assert_str_eq(lu_partitions(lu)[0].node, "sda2");

	/* A node the inventory does not expect: the LU is read again from sysfs. */
	send_uevent(inv, "add", "block", "disk", DEVPATH0 "/block/sdz");
	ck_assert_str_eq(lu->block, "sda");
	ck_assert_str_eq(lu->sg, "sg0");
	ck_assert_uint_eq(lu_n_partitions(lu), 2);
	ck_assert_ptr_eq(inventory_find(inv, "0:0:0:0"), lu);

	/* The disk goes, its partitions with it. */
	send_uevent(inv, "remove", "block", "disk", DEVPATH0 "/block/sda");
	ck_assert_ptr_null(lu->block);
	ck_assert_uint_eq(lu_n_partitions(lu), 0);
	ck_assert_uint_eq(counts.nodes_changed, 7);
	ck_assert_uint_eq(counts.added + counts.removed + counts.names_changed, 0);
	inventory_free(inv);
}
END_TEST

START_TEST(test_node_event_reprobes)
{
	InventoryHooks hooks = { .lu_added = on_added, .lu_changed = on_changed };
	Inventory *inv = NULL;
	Uevent add = { "add", "scsi", "scsi_device", "/devices/x/host0/target0:0:0/0:0:0:1" };
	Lu *lu;

	/* No cached VPD and no node yet: identification needs SG_IO and has nothing to ask. */
	put_lu("0:0:0:1", 0, NULL, NULL, NULL);
	ck_assert_int_eq(inventory_new(tree.fd, 0, &hooks, NULL, &inv), 0);
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	lu = inventory_find(inv, "0:0:0:1");
	ck_assert_ptr_nonnull(lu);
	ck_assert(lu->probe_no_node);

	/* Its nodes appear; the sg event alone is announced. Instead of taking just that node,
	 * the inventory reads the LU in full to probe it again, and finds the disk too. */
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:1/block/sdb/dev", "8:16\n");
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:1/scsi_generic/sg3/dev", "21:3\n");
	send_uevent(inv, "add", "scsi_generic", NULL,
	            "/devices/x/host0/target0:0:0/0:0:0:1/scsi_generic/sg3");
	ck_assert_str_eq(lu->sg, "sg3");
	ck_assert_str_eq(lu->block, "sdb");
	inventory_free(inv);
}
END_TEST

/* Identifications handed off by the identify hook, run by the test when it chooses. */
static LuIdentifyJob *jobs[16];
static size_t n_jobs;
static unsigned identified;

static int on_identify(Inventory *inv, LuIdentifyJob *job, void *u)
{
	ck_assert_uint_lt(n_jobs, ELEMENTSOF(jobs));
	jobs[n_jobs++] = job;
	return 0;
}

static void on_identified(Inventory *inv, Lu *lu, void *u)
{
	identified++;
}

/* The newest job of @hctl. */
static LuIdentifyJob *job_of(const char *hctl)
{
	for (size_t i = n_jobs; i-- > 0;)
		if (streq(lu_identify_job_hctl(jobs[i]), hctl))
			return jobs[i];
	ck_abort_msg("no job for %s", hctl);
	return NULL;
}

START_TEST(test_identify_off_loop)
{
	InventoryHooks hooks = { .lu_added = on_added,
		                 .lu_changed = on_changed,
		                 .lu_removed = on_removed,
		                 .identify = on_identify,
		                 .lu_identified = on_identified };
	Uevent add = { "add", "scsi", "scsi_device", "/devices/x/host2/target2:0:0/2:0:0:3" };
	Inventory *inv = NULL;
	LuIdentifyJob *a;
	Lu *lu;

	n_jobs = 0;
	identified = 0;
	/* Page 0x00 and 0x80 not cached anywhere: every LU needs commands, none is named yet. */
	ck_assert_int_eq(inventory_new(tree.fd, 0, &hooks, NULL, &inv), 0);
	ck_assert_int_eq(inventory_resync(inv, false), 0);
	ck_assert_uint_eq(counts.added, 3);
	ck_assert_uint_eq(n_jobs, 3);
	ck_assert_uint_eq(inventory_n_identifying(inv), 3);
	lu = inventory_find(inv, "0:0:0:0");
	ck_assert(lu->naming_pending);
	ck_assert_uint_eq(lu->naming.n_names, 0);

	/* Its result arrives: names, once. */
	lu_identify_job_run(job_of("0:0:0:0"));
	ck_assert_int_eq(inventory_identify_done(inv, job_of("0:0:0:0"), 0), 1);
	ck_assert(!lu->naming_pending);
	ck_assert_uint_gt(lu->naming.n_names, 0);
	ck_assert_uint_eq(counts.names_changed, 1);
	ck_assert_uint_eq(identified, 1);
	ck_assert_int_eq(inventory_identify_done(inv, job_of("0:0:0:0"), 0), 0);
	ck_assert_uint_eq(inventory_n_identifying(inv), 2);

	/* Removed while identified: the result is dropped. */
	rm_lu("0:0:1:0");
	ck_assert_int_eq(inventory_refresh(inv, "0:0:1:0", false), 0);
	ck_assert_uint_eq(inventory_n_identifying(inv), 1);
	lu_identify_job_run(job_of("0:0:1:0"));
	ck_assert_int_eq(inventory_identify_done(inv, job_of("0:0:1:0"), 0), 0);
	ck_assert_ptr_null(inventory_find(inv, "0:0:1:0"));

	/* Probed again meanwhile: only the newer identification counts. */
	a = job_of("2:0:0:3");
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	ck_assert_ptr_ne(job_of("2:0:0:3"), a);
	ck_assert_uint_eq(inventory_n_identifying(inv), 1);
	lu_identify_job_run(a);
	ck_assert_int_eq(inventory_identify_done(inv, a, 0), 0);
	ck_assert(inventory_find(inv, "2:0:0:3")->naming_pending);

	/* Past its deadline: unidentified, no names, nothing read of the job. */
	ck_assert_int_eq(inventory_identify_done(inv, job_of("2:0:0:3"), -ETIMEDOUT), 1);
	lu = inventory_find(inv, "2:0:0:3");
	ck_assert(!lu->naming_pending);
	ck_assert_int_eq(lu->naming_error, -ETIMEDOUT);
	ck_assert_uint_eq(inventory_n_identifying(inv), 0);

	/* No node to send a command to: identified from the cache in place, no job. When its
	 * first node appears it is handed off. */
	put_lu("0:0:0:1", 0, NULL, NULL, NULL);
	a = jobs[n_jobs - 1];
	ck_assert_int_eq(inventory_refresh(inv, "0:0:0:1", false), 0);
	lu = inventory_find(inv, "0:0:0:1");
	ck_assert(!lu->naming_pending && lu->probe_no_node);
	ck_assert_ptr_eq(jobs[n_jobs - 1], a);
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:1/scsi_generic/sg3/dev", "21:3\n");
	send_uevent(inv, "add", "scsi_generic", NULL,
	            "/devices/x/host0/target0:0:0/0:0:0:1/scsi_generic/sg3");
	ck_assert_ptr_ne(jobs[n_jobs - 1], a);
	ck_assert(lu->naming_pending);
	ck_assert_uint_eq(inventory_n_identifying(inv), 1);
	lu_identify_job_run(job_of("0:0:0:1"));
	ck_assert_int_eq(inventory_identify_done(inv, job_of("0:0:0:1"), 0), 1);
	ck_assert(!lu->naming_pending);
	ck_assert_uint_eq(inventory_n_identifying(inv), 0);

	inventory_free(inv);
	for (size_t i = 0; i < n_jobs; i++)
		lu_identify_job_free(jobs[i]);
}
END_TEST

/* A device directory @dev below sys/devices with its uevent (DEVTYPE) and subsystem link. */
static void put_dev(const char *dev, const char *subsystem, const char *devtype)
{
	char p[PATH_MAX], q[PATH_MAX], rel[PATH_MAX] = "";

	xsnprintf(p, "%s/uevent", dev);
	xsnprintf(q, "DEVTYPE=%s\n", devtype ?: "");
	check_tree_put_str(&tree, p, devtype ? q : "");
	if (!subsystem)
		return;
	xsnprintf(q, "sys/bus/%s", subsystem);
	check_tree_mkdirs(&tree, q);
	for (const char *c = dev; *c; c++)
		if (*c == '/')
			strcat(rel, "../");
	strcat(rel, "../");
	xsnprintf(p, "%s/subsystem", dev);
	xsnprintf(q, "%ssys/bus/%s", rel, subsystem);
	ck_assert_int_eq(symlinkat(q, tree.fd, p), 0);
}

#define HBA "sys/devices/pci0000:00/0000:00:02.0"

/* @parent_subsystem's HBA with host5, its target and LU 5:0:0:0, sys/bus/scsi/devices' link. */
static void put_hba_lu(const char *hba_subsystem)
{
	put_dev("sys/devices/pci0000:00", NULL, NULL);
	put_dev(HBA, hba_subsystem, NULL);
	put_dev(HBA "/host5", "scsi", "scsi_host");
	put_dev(HBA "/host5/target5:0:0", "scsi", "scsi_target");
	put_dev(HBA "/host5/target5:0:0/5:0:0:0", "scsi", "scsi_device");
	check_tree_mkdirs(&tree, "sys/bus/scsi/devices");
	(void)unlinkat(tree.fd, "sys/bus/scsi/devices/5:0:0:0", 0);
	ck_assert_int_eq(symlinkat("../../../devices/pci0000:00/0000:00:02.0/host5/target5:0:0/"
	                           "5:0:0:0",
	                           tree.fd, "sys/bus/scsi/devices/5:0:0:0"),
	                 0);
	put_lu("5:0:0:0", 0, "sdb", "sg5", PG83(0x55, 0, 0));
}

/* The LU that comes back on the same path below another adapter, after the host and target
 * went, has that adapter's ID_PATH (engine/pathid.h). */
START_TEST(test_path_cache_forgotten)
{
	static const char *const gone[][3] = {
		{ "scsi", "scsi_device",
		  "/devices/pci0000:00/0000:00:02.0/host5/target5:0:0/5:0:0:0" },
		{ "scsi", "scsi_target", "/devices/pci0000:00/0000:00:02.0/host5/target5:0:0" },
		{ "scsi_host", NULL, "/devices/pci0000:00/0000:00:02.0/host5/scsi_host/host5" },
		{ "scsi", "scsi_host", "/devices/pci0000:00/0000:00:02.0/host5" },
	};
	Uevent add = { "add", "scsi", "scsi_device", gone[0][2] };
	Inventory *inv = new_inventory(false);
	Lu *lu;

	put_hba_lu("pci");
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_str_eq(lu->naming.id_path, "pci-0000:00:02.0-scsi-0:0:0:0");

	/* the HBA goes with its host; a platform device takes its path */
	check_tree_rm(&tree, HBA);
	for (size_t i = 0; i < ELEMENTSOF(gone); i++) {
		Uevent ev = { "remove", gone[i][0], gone[i][1], gone[i][2] };

		ck_assert_int_eq(inventory_handle_uevent(inv, &ev, uevent_reactions(&ev)), 0);
	}
	ck_assert_ptr_null(inventory_find(inv, "5:0:0:0"));
	put_hba_lu("platform");
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_str_eq(lu->naming.id_path, "platform-0000:00:02.0-scsi-0:0:0:0");
	inventory_free(inv);
}
END_TEST

/* Resolutions of the LU's sys/bus/scsi/devices link, by hand (udevctx) or by the kernel
 * (path_id: openat2() named through /proc/self/fd): this program's readlinkat() and readlink()
 * come before the C library's. */
static unsigned n_lu_resolved;

/* What reading LU 5:0:0:0 opened of its own directory: the listings of its nodes, the vendor,
 * model and rev attributes, and path_id's reads of the LU itself (its "uevent",
 * "ieee1394_id" and "subsystem" link). */
static struct {
	unsigned nodes, strings, self, inquiry, type;
} lu5_reads;

static int lu5_dirfd = -1;

static void lu5_note(const char *path)
{
	static const char *const nodes[] = { "/scsi_generic", "/block", "/bsg", "/scsi_tape" };
	static const char *const strings[] = { "/vendor", "/model", "/rev" };
	static const char *const self[] = { "/uevent", "/ieee1394_id", "/subsystem" };
	const char *t = strstr(path, "5:0:0:0");

	if (!t)
		return;
	t += strlen("5:0:0:0");
	if (t[0] != '/' || strchr(t + 1, '/'))
		return; /* not an entry of the LU's own directory */
	for (size_t i = 0; i < ELEMENTSOF(nodes); i++)
		lu5_reads.nodes += streq(t, nodes[i]);
	for (size_t i = 0; i < ELEMENTSOF(strings); i++)
		lu5_reads.strings += streq(t, strings[i]);
	for (size_t i = 0; i < ELEMENTSOF(self); i++)
		lu5_reads.self += streq(t, self[i]);
	lu5_reads.inquiry += streq(t, "/inquiry");
	lu5_reads.type += streq(t, "/type");
}

int openat(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	int fd;

	if (dfd >= 0 && dfd == lu5_dirfd) {
		char p[PATH_MAX];

		xsnprintf(p, "5:0:0:0/%s", path);
		lu5_note(p);
	} else
		lu5_note(path);
	fd = (int)syscall(SYS_openat, dfd, path, flags, mode);
	/* the LU's directory, its attributes opened relative to it */
	if (fd >= 0 && (flags & O_PATH) && strlen(path) >= strlen("5:0:0:0") &&
	    streq(path + strlen(path) - strlen("5:0:0:0"), "5:0:0:0"))
		lu5_dirfd = fd;
	return fd;
}

ssize_t readlinkat(int dfd, const char *path, char *buf, size_t size)
{
	if (streq(path, "sys/bus/scsi/devices/5:0:0:0"))
		n_lu_resolved++;
	lu5_note(path);
	return syscall(SYS_readlinkat, dfd, path, buf, size);
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
	if (strneq(path, "/proc/self/fd/", strlen("/proc/self/fd/")))
		n_lu_resolved++;
	return syscall(SYS_readlinkat, AT_FDCWD, path, buf, size);
}

/* An LU's add uevent names its directory: identification takes it from there and resolves
 * nothing, with the names that resolving gives. */
START_TEST(test_add_devpath)
{
	Uevent add = { "add", "scsi", "scsi_device",
		       "/devices/pci0000:00/0000:00:02.0/host5/target5:0:0/5:0:0:0" };
	Inventory *inv = new_inventory(false);
	_cleanup_free_ char *id_path = NULL;
	Lu *lu;

	put_hba_lu("pci");
	n_lu_resolved = 0;
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	ck_assert_uint_eq(n_lu_resolved, 0);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_int_eq(lu->naming_error, 0);
	/* its attributes (state at a driver's bind, the error counters, policy) are read from
	 * there later as well, not through the bus's symlink */
	ck_assert_str_eq(lu->syspath,
	                 "sys/devices/pci0000:00/0000:00:02.0/host5/target5:0:0/5:0:0:0");
	id_path = strdup(lu->naming.id_path);
	ck_assert_str_eq(id_path, "pci-0000:00:02.0-scsi-0:0:0:0");
	send_uevent(inv, "remove", "scsi", "scsi_device", add.devpath);
	ck_assert_ptr_null(inventory_find(inv, "5:0:0:0"));

	/* without the uevent (a resync): resolved, the same names */
	ck_assert_int_eq(inventory_refresh(inv, "5:0:0:0", true), 0);
	ck_assert_uint_gt(n_lu_resolved, 0);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_str_eq(lu->naming.id_path, id_path);
	ck_assert_str_eq(lu->syspath, "sys/bus/scsi/devices/5:0:0:0");
	inventory_free(inv);
}
END_TEST

/* Lu.identified as the identify hooks see it at the end of an identification. */
static bool identified_in_hook;

static void on_identified_note(Inventory *inv, Lu *lu, void *u)
{
	identified++;
	identified_in_hook = lu->identified;
}

/*
 * inventory_identify_off_loop(): the kernel's add of an LU whose pages the kernel cached goes to
 * the identify hook as well, and its result is what identifying it in place gives; the LUs a
 * resync finds and a replayed add are identified in place still. Lu.identified is false while
 * the hooks of its first identification's end run, true afterwards and across a refresh.
 */
START_TEST(test_identify_cached_off_loop)
{
	Uevent add = { "add", "scsi", "scsi_device",
		       "/devices/pci0000:00/0000:00:02.0/host5/target5:0:0/5:0:0:0" };
	InventoryHooks hooks = { .lu_added = on_added,
		                 .lu_changed = on_changed,
		                 .lu_removed = on_removed,
		                 .identify = on_identify,
		                 .lu_identified = on_identified_note };
	Uevent add0 = { "add", "scsi", "scsi_device", NULL };
	Inventory *inv = NULL;
	size_t n;
	Lu *lu;

	static const uint8_t pg0[] = { 0x00, 0x00, 0x00, 0x02, 0x00, 0x83 };

	/* Page 0x00 says 0x83 is all there is: the kernel cached everything there is to read. */
	put_hba_lu("pci");
	check_tree_put(&tree, "sys/bus/scsi/devices/5:0:0:0/vpd_pg0", pg0, sizeof(pg0));
	n_jobs = 0;
	identified = 0;
	ck_assert_int_eq(inventory_new(tree.fd, 0, &hooks, NULL, &inv), 0);
	inventory_identify_off_loop(inv, true);

	/* A resync: the cached LU in place, the three the kernel cached too little of (no page
	 * 0x00 or 0x80) handed off as ever. */
	ck_assert_int_eq(inventory_resync(inv, false), 0);
	ck_assert_uint_eq(n_jobs, 3);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert(!lu->naming_pending && lu->identified);
	ck_assert_str_eq(lu->naming.wwn, "0x5001405f12345655");

	/* The kernel's add: handed off, no names until its result. */
	send_uevent(inv, "remove", "scsi", "scsi_device", add.devpath);
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	ck_assert_uint_eq(n_jobs, 4);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert(lu->naming_pending && !lu->identified);
	ck_assert_uint_eq(lu->naming.n_names, 0);
	ck_assert_uint_eq(inventory_n_identifying(inv), 4);
	/* What describes it is read with its identification, not at its add. */
	ck_assert(lu->info_pending);
	ck_assert_ptr_null(lu->vendor);
	ck_assert_ptr_null(lu->state);
	ck_assert_uint_eq(lu->scsi_level, 0);
	ck_assert_int_eq(lu->type, -1);
	counts = (Counts){};
	lu_identify_job_run(job_of("5:0:0:0"));
	ck_assert_int_eq(inventory_identify_done(inv, job_of("5:0:0:0"), 0), 1);
	ck_assert(!lu->info_pending);
	ck_assert_str_eq(lu->vendor, "QEMU");
	ck_assert_str_eq(lu->model, "QEMU HARDDISK");
	ck_assert_str_eq(lu->revision, "2.5+");
	ck_assert_uint_eq(lu->scsi_level, 7);
	ck_assert_int_eq(lu->type, 0);
	/* one change: the names and what describes it */
	ck_assert_uint_eq(counts.changed, 1);
	ck_assert_uint_eq(counts.last_what, LU_CHANGE_NAMES | LU_CHANGE_INFO | LU_CHANGE_PRODUCT);
	ck_assert_uint_eq(identified, 1);
	ck_assert(!identified_in_hook);
	ck_assert(!lu->naming_pending && lu->identified);
	ck_assert_int_eq(lu->naming_error, 0);
	ck_assert_uint_eq(lu->probe_commands, 0);
	ck_assert_str_eq(lu->naming.wwn, "0x5001405f12345655");
	ck_assert_str_eq(lu->naming.id_path, "pci-0000:00:02.0-scsi-0:0:0:0");
	ck_assert_uint_eq(inventory_n_identifying(inv), 3);

	/* Its nodes: a refresh that keeps its identity, and that it was identified. */
	send_uevent(inv, "add", "scsi_generic", NULL,
	            "/devices/pci0000:00/0000:00:02.0/host5/target5:0:0/5:0:0:0/scsi_generic/sg5");
	ck_assert_str_eq(lu->sg, "sg5");
	ck_assert(lu->identified && !lu->naming_pending);
	ck_assert_int_eq(inventory_refresh(inv, "5:0:0:0", false), 0);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert(lu->identified && !lu->naming_pending);
	ck_assert_str_eq(lu->naming.wwn, "0x5001405f12345655");
	ck_assert_uint_eq(n_jobs, 4);

	/* The kernel's add of an LU it cached too little of (no page 0x00): the cache's job
	 * finds that out, and hands the LU on to a job that may send commands. */
	send_uevent(inv, "remove", "scsi", "scsi_device", DEVPATH0);
	check_tree_mkdirs(&tree, "sys/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:0");
	ck_assert_int_eq(
	        symlinkat("../../../../../../bus/scsi/devices/0:0:0:0", tree.fd, "sys" DEVPATH0),
	        0);
	add0.devpath = DEVPATH0;
	ck_assert_int_eq(inventory_handle_uevent(inv, &add0, uevent_reactions(&add0)), 0);
	lu = inventory_find(inv, "0:0:0:0");
	ck_assert(lu->naming_pending && lu->info_pending);
	ck_assert(lu_identify_job_cache_only(job_of("0:0:0:0")));
	n = n_jobs;
	lu_identify_job_run(job_of("0:0:0:0"));
	ck_assert_int_eq(inventory_identify_done(inv, job_of("0:0:0:0"), 0), 1);
	ck_assert_uint_eq(n_jobs, n + 1);
	ck_assert(!lu_identify_job_cache_only(job_of("0:0:0:0")));
	ck_assert(lu->naming_pending && !lu->identified);
	/* what describes it came with the cache's job */
	ck_assert(!lu->info_pending);
	ck_assert_str_eq(lu->vendor, "QEMU");
	ck_assert_uint_eq(identified, 1);
	ck_assert_int_eq(inventory_identify_done(inv, jobs[n - 1], 0), 0); /* the old token's */
	/* That job has no node to ask; the LU's first node comes while it runs, and its result
	 * hands the LU on once more, to ask through the node. */
	send_uevent(inv, "add", "scsi_generic", NULL, DEVPATH0 "/scsi_generic/sg0");
	ck_assert_str_eq(lu->sg, "sg0");
	lu_identify_job_run(job_of("0:0:0:0"));
	ck_assert_int_eq(inventory_identify_done(inv, job_of("0:0:0:0"), 0), 1);
	ck_assert_uint_eq(n_jobs, n + 2);
	ck_assert(lu->naming_pending && !lu->identified);
	lu_identify_job_run(job_of("0:0:0:0"));
	ck_assert_int_eq(inventory_identify_done(inv, job_of("0:0:0:0"), 0), 1);
	ck_assert_uint_eq(n_jobs, n + 2);
	ck_assert(!lu->naming_pending && lu->identified);
	ck_assert_uint_eq(identified, 2);

	/* Replayed through sysfs (udevadm trigger): in place. */
	n = n_jobs;
	send_uevent(inv, "remove", "scsi", "scsi_device", add.devpath);
	add.synthetic = true;
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	ck_assert_uint_eq(n_jobs, n);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert(!lu->naming_pending && lu->identified);
	ck_assert_str_eq(lu->naming.wwn, "0x5001405f12345655");

	/* Gone between its add and its identification: the result finds no directory, reads
	 * the LU as a resync would, and that removes it. */
	send_uevent(inv, "remove", "scsi", "scsi_device", DEVPATH0);
	ck_assert_int_eq(inventory_handle_uevent(inv, &add0, uevent_reactions(&add0)), 0);
	lu = inventory_find(inv, "0:0:0:0");
	ck_assert(lu->naming_pending && lu->info_pending);
	n = inventory_n_identifying(inv);
	ck_assert_int_eq(unlinkat(tree.fd, "sys" DEVPATH0, 0), 0);
	counts = (Counts){};
	lu_identify_job_run(job_of("0:0:0:0"));
	ck_assert_int_eq(inventory_identify_done(inv, job_of("0:0:0:0"), 0), 1);
	lu = inventory_find(inv, "0:0:0:0");
	/* the bus's entry is still there in this tree: read from it, and handed on to a job
	 * that may send commands (the kernel cached no page 0x00 of it) */
	ck_assert_ptr_nonnull(lu);
	ck_assert(!lu->info_pending);
	ck_assert_str_eq(lu->vendor, "QEMU");
	ck_assert(lu->naming_pending && !lu_identify_job_cache_only(job_of("0:0:0:0")));
	ck_assert_uint_eq(inventory_n_identifying(inv), n);
	ck_assert_uint_eq(counts.removed, 0);
	rm_lu("0:0:0:0");
	send_uevent(inv, "remove", "scsi", "scsi_device", DEVPATH0);
	ck_assert_int_eq(inventory_handle_uevent(inv, &add0, uevent_reactions(&add0)), 0);
	ck_assert_ptr_nonnull(inventory_find(inv, "0:0:0:0"));
	n = inventory_n_identifying(inv) - 1;
	counts = (Counts){};
	lu_identify_job_run(job_of("0:0:0:0"));
	ck_assert_int_eq(inventory_identify_done(inv, job_of("0:0:0:0"), 0), 1);
	ck_assert_ptr_null(inventory_find(inv, "0:0:0:0"));
	ck_assert_uint_eq(counts.removed, 1);
	ck_assert_uint_eq(inventory_n_identifying(inv), n);

	inventory_free(inv);
	for (size_t i = 0; i < n_jobs; i++)
		lu_identify_job_free(jobs[i]);
	check_tree_rm(&tree, "sys/bus/scsi/devices/5:0:0:0/vpd_pg0");
}
END_TEST

/*
 * The kernel's add of a new LU: its nodes are not looked up (their own add uevents follow and
 * name them), vendor, model and revision come from the INQUIRY data identification reads, and
 * path_id knows the LU is a SCSI device of no FireWire host: none of those files is opened.
 * A replayed add (udevadm trigger: no node events follow) reads the nodes, and so does an add
 * whose pages the kernel did not cache, since identifying it takes a command on a node.
 */
START_TEST(test_add_reads)
{
	Uevent add = { "add", "scsi", "scsi_device",
		       "/devices/pci0000:00/0000:00:02.0/host5/target5:0:0/5:0:0:0" };
	InventoryHooks hooks = { .lu_added = on_added };
	Inventory *inv = new_inventory(false), *inv2 = NULL;
	Lu *lu;

	put_hba_lu("pci");
	memset(&lu5_reads, 0, sizeof(lu5_reads));
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_int_eq(lu->naming_error, 0);
	ck_assert_str_eq(lu->naming.id_path, "pci-0000:00:02.0-scsi-0:0:0:0");
	ck_assert_str_eq(lu->naming.wwn, "0x5001405f12345655");
	ck_assert_str_eq(lu->vendor, "QEMU");
	ck_assert_str_eq(lu->model, "QEMU HARDDISK");
	ck_assert_str_eq(lu->revision, "2.5+");
	ck_assert_ptr_null(lu->block);
	ck_assert_ptr_null(lu->sg);
	ck_assert_uint_eq(lu5_reads.nodes, 0);
	ck_assert_uint_eq(lu5_reads.strings, 0);
	ck_assert_uint_eq(lu5_reads.self, 0);
	ck_assert_uint_eq(lu5_reads.inquiry, 1);
	ck_assert_uint_eq(lu5_reads.type, 1);
	ck_assert_int_eq(lu->type, 0);
	send_uevent(inv, "add", "scsi_generic", NULL,
	            "/devices/pci0000:00/0000:00:02.0/host5/"
	            "target5:0:0/5:0:0:0/scsi_generic/sg5");
	send_uevent(inv, "add", "block", "disk",
	            "/devices/pci0000:00/0000:00:02.0/host5/target5:0:0/5:0:0:0/block/sdb");
	ck_assert_str_eq(lu->sg, "sg5");
	ck_assert_str_eq(lu->block, "sdb");

	/* the type from the kernel's MODALIAS when the add carries one (a CD-ROM's, to tell it
	 * from the attribute's 0), the attribute when it is not the kernel's form */
	send_uevent(inv, "remove", "scsi", "scsi_device", add.devpath);
	add.modalias = "scsi:t-0x05";
	memset(&lu5_reads, 0, sizeof(lu5_reads));
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert_int_eq(lu->type, 5);
	ck_assert_uint_eq(lu5_reads.type, 0);
	send_uevent(inv, "remove", "scsi", "scsi_device", add.devpath);
	add.modalias = "scsi:t-0x5";
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert_int_eq(lu->type, 0);
	ck_assert_uint_eq(lu5_reads.type, 1);
	add.modalias = NULL;

	/* replayed through sysfs */
	send_uevent(inv, "remove", "scsi", "scsi_device", add.devpath);
	add.synthetic = true;
	ck_assert_int_eq(inventory_handle_uevent(inv, &add, uevent_reactions(&add)), 0);
	lu = inventory_find(inv, "5:0:0:0");
	ck_assert_str_eq(lu->sg, "sg5");
	ck_assert_str_eq(lu->block, "sdb");
	ck_assert_str_eq(lu->naming.wwn, "0x5001405f12345655");
	inventory_free(inv);

	/* no page 0x83 cached: commands, so nodes */
	check_tree_rm(&tree, "sys/bus/scsi/devices/5:0:0:0/vpd_pg83");
	add.synthetic = false;
	ck_assert_int_eq(inventory_new(tree.fd, 0, &hooks, NULL, &inv2), 0);
	ck_assert_int_eq(inventory_handle_uevent(inv2, &add, uevent_reactions(&add)), 0);
	lu = inventory_find(inv2, "5:0:0:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_str_eq(lu->sg, "sg5");
	ck_assert_str_eq(lu->block, "sdb");
	inventory_free(inv2);
}
END_TEST

/* vendor, model and rev are the attributes when the INQUIRY data is too short to hold them (the
 * kernel keeps 36 bytes at least: another kernel, or none). */
START_TEST(test_short_inquiry)
{
	static const uint8_t inq[5] = { 0, 0, 6, 2, 0 };
	Inventory *inv;
	Lu *lu;

	check_tree_put(&tree, "sys/bus/scsi/devices/0:0:0:0/inquiry", inq, sizeof(inq));
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/vendor", "ATTR    \n");
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/rev", "0001\n");
	inv = new_inventory(false);
	lu = inventory_find(inv, "0:0:0:0");
	ck_assert_str_eq(lu->vendor, "ATTR");
	ck_assert_str_eq(lu->model, "QEMU HARDDISK");
	ck_assert_str_eq(lu->revision, "0001");
	/* the others' from their 36 bytes */
	ck_assert_str_eq(inventory_find(inv, "0:0:1:0")->revision, "2.5+");
	inventory_free(inv);
}
END_TEST

START_TEST(test_driver_events)
{
	Inventory *inv = new_inventory(false);
	Lu *lu = inventory_find(inv, "0:0:0:0");

	/* bind/unbind re-read the state only; the nodes come with events of their own. */
	send_uevent(inv, "bind", "scsi", "scsi_device", DEVPATH0);
	ck_assert_uint_eq(counts.changed, 0);
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/state", "offline\n");
	rm_lu("0:0:0:0/scsi_generic");
	send_uevent(inv, "unbind", "scsi", "scsi_device", DEVPATH0);
	ck_assert_uint_eq(counts.changed, 1);
	ck_assert_uint_eq(counts.nodes_changed, 0);
	ck_assert_str_eq(lu->state, "offline");
	ck_assert_str_eq(lu->sg, "sg0");

	/* A bind of an LU sysfs no longer has removes it. */
	rm_lu("0:0:0:0");
	send_uevent(inv, "bind", "scsi", "scsi_device", DEVPATH0);
	ck_assert_uint_eq(counts.removed, 1);
	ck_assert_ptr_null(inventory_find(inv, "0:0:0:0"));
	inventory_free(inv);
}
END_TEST

/* Many LUs, added and removed in no particular order: each is found by its H:C:T:L, and they
 * are iterated in H:C:T:L order. */
START_TEST(test_many_lus)
{
	Inventory *inv = new_inventory(false);
	char hctl[64];
	unsigned n = 0;
	Lu *lu, *prev = NULL;

	/* LUNs of target 3:0:1 descending, then interleaved ascending over three targets: enough
	 * to grow the index a few times. */
	for (unsigned l = 40; l-- > 0;) {
		xsnprintf(hctl, "3:0:1:%u", l);
		put_lu(hctl, 0x0d, NULL, NULL, NULL);
		ck_assert_int_eq(inventory_refresh(inv, hctl, false), 0);
	}
	for (unsigned l = 0; l < 120; l++) {
		xsnprintf(hctl, "%u:0:%u:%u", 4 + l % 2, l % 3, l);
		put_lu(hctl, 0x0d, NULL, NULL, NULL);
		ck_assert_int_eq(inventory_refresh(inv, hctl, false), 0);
	}
	ck_assert_uint_eq(inventory_n_lus(inv), 3 + 160);

	for (unsigned l = 0; l < 120; l += 3) {
		xsnprintf(hctl, "%u:0:%u:%u", 4 + l % 2, l % 3, l);
		ck_assert_int_eq(inventory_remove(inv, hctl), 1);
	}
	for (unsigned l = 0; l < 40; l += 2) {
		xsnprintf(hctl, "3:0:1:%u", l);
		ck_assert_int_eq(inventory_remove(inv, hctl), 1);
		ck_assert_int_eq(inventory_remove(inv, hctl), 0);
	}
	ck_assert_uint_eq(inventory_n_lus(inv), 3 + 160 - 40 - 20);

	for (unsigned l = 0; l < 120; l++) {
		xsnprintf(hctl, "%u:0:%u:%u", 4 + l % 2, l % 3, l);
		lu = inventory_find(inv, hctl);
		if (l % 3 == 0)
			ck_assert_ptr_null(lu);
		else {
			ck_assert_msg(lu != NULL, "%s lost", hctl);
			ck_assert_str_eq(lu->hctl, hctl);
		}
	}
	for (unsigned l = 0; l < 40; l++) {
		xsnprintf(hctl, "3:0:1:%u", l);
		ck_assert((inventory_find(inv, hctl) != NULL) == (l % 2 == 1));
	}
	ck_assert_ptr_nonnull(inventory_find(inv, "0:0:0:0"));
	ck_assert_ptr_nonnull(inventory_find(inv, "2:0:0:3"));

	for (lu = inventory_first_lu(inv); lu; prev = lu, lu = inventory_next_lu(lu), n++) {
		const Target *a = prev ? prev->target : NULL, *b = lu->target;

		ck_assert(!a || a->host->number < b->host->number ||
		          (a->host->number == b->host->number &&
		           (a->channel < b->channel ||
		            (a->channel == b->channel &&
		             (a->id < b->id || (a->id == b->id && prev->lun < lu->lun))))));
	}
	ck_assert_uint_eq(n, inventory_n_lus(inv));

	/* Re-adding goes to its place again. */
	ck_assert_int_eq(inventory_refresh(inv, "3:0:1:0", false), 0);
	ck_assert_ptr_eq(inventory_first_lu(inv)->next, NULL); /* 0:0:0:0 alone in its target */
	lu = inventory_find(inv, "3:0:1:0");
	ck_assert_ptr_nonnull(lu);
	ck_assert_uint_eq(lu->next->lun, 1);
	inventory_free(inv);
}
END_TEST

START_TEST(test_ua_names)
{
	ck_assert_int_eq(lu_unit_attention_from_string("CAPACITY_DATA_HAS_CHANGED"),
	                 LU_UA_CAPACITY_CHANGED);
	ck_assert_int_eq(lu_unit_attention_from_string("SOMETHING_NEW"), LU_UA_OTHER);
	ck_assert_int_eq(lu_unit_attention_from_string(NULL), _LU_UA_INVALID);
	for (LuUnitAttention i = 0; i < _LU_UA_MAX; i++)
		ck_assert_ptr_nonnull(lu_unit_attention_to_string(i));
}
END_TEST

static Suite *inventory_suite(void)
{
	Suite *s = suite_create("inventory");
	TCase *tc = tcase_create("inventory");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_initial);
	tcase_add_loop_test(tc, test_resync_steps, 0, 8);
	tcase_add_test(tc, test_ua_left);
	tcase_add_test(tc, test_rare_fields);
	tcase_add_test(tc, test_unit_serial);
	tcase_add_test(tc, test_path_keys);
	tcase_add_test(tc, test_pages_kept);
	CHECK_ADD_LOOP(tc, test_uevent, uevent_cases);
	tcase_add_test(tc, test_node_events);
	tcase_add_test(tc, test_node_event_reprobes);
	tcase_add_test(tc, test_identify_off_loop);
	tcase_add_test(tc, test_identify_cached_off_loop);
	tcase_add_test(tc, test_path_cache_forgotten);
	tcase_add_test(tc, test_add_devpath);
	tcase_add_test(tc, test_add_reads);
	tcase_add_test(tc, test_short_inquiry);
	tcase_add_test(tc, test_driver_events);
	tcase_add_test(tc, test_many_lus);
	tcase_add_test(tc, test_ua_names);
	tcase_add_test(tc, test_rescan_deferred);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(inventory_suite)
