/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * dm-multipath takes an LU's paths and gives them back (lund(8), PATHS), driven by uevents.
 *
 * The daemon's manager runs in this process on a fake sysfs tree (as rescan-write does) with
 * one LU seen through two paths: the same NAA LU designator, a relative target port each, so
 * two SCSI devices (sdb, sdc) that are paths of one LU. lund's by-id names and /dev/disk/by-id
 * point at the lowest path. Then a dm-multipath map (dm-3, uuid mpath-<wwid>) is stacked on
 * both, as the kernel shows it (holders/ of each path, slaves/ of the map), and its "change"
 * uevent is handled: the names must move to the map, the hand-over be logged, and `lunctl
 * list`'s JSON show the map for both paths with the names "linked". The map goes (holders
 * removed, "remove" uevent): the names go back to the lowest path. A manager started while
 * the map exists names the map at once. Events for other block devices change nothing.
 */

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "check-util.h"
#include "macro.h"
#include "manager-test.h"

#define WWID "35000c500deadbe01"

static int failures;
static CheckTree tree;

/* Every expectation is reported, failed or not; the test fails at its end if any did. */
static void check(int cond, const char *what)
{
	printf("%s: %s\n", cond ? "ok" : "FAIL", what);
	fflush(stdout);
	if (!cond)
		failures++;
}

static void link_to(const char *target, const char *rel)
{
	char dir[PATH_MAX];

	xsnprintf(dir, "%.*s", (int)(strrchr(rel, '/') - rel), rel);
	check_tree_mkdirs(&tree, dir);
	ck_assert_msg(symlinkat(target, tree.fd, rel) == 0, "symlink %s: %m", rel);
}

/* One path: H:C:T:L @hctl, disk @disk with @devno, relative target port @port. */
static void path(const char *hctl, const char *disk, const char *devno, uint8_t port)
{
	/* SPC-6 7.7.6: an NAA designator of the LU (association 0) and a relative target port
	 * (association 1, designator type 4). */
	uint8_t pg83[4 + 12 + 8] = {
		0x00, 0x83, 0x00, 20,   0x01, 0x03, 0x00, 0x08, 0x50, 0x00, 0xc5, 0x00,
		0xde, 0xad, 0xbe, 0x01, 0x01, 0x14, 0x00, 0x04, 0x00, 0x00, 0x00, port,
	};
	char p[PATH_MAX], d[64];

	check_tree_put_lu(&tree, &(CheckLu){ .hctl = hctl,
	                                     .scsi_level = 7,
	                                     .vendor = "FAKE",
	                                     .model = "DISK",
	                                     .rev = "0001",
	                                     .inquiry = true,
	                                     .block = { disk, devno },
	                                     .attrs = { { "vpd_pg83", .data = pg83,
	                                                  .len = sizeof(pg83) } } });
	xsnprintf(p, "../../bus/scsi/devices/%s/block/%s", hctl, disk);
	xsnprintf(d, "sys/class/block/%s", disk);
	link_to(p, d);
}

static void map_add(void)
{
	check_tree_put_str(&tree, "sys/devices/virtual/block/dm-3/dev", "253:3\n");
	check_tree_put_str(&tree, "sys/devices/virtual/block/dm-3/dm/uuid", "mpath-" WWID "\n");
	check_tree_put_str(&tree, "sys/devices/virtual/block/dm-3/dm/name", "mpatha\n");
	link_to("../../devices/virtual/block/dm-3", "sys/class/block/dm-3");
	link_to("../../sdb", "sys/devices/virtual/block/dm-3/slaves/sdb");
	link_to("../../sdc", "sys/devices/virtual/block/dm-3/slaves/sdc");
	link_to("../../dm-3", "sys/class/block/sdb/holders/dm-3");
	link_to("../../dm-3", "sys/class/block/sdc/holders/dm-3");
}

static void map_remove(void)
{
	check_tree_rm(&tree, "sys/class/block/dm-3");
	check_tree_rm(&tree, "sys/devices/virtual/block/dm-3");
	check_tree_rm(&tree, "sys/class/block/sdb/holders/dm-3");
	check_tree_rm(&tree, "sys/class/block/sdc/holders/dm-3");
}

