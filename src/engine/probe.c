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

static int hctl_from_devnode(int rootfd, const char *rel, char **ret)
{
	_cleanup_free_ char *sys = NULL;
	struct stat st;

	if (fstatat(rootfd, rel, &st, 0) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode))
		return -ENODEV;

	if (asprintf(&sys, "sys/dev/%s/%u:%u", S_ISBLK(st.st_mode) ? "block" : "char",
	             major(st.st_rdev), minor(st.st_rdev)) < 0)
		return -ENOMEM;
	return hctl_from_syspath(rootfd, sys, ret);
}

int probe_resolve(int rootfd, const char *arg, LuRef *ret)
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
		if (strncmp(rel, "sys/", 4) == 0)
			r = hctl_from_syspath(rootfd, rel, &lu.hctl);
		else
			r = hctl_from_devnode(rootfd, rel, &lu.hctl);
		if (r < 0)
			return r;
	} else
		return -EINVAL;

	r = hctl_parse(lu.hctl, &lu.host, &lu.channel, &lu.target, &lu.lun);
	if (r < 0)
		return r;

	if (!(lu.syspath = strjoin("sys/bus/scsi/devices/", lu.hctl)))
		return -ENOMEM;
	if (faccessat(rootfd, lu.syspath, F_OK, 0) < 0)
		return errno == ENOENT ? -ENOENT : -errno;

	/* Nodes are optional: sg may not be loaded, and most LU types have no block device. */
	{
		_cleanup_free_ char *p = NULL;

		if (!(p = strjoin(lu.syspath, "/scsi_generic")))
			return -ENOMEM;
		(void)sysfs_first_entry(rootfd, p, "sg", &lu.sg);
		free(p);
		if (!(p = strjoin(lu.syspath, "/block")))
			return -ENOMEM;
		(void)sysfs_first_entry(rootfd, p, NULL, &lu.block);
		free(p);
		if (!(p = strjoin(lu.syspath, "/scsi_tape")))
			return -ENOMEM;
		(void)sysfs_first_entry(rootfd, p, "st", &lu.tape);
		p = mfree(p);
	}

	*ret = lu;
	lu = (LuRef){};
	return 0;
}

static int open_node(int rootfd, const LuRef *lu)
{
	const char *node = lu->sg ?: lu->block ?: lu->tape;
	_cleanup_free_ char *p = NULL;

	if (!node)
		return -ENODEV;
	if (!(p = strjoin("dev/", node)))
		return -ENOMEM;
	/* O_NONBLOCK: never wait for medium or for another opener of sg. */
	return RET_NERRNO(openat(rootfd, p, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
}

static int read_cached(int rootfd, const LuRef *lu, ProbePage p, ProbeData *d)
{
	_cleanup_free_ char *path = NULL;
	int r;

	if (!(path = strjoin(lu->syspath, "/", probe_pages[p].attr)))
		return -ENOMEM;
	r = sysfs_read_attr(rootfd, path, SYSFS_ATTR_MAX, &d->buf[p], &d->len[p]);
	if (r < 0)
		return r;
	if (d->len[p] == 0) {
		d->buf[p] = mfree(d->buf[p]);
		return -ENODATA;
	}
	d->source[p] = PROBE_SOURCE_SYSFS;
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

	*ret = d;
	d = (ProbeData){};
	return 0;
}
