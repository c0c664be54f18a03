/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * uevent: the reaction table and the devpath helpers. The devpaths are the kernel's, as a
 * Debian 12 VM with scsi_debug, virtio-scsi and a SAS HBA printed them (`udevadm monitor -k`).
 */

#include <check.h>
#include <limits.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "macro.h"
#include "uevent.h"

#define R(x) (1u << UEVENT_##x)

static const struct {
	const char *action, *subsystem, *devtype;
	UeventReactions want;
} reaction_cases[] = {
	{ "add", "scsi", "scsi_device", R(LOAD_DRIVERS) | R(LU) },
	{ "change", "scsi", "scsi_device", R(REIDENTIFIED) | R(ERROR) | R(STATE) | R(LU) },
	{ "remove", "scsi", "scsi_device", R(LU) },
	{ "bind", "scsi", "scsi_device", R(LU) },
	{ "remove", "scsi", "scsi_target", R(HOST_REMOVED) },
	{ "remove", "scsi", "scsi_host", R(HOST_REMOVED) },
	{ "add", "scsi", "scsi_target", 0 },
	{ "add", "scsi_host", NULL, R(NEW_HOST) },
	{ "remove", "scsi_host", NULL, 0 },
	{ "add", "sas_end_device", NULL, R(NEW_TARGET_PORT) },
	{ "add", "fc_remote_ports", NULL, R(NEW_TARGET_PORT) },
	{ "add", "iscsi_session", NULL, R(NEW_TARGET_PORT) },
	{ "add", "block", "disk", R(NODE) | R(HOLDER) },
	{ "remove", "block", "partition", R(NODE) },
	{ "change", "block", "disk", R(REIDENTIFIED) | R(ERROR) | R(NODE) | R(HOLDER) },
	{ "remove", "block", "disk", R(NODE) | R(HOLDER) },
	{ "add", "scsi_generic", NULL, R(NODE) },
	{ "add", "bsg", NULL, R(NODE) },
	{ "add", "scsi_tape", NULL, R(NODE) },
	{ "add", "net", NULL, 0 },
	{ "add", NULL, NULL, 0 },
	{ NULL, "scsi", "scsi_device", 0 },
	{ NULL, NULL, NULL, 0 },
};

START_TEST(test_reactions)
{
	Uevent ev = {
		.action = reaction_cases[_i].action,
		.subsystem = reaction_cases[_i].subsystem,
		.devtype = reaction_cases[_i].devtype,
	};

	ck_assert_uint_eq(uevent_reactions(&ev), reaction_cases[_i].want);
}
END_TEST

START_TEST(test_reaction_names)
{
	ck_assert_uint_eq(uevent_reactions(NULL), 0);
}
END_TEST

static const struct {
	const char *devpath;
	int host_ret;
	unsigned host;
	int hctl_ret;
	const char *hctl;
} devpath_cases[] = {
	{ "/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:1", 0, 2, 0, "2:0:0:1" },
	{ "/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:1/0:0:1:3/block/sdb/sdb1", 0, 0,
	  0, "0:0:1:3" },
	{ "/devices/pci0000:00/0000:00:05.0/host7/port-7:0/end_device-7:0", 0, 7, -ENOENT, NULL },
	{ "/devices/pci0000:00/0000:00:05.0/host7/scsi_host/host7", 0, 7, -ENOENT, NULL },
	{ "/devices/platform/host/host12", 0, 12, -ENOENT, NULL },        /* "/host" without N */
	{ "/devices/x/hostess3/host4/target4:0:0", 0, 4, -ENOENT, NULL }, /* not "hostN/" */
	{ "/devices/x/host4294967295/t", 0, 4294967295u, -ENOENT, NULL },
	{ "/devices/x/host4294967296/t", -ENOENT, 0, -ENOENT, NULL }, /* past host_no */
	{ "/devices/x/host-1/t", -ENOENT, 0, -ENOENT, NULL },
	{ "/devices/virtual/block/loop0", -ENOENT, 0, -ENOENT, NULL },
	{ "0:0:0:0", -ENOENT, 0, 0, "0:0:0:0" },
	{ "", -ENOENT, 0, -ENOENT, NULL },
};

