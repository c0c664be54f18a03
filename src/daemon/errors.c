/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "errpolicy.h"
#include "grow.h"
#include "macro.h"
#include "ptrtable.h"
#include "strhash.h"
#include "sysfs.h"

/* journalctl MESSAGE_ID=... finds every command failure and every threshold crossing. */
#define MESSAGE_SCSI_ERROR           "b5d3c1e7f9a24b6d8e0f2a4c6e8b0d13"
#define MESSAGE_SCSI_ERROR_THRESHOLD "e2a4c6e8b0d24f1a9c3e5b7d9f1a3c57"

#define THRESHOLD_COUNT_MAX  1000U
#define THRESHOLD_WINDOW_MAX 86400U

/* What an LU's errors add up to, allocated with its first error or malformed event: most LUs
 * never have one, and a polled LU's entry stays small without it. */
typedef struct LuErrorStats {
	uint64_t total;
	uint64_t by_class[ERRCLASS_TABLE_MAX]; /* by class id (ErrorTracker.classes) */
	uint64_t suppressed; /* sum of SDEV_ERROR_SUPPRESSED: events the kernel dropped */
	uint64_t malformed;
	uint64_t actions; /* threshold crossings */
	ErrEvent last;
	bool have_last; /* last holds an event (counters carry no details) */
	uint64_t last_usec;
	uint64_t *ring; /* times of the last threshold.count errors of the class,
	                 * allocated with the first such error */
	unsigned ring_next, ring_used;
	uint64_t ioerr_seen, iotmo_seen; /* stock kernel: growth since lund started watching */
} LuErrorStats;

/* The classes of an LU's errors/ (ids in ErrorTracker.classes, a bit each: whatever the
 * kernel offers, names and not the slots of lund's own list) and the last value read of each,
 * in the order of their ids (32-bit atomics in the kernel). 4 bytes a class, the set shared. */
typedef struct KernelCounts {
	uint32_t mask;
	uint32_t v[];
} KernelCounts;

/* One LU with error events or polled counters: what polling needs, the rest in @stats. */
typedef struct LuErrors {
	struct LuErrors *next, *prev;
	LuErrorStats *stats; /* NULL until the first error */
	/* Patched kernel, counters chosen: which of errors/<class> the LU has and their last
	 * values read; NULL otherwise. */
	struct KernelCounts *kcount;
	/* Stock kernel: no events, ioerr_cnt/iotmo_cnt polled instead; the last values read
	 * (32-bit atomics in the kernel). */
	uint32_t ioerr_cnt, iotmo_cnt;
	bool polled : 1;
	bool counters : 1;
	bool baseline : 1; /* polled, its first values not read yet (error_tracker_enable()) */
	bool io_known : 1; /* @io is its disk's at the last reading of its counters */
	/* Its disk's I/O the block layer had counted (DiskIo.io) when its counters were last
	 * read: while that stays the same, a round that is no sweep does not read them. */
	uint16_t io;
	uint32_t hash; /* of @hctl: its place in ErrorTracker.index */
	char hctl[];
} LuErrors;

/* A disk's line of /proc/diskstats: its name and, in 16 bits, the requests it completed
 * (reads, writes, discards, flushes) plus those in flight. */
typedef struct DiskIo {
	char name[32];
	uint16_t io;
} DiskIo;

struct ErrorTracker {
	int rootfd;
	ErrorThreshold threshold;
	ErrorRescanFn rescan;
	ErrorDirFn dir;
	ErrorBlockFn block;
	ErrorStateFn state;
	void *userdata;
	LuErrors *lus;
	/* The same LuErrors by hctl (ptrtable.h: 8 bytes or so an entry, where a tsearch()
	 * node took 32 with its malloc header). */
	PtrTable index;
	bool said_missing;
	/* Every class name met (errors/<class>, SDEV_ERROR_CLASS): an LU keeps their ids. */
	ErrClassTable classes;
	bool said_junk, said_full; /* an errors/ entry was no class name / found no room */
	/* An LU had neither the patchset's errors/<class> nor evt_error: the kernel lacks it,
	 * so the LUs after it are not asked again (two failed opens each) until
	 * error_tracker_kernel_may_change(). */
	bool kernel_lacks;
	bool events; /* switch evt_error on even where errors/<class> can be polled */
	sd_event_source *poll_source;
	/* The first reading of the counters of LUs just added, once nothing more urgent is
	 * pending (their names first): @n_baseline of them wait for it. */
	sd_event_source *baseline_source;
	size_t n_baseline;
	uint64_t poll_interval;
	size_t n_watched;  /* entries with polled or counters set */
	LuErrors *poll_at; /* where the round under way goes on */
	bool poll_running; /* a round is under way (poll_at NULL: it is at its end) */
	/* The disks' I/O at the start of the round under way, sorted by name (NULL: unknown,
	 * every LU is read); every ERRORS_SWEEP_ROUNDS-th round (@sweep) reads every LU all the
	 * same. */
	DiskIo *disks;
	size_t n_disks;
	unsigned round;
	bool sweep;
	/* LUs whose counters the round under way read and left alone; the last round's. */
	size_t round_read, round_idle, last_read, last_idle;
	bool added;      /* an LU was watched since the last round began (its counters just read) */
	unsigned waited; /* rounds in a row that waited for the LUs being added */
};

/* LUs whose counters one slice of a round reads (two or six sysfs reads each, ~10 us apiece):
 * a few ms, so that a round over 100k LUs never holds the loop for seconds; the slices of a
 * round run in consecutive loop iterations, with whatever else is pending in between. */
