/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The reservation check before a removal (engine/reservation.h): the configured keys, this
 * host's initiator ports on fake sysfs trees laid out as Linux 6.1 lays out iSCSI, FC and SAS
 * hosts, and the decision from what was read now and what was read before.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "macro.h"
#include "reservation.h"
#include "unaligned.h"

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "check-reservation");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static const struct {
	const char *value;
	int ret;
	size_t n_keys;
	uint64_t first;
	bool file;
} config_cases[] = {
	{ NULL, 0, 0, 0, false },
	{ "", 0, 0, 0, false },
	{ "0x1234", 0, 1, 0x1234, false },
	{ "abcdef0123456789", 0, 1, 0xabcdef0123456789, false },
	{ "0x1, 0x2 0x3", 0, 3, 0x1, false },
	{ "file", 0, 0, 0, true },
	{ "FILE 0x5", 0, 1, 0x5, true },
	{ "0x0", -EINVAL, 0, 0, false },
	{ "0x", -EINVAL, 0, 0, false },
	{ "0x12345678901234567", -EINVAL, 0, 0, false },
	{ "0x12g", -EINVAL, 0, 0, false },
	{ "files", -EINVAL, 0, 0, false },
	{ "-1", -EINVAL, 0, 0, false },
};

START_TEST(test_config)
{
	ResvConfig c = { .n_keys = 99 };
	int r = resv_config_parse(config_cases[_i].value, &c);

	ck_assert_msg(r == config_cases[_i].ret, "\"%s\": %d", config_cases[_i].value, r);
	if (r < 0) {
		ck_assert_uint_eq(c.n_keys, 99);
		return;
	}
	ck_assert_uint_eq(c.n_keys, config_cases[_i].n_keys);
	ck_assert(c.prkeys_file == config_cases[_i].file);
	if (c.n_keys > 0)
		ck_assert_uint_eq(c.keys[0], config_cases[_i].first);
}
END_TEST

START_TEST(test_config_too_many)
{
	char s[RESV_KEYS_MAX * 8 + 16] = "";
	ResvConfig c;

	for (unsigned i = 1; i <= RESV_KEYS_MAX; i++)
		snprintf(s + strlen(s), sizeof(s) - strlen(s), "0x%x ", i);
	ck_assert_int_eq(resv_config_parse(s, &c), 0);
	ck_assert_uint_eq(c.n_keys, RESV_KEYS_MAX);
	strcat(s, "0x99");
	ck_assert_int_eq(resv_config_parse(s, &c), -EINVAL);
}
END_TEST

/* An LU below an iSCSI session, as iscsi_tcp lays it out: the bus link resolves to the
 * session's target directory, whose grandparent holds iscsi_session/. */
static void put_iscsi_lu(const char *initiator)
{
	char target[PATH_MAX];

	check_tree_mkdirs(&tree, "sys/devices/platform/host3/session1/target3:0:0/3:0:0:1");
	check_tree_put_str(
	        &tree, "sys/devices/platform/host3/session1/iscsi_session/session1/initiatorname",
	        initiator);
	check_tree_mkdirs(&tree, "sys/bus/scsi/devices");
	xsnprintf(target, "%s/sys/bus/scsi/devices/3:0:0:1", tree.path);
	ck_assert_int_eq(
	        symlink("../../../devices/platform/host3/session1/target3:0:0/3:0:0:1", target), 0);
}

START_TEST(test_identities_iscsi)
{
	PrinIdentity ids[RESV_IDS_MAX];

	put_iscsi_lu("iqn.2026-12.lund.test:initiator\n");
	ck_assert_uint_eq(resv_identities(tree.fd, "3:0:0:1", ids, ELEMENTSOF(ids)), 1);
	ck_assert_uint_eq(ids[0].protocol, PRIN_PROTO_ISCSI);
	ck_assert_str_eq(ids[0].iscsi, "iqn.2026-12.lund.test:initiator");
	/* an offload host names the same initiator: once */
	check_tree_put_str(&tree, "sys/class/iscsi_host/host3/initiatorname",
	                   "IQN.2026-12.lund.test:initiator\n");
	ck_assert_uint_eq(resv_identities(tree.fd, "3:0:0:1", ids, ELEMENTSOF(ids)), 1);
	ck_assert(resv_can_tell(tree.fd, "3:0:0:1", NULL));
	/* an LU of another host has none of these: only a configured key tells there */
	ck_assert_uint_eq(resv_identities(tree.fd, "4:0:0:1", ids, ELEMENTSOF(ids)), 0);
	ck_assert(!resv_can_tell(tree.fd, "4:0:0:1", NULL));
	ck_assert(!resv_can_tell(tree.fd, "4:0:0:1", &(ResvConfig){}));
	ck_assert(resv_can_tell(tree.fd, "4:0:0:1", &(ResvConfig){ .keys = { 1 }, .n_keys = 1 }));
	ck_assert(resv_can_tell(tree.fd, "4:0:0:1", &(ResvConfig){ .prkeys_file = true }));
	ck_assert_uint_eq(resv_identities(tree.fd, "garbage", ids, ELEMENTSOF(ids)), 0);
}
END_TEST

