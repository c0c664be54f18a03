/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Replays the kernel uevents of N scsi_debug-like LUs appearing (and, with --remove, going
 * away again) against the daemon's manager, on a fake sysfs tree in a temporary directory. Each
 * sysfs node is created just before its event, in the order Linux 6.1 emits them, so the
 * daemon sees what it would see live. The kernel's cached INQUIRY and VPD pages are in the
 * tree: identification needs no SCSI command. Links are written below the temporary root.
 *
 * For bench/uevent.sh: all events go through manager_handle_uevent(), and after the burst of
 * each LU's events the event loop runs once, as it does live when the monitor has nothing more
 * to dispatch (the links of the burst are written then, in on_links_flush()); callgrind's
 * --toggle-collect counts both on their own; the memory figures are printed at the end.
 *
 *   uevent-replay [--lus N] [--targets T] [--remove] [--disk-links] [--keep] [--check] [--storm]
 *                 [--smaps] [--cold]
 *
 * --check: after each LU's burst, its by-id links must name its disk and sg node (a test in
 * the daemon suite runs it so).
 * --storm: the loop never drains between bursts, as under a storm that keeps the monitor
 * busy: a source of the monitor's priority stays ready throughout, and the loop runs one
 * dispatch per LU. Links must still be written during the storm, in batches (lund(8), at most
 * 64 LUs behind); the number written before the storm ends is printed and checked.
 * --smaps: after the LUs are added, the resident pages by mapping (print_smaps()).
 * --cold: the LUs are all there before the manager starts (a boot with the disks present):
 * they are found by the start-up resync, not by uevents, and the memory figures are its.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "manager.h"
#include "modload.h"

static char root[1024];
static unsigned long n_events;
static bool quiet; /* --cold: the tree is built before lund starts, no uevent is sent */

static void die(const char *what)
{
	fprintf(stderr, "uevent-replay: %s: %m\n", what);
	exit(EXIT_FAILURE);
}

static void mkdir_parents(char *p)
{
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			die(p);
		*s = '/';
	}
}

static void put(const void *data, size_t len, const char *fmt, ...) _printf_(3, 4);
static void put(const void *data, size_t len, const char *fmt, ...)
{
	char p[PATH_MAX], rel[PATH_MAX / 2];
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	mkdir_parents(p);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		die(p);
	close(fd);
}

#define put_str(s, ...) put((s), strlen(s), __VA_ARGS__)

