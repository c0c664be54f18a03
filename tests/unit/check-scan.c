/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The scan engine's plan against a fake sysfs tree in a temporary directory. The SG_IO layer and
 * sysfs writes are injected through a ScanIo: REPORT LUNS and READ CAPACITY come from canned
 * per-target data, and writes to scan/delete/rescan are recorded and acted out on the tree the
 * way the kernel would (a probed LUN appears only if the fake target has it).
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check-util.h"
#include "macro.h"
#include "scan.h"
#include "unaligned.h"

static CheckTree tree;

/* ---- the fake target world --------------------------------------------------------------- */

#define MAX_LUS     64
#define MAX_TARGETS 16

typedef struct FakeLu {
	unsigned h, c, t;
	uint64_t l;
	uint64_t capacity; /* bytes READ CAPACITY reports */
	char model[17];    /* INQUIRY PRODUCT IDENTIFICATION, "DISK" unless a test changes it */
	uint8_t naa;       /* last byte of the NAA designator in VPD page 0x83 */
} FakeLu;

typedef struct FakeTarget {
	unsigned h, c, t;
	int error;            /* REPORT LUNS fails with this */
	bool truncated;       /* REPORT LUNS returns a list shorter than its header says */
	bool with_wlun;       /* REPORT LUNS also lists the REPORT LUNS W-LUN */
	uint32_t garbage_len; /* nonzero: REPORT LUNS answers 16 bytes with this LUN LIST LENGTH */
} FakeTarget;

typedef struct Fake {
	FakeLu lus[MAX_LUS]; /* what exists on the "wire" */
	size_t n_lus;
	FakeTarget targets[MAX_TARGETS];
	size_t n_targets;
	char writes[64][160]; /* "path=value" */
	size_t n_writes;
	char busy[8][16]; /* block devices O_EXCL refuses */
	size_t n_busy;
	unsigned report_calls;
	unsigned inquiry_calls;
	int inquiry_error;        /* every INQUIRY fails with this */
	bool use_quirk;           /* run() passes fake_quirk as the policy's quirk callback */
	const char *excluded;     /* run() passes fake_leave: this glob of H:C:T:L is left alone */
	bool leave_removals_only; /* ... only instead of removals (an "add only" policy) */
	ScanQuirk quirk;          /* what the callback answers for vendor FAKE, model DISK */
	int quirk_type;           /* what the callback was asked, for the assertions */
	char quirk_vendor[32], quirk_model[32], quirk_rev[32];
	unsigned quirk_calls;
	unsigned probe_tasks;     /* threads of this process when the target probe was written */
	unsigned report_delay_ms; /* each REPORT LUNS takes this long, outside the fake's lock */
	unsigned report_busy;     /* REPORT LUNS under way at once, and the most seen */
	unsigned report_busy_max;
	unsigned write_delay_ms; /* each write to a host's scan attribute takes this long */
	unsigned host_writes;    /* such writes under way at once, and the most seen */
	unsigned host_writes_max;
	unsigned write_tasks_max; /* the most threads of this process seen during one */
	bool hold_host0;          /* host0's target scans wait until host1's targets are all done */
	unsigned host1_done;      /* host1's targets done so far */
	bool starved;             /* host0's wait ended without them */
	bool ports;       /* targets sit below ports (host_with_ports()), not below the host */
	char debug[2048]; /* the scan's debug messages, one a line */
} Fake;

static Fake fake;

/* The scan probes targets from its worker threads, each calling into the fake: one at a time,
 * as the kernel serialises a host's scans (shost->scan_mutex). Without it two threads' writes
 * could land in one slot of fake.writes and one scan would go unrecorded. */
static pthread_mutex_t fake_mutex = PTHREAD_MUTEX_INITIALIZER;

static void fake_unlockp(pthread_mutex_t **m)
{
	if (*m)
		pthread_mutex_unlock(*m);
}
#define FAKE_LOCKED                                                      \
	_cleanup_(fake_unlockp) _unused_ pthread_mutex_t *fake_locked_ = \
	        (pthread_mutex_lock(&fake_mutex), &fake_mutex)
static unsigned next_disk;
static unsigned events;

/* The threads of this process: the entries of /proc/self/task. */
static unsigned count_tasks(void)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc/self/task");
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	for (struct dirent *de; (de = readdir(d));)
		if (de->d_name[0] != '.')
			n++;
	return n;
}

