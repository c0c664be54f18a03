/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/errors.c: SDEV_ERROR uevents counted per LU, the threshold's window, its actions
 * (offline writes the LU's state in a temporary sysfs tree), and evt_error switched on only
 * where the patchset's attribute exists.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "check-util.h"
#include "errors.h"
#include "log.h"
#include "macro.h"
#include "sysfs.h"

static const char *ev_transport[] = {
	"ACTION=change",
	"SDEV_ERROR=1",
	"SDEV_ERROR_CLASS=transport",
	"SDEV_ERROR_RETRY=0",
	"SDEV_ERROR_RETRYABLE=1",
	"SDEV_ERROR_ERRNO=5",
	"SDEV_ERROR_RESULT=0",
	"SDEV_ERROR_STATUS=2",
	"SDEV_ERROR_SK=11",
	"SDEV_ERROR_ASC=75",
	"SDEV_ERROR_ASCQ=3",
	"SDEV_ERROR_OPCODE=40",
	"SDEV_ERROR_SECTOR=0",
	"SDEV_ERROR_SUPPRESSED=2",
};
static const char *ev_medium[] = {
	"SDEV_ERROR=1",
	"SDEV_ERROR_CLASS=medium",
	"SDEV_ERROR_RETRY=0",
	"SDEV_ERROR_RETRYABLE=0",
	"SDEV_ERROR_ERRNO=61",
	"SDEV_ERROR_RESULT=0",
	"SDEV_ERROR_STATUS=2",
	"SDEV_ERROR_SK=3",
	"SDEV_ERROR_ASC=17",
	"SDEV_ERROR_ASCQ=0",
	"SDEV_ERROR_OPCODE=40",
	"SDEV_ERROR_SECTOR=4660",
	"SDEV_ERROR_SUPPRESSED=0",
};
static const char *ev_abort[] = {
	"SDEV_ERROR=1",
	"SDEV_ERROR_CLASS=abort",
	"SDEV_ERROR_RETRY=0",
	"SDEV_ERROR_RETRYABLE=1",
	"SDEV_ERROR_ERRNO=5",
	"SDEV_ERROR_RESULT=0",
	"SDEV_ERROR_STATUS=24",
	"SDEV_ERROR_SK=0",
	"SDEV_ERROR_ASC=0",
	"SDEV_ERROR_ASCQ=0",
	"SDEV_ERROR_OPCODE=40",
	"SDEV_ERROR_SECTOR=0",
	"SDEV_ERROR_SUPPRESSED=0",
};
static const char *ev_ua[] = { "ACTION=change", "SDEV_UA=POWER_ON_RESET_OCCURRED" };
static const char *ev_bad[] = { "SDEV_ERROR=1", "SDEV_ERROR_CLASS=transport" };

static const struct {
	const char *in;
	int r;
	ErrClass class;
	unsigned count, window;
	ErrorAction action;
} th[] = {
	{ "transport:5/60:offline", 0, ERRCLASS_TRANSPORT, 5, 60, ERROR_ACTION_OFFLINE },
	{ "timeout:1/1:rescan", 0, ERRCLASS_TIMEOUT, 1, 1, ERROR_ACTION_RESCAN },
	{ "medium:1000/86400:log", 0, ERRCLASS_MEDIUM, 1000, 86400, ERROR_ACTION_LOG },
	{ "transport:0/60:log", -EINVAL },
	{ "transport:1001/60:log", -EINVAL },
	{ "transport:5/0:log", -EINVAL },
	{ "transport:5/60:reboot", -EINVAL },
	{ "bogus:5/60:log", -EINVAL },
	{ "transport:5/60:log:x", -EINVAL },
	{ "transport:5/60", -EINVAL },
	{ "", -EINVAL },
};

START_TEST(test_threshold_parse)
{
	ErrorThreshold t = { .count = 77 };

	ck_assert_int_eq(error_threshold_parse(th[_i].in, &t), th[_i].r);
	if (th[_i].r < 0) {
		ck_assert_uint_eq(t.count, 77);
		return;
	}
	ck_assert_int_eq(t.class, th[_i].class);
	ck_assert_uint_eq(t.count, th[_i].count);
	ck_assert_uint_eq(t.window_sec, th[_i].window);
	ck_assert_int_eq(t.action, th[_i].action);
}
END_TEST

static CheckTree tmp;
#define LU "sys/bus/scsi/devices/2:0:0:0"

static void tree(bool patched)
{
	check_tree_new(&tmp, "check-errors");
	check_tree_put_str(&tmp, LU "/state", "running\n");
	check_tree_put_str(&tmp, LU "/type", "0\n");
	if (patched)
		check_tree_put_str(&tmp, LU "/evt_error", "0\n");
}

static char *state(const char *attr)
{
	_cleanup_close_ int fd = sysfs_open_root(tmp.path);
	char path[128], *s = NULL;

	snprintf(path, sizeof(path), "sys/bus/scsi/devices/2:0:0:0/%s", attr);
	ck_assert_int_eq(sysfs_read_string(fd, path, &s), 0);
	return s;
}

static void untree(void)
{
	check_tree_remove(&tmp);
}

static unsigned rescans;
static int on_rescan(const char *hctl, void *userdata)
{
	ck_assert_str_eq(hctl, "2:0:0:0");
	rescans++;
	return 0;
}

START_TEST(test_count_and_offline)
{
	ErrorThreshold t = { ERRCLASS_TRANSPORT, 3, 10, ERROR_ACTION_OFFLINE };
	LogDevice dev = { .hctl = "2:0:0:0", .devnode = "/dev/sda" };
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	json_object *o, *v;
	char *s;

	tree(false);
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, &t, NULL, NULL, &tr), 0);
	ck_assert_ptr_null(error_tracker_lu_json(tr, "2:0:0:0"));

	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", &dev, ev_ua, ELEMENTSOF(ev_ua), 1), 0);
	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", &dev, ev_bad, ELEMENTSOF(ev_bad), 1),
	                 -EBADMSG);
	/* Two transport errors 20 s apart, a medium error: no crossing. */
	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", &dev, ev_transport,
	                                      ELEMENTSOF(ev_transport), 1000000),
	                 1);
	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", &dev, ev_medium, ELEMENTSOF(ev_medium),
	                                      2000000),
	                 1);
	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", &dev, ev_transport,
	                                      ELEMENTSOF(ev_transport), 21000000),
	                 1);
	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", &dev, ev_transport,
	                                      ELEMENTSOF(ev_transport), 22000000),
	                 1);
	s = state("state");
	ck_assert_str_eq(s, "running"); /* 3 transport errors, but over 21 s */
	free(s);
	/* The third within 10 s of the two before it: offline. */
	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", &dev, ev_transport,
	                                      ELEMENTSOF(ev_transport), 23000000),
	                 1);
	s = state("state");
	ck_assert_int_eq(strncmp(s, "offline", 7), 0);
	free(s);

	o = error_tracker_lu_json(tr, "2:0:0:0");
	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_object_get_ex(o, "total", &v));
	ck_assert_int_eq(json_object_get_int(v), 5);
	ck_assert(json_object_object_get_ex(o, "malformed", &v));
	ck_assert_int_eq(json_object_get_int(v), 1);
	ck_assert(json_object_object_get_ex(o, "suppressed", &v));
	ck_assert_int_eq(json_object_get_int(v), 8);
	ck_assert(json_object_object_get_ex(o, "threshold_actions", &v));
	ck_assert_int_eq(json_object_get_int(v), 1);
	ck_assert(json_object_object_get_ex(o, "classes", &v));
	ck_assert_str_eq(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
	                 "{\"transport\":4,\"medium\":1}");
	/* a kernel without the series' errors/ counters: no kernel_classes */
	ck_assert(!json_object_object_get_ex(o, "kernel_classes", &v));
	json_object_put(o);
	o = error_tracker_json(tr);
	ck_assert(json_object_object_get_ex(o, "threshold", &v));
	ck_assert_str_eq(json_object_get_string(v), "transport:3/10:offline");
	json_object_put(o);

	error_tracker_forget(tr, "2:0:0:0");
	ck_assert_ptr_null(error_tracker_lu_json(tr, "2:0:0:0"));
	/* Stock: no evt_error attribute. */
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 0);
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 0);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* The kernel's errors/<class> counters (series v2 patch 5) are reported as they are. */
START_TEST(test_kernel_classes)
{
	ErrorThreshold t = { ERRCLASS_TRANSPORT, 3, 10, ERROR_ACTION_LOG };
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	json_object *o, *v;

	tree(true);
	check_tree_put_str(&tmp, LU "/errors/transport", "7\n");
	check_tree_put_str(&tmp, LU "/errors/medium", "2\n");
	check_tree_put_str(&tmp, LU "/errors/timeout", "0\n");
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, &t, NULL, NULL, &tr), 0);
	ck_assert_int_eq(
	        error_tracker_handle(tr, "2:0:0:0", NULL, ev_medium, ELEMENTSOF(ev_medium), 1), 1);
	o = error_tracker_lu_json(tr, "2:0:0:0");
	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_object_get_ex(o, "kernel_classes", &v));
	ck_assert_str_eq(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
	                 "{\"transport\":7,\"medium\":2}");
	json_object_put(o);
	error_tracker_free(tr);
	untree();
}
END_TEST

