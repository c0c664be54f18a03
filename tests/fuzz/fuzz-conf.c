/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lund.conf (lund.conf(5)) as an administrator, a package or an attacker with write access to
 * /etc may leave it: conf_load() must take any bytes, and every section it keeps must be
 * readable and checkable (conf_check()). The input goes through a memfd, as conf_load() reads a
 * path.
 */

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conf.h"
#include "confcheck.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;
	char path[64];
	int fd, r;

	if (outside_size_range(size, 0, 256 * 1024))
		return 0;
	fd = memfd_create("fuzz-conf", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%i", fd);
	r = conf_load(path, "/nonexistent/hwdb.bin", &c);
	close(fd);
	fuzz_check(r == 0 || r == -EBADMSG || r == -ENOMEM);
	if (!c)
		return 0;
	fuzz_check(conf_file_error(c) <= 0);
	/* the checker walks what was loaded, iniparser's errors too, and what the locator found */
	fuzz_check(conf_check(c, NULL, NULL) >= 0);
	for (size_t i = 0; i < conf_n_sections(c); i++) {
		const ConfSection *s = conf_section(c, i);

		bool applies;

		fuzz_check(s != NULL);
		fuzz_touch_str(s->title);
		fuzz_touch_str(s->name);
		for (size_t j = 0; j < s->n_entries; j++) {
			fuzz_check(s->entries[j].value != NULL);
			fuzz_touch_str(s->entries[j].key);
			fuzz_touch_str(s->entries[j].value);
		}
		for (int pass = 0; pass < 2; pass++) {
			applies = conf_section_applies(s, pass, "ATA", "QEMU HARDDISK");
			fuzz_touch_val(applies);
		}
	}
	return 0;
}
