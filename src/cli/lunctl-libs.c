/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * lunctl loads libjson-c, libsmartcols, libiniparser, libsystemd (for sd-hwdb) and libsgutils2
 * (SG_IO) on first use instead of at exec: `lunctl id` runs once per device from udev rules and
 * needs none of them where the kernel cached the pages, and mapping them (libsystemd brings five
 * more) was most of its run time. Here are the functions lunctl calls from them, each a stub
 * under the library's own name (shared/dlstub.h); the build links none of them (see
 * src/cli/meson.build). A function the code starts to call from one of these libraries needs
 * its line here, or lunctl fails to link.
 */

#include <iniparser/iniparser.h>
#include <json-c/json.h>
#include <libsmartcols/libsmartcols.h>
#include <stdlib.h>
#include <systemd/sd-hwdb.h>

#include "dlstub.h"
#include "log.h"
#include "lunctl.h"
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

/* clang-format 14 and 19 space a pointer in it differently */
/* clang-format off */
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
/* clang-format on */

#define INIPARSER_FUNCTIONS(F, V)                             \
	V(iniparser_freedict, (dictionary * d), (d))          \
	F(dictionary *, iniparser_load, (const char *f), (f)) \
	V(iniparser_set_error_callback, (int (*e)(const char *, ...)), (e))

#define HWDB_FUNCTIONS(F, V)                                                                \
	F(int, sd_hwdb_enumerate, (sd_hwdb * h, const char **k, const char **v), (h, k, v)) \
	F(int, sd_hwdb_new_from_path, (const char *p, sd_hwdb **ret), (p, ret))             \
	F(int, sd_hwdb_seek, (sd_hwdb * h, const char *m), (h, m))                          \
	F(sd_hwdb *, sd_hwdb_unref, (sd_hwdb * h), (h))

/*
 * A library lunctl's package depends on that cannot be loaded is a broken installation: say
 * why and exit with EXIT_DEVICE, as the dynamic loader would have failed at exec.
 */
static void lunctl_dl_failed(const char *soname, const char *error)
{
	log_error("Cannot load %s, which this command needs: %s", soname, error);
	exit(EXIT_DEVICE);
}

#define DLSTUB_F_jsonc(...)     DLSTUB_F(jsonc, __VA_ARGS__)
#define DLSTUB_V_jsonc(...)     DLSTUB_V(jsonc, __VA_ARGS__)
#define DLSTUB_F_smartcols(...) DLSTUB_F(smartcols, __VA_ARGS__)
#define DLSTUB_V_smartcols(...) DLSTUB_V(smartcols, __VA_ARGS__)
#define DLSTUB_F_iniparser(...) DLSTUB_F(iniparser, __VA_ARGS__)
#define DLSTUB_V_iniparser(...) DLSTUB_V(iniparser, __VA_ARGS__)
#define DLSTUB_F_hwdb(...)      DLSTUB_F(hwdb, __VA_ARGS__)
#define DLSTUB_V_hwdb(...)      DLSTUB_V(hwdb, __VA_ARGS__)
#define DLSTUB_F_sgutils(...)   DLSTUB_F(sgutils, __VA_ARGS__)
#define DLSTUB_V_sgutils(...)   DLSTUB_V(sgutils, __VA_ARGS__)

DLSTUB_LIBRARY(jsonc, LUNCTL_SONAME_JSONC, JSONC_FUNCTIONS, lunctl_dl_failed)
DLSTUB_LIBRARY(smartcols, LUNCTL_SONAME_SMARTCOLS, SMARTCOLS_FUNCTIONS, lunctl_dl_failed)
DLSTUB_LIBRARY(iniparser, LUNCTL_SONAME_INIPARSER, INIPARSER_FUNCTIONS, lunctl_dl_failed)
DLSTUB_LIBRARY(hwdb, LUNCTL_SONAME_SYSTEMD, HWDB_FUNCTIONS, lunctl_dl_failed)
DLSTUB_LIBRARY(sgutils, LUNCTL_SONAME_SGUTILS, SGUTILS_FUNCTIONS, lunctl_dl_failed)