START_TEST(test_rescan_and_enable)
{
	ErrorThreshold t = { ERRCLASS_TIMEOUT, 1, 1, ERROR_ACTION_RESCAN };
	_cleanup_close_ int fd = -EBADF;
	const char *ev[ELEMENTSOF(ev_transport)];
	ErrorTracker *tr;
	char *s;

	memcpy(ev, ev_transport, sizeof(ev));
	ev[2] = "SDEV_ERROR_CLASS=timeout";
	tree(true);
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, &t, on_rescan, NULL, &tr), 0);
	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", NULL, ev, ELEMENTSOF(ev), 5), 1);
	ck_assert_uint_eq(rescans, 1);
	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", NULL, ev_transport,
	                                      ELEMENTSOF(ev_transport), 6),
	                 1);
	ck_assert_uint_eq(rescans, 1);
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 1);
	s = state("evt_error");
	ck_assert_str_eq(s, "1");
	free(s);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* Many LUs tracked: each is found by its H:C:T:L, and forgetting one leaves the others. */
START_TEST(test_many_lus)
{
	ErrorThreshold t = { ERRCLASS_TRANSPORT, 3, 10, ERROR_ACTION_LOG };
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	json_object *o, *v;
	char hctl[32];

	tree(false);
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, &t, NULL, NULL, &tr), 0);
	for (unsigned i = 0; i < 64; i++) {
		snprintf(hctl, sizeof(hctl), "3:0:%u:%u", i / 8, i % 8);
		for (unsigned k = 0; k <= i % 3; k++)
			ck_assert_int_eq(error_tracker_handle(tr, hctl, NULL, ev_transport,
			                                      ELEMENTSOF(ev_transport), 1 + k),
			                 1);
	}
	/* the first tracked, the last, and one in between */
	error_tracker_forget(tr, "3:0:0:0");
	error_tracker_forget(tr, "3:0:7:7");
	error_tracker_forget(tr, "3:0:3:4");
	error_tracker_forget(tr, "3:0:3:4");
	error_tracker_forget(tr, "9:9:9:9");
	ck_assert_ptr_null(error_tracker_lu_json(tr, "3:0:0:0"));
	ck_assert_ptr_null(error_tracker_lu_json(tr, "3:0:3:4"));
	for (unsigned i = 1; i < 63; i++) {
		if (i == 3 * 8 + 4)
			continue;
		snprintf(hctl, sizeof(hctl), "3:0:%u:%u", i / 8, i % 8);
		o = error_tracker_lu_json(tr, hctl);
		ck_assert_msg(o != NULL, "%s forgotten", hctl);
		ck_assert(json_object_object_get_ex(o, "total", &v));
		ck_assert_int_eq(json_object_get_int(v), (int)(i % 3 + 1));
		json_object_put(o);
	}
	o = error_tracker_json(tr);
	ck_assert(json_object_object_get_ex(o, "lus", &v));
	ck_assert_int_eq(json_object_object_length(v), 61);
	json_object_put(o);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* The index by H:C:T:L at 3/4 full, the most before it grows: long probe runs, then entries
 * taken out of them in every position (each removal moves back the entries behind it that
 * would otherwise be lost), and shrinking. Every entry left is found, every other is not. */
