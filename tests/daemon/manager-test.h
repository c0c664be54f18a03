/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The scaffold of the in-process manager tests (the manager run on a fake tree made with
 * check-util.h's CheckTree): lund's log in a file of the tree, the configuration of a lund on
 * it, and what a symlink of it points at.
 */

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "manager.h"
#include "modload.h"

/* lund logs to stderr: into @t's lund.log, for manager_test_log_has(). */
static inline void manager_test_log_to(const CheckTree *t)
{
	char path[PATH_MAX];

	xsnprintf(path, "%s/lund.log", t->path);
	ck_assert_ptr_nonnull(freopen(path, "w+", stderr));
}

/* Has lund logged @needle since manager_test_log_to()? */
static inline bool manager_test_log_has(const char *needle)
{
	static char buf[1 << 20];
	size_t n;

	fflush(stderr);
	fseek(stderr, 0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, stderr);
	buf[n] = 0;
	fseek(stderr, 0, SEEK_END);
	return strstr(buf, needle) != NULL;
}

/* A lund on @t: sysfs only, no monitor, no scans or module loads, its run directory @t's run/
 * (written to @run_dir, which the configuration points at), /dev/scsi/by-id its links. */
static inline ManagerConfig manager_test_config(const CheckTree *t, char run_dir[PATH_MAX])
{
	ck_assert_int_lt(snprintf(run_dir, PATH_MAX, "%s/run", t->path), PATH_MAX);
	return (ManagerConfig){
		.root = t->path,
		.run_dir = run_dir,
		.link_dir = "dev/scsi/by-id",
		.no_monitor = true,
		.probe_flags = PROBE_SYSFS_ONLY,
		.modload = MODLOAD_NEVER,
		.scan = MANAGER_SCAN_NEVER,
	};
}

/* Where the symlink @rel of @t points, "(none)" when it is none. */
static inline const char *manager_test_readlink(const CheckTree *t, const char *rel)
{
	static char buf[PATH_MAX];
	ssize_t n = readlinkat(t->fd, rel, buf, sizeof(buf) - 1);

	if (n < 0)
		return "(none)";
	buf[n] = 0;
	return buf;
}
