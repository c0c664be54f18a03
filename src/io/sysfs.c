/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "sysfs.h"

int sysfs_open_root(const char *root)
{
	return RET_NERRNO(open(root ?: "/", O_PATH | O_DIRECTORY | O_CLOEXEC));
}

/* The least a kernel hands out per read() of a binary sysfs attribute (a page; 4 KiB or more). */
#define ATTR_CHUNK_MIN 4096

/*
 * One read() of at most @want bytes, retried on EINTR; *ret_end is set at the end of the file:
 * a read of nothing or, for a sysfs attribute (@attr), one shorter than both @want and a page.
 * kernfs returns a text attribute whole and a binary one (a VPD page) a page at a time, so such
 * a short read is the last one and the read() that would only return 0 is saved; a regular file
 * (a tree under --root) is short only at its end as well. Any other fd reads until 0.
 */
static ssize_t read_chunk(int fd, void *buf, size_t want, bool attr, bool *ret_end)
{
	for (;;) {
		ssize_t k = read(fd, buf, want);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		*ret_end = k == 0 || (attr && (size_t)k < want && (size_t)k < ATTR_CHUNK_MIN);
		return k;
	}
}

/* read_chunk() into the @room bytes left of a buffer. With no room left, a one-byte probe: the
 * end of the file (0, *ret_end set), or @err_full when there is more. */
static ssize_t read_room(int fd, void *buf, size_t room, bool attr, int err_full, bool *ret_end)
{
	uint8_t probe;
	ssize_t k;

	if (room > 0)
		return read_chunk(fd, buf, room, attr, ret_end);
	k = read_chunk(fd, &probe, 1, attr, ret_end);
	return k > 0 ? err_full : k;
}

/* Reads @fd to its end into @buf (@size bytes, @size < @max only while it may grow), at most
 * @max bytes: -EFBIG when there is more. */
static int read_all(int fd, size_t max, bool attr, uint8_t **ret_buf, size_t *ret_len)
{
	_cleanup_free_ uint8_t *buf = NULL;
	size_t n = 0, size;
	uint8_t *shrunk;
	bool end = false;

	/* sysfs reports a size of 4096 for every text attribute: read until EOF instead, into a
	 * buffer of one page that grows up to @max only for the rare binary attribute that is
	 * larger (a VPD page), and is cut to what was read: the inventory keeps many of these. */
	size = MIN(max, (size_t)4096);
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;

	while (!end) {
		ssize_t k;

		if (n == size && size < max) {
			uint8_t *bigger;

			size = max - size > size ? 2 * size : max;
			bigger = realloc(buf, size + 1);
			if (!bigger)
				return -ENOMEM;
			buf = bigger;
		}
		/* n == size only once size == max */
		k = read_room(fd, buf + n, size - n, attr, -EFBIG, &end);
		if (k < 0)
			return (int)k;
		n += (size_t)k;
	}

	buf[n] = 0;
	shrunk = realloc(buf, n + 1);
	if (shrunk)
		buf = shrunk;
	*ret_len = n;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

int sysfs_read_attr(int dirfd, const char *path, size_t max, uint8_t **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = -EBADF;

	assert_return(path && path[0] != '/', -EINVAL);
	assert_return(ret_buf && ret_len, -EINVAL);

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return read_all(fd, max, true, ret_buf, ret_len);
}

int sysfs_read_fd(int fd, size_t max, uint8_t **ret_buf, size_t *ret_len)
{
	assert_return(fd >= 0, -EBADF);
	assert_return(ret_buf && ret_len, -EINVAL);

	return read_all(fd, max, false, ret_buf, ret_len);
}

int sysfs_read_string(int dirfd, const char *path, char **ret)
{
	uint8_t *buf;
	size_t len;
	int r;

	assert_return(ret, -EINVAL);

	r = sysfs_read_attr(dirfd, path, 4096, &buf, &len);
	if (r < 0)
		return r;
	if (memchr(buf, 0, len)) {
		free(buf);
		return -EBADMSG;
	}
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = 0;
	*ret = (char *)buf;
	return 0;
}

int sysfs_read_string_buf(int dirfd, const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	size_t n = 0;
	bool end = false;

	assert_return(path && path[0] != '/', -EINVAL);
	assert_return(buf && size > 0, -EINVAL);

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	while (!end) {
		ssize_t k = read_room(fd, buf + n, size - 1 - n, true, -ENOBUFS, &end);

		if (k < 0)
			return (int)k;
		n += (size_t)k;
	}
	if (memchr(buf, 0, n))
		return -EBADMSG;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	return 0;
}

int sysfs_attr_string_buf(int dirfd, const char *dir, const char *attr, char *buf, size_t size)
{
	char p[PATH_MAX];

	if (!strjoin_buf(p, sizeof(p), dir, "/", attr))
		return -ENAMETOOLONG;
	return sysfs_read_string_buf(dirfd, p, buf, size);
}

int sysfs_read_u64(int dirfd, const char *path, uint64_t *ret)
{
	/* the longest decimal or 0x-prefixed 64-bit number and a newline, with room to spare */
	char s[64];
	unsigned long long v;
	char *end;
	int r;

	assert_return(ret, -EINVAL);

	/* An attribute too long for any u64 is not one: -EBADMSG, as strtoull() would say. */
	r = sysfs_read_string_buf(dirfd, path, s, sizeof(s));
	if (r == -ENOBUFS)
		return -EBADMSG;
	if (r < 0)
		return r;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != 0 || s[0] == '-')
		return -EBADMSG;
	*ret = v;
	return 0;
}