#define POLL_SLICE 256

/* While LUs are being added (thousands at once at boot or when an array maps its LUNs), each has
 * its counters read as it comes: a round over every LU adds to the busiest moment what the LUs
 * just read need least. The round waits an interval at a time while LUs keep coming, at most
 * this many times in a row, so the LUs already there are still read at least every
 * (POLL_WAIT_MAX + 1) intervals. */
#define POLL_WAIT_MAX 3

/* A round reads the counters only of LUs whose disk did I/O since they were last read (the
 * block layer's own counts, /proc/diskstats: one read per round, not one per LU), of LUs
 * without a disk, and every this many rounds of every LU: a command the block layer does not
 * count (SG_IO, sg, bsg) that fails on an idle disk is seen within as many intervals. */
#define ERRORS_SWEEP_ROUNDS 12

static const char *const action_names[_ERROR_ACTION_MAX] = {
	[ERROR_ACTION_LOG] = "log",
	[ERROR_ACTION_OFFLINE] = "offline",
	[ERROR_ACTION_RESCAN] = "rescan",
};

DEFINE_NAME_LOOKUP(error_action_to_string, ErrorAction, action_names)

int error_threshold_parse(const char *s, ErrorThreshold *ret)
{
	char class[16], action[16], tail;
	unsigned n, t;
	ErrorThreshold th = {};

	if (!s || strlen(s) > 64)
		return -EINVAL;
	if (sscanf(s, "%15[a-z]:%u/%u:%15[a-z]%c", class, &n, &t, action, &tail) != 4)
		return -EINVAL;
	th.class = errclass_from_string(class);
	if (th.class < 0)
		return -EINVAL;
	if (n < 1 || n > THRESHOLD_COUNT_MAX || t < 1 || t > THRESHOLD_WINDOW_MAX)
		return -EINVAL;
	th.count = n;
	th.window_sec = t;
	th.action = _ERROR_ACTION_INVALID;
	for (int a = 0; a < _ERROR_ACTION_MAX; a++)
		if (streq(action, action_names[a]))
			th.action = a;
	if (th.action < 0)
		return -EINVAL;
	*ret = th;
	return 0;
}

static uint32_t lu_errors_hash(const void *e)
{
	return ((const LuErrors *)e)->hash;
}

int error_tracker_new(int rootfd, const ErrorThreshold *threshold, ErrorRescanFn rescan,
                      void *userdata, ErrorTracker **ret)
{
	ErrorTracker *t;

	assert_return(ret, -EINVAL);

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->rootfd = rootfd;
	t->threshold = threshold ? *threshold : ERROR_THRESHOLD_DEFAULT;
	t->rescan = rescan;
	t->userdata = userdata;
	t->index = PTRTABLE_INIT(lu_errors_hash);
	errclass_table_init(&t->classes);
	*ret = t;
	return 0;
}

void error_tracker_set_dir_fn(ErrorTracker *t, ErrorDirFn dir)
{
	if (t)
		t->dir = dir;
}

void error_tracker_set_block_fn(ErrorTracker *t, ErrorBlockFn block)
{
	if (t)
		t->block = block;
}

void error_tracker_set_state_fn(ErrorTracker *t, ErrorStateFn state)
{
	if (t)
		t->state = state;
}

static int disk_io_cmp(const void *a, const void *b)
{
	return strcmp(((const DiskIo *)a)->name, ((const DiskIo *)b)->name);
}

/* proc/diskstats is read whole; at ~150 bytes a disk this is room for 400,000 of them. */
#define DISKSTATS_MAX (64u * 1024 * 1024)

/* The disks' I/O now, from proc/diskstats below the root (Documentation/admin-guide/
 * iostats.rst): fields 4 (reads completed), 8 (writes completed), 12 (in flight), 15
 * (discards completed, 4.18 on) and 19 (flushes completed, 5.5 on). Without the file, larger
 * than DISKSTATS_MAX, or out of memory, none: every LU is read. */
static void disks_load(ErrorTracker *t)
{
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ DiskIo *v = NULL;
	size_t len, n = 0, nalloc = 0;

	t->disks = mfree(t->disks);
	t->n_disks = 0;
	if (!t->block)
		return;
	fd = openat(t->rootfd, "proc/diskstats", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || sysfs_read_fd(fd, DISKSTATS_MAX, &buf, &len) < 0)
		return;
	for (char *line = (char *)buf, *end; *line; line = end) {
		unsigned long long f[20] = {};
		char name[sizeof(v->name)];
		int got, pos = 0;
		uint64_t io;

		end = strchrnul(line, '\n');
		if (*end)
			*end++ = 0;
		got = sscanf(line, "%llu %llu %31s%n", &f[1], &f[2], name, &pos);
		if (got != 3)
			continue;
		for (size_t i = 4; i < ELEMENTSOF(f); i++) {
			int k = 0;

			if (sscanf(line + pos, " %llu%n", &f[i], &k) != 1)
				break;
			pos += k;
		}
		io = f[4] + f[8] + f[12] + f[15] + f[19];
		if (GREEDY_REALLOC(v, nalloc, n + 1) < 0)
			return;
		memcpy(v[n].name, name, sizeof(name));
		v[n++].io = (uint16_t)io;
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), disk_io_cmp);
	t->disks = TAKE_PTR(v);
	t->n_disks = n;
}

