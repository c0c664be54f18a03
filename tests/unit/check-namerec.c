/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * namerec: the name record file (parse, format, a file cut short or damaged) and the diff,
 * accept and keep rules that make an old name an alias until the admin accepts the change.
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "namerec.h"

static const struct {
	const char *in;
	int r;
	size_t n, bad;
	const char *out; /* namerec_format() of the result, NULL when r < 0 */
} parse_cases[] = {
	{ "lund-names 1\n", 0, 0, 0, "lund-names 1\n" },
	{ "lund-names 1", 0, 0, 0, "lund-names 1\n" },
	{ "lund-names 1\nA name scsi/by-id/scsi-SA\n", 0, 1, 0,
	  "lund-names 1\nA name scsi/by-id/scsi-SA\n" },
	/* sorted by name on output; comments and empty lines skipped */
	{ "lund-names 1\n# c\n\nB alias scsi/b\nA name scsi/a\n", 0, 2, 0,
	  "lund-names 1\nA name scsi/a\nB alias scsi/b\n" },
	/* the later of two records of one name counts, the other is reported */
	{ "lund-names 1\nA name scsi/a\nB name scsi/a\n", 0, 1, 1,
	  "lund-names 1\nB name scsi/a\n" },
	/* a last line without '\n' was cut short by a crash */
	{ "lund-names 1\nA name scsi/a\nB name scsi/b", 0, 1, 1, "lund-names 1\nA name scsi/a\n" },
	/* malformed lines are skipped, the rest kept */
	{ "lund-names 1\nA name\nA bogus scsi/a\nA name /abs\nA name a/../b\nA name a//b\n"
	  "A name a/\nA name ./a\nA/B name x\nA name a b\n A name a\nA  name a\nA name \n"
	  "A name a\x01\nA name ok\n",
	  0, 1, 13, "lund-names 1\nA name ok\n" },
	/* a damaged header is the whole file */
	{ "", -EBADMSG, 0, 0, NULL },
	{ "lund-names 2\nA name a\n", -EBADMSG, 0, 0, NULL },
	{ "lund-names 1 \nA name a\n", -EBADMSG, 0, 0, NULL },
	{ "\nlund-names 1\n", -EBADMSG, 0, 0, NULL },
	{ "lund-names", -EBADMSG, 0, 0, NULL },
	{ "\0und-names 1\n", -EBADMSG, 0, 0, NULL },
};

START_TEST(test_parse)
{
	NameRecSet s = {};
	size_t bad = 99, len;
	char *out;
	int r;

	r = namerec_parse(parse_cases[_i].in, strlen(parse_cases[_i].in), &s, &bad);
	ck_assert_int_eq(r, parse_cases[_i].r);
	if (r < 0) {
		ck_assert_uint_eq(bad, 99);
		return;
	}
	ck_assert_uint_eq(s.n, parse_cases[_i].n);
	ck_assert_uint_eq(bad, parse_cases[_i].bad);
	ck_assert_int_eq(namerec_format(&s, &out, &len), 0);
	ck_assert_uint_eq(len, strlen(out));
	ck_assert_str_eq(check_unsum(out), parse_cases[_i].out);
	free(out);
	namerec_set_done(&s);
}
END_TEST

START_TEST(test_limits)
{
	char id[NAMEREC_IDENTITY_MAX + 2], name[NAMEREC_NAME_MAX + 2];
	NameRecSet s = {};

	memset(id, 'a', sizeof(id));
	id[NAMEREC_IDENTITY_MAX] = '\0';
	memset(name, 'n', sizeof(name));
	name[NAMEREC_NAME_MAX] = '\0';
	ck_assert(namerec_identity_valid(id));
	ck_assert(namerec_name_valid(name));
	ck_assert_int_eq(namerec_set_add(&s, id, name, NAMEREC_NAME), 0);
	id[NAMEREC_IDENTITY_MAX] = 'a';
	id[NAMEREC_IDENTITY_MAX + 1] = '\0';
	name[NAMEREC_NAME_MAX] = 'n';
	name[NAMEREC_NAME_MAX + 1] = '\0';
	ck_assert(!namerec_identity_valid(id));
	ck_assert(!namerec_name_valid(name));
	ck_assert_int_eq(namerec_set_add(&s, id, "a", NAMEREC_NAME), -EINVAL);
	ck_assert_int_eq(namerec_set_add(&s, "a", name, NAMEREC_NAME), -EINVAL);
	ck_assert_int_eq(namerec_set_add(&s, "a", "a", _NAMEREC_STATE_MAX), -EINVAL);
	ck_assert_int_eq(namerec_set_add(&s, "a", "..", NAMEREC_NAME), -EINVAL);
	ck_assert_uint_eq(s.n, 1);
	namerec_set_done(&s);
}
END_TEST