START_TEST(test_index)
{
	enum { N = 96 }; /* 3/4 of 128 slots */
	ErrorTracker *tr;
	json_object *o, *v;
	char hctl[32];

	ck_assert_int_eq(error_tracker_new(-EBADF, NULL, NULL, NULL, &tr), 0);
	for (unsigned i = 0; i < N; i++) {
		snprintf(hctl, sizeof(hctl), "4:%u:%u:%u", i % 3, i / 24, i % 8);
		ck_assert_int_eq(error_tracker_handle(tr, hctl, NULL, ev_transport,
		                                      ELEMENTSOF(ev_transport), 1),
		                 1);
	}
	for (unsigned round = 0; round < 3; round++) {
		for (unsigned i = 0; i < N; i++)
			if (i % 3 == round && (round < 2 || i % 2)) {
				snprintf(hctl, sizeof(hctl), "4:%u:%u:%u", i % 3, i / 24, i % 8);
				error_tracker_forget(tr, hctl);
			}
		for (unsigned i = 0; i < N; i++) {
			bool gone = i % 3 < round || (i % 3 == round && (round < 2 || i % 2));

			snprintf(hctl, sizeof(hctl), "4:%u:%u:%u", i % 3, i / 24, i % 8);
			o = error_tracker_lu_json(tr, hctl);
			ck_assert_msg(!o == gone, "%s %s", hctl, gone ? "kept" : "forgotten");
			json_object_put(o);
		}
	}
	o = error_tracker_json(tr);
	ck_assert(json_object_object_get_ex(o, "lus", &v));
	ck_assert_int_eq(json_object_object_length(v), N / 3 / 2);
	json_object_put(o);
	error_tracker_free(tr);
}
END_TEST

static void put(const char *attr, const char *v)
{
	char rel[PATH_MAX], line[64];

	xsnprintf(rel, LU "/%s", attr);
	xsnprintf(line, "%s\n", v);
	check_tree_put_str(&tmp, rel, line);
}

/* A stock kernel's LU (no evt_error, its counters at @ioerr and @iotmo) watched by a new tracker
 * in *@ret, its counters polled (error_tracker_enable() returns 0). Returns the root's fd. */
static int stock_tracker(const ErrorThreshold *t, const char *ioerr, const char *iotmo,
                         ErrorTracker **ret)
{
	int fd;

	tree(false);
	put("ioerr_cnt", ioerr);
	put("iotmo_cnt", iotmo);
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, t, NULL, NULL, ret), 0);
	ck_assert_int_eq(error_tracker_enable(*ret, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 0);
	return fd;
}

/* Stock kernel: no evt_error, the counters are polled; iotmo_cnt feeds a timeout threshold. */
START_TEST(test_poll)
{
	ErrorThreshold t = { ERRCLASS_TIMEOUT, 3, 60, ERROR_ACTION_OFFLINE };
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	json_object *o, *v;
	char *s;

	fd = stock_tracker(&t, "0x10", "0xfffffffe", &tr);
	ck_assert_int_eq(error_tracker_poll(tr, 1000000), 0);

	put("ioerr_cnt", "0x13");
	put("iotmo_cnt", "0x0"); /* wrapped: +2 */
	ck_assert_int_eq(error_tracker_poll(tr, 2000000), 1);
	s = state("state");
	ck_assert_str_eq(s, "running");
	free(s);
	put("iotmo_cnt", "0x1");
	ck_assert_int_eq(error_tracker_poll(tr, 3000000), 1);
	s = state("state");
	ck_assert_int_eq(strncmp(s, "offline", 7), 0);
	free(s);

	o = error_tracker_lu_json(tr, "2:0:0:0");
	ck_assert(json_object_object_get_ex(o, "polled", &v));
	ck_assert(json_object_get_boolean(v));
	ck_assert(json_object_object_get_ex(o, "ioerr_cnt_growth", &v));
	ck_assert_int_eq(json_object_get_int(v), 3);
	ck_assert(json_object_object_get_ex(o, "iotmo_cnt_growth", &v));
	ck_assert_int_eq(json_object_get_int(v), 3);
	json_object_put(o);
	error_tracker_free(tr);
	untree();
}
END_TEST

#define DEVDIR "sys/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:0"

/* The growth @key ("ioerr_cnt_growth", ...) error_tracker_lu_json() shows for @hctl. */
static int growth(ErrorTracker *tr, const char *hctl, const char *key)
{
	json_object *o = error_tracker_lu_json(tr, hctl), *v;
	int n;

	ck_assert(json_object_object_get_ex(o, key, &v));
	n = json_object_get_int(v);
	json_object_put(o);
	return n;
}

static const char *dev_dir(const char *hctl, void *userdata)
{
	return streq(hctl, "2:0:0:0") ? DEVDIR : NULL;
}

/* The counters (a stock kernel's, then a patched kernel's errors/<class>) are read from the
 * LU's directory as the daemon has it (its add uevent's), not through the bus's entry, at the
 * LU's add and in each round. */
