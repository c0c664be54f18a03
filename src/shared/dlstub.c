/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "dlstub.h"
#include "macro.h"

static void report(DlstubFailFn fail, const char *soname)
{
	const char *error = dlerror();

	if (fail)
		fail(soname, error ?: "unknown error");
}

int dlstub_load(const char *soname, const char *const *names, size_t n, void **ret_fns,
                void **ret_dl, DlstubFailFn fail)
{
	void *dl;

	assert(soname && (names || n == 0) && (ret_fns || n == 0));

	/* RTLD_LOCAL: the library's symbols stay out of the global scope, where the stubs are. */
	dl = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		report(fail, soname);
		return -ELIBACC;
	}
	for (size_t i = 0; i < n; i++) {
		/* POSIX: a function pointer converts to and from the void * dlsym() returns. */
		ret_fns[i] = dlsym(dl, names[i]);
		if (!ret_fns[i]) {
			report(fail, soname);
			memset(ret_fns, 0, n * sizeof(*ret_fns));
			(void)dlclose(dl);
			return -ELIBBAD;
		}
	}
	if (ret_dl)
		*ret_dl = dl;
	return 0;
}
