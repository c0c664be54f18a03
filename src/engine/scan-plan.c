/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * What to scan: the selectors, the hosts, the LUs the kernel has instantiated, the targets the
 * transport classes know, and per host the target probes ("C T 0" > scan) that make the kernel
 * instantiate LUN 0 of targets it has no LU of yet, after which each target gets a job.
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
#include "uevent.h"

/* --- selectors -------------------------------------------------------------------------------- */

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

bool scan_sel_match(const ScanSelector *sel, size_t n_sel, unsigned h, int64_t c, int64_t t,
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

/* Does a selector cover every LUN of this target (no selector names a single LUN of it)? */
bool scan_whole_target_selected(const Scan *s, const ScanTarget *t)
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

/* --- sysfs inventory -------------------------------------------------------------------------- */

static void scan_lu_done(ScanLu *lu)
{
	lu->sg = mfree(lu->sg);
	lu->block = mfree(lu->block);
}

void scan_lus_free(ScanLu *v, size_t n)
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

/* The LUs the kernel has instantiated on @host (and @channel/@target unless SCAN_ANY),
 * sorted; only the address is filled in (scan_lu_details() reads the rest). */
int scan_list_lus(int rootfd, unsigned host, int64_t channel, int64_t target, ScanLu **ret,
                  size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	ScanLu *v = NULL;
	size_t n = 0, cap = 0;
	int r;

	r = sysfs_opendir(rootfd, "sys/bus/scsi/devices", &d);
	if (r == -ENOENT) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	for (struct dirent *de; (de = readdir(d));) {
		unsigned h, c, t;
		uint64_t l;

		if (hctl_parse(de->d_name, &h, &c, &t, &l) < 0 || h != host)
			continue;
		if ((channel != SCAN_ANY && c != channel) || (target != SCAN_ANY && t != target))
			continue;
		if (GREEDY_REALLOC(v, cap, n + 1) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[n] = (ScanLu){ .host = h, .channel = c, .target = t, .lun = l, .type = -1 };
		/* printed as the kernel would, whatever form the entry's name has */
		snprintf(v[n].hctl, sizeof(v[n].hctl), "%u:%u:%u:%" PRIu64, h, c, t, l);
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), lu_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

void scan_lu_node(int rootfd, ScanLu *lu, bool want_type)
{
	char path[PATH_MAX];
	uint64_t type;

	if (want_type) {
		scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/type", lu->hctl);
		if (sysfs_read_u64(rootfd, path, &type) >= 0 && type <= 0x1f)
			lu->type = (int)type;
	}
	scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/scsi_generic", lu->hctl);
	if (!lu->sg)
		(void)sysfs_first_entry(rootfd, path, NULL, &lu->sg);
}

int scan_lu_details(int rootfd, ScanLu *lu)
{
	char path[PATH_MAX];

	scan_lu_node(rootfd, lu, true);
	scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/block", lu->hctl);
	if (!lu->block)
		(void)sysfs_first_entry(rootfd, path, NULL, &lu->block);
	return 0;
}

bool scan_lu_exists(int rootfd, unsigned h, unsigned c, unsigned t, uint64_t l)
{
	char path[PATH_MAX];

	scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%u:%u:%u:%" PRIu64, h, c, t, l);
	return faccessat(rootfd, path, F_OK, 0) >= 0;
}

int scan_list_hosts(Scan *s)
{
	_cleanup_(closedirp) DIR *d = NULL;
	int r;

	r = sysfs_opendir(s->rootfd, "sys/class/scsi_host", &d);
	if (r < 0)
		return r;
	for (struct dirent *de; (de = readdir(d));) {
		_cleanup_free_ char *pn = NULL;
		char path[PATH_MAX];
		unsigned h;
		ScanHost *v;

		if (sysfs_scsi_host_parse(de->d_name, &h) < 0)
			continue;
		if (!scan_sel_match(s->sel, s->n_sel, h, SCAN_ANY, SCAN_ANY, SCAN_ANY))
			continue;
		if (GREEDY_REALLOC_EXACT(s->hosts, s->n_hosts + 1) < 0)
			return -ENOMEM;
		v = &s->hosts[s->n_hosts++];
		*v = (ScanHost){ .host = h };
		scan_pathfmt(path, sizeof(path), "sys/class/scsi_host/%s/proc_name", de->d_name);
		if (sysfs_read_string(s->rootfd, path, &pn) >= 0)
			snprintf(v->proc_name, sizeof(v->proc_name), "%s", pn);
	}
	return 0;
}

/* --- transports ------------------------------------------------------------------------------- */

typedef struct TargetAddr {
	unsigned channel, target;
	const char *source;
} TargetAddr;

typedef struct TargetSet {
	TargetAddr *v;
	size_t n, cap;
	bool unresolved; /* a transport entry of this host whose target id we could not read
	                  */
} TargetSet;

static int target_set_add(TargetSet *ts, unsigned c, unsigned t, const char *source)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->v[i].channel == c && ts->v[i].target == t)
			return 0;
	if (GREEDY_REALLOC(ts->v, ts->cap, ts->n + 1) < 0)
		return -ENOMEM;
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

	scan_pathfmt(path, sizeof(path), "%s/%s/%s", dir, name, attr);
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

/*
 * Host number of a class device, from where its class entry points
 * (../../devices/platform/hostH/sessionN/iscsi_session/sessionN). Not from its "device" link:
 * that points to its parent relative to itself (../../../sessionN) and names no host.
 */
static int host_of_link(int rootfd, const char *dir, const char *name, unsigned *ret)
{
	char path[PATH_MAX], target[4096];
	ssize_t k;

	scan_pathfmt(path, sizeof(path), "%s/%s", dir, name);
	k = readlinkat(rootfd, path, target, sizeof(target) - 1);
	if (k < 0)
		return -errno;
	target[k] = 0;
	return uevent_devpath_host(target, ret);
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

		if (sysfs_opendir(s->rootfd, classes[k], &d) < 0)
			continue;
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

				scan_pathfmt(path, sizeof(path), "%s/%s/port_state", classes[k],
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
				scan_debug(s,
				           "host%u: %s: no usable target id, probing the "
				           "whole host",
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

/* --- hosts ------------------------------------------------------------------------------------ */

static bool host_has_target(const ScanLu *lus, size_t n, unsigned c, unsigned t)
{
	for (size_t i = 0; i < n; i++)
		if (lus[i].channel == c && lus[i].target == t)
			return true;
	return false;
}

void scan_probe_action(ScanAction *a, unsigned host, const char *c, const char *t, const char *l,
                       const char *reason)
{
	*a = (ScanAction){ .kind = SCAN_ACTION_PROBE, .host = host };
	snprintf(a->path, sizeof(a->path), "sys/class/scsi_host/host%u/scan", host);
	snprintf(a->value, sizeof(a->value), "%s %s %s", c, t, l);
	snprintf(a->hctl, sizeof(a->hctl), "%u:%s:%s:%s", host, c, t, l);
	snprintf(a->reason, sizeof(a->reason), "%s", reason);
}

/* What the host's device directory may hold besides its targets without putting targets
 * elsewhere: its runtime PM and its scsi_host and spi_host class devices (parallel SCSI's
 * transport keeps its targets directly below the host). */
static bool host_dir_plain(const char *name)
{
	return streq(name, "power") || streq(name, "scsi_host") || streq(name, "spi_host");
}

/*
 * The targets the kernel has on @host, from sys/class/scsi_host/hostH/device: the
 * "targetH:C:T" directories of a host whose targets sit directly below it (parallel, virtual,
 * ATA, USB). -EOPNOTSUPP when it holds any other directory (a SAS port, an FC rport, an iSCSI
 * session: targets sit below those) or cannot be read: then only a listing of the bus finds
 * them all.
 */
static int host_dir_targets(int rootfd, unsigned host, TargetSet *ret)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char path[PATH_MAX];

	scan_pathfmt(path, sizeof(path), "sys/class/scsi_host/host%u/device", host);
	if (sysfs_opendir(rootfd, path, &d) < 0)
		return -EOPNOTSUPP;
	for (struct dirent *de; (de = readdir(d));) {
		unsigned h, c, t;
		char extra;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (sscanf(de->d_name, "target%u:%u:%u%c", &h, &c, &t, &extra) == 3 && h == host) {
			if (target_set_add(ret, c, t, "sysfs") < 0)
				return -ENOMEM;
			continue;
		}
		if (de->d_type == DT_DIR && host_dir_plain(de->d_name))
			continue;
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Insert @lu into the sorted @v of @n (room for one more, which the caller made). */
static void lus_insert(ScanLu *v, size_t n, const ScanLu *lu)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lu_cmp(&v[mid], lu) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(v + lo + 1, v + lo, (n - lo) * sizeof(*v));
	v[lo] = *lu;
}

static bool lus_have(const ScanLu *v, size_t n, const ScanLu *lu)
{
	/* bsearch() takes no NULL array, even an empty one (a host with no LU yet). */
	return n > 0 && bsearch(lu, v, n, sizeof(*v), lu_cmp) != NULL;
}

#define PROBE_ADDED "new target, instantiated by the target probe"

void scan_record_added(Scan *s, const ScanLu *lu, const char *reason)
{
	ScanAction a = {
		.kind = SCAN_ACTION_ADD,
		.host = lu->host,
		.channel = lu->channel,
		.target = lu->target,
		.lun = lu->lun,
		.applied = true,
	};

	snprintf(a.hctl, sizeof(a.hctl), "%s", lu->hctl);
	snprintf(a.reason, sizeof(a.reason), "%s", reason);
	pthread_mutex_lock(&s->lock);
	if (GREEDY_REALLOC_EXACT(s->probe_added, s->n_probe_added + 1) >= 0)
		snprintf(s->probe_added[s->n_probe_added++], sizeof(*s->probe_added), "%s",
		         lu->hctl);
	else
		s->fatal = -ENOMEM;
	pthread_mutex_unlock(&s->lock);
	(void)scan_record_action(s, &a);
}

/*
 * After a target probe ("C T 0"): what it instantiated. A probe of LUN 0 (@lun0) can add
 * nothing but LUN 0 of a target, so where the host's targets are its own directories
 * (host_dir_targets()) each target's LUN 0 is looked for that the listing before the probe
 * lacks: a short directory and a lookup per such target, not a listing of every LU on the
 * system again. Elsewhere, or after a probe of another LUN, the bus is listed again and
 * compared. Each LU found is recorded as added, for @reason. @lus/@n_lus: the listing before
 * the probe, updated.
 */
static int probe_update_lus(Scan *s, unsigned host, bool lun0, ScanLu **lus, size_t *n_lus,
                            const char *reason)
{
	_cleanup_free_ TargetAddr *targets = NULL;
	TargetSet ts = {};
	ScanLu *before = *lus, *after = NULL;
	size_t n_before = *n_lus, n_after = 0;
	int r;

	r = lun0 ? host_dir_targets(s->rootfd, host, &ts) : -ENOTDIR;
	targets = ts.v;
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		scan_debug(s, "host%u: the target probe's LUN 0s from the host's %zu targets", host,
		           ts.n);
		for (size_t i = 0; i < ts.n; i++) {
			ScanLu lu = { .host = host,
				      .channel = ts.v[i].channel,
				      .target = ts.v[i].target,
				      .lun = 0,
				      .type = -1 };

			if (lus_have(*lus, *n_lus, &lu) ||
			    !scan_lu_exists(s->rootfd, host, lu.channel, lu.target, 0))
				continue;
			if (GREEDY_REALLOC_EXACT(*lus, *n_lus + 1) < 0)
				return -ENOMEM;
			snprintf(lu.hctl, sizeof(lu.hctl), "%u:%u:%u:0", host, lu.channel,
			         lu.target);
			lus_insert(*lus, *n_lus, &lu);
			(*n_lus)++;
			scan_record_added(s, &lu, reason);
		}
		return 0;
	}

	scan_debug(s, "host%u: listing the LUs again after the probes", host);
	r = scan_list_lus(s->rootfd, host, SCAN_ANY, SCAN_ANY, &after, &n_after);
	if (r < 0)
		return r;
	/* both listings are sorted by address: walk them side by side */
	for (size_t i = 0, k = 0; i < n_after; i++) {
		while (k < n_before && lu_cmp(&before[k], &after[i]) < 0)
			k++;
		if (k < n_before && lu_cmp(&before[k], &after[i]) == 0)
			continue;
		scan_record_added(s, &after[i], reason);
	}
	scan_lus_free(before, n_before);
	*lus = after;
	*n_lus = n_after;
	return 0;
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
	if (GREEDY_REALLOC(s->targets, s->cap_targets, s->n_targets + 1) < 0)
		return s->fatal = -ENOMEM;
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
	return scan_push_job_locked(s, (Job){ .is_host = false, .index = s->n_targets - 1 });
}

/* Write target probe @c @t @l (why: @reason) to @host's scan attribute; a failure is the
 * host's. Whether the kernel took it. */
static bool host_probe(Scan *s, ScanHost *host, const char *c, const char *t, const char *l,
                       const char *reason)
{
	ScanAction a;

	scan_probe_action(&a, host->host, c, t, l, reason);
	(void)scan_apply(s, &a);
	if (a.error < 0)
		host->error = a.error;
	return a.applied;
}

static bool lus_have_lun0(const ScanLu *lus, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (lus[i].lun == 0)
			return true;
	return false;
}

/* Is @host a libata port's (its device below an "ataN" directory)? */
static bool host_is_libata(int rootfd, unsigned host)
{
	char path[64], target[PATH_MAX];
	ssize_t k;

	snprintf(path, sizeof(path), "sys/class/scsi_host/host%u", host);
	k = readlinkat(rootfd, path, target, sizeof(target) - 1);
	if (k < 0)
		return false;
	target[k] = 0;
	for (const char *p = target; (p = strstr(p, "/ata")); p++) {
		size_t n = strspn(p + 4, "0123456789");

		if (n > 0 && p[4 + n] == '/')
			return true;
	}
	return false;
}

/* Does a selector of @host name LUNs (H:C:T:L, --luns)? */
static bool host_sel_luns(const Scan *s, unsigned host)
{
	for (size_t i = 0; i < s->n_sel; i++)
		if ((s->sel[i].host == SCAN_ANY || s->sel[i].host == host) &&
		    s->sel[i].lun != SCAN_ANY)
			return true;
	return false;
}

void scan_run_host(Scan *s, ScanHost *host)
{
	TargetSet ts = {};
	ScanLu *lus = NULL;
	size_t n_lus = 0;
	int r;

	pthread_mutex_lock(&s->lock);
	scan_emit_locked(s, &(ScanEvent){ .kind = SCAN_EVENT_HOST_BEGIN, .host = host });
	pthread_mutex_unlock(&s->lock);

	r = transport_targets(s, host->host, &ts);
	if (r < 0)
		goto fail;
	r = scan_list_lus(s->rootfd, host->host, SCAN_ANY, SCAN_ANY, &lus, &n_lus);
	if (r < 0)
		goto fail;

	/*
	 * Finding targets: LUN 0 of each target is what the kernel needs to instantiate
	 * before anyone can send REPORT LUNS. Transport targets are probed one by one (only
	 * those with no LU yet); parallel and virtual HBAs get one "C T 0" with wildcards,
	 * so the kernel bounds the walk by the host's own max_channel/max_id, which sysfs
	 * does not show.
	 */
	if (s->flags & SCAN_ADD) {
		bool whole = ts.unresolved || ts.n == 0;
		bool sel_target = false, probed = false, lun0 = true;

		/* Selectors naming a channel or a target (H:C:T, H:-:T for a target ID on any
		 * channel, H:C:- for every target of a channel): probe just those, each once. */
		for (size_t i = 0; i < s->n_sel; i++)
			if (s->sel[i].host == host->host &&
			    (s->sel[i].channel != SCAN_ANY || s->sel[i].target != SCAN_ANY))
				sel_target = true;

		if (sel_target) {
			for (size_t i = 0; i < s->n_sel; i++) {
				const ScanSelector *x = &s->sel[i];
				char c[24], t[24], l[24];
				bool done = false;

				if (x->host != host->host ||
				    (x->channel == SCAN_ANY && x->target == SCAN_ANY) ||
				    (x->channel != SCAN_ANY && x->target != SCAN_ANY &&
				     host_has_target(lus, n_lus, (unsigned)x->channel,
				                     (unsigned)x->target)))
					continue;
				for (size_t j = 0; !done && j < i; j++)
					done = s->sel[j].host == x->host &&
					       s->sel[j].channel == x->channel &&
					       s->sel[j].target == x->target &&
					       s->sel[j].lun == x->lun;
				if (done)
					continue;
				if (x->channel == SCAN_ANY)
					snprintf(c, sizeof(c), "-");
				else
					snprintf(c, sizeof(c), "%" PRId64, x->channel);
				if (x->target == SCAN_ANY)
					snprintf(t, sizeof(t), "-");
				else
					snprintf(t, sizeof(t), "%" PRId64, x->target);
				/* a selected LUN is probed itself: the target may have no
				 * LUN 0 */
				if (x->lun == SCAN_ANY)
					snprintf(l, sizeof(l), "0");
				else
					snprintf(l, sizeof(l), "%" PRId64, x->lun);
				lun0 = lun0 && x->lun == SCAN_ANY;
				probed |= host_probe(s, host, c, t, l, "selected target has no LU");
			}
		} else if (whole) {
			probed |= host_probe(s, host, "-", "-", "0",
			                     "find targets: LUN 0 of every target the host allows");
		} else {
			for (size_t i = 0; i < ts.n; i++) {
				char c[16], t[16], why[64];

				if (host_has_target(lus, n_lus, ts.v[i].channel, ts.v[i].target) ||
				    !scan_sel_match(s->sel, s->n_sel, host->host, ts.v[i].channel,
				                    ts.v[i].target, SCAN_ANY))
					continue;
				snprintf(c, sizeof(c), "%u", ts.v[i].channel);
				snprintf(t, sizeof(t), "%u", ts.v[i].target);
				snprintf(why, sizeof(why), "%s target without LU", ts.v[i].source);
				probed |= host_probe(s, host, c, t, "0", why);
			}
		}
		/* Only a target probe the kernel took can have added an LU: without one,
		 * listing a thousand LUs again would find the same ones. */
		if (probed) {
			r = probe_update_lus(s, host->host, lun0, &lus, &n_lus, PROBE_ADDED);
			if (r < 0)
				goto fail;
		}
		/* A selected target (H:C:T) its LUN 0 probe did not instantiate: the kernel's
		 * own scan of it, as for a transport target with no LU to ask. */
		if (sel_target) {
			bool scanned = false;

			for (size_t i = 0; i < s->n_sel; i++) {
				const ScanSelector *x = &s->sel[i];
				char c[24], t[24];

				if (x->host != host->host || x->channel == SCAN_ANY ||
				    x->target == SCAN_ANY || x->lun != SCAN_ANY ||
				    host_has_target(lus, n_lus, (unsigned)x->channel,
				                    (unsigned)x->target))
					continue;
				snprintf(c, sizeof(c), "%" PRId64, x->channel);
				snprintf(t, sizeof(t), "%" PRId64, x->target);
				scanned |= host_probe(s, host, c, t, "-",
				                      "selected target has no LUN 0: the kernel's "
				                      "scan of the target");
			}
			if (scanned) {
				r = probe_update_lus(s, host->host, false, &lus, &n_lus,
				                     "no LUN 0 on its target, instantiated by the "
				                     "kernel's scan of the target");
				if (r < 0)
					goto fail;
			}
		}
		/*
		 * A host-wide probe that left the host without any LUN 0: either there is no
		 * target, or its targets have no LUN 0 (an array or hypervisor exporting LUN 1
		 * and up answers LUN 0 with peripheral qualifier 1 or 3, and the kernel keeps no
		 * trace of the target). As for a transport target with no LU to ask, the
		 * kernel's own scan of every target, which sends REPORT LUNS to such a LUN 0,
		 * finds them. Unless a selector names LUNs: then no other LUN is to be added;
		 * nor on a libata host, whose devices are LUN 0 each and where every scan of
		 * the host resets and probes each empty link again.
		 */
		if (whole && !sel_target && probed && !lus_have_lun0(lus, n_lus) &&
		    !host_sel_luns(s, host->host) && !host_is_libata(s->rootfd, host->host)) {
			if (host_probe(
			            s, host, "-", "-", "-",
			            "no LUN 0 on any target: the kernel's scan of every target")) {
				r = probe_update_lus(s, host->host, false, &lus, &n_lus,
				                     "no LUN 0 on its target, instantiated by the "
				                     "kernel's scan of the host");
				if (r < 0)
					goto fail;
			}
		}
	}

	pthread_mutex_lock(&s->lock);
	/* transport targets first, so that they keep the name of their transport */
	for (size_t i = 0; i < ts.n; i++)
		if (scan_sel_match(s->sel, s->n_sel, host->host, ts.v[i].channel, ts.v[i].target,
		                   SCAN_ANY))
			(void)queue_target_locked(s, host->host, ts.v[i].channel, ts.v[i].target,
			                          ts.v[i].source, lus, n_lus);
	/* sorted by address: one target's LUs are adjacent, a job per run of them */
	for (size_t i = 0, k; i < n_lus; i = k) {
		for (k = i + 1; k < n_lus && lus[k].channel == lus[i].channel &&
		                lus[k].target == lus[i].target;
		     k++)
			;
		if (scan_sel_match(s->sel, s->n_sel, host->host, lus[i].channel, lus[i].target,
		                   SCAN_ANY))
			(void)queue_target_locked(s, host->host, lus[i].channel, lus[i].target,
			                          "sysfs", lus + i, k - i);
	}
	pthread_mutex_unlock(&s->lock);
	scan_lus_free(lus, n_lus);
	free(ts.v);
	return;
fail:
	host->error = r;
	scan_lus_free(lus, n_lus);
	free(ts.v);
}