START_TEST(test_poll_dir)
{
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;

	check_tree_new(&tmp, "check-errors");
	check_tree_put_str(&tmp, DEVDIR "/state", "running\n");
	check_tree_put_str(&tmp, DEVDIR "/ioerr_cnt", "0x5\n");
	check_tree_put_str(&tmp, DEVDIR "/iotmo_cnt", "0x0\n");
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, NULL, NULL, NULL, &tr), 0);
	error_tracker_set_dir_fn(tr, dev_dir);
	ck_assert_int_eq(error_tracker_enable(tr, DEVDIR, "2:0:0:0"), 0);
	ck_assert_uint_eq(error_tracker_n_watched(tr), 1);
	ck_assert_int_eq(error_tracker_poll(tr, 1000000), 0);
	check_tree_put_str(&tmp, DEVDIR "/ioerr_cnt", "0x7\n");
	ck_assert_int_eq(error_tracker_poll(tr, 2000000), 1);
	ck_assert_int_eq(growth(tr, "2:0:0:0", "ioerr_cnt_growth"), 2);
	error_tracker_free(tr);

	/* a patched kernel's errors/<class> the same way */
	for (ErrClass c = 0; c < _ERRCLASS_MAX; c++) {
		char a[PATH_MAX];

		xsnprintf(a, DEVDIR "/errors/%s", errclass_to_string(c));
		check_tree_put_str(&tmp, a, "0\n");
	}
	ck_assert_int_eq(error_tracker_new(fd, NULL, NULL, NULL, &tr), 0);
	error_tracker_set_dir_fn(tr, dev_dir);
	ck_assert_int_eq(error_tracker_enable(tr, DEVDIR, "2:0:0:0"), 2);
	check_tree_put_str(&tmp, DEVDIR "/errors/medium", "3\n");
	ck_assert_int_eq(error_tracker_poll(tr, 3000000), 1);
	ck_assert_int_eq(growth(tr, "2:0:0:0", "total"), 3);
	error_tracker_free(tr);
	untree();
}
END_TEST

static void put_counter(const char *hctl, const char *attr, const char *v);

static unsigned run_idle(sd_event *e)
{
	unsigned n = 0;

	while (sd_event_run(e, 0) > 0)
		n++;
	return n;
}

/*
 * With a loop, a new LU's counters are not read at its add: their first reading waits until
 * nothing more urgent is pending (the names of the LUs still coming), in slices, or for the
 * next round; what they counted until then is that reading, not an error report. An LU without
 * counters is dropped then, and one forgotten before is not read at all.
 */
START_TEST(test_baseline_later)
{
	_cleanup_close_ int fd = -EBADF;
	sd_event *ev = NULL;
	ErrorTracker *tr;
	char hctl[32], dir[64];

	check_tree_new(&tmp, "check-errors");
	for (unsigned i = 0; i < 300; i++) {
		xsnprintf(hctl, "4:0:0:%u", i);
		put_counter(hctl, "ioerr_cnt", "0x1\n");
		put_counter(hctl, "iotmo_cnt", "0x0\n");
	}
	check_tree_put_str(&tmp, "sys/bus/scsi/devices/4:0:1:0/state", "running\n");
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(sd_event_new(&ev), 0);
	ck_assert_int_eq(error_tracker_new(fd, NULL, NULL, NULL, &tr), 0);
	ck_assert_int_eq(error_tracker_attach_event(tr, ev, 3600 * 1000000ULL), 0);

	for (unsigned i = 0; i < 300; i++) {
		xsnprintf(hctl, "4:0:0:%u", i);
		xsnprintf(dir, "sys/bus/scsi/devices/%s", hctl);
		ck_assert_int_eq(error_tracker_enable(tr, dir, hctl), 0);
	}
	/* no counters there: watched until its first reading finds none */
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/4:0:1:0", "4:0:1:0"), 0);
	/* gone before its reading */
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/4:0:0:299", "4:0:0:299"),
	                 0);
	error_tracker_forget(tr, "4:0:0:299");
	ck_assert_uint_eq(error_tracker_n_watched(tr), 300);
	ck_assert_uint_eq(error_tracker_n_baseline(tr), 300);

	/* what the probe counted after the add is part of the first reading */
	put_counter("4:0:0:0", "ioerr_cnt", "0x3\n");
	/* slices: more than one loop iteration for 300 LUs */
	ck_assert_uint_ge(run_idle(ev), 2);
	ck_assert_uint_eq(error_tracker_n_baseline(tr), 0);
	ck_assert_uint_eq(error_tracker_n_watched(tr), 299);
	ck_assert_int_eq(error_tracker_poll(tr, 1000000), 0);

	put_counter("4:0:0:0", "ioerr_cnt", "0x4\n");
	ck_assert_int_eq(error_tracker_poll(tr, 2000000), 1);
	ck_assert_int_eq(growth(tr, "4:0:0:0", "ioerr_cnt_growth"), 1);

	/* a round before the loop got to it takes the first reading, silently */
	put_counter("4:0:0:299", "ioerr_cnt", "0x1\n");
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/4:0:0:299", "4:0:0:299"),
	                 0);
	ck_assert_uint_eq(error_tracker_n_baseline(tr), 1);
	put_counter("4:0:0:299", "ioerr_cnt", "0x9\n");
	ck_assert_int_eq(error_tracker_poll(tr, 3000000), 0);
	ck_assert_uint_eq(error_tracker_n_baseline(tr), 0);
	put_counter("4:0:0:299", "iotmo_cnt", "0x2\n");
	ck_assert_int_eq(error_tracker_poll(tr, 4000000), 1);
	/* nothing left to read: the loop goes quiet (one last wake-up that finds nothing) */
	ck_assert_uint_le(run_idle(ev), 1);
	ck_assert_uint_eq(run_idle(ev), 0);

	error_tracker_free(tr);
	sd_event_unref(ev);
	untree();
}
END_TEST

/* A kernel without the patchset is found out once: the LUs after the first are not asked for
 * errors/<class> and evt_error again (two failed opens each), until the SCSI core may have been
 * replaced (its last LU went away); then the next LU is asked again. */
START_TEST(test_kernel_lacks)
{
	ErrorThreshold t = { ERRCLASS_TIMEOUT, 3, 60, ERROR_ACTION_OFFLINE };
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	char *s;

	fd = stock_tracker(&t, "0x0", "0x0", &tr);
	ck_assert_uint_eq(error_tracker_n_watched(tr), 1);
	error_tracker_forget(tr, "2:0:0:0");

	/* not asked: the knob the next LU has is left alone, its counters polled */
	put("evt_error", "0");
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 0);
	ck_assert_uint_eq(error_tracker_n_watched(tr), 1);
	s = state("evt_error");
	ck_assert_str_eq(s, "0");
	free(s);
	error_tracker_forget(tr, "2:0:0:0");

	/* the core may be another now: asked again, events switched on */
	error_tracker_kernel_may_change(tr);
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 1);
	s = state("evt_error");
	ck_assert_str_eq(s, "1");
	free(s);
	error_tracker_free(tr);
	untree();
}
END_TEST

