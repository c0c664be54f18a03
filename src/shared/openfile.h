/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * open_regular() - open @path (below @dirfd, or AT_FDCWD) for reading as a regular file of at
 * most @max bytes, with @flags added (O_NOFOLLOW), without waiting on what is there instead: a
 * FIFO's open() waits for a writer, a device such as /dev/zero never ends. The state and
 * configuration files lund reads are opened this way. Returns the fd (blocking again, close-on-
 * exec) with its size in *@ret_size (may be NULL); -EBADMSG when the file is no regular file,
 * -EFBIG when it is larger than @max, -errno.
 */
static inline int open_regular(int dirfd, const char *path, int flags, uint64_t max,
                               uint64_t *ret_size)
{
	struct stat st;
	int fd, r = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EBADMSG;
	else if ((uint64_t)st.st_size > max)
		r = -EFBIG;
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	if (ret_size)
		*ret_size = (uint64_t)st.st_size;
	return fd;
}
