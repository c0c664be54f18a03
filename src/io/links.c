/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "links.h"
#include "macro.h"
#include "sysfs.h"

/* Temporary entries: a prefix no name lund writes can start with (names never start with '.'
 * followed by '#' in udev's escaping, and a foreign file with this prefix is only ever touched
 * when it is a symlink). Prefix + 16 hex digits stays far below NAME_MAX. */
#define LINKS_TMP_PREFIX ".#lund."

/* A record holds the targets that count as lund's for a name, separated by '\n' (targets never
 * contain control bytes): normally one, two while an update is in flight. */
#define RECORD_SEP '\n'

struct Links {
	int rootfd;
	int record_rootfd;
	char *link_dir;
	char *record_dir;
	LinksReportFn report;
	void *userdata;
	LinksFaultFn fault;
	void *fault_userdata;
	LinksStats *stats;      /* while a reconcile runs */
	unsigned holds;         /* links_hold() calls not released yet */
	int held_dfd, held_rfd; /* the directories while held, once an operation opened them */
};

static const char *const link_action_table[_LINK_ACTION_MAX] = {
	[LINK_CREATED] = "created",
	[LINK_UPDATED] = "updated",
	[LINK_REMOVED] = "removed",
	[LINK_FOREIGN] = "foreign",
	[LINK_LOST] = "lost",
	[LINK_TEMP_REMOVED] = "temp-removed",
	[LINK_FAILED] = "failed",
	[LINK_ADOPTED] = "adopted",
	[LINK_RECORD_REPAIRED] = "record-repaired",
};

DEFINE_NAME_LOOKUP(link_action_name, LinkAction, link_action_table)

/* Bytes no link name or target may hold; '/' only in a name. Every link written and
 * removed is checked: one table lookup per byte, the length counted on the way. */
static const bool name_bad[256] = {
	[0x01 ... 0x1f] = true,
	['/'] = true,
	[0x7f] = true,
};

int links_name_valid(const char *name)
{
	size_t len = 0;

	if (isempty(name))
		return -EINVAL;
	for (const uint8_t *p = (const uint8_t *)name; *p; p++, len++)
		if (name_bad[*p] || len >= NAME_MAX)
			return -EINVAL;
	if (streq(name, ".") || streq(name, ".."))
		return -EINVAL;
	/* Our own temporary names must never be mistaken for a link, nor a link for one. */
	if (strneq(name, LINKS_TMP_PREFIX, strlen(LINKS_TMP_PREFIX)))
		return -EINVAL;
	return 0;
}

int links_target_valid(const char *target)
{
	size_t len = 0;

	if (isempty(target))
		return -EINVAL;
	for (const uint8_t *p = (const uint8_t *)target; *p; p++, len++)
		if ((name_bad[*p] && *p != '/') || len >= PATH_MAX - 1)
			return -EINVAL;
	return 0;
}

static int dir_path_valid(const char *path)
{
	if (isempty(path) || path[0] == '/')
		return -EINVAL;
	return 0;
}

/* Open (creating as needed) a directory below @rootfd without following any symlink. */
int links_open_dir(int rootfd, const char *path, bool create)
{
	_cleanup_free_ char *copy = NULL;
	_cleanup_close_ int fd = -EBADF;
	char *save = NULL;

	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		int nfd;

		if (streq(c, ".") || streq(c, ".."))
			return -EINVAL;
		/* Every link operation walks here: create a component only when it is missing. */
		nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, c, 0755) < 0 && errno != EEXIST)
				return -errno;
			nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (nfd < 0)
			return errno == ELOOP ? -ENOTDIR : -errno;
		safe_close(fd);
		fd = nfd;
	}
	return TAKE_FD(fd);
}

/* The target of symlink @name: -ENOENT when absent, -EINVAL when not a symlink. */
static int read_link(int dfd, const char *name, char **ret)
{
	/* Read on the stack, kept at its length: a page allocated per read cost more than the
	 * read itself, and left holes in the heap between long-lived strings. */
	char buf[PATH_MAX];
	ssize_t k;

	k = readlinkat(dfd, name, buf, sizeof(buf));
	if (k < 0)
		return -errno;
	if (k >= (ssize_t)sizeof(buf))
		return -ENAMETOOLONG;
	*ret = strndup(buf, (size_t)k);
	return *ret ? 0 : -ENOMEM;
}

