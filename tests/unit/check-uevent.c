/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * uevent: the reaction table and the devpath helpers. The devpaths are the kernel's, as a
 * Debian 12 VM with scsi_debug, virtio-scsi and a SAS HBA printed them (`udevadm monitor -k`).
 */

#include <check.h>
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
	for (UeventReaction i = 0; i < _UEVENT_REACTION_MAX; i++)
		ck_assert_ptr_nonnull(uevent_reaction_to_string(i));
	ck_assert_ptr_null(uevent_reaction_to_string(_UEVENT_REACTION_MAX));
	ck_assert_ptr_null(uevent_reaction_to_string(_UEVENT_REACTION_INVALID));
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

/* A message as the kernel's netlink socket delivers it: @s with its NULs, its length. */
#define MSG(s) s, sizeof(s) - 1

static const struct {
	const char *buf;
	size_t len;
	int ret;
	const char *action, *subsystem, *devtype, *devpath, *sdev_ua;
	uint64_t seqnum;
	bool synthetic;
	size_t n_props;
} parse_cases[] = {
	/* scsi_debug's LU, as `udevadm monitor -k -p` printed it in the bench VM */
	{ MSG("add@/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:5\0ACTION=add\0"
	      "DEVPATH=/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:5\0SUBSYSTEM=scsi\0"
	      "DEVTYPE=scsi_device\0MODALIAS=scsi:t-0x00\0SEQNUM=1234\0"),
	  0, "add", "scsi", "scsi_device", "/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:5",
	  NULL, 1234 },
	{ MSG("change@/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:5\0ACTION=change\0"
	      "DEVPATH=/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:5\0SUBSYSTEM=scsi\0"
	      "DEVTYPE=scsi_device\0SDEV_UA=POWER_ON_RESET_OCCURRED\0SEQNUM="
	      "18446744073709551615\0"),
	  0, "change", "scsi", "scsi_device",
	  "/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:5", "POWER_ON_RESET_OCCURRED",
	  UINT64_MAX },
	/* udevadm trigger: SYNTH_UUID; a later entry wins, as in libudev */
	{ MSG("add@/devices/virtual/bsg/2:0:0:5\0ACTION=add\0DEVPATH=/x\0DEVPATH=/devices/virtual/"
	      "bsg/2:0:0:5\0SUBSYSTEM=bsg\0SYNTH_UUID=0\0SEQNUM=7\0"),
	  0, "add", "bsg", NULL, "/devices/virtual/bsg/2:0:0:5", NULL, 7, true },
	/* an error event: every entry handed over, at most as many as there is room for */
	{ MSG("change@/devices/x/2:0:0:0\0ACTION=change\0DEVPATH=/devices/x/2:0:0:0\0"
	      "SUBSYSTEM=scsi\0SDEV_ERROR=1\0SDEV_ERROR_CLASS=medium\0SEQNUM=9\0"),
	  0, "change", "scsi", NULL, "/devices/x/2:0:0:0", NULL, 9, false, 6 },
	/* what libudev refuses */
	{ MSG("libudev\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=scsi\0SEQNUM=1\0"), -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=scsi\0SEQNUM=1"), -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=scsi\0"), -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=scsi\0SEQNUM=0\0"), -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=scsi\0SEQNUM=+1\0"), -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=scsi\0SEQNUM=1 \0"), -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=scsi\0SEQNUM=18446744073709551616\0"),
	  -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0DEVPATH=/d\0SEQNUM=1\0"), -EBADMSG },
	{ MSG("add@/d\0DEVPATH=/d\0SUBSYSTEM=scsi\0SEQNUM=1\0"), -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0SUBSYSTEM=scsi\0SEQNUM=1\0"), -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=scsi\0junk\0SEQNUM=1\0"), -EBADMSG },
	{ MSG("add@/d\0ACTION=add\0DEVPATH=/d\0=x\0SUBSYSTEM=scsi\0SEQNUM=1\0"), -EBADMSG },
	{ MSG("add@/d\0"), -EBADMSG },
	{ MSG("\0"), -EBADMSG },
	{ "", 0, -EBADMSG },
};

START_TEST(test_parse)
{
	const char *props[6];
	char *buf = malloc(parse_cases[_i].len + 1); /* the message's own bytes, ASan bounded */
	Uevent ev = {};

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, parse_cases[_i].buf, parse_cases[_i].len);
	ck_assert_int_eq(uevent_parse(buf, parse_cases[_i].len, props, ELEMENTSOF(props), &ev),
	                 parse_cases[_i].ret);
	if (parse_cases[_i].ret == 0) {
		ck_assert_str_eq(ev.action, parse_cases[_i].action);
		ck_assert_str_eq(ev.subsystem, parse_cases[_i].subsystem);
		ck_assert_pstr_eq(ev.devtype, parse_cases[_i].devtype);
		ck_assert_str_eq(ev.devpath, parse_cases[_i].devpath);
		ck_assert_pstr_eq(ev.sdev_ua, parse_cases[_i].sdev_ua);
		ck_assert_uint_eq(ev.seqnum, parse_cases[_i].seqnum);
		ck_assert_int_eq(ev.synthetic, parse_cases[_i].synthetic);
		ck_assert_uint_eq(ev.n_props, parse_cases[_i].n_props);
		if (ev.n_props) {
			ck_assert_str_eq(ev.props[0], "ACTION=change");
			ck_assert_str_eq(ev.props[ev.n_props - 1], "SEQNUM=9");
		}
	}
	free(buf);
}
END_TEST

/* The properties only where room is given; more than the room: as many as it holds. */
START_TEST(test_parse_props_room)
{
	static const char m[] = "change@/d\0ACTION=change\0DEVPATH=/d\0SUBSYSTEM=scsi\0"
	                        "SDEV_ERROR=1\0SEQNUM=3\0";
	const char *props[2];
	Uevent ev;

	ck_assert_int_eq(uevent_parse(m, sizeof(m) - 1, NULL, 0, &ev), 0);
	ck_assert_ptr_null(ev.props);
	ck_assert_uint_eq(ev.n_props, 0);
	ck_assert_int_eq(uevent_parse(m, sizeof(m) - 1, props, ELEMENTSOF(props), &ev), 0);
	ck_assert_uint_eq(ev.n_props, 2);
	ck_assert_str_eq(ev.props[1], "DEVPATH=/d");
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
	CHECK_ADD_LOOP(tc, test_sdev_state, sdev_state_cases);
	tcase_add_test(tc, test_sdev_state_names);
	CHECK_ADD_LOOP(tc, test_parse, parse_cases);
	tcase_add_test(tc, test_parse_props_room);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(uevent_suite)
