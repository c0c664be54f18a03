/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The Manager's names for udev (lund(8), UDEV): under udevd, the links of lund's own trees are
 * udev's to make. The claims are resolved as ever; what each LU wins is written, per device
 * node, to a record in <run-dir>/udev (io/udevrec.h) that rules/59-lund.rules imports, and a
 * "change" uevent, written off the loop, makes udev read it again. A record changes only when
 * the names do, so the change events lund causes (and sees) do not make it write again.
 *
 * The records kept here are per LU, at most one per node it has (block, sg, tape, bsg) and one
 * for the dm-multipath map holding its disk, when it wins the map's names.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "log.h"
#include "macro.h"
#include "manager-private.h"
#include "sysfs.h"
#include "udevrec.h"

#define UDEV_BUCKETS   1024
#define UDEV_MAX_NODES 6 /* block, tape, tape_nr, sg, bsg; a dm-multipath map */
/* As long as the other jobs of the I/O worker get: a uevent write is one write(2). */
#define UEVENT_JOB_TIMEOUT_USEC (60 * 1000 * 1000ULL)

typedef struct NodeRecord {
	char *node; /* below /dev: "sda", "sg0", "bsg/0:0:0:0" */
	char key[UDEVREC_KEY_MAX];
	char *text;
} NodeRecord;

typedef struct LuRecords {
	const Lu *lu;
	unsigned gen; /* the last full sync that saw the LU */
	size_t n;
	NodeRecord v[UDEV_MAX_NODES];
	struct LuRecords *next;
} LuRecords;

struct UdevRecords {
	LuRecords *bucket[UDEV_BUCKETS];
	unsigned gen;
	bool swept; /* records of an earlier run checked */
};

/* What one node of an LU wants while it is worked out. */
typedef struct NodeWant {
	const char *node;
	char *links[UDEVREC_MAX_LINKS];
	size_t n;
	bool overflow;
} NodeWant;

static size_t bucket_of(const Lu *lu)
{
	return ((uintptr_t)lu >> 4) % UDEV_BUCKETS;
}

static void node_record_done(NodeRecord *r)
{
	free(r->node);
	free(r->text);
	*r = (NodeRecord){};
}

static LuRecords **lu_records_find(UdevRecords *u, const Lu *lu)
{
	LuRecords **p = &u->bucket[bucket_of(lu)];

	while (*p && (*p)->lu != lu)
		p = &(*p)->next;
	return p;
}

static void lu_records_unlink(LuRecords **p)
{
	LuRecords *r = *p;

	*p = r->next;
	for (size_t i = 0; i < r->n; i++)
		node_record_done(&r->v[i]);
	free(r);
}

UdevRecords *udev_records_free(UdevRecords *u)
{
	if (!u)
		return NULL;
	for (size_t b = 0; b < UDEV_BUCKETS; b++)
		while (u->bucket[b])
			lu_records_unlink(&u->bucket[b]);
	free(u);
	return NULL;
}

bool manager_udev_set(const Manager *m, unsigned set)
{
	return m->udev_links && (set == LINKSET_SCSI || set == LINKSET_SCSI_PATH) &&
	       m->link_dir[set] && strneq(m->link_dir[set], "dev/", 4);
}

typedef struct UeventJob {
	int rootfd;
	char *path;
} UeventJob;

static void uevent_job_free(void *data)
{
	UeventJob *j = data;

	free(j->path);
	free(j);
}

static int uevent_job_run(void *data)
{
	UeventJob *j = data;

	return sysfs_write_attr(j->rootfd, j->path, "change");
}

static void uevent_job_done(void *data, int r)
{
	UeventJob *j = data;

	/* A device that went meanwhile has no uevent file, and no names to tell. */
	if (r < 0 && r != -ENOENT && r != -ENODEV)
		log_warning_errno(
		        r, "/%s: failed to ask udev to read lund's names again, ignoring: %m",
		        j->path);
}

/* Ask udev to process the device of record @key again, from a worker: never in the loop. */
static void trigger_change(Manager *m, const char *key)
{
	UeventJob *j;
	int r;

	j = calloc(1, sizeof(*j));
	if (!j)
		return;
	j->rootfd = m->rootfd;
	if (udevrec_uevent_path(key, &j->path) < 0) {
		uevent_job_free(j);
		return;
	}
	r = worker_submit(m->io_worker, uevent_job_run, uevent_job_done, uevent_job_free, j,
	                  UEVENT_JOB_TIMEOUT_USEC);
	if (r < 0)
		log_warning_errno(r, "%s: cannot tell udev of changed names, ignoring: %m", key);
}

