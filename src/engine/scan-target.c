/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * One target: ask it for its LUN inventory (REPORT LUNS, or a sequential probe when it has none
 * or a quirk says so), then add what it reports and the kernel lacks, remove what it no longer
 * reports (never when in use, scan.h), and run the per-LU checks (--resize, --ids).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "luns.h"
#include "macro.h"
#include "scan-private.h"
#include "sysfs.h"
#include "unaligned.h"

/* Linux form of the REPORT LUNS well known LUN (SPC-6 table 717, W-LUN 01h): 0xc101. */
#define WLUN_REPORT_LUNS_LINUX UINT64_C(0xc101)

/* --- the LUN inventory of a report ------------------------------------------------------------ */

bool scan_lun_is_wlun(uint64_t lun)
{
	ScsiLun l = lun_from_linux(lun);

	return lun_is_wlun(&l);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int scan_lun_set_from_report(const uint8_t *buf, size_t len, uint64_t **ret, size_t *ret_n)
{
	_cleanup_free_ uint64_t *v = NULL;
	LunList list;
	size_t n = 0;
	int r;

	assert_return(buf && ret && ret_n, -EINVAL);

	r = luns_parse_report(buf, len, &list);
	if (r < 0)
		return r;
	if (list.count > 0) {
		v = calloc(list.count, sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	for (size_t i = 0; i < list.count; i++) {
		ScsiLun l;

		r = luns_report_get(&list, i, &l);
		if (r < 0)
			return r;
		if (lun_is_wlun(&l))
			continue;
		v[n++] = lun_to_linux(&l);
	}
	if (n > 1) {
		size_t k = 1;

		qsort(v, n, sizeof(*v), u64_cmp);
		for (size_t i = 1; i < n; i++)
			if (v[i] != v[k - 1])
				v[k++] = v[i];
		n = k;
	}
	if (n == 0)
		v = mfree(v);
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

static bool lun_in(const uint64_t *v, size_t n, uint64_t lun)
{
	return bsearch(&lun, v, n, sizeof(*v), u64_cmp) != NULL;
}

static const ScanLu *find_lun(const ScanLu *lus, size_t n, uint64_t lun)
{
	for (size_t i = 0; i < n; i++)
		if (lus[i].lun == lun)
			return &lus[i];
	return NULL;
}

/* --- in-use checks ---------------------------------------------------------------------------- */

static void strv_free_n(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static bool dir_has_entries(int rootfd, const char *path)
{
	_cleanup_free_ char *first = NULL;

	return sysfs_first_entry(rootfd, path, NULL, &first) >= 0;
}

static bool mounted(int rootfd, const char *devnum)
{
	_cleanup_free_ uint8_t *buf = NULL;
	size_t len;

	/* mountinfo (proc(5)): "ID PARENT MAJ:MIN ROOT MOUNTPOINT ..." per line. */
	if (sysfs_read_attr(rootfd, "proc/self/mountinfo", 4u << 20, &buf, &len) < 0)
		return false;
	for (char *line = (char *)buf, *next; line && *line; line = next) {
		char id[32], parent[32], mm[32];

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (sscanf(line, "%31s %31s %31s", id, parent, mm) == 3 && streq(mm, devnum))
			return true;
	}
	return false;
}

/* The character nodes of an LU, as /dev paths: its sg, bsg, tape (st, nst and their modes) and
 * changer (sch) nodes; an enclosure (ses) is used through its sg and bsg nodes. */
static const struct {
	const char *class; /* directory below the LU in sysfs */
	const char *dev;   /* its nodes below /dev */
} char_classes[] = {
	{ "scsi_generic", "/dev/" },
	{ "bsg", "/dev/bsg/" },
	{ "scsi_tape", "/dev/" },
	{ "scsi_changer", "/dev/" },
};

static int char_nodes(int rootfd, const char *syslu, char ***ret, size_t *ret_n)
{
	char **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < ELEMENTSOF(char_classes); i++) {
		_cleanup_(closedirp) DIR *d = NULL;
		char path[PATH_MAX];

		scan_pathfmt(path, sizeof(path), "%s/%s", syslu, char_classes[i].class);
		if (sysfs_opendir(rootfd, path, &d) < 0)
			continue;
		for (struct dirent *de; (de = readdir(d));) {
			char *node;

			if (de->d_name[0] == '.')
				continue;
			if (asprintf(&node, "%s%s", char_classes[i].dev, de->d_name) < 0)
				goto oom;
			if (GREEDY_REALLOC_EXACT(v, n + 1) < 0) {
				free(node);
				goto oom;
			}
			v[n++] = node;
		}
	}
	*ret = v;
	*ret_n = n;
	return 0;
oom:
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return -ENOMEM;
}

/*
 * Whether a process other than this one has one of @nodes open: /proc/PID/fd of the root.
 * Returns the PID, 0 when none, and the node in @ret_node.
 */
static long node_open_by(int rootfd, char *const *nodes, size_t n, const char **ret_node)
{
	_cleanup_(closedirp) DIR *proc = NULL;
	_cleanup_free_ char *buf = NULL;
	long self = (long)getpid();

	if (n == 0 || sysfs_opendir(rootfd, "proc", &proc) < 0)
		return 0;
	buf = malloc(PATH_MAX);
	if (!buf)
		return 0;
	for (struct dirent *pe; (pe = readdir(proc));) {
		_cleanup_(closedirp) DIR *fds = NULL;
		char path[PATH_MAX], *end;
		long pid = strtol(pe->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		scan_pathfmt(path, sizeof(path), "proc/%s/fd", pe->d_name);
		if (sysfs_opendir(rootfd, path, &fds) < 0)
			continue; /* gone meanwhile, or not ours to see */
		for (struct dirent *fe; (fe = readdir(fds));) {
			ssize_t k;

			if (fe->d_name[0] == '.')
				continue;
			k = readlinkat(dirfd(fds), fe->d_name, buf, PATH_MAX - 1);
			if (k < 0)
				continue;
			buf[k] = 0;
			for (size_t i = 0; i < n; i++)
				if (streq(buf, nodes[i])) {
					*ret_node = nodes[i];
					return pid;
				}
		}
	}
	return 0;
}

/* Where a block device's being in use is looked for: the disk's or a partition's directory. */
typedef struct InUse {
	Scan *s;
	const char *disk; /* the disk's directory: "sys/bus/scsi/devices/H:C:T:L/block/sdX" */
	char *why;
	size_t why_size;
} InUse;

/* -EBUSY with @u->why when the block device @name (in directory @dir) has holders, is mounted or
 * cannot be opened exclusively; 0 otherwise. */
static int block_in_use(InUse *u, const char *name, const char *dir)
{
	_cleanup_free_ char *devnum = NULL;
	char path[PATH_MAX];

	scan_pathfmt(path, sizeof(path), "%s/holders", dir);
	if (dir_has_entries(u->s->rootfd, path)) {
		snprintf(u->why, u->why_size, "%s has holders", name);
		return -EBUSY;
	}
	scan_pathfmt(path, sizeof(path), "%s/dev", dir);
	if (sysfs_read_string(u->s->rootfd, path, &devnum) >= 0 && mounted(u->s->rootfd, devnum)) {
		snprintf(u->why, u->why_size, "%s is mounted", name);
		return -EBUSY;
	}
	if (u->s->io->open_exclusive(u->s->ctx->io_userdata, u->s->rootfd, name) == -EBUSY) {
		snprintf(u->why, u->why_size, "%s is open exclusively", name);
		return -EBUSY;
	}
	return 0;
}

static int partition_in_use(const char *name, unsigned number, void *userdata)
{
	InUse *u = userdata;
	char dir[PATH_MAX];

	scan_pathfmt(dir, sizeof(dir), "%s/%s", u->disk, name);
	return block_in_use(u, name, dir);
}

/* 0 when @lu may be removed; -EBUSY with @why otherwise. */
static int lu_in_use(Scan *s, const ScanLu *lu, char *why, size_t why_size)
{
	char syslu[128], disk[PATH_MAX];
	char **nodes = NULL;
	size_t n_nodes = 0;
	const char *node = NULL;
	InUse u = { .s = s, .disk = disk, .why = why, .why_size = why_size };
	long pid;
	int r = 0;

	snprintf(syslu, sizeof(syslu), "sys/bus/scsi/devices/%s", lu->hctl);
	/* Every LU type: a tape, a changer, an enclosure or a disk used through sg or bsg is
	 * in use while a process has one of its character nodes open. */
	if (char_nodes(s->rootfd, syslu, &nodes, &n_nodes) >= 0) {
		pid = node_open_by(s->rootfd, nodes, n_nodes, &node);
		if (pid > 0) {
			snprintf(why, why_size, "%s is open by PID %ld", node, pid);
			r = -EBUSY;
		}
		strv_free_n(nodes, n_nodes);
		if (r < 0)
			return r;
	}
	if (!lu->block)
		return 0; /* no block device: nothing can mount or hold it */
	scan_pathfmt(disk, sizeof(disk), "%s/block/%s", syslu, lu->block);
	if (faccessat(s->rootfd, disk, F_OK, 0) < 0)
		return 0;
	r = block_in_use(&u, lu->block, disk);
	if (r == 0)
		r = sysfs_for_each_partition(s->rootfd, syslu, lu->block, partition_in_use, &u);
	return r == -EBUSY ? r : 0;
}

/* --- decisions -------------------------------------------------------------------------------- */

/* @reported: the target listed @lun, so an LU the kernel does not instantiate is a failure;
 * otherwise (a sequential probe) it only means there is no such LU. Returns whether it exists. */
/* After the kernel's own scan of @t (which had no LU): the LUs it instantiated, each an add of
 * this scan (the write was the action that added it). */
static void record_kernel_added(Scan *s, ScanTarget *t)
{
	ScanLu *lus = NULL;
	size_t n = 0;

	if (scan_list_lus(s->rootfd, t->host, t->channel, t->target, &lus, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		scan_record_added(s, &lus[i], "instantiated by the kernel's target scan");
	scan_lus_free(lus, n);
}

/* Does the policy leave @lu alone instead of @what? Then a KEEP action saying why is recorded
 * (when @record): true. */
static bool leave_alone(Scan *s, const ScanLu *lu, ScanActionKind what, const char *reason,
                        bool record)
{
	char why[160];
	ScanAction a;

	if (!s->pol.leave || !s->pol.leave(s->pol.userdata, lu, what, why, sizeof(why)))
		return false;
	if (record) {
		scan_action_init(&a, SCAN_ACTION_KEEP, lu);
		snprintf(a.reason, sizeof(a.reason), "%s; kept: %s", reason, why);
		(void)scan_record_action(s, &a);
	}
	return true;
}

static bool add_lu(Scan *s, ScanTarget *t, uint64_t lun, bool reported, const char *reason)
{
	ScanLu lu = { .host = t->host, .channel = t->channel, .target = t->target, .lun = lun };
	ScanAction a;

	snprintf(lu.hctl, sizeof(lu.hctl), "%u:%u:%u:%" PRIu64, t->host, t->channel, t->target,
	         lun);
	/* a sequential walk ends at a LUN the policy leaves alone (reported ones are filtered
	 * before) */
	lu.type = -1;
	if (!reported && leave_alone(s, &lu, SCAN_ACTION_ADD, reason, true))
		return false;
	scan_action_init(&a, SCAN_ACTION_ADD, &lu);
	snprintf(a.path, sizeof(a.path), "sys/class/scsi_host/host%u/scan", t->host);
	snprintf(a.value, sizeof(a.value), "%u %u %" PRIu64, t->channel, t->target, lun);
	snprintf(a.reason, sizeof(a.reason), "%s", reason);
	/* A dry run cannot tell where a sequential walk ends: plan probes, not adds. */
	if ((s->flags & SCAN_DRY_RUN) && !reported)
		a.kind = SCAN_ACTION_PROBE;
	if (!(s->flags & SCAN_DRY_RUN)) {
		a.error = s->io->write_attr(s->ctx->io_userdata, s->rootfd, a.path, a.value);
		a.applied = a.error >= 0;
		if (a.error < 0 && !reported) {
			/* e.g. EINVAL: the LUN is beyond the host's max_lun. */
			a.kind = SCAN_ACTION_PROBE;
			snprintf(a.reason, sizeof(a.reason), "%s: host refused LUN (%s)", reason,
			         strerror(-a.error));
			a.error = 0;
		}
		/* The write succeeds whether or not the kernel found an LU: check. */
		if (a.applied && !scan_lu_exists(s->rootfd, t->host, t->channel, t->target, lun)) {
			if (reported)
				a.error = -ENODEV;
			else {
				a.kind = SCAN_ACTION_PROBE;
				snprintf(a.reason, sizeof(a.reason), "%s: no LU", reason);
			}
		}
	}
	(void)scan_record_action(s, &a);
	return a.kind == SCAN_ACTION_ADD && a.error >= 0;
}

/*
 * add_reported_batch() - several reported LUNs are missing and the whole target is ours to
 * scan: one "C T -" lets the kernel add them all from its own REPORT LUNS in one pass under
 * one scan lock, as its wildcard scan does, instead of one write (and one lock round) per
 * LUN. Each LUN is then checked and recorded; one the kernel did not add (its max_lun, a
 * blacklist flag) gets its own write through add_lu(), which reports why.
 */
static void add_reported_batch(Scan *s, ScanTarget *t, const uint64_t *luns, size_t k)
{
	char path[128], value[64];
	int r = 0;

	snprintf(path, sizeof(path), "sys/class/scsi_host/host%u/scan", t->host);
	snprintf(value, sizeof(value), "%u %u -", t->channel, t->target);
	if (!(s->flags & SCAN_DRY_RUN))
		r = s->io->write_attr(s->ctx->io_userdata, s->rootfd, path, value);

	for (size_t i = 0; i < k; i++) {
		ScanLu lu = {
			.host = t->host, .channel = t->channel, .target = t->target, .lun = luns[i]
		};
		ScanAction a;

		if (!(s->flags & SCAN_DRY_RUN) &&
		    (r < 0 ||
		     !scan_lu_exists(s->rootfd, t->host, t->channel, t->target, luns[i]))) {
			add_lu(s, t, luns[i], true, "reported, not added by the target scan");
			continue;
		}
		snprintf(lu.hctl, sizeof(lu.hctl), "%u:%u:%u:%" PRIu64, t->host, t->channel,
		         t->target, luns[i]);
		scan_action_init(&a, SCAN_ACTION_ADD, &lu);
		snprintf(a.path, sizeof(a.path), "%s", path);
		snprintf(a.value, sizeof(a.value), "%s", value);
		snprintf(a.reason, sizeof(a.reason), "%s",
		         "reported, not instantiated (one target scan)");
		a.applied = !(s->flags & SCAN_DRY_RUN);
		(void)scan_record_action(s, &a);
	}
}

static void remove_or_keep(Scan *s, ScanLu *lu, const char *reason)
{
	char why[96] = "";
	ScanAction a;

	scan_lu_details(s->rootfd, lu);
	if (leave_alone(s, lu, SCAN_ACTION_REMOVE, reason, true))
		return;
	if (!(s->flags & SCAN_REMOVE)) {
		scan_action_init(&a, SCAN_ACTION_KEEP, lu);
		snprintf(a.reason, sizeof(a.reason), "%s; removal not requested", reason);
		(void)scan_record_action(s, &a);
		return;
	}
	if (!(s->flags & SCAN_FORCE) && lu_in_use(s, lu, why, sizeof(why)) < 0) {
		scan_action_init(&a, SCAN_ACTION_KEEP, lu);
		snprintf(a.reason, sizeof(a.reason), "%s; kept: %s", reason, why);
		(void)scan_record_action(s, &a);
		return;
	}
	scan_action_init(&a, SCAN_ACTION_REMOVE, lu);
	snprintf(a.path, sizeof(a.path), "sys/bus/scsi/devices/%s/delete", lu->hctl);
	snprintf(a.value, sizeof(a.value), "1");
	snprintf(a.reason, sizeof(a.reason), "%s%s", reason,
	         (s->flags & SCAN_FORCE) ? " (forced)" : "");
	(void)scan_apply(s, &a);
}

/* sd binds these peripheral types (disk, optical memory, RBC, host-managed zoned). */
static bool type_has_capacity(int type)
{
	return type == 0x00 || type == 0x07 || type == 0x0e || type == 0x14;
}

/* Returns true when it planned or applied a rescan (the LU is then not "unchanged"). */
static bool resize_check(Scan *s, ScanTarget *t, ScanLu *lu)
{
	char path[PATH_MAX];
	uint64_t sectors, bytes = 0;
	unsigned cmds = 0;
	ScanAction a;
	int r;

	scan_lu_details(s->rootfd, lu);
	if (!lu->block || !type_has_capacity(lu->type))
		return false;
	scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/block/%s/size", lu->hctl,
	             lu->block);
	if (sysfs_read_u64(s->rootfd, path, &sectors) < 0)
		return false;
	r = s->io->read_capacity(s->ctx->io_userdata, s->rootfd, lu, s->pol.timeout_ms, &bytes,
	                         &cmds);
	t->commands += cmds;
	if (r < 0) {
		scan_record_failure(s, SCAN_ACTION_RESIZE, lu, r, "READ CAPACITY failed");
		return false;
	}
	/* The block layer counts 512-byte sectors whatever the logical block size. */
	if (bytes == sectors * 512)
		return false;
	scan_action_init(&a, SCAN_ACTION_RESIZE, lu);
	a.old_size = sectors * 512;
	a.new_size = bytes;
	snprintf(a.path, sizeof(a.path), "sys/bus/scsi/devices/%s/rescan", lu->hctl);
	snprintf(a.value, sizeof(a.value), "1");
	snprintf(a.reason, sizeof(a.reason), "capacity %" PRIu64 " bytes, block device %" PRIu64,
	         bytes, sectors * 512);
	(void)scan_apply(s, &a);
	return true;
}

/* --- the target ------------------------------------------------------------------------------- */

static int report_luns_retry(Scan *s, ScanTarget *t, const ScanLu *via, uint8_t **buf, size_t *len)
{
	int r = -EIO;

	/* BUSY/NOT READY may pass; a timeout is not retried, so a dead target costs one
	 * timeout, not several. */
	for (unsigned i = 0; i <= s->pol.retries; i++) {
		unsigned cmds = 0;

		r = s->io->report_luns(s->ctx->io_userdata, s->rootfd, via, s->pol.timeout_ms, buf,
		                       len, &cmds);
		t->commands += cmds;
		if (r != -EBUSY && r != -EAGAIN)
			break;
	}
	return r;
}

/* The per-LU checks that do not depend on the LUN inventory (--resize, --ids). */
static void check_lu(Scan *s, ScanTarget *t, ScanLu *lu)
{
	bool changed = false, resize = s->flags & SCAN_RESIZE, ids = s->flags & SCAN_IDS;

	if ((resize || ids) && s->pol.leave) {
		bool left;

		scan_lu_details(s->rootfd, lu); /* its type, for the rules */
		left = resize && leave_alone(s, lu, SCAN_ACTION_RESIZE, "not checked", true);
		resize = resize && !left;
		/* one KEEP per LU when the policy leaves it wholly alone */
		ids = ids && !leave_alone(s, lu, SCAN_ACTION_REIDENTIFY, "not checked", !left);
	}
	if (resize)
		changed |= resize_check(s, t, lu);
	if (ids)
		changed |= scan_ids_check(s, t, lu);
	if (changed && !scan_was_probe_added(s, lu->hctl) && t->unchanged > 0)
		t->unchanged--; /* counted as resized or reidentified instead */
}

/*
 * Like the kernel's sequential scan (scsi_sequential_lun_scan()): LUN 1 on, below @max_lun,
 * stopping at the first LUN that does not appear unless @sparse. An LU the kernel already
 * has is passed over, not taken for the end. Never removes anything: there is no
 * authoritative list.
 */
static void run_sequential(Scan *s, ScanTarget *t, ScanLu *lus, size_t n, uint64_t max_lun,
                           bool sparse, const char *why)
{
	char reason[128];

	t->method = SCAN_METHOD_SEQUENTIAL;
	if (max_lun <= 1)
		snprintf(t->detail, sizeof(t->detail), "%s; LUN 0 only", why);
	else
		snprintf(t->detail, sizeof(t->detail), "%s; LUNs 1..%" PRIu64 "%s", why,
		         max_lun - 1, sparse ? ", sparse" : ", up to the first missing one");
	snprintf(reason, sizeof(reason), "sequential probe (%s)", why);
	for (size_t i = 0; i < n; i++)
		if (!scan_lun_is_wlun(lus[i].lun) && !scan_was_probe_added(s, lus[i].hctl))
			t->unchanged++;
	for (size_t i = 0; i < n; i++)
		if (!scan_lun_is_wlun(lus[i].lun) &&
		    scan_sel_match(s->sel, s->n_sel, t->host, t->channel, t->target,
		                   (int64_t)lus[i].lun))
			check_lu(s, t, &lus[i]);
	if (!(s->flags & SCAN_ADD))
		return;
	for (uint64_t l = 1; l < max_lun; l++) {
		if (!scan_sel_match(s->sel, s->n_sel, t->host, t->channel, t->target, (int64_t)l))
			continue;
		if (find_lun(lus, n, l))
			continue;
		if (!add_lu(s, t, l, false, reason) && !(s->flags & SCAN_DRY_RUN) && !sparse)
			break;
	}
}

/* Trailing blanks off a sysfs INQUIRY string (the kernel shows the padded field). */
static void trim_field(char *p)
{
	if (p)
		p[scan_field_len(p, strlen(p))] = 0;
}

/* The quirk for the target behind @via (the policy's quirk callback). Returns whether one
 * applies; fills @why with where it came from. */
static bool target_quirk(Scan *s, ScanTarget *t, const ScanLu *via, ScanQuirk *ret)
{
	_cleanup_free_ char *vendor = NULL, *model = NULL, *rev = NULL;
	char path[PATH_MAX];
	ScanQuirk q = {};
	int r;

	if (!s->pol.quirk)
		return false;
	scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/vendor", via->hctl);
	(void)sysfs_read_string(s->rootfd, path, &vendor);
	scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/model", via->hctl);
	(void)sysfs_read_string(s->rootfd, path, &model);
	scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/rev", via->hctl);
	(void)sysfs_read_string(s->rootfd, path, &rev);
	trim_field(vendor);
	trim_field(model);
	trim_field(rev);
	r = s->pol.quirk(s->pol.userdata, via->type, vendor ?: "", model ?: "", rev ?: "", &q);
	if (r < 0)
		scan_debug(s, "%s: scan quirk lookup: %s%s", t->hctl, strerror(-r),
		           q.sequential ? " (sequential still applies)" : "");
	*ret = q;
	return q.sequential;
}

/* Describe a REPORT LUNS response that failed to parse, for the target's detail. */
static void report_luns_detail(ScanTarget *t, int r, const uint8_t *buf, size_t len)
{
	uint32_t list_len;

	if (r == -ENOBUFS) {
		snprintf(t->detail, sizeof(t->detail),
		         "REPORT LUNS: LUN LIST LENGTH beyond %u entries, not believed",
		         (REPORT_LUNS_MAX - 8u) / 8u);
		return;
	}
	if (r != -EBADMSG)
		return;
	if (!buf) {
		snprintf(t->detail, sizeof(t->detail),
		         "REPORT LUNS: response shorter than its header, or a list that "
		         "changed "
		         "length at every read");
		return;
	}
	if (len < 8) {
		snprintf(t->detail, sizeof(t->detail),
		         "REPORT LUNS: %zu bytes, shorter than the 8-byte header", len);
		return;
	}
	list_len = unaligned_read_be32(buf);
	if (list_len % 8 != 0)
		snprintf(t->detail, sizeof(t->detail),
		         "REPORT LUNS: LUN LIST LENGTH %" PRIu32 " is not a multiple of 8",
		         list_len);
	else if (list_len > len - 8)
		snprintf(t->detail, sizeof(t->detail),
		         "REPORT LUNS: LUN LIST LENGTH %" PRIu32 " but %zu bytes of list received",
		         list_len, len - 8);
	else
		snprintf(t->detail, sizeof(t->detail), "REPORT LUNS: malformed response");
}

static void target_done(Scan *s, ScanTarget *t)
{
	pthread_mutex_lock(&s->lock);
	s->targets_done++;
	s->commands += t->commands;
	scan_emit_locked(s, &(ScanEvent){ .kind = SCAN_EVENT_TARGET_DONE, .target = t });
	pthread_mutex_unlock(&s->lock);
}

/* What REPORT LUNS says of the listed LU @lu of @t, within the selection. */
typedef enum LuFate {
	LU_NOT_OURS,   /* not selected, or a W-LUN (never in a select-0 report; never removed) */
	LU_REPORTED,   /* still there: checked */
	LU_UNREPORTED, /* gone from the target: removed (or kept) */
} LuFate;

static LuFate lu_fate(const Scan *s, const ScanTarget *t, const ScanLu *lu, const uint64_t *rep,
                      size_t n_rep)
{
	if (!scan_sel_match(s->sel, s->n_sel, t->host, t->channel, t->target, (int64_t)lu->lun) ||
	    scan_lun_is_wlun(lu->lun))
		return LU_NOT_OURS;
	return lun_in(rep, n_rep, lu->lun) ? LU_REPORTED : LU_UNREPORTED;
}

/* The rest of a target after its REPORT LUNS and the checks: the reported LUNs the kernel
 * lacks are added, the LUs it no longer reports removed (or kept). */
static void finish_target(Scan *s, TargetJob *tj)
{
	ScanTarget *t = &tj->t;
	size_t k = 0;
	bool left = false;

	/* LUNs the policy leaves alone are not added: nor by a whole-target scan, which would add
	 * them too */
	for (size_t i = 0; i < tj->n_missing; i++) {
		ScanLu lu = { .host = t->host,
			      .channel = t->channel,
			      .target = t->target,
			      .lun = tj->missing[i],
			      .type = -1 };

		snprintf(lu.hctl, sizeof(lu.hctl), "%u:%u:%u:%" PRIu64, t->host, t->channel,
		         t->target, lu.lun);
		if (leave_alone(s, &lu, SCAN_ACTION_ADD, "reported, not instantiated", true))
			left = true;
		else
			tj->missing[k++] = tj->missing[i];
	}
	if (k >= 2 && !left && scan_whole_target_selected(s, t))
		add_reported_batch(s, t, tj->missing, k);
	else
		for (size_t i = 0; i < k; i++)
			add_lu(s, t, tj->missing[i], true, "reported, not instantiated");
	for (size_t i = 0; i < tj->n_lus; i++)
		if (lu_fate(s, t, &tj->lus[i], tj->rep, tj->n_rep) == LU_UNREPORTED)
			remove_or_keep(s, &tj->lus[i], "not reported by REPORT LUNS");
	scan_lus_free(tj->lus, tj->n_lus);
	tj->lus = NULL;
	tj->n_lus = 0;
	tj->rep = mfree(tj->rep);
	tj->missing = mfree(tj->missing);
	tj->n_rep = tj->n_missing = 0;
	target_done(s, t);
}

/*
 * host_writer() - the adds and removals of @tj, made by its host's writer: this worker, when no
 * other is writing for the host, else the one that is, after the jobs queued before.
 *
 * The kernel takes a host's scan_mutex for every scan and delete write, so a second worker
 * writing for the same host only waits in the kernel; and a worker waiting there counts as
 * busy, so the pool grew to its full width with threads that did nothing but wait (eight for
 * one host with 16 targets to add to). Now one worker writes for a host, in turn, while the
 * others go on with the REPORT LUNS of the next targets. A hung write holds its host's writes
 * only, as the kernel's lock would: the other hosts' jobs find other workers, since the writer
 * counts as busy.
 */
static void host_writer(Scan *s, TargetJob *tj)
{
	bool *writing = NULL;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n_hosts && !writing; i++)
		if (s->hosts[i].host == tj->t.host)
			writing = &s->host_writing[i];
	if (!writing) { /* a target of no listed host: cannot be, but never lost */
		pthread_mutex_unlock(&s->lock);
		finish_target(s, tj);
		return;
	}
	tj->next_write = NULL;
	if (s->writes_tail)
		s->writes_tail->next_write = tj;
	else
		s->writes_head = tj;
	s->writes_tail = tj;
	if (*writing) {
		pthread_mutex_unlock(&s->lock);
		return; /* that writer takes it, before it stops */
	}
	*writing = true;
	for (;;) {
		TargetJob *prev = NULL, *x = s->writes_head;

		while (x && x->t.host != tj->t.host) {
			prev = x;
			x = x->next_write;
		}
		if (!x)
			break;
		if (prev)
			prev->next_write = x->next_write;
		else
			s->writes_head = x->next_write;
		if (s->writes_tail == x)
			s->writes_tail = prev;
		pthread_mutex_unlock(&s->lock);
		finish_target(s, x);
		pthread_mutex_lock(&s->lock);
	}
	*writing = false;
	pthread_mutex_unlock(&s->lock);
}

void scan_run_target(Scan *s, TargetJob *tj)
{
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_free_ uint64_t *rep = NULL;
	ScanTarget *t = &tj->t;
	ScanLu *lus = NULL, *via = NULL;
	size_t n = 0, n_rep = 0, len = 0;
	bool writes = false;
	int r;

	if (tj->listed) {
		lus = TAKE_PTR(tj->lus);
		n = tj->n_lus;
		tj->n_lus = 0;
	} else {
		r = scan_list_lus(s->rootfd, t->host, t->channel, t->target, &lus, &n);
		if (r < 0) {
			t->error = r;
			goto done;
		}
	}

	/* Where REPORT LUNS goes: LUN 0 (SPC requires it there), the REPORT LUNS W-LUN,
	 * else any LU of the target (the inventory is per I_T nexus, not per LU). */
	for (size_t i = 0; i < n && !via; i++)
		if (lus[i].lun == 0)
			via = &lus[i];
	for (size_t i = 0; i < n && !via; i++)
		if (lus[i].lun == WLUN_REPORT_LUNS_LINUX)
			via = &lus[i];
	if (!via && n > 0)
		via = &lus[0];

	if (!via) {
		/* A transport target with no LU the kernel would instantiate at LUN 0: let
		 * the kernel scan the target itself (it can address a LUN 0 with PQ 1). */
		ScanAction a;

		t->method = SCAN_METHOD_KERNEL;
		if (!(s->flags & SCAN_ADD))
			goto done;
		scan_probe_action(&a, t->host, "", "", "",
		                  "no LU to send REPORT LUNS to: kernel target scan");
		snprintf(a.value, sizeof(a.value), "%u %u -", t->channel, t->target);
		snprintf(a.hctl, sizeof(a.hctl), "%s", t->hctl);
		(void)scan_apply(s, &a);
		if (a.error < 0)
			t->error = a.error;
		else if (a.applied)
			record_kernel_added(s, t);
		goto done;
	}
	/* REPORT LUNS needs the LU's node and a scan quirk its type; the checks that use its
	 * block device read it themselves (scan_lu_details()). */
	scan_lu_node(s->rootfd, via, s->pol.quirk != NULL);
	snprintf(t->via, sizeof(t->via), "%s", via->hctl);

	{
		ScanQuirk q;

		if (target_quirk(s, t, via, &q)) {
			/* The device is known to lack a usable REPORT LUNS: not even asked.
			 */
			scan_debug(s, "%s: scan quirk: sequential probe", t->hctl);
			run_sequential(s, t, lus, n, q.max_lun ?: s->pol.seq_max_lun, q.sparse,
			               "quirk: no REPORT LUNS");
			goto done;
		}
	}

	r = report_luns_retry(s, t, via, &buf, &len);
	if (r == -EOPNOTSUPP) {
		/* As the kernel does: a target refusing REPORT LUNS (ILLEGAL REQUEST:
		 * SCSI-2 devices, ATAPI behind libata) is probed sequentially; nothing is
		 * ever removed there. */
		scan_debug(s, "%s: REPORT LUNS not supported: sequential probe", t->hctl);
		run_sequential(s, t, lus, n, s->pol.seq_max_lun, s->pol.seq_sparse,
		               "REPORT LUNS refused");
		goto done;
	}
	if (r >= 0)
		r = scan_lun_set_from_report(buf, len, &rep, &n_rep);
	if (r < 0) {
		/* Nothing is removed, added or resized on a target whose inventory we lack,
		 * and a garbled answer is no reason to probe blindly either. */
		report_luns_detail(t, r, buf, len);
		if (r == -ENOBUFS)
			r = -EBADMSG;
		t->error = r;
		goto done;
	}
	t->method = SCAN_METHOD_REPORT_LUNS;
	t->reported = n_rep;

	/* The reported LUNs the kernel lacks, for the adds. */
	if (s->flags & SCAN_ADD) {
		tj->missing = calloc(n_rep ?: 1, sizeof(*tj->missing));
		if (!tj->missing) {
			t->error = -ENOMEM;
			goto done;
		}
		for (size_t i = 0; i < n_rep; i++)
			if (scan_sel_match(s->sel, s->n_sel, t->host, t->channel, t->target,
			                   (int64_t)rep[i]) &&
			    !find_lun(lus, n, rep[i]))
				tj->missing[tj->n_missing++] = rep[i];
	}
	writes = tj->n_missing > 0;
	/* The LUs still reported are checked here, beside the other targets' jobs: their
	 * commands go to the LUs themselves. */
	for (size_t i = 0; i < n; i++)
		switch (lu_fate(s, t, &lus[i], rep, n_rep)) {
		case LU_REPORTED:
			if (!scan_was_probe_added(s, lus[i].hctl))
				t->unchanged++;
			check_lu(s, t, &lus[i]);
			break;
		case LU_UNREPORTED:
			writes = writes || (s->flags & SCAN_REMOVE);
			break;
		case LU_NOT_OURS:
			break;
		}
	tj->lus = TAKE_PTR(lus);
	tj->n_lus = n;
	tj->rep = TAKE_PTR(rep);
	tj->n_rep = n_rep;
	if (writes && !(s->flags & SCAN_DRY_RUN))
		host_writer(s, tj);
	else
		finish_target(s, tj);
	return;

done:
	scan_lus_free(lus, n);
	target_done(s, t);
}
