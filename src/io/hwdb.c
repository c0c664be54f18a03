/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <systemd/sd-hwdb.h>
#include <unistd.h>

#include "hwdb.h"
#include "macro.h"
#include "openfile.h"

struct Hwdb {
	/* sd-hwdb keeps its iteration state inside the object: one lookup at a time. */
	pthread_mutex_t lock;
	sd_hwdb *hwdb;
};

/*
 * The compiled format (systemd's hwdb-internal.h, all integers little-endian):
 * header { "KSLPHHRH", tool_version, file_size, header_size, node_size, child_entry_size,
 * value_entry_size, nodes_root_off, nodes_len, strings_len }; a node is
 * { prefix_off, children_count (u8), 7 pad, values_count } followed by its child entries
 * { c, 7 pad, child_off } and value entries { key_off, value_off[, filename_off, ...] }.
 * sd-hwdb checks only the signature and file_size and then follows every offset as it
 * finds it, so a corrupt file crashes or hangs the lookup.
 */
#define HWDB_HEADER_SIZE 80u
#define HWDB_NODE_SIZE   24u
#define HWDB_CHILD_SIZE  16u
#define HWDB_VALUE_SIZE  16u
#define HWDB_VALUE2_SIZE 32u
#define HWDB_ENTRY_MAX   4096u /* sizes a future format might use, far past today's */
#define HWDB_DEPTH_MAX   4096u /* longer than any match string; bounds sd-hwdb's recursion */

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool string_ok(const uint8_t *buf, size_t len, uint64_t off)
{
	return off < len && memchr(buf + off, 0, len - off);
}

typedef struct HwdbLayout {
	uint64_t node_size, child_size, value_size;
} HwdbLayout;

/* One node: itself, its entries and every string they name inside the file. */
static int node_check(const uint8_t *buf, size_t len, const HwdbLayout *l, uint64_t off,
                      uint64_t *ret_children)
{
	uint64_t children, values, end;
	const uint8_t *n;

	if (off >= len || len - off < l->node_size)
		return -EBADMSG;
	n = buf + off;
	children = n[8];
	values = le64(n + 16);
	end = off + l->node_size + children * l->child_size;
	if (end > len || values > (len - end) / l->value_size)
		return -EBADMSG;
	if (le64(n) != 0 && !string_ok(buf, len, le64(n)))
		return -EBADMSG;
	for (uint64_t i = 0; i < values; i++) {
		const uint8_t *v = buf + end + i * l->value_size;

		if (!string_ok(buf, len, le64(v)) || !string_ok(buf, len, le64(v + 8)))
			return -EBADMSG;
		if (l->value_size >= HWDB_VALUE2_SIZE && !string_ok(buf, len, le64(v + 16)))
			return -EBADMSG;
	}
	*ret_children = children;
	return 0;
}

int hwdb_validate(const uint8_t *buf, size_t len)
{
	typedef struct {
		uint64_t off, next, children;
	} Frame;
	_cleanup_free_ uint8_t *state = NULL; /* per byte offset: 1 on the path, 2 done */
	_cleanup_free_ Frame *stack = NULL;
	HwdbLayout l;
	size_t depth = 0;
	uint64_t root, children;
	int r;

	assert_return(buf || len == 0, -EINVAL);

	if (len < HWDB_HEADER_SIZE || memcmp(buf, "KSLPHHRH", 8) != 0 || le64(buf + 16) != len)
		return -EBADMSG;
	l.node_size = le64(buf + 32);
	l.child_size = le64(buf + 40);
	l.value_size = le64(buf + 48);
	root = le64(buf + 56);
	if (le64(buf + 24) < HWDB_HEADER_SIZE || le64(buf + 24) > len ||
	    l.node_size < HWDB_NODE_SIZE || l.node_size > HWDB_ENTRY_MAX ||
	    l.child_size < HWDB_CHILD_SIZE || l.child_size > HWDB_ENTRY_MAX ||
	    l.value_size < HWDB_VALUE_SIZE || l.value_size > HWDB_ENTRY_MAX)
		return -EBADMSG;

	state = calloc(len, 1);
	stack = calloc(HWDB_DEPTH_MAX, sizeof(*stack));
	if (!state || !stack)
		return -ENOMEM;

	/* Depth first without recursion; a child already on the path is a cycle. */
	r = node_check(buf, len, &l, root, &children);
	if (r < 0)
		return r;
	stack[depth++] = (Frame){ .off = root, .children = children };
	state[root] = 1;
	while (depth > 0) {
		Frame *f = &stack[depth - 1];
		uint64_t child;

		if (f->next == f->children) {
			state[f->off] = 2;
			depth--;
			continue;
		}
		child = le64(buf + f->off + l.node_size + f->next * l.child_size + 8);
		f->next++;
		if (child < len && state[child] == 2)
			continue; /* shared, already checked */
		if (child < len && state[child] == 1)
			return -EBADMSG;
		if (depth == HWDB_DEPTH_MAX)
			return -EBADMSG;
		r = node_check(buf, len, &l, child, &children);
		if (r < 0)
			return r;
		stack[depth++] = (Frame){ .off = child, .children = children };
		state[child] = 1;
	}
	return 0;
}