START_TEST(test_devpath)
{
	_cleanup_free_ char *hctl = NULL;
	unsigned host = 0;

	ck_assert_int_eq(uevent_devpath_host(devpath_cases[_i].devpath, &host),
	                 devpath_cases[_i].host_ret);
	if (devpath_cases[_i].host_ret == 0)
		ck_assert_uint_eq(host, devpath_cases[_i].host);
	ck_assert_int_eq(uevent_devpath_hctl(devpath_cases[_i].devpath, &hctl),
	                 devpath_cases[_i].hctl_ret);
	if (devpath_cases[_i].hctl)
		ck_assert_str_eq(hctl, devpath_cases[_i].hctl);
}
END_TEST

static const struct {
	const char *devpath, *dm;
} dm_cases[] = {
	{ "/devices/virtual/block/dm-0", "dm-0" },
	{ "/devices/virtual/block/dm-4095", "dm-4095" },
	{ "/devices/virtual/block/dm-1234567890", "dm-1234567890" },
	{ "/devices/virtual/block/dm-12345678901", NULL }, /* longer than any minor */
	{ "/devices/virtual/block/dm-", NULL },
	{ "/devices/virtual/block/dm-3x", NULL },
	{ "/devices/virtual/block/dm-3/dm-3p1", NULL }, /* not a whole device */
	{ "/devices/virtual/block/loop0", NULL },
	{ "/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:1/0:0:1:3/block/sdb", NULL },
	{ "/devices/x/virtual/block/dm-1", NULL },
	{ "", NULL },
	{ NULL, NULL },
};

START_TEST(test_devpath_dm)
{
	ck_assert_pstr_eq(uevent_devpath_dm(dm_cases[_i].devpath), dm_cases[_i].dm);
}
END_TEST

static const struct {
	const char *devpath, *dir;
} lu_devpath_cases[] = {
	{ "/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:1/0:0:1:3",
	  "sys/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:1/0:0:1:3" },
	{ "/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:16383",
	  "sys/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:16383" },
	/* a node's devpath, a target, nothing of a scsi_device */
	{ "/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:1/0:0:1:3/block/sdb", NULL },
	{ "/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:1", NULL },
	{ "/devices/virtual/block/loop0", NULL },
	/* not below /devices/, or components that are not plain names */
	{ "/bus/scsi/devices/0:0:0:0", NULL },
	{ "devices/x/0:0:0:0", NULL },
	{ "/devices/x/../0:0:0:0", NULL },
	{ "/devices/x/./0:0:0:0", NULL },
	{ "/devices/x//0:0:0:0", NULL },
	{ "/devices/0:0:0:0/", NULL },
	{ "/devices/x/0:0:0:0x", NULL },
	{ "/devices/", NULL },
	{ "", NULL },
	{ NULL, NULL },
};

START_TEST(test_lu_devpath)
{
	char dir[PATH_MAX];
	bool ok = uevent_lu_devpath(lu_devpath_cases[_i].devpath, dir);

	ck_assert_int_eq(ok, lu_devpath_cases[_i].dir != NULL);
	if (ok)
		ck_assert_str_eq(dir, lu_devpath_cases[_i].dir);
}
END_TEST

/* "/devices/aaa.../1:2:3:4", @n bytes long */
static void long_devpath(char *buf, size_t n)
{
	memset(buf, 'a', n);
	memcpy(buf, "/devices/", strlen("/devices/"));
	memcpy(buf + n - strlen("/1:2:3:4"), "/1:2:3:4", strlen("/1:2:3:4") + 1);
}

START_TEST(test_lu_devpath_long)
{
	char devpath[PATH_MAX + 16], dir[PATH_MAX];

	/* "sys" and the devpath fill PATH_MAX with the NUL exactly; one byte more does not fit */
	long_devpath(devpath, PATH_MAX - 1 - strlen("sys"));
	ck_assert(uevent_lu_devpath(devpath, dir));
	ck_assert_uint_eq(strlen(dir), PATH_MAX - 1);
	long_devpath(devpath, PATH_MAX - strlen("sys"));
	ck_assert(!uevent_lu_devpath(devpath, dir));
}
END_TEST

