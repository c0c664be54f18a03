/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "macro.h"
#include "udevrec.h"

#define UDEVREC_PREFIX "LUND_LINK_"

int udevrec_key(bool block, dev_t devnum, char *buf, size_t size)
{
	int k = snprintf(buf, size, "%c%u:%u", block ? 'b' : 'c', major(devnum), minor(devnum));

	return k < 0 || (size_t)k >= size ? -ENOBUFS : 0;
}

static bool is_digits(const char *s, size_t n)
{
	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

int udevrec_key_valid(const char *key)
{
	const char *colon;

	if (!key || (key[0] != 'b' && key[0] != 'c'))
		return -EINVAL;
	colon = strchr(key, ':');
	if (!colon || !is_digits(key + 1, colon - key - 1) ||
	    !is_digits(colon + 1, strlen(colon + 1)))
		return -EINVAL;
	return 0;
}

/* udev's devnode allowlist (encode_devnode_name()): what it leaves as it is. */
static bool devnode_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       (c != 0 && strchr("#+-.:=@_", c));
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A directory below /dev as a record names it: plain components, none "." or "..". */
static int dir_valid(const char *dir, size_t len)
{
	size_t comp = 0;

	if (len == 0 || dir[0] == '/' || dir[len - 1] == '/')
		return -EINVAL;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || dir[i] == '/') {
			const char *c = dir + i - comp;

			if (comp == 0 || (comp == 1 && c[0] == '.') ||
			    (comp == 2 && c[0] == '.' && c[1] == '.'))
				return -EINVAL;
			comp = 0;
			continue;
		}
		if (!((dir[i] >= 'A' && dir[i] <= 'Z') || (dir[i] >= 'a' && dir[i] <= 'z') ||
		      (dir[i] >= '0' && dir[i] <= '9') || strchr("._-", dir[i])))
			return -EINVAL;
		comp++;
	}
	return 0;
}

/* A name in record form: allowlisted bytes and "\xHH", not "." or "..", at most NAME_MAX. */
static int name_valid(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > NAME_MAX || streq(name, ".") || streq(name, ".."))
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (devnode_char(name[i]))
			continue;
		if (name[i] == '\\' && name[i + 1] == 'x' && is_hex(name[i + 2]) &&
		    is_hex(name[i + 3])) {
			i += 3;
			continue;
		}
		return -EINVAL;
	}
	return 0;
}

int udevrec_escape_link(const char *dir, const char *name, char **ret)
{
	size_t dlen;
	char *s, *p;

	if (!dir || !name || !ret)
		return -EINVAL;
	dlen = strlen(dir);
	if (dir_valid(dir, dlen) < 0 || isempty(name) || streq(name, ".") || streq(name, ".."))
		return -EINVAL;
	s = malloc(dlen + 1 + strlen(name) * 4 + 1);
	if (!s)
		return -ENOMEM;
	p = mempcpy(s, dir, dlen);
	*p++ = '/';
	for (const char *c = name; *c; c++) {
		if (devnode_char(*c) ||
		    (c[0] == '\\' && c[1] == 'x' && is_hex(c[2]) && is_hex(c[3])))
			*p++ = *c; /* an escape already in udev's form stays one */
		else
			p += sprintf(p, "\\x%02x", (unsigned char)*c);
	}
	*p = 0;
	if (name_valid(s + dlen + 1) < 0) {
		free(s);
		return -EINVAL; /* too long once escaped */
	}
	*ret = s;
	return 0;
}

static int link_valid(const char *link)
{
	const char *slash = strrchr(link, '/');

	if (!slash || dir_valid(link, slash - link) < 0)
		return -EINVAL;
	return name_valid(slash + 1);
}

int udevrec_format(const char *const *links, size_t n, char **ret)
{
	size_t size = 1;
	char *s, *p;

	if (!ret || (n > 0 && !links))
		return -EINVAL;
	if (n > UDEVREC_MAX_LINKS)
		return -ENOBUFS;
	for (size_t i = 0; i < n; i++) {
		if (!links[i] || link_valid(links[i]) < 0)
			return -EINVAL;
		size += strlen(UDEVREC_PREFIX) + 8 + strlen(links[i]);
	}
	s = malloc(size);
	if (!s)
		return -ENOMEM;
	p = s;
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, UDEVREC_PREFIX "%zu=\"%s\"\n", i, links[i]);
	*p = 0;
	*ret = s;
	return 0;
}

/* Does @key in @dirfd hold exactly @text? */
static bool record_holds(int dirfd, const char *key, const char *text)
{
	size_t len = strlen(text);
	_cleanup_free_ char *buf = malloc(len + 2);
	_cleanup_close_ int fd = -EBADF;
	size_t got = 0;

	if (!buf)
		return false;
	fd = openat(dirfd, key, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return false;
	while (got < len + 1) {
		ssize_t k = read(fd, buf + got, len + 1 - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += k;
	}
	return got == len && memcmp(buf, text, len) == 0;
}

int udevrec_write(int dirfd, const char *key, const char *text)
{
	char tmp[UDEVREC_KEY_MAX + 8];
	_cleanup_close_ int fd = -EBADF;
	int r;

	if (udevrec_key_valid(key) < 0 || strlen(key) >= UDEVREC_KEY_MAX || !text)
		return -EINVAL;
	if (record_holds(dirfd, key, text))
		return 0;
	/* One writer per record directory (lund's run-dir lock): the name is free but for a
	 * leftover of an interrupted write. */
	snprintf(tmp, sizeof(tmp), ".#%s", key);
	(void)unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	r = loop_write(fd, text, strlen(text));
	if (r >= 0 && close(TAKE_FD(fd)) < 0)
		r = -errno;
	if (r >= 0 && renameat(dirfd, tmp, dirfd, key) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlinkat(dirfd, tmp, 0);
		return r;
	}
	return 1;
}

int udevrec_remove(int dirfd, const char *key)
{
	if (udevrec_key_valid(key) < 0)
		return -EINVAL;
	if (unlinkat(dirfd, key, 0) < 0)
		return errno == ENOENT ? 0 : -errno;
	return 1;
}

int udevrec_uevent_path(const char *key, char **ret)
{
	if (udevrec_key_valid(key) < 0 || !ret)
		return -EINVAL;
	if (asprintf(ret, "sys/dev/%s/%s/uevent", key[0] == 'b' ? "block" : "char", key + 1) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}
