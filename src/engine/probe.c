/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "luns.h"
#include "macro.h"
#include "probe.h"
#include "sgio.h"
#include "sysfs.h"
#include "vpd.h"

static const struct {
	const char *name;
	const char *attr; /* the kernel's cached copy under the scsi_device */
	uint8_t page;
} probe_pages[_PROBE_PAGE_MAX] = {
	[PROBE_INQUIRY] = { "inquiry", "inquiry", 0 },
	[PROBE_PG00] = { "vpd_pg00", "vpd_pg0", 0x00 },
	[PROBE_PG80] = { "vpd_pg80", "vpd_pg80", 0x80 },
	[PROBE_PG83] = { "vpd_pg83", "vpd_pg83", 0x83 },
	[PROBE_PG89] = { "vpd_pg89", "vpd_pg89", 0x89 },
	[PROBE_PGB0] = { "vpd_pgb0", "vpd_pgb0", 0xb0 },
};

const char *probe_page_name(ProbePage p)
{
	return p >= 0 && p < _PROBE_PAGE_MAX ? probe_pages[p].name : NULL;
}

const char *probe_source_name(ProbeSource s)
{
	static const char *const names[] = {
		[PROBE_SOURCE_NONE] = "none",
		[PROBE_SOURCE_SYSFS] = "sysfs",
		[PROBE_SOURCE_SGIO] = "sgio",
	};
	return s < ELEMENTSOF(names) ? names[s] : NULL;
}

void lu_ref_done(LuRef *lu)
{
	if (!lu)
		return;
	free(lu->hctl);
	free(lu->syspath);
	free(lu->sg);
	free(lu->block);
	free(lu->tape);
	free(lu->devpath);
	free(lu->inquiry);
	if (lu->has_dirfd)
		safe_close(lu->dirfd);
	*lu = (LuRef){};
}

void probe_data_done(ProbeData *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < _PROBE_PAGE_MAX; i++)
		free(d->buf[i]);
	*d = (ProbeData){};
}

static bool is_hctl(const char *s)
{
	unsigned h, c, t;
	uint64_t l;

	return hctl_parse(s, &h, &c, &t, &l) >= 0;
}