static void put_counter(const char *hctl, const char *attr, const char *v)
{
	char rel[PATH_MAX];

	xsnprintf(rel, "sys/bus/scsi/devices/%s/%s", hctl, attr);
	check_tree_put_str(&tmp, rel, v);
}

/* LUs 4:0:0:0 .. 4:0:0:@n-1 of a stock kernel, their counters at 0, watched by @tr. */
static void watch_stock_lus(ErrorTracker *tr, unsigned n)
{
	char hctl[32], dir[64];

	for (unsigned i = 0; i < n; i++) {
		xsnprintf(hctl, "4:0:0:%u", i);
		put_counter(hctl, "ioerr_cnt", "0x0\n");
		put_counter(hctl, "iotmo_cnt", "0x0\n");
		xsnprintf(dir, "sys/bus/scsi/devices/%s", hctl);
		ck_assert_int_eq(error_tracker_enable(tr, dir, hctl), 0);
	}
}

/* The periodic work is bounded: an LU without counters is never read, and a round over the
 * others runs in slices of a given size, across LUs added and forgotten meanwhile. */
START_TEST(test_poll_bounded)
{
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	bool done;

	tree(false); /* 2:0:0:0: a stock kernel's LU without ioerr_cnt/iotmo_cnt */
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, NULL, NULL, NULL, &tr), 0);
	ck_assert_int_eq(error_tracker_enable(tr, LU, "2:0:0:0"), 0);
	ck_assert_uint_eq(error_tracker_n_watched(tr), 0);
	ck_assert_int_eq(error_tracker_poll_slice(tr, 1, 2, &done), 0);
	ck_assert(done);

	watch_stock_lus(tr, 5);
	ck_assert_uint_eq(error_tracker_n_watched(tr), 5);
	ck_assert_int_eq(error_tracker_poll_slice(tr, 2, 2, &done), 0);
	ck_assert(!done);
	ck_assert_int_eq(error_tracker_poll_slice(tr, 3, 2, &done), 0);
	ck_assert(!done);
	ck_assert_int_eq(error_tracker_poll_slice(tr, 4, 2, &done), 0);
	ck_assert(done);

	/* A new round: the newest LU first (4:0:0:4, then 3), and its growth is seen. */
	put_counter("4:0:0:4", "iotmo_cnt", "0x1\n");
	ck_assert_int_eq(error_tracker_poll_slice(tr, 5, 2, &done), 1);
	ck_assert(!done);
	/* The LU the round is at goes away: the round goes on past it. */
	error_tracker_forget(tr, "4:0:0:2");
	ck_assert_uint_eq(error_tracker_n_watched(tr), 4);
	ck_assert_int_eq(error_tracker_poll_slice(tr, 6, 2, &done), 0);
	ck_assert(done);
	/* A full poll is a whole round, whatever a sliced one had reached. */
	ck_assert_int_eq(error_tracker_poll_slice(tr, 7, 1, &done), 0);
	put_counter("4:0:0:0", "ioerr_cnt", "0x2\n");
	ck_assert_int_eq(error_tracker_poll(tr, 8), 1);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* The block nodes of test_poll_idle's LUs: 4:0:0:0 is sda, 4:0:0:1 sdb, 4:0:0:2 none. */
static const char *idle_block(const char *hctl, void *userdata)
{
	return streq(hctl, "4:0:0:0") ? "sda" : streq(hctl, "4:0:0:1") ? "sdb" : NULL;
}

/* proc/diskstats with @a and @b requests completed by sda and sdb (reads and writes). */
static void put_diskstats(unsigned a, unsigned b)
{
	char text[512];

	xsnprintf(text,
	          "   8       0 sda %u 0 8 1 %u 0 0 0 0 4 4 0 0 0 0 0 0\n"
	          "   8      16 sdb 0 0 0 0 %u 0 0 0 0 4 4 0 0 0 0 1 0\n"
	          "   7       0 loop0 9 0 9 0 0 0 0 0 0 0 0\n",
	          a, a, b);
	check_tree_put_str(&tmp, "proc/diskstats", text);
}

/* How many LUs the last round read and left alone (error_tracker_json()). */
static void last_round(ErrorTracker *tr, uint64_t *ret_read, uint64_t *ret_idle)
{
	json_object *o = error_tracker_json(tr), *v;

	ck_assert(json_object_object_get_ex(o, "counters_read", &v));
	*ret_read = json_object_get_uint64(v);
	ck_assert(json_object_object_get_ex(o, "counters_idle", &v));
	*ret_idle = json_object_get_uint64(v);
	json_object_put(o);
}

/* A round reads only the counters of LUs whose disk did I/O since they were last read, and of
 * LUs without a disk; every 12th round reads them all (a failed SG_IO on an idle disk). */
START_TEST(test_poll_idle)
{
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	uint64_t read, idle;
	unsigned round = 0;

	tree(false);
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, NULL, NULL, NULL, &tr), 0);
	error_tracker_set_block_fn(tr, idle_block);
	watch_stock_lus(tr, 3);
	put_diskstats(10, 20);
	/* the first round reads every LU */
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	last_round(tr, &read, &idle);
	ck_assert_uint_eq(read, 3);
	ck_assert_uint_eq(idle, 0);
	/* nothing done: only the LU without a disk is read */
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	last_round(tr, &read, &idle);
	ck_assert_uint_eq(read, 1);
	ck_assert_uint_eq(idle, 2);
	/* an error the block layer did not count (SG_IO on sda): not read yet */
	put_counter("4:0:0:0", "ioerr_cnt", "0x1\n");
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	/* I/O on sda: its counters are read and the error found */
	put_diskstats(11, 20);
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 1);
	ck_assert_int_eq(growth(tr, "4:0:0:0", "ioerr_cnt_growth"), 1);
	last_round(tr, &read, &idle);
	ck_assert_uint_eq(read, 2);
	ck_assert_uint_eq(idle, 1);
	/* an error on idle sdb: found by the next sweep (the 13th round), not before */
	put_counter("4:0:0:1", "iotmo_cnt", "0x2\n");
	while (round < 12)
		ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 1);
	ck_assert_int_eq(growth(tr, "4:0:0:1", "iotmo_cnt_growth"), 2);
	last_round(tr, &read, &idle);
	ck_assert_uint_eq(read, 3);
	ck_assert_uint_eq(idle, 0);
	/* without proc/diskstats every LU is read, as without a block function */
	ck_assert_int_eq(unlinkat(tmp.fd, "proc/diskstats", 0), 0);
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	last_round(tr, &read, &idle);
	ck_assert_uint_eq(read, 3);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* The classes shown for 2:0:0:0 (error_tracker_lu_json() @key: "classes", "kernel_classes"). */
