/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Corpus replayer for builds without libFuzzer (util-linux style): every argument is a file or
 * a directory of files, each fed once to LLVMFuzzerTestOneInput(). A crash is the failure.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "macro.h"

/* Larger than any target accepts, so the size filter is exercised too. */
#define REPLAY_MAX (1024 * 1024)

static int replay_fd(int fd, const char *name)
{
	_cleanup_free_ uint8_t *buf = malloc(REPLAY_MAX);
	size_t n = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t k = read(fd, buf + n, REPLAY_MAX - n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: read failed: %m\n", name);
			return -errno;
		}
		if (k == 0 || (n += (size_t)k) == REPLAY_MAX)
			break;
	}
	(void)LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

static int replay_path(int at_fd, const char *name, const char *shown, unsigned *count)
{
	_cleanup_close_ int fd = openat(at_fd, name, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0) {
		fprintf(stderr, "%s: %m\n", shown);
		return -errno;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = fdopendir(TAKE_FD(fd));
		struct dirent *de;
		int r = 0;

		if (!d)
			return -errno;
		while ((de = readdir(d))) {
			_cleanup_free_ char *sub = NULL;

			if (de->d_name[0] == '.')
				continue;
			if (asprintf(&sub, "%s/%s", shown, de->d_name) < 0) {
				r = -ENOMEM;
				break;
			}
			r = replay_path(dirfd(d), de->d_name, sub, count);
			if (r < 0)
				break;
		}
		closedir(d);
		return r;
	}
	if (!S_ISREG(st.st_mode))
		return 0;
	(*count)++;
	return replay_fd(fd, shown);
}

int main(int argc, char *argv[])
{
	unsigned count = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR|FILE...\n", argv[0]);
		return EXIT_FAILURE;
	}
	for (int i = 1; i < argc; i++)
		if (replay_path(AT_FDCWD, argv[i], argv[i], &count) < 0)
			return EXIT_FAILURE;
	printf("%s: replayed %u inputs\n", argv[0], count);
	return EXIT_SUCCESS;
}