int links_record_dir_escape(const char *link_dir, char **ret)
{
	char *r, *p;

	assert_return(link_dir && ret, -EINVAL);
	r = malloc(strlen(link_dir) * 4 + 1);
	if (!r)
		return -ENOMEM;
	p = r;
	for (const char *c = link_dir; *c; c++) {
		if (*c == '/')
			*p++ = '-';
		else if (*c == '-' || *c == '\\')
			p += sprintf(p, "\\x%02x", (unsigned char)*c);
		else
			*p++ = *c;
	}
	*p = 0;
	*ret = r;
	return 0;
}

int links_record_dir_unescape(const char *name, char **ret)
{
	_cleanup_free_ char *r = NULL;
	char *p;

	assert_return(name && ret, -EINVAL);
	r = malloc(strlen(name) + 1);
	if (!r)
		return -ENOMEM;
	p = r;
	for (const char *c = name; *c; c++) {
		if (*c == '-')
			*p++ = '/';
		else if (*c == '\\') {
			/* "\xHH" exactly: the escape is never longer than what is left of @name */
			int hi = c[1] == 'x' ? unhexchar(c[2]) : -1;
			int lo = hi >= 0 ? unhexchar(c[3]) : -1;

			if (lo < 0 || (hi | lo) == 0)
				return -EINVAL;
			*p++ = (char)(hi << 4 | lo);
			c += 3;
		} else
			*p++ = *c;
	}
	*p = 0;
	*ret = TAKE_PTR(r);
	return 0;
}

