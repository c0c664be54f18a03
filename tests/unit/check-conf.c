/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * lund.conf loaded once (conf.h) and shared by its two consumers: the daemon's policy engine
 * (policy-apply.h), which writes an LU's sysfs attributes, and the scan quirks (scanquirk.h).
 * The file is parsed by conf_load() alone: after the load it is rewritten, and both consumers
 * must still see what was loaded, from the very same object. Each must see every setting it
 * saw when it read the file itself.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "conf.h"
#include "confcheck.h"
#include "errpolicy.h"
#include "exclusion.h"
#include "inventory.h"
#include "macro.h"
#include "policy-apply.h"
#include "policyknob.h"
#include "scanquirk.h"
#include "sysfs.h"

#define LU "sys/bus/scsi/devices/2:0:0:0"

static CheckTree tree;
static char conf[PATH_MAX];

static void setup(void)
{
	check_tree_new(&tree, "check-conf");
	xsnprintf(conf, "%s/lund.conf", tree.path);
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static void write_conf(const char *text)
{
	check_tree_put_str(&tree, "lund.conf", text);
}

/* An attribute's value without its newline. */
static char *get_file(const char *rel)
{
	char *v = check_tree_get(&tree, rel);

	ck_assert_ptr_nonnull(v);
	v[strcspn(v, "\n")] = 0;
	return v;
}

/* One disk LU's policy attributes in the tree; returns a root fd of its own on it. */
static int make_tree(void)
{
	int fd;

	check_tree_put_str(&tree, LU "/timeout", "30\n");
	check_tree_put_str(&tree, LU "/eh_timeout", "10\n");
	/* a sysfs write does not truncate: the values start as long as lund's or shorter */
	check_tree_put_str(&tree, LU "/queue_depth", "1\n");
	check_tree_put_str(&tree, LU "/scsi_disk/2:0:0:0/max_retries", "5\n");
	check_tree_put_str(&tree, LU "/retry_limit", "7\n");
	check_tree_put_str(&tree, LU "/failfast", "none\n");
	fd = sysfs_open_root(tree.path);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Policy keys and scan keys in the same sections, as lund.conf(5) documents them. */
static const char *const conf_text = "[defaults]\n"
                                     "timeout = 60\n"
                                     "scan_max_lun = 4\n"
                                     "\n"
                                     "[device old-raid]\n"
                                     "vendor = FAKE\n"
                                     "model = DISK*\n"
                                     "eh_timeout = 20\n"
                                     "queue_depth = 8\n"
                                     "max_retries = 2\n"
                                     "retry_limit = 3\n"
                                     "failfast = driver,transport\n"
                                     "scan_sequential = yes\n"
                                     "\n"
                                     "[device old-raid-sparse]\n"
                                     "vendor = fake\n"
                                     "model = DISK2\n"
                                     "timeout = 90\n"
                                     "scan_sparse = on\n"
                                     "scan_max_lun = 16\n"
                                     "\n"
                                     "[elsewhere]\n"
                                     "timeout = 1\n"
                                     "scan_sequential = yes\n";

/* What a rewrite after the load would change, were the file read again. */
static const char *const conf_rewritten = "[defaults]\n"
                                          "timeout = 5\n"
                                          "scan_sequential = no\n"
                                          "scan_max_lun = 2\n";

static Lu test_lu(const char *model)
{
	return (Lu){
		.hctl = (char *)"2:0:0:0",
		.syspath = (char *)LU,
		.type = 0,
		.vendor = (char *)"FAKE",
		.model = (char *)model,
		.revision = (char *)"0001",
		.block = (char *)"sda",
	};
}

START_TEST(test_sections)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;
	const ConfSection *s;

	write_conf(conf_text);
	ck_assert_int_eq(conf_load(conf, "/nonexistent/hwdb.bin", &c), 0);
	ck_assert_str_eq(conf_get_path(c), conf);
	ck_assert_int_eq(conf_file_error(c), 0);
	ck_assert_ptr_null(conf_hwdb(c));
	ck_assert_int_lt(conf_hwdb_error(c), 0);
	ck_assert_str_eq(conf_hwdb_path(c), "/nonexistent/hwdb.bin");
	ck_assert_uint_eq(conf_n_sections(c), 4);

	s = conf_section(c, 0);
	ck_assert_int_eq(s->kind, CONF_SECTION_DEFAULTS);
	ck_assert_ptr_null(s->name);
	ck_assert_uint_eq(s->n_entries, 2);
	ck_assert_str_eq(s->entries[0].key, "timeout");
	ck_assert_str_eq(s->entries[1].key, "scan_max_lun");
	ck_assert_str_eq(conf_section_get(s, "timeout"), "60");
	ck_assert_ptr_null(conf_section_get(s, "eh_timeout"));
	ck_assert(conf_section_applies(s, 0, "ANY", "THING"));
	ck_assert(!conf_section_applies(s, 1, "ANY", "THING"));

	s = conf_section(c, 1);
	ck_assert_int_eq(s->kind, CONF_SECTION_DEVICE);
	ck_assert_str_eq(s->title, "device old-raid");
	ck_assert_str_eq(s->name, "old-raid");
	ck_assert_str_eq(s->vendor, "FAKE");
	ck_assert_str_eq(s->model, "DISK*");
	ck_assert_uint_eq(s->n_entries, 8);
	ck_assert_str_eq(conf_section_get(s, "failfast"), "driver,transport");
	ck_assert(conf_section_applies(s, 1, "fake", "disk9"));
	ck_assert(!conf_section_applies(s, 1, "FAKE", "TAPE"));
	ck_assert(!conf_section_applies(s, 0, "FAKE", "DISK"));

	/* an unknown section is kept, to be named, and applies to nothing */
	s = conf_section(c, 3);
	ck_assert_int_eq(s->kind, CONF_SECTION_UNKNOWN);
	ck_assert_str_eq(s->title, "elsewhere");
	ck_assert(!conf_section_applies(s, 0, "FAKE", "DISK"));
	ck_assert(!conf_section_applies(s, 1, "FAKE", "DISK"));
	ck_assert_ptr_null(conf_section(c, 4));
}
END_TEST

START_TEST(test_shared_once)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	PolicyEngine *p = NULL;
	ScanQuirks *q = NULL;
	ScanQuirk got;
	Lu lu;
	char *v;

	rootfd = make_tree();

	write_conf(conf_text);
	ck_assert_int_eq(conf_load(conf, "/nonexistent/hwdb.bin", &c), 0);
	ck_assert_int_eq(policy_engine_new(rootfd, c, &p), 0);
	ck_assert_int_eq(scan_quirks_new_from_conf(c, &q), 0);
	/* one object, not two loads */
	ck_assert_ptr_eq(policy_engine_conf(p), c);
	ck_assert_ptr_eq(scan_quirks_conf(q), c);
	/* the file is not read again: what the consumers see was fixed at the load */
	write_conf(conf_rewritten);
	ck_assert_int_eq(unlink(conf), 0);

	/* the policy: [defaults] then [device old-raid]; every knob written */
	lu = test_lu("DISK");
	ck_assert_int_eq(policy_apply(p, &lu, "add"), 6);
	ck_assert_str_eq((v = get_file(LU "/timeout")), "60");
	free(v);
	ck_assert_str_eq((v = get_file(LU "/eh_timeout")), "20");
	free(v);
	ck_assert_str_eq((v = get_file(LU "/queue_depth")), "8");
	free(v);
	ck_assert_str_eq((v = get_file(LU "/scsi_disk/2:0:0:0/max_retries")), "2");
	free(v);
	ck_assert_str_eq((v = get_file(LU "/retry_limit")), "3");
	free(v);
	ck_assert_str_eq((v = get_file(LU "/failfast")), "transport,driver");
	free(v);
	/* the later device section wins */
	lu = test_lu("DISK2");
	ck_assert_int_eq(policy_apply(p, &lu, "add"), 1);
	ck_assert_str_eq((v = get_file(LU "/timeout")), "90");
	free(v);

	/* the scan quirks from the same sections */
	ck_assert(scan_quirks_active(q));
	ck_assert_int_eq(scan_quirks_lookup(q, 0, "FAKE", "DISK", "", &got, NULL, 0), 0);
	ck_assert(got.sequential);
	ck_assert(!got.sparse);
	ck_assert_uint_eq(got.max_lun, 4);
	ck_assert_int_eq(scan_quirks_lookup(q, 0, "FAKE", "DISK2", "", &got, NULL, 0), 0);
	ck_assert(got.sequential);
	ck_assert(got.sparse);
	ck_assert_uint_eq(got.max_lun, 16);
	ck_assert_int_eq(scan_quirks_lookup(q, 0, "OTHER", "X", "", &got, NULL, 0), 0);
	ck_assert(!got.sequential);
	ck_assert_uint_eq(got.max_lun, 4);

	/* each consumer holds its own reference: the object outlives the loader's */
	c = conf_unref(c);
	ck_assert_int_eq(scan_quirks_lookup(q, 0, "FAKE", "DISK", "", &got, NULL, 0), 0);
	ck_assert(got.sequential);
	scan_quirks_free(q);
	lu = test_lu("DISK");
	ck_assert_int_eq(policy_apply(p, &lu, "add"), 1); /* timeout 90 -> 60 */
	policy_engine_free(p);
}
END_TEST