static char *lu_classes(ErrorTracker *tr, const char *key)
{
	json_object *o = error_tracker_lu_json(tr, "2:0:0:0"), *v;
	char *s;

	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_object_get_ex(o, key, &v));
	s = strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

/*
 * The class set is what errors/ holds, not lund's list: a kernel that renamed "nexus" to
 * "abort" has it counted, logged and shown under "abort"; the known classes keep their policy
 * (a transport threshold still acts).
 */
START_TEST(test_counters_renamed)
{
	ErrorThreshold t = { ERRCLASS_TRANSPORT, 2, 60, ERROR_ACTION_OFFLINE };
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	char *s;

	tree(true);
	for (ErrClass c = 0; c < _ERRCLASS_MAX; c++) {
		char a[64];

		xsnprintf(a, "errors/%s", c == ERRCLASS_NEXUS ? "abort" : errclass_to_string(c));
		put(a, "0");
	}
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, &t, NULL, NULL, &tr), 0);
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 2);
	s = state("evt_error");
	ck_assert_str_eq(s, "0"); /* counters, not the events */
	free(s);
	ck_assert_int_eq(error_tracker_poll(tr, 1000000), 0);

	put("errors/abort", "4");
	put("errors/transport", "1");
	ck_assert_int_eq(error_tracker_poll(tr, 2000000), 1);
	s = lu_classes(tr, "classes");
	ck_assert_str_eq(s, "{\"transport\":1,\"abort\":4}");
	free(s);
	s = lu_classes(tr, "kernel_classes");
	ck_assert_str_eq(s, "{\"transport\":1,\"abort\":4}");
	free(s);
	s = state("state");
	ck_assert_str_eq(s, "running");
	free(s);
	put("errors/transport", "2");
	ck_assert_int_eq(error_tracker_poll(tr, 3000000), 1);
	s = state("state");
	ck_assert_int_eq(strncmp(s, "offline", 7), 0);
	free(s);

	/* the same name in an error event is the same class */
	ck_assert_int_eq(
	        error_tracker_handle(tr, "2:0:0:0", NULL, ev_abort, ELEMENTSOF(ev_abort), 4), 1);
	s = lu_classes(tr, "classes");
	ck_assert_str_eq(s, "{\"transport\":2,\"abort\":5}");
	free(s);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* A known class missing from errors/ has no counter for that LU: the others are polled, and
 * the LU stays on the counters (no fallback to events or the stock kernel's). */
START_TEST(test_counters_missing)
{
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	char *s;

	tree(true);
	put("errors/medium", "3");
	put("errors/timeout", "0");
	put("ioerr_cnt", "0x0");
	put("iotmo_cnt", "0x0");
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, NULL, NULL, NULL, &tr), 0);
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 2);
	s = state("evt_error");
	ck_assert_str_eq(s, "0");
	free(s);
	put("errors/medium", "5");
	put("iotmo_cnt", "0x9"); /* not read: the counters are errors/'s */
	ck_assert_int_eq(error_tracker_poll(tr, 1000000), 1);
	s = lu_classes(tr, "classes");
	ck_assert_str_eq(s, "{\"medium\":2}");
	free(s);
	/* one going away later is skipped, the others still read */
	ck_assert_int_eq(unlinkat(tmp.fd, LU "/errors/medium", 0), 0);
	put("errors/timeout", "1");
	ck_assert_int_eq(error_tracker_poll(tr, 2000000), 1);
	s = lu_classes(tr, "classes");
	ck_assert_str_eq(s, "{\"timeout\":1,\"medium\":2}");
	free(s);

	/* an empty errors/ is still the patchset's: counters, none to read */
	ck_assert_int_eq(unlinkat(tmp.fd, LU "/errors/timeout", 0), 0);
	error_tracker_forget(tr, "2:0:0:0");
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 2);
	ck_assert_int_eq(error_tracker_poll(tr, 3000000), 0);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* A hostile errors/: names that are no class name (upper case, blanks, escapes, overlong, a
 * directory) are ignored, and no more than ERRCLASS_TABLE_MAX classes are taken in all, the
 * nine known ones included, however many entries there are. */
