/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * A unit attention whose rescan write hangs in the kernel does not hang lund's loop.
 *
 * The daemon's manager runs in this process on a fake sysfs tree (as bench/uevent-replay does)
 * whose LU has a FIFO nobody reads as its "rescan" attribute: a write to it blocks in open(), as
 * the kernel's re-read of a device that does not answer does. A CAPACITY DATA HAS CHANGED
 * uevent is handled, and the handler must return at once; the loop goes on; when the "kernel"
 * lets go (a reader opens the FIFO) the write completes and the unit attention is reported.
 * An alarm ends the process if the handler waits (the old behaviour): the test fails then.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "check-util.h"
#include "manager-test.h"

#define HCTL    "0:0:0:0"
#define DEVPATH "/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:0/" HCTL

static int failures;
static CheckTree tree;
static char fifo[PATH_MAX];
static char got[16];
static volatile int wrote;

/* Every expectation is reported, failed or not; the test fails at its end if any did. */
static void check(int cond, const char *what)
{
	printf("%s: %s\n", cond ? "ok" : "FAIL", what);
	fflush(stdout);
	if (!cond)
		failures++;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The kernel lets go: read what lund wrote. */
static void *reader(void *arg)
{
	int fd = open(fifo, O_RDONLY);
	ssize_t k;

	if (fd < 0)
		return NULL;
	k = read(fd, got, sizeof(got) - 1);
	if (k > 0)
		got[k] = 0;
	close(fd);
	__atomic_store_n(&wrote, 1, __ATOMIC_RELEASE);
	return NULL;
}

START_TEST(test_rescan_write)
{
	char run_dir[PATH_MAX], buf[65536];
	ManagerConfig config = {};
	Manager *m = NULL;
	Uevent ev = {
		.action = "change",
		.subsystem = "scsi",
		.devtype = "scsi_device",
		.devpath = DEVPATH,
		.sdev_ua = "CAPACITY_DATA_HAS_CHANGED",
	};
	sd_event *e = NULL;
	pthread_t t;
	uint64_t t0, spent;
	size_t n;
	int r;

	check_tree_new(&tree, "rescan-write");
	check_tree_put_lu(&tree, &(CheckLu){ .hctl = HCTL,
	                                     .scsi_level = 6,
	                                     .vendor = "FAKE",
	                                     .model = "DISK",
	                                     .rev = "0001" });
	xsnprintf(fifo, "%s/sys/bus/scsi/devices/" HCTL "/rescan", tree.path);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	/* lund logs to stderr here: keep it to look for the report. */
	manager_test_log_to(&tree);
	config = manager_test_config(&tree, run_dir);
	r = manager_new(&config, &m);
	if (r >= 0)
		r = manager_start(m);
	check(r >= 0, "the manager starts on the fake tree");
	ck_assert_int_ge(r, 0);

	/* Before the change, the handler wrote the attribute in the loop: blocked until here. */
	alarm(20);
	t0 = now_ms();
	manager_handle_uevent(m, &ev);
	spent = now_ms() - t0;
	alarm(0);
	snprintf(buf, sizeof(buf),
	         "the capacity unit attention is handled without waiting for the write (%llu ms)",
	         (unsigned long long)spent);
	check(spent < 2000, buf);

	/* The loop runs on while the write hangs. */
	r = sd_event_default(&e);
	for (int i = 0; i < 10; i++)
		(void)sd_event_run(e, 50 * 1000);
	check(!__atomic_load_n(&wrote, __ATOMIC_ACQUIRE), "the write is still in the kernel");

	/* The kernel lets go: the write completes and its result comes back to the loop. */
	pthread_create(&t, NULL, reader, NULL);
	for (int i = 0; i < 400; i++) {
		(void)sd_event_run(e, 50 * 1000);
		fflush(stderr);
		fseek(stderr, 0, SEEK_SET);
		n = fread(buf, 1, sizeof(buf) - 1, stderr);
		buf[n] = 0;
		fseek(stderr, 0, SEEK_END);
		if (strstr(buf, "unit attention CAPACITY_DATA_HAS_CHANGED: capacity-reread"))
			break;
	}
	pthread_join(t, NULL);
	check(strcmp(got, "1") == 0 || strcmp(got, "1\n") == 0, "\"1\" was written to rescan");
	check(strstr(buf, "unit attention CAPACITY_DATA_HAS_CHANGED: capacity-reread") != NULL,
	      "the unit attention is reported once the write returned");
	manager_free(m);
	sd_event_unref(e);
	ck_assert_int_eq(failures, 0);
	check_tree_remove(&tree);
}
END_TEST

static Suite *rescan_write_suite(void)
{
	Suite *s = suite_create("rescan-write");
	TCase *tc = tcase_create("rescan-write");

	tcase_add_test(tc, test_rescan_write);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(rescan_write_suite)