/* The I/O of the disk of the LU @hctl at the round's start; false when not known. */
static bool disk_io(ErrorTracker *t, const char *hctl, uint16_t *ret)
{
	const char *block = t->disks ? t->block(hctl, t->userdata) : NULL;
	DiskIo key, *d;

	if (!block || strlen(block) >= sizeof(key.name))
		return false;
	strcpy(key.name, block);
	d = bsearch(&key, t->disks, t->n_disks, sizeof(*d), disk_io_cmp);
	if (!d)
		return false;
	*ret = d->io;
	return true;
}

static LuErrors *lu_errors_free(LuErrors *e)
{
	if (!e)
		return NULL;
	if (e->stats)
		free(e->stats->ring);
	free(e->stats);
	free(e->kcount);
	free(e);
	return NULL;
}

/* @e's stats, made with its first error; NULL when out of memory. */
static LuErrorStats *lu_errors_stats(LuErrors *e)
{
	if (!e->stats)
		e->stats = calloc(1, sizeof(*e->stats));
	return e->stats;
}

ErrorTracker *error_tracker_free(ErrorTracker *t)
{
	if (!t)
		return NULL;
	sd_event_source_disable_unref(t->poll_source);
	sd_event_source_disable_unref(t->baseline_source);
	ptrtable_done(&t->index);
	free(t->disks);
	while (t->lus) {
		LuErrors *e = t->lus;

		t->lus = e->next;
		lu_errors_free(e);
	}
	free(t);
	return NULL;
}

/* Found in O(1): every LU added and removed looks itself up. */
static LuErrors *lu_errors_find(ErrorTracker *t, const char *hctl)
{
	uint32_t h = str_hash_fnv1a(hctl);

	for (size_t i = ptrtable_home(&t->index, h); ptrtable_at(&t->index, i);
	     i = ptrtable_next(&t->index, i)) {
		LuErrors *e = ptrtable_at(&t->index, i);

		if (e->hash == h && streq(e->hctl, hctl))
			return e;
	}
	return NULL;
}

static LuErrors *lu_errors_get(ErrorTracker *t, const char *hctl)
{
	LuErrors *e = lu_errors_find(t, hctl);

	if (e)
		return e;
	e = calloc(1, sizeof(*e) + strlen(hctl) + 1);
	if (!e)
		return NULL;
	strcpy(e->hctl, hctl);
	e->hash = str_hash_fnv1a(hctl);
	if (ptrtable_insert(&t->index, e) < 0)
		return lu_errors_free(e);
	e->next = t->lus;
	if (e->next)
		e->next->prev = e;
	t->lus = e;
	return e;
}

void error_tracker_kernel_may_change(ErrorTracker *t)
{
	if (t)
		t->kernel_lacks = false;
}

void error_tracker_forget(ErrorTracker *t, const char *hctl)
{
	LuErrors *e;

	if (!t || !hctl)
		return;
	e = lu_errors_find(t, hctl);
	if (!e)
		return;
	if (e->polled || e->counters)
		t->n_watched--;
	if (e->baseline)
		t->n_baseline--;
	if (t->poll_at == e)
		t->poll_at = e->next;
	ptrtable_delete(&t->index, e);
	if (e->prev)
		e->prev->next = e->next;
	else
		t->lus = e->next;
	if (e->next)
		e->next->prev = e->prev;
	lu_errors_free(e);
}

/* Record one error of the threshold's class; 1 when the last count of them fall within the
 * window, else 0, or -ENOMEM. The ring is cleared after a crossing so one burst acts once. */
static int threshold_hit(const ErrorThreshold *th, LuErrorStats *e, uint64_t now)
{
	uint64_t oldest;

	if (!e->ring) {
		e->ring = calloc(th->count, sizeof(uint64_t));
		if (!e->ring)
			return -ENOMEM;
	}

	e->ring[e->ring_next] = now;
	e->ring_next = (e->ring_next + 1) % th->count;
	if (e->ring_used < th->count)
		e->ring_used++;
	if (e->ring_used < th->count)
		return 0;
	oldest = e->ring[e->ring_next]; /* the slot written next holds the oldest */
	if (now - oldest > (uint64_t)th->window_sec * 1000000U)
		return 0;
	e->ring_used = 0;
	e->ring_next = 0;
	return 1;
}

static int threshold_act(ErrorTracker *t, LuErrors *e, const LogDevice *dev)
{
	const ErrorThreshold *th = &t->threshold;
	_cleanup_free_ char *state = NULL;
	int r = 0;

	e->stats->actions++;
	switch (th->action) {
	case ERROR_ACTION_OFFLINE:
		if (asprintf(&state, "sys/bus/scsi/devices/%s/state", e->hctl) < 0)
			return -ENOMEM;
		/* scsi_sysfs.c store_state_field() matches the name only when a newline
		 * follows it: "offline" alone is -EINVAL. */
		r = sysfs_write_attr(t->rootfd, state, "offline\n");
		break;
	case ERROR_ACTION_RESCAN:
		r = t->rescan ? t->rescan(e->hctl, t->userdata) : -EOPNOTSUPP;
		break;
	default:
		break;
	}
	if (r < 0)
		log_full(LOG_ERR, r, dev, MESSAGE_SCSI_ERROR_THRESHOLD,
		         "%u %s errors within %u s: %s failed: %m", th->count,
		         errclass_to_string(th->class), th->window_sec,
		         error_action_to_string(th->action));
	else
		log_full(LOG_WARNING, 0, dev, MESSAGE_SCSI_ERROR_THRESHOLD,
		         "%u %s errors within %u s: %s", th->count, errclass_to_string(th->class),
		         th->window_sec,
		         th->action == ERROR_ACTION_LOG       ? "logged only"
		         : th->action == ERROR_ACTION_OFFLINE ? "LU set offline"
		                                              : "target rescanned");
	return r;
}