START_TEST(test_unparsable)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	PolicyEngine *p = NULL;
	ScanQuirks *q = NULL;
	Lu lu = test_lu("DISK");
	char *v;

	rootfd = make_tree();

	/* ignored as a whole by both consumers, never half applied */
	write_conf("[defaults]\ntimeout = 60\nscan_sequential = yes\n[device\n");
	ck_assert_int_eq(conf_load(conf, "/nonexistent/hwdb.bin", &c), -EBADMSG);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(conf_file_error(c), -EBADMSG);
	ck_assert_uint_eq(conf_n_sections(c), 0);
	ck_assert_int_eq(policy_engine_new(rootfd, c, &p), 0);
	ck_assert_int_eq(scan_quirks_new_from_conf(c, &q), 0);
	ck_assert(!scan_quirks_active(q));
	ck_assert_int_eq(policy_apply(p, &lu, "add"), 0);
	ck_assert_str_eq((v = get_file(LU "/timeout")), "30");
	free(v);
	scan_quirks_free(q);
	policy_engine_free(p);

	/* and the daemon's loader, which logs the same, still hands out the object */
	c = conf_unref(c);
	ck_assert_int_eq(policy_conf_load(conf, "/nonexistent/hwdb.bin", &c), 0);
	ck_assert_int_eq(conf_file_error(c), -EBADMSG);
}
END_TEST

