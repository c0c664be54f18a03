/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "luns.h"
#include "macro.h"
#include "scan.h"
#include "sgio.h"
#include "sysfs.h"
#include "unaligned.h"

#define SCAN_DEFAULT_TIMEOUT_MS  10000u
#define SCAN_DEFAULT_WORKERS     8u
#define SCAN_DEFAULT_SEQ_MAX_LUN 8u
/* SPC: REPORT LUNS header is 8 bytes; a first read for 512 LUNs covers nearly every target, the
 * re-read takes what the header asks for, up to 16384 LUNs. */
#define REPORT_LUNS_FIRST (8u + 512u * 8u)
#define REPORT_LUNS_MAX   (8u + 16384u * 8u)
/* Linux form of the REPORT LUNS well known LUN (SPC-6 table 717, W-LUN 01h): 0xc101. */
#define WLUN_REPORT_LUNS_LINUX UINT64_C(0xc101)

/*
 * Format a sysfs path. A path that does not fit becomes "", which every *at() call refuses
 * (ENOENT), so a truncated name can never address a different file.
 */
static int _printf_(3, 4) pathfmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= size) {
		buf[0] = 0;
		return -ENAMETOOLONG;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* pure helpers                                                                              */

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

static int parse_uint(const char *s, bool allow_any, int64_t *ret)
{
	char *end;
	unsigned long long v;

	if (allow_any && streq(s, "-")) {
		*ret = SCAN_ANY;
		return 0;
	}
	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != 0 || v > INT64_MAX)
		return -EINVAL;
	*ret = (int64_t)v;
	return 0;
}

int scan_selector_parse(const char *s, ScanSelector *ret)
{
	ScanSelector sel = { SCAN_ANY, SCAN_ANY, SCAN_ANY, SCAN_ANY };
	int64_t *fields[] = { &sel.host, &sel.channel, &sel.target, &sel.lun };
	_cleanup_free_ char *copy = NULL;
	char *p, *tok, *save = NULL;
	size_t n = 0;

	assert_return(s && ret, -EINVAL);

	if (strneq(s, "host", 4))
		s += 4;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	if (isempty(copy) || copy[strlen(copy) - 1] == ':' || strstr(copy, "::"))
		return -EINVAL;
	for (p = copy; (tok = strtok_r(p, ":", &save)); p = NULL) {
		if (n >= ELEMENTSOF(fields))
			return -EINVAL;
		if (parse_uint(tok, n > 0, fields[n]) < 0)
			return -EINVAL;
		if (n <= 2 && *fields[n] > UINT32_MAX)
			return -EINVAL;
		n++;
	}
	/* "H", "H:C:T" or "H:C:T:L"; "H:C" names nothing an admin would mean. */
	if (n == 2)
		return -EINVAL;
	*ret = sel;
	return 0;
}

static bool sel_match(const ScanSelector *sel, size_t n_sel, unsigned h, int64_t c, int64_t t,
                      int64_t l)
{
	if (n_sel == 0)
		return true;
	for (size_t i = 0; i < n_sel; i++) {
		const ScanSelector *s = &sel[i];

		if (s->host != SCAN_ANY && s->host != h)
			continue;
		if (c != SCAN_ANY && s->channel != SCAN_ANY && s->channel != c)
			continue;
		if (t != SCAN_ANY && s->target != SCAN_ANY && s->target != t)
			continue;
		if (l != SCAN_ANY && s->lun != SCAN_ANY && s->lun != l)
			continue;
		return true;
	}
	return false;
}

const char *scan_action_kind_name(ScanActionKind k)
{
	static const char *const names[_SCAN_ACTION_KIND_MAX] = {
		[SCAN_ACTION_PROBE] = "probe",   [SCAN_ACTION_ADD] = "add",
		[SCAN_ACTION_REMOVE] = "remove", [SCAN_ACTION_KEEP] = "keep",
		[SCAN_ACTION_RESIZE] = "resize", [SCAN_ACTION_REIDENTIFY] = "reidentify",
	};

	return k >= 0 && k < _SCAN_ACTION_KIND_MAX ? names[k] : NULL;
}

const char *scan_method_name(ScanMethod m)
{
	static const char *const names[_SCAN_METHOD_MAX] = {
		[SCAN_METHOD_NONE] = "none",
		[SCAN_METHOD_REPORT_LUNS] = "report-luns",
		[SCAN_METHOD_SEQUENTIAL] = "sequential",
		[SCAN_METHOD_KERNEL] = "kernel",
	};

	return m >= 0 && m < _SCAN_METHOD_MAX ? names[m] : NULL;
}

void scan_result_done(ScanResult *r)
{
	if (!r)
		return;
	free(r->hosts);
	free(r->targets);
	free(r->actions);
	*r = (ScanResult){};
}

/* ---------------------------------------------------------------------------------------- */
/* default I/O                                                                               */

