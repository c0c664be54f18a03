/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* name-floor: the least a user-space namer with lund's monitor can do, as bench/daemon.sh's
 * "floor" round. It receives every kernel uevent through libudev (as lund does), and for each
 * sd disk's add reads the kernel's `wwid` of its LU (the identifier the kernel derived from the
 * cached VPD page 0x83) and writes the two names udev's rules and lund both give, scsi-3<naa>
 * and wwn-0x<naa>, to ../../sdX in DIR; --extra N writes N more per disk (lund writes eight
 * links and eight records per LU). No identification, policy, records, logging or removal: a
 * lower bound for the time a namer needs next to the kernel, not a namer.
 *
 *   name-floor DIR [--extra N]
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

int main(int argc, char **argv)
{
	struct udev *udev;
	struct udev_monitor *mon;
	unsigned long uevents = 0, disks = 0;
	int dirfd, extra = 0;

	if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--extra") == 0)) {
		fprintf(stderr, "usage: name-floor DIR [--extra N]\n");
		return 2;
	}
	if (argc == 4)
		extra = atoi(argv[3]);
	(void)mkdir(argv[1], 0755);
	dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		perror(argv[1]);
		return 1;
	}
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
		char naa[128], name[192], target[64];

		if (poll(&p, 1, -1) < 0)
			continue;
		while ((d = udev_monitor_receive_device(mon))) {
			uevents++;
			action = udev_device_get_action(d);
			subsystem = udev_device_get_subsystem(d);
			devtype = udev_device_get_devtype(d);
			sysname = udev_device_get_sysname(d);
			if (action && strcmp(action, "add") == 0 && subsystem &&
			    strcmp(subsystem, "block") == 0 && devtype &&
			    strcmp(devtype, "disk") == 0 && sysname &&
			    strncmp(sysname, "sd", 2) == 0 &&
			    read_naa(udev_device_get_syspath(d), naa, sizeof(naa))) {
				snprintf(target, sizeof(target), "../../%s", sysname);
				snprintf(name, sizeof(name), "scsi-3%s", naa);
				(void)symlinkat(target, dirfd, name);
				snprintf(name, sizeof(name), "wwn-0x%s", naa);
				(void)symlinkat(target, dirfd, name);
				for (int i = 0; i < extra; i++) {
					snprintf(name, sizeof(name), "x%d-%s", i, naa);
					(void)symlinkat(target, dirfd, name);
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