/* A FIFO or a device at the path: unreadable at once, as a file with a syntax error is. */
START_TEST(test_not_regular)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;

	ck_assert_int_eq(mkfifo(conf, 0600), 0);
	ck_assert_int_eq(conf_load(conf, "/nonexistent/hwdb.bin", &c), -EBADMSG);
	ck_assert_int_eq(conf_file_error(c), -EBADMSG);
	ck_assert_uint_eq(conf_n_sections(c), 0);
	c = conf_unref(c);
	unlink(conf);
	ck_assert_int_eq(conf_load("/dev/zero", "/nonexistent/hwdb.bin", &c), -EBADMSG);
	ck_assert_int_eq(conf_file_error(c), -EBADMSG);
}
END_TEST

START_TEST(test_absent)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;
	ScanQuirks *q = NULL;

	ck_assert_int_eq(conf_load("/nonexistent/lund.conf", "/nonexistent/hwdb.bin", &c), 0);
	ck_assert_int_eq(conf_file_error(c), -ENOENT);
	ck_assert_uint_eq(conf_n_sections(c), 0);
	ck_assert_int_eq(scan_quirks_new_from_conf(c, &q), 0);
	ck_assert(!scan_quirks_active(q));
	scan_quirks_free(q);
	c = conf_unref(c);
	ck_assert_int_eq(conf_load(NULL, "/nonexistent/hwdb.bin", &c), 0);
	ck_assert_str_eq(conf_get_path(c), LUND_CONF_DEFAULT);
}
END_TEST

/* An excluded LU gets no policy, one an exception gives back does; while an LU is being
 * identified and an exclusion might take it by its identity, its policy waits. */