static void setup(void)
{
	check_tree_new(&tree, "check-scan");
	memset(&fake, 0, sizeof(fake));
	next_disk = 0;
	events = 0;
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static bool exists(const char *rel)
{
	return faccessat(tree.fd, rel, F_OK, 0) == 0;
}

static void host(unsigned h, const char *proc_name)
{
	char p[128];

	xsnprintf(p, "sys/class/scsi_host/host%u/proc_name", h);
	check_tree_put_str(&tree, p, proc_name);
	xsnprintf(p, "sys/class/scsi_host/host%u/scan", h);
	check_tree_put_str(&tree, p, "");
	/* the host's device directory as the kernel has it: what is not a target, and below
	 * it each target's directory (instantiate()) */
	xsnprintf(p, "sys/class/scsi_host/host%u/device/power", h);
	check_tree_mkdirs(&tree, p);
	xsnprintf(p, "sys/class/scsi_host/host%u/device/scsi_host", h);
	check_tree_mkdirs(&tree, p);
	xsnprintf(p, "sys/class/scsi_host/host%u/device/uevent", h);
	check_tree_put_str(&tree, p, "DEVTYPE=scsi_host\n");
}

/* A transport host's layout: its targets below a port, not below the host. */
static void host_with_ports(unsigned h, const char *proc_name)
{
	char p[128];

	host(h, proc_name);
	fake.ports = true;
	xsnprintf(p, "sys/class/scsi_host/host%u/device/port-%u:0", h, h);
	check_tree_mkdirs(&tree, p);
}

/* An LU on the wire; @capacity 0: 8 MiB. */
static FakeLu *wire(unsigned h, unsigned c, unsigned t, uint64_t l)
{
	ck_assert_uint_lt(fake.n_lus, MAX_LUS);
	fake.lus[fake.n_lus] = (FakeLu){ h, c, t, l, 8u << 20, "DISK", (uint8_t)(fake.n_lus + 1) };
	return &fake.lus[fake.n_lus++];
}

static FakeLu *on_wire(unsigned h, unsigned c, unsigned t, uint64_t l)
{
	for (size_t i = 0; i < fake.n_lus; i++)
		if (fake.lus[i].h == h && fake.lus[i].c == c && fake.lus[i].t == t &&
		    fake.lus[i].l == l)
			return &fake.lus[i];
	return NULL;
}

/* VPD page 0x83 with one NAA IEEE Registered designator ending in @naa: 16 bytes. */
static size_t fake_pg83(uint8_t naa, uint8_t buf[16])
{
	static const uint8_t page[16] = {
		0x00, 0x83, 0x00, 0x0c,                         /* header, PAGE LENGTH 12 */
		0x01, 0x03, 0x00, 0x08,                         /* binary, LU, NAA, 8 bytes */
		0x60, 0x01, 0x40, 0x50, 0x00, 0x00, 0x00, 0x00, /* NAA 6 */
	};

	memcpy(buf, page, 16);
	buf[15] = naa;
	return 16;
}

static FakeTarget *target(unsigned h, unsigned c, unsigned t)
{
	for (size_t i = 0; i < fake.n_targets; i++)
		if (fake.targets[i].h == h && fake.targets[i].c == c && fake.targets[i].t == t)
			return &fake.targets[i];
	ck_assert_uint_lt(fake.n_targets, MAX_TARGETS);
	fake.targets[fake.n_targets] = (FakeTarget){ h, c, t };
	return &fake.targets[fake.n_targets++];
}

/* Instantiate an LU in sysfs as the kernel would: a disk with sg and block nodes. */
static void instantiate(unsigned h, unsigned c, unsigned t, uint64_t l)
{
	const FakeLu *w = on_wire(h, c, t, l);
	unsigned n = next_disk++;
	bool wlun = scan_lun_is_wlun(l);
	char hctl[64], p[128], holders[128], sd[8], sg[16], dev[16];
	uint8_t pg[16];

	if (!fake.ports) {
		xsnprintf(p, "sys/class/scsi_host/host%u/device/target%u:%u:%u", h, h, c, t);
		check_tree_mkdirs(&tree, p);
	}
	xsnprintf(hctl, "%u:%u:%u:%" PRIu64, h, c, t, l);
	xsnprintf(sd, "sd%c", 'a' + n);
	xsnprintf(sg, "sg%u", n);
	xsnprintf(dev, "8:%u\n", n * 16);
	xsnprintf(p, "block/%s/size", sd);
	xsnprintf(holders, "block/%s/holders/", sd);
	/* as the kernel shows them: the padded 16-byte field, and its VPD cache */
	check_tree_put_lu(&tree, &(CheckLu){ .hctl = hctl,
	                                     .type = wlun ? 30 : 0,
	                                     .scsi_level = 7,
	                                     .vendor = "FAKE",
	                                     .model = w ? w->model : "DISK",
	                                     .rev = "0001",
	                                     .sg = { sg },
	                                     .block = { wlun ? NULL : sd, dev },
	                                     .attrs = {
	                                             { "vpd_pg83", .data = pg,
	                                               .len = fake_pg83(w ? w->naa : 0, pg) },
	                                             { wlun ? NULL : p, "16384\n" }, /* 8 MiB */
	                                             { holders },
	                                     } });
}

static const char *block_of(const char *hctl)
{
	static char name[16];
	char p[128];
	int fd;

	xsnprintf(p, "sys/bus/scsi/devices/%s/block", hctl);
	fd = openat(tree.fd, p, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	for (char c = 'a'; c <= 'z'; c++) {
		char q[4] = { 's', 'd', c, 0 };

		if (faccessat(fd, q, F_OK, 0) == 0) {
			xsnprintf(name, "%s", q);
			close(fd);
			return name;
		}
	}
	close(fd);
	ck_abort_msg("no block device for %s", hctl);
	return NULL;
}

/* ---- the injected I/O ------------------------------------------------------------------- */

static int fake_report_luns_locked(void *ud, int fd, const ScanLu *lu, unsigned timeout_ms,
                                   uint8_t **ret_buf, size_t *ret_len, unsigned *commands)
{
	FAKE_LOCKED;
	FakeTarget *t = target(lu->host, lu->channel, lu->target);
	uint8_t *buf = calloc(1, 8 + 8 * (MAX_LUS + 1));
	size_t n = 0;

	fake.report_calls++;
	(*commands)++;
	if (t->error < 0) {
		free(buf);
		return t->error;
	}
	if (t->garbage_len) {
		unaligned_write_be32(buf, t->garbage_len);
		unaligned_write_be16(buf + 8, 1);
		*ret_buf = buf;
		*ret_len = 16;
		return 0;
	}
	for (size_t i = 0; i < fake.n_lus; i++) {
		const FakeLu *x = &fake.lus[i];
		uint8_t raw[8];

		if (x->h != lu->host || x->c != lu->channel || x->t != lu->target)
			continue;
		/* single level: the Linux LUN's low 16 bits are the first level as sent */
		unaligned_write_be16(raw, (uint16_t)x->l);
		memset(raw + 2, 0, 6);
		memcpy(buf + 8 + 8 * n++, raw, 8);
	}
	if (t->with_wlun) {
		uint8_t w[8] = { 0xc1, 0x01 };

		memcpy(buf + 8 + 8 * n++, w, 8);
	}
	unaligned_write_be32(buf, (uint32_t)(8 * n + (t->truncated ? 8 : 0)));
	*ret_buf = buf;
	*ret_len = 8 + 8 * n;
	return 0;
}

/* A slow target: the delay outside the fake's lock, so that REPORT LUNS of several targets can
 * be under way at once, as on a real host; the most at once is recorded. */
static int fake_report_luns(void *ud, int fd, const ScanLu *lu, unsigned timeout_ms,
                            uint8_t **ret_buf, size_t *ret_len, unsigned *commands)
{
	if (fake.report_delay_ms > 0) {
		unsigned busy = __atomic_add_fetch(&fake.report_busy, 1, __ATOMIC_SEQ_CST);
		unsigned max = __atomic_load_n(&fake.report_busy_max, __ATOMIC_SEQ_CST);

		while (busy > max &&
		       !__atomic_compare_exchange_n(&fake.report_busy_max, &max, busy, false,
		                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			;
		usleep(fake.report_delay_ms * 1000);
		__atomic_sub_fetch(&fake.report_busy, 1, __ATOMIC_SEQ_CST);
	}
	return fake_report_luns_locked(ud, fd, lu, timeout_ms, ret_buf, ret_len, commands);
}

/* INQUIRY: standard data with the LU's model, VPD page 0x83 from its NAA; no page 0x80. */
static int fake_inquiry(void *ud, int fd, const ScanLu *lu, int page, size_t alloc,
                        unsigned timeout_ms, uint8_t **ret_buf, size_t *ret_len, unsigned *commands)
{
	FAKE_LOCKED;
	const FakeLu *w = on_wire(lu->host, lu->channel, lu->target, lu->lun);
	uint8_t data[64] = {};
	size_t n;

	fake.inquiry_calls++;
	(*commands)++;
	if (!w || fake.inquiry_error < 0)
		return w ? fake.inquiry_error : -EIO;
	if (page < 0) {
		data[4] = 31; /* ADDITIONAL LENGTH: 36 bytes */
		memcpy(data + 8, "FAKE    ", 8);
		memset(data + 16, ' ', 16);
		/* NUL-terminated, as some devices send it: the kernel shows blanks */
		memcpy(data + 16, w->model, MIN(strlen(w->model) + 1, (size_t)16));
		memcpy(data + 32, "0001", 4);
		n = 36;
	} else if (page == 0x83)
		n = fake_pg83(w->naa, data);
	else
		return -EOPNOTSUPP;
	n = MIN(n, alloc);
	*ret_buf = malloc(n);
	ck_assert_ptr_nonnull(*ret_buf);
	memcpy(*ret_buf, data, n);
	*ret_len = n;
	return 0;
}

static int fake_read_capacity(void *ud, int fd, const ScanLu *lu, unsigned timeout_ms,
                              uint64_t *ret, unsigned *commands)
{
	FAKE_LOCKED;
	(*commands)++;
	for (size_t i = 0; i < fake.n_lus; i++) {
		const FakeLu *x = &fake.lus[i];

		if (x->h == lu->host && x->c == lu->channel && x->t == lu->target &&
		    x->l == lu->lun) {
			*ret = x->capacity;
			return 0;
		}
	}
	return -EIO;
}

/* Act out a scan write like the kernel: "C T L" with "-" wildcards. */
static void kernel_scan(unsigned h, const char *value)
{
	char c[24], t[24], l[24];

	ck_assert_int_eq(sscanf(value, "%23s %23s %23s", c, t, l), 3);
	for (size_t i = 0; i < fake.n_lus; i++) {
		const FakeLu *x = &fake.lus[i];
		char p[128];

		if (x->h != h || (!streq(c, "-") && strtoul(c, NULL, 10) != x->c) ||
		    (!streq(t, "-") && strtoul(t, NULL, 10) != x->t) ||
		    (!streq(l, "-") && strtoull(l, NULL, 10) != x->l))
			continue;
		xsnprintf(p, "sys/bus/scsi/devices/%u:%u:%u:%" PRIu64, x->h, x->c, x->t, x->l);
		if (!exists(p))
			instantiate(x->h, x->c, x->t, x->l);
	}
}

static int fake_write_attr_locked(void *ud, int fd, const char *path, const char *value)
{
	FAKE_LOCKED;
	unsigned h;
	char hctl[64];
	int n;

	ck_assert_uint_lt(fake.n_writes, ELEMENTSOF(fake.writes));
	xsnprintf(fake.writes[fake.n_writes], "%s=%s", path, value);
	fake.n_writes++;
	if (streq(value, "- - 0"))
		fake.probe_tasks = count_tasks();
	if (sscanf(path, "sys/class/scsi_host/host%u/scan%n", &h, &n) == 1 && path[n] == 0) {
		kernel_scan(h, value);
		return 0;
	}
	if (sscanf(path, "sys/bus/scsi/devices/%63[0-9:]/%n", hctl, &n) == 1) {
		char p[PATH_MAX];

		if (streq(path + n, "delete")) {
			xsnprintf(p, "sys/bus/scsi/devices/%s", hctl);
			check_tree_rm(&tree, p);
			return 0;
		}
		if (streq(path + n, "rescan")) {
			/* Linux 6.1: the VPD pages are read again, the INQUIRY strings not */
			const FakeLu *w;
			unsigned h2, c2, t2;
			uint64_t l2;
			uint8_t pg[16];

			ck_assert_int_eq(sscanf(hctl, "%u:%u:%u:%" SCNu64, &h2, &c2, &t2, &l2), 4);
			w = on_wire(h2, c2, t2, l2);
			if (w) {
				xsnprintf(p, "sys/bus/scsi/devices/%s/vpd_pg83", hctl);
				check_tree_put(&tree, p, pg, fake_pg83(w->naa, pg));
			}
			return 0;
		}
		if (strlen(path) > 7 && streq(path + strlen(path) - 7, "/uevent"))
			return 0;
	}
	return -EINVAL;
}

static void atomic_max(unsigned *max, unsigned v)
{
	unsigned m = __atomic_load_n(max, __ATOMIC_SEQ_CST);

	while (v > m &&
	       !__atomic_compare_exchange_n(max, &m, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
}

/* A host's scan write that takes a while (the kernel probing the new LUs under the host's
 * scan_mutex): the delay outside the fake's lock, the writes under way at once and the threads
 * of the process meanwhile recorded. */
static pthread_mutex_t hold_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;

/* hold_host0: a scan of one of host0's targets hangs (in the kernel: a device that does not
 * answer its probe) until host1's six targets are done, at most 5 s. */
static void hold_host0(const char *path, const char *value)
{
	struct timespec deadline;
	unsigned c, t;
	char rest[8];

	if (!fake.hold_host0 || !streq(path, "sys/class/scsi_host/host0/scan") ||
	    sscanf(value, "%u %u %7s", &c, &t, rest) != 3 || !streq(rest, "-"))
		return;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	pthread_mutex_lock(&hold_mutex);
	while (fake.host1_done < 6)
		if (pthread_cond_timedwait(&hold_cond, &hold_mutex, &deadline) != 0) {
			fake.starved = fake.host1_done < 6;
			break;
		}
	pthread_mutex_unlock(&hold_mutex);
}

static int fake_write_attr(void *ud, int fd, const char *path, const char *value)
{
	unsigned h;
	int n = 0, r;

	hold_host0(path, value);
	if (fake.write_delay_ms == 0 ||
	    sscanf(path, "sys/class/scsi_host/host%u/scan%n", &h, &n) != 1 || path[n] != 0)
		return fake_write_attr_locked(ud, fd, path, value);
	atomic_max(&fake.host_writes_max,
	           __atomic_add_fetch(&fake.host_writes, 1, __ATOMIC_SEQ_CST));
	atomic_max(&fake.write_tasks_max, count_tasks());
	usleep(fake.write_delay_ms * 1000);
	r = fake_write_attr_locked(ud, fd, path, value);
	__atomic_sub_fetch(&fake.host_writes, 1, __ATOMIC_SEQ_CST);
	return r;
}

static int fake_open_exclusive(void *ud, int fd, const char *devname)
{
	FAKE_LOCKED;
	for (size_t i = 0; i < fake.n_busy; i++)
		if (streq(fake.busy[i], devname))
			return -EBUSY;
	return 0;
}

static const ScanIo fake_io = {
	.report_luns = fake_report_luns,
	.inquiry = fake_inquiry,
	.read_capacity = fake_read_capacity,
	.write_attr = fake_write_attr,
	.open_exclusive = fake_open_exclusive,
};

static void count_events(void *ud, const ScanEvent *ev)
{
	events++;
	if (ev->kind == SCAN_EVENT_TARGET_DONE && ev->target->host == 1) {
		pthread_mutex_lock(&hold_mutex);
		fake.host1_done++;
		pthread_cond_broadcast(&hold_cond);
		pthread_mutex_unlock(&hold_mutex);
	}
	if (ev->kind == SCAN_EVENT_DEBUG) {
		size_t len = strlen(fake.debug);

		snprintf(fake.debug + len, sizeof(fake.debug) - len, "%s\n", ev->message);
	}
}

static bool fake_leave(void *ud, const ScanLu *lu, ScanActionKind what, char *rule, size_t size)
{
	if (fake.leave_removals_only && what != SCAN_ACTION_REMOVE)
		return false;
	if (fnmatch(fake.excluded, lu->hctl, 0) != 0)
		return false;
	snprintf(rule, size, "excluded by [exclude test]");
	return true;
}

static int fake_quirk(void *ud, int type, const char *vendor, const char *model,
                      const char *revision, ScanQuirk *ret)
{
	FAKE_LOCKED;
	fake.quirk_calls++;
	fake.quirk_type = type;
	xsnprintf(fake.quirk_vendor, "%s", vendor);
	xsnprintf(fake.quirk_model, "%s", model);
	xsnprintf(fake.quirk_rev, "%s", revision);
	if (streq(vendor, "FAKE") && streq(model, "DISK"))
		*ret = fake.quirk;
	return 0;
}

static void run(ScanFlags flags, const char *const *sel_strs, ScanResult *res)
{
	ScanSelector sel[8];
	size_t n = 0;
	ScanPolicy pol = { .max_workers = 4,
		           .quirk = fake.use_quirk ? fake_quirk : NULL,
		           .leave = fake.excluded ? fake_leave : NULL };
	ScanContext ctx = {
		.rootfd = tree.fd,
		.io = &fake_io,
		.policy = &pol,
		.event = count_events,
	};

	for (; sel_strs && sel_strs[n]; n++)
		ck_assert_int_eq(scan_selector_parse(sel_strs[n], &sel[n]), 0);
	ck_assert_int_eq(scan_run(&ctx, sel, n, flags, res), 0);
}

static bool wrote(const char *path_value)
{
	for (size_t i = 0; i < fake.n_writes; i++)
		if (streq(fake.writes[i], path_value))
			return true;
	return false;
}

static const ScanAction *action(const ScanResult *r, ScanActionKind kind, const char *hctl)
{
	for (size_t i = 0; i < r->n_actions; i++)
		if (r->actions[i].kind == kind && streq(r->actions[i].hctl, hctl))
			return &r->actions[i];
	return NULL;
}

/* host0: target 0 with LUNs 0,1 instantiated; target 1 LUN 0 instantiated. */
static void basic_world(void)
{
	host(0, "fake");
	wire(0, 0, 0, 0);
	wire(0, 0, 0, 1);
	wire(0, 0, 1, 0);
	instantiate(0, 0, 0, 0);
	instantiate(0, 0, 0, 1);
	instantiate(0, 0, 1, 0);
}

/* ---- tests ------------------------------------------------------------------------------ */

START_TEST(test_add)
{
	ScanResult r = {};

	basic_world();
	wire(0, 0, 0, 2);
	wire(0, 0, 0, 0x412c); /* flat space addressing, LUN 300 */
	wire(0, 0, 1, 4);
	wire(0, 0, 2, 0); /* a new target: only found by the LUN 0 probe */
	wire(0, 0, 2, 1);
	run(SCAN_ADD, NULL, &r);

	ck_assert(wrote("sys/class/scsi_host/host0/scan=- - 0"));
	/* two LUNs missing on target 0: one target scan, as the kernel's wildcard scan does */
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 0 -"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=0 0 2"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=0 0 16684"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:2"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_ADD, "0:0:0:2"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_ADD, "0:0:0:16684"));
	/* one LUN missing: its own write */
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 1 4"));
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 2 1"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:16684"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:2:1"));
	ck_assert_uint_eq(r.n_hosts, 1);
	/* 0:0:0:2, 0:0:0:16684, 0:0:1:4, 0:0:2:1, and 0:0:2:0, which the target probe
	 * instantiated: it did not exist before the scan, so it is added, not unchanged. */
	ck_assert_uint_eq(r.hosts[0].added, 5);
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_ADD, "0:0:2:0"));
	ck_assert_uint_eq(r.hosts[0].unchanged, 3); /* 0:0:0:{0,1}, 0:0:1:0 */
	ck_assert_uint_eq(r.hosts[0].failed, 0);
	ck_assert_uint_eq(r.n_targets, 3);
	ck_assert_uint_eq(r.failed, 0);
	ck_assert_uint_eq(r.commands, 3);
	ck_assert_uint_gt(events, 0);
	/* the probe's LU found from the host's targets, not from listing the bus again */
	ck_assert_msg(
	        strstr(fake.debug, "host0: the target probe's LUN 0s from the host's 3 targets"),
	        "%s", fake.debug);
	/* nothing removed or resized without asking */
	for (size_t i = 0; i < fake.n_writes; i++)
		ck_assert_ptr_null(strstr(fake.writes[i], "delete"));
	scan_result_done(&r);
}
END_TEST

/*
 * What the target probe "- - 0" instantiated: LUN 0 of a new target, and LUN 0 of a target that
 * had only other LUs, both added by the probe. Where the host's targets are its own directories
 * they are looked up there; below transport ports the LUs are listed again.
 */
static const struct {
	bool ports;
	const char *debug; /* how the probe's LUs were found */
} probe_cases[] = {
	{ false, "host0: the target probe's LUN 0s from the host's 4 targets\n" },
	{ true, "host0: listing the LUs again after the probes\n" },
};

START_TEST(test_probe_adds_lun0)
{
	ScanResult r = {};

	if (probe_cases[_i].ports)
		host_with_ports(0, "fake");
	basic_world();
	wire(0, 0, 2, 0); /* a new target */
	wire(0, 0, 2, 1);
	wire(0, 0, 3, 0); /* a target the kernel has LUN 1 of only */
	wire(0, 0, 3, 1);
	instantiate(0, 0, 3, 1);
	run(SCAN_ADD, NULL, &r);

	ck_assert(wrote("sys/class/scsi_host/host0/scan=- - 0"));
	ck_assert_msg(strstr(fake.debug, probe_cases[_i].debug), "%s", fake.debug);
	ck_assert_str_eq(action(&r, SCAN_ACTION_ADD, "0:0:2:0")->reason,
	                 "new target, instantiated by the target probe");
	ck_assert_str_eq(action(&r, SCAN_ACTION_ADD, "0:0:3:0")->reason,
	                 "new target, instantiated by the target probe");
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 2 1"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=0 3 0"));
	ck_assert_uint_eq(r.hosts[0].added, 3);     /* 0:0:2:0, 0:0:2:1, 0:0:3:0 */
	ck_assert_uint_eq(r.hosts[0].unchanged, 4); /* 0:0:0:{0,1}, 0:0:1:0, 0:0:3:1 */
	ck_assert_uint_eq(r.n_targets, 4);
	ck_assert_uint_eq(r.failed, 0);
	scan_result_done(&r);
}
END_TEST

