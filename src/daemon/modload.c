/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dlstub.h"
#include "log.h"
#include "macro.h"
#include "modload.h"
#include "sysfs.h"

#if HAVE_KMOD
#include <libkmod.h>

/*
 * libkmod is dlopen()ed when the first LU needs a driver loaded, not linked: where udevd runs
 * (nearly everywhere) lund never loads a module, and libkmod brings libcrypto, whose pages
 * (1.4 MiB resident, 0.4 MiB of it private relocations and data) were most of what lund
 * mapped besides its own heap. The functions used, resolved by name from LUND_KMOD_SONAME
 * (the soname of the libkmod built against, src/daemon/meson.build).
 */
#define KMOD_FNS(X)                        \
	X(kmod_new)                        \
	X(kmod_unref)                      \
	X(kmod_load_resources)             \
	X(kmod_list_next)                  \
	X(kmod_module_new_from_lookup)     \
	X(kmod_module_get_module)          \
	X(kmod_module_get_initstate)       \
	X(kmod_module_get_name)            \
	X(kmod_module_probe_insert_module) \
	X(kmod_module_unref)               \
	X(kmod_module_unref_list)

typedef struct KmodFns {
#define KMOD_FN_FIELD(f) __typeof__(f) *f;
	KMOD_FNS(KMOD_FN_FIELD)
#undef KMOD_FN_FIELD
} KmodFns;

/* For whoever copies lund with its libraries (shared/dlstub.h). */
DLSTUB_SONAME(kmod_soname, LUND_KMOD_SONAME);

static const char *const kmod_fn_names[] = {
#define KMOD_FN_NAME(f) #f,
	KMOD_FNS(KMOD_FN_NAME)
#undef KMOD_FN_NAME
};

struct ModLoader {
	int rootfd;
	ModLoadMode mode;
	/* Set up on first use (modload_lu(), which runs in one thread at a time: the manager's
	 * module-loading worker, or the loop when it has none). */
	void *dl;
	KmodFns kmod;
	struct kmod_ctx *ctx;
	int setup_error; /* why libkmod could not be set up (said once), 0 if it was or untried */
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
	*ret = ml;
	return 0;
}

ModLoader *modload_free(ModLoader *ml)
{
	if (!ml)
		return NULL;
	if (ml->ctx)
		ml->kmod.kmod_unref(ml->ctx);
	if (ml->dl)
		(void)dlclose(ml->dl);
	free(ml);
	return NULL;
}

static void modload_dl_failed(const char *soname, const char *error)
{
	log_warning("Cannot load %s, no driver will be loaded: %s", soname, error);
}

int modload_prepare(ModLoader *ml)
{
	void **fns;
	int r;

	_Static_assert(sizeof(KmodFns) == ELEMENTSOF(kmod_fn_names) * sizeof(void *),
	               "one pointer per function");
	if (!ml)
		return -EOPNOTSUPP;
	if (ml->ctx)
		return 0;
	fns = (void **)&ml->kmod;
	if (ml->setup_error < 0)
		return ml->setup_error;

	/* Called through ml->kmod, not through stubs (dlstub.h): a library that cannot be
	 * loaded is told apart here from a module that cannot (setup_error, said once). */
	r = dlstub_load(LUND_KMOD_SONAME, kmod_fn_names, ELEMENTSOF(kmod_fn_names), fns, &ml->dl,
	                modload_dl_failed);
	if (r < 0)
		return ml->setup_error = r;
	ml->ctx = ml->kmod.kmod_new(NULL, NULL);
	if (!ml->ctx) {
		log_warning("Cannot set up libkmod, no driver will be loaded");
		return ml->setup_error = -ENOMEM;
	}
	/* Resources are loaded lazily otherwise; do it once, here, not per device. */
	(void)ml->kmod.kmod_load_resources(ml->ctx);
	return 0;
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
	const KmodFns *k = &ml->kmod;
	struct kmod_list *list = NULL;
	int r, n = 0;

	r = k->kmod_module_new_from_lookup(ml->ctx, alias, &list);
	if (r < 0)
		return log_device_warning_errno(&dev, r, "Failed to look up modules for \"%s\": %m",
		                                alias);
	if (!list)
		log_device_full(LOG_DEBUG, 0, &dev, "No module for \"%s\"", alias);
	for (struct kmod_list *l = list; l; l = k->kmod_list_next(list, l)) {
		struct kmod_module *mod = k->kmod_module_get_module(l);
		int state = k->kmod_module_get_initstate(mod);

		if (state == KMOD_MODULE_LIVE || state == KMOD_MODULE_BUILTIN ||
		    state == KMOD_MODULE_COMING) {
			k->kmod_module_unref(mod);
			continue;
		}
		r = k->kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL,
		                                       NULL, NULL);
		if (r == 0 || r == -EEXIST) {
			if (r == 0) {
				log_device_info(&dev, "Loaded module %s for \"%s\"",
				                k->kmod_module_get_name(mod), alias);
				n++;
			}
		} else if (r == KMOD_PROBE_APPLY_BLACKLIST)
			log_device_full(LOG_DEBUG, 0, &dev, "Module %s is blacklisted",
			                k->kmod_module_get_name(mod));
		else
			log_device_warning_errno(&dev, r, "Failed to load module %s: %m",
			                         k->kmod_module_get_name(mod));
		k->kmod_module_unref(mod);
	}
	k->kmod_module_unref_list(list);
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
	r = modload_prepare(ml);
	if (r < 0)
		return r;
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

int modload_prepare(ModLoader *ml)
{
	return -EOPNOTSUPP;
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
