/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "links.h"
#include "macro.h"
#include "namestate.h"
#include "openfile.h"

int namestate_open_dir(int rootfd, const char *dir, bool create)
{
	return links_open_dir(rootfd, dir, create);
}

int namestate_load(int dirfd, NameRecSet *ret, NameStateDamage *ret_damage)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, bad = 0;
	int r;

	fd = open_regular(dirfd, NAMESTATE_FILE, O_NOFOLLOW, NAMEREC_FILE_MAX, NULL);
	if (fd == -ENOENT) {
		*ret = (NameRecSet){};
		*ret_damage = (NameStateDamage){};
		return 0;
	}
	if (fd < 0 && fd != -ELOOP && fd != -EBADMSG && fd != -EFBIG)
		return fd;
	/* A symlink, a FIFO or anything else where the file belongs is damage: the next save
	 * replaces it. */
	if (fd < 0) {
		*ret = (NameRecSet){};
		*ret_damage = (NameStateDamage){ .unusable = true };
		return 0;
	}
	/* One byte more than the limit, so a file that grew since fstat() is seen too big. */
	buf = malloc(NAMEREC_FILE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t k = read(fd, buf + len, NAMEREC_FILE_MAX + 1 - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		len += (size_t)k;
		if (len > NAMEREC_FILE_MAX)
			break;
	}
	r = namerec_parse(buf, len, ret, &bad);
	if (r == -EBADMSG || r == -EFBIG || r == -EBADE) {
		*ret = (NameRecSet){};
		*ret_damage = (NameStateDamage){ .unusable = true, .checksum = r == -EBADE };
		return 0;
	}
	if (r < 0)
		return r;
	*ret_damage = (NameStateDamage){ .bad_lines = bad };
	return 0;
}

int namestate_set_aside(int dirfd)
{
	return renameat(dirfd, NAMESTATE_FILE, dirfd, NAMESTATE_DAMAGED) < 0 ? -errno : 0;
}

int namestate_save(int dirfd, const NameRecSet *s)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t len;
	int r;

	r = namerec_format(s, &text, &len);
	if (r < 0)
		return r;
	/* A temporary file left by a crash is replaced, never followed. */
	if (unlinkat(dirfd, NAMESTATE_TMP, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(dirfd, NAMESTATE_TMP, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	            0644);
	if (fd < 0)
		return -errno;
	r = loop_write(fd, text, len);
	if (r >= 0 && fsync(fd) < 0)
		r = -errno;
	if (r >= 0 && renameat(dirfd, NAMESTATE_TMP, dirfd, NAMESTATE_FILE) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlinkat(dirfd, NAMESTATE_TMP, 0);
		return r;
	}
	/* The rename itself reaches the disk with the directory. */
	if (fsync(dirfd) < 0)
		return -errno;
	return 0;
}