#define readlink_rel(rel) manager_test_readlink(&tree, rel)
#define log_has(needle)   manager_test_log_has(needle)

static void expect_link(const char *rel, const char *want, const char *when)
{
	char what[PATH_MAX + 512];
	const char *got = readlink_rel(rel);

	snprintf(what, sizeof(what), "%s: /%s -> %s (want %s)", when, rel, got, want);
	check(streq(got, want), what);
}

static void run_loop(sd_event *e)
{
	for (int i = 0; i < 10; i++)
		(void)sd_event_run(e, 20 * 1000);
}

static Manager *start(const ManagerConfig *config)
{
	Manager *m = NULL;
	int r = manager_new(config, &m);

	if (r >= 0)
		r = manager_start(m);
	check(r >= 0, "the manager starts on the fake tree");
	if (r < 0)
		exit(1);
	return m;
}

static void handle(Manager *m, sd_event *e, const char *action, const char *devpath)
{
	Uevent ev = {
		.action = action,
		.subsystem = "block",
		.devtype = "disk",
		.devpath = devpath,
	};

	manager_handle_uevent(m, &ev);
	run_loop(e);
}

START_TEST(test_handover)
{
	static const char *const sets[] = { "dev/scsi/by-id/scsi-" WWID,
		                            "dev/disk/by-id/scsi-" WWID,
		                            "dev/disk/by-id/wwn-0x5000c500deadbe01" };
	char run_dir[PATH_MAX];
	ManagerConfig config = {};
	Manager *m;
	sd_event *e = NULL;

	check_tree_new(&tree, "mpath-handover");
	path("1:0:0:0", "sdc", "8:32\n", 2);
	path("0:0:0:0", "sdb", "8:16\n", 1);
	manager_test_log_to(&tree);
	config = manager_test_config(&tree, run_dir);
	config.disk_link_dir = "dev/disk/by-id";
	m = start(&config);
	ck_assert_int_ge(sd_event_default(&e), 0);
	run_loop(e);
	for (size_t i = 0; i < ELEMENTSOF(sets); i++)
		expect_link(sets[i], "../../sdb", "two paths, no map");

	/* multipathd sets the map up: add (no table yet), then change once it is resumed. */
	handle(m, e, "add", "/devices/virtual/block/dm-3");
	map_add();
	/* an event of another block device says nothing about the map */
	handle(m, e, "change", "/devices/virtual/block/loop0");
	expect_link(sets[0], "../../sdb", "before the map's change event");
	handle(m, e, "change", "/devices/virtual/block/dm-3");
	for (size_t i = 0; i < ELEMENTSOF(sets); i++)
		expect_link(sets[i], "../../dm-3", "map dm-3 holds both paths");
	check(log_has("is a path of dm-multipath map /dev/dm-3 (mpath-" WWID ")"),
	      "the hand-over to the map is logged for each path");
	check(log_has("/dev/sdc is a path of dm-multipath map"), "for the second path too");
	manager_free(m);
	e = sd_event_unref(e);

	/* Started while the map exists: the names are the map's from the start. */
	m = start(&config);
	ck_assert_int_ge(sd_event_default(&e), 0);
	run_loop(e);
	for (size_t i = 0; i < ELEMENTSOF(sets); i++)
		expect_link(sets[i], "../../dm-3", "started with the map in place");

	/* multipath -f: the map goes, the paths are free again. */
	map_remove();
	handle(m, e, "remove", "/devices/virtual/block/dm-3");
	for (size_t i = 0; i < ELEMENTSOF(sets); i++)
		expect_link(sets[i], "../../sdb", "map removed");
	check(log_has("/dev/sdb is no longer held by dm-multipath map /dev/dm-3"),
	      "the hand-back is logged");
	manager_free(m);
	sd_event_unref(e);
	ck_assert_int_eq(failures, 0);
	check_tree_remove(&tree);
}
END_TEST

static Suite *mpath_handover_suite(void)
{
	Suite *s = suite_create("mpath-handover");
	TCase *tc = tcase_create("handover");

	tcase_add_test(tc, test_handover);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(mpath_handover_suite)
