/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "hexfile.h"
#include "macro.h"
#include "prin.h"
#include "unaligned.h"

#define OUR_IQN   "iqn.2026-12.lund.test:initiator"
#define OTHER_IQN "iqn.2026-12.lund.test:peer"

/* A response being built: header, then descriptors appended. */
typedef struct Buf {
	uint8_t b[1024];
	size_t len;
} Buf;

static void buf_init(Buf *b, uint32_t gen)
{
	memset(b, 0, sizeof(*b));
	unaligned_write_be32(b->b, gen);
	b->len = PRIN_HEADER_LEN;
}

static void buf_seal(Buf *b)
{
	unaligned_write_be32(b->b + 4, (uint32_t)(b->len - PRIN_HEADER_LEN));
}

/* An iSCSI TransportID of format 01b (name ",i,0x" ISID), as LIO sends it, padded to 4. */
static size_t tid_iscsi(uint8_t *p, const char *name, bool with_isid)
{
	char s[300];
	size_t n;

	snprintf(s, sizeof(s), "%s%s", name, with_isid ? ",i,0x23d000000001" : "");
	n = strlen(s) + 1;
	n = (n + 3) & ~(size_t)3;
	if (n < 20)
		n = 20;
	memset(p, 0, 4 + n);
	p[0] = (uint8_t)((with_isid ? 0x40 : 0x00) | PRIN_PROTO_ISCSI);
	unaligned_write_be16(p + 2, (uint16_t)n);
	memcpy(p + 4, s, strlen(s));
	return 4 + n;
}

static size_t tid_port(uint8_t *p, uint8_t proto, uint64_t port)
{
	memset(p, 0, 24);
	p[0] = proto;
	unaligned_write_be64(p + (proto == PRIN_PROTO_FC ? 8 : 4), port);
	return 24;
}

/* One full status descriptor with its TransportID written by @tid into it. */
static void add_desc(Buf *b, uint64_t key, bool holder, uint8_t type, const uint8_t *tid,
                     size_t tid_len)
{
	uint8_t *d = b->b + b->len;

	memset(d, 0, PRIN_FULL_DESC_LEN);
	unaligned_write_be64(d, key);
	d[12] = holder ? 0x01 : 0x00;
	d[13] = holder ? type : 0;
	unaligned_write_be32(d + 20, (uint32_t)tid_len);
	memcpy(d + PRIN_FULL_DESC_LEN, tid, tid_len);
	b->len += PRIN_FULL_DESC_LEN + tid_len;
}

static PrinIdentity iscsi_id(const char *name)
{
	PrinIdentity id = { .protocol = PRIN_PROTO_ISCSI };

	snprintf(id.iscsi, sizeof(id.iscsi), "%s", name);
	return id;
}

