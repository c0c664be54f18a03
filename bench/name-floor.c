/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* name-floor: the least a user-space namer with lund's monitor can do, as bench/daemon.sh's
 * "floor" round. It receives every kernel uevent through libudev (as lund does), and for each
 * sd disk's add reads the kernel's `wwid` of its LU (the identifier the kernel derived from the
 * cached VPD page 0x83) and writes the two names udev's rules and lund both give, scsi-3<naa>
 * and wwn-0x<naa>, to ../../sdX in DIR; --extra N writes N more per disk (lund writes eight
 * links and eight records per LU). No identification, policy, records, logging or removal: a
 * lower bound for the time a namer needs next to the kernel, not a namer.
 *
 * --pages also reads, at each scsi_device's add, the attributes lund identifies an LU from
 * (scsi_level, inquiry, state, vpd_pg0, vpd_pg80, vpd_pg83, vpd_pg89, relative to the LU's
 * directory, as lund does; its type comes from the uevent's MODALIAS), and --records RDIR writes a
 * record symlink in RDIR beside each name (lund's ownership records): with --extra 6, the system
 * calls lund cannot do without, and nothing else.
 *
 *   name-floor DIR [--extra N] [--pages] [--records RDIR]
 *
 * On SIGTERM it prints the uevents received and the disks named. */

#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* The NAA digits of the LU's wwid ("naa.3333333000001771\n"); 0 when it has none. */
static int read_naa(const char *syspath, char *naa, size_t size)
{
	char path[4096], buf[256];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/device/wwid", syspath) >= (int)sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 4 || strncmp(buf, "naa.", 4) != 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (strlen(buf + 4) >= size)
		return 0;
	strcpy(naa, buf + 4);
	return 1;
}

/* lund's reads of a new LU: its directory once, each attribute relative to it. */
static void read_pages(const char *syspath)
{
	static const char *const attrs[] = { "scsi_level", "inquiry",  "state",   "vpd_pg0",
		                             "vpd_pg80",   "vpd_pg83", "vpd_pg89" };
	char buf[4096];
	int dfd;

	dfd = open(syspath, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		int fd = openat(dfd, attrs[i], O_RDONLY | O_NOCTTY | O_CLOEXEC);

		if (fd < 0)
			continue;
		(void)!read(fd, buf, sizeof(buf));
		close(fd);
	}
	close(dfd);
}

static int open_dir(const char *path)
{
	int fd;

	(void)mkdir(path, 0755);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		perror(path);
	return fd;
}

/* A name, and its record first when there are records. */
static void name(int dirfd, int recfd, const char *target, const char *n)
{
	if (recfd >= 0)
		(void)symlinkat(target, recfd, n);
	(void)symlinkat(target, dirfd, n);
}

static const char usage[] = "usage: name-floor DIR [--extra N] [--pages] [--records RDIR]\n";

int main(int argc, char **argv)
{
	struct udev *udev;
	struct udev_monitor *mon;
	unsigned long uevents = 0, disks = 0;
	int dirfd, recfd = -1, extra = 0;
	int pages = 0;

	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--extra") == 0 && i + 1 < argc)
			extra = atoi(argv[++i]);
		else if (strcmp(argv[i], "--pages") == 0)
			pages = 1;
		else if (strcmp(argv[i], "--records") == 0 && i + 1 < argc) {
			recfd = open_dir(argv[++i]);
			if (recfd < 0)
				return 1;
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	dirfd = open_dir(argv[1]);
	if (dirfd < 0)
		return 1;
	udev = udev_new();
	mon = udev ? udev_monitor_new_from_netlink(udev, "kernel") : NULL;
	if (!mon) {
		perror("udev_monitor_new_from_netlink");
		return 1;
	}
	(void)udev_monitor_set_receive_buffer_size(mon, 256 * 1024 * 1024);
	if (udev_monitor_enable_receiving(mon) < 0) {
		perror("udev_monitor_enable_receiving");
		return 1;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	fprintf(stderr, "name-floor: ready\n");

	while (!stop) {
		struct pollfd p = { .fd = udev_monitor_get_fd(mon), .events = POLLIN };
		struct udev_device *d;
		const char *action, *subsystem, *devtype, *sysname;
		char naa[128], n[192], target[64];

		if (poll(&p, 1, -1) < 0)
			continue;
		while ((d = udev_monitor_receive_device(mon))) {
			uevents++;
			action = udev_device_get_action(d);
			subsystem = udev_device_get_subsystem(d);
			devtype = udev_device_get_devtype(d);
			sysname = udev_device_get_sysname(d);
			if (pages && action && strcmp(action, "add") == 0 && subsystem &&
			    strcmp(subsystem, "scsi") == 0 && devtype &&
			    strcmp(devtype, "scsi_device") == 0)
				read_pages(udev_device_get_syspath(d));
			if (action && strcmp(action, "add") == 0 && subsystem &&
			    strcmp(subsystem, "block") == 0 && devtype &&
			    strcmp(devtype, "disk") == 0 && sysname &&
			    strncmp(sysname, "sd", 2) == 0 &&
			    read_naa(udev_device_get_syspath(d), naa, sizeof(naa))) {
				snprintf(target, sizeof(target), "../../%s", sysname);
				snprintf(n, sizeof(n), "scsi-3%s", naa);
				name(dirfd, recfd, target, n);
				snprintf(n, sizeof(n), "wwn-0x%s", naa);
				name(dirfd, recfd, target, n);
				for (int i = 0; i < extra; i++) {
					snprintf(n, sizeof(n), "x%d-%s", i, naa);
					name(dirfd, recfd, target, n);
				}
				disks++;
			}
			udev_device_unref(d);
		}
	}
	fprintf(stderr, "name-floor: %lu uevents, %lu disks named\n", uevents, disks);
	udev_monitor_unref(mon);
	udev_unref(udev);
	return 0;
}
