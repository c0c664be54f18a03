/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The daemon's background host scans (daemon/hostscan.c) against a fake sysfs tree: the engine
 * runs in its thread with injected I/O, its results come back in the loop's thread, requests
 * made while a scan runs are merged, and these scans only ever add.
 */

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "hostscan.h"
#include "macro.h"
#include "worker.h"

static CheckTree tree;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char writes[32][160];
static size_t n_writes;
static pthread_t loop_thread;
static bool wrong_thread;

typedef struct Done {
	int64_t host;
	int r;
	size_t n_hosts;
} Done;
static Done done[8];
static size_t n_done;

static void setup(void)
{
	check_tree_new(&tree, "check-hostscan");
	n_writes = n_done = 0;
	wrong_thread = false;
	loop_thread = pthread_self();
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static void host(unsigned h)
{
	char p[128];

	xsnprintf(p, "sys/class/scsi_host/host%u/proc_name", h);
	check_tree_put_str(&tree, p, "fake\n");
	xsnprintf(p, "sys/class/scsi_host/host%u/scan", h);
	check_tree_put_str(&tree, p, "");
}

/* Nothing answers on the fake wire: a probe finds no target, REPORT LUNS is never reached. */
static int fake_report_luns(void *ud, int fd, const ScanLu *lu, unsigned timeout_ms,
                            uint8_t **ret_buf, size_t *ret_len, unsigned *commands)
{
	return -EIO;
}

static int fake_read_capacity(void *ud, int fd, const ScanLu *lu, unsigned timeout_ms,
                              uint64_t *ret_bytes, unsigned *commands)
{
	return -EIO;
}

static int fake_write_attr(void *ud, int fd, const char *path, const char *value)
{
	pthread_mutex_lock(&lock);
	if (n_writes < ELEMENTSOF(writes))
		snprintf(writes[n_writes++], sizeof(writes[0]), "%s=%s", path, value);
	pthread_mutex_unlock(&lock);
	return 0;
}

static int fake_open_exclusive(void *ud, int fd, const char *devname)
{
	return 0;
}

static const ScanIo fake_io = {
	.report_luns = fake_report_luns,
	.read_capacity = fake_read_capacity,
	.write_attr = fake_write_attr,
	.open_exclusive = fake_open_exclusive,
};

static void on_done(void *userdata, const HostScanRequest *req, int r, const ScanResult *res)
{
	int64_t h = host_scan_request_host(req);

	if (!pthread_equal(pthread_self(), loop_thread))
		wrong_thread = true;
	if (n_done < ELEMENTSOF(done))
		done[n_done++] = (Done){ h, r, res ? res->n_hosts : 0 };
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	return sd_event_exit(sd_event_source_get_event(s), -ETIMEDOUT);
}

/* Run the loop until @want scans ended (10 s at most). */
static void run_until(sd_event *e, HostScanner *hs, unsigned want)
{
	sd_event_source *t = NULL;

	ck_assert_int_ge(sd_event_add_time_relative(e, &t, CLOCK_MONOTONIC, 10 * 1000000ULL, 0,
	                                            on_timeout, NULL),
	                 0);
	while (host_scanner_n_done(hs) < want)
		ck_assert_int_ge(sd_event_run(e, UINT64_MAX), 0);
	sd_event_source_disable_unref(t);
}

static size_t count_writes(const char *w)
{
	size_t n = 0;

	for (size_t i = 0; i < n_writes; i++)
		n += streq(writes[i], w);
	return n;
}

START_TEST(test_merge)
{
	static const HostScanCallbacks cb = { .done = on_done };
	sd_event *e = NULL;
	HostScanner *hs = NULL;

	host(0);
	host(1);
	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_ge(host_scanner_new(e, tree.fd, &cb, NULL, &hs), 0);
	host_scanner_set_io(hs, &fake_io, NULL);

	/* host0 starts at once; a second host0 waits; "every host" then absorbs the waiting one
	 * and a later host1. */
	ck_assert_int_eq(host_scanner_queue(hs, 0, "test"), 0);
	ck_assert(host_scanner_busy(hs));
	ck_assert_int_eq(host_scanner_queue(hs, 0, "test"), 0);
	ck_assert_int_eq(host_scanner_queue(hs, SCAN_ANY, "test"), 0);
	ck_assert_int_eq(host_scanner_queue(hs, 1, "test"), 0);
	run_until(e, hs, 2);
	ck_assert(!host_scanner_busy(hs));

	ck_assert_uint_eq(n_done, 2);
	ck_assert(!wrong_thread);
	ck_assert_int_eq(done[0].host, 0);
	ck_assert_int_eq(done[0].r, 0);
	ck_assert_uint_eq(done[0].n_hosts, 1);
	ck_assert_int_eq(done[1].host, SCAN_ANY);
	ck_assert_int_eq(done[1].r, 0);
	ck_assert_uint_eq(done[1].n_hosts, 2);

	/* Each host was asked for its targets; nothing but probes was written (add only): LUN 0
	 * of each target, then, none having appeared, the kernel's scan of every target. */
	ck_assert_uint_eq(count_writes("sys/class/scsi_host/host0/scan=- - 0"), 2);
	ck_assert_uint_eq(count_writes("sys/class/scsi_host/host1/scan=- - 0"), 1);
	ck_assert_uint_eq(count_writes("sys/class/scsi_host/host0/scan=- - -"), 2);
	ck_assert_uint_eq(count_writes("sys/class/scsi_host/host1/scan=- - -"), 1);
	ck_assert_uint_eq(n_writes, 6);

	host_scanner_free(hs);
	sd_event_unref(e);
}
END_TEST

START_TEST(test_no_host)
{
	static const HostScanCallbacks cb = { .done = on_done };
	sd_event *e = NULL;
	HostScanner *hs = NULL;

	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_ge(host_scanner_new(e, tree.fd, &cb, NULL, &hs), 0);
	host_scanner_set_io(hs, &fake_io, NULL);
	ck_assert_int_eq(host_scanner_queue(hs, SCAN_ANY, "test"), 0);
	run_until(e, hs, 1);
	ck_assert_uint_eq(n_done, 1);
	ck_assert_int_eq(done[0].r, -ENOENT);
	ck_assert_uint_eq(n_writes, 0);
	host_scanner_free(hs);
	sd_event_unref(e);
}
END_TEST

/* Freeing while a scan runs waits for it: nothing is left running on freed memory. */
START_TEST(test_free_while_running)
{
	static const HostScanCallbacks cb = { .done = on_done };
	sd_event *e = NULL;
	HostScanner *hs = NULL;

	host(0);
	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_ge(host_scanner_new(e, tree.fd, &cb, NULL, &hs), 0);
	host_scanner_set_io(hs, &fake_io, NULL);
	ck_assert_int_eq(host_scanner_queue(hs, SCAN_ANY, "test"), 0);
	host_scanner_free(hs);
	ck_assert_uint_eq(n_done, 0); /* never called back after free */
	sd_event_unref(e);
}
END_TEST

/* A scan write that never returns (a kernel scan of dead targets) until @release is set;
 * @entered once a scan is in it. */
static volatile bool release, entered;

static int hanging_write_attr(void *ud, int fd, const char *path, const char *value)
{
	__atomic_store_n(&entered, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE))
		usleep(1000);
	return 0;
}

