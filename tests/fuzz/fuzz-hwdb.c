/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A compiled hwdb.bin as a corrupted disk or a hostile local file may leave it:
 * hwdb_validate() must take any bytes, and a file it accepts must be searchable by sd-hwdb
 * without a crash (hwdb_open() maps it through a memfd).
 */

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "hwdb.h"

static void on_property(const char *key, const char *value, void *userdata)
{
	fuzz_touch_str(key);
	fuzz_touch_str(value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Hwdb *h = NULL;
	char path[64];
	int fd, r;

	if (outside_size_range(size, 0, 1024 * 1024))
		return 0;
	r = hwdb_validate(data, size);
	fuzz_check(r == 0 || r == -EBADMSG);
	if (r < 0)
		return 0;
	fd = memfd_create("fuzz-hwdb", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%i", fd);
		if (hwdb_open(path, &h) >= 0) {
			fuzz_check(hwdb_lookup(h, "lund:scsi:t0:vATA:mDISK:r1", on_property,
			                       NULL) >= 0);
			fuzz_check(hwdb_lookup(h, "", on_property, NULL) >= 0);
			hwdb_free(h);
		}
	}
	close(fd);
	return 0;
}
