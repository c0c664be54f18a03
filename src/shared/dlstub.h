/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Libraries loaded on first use instead of at exec, for lund (libsgutils2, libkmod) and lunctl
 * (libjson-c, libsmartcols, libiniparser, libsystemd's sd-hwdb, libsgutils2): a program that
 * does not need one on a given run never maps it (src/cli/lunctl-libs.c and
 * src/daemon/lund-libs.c say what each saves).
 *
 * A library's functions are listed once, in X-macro form:
 *
 *   #define FOO_FUNCTIONS(F, V) \
 *           F(int, foo_open, (const char *p), (p)) \
 *           V(foo_close, (struct foo * f), (f))
 *
 * F(return type, name, (parameters), (arguments)); V(name, (parameters), (arguments)) for a
 * function returning void. DLSTUB_LIBRARY() then defines each function under the library's own
 * name as a stub that loads the library once (pthread_once(): any thread may call first) and
 * calls through. The library's header declares every one, so a stub whose prototype differs
 * does not compile, and with the linker's --as-needed (meson's b_asneeded) the program links
 * none of them: tests/install/check-needed keeps it so. The program names each library's
 * soname in its .lund.dlopen section, for whoever copies it with its libraries (ldd cannot see
 * them; tests/vm/mkinitramfs.sh reads them with `readelf -p .lund.dlopen`).
 */

#include <pthread.h>
#include <stddef.h>

/* Told why @soname cannot be used: what dlerror() said (never NULL). */
typedef void (*DlstubFailFn)(const char *soname, const char *error);

/*
 * dlstub_load() - dlopen(@soname) and resolve @names[0..n) into @ret_fns, all or none: on
 * failure every entry is NULL. @ret_dl (may be NULL: the library then stays loaded until
 * exit) gets the handle. @fail (may be NULL) is called before returning an error, while
 * dlerror()'s text still holds. Returns 0, -ELIBACC when the library cannot be loaded, or
 * -ELIBBAD when it lacks one of @names.
 */
int dlstub_load(const char *soname, const char *const *names, size_t n, void **ret_fns,
                void **ret_dl, DlstubFailFn fail);

#define DLSTUB_NAME_F(ret, name, params, args)  #name,
#define DLSTUB_NAME_V(name, params, args)       #name,
#define DLSTUB_INDEX_F(ret, name, params, args) DLSTUB_SYM_##name,
#define DLSTUB_INDEX_V(name, params, args)      DLSTUB_SYM_##name,

/* The soname of a library a program loads itself, in its .lund.dlopen section. */
#define DLSTUB_SONAME(id, soname) \
	__attribute__((section(".lund.dlopen"), used)) static const char id[] = soname

/*
 * DLSTUB_LIBRARY() - the stubs of every function FUNCTIONS lists, loading @soname on the first
 * call of any. A library that cannot be loaded is handed to @fail once; the stubs then return
 * a zero of their type (NULL, 0) and do nothing else, so a program whose @fail returns must
 * take such a result as the library's failure. @lib names the library in identifiers; the
 * program defines DLSTUB_F_<lib>(...) as DLSTUB_F(<lib>, __VA_ARGS__) and DLSTUB_V_<lib>
 * likewise, which route each function to its library.
 */
#define DLSTUB_LIBRARY(lib, soname, FUNCTIONS, fail)                                    \
	enum { FUNCTIONS(DLSTUB_INDEX_F, DLSTUB_INDEX_V) _DLSTUB_##lib##_N };           \
	static const char *const dlstub_##lib##_names[] = { FUNCTIONS(DLSTUB_NAME_F,    \
		                                                      DLSTUB_NAME_V) }; \
	static void *dlstub_##lib##_fns[_DLSTUB_##lib##_N]; /* all NULL until loaded */ \
	static pthread_once_t dlstub_##lib##_once = PTHREAD_ONCE_INIT;                  \
	DLSTUB_SONAME(dlstub_##lib##_soname, soname);                                   \
	static void dlstub_##lib##_load(void)                                           \
	{                                                                               \
		(void)dlstub_load(soname, dlstub_##lib##_names, _DLSTUB_##lib##_N,      \
		                  dlstub_##lib##_fns, NULL, fail);                      \
	}                                                                               \
	FUNCTIONS(DLSTUB_F_##lib, DLSTUB_V_##lib)

#define DLSTUB_F(lib, ret, name, params, args)                                           \
	ret name params                                                                  \
	{                                                                                \
		(void)pthread_once(&dlstub_##lib##_once, dlstub_##lib##_load);           \
		typeof(&name) fn = (typeof(&name))dlstub_##lib##_fns[DLSTUB_SYM_##name]; \
		return fn ? fn args : (ret){ 0 };                                        \
	}
#define DLSTUB_V(lib, name, params, args)                                                \
	void name params                                                                 \
	{                                                                                \
		(void)pthread_once(&dlstub_##lib##_once, dlstub_##lib##_load);           \
		typeof(&name) fn = (typeof(&name))dlstub_##lib##_fns[DLSTUB_SYM_##name]; \
		if (fn)                                                                  \
			fn args;                                                         \
	}