START_TEST(test_too_big)
{
	NameRecSet s = {};
	size_t bad;

	/* the length is checked before any byte is read */
	ck_assert_int_eq(namerec_parse("", (size_t)NAMEREC_FILE_MAX + 1, &s, &bad), -EFBIG);
}
END_TEST

static void load(NameRecSet *s, const char *text)
{
	size_t bad;

	ck_assert_int_eq(namerec_parse(text, strlen(text), s, &bad), 0);
	ck_assert_uint_eq(bad, 0);
}

static char *diff_text(const NameRecSet *rec, const NameRecSet *cur, const char *only)
{
	NameChange *v;
	size_t n;
	char *out = calloc(1, 4096);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(namerec_diff(rec, cur, only, &v, &n), 0);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(out);

		ck_assert_int_lt(snprintf(out + l, 4096 - l, "%s %s %s>%s;",
		                          namechange_kind_name(v[i].kind), v[i].name,
		                          v[i].old_identity ?: "-", v[i].new_identity ?: "-"),
		                 (int)(4096 - l));
	}
	free(v);
	return out;
}

/* Recorded names, names computed now, and what diff, accept (all / of one identity) and keep
 * make of them. */
static const struct {
	const char *recorded, *current, *only;
	const char *diff, *accepted, *kept;
} rule_cases[] = {
	/* nothing changed */
	{ "lund-names 1\nA name x\n", "lund-names 1\nA name x\n", NULL, "",
	  "lund-names 1\nA name x\n", "lund-names 1\nA name x\n" },
	/* first start: every name is new */
	{ "lund-names 1\n", "lund-names 1\nA name x\nA name y\n", NULL, "added x ->A;added y ->A;",
	  "lund-names 1\nA name x\nA name y\n", "lund-names 1\nA name x\nA name y\n" },
	/* a rename (an hwdb or rules change): the old name stays as an alias until accepted */
	{ "lund-names 1\nA name old\n", "lund-names 1\nA name new\n", NULL,
	  "added new ->A;removed old A>-;", "lund-names 1\nA name new\n",
	  "lund-names 1\nA name new\nA alias old\n" },
	/* the alias, once recorded, is still pending */
	{ "lund-names 1\nA name new\nA alias old\n", "lund-names 1\nA name new\n", NULL,
	  "removed old A>-;", "lund-names 1\nA name new\n",
	  "lund-names 1\nA name new\nA alias old\n" },
	/* an LU that is not attached keeps its records, and nothing is reported for it */
	{ "lund-names 1\nA name x\nB name y\n", "lund-names 1\nA name x\n", NULL, "",
	  "lund-names 1\nA name x\nB name y\n", "lund-names 1\nA name x\nB name y\n" },
	/* a name that would point at another LU */
	{ "lund-names 1\nA name x\n", "lund-names 1\nB name x\n", NULL, "retargeted x A>B;",
	  "lund-names 1\nB name x\n", "lund-names 1\nB name x\n" },
	/* accepting one identity leaves the other's change pending */
	{ "lund-names 1\nA name a1\nB name b1\n", "lund-names 1\nA name a2\nB name b2\n", "A",
	  "removed a1 A>-;added a2 ->A;", "lund-names 1\nA name a2\nB name b1\n",
	  "lund-names 1\nA alias a1\nA name a2\nB alias b1\nB name b2\n" },
	/* an accepted identity has exactly its current names, whoever wants its old ones */
	{ "lund-names 1\nA name x\n", "lund-names 1\nA name y\nB name x\n", "A",
	  "retargeted x A>B;added y ->A;", "lund-names 1\nA name y\n",
	  "lund-names 1\nB name x\nA name y\n" },
	{ "lund-names 1\nA name x\n", "lund-names 1\nA name y\nB name x\n", "B",
	  "retargeted x A>B;", "lund-names 1\nB name x\n", "lund-names 1\nB name x\nA name y\n" },
};