int error_tracker_handle(ErrorTracker *t, const char *hctl, const LogDevice *dev,
                         const char *const *props, size_t n, uint64_t now_usec)
{
	LuErrors *e;
	LuErrorStats *st;
	ErrEvent ev;
	int r, id;

	assert_return(t && hctl, -EINVAL);

	r = errevent_parse(props, n, &ev);
	if (r == -ENODATA)
		return 0;
	e = lu_errors_get(t, hctl);
	if (!e)
		return -ENOMEM;
	st = lu_errors_stats(e);
	if (!st)
		return -ENOMEM;
	if (r < 0) {
		st->malformed++;
		log_full(LOG_WARNING, r, dev, NULL, "Malformed SDEV_ERROR uevent, ignoring: %m");
		return r;
	}

	id = errclass_table_intern(&t->classes, ev.class_name, strlen(ev.class_name));
	if (id == -ENOBUFS && !t->said_full)
		log_full(LOG_WARNING, 0, dev, NULL,
		         "More than %u error classes, class \"%s\" counted in the total only",
		         ERRCLASS_TABLE_MAX, ev.class_name);
	t->said_full = t->said_full || id == -ENOBUFS;
	st->total++;
	if (id >= 0)
		st->by_class[id]++;
	st->suppressed += ev.suppressed;
	st->last = ev;
	st->have_last = true;
	st->last_usec = now_usec;

	/* The same as journal fields, for journalctl LUND_ERROR_CLASS=transport and the like.
	 * Each buffer holds its key and the longest decimal of its type. */
	char f_class[sizeof("LUND_ERROR_CLASS=") + ERRCLASS_NAME_MAX], f_retryable[32], f_errno[32],
	        f_sk[24], f_asc[24], f_ascq[24], f_opcode[24], f_sector[48], f_suppressed[40];
	const char *extra[] = { f_class, f_retryable, f_errno,  f_sk,         f_asc,
		                f_ascq,  f_opcode,    f_sector, f_suppressed, NULL };
	LogDevice d = dev ? *dev : (LogDevice){ .hctl = hctl };

	(void)snprintf(f_class, sizeof(f_class), "LUND_ERROR_CLASS=%s", ev.class_name);
	(void)snprintf(f_retryable, sizeof(f_retryable), "LUND_ERROR_RETRYABLE=%d", ev.retryable);
	(void)snprintf(f_errno, sizeof(f_errno), "LUND_ERROR_ERRNO=%d", ev.error);
	(void)snprintf(f_sk, sizeof(f_sk), "LUND_SENSE_KEY=%u", ev.sk);
	(void)snprintf(f_asc, sizeof(f_asc), "LUND_ASC=%u", ev.asc);
	(void)snprintf(f_ascq, sizeof(f_ascq), "LUND_ASCQ=%u", ev.ascq);
	(void)snprintf(f_opcode, sizeof(f_opcode), "LUND_OPCODE=%u", ev.opcode);
	(void)snprintf(f_sector, sizeof(f_sector), "LUND_SECTOR=%" PRIu64, ev.sector);
	(void)snprintf(f_suppressed, sizeof(f_suppressed), "LUND_ERROR_SUPPRESSED=%u",
	               ev.suppressed);
	d.extra = extra;
	dev = &d;

	/* SPC sense key/ASC/ASCQ as sg3_utils prints them; the sector is in 512-byte units. */
	log_full(LOG_WARNING, 0, dev, MESSAGE_SCSI_ERROR,
	         "Command failed: class=%s retryable=%s errno=%d sense=%02x/%02x/%02x "
	         "opcode=0x%02x sector=%" PRIu64 " host_byte=0x%02x status=0x%02x%s",
	         ev.class_name, ev.retryable ? "yes" : "no", ev.error, ev.sk, ev.asc, ev.ascq,
	         ev.opcode, ev.sector, ev.result, ev.status,
	         ev.suppressed ? " (the kernel dropped earlier events)" : "");
	if (ev.suppressed)
		log_full(LOG_NOTICE, 0, dev, NULL,
		         "%u earlier error events were rate-limited by "
		         "the kernel (evt_error_burst)",
		         ev.suppressed);

	if (ev.class >= 0 && ev.class == t->threshold.class) {
		r = threshold_hit(&t->threshold, st, now_usec);
		if (r < 0)
			log_full(LOG_WARNING, r, dev, NULL,
			         "Cannot count errors towards the threshold, ignoring: %m");
		else if (r > 0)
			(void)threshold_act(t, e, dev);
	}
	return 1;
}

/* The counters of the LU whose directory is @dir (below the root). */
static int read_counters_at(ErrorTracker *t, const char *dir, uint64_t *ret_ioerr,
                            uint64_t *ret_iotmo)
{
	_cleanup_free_ char *p1 = NULL, *p2 = NULL;
	uint64_t a, b;
	int r;

	p1 = strjoin(dir, "/ioerr_cnt");
	p2 = strjoin(dir, "/iotmo_cnt");
	if (!p1 || !p2)
		return -ENOMEM;
	r = sysfs_read_u64(t->rootfd, p1, &a);
	if (r < 0)
		return r;
	r = sysfs_read_u64(t->rootfd, p2, &b);
	if (r < 0)
		return r;
	*ret_ioerr = a;
	*ret_iotmo = b;
	return 0;
}