START_TEST(test_excluded_policy)
{
	static const struct {
		const char *text;
		bool pending;
		const char *timeout; /* what the LU's timeout is after the add */
	} rows[] = {
		{ "[defaults]\ntimeout = 77\n", false, "77" },
		{ "[defaults]\ntimeout = 77\n[exclude fake]\nvendor = FAKE\n", false, "30" },
		{ "[defaults]\ntimeout = 77\n[exclude fake]\nvendor = FAKE\nnames = yes\n", false,
		  "30" },
		{ "[defaults]\ntimeout = 77\n[exclude fake]\nvendor = FAKE\n"
		  "[exception disk]\nmodel = DISK\n",
		  false, "77" },
		{ "[defaults]\ntimeout = 77\n[exclude boot]\nwwid = 3600*\n", true, "30" },
		{ "[defaults]\ntimeout = 77\n[exclude boot]\nwwid = 3600*\n", false, "77" },
		{ "[defaults]\ntimeout = 77\n", true, "77" },
	};
	_cleanup_close_ int rootfd = -EBADF;

	rootfd = make_tree();
	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		_cleanup_(conf_unrefp) LundConf *c = NULL;
		_cleanup_free_ char *v = NULL;
		PolicyEngine *p = NULL;
		Lu lu = test_lu("DISK");

		lu.naming_pending = rows[i].pending;
		check_tree_put_str(&tree, LU "/timeout", "30\n");
		write_conf(rows[i].text);
		ck_assert_int_eq(conf_load(conf, "/nonexistent/hwdb.bin", &c), 0);
		ck_assert_int_eq(policy_engine_new(rootfd, c, &p), 0);
		ck_assert_int_ge(policy_apply(p, &lu, "add"), 0);
		v = get_file(LU "/timeout");
		ck_assert_msg(streq(v, rows[i].timeout), "row %zu: timeout %s", i, v);
		policy_engine_free(p);
	}
}
END_TEST

/* lund.conf accepts what lunctl policy accepts (errknob_range()): max_retries beyond sd's 5 is
 * refused with the same bounds, not written for the kernel to refuse. */
START_TEST(test_ranges_shared)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	PolicyEngine *p = NULL;
	Lu lu = test_lu("DISK");
	long min, max;
	char *v;

	rootfd = make_tree();
	ck_assert_int_eq(errknob_range(ERRKNOB_MAX_RETRIES, &min, &max), 0);
	ck_assert_int_eq(min, -1);
	ck_assert_int_eq(max, 5);
	ck_assert_int_eq(errknob_range(ERRKNOB_FAILFAST, &min, &max), -EINVAL);

	check_tree_put_str(&tree, LU "/scsi_disk/2:0:0:0/max_retries", "3\n");
	write_conf("[defaults]\nmax_retries = 6\n");
	ck_assert_int_eq(conf_load(conf, "/nonexistent/hwdb.bin", &c), 0);
	ck_assert_int_eq(policy_engine_new(rootfd, c, &p), 0);
	ck_assert_int_eq(policy_apply(p, &lu, "add"), 0);
	ck_assert_str_eq((v = get_file(LU "/scsi_disk/2:0:0:0/max_retries")), "3");
	free(v);
	policy_engine_free(p);
	c = conf_unref(c);

	write_conf("[defaults]\nmax_retries = -1\n");
	ck_assert_int_eq(conf_load(conf, "/nonexistent/hwdb.bin", &c), 0);
	ck_assert_int_eq(policy_engine_new(rootfd, c, &p), 0);
	ck_assert_int_eq(policy_apply(p, &lu, "add"), 1);
	ck_assert_str_eq((v = get_file(LU "/scsi_disk/2:0:0:0/max_retries")), "-1");
	free(v);
	policy_engine_free(p);
}
END_TEST

/*
 * The hostile corpus, tests/fixtures/conf/NAME.conf: conf_check() reports exactly the problems
 * NAME.expect lists ("LINE: what"), and the daemon agrees with it on every line. Each entry of
 * a section lund reads is either applied (the policy written to the LU's attributes, the scan
 * quirk looked up, the control socket's group) or reported, never both; every other line that
 * holds anything is reported, a section header, or a part of a continued line.
 */
static char **corpus;
static size_t n_corpus;
static char seen[8192];

static void on_problem(const char *path, unsigned line, const char *message, void *userdata)
{
	size_t n = strlen(seen);

	ck_assert_int_lt(snprintf(seen + n, sizeof(seen) - n, "%u: %s\n", line, message),
	                 (int)(sizeof(seen) - n));
}

/* A problem at @line whose message holds @needle ("" for any). */
static bool reported(unsigned line, const char *needle)
{
	char key[16];

	xsnprintf(key, "%u: ", line);
	for (const char *p = seen; *p; p = strchr(p, '\n') + 1) {
		size_t n = strcspn(p, "\n");

		if (strneq(p, key, strlen(key)) && memmem(p, n, needle, strlen(needle)))
			return true;
	}
	return false;
}