START_TEST(test_dry_run)
{
	ScanResult r = {};

	basic_world();
	wire(0, 0, 0, 2);
	instantiate(0, 0, 1, 7); /* stale */
	run(SCAN_ADD | SCAN_REMOVE | SCAN_RESIZE | SCAN_DRY_RUN, NULL, &r);

	ck_assert_uint_eq(fake.n_writes, 0);
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_PROBE, "0:-:-:0"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_ADD, "0:0:0:2"));
	ck_assert_str_eq(action(&r, SCAN_ACTION_ADD, "0:0:0:2")->value, "0 0 2");
	ck_assert(!action(&r, SCAN_ACTION_ADD, "0:0:0:2")->applied);
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_REMOVE, "0:0:1:7"));
	ck_assert_str_eq(action(&r, SCAN_ACTION_REMOVE, "0:0:1:7")->path,
	                 "sys/bus/scsi/devices/0:0:1:7/delete");
	ck_assert(exists("sys/bus/scsi/devices/0:0:1:7"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:2"));
	ck_assert_uint_eq(r.hosts[0].added, 1);
	ck_assert_uint_eq(r.hosts[0].removed, 1);
	scan_result_done(&r);
}
END_TEST

/* Many LUs on several channels and targets, instantiated in no particular order (sysfs lists
 * them in the order of its name hashes): the listing sorts them and gives each target job
 * its own LUs, so nothing present is taken for missing or stale, and one LUN the wire has and
 * the kernel lacks is added, one the wire lost is kept. */
START_TEST(test_many_lus_any_order)
{
	static const unsigned ct[][2] = {
		{ 1, 3 }, { 0, 3 }, { 1, 0 }, { 0, 1 }, { 0, 0 }, { 1, 1 }
	};
	static const uint64_t luns[] = { 0, 1, 2, 10, 16684, 100, 7, 255, 3 };
	const size_t n = ELEMENTSOF(ct) * ELEMENTSOF(luns);
	ScanResult r = {};

	host(0, "fake");
	for (size_t i = 0; i < ELEMENTSOF(ct); i++)
		for (size_t k = 0; k < ELEMENTSOF(luns); k++)
			wire(0, ct[i][0], ct[i][1], luns[k]);
	wire(0, 0, 1, 42); /* reported, not instantiated */
	/* every LU on the wire but the last one, in a scrambled order (7 is prime to n) */
	for (size_t i = 0; i < n; i++) {
		const FakeLu *w = &fake.lus[(i * 7) % n];

		instantiate(w->h, w->c, w->t, w->l);
	}
	instantiate(0, 1, 0, 5); /* not on the wire */
	run(SCAN_ADD, NULL, &r);

	ck_assert_uint_eq(r.n_targets, ELEMENTSOF(ct));
	ck_assert_uint_eq(r.commands, ELEMENTSOF(ct)); /* one REPORT LUNS per target */
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 1 42"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_ADD, "0:0:1:42"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_KEEP, "0:1:0:5"));
	ck_assert_uint_eq(r.hosts[0].added, 1);
	ck_assert_uint_eq(r.hosts[0].kept, 1);
	ck_assert_uint_eq(r.hosts[0].unchanged, n);
	ck_assert_uint_eq(r.failed, 0);
	/* the targets' LUs were in order: the REPORT LUNS LU of each is its LUN 0 */
	for (size_t i = 0; i < r.n_targets; i++) {
		char via[64];

		xsnprintf(via, "%s:0", r.targets[i].hctl);
		ck_assert_str_eq(r.targets[i].via, via);
	}
	scan_result_done(&r);
}
END_TEST

/* The pool starts with one worker: while the host's job runs (its target probe), no other
 * thread exists; targets that answer slowly have it grow to run them side by side. */
START_TEST(test_pool_grows_when_needed)
{
	ScanResult r = {};

	basic_world();
	run(SCAN_ADD, NULL, &r);
	ck_assert(wrote("sys/class/scsi_host/host0/scan=- - 0"));
	ck_assert_uint_eq(fake.probe_tasks, 2); /* this thread and one worker */
	ck_assert_uint_eq(r.failed, 0);
	scan_result_done(&r);

	/* six targets taking 100 ms each: run() allows four workers */
	for (unsigned t = 2; t < 6; t++) {
		wire(0, 0, t, 0);
		instantiate(0, 0, t, 0);
	}
	fake.report_delay_ms = 100;
	run(SCAN_ADD, NULL, &r);
	ck_assert_uint_eq(r.n_targets, 6);
	ck_assert_uint_eq(r.failed, 0);
	ck_assert_uint_ge(fake.report_busy_max, 2);
	ck_assert_uint_le(fake.report_busy_max, 4);
	scan_result_done(&r);
}
END_TEST

/* Host @h with six targets, each with LUN 0 instantiated and LUNs 1 and 2 reported but not. */
static void six_targets_two_new(unsigned h)
{
	host(h, "fake");
	for (unsigned t = 0; t < 6; t++) {
		wire(h, 0, t, 0);
		wire(h, 0, t, 1);
		wire(h, 0, t, 2);
		instantiate(h, 0, t, 0);
	}
}

/* New LUNs on six targets of one host, each target's scan write taking 30 ms: one worker makes
 * the host's writes in turn while another sends the REPORT LUNS of the next targets; no worker
 * waits for the host beside the writer, and the pool does not grow for them. */
START_TEST(test_host_writes_in_turn)
{
	ScanResult r = {};

	six_targets_two_new(0);
	fake.write_delay_ms = 30;
	run(SCAN_ADD, NULL, &r);
	ck_assert_uint_eq(r.n_targets, 6);
	ck_assert_uint_eq(r.failed, 0);
	ck_assert_uint_eq(r.hosts[0].added, 12);
	for (unsigned t = 0; t < 6; t++) {
		char p[64];

		xsnprintf(p, "sys/bus/scsi/devices/0:0:%u:2", t);
		ck_assert_msg(exists(p), "%s not added", p);
	}
	ck_assert_uint_eq(fake.host_writes_max, 1);
	/* this thread, the writer and at most one worker for the REPORT LUNS */
	ck_assert_uint_le(fake.write_tasks_max, 3);
	scan_result_done(&r);
}
END_TEST

/* A host whose target scans hang (a device that never answers the kernel's probe) holds its own
 * writes, not the scan of the other hosts: with the pool's four workers all writing for host0,
 * host1's targets would wait for it. */
START_TEST(test_hung_host_holds_only_itself)
{
	ScanResult r = {};

	six_targets_two_new(0);
	six_targets_two_new(1);
	fake.hold_host0 = true;
	run(SCAN_ADD, NULL, &r);
	ck_assert_msg(!fake.starved, "host1's targets waited for host0's hung scan");
	ck_assert_uint_eq(fake.host1_done, 6);
	ck_assert_uint_eq(r.failed, 0);
	ck_assert_uint_eq(r.hosts[0].added, 12);
	ck_assert_uint_eq(r.hosts[1].added, 12);
	scan_result_done(&r);
}
END_TEST

/* A target ID or a channel without the rest (lunctl rescan --ids/--channels): the probe asks
 * for just those ("- 2 0", "1 - 0"), once each, never for every target of the host. */
START_TEST(test_add_selected_ids)
{
	ScanResult r = {};
	const char *ids[] = { "0:-:2:-", "0:-:2:1", "0:-:2:-", NULL };
	const char *chan[] = { "0:1:-:-", NULL };
	size_t probes = 0;

	basic_world();
	wire(0, 0, 2, 0); /* new targets: only found by a LUN 0 probe */
	wire(0, 0, 2, 1);
	wire(0, 0, 3, 0);
	wire(0, 1, 4, 0);
	run(SCAN_ADD, ids, &r);
	ck_assert(wrote("sys/class/scsi_host/host0/scan=- 2 0"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=- - 0"));
	for (size_t i = 0; i < fake.n_writes; i++)
		if (strstr(fake.writes[i], "/scan=- 2 0"))
			probes++;
	ck_assert_uint_eq(probes, 1);
	ck_assert(exists("sys/bus/scsi/devices/0:0:2:0"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:2:1"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:3:0"));
	ck_assert(!exists("sys/bus/scsi/devices/0:1:4:0"));
	scan_result_done(&r);

	fake.n_writes = 0;
	run(SCAN_ADD, chan, &r);
	ck_assert(wrote("sys/class/scsi_host/host0/scan=1 - 0"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=- - 0"));
	ck_assert(exists("sys/bus/scsi/devices/0:1:4:0"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:3:0"));
	scan_result_done(&r);
}
END_TEST

START_TEST(test_remove)
{
	ScanResult r = {};

	basic_world();
	instantiate(0, 0, 0, 5); /* the target no longer reports LUN 5 */

	/* default: kept, reported as such */
	run(SCAN_ADD, NULL, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:5"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_KEEP, "0:0:0:5"));
	ck_assert_uint_eq(r.hosts[0].kept, 1);
	scan_result_done(&r);

	fake.n_writes = 0;
	run(SCAN_REMOVE, NULL, &r);
	ck_assert(wrote("sys/bus/scsi/devices/0:0:0:5/delete=1"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:5"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:1"));
	ck_assert_uint_eq(r.hosts[0].removed, 1);
	ck_assert_uint_eq(r.hosts[0].unchanged, 3);
	/* --remove alone: no probe write */
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=- - 0"));
	scan_result_done(&r);
}
END_TEST

/* The basic world after a change of everything a scan acts on: 0:0:0:5 no longer reported,
 * 0:0:1:2 and 0:0:1:3 reported and not instantiated, 0:0:0:1 grown. */
static void changed_world(void)
{
	basic_world();
	instantiate(0, 0, 0, 5);
	wire(0, 0, 1, 2);
	wire(0, 0, 1, 3);
	fake.lus[1].capacity = 16u << 20;
}

/* Excluded LUs (lund.conf EXCLUSIONS) are neither removed, added nor resized: each is kept with
 * the rule in the reason, and reported LUNs around an excluded one are added one by one, never by
 * a whole-target scan that would add it too. */
START_TEST(test_excluded)
{
	const ScanAction *a;
	ScanResult r = {};

	changed_world();
	wire(0, 0, 1, 4);
	fake.excluded = "0:0:[01]:[1235]";
	run(SCAN_ADD | SCAN_REMOVE | SCAN_FORCE | SCAN_RESIZE, NULL, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:5"));
	ck_assert_ptr_nonnull((a = action(&r, SCAN_ACTION_KEEP, "0:0:0:5")));
	ck_assert_ptr_nonnull(strstr(a->reason, "excluded by [exclude test]"));
	ck_assert(!wrote("sys/bus/scsi/devices/0:0:0:1/rescan=1"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_KEEP, "0:0:0:1"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:1:2") &&
	          !exists("sys/bus/scsi/devices/0:0:1:3"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_KEEP, "0:0:1:2"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=0 1 -"));
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 1 4"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:1:4"));
	ck_assert_uint_eq(r.hosts[0].removed, 0);
	ck_assert_uint_eq(r.hosts[0].added, 1);
	ck_assert_uint_eq(r.hosts[0].resized, 0);
	scan_result_done(&r);
	fake.excluded = NULL;
}
END_TEST

/* The policy is asked per action: one that leaves only removals alone (an "add only" reaction)
 * keeps the LUN no longer reported, while reported ones are added and a grown one resized. */
START_TEST(test_leave_per_action)
{
	const ScanAction *a;
	ScanResult r = {};

	changed_world();
	fake.excluded = "*";
	fake.leave_removals_only = true;
	run(SCAN_ADD | SCAN_REMOVE | SCAN_FORCE | SCAN_RESIZE, NULL, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:5"));
	ck_assert_ptr_nonnull((a = action(&r, SCAN_ACTION_KEEP, "0:0:0:5")));
	ck_assert_ptr_nonnull(strstr(a->reason, "kept: excluded by [exclude test]"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:1:2") && exists("sys/bus/scsi/devices/0:0:1:3"));
	ck_assert(wrote("sys/bus/scsi/devices/0:0:0:1/rescan=1"));
	ck_assert_uint_eq(r.hosts[0].removed, 0);
	ck_assert_uint_eq(r.hosts[0].added, 2);
	ck_assert_uint_eq(r.hosts[0].resized, 1);
	scan_result_done(&r);
	fake.excluded = NULL;
	fake.leave_removals_only = false;
}
END_TEST

/* An LU in use is kept: mounted, held, or open exclusively; --force removes it anyway. */
enum { BUSY_MOUNTED, BUSY_PART_MOUNTED, BUSY_HOLDERS, BUSY_PART_HOLDERS, BUSY_EXCL, _BUSY_MAX };

START_TEST(test_remove_in_use)
{
	ScanResult r = {};
	char p[256], mi[256];
	const char *blk;

	basic_world();
	instantiate(0, 0, 0, 5);
	blk = block_of("0:0:0:5");
	switch (_i) {
	case BUSY_MOUNTED:
		xsnprintf(mi, "22 1 8:%u / /mnt rw,relatime - ext4 /dev/%s rw\n",
		          (unsigned)(blk[2] - 'a') * 16, blk);
		check_tree_put_str(&tree, "proc/self/mountinfo", mi);
		break;
	case BUSY_PART_MOUNTED:
	case BUSY_PART_HOLDERS:
		xsnprintf(p, "sys/bus/scsi/devices/0:0:0:5/block/%s/%s1/partition", blk, blk);
		check_tree_put_str(&tree, p, "1\n");
		xsnprintf(p, "sys/bus/scsi/devices/0:0:0:5/block/%s/%s1/dev", blk, blk);
		check_tree_put_str(&tree, p, "8:241\n");
		if (_i == BUSY_PART_MOUNTED)
			check_tree_put_str(&tree, "proc/self/mountinfo",
			                   "1 0 0:1 / / rw - rootfs rootfs rw\n"
			                   "30 1 8:241 / /data rw - xfs /dev/x rw\n");
		else {
			xsnprintf(p, "sys/bus/scsi/devices/0:0:0:5/block/%s/%s1/holders/dm-0", blk,
			          blk);
			check_tree_mkdirs(&tree, p);
		}
		break;
	case BUSY_HOLDERS:
		xsnprintf(p, "sys/bus/scsi/devices/0:0:0:5/block/%s/holders/md0", blk);
		check_tree_mkdirs(&tree, p);
		break;
	case BUSY_EXCL:
		xsnprintf(fake.busy[fake.n_busy++], "%s", blk);
		break;
	}

	run(SCAN_REMOVE, NULL, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:5"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_KEEP, "0:0:0:5"));
	ck_assert_ptr_nonnull(strstr(action(&r, SCAN_ACTION_KEEP, "0:0:0:5")->reason, "kept: "));
	ck_assert_uint_eq(r.hosts[0].removed, 0);
	ck_assert_uint_eq(r.hosts[0].kept, 1);
	ck_assert_uint_eq(r.failed, 0);
	scan_result_done(&r);

	run(SCAN_REMOVE | SCAN_FORCE, NULL, &r);
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:5"));
	ck_assert_uint_eq(r.hosts[0].removed, 1);
	scan_result_done(&r);
}
END_TEST

/* LUs without a block node (and disks used through sg) are in use while another process has
 * one of their character nodes open: /proc/PID/fd of the root. */
static const struct {
	const char *type;  /* peripheral device type, sysfs */
	const char *class; /* directory of the node below the LU */
	const char *node;  /* its name there */
	const char *dev;   /* what /proc/PID/fd/N links to */
	bool block;        /* keeps its block node */
} char_busy[] = {
	{ "1\n", "scsi_tape", "nst0", "/dev/nst0", false },      /* tape, no-rewind node */
	{ "1\n", "scsi_tape", "st0a", "/dev/st0a", false },      /* tape, another mode */
	{ "8\n", "scsi_changer", "sch0", "/dev/sch0", false },   /* medium changer */
	{ "13\n", "scsi_generic", NULL, NULL, false },           /* enclosure, through its sg */
	{ "13\n", "bsg", "0:0:0:5", "/dev/bsg/0:0:0:5", false }, /* enclosure, through bsg */
	{ "0\n", "scsi_generic", NULL, NULL, true },             /* disk, through its sg */
};

START_TEST(test_remove_in_use_char)
{
	ScanResult r = {};
	char p[256], sg[32], dev[64], fd[64];
	const char *node = char_busy[_i].node;

	basic_world();
	instantiate(0, 0, 0, 5);
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:5/type", char_busy[_i].type);
	if (!char_busy[_i].block) {
		xsnprintf(p, "sys/bus/scsi/devices/0:0:0:5/block");
		check_tree_rm(&tree, p);
	}
	if (!node) {
		/* the sg node instantiate() made */
		xsnprintf(sg, "sg%u", next_disk - 1);
		node = sg;
	}
	xsnprintf(p, "sys/bus/scsi/devices/0:0:0:5/%s/%s", char_busy[_i].class, node);
	check_tree_mkdirs(&tree, p);
	if (char_busy[_i].dev)
		xsnprintf(dev, "%s", char_busy[_i].dev);
	else
		xsnprintf(dev, "/dev/%s", node);

	/* Open by this process only (lund's own SG_IO): not in use. */
	xsnprintf(p, "%s/proc/%ld/fd", tree.path, (long)getpid());
	check_tree_mkdirs(&tree, p + strlen(tree.path) + 1);
	xsnprintf(fd, "%s/3", p);
	ck_assert_int_eq(symlink(dev, fd), 0);
	/* Another process has something else open. */
	check_tree_mkdirs(&tree, "proc/4242/fd");
	xsnprintf(fd, "%s/proc/4242/fd/0", tree.path);
	ck_assert_int_eq(symlink("/dev/null", fd), 0);
	run(SCAN_REMOVE, NULL, &r);
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:5"));
	ck_assert_uint_eq(r.hosts[0].removed, 1);
	scan_result_done(&r);

	/* Open by another process: kept, saying which node and which process. */
	instantiate(0, 0, 0, 5);
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:5/type", char_busy[_i].type);
	if (!char_busy[_i].block) {
		xsnprintf(p, "sys/bus/scsi/devices/0:0:0:5/block");
		check_tree_rm(&tree, p);
	}
	if (!char_busy[_i].node) {
		xsnprintf(sg, "sg%u", next_disk - 1);
		node = sg;
		xsnprintf(dev, "/dev/%s", node);
	}
	xsnprintf(p, "sys/bus/scsi/devices/0:0:0:5/%s/%s", char_busy[_i].class, node);
	check_tree_mkdirs(&tree, p);
	xsnprintf(fd, "%s/proc/4242/fd/7", tree.path);
	ck_assert_int_eq(symlink(dev, fd), 0);
	run(SCAN_REMOVE, NULL, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:5"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_KEEP, "0:0:0:5"));
	xsnprintf(p, "kept: %s is open by PID 4242", dev);
	ck_assert_ptr_nonnull(strstr(action(&r, SCAN_ACTION_KEEP, "0:0:0:5")->reason, p));
	ck_assert_uint_eq(r.hosts[0].removed, 0);
	ck_assert_uint_eq(r.failed, 0);
	scan_result_done(&r);

	run(SCAN_REMOVE | SCAN_FORCE, NULL, &r);
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:5"));
	ck_assert_uint_eq(r.hosts[0].removed, 1);
	scan_result_done(&r);
}
END_TEST

/* A failed REPORT LUNS (timeout, error, malformed) removes nothing on that target, and the
 * other targets are still scanned. */
static const struct {
	int error;
	bool truncated;
} bad_cases[] = {
	{ -ETIMEDOUT, false },
	{ -EIO, false },
	{ -ENOLINK, false },
	{ 0, true },
};

START_TEST(test_failed_target)
{
	ScanResult r = {};

	basic_world();
	instantiate(0, 0, 1, 3); /* not on the wire: would be removed if the report were trusted */
	target(0, 0, 1)->error = bad_cases[_i].error;
	target(0, 0, 1)->truncated = bad_cases[_i].truncated;
	instantiate(0, 0, 0, 6); /* stale on the healthy target */
	wire(0, 0, 0, 2);

	run(SCAN_ADD | SCAN_REMOVE | SCAN_RESIZE, NULL, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:1:3"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:1:0"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:6"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:2"));
	ck_assert_uint_eq(r.failed, 1);
	ck_assert_uint_eq(r.hosts[0].failed, 1);
	ck_assert_uint_eq(r.hosts[0].added, 1);
	ck_assert_uint_eq(r.hosts[0].removed, 1);
	for (size_t i = 0; i < r.n_targets; i++)
		if (r.targets[i].target == 1) {
			ck_assert_int_eq(r.targets[i].error,
			                 bad_cases[_i].truncated ? -EBADMSG : bad_cases[_i].error);
			ck_assert_int_eq(r.targets[i].method, SCAN_METHOD_NONE);
		} else
			ck_assert_int_eq(r.targets[i].error, 0);
	for (size_t i = 0; i < r.n_actions; i++)
		ck_assert_uint_ne(
		        r.actions[i].target * 10 + (r.actions[i].kind == SCAN_ACTION_REMOVE), 11);
	scan_result_done(&r);
}
END_TEST

START_TEST(test_resize)
{
	ScanResult r = {};

	basic_world();
	fake.lus[1].capacity = 16u << 20; /* 0:0:0:1 grew */
	run(SCAN_RESIZE, NULL, &r);
	ck_assert(wrote("sys/bus/scsi/devices/0:0:0:1/rescan=1"));
	ck_assert_uint_eq(fake.n_writes, 1);
	ck_assert_uint_eq(r.hosts[0].resized, 1);
	ck_assert_uint_eq(r.hosts[0].unchanged, 2);
	ck_assert_uint_eq(action(&r, SCAN_ACTION_RESIZE, "0:0:0:1")->old_size, 8u << 20);
	ck_assert_uint_eq(action(&r, SCAN_ACTION_RESIZE, "0:0:0:1")->new_size, 16u << 20);
	scan_result_done(&r);
}
END_TEST

/* The REPORT LUNS W-LUN, instantiated and listed, is neither added nor removed. */
START_TEST(test_wlun)
{
	ScanResult r = {};

	basic_world();
	instantiate(0, 0, 1, 0xc101);
	target(0, 0, 1)->with_wlun = true;
	run(SCAN_ADD | SCAN_REMOVE, NULL, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:1:49409"));
	ck_assert_uint_eq(r.hosts[0].removed, 0);
	ck_assert_uint_eq(r.hosts[0].added, 0);
	scan_result_done(&r);
}
END_TEST

/* Selectors narrow the scan: H:C:T:L adds just that LUN, another host is left alone. */
START_TEST(test_selectors)
{
	static const char *const one_lun[] = { "0:0:0:3", NULL };
	static const char *const host1[] = { "host1", NULL };
	ScanResult r = {};

	basic_world();
	host(1, "other");
	wire(0, 0, 0, 2);
	wire(0, 0, 0, 3);
	wire(1, 0, 0, 0);
	run(SCAN_ADD, one_lun, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:3"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:2"));
	ck_assert(!exists("sys/bus/scsi/devices/1:0:0:0"));
	ck_assert_uint_eq(r.n_hosts, 1);
	ck_assert_uint_eq(r.n_targets, 1);
	scan_result_done(&r);

	run(SCAN_ADD, host1, &r);
	ck_assert(exists("sys/bus/scsi/devices/1:0:0:0"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:2"));
	ck_assert_uint_eq(r.n_hosts, 1);
	ck_assert_uint_eq(r.hosts[0].host, 1);
	scan_result_done(&r);
}
END_TEST

/*
 * A plain host whose targets have no LUN 0 (an array or hypervisor exporting LUN 1 and up):
 * the LUN 0 probe leaves no trace of them, so a host left without any LUN 0 gets the kernel's
 * own scan of every target, and what it adds is reported; not when a selector names LUNs (a
 * selected LUN is probed itself).
 */
START_TEST(test_no_lun0)
{
	static const char *const one_lun[] = { "0:0:0:3", NULL };
	static const char *const some_luns[] = { "0:-:-:1", NULL };
	static const char *const one_target[] = { "0:0:2", NULL };
	ScanResult r = {};

	host(0, "virtio_scsi");
	wire(0, 0, 0, 1);
	wire(0, 0, 0, 3);
	wire(0, 0, 2, 2);
	run(SCAN_ADD, one_lun, &r);
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=- - -"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:3")); /* "0 0 3" */
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:1"));
	scan_result_done(&r);

	/* a selected target: "0 2 0", then the kernel's scan of that target only */
	run(SCAN_ADD, one_target, &r);
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 2 0"));
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 2 -"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:2:2"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:1"));
	ck_assert_uint_eq(r.hosts[0].added, 1);
	scan_result_done(&r);
	check_tree_rm(&tree, "sys/bus/scsi/devices/0:0:2:2");

	fake.n_writes = 0;
	run(SCAN_ADD, some_luns, &r);
	ck_assert(wrote("sys/class/scsi_host/host0/scan=- - 0"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=- - -"));
	scan_result_done(&r);

	/* 0:0:0:1 and 0:0:0:3 present, still no LUN 0: target 2 is found by the kernel's scan */
	fake.n_writes = 0;
	run(SCAN_ADD, NULL, &r);
	ck_assert(wrote("sys/class/scsi_host/host0/scan=- - 0"));
	ck_assert(wrote("sys/class/scsi_host/host0/scan=- - -"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:2:2"));
	ck_assert_uint_eq(r.hosts[0].added, 1);
	ck_assert_str_eq(action(&r, SCAN_ACTION_ADD, "0:0:2:2")->reason,
	                 "no LUN 0 on its target, instantiated by the kernel's scan of the host");
	ck_assert_uint_eq(r.hosts[0].unchanged, 2);
	ck_assert_uint_eq(r.n_targets, 2);
	scan_result_done(&r);

	/* A libata host (a SATA port) without a disk is not scanned again: its devices are LUN 0
	 * each, and each scan resets its link. */
	{
		static const char ata[] =
		        "sys/devices/pci0000:00/0000:00:1f.2/ata3/host7/scsi_host/host7";
		static const char *const host7[] = { "host7", NULL };
		char p[256];

		xsnprintf(p, "%s/proc_name", ata);
		check_tree_put_str(&tree, p, "ahci\n");
		xsnprintf(p, "%s/scan", ata);
		check_tree_put_str(&tree, p, "");
		ck_assert_int_eq(
		        symlinkat(
		                "../../devices/pci0000:00/0000:00:1f.2/ata3/host7/scsi_host/host7",
		                tree.fd, "sys/class/scsi_host/host7"),
		        0);
		fake.n_writes = 0;
		run(SCAN_ADD, host7, &r);
		ck_assert(wrote("sys/class/scsi_host/host7/scan=- - 0"));
		ck_assert_uint_eq(fake.n_writes, 1);
		scan_result_done(&r);
	}

	/* A host where a target has a LUN 0 is not scanned whole: a target without one beside
	 * it stays unknown (nothing shows it exists). */
	check_tree_rm(&tree, "sys/bus/scsi/devices/0:0:2:2");
	wire(0, 0, 4, 0);
	fake.n_writes = 0;
	run(SCAN_ADD, NULL, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:4:0"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=- - -"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:2:2"));
	scan_result_done(&r);
}
END_TEST

/* SAS: targets come from the transport class; only those without an LU get a LUN 0 probe. */
START_TEST(test_sas_transport)
{
	ScanResult r = {};

	host_with_ports(2, "mptsas");
	check_tree_put_str(&tree, "sys/class/sas_end_device/end_device-2:0/bay_identifier", "0\n");
	check_tree_put_str(&tree, "sys/class/sas_device/end_device-2:0/scsi_target_id", "0\n");
	check_tree_put_str(&tree, "sys/class/sas_end_device/end_device-2:1/bay_identifier", "1\n");
	check_tree_put_str(&tree, "sys/class/sas_device/end_device-2:1/scsi_target_id", "1\n");
	wire(2, 0, 0, 0);
	wire(2, 0, 1, 0);
	wire(2, 0, 1, 2);
	instantiate(2, 0, 0, 0);
	run(SCAN_ADD, NULL, &r);
	ck_assert(wrote("sys/class/scsi_host/host2/scan=0 1 0"));
	ck_assert(!wrote("sys/class/scsi_host/host2/scan=- - 0"));
	ck_assert(!wrote("sys/class/scsi_host/host2/scan=0 0 0"));
	ck_assert(exists("sys/bus/scsi/devices/2:0:1:2"));
	/* 2:0:1:0 from the target probe, 2:0:1:2 from REPORT LUNS */
	ck_assert_uint_eq(r.hosts[0].added, 2);
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_ADD, "2:0:1:0"));
	ck_assert_uint_eq(r.hosts[0].unchanged, 1); /* 2:0:0:0 */
	ck_assert_uint_eq(r.n_targets, 2);
	ck_assert_str_eq(r.targets[1].source, "sas");
	scan_result_done(&r);
}
END_TEST

/* FC: an rport that is not a target (scsi_target_id -1) or not online is not probed. */
START_TEST(test_fc_transport)
{
	ScanResult r = {};

	host_with_ports(3, "qla2xxx");
	check_tree_put_str(&tree, "sys/class/fc_remote_ports/rport-3:0-0/scsi_target_id", "0\n");
	check_tree_put_str(&tree, "sys/class/fc_remote_ports/rport-3:0-0/port_state", "Online\n");
	check_tree_put_str(&tree, "sys/class/fc_remote_ports/rport-3:0-1/scsi_target_id", "-1\n");
	check_tree_put_str(&tree, "sys/class/fc_remote_ports/rport-3:0-1/port_state", "Online\n");
	check_tree_put_str(&tree, "sys/class/fc_remote_ports/rport-3:0-2/scsi_target_id", "2\n");
	check_tree_put_str(&tree, "sys/class/fc_remote_ports/rport-3:0-2/port_state", "Blocked\n");
	wire(3, 0, 0, 0);
	run(SCAN_ADD, NULL, &r);
	ck_assert(wrote("sys/class/scsi_host/host3/scan=0 0 0"));
	ck_assert_uint_eq(fake.n_writes, 1);
	ck_assert(exists("sys/bus/scsi/devices/3:0:0:0"));
	scan_result_done(&r);
}
END_TEST

/*
 * iSCSI: the session's target is found from its class entry, which points below its host (its
 * "device" link, relative to the session, names no host). A session whose LUNs do not include
 * 0 (an ACL mapping LUNs 3 and 5 only) gets the kernel's own scan of its target after the LUN 0
 * probe added nothing, as for SAS and FC; never the host-wide probe, which cannot find it.
 */
START_TEST(test_iscsi_transport)
{
	static const char sess[] = "sys/devices/platform/host4/session7/iscsi_session/session7";
	ScanResult r = {};
	char p[256];

	host_with_ports(4, "iscsi_tcp");
	xsnprintf(p, "%s/target_id", sess);
	check_tree_put_str(&tree, p, "0\n");
	check_tree_mkdirs(&tree, "sys/class/iscsi_session");
	ck_assert_int_eq(symlinkat("../../devices/platform/host4/session7/iscsi_session/session7",
	                           tree.fd, "sys/class/iscsi_session/session7"),
	                 0);
	xsnprintf(p, "%s/device", sess);
	ck_assert_int_eq(symlinkat("../../../session7", tree.fd, p), 0);
	wire(4, 0, 0, 3);
	wire(4, 0, 0, 5);
	run(SCAN_ADD, NULL, &r);
	ck_assert(wrote("sys/class/scsi_host/host4/scan=0 0 0"));
	ck_assert(wrote("sys/class/scsi_host/host4/scan=0 0 -"));
	ck_assert(!wrote("sys/class/scsi_host/host4/scan=- - 0"));
	ck_assert_uint_eq(r.n_targets, 1);
	ck_assert_str_eq(r.targets[0].source, "iscsi");
	ck_assert_int_eq(r.targets[0].method, SCAN_METHOD_KERNEL);
	/* what the kernel's scan instantiated is this scan's doing */
	ck_assert_uint_eq(r.hosts[0].added, 2);
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_ADD, "4:0:0:3"));
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_ADD, "4:0:0:5"));
	scan_result_done(&r);
}
END_TEST

/* A target with no LU to send REPORT LUNS to falls back to the kernel's own target scan. */
START_TEST(test_kernel_fallback)
{
	ScanResult r = {};

	host_with_ports(2, "mptsas");
	check_tree_put_str(&tree, "sys/class/sas_end_device/end_device-2:0/bay_identifier", "0\n");
	check_tree_put_str(&tree, "sys/class/sas_device/end_device-2:0/scsi_target_id", "4\n");
	wire(2, 0, 4, 1); /* no LUN 0 */
	run(SCAN_ADD, NULL, &r);
	ck_assert(wrote("sys/class/scsi_host/host2/scan=0 4 0"));
	ck_assert(wrote("sys/class/scsi_host/host2/scan=0 4 -"));
	ck_assert_int_eq(r.targets[0].method, SCAN_METHOD_KERNEL);
	scan_result_done(&r);
}
END_TEST

/* SCSI-2 device refusing REPORT LUNS: sequential probing, stopping at the first gap. */
START_TEST(test_sequential)
{
	ScanResult r = {};

	host(0, "old");
	wire(0, 0, 0, 0);
	wire(0, 0, 0, 1);
	wire(0, 0, 0, 2);
	wire(0, 0, 0, 4);
	instantiate(0, 0, 0, 0);
	check_tree_put_str(&tree, "sys/bus/scsi/devices/0:0:0:0/scsi_level", "3\n");
	target(0, 0, 0)->error = -EOPNOTSUPP;
	instantiate(0, 0, 0, 6); /* never removed: no authoritative list */
	run(SCAN_ADD | SCAN_REMOVE, NULL, &r);
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:1"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:2"));
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 0 3"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=0 0 4"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:6"));
	ck_assert_int_eq(r.targets[0].method, SCAN_METHOD_SEQUENTIAL);
	ck_assert_ptr_nonnull(strstr(r.targets[0].detail, "REPORT LUNS refused"));
	/* LUN 3 did not appear: reported as a failed add of a missing LUN is wrong; it is the
	 * end of the sequential walk */
	scan_result_done(&r);
}
END_TEST

/* A target with LUNs 0, 1, 2 and 4 (sparse), LUN 0 instantiated, and a stale LUN 6 the target
 * no longer has: REPORT LUNS would add 1, 2, 4 and remove 6. */
static void sparse_world(void)
{
	host(0, "fake");
	wire(0, 0, 0, 0);
	wire(0, 0, 0, 1);
	wire(0, 0, 0, 2);
	wire(0, 0, 0, 4);
	instantiate(0, 0, 0, 0);
	instantiate(0, 0, 0, 6);
}

/* The quirk (LUND_SCAN_SEQUENTIAL): REPORT LUNS is never sent; LUNs 1.. are probed up to the
 * first missing one, as the kernel's sequential scan; nothing is removed. */
START_TEST(test_quirk_sequential)
{
	ScanResult r = {};

	sparse_world();
	fake.use_quirk = true;
	fake.quirk = (ScanQuirk){ .sequential = true };
	run(SCAN_ADD | SCAN_REMOVE, NULL, &r);
	ck_assert_uint_eq(fake.report_calls, 0);
	ck_assert_uint_eq(fake.quirk_calls, 1);
	/* asked with the LU's type and its INQUIRY strings without the padding */
	ck_assert_int_eq(fake.quirk_type, 0);
	ck_assert_str_eq(fake.quirk_vendor, "FAKE");
	ck_assert_str_eq(fake.quirk_model, "DISK");
	ck_assert_str_eq(fake.quirk_rev, "0001");
	ck_assert_int_eq(r.targets[0].method, SCAN_METHOD_SEQUENTIAL);
	ck_assert_ptr_nonnull(strstr(r.targets[0].detail, "quirk"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:1"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:2"));
	ck_assert(wrote("sys/class/scsi_host/host0/scan=0 0 3"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=0 0 4"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:4"));
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:6"));
	ck_assert_uint_eq(r.hosts[0].added, 2);
	ck_assert_uint_eq(r.hosts[0].removed, 0);
	ck_assert_uint_eq(r.failed, 0);
	ck_assert_ptr_nonnull(action(&r, SCAN_ACTION_PROBE, "0:0:0:3"));
	scan_result_done(&r);
}
END_TEST

/* The same target without the quirk: REPORT LUNS, so LUN 4 is added and LUN 6 removed. */
START_TEST(test_quirk_absent)
{
	ScanResult r = {};

	sparse_world();
	fake.use_quirk = true; /* asked, but nothing for this device */
	fake.quirk = (ScanQuirk){};
	run(SCAN_ADD | SCAN_REMOVE, NULL, &r);
	ck_assert_uint_eq(fake.report_calls, 1);
	ck_assert_int_eq(r.targets[0].method, SCAN_METHOD_REPORT_LUNS);
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:4"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:6"));
	ck_assert(!wrote("sys/class/scsi_host/host0/scan=0 0 3"));
	ck_assert_uint_eq(r.hosts[0].added, 3);
	ck_assert_uint_eq(r.hosts[0].removed, 1);
	scan_result_done(&r);
}
END_TEST

/* LUND_SCAN_MAX_LUN bounds the walk (LUNs below it), LUND_SCAN_SPARSE goes past holes. */
static const struct {
	ScanQuirk quirk;
	const char *added;  /* LUNs that must exist afterwards, of 1..7 */
	const char *probed; /* LUNs written to scan, of 1..7 */
} bound_cases[] = {
	{ { .sequential = true, .max_lun = 2 }, "1", "1" },
	{ { .sequential = true, .max_lun = 3 }, "12", "12" },
	{ { .sequential = true, .max_lun = 1 }, "", "" },
	{ { .sequential = true, .sparse = true, .max_lun = 6 }, "124", "12345" },
	{ { .sequential = true, .sparse = true }, "124", "1234567" }, /* the policy's 8 */
};

START_TEST(test_quirk_bound)
{
	ScanResult r = {};

	sparse_world();
	fake.use_quirk = true;
	fake.quirk = bound_cases[_i].quirk;
	run(SCAN_ADD, NULL, &r);
	ck_assert_uint_eq(fake.report_calls, 0);
	for (unsigned l = 1; l <= 7; l++) {
		char p[128], w[128], digit = (char)('0' + l);

		if (l == 6)
			continue; /* instantiated before: never probed, never removed */
		xsnprintf(p, "sys/bus/scsi/devices/0:0:0:%u", l);
		xsnprintf(w, "sys/class/scsi_host/host0/scan=0 0 %u", l);
		ck_assert_msg(exists(p) == !!strchr(bound_cases[_i].added, digit),
		              "case %d: LUN %u exists: %d", _i, l, exists(p));
		ck_assert_msg(wrote(w) == !!strchr(bound_cases[_i].probed, digit),
		              "case %d: LUN %u probed: %d", _i, l, wrote(w));
	}
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:6"));
	ck_assert_uint_eq(r.failed, 0);
	ck_assert_ptr_nonnull(strstr(r.targets[0].detail, bound_cases[_i].quirk.max_lun == 1
	                                                          ? "LUN 0 only"
	                                                          : "LUNs 1.."));
	scan_result_done(&r);
}
END_TEST

/* REPORT LUNS answered with garbage: the target fails with a reason that says what was wrong;
 * nothing is added, removed, or probed sequentially there. */
static const struct {
	int error;            /* REPORT LUNS I/O result (-ENOBUFS: the I/O layer refused the
	                       * length) */
	uint32_t garbage_len; /* or this LUN LIST LENGTH over 16 bytes */
	const char *detail;
} garbage_cases[] = {
	{ 0, 13, "LUN LIST LENGTH 13 is not a multiple of 8" },
	{ 0, 0xfffffff8u, "LUN LIST LENGTH 4294967288 but 8 bytes of list received" },
	{ 0, 24, "LUN LIST LENGTH 24 but 8 bytes of list received" },
	{ -ENOBUFS, 0, "LUN LIST LENGTH beyond 16384 entries" },
};

START_TEST(test_report_luns_garbage)
{
	ScanResult r = {};

	sparse_world();
	target(0, 0, 0)->error = garbage_cases[_i].error;
	target(0, 0, 0)->garbage_len = garbage_cases[_i].garbage_len;
	run(SCAN_ADD | SCAN_REMOVE | SCAN_RESIZE, NULL, &r);
	ck_assert_int_eq(r.targets[0].error, -EBADMSG);
	ck_assert_int_eq(r.targets[0].method, SCAN_METHOD_NONE);
	ck_assert_msg(strstr(r.targets[0].detail, garbage_cases[_i].detail), "detail \"%s\"",
	              r.targets[0].detail);
	ck_assert(exists("sys/bus/scsi/devices/0:0:0:6"));
	ck_assert(!exists("sys/bus/scsi/devices/0:0:0:1"));
	ck_assert_uint_eq(fake.n_writes, 1); /* the host's target probe, nothing else */
	ck_assert_uint_eq(r.failed, 1);
	scan_result_done(&r);
}
END_TEST

/* --ids: a changed VPD page 0x83 -> rescan + the synthetic change uevent; the kernel's cache
 * then matches and a second scan does nothing. Two commands per LU. */
START_TEST(test_ids_vpd)
{
	ScanResult r = {};
	const ScanAction *a;

	basic_world();
	fake.lus[1].naa = 0x99; /* 0:0:0:1 now answers with another NAA */
	run(SCAN_IDS, NULL, &r);
	a = action(&r, SCAN_ACTION_REIDENTIFY, "0:0:0:1");
	ck_assert_ptr_nonnull(a);
	ck_assert(a->applied);
	ck_assert_ptr_nonnull(strstr(a->reason, "ids changed: VPD page 0x83"));
	ck_assert_ptr_null(strstr(a->reason, "still"));
	ck_assert(wrote("sys/bus/scsi/devices/0:0:0:1/rescan=1"));
	ck_assert(wrote("sys/bus/scsi/devices/0:0:0:1/uevent="
	                "change 00000000-0000-0000-0000-000000000000 LUND=ids"));
	ck_assert(wrote("sys/bus/scsi/devices/0:0:0:1/block/sdb/uevent=change"));
	ck_assert_ptr_null(action(&r, SCAN_ACTION_REIDENTIFY, "0:0:0:0"));
	ck_assert_uint_eq(r.hosts[0].reidentified, 1);
	ck_assert_uint_eq(r.hosts[0].unchanged, 2);
	ck_assert_uint_eq(r.failed, 0);
	ck_assert_uint_eq(fake.inquiry_calls, 6); /* standard + VPD 0x83, per LU */
	scan_result_done(&r);

	fake.n_writes = 0;
	fake.inquiry_calls = 0;
	run(SCAN_IDS, NULL, &r);
	ck_assert_ptr_null(action(&r, SCAN_ACTION_REIDENTIFY, "0:0:0:1"));
	ck_assert_uint_eq(r.hosts[0].reidentified, 0);
	ck_assert_uint_eq(r.hosts[0].unchanged, 3);
	ck_assert(!wrote("sys/bus/scsi/devices/0:0:0:1/rescan=1"));
	scan_result_done(&r);
}
END_TEST

/* --ids: a changed INQUIRY model -> rescan, and the report says the kernel keeps its strings;
 * a dry run plans it and writes nothing. */
START_TEST(test_ids_inquiry)
{
	ScanResult r = {};
	const ScanAction *a;

	basic_world();
	/* a quote (escaped in the reason), a control byte and NUL padding (blanks, as the
	 * kernel sanitises them) */
	xsnprintf(fake.lus[2].model, "%s", "NEW\"MO\001DEL");
	run(SCAN_IDS | SCAN_DRY_RUN, NULL, &r);
	ck_assert_uint_eq(fake.n_writes, 0);
	a = action(&r, SCAN_ACTION_REIDENTIFY, "0:0:1:0");
	ck_assert_ptr_nonnull(a);
	ck_assert(!a->applied);
	ck_assert_str_eq(a->path, "sys/bus/scsi/devices/0:0:1:0/rescan");
	/* device strings quoted and escaped */
	ck_assert_msg(strstr(a->reason, "model \"DISK\" -> \"NEW\\x22MO DEL\""), "reason \"%s\"",
	              a->reason);
	scan_result_done(&r);

	run(SCAN_IDS, NULL, &r);
	a = action(&r, SCAN_ACTION_REIDENTIFY, "0:0:1:0");
	ck_assert_ptr_nonnull(a);
	ck_assert(wrote("sys/bus/scsi/devices/0:0:1:0/rescan=1"));
	ck_assert_ptr_nonnull(strstr(a->reason, "the kernel still shows the old INQUIRY strings"));
	scan_result_done(&r);
}
END_TEST

/* --ids on an LU the kernel cached no VPD page for: one command, the strings compared only;
 * a failed INQUIRY is a failed action, not a rescan. */
START_TEST(test_ids_no_cache)
{
	ScanResult r = {};

	host(0, "fake");
	wire(0, 0, 0, 0);
	instantiate(0, 0, 0, 0);
	ck_assert_int_eq(unlinkat(tree.fd, "sys/bus/scsi/devices/0:0:0:0/vpd_pg83", 0), 0);
	run(SCAN_IDS, NULL, &r);
	ck_assert_uint_eq(fake.inquiry_calls, 1);
	ck_assert_uint_eq(r.n_actions, 0);
	scan_result_done(&r);

	fake.inquiry_calls = 0;
	fake.inquiry_error = -ETIMEDOUT;
	run(SCAN_IDS, NULL, &r);
	ck_assert_uint_eq(fake.inquiry_calls, 1);
	ck_assert_int_eq(action(&r, SCAN_ACTION_REIDENTIFY, "0:0:0:0")->error, -ETIMEDOUT);
	ck_assert_uint_eq(r.failed, 1);
	ck_assert_uint_eq(fake.n_writes, 0);
	scan_result_done(&r);
}
END_TEST

static const struct {
	const char *s;
	int r;
	int64_t h, c, t, l;
} selector_cases[] = {
	{ "3", 0, 3, SCAN_ANY, SCAN_ANY, SCAN_ANY },
	{ "host12", 0, 12, SCAN_ANY, SCAN_ANY, SCAN_ANY },
	{ "1:0:2", 0, 1, 0, 2, SCAN_ANY },
	{ "1:0:2:49409", 0, 1, 0, 2, 49409 },
	{ "1:-:-:0", 0, 1, SCAN_ANY, SCAN_ANY, 0 },
	{ "1:0", -EINVAL, 0, 0, 0, 0 },
	{ "", -EINVAL, 0, 0, 0, 0 },
	{ "host", -EINVAL, 0, 0, 0, 0 },
	{ "-", -EINVAL, 0, 0, 0, 0 },
	{ "1:0:2:", -EINVAL, 0, 0, 0, 0 },
	{ "1::2:3", -EINVAL, 0, 0, 0, 0 },
	{ "1:0:2:3:4", -EINVAL, 0, 0, 0, 0 },
	{ "1:x:2", -EINVAL, 0, 0, 0, 0 },
	{ "4294967296", -EINVAL, 0, 0, 0, 0 },
	{ "1:0:2:18446744073709551616", -EINVAL, 0, 0, 0, 0 },
};

START_TEST(test_selector_parse)
{
	ScanSelector s;
	int r = scan_selector_parse(selector_cases[_i].s, &s);

	ck_assert_msg(r == selector_cases[_i].r, "'%s': %d", selector_cases[_i].s, r);
	if (r < 0)
		return;
	ck_assert_int_eq(s.host, selector_cases[_i].h);
	ck_assert_int_eq(s.channel, selector_cases[_i].c);
	ck_assert_int_eq(s.target, selector_cases[_i].t);
	ck_assert_int_eq(s.lun, selector_cases[_i].l);
}
END_TEST

START_TEST(test_lun_set)
{
	/* 0, flat 1, 0 again, W-LUN REPORT LUNS, peripheral 5 */
	static const uint8_t rep[] = {
		0,    0,    0, 40, 0, 0, 0, 0, 0x00, 0x00, 0, 0, 0, 0, 0, 0,
		0x40, 0x01, 0, 0,  0, 0, 0, 0, 0x00, 0x00, 0, 0, 0, 0, 0, 0,
		0xc1, 0x01, 0, 0,  0, 0, 0, 0, 0x00, 0x05, 0, 0, 0, 0, 0, 0,
	};
	uint64_t *v = NULL;
	size_t n = 0;

	ck_assert_int_eq(scan_lun_set_from_report(rep, sizeof(rep), &v, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(v[0], 0);
	ck_assert_uint_eq(v[1], 5);
	ck_assert_uint_eq(v[2], 0x4001);
	free(v);
	/* truncated: never a shorter list */
	ck_assert_int_eq(scan_lun_set_from_report(rep, sizeof(rep) - 8, &v, &n), -EBADMSG);
	ck_assert_int_eq(scan_lun_set_from_report(rep, 4, &v, &n), -EBADMSG);
	ck_assert(scan_lun_is_wlun(0xc101));
	ck_assert(!scan_lun_is_wlun(0x4001));
}
END_TEST

START_TEST(test_no_host)
{
	ScanResult r = {};
	ScanContext ctx = { .rootfd = tree.fd, .io = &fake_io };

	ck_assert_int_lt(scan_run(&ctx, NULL, 0, SCAN_ADD, &r), 0);
	host(0, "fake");
	{
		ScanSelector sel;

		ck_assert_int_eq(scan_selector_parse("7", &sel), 0);
		ck_assert_int_eq(scan_run(&ctx, &sel, 1, SCAN_ADD, &r), -ENOENT);
	}
}
END_TEST

static Suite *scan_suite(void)
{
	Suite *s = suite_create("scan");
	TCase *tc = tcase_create("plan");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_add);
	CHECK_ADD_LOOP(tc, test_probe_adds_lun0, probe_cases);
	tcase_add_test(tc, test_dry_run);
	tcase_add_test(tc, test_many_lus_any_order);
	tcase_add_test(tc, test_pool_grows_when_needed);
	tcase_add_test(tc, test_host_writes_in_turn);
	tcase_add_test(tc, test_hung_host_holds_only_itself);
	tcase_add_test(tc, test_add_selected_ids);
	tcase_add_test(tc, test_remove);
	tcase_add_test(tc, test_excluded);
	tcase_add_test(tc, test_leave_per_action);
	tcase_add_loop_test(tc, test_remove_in_use, 0, _BUSY_MAX);
	CHECK_ADD_LOOP(tc, test_remove_in_use_char, char_busy);
	CHECK_ADD_LOOP(tc, test_failed_target, bad_cases);
	tcase_add_test(tc, test_resize);
	tcase_add_test(tc, test_wlun);
	tcase_add_test(tc, test_selectors);
	tcase_add_test(tc, test_sas_transport);
	tcase_add_test(tc, test_fc_transport);
	tcase_add_test(tc, test_no_lun0);
	tcase_add_test(tc, test_iscsi_transport);
	tcase_add_test(tc, test_kernel_fallback);
	tcase_add_test(tc, test_sequential);
	tcase_add_test(tc, test_quirk_sequential);
	tcase_add_test(tc, test_quirk_absent);
	CHECK_ADD_LOOP(tc, test_quirk_bound, bound_cases);
	CHECK_ADD_LOOP(tc, test_report_luns_garbage, garbage_cases);
	tcase_add_test(tc, test_ids_vpd);
	tcase_add_test(tc, test_ids_inquiry);
	tcase_add_test(tc, test_ids_no_cache);
	tcase_add_test(tc, test_no_host);
	suite_add_tcase(s, tc);

	tc = tcase_create("pure");
	CHECK_ADD_LOOP(tc, test_selector_parse, selector_cases);
	tcase_add_test(tc, test_lun_set);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(scan_suite)