/* Where the LU @hctl's attributes are read from: its directory as the owner knows it
 * (ErrorDirFn), else the bus's entry, written to @buf; NULL when that does not fit. */
static const char *lu_dir(ErrorTracker *t, const char *hctl, char *buf, size_t size)
{
	const char *known = t->dir ? t->dir(hctl, t->userdata) : NULL;

	if (known)
		return known;
	if (snprintf(buf, size, "sys/bus/scsi/devices/%s", hctl) >= (int)size)
		return NULL;
	return buf;
}

static int read_counters(ErrorTracker *t, const LuErrors *e, uint64_t *ret_ioerr,
                         uint64_t *ret_iotmo)
{
	char buf[64];
	const char *dir = lu_dir(t, e->hctl, buf, sizeof(buf));

	return dir ? read_counters_at(t, dir, ret_ioerr, ret_iotmo) : -ENAMETOOLONG;
}

void error_tracker_prefer_events(ErrorTracker *t, bool events)
{
	if (t)
		t->events = events;
}

/* At most this many entries of an errors/ directory are looked at (a hostile or broken sysfs
 * may hold any number); at most ERRCLASS_TABLE_MAX of them are taken as classes. */
#define ERRORS_DIR_ENTRIES_MAX 256U

/*
 * The kernel's errors/<class> of the LU whose directory is @dir (series v2 patch 5): whatever
 * classes it holds, by name. *@ret_mask gets their ids, @ret[id] their values; a class whose
 * file cannot be read is left out. -ENOENT without errors/ (the patch), -errno.
 */
static int read_errors_dir(ErrorTracker *t, const char *dir, uint32_t *ret_mask,
                           uint64_t ret[ERRCLASS_TABLE_MAX])
{
	_cleanup_(closedirp) DIR *d = NULL;
	char p[PATH_MAX];
	unsigned seen = 0, junk = 0;
	uint32_t mask = 0;
	struct dirent *de;
	int r;

	if (snprintf(p, sizeof(p), "%s/errors", dir) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	r = sysfs_opendir(t->rootfd, p, &d);
	if (r < 0)
		return r;
	while ((de = readdir(d)) && seen++ < ERRORS_DIR_ENTRIES_MAX) {
		uint64_t v;
		int id;

		if (de->d_name[0] == '.')
			continue; /* ".", "..": no class name starts with a dot */
		if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN) {
			junk++;
			continue;
		}
		id = errclass_table_intern(&t->classes, de->d_name, strlen(de->d_name));
		if (id == -ENOBUFS) {
			if (!t->said_full)
				log_warning("%s/errors holds more classes than lund counts (%u in "
				            "all), "
				            "ignoring the others",
				            dir, ERRCLASS_TABLE_MAX);
			t->said_full = true;
			continue;
		}
		if (id < 0) {
			junk++;
			continue;
		}
		if (sysfs_read_u64(dirfd(d), de->d_name, &v) < 0)
			continue; /* tolerated: that class has no counter here */
		mask |= UINT32_C(1) << id;
		ret[id] = v;
	}
	if ((junk > 0 || seen > ERRORS_DIR_ENTRIES_MAX) && !t->said_junk)
		log_warning(
		        "%s/errors holds entries that name no error class (%u of at most %u "
		        "looked at; a class is at most %u characters of [a-z0-9_-]), ignoring them",
		        dir, junk, ERRORS_DIR_ENTRIES_MAX, ERRCLASS_NAME_MAX);
	t->said_junk = t->said_junk || junk > 0 || seen > ERRORS_DIR_ENTRIES_MAX;
	*ret_mask = mask;
	return 0;
}

/* The same for the LU @hctl (lu_dir()). */
static int read_kernel_counts(ErrorTracker *t, const char *hctl, uint32_t *ret_mask,
                              uint64_t ret[ERRCLASS_TABLE_MAX])
{
	char buf[64];
	const char *dir = lu_dir(t, hctl, buf, sizeof(buf));

	return dir ? read_errors_dir(t, dir, ret_mask, ret) : -ENAMETOOLONG;
}