START_TEST(test_counters_junk)
{
	static const char *const junk[] = {
		"Medium", "a b", "x\x1b[2J", "abcdefghijklmnopqrstuvwxyz012345", "tab\tx",
	};
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	json_object *o, *v;
	char a[128];
	unsigned n, total;

	tree(true);
	put("errors/transport", "0");
	for (size_t i = 0; i < ELEMENTSOF(junk); i++) {
		xsnprintf(a, "errors/%s", junk[i]);
		put(a, "0");
	}
	put("errors/subdir/medium", "0");
	for (unsigned i = 0; i < 300; i++) {
		xsnprintf(a, "errors/c%u", i);
		put(a, "0");
	}
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, NULL, NULL, NULL, &tr), 0);
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 2);

	for (size_t i = 0; i < ELEMENTSOF(junk); i++) {
		xsnprintf(a, "errors/%s", junk[i]);
		put(a, "7");
	}
	put("errors/subdir/medium", "7");
	for (unsigned i = 0; i < 300; i++) {
		xsnprintf(a, "errors/c%u", i);
		put(a, "1");
	}
	put("errors/transport", "1");
	/* 300 + 1 + 6 entries; at most 256 looked at, 32 - 9 names beyond the known ones taken */
	ck_assert_int_eq(error_tracker_poll(tr, 1000000), 1);
	o = error_tracker_lu_json(tr, "2:0:0:0");
	ck_assert(json_object_object_get_ex(o, "classes", &v));
	n = (unsigned)json_object_object_length(v);
	ck_assert_uint_le(n, ERRCLASS_TABLE_MAX - _ERRCLASS_MAX + 1);
	ck_assert(!json_object_object_get_ex(v, "Medium", NULL));
	ck_assert(!json_object_object_get_ex(v, "medium", NULL));
	ck_assert(!json_object_object_get_ex(v, "subdir", NULL));
	ck_assert(json_object_object_get_ex(o, "total", &v));
	total = (unsigned)json_object_get_int(v);
	ck_assert_uint_le(total, ERRCLASS_TABLE_MAX - _ERRCLASS_MAX + 1);
	ck_assert_uint_ge(total, 1);
	json_object_put(o);

	/* a class the table has no room for: an event of it counts in the total only */
	ck_assert_int_eq(
	        error_tracker_handle(tr, "2:0:0:0", NULL, ev_abort, ELEMENTSOF(ev_abort), 2), 1);
	o = error_tracker_lu_json(tr, "2:0:0:0");
	ck_assert(json_object_object_get_ex(o, "classes", &v));
	ck_assert(!json_object_object_get_ex(v, "abort", NULL));
	ck_assert(json_object_object_get_ex(o, "total", &v));
	ck_assert_uint_eq(json_object_get_int(v), total + 1);
	json_object_put(o);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* The state of each LU as it was when a round called on it (ErrorStateFn), as the owner reads
 * it, and how many calls there were. */
static char seen_state[2][32];
static unsigned n_seen_state;

static void on_state(const char *hctl, void *userdata)
{
	_cleanup_close_ int fd = sysfs_open_root(tmp.path);
	unsigned i = streq(hctl, "4:0:0:0") ? 0 : 1;
	char rel[PATH_MAX];

	xsnprintf(rel, "sys/bus/scsi/devices/%s/state", hctl);
	ck_assert_int_eq(sysfs_read_string_buf(fd, rel, seen_state[i], sizeof(seen_state[i])), 0);
	n_seen_state++;
}

/* Stock kernel: a running LU the kernel offlines sends no uevent. The round that reads its
 * counters has its state read too: offline is seen in the next round, running again in the one
 * after; an idle disk's LU is read (state and all) only by the sweep. */
START_TEST(test_poll_state)
{
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	unsigned round = 0;

	tree(false);
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, NULL, NULL, NULL, &tr), 0);
	error_tracker_set_block_fn(tr, idle_block);
	error_tracker_set_state_fn(tr, on_state);
	watch_stock_lus(tr, 2);
	put_counter("4:0:0:0", "state", "running\n");
	put_counter("4:0:0:1", "state", "running\n");
	put_diskstats(10, 20);
	n_seen_state = 0;
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	ck_assert_uint_eq(n_seen_state, 2);
	ck_assert_str_eq(seen_state[0], "running");
	ck_assert_str_eq(seen_state[1], "running");

	/* sda's LU offlined while it does I/O: the next round says so */
	put_counter("4:0:0:0", "state", "offline\n");
	put_diskstats(11, 20);
	n_seen_state = 0;
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	ck_assert_uint_eq(n_seen_state, 1); /* sdb idle: not read */
	ck_assert_str_eq(seen_state[0], "offline");
	/* and back */
	put_counter("4:0:0:0", "state", "running\n");
	put_diskstats(12, 20);
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	ck_assert_str_eq(seen_state[0], "running");

	/* idle sdb's LU goes transport-offline: the sweep (13th round) reads it, not before */
	put_counter("4:0:0:1", "state", "transport-offline\n");
	while (round < 12)
		ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	ck_assert_str_eq(seen_state[1], "running");
	ck_assert_int_eq(error_tracker_poll(tr, ++round), 0);
	ck_assert_str_eq(seen_state[1], "transport-offline");
	error_tracker_free(tr);
	untree();
}
END_TEST

/* While LUs are being added (each read as it comes), a round over every LU waits an interval,
 * three in a row at most: a stream of new LUs does not hold the others' reads back for longer.
 * LUs without counters and LUs already watched do not count as added. */
START_TEST(test_round_waits)
{
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	char hctl[32], dir[64];

	tree(false); /* 2:0:0:0: a stock kernel's LU without ioerr_cnt/iotmo_cnt */
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, NULL, NULL, NULL, &tr), 0);
	ck_assert(!error_tracker_round_waits(tr));
	ck_assert_int_eq(error_tracker_enable(tr, LU, "2:0:0:0"), 0);
	ck_assert(!error_tracker_round_waits(tr));

	for (unsigned i = 0; i < 6; i++) {
		xsnprintf(hctl, "4:0:0:%u", i);
		put_counter(hctl, "ioerr_cnt", "0x0\n");
		put_counter(hctl, "iotmo_cnt", "0x0\n");
		xsnprintf(dir, "sys/bus/scsi/devices/%s", hctl);
		ck_assert_int_eq(error_tracker_enable(tr, dir, hctl), 0);
		/* rounds 1-3 wait, the 4th runs though LUs keep coming, the 5th waits again */
		ck_assert_int_eq(error_tracker_round_waits(tr), i != 3);
	}
	/* no LU added since: the round runs */
	ck_assert(!error_tracker_round_waits(tr));
	/* an LU watched already is not new */
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/x", "4:0:0:0"), 0);
	ck_assert(!error_tracker_round_waits(tr));
	ck_assert_uint_eq(error_tracker_n_watched(tr), 6);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* Patched kernel: errors/<class> are polled, no event is switched on, and each class counts
 * towards the threshold as its events would; --error-events switches the events on instead. */
