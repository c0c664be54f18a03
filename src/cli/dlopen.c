/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dlfcn.h>
#include <stdlib.h>

#include "dlopen.h"
#include "log.h"
#include "lunctl.h"

void dl_load_or_exit(const char *soname, const char *const *names, void **ret_fns, size_t n)
{
	void *dl;

	/* RTLD_LOCAL: the library's symbols stay out of the global scope, where the stubs are. */
	dl = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		log_error("Cannot load %s, which this command needs: %s", soname, dlerror());
		exit(EXIT_DEVICE);
	}
	for (size_t i = 0; i < n; i++) {
		ret_fns[i] = dlsym(dl, names[i]);
		if (!ret_fns[i]) {
			log_error("%s has no %s: %s", soname, names[i], dlerror());
			exit(EXIT_DEVICE);
		}
	}
	/* The handle is kept: the functions stay in use until exit. */
}
