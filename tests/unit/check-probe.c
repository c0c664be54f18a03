/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * probe_resolve_full() (engine/probe.h) on a fake sysfs tree laid out as Linux 6.1 lays out a
 * virtio-scsi disk and a CD-ROM: the LU a device node's sys/dev link names, read from the link
 * alone, is the LU the general resolution (H:C:T:L, the node's "device" link, the class
 * listings) finds; links of any other shape take the general way.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "macro.h"
#include "probe.h"

static CheckTree tree;

#define HBA  "devices/pci0000:00/0000:00:03.0/virtio1/host2"
#define DISK HBA "/target2:0:0/2:0:0:0"
#define CD   HBA "/target2:0:2/2:0:2:0"

/* A symlink at @link (below the root) with the target @target as given. */
static void tree_link(const char *target, const char *link)
{
	char dir[4096];
	const char *slash = strrchr(link, '/');

	if (slash) {
		xsnprintf(dir, "%.*s", (int)(slash - link), link);
		check_tree_mkdirs(&tree, dir);
	}
	ck_assert_msg(symlinkat(target, tree.fd, link) == 0, "symlink %s: %m", link);
}

static void setup(void)
{
	check_tree_new(&tree, "check-probe");
	/* the disk: sda (one partition), sg0 */
	check_tree_put_str(&tree, "sys/" DISK "/uevent", "DEVTYPE=scsi_device\n");
	check_tree_put_str(&tree, "sys/" DISK "/block/sda/uevent", "DEVTYPE=disk\n");
	check_tree_put_str(&tree, "sys/" DISK "/block/sda/sda1/uevent", "DEVTYPE=partition\n");
	check_tree_put_str(&tree, "sys/" DISK "/scsi_generic/sg0/uevent", "");
	tree_link("../../../" DISK, "sys/bus/scsi/devices/2:0:0:0");
	tree_link("../../" DISK "/block/sda", "sys/dev/block/8:0");
	tree_link("../../" DISK "/block/sda/sda1", "sys/dev/block/8:1");
	tree_link("../../" DISK "/scsi_generic/sg0", "sys/dev/char/21:0");
	tree_link("../../../2:0:0:0", "sys/" DISK "/block/sda/device");
	tree_link("../../../2:0:0:0", "sys/" DISK "/scsi_generic/sg0/device");
	/* the CD-ROM: sr0, sg1 */
	check_tree_put_str(&tree, "sys/" CD "/uevent", "DEVTYPE=scsi_device\n");
	check_tree_put_str(&tree, "sys/" CD "/block/sr0/uevent", "DEVTYPE=disk\n");
	check_tree_put_str(&tree, "sys/" CD "/scsi_generic/sg1/uevent", "");
	tree_link("../../../" CD, "sys/bus/scsi/devices/2:0:2:0");
	tree_link("../../" CD "/block/sr0", "sys/dev/block/11:0");
	tree_link("../../" CD "/scsi_generic/sg1", "sys/dev/char/21:1");
	tree_link("../../../2:0:2:0", "sys/" CD "/block/sr0/device");
	tree_link("../../../2:0:2:0", "sys/" CD "/scsi_generic/sg1/device");
	/* not SCSI: a virtio-blk disk and a loop device */
	check_tree_put_str(&tree, "sys/devices/pci0000:00/0000:00:04.0/virtio2/block/vda/uevent",
	                   "DEVTYPE=disk\n");
	tree_link("../../devices/pci0000:00/0000:00:04.0/virtio2/block/vda", "sys/dev/block/254:0");
	check_tree_put_str(&tree, "sys/devices/virtual/block/loop0/uevent", "DEVTYPE=disk\n");
	tree_link("../../devices/virtual/block/loop0", "sys/dev/block/7:0");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static const struct {
	const char *arg;
	const char *hctl, *block, *sg;
	bool devpath; /* found from the link alone */
} cases[] = {
	{ "2:0:0:0", "2:0:0:0", "sda", "sg0", false },
	{ "/sys/dev/block/8:0", "2:0:0:0", "sda", "sg0", true },
	{ "/sys/dev/block/8:1", "2:0:0:0", "sda", "sg0", true },
	{ "/sys/dev/char/21:0", "2:0:0:0", "sda", "sg0", true },
	{ "/sys/bus/scsi/devices/2:0:0:0", "2:0:0:0", "sda", "sg0", false },
	{ "/sys/" DISK "/block/sda", "2:0:0:0", "sda", "sg0", false },
	{ "2:0:2:0", "2:0:2:0", "sr0", "sg1", false },
	{ "/sys/dev/block/11:0", "2:0:2:0", "sr0", "sg1", true },
	{ "/sys/dev/char/21:1", "2:0:2:0", "sr0", "sg1", true },
};

START_TEST(test_resolve)
{
	_cleanup_(lu_ref_done) LuRef lu = {}, lazy = {};

	ck_assert_int_eq(probe_resolve(tree.fd, cases[_i].arg, &lu), 0);
	ck_assert_str_eq(lu.hctl, cases[_i].hctl);
	ck_assert(strneq(lu.syspath, "sys/bus/scsi/devices/", strlen("sys/bus/scsi/devices/")));
	ck_assert_str_eq(lu.syspath + strlen("sys/bus/scsi/devices/"), cases[_i].hctl);
	ck_assert_msg(streq_ptr(lu.block, cases[_i].block), "%s: block %s", cases[_i].arg,
	              lu.block ?: "(none)");
	ck_assert_msg(streq_ptr(lu.sg, cases[_i].sg), "%s: sg %s", cases[_i].arg,
	              lu.sg ?: "(none)");
	ck_assert_ptr_null(lu.tape);
	ck_assert(!lu.sg_lazy);
	if (cases[_i].devpath) {
		char want[4096];

		xsnprintf(want, "sys/%s", streq(cases[_i].hctl, "2:0:0:0") ? DISK : CD);
		ck_assert_str_eq(lu.devpath, want);
	} else
		ck_assert_ptr_null(lu.devpath);

	/* sg looked up only when asked for: a node given as sg is known all the same */
	ck_assert_int_eq(probe_resolve_full(tree.fd, cases[_i].arg, PROBE_RESOLVE_SG_LAZY, &lazy),
	                 0);
	ck_assert_str_eq(lazy.hctl, cases[_i].hctl);
	ck_assert(streq_ptr(lazy.block, cases[_i].block));
	if (strstr(cases[_i].arg, "/char/")) {
		ck_assert_str_eq(lazy.sg, cases[_i].sg);
		ck_assert(!lazy.sg_lazy);
	} else {
		ck_assert_ptr_null(lazy.sg);
		ck_assert(lazy.sg_lazy);
	}
}
END_TEST

/* Links that are not a SCSI node's, or not the kernel's shape: the general way decides. */
START_TEST(test_other_links)
{
	_cleanup_(lu_ref_done) LuRef lu = {};

	ck_assert_int_eq(probe_resolve(tree.fd, "/sys/dev/block/254:0", &lu), -ENODEV);
	ck_assert_int_eq(probe_resolve(tree.fd, "/sys/dev/block/7:0", &lu), -ENODEV);
	ck_assert_int_eq(probe_resolve(tree.fd, "/sys/dev/block/9:9", &lu), -ENOENT);

	/* ".." inside the target: not taken from the link; its "device" link still names the LU */
	tree_link("../../" HBA "/../host2/target2:0:0/2:0:0:0/block/sda", "sys/dev/block/8:16");
	ck_assert_int_eq(probe_resolve(tree.fd, "/sys/dev/block/8:16", &lu), 0);
	ck_assert_str_eq(lu.hctl, "2:0:0:0");
	ck_assert_ptr_null(lu.devpath);
	lu_ref_done(&lu);

	/* a target naming an H:C:T:L that is not on the SCSI bus */
	tree_link("../../" HBA "/target2:0:5/2:0:5:0/block/sdz", "sys/dev/block/8:48");
	ck_assert_int_eq(probe_resolve(tree.fd, "/sys/dev/block/8:48", &lu), -ENOENT);
}
END_TEST

/* The LU's own directory from its add uevent: taken as its syspath (no lookup through the bus's
 * symlink); a stale one falls back to the bus's entry, which says whether the LU is there. */
START_TEST(test_resolve_at)
{
	_cleanup_(lu_ref_done) LuRef lu = {}, stale = {}, gone = {};

	ck_assert_int_eq(probe_resolve_at(tree.fd, "2:0:0:0", "sys/" DISK,
	                                  PROBE_RESOLVE_DIRFD | PROBE_RESOLVE_NO_NODES, &lu),
	                 0);
	ck_assert_str_eq(lu.hctl, "2:0:0:0");
	ck_assert_str_eq(lu.syspath, "sys/" DISK);
	ck_assert_str_eq(lu.devpath, "sys/" DISK);
	ck_assert(lu.has_dirfd);
	ck_assert_int_eq(faccessat(lu.dirfd, "uevent", F_OK, 0), 0);

	/* the LU moved (another parent): the bus's entry finds it */
	ck_assert_int_eq(probe_resolve_at(tree.fd, "2:0:2:0", "sys/" HBA "/target2:0:9/2:0:2:0",
	                                  PROBE_RESOLVE_DIRFD, &stale),
	                 0);
	ck_assert_str_eq(stale.syspath, "sys/bus/scsi/devices/2:0:2:0");
	ck_assert_ptr_null(stale.devpath);
	ck_assert_str_eq(stale.block, "sr0");
	ck_assert(stale.has_dirfd);

	/* gone both ways */
	ck_assert_int_eq(probe_resolve_at(tree.fd, "2:0:7:0", "sys/" HBA "/target2:0:7/2:0:7:0",
	                                  PROBE_RESOLVE_DIRFD, &gone),
	                 -ENOENT);
	ck_assert(!gone.has_dirfd);
}
END_TEST

static Suite *probe_suite(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = tcase_create("resolve");

	tcase_add_checked_fixture(tc, setup, teardown);
	CHECK_ADD_LOOP(tc, test_resolve, cases);
	tcase_add_test(tc, test_other_links);
	tcase_add_test(tc, test_resolve_at);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(probe_suite)
