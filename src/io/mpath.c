/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "mpath.h"
#include "sysfs.h"

/* dm-ioctl's uuid prefix for multipath maps (multipath-tools, libmultipath/devmapper.c). */
#define MPATH_UUID_PREFIX "mpath-"

static bool node_name_ok(const char *s)
{
	return !isempty(s) && !strchr(s, '/') && !streq(s, ".") && !streq(s, "..") &&
	       strlen(s) < 64;
}

int mpath_holder(int rootfd, const char *block, char **ret_dm, char **ret_uuid)
{
	_cleanup_free_ char *dir = NULL, *best = NULL, *best_uuid = NULL;
	DIR *d;
	int r;

	assert_return(ret_dm && ret_uuid, -EINVAL);
	if (!node_name_ok(block))
		return -EINVAL;
	if (asprintf(&dir, "sys/class/block/%s/holders", block) < 0)
		return -ENOMEM;
	r = sysfs_opendir(rootfd, dir, &d);
	if (r < 0)
		return r == -ENOTDIR ? -ENOENT : r;
	for (struct dirent *de; (de = readdir(d));) {
		_cleanup_free_ char *uuid = NULL, *hdir = NULL;

		if (!node_name_ok(de->d_name) || de->d_name[0] == '.')
			continue;
		if (best && strcmp(de->d_name, best) > 0)
			continue;
		if (asprintf(&hdir, "sys/class/block/%s/dm", de->d_name) < 0) {
			closedir(d);
			return -ENOMEM;
		}
		uuid = sysfs_attr_string(rootfd, hdir, "uuid");
		if (!uuid || !strneq(uuid, MPATH_UUID_PREFIX, strlen(MPATH_UUID_PREFIX)) ||
		    strlen(uuid) == strlen(MPATH_UUID_PREFIX))
			continue;
		free(best);
		free(best_uuid);
		best = strdup(de->d_name);
		best_uuid = TAKE_PTR(uuid);
		if (!best) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	if (!best)
		return -ENOENT;
	*ret_dm = TAKE_PTR(best);
	*ret_uuid = TAKE_PTR(best_uuid);
	return 0;
}
