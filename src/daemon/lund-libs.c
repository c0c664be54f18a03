/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * libsgutils2, dlopen()ed by lund when it first sends a SCSI command, as lunctl does
 * (src/cli/dlopen.h): most LUs are named from the pages the kernel caches, with no command at
 * all, and the library's mapping was 0.15 MiB of lund's resident set (32 KiB of it private
 * relocations) for nothing. Each function sgio.c calls (io/sgio-libs.h) is defined here under
 * its own name and prototype, as a stub that loads the library once and calls through; the
 * lund executable links this file, so the linker's --as-needed leaves libsgutils2 out of its
 * NEEDED entries (tests/install/check-needed keeps it so). Only the executable: the tests that
 * link the daemon's library link libsgutils2 itself.
 *
 * A library that cannot be loaded (a broken installation: the package depends on it) is
 * logged once; the commands then fail (construct_scsi_pt_obj() returns NULL: sgio.c's
 * -ENOMEM) and the LUs that need them go unnamed, where the dynamic loader would have kept
 * lund from starting at all.
 */

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "sgio-libs.h"

#define SGUTILS_NAME_F(ret, name, params, args)  #name,
#define SGUTILS_NAME_V(name, params, args)       #name,
#define SGUTILS_INDEX_F(ret, name, params, args) SYM_##name,
#define SGUTILS_INDEX_V(name, params, args)      SYM_##name,

enum { SGUTILS_FUNCTIONS(SGUTILS_INDEX_F, SGUTILS_INDEX_V) _SGUTILS_N };
static const char *const sgutils_names[] = { SGUTILS_FUNCTIONS(SGUTILS_NAME_F, SGUTILS_NAME_V) };
static void *sgutils_fns[_SGUTILS_N]; /* all NULL when the library could not be loaded */
static pthread_once_t sgutils_once = PTHREAD_ONCE_INIT;

/* The sonames lund dlopen()s, for whoever copies lund with its libraries (ldd cannot see
 * them): `readelf -p .lund.dlopen`. */
__attribute__((section(".lund.dlopen"), used)) static const char dlopen_soname[] =
        LUND_SGUTILS_SONAME;

static void sgutils_load(void)
{
	void *fns[_SGUTILS_N];
	void *dl;

	/* RTLD_LOCAL: its symbols stay out of the global scope, where the stubs are. */
	dl = dlopen(LUND_SGUTILS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		log_error("Cannot load %s, no SCSI command will be sent: %s", LUND_SGUTILS_SONAME,
		          dlerror());
		return;
	}
	for (size_t i = 0; i < _SGUTILS_N; i++) {
		fns[i] = dlsym(dl, sgutils_names[i]);
		if (!fns[i]) {
			log_error("%s has no %s, no SCSI command will be sent", LUND_SGUTILS_SONAME,
			          sgutils_names[i]);
			(void)dlclose(dl);
			return;
		}
	}
	/* The handle is kept: the functions stay in use until exit. */
	memcpy(sgutils_fns, fns, sizeof(fns));
}

/*
 * Each stub: the library's function, or, without the library, a zero result: no object to
 * send a command with (construct_scsi_pt_obj() NULL), no text for a sense code (sgio.c clears
 * the buffer first); the rest take that object and are never reached.
 */
#define SGUTILS_STUB_F(ret, name, params, args)                            \
	ret name params                                                    \
	{                                                                  \
		(void)pthread_once(&sgutils_once, sgutils_load);           \
		typeof(&name) fn = (typeof(&name))sgutils_fns[SYM_##name]; \
		return fn ? fn args : (ret){ 0 };                          \
	}
#define SGUTILS_STUB_V(name, params, args)                                 \
	void name params                                                   \
	{                                                                  \
		(void)pthread_once(&sgutils_once, sgutils_load);           \
		typeof(&name) fn = (typeof(&name))sgutils_fns[SYM_##name]; \
		if (fn)                                                    \
			fn args;                                           \
	}

SGUTILS_FUNCTIONS(SGUTILS_STUB_F, SGUTILS_STUB_V)

/*
 * The heap of a process that holds a few small objects per LU for as long as the LU lives, made
 * between short-lived ones of the same sizes (the LU's read, its pages, its wanted names): freed
 * small chunks go back to malloc's bins and merge with their neighbours at once, not into
 * fastbins, which keep them apart for reuse by the same size only. With fastbins the arena held
 * 0.7 MiB of such holes at 4096 LUs, a fifth of the heap in use (RssAnon 4.2 MiB; 3.7 without).
 * The per-thread cache stays: it serves the same hot sizes without the holes. Set before main(),
 * so that no chunk was ever freed into a fastbin.
 */
__attribute__((constructor)) static void lund_malloc_setup(void)
{
	(void)mallopt(M_MXFAST, 0);
}