static const ScanIo hanging_io = {
	.report_luns = fake_report_luns,
	.read_capacity = fake_read_capacity,
	.write_attr = hanging_write_attr,
	.open_exclusive = fake_open_exclusive,
};

/* Shutdown gives a hung scan its grace period, then leaves it: it never waits forever. */
START_TEST(test_shutdown_hung)
{
	static const HostScanCallbacks cb = { .done = on_done };
	sd_event *e = NULL;
	HostScanner *hs = NULL;

	host(0);
	release = entered = false;
	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_ge(host_scanner_new(e, tree.fd, &cb, NULL, &hs), 0);
	host_scanner_set_io(hs, &hanging_io, NULL);
	ck_assert_int_eq(host_scanner_queue(hs, SCAN_ANY, "test"), 0);
	ck_assert(host_scanner_running(hs));
	/* In the kernel: a scan its worker has not taken up yet is dropped at shutdown. */
	for (int i = 0; i < 10000 && !__atomic_load_n(&entered, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	ck_assert(entered);
	ck_assert_int_eq(host_scanner_shutdown(hs, 200 * 1000ULL), -ETIMEDOUT);
	ck_assert_uint_eq(n_done, 0);
	ck_assert_uint_eq(worker_live_threads(), 1);
	/* The abandoned thread ends on its own once the kernel lets go, freeing the scanner. */
	__atomic_store_n(&release, true, __ATOMIC_RELEASE);
	while (worker_live_threads() > 0)
		usleep(1000);
	ck_assert_uint_eq(n_done, 0);
	sd_event_unref(e);
}
END_TEST

/* A scan that ends within the grace period is waited for and freed. */
START_TEST(test_shutdown_in_time)
{
	static const HostScanCallbacks cb = { .done = on_done };
	sd_event *e = NULL;
	HostScanner *hs = NULL;

	host(0);
	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_ge(host_scanner_new(e, tree.fd, &cb, NULL, &hs), 0);
	host_scanner_set_io(hs, &fake_io, NULL);
	ck_assert_int_eq(host_scanner_queue(hs, SCAN_ANY, "test"), 0);
	ck_assert_int_eq(host_scanner_shutdown(hs, 30 * 1000000ULL), 0);
	ck_assert_uint_eq(n_done, 0);
	sd_event_unref(e);
}
END_TEST

/* Target rescans queue behind the running scan; the same target twice is one request, a scan
 * of every host that only adds does not absorb a target rescan that also removes. */
START_TEST(test_queue_targets)
{
	static const HostScanCallbacks cb = { .done = on_done };
	ScanSelector t1 = { .host = 0, .channel = 0, .target = 1, .lun = SCAN_ANY };
	ScanSelector t2 = { .host = 0, .channel = 0, .target = 2, .lun = SCAN_ANY };
	sd_event *e = NULL;
	HostScanner *hs = NULL;

	host(0);
	release = false;
	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_ge(host_scanner_new(e, tree.fd, &cb, NULL, &hs), 0);
	host_scanner_set_io(hs, &hanging_io, NULL);
	ck_assert_int_eq(host_scanner_queue(hs, SCAN_ANY, "start-up"), 0);
	ck_assert_int_eq(host_scanner_queue_full(hs, &t1, SCAN_ADD | SCAN_REMOVE, "ua"), 0);
	ck_assert_int_eq(host_scanner_queue_full(hs, &t1, SCAN_ADD | SCAN_REMOVE, "ua"), 0);
	ck_assert_int_eq(host_scanner_queue_full(hs, &t2, SCAN_ADD | SCAN_REMOVE, "ua"), 0);
	ck_assert_int_eq(host_scanner_queue(hs, SCAN_ANY, "new host"), 0);
	ck_assert_uint_eq(host_scanner_n_queued(hs), 3);
	__atomic_store_n(&release, true, __ATOMIC_RELEASE);
	run_until(e, hs, 4);
	ck_assert_uint_eq(n_done, 4);
	ck_assert(!wrong_thread);
	ck_assert(!host_scanner_busy(hs));
	host_scanner_free(hs);
	sd_event_unref(e);
}
END_TEST

static Suite *hostscan_suite(void)
{
	Suite *s = suite_create("hostscan");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_shutdown_hung);
	tcase_add_test(tc, test_shutdown_in_time);
	tcase_add_test(tc, test_queue_targets);
	tcase_add_test(tc, test_no_host);
	tcase_add_test(tc, test_free_while_running);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(hostscan_suite)