static int open_lu_node(int rootfd, const ScanLu *lu)
{
	char path[PATH_MAX];
	int fd;

	if (lu->sg)
		pathfmt(path, sizeof(path), "dev/%s", lu->sg);
	else
		/* bsg is built in (CONFIG_BLK_DEV_BSG=y): there even when sg is not loaded. */
		pathfmt(path, sizeof(path), "dev/bsg/%s", lu->hctl);
	/* O_NONBLOCK: never wait for another opener of sg. */
	fd = openat(rootfd, path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == EACCES)
		fd = openat(rootfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

static int io_report_luns(void *userdata, int rootfd, const ScanLu *lu, unsigned timeout_ms,
                          uint8_t **ret_buf, size_t *ret_len, unsigned *commands)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ uint8_t *buf = NULL;
	size_t want = REPORT_LUNS_FIRST;
	bool exact = false;
	int r = -EIO;

	fd = open_lu_node(rootfd, lu);
	if (fd < 0)
		return fd;

	/* At most two reads: the first tells the length, the second gets it all. A list that
	 * grows between the two is re-read once more, never looped on. */
	for (unsigned attempt = 0; attempt < 4; attempt++) {
		uint8_t cdb[12] = { 0xa0, 0, 0x00 /* SELECT REPORT: all but W-LUNs */ };
		SgioResult res = {};
		size_t need;

		free(buf);
		buf = calloc(1, want);
		if (!buf)
			return -ENOMEM;
		unaligned_write_be32(cdb + 6, (uint32_t)want);
		r = sgio_exec_retry(fd, cdb, sizeof(cdb), buf, want, timeout_ms, &res);
		*commands += res.commands;
		if (r == -ENOLINK && !exact) {
			/* vmw_pvscsi reports a short transfer (the usual case: the list is
			 * shorter than the allocation) as DID_ERROR. Ask for the header and
			 * one entry (SPC: at least 16), then for exactly the list. */
			exact = true;
			want = 16;
			continue;
		}
		if (r < 0)
			return r;
		r = luns_report_len(buf, res.len, &need);
		if (r < 0)
			return r;
		if (need <= want) {
			*ret_len = MIN(need, res.len);
			*ret_buf = TAKE_PTR(buf);
			return 0;
		}
		if (need > REPORT_LUNS_MAX)
			return -ENOBUFS;
		want = need;
	}
	return -EBADMSG;
}

static int io_read_capacity(void *userdata, int rootfd, const ScanLu *lu, unsigned timeout_ms,
                            uint64_t *ret_bytes, unsigned *commands)
{
	_cleanup_close_ int fd = -EBADF;
	uint8_t cdb16[16] = { 0x9e, 0x10 /* SERVICE ACTION: READ CAPACITY(16) */ };
	uint8_t cdb10[10] = { 0x25 };
	uint8_t buf[32] = {};
	SgioResult res = {};
	uint64_t last, bl;
	int r;

	fd = open_lu_node(rootfd, lu);
	if (fd < 0)
		return fd;

	unaligned_write_be32(cdb16 + 10, sizeof(buf));
	r = sgio_exec_retry(fd, cdb16, sizeof(cdb16), buf, sizeof(buf), timeout_ms, &res);
	*commands += res.commands;
	if (r >= 0 && res.len >= 12) {
		/* SBC-4 5.20.2: RETURNED LOGICAL BLOCK ADDRESS is the last LBA. */
		last = unaligned_read_be64(buf);
		bl = unaligned_read_be32(buf + 8);
	} else if (r == -EOPNOTSUPP) {
		res = (SgioResult){};
		r = sgio_exec_retry(fd, cdb10, sizeof(cdb10), buf, 8, timeout_ms, &res);
		*commands += res.commands;
		if (r < 0)
			return r;
		if (res.len < 8)
			return -EBADMSG;
		last = unaligned_read_be32(buf);
		bl = unaligned_read_be32(buf + 4);
	} else
		return r < 0 ? r : -EBADMSG;
	if (bl == 0 || last == UINT64_MAX || (last + 1) > UINT64_MAX / bl)
		return -EBADMSG;
	*ret_bytes = (last + 1) * bl;
	return 0;
}

static int io_inquiry(void *userdata, int rootfd, const ScanLu *lu, int page, size_t alloc,
                      unsigned timeout_ms, uint8_t **ret_buf, size_t *ret_len, unsigned *commands)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ uint8_t *buf = NULL;
	/* SPC 6.7.1: EVPD in byte 1, PAGE CODE in byte 2, ALLOCATION LENGTH in bytes 3-4. */
	uint8_t cdb[6] = { 0x12, page >= 0 ? 0x01 : 0x00, page >= 0 ? (uint8_t)page : 0 };
	SgioResult res = {};
	int r;

	if (alloc == 0 || alloc > UINT16_MAX || page > 0xff)
		return -EINVAL;
	fd = open_lu_node(rootfd, lu);
	if (fd < 0)
		return fd;
	buf = calloc(1, alloc);
	if (!buf)
		return -ENOMEM;
	unaligned_write_be16(cdb + 3, (uint16_t)alloc);
	r = sgio_exec_retry(fd, cdb, sizeof(cdb), buf, alloc, timeout_ms, &res);
	*commands += res.commands;
	if (r < 0)
		return r;
	*ret_len = MIN(res.len, alloc);
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

static int io_write_attr(void *userdata, int rootfd, const char *path, const char *value)
{
	return sysfs_write_attr(rootfd, path, value);
}

static int io_open_exclusive(void *userdata, int rootfd, const char *devname)
{
	char path[PATH_MAX];
	int fd;

	pathfmt(path, sizeof(path), "dev/%s", devname);
	fd = openat(rootfd, path, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

const ScanIo scan_io_default = {
	.report_luns = io_report_luns,
	.inquiry = io_inquiry,
	.read_capacity = io_read_capacity,
	.write_attr = io_write_attr,
	.open_exclusive = io_open_exclusive,
};

/* ---------------------------------------------------------------------------------------- */
/* sysfs inventory                                                                           */

static void scan_lu_done(ScanLu *lu)
{
	lu->sg = mfree(lu->sg);
	lu->block = mfree(lu->block);
}

static void scan_lus_free(ScanLu *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		scan_lu_done(&v[i]);
	free(v);
}

static int lu_cmp(const void *a, const void *b)
{
	const ScanLu *x = a, *y = b;

	return CMP(x->host, y->host) ?: CMP(x->channel, y->channel) ?:
               CMP(x->target, y->target) ?: CMP(x->lun, y->lun);
}

/* The LUs the kernel has instantiated on @host (and @channel/@target unless SCAN_ANY), sorted;
 * only the address is filled in (lu_details() reads the rest). */
static int list_lus(int rootfd, unsigned host, int64_t channel, int64_t target, ScanLu **ret,
                    size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	ScanLu *v = NULL;
	size_t n = 0, cap = 0;
	int fd;

	fd = openat(rootfd, "sys/bus/scsi/devices", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			return -errno;
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	d = fdopendir(fd);
	if (!d) {
		safe_close(fd);
		return -errno;
	}
	for (struct dirent *de; (de = readdir(d));) {
		unsigned h, c, t;
		uint64_t l;

		if (hctl_parse(de->d_name, &h, &c, &t, &l) < 0 || h != host)
			continue;
		if ((channel != SCAN_ANY && c != channel) || (target != SCAN_ANY && t != target))
			continue;
		if (n == cap) {
			ScanLu *nv = reallocarray(v, cap ? cap * 2 : 16, sizeof(*v));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap = cap ? cap * 2 : 16;
		}
		v[n] = (ScanLu){ .host = h, .channel = c, .target = t, .lun = l, .type = -1 };
		snprintf(v[n].hctl, sizeof(v[n].hctl), "%u:%u:%u:%" PRIu64, h, c, t, l);
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), lu_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int lu_details(int rootfd, ScanLu *lu)
{
	char path[PATH_MAX];
	uint64_t type;

	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/type", lu->hctl);
	if (sysfs_read_u64(rootfd, path, &type) >= 0 && type <= 0x1f)
		lu->type = (int)type;
	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/scsi_generic", lu->hctl);
	if (!lu->sg)
		(void)sysfs_first_entry(rootfd, path, NULL, &lu->sg);
	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/block", lu->hctl);
	if (!lu->block)
		(void)sysfs_first_entry(rootfd, path, NULL, &lu->block);
	return 0;
}

static bool lu_exists(int rootfd, unsigned h, unsigned c, unsigned t, uint64_t l)
{
	char path[PATH_MAX];

	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%u:%u:%u:%" PRIu64, h, c, t, l);
	return faccessat(rootfd, path, F_OK, 0) >= 0;
}

/* ---------------------------------------------------------------------------------------- */
/* the scan                                                                                  */

typedef struct TargetJob {
	ScanTarget t;
	/* The target's LUs from its host's listing, taken after the host's target probes, so
	 * the target job need not list sysfs again (one listing per host, not per target). */
	ScanLu *lus;
	size_t n_lus;
	bool listed;
} TargetJob;

typedef struct Job {
	bool is_host;
	size_t index; /* into hosts[] or targets[] */
} Job;

typedef struct Scan {
	const ScanContext *ctx;
	const ScanIo *io;
	ScanPolicy pol;
	ScanFlags flags;
	const ScanSelector *sel;
	size_t n_sel;
	int rootfd;

	pthread_mutex_t lock;
	pthread_cond_t cond;

	ScanHost *hosts;
	size_t n_hosts;
	TargetJob **targets;
	size_t n_targets, cap_targets;
	ScanAction *actions;
	size_t n_actions, cap_actions;

	Job *queue;
	size_t q_head, q_len, q_cap;
	unsigned running;
	unsigned targets_done;
	unsigned commands;
	int fatal; /* ENOMEM and the like while queueing */

	/* LUs a target probe instantiated: added by this scan, so not "unchanged" later. */
	char (*probe_added)[64];
	size_t n_probe_added;
} Scan;

static bool was_probe_added(Scan *s, const char *hctl)
{
	bool found = false;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n_probe_added && !found; i++)
		found = streq(s->probe_added[i], hctl);
	pthread_mutex_unlock(&s->lock);
	return found;
}

static void emit_locked(Scan *s, ScanEvent *ev)
{
	if (!s->ctx->event)
		return;
	ev->targets_done = s->targets_done;
	ev->targets_total = (unsigned)s->n_targets;
	ev->hosts_total = (unsigned)s->n_hosts;
	s->ctx->event(s->ctx->event_userdata, ev);
}

static void _printf_(2, 3) debug(Scan *s, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!s->ctx->event)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&s->lock);
	emit_locked(s, &(ScanEvent){ .kind = SCAN_EVENT_DEBUG, .message = msg });
	pthread_mutex_unlock(&s->lock);
}

static int record_action(Scan *s, const ScanAction *a)
{
	int r = 0;

	pthread_mutex_lock(&s->lock);
	if (s->n_actions == s->cap_actions) {
		size_t cap = s->cap_actions ? s->cap_actions * 2 : 32;
		ScanAction *v = reallocarray(s->actions, cap, sizeof(*v));

		if (!v) {
			r = s->fatal = -ENOMEM;
			goto out;
		}
		s->actions = v;
		s->cap_actions = cap;
	}
	s->actions[s->n_actions++] = *a;
	emit_locked(s, &(ScanEvent){ .kind = SCAN_EVENT_ACTION, .action = a });
out:
	pthread_mutex_unlock(&s->lock);
	return r;
}

static int push_job_locked(Scan *s, Job j)
{
	if (s->q_head + s->q_len == s->q_cap) {
		if (s->q_head > 0) {
			memmove(s->queue, s->queue + s->q_head, s->q_len * sizeof(Job));
			s->q_head = 0;
		} else {
			size_t cap = s->q_cap ? s->q_cap * 2 : 64;
			Job *v = reallocarray(s->queue, cap, sizeof(Job));

			if (!v)
				return s->fatal = -ENOMEM;
			s->queue = v;
			s->q_cap = cap;
		}
	}
	s->queue[s->q_head + s->q_len++] = j;
	pthread_cond_broadcast(&s->cond);
	return 0;
}

static void action_init(ScanAction *a, ScanActionKind kind, const ScanLu *lu)
{
	*a = (ScanAction){ .kind = kind };
	if (lu) {
		a->host = lu->host;
		a->channel = lu->channel;
		a->target = lu->target;
		a->lun = lu->lun;
		snprintf(a->hctl, sizeof(a->hctl), "%s", lu->hctl);
	}
}

/* Write (unless a dry run) and record. */
static int apply(Scan *s, ScanAction *a)
{
	if (!(s->flags & SCAN_DRY_RUN) && a->path[0]) {
		a->error = s->io->write_attr(s->ctx->io_userdata, s->rootfd, a->path, a->value);
		a->applied = a->error >= 0;
	}
	return record_action(s, a);
}

/* --- transports ---------------------------------------------------------------------------- */

typedef struct TargetAddr {
	unsigned channel, target;
	const char *source;
} TargetAddr;

typedef struct TargetSet {
	TargetAddr *v;
	size_t n, cap;
	bool unresolved; /* a transport entry of this host whose target id we could not read */
} TargetSet;

static int target_set_add(TargetSet *ts, unsigned c, unsigned t, const char *source)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->v[i].channel == c && ts->v[i].target == t)
			return 0;
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 16;
		TargetAddr *v = reallocarray(ts->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		ts->v = v;
		ts->cap = cap;
	}
	ts->v[ts->n++] = (TargetAddr){ c, t, source };
	return 0;
}

