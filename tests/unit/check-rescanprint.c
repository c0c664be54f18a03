/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rescanprint: `lunctl rescan`'s human form printed straight from the engine's ScanResult (a
 * scan of this process) is byte for byte the form printed from the same result's JSON (a scan
 * of lund's), for every part of it: shown and hidden actions, dry runs, failures of actions,
 * targets and hosts, sequential targets, the REIDENT column.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "lunctl-rescan-print.h"
#include "macro.h"
#include "scan-json.h"

static ScanAction act(ScanActionKind kind, unsigned h, unsigned c, unsigned t, uint64_t l,
                      const char *reason, int error)
{
	ScanAction a = { .kind = kind,
		         .host = h,
		         .channel = c,
		         .target = t,
		         .lun = l,
		         .error = error,
		         .applied = error >= 0 };

	snprintf(a.hctl, sizeof(a.hctl), "%u:%u:%u:%llu", h, c, t, (unsigned long long)l);
	snprintf(a.reason, sizeof(a.reason), "%s", reason);
	if (kind != SCAN_ACTION_KEEP) {
		snprintf(a.path, sizeof(a.path), "sys/class/scsi_host/host%u/scan", h);
		snprintf(a.value, sizeof(a.value), "%u %u %llu", c, t, (unsigned long long)l);
	}
	return a;
}

static ScanAction probe(unsigned h, int error)
{
	ScanAction a = { .kind = SCAN_ACTION_PROBE, .host = h, .error = error };

	snprintf(a.hctl, sizeof(a.hctl), "%u:-:-:0", h);
	snprintf(a.reason, sizeof(a.reason), "find targets: LUN 0 of every target the host allows");
	snprintf(a.path, sizeof(a.path), "sys/class/scsi_host/host%u/scan", h);
	snprintf(a.value, sizeof(a.value), "- - 0");
	return a;
}

static ScanTarget tgt(unsigned h, unsigned c, unsigned t, ScanMethod m, int error, const char *via,
                      const char *detail)
{
	ScanTarget x = { .host = h,
		         .channel = c,
		         .target = t,
		         .method = m,
		         .error = error,
		         .reported = 3,
		         .commands = 1 };

	snprintf(x.hctl, sizeof(x.hctl), "%u:%u:%u", h, c, t);
	snprintf(x.source, sizeof(x.source), "sysfs");
	snprintf(x.via, sizeof(x.via), "%s", via);
	snprintf(x.detail, sizeof(x.detail), "%s", detail);
	return x;
}

/* What a case's scan left: filled in at run time (the helpers above are not constants). */
typedef struct Built {
	ScanHost hosts[2];
	ScanTarget targets[3];
	ScanAction actions[6];
	ScanResult r;
} Built;

static void finish(Built *b, size_t n_hosts, size_t n_targets, size_t n_actions)
{
	b->r = (ScanResult){ .hosts = b->hosts,
		             .n_hosts = n_hosts,
		             .targets = b->targets,
		             .n_targets = n_targets,
		             .actions = b->actions,
		             .n_actions = n_actions };
}

static void build_add(Built *b)
{
	b->hosts[0] =
	        (ScanHost){ .host = 3, .proc_name = "scsi_debug", .added = 2, .unchanged = 960 };
	b->targets[0] = tgt(3, 0, 0, SCAN_METHOD_REPORT_LUNS, 0, "3:0:0:0", "");
	b->actions[0] = probe(3, 0);
	b->actions[1] = act(SCAN_ACTION_ADD, 3, 0, 0, 60, "reported, not instantiated", 0);
	b->actions[2] = act(SCAN_ACTION_ADD, 3, 0, 0, 61, "reported, not instantiated", 0);
	finish(b, 1, 1, 3);
}

static void build_dry_run(Built *b)
{
	b->hosts[0] =
	        (ScanHost){ .host = 0, .proc_name = "fake", .added = 1, .removed = 1, .kept = 1 };
	b->targets[0] = tgt(0, 0, 1, SCAN_METHOD_REPORT_LUNS, 0, "0:0:1:0", "");
	b->actions[0] = probe(0, 0);
	b->actions[1] = act(SCAN_ACTION_ADD, 0, 0, 1, 4, "reported, not instantiated", 0);
	b->actions[2] = act(SCAN_ACTION_REMOVE, 0, 0, 1, 2, "no longer reported", 0);
	b->actions[3] = act(SCAN_ACTION_KEEP, 0, 0, 1, 3, "mounted", 0);
	finish(b, 1, 1, 4);
}