/* The record key of @lu's node @node from the LU's sysfs directory: "b8:0", "c21:0". */
static int node_key(Manager *m, const Lu *lu, const char *node, char *key)
{
	_cleanup_free_ char *path = NULL, *dev = NULL;
	const char *class = NULL;
	bool block = false;
	int r;

	if (streq_ptr(node, lu_mpath(lu))) {
		/* The dm-multipath map holding the LU's disk (manager-mpath.c): not below the
		 * LU's sysfs directory. */
		if (asprintf(&path, "sys/class/block/%s/dev", node) < 0)
			return -ENOMEM;
		block = true;
	} else if (streq_ptr(node, lu->block)) {
		class = "block";
		block = true;
	} else if (streq_ptr(node, lu->sg))
		class = "scsi_generic";
	else if (streq_ptr(node, lu_tape(lu)) || streq_ptr(node, lu_tape_nr(lu)))
		class = "scsi_tape";
	else if (strneq(node, "bsg/", 4)) {
		class = "bsg";
		node += 4;
	} else
		return -ENODEV;
	if (!path &&
	    (!lu->syspath || asprintf(&path, "%s/%s/%s/dev", lu->syspath, class, node) < 0))
		return -ENOMEM;
	r = sysfs_read_string(m->rootfd, path, &dev);
	if (r < 0)
		return r;
	if (strlen(dev) + 2 > UDEVREC_KEY_MAX)
		return -EBADMSG;
	key[0] = block ? 'b' : 'c';
	strcpy(key + 1, dev);
	return udevrec_key_valid(key) < 0 ? -EBADMSG : 0;
}

/* The node a link target of one of lund's trees below dev/ names: "../../sda" -> "sda". */
static const char *target_node(const char *target)
{
	while (strneq(target, "../", 3))
		target += 3;
	return target;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* What @lu wins in the udev sets, per node. */
static int lu_node_wants(Manager *m, const Lu *lu, NodeWant *w, size_t *ret_n)
{
	size_t n = 0;
	ClaimView view;

	for (size_t i = 0; i < claims_n_of(lu); i++) {
		const Claim *c = claims_of(lu, i, &view);
		const char *t, *node;
		char *link = NULL;
		size_t k;
		int r;

		if (c->winner != lu || !manager_udev_set(m, c->set) || c->foreign)
			continue;
		t = claims_target_of(lu, i); /* not the view's: kept in @w */
		if (!t)
			continue;
		node = target_node(t);
		for (k = 0; k < n && !streq(w[k].node, node); k++)
			;
		if (k == n) {
			if (n == UDEV_MAX_NODES)
				continue;
			w[n++] = (NodeWant){ .node = node };
		}
		r = udevrec_escape_link(m->link_dir[c->set] + 4, c->name, &link);
		if (r == -ENOMEM) {
			*ret_n = n;
			return r;
		}
		if (r < 0)
			continue; /* a name lund's links would not take either */
		if (w[k].n == UDEVREC_MAX_LINKS) {
			w[k].overflow = true;
			free(link);
			continue;
		}
		w[k].links[w[k].n++] = link;
	}
	for (size_t k = 0; k < n; k++)
		qsort(w[k].links, w[k].n, sizeof(char *), cmp_str);
	*ret_n = n;
	return 0;
}

static void node_wants_done(NodeWant *w, size_t n)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < w[k].n; i++)
			free(w[k].links[i]);
}

static void record_remove(Manager *m, const Lu *lu, NodeRecord *r, bool gone)
{
	LogDevice dev = { .hctl = lu->hctl };
	int k = udevrec_remove(m->udevrecfd, r->key);

	if (k < 0)
		log_full(LOG_WARNING, k, &dev, NULL,
		         "/dev/%s: cannot remove its udev record %s: %m", r->node, r->key);
	else
		log_full(LOG_INFO, 0, &dev, MESSAGE_LINK_REMOVED,
		         "/dev/%s: no names for udev now, record %s removed", r->node, r->key);
	if (!gone)
		trigger_change(m, r->key);
}

