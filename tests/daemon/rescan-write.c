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

#include "manager.h"
#include "modload.h"

#define HCTL    "0:0:0:0"
#define DEVPATH "/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:0/" HCTL

static int failures;
static char root[] = "/tmp/rescan-write-XXXXXX";
static char fifo[256];
static char got[16];
static volatile int wrote;

static void check(int cond, const char *what)
{
	printf("%s: %s\n", cond ? "ok" : "FAIL", what);
	fflush(stdout);
	if (!cond)
		failures++;
}

static void put(const char *rel, const char *text)
{
	char p[512], cmd[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	if (system(cmd) != 0)
		abort();
	f = fopen(p, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
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

int main(void)
{
	char run_dir[300], logpath[300], buf[65536];
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

	if (!mkdtemp(root))
		return 1;
	put("sys/bus/scsi/devices/" HCTL "/type", "0\n");
	put("sys/bus/scsi/devices/" HCTL "/vendor", "FAKE    \n");
	put("sys/bus/scsi/devices/" HCTL "/model", "DISK            \n");
	put("sys/bus/scsi/devices/" HCTL "/rev", "0001\n");
	put("sys/bus/scsi/devices/" HCTL "/scsi_level", "6\n");
	snprintf(fifo, sizeof(fifo), "%s/sys/bus/scsi/devices/" HCTL "/rescan", root);
	if (mkfifo(fifo, 0600) < 0)
		return 1;
	snprintf(run_dir, sizeof(run_dir), "%s/run", root);
	/* lund logs to stderr here: keep it to look for the report. */
	snprintf(logpath, sizeof(logpath), "%s/lund.log", root);
	if (!freopen(logpath, "w+", stderr))
		return 1;

	config = (ManagerConfig){
		.root = root,
		.run_dir = run_dir,
		.link_dir = "dev/scsi/by-id",
		.no_monitor = true,
		.probe_flags = PROBE_SYSFS_ONLY,
		.modload = MODLOAD_NEVER,
		.scan = MANAGER_SCAN_NEVER,
	};
	r = manager_new(&config, &m);
	if (r >= 0)
		r = manager_start(m);
	check(r >= 0, "the manager starts on the fake tree");
	if (r < 0)
		return 1;

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
	snprintf(buf, sizeof(buf), "rm -rf '%s'", root);
	if (failures == 0 && system(buf) != 0)
		return 1;
	return failures ? 1 : 0;
}