static void symlink_to(const char *target, const char *fmt, ...) _printf_(2, 3);
static void symlink_to(const char *target, const char *fmt, ...)
{
	char p[PATH_MAX], rel[PATH_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	mkdir_parents(p);
	if (symlink(target, p) < 0)
		die(p);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_tree(const char *fmt, ...) _printf_(1, 2);
static void rm_tree(const char *fmt, ...)
{
	char p[PATH_MAX], rel[PATH_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	(void)nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* sd's names: sda..sdz, sdaa..sdzz, sdaaa... */
static void sd_name(unsigned i, char ret[static 16])
{
	char rev[8];
	size_t n = 0;

	i++;
	while (i > 0 && n < sizeof(rev)) {
		i--;
		rev[n++] = (char)('a' + i % 26);
		i /= 26;
	}
	strcpy(ret, "sd");
	for (size_t k = 0; k < n; k++)
		ret[2 + k] = rev[n - 1 - k];
	ret[2 + n] = 0;
}

typedef struct Lun {
	unsigned target, lun, index;
	char hctl[64], devpath[256], sd[16];
} Lun;

static void lun_init(Lun *l, unsigned index, unsigned targets, unsigned per_target)
{
	l->index = index;
	l->target = index / per_target;
	l->lun = index % per_target;
	snprintf(l->hctl, sizeof(l->hctl), "0:0:%u:%u", l->target, l->lun);
	snprintf(l->devpath, sizeof(l->devpath), "/devices/pseudo_0/adapter0/host0/target0:0:%u/%s",
	         l->target, l->hctl);
	sd_name(index, l->sd);
}

static Manager *manager;
static sd_event *loop;

/* --storm: an eventfd that stays readable, at the monitor's (normal) priority, as the
 * monitor's socket does while uevents keep coming: epoll reports it in every iteration, so it
 * takes its turn with the other sources that are ready (the identify threads' results), as
 * the monitor does. */
static int on_storm(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	return 0;
}

/* The loop's turn once a burst of uevents is in: whatever the manager deferred to it, and the
 * results of the identifications it runs off the loop (each comes back through it). */
static void burst_end(void)
{
	for (;;) {
		while (sd_event_run(loop, 0) > 0)
			;
		if (manager_n_identifying(manager) == 0)
			break;
		if (sd_event_run(loop, UINT64_MAX) < 0)
			die("event loop");
	}
}

static void event(const char *action, const char *subsystem, const char *devtype, const char *fmt,
                  ...) _printf_(4, 5);
static void event(const char *action, const char *subsystem, const char *devtype, const char *fmt,
                  ...)
{
	char devpath[PATH_MAX / 2];
	va_list ap;
	Uevent ev;

	if (quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(devpath, sizeof(devpath), fmt, ap);
	va_end(ap);
	ev = (Uevent){
		.action = action,
		.subsystem = subsystem,
		.devtype = devtype,
		.devpath = devpath,
		.seqnum = ++n_events,
	};
	manager_handle_uevent(manager, &ev);
}

/* scsi_debug's identity pages: an NAA-6 LU name and a T10 vendor ID, the serial in 0x80. */
static void put_lu_attrs(const Lun *l)
{
	uint8_t inq[96] = { 0x00, 0x00, 0x07, 0x02, 91, 0x00, 0x00, 0x02 };
	uint8_t pg0[] = { 0x00, 0x00, 0x00, 0x04, 0x00, 0x80, 0x83, 0xb0 };
	uint8_t pg80[4 + 16] = { 0x00, 0x80, 0x00, 16 };
	uint8_t pg83[4 + 20 + 28] = { 0x00, 0x83, 0x00, 20 + 28,
		                      /* NAA, LU, 16 bytes: 6 3333 333 <index> */
		                      0x01, 0x03, 0x00, 0x10, 0x63, 0x33, 0x33, 0x30 };
	uint8_t pgb0[64] = { 0x00, 0xb0, 0x00, 0x3c };
	char serial[17];

	memcpy(inq + 8, "Linux   scsi_debug      0191", 28);
	snprintf(serial, sizeof(serial), "%016u", 2000 + l->index);
	memcpy(pg80 + 4, serial, 16);
	for (size_t k = 0; k < 8; k++)
		pg83[4 + 4 + 4 + 4 + k] = (uint8_t)((uint64_t)(l->index + 1) >> (8 * (7 - k)));
	/* T10 vendor ID: "Linux   " + serial */
	pg83[24] = 0x02;
	pg83[25] = 0x01;
	pg83[27] = 24;
	memcpy(pg83 + 28, "Linux   ", 8);
	memcpy(pg83 + 36, serial, 16);

	put(inq, sizeof(inq), "sys%s/inquiry", l->devpath);
	put(pg0, sizeof(pg0), "sys%s/vpd_pg0", l->devpath);
	put(pg80, sizeof(pg80), "sys%s/vpd_pg80", l->devpath);
	put(pg83, sizeof(pg83), "sys%s/vpd_pg83", l->devpath);
	put(pgb0, sizeof(pgb0), "sys%s/vpd_pgb0", l->devpath);
	put_str("0\n", "sys%s/type", l->devpath);
	put_str("8\n", "sys%s/scsi_level", l->devpath);
	put_str("Linux   \n", "sys%s/vendor", l->devpath);
	put_str("scsi_debug      \n", "sys%s/model", l->devpath);
	put_str("0191\n", "sys%s/rev", l->devpath);
	put_str("running\n", "sys%s/state", l->devpath);
	put_str("", "sys%s/rescan", l->devpath);
	put_str("1\n", "sys%s/queue_depth", l->devpath);
	put_str("30\n", "sys%s/timeout", l->devpath);
	/* A stock kernel's error counters (scsi_sysfs.c, hex): lund polls them per LU. */
	put_str("0x0\n", "sys%s/ioerr_cnt", l->devpath);
	put_str("0x0\n", "sys%s/iotmo_cnt", l->devpath);
	put_str("DEVTYPE=scsi_device\nMODALIAS=scsi:t-0x00\n", "sys%s/uevent", l->devpath);
	symlink_to("../../../bus/scsi", "sys%s/subsystem", l->devpath);
}

static void lu_appear(const Lun *l, bool first_of_target)
{
	char rel[PATH_MAX / 2];

	if (first_of_target) {
		put_str("DEVTYPE=scsi_target\n",
		        "sys/devices/pseudo_0/adapter0/host0/target0:0:%u/uevent", l->target);
		event("add", "scsi", "scsi_target", "/devices/pseudo_0/adapter0/host0/target0:0:%u",
		      l->target);
	}

	put_lu_attrs(l);
	snprintf(rel, sizeof(rel), "../../../devices/pseudo_0/adapter0/host0/target0:0:%u/%s",
	         l->target, l->hctl);
	symlink_to(rel, "sys/bus/scsi/devices/%s", l->hctl);
	event("add", "scsi", "scsi_device", "%s", l->devpath);

	put_str("5\n", "sys%s/scsi_disk/%s/max_retries", l->devpath, l->hctl);
	event("add", "scsi_disk", NULL, "%s/scsi_disk/%s", l->devpath, l->hctl);

	put_str("", "sys%s/scsi_device/%s/uevent", l->devpath, l->hctl);
	event("add", "scsi_device", NULL, "%s/scsi_device/%s", l->devpath, l->hctl);

	put_str("21:0\n", "sys%s/scsi_generic/sg%u/dev", l->devpath, l->index);
	event("add", "scsi_generic", NULL, "%s/scsi_generic/sg%u", l->devpath, l->index);

	put_str("254:0\n", "sys%s/bsg/%s/dev", l->devpath, l->hctl);
	event("add", "bsg", NULL, "%s/bsg/%s", l->devpath, l->hctl);

	event("add", "bdi", NULL, "/devices/virtual/bdi/8:%u", l->index * 16);

	put_str("8:0\n", "sys%s/block/%s/dev", l->devpath, l->sd);
	put_str("2048\n", "sys%s/block/%s/size", l->devpath, l->sd);
	put_str("0\n", "sys%s/block/%s/removable", l->devpath, l->sd);
	snprintf(rel, sizeof(rel), "../devices/pseudo_0/adapter0/host0/target0:0:%u/%s/block/%s",
	         l->target, l->hctl, l->sd);
	symlink_to(rel, "sys/block/%s", l->sd);
	event("add", "block", "disk", "%s/block/%s", l->devpath, l->sd);

	event("bind", "scsi", "scsi_device", "%s", l->devpath);
}

static void lu_disappear(const Lun *l, bool last_of_target)
{
	rm_tree("sys%s/bsg", l->devpath);
	event("remove", "bsg", NULL, "%s/bsg/%s", l->devpath, l->hctl);
	rm_tree("sys%s/scsi_generic", l->devpath);
	event("remove", "scsi_generic", NULL, "%s/scsi_generic/sg%u", l->devpath, l->index);
	rm_tree("sys/block/%s", l->sd);
	rm_tree("sys%s/block", l->devpath);
	event("remove", "block", "disk", "%s/block/%s", l->devpath, l->sd);
	event("remove", "bdi", NULL, "/devices/virtual/bdi/8:%u", l->index * 16);
	event("unbind", "scsi", "scsi_device", "%s", l->devpath);
	rm_tree("sys%s/scsi_disk", l->devpath);
	event("remove", "scsi_disk", NULL, "%s/scsi_disk/%s", l->devpath, l->hctl);
	rm_tree("sys%s/scsi_device", l->devpath);
	event("remove", "scsi_device", NULL, "%s/scsi_device/%s", l->devpath, l->hctl);
	rm_tree("sys/bus/scsi/devices/%s", l->hctl);
	rm_tree("sys%s", l->devpath);
	event("remove", "scsi", "scsi_device", "%s", l->devpath);
	if (last_of_target) {
		rm_tree("sys/devices/pseudo_0/adapter0/host0/target0:0:%u", l->target);
		event("remove", "scsi", "scsi_target",
		      "/devices/pseudo_0/adapter0/host0/target0:0:%u", l->target);
	}
}

/* After @l's burst: its by-id names lead to its disk and its sg node, as lund(8) LINKS says. */
static bool lu_links_right(const Lun *l)
{
	static const struct {
		const char *prefix, *suffix;
		bool sg;
	} want[] = {
		{ "scsi-3", "", false },
		{ "scsi-3", "-sg", true },
		{ "wwn-0x", "", false },
		{ "wwn-0x", "-sg", true },
	};

	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		char p[PATH_MAX], target[PATH_MAX], expect[64];
		ssize_t k;

		/* the NAA designator of put_lu_attrs(): 6333333 0, 4 zero bytes, index + 1 */
		snprintf(p, sizeof(p), "%s/dev/scsi/by-id/%s63333330000000000000000000%06x%s", root,
		         want[i].prefix, l->index + 1, want[i].suffix);
		if (want[i].sg)
			snprintf(expect, sizeof(expect), "../../sg%u", l->index);
		else
			snprintf(expect, sizeof(expect), "../../%s", l->sd);
		k = readlink(p, target, sizeof(target) - 1);
		if (k < 0 || (target[k] = 0, !streq(target, expect))) {
			fprintf(stderr, "uevent-replay: %s: %s, want %s\n", p,
			        k < 0 ? strerror(errno) : target, expect);
			return false;
		}
	}
	return true;
}

static unsigned count_entries(const char *rel)
{
	char p[PATH_MAX];
	unsigned n = 0;
	DIR *d;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	d = opendir(p);
	if (!d)
		return 0;
	for (struct dirent *de; (de = readdir(d));)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static long status_kib(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strneq(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = strtol(line + strlen(key) + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static void print_memory(const char *when)
{
	struct mallinfo2 mi = mallinfo2();

	printf("memory %s: VmRSS=%ld VmHWM=%ld RssAnon=%ld heap_in_use=%zu heap_arena=%zu "
	       "heap_mmap=%zu (KiB except heap: bytes)\n",
	       when, status_kib("VmRSS"), status_kib("VmHWM"), status_kib("RssAnon"), mi.uordblks,
	       mi.arena, mi.hblkhd);
}

/* --smaps: where the resident pages are, by mapping (a library, [heap], [stack], an anonymous
 * mapping), summed over /proc/self/smaps: the private pages (Anonymous: written, never
 * backed by a file, what RssAnon counts) and the resident ones (Rss). One line each:
 *   smaps anon=KiB rss=KiB name */
static void print_smaps(void)
{
	typedef struct {
		char name[128];
		long anon, rss;
	} Region;
	static Region regions[256];
	size_t n = 0, cur = SIZE_MAX;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "re");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char name[128] = "";
		long kib;

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %127s", &lo, &hi, name) >= 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

			if (!*base)
				base = "(anonymous)";
			for (cur = 0; cur < n && !streq(regions[cur].name, base); cur++)
				;
			if (cur == n && n < ELEMENTSOF(regions))
				snprintf(regions[n++].name, sizeof(regions[0].name), "%s", base);
			if (cur >= n)
				cur = SIZE_MAX;
		} else if (cur != SIZE_MAX && sscanf(line, "Anonymous: %ld kB", &kib) == 1)
			regions[cur].anon += kib;
		else if (cur != SIZE_MAX && sscanf(line, "Rss: %ld kB", &kib) == 1)
			regions[cur].rss += kib;
	}
	if (f)
		fclose(f);
	for (size_t i = 0; i < n; i++)
		if (regions[i].rss > 0)
			printf("smaps anon=%ld rss=%ld %s\n", regions[i].anon, regions[i].rss,
			       regions[i].name);
}

static const char usage[] =
        "usage: uevent-replay [--lus N] [--targets T] [--remove] [--disk-links] [--keep] "
        "[--check]\n"
        "                     [--storm] [--smaps] [--cold]\n"
        "Replays the uevents of N scsi_debug-like LUs (default 1024, 0 for the process alone, on "
        "T\n"
        "targets, default 4)\n"
        "against lund's manager on a fake sysfs tree and prints instructions and memory figures.\n"
        "  --remove      the LUs go away again afterwards\n"
        "  --disk-links  also write /dev/disk/by-id links\n"
        "  --keep        keep the temporary tree\n"
        "  --check       after each LU, its by-id links must name its disk and sg node\n"
        "  --storm       the loop never drains between LUs (links written in batches)\n"
        "  --smaps       print resident pages by mapping after the LUs are added\n"
        "  --cold        the LUs exist before the start (found by the start-up resync)\n";

/* A count from @min to 1048576: a typo must not become 0 LUs or a wrapped number. */
static int parse_count(const char *s, unsigned min, unsigned *ret)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > 1048576) {
		fprintf(stderr, "uevent-replay: '%s' is not a count from %u to 1048576\n", s, min);
		return -EINVAL;
	}
	*ret = (unsigned)v;
	return 0;
}

int main(int argc, char *argv[])
{
	enum {
		OPT_LUS = 0x100,
		OPT_TARGETS,
		OPT_REMOVE,
		OPT_DISK_LINKS,
		OPT_KEEP,
		OPT_CHECK,
		OPT_STORM,
		OPT_SMAPS,
		OPT_COLD,
		OPT_HELP,
	};
	static const struct option options[] = {
		{ "lus", required_argument, NULL, OPT_LUS },
		{ "targets", required_argument, NULL, OPT_TARGETS },
		{ "remove", no_argument, NULL, OPT_REMOVE },
		{ "disk-links", no_argument, NULL, OPT_DISK_LINKS },
		{ "keep", no_argument, NULL, OPT_KEEP },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "storm", no_argument, NULL, OPT_STORM },
		{ "smaps", no_argument, NULL, OPT_SMAPS },
		{ "cold", no_argument, NULL, OPT_COLD },
		{ "help", no_argument, NULL, OPT_HELP },
		{}
	};
	unsigned n = 1024, targets = 4, per_target;
	bool remove = false, disk_links = false, keep = false, check = false, storm = false,
	     smaps = false, cold = false;
	sd_event_source *storm_source = NULL;
	int storm_fd = -EBADF;
	unsigned storm_links = 0, storm_min = 0;
	char run_dir[PATH_MAX], conf[PATH_MAX];
	ManagerConfig config;
	unsigned links, expected, wrong = 0, left = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
		switch (c) {
		case OPT_LUS:
			if (parse_count(optarg, 0, &n) < 0)
				return EXIT_FAILURE;
			break;
		case OPT_TARGETS:
			if (parse_count(optarg, 1, &targets) < 0)
				return EXIT_FAILURE;
			break;
		case OPT_REMOVE:
			remove = true;
			break;
		case OPT_DISK_LINKS:
			disk_links = true;
			break;
		case OPT_KEEP:
			keep = true;
			break;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_STORM:
			storm = true;
			break;
		case OPT_SMAPS:
			smaps = true;
			break;
		case OPT_COLD:
			cold = true;
			break;
		case OPT_HELP:
			fputs(usage, stdout);
			return EXIT_SUCCESS;
		default:
			fputs(usage, stderr);
			return EXIT_FAILURE;
		}
	if (targets == 0)
		targets = 1;
	per_target = (n + targets - 1) / targets;
	if (per_target == 0)
		per_target = 1;

	snprintf(root, sizeof(root), "%s/uevent-replay-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(root))
		die("mkdtemp");
	snprintf(run_dir, sizeof(run_dir), "%s/run", root);
	snprintf(conf, sizeof(conf), "%s/etc/lund/lund.conf", root);
	put_str("", "sys/class/scsi_host/host0/scan");
	put_str("", "sys/devices/pseudo_0/adapter0/host0/uevent");
	symlink_to("../../../devices/pseudo_0/adapter0/host0", "sys/bus/scsi/devices/host0");
	put_str("", "dev/.keep");

	/* The daemon logs at its default level; to stderr, which the script discards. */
	log_setup("lund", LOG_TARGET_STDERR, LOG_INFO);
	config = (ManagerConfig){
		.root = root,
		.run_dir = run_dir,
		.link_dir = "dev/scsi/by-id",
		.disk_link_dir = disk_links ? "dev/disk/by-id" : NULL,
		.no_monitor = true,
		.conf_path = conf,
		.modload = MODLOAD_NEVER,
	};
	if (cold) {
		quiet = true;
		for (unsigned i = 0; i < n; i++) {
			Lun l;

			lun_init(&l, i, targets, per_target);
			lu_appear(&l, l.lun == 0);
		}
		quiet = false;
	}
	r = manager_new(&config, &manager);
	if (r >= 0)
		r = manager_start(manager);
	if (r < 0) {
		errno = -r;
		die("manager start");
	}
	/* The manager's loop is this thread's default one. */
	if (sd_event_default(&loop) < 0)
		die("sd_event_default");
	burst_end();
	print_memory("start");

	if (storm) {
		storm_fd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
		if (storm_fd < 0 ||
		    sd_event_add_io(loop, &storm_source, storm_fd, EPOLLIN, on_storm, NULL) < 0)
			die("storm source");
	}
	for (unsigned i = 0; !cold && i < n; i++) {
		Lun l;

		lun_init(&l, i, targets, per_target);
		lu_appear(&l, l.lun == 0);
		if (storm) {
			(void)sd_event_run(loop, 0);
			continue;
		}
		burst_end();
		if (check && !lu_links_right(&l))
			wrong++;
	}
	if (storm) {
		/* Every LU but the last batch (64 LUs, four links each) is named by now. */
		storm_links = count_entries("dev/scsi/by-id");
		storm_min = n > 64 ? 2 * 2 * (n - 64) : 0;
		printf("storm: links=%u before the storm ended (at least %u expected)\n",
		       storm_links, storm_min);
		storm_source = sd_event_source_disable_unref(storm_source);
		storm_fd = safe_close(storm_fd);
		burst_end();
	}
	print_memory("added");
	if (smaps)
		print_smaps();
	links = count_entries("dev/scsi/by-id");
	/* scsi-3<NAA> and wwn-0x<NAA>, each also as -sg */
	expected = 2 * 2 * n;
	printf("lus=%u events_add=%lu links=%u expected_links=%u\n", n, n_events, links, expected);

	if (remove) {
		unsigned long before = n_events;

		for (unsigned i = n; i-- > 0;) {
			Lun l;

			lun_init(&l, i, targets, per_target);
			lu_disappear(&l, l.lun == 0);
			burst_end();
		}
		left = count_entries("dev/scsi/by-id");
		printf("events_remove=%lu links_after_remove=%u\n", n_events - before, left);
	}
	printf("events=%lu\n", n_events);

	manager_free(manager);
	sd_event_unref(loop);
	if (!keep)
		rm_tree("%s", "");
	else
		printf("tree kept: %s\n", root);
	if (wrong > 0)
		fprintf(stderr, "uevent-replay: %u LUs without their links after their uevents\n",
		        wrong);
	if (storm_links < storm_min)
		fprintf(stderr, "uevent-replay: %u links written during the storm, %u expected\n",
		        storm_links, storm_min);
	return links == expected && left == 0 && wrong == 0 && storm_links >= storm_min
	               ? EXIT_SUCCESS
	               : EXIT_FAILURE;
}