/* MODALIAS= of a scsi_device: the kernel's "scsi:t-0x%02x" and nothing else */
static const struct {
	const char *modalias;
	int type;
} modalias_cases[] = {
	{ "scsi:t-0x00", 0 },        { "scsi:t-0x05", 5 },
	{ "scsi:t-0x1f", 0x1f },     { "scsi:t-0x0e", 0x0e },
	{ NULL, -EINVAL },           { "", -EINVAL },
	{ "scsi:t-0x", -EINVAL },    { "scsi:t-0x5", -EINVAL },
	{ "scsi:t-0x005", -EINVAL }, { "scsi:t-0x20", -EINVAL },
	{ "scsi:t-0xff", -EINVAL },  { "scsi:t-0x0E", -EINVAL },
	{ "scsi:t-0x0g", -EINVAL },  { "scsi:t-0x00\n", -EINVAL },
	{ "scsi:t-00", -EINVAL },    { "pci:v00001AF4", -EINVAL },
};

START_TEST(test_modalias_type)
{
	ck_assert_int_eq(uevent_modalias_scsi_type(modalias_cases[_i].modalias),
	                 modalias_cases[_i].type);
}
END_TEST

/* SDEV_STATE= values: the kernel's two (kernel/ patch 7) and what a malformed event may carry */
static const struct {
	const char *value;
	int ret;
	UeventSdevState state;
} sdev_state_cases[] = {
	{ "offline", 0, UEVENT_SDEV_OFFLINE },
	{ "transport-offline", 0, UEVENT_SDEV_TRANSPORT_OFFLINE },
	{ NULL, -ENODATA, 0 },
	{ "", -EBADMSG, 0 },
	{ "running", -EBADMSG, 0 }, /* the kernel sends no event for it */
	{ "blocked", -EBADMSG, 0 },
	{ "Offline", -EBADMSG, 0 },
	{ "offline ", -EBADMSG, 0 },
	{ "offline\n", -EBADMSG, 0 },
	{ "offlin", -EBADMSG, 0 },
	{ "transport-offline-x", -EBADMSG, 0 },
	{ "offline=1", -EBADMSG, 0 },
};

START_TEST(test_sdev_state)
{
	UeventSdevState st = _UEVENT_SDEV_STATE_INVALID;

	ck_assert_int_eq(uevent_sdev_state_parse(sdev_state_cases[_i].value, &st),
	                 sdev_state_cases[_i].ret);
	if (sdev_state_cases[_i].ret == 0) {
		ck_assert_int_eq(st, sdev_state_cases[_i].state);
		/* the name lund shows is the one sysfs "state" has */
		ck_assert_str_eq(uevent_sdev_state_to_string(st), sdev_state_cases[_i].value);
	} else
		ck_assert_int_eq(st, _UEVENT_SDEV_STATE_INVALID); /* untouched on failure */
}
END_TEST

START_TEST(test_sdev_state_names)
{
	ck_assert_ptr_null(uevent_sdev_state_to_string(_UEVENT_SDEV_STATE_MAX));
	ck_assert_ptr_null(uevent_sdev_state_to_string(_UEVENT_SDEV_STATE_INVALID));
	ck_assert_int_eq(uevent_sdev_state_parse("offline", NULL), 0);
}
END_TEST

static Suite *uevent_suite(void)
{
	Suite *s = suite_create("uevent");
	TCase *tc = tcase_create("uevent");

	CHECK_ADD_LOOP(tc, test_reactions, reaction_cases);
	tcase_add_test(tc, test_reaction_names);
	CHECK_ADD_LOOP(tc, test_devpath, devpath_cases);
	CHECK_ADD_LOOP(tc, test_devpath_dm, dm_cases);
	CHECK_ADD_LOOP(tc, test_lu_devpath, lu_devpath_cases);
	CHECK_ADD_LOOP(tc, test_modalias_type, modalias_cases);
	tcase_add_test(tc, test_lu_devpath_long);
	CHECK_ADD_LOOP(tc, test_sdev_state, sdev_state_cases);
	tcase_add_test(tc, test_sdev_state_names);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(uevent_suite)
