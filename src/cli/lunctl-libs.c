/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The functions lunctl calls from libjson-c, libsmartcols, libiniparser, libsystemd and
 * libsgutils2, each a
 * stub under the library's own name that loads its library on first use (dlopen.h). The
 * library's header declares every one, so a stub whose prototype differs does not compile.
 * A function the code starts to call from one of these libraries needs its line here, or
 * lunctl fails to link.
 */

#include <iniparser/iniparser.h>
#include <json-c/json.h>
#include <libsmartcols/libsmartcols.h>
#include <pthread.h>
#include <systemd/sd-hwdb.h>

#include "dlopen.h"
#include "macro.h"
#include "sgio-libs.h" /* SGUTILS_FUNCTIONS */

/* F(return type, name, (parameters), (arguments)); V(...) for a function returning void. */
#define JSONC_FUNCTIONS(F, V)                                                                    \
	F(int, json_object_array_add, (struct json_object * o, struct json_object * v), (o, v))  \
	F(struct json_object *, json_object_array_get_idx,                                       \
	  (const struct json_object *o, size_t i), (o, i))                                       \
	F(size_t, json_object_array_length, (const struct json_object *o), (o))                  \
	F(struct json_object *, json_object_get, (struct json_object * o), (o))                  \
	F(json_bool, json_object_get_boolean, (const struct json_object *o), (o))                \
	F(int64_t, json_object_get_int64, (const struct json_object *o), (o))                    \
	F(struct lh_table *, json_object_get_object, (const struct json_object *o), (o))         \
	F(const char *, json_object_get_string, (struct json_object * o), (o))                   \
	F(uint64_t, json_object_get_uint64, (const struct json_object *o), (o))                  \
	F(int, json_object_is_type, (const struct json_object *o, enum json_type t), (o, t))     \
	F(struct json_object *, json_object_new_array, (void), ())                               \
	F(struct json_object *, json_object_new_boolean, (json_bool b), (b))                     \
	F(struct json_object *, json_object_new_int, (int32_t i), (i))                           \
	F(struct json_object *, json_object_new_int64, (int64_t i), (i))                         \
	F(struct json_object *, json_object_new_object, (void), ())                              \
	F(struct json_object *, json_object_new_string, (const char *s), (s))                    \
	F(struct json_object *, json_object_new_uint64, (uint64_t i), (i))                       \
	F(int, json_object_object_add,                                                           \
	  (struct json_object * o, const char *k, struct json_object *v), (o, k, v))             \
	V(json_object_object_del, (struct json_object * o, const char *k), (o, k))               \
	F(json_bool, json_object_object_get_ex,                                                  \
	  (const struct json_object *o, const char *k, struct json_object **v), (o, k, v))       \
	F(int, json_object_put, (struct json_object * o), (o))                                   \
	F(const char *, json_object_to_json_string_ext, (struct json_object * o, int f), (o, f)) \
	F(struct json_object *, json_tokener_parse, (const char *s), (s))

#define SMARTCOLS_FUNCTIONS(F, V)                                                               \
	F(int, scols_column_set_safechars, (struct libscols_column * c, const char *s), (c, s)) \
	F(int, scols_column_set_wrapfunc,                                                       \
	  (struct libscols_column * c,                                                          \
	   size_t(*cs)(const struct libscols_column *, const char *, void *),                   \
	   char *(*nc)(const struct libscols_column *, char *, void *), void *d),               \
	  (c, cs, nc, d))                                                                       \
	F(int, scols_table_enable_export, (struct libscols_table * t, int e), (t, e))           \
	F(int, scols_table_enable_noheadings, (struct libscols_table * t, int e), (t, e))       \
	F(int, scols_table_enable_raw, (struct libscols_table * t, int e), (t, e))              \
	F(size_t, scols_table_get_termwidth, (const struct libscols_table *t), (t))             \
	F(size_t, scols_wrapnl_chunksize,                                                       \
	  (const struct libscols_column *c, const char *d, void *u), (c, d, u))                 \
	F(char *, scols_wrapnl_nextchunk, (const struct libscols_column *c, char *d, void *u),  \
	  (c, d, u))                                                                            \
	F(int, scols_line_set_data, (struct libscols_line * l, size_t n, const char *d),        \
	  (l, n, d))                                                                            \
	F(struct libscols_table *, scols_new_table, (void), ())                                 \
	F(int, scols_print_table, (struct libscols_table * t), (t))                             \
	F(struct libscols_column *, scols_table_new_column,                                     \
	  (struct libscols_table * t, const char *n, double w, int f), (t, n, w, f))            \
	F(struct libscols_line *, scols_table_new_line,                                         \
	  (struct libscols_table * t, struct libscols_line * p), (t, p))                        \
	V(scols_unref_table, (struct libscols_table * t), (t))