START_TEST(test_identities_fc_sas)
{
	PrinIdentity ids[RESV_IDS_MAX];

	check_tree_put_str(&tree, "sys/class/fc_host/host5/port_name", "0x21000024ff5a1b2c\n");
	ck_assert_uint_eq(resv_identities(tree.fd, "5:0:1:0", ids, ELEMENTSOF(ids)), 1);
	ck_assert_uint_eq(ids[0].protocol, PRIN_PROTO_FC);
	ck_assert_uint_eq(unaligned_read_be64(ids[0].port), 0x21000024ff5a1b2c);
	check_tree_put_str(&tree, "sys/class/scsi_host/host6/host_sas_address",
	                   "0x500605b0000272b0\n");
	ck_assert_uint_eq(resv_identities(tree.fd, "6:0:0:0", ids, ELEMENTSOF(ids)), 1);
	ck_assert_uint_eq(ids[0].protocol, PRIN_PROTO_SAS);
	ck_assert_uint_eq(unaligned_read_be64(ids[0].port), 0x500605b0000272b0);
	/* a port name that is no number is no identity */
	check_tree_put_str(&tree, "sys/class/fc_host/host7/port_name", "unknown\n");
	ck_assert_uint_eq(resv_identities(tree.fd, "7:0:0:0", ids, ELEMENTSOF(ids)), 0);
	/* room for one only */
	check_tree_put_str(&tree, "sys/class/scsi_host/host5/host_sas_address", "0x5\n");
	ck_assert_uint_eq(resv_identities(tree.fd, "5:0:1:0", ids, 1), 1);
}
END_TEST

START_TEST(test_read_no_node)
{
	PrinStatus st;
	unsigned cmds = 0;

	ck_assert_int_eq(resv_read(tree.fd, "sg9", "0:0:0:0", NULL, 1000, &st, &cmds), -ENOENT);
	ck_assert_uint_eq(cmds, 0);
}
END_TEST

START_TEST(test_decide)
{
	PrinStatus ours = { .n_keys = 1,
		            .registered_us = true,
		            .reserved = true,
		            .holder_us = true,
		            .type = 0x1 },
	           other = { .n_keys = 2, .reserved = true, .type = 0x3, .holder_key = 0x9 },
	           none = {};
	char why[256];

	ck_assert(resv_decide(0, &ours, NULL, why, sizeof(why)));
	ck_assert_str_eq(why, "reserved: 1 key (this host), WE held by this host");
	ck_assert(!resv_decide(0, &other, &ours, why, sizeof(why)));
	ck_assert_str_eq(why, "reservations: 2 keys, EA held by key 0x9");
	ck_assert(!resv_decide(0, &none, NULL, why, sizeof(why)));
	ck_assert_str_eq(why, "reservations: none");

	/* masked: what was read while it answered decides */
	ck_assert(resv_decide(-ENXIO, NULL, &ours, why, sizeof(why)));
	ck_assert_str_eq(why, "reserved when last read: 1 key (this host), WE held by this host; "
	                      "now: the LU no longer answers");
	ck_assert(!resv_decide(-ENXIO, NULL, &none, why, sizeof(why)));
	ck_assert(!resv_decide(-ETIMEDOUT, NULL, &other, why, sizeof(why)));
	ck_assert_str_eq(why, "reservations when last read: 2 keys, EA held by key 0x9; now: "
	                      "ETIMEDOUT");
	/* never read: cannot tell, and removed (lund(8) RESERVATIONS) */
	ck_assert(!resv_decide(-ENXIO, NULL, NULL, why, sizeof(why)));
	ck_assert_str_eq(why, "reservations unknown: the LU no longer answers; this host was not "
	                      "known registered");
	/* no PERSISTENT RESERVE IN at all: no reservation can exist */
	ck_assert(!resv_decide(-EOPNOTSUPP, NULL, &ours, why, sizeof(why)));
}
END_TEST

static Suite *reservation_suite(void)
{
	Suite *s = suite_create("reservation");
	TCase *tc = tcase_create("reservation");

	tcase_add_checked_fixture(tc, setup, teardown);
	CHECK_ADD_LOOP(tc, test_config, config_cases);
	tcase_add_test(tc, test_config_too_many);
	tcase_add_test(tc, test_identities_iscsi);
	tcase_add_test(tc, test_identities_fc_sas);
	tcase_add_test(tc, test_read_no_node);
	tcase_add_test(tc, test_decide);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(reservation_suite)