char *sysfs_attr_string(int dirfd, const char *dir, const char *attr)
{
	_cleanup_free_ char *p = NULL;
	char *s = NULL;

	if (!(p = strjoin(dir, "/", attr)))
		return NULL;
	if (sysfs_read_string(dirfd, p, &s) < 0)
		return NULL;
	return s;
}

int sysfs_attr_u64(int dirfd, const char *dir, const char *attr, uint64_t *ret)
{
	char p[PATH_MAX];

	if (!strjoin_buf(p, sizeof(p), dir, "/", attr))
		return -ENAMETOOLONG;
	return sysfs_read_u64(dirfd, p, ret);
}

int sysfs_write_attr(int dirfd, const char *path, const char *value)
{
	_cleanup_close_ int fd = -EBADF;
	size_t len;
	ssize_t k;

	assert_return(path && path[0] != '/', -EINVAL);
	assert_return(value, -EINVAL);

	fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;

	len = strlen(value);
	k = write(fd, value, len);
	if (k < 0)
		return -errno;
	if ((size_t)k != len)
		return -EIO;
	return 0;
}

int sysfs_opendir_flags(int dirfd, const char *path, int flags, DIR **ret)
{
	DIR *d;
	int fd;

	assert_return(path && path[0] != '/', -EINVAL);
	assert_return(ret, -EINVAL);

	fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		safe_close(fd);
		return -errno;
	}
	*ret = d;
	return 0;
}

int sysfs_opendir(int dirfd, const char *path, DIR **ret)
{
	return sysfs_opendir_flags(dirfd, path, 0, ret);
}

int sysfs_for_each_entry(int dirfd, const char *path, const char *prefix,
                         int (*fn)(const char *name, void *userdata), void *userdata)
{
	_cleanup_(closedirp) DIR *d = NULL;
	size_t plen = prefix ? strlen(prefix) : 0;
	int r;

	assert_return(fn, -EINVAL);

	r = sysfs_opendir(dirfd, path, &d);
	if (r < 0)
		return r;
	for (struct dirent *de; (errno = 0, de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		if (plen && strncmp(de->d_name, prefix, plen) != 0)
			continue;
		r = fn(de->d_name, userdata);
		if (r < 0)
			return r;
	}
	return errno > 0 ? -errno : 0;
}

typedef struct PartitionWalk {
	int dirfd;
	const char *dir; /* the disk's directory */
	int (*fn)(const char *name, unsigned number, void *userdata);
	void *userdata;
} PartitionWalk;

static int partition_entry(const char *name, void *userdata)
{
	PartitionWalk *w = userdata;
	_cleanup_free_ char *p = NULL;
	uint64_t num;

	if (asprintf(&p, "%s/%s", w->dir, name) < 0)
		return -ENOMEM;
	if (sysfs_attr_u64(w->dirfd, p, "partition", &num) < 0 || num == 0 || num > UINT32_MAX)
		return 0;
	return w->fn(name, (unsigned)num, w->userdata);
}

int sysfs_for_each_partition(int dirfd, const char *syspath, const char *block,
                             int (*fn)(const char *name, unsigned number, void *userdata),
                             void *userdata)
{
	_cleanup_free_ char *dir = NULL;
	PartitionWalk w = { .dirfd = dirfd, .fn = fn, .userdata = userdata };
	int r;

	assert_return(syspath && block && fn, -EINVAL);

	if (asprintf(&dir, "%s/block/%s", syspath, block) < 0)
		return -ENOMEM;
	w.dir = dir;
	r = sysfs_for_each_entry(dirfd, dir, block, partition_entry, &w);
	return r == -ENOENT ? 0 : r;
}

static int first_entry_fn(const char *name, void *userdata)
{
	char *best = userdata;

	if ((!best[0] || strcmp(name, best) < 0) && strlen(name) <= NAME_MAX)
		strcpy(best, name);
	return 0;
}

int sysfs_first_entry(int dirfd, const char *path, const char *prefix, char **ret)
{
	char best[NAME_MAX + 1] = "";
	int r;

	assert_return(ret, -EINVAL);
	assert_return(path && path[0] != '/', -EINVAL);

	r = sysfs_for_each_entry(dirfd, path, prefix, first_entry_fn, best);
	if (r < 0)
		return r;
	if (!best[0])
		return -ENOENT;
	*ret = strdup(best);
	return *ret ? 0 : -ENOMEM;
}

int sysfs_link_basename(int dirfd, const char *path, char **ret)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t k;

	assert_return(path && path[0] != '/', -EINVAL);
	assert_return(ret, -EINVAL);

	k = readlinkat(dirfd, path, target, sizeof(target));
	if (k < 0)
		return -errno;
	if ((size_t)k >= sizeof(target))
		return -ENAMETOOLONG;
	target[k] = 0;

	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (isempty(base))
		return -EBADMSG;
	*ret = strdup(base);
	return *ret ? 0 : -ENOMEM;
}

char *sysfs_link_target(int dirfd, const char *path)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dirfd, path, buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return strdup(buf);
}

bool sysfs_is_dirf(int dirfd, char *buf, const char *fmt, ...)
{
	struct stat st;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n > 0 && n < PATH_MAX && fstatat(dirfd, buf, &st, 0) >= 0 && S_ISDIR(st.st_mode);
}

int sysfs_scsi_host_parse(const char *name, unsigned *ret)
{
	unsigned long h;
	char *end;

	if (!name || !strneq(name, "host", 4) || name[4] < '0' || name[4] > '9')
		return -EINVAL;
	errno = 0;
	h = strtoul(name + 4, &end, 10);
	if (errno != 0 || *end != 0 || h > UINT_MAX)
		return -EINVAL;
	*ret = (unsigned)h;
	return 0;
}