static void build_failures(Built *b)
{
	b->hosts[0] = (ScanHost){ .host = 1, .failed = 3, .error = -EACCES };
	b->hosts[1] =
	        (ScanHost){ .host = 2, .proc_name = "a-driver-name-longer-than-14", .resized = 1 };
	b->targets[0] = tgt(1, 0, 0, SCAN_METHOD_NONE, -EIO, "1:0:0:0", "REPORT LUNS: sense key 4");
	b->targets[1] = tgt(1, 0, 1, SCAN_METHOD_NONE, -ETIMEDOUT, "", "");
	b->targets[2] = tgt(2, 0, 0, SCAN_METHOD_SEQUENTIAL, 0, "", "LUND_SCAN_SEQUENTIAL quirk");
	b->actions[0] = probe(1, -EACCES);
	b->actions[1] = act(SCAN_ACTION_ADD, 1, 0, 1, 1, "reported", -ENXIO);
	b->actions[2] = act(SCAN_ACTION_RESIZE, 2, 0, 0, 0, "capacity changed", 0);
	b->actions[2].old_size = 1 << 20;
	b->actions[2].new_size = 2 << 20;
	finish(b, 2, 3, 3);
}

static void build_ids(Built *b)
{
	b->hosts[0] = (ScanHost){
		.host = 5, .proc_name = "virtio_scsi", .reidentified = 1, .unchanged = 4
	};
	b->targets[0] = tgt(5, 0, 2, SCAN_METHOD_KERNEL, 0, "", "");
	b->actions[0] = act(SCAN_ACTION_REIDENTIFY, 5, 0, 2, 0, "VPD page 0x83 changed", 0);
	finish(b, 1, 1, 1);
}

static void build_nothing(Built *b)
{
	b->hosts[0] = (ScanHost){ .host = 7, .proc_name = "x" };
	finish(b, 1, 0, 0);
}

static const struct {
	const char *name;
	ScanFlags flags;
	void (*build)(Built *b);
	const char *expect; /* the whole output, where given */
} cases[] = {
	{ "add", SCAN_ADD, build_add,
	  "add    3:0:0:60         reported, not instantiated\n"
	  "add    3:0:0:61         reported, not instantiated\n"
	  "HOST     DRIVER          ADDED  REMOVED  RESIZED  UNCHANGED  KEPT  FAILED\n"
	  "host3    scsi_debug          2        0        0        960     0       0\n" },
	{ "dry run", SCAN_ADD | SCAN_REMOVE | SCAN_DRY_RUN, build_dry_run,
	  "would probe  0:-:-:0          find targets: LUN 0 of every target the host allows"
	  " [echo '- - 0' > /sys/class/scsi_host/host0/scan]\n"
	  "would add    0:0:1:4          reported, not instantiated"
	  " [echo '0 1 4' > /sys/class/scsi_host/host0/scan]\n"
	  "would remove 0:0:1:2          no longer reported"
	  " [echo '0 1 2' > /sys/class/scsi_host/host0/scan]\n"
	  "keep   0:0:1:3          mounted\n"
	  "HOST     DRIVER           +ADD  +REMOVE  +RESIZE  UNCHANGED  KEPT  FAILED\n"
	  "host0    fake                1        1        0          0     1       0\n" },
	{ "failures", SCAN_ADD | SCAN_RESIZE, build_failures, NULL },
	{ "ids", SCAN_ADD | SCAN_IDS, build_ids, NULL },
	{ "ids, dry run, nothing", SCAN_IDS | SCAN_DRY_RUN, build_nothing,
	  "HOST     DRIVER           +ADD  +REMOVE  +RESIZE +REIDENT  UNCHANGED  KEPT  FAILED\n"
	  "host7    x                   0        0        0        0          0     0       0\n" },
};

static char *render(void (*fn)(FILE *, const void *, ScanFlags), const void *arg, ScanFlags flags)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	ck_assert_ptr_nonnull(f);
	fn(f, arg, flags);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static void print_result(FILE *f, const void *r, ScanFlags flags)
{
	rescan_print_result(f, r, flags);
}

static void print_json(FILE *f, const void *r, ScanFlags flags)
{
	json_object *o = scan_result_to_json(r, flags, "lunctl");
	json_object *back;

	ck_assert_ptr_nonnull(o);
	/* through its text, as lund's reply arrives */
	back = json_tokener_parse(json_object_to_json_string(o));
	ck_assert_ptr_nonnull(back);
	rescan_print_json(f, back);
	json_object_put(back);
	json_object_put(o);
}

START_TEST(test_same_form)
{
	static Built b;
	_cleanup_free_ char *direct = NULL, *json = NULL;

	memset(&b, 0, sizeof(b));
	cases[_i].build(&b);
	direct = render(print_result, &b.r, cases[_i].flags);
	json = render(print_json, &b.r, cases[_i].flags);

	ck_assert_msg(streq(direct, json), "%s: from the result:\n%s\nfrom JSON:\n%s",
	              cases[_i].name, direct, json);
	if (cases[_i].expect)
		ck_assert_msg(streq(direct, cases[_i].expect), "%s:\n%s", cases[_i].name, direct);
}
END_TEST

static Suite *rescanprint_suite(void)
{
	Suite *s = suite_create("rescanprint");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_same_form, cases);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(rescanprint_suite)
