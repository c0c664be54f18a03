/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "macro.h"
#include "modload.h"
#include "sysfs.h"

#if HAVE_KMOD
#include <libkmod.h>

struct ModLoader {
	int rootfd;
	ModLoadMode mode;
	struct kmod_ctx *ctx;
};

int modload_new(int rootfd, ModLoadMode mode, ModLoader **ret)
{
	ModLoader *ml;

	*ret = NULL;
	if (mode == MODLOAD_NEVER)
		return 0;
	ml = calloc(1, sizeof(*ml));
	if (!ml)
		return -ENOMEM;
	ml->rootfd = rootfd;
	ml->mode = mode;
	ml->ctx = kmod_new(NULL, NULL);
	if (!ml->ctx) {
		free(ml);
		return -ENOMEM;
	}
	/* Resources are loaded lazily otherwise; do it once, here, not per device. */
	(void)kmod_load_resources(ml->ctx);
	*ret = ml;
	return 0;
}

ModLoader *modload_free(ModLoader *ml)
{
	if (!ml)
		return NULL;
	kmod_unref(ml->ctx);
	free(ml);
	return NULL;
}

bool modload_active(ModLoader *ml)
{
	if (!ml)
		return false;
	if (ml->mode == MODLOAD_ALWAYS)
		return true;
	/* udevd's control socket: udevd runs and its kmod builtin loads drivers. */
	return faccessat(ml->rootfd, "run/udev/control", F_OK, AT_SYMLINK_NOFOLLOW) < 0;
}

/* Load every module @alias resolves to (blacklist applied). Returns how many were new. */
static int load_alias(ModLoader *ml, const char *hctl, const char *alias)
{
	LogDevice dev = { .hctl = hctl };
	struct kmod_list *list = NULL, *l;
	int r, n = 0;

	r = kmod_module_new_from_lookup(ml->ctx, alias, &list);
	if (r < 0)
		return log_device_warning_errno(&dev, r, "Failed to look up modules for \"%s\": %m",
		                                alias);
	if (!list)
		log_device_full(LOG_DEBUG, 0, &dev, "No module for \"%s\"", alias);
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);
		int state = kmod_module_get_initstate(mod);

		if (state == KMOD_MODULE_LIVE || state == KMOD_MODULE_BUILTIN ||
		    state == KMOD_MODULE_COMING) {
			kmod_module_unref(mod);
			continue;
		}
		r = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL,
		                                    NULL, NULL);
		if (r == 0 || r == -EEXIST) {
			if (r == 0) {
				log_device_info(&dev, "Loaded module %s for \"%s\"",
				                kmod_module_get_name(mod), alias);
				n++;
			}
		} else if (r == KMOD_PROBE_APPLY_BLACKLIST)
			log_device_full(LOG_DEBUG, 0, &dev, "Module %s is blacklisted",
			                kmod_module_get_name(mod));
		else
			log_device_warning_errno(&dev, r, "Failed to load module %s: %m",
			                         kmod_module_get_name(mod));
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(list);
	return n;
}

int modload_lu(ModLoader *ml, const char *hctl, const char *syspath, const char *modalias)
{
	_cleanup_free_ char *alias = NULL, *path = NULL;
	_cleanup_free_ uint8_t *inq = NULL;
	size_t len = 0;
	int n = 0, r;

	if (!modload_active(ml))
		return 0;
	if (!modalias) {
		if (asprintf(&path, "%s/modalias", syspath) < 0)
			return -ENOMEM;
		r = sysfs_read_string(ml->rootfd, path, &alias);
		if (r < 0)
			return r;
		modalias = alias;
	}
	r = load_alias(ml, hctl, modalias);
	n += r > 0 ? r : 0;
	r = load_alias(ml, hctl, "sg");
	n += r > 0 ? r : 0;

	/* TPGS (INQUIRY byte 5, bits 5:4): the LU does ALUA, its device handler attaches. */
	free(path);
	path = NULL;
	if (asprintf(&path, "%s/inquiry", syspath) < 0)
		return -ENOMEM;
	if (sysfs_read_attr(ml->rootfd, path, 256, &inq, &len) >= 0 && len > 5 &&
	    (inq[5] & 0x30) != 0) {
		r = load_alias(ml, hctl, "scsi_dh_alua");
		n += r > 0 ? r : 0;
	}
	return n;
}

#else /* !HAVE_KMOD */

int modload_new(int rootfd, ModLoadMode mode, ModLoader **ret)
{
	*ret = NULL;
	if (mode == MODLOAD_ALWAYS)
		log_warning("Built without libkmod: lund cannot load drivers, ignoring");
	return 0;
}

ModLoader *modload_free(ModLoader *ml)
{
	return NULL;
}

bool modload_active(ModLoader *ml)
{
	return false;
}

int modload_lu(ModLoader *ml, const char *hctl, const char *syspath, const char *modalias)
{
	return 0;
}
#endif