int error_tracker_enable(ErrorTracker *t, const char *syspath, const char *hctl)
{
	uint64_t counts[ERRCLASS_TABLE_MAX], ioerr, iotmo;
	uint32_t mask = 0;
	int k = -ENOENT, r;

	assert_return(t && syspath && hctl, -EINVAL);

	/* Counters first: an error event is a change uevent of the scsi_device, which udev's
	 * 60-block.rules answers with a re-probe of the failing disk; the counters cost none. */
	if (!t->events && !t->kernel_lacks)
		k = read_kernel_counts(t, hctl, &mask, counts);
	if (k >= 0) {
		LuErrors *e = lu_errors_get(t, hctl);

		if (!e)
			return -ENOMEM;
		if (!e->counters) {
			unsigned n = 0;

			e->kcount = malloc(sizeof(KernelCounts) +
			                   (size_t)__builtin_popcount(mask) * sizeof(uint32_t));
			if (!e->kcount)
				return -ENOMEM;
			if (!e->polled)
				t->n_watched++;
			e->counters = true;
			e->kcount->mask = mask;
			for (unsigned id = 0; id < ERRCLASS_TABLE_MAX; id++)
				if (mask & (UINT32_C(1) << id))
					e->kcount->v[n++] = (uint32_t)counts[id];
			t->added = true;
		}
		return 2;
	}

	r = t->kernel_lacks ? -EOPNOTSUPP
	                    : errpolicy_write(t->rootfd, syspath, hctl, ERRKNOB_EVT_ERROR, "1");
	if (r == -EOPNOTSUPP) {
		LuErrors *e;

		if (k == -ENOENT)
			t->kernel_lacks = true;

		if (!t->said_missing)
			log_notice("This kernel lacks the companion patchset's knobs (retry_limit, "
			           "failfast, evt_error, evt_error_burst, evt_error_interval_ms): "
			           "no error events, error policy limited to sd's max_retries "
			           "and the timeouts; polling ioerr_cnt/iotmo_cnt instead");
		t->said_missing = true;

		/* Only counters that exist are polled: an LU without them costs no read. */
		e = lu_errors_find(t, hctl);
		if (e && (e->polled || e->counters))
			return 0;
		/* With a loop: the first reading once nothing more urgent is pending, so that
		 * thousands of LUs appearing get their names before their counters are read. */
		if (t->baseline_source) {
			e = lu_errors_get(t, hctl);
			if (!e)
				return -ENOMEM;
			e->polled = true;
			e->baseline = true;
			t->n_baseline++;
			t->n_watched++;
			t->added = true;
			(void)sd_event_source_set_enabled(t->baseline_source, SD_EVENT_ON);
			return 0;
		}
		/* by the directory the caller has: the bus's entry is a symlink, which sysfs
		 * resolves afresh at every lookup */
		if (read_counters_at(t, syspath, &ioerr, &iotmo) < 0)
			return 0;
		e = lu_errors_get(t, hctl);
		if (!e)
			return -ENOMEM;
		e->polled = true;
		e->ioerr_cnt = (uint32_t)ioerr;
		e->iotmo_cnt = (uint32_t)iotmo;
		t->n_watched++;
		t->added = true;
		return 0;
	}
	return r < 0 ? r : 1;
}

/* Count @n errors of @class towards the threshold; act at most once. @e has its stats. */
static void threshold_count(ErrorTracker *t, LuErrors *e, unsigned class, uint64_t n,
                            const LogDevice *dev, uint64_t now_usec)
{
	/* a known class's id is its ErrClass */
	if (class != (unsigned)t->threshold.class)
		return;
	for (uint64_t i = 0; i < n; i++) {
		int k = threshold_hit(&t->threshold, e->stats, now_usec);

		if (k > 0)
			(void)threshold_act(t, e, dev);
		if (k != 0)
			break; /* acted, or out of memory to count */
	}
}

/* Patched kernel: what grew in errors/<class> since the last poll (the classes the LU had when
 * it was added; one gone since is skipped). 1 when anything did. */
