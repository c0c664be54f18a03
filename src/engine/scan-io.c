/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * scan_io_default: the I/O of a real scan. SCSI commands go through SG_IO (src/io/sgio.c) on the
 * LU's sg node, or its bsg node when sg is not loaded; attributes are written through
 * src/io/sysfs.c. Tests inject their own ScanIo instead.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "luns.h"
#include "macro.h"
#include "scan-private.h"
#include "sgio.h"
#include "sysfs.h"
#include "unaligned.h"

static int open_lu_node(int rootfd, const ScanLu *lu)
{
	char path[PATH_MAX];
	int fd;

	if (lu->sg)
		scan_pathfmt(path, sizeof(path), "dev/%s", lu->sg);
	else
		/* bsg is built in (CONFIG_BLK_DEV_BSG=y): there even when sg is not loaded. */
		scan_pathfmt(path, sizeof(path), "dev/bsg/%s", lu->hctl);
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

	scan_pathfmt(path, sizeof(path), "dev/%s", devname);
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