START_TEST(test_counters)
{
	ErrorThreshold t = { ERRCLASS_TRANSPORT, 3, 60, ERROR_ACTION_OFFLINE };
	_cleanup_close_ int fd = -EBADF;
	ErrorTracker *tr;
	json_object *o, *v;
	char *s;

	tree(true);
	for (ErrClass c = 0; c < _ERRCLASS_MAX; c++) {
		char a[64];

		xsnprintf(a, "errors/%s", errclass_to_string(c));
		put(a, c == ERRCLASS_MEDIUM ? "7" : "0");
	}
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_eq(error_tracker_new(fd, &t, NULL, NULL, &tr), 0);
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 2);
	s = state("evt_error");
	ck_assert_str_eq(s, "0");
	free(s);
	ck_assert_int_eq(error_tracker_poll(tr, 1000000), 0);
	ck_assert_ptr_null(error_tracker_lu_json(tr, "2:0:0:0")); /* errors before lund: none */

	put("errors/transport", "2");
	put("errors/medium", "8");
	ck_assert_int_eq(error_tracker_poll(tr, 2000000), 1);
	s = state("state");
	ck_assert_str_eq(s, "running");
	free(s);
	o = error_tracker_lu_json(tr, "2:0:0:0");
	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_object_get_ex(o, "total", &v));
	ck_assert_int_eq(json_object_get_int(v), 3);
	ck_assert(json_object_object_get_ex(o, "classes", &v));
	ck_assert_str_eq(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
	                 "{\"transport\":2,\"medium\":1}");
	ck_assert(json_object_object_get_ex(o, "source", &v));
	ck_assert_str_eq(json_object_get_string(v), "counters");
	ck_assert(!json_object_object_get_ex(o, "last", &v)); /* counters carry no sense data */
	json_object_put(o);
	ck_assert_int_eq(error_tracker_poll(tr, 3000000), 0);

	put("errors/transport", "3"); /* the third transport error within 60 s */
	ck_assert_int_eq(error_tracker_poll(tr, 4000000), 1);
	s = state("state");
	ck_assert_int_eq(strncmp(s, "offline", 7), 0);
	free(s);
	error_tracker_free(tr);

	/* events preferred: switched on, the counters left alone */
	ck_assert_int_eq(error_tracker_new(fd, &t, NULL, NULL, &tr), 0);
	error_tracker_prefer_events(tr, true);
	ck_assert_int_eq(error_tracker_enable(tr, "sys/bus/scsi/devices/2:0:0:0", "2:0:0:0"), 1);
	s = state("evt_error");
	ck_assert_str_eq(s, "1");
	free(s);
	put("errors/transport", "9");
	ck_assert_int_eq(error_tracker_poll(tr, 5000000), 0);
	error_tracker_free(tr);
	untree();
}
END_TEST

/* The journal, replaced: the fields of the last entry (this definition wins over libsystemd's). */
static char journal[2048];
int sd_journal_sendv(const struct iovec *iov, int n);
int sd_journal_sendv(const struct iovec *iov, int n)
{
	size_t len = 0;

	journal[0] = 0;
	for (int i = 0; i < n; i++) {
		int k = snprintf(journal + len, sizeof(journal) - len, "%.*s\n",
		                 (int)iov[i].iov_len, (const char *)iov[i].iov_base);

		ck_assert(k > 0 && (size_t)k < sizeof(journal) - len);
		len += (size_t)k;
	}
	return 0;
}

START_TEST(test_journal_fields)
{
	ErrorThreshold t = ERROR_THRESHOLD_DEFAULT;
	LogDevice dev = { .hctl = "2:0:0:0",
		          .devnode = "/dev/sda",
		          .wwid = "naa.5000c500a1b2c3d4" };
	const char *ev[ELEMENTSOF(ev_medium)];
	ErrorTracker *tr;

	memcpy(ev, ev_medium, sizeof(ev));
	log_setup("check-errors", LOG_TARGET_JOURNAL, LOG_DEBUG);
	ck_assert_int_eq(error_tracker_new(-EBADF, &t, NULL, NULL, &tr), 0);
	ck_assert_int_eq(error_tracker_handle(tr, "2:0:0:0", &dev, ev, ELEMENTSOF(ev), 1), 1);
	ck_assert_str_eq(
	        journal,
	        "MESSAGE=Command failed: class=medium retryable=no errno=61 sense=03/11/00 "
	        "opcode=0x28 sector=4660 host_byte=0x00 status=0x02\n"
	        "PRIORITY=4\n"
	        "SYSLOG_IDENTIFIER=check-errors\n"
	        "LUND_HCTL=2:0:0:0\n"
	        "LUND_DEVICE=/dev/sda\n"
	        "LUND_WWID=naa.5000c500a1b2c3d4\n"
	        "MESSAGE_ID=b5d3c1e7f9a24b6d8e0f2a4c6e8b0d13\n"
	        "LUND_ERROR_CLASS=medium\n"
	        "LUND_ERROR_RETRYABLE=0\n"
	        "LUND_ERROR_ERRNO=61\n"
	        "LUND_SENSE_KEY=3\n"
	        "LUND_ASC=17\n"
	        "LUND_ASCQ=0\n"
	        "LUND_OPCODE=40\n"
	        "LUND_SECTOR=4660\n"
	        "LUND_ERROR_SUPPRESSED=0\n");
	error_tracker_free(tr);
	log_setup("check-errors", LOG_TARGET_STDERR, LOG_DEBUG);
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("daemon");

	log_setup("check-errors", LOG_TARGET_STDERR, LOG_DEBUG);
	CHECK_ADD_LOOP(tc, test_threshold_parse, th);
	tcase_add_test(tc, test_count_and_offline);
	tcase_add_test(tc, test_kernel_classes);
	tcase_add_test(tc, test_rescan_and_enable);
	tcase_add_test(tc, test_many_lus);
	tcase_add_test(tc, test_index);
	tcase_add_test(tc, test_poll);
	tcase_add_test(tc, test_poll_dir);
	tcase_add_test(tc, test_baseline_later);
	tcase_add_test(tc, test_kernel_lacks);
	tcase_add_test(tc, test_poll_bounded);
	tcase_add_test(tc, test_poll_idle);
	tcase_add_test(tc, test_poll_state);
	tcase_add_test(tc, test_counters_renamed);
	tcase_add_test(tc, test_counters_missing);
	tcase_add_test(tc, test_counters_junk);
	tcase_add_test(tc, test_round_waits);
	tcase_add_test(tc, test_counters);
	tcase_add_test(tc, test_journal_fields);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(errors_suite)