START_TEST(test_full_status_ours_holder)
{
	uint8_t tid[300];
	PrinIdentity ids[2] = { iscsi_id("IQN.2026-12.LUND.TEST:INITIATOR") };
	char s[PRIN_DESCRIBE_MAX];
	PrinStatus st;
	Buf b;

	ids[1] = (PrinIdentity){ .protocol = PRIN_PROTO_FC };
	unaligned_write_be64(ids[1].port, 0x21000024ff000001);
	buf_init(&b, 7);
	add_desc(&b, 0xabc, true, 0x5, tid, tid_iscsi(tid, OUR_IQN, true));
	add_desc(&b, 0xdef, false, 0, tid, tid_port(tid, PRIN_PROTO_FC, 0x21000024ff000002));
	buf_seal(&b);
	ck_assert_int_eq(prin_parse_full_status(b.b, b.len, ids, 2, NULL, 0, &st), 0);
	ck_assert(st.full_status);
	ck_assert_uint_eq(st.generation, 7);
	ck_assert_uint_eq(st.n_keys, 2);
	ck_assert(st.reserved && st.registered_us && st.holder_us && st.holder_known);
	ck_assert_uint_eq(st.type, 0x5);
	ck_assert_str_eq(st.holder.iscsi, OUR_IQN);
	ck_assert_int_eq(prin_describe(&st, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "2 keys (this host), WE-RO held by this host");
}
END_TEST

START_TEST(test_full_status_other_holder)
{
	uint8_t tid[300];
	PrinIdentity id = iscsi_id(OUR_IQN);
	char s[PRIN_DESCRIBE_MAX];
	PrinStatus st;
	Buf b;

	buf_init(&b, 1);
	add_desc(&b, 0x1, true, 0x3, tid, tid_iscsi(tid, OTHER_IQN, false));
	add_desc(&b, 0x2, false, 0, tid, tid_iscsi(tid, OUR_IQN, true));
	add_desc(&b, 0x3, false, 0, tid, tid_port(tid, PRIN_PROTO_SAS, 0x500605b0000272b0));
	buf_seal(&b);
	ck_assert_int_eq(prin_parse_full_status(b.b, b.len, &id, 1, NULL, 0, &st), 0);
	ck_assert(st.registered_us && st.reserved && !st.holder_us);
	ck_assert_int_eq(prin_describe(&st, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "3 keys (this host), EA held by " OTHER_IQN " (key 0x1)");

	/* the same, this host unknown by name but by the key the admin configured */
	ck_assert_int_eq(prin_parse_full_status(b.b, b.len, NULL, 0, (uint64_t[]){ 0x2 }, 1, &st),
	                 0);
	ck_assert(st.registered_us && !st.holder_us);
	/* nobody of ours */
	ck_assert_int_eq(prin_parse_full_status(b.b, b.len, NULL, 0, NULL, 0, &st), 0);
	ck_assert(!st.registered_us && !st.holder_us);
}
END_TEST

START_TEST(test_full_status_all_registrants)
{
	uint8_t tid[300];
	PrinIdentity id = { .protocol = PRIN_PROTO_SAS };
	PrinStatus st;
	Buf b;

	unaligned_write_be64(id.port, 0x5000000000000002);
	buf_init(&b, 1);
	add_desc(&b, 0x1, true, 0x7, tid, tid_port(tid, PRIN_PROTO_SAS, 0x5000000000000001));
	add_desc(&b, 0x2, true, 0x7, tid, tid_port(tid, PRIN_PROTO_SAS, 0x5000000000000002));
	buf_seal(&b);
	ck_assert_int_eq(prin_parse_full_status(b.b, b.len, &id, 1, NULL, 0, &st), 0);
	ck_assert(st.holder_us && st.registered_us);
	ck_assert_uint_eq(st.holder_key, 0x1);
}
END_TEST

START_TEST(test_full_status_empty)
{
	char s[PRIN_DESCRIBE_MAX];
	PrinStatus st;
	Buf b;

	buf_init(&b, 0);
	buf_seal(&b);
	ck_assert_int_eq(prin_parse_full_status(b.b, b.len, NULL, 0, NULL, 0, &st), 0);
	ck_assert_uint_eq(st.n_keys, 0);
	ck_assert_int_eq(prin_describe(&st, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "none");
	ck_assert_int_eq(prin_describe(&st, s, 4), -ENOBUFS);
}
END_TEST

/* Hostile full status data: every case -EBADMSG, and @ret untouched. */
typedef struct BadCase {
	const char *name;
	void (*make)(Buf *b);
} BadCase;

static void bad_short(Buf *b)
{
	buf_init(b, 0);
	b->len = 7;
}

static void bad_additional_length(Buf *b)
{
	uint8_t tid[300];

	buf_init(b, 0);
	add_desc(b, 1, false, 0, tid, tid_port(tid, PRIN_PROTO_FC, 1));
	buf_seal(b);
	b->len -= 1; /* truncated by the allocation length */
}

static void bad_descriptor_length(Buf *b)
{
	uint8_t tid[300];

	buf_init(b, 0);
	add_desc(b, 1, false, 0, tid, tid_port(tid, PRIN_PROTO_FC, 1));
	buf_seal(b);
	unaligned_write_be32(b->b + PRIN_HEADER_LEN + 20, 25); /* one byte past the body */
}

static void bad_descriptor_huge(Buf *b)
{
	uint8_t tid[300];

	buf_init(b, 0);
	add_desc(b, 1, false, 0, tid, tid_port(tid, PRIN_PROTO_FC, 1));
	buf_seal(b);
	unaligned_write_be32(b->b + PRIN_HEADER_LEN + 20, 0xffffffff);
}

static void bad_partial_descriptor(Buf *b)
{
	buf_init(b, 0);
	b->len += 20;
	buf_seal(b);
}

static void bad_iscsi_no_nul(Buf *b)
{
	uint8_t tid[300];
	size_t n = tid_iscsi(tid, OUR_IQN, false);

	memset(tid + 4, 'a', n - 4);
	buf_init(b, 0);
	add_desc(b, 1, false, 0, tid, n);
	buf_seal(b);
}

static void bad_iscsi_length(Buf *b)
{
	uint8_t tid[300];
	size_t n = tid_iscsi(tid, OUR_IQN, false);

	unaligned_write_be16(tid + 2, (uint16_t)(n - 4 + 4)); /* past the descriptor */
	buf_init(b, 0);
	add_desc(b, 1, false, 0, tid, n);
	buf_seal(b);
}

static void bad_iscsi_no_separator(Buf *b)
{
	uint8_t tid[300];
	size_t n = tid_iscsi(tid, OUR_IQN, false);

	tid[0] |= 0x40; /* format 01b claimed, no ",i,0x" */
	buf_init(b, 0);
	add_desc(b, 1, false, 0, tid, n);
	buf_seal(b);
}

static void bad_iscsi_too_long(Buf *b)
{
	uint8_t tid[300];
	char name[260];
	size_t n;

	memset(name, 'x', 250);
	name[250] = '\0';
	n = tid_iscsi(tid, name, false);
	buf_init(b, 0);
	add_desc(b, 1, false, 0, tid, n);
	buf_seal(b);
}

static void bad_fc_short(Buf *b)
{
	uint8_t tid[300];

	tid_port(tid, PRIN_PROTO_FC, 1);
	buf_init(b, 0);
	add_desc(b, 1, false, 0, tid, 20);
	buf_seal(b);
}

static const BadCase bad_cases[] = {
	{ "seven bytes", bad_short },
	{ "ADDITIONAL LENGTH past the data", bad_additional_length },
	{ "descriptor length one past the body", bad_descriptor_length },
	{ "descriptor length 4 GiB", bad_descriptor_huge },
	{ "partial descriptor", bad_partial_descriptor },
	{ "iSCSI name without NUL", bad_iscsi_no_nul },
	{ "iSCSI length past the TransportID", bad_iscsi_length },
	{ "iSCSI format 01b without separator", bad_iscsi_no_separator },
	{ "iSCSI name of 250 bytes", bad_iscsi_too_long },
	{ "FC TransportID of 20 bytes", bad_fc_short },
};

START_TEST(test_full_status_bad)
{
	const BadCase *c = &bad_cases[_i];
	PrinStatus st = { .n_keys = 777 };
	PrinIdentity id = iscsi_id(OUR_IQN);
	Buf b;

	c->make(&b);
	ck_assert_msg(prin_parse_full_status(b.b, b.len, &id, 1, NULL, 0, &st) == -EBADMSG, "%s",
	              c->name);
	ck_assert_uint_eq(st.n_keys, 777);
}
END_TEST

START_TEST(test_keys_reservation)
{
	uint8_t k[8 + 24] = {}, rv[8 + 16] = {}, none[8] = {};
	uint64_t ours = 0x1234;
	char s[PRIN_DESCRIBE_MAX];
	PrinStatus st;

	unaligned_write_be32(k + 4, 24);
	unaligned_write_be64(k + 8, 0x1);
	unaligned_write_be64(k + 16, 0x1234);
	unaligned_write_be64(k + 24, 0x5);
	unaligned_write_be32(rv + 4, 16);
	unaligned_write_be64(rv + 8, 0x1234);
	rv[8 + 13] = 0x1;

	ck_assert_int_eq(prin_parse_keys_reservation(k, sizeof(k), rv, sizeof(rv), &ours, 1, &st),
	                 0);
	ck_assert(!st.full_status && st.registered_us && st.holder_us && st.reserved);
	ck_assert_uint_eq(st.n_keys, 3);
	ck_assert_int_eq(prin_describe(&st, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "3 keys (this host), WE held by this host");

	/* without a configured key, nothing is known to be ours */
	ck_assert_int_eq(prin_parse_keys_reservation(k, sizeof(k), rv, sizeof(rv), NULL, 0, &st),
	                 0);
	ck_assert(!st.registered_us && !st.holder_us);
	ck_assert_int_eq(prin_describe(&st, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "3 keys, WE held by key 0x1234");

	/* all registrants: READ RESERVATION says key 0, a registrant holds it */
	unaligned_write_be64(rv + 8, 0);
	rv[8 + 13] = 0x8;
	ck_assert_int_eq(prin_parse_keys_reservation(k, sizeof(k), rv, sizeof(rv), &ours, 1, &st),
	                 0);
	ck_assert(st.holder_us);

	ck_assert_int_eq(
	        prin_parse_keys_reservation(k, sizeof(k), none, sizeof(none), &ours, 1, &st), 0);
	ck_assert(!st.reserved && st.registered_us);
	ck_assert_int_eq(prin_describe(&st, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "3 keys (this host), no reservation");

	/* a key of 0 is no registration, whatever the configuration says */
	ck_assert_int_eq(prin_parse_keys_reservation(k, sizeof(k), none, sizeof(none),
	                                             (uint64_t[]){ 0 }, 1, &st),
	                 0);
	ck_assert(!st.registered_us);

	/* hostile: a key list of 20 bytes, a reservation of 8, lengths past the data */
	unaligned_write_be32(k + 4, 20);
	ck_assert_int_eq(prin_parse_keys_reservation(k, sizeof(k), rv, sizeof(rv), &ours, 1, &st),
	                 -EBADMSG);
	unaligned_write_be32(k + 4, 32);
	ck_assert_int_eq(prin_parse_keys_reservation(k, sizeof(k), rv, sizeof(rv), &ours, 1, &st),
	                 -EBADMSG);
	unaligned_write_be32(k + 4, 24);
	unaligned_write_be32(rv + 4, 8);
	ck_assert_int_eq(prin_parse_keys_reservation(k, sizeof(k), rv, sizeof(rv), &ours, 1, &st),
	                 -EBADMSG);
	ck_assert_int_eq(prin_parse_keys_reservation(k, 7, rv, sizeof(rv), &ours, 1, &st),
	                 -EBADMSG);
}
END_TEST

START_TEST(test_transport_id_format)
{
	uint8_t tid[300];
	PrinTransportId t;
	char s[300];

	ck_assert_int_eq(prin_parse_transport_id(tid, tid_iscsi(tid, "iqn.x:a/b\nc", false), &t),
	                 0);
	ck_assert_int_eq(prin_format_transport_id(&t, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "iqn.x:a?b?c");
	ck_assert_int_eq(prin_format_transport_id(&t, s, 5), -ENOBUFS);

	ck_assert_int_eq(prin_parse_transport_id(tid, tid_port(tid, PRIN_PROTO_FC, 0x2100), &t), 0);
	ck_assert_int_eq(prin_format_transport_id(&t, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "fc:0x0000000000002100");
	ck_assert_int_eq(prin_format_transport_id(&t, s, 10), -ENOBUFS);

	tid[0] = 0x1; /* parallel SCSI: decoded to its protocol only */
	ck_assert_int_eq(prin_parse_transport_id(tid, 24, &t), 0);
	ck_assert_int_eq(prin_format_transport_id(&t, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "proto-1");
	ck_assert_int_eq(prin_parse_transport_id(tid, 3, &t), -EBADMSG);

	ck_assert_str_eq(prin_type_name(0x5), "WE-RO");
	ck_assert_ptr_null(prin_type_name(0x2));
}
END_TEST

/* LIO over iSCSI, after this initiator registered and reserved (tests/fixtures/captured). */
START_TEST(test_captured_lio)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ uint8_t *buf = malloc(PRIN_ALLOC_MAX);
	PrinIdentity us = iscsi_id("iqn.1993-08.org.debian:01:lund-vm"),
	             other = iscsi_id("iqn.1993-08.org.debian:01:other");
	char s[PRIN_DESCRIBE_MAX];
	PrinStatus st;
	size_t len, n;

	text = check_read_file(FIXTURES_DIR "/captured/lio-iscsi-fileio/prin-full-status.hex",
	                       false, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(hexfile_parse((const uint8_t *)text, len, buf, PRIN_ALLOC_MAX, &n), 0);
	ck_assert_uint_eq(n, 8 + 80);
	ck_assert_int_eq(prin_parse_full_status(buf, n, &us, 1, NULL, 0, &st), 0);
	ck_assert_int_eq(prin_describe(&st, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "1 key (this host), WE held by this host");
	ck_assert_uint_eq(st.holder_key, 0x1234);
	ck_assert_int_eq(prin_parse_full_status(buf, n, &other, 1, NULL, 0, &st), 0);
	ck_assert_int_eq(prin_describe(&st, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "1 key, WE held by iqn.1993-08.org.debian:01:lund-vm (key 0x1234)");
}
END_TEST

START_TEST(test_response_len)
{
	uint8_t b[8] = { 0, 0, 0, 1, 0, 0, 0x10, 0 };
	size_t n;

	ck_assert_int_eq(prin_response_len(b, sizeof(b), &n), 0);
	ck_assert_uint_eq(n, 8 + 0x1000);
	ck_assert_int_eq(prin_response_len(b, 7, &n), -EBADMSG);
}
END_TEST

static Suite *prin_suite(void)
{
	Suite *s = suite_create("prin");
	TCase *tc = tcase_create("prin");

	tcase_add_test(tc, test_full_status_ours_holder);
	tcase_add_test(tc, test_full_status_other_holder);
	tcase_add_test(tc, test_full_status_all_registrants);
	tcase_add_test(tc, test_full_status_empty);
	CHECK_ADD_LOOP(tc, test_full_status_bad, bad_cases);
	tcase_add_test(tc, test_keys_reservation);
	tcase_add_test(tc, test_transport_id_format);
	tcase_add_test(tc, test_captured_lio);
	tcase_add_test(tc, test_response_len);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(prin_suite)