static int poll_kernel_counts(ErrorTracker *t, LuErrors *e, uint64_t now_usec)
{
	_cleanup_close_ int fd = -EBADF;
	KernelCounts *kc = e->kcount;
	char buf[64], p[PATH_MAX];
	const char *dir = lu_dir(t, e->hctl, buf, sizeof(buf));
	bool grew = false;
	unsigned i = 0;

	if (!dir || snprintf(p, sizeof(p), "%s/errors", dir) >= (int)sizeof(p))
		return 0;
	fd = openat(t->rootfd, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (unsigned id = 0; id < ERRCLASS_TABLE_MAX; id++) {
		const char *name = errclass_table_name(&t->classes, id);
		char f_class[sizeof("LUND_ERROR_CLASS=") + ERRCLASS_NAME_MAX];
		const char *extra[] = { f_class, NULL };
		LogDevice dev = { .hctl = e->hctl, .extra = extra };
		LuErrorStats *st;
		uint64_t now, d;

		if (!(kc->mask & (UINT32_C(1) << id)))
			continue;
		i++;
		if (sysfs_read_u64(fd, name, &now) < 0)
			continue;
		/* atomic_t in the kernel: 32 bits that wrap */
		d = ((uint32_t)now - kc->v[i - 1]) & UINT32_MAX;
		if (d == 0)
			continue;
		st = lu_errors_stats(e);
		if (!st)
			continue; /* counted by the next poll */
		kc->v[i - 1] = (uint32_t)now;
		grew = true;
		st->total += d;
		st->by_class[id] += d;
		st->last_usec = now_usec;
		(void)snprintf(f_class, sizeof(f_class), "LUND_ERROR_CLASS=%s", name);
		log_full(LOG_WARNING, 0, &dev, MESSAGE_SCSI_ERROR,
		         "Commands failed: class=%s +%" PRIu64
		         " (kernel counter errors/%s: %" PRIu64 ")",
		         name, d, name, now);
		threshold_count(t, e, id, d, &dev, now_usec);
	}
	return grew;
}

/* @e's first reading (e->baseline): its values from now on, nothing reported. An LU without
 * counters is not polled (and forgotten when nothing else is kept of it). */
static void take_baseline(ErrorTracker *t, LuErrors *e)
{
	uint64_t ioerr, iotmo;

	e->baseline = false;
	t->n_baseline--;
	if (read_counters(t, e, &ioerr, &iotmo) >= 0) {
		e->ioerr_cnt = (uint32_t)ioerr;
		e->iotmo_cnt = (uint32_t)iotmo;
		return;
	}
	e->polled = false;
	t->n_watched--;
	if (!e->stats && !e->counters)
		error_tracker_forget(t, e->hctl);
}

int error_tracker_poll_slice(ErrorTracker *t, uint64_t now_usec, size_t max, bool *ret_done)
{
	LuErrors *e;
	size_t n = 0;
	int grew = 0;

	assert_return(t && ret_done, -EINVAL);

	if (!t->poll_running) {
		t->poll_running = true;
		t->poll_at = t->lus;
		t->sweep = t->round++ % ERRORS_SWEEP_ROUNDS == 0;
		t->round_read = t->round_idle = 0;
		disks_load(t);
	}
	for (e = t->poll_at; e && n < max; e = t->poll_at) {
		LogDevice dev = { .hctl = e->hctl };
		uint64_t ioerr, iotmo, dio, dtmo;
		LuErrorStats *st;
		uint16_t io = 0;
		bool have_io;

		/* The cursor moves on first: error_tracker_forget() keeps it valid. */
		t->poll_at = e->next;
		if (!e->counters && !e->polled)
			continue; /* an entry for its error events only */
		n++;
		if (e->baseline) {
			take_baseline(t, e);
			continue;
		}
		have_io = disk_io(t, e->hctl, &io);
		if (have_io && e->io_known && e->io == io && !t->sweep) {
			t->round_idle++;
			continue; /* no I/O on its disk since its counters were read */
		}
		t->round_read++;
		if (e->counters) {
			grew += poll_kernel_counts(t, e, now_usec);
			e->io_known = have_io;
			e->io = io;
			continue;
		}

		if (!e->polled || read_counters(t, e, &ioerr, &iotmo) < 0)
			continue;
		if (t->state)
			t->state(e->hctl, t->userdata); /* its state read with its counters */
		e->io_known = have_io;
		e->io = io;
		/* The counters are 32-bit atomics in the kernel and wrap. */
		dio = (ioerr - e->ioerr_cnt) & UINT32_MAX;
		dtmo = (iotmo - e->iotmo_cnt) & UINT32_MAX;
		if (dio == 0 && dtmo == 0)
			continue;
		st = lu_errors_stats(e);
		if (!st)
			continue; /* counted by the next poll */
		e->ioerr_cnt = (uint32_t)ioerr;
		e->iotmo_cnt = (uint32_t)iotmo;
		grew++;
		st->ioerr_seen += dio;
		st->iotmo_seen += dtmo;
		st->last_usec = now_usec;
		log_full(LOG_WARNING, 0, &dev, MESSAGE_SCSI_ERROR,
		         "Commands failed: ioerr_cnt +%" PRIu64 ", iotmo_cnt +%" PRIu64
		         " (stock kernel: no error class)",
		         dio, dtmo);
		st->by_class[ERRCLASS_TIMEOUT] += dtmo;
		threshold_count(t, e, ERRCLASS_TIMEOUT, dtmo, &dev, now_usec);
	}
	*ret_done = !t->poll_at;
	if (*ret_done) {
		t->poll_running = false;
		t->last_read = t->round_read;
		t->last_idle = t->round_idle;
		t->disks = mfree(t->disks);
		t->n_disks = 0;
	}
	return grew;
}

int error_tracker_poll(ErrorTracker *t, uint64_t now_usec)
{
	bool done = false;
	int grew = 0;

	assert_return(t, -EINVAL);

	/* A whole round from the first LU, whatever a timer's round had reached. */
	t->poll_running = false;
	while (!done) {
		int k = error_tracker_poll_slice(t, now_usec, SIZE_MAX, &done);

		if (k < 0)
			return k;
		grew += k;
	}
	return grew;
}

size_t error_tracker_n_watched(const ErrorTracker *t)
{
	return t ? t->n_watched : 0;
}

bool error_tracker_round_waits(ErrorTracker *t)
{
	bool wait;

	if (!t)
		return false;
	wait = t->added && t->waited < POLL_WAIT_MAX;
	t->waited = wait ? t->waited + 1 : 0;
	t->added = false;
	return wait;
}

static int on_poll(sd_event_source *s, uint64_t usec, void *userdata)
{
	ErrorTracker *t = userdata;
	bool done = true;

	/* Nothing to read: no round at all (most of all no walk over every LU). A round about to
	 * begin while LUs are being added waits (POLL_WAIT_MAX). */
	if (t->n_watched > 0 && (t->poll_running || !error_tracker_round_waits(t)))
		(void)error_tracker_poll_slice(t, usec, POLL_SLICE, &done);
	/* The next slice in the next loop iteration; the next round an interval after this one
	 * ended. */
	(void)sd_event_source_set_time(s, done ? usec + t->poll_interval : usec);
	return sd_event_source_set_enabled(s, SD_EVENT_ON);
}

size_t error_tracker_n_baseline(const ErrorTracker *t)
{
	return t ? t->n_baseline : 0;
}

static int on_baseline(sd_event_source *s, void *userdata)
{
	ErrorTracker *t = userdata;
	size_t n = 0;

	/* New entries go to the head of the list: those waiting are found first. */
	for (LuErrors *e = t->lus, *next; e && t->n_baseline > 0 && n < POLL_SLICE; e = next) {
		next = e->next;
		if (!e->baseline)
			continue;
		take_baseline(t, e);
		n++;
	}
	if (t->n_baseline == 0)
		return sd_event_source_set_enabled(s, SD_EVENT_OFF);
	return 0;
}

int error_tracker_attach_event(ErrorTracker *t, sd_event *event, uint64_t interval_usec)
{
	int r;

	assert_return(t && event && interval_usec > 0, -EINVAL);

	r = sd_event_add_defer(event, &t->baseline_source, on_baseline, t);
	if (r < 0)
		return r;
	r = sd_event_source_set_priority(t->baseline_source, SD_EVENT_PRIORITY_IDLE);
	if (r >= 0)
		r = sd_event_source_set_enabled(t->baseline_source, SD_EVENT_OFF);
	if (r < 0) {
		t->baseline_source = sd_event_source_disable_unref(t->baseline_source);
		return r;
	}
	t->poll_interval = interval_usec;
	r = sd_event_add_time_relative(event, &t->poll_source, CLOCK_MONOTONIC, interval_usec, 0,
	                               on_poll, t);
	if (r < 0)
		return r;
	/* Clients and uevents first: a slice runs when nothing else is pending. */
	return sd_event_source_set_priority(t->poll_source, SD_EVENT_PRIORITY_IDLE);
}

/* The kernel's own per-class counts (series v2 patch 5, errors/<class>, whatever classes it
 * holds): NULL when absent. */
static json_object *kernel_classes_json(ErrorTracker *t, const char *hctl)
{
	uint64_t n[ERRCLASS_TABLE_MAX];
	uint32_t mask;
	json_object *o;

	if (read_kernel_counts(t, hctl, &mask, n) < 0)
		return NULL;
	o = json_object_new_object();
	for (unsigned id = 0; o && id < ERRCLASS_TABLE_MAX; id++)
		if ((mask & (UINT32_C(1) << id)) && n[id])
			json_object_object_add(o, errclass_table_name(&t->classes, id),
			                       json_object_new_uint64(n[id]));
	return o;
}

json_object *error_tracker_lu_json(ErrorTracker *t, const char *hctl)
{
	LuErrors *e = t ? lu_errors_find(t, hctl) : NULL;
	const LuErrorStats *st = e ? e->stats : NULL;
	json_object *o, *classes;

	/* LUs watched by polling have an entry from the start: only those with errors count */
	if (!st ||
	    (st->total == 0 && st->malformed == 0 && st->ioerr_seen == 0 && st->iotmo_seen == 0))
		return NULL;
	o = json_object_new_object();
	classes = json_object_new_object();
	if (!o || !classes) {
		json_object_put(o);
		json_object_put(classes);
		return NULL;
	}
	json_object_object_add(o, "total", json_object_new_uint64(st->total));
	for (unsigned id = 0; id < t->classes.n; id++)
		if (st->by_class[id])
			json_object_object_add(classes, errclass_table_name(&t->classes, id),
			                       json_object_new_uint64(st->by_class[id]));
	json_object_object_add(o, "classes", classes);
	json_object_object_add(o, "suppressed", json_object_new_uint64(st->suppressed));
	json_object_object_add(o, "malformed", json_object_new_uint64(st->malformed));
	json_object_object_add(o, "threshold_actions", json_object_new_uint64(st->actions));
	json_object_object_add(o, "polled", json_object_new_boolean(e->polled));
	json_object_object_add(o, "source",
	                       json_object_new_string(e->counters ? "counters"
	                                              : e->polled ? "polled"
	                                                          : "events"));
	json_object *kc = kernel_classes_json(t, hctl);
	if (kc)
		json_object_object_add(o, "kernel_classes", kc);
	if (e->polled) {
		json_object_object_add(o, "ioerr_cnt_growth",
		                       json_object_new_uint64(st->ioerr_seen));
		json_object_object_add(o, "iotmo_cnt_growth",
		                       json_object_new_uint64(st->iotmo_seen));
	}
	if (st->have_last) {
		json_object *l = json_object_new_object();

		if (l) {
			const char *c = st->last.class_name;

			json_object_object_add(l, "class", json_object_new_string(c));
			json_object_object_add(l, "sk", json_object_new_int(st->last.sk));
			json_object_object_add(l, "asc", json_object_new_int(st->last.asc));
			json_object_object_add(l, "ascq", json_object_new_int(st->last.ascq));
			json_object_object_add(l, "sector",
			                       json_object_new_uint64(st->last.sector));
			json_object_object_add(l, "errno", json_object_new_int(st->last.error));
			json_object_object_add(o, "last", l);
		}
	}
	return o;
}

json_object *error_tracker_json(ErrorTracker *t)
{
	json_object *o = json_object_new_object(), *lus = json_object_new_object();
	char th[64];

	if (!o || !lus) {
		json_object_put(o);
		json_object_put(lus);
		return NULL;
	}
	(void)snprintf(th, sizeof(th), "%s:%u/%u:%s", errclass_to_string(t->threshold.class),
	               t->threshold.count, t->threshold.window_sec,
	               error_action_to_string(t->threshold.action));
	json_object_object_add(o, "threshold", json_object_new_string(th));
	/* the last round of polled counters: read, and left alone for an idle disk */
	json_object_object_add(o, "counters_read", json_object_new_uint64(t->last_read));
	json_object_object_add(o, "counters_idle", json_object_new_uint64(t->last_idle));
	for (LuErrors *e = t->lus; e; e = e->next) {
		json_object *l = error_tracker_lu_json(t, e->hctl);

		if (l)
			json_object_object_add(lus, e->hctl, l);
	}
	json_object_object_add(o, "lus", lus);
	return o;
}