static bool entry_line(const LundConf *c, unsigned line)
{
	for (size_t i = 0; i < conf_n_sections(c); i++)
		for (size_t j = 0; j < conf_section(c, i)->n_entries; j++)
			if (conf_section(c, i)->entries[j].line == line)
				return true;
	return false;
}

/* What lund applies to the LU FAKE DISK by the rules of lund.conf(5), from the entries not
 * reported, against what policy_apply() and scan_quirks_lookup() did. */
static void check_applied(LundConf *c, int rootfd)
{
	static const char *const attrs[] = {
		[KNOB_TIMEOUT] = LU "/timeout",
		[KNOB_EH_TIMEOUT] = LU "/eh_timeout",
		[KNOB_MAX_RETRIES] = LU "/scsi_disk/2:0:0:0/max_retries",
		[KNOB_QUEUE_DEPTH] = LU "/queue_depth",
		[KNOB_RETRY_LIMIT] = LU "/retry_limit",
		[KNOB_FAILFAST] = LU "/failfast",
	};
	/* no longer than anything written: the tree's files are not truncated by a write */
	char want[ELEMENTSOF(attrs)][ERRKNOB_VALUE_MAX] = { "1", "1", "4", "1", "9", "none" };
	ScanQuirk quirk, got;
	PolicyEngine *p = NULL;
	ScanQuirks *q = NULL;
	Lu lu = test_lu("DISK");
	const char *g;

	for (size_t k = 0; k < ELEMENTSOF(attrs); k++)
		check_tree_put_str(&tree, attrs[k], want[k]);
	quirk = (ScanQuirk){};
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < conf_n_sections(c); i++) {
			const ConfSection *s = conf_section(c, i);

			if (!conf_section_applies(s, pass, "FAKE", "DISK"))
				continue;
			for (size_t j = 0; j < s->n_entries; j++) {
				const ConfEntry *e = &s->entries[j];
				char canon[ERRKNOB_VALUE_MAX];
				bool bad = reported(e->line, "");
				uint64_t n;
				bool b;

				if (bad)
					continue;
				/* the transport's too, which need a worker to be written */
				for (size_t k = 0; k < _KNOB_MAX; k++) {
					if (!streq(e->key, policy_knobs[k].conf_key))
						continue;
					ck_assert_int_eq(policy_knob_validate(k, e->value, canon,
					                                      sizeof(canon)),
					                 0);
					if (k < ELEMENTSOF(attrs))
						strcpy(want[k], canon);
				}
				if (streq(e->key, "scan_max_lun")) {
					ck_assert_int_eq(scan_quirk_parse_max_lun(e->value, &n), 0);
					quirk.max_lun = n;
				}
				if ((streq(e->key, "scan_sequential") ||
				     streq(e->key, "scan_sparse")) &&
				    !bad) {
					ck_assert_int_eq(scan_quirk_parse_bool(e->value, &b), 0);
					*(streq(e->key, "scan_sparse") ? &quirk.sparse
					                               : &quirk.sequential) = b;
				}
			}
		}

	ck_assert_int_eq(policy_engine_new(rootfd, c, &p), 0);
	ck_assert_int_ge(policy_apply(p, &lu, "add"), 0);
	policy_engine_free(p);
	for (size_t k = 0; k < ELEMENTSOF(attrs); k++) {
		_cleanup_free_ char *v = get_file(attrs[k]);

		ck_assert_msg(streq(v, want[k]), "%s: %s written, %s expected", attrs[k], v,
		              want[k]);
	}
	ck_assert_int_eq(scan_quirks_new_from_conf(c, &q), 0);
	(void)scan_quirks_lookup(q, 0, "FAKE", "DISK", "", &got, NULL, 0);
	scan_quirks_free(q);
	ck_assert_int_eq(got.sequential, quirk.sequential);
	ck_assert_int_eq(got.sparse, quirk.sparse);
	ck_assert_uint_eq(got.max_lun, quirk.max_lun);

	/* the control socket's group (iniparser makes one [control] of several): the daemon
	 * resolves it unless it is reported */
	g = conf_read_group(c);
	for (size_t i = 0; g && i < conf_n_sections(c); i++) {
		const ConfSection *s = conf_section(c, i);
		gid_t gid;

		for (size_t j = 0; s->kind == CONF_SECTION_CONTROL && j < s->n_entries; j++)
			if (streq(s->entries[j].key, "read_group"))
				ck_assert_int_eq(conf_group_lookup(g, &gid) < 0,
				                 reported(s->entries[j].line, ""));
	}
}