#define INIPARSER_FUNCTIONS(F, V)                             \
	V(iniparser_freedict, (dictionary * d), (d))          \
	F(dictionary *, iniparser_load, (const char *f), (f)) \
	V(iniparser_set_error_callback, (int (*e)(const char *, ...)), (e))

#define HWDB_FUNCTIONS(F, V)                                                                \
	F(int, sd_hwdb_enumerate, (sd_hwdb * h, const char **k, const char **v), (h, k, v)) \
	F(int, sd_hwdb_new_from_path, (const char *p, sd_hwdb **ret), (p, ret))             \
	F(int, sd_hwdb_seek, (sd_hwdb * h, const char *m), (h, m))                          \
	F(sd_hwdb *, sd_hwdb_unref, (sd_hwdb * h), (h))

#define NAME(name)                       #name,
#define NAME_F(ret, name, params, args)  NAME(name)
#define NAME_V(name, params, args)       NAME(name)
#define INDEX_F(ret, name, params, args) SYM_##name,
#define INDEX_V(name, params, args)      SYM_##name,

/*
 * One library: its symbol table, loaded once (pthread_once: the scan workers use the hwdb),
 * and a stub per function that calls through it.
 */
#define LIBRARY(lib, soname, FUNCTIONS)                                                \
	enum { FUNCTIONS(INDEX_F, INDEX_V) _##lib##_N };                               \
	static const char *const dl_##lib##_names[] = { FUNCTIONS(NAME_F, NAME_V) };   \
	static void *dl_##lib##_fns[_##lib##_N];                                       \
	static pthread_once_t dl_##lib##_once = PTHREAD_ONCE_INIT;                     \
	static void dl_##lib##_load(void)                                              \
	{                                                                              \
		dl_load_or_exit(soname, dl_##lib##_names, dl_##lib##_fns, _##lib##_N); \
	}                                                                              \
	FUNCTIONS(STUB_F_##lib, STUB_V_##lib)

#define STUB(lib, ret, name, params, args)                              \
	ret name params                                                 \
	{                                                               \
		(void)pthread_once(&dl_##lib##_once, dl_##lib##_load);  \
		return ((typeof(&name))dl_##lib##_fns[SYM_##name])args; \
	}
#define STUB_VOID(lib, name, params, args)                             \
	void name params                                               \
	{                                                              \
		(void)pthread_once(&dl_##lib##_once, dl_##lib##_load); \
		((typeof(&name))dl_##lib##_fns[SYM_##name]) args;      \
	}

#define STUB_F_jsonc(ret, name, params, args)     STUB(jsonc, ret, name, params, args)
#define STUB_V_jsonc(name, params, args)          STUB_VOID(jsonc, name, params, args)
#define STUB_F_smartcols(ret, name, params, args) STUB(smartcols, ret, name, params, args)
#define STUB_V_smartcols(name, params, args)      STUB_VOID(smartcols, name, params, args)
#define STUB_F_iniparser(ret, name, params, args) STUB(iniparser, ret, name, params, args)
#define STUB_V_iniparser(name, params, args)      STUB_VOID(iniparser, name, params, args)
#define STUB_F_sgutils(ret, name, params, args)   STUB(sgutils, ret, name, params, args)
#define STUB_V_sgutils(name, params, args)        STUB_VOID(sgutils, name, params, args)
#define STUB_F_hwdb(ret, name, params, args)      STUB(hwdb, ret, name, params, args)
#define STUB_V_hwdb(name, params, args)           STUB_VOID(hwdb, name, params, args)

LIBRARY(jsonc, LUNCTL_SONAME_JSONC, JSONC_FUNCTIONS)
LIBRARY(smartcols, LUNCTL_SONAME_SMARTCOLS, SMARTCOLS_FUNCTIONS)
LIBRARY(iniparser, LUNCTL_SONAME_INIPARSER, INIPARSER_FUNCTIONS)
LIBRARY(hwdb, LUNCTL_SONAME_SYSTEMD, HWDB_FUNCTIONS)
LIBRARY(sgutils, LUNCTL_SONAME_SGUTILS, SGUTILS_FUNCTIONS)

/* The sonames above, for whoever copies lunctl with its libraries (tests/vm/mkinitramfs.sh
 * reads them with `readelf -p .lund.dlopen`): ldd cannot see them. */
__attribute__((section(".lund.dlopen"), used)) static const char dlopen_sonames[] =
        LUNCTL_SONAME_JSONC "\0" LUNCTL_SONAME_SMARTCOLS "\0" LUNCTL_SONAME_INIPARSER
                            "\0" LUNCTL_SONAME_SYSTEMD "\0" LUNCTL_SONAME_SGUTILS;