bool links_record_has(const char *record, const char *target)
{
	size_t len = strlen(target);

	for (const char *p = record; p;) {
		const char *e = strchr(p, RECORD_SEP);
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == len && memcmp(p, target, len) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/*
 * A fresh value for a temporary name: uniqueness, not secrecy (the directories are root's, and
 * the creating call retries on EEXIST anyway). One random start per process, then a counter
 * through splitmix64's finaliser: a storm writes eight links per LU, and a getrandom() each was
 * a system call per link in the event loop.
 */
static uint64_t tmp_value(void)
{
	static uint64_t seed, counter;
	uint64_t s = __atomic_load_n(&seed, __ATOMIC_RELAXED), z;

	if (s == 0) {
		if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s))
			s = ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&s;
		s |= 1;
		/* two threads racing here each keep a seed of their own: still unique names */
		__atomic_store_n(&seed, s, __ATOMIC_RELAXED);
	}
	z = s + __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Every step on disk asks the fault hook (links_set_fault_fn()) first: true when it fails the
 * step, errno set as the system call would. */
static bool faulted(Links *l, LinksStep step, const char *name)
{
	int r;

	if (!l->fault)
		return false;
	r = l->fault(step, name, l->fault_userdata);
	if (r >= 0)
		return false;
	errno = -r;
	return true;
}

static int l_symlinkat(Links *l, const char *target, int dfd, const char *name)
{
	return faulted(l, LINKS_STEP_SYMLINK, name) ? -1 : symlinkat(target, dfd, name);
}

static int l_renameat2(Links *l, int dfd, const char *from, const char *to, unsigned flags)
{
	return faulted(l, LINKS_STEP_RENAME, to) ? -1 : renameat2(dfd, from, dfd, to, flags);
}

static int l_unlinkat(Links *l, int dfd, const char *name, int flags)
{
	return faulted(l, LINKS_STEP_UNLINK, name) ? -1 : unlinkat(dfd, name, flags);
}

static int tmp_name(char ret[static sizeof(LINKS_TMP_PREFIX) + 16])
{
	uint64_t v = tmp_value();

	/* LINKS_TMP_PREFIX and 16 hex digits; written out by hand, as printf costs more than
	 * the link operation it names (every link write makes one or two). */
	memcpy(ret, LINKS_TMP_PREFIX, sizeof(LINKS_TMP_PREFIX) - 1);
	for (size_t i = 0; i < 16; i++)
		ret[sizeof(LINKS_TMP_PREFIX) - 1 + i] =
		        "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
	ret[sizeof(LINKS_TMP_PREFIX) - 1 + 16] = 0;
	return 0;
}

/* A new symlink to @target under a fresh temporary name in @dfd. */
static int symlink_tmp(Links *l, int dfd, const char *target,
                       char ret[static sizeof(LINKS_TMP_PREFIX) + 16])
{
	for (unsigned i = 0; i < 16; i++) {
		int r;

		tmp_name(ret);
		r = l_symlinkat(l, target, dfd, ret) >= 0 ? 0 : -errno;
		if (r >= 0)
			return 0;
		if (r != -EEXIST)
			return r;
	}
	return -EEXIST;
}

void links_set_fault_fn(Links *l, LinksFaultFn fn, void *userdata)
{
	if (!l)
		return;
	l->fault = fn;
	l->fault_userdata = userdata;
}

static bool rename_flags_unsupported(int err)
{
	return err == EINVAL || err == ENOSYS || err == EOPNOTSUPP;
}

/* Move @from to @to only if @to does not exist. */
static int rename_noreplace(Links *l, int dfd, const char *from, const char *to)
{
	if (l_renameat2(l, dfd, from, to, RENAME_NOREPLACE) >= 0)
		return 0;
	if (!rename_flags_unsupported(errno))
		return -errno;
	/* No RENAME_NOREPLACE on this file system: a hard link of the symlink is just as
	 * exclusive, then drop the old name. */
	if (linkat(dfd, from, dfd, to, 0) < 0)
		return -errno;
	(void)l_unlinkat(l, dfd, from, 0);
	return 0;
}

/* Write the record of @name atomically: @targets is what counts as lund's link. */
static int record_write(Links *l, int rfd, const char *name, const char *targets)
{
	char tmp[sizeof(LINKS_TMP_PREFIX) + 16];
	int r;

	r = symlink_tmp(l, rfd, targets, tmp);
	if (r < 0)
		return r;
	if (l_renameat2(l, rfd, tmp, name, 0) < 0) {
		r = -errno;
		(void)l_unlinkat(l, rfd, tmp, 0);
		return r;
	}
	return 0;
}

static int record_drop(Links *l, int rfd, const char *name)
{
	if (l_unlinkat(l, rfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

static void report(Links *l, LinkAction a, const char *name, const char *target, int error)
{
	if (l->stats && a == LINK_LOST)
		l->stats->lost++;
	if (l->stats && a == LINK_RECORD_REPAIRED)
		l->stats->repaired++;
	if (l->report)
		l->report(a, name, target, error, l->userdata);
}

/* Remove entry @name of @dfd whatever it is, a directory with its contents (bounded depth). */
static int remove_entry(Links *l, int dfd, const char *name, unsigned depth)
{
	_cleanup_(closedirp) DIR *d = NULL;
	int r;

	if (l_unlinkat(l, dfd, name, 0) >= 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	if (depth == 0)
		return -ELOOP;
	r = sysfs_opendir_flags(dfd, name, O_NOFOLLOW, &d);
	if (r < 0)
		return r;
	for (struct dirent *de; (de = readdir(d));)
		if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
			(void)remove_entry(l, dirfd(d), de->d_name, depth - 1);
	if (l_unlinkat(l, dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

/* A record entry that cannot be one (not a symlink, a bad name): reported and removed. */
static int record_repair(Links *l, int rfd, const char *name)
{
	int r = remove_entry(l, rfd, name, 8);

	if (r < 0)
		return r;
	report(l, LINK_RECORD_REPAIRED, name, NULL, 0);
	return 0;
}

/* The record of @name: -ENOENT when there is none (a broken entry is repaired into none). */
static int record_read(Links *l, int rfd, const char *name, char **ret)
{
	int r = read_link(rfd, name, ret);

	if (r == -EINVAL) {
		r = record_repair(l, rfd, name);
		return r < 0 ? r : -ENOENT;
	}
	return r;
}

/* Whether link target @cur is lund's: recorded, or what the caller made itself. */
static bool owned(const char *rec, const char *known, const char *cur)
{
	return cur &&
	       ((rec && links_record_has(rec, cur)) || (known && links_record_has(known, cur)));
}

int links_new(int rootfd, const char *link_dir, int record_rootfd, const char *record_dir,
              LinksReportFn reportfn, void *userdata, Links **ret)
{
	Links *l;

	assert_return(rootfd >= 0 && record_rootfd >= 0, -EBADF);
	assert_return(dir_path_valid(link_dir) >= 0, -EINVAL);
	assert_return(dir_path_valid(record_dir) >= 0, -EINVAL);
	assert_return(ret, -EINVAL);

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->rootfd = l->record_rootfd = l->held_dfd = l->held_rfd = -EBADF;
	l->rootfd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	l->record_rootfd = fcntl(record_rootfd, F_DUPFD_CLOEXEC, 3);
	l->link_dir = strdup(link_dir);
	l->record_dir = strdup(record_dir);
	l->report = reportfn;
	l->userdata = userdata;
	if (l->rootfd < 0 || l->record_rootfd < 0 || !l->link_dir || !l->record_dir) {
		int r = l->rootfd < 0 || l->record_rootfd < 0 ? -errno : -ENOMEM;
		links_free(l);
		return r;
	}
	*ret = l;
	return 0;
}

Links *links_free(Links *l)
{
	if (!l)
		return NULL;
	safe_close(l->held_dfd);
	safe_close(l->held_rfd);
	safe_close(l->rootfd);
	safe_close(l->record_rootfd);
	free(l->link_dir);
	free(l->record_dir);
	free(l);
	return NULL;
}

static int open_dirs(Links *l, int *ret_dfd, int *ret_rfd)
{
	_cleanup_close_ int dfd = -EBADF, rfd = -EBADF;

	if (faulted(l, LINKS_STEP_OPEN, l->link_dir))
		return -errno;
	dfd = links_open_dir(l->rootfd, l->link_dir, true);
	if (dfd < 0)
		return dfd;
	if (faulted(l, LINKS_STEP_OPEN, l->record_dir))
		return -errno;
	rfd = links_open_dir(l->record_rootfd, l->record_dir, true);
	if (rfd < 0)
		return rfd;
	*ret_dfd = TAKE_FD(dfd);
	*ret_rfd = TAKE_FD(rfd);
	return 0;
}

/* The directories for one operation: those held by links_hold(), opened on first use, else
 * freshly opened into *@own_dfd and *@own_rfd for the caller to close. */
static int dirs_for_op(Links *l, int *own_dfd, int *own_rfd, int *ret_dfd, int *ret_rfd)
{
	int r;

	if (l->holds == 0) {
		r = open_dirs(l, own_dfd, own_rfd);
		if (r < 0)
			return r;
		*ret_dfd = *own_dfd;
		*ret_rfd = *own_rfd;
		return 0;
	}
	if (l->held_dfd < 0) {
		r = open_dirs(l, &l->held_dfd, &l->held_rfd);
		if (r < 0)
			return r;
	}
	*ret_dfd = l->held_dfd;
	*ret_rfd = l->held_rfd;
	return 0;
}

void links_hold(Links *l)
{
	if (l)
		l->holds++;
}

void links_release(Links *l)
{
	if (!l || l->holds == 0 || --l->holds > 0)
		return;
	l->held_dfd = safe_close(l->held_dfd);
	l->held_rfd = safe_close(l->held_rfd);
}

/*
 * Replace lund's link @name (currently pointing to @old) by a fresh one to @target. The exchange
 * is atomic; if the entry swapped out is not the link we checked (someone replaced it in the
 * meantime), it is swapped back and the name is foreign.
 */
static int link_replace(Links *l, int dfd, const char *name, const char *old, const char *target)
{
	char tmp[sizeof(LINKS_TMP_PREFIX) + 16];
	_cleanup_free_ char *swapped = NULL;
	int r;

	r = symlink_tmp(l, dfd, target, tmp);
	if (r < 0)
		return r;

	if (l_renameat2(l, dfd, tmp, name, RENAME_EXCHANGE) < 0) {
		r = -errno;
		if (rename_flags_unsupported(-r)) {
			/* The caller checked the link just before; without RENAME_EXCHANGE the
			 * window between that check and this rename cannot be closed. */
			if (l_renameat2(l, dfd, tmp, name, 0) >= 0)
				return 0;
			r = -errno;
		}
		(void)l_unlinkat(l, dfd, tmp, 0);
		return r;
	}

	r = read_link(dfd, tmp, &swapped);
	if (r < 0 || !streq(swapped, old)) {
		/* Not what we checked: put it back, our new link is then at tmp again. */
		if (l_renameat2(l, dfd, tmp, name, RENAME_EXCHANGE) < 0)
			return -errno; /* leave both; the foreign entry is at tmp, not lost */
		(void)l_unlinkat(l, dfd, tmp, 0);
		return -EEXIST;
	}
	(void)l_unlinkat(l, dfd, tmp, 0);
	return 0;
}

/* A symlink at the free name @name: symlinkat(2) makes the entry whole, target and all, or not
 * at all, and never replaces one (EEXIST), which is what a temporary link renamed with
 * RENAME_NOREPLACE gives, in one call instead of three. */
static int symlink_new(Links *l, int dfd, const char *target, const char *name)
{
	return l_symlinkat(l, target, dfd, name) >= 0 ? 0 : -errno;
}

/*
 * Remove lund's link @name (@rec its record, may be NULL; @known as for links_add()). It is
 * first moved aside, so what is unlinked is exactly what was checked. Returns 1 when removed,
 * 0 when nothing of lund's was there, -errno otherwise; the record is dropped either way.
 */
static int remove_ours(Links *l, int dfd, int rfd, const char *name, const char *rec,
                       const char *known)
{
	_cleanup_free_ char *cur = NULL, *moved = NULL;
	char tmp[sizeof(LINKS_TMP_PREFIX) + 16];
	int r;

	r = read_link(dfd, name, &cur);
	if (r == -ENOENT)
		return record_drop(l, rfd, name); /* already gone, e.g. a crash before creation */
	if (r < 0 && r != -EINVAL)
		return r;
	if (r == -EINVAL || !owned(rec, known, cur)) {
		if (!rec)
			return 0;
		report(l, LINK_LOST, name, NULL, 0);
		return record_drop(l, rfd, name);
	}

	tmp_name(tmp);
	r = rename_noreplace(l, dfd, name, tmp);
	if (r == -ENOENT)
		return record_drop(l, rfd, name);
	if (r < 0)
		return r;
	r = read_link(dfd, tmp, &moved);
	if (r < 0 || !owned(rec, known, moved)) {
		/* Replaced under us: put the foreign entry back. */
		r = rename_noreplace(l, dfd, tmp, name);
		if (r < 0)
			return r;
		report(l, LINK_LOST, name, NULL, 0);
		return record_drop(l, rfd, name);
	}
	if (l_unlinkat(l, dfd, tmp, 0) < 0)
		return -errno;
	r = record_drop(l, rfd, name);
	if (r < 0)
		return r;
	report(l, LINK_REMOVED, name, moved, 0);
	return 1;
}

static int add_at(Links *l, int dfd, int rfd, const char *name, const char *target,
                  const char *known)
{
	_cleanup_free_ char *rec = NULL, *cur = NULL, *both = NULL;
	int r;

	/* A free name with no record, the common case (every name of a cold start, every LU that
	 * appears): the record and the link, each made whole at its final name, two calls. When
	 * the name is taken, the record made for it is dropped again before anything looks at
	 * what holds the name: a record says the link is lund's, and this one is not (yet). Any
	 * other outcome takes the path below, which looks first. */
	r = symlink_new(l, rfd, target, name);
	if (r >= 0) {
		r = symlink_new(l, dfd, target, name);
		if (r >= 0) {
			report(l, LINK_CREATED, name, target, 0);
			return LINKS_ADD_CREATED;
		}
		r = record_drop(l, rfd, name);
		if (r < 0)
			return r;
	}

	r = read_link(dfd, name, &cur);
	if (r == -ENOENT) {
		/* A free name: the record is made where there is none, in one call; only one
		 * that exists is read (and rewritten when it says otherwise). */
		r = symlink_new(l, rfd, target, name);
		if (r == -EEXIST) {
			r = record_read(l, rfd, name, &rec);
			if (r < 0 && r != -ENOENT)
				return r;
			r = rec && streq(rec, target) ? 0 : record_write(l, rfd, name, target);
		}
		if (r < 0)
			return r;
		r = symlink_new(l, dfd, target, name);
		if (r == -EEXIST) {
			/* Someone created the name between our check and now. */
			(void)record_drop(l, rfd, name);
			report(l, LINK_FOREIGN, name, target, 0);
			return r;
		}
		if (r < 0)
			return r;
		report(l, LINK_CREATED, name, target, 0);
		return LINKS_ADD_CREATED;
	}
	if (r < 0 && r != -EINVAL)
		return r;
	{
		int k = record_read(l, rfd, name, &rec);

		if (k < 0 && k != -ENOENT)
			return k;
	}

	if (r == -EINVAL || !owned(rec, known, cur)) {
		/* Not a symlink, or not one lund made. */
		if (rec) {
			(void)record_drop(l, rfd, name);
			report(l, LINK_LOST, name, NULL, 0);
		}
		if (cur && streq(cur, target)) {
			/* Already what we want: adopted, so it goes with its device. */
			r = record_write(l, rfd, name, target);
			if (r < 0)
				return r;
			report(l, LINK_ADOPTED, name, target, 0);
			return LINKS_ADD_ADOPTED;
		}
		report(l, LINK_FOREIGN, name, target, 0);
		return -EEXIST;
	}

	if (streq(cur, target)) {
		if (!rec || !streq(rec, target)) {
			/* An update was interrupted after the swap, or the record was lost. */
			r = record_write(l, rfd, name, target);
			if (r < 0)
				return r;
		}
		return 0;
	}

	/* Ours, pointing elsewhere: while the link is swapped, both targets are ours. */
	if (asprintf(&both, "%s%c%s", target, RECORD_SEP, cur) < 0)
		return -ENOMEM;
	r = record_write(l, rfd, name, both);
	if (r >= 0) {
		r = link_replace(l, dfd, name, cur, target);
		if (r == -EEXIST) {
			(void)record_drop(l, rfd, name);
			report(l, LINK_LOST, name, NULL, 0);
			report(l, LINK_FOREIGN, name, target, 0);
			return r;
		}
	}
	if (r < 0) {
		/* The name must not go on pointing at the old node: remove it. */
		(void)remove_ours(l, dfd, rfd, name, rec, cur);
		return r;
	}
	/* The link is updated whether or not its record can be narrowed to @target: one that
	 * still holds both targets is as true (the next write or reconcile narrows it), while a
	 * failure would leave the caller believing the old link there. */
	(void)record_write(l, rfd, name, target);
	report(l, LINK_UPDATED, name, target, 0);
	return LINKS_ADD_UPDATED;
}

static int remove_at(Links *l, int dfd, int rfd, const char *name, const char *known)
{
	_cleanup_free_ char *rec = NULL;
	int r;

	r = record_read(l, rfd, name, &rec);
	if (r < 0 && r != -ENOENT)
		return r;
	if (!rec && !known)
		return 0;
	return remove_ours(l, dfd, rfd, name, rec, known);
}

int links_add(Links *l, const char *name, const char *target, const char *known)
{
	_cleanup_close_ int own_dfd = -EBADF, own_rfd = -EBADF;
	int dfd, rfd;
	int r;

	assert_return(l, -EINVAL);
	if (links_name_valid(name) < 0 || links_target_valid(target) < 0)
		return -EINVAL;

	r = dirs_for_op(l, &own_dfd, &own_rfd, &dfd, &rfd);
	if (r < 0)
		return r;
	return add_at(l, dfd, rfd, name, target, known);
}

int links_remove(Links *l, const char *name, const char *known)
{
	_cleanup_close_ int own_dfd = -EBADF, own_rfd = -EBADF;
	int dfd, rfd;
	int r;

	assert_return(l, -EINVAL);
	if (links_name_valid(name) < 0)
		return -EINVAL;

	r = dirs_for_op(l, &own_dfd, &own_rfd, &dfd, &rfd);
	if (r < 0)
		return r;
	return remove_at(l, dfd, rfd, name, known);
}

/* Remove leftover temporary symlinks of interrupted operations in @dfd. */
static void clean_tmp(Links *l, int dfd, LinksStats *st)
{
	_cleanup_(closedirp) DIR *d = NULL;

	if (faulted(l, LINKS_STEP_OPEN, ".") || sysfs_opendir(dfd, ".", &d) < 0)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		struct stat s;

		if (!strneq(de->d_name, LINKS_TMP_PREFIX, strlen(LINKS_TMP_PREFIX)))
			continue;
		if (fstatat(dfd, de->d_name, &s, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(s.st_mode))
			continue;
		if (l_unlinkat(l, dfd, de->d_name, 0) >= 0) {
			st->temp_removed++;
			report(l, LINK_TEMP_REMOVED, de->d_name, NULL, 0);
		}
	}
}

static int cmp_spec_name(const void *a, const void *b)
{
	const LinkSpec *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* Pointers into the caller's array: by name, then by position, so the first of duplicates wins
 * whatever qsort() does with equal elements. */
static int cmp_spec_ptr(const void *a, const void *b)
{
	const LinkSpec *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	if (c != 0)
		return c;
	return *x < *y ? -1 : *x > *y;
}

static int cmp_name_ptr(const void *key, const void *b)
{
	const LinkSpec *const *y = b;
	return strcmp(key, (*y)->name);
}

int links_reconcile(Links *l, const LinkSpec *want, size_t n, int *ret_results,
                    LinksStats *ret_stats)
{
	_cleanup_close_ int dfd = -EBADF, rfd = -EBADF;
	_cleanup_free_ const LinkSpec **sorted = NULL;
	_cleanup_(closedirp) DIR *d = NULL;
	LinksStats st = {};
	int ret = 0, r;

	assert_return(l, -EINVAL);
	assert_return(want || n == 0, -EINVAL);

	r = open_dirs(l, &dfd, &rfd);
	if (r >= 0 && n > 0) {
		sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			r = -ENOMEM;
	}
	if (r < 0) {
		/* Nothing was made: each wanted link says so, none reads as done; and nothing
		 * was removed, of those known to go and of the recorded ones nobody wants (as
		 * many as one, or more: the records could not be looked at). */
		for (size_t i = 0; i < n; i++) {
			if (ret_results)
				ret_results[i] = r;
			st.unremoved += !want[i].target;
		}
		st.unremoved++;
		st.failed = (unsigned)n + 1;
		if (ret_stats)
			*ret_stats = st;
		return r;
	}

	l->stats = &st;
	clean_tmp(l, dfd, &st);
	clean_tmp(l, rfd, &st);

	if (n > 0) {
		for (size_t i = 0; i < n; i++)
			sorted[i] = &want[i];
		qsort(sorted, n, sizeof(*sorted), cmp_spec_ptr);
	}

	for (size_t i = 0; i < n; i++) {
		const LinkSpec *s = sorted[i];

		if (links_name_valid(s->name) < 0 ||
		    (s->target && links_target_valid(s->target) < 0) ||
		    (i > 0 && streq(s->name, sorted[i - 1]->name)))
			r = -EINVAL; /* a duplicate: the first one wins */
		else if (!s->target) {
			/* Unwanted, and lund's as the caller knows: as the sweep below does. */
			r = remove_at(l, dfd, rfd, s->name, s->known);
			if (ret_results)
				ret_results[s - want] = r;
			if (r > 0)
				st.removed++;
			else if (r < 0) {
				st.failed++;
				st.unremoved++;
				report(l, LINK_FAILED, s->name, NULL, r);
				if (ret == 0 || ret == -EEXIST)
					ret = r;
			}
			continue;
		} else
			r = add_at(l, dfd, rfd, s->name, s->target, s->known);
		if (ret_results)
			ret_results[s - want] = r;
		if (r == LINKS_ADD_ADOPTED)
			st.adopted++;
		else if (r == LINKS_ADD_CREATED)
			st.created++;
		else if (r == LINKS_ADD_UPDATED)
			st.updated++;
		else if (r == 0)
			st.unchanged++;
		else if (r == -EEXIST) {
			st.foreign++;
			if (ret == 0)
				ret = r;
		} else {
			st.failed++;
			report(l, LINK_FAILED, s->name, s->target, r);
			if (ret == 0 || ret == -EEXIST)
				ret = r;
		}
	}

	/* Recorded links nobody wants any more. */
	if (!faulted(l, LINKS_STEP_OPEN, l->record_dir) && sysfs_opendir(rfd, ".", &d) >= 0)
		for (struct dirent *de; (de = readdir(d));) {
			if (streq(de->d_name, ".") || streq(de->d_name, ".."))
				continue;
			if (links_name_valid(de->d_name) < 0) {
				struct stat s;

				/* Temporary symlinks are clean_tmp()'s; anything else is no record.
				 */
				if (strneq(de->d_name, LINKS_TMP_PREFIX,
				           strlen(LINKS_TMP_PREFIX)) &&
				    fstatat(rfd, de->d_name, &s, AT_SYMLINK_NOFOLLOW) >= 0 &&
				    S_ISLNK(s.st_mode))
					continue;
				r = record_repair(l, rfd, de->d_name);
			} else if (n > 0 &&
			           bsearch(de->d_name, sorted, n, sizeof(*sorted), cmp_name_ptr))
				continue;
			else
				r = remove_at(l, dfd, rfd, de->d_name, NULL);
			if (r > 0)
				st.removed++;
			else if (r < 0) {
				st.failed++;
				st.unremoved++;
				report(l, LINK_FAILED, de->d_name, NULL, r);
				if (ret == 0 || ret == -EEXIST)
					ret = r;
			}
		}
	else {
		/* The records could not be looked at: those nobody wants are not gone. */
		st.failed++;
		st.unremoved++;
		if (ret == 0 || ret == -EEXIST)
			ret = -errno;
	}

	l->stats = NULL;
	if (ret_stats)
		*ret_stats = st;
	return ret;
}

int links_prune(Links *l, const LinkSpec *want, size_t n, LinksPruneFn prune, void *userdata,
                LinksStats *ret_stats)
{
	_cleanup_close_ int dfd = -EBADF, rfd = -EBADF;
	_cleanup_free_ const LinkSpec **sorted = NULL;
	_cleanup_(closedirp) DIR *d = NULL;
	LinksStats st = {};
	int ret = 0, r;

	assert_return(l && prune, -EINVAL);
	assert_return(want || n == 0, -EINVAL);

	r = open_dirs(l, &dfd, &rfd);
	if (r >= 0 && n > 0) {
		sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			r = -ENOMEM;
		for (size_t i = 0; sorted && i < n; i++)
			sorted[i] = &want[i];
		if (sorted)
			qsort(sorted, n, sizeof(*sorted), cmp_spec_ptr);
	}
	if (r >= 0 && faulted(l, LINKS_STEP_OPEN, "."))
		r = -errno;
	if (r >= 0)
		r = sysfs_opendir(dfd, ".", &d);
	if (r < 0) {
		/* Not looked at: what may be there to remove is not known to be gone. */
		st.failed = st.unremoved = 1;
		if (ret_stats)
			*ret_stats = st;
		return r;
	}
	for (struct dirent *de; (de = readdir(d));) {
		_cleanup_free_ char *target = NULL, *rec = NULL;
		const LinkSpec *const *w;

		/* Temporary files and bad names are reconcile's, and so are links their record
		 * says are lund's; a record of another target (a write interrupted) or a broken
		 * one (repaired) is none. */
		if (links_name_valid(de->d_name) < 0)
			continue;
		if (read_link(dfd, de->d_name, &target) < 0)
			continue; /* not a symlink: a file somebody put here, never touched */
		r = record_read(l, rfd, de->d_name, &rec);
		if (r < 0 && r != -ENOENT) {
			/* Not known to be lund's or not: not known to be gone either. */
			st.failed++;
			st.unremoved++;
			report(l, LINK_FAILED, de->d_name, NULL, r);
			if (ret == 0)
				ret = r;
			continue;
		}
		if (rec && links_record_has(rec, target))
			continue;
		/* So is a wanted name whose link is what is wanted or what the caller made; one
		 * to anything else would hold the name as a foreign file. */
		w = n > 0 ? bsearch(de->d_name, sorted, n, sizeof(*sorted), cmp_name_ptr) : NULL;
		if (w && (streq_ptr(target, (*w)->target) ||
		          ((*w)->known && links_record_has((*w)->known, target))))
			continue;
		if (!prune(de->d_name, target, dfd, userdata))
			continue;
		/* As a link lund knows it made, with exactly that target: moved aside, checked,
		 * then unlinked, so a link replaced meanwhile is left alone. */
		r = remove_ours(l, dfd, rfd, de->d_name, NULL, target);
		if (r > 0)
			st.removed++;
		else if (r < 0) {
			st.failed++;
			st.unremoved++;
			report(l, LINK_FAILED, de->d_name, NULL, r);
			if (ret == 0)
				ret = r;
		}
	}
	if (ret_stats)
		*ret_stats = st;
	return ret;
}

void links_spec_free(LinkSpec *s, size_t n)
{
	if (!s)
		return;
	for (size_t i = 0; i < n; i++) {
		free((char *)s[i].name);
		free((char *)s[i].target);
	}
	free(s);
}

int links_recorded(Links *l, LinkSpec **ret, size_t *ret_n)
{
	_cleanup_close_ int rfd = -EBADF;
	_cleanup_(closedirp) DIR *d = NULL;
	LinkSpec *v = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	assert_return(l, -EINVAL);
	assert_return(ret && ret_n, -EINVAL);

	rfd = links_open_dir(l->record_rootfd, l->record_dir, true);
	if (rfd < 0)
		return rfd;
	d = fdopendir(rfd);
	if (!d)
		return -errno;
	rfd = -EBADF; /* owned by d now */

	for (struct dirent *de; (de = readdir(d));) {
		char *target = NULL, *sep;

		if (links_name_valid(de->d_name) < 0)
			continue;
		r = read_link(dirfd(d), de->d_name, &target);
		if (r == -ENOENT || r == -EINVAL) {
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		sep = strchr(target, RECORD_SEP);
		if (sep)
			*sep = 0;
		if (GREEDY_REALLOC(v, cap, n + 1) < 0) {
			free(target);
			r = -ENOMEM;
			break;
		}
		v[n].target = target;
		v[n].name = strdup(de->d_name);
		if (!v[n].name) {
			free(target);
			r = -ENOMEM;
			break;
		}
		n++;
	}
	if (r < 0) {
		links_spec_free(v, n);
		return r;
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_spec_name);
	*ret = v;
	*ret_n = n;
	return 0;
}