START_TEST(test_corpus)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;
	_cleanup_free_ char *expect = NULL, *text = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	char path[PATH_MAX];
	unsigned n = 0, line = 0;
	bool continued = false;
	size_t len;
	int r;

	rootfd = make_tree();
	seen[0] = 0;
	xsnprintf(path, FIXTURES_DIR "/conf/%s.conf", corpus[_i]);
	r = conf_load(path, "/nonexistent/hwdb.bin", &c);
	ck_assert(r == 0 || r == -EBADMSG);
	ck_assert_int_eq(r, conf_file_error(c) == -EBADMSG ? -EBADMSG : 0);
	r = conf_check(c, on_problem, NULL);

	/* exactly the problems listed */
	xsnprintf(path, FIXTURES_DIR "/conf/%s.expect", corpus[_i]);
	expect = check_read_file(path, true, NULL);
	for (char *l = expect, *next; *l; l = next) {
		unsigned at;
		int off = 0;

		next = l + strcspn(l, "\n");
		if (*next)
			*next++ = 0;
		ck_assert_int_eq(sscanf(l, "%u: %n", &at, &off), 1);
		ck_assert_msg(reported(at, l + off), "%s: \"%s\" not reported in:\n%s", corpus[_i],
		              l, seen);
		n++;
	}
	ck_assert_msg(r == (int)n, "%s: %d problems, %u expected:\n%s", corpus[_i], r, n, seen);

	/* a file iniparser refused: nothing of it applies */
	check_applied(c, rootfd);
	if (conf_file_error(c) < 0) {
		ck_assert_uint_eq(conf_n_sections(c), 0);
		return;
	}

	/* a key no consumer takes is reported */
	for (size_t i = 0; i < conf_n_sections(c); i++) {
		const ConfSection *s = conf_section(c, i);

		for (size_t j = 0; j < s->n_entries; j++) {
			const char *k = s->entries[j].key;
			bool known = false;

			switch (s->kind) {
			case CONF_SECTION_CONTROL:
				known = streq(k, "read_group");
				break;
			case CONF_SECTION_DEVICE:
				known = streq(k, "vendor") || streq(k, "model");
				_fallthrough_;
			case CONF_SECTION_DEFAULTS:
				known |= scan_quirk_check(k, false, "1") != -ENOENT;
				for (size_t x = 0; x < _KNOB_MAX; x++)
					known |= streq(k, policy_knobs[x].conf_key);
				break;
			case CONF_SECTION_EXCLUDE:
			case CONF_SECTION_EXCEPTION:
			case CONF_SECTION_REACT:
				known = exclusion_check_entry(s->kind, k, "1", NULL) != -ENOENT;
				break;
			case CONF_SECTION_UNKNOWN:
				known = reported(s->line, "unknown section");
				break;
			default:
				break;
			}
			ck_assert_msg(known || reported(s->entries[j].line, ""),
			              "%s:%u: %s ignored, not reported", corpus[_i],
			              s->entries[j].line, k);
		}
	}

	/* every line accounted for */
	xsnprintf(path, FIXTURES_DIR "/conf/%s.conf", corpus[_i]);
	text = check_read_file(path, false, &len);
	for (char *l = text, *next; l < text + len; l = next) {
		size_t e;

		next = l + strcspn(l, "\n");
		if (*next)
			*next++ = 0;
		line++;
		l += strspn(l, " \t\r");
		e = strlen(l);
		while (e > 0 && strchr(" \t\r", l[e - 1]))
			l[--e] = 0;
		if (*l && *l != '#' && *l != ';' && !continued)
			ck_assert_msg(*l == '[' || entry_line(c, line) || reported(line, ""),
			              "%s:%u: neither applied nor reported", corpus[_i], line);
		continued = e > 0 && l[e - 1] == '\\';
	}
}
END_TEST

static Suite *conf_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("conf");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sections);
	tcase_add_test(tc, test_shared_once);
	tcase_add_test(tc, test_unparsable);
	tcase_add_test(tc, test_absent);
	tcase_add_test(tc, test_not_regular);
	tcase_add_test(tc, test_ranges_shared);
	tcase_add_test(tc, test_excluded_policy);
	corpus = check_fixture_list(FIXTURES_DIR "/conf", ".conf", &n_corpus);
	tcase_add_loop_test(tc, test_corpus, 0, (int)n_corpus);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(conf_suite)