/* Bring @lu's records to what it wins now (nothing when @gone). */
void manager_udev_sync_lu(Manager *m, const Lu *lu, bool gone)
{
	LuRecords **p, *rec;
	NodeWant w[UDEV_MAX_NODES] = {};
	NodeRecord next[UDEV_MAX_NODES] = {};
	LogDevice dev = { .hctl = lu->hctl };
	size_t n = 0, nn = 0;
	int r = 0;

	if (!m->udev)
		return;
	if (!gone)
		r = lu_node_wants(m, lu, w, &n);
	if (r < 0) {
		log_warning_errno(r, "%s: cannot work out its names for udev: %m", lu->hctl);
		node_wants_done(w, n);
		return;
	}
	p = lu_records_find(m->udev, lu);
	rec = *p;

	for (size_t k = 0; k < n; k++) {
		_cleanup_free_ char *text = NULL;
		NodeRecord *old = NULL;
		NodeRecord nr = {};

		if (w[k].n == 0)
			continue;
		for (size_t i = 0; rec && i < rec->n; i++)
			if (rec->v[i].node && streq(rec->v[i].node, w[k].node))
				old = &rec->v[i];
		if (w[k].overflow)
			log_full(LOG_WARNING, 0, &dev, NULL,
			         "/dev/%s: more than %d names, udev gets the first %d", w[k].node,
			         UDEVREC_MAX_LINKS, UDEVREC_MAX_LINKS);
		r = udevrec_format((const char *const *)w[k].links, w[k].n, &text);
		if (r < 0) {
			log_full(LOG_WARNING, r, &dev, NULL,
			         "/dev/%s: cannot make its udev record: %m", w[k].node);
			continue;
		}
		if (old && streq(old->text, text)) {
			next[nn++] = *old;
			*old = (NodeRecord){};
			continue;
		}
		if (old)
			memcpy(nr.key, old->key, sizeof(nr.key));
		else {
			r = node_key(m, lu, w[k].node, nr.key);
			if (r < 0) {
				log_full(LOG_WARNING, r, &dev, NULL,
				         "/dev/%s: no device number, no udev record: %m",
				         w[k].node);
				continue;
			}
		}
		r = udevrec_write(m->udevrecfd, nr.key, text);
		if (r < 0) {
			log_full(LOG_WARNING, r, &dev, NULL,
			         "/dev/%s: failed to write its udev record %s: %m", w[k].node,
			         nr.key);
			continue;
		}
		nr.node = strdup(w[k].node);
		nr.text = TAKE_PTR(text);
		if (!nr.node) {
			node_record_done(&nr);
			continue;
		}
		if (old)
			node_record_done(old);
		if (r > 0) {
			log_full(LOG_INFO, 0, &dev, MESSAGE_LINK_CREATED,
			         "/dev/%s: %zu names for udev in record %s", w[k].node, w[k].n,
			         nr.key);
			trigger_change(m, nr.key);
		}
		next[nn++] = nr;
	}
	node_wants_done(w, n);

	/* Nodes that lost every name, or are gone. */
	for (size_t i = 0; rec && i < rec->n; i++)
		if (rec->v[i].node) {
			record_remove(m, lu, &rec->v[i], gone);
			node_record_done(&rec->v[i]);
		}
	if (nn == 0) {
		if (rec)
			lu_records_unlink(p);
		return;
	}
	if (!rec) {
		rec = calloc(1, sizeof(*rec));
		if (!rec) {
			for (size_t i = 0; i < nn; i++)
				node_record_done(&next[i]);
			return;
		}
		rec->lu = lu;
		*p = rec;
	}
	memcpy(rec->v, next, sizeof(next));
	rec->n = nn;
	rec->gen = m->udev->gen;
}

void manager_udev_mark(Manager *m, const Lu *lu)
{
	if (!m->udev_links || m->bulk)
		return;
	if (!lu || m->n_udev_dirty == ELEMENTSOF(m->udev_dirty)) {
		m->udev_resync = true;
		return;
	}
	for (size_t i = 0; i < m->n_udev_dirty; i++)
		if (m->udev_dirty[i] == lu)
			return;
	m->udev_dirty[m->n_udev_dirty++] = lu;
}