static int read_int_attr(int rootfd, const char *dir, const char *name, const char *attr,
                         int64_t *ret)
{
	_cleanup_free_ char *str = NULL;
	char path[PATH_MAX], *end;
	long long v;
	int r;

	pathfmt(path, sizeof(path), "%s/%s/%s", dir, name, attr);
	r = sysfs_read_string(rootfd, path, &str);
	if (r < 0)
		return r;
	errno = 0;
	v = strtoll(str, &end, 10);
	if (errno != 0 || end == str || *end != 0)
		return -EBADMSG;
	*ret = v;
	return 0;
}

/* Host number of a class device, from its "device" link (…/hostH/…). */
static int host_of_link(int rootfd, const char *dir, const char *name, unsigned *ret)
{
	char path[PATH_MAX], target[4096];
	const char *p;
	ssize_t k;

	pathfmt(path, sizeof(path), "%s/%s/device", dir, name);
	k = readlinkat(rootfd, path, target, sizeof(target) - 1);
	if (k < 0)
		return -errno;
	target[k] = 0;
	for (p = target; (p = strstr(p, "/host")); p++) {
		unsigned h;
		char c;

		if (sscanf(p, "/host%u%c", &h, &c) == 2 && c == '/') {
			*ret = h;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Targets the transport classes know on @host:
 *   sas_end_device/end_device-H:...  + sas_device/<same>/scsi_target_id, channel 0;
 *   fc_remote_ports/rport-H:C-N      scsi_target_id (-1: not a target), port_state Online;
 *   iscsi_session/sessionN           device link into hostH, target_id, channel 0.
 */
static int transport_targets(Scan *s, unsigned host, TargetSet *ts)
{
	static const char *const classes[] = { "sys/class/sas_end_device",
		                               "sys/class/fc_remote_ports",
		                               "sys/class/iscsi_session" };

	for (size_t k = 0; k < ELEMENTSOF(classes); k++) {
		_cleanup_(closedirp) DIR *d = NULL;
		int fd;

		fd = openat(s->rootfd, classes[k], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		d = fdopendir(fd);
		if (!d) {
			safe_close(fd);
			continue;
		}
		for (struct dirent *de; (de = readdir(d));) {
			unsigned h = 0, c = 0, n;
			int64_t id;
			char extra;
			int r;

			if (de->d_name[0] == '.')
				continue;
			if (k == 0) {
				if (sscanf(de->d_name, "end_device-%u:%c", &h, &extra) != 2 ||
				    h != host)
					continue;
				r = read_int_attr(s->rootfd, "sys/class/sas_device", de->d_name,
				                  "scsi_target_id", &id);
			} else if (k == 1) {
				if (sscanf(de->d_name, "rport-%u:%u-%u", &h, &c, &n) != 3 ||
				    h != host)
					continue;
				_cleanup_free_ char *state = NULL;
				char path[PATH_MAX];

				pathfmt(path, sizeof(path), "%s/%s/port_state", classes[k],
				        de->d_name);
				if (sysfs_read_string(s->rootfd, path, &state) >= 0 &&
				    !streq(state, "Online"))
					continue;
				r = read_int_attr(s->rootfd, classes[k], de->d_name,
				                  "scsi_target_id", &id);
				if (r >= 0 && id < 0)
					continue; /* an initiator-only remote port */
			} else {
				if (host_of_link(s->rootfd, classes[k], de->d_name, &h) < 0 ||
				    h != host)
					continue;
				r = read_int_attr(s->rootfd, classes[k], de->d_name, "target_id",
				                  &id);
			}
			if (r < 0 || id < 0 || id > UINT32_MAX) {
				debug(s, "host%u: %s: no usable target id, probing the whole host",
				      host, de->d_name);
				ts->unresolved = true;
				continue;
			}
			r = target_set_add(ts, c, (unsigned)id,
			                   k == 0   ? "sas"
			                   : k == 1 ? "fc"
			                            : "iscsi");
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* --- in-use checks ----------------------------------------------------------------------- */

/* The "maj:min" of the block device and of its partitions. */
static int block_devs(int rootfd, const char *syslu, const char *block, char ***ret, size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char path[PATH_MAX];
	char **v = NULL;
	size_t n = 0;
	int fd;

	pathfmt(path, sizeof(path), "%s/block/%s", syslu, block);
	fd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		safe_close(fd);
		return -errno;
	}
	v = calloc(1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	v[n++] = strdup(block);
	for (struct dirent *de; (de = readdir(d));) {
		char p2[PATH_MAX];
		char **nv;

		if (de->d_name[0] == '.' || !strneq(de->d_name, block, strlen(block)))
			continue;
		pathfmt(p2, sizeof(p2), "%s/%s/partition", path, de->d_name);
		if (faccessat(rootfd, p2, F_OK, 0) < 0)
			continue;
		nv = reallocarray(v, n + 1, sizeof(char *));
		if (!nv)
			break;
		v = nv;
		v[n++] = strdup(de->d_name);
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

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

/* 0 when @lu may be removed; -EBUSY with @why otherwise. */
static int lu_in_use(Scan *s, const ScanLu *lu, char *why, size_t why_size)
{
	char syslu[128];
	char **devs = NULL;
	size_t n = 0;
	int r = 0;

	if (!lu->block)
		return 0; /* no block device: nothing can mount or hold it */
	snprintf(syslu, sizeof(syslu), "sys/bus/scsi/devices/%s", lu->hctl);
	if (block_devs(s->rootfd, syslu, lu->block, &devs, &n) < 0)
		return 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		_cleanup_free_ char *devnum = NULL;
		char path[PATH_MAX];

		if (!devs[i])
			continue;
		char dir[PATH_MAX];

		if (i == 0)
			pathfmt(dir, sizeof(dir), "%s/block/%s", syslu, lu->block);
		else
			pathfmt(dir, sizeof(dir), "%s/block/%s/%s", syslu, lu->block, devs[i]);
		pathfmt(path, sizeof(path), "%s/holders", dir);
		if (dir_has_entries(s->rootfd, path)) {
			snprintf(why, why_size, "%s has holders", devs[i]);
			r = -EBUSY;
			break;
		}
		pathfmt(path, sizeof(path), "%s/dev", dir);
		if (sysfs_read_string(s->rootfd, path, &devnum) >= 0 &&
		    mounted(s->rootfd, devnum)) {
			snprintf(why, why_size, "%s is mounted", devs[i]);
			r = -EBUSY;
			break;
		}
		if (s->io->open_exclusive(s->ctx->io_userdata, s->rootfd, devs[i]) == -EBUSY) {
			snprintf(why, why_size, "%s is open exclusively", devs[i]);
			r = -EBUSY;
		}
	}
	strv_free_n(devs, n);
	return r;
}

/* --- hosts -------------------------------------------------------------------------------- */

static bool host_has_target(const ScanLu *lus, size_t n, unsigned c, unsigned t)
{
	for (size_t i = 0; i < n; i++)
		if (lus[i].channel == c && lus[i].target == t)
			return true;
	return false;
}

static void probe_action(ScanAction *a, unsigned host, const char *c, const char *t, const char *l,
                         const char *reason)
{
	*a = (ScanAction){ .kind = SCAN_ACTION_PROBE, .host = host };
	snprintf(a->path, sizeof(a->path), "sys/class/scsi_host/host%u/scan", host);
	snprintf(a->value, sizeof(a->value), "%s %s %s", c, t, l);
	snprintf(a->hctl, sizeof(a->hctl), "%u:%s:%s:%s", host, c, t, l);
	snprintf(a->reason, sizeof(a->reason), "%s", reason);
}

/* @lus/@n: the host's listing (sorted), from which the target's own LUs are taken. */
static int queue_target_locked(Scan *s, unsigned host, unsigned c, unsigned t, const char *src,
                               const ScanLu *lus, size_t n)
{
	TargetJob *tj;
	size_t first = n, count = 0;

	for (size_t i = 0; i < s->n_targets; i++) {
		ScanTarget *x = &s->targets[i]->t;

		if (x->host == host && x->channel == c && x->target == t)
			return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (lus[i].channel == c && lus[i].target == t) {
			if (first == n)
				first = i;
			count++;
		}
	if (s->n_targets == s->cap_targets) {
		size_t cap = s->cap_targets ? s->cap_targets * 2 : 32;
		TargetJob **v = reallocarray(s->targets, cap, sizeof(*v));

		if (!v)
			return s->fatal = -ENOMEM;
		s->targets = v;
		s->cap_targets = cap;
	}
	tj = calloc(1, sizeof(*tj));
	if (!tj)
		return s->fatal = -ENOMEM;
	tj->t = (ScanTarget){ .host = host, .channel = c, .target = t };
	snprintf(tj->t.hctl, sizeof(tj->t.hctl), "%u:%u:%u", host, c, t);
	if (count > 0) {
		/* sorted by address: one target's LUs are adjacent */
		tj->lus = calloc(count, sizeof(*tj->lus));
		if (!tj->lus) {
			free(tj);
			return s->fatal = -ENOMEM;
		}
		for (size_t i = 0; i < count; i++)
			tj->lus[i] = (ScanLu){ .host = lus[first + i].host,
				               .channel = lus[first + i].channel,
				               .target = lus[first + i].target,
				               .lun = lus[first + i].lun,
				               .type = -1 };
		for (size_t i = 0; i < count; i++)
			memcpy(tj->lus[i].hctl, lus[first + i].hctl, sizeof(tj->lus[i].hctl));
		tj->n_lus = count;
	}
	tj->listed = true;
	snprintf(tj->t.source, sizeof(tj->t.source), "%s", src);
	s->targets[s->n_targets++] = tj;
	return push_job_locked(s, (Job){ .is_host = false, .index = s->n_targets - 1 });
}

static void run_host(Scan *s, ScanHost *host)
{
	TargetSet ts = {};
	ScanLu *lus = NULL;
	size_t n_lus = 0;
	int r;

	pthread_mutex_lock(&s->lock);
	emit_locked(s, &(ScanEvent){ .kind = SCAN_EVENT_HOST_BEGIN, .host = host });
	pthread_mutex_unlock(&s->lock);

	r = transport_targets(s, host->host, &ts);
	if (r < 0)
		goto fail;
	r = list_lus(s->rootfd, host->host, SCAN_ANY, SCAN_ANY, &lus, &n_lus);
	if (r < 0)
		goto fail;

	/*
	 * Finding targets: LUN 0 of each target is what the kernel needs to instantiate before
	 * anyone can send REPORT LUNS. Transport targets are probed one by one (only those with
	 * no LU yet); parallel and virtual HBAs get one "C T 0" with wildcards, so the kernel
	 * bounds the walk by the host's own max_channel/max_id, which sysfs does not show.
	 */
	if (s->flags & SCAN_ADD) {
		bool whole = ts.unresolved || ts.n == 0;
		bool sel_target = false;
		ScanAction a;

		/* One selector naming H:C:T exactly: probe just that target. */
		for (size_t i = 0; i < s->n_sel; i++)
			if (s->sel[i].host == host->host && s->sel[i].channel != SCAN_ANY &&
			    s->sel[i].target != SCAN_ANY)
				sel_target = true;

		if (sel_target) {
			for (size_t i = 0; i < s->n_sel; i++) {
				const ScanSelector *x = &s->sel[i];
				char c[24], t[24];

				if (x->host != host->host || x->channel == SCAN_ANY ||
				    x->target == SCAN_ANY ||
				    host_has_target(lus, n_lus, (unsigned)x->channel,
				                    (unsigned)x->target))
					continue;
				snprintf(c, sizeof(c), "%" PRId64, x->channel);
				snprintf(t, sizeof(t), "%" PRId64, x->target);
				probe_action(&a, host->host, c, t, "0",
				             "selected target has no LU");
				(void)apply(s, &a);
				if (a.error < 0)
					host->error = a.error;
			}
		} else if (whole) {
			probe_action(&a, host->host, "-", "-", "0",
			             "find targets: LUN 0 of every target the host allows");
			(void)apply(s, &a);
			if (a.error < 0)
				host->error = a.error;
		} else {
			for (size_t i = 0; i < ts.n; i++) {
				char c[16], t[16], why[64];

				if (host_has_target(lus, n_lus, ts.v[i].channel, ts.v[i].target) ||
				    !sel_match(s->sel, s->n_sel, host->host, ts.v[i].channel,
				               ts.v[i].target, SCAN_ANY))
					continue;
				snprintf(c, sizeof(c), "%u", ts.v[i].channel);
				snprintf(t, sizeof(t), "%u", ts.v[i].target);
				snprintf(why, sizeof(why), "%s target without LU", ts.v[i].source);
				probe_action(&a, host->host, c, t, "0", why);
				(void)apply(s, &a);
				if (a.error < 0)
					host->error = a.error;
			}
		}
		if (!(s->flags & SCAN_DRY_RUN)) {
			ScanLu *before = lus;
			size_t n_before = n_lus;

			lus = NULL;
			r = list_lus(s->rootfd, host->host, SCAN_ANY, SCAN_ANY, &lus, &n_lus);
			if (r < 0) {
				scan_lus_free(before, n_before);
				goto fail;
			}
			/* What the target probe instantiated was added by this scan: count it
			 * as such (the probe's own write is the action that added it). */
			/* both listings are sorted by address: walk them side by side */
			for (size_t i = 0, k = 0; i < n_lus; i++) {
				while (k < n_before && lu_cmp(&before[k], &lus[i]) < 0)
					k++;
				if (k < n_before && lu_cmp(&before[k], &lus[i]) == 0)
					continue;
				a = (ScanAction){
					.kind = SCAN_ACTION_ADD,
					.host = lus[i].host,
					.channel = lus[i].channel,
					.target = lus[i].target,
					.lun = lus[i].lun,
					.applied = true,
				};
				snprintf(a.hctl, sizeof(a.hctl), "%s", lus[i].hctl);
				snprintf(a.reason, sizeof(a.reason), "%s",
				         "new target, instantiated by the target probe");
				pthread_mutex_lock(&s->lock);
				{
					char(*v)[64] = reallocarray(
					        s->probe_added, s->n_probe_added + 1, sizeof(*v));

					if (v) {
						s->probe_added = v;
						snprintf(v[s->n_probe_added++], sizeof(*v), "%s",
						         lus[i].hctl);
					} else
						s->fatal = -ENOMEM;
				}
				pthread_mutex_unlock(&s->lock);
				(void)record_action(s, &a);
			}
			scan_lus_free(before, n_before);
		}
	}

	pthread_mutex_lock(&s->lock);
	/* transport targets first, so that they keep the name of their transport */
	for (size_t i = 0; i < ts.n; i++)
		if (sel_match(s->sel, s->n_sel, host->host, ts.v[i].channel, ts.v[i].target,
		              SCAN_ANY))
			(void)queue_target_locked(s, host->host, ts.v[i].channel, ts.v[i].target,
			                          ts.v[i].source, lus, n_lus);
	for (size_t i = 0; i < n_lus; i++)
		if (sel_match(s->sel, s->n_sel, host->host, lus[i].channel, lus[i].target,
		              SCAN_ANY))
			(void)queue_target_locked(s, host->host, lus[i].channel, lus[i].target,
			                          "sysfs", lus, n_lus);
	pthread_mutex_unlock(&s->lock);
	scan_lus_free(lus, n_lus);
	free(ts.v);
	return;
fail:
	host->error = r;
	scan_lus_free(lus, n_lus);
	free(ts.v);
}

/* --- targets ------------------------------------------------------------------------------ */

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

/* @reported: the target listed @lun, so an LU the kernel does not instantiate is a failure;
 * otherwise (a sequential probe) it only means there is no such LU. Returns whether it exists. */
static bool add_lu(Scan *s, ScanTarget *t, uint64_t lun, bool reported, const char *reason)
{
	ScanLu lu = { .host = t->host, .channel = t->channel, .target = t->target, .lun = lun };
	ScanAction a;

	snprintf(lu.hctl, sizeof(lu.hctl), "%u:%u:%u:%" PRIu64, t->host, t->channel, t->target,
	         lun);
	action_init(&a, SCAN_ACTION_ADD, &lu);
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
		if (a.applied && !lu_exists(s->rootfd, t->host, t->channel, t->target, lun)) {
			if (reported)
				a.error = -ENODEV;
			else {
				a.kind = SCAN_ACTION_PROBE;
				snprintf(a.reason, sizeof(a.reason), "%s: no LU", reason);
			}
		}
	}
	(void)record_action(s, &a);
	return a.kind == SCAN_ACTION_ADD && a.error >= 0;
}

/* Does a selector cover every LUN of this target (no selector names a single LUN of it)? */
static bool whole_target_selected(const Scan *s, const ScanTarget *t)
{
	bool any = false;

	if (s->n_sel == 0)
		return true;
	for (size_t i = 0; i < s->n_sel; i++) {
		const ScanSelector *x = &s->sel[i];

		if ((x->host != SCAN_ANY && x->host != t->host) ||
		    (x->channel != SCAN_ANY && x->channel != t->channel) ||
		    (x->target != SCAN_ANY && x->target != t->target))
			continue;
		if (x->lun == SCAN_ANY)
			any = true;
	}
	return any;
}

/*
 * add_reported_batch() - several reported LUNs are missing and the whole target is ours to
 * scan: one "C T -" lets the kernel add them all from its own REPORT LUNS in one pass under one
 * scan lock, as its wildcard scan does, instead of one write (and one lock round) per LUN.
 * Each LUN is then checked and recorded; one the kernel did not add (its max_lun, a blacklist
 * flag) gets its own write through add_lu(), which reports why.
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
		    (r < 0 || !lu_exists(s->rootfd, t->host, t->channel, t->target, luns[i]))) {
			add_lu(s, t, luns[i], true, "reported, not added by the target scan");
			continue;
		}
		snprintf(lu.hctl, sizeof(lu.hctl), "%u:%u:%u:%" PRIu64, t->host, t->channel,
		         t->target, luns[i]);
		action_init(&a, SCAN_ACTION_ADD, &lu);
		snprintf(a.path, sizeof(a.path), "%s", path);
		snprintf(a.value, sizeof(a.value), "%s", value);
		snprintf(a.reason, sizeof(a.reason), "%s",
		         "reported, not instantiated (one target scan)");
		a.applied = !(s->flags & SCAN_DRY_RUN);
		(void)record_action(s, &a);
	}
}

static void remove_or_keep(Scan *s, ScanLu *lu, const char *reason)
{
	char why[96] = "";
	ScanAction a;

	lu_details(s->rootfd, lu);
	if (!(s->flags & SCAN_REMOVE)) {
		action_init(&a, SCAN_ACTION_KEEP, lu);
		snprintf(a.reason, sizeof(a.reason), "%s; removal not requested", reason);
		(void)record_action(s, &a);
		return;
	}
	if (!(s->flags & SCAN_FORCE) && lu_in_use(s, lu, why, sizeof(why)) < 0) {
		action_init(&a, SCAN_ACTION_KEEP, lu);
		snprintf(a.reason, sizeof(a.reason), "%s; kept: %s", reason, why);
		(void)record_action(s, &a);
		return;
	}
	action_init(&a, SCAN_ACTION_REMOVE, lu);
	snprintf(a.path, sizeof(a.path), "sys/bus/scsi/devices/%s/delete", lu->hctl);
	snprintf(a.value, sizeof(a.value), "1");
	snprintf(a.reason, sizeof(a.reason), "%s%s", reason,
	         (s->flags & SCAN_FORCE) ? " (forced)" : "");
	(void)apply(s, &a);
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

	lu_details(s->rootfd, lu);
	if (!lu->block || !type_has_capacity(lu->type))
		return false;
	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/block/%s/size", lu->hctl, lu->block);
	if (sysfs_read_u64(s->rootfd, path, &sectors) < 0)
		return false;
	r = s->io->read_capacity(s->ctx->io_userdata, s->rootfd, lu, s->pol.timeout_ms, &bytes,
	                         &cmds);
	t->commands += cmds;
	if (r < 0) {
		action_init(&a, SCAN_ACTION_RESIZE, lu);
		a.error = r;
		snprintf(a.reason, sizeof(a.reason), "READ CAPACITY failed");
		(void)record_action(s, &a);
		return false;
	}
	/* The block layer counts 512-byte sectors whatever the logical block size. */
	if (bytes == sectors * 512)
		return false;
	action_init(&a, SCAN_ACTION_RESIZE, lu);
	a.old_size = sectors * 512;
	a.new_size = bytes;
	snprintf(a.path, sizeof(a.path), "sys/bus/scsi/devices/%s/rescan", lu->hctl);
	snprintf(a.value, sizeof(a.value), "1");
	snprintf(a.reason, sizeof(a.reason), "capacity %" PRIu64 " bytes, block device %" PRIu64,
	         bytes, sectors * 512);
	(void)apply(s, &a);
	return true;
}

/* --- identity ------------------------------------------------------------------------------ */

/* Append @n bytes of a device string to @buf, quoted, non-printable bytes as \xNN. */
static void put_quoted(char *buf, size_t size, const char *str, size_t n)
{
	size_t k = strlen(buf);

	if (k + 1 < size)
		buf[k++] = '"';
	for (size_t i = 0; i < n && k + 5 < size; i++) {
		unsigned char c = (unsigned char)str[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			buf[k++] = (char)c;
		else
			k += (size_t)snprintf(buf + k, size - k, "\\x%02x", c);
	}
	if (k + 1 < size)
		buf[k++] = '"';
	buf[MIN(k, size - 1)] = 0;
}

/* Length of an INQUIRY string field without its trailing blanks. */
static size_t field_len(const char *p, size_t n)
{
	while (n > 0 && p[n - 1] == ' ')
		n--;
	return n;
}

/*
 * The INQUIRY strings of standard data @std (36 bytes) as the kernel keeps them: from a NUL on,
 * and every byte outside printable ASCII, a blank (scsi_probe_lun()'s sanitising). Comparing
 * the raw bytes would take a device padding with NULs for one whose identity changed.
 */
static void sanitize_strings(const uint8_t *std, char ret[36])
{
	static const struct {
		size_t off, len;
	} fields[] = { { 8, 8 }, { 16, 16 }, { 32, 4 } };

	memcpy(ret, std, 36);
	for (size_t f = 0; f < ELEMENTSOF(fields); f++) {
		bool ended = false;

		for (size_t i = fields[f].off; i < fields[f].off + fields[f].len; i++) {
			unsigned char c = (unsigned char)ret[i];

			ended |= c == 0;
			if (ended || c < 0x20 || c > 0x7e)
				ret[i] = ' ';
		}
	}
}

/* The kernel's cached VPD page @page of @lu (the sysfs binary attribute), or -ENOENT. */
static int cached_vpd(Scan *s, const ScanLu *lu, unsigned page, uint8_t **ret, size_t *ret_len)
{
	char path[PATH_MAX];

	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/vpd_pg%02x", lu->hctl, page);
	/* SPC: a VPD page is at most 4 + 65535 bytes. */
	return sysfs_read_attr(s->rootfd, path, 4u + UINT16_MAX, ret, ret_len);
}

static const struct {
	const char *attr; /* sysfs attribute of the kernel's copy */
	const char *name; /* in the reason */
	size_t off, len;  /* SPC 6.7.2: where the field is in standard INQUIRY data */
} inquiry_fields[] = {
	{ "vendor", "vendor", 8, 8 },
	{ "model", "model", 16, 16 },
	{ "rev", "revision", 32, 4 },
};

/* Does sysfs show another string than the sanitised INQUIRY strings @std show for field @i?
 * *ret_have gets the kernel's copy. An unreadable attribute compares equal. */
static bool field_differs(Scan *s, const ScanLu *lu, size_t i, const char std[36], char **ret_have)
{
	_cleanup_free_ char *have = NULL;
	const char *want = std + inquiry_fields[i].off;
	size_t wl = field_len(want, inquiry_fields[i].len), hl;
	char path[PATH_MAX];

	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/%s", lu->hctl, inquiry_fields[i].attr);
	if (sysfs_read_string(s->rootfd, path, &have) < 0)
		return false;
	hl = field_len(have, strnlen(have, inquiry_fields[i].len));
	if (hl == wl && memcmp(have, want, wl) == 0)
		return false;
	if (ret_have)
		*ret_have = TAKE_PTR(have);
	return true;
}

static bool strings_differ(Scan *s, const ScanLu *lu, const char std[36], size_t std_len)
{
	for (size_t i = 0; i < ELEMENTSOF(inquiry_fields) && std_len >= 36; i++)
		if (field_differs(s, lu, i, std, NULL))
			return true;
	return false;
}

/*
 * ids_check() - compare what the device says it is with what the kernel cached when it added
 * the LU: the standard INQUIRY strings with sysfs vendor/model/rev, and VPD page 0x83 (0x80 when
 * the kernel has no 0x83) with the sysfs copy, byte for byte. Two commands per LU; nothing when
 * the kernel cached no page and the strings are equal. On a difference: "1" > rescan (the kernel
 * re-reads its VPD pages, scsi_rescan_device()), then a "change" uevent so that the names follow.
 * Returns true when it planned or applied a rescan.
 */
static bool ids_check(Scan *s, ScanTarget *t, ScanLu *lu)
{
	_cleanup_free_ uint8_t *std = NULL, *cached = NULL, *fresh = NULL;
	size_t std_len = 0, cached_len = 0, fresh_len = 0;
	char diff[sizeof(((ScanAction *)NULL)->reason)] = "", strs[36] = "";
	unsigned page = 0x83, cmds = 0;
	bool vpd_changed = false, strings_changed = false;
	ScanAction a;
	int r;

	if (!s->io->inquiry)
		return false;
	lu_details(s->rootfd, lu);

	/* SPC 6.7.2: the strings end at byte 35; ask for exactly the 36 bytes every device has. */
	r = s->io->inquiry(s->ctx->io_userdata, s->rootfd, lu, -1, 36, s->pol.timeout_ms, &std,
	                   &std_len, &cmds);
	t->commands += cmds;
	if (r < 0) {
		action_init(&a, SCAN_ACTION_REIDENTIFY, lu);
		a.error = r;
		snprintf(a.reason, sizeof(a.reason), "INQUIRY failed");
		(void)record_action(s, &a);
		return false;
	}
	if (std_len >= 36)
		sanitize_strings(std, strs);
	for (size_t i = 0; i < ELEMENTSOF(inquiry_fields) && std_len >= 36; i++) {
		_cleanup_free_ char *have = NULL;
		const char *want = strs + inquiry_fields[i].off;
		size_t wl = field_len(want, inquiry_fields[i].len), hl;

		if (!field_differs(s, lu, i, strs, &have))
			continue;
		hl = field_len(have, strnlen(have, inquiry_fields[i].len));
		strings_changed = true;
		snprintf(diff + strlen(diff), sizeof(diff) - strlen(diff), "%s%s ",
		         diff[0] ? ", " : "", inquiry_fields[i].name);
		put_quoted(diff, sizeof(diff), have, hl);
		snprintf(diff + strlen(diff), sizeof(diff) - strlen(diff), " -> ");
		put_quoted(diff, sizeof(diff), want, wl);
	}

	r = cached_vpd(s, lu, page, &cached, &cached_len);
	if (r == -ENOENT) {
		page = 0x80;
		r = cached_vpd(s, lu, page, &cached, &cached_len);
	}
	if (r >= 0 && cached_len >= 4) {
		/* Ask for as many bytes as the kernel holds: a longer page shows in its header,
		 * a shorter one in the length received. */
		cmds = 0;
		r = s->io->inquiry(s->ctx->io_userdata, s->rootfd, lu, (int)page,
		                   MIN(cached_len, (size_t)UINT16_MAX), s->pol.timeout_ms, &fresh,
		                   &fresh_len, &cmds);
		t->commands += cmds;
		if (r >= 0 && (fresh_len < 4 || fresh[1] != page))
			r = -EBADMSG; /* SPC 7.8.1: byte 1 is the PAGE CODE */
		if (r < 0) {
			action_init(&a, SCAN_ACTION_REIDENTIFY, lu);
			a.error = r;
			snprintf(a.reason, sizeof(a.reason), "INQUIRY VPD page 0x%02x failed",
			         page);
			(void)record_action(s, &a);
			return false;
		}
		if (fresh_len != cached_len || memcmp(fresh, cached, cached_len) != 0) {
			vpd_changed = true;
			snprintf(diff + strlen(diff), sizeof(diff) - strlen(diff),
			         "%sVPD page 0x%02x", diff[0] ? ", " : "", page);
		}
	}
	if (!vpd_changed && !strings_changed)
		return false;

	action_init(&a, SCAN_ACTION_REIDENTIFY, lu);
	snprintf(a.path, sizeof(a.path), "sys/bus/scsi/devices/%s/rescan", lu->hctl);
	snprintf(a.value, sizeof(a.value), "1");
	snprintf(a.reason, sizeof(a.reason), "ids changed: %s", diff);
	if (!(s->flags & SCAN_DRY_RUN)) {
		a.error = s->io->write_attr(s->ctx->io_userdata, s->rootfd, a.path, a.value);
		a.applied = a.error >= 0;
	}
	if (a.applied) {
		_cleanup_free_ uint8_t *now = NULL;
		size_t now_len = 0;
		char path[PATH_MAX];
		int k;

		/* Tell whoever names devices: lund re-derives the LU's IDs on this one (the
		 * kernel sends no event of its own for a rescan), udev re-runs its rules on the
		 * block device. SYNTH_UUID is required before arguments; any valid one does. */
		pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/uevent", lu->hctl);
		k = s->io->write_attr(s->ctx->io_userdata, s->rootfd, path,
		                      "change 00000000-0000-0000-0000-000000000000 LUND=ids");
		if (k < 0)
			debug(s, "%s: synthetic change uevent: %s", lu->hctl, strerror(-k));
		if (lu->block) {
			pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/block/%s/uevent",
			        lu->hctl, lu->block);
			k = s->io->write_attr(s->ctx->io_userdata, s->rootfd, path, "change");
			if (k < 0)
				debug(s, "%s: change uevent of %s: %s", lu->hctl, lu->block,
				      strerror(-k));
		}
		/* What the kernel holds now: say so when the rescan did not bring it in line. */
		if (vpd_changed && cached_vpd(s, lu, page, &now, &now_len) >= 0 &&
		    (now_len != fresh_len || memcmp(now, fresh, fresh_len) != 0))
			snprintf(a.reason + strlen(a.reason), sizeof(a.reason) - strlen(a.reason),
			         "; the kernel's VPD cache still differs");
		if (strings_changed && strings_differ(s, lu, strs, std_len))
			snprintf(a.reason + strlen(a.reason), sizeof(a.reason) - strlen(a.reason),
			         "; the kernel still shows the old INQUIRY strings (Linux 6.1 "
			         "reads them when it adds the LU)");
	}
	(void)record_action(s, &a);
	return true;
}

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
	bool changed = false;

	if (s->flags & SCAN_RESIZE)
		changed |= resize_check(s, t, lu);
	if (s->flags & SCAN_IDS)
		changed |= ids_check(s, t, lu);
	if (changed && !was_probe_added(s, lu->hctl) && t->unchanged > 0)
		t->unchanged--; /* counted as resized or reidentified instead */
}

/*
 * Like the kernel's sequential scan (scsi_sequential_lun_scan()): LUN 1 on, below @max_lun,
 * stopping at the first LUN that does not appear unless @sparse. An LU the kernel already has
 * is passed over, not taken for the end. Never removes anything: there is no authoritative list.
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
		if (!scan_lun_is_wlun(lus[i].lun) && !was_probe_added(s, lus[i].hctl))
			t->unchanged++;
	for (size_t i = 0; i < n; i++)
		if (!scan_lun_is_wlun(lus[i].lun) &&
		    sel_match(s->sel, s->n_sel, t->host, t->channel, t->target,
		              (int64_t)lus[i].lun))
			check_lu(s, t, &lus[i]);
	if (!(s->flags & SCAN_ADD))
		return;
	for (uint64_t l = 1; l < max_lun; l++) {
		if (!sel_match(s->sel, s->n_sel, t->host, t->channel, t->target, (int64_t)l))
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
		p[field_len(p, strlen(p))] = 0;
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
	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/vendor", via->hctl);
	(void)sysfs_read_string(s->rootfd, path, &vendor);
	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/model", via->hctl);
	(void)sysfs_read_string(s->rootfd, path, &model);
	pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/rev", via->hctl);
	(void)sysfs_read_string(s->rootfd, path, &rev);
	trim_field(vendor);
	trim_field(model);
	trim_field(rev);
	r = s->pol.quirk(s->pol.userdata, via->type, vendor ?: "", model ?: "", rev ?: "", &q);
	if (r < 0)
		debug(s, "%s: scan quirk lookup: %s%s", t->hctl, strerror(-r),
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
		         "REPORT LUNS: response shorter than its header, or a list that changed "
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

static void run_target(Scan *s, TargetJob *tj)
{
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_free_ uint64_t *rep = NULL;
	ScanTarget *t = &tj->t;
	ScanLu *lus = NULL, *via = NULL;
	size_t n = 0, n_rep = 0, len = 0;
	int r;

	if (tj->listed) {
		lus = TAKE_PTR(tj->lus);
		n = tj->n_lus;
		tj->n_lus = 0;
	} else {
		r = list_lus(s->rootfd, t->host, t->channel, t->target, &lus, &n);
		if (r < 0) {
			t->error = r;
			goto done;
		}
	}

	/* Where REPORT LUNS goes: LUN 0 (SPC requires it there), the REPORT LUNS W-LUN, else
	 * any LU of the target (the inventory is per I_T nexus, not per LU). */
	for (size_t i = 0; i < n && !via; i++)
		if (lus[i].lun == 0)
			via = &lus[i];
	for (size_t i = 0; i < n && !via; i++)
		if (lus[i].lun == WLUN_REPORT_LUNS_LINUX)
			via = &lus[i];
	if (!via && n > 0)
		via = &lus[0];

	if (!via) {
		/* A transport target with no LU the kernel would instantiate at LUN 0: let the
		 * kernel scan the target itself (it can address a LUN 0 with PQ 1). */
		ScanAction a;

		t->method = SCAN_METHOD_KERNEL;
		if (!(s->flags & SCAN_ADD))
			goto done;
		probe_action(&a, t->host, "", "", "",
		             "no LU to send REPORT LUNS to: kernel target scan");
		snprintf(a.value, sizeof(a.value), "%u %u -", t->channel, t->target);
		snprintf(a.hctl, sizeof(a.hctl), "%s", t->hctl);
		(void)apply(s, &a);
		if (a.error < 0)
			t->error = a.error;
		goto done;
	}
	lu_details(s->rootfd, via);
	snprintf(t->via, sizeof(t->via), "%s", via->hctl);

	{
		ScanQuirk q;

		if (target_quirk(s, t, via, &q)) {
			/* The device is known to lack a usable REPORT LUNS: not even asked. */
			debug(s, "%s: scan quirk: sequential probe", t->hctl);
			run_sequential(s, t, lus, n, q.max_lun ?: s->pol.seq_max_lun, q.sparse,
			               "quirk: no REPORT LUNS");
			goto done;
		}
	}

	r = report_luns_retry(s, t, via, &buf, &len);
	if (r == -EOPNOTSUPP) {
		/* As the kernel does: a target refusing REPORT LUNS (ILLEGAL REQUEST: SCSI-2
		 * devices, ATAPI behind libata) is probed sequentially; nothing is ever removed
		 * there. */
		debug(s, "%s: REPORT LUNS not supported: sequential probe", t->hctl);
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

	if (s->flags & SCAN_ADD) {
		_cleanup_free_ uint64_t *missing = calloc(n_rep ?: 1, sizeof(*missing));
		size_t k = 0;

		if (!missing) {
			t->error = -ENOMEM;
			goto done;
		}
		for (size_t i = 0; i < n_rep; i++)
			if (sel_match(s->sel, s->n_sel, t->host, t->channel, t->target,
			              (int64_t)rep[i]) &&
			    !find_lun(lus, n, rep[i]))
				missing[k++] = rep[i];
		if (k >= 2 && whole_target_selected(s, t))
			add_reported_batch(s, t, missing, k);
		else
			for (size_t i = 0; i < k; i++)
				add_lu(s, t, missing[i], true, "reported, not instantiated");
	}
	for (size_t i = 0; i < n; i++) {
		if (!sel_match(s->sel, s->n_sel, t->host, t->channel, t->target,
		               (int64_t)lus[i].lun))
			continue;
		if (scan_lun_is_wlun(lus[i].lun))
			continue; /* never in a select-0 report; never removed */
		if (!lun_in(rep, n_rep, lus[i].lun)) {
			remove_or_keep(s, &lus[i], "not reported by REPORT LUNS");
			continue;
		}
		if (!was_probe_added(s, lus[i].hctl))
			t->unchanged++;
		check_lu(s, t, &lus[i]);
	}

done:
	scan_lus_free(lus, n);
	pthread_mutex_lock(&s->lock);
	s->targets_done++;
	s->commands += t->commands;
	emit_locked(s, &(ScanEvent){ .kind = SCAN_EVENT_TARGET_DONE, .target = t });
	pthread_mutex_unlock(&s->lock);
}

/* --- the pool ------------------------------------------------------------------------------ */

static void *worker(void *arg)
{
	Scan *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		Job j;

		while (s->q_len == 0 && s->running > 0)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->q_len == 0)
			break;
		j = s->queue[s->q_head++];
		s->q_len--;
		s->running++;
		pthread_mutex_unlock(&s->lock);

		if (j.is_host)
			run_host(s, &s->hosts[j.index]);
		else {
			TargetJob *tj;

			pthread_mutex_lock(&s->lock);
			tj = s->targets[j.index]; /* the pointer array may move, not *tj */
			pthread_mutex_unlock(&s->lock);
			run_target(s, tj);
		}

		pthread_mutex_lock(&s->lock);
		s->running--;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int list_hosts(Scan *s)
{
	_cleanup_(closedirp) DIR *d = NULL;
	int fd;

	fd = openat(s->rootfd, "sys/class/scsi_host", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		safe_close(fd);
		return -errno;
	}
	for (struct dirent *de; (de = readdir(d));) {
		_cleanup_free_ char *pn = NULL;
		char path[PATH_MAX], extra;
		unsigned h;
		ScanHost *v;

		if (sscanf(de->d_name, "host%u%c", &h, &extra) != 1)
			continue;
		if (!sel_match(s->sel, s->n_sel, h, SCAN_ANY, SCAN_ANY, SCAN_ANY))
			continue;
		v = reallocarray(s->hosts, s->n_hosts + 1, sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->hosts = v;
		v = &s->hosts[s->n_hosts++];
		*v = (ScanHost){ .host = h };
		pathfmt(path, sizeof(path), "sys/class/scsi_host/%s/proc_name", de->d_name);
		if (sysfs_read_string(s->rootfd, path, &pn) >= 0)
			snprintf(v->proc_name, sizeof(v->proc_name), "%s", pn);
	}
	return 0;
}

static int host_cmp(const void *a, const void *b)
{
	const ScanHost *x = a, *y = b;

	return CMP(x->host, y->host);
}

static int target_cmp(const void *a, const void *b)
{
	const ScanTarget *x = a, *y = b;

	return CMP(x->host, y->host) ?: CMP(x->channel, y->channel) ?: CMP(x->target, y->target);
}

static int action_cmp(const void *a, const void *b)
{
	const ScanAction *x = a, *y = b;

	/* probes first: they happen before anything else on the host */
	return CMP(x->host, y->host) ?:
               CMP(x->kind != SCAN_ACTION_PROBE, y->kind != SCAN_ACTION_PROBE) ?:
               CMP(x->channel, y->channel) ?: CMP(x->target, y->target) ?: CMP(x->lun, y->lun) ?:
               CMP(x->kind, y->kind);
}

static ScanHost *find_host(ScanHost *v, size_t n, unsigned h)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].host == h)
			return &v[i];
	return NULL;
}

int scan_run(const ScanContext *ctx, const ScanSelector *sel, size_t n_sel, ScanFlags flags,
             ScanResult *ret)
{
	Scan s = {
		.ctx = ctx,
		.flags = flags,
		.sel = sel,
		.n_sel = n_sel,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	ScanResult res = {};
	pthread_t *threads = NULL;
	unsigned n_threads = 0;
	int r;

	assert_return(ctx && ctx->rootfd >= 0, -EINVAL);
	assert_return(n_sel == 0 || sel, -EINVAL);
	assert_return(ret, -EINVAL);

	s.rootfd = ctx->rootfd;
	s.io = ctx->io ?: &scan_io_default;
	if (ctx->policy)
		s.pol = *ctx->policy;
	if (s.pol.timeout_ms == 0)
		s.pol.timeout_ms = SCAN_DEFAULT_TIMEOUT_MS;
	if (s.pol.max_workers == 0)
		s.pol.max_workers = SCAN_DEFAULT_WORKERS;
	if (s.pol.seq_max_lun == 0)
		s.pol.seq_max_lun = SCAN_DEFAULT_SEQ_MAX_LUN;

	r = list_hosts(&s);
	if (r < 0)
		goto out;
	if (s.n_hosts == 0) {
		r = -ENOENT;
		goto out;
	}
	qsort(s.hosts, s.n_hosts, sizeof(*s.hosts), host_cmp);
	for (size_t i = 0; i < s.n_hosts; i++) {
		r = push_job_locked(&s, (Job){ .is_host = true, .index = i });
		if (r < 0)
			goto out;
	}

	threads = calloc(s.pol.max_workers, sizeof(*threads));
	if (!threads) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < s.pol.max_workers; i++) {
		if (pthread_create(&threads[n_threads], NULL, worker, &s) != 0)
			break;
		n_threads++;
	}
	if (n_threads == 0)
		worker(&s); /* no thread at all: do it here, one job at a time */
	for (unsigned i = 0; i < n_threads; i++)
		pthread_join(threads[i], NULL);
	if (s.fatal < 0) {
		r = s.fatal;
		goto out;
	}

	/* Flatten, sort and count. */
	res.hosts = TAKE_PTR(s.hosts);
	res.n_hosts = s.n_hosts;
	if (s.n_targets > 0) {
		res.targets = calloc(s.n_targets, sizeof(*res.targets));
		if (!res.targets) {
			r = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < s.n_targets; i++)
			res.targets[i] = s.targets[i]->t;
		res.n_targets = s.n_targets;
		qsort(res.targets, res.n_targets, sizeof(*res.targets), target_cmp);
	}
	res.actions = TAKE_PTR(s.actions);
	res.n_actions = s.n_actions;
	if (res.n_actions > 1)
		qsort(res.actions, res.n_actions, sizeof(*res.actions), action_cmp);
	res.commands = s.commands;

	for (size_t i = 0; i < res.n_hosts; i++)
		if (res.hosts[i].error < 0) {
			res.hosts[i].failed++;
			res.failed++;
		}
	for (size_t i = 0; i < res.n_targets; i++) {
		ScanHost *h = find_host(res.hosts, res.n_hosts, res.targets[i].host);

		if (!h)
			continue;
		h->unchanged += (unsigned)res.targets[i].unchanged;
		if (res.targets[i].error < 0) {
			h->failed++;
			res.failed++;
		}
	}
	for (size_t i = 0; i < res.n_actions; i++) {
		const ScanAction *a = &res.actions[i];
		ScanHost *h = find_host(res.hosts, res.n_hosts, a->host);

		if (!h)
			continue;
		if (a->error < 0) {
			h->failed++;
			res.failed++;
			continue;
		}
		switch (a->kind) {
		case SCAN_ACTION_ADD:
			h->added++;
			break;
		case SCAN_ACTION_REMOVE:
			h->removed++;
			break;
		case SCAN_ACTION_RESIZE:
			h->resized++;
			break;
		case SCAN_ACTION_REIDENTIFY:
			h->reidentified++;
			break;
		case SCAN_ACTION_KEEP:
			h->kept++;
			break;
		default:
			break;
		}
	}
	*ret = res;
	res = (ScanResult){};
	r = 0;
out:
	free(threads);
	for (size_t i = 0; i < s.n_targets; i++) {
		scan_lus_free(s.targets[i]->lus, s.targets[i]->n_lus);
		free(s.targets[i]);
	}
	free(s.targets);
	free(s.hosts);
	free(s.actions);
	free(s.queue);
	free(s.probe_added);
	scan_result_done(&res);
	pthread_mutex_destroy(&s.lock);
	pthread_cond_destroy(&s.cond);
	return r;
}