/* The same search order as sd_hwdb_new(). */
static const char *const hwdb_paths[] = {
	"/etc/systemd/hwdb/hwdb.bin", "/etc/udev/hwdb.bin",     "/usr/lib/systemd/hwdb/hwdb.bin",
	"/lib/systemd/hwdb/hwdb.bin", "/usr/lib/udev/hwdb.bin", "/lib/udev/hwdb.bin",
};

/* Open @path and check it whole; *ret_fd stays open so sd-hwdb maps the file we checked. */
static int hwdb_open_checked(const char *path, int *ret_fd)
{
	_cleanup_close_ int fd = -EBADF;
	uint64_t size = 0;
	void *map;
	int r;

	fd = open_regular(AT_FDCWD, path, 0, SIZE_MAX / 2, &size);
	if (fd == -EFBIG)
		return -EBADMSG;
	if (fd < 0)
		return fd;
	if (size < HWDB_HEADER_SIZE)
		return -EBADMSG;
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	r = hwdb_validate(map, (size_t)size);
	munmap(map, (size_t)size);
	if (r < 0)
		return r;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int hwdb_open(const char *path, Hwdb **ret)
{
	_cleanup_close_ int fd = -EBADF;
	char fdpath[64];
	sd_hwdb *hw = NULL;
	Hwdb *h;
	int r = -ENOENT;

	assert_return(ret, -EINVAL);

	if (path)
		r = hwdb_open_checked(path, &fd);
	else
		for (size_t i = 0; i < ELEMENTSOF(hwdb_paths) && r == -ENOENT; i++) {
			r = hwdb_open_checked(hwdb_paths[i], &fd);
			path = hwdb_paths[i];
		}
	if (r < 0)
		return r;
	/* The file just checked, even if the path is replaced meanwhile (needs /proc). */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%i", fd);
	r = sd_hwdb_new_from_path(access(fdpath, R_OK) == 0 ? fdpath : path, &hw);
	if (r < 0)
		return r;
	h = calloc(1, sizeof(*h));
	if (!h) {
		sd_hwdb_unref(hw);
		return -ENOMEM;
	}
	pthread_mutex_init(&h->lock, NULL);
	h->hwdb = hw;
	*ret = h;
	return 0;
}

Hwdb *hwdb_free(Hwdb *h)
{
	if (!h)
		return NULL;
	sd_hwdb_unref(h->hwdb);
	pthread_mutex_destroy(&h->lock);
	free(h);
	return NULL;
}

/* Append @s with trailing blanks dropped and unsafe bytes as '_'. */
static char *put_field(char *p, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		*p++ = c > 0x20 && c < 0x7f && c != ':' ? (char)c : (c == ' ' ? ' ' : '_');
	}
	return p;
}

char *hwdb_modalias(int type, const char *vendor, const char *model, const char *revision)
{
	size_t n = 64 + (vendor ? strlen(vendor) : 0) + (model ? strlen(model) : 0) +
	           (revision ? strlen(revision) : 0);
	char *m = malloc(n), *p;

	if (!m)
		return NULL;
	p = m + sprintf(m, "lund:scsi:t%d:v", type < 0 ? 255 : type);
	p = put_field(p, vendor);
	p = stpcpy(p, ":m");
	p = put_field(p, model);
	p = stpcpy(p, ":r");
	p = put_field(p, revision);
	*p = 0;
	return m;
}

char *hwdb_modalias_usb(unsigned vendor, unsigned product)
{
	char *m;

	if (asprintf(&m, "lund:usb:v%04Xp%04X", vendor & 0xffffu, product & 0xffffu) < 0)
		return NULL;
	return m;
}

int hwdb_lookup(Hwdb *h, const char *modalias, HwdbPropertyFn fn, void *userdata)
{
	const char *key, *value;
	int n = 0;

	assert_return(h && modalias && fn, -EINVAL);

	pthread_mutex_lock(&h->lock);
	SD_HWDB_FOREACH_PROPERTY(h->hwdb, modalias, key, value)
	{
		fn(key[0] == ' ' ? key + 1 : key, value, userdata);
		n++;
	}
	pthread_mutex_unlock(&h->lock);
	return n;
}