void manager_udev_flush(Manager *m, const Lu *lu, bool gone)
{
	size_t n = m->n_udev_dirty;

	m->n_udev_dirty = 0;
	manager_udev_sync_lu(m, lu, gone);
	if (m->udev_resync) {
		m->udev_resync = false;
		manager_udev_sync_all(m);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (m->udev_dirty[i] != lu)
			manager_udev_sync_lu(m, m->udev_dirty[i], false);
}

/* This run's record keys, sorted, in @ret (NULL when there are none). 0 or -ENOMEM. */
static int known_keys(UdevRecords *u, const char ***ret, size_t *ret_n)
{
	const char **v = NULL;
	size_t n = 0, size = 0;

	for (size_t b = 0; b < UDEV_BUCKETS; b++)
		for (LuRecords *r = u->bucket[b]; r; r = r->next)
			for (size_t i = 0; i < r->n; i++) {
				if (GREEDY_REALLOC(v, size, n + 1) < 0) {
					free(v);
					return -ENOMEM;
				}
				v[n++] = r->v[i].key;
			}
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_str);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Records an earlier run left for devices this one gives no name: removed, and udev told. */
static void sweep_old_records(Manager *m)
{
	_cleanup_close_ int fd = openat(m->udevrecfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ const char **keys = NULL;
	size_t n_keys = 0;
	DIR *d;

	if (known_keys(m->udev, &keys, &n_keys) < 0) {
		log_warning("Out of memory, records of an earlier run left for the next start");
		return;
	}
	if (fd < 0 || !(d = fdopendir(fd)))
		return;
	fd = -EBADF;
	for (struct dirent *de; (de = readdir(d));) {
		const char *name = de->d_name;

		if (streq(name, ".") || streq(name, ".."))
			continue;
		if (strneq(name, ".#", 2)) {
			(void)unlinkat(dirfd(d), name, 0);
			continue;
		}
		if (udevrec_key_valid(name) < 0 ||
		    (keys && bsearch(&name, keys, n_keys, sizeof(*keys), cmp_str)))
			continue;
		if (unlinkat(dirfd(d), name, 0) < 0)
			continue;
		log_info("Udev record %s of a device lund no longer names removed", name);
		trigger_change(m, name);
	}
	closedir(d);
}

/* Every LU's records (start-up, resync); records of LUs no longer there are dropped. */
void manager_udev_sync_all(Manager *m)
{
	UdevRecords *u = m->udev;

	if (!u)
		return;
	u->gen++;
	for (Lu *lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu))
		manager_udev_sync_lu(m, lu, false);
	for (size_t b = 0; b < UDEV_BUCKETS; b++)
		for (LuRecords **p = &u->bucket[b]; *p;) {
			if ((*p)->gen == u->gen) {
				p = &(*p)->next;
				continue;
			}
			/* Never dereference the LU: it is gone. */
			for (size_t i = 0; i < (*p)->n; i++)
				(void)udevrec_remove(m->udevrecfd, (*p)->v[i].key);
			lu_records_unlink(p);
		}
	if (!u->swept) {
		sweep_old_records(m);
		u->swept = true;
	}
}

/* Does a udev rules directory below the root hold 59-lund.rules? */
static bool rule_installed(int rootfd)
{
	static const char *const dirs[] = { "etc/udev/rules.d", "run/udev/rules.d",
		                            "usr/local/lib/udev/rules.d", "usr/lib/udev/rules.d",
		                            "lib/udev/rules.d" };

	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		char path[64];

		snprintf(path, sizeof(path), "%s/59-lund.rules", dirs[i]);
		if (faccessat(rootfd, path, F_OK, 0) >= 0)
			return true;
	}
	return false;
}

static bool udevd_expected(int rootfd)
{
	struct stat st;

	/* sd_booted()'s test, below the root: systemd as init runs systemd-udevd, possibly
	 * after lund (which starts before sysinit.target). Else a running udevd's socket. */
	if (fstatat(rootfd, "run/systemd/system", &st, AT_SYMLINK_NOFOLLOW) >= 0 &&
	    S_ISDIR(st.st_mode))
		return true;
	return faccessat(rootfd, "run/udev/control", F_OK, AT_SYMLINK_NOFOLLOW) >= 0;
}

int manager_udev_setup(Manager *m)
{
	bool rule;
	int r;

	switch (m->config.udev_links) {
	case MANAGER_UDEV_LINKS_NEVER:
		return 0;
	case MANAGER_UDEV_LINKS_ALWAYS:
		break;
	default:
		if (!udevd_expected(m->rootfd))
			return 0;
		rule = rule_installed(m->rootfd);
		if (!rule) {
			log_notice("udevd runs but no 59-lund.rules is installed: lund writes its "
			           "links itself");
			return 0;
		}
	}

	if (mkdirat(m->runfd, "udev", 0755) < 0 && errno != EEXIST)
		return log_error_errno(-errno, "Failed to create %s/udev: %m", m->run_dir);
	m->udevrecfd = openat(m->runfd, "udev", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (m->udevrecfd < 0)
		return log_error_errno(-errno, "Failed to open %s/udev: %m", m->run_dir);
	m->udev = calloc(1, sizeof(*m->udev));
	if (!m->udev)
		return log_error_errno(-ENOMEM, "Out of memory");
	m->udev_links = true;

	/* One writer per link: the links lund made itself before are removed first; udev makes
	 * them again from the records. */
	for (LinkSet s = 0; s < _LINKSET_MAX; s++) {
		LinksStats st = {};

		if (!m->links[s] || !manager_udev_set(m, s))
			continue;
		r = links_reconcile(m->links[s], NULL, 0, NULL, &st);
		if (r < 0)
			log_warning_errno(r, "/%s: could not remove lund's own links, ignoring: %m",
			                  m->link_dir[s]);
		else if (st.removed > 0)
			log_info("/%s: %u links lund made itself removed, udev makes them now",
			         m->link_dir[s], st.removed);
		log_info("/%s: names for udev in %s/udev (59-lund.rules)", m->link_dir[s],
		         m->run_dir);
	}
	return 0;
}