START_TEST(test_rules)
{
	NameRecSet rec = {}, cur = {}, out = {};
	char *d, *text;
	size_t len;

	load(&rec, rule_cases[_i].recorded);
	load(&cur, rule_cases[_i].current);
	d = diff_text(&rec, &cur, rule_cases[_i].only);
	ck_assert_str_eq(d, rule_cases[_i].diff);
	free(d);

	ck_assert_int_eq(namerec_accept(&rec, &cur, rule_cases[_i].only, &out), 0);
	ck_assert_int_eq(namerec_format(&out, &text, &len), 0);
	ck_assert_str_eq(check_unsum(text), rule_cases[_i].accepted);
	free(text);
	/* accepted: nothing left pending for the accepted identities */
	d = diff_text(&out, &cur, rule_cases[_i].only);
	ck_assert_str_eq(d, "");
	free(d);
	namerec_set_done(&out);

	ck_assert_int_eq(namerec_keep(&rec, &cur, &out), 0);
	ck_assert_int_eq(namerec_format(&out, &text, &len), 0);
	ck_assert_str_eq(check_unsum(text), rule_cases[_i].kept);
	free(text);
	namerec_set_done(&out);
	namerec_set_done(&rec);
	namerec_set_done(&cur);
}
END_TEST

/* The checksum line: a bit flipped anywhere in a file lund wrote never gives a name to another
 * identity: the file is unreadable as a whole (header, records, checksum), or what is read is
 * records of the file as written (the flip hit the checksum line's own "#sum ", or a line break
 * and the record it ended is skipped). Without the line, the file reads as it is. */
START_TEST(test_checksum)
{
	NameRecSet s = {}, back = {};
	size_t len, bad;
	char *text, *copy;

	ck_assert_int_eq(namerec_set_add(&s, "35000c500a1b2c3d4",
	                                 "scsi/by-id/wwn-0x5000c500a1b2c3d4", NAMEREC_NAME),
	                 0);
	ck_assert_int_eq(namerec_set_add(&s, "35000c500a1b2c3d5", "scsi/by-id/old", NAMEREC_ALIAS),
	                 0);
	ck_assert_uint_eq(namerec_set_sort(&s), 0);
	ck_assert_int_eq(namerec_format(&s, &text, &len), 0);
	ck_assert_int_eq(namerec_parse(text, len, &back, &bad), 0);
	ck_assert_uint_eq(back.n, 2);
	ck_assert_uint_eq(bad, 0);
	namerec_set_done(&back);

	copy = malloc(len);
	ck_assert_ptr_nonnull(copy);
	for (size_t bit = 0; bit < len * 8; bit++) {
		int r;

		memcpy(copy, text, len);
		copy[bit / 8] ^= (char)(1u << (bit % 8));
		r = namerec_parse(copy, len, &back, &bad);
		if (r == -EBADMSG || r == -EBADE)
			continue;
		ck_assert_int_eq(r, 0);
		for (size_t i = 0; i < back.n; i++) {
			const NameRec *o = namerec_set_find(&s, back.rec[i].name);

			if (!o || !streq(o->identity, back.rec[i].identity) ||
			    o->state != back.rec[i].state)
				ck_abort_msg("bit %zu flipped: %s %s is no record written", bit,
				             back.rec[i].identity, back.rec[i].name);
		}
		namerec_set_done(&back);
	}

	/* Not the last line: damaged too. */
	memcpy(copy, text, len);
	ck_assert_int_eq(namerec_parse(text, len - 1, &back, &bad), -EBADE);
	free(copy);
	ck_assert_ptr_nonnull(copy = strjoin(text, "x y z\n"));
	ck_assert_int_eq(namerec_parse(copy, strlen(copy), &back, &bad), -EBADE);
	free(copy);
	/* Without it: read as it is (by hand, an older lund). */
	check_unsum(text);
	ck_assert_int_eq(namerec_parse(text, strlen(text), &back, &bad), 0);
	ck_assert_uint_eq(back.n, 2);
	namerec_set_done(&back);
	free(text);
	namerec_set_done(&s);
}
END_TEST

static Suite *namerec_suite(void)
{
	Suite *s = suite_create("namerec");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_parse, parse_cases);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_checksum);
	CHECK_ADD_LOOP(tc, test_rules, rule_cases);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(namerec_suite)