static const char *path_basename(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

/* A path under /sys (given relative to the root) that is, or points at, a SCSI device. */
static int hctl_from_syspath(int rootfd, const char *rel, char **ret)
{
	_cleanup_free_ char *link = NULL, *dev = NULL, *trimmed = NULL;
	size_t n;
	int r;

	trimmed = strdup(rel);
	if (!trimmed)
		return -ENOMEM;
	n = strlen(trimmed);
	while (n > 0 && trimmed[n - 1] == '/')
		trimmed[--n] = 0;

	if (faccessat(rootfd, trimmed, F_OK, 0) < 0)
		return -errno;

	if (is_hctl(path_basename(trimmed))) {
		*ret = strdup(path_basename(trimmed));
		return *ret ? 0 : -ENOMEM;
	}

	/* A class device (block, scsi_generic, scsi_tape, bsg, scsi_disk...) links to it. */
	if (asprintf(&dev, "%s/device", trimmed) < 0)
		return -ENOMEM;
	r = sysfs_link_basename(rootfd, dev, &link);
	if (r < 0) {
		/* A partition: its disk is the parent directory. */
		free(dev);
		if (asprintf(&dev, "%s/../device", trimmed) < 0)
			return -ENOMEM;
		r = sysfs_link_basename(rootfd, dev, &link);
	}
	if (r < 0)
		return r == -ENOENT ? -ENODEV : r;
	if (!is_hctl(link))
		return -ENODEV;
	*ret = TAKE_PTR(link);
	return 0;
}

/*
 * The LU behind the sys/dev link @devlink of a block or sg node, from the link's target alone:
 * the kernel makes it "../../devices/<parents>/<H:C:T:L>/<class>/<node>[/<partition>]", class
 * "block" (sd, sr; a partition one level further down) or "scsi_generic". One readlink()
 * where following the node's "device" link and listing the LU's class directories take a
 * dozen system calls. Sets @lu's hctl, devpath and block or sg; -ENOENT when the link does
 * not exist, -EAGAIN when its target has any other shape (the caller then goes the general
 * way), -ENOMEM.
 */
static int lu_from_devlink(int rootfd, const char *devlink, LuRef *lu)
{
	static const char prefix[] = "../../devices/";
	char target[PATH_MAX], *comp[PATH_MAX / 2], *save = NULL;
	_cleanup_free_ char *devpath = NULL, *hctl = NULL, *node = NULL;
	size_t n = 0, len = strlen("sys");
	bool block;
	ssize_t k;

	k = readlinkat(rootfd, devlink, target, sizeof(target));
	if (k < 0)
		return errno == ENOENT ? -ENOENT : -EAGAIN;
	if ((size_t)k >= sizeof(target))
		return -EAGAIN;
	target[k] = 0;
	if (!strneq(target, prefix, strlen(prefix)))
		return -EAGAIN;
	for (char *c = strtok_r(target, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (n >= ELEMENTSOF(comp))
			return -EAGAIN;
		comp[n++] = c;
	}
	/* ".." ".." "devices" <parent>... <H:C:T:L> <class> <node> [<partition>] */
	for (size_t i = 2; i < n; i++)
		if (streq(comp[i], ".") || streq(comp[i], ".."))
			return -EAGAIN;
	if (n >= 8 && streq(comp[n - 3], "block") && is_hctl(comp[n - 4]))
		n--; /* a partition: its disk is the node */
	if (n < 7 || !is_hctl(comp[n - 3]))
		return -EAGAIN;
	block = streq(comp[n - 2], "block");
	if (!block && !streq(comp[n - 2], "scsi_generic"))
		return -EAGAIN;

	/* "sys/devices/.../<H:C:T:L>" below the root: sys/dev/<block|char> is two levels below
	 * sys, so the target's "../.." is sys. */
	for (size_t i = 2; i <= n - 3; i++)
		len += 1 + strlen(comp[i]);
	devpath = malloc(len + 1);
	if (!devpath)
		return -ENOMEM;
	strcpy(devpath, "sys");
	for (size_t i = 2; i <= n - 3; i++) {
		strcat(devpath, "/");
		strcat(devpath, comp[i]);
	}
	if (!(hctl = strdup(comp[n - 3])) || !(node = strdup(comp[n - 1])))
		return -ENOMEM;
	lu->hctl = TAKE_PTR(hctl);
	lu->devpath = TAKE_PTR(devpath);
	if (block)
		lu->block = TAKE_PTR(node);
	else
		lu->sg = TAKE_PTR(node);
	return 0;
}

/* "sys/dev/block/M:m" or "sys/dev/char/M:m": a node's link, no more. */
static bool is_devlink(const char *rel)
{
	const char *p;

	if (strneq(rel, "sys/dev/block/", strlen("sys/dev/block/")))
		p = rel + strlen("sys/dev/block/");
	else if (strneq(rel, "sys/dev/char/", strlen("sys/dev/char/")))
		p = rel + strlen("sys/dev/char/");
	else
		return false;
	return !isempty(p) && !strchr(p, '/') && strchr(p, ':');
}

static int lu_from_devnode(int rootfd, const char *rel, LuRef *lu)
{
	char sys[sizeof("sys/dev/block/4294967295:4294967295")];
	struct stat st;
	int r;

	if (fstatat(rootfd, rel, &st, 0) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode))
		return -ENODEV;

	snprintf(sys, sizeof(sys), "sys/dev/%s/%u:%u", S_ISBLK(st.st_mode) ? "block" : "char",
	         major(st.st_rdev), minor(st.st_rdev));
	r = lu_from_devlink(rootfd, sys, lu);
	if (r != -EAGAIN)
		return r;
	return hctl_from_syspath(rootfd, sys, &lu->hctl);
}

int probe_resolve_nodes(int rootfd, LuRef *lu, ProbeResolveFlags flags)
{
	_cleanup_free_ char *p = NULL;

	assert_return(lu && lu->syspath, -EINVAL);

	/* Nodes are optional: sg may not be loaded, and most LU types have no block device. One
	 * upper-level driver binds a SCSI device (sd, sr, st, ...; sg is a class interface beside
	 * it), so an LU with a block node has no tape node. */
	lu->nodes_lazy = false;
	if (lu->sg)
		;
	else if (flags & PROBE_RESOLVE_SG_LAZY)
		lu->sg_lazy = true;
	else {
		if (!(p = strjoin(lu->syspath, "/scsi_generic")))
			return -ENOMEM;
		(void)sysfs_first_entry(rootfd, p, "sg", &lu->sg);
		p = mfree(p);
	}
	if (!lu->block) {
		if (!(p = strjoin(lu->syspath, "/block")))
			return -ENOMEM;
		(void)sysfs_first_entry(rootfd, p, NULL, &lu->block);
		p = mfree(p);
	}
	if (!lu->block) {
		if (!(p = strjoin(lu->syspath, "/scsi_tape")))
			return -ENOMEM;
		(void)sysfs_first_entry(rootfd, p, "st", &lu->tape);
	}
	return 0;
}

int probe_resolve(int rootfd, const char *arg, LuRef *ret)
{
	return probe_resolve_full(rootfd, arg, 0, ret);
}

/* The existence check of the LU's directory @path, and with PROBE_RESOLVE_DIRFD the directory
 * kept for its attributes: 0, -ENOENT, -errno. */
static int open_lu_dir(int rootfd, const char *path, ProbeResolveFlags flags, LuRef *lu)
{
	if (flags & PROBE_RESOLVE_DIRFD) {
		lu->dirfd = openat(rootfd, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (lu->dirfd < 0)
			return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
		lu->has_dirfd = true;
	} else if (faccessat(rootfd, path, F_OK, 0) < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	return 0;
}

int probe_open_dir(int rootfd, LuRef *lu)
{
	assert_return(lu && lu->syspath, -EINVAL);
	if (lu->has_dirfd)
		return 0;
	return open_lu_dir(rootfd, lu->syspath, PROBE_RESOLVE_DIRFD, lu);
}

int probe_resolve_full(int rootfd, const char *arg, ProbeResolveFlags flags, LuRef *ret)
{
	return probe_resolve_at(rootfd, arg, NULL, flags, ret);
}

int probe_resolve_at(int rootfd, const char *arg, const char *devpath, ProbeResolveFlags flags,
                     LuRef *ret)
{
	_cleanup_(lu_ref_done) LuRef lu = {};
	const char *rel;
	int r;

	assert_return(arg, -EINVAL);
	assert_return(ret, -EINVAL);

	if (is_hctl(arg)) {
		lu.hctl = strdup(arg);
		if (!lu.hctl)
			return -ENOMEM;
	} else if (arg[0] == '/') {
		rel = arg + strspn(arg, "/");
		if (isempty(rel))
			return -EINVAL;
		if (is_devlink(rel)) {
			r = lu_from_devlink(rootfd, rel, &lu);
			if (r == -EAGAIN)
				r = hctl_from_syspath(rootfd, rel, &lu.hctl);
		} else if (strncmp(rel, "sys/", 4) == 0)
			r = hctl_from_syspath(rootfd, rel, &lu.hctl);
		else
			r = lu_from_devnode(rootfd, rel, &lu);
		if (r < 0)
			return r;
	} else
		return -EINVAL;

	r = hctl_parse(lu.hctl, &lu.host, &lu.channel, &lu.target, &lu.lun);
	if (r < 0)
		return r;

	/* The device's own directory when the caller knows it: the bus's entry is a symlink, and
	 * sysfs builds a symlink's target path afresh, under its lock, at every lookup through it.
	 * Gone (a stale path): the bus's entry says whether the LU is there now. */
	assert_return(!(flags & PROBE_RESOLVE_TRUSTED) || !(flags & PROBE_RESOLVE_DIRFD), -EINVAL);
	if (devpath) {
		r = (flags & PROBE_RESOLVE_TRUSTED) ? 0 : open_lu_dir(rootfd, devpath, flags, &lu);
		if (r >= 0 && !(lu.syspath = strdup(devpath)))
			return -ENOMEM;
		if (r >= 0 && !lu.devpath && !(lu.devpath = strdup(devpath)))
			return -ENOMEM;
		if (r < 0 && r != -ENOENT)
			return r;
	}
	if (!lu.syspath) {
		if (!(lu.syspath = strjoin("sys/bus/scsi/devices/", lu.hctl)))
			return -ENOMEM;
		r = open_lu_dir(rootfd, lu.syspath, flags, &lu);
		if (r < 0)
			return r;
	}

	if (flags & PROBE_RESOLVE_NO_NODES)
		lu.nodes_lazy = true;
	else {
		r = probe_resolve_nodes(rootfd, &lu, flags);
		if (r < 0)
			return r;
	}

	*ret = TAKE_STRUCT(lu);
	return 0;
}

static int open_node(int rootfd, const LuRef *lu)
{
	_cleanup_free_ char *p = NULL, *sg = NULL;
	const char *node;

	if (!lu->sg && lu->sg_lazy) {
		if (!(p = strjoin(lu->syspath, "/scsi_generic")))
			return -ENOMEM;
		(void)sysfs_first_entry(rootfd, p, "sg", &sg);
		p = mfree(p);
	}
	node = lu->sg ?: sg ?: lu->block ?: lu->tape;
	if (!node)
		return -ENODEV;
	if (!(p = strjoin("dev/", node)))
		return -ENOMEM;
	/* O_NONBLOCK: never wait for medium or for another opener of sg. */
	return RET_NERRNO(openat(rootfd, p, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
}

const char *probe_attr_at(const LuRef *lu, int rootfd, const char *attr, char *buf, size_t size,
                          int *ret_dirfd)
{
	assert_return(lu && attr && buf && ret_dirfd, NULL);

	if (lu->has_dirfd) {
		*ret_dirfd = lu->dirfd;
		return attr;
	}
	*ret_dirfd = rootfd;
	if ((size_t)snprintf(buf, size, "%s/%s", lu->syspath, attr) >= size)
		return NULL;
	return buf;
}

static int read_cached(int rootfd, const LuRef *lu, ProbePage p, ProbeData *d)
{
	char buf[PATH_MAX];
	const char *path;
	int dirfd, r;

	if (p == PROBE_INQUIRY && lu->inquiry) {
		d->buf[p] = malloc(lu->inquiry_len);
		if (!d->buf[p])
			return -ENOMEM;
		memcpy(d->buf[p], lu->inquiry, lu->inquiry_len);
		d->len[p] = lu->inquiry_len;
		d->source[p] = PROBE_SOURCE_SYSFS;
		return 0;
	}
	path = probe_attr_at(lu, rootfd, probe_pages[p].attr, buf, sizeof(buf), &dirfd);
	if (!path)
		return -ENAMETOOLONG;
	r = sysfs_read_attr(dirfd, path, SYSFS_ATTR_MAX, &d->buf[p], &d->len[p]);
	if (r < 0)
		return r;
	if (d->len[p] == 0) {
		d->buf[p] = mfree(d->buf[p]);
		return -ENODATA;
	}
	d->source[p] = PROBE_SOURCE_SYSFS;
	return 0;
}

int probe_keep_inquiry(int rootfd, LuRef *lu)
{
	ProbeData d = {};
	int r;

	assert_return(lu && lu->syspath, -EINVAL);

	if (lu->inquiry)
		return 0;
	r = read_cached(rootfd, lu, PROBE_INQUIRY, &d);
	if (r < 0)
		return r;
	lu->inquiry = TAKE_PTR(d.buf[PROBE_INQUIRY]);
	lu->inquiry_len = d.len[PROBE_INQUIRY];
	return 0;
}

static int read_sgio(int fd, ProbePage p, ProbeData *d)
{
	SgioResult res = {};
	int r;

	if (p == PROBE_INQUIRY) {
		/* SPC: 36 bytes cover the standard fields; ask for a full 255 as the kernel does.
		 */
		_cleanup_free_ uint8_t *buf = calloc(1, 255);

		if (!buf)
			return -ENOMEM;
		r = sgio_inquiry(fd, false, 0, buf, 255, &res);
		d->commands += res.commands;
		if (r < 0)
			return r;
		if (res.len < 5)
			return -EBADMSG;
		/* Standard data is 5 + ADDITIONAL LENGTH bytes; never more than received. */
		d->len[p] = MIN((size_t)buf[4] + 5, res.len);
		d->buf[p] = TAKE_PTR(buf);
	} else {
		r = sgio_vpd_page(fd, probe_pages[p].page, &d->buf[p], &d->len[p], &res);
		d->commands += res.commands;
		if (r < 0)
			return r;
	}
	d->source[p] = PROBE_SOURCE_SGIO;
	return 0;
}

int probe_read(int rootfd, const LuRef *lu, ProbeFlags flags, ProbeData *ret)
{
	_cleanup_(probe_data_done) ProbeData d = {};
	_cleanup_close_ int fd = -EBADF;
	VpdSupported supported = {};
	bool have_supported = false;

	assert_return(lu && lu->syspath, -EINVAL);
	assert_return(ret, -EINVAL);
	assert_return(!((flags & PROBE_SYSFS_ONLY) && (flags & PROBE_SGIO_ONLY)), -EINVAL);

	for (ProbePage p = 0; p < _PROBE_PAGE_MAX; p++) {
		int r = -ENOENT;

		if (p == PROBE_PGB0 && (flags & PROBE_IDENTITY_ONLY))
			continue;
		if (p > PROBE_PG00 && have_supported &&
		    !vpd_supported_has(&supported, probe_pages[p].page)) {
			d.error[p] = -EOPNOTSUPP;
			continue;
		}

		if (!(flags & PROBE_SGIO_ONLY))
			r = read_cached(rootfd, lu, p, &d);

		/* Block limits are not part of the identity: never a command just for them. */
		if (r < 0 && (flags & PROBE_SYSFS_ONLY) && p != PROBE_PGB0)
			d.uncached |= 1u << p;
		if (r < 0 && !(flags & PROBE_SYSFS_ONLY) && p != PROBE_PGB0) {
			if (fd < 0)
				fd = open_node(rootfd, lu);
			r = fd < 0 ? fd : read_sgio(fd, p, &d);
		}
		if (r < 0) {
			d.error[p] = r;
			if (p == PROBE_INQUIRY)
				return r;
			continue;
		}

		if (p == PROBE_PG00 && vpd00_parse(d.buf[p], d.len[p], &supported) >= 0)
			have_supported = true;
	}

	*ret = TAKE_STRUCT(d);
	return 0;
}
