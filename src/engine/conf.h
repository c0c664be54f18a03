/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * lund's configuration, loaded once: the parsed lund.conf(5) and the open hardware database
 * (lund.hwdb(7)). The daemon's policy engine (policy-apply.h) and the scan quirks
 * (scanquirk.h) share one LundConf, so a (re)load reads the file and opens the hwdb exactly
 * once and both see the same settings; `lunctl rescan` loads its own for its scans.
 *
 * lund.conf is INI: a [defaults] section and [device "NAME"] sections whose vendor= and model=
 * globs (default "*") select the LUs they apply to. Each consumer takes its own keys from the
 * sections; unknown sections are kept (CONF_SECTION_UNKNOWN) so that the daemon can name them,
 * and apply to nothing. iniparser alone reads the syntax (the dialect is lund.conf(5)'s); what
 * it produced is then located in the file, line by line, only to say where each section and
 * entry is (conf_check() in confcheck.h reports by line): the locator never decides a value.
 *
 * A LundConf is immutable once loaded, so any thread may read it; references are taken and
 * dropped by the thread that loaded it. Its hwdb serialises lookups itself (hwdb.h). Nothing here
 * logs: what went wrong is kept in the object (conf_file_error(), conf_n_errors(),
 * conf_hwdb_error()) for the front end to report.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"
#include "hwdb.h"
#include "macro.h"

/* The lund.conf this build installs: /etc/lund/lund.conf for the prefix /usr, the prefix's own
 * etc/lund/lund.conf otherwise (meson's sysconfdir). */
#define LUND_CONF_DEFAULT LUND_SYSCONFDIR "/lund.conf"
/* The largest lund.conf read: one that is larger, or no regular file, is unreadable. */
#define CONF_FILE_MAX (1024u * 1024)

typedef enum ConfSectionKind {
	CONF_SECTION_DEFAULTS,  /* [defaults] */
	CONF_SECTION_DEVICE,    /* [device NAME] */
	CONF_SECTION_CONTROL,   /* [control]: the control socket's access (read_group=) */
	CONF_SECTION_EXCLUDE,   /* [exclude NAME]: LUs lund leaves alone (exclusion.h) */
	CONF_SECTION_EXCEPTION, /* [exception NAME]: LUs an [exclude] does not take after all */
	CONF_SECTION_REACT,     /* [react NAME]: what lund does on changes (exclusion.h) */
	CONF_SECTION_UNKNOWN,   /* anything else: applies to nothing */
	CONF_SECTION_NONE,      /* the keys before the first header: apply to nothing */
	_CONF_SECTION_KIND_MAX,
	_CONF_SECTION_KIND_INVALID = -EINVAL,
} ConfSectionKind;

typedef struct ConfEntry {
	char *key;     /* without the section ("timeout"), lower case as iniparser keeps it; in
	                * CONF_SECTION_NONE iniparser's whole key (":timeout") */
	char *value;   /* never NULL ("" for "key =") */
	unsigned line; /* 1-based line of the value that holds (the last), 0 if not found */
	unsigned *overridden; /* earlier lines setting the same key, which lose */
	size_t n_overridden;
} ConfEntry;

typedef struct ConfSection {
	ConfSectionKind kind;
	unsigned line; /* its first header, 0 if not found (and for CONF_SECTION_NONE) */
	char *title;   /* the section as iniparser names it: "defaults", "device old-raid"; "" */
	char *name;   /* device, exclude, exception, react: NAME (the kind's word when it has none);
	               * NULL otherwise */
	char *vendor; /* device: globs, "*" when not given; NULL otherwise */
	char *model;
	ConfEntry *entries; /* every key of the section (vendor= and model= too), in file order */
	size_t n_entries;
} ConfSection;

/* conf_section_get() - the value of @key in @s, or NULL when @s does not set it. */
const char *conf_section_get(const ConfSection *s, const char *key);

/*
 * conf_section_applies() - does @s apply to an LU with this vendor and model (case-insensitive
 * globs)? The rules apply [defaults] first (@pass 0), then the device sections in file order
 * (@pass 1), the last one winning: true only for sections of that pass.
 */
bool conf_section_applies(const ConfSection *s, int pass, const char *vendor, const char *model);

typedef struct LundConf LundConf;

/*
 * conf_load() - parse the lund.conf at @conf_path (NULL: LUND_CONF_DEFAULT) and open the
 * compiled hwdb at @hwdb_path (NULL: the system's). A missing file or hwdb is no error: it
 * contributes nothing. Returns 0; -EBADMSG when the file exists but cannot be read or parsed
 * (*ret is still set, with no sections but iniparser's syntax errors, conf_n_errors(): the
 * hwdb alone applies); -ENOMEM.
 */
int conf_load(const char *conf_path, const char *hwdb_path, LundConf **ret);
/* conf_load_file() - conf_load() without a hwdb: the file alone, for checking it. */
int conf_load_file(const char *conf_path, LundConf **ret);
LundConf *conf_ref(LundConf *c);
LundConf *conf_unref(LundConf *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(LundConf *, conf_unref);

/* The lund.conf path that was loaded (or looked for). */
const char *conf_get_path(const LundConf *c);
/* 0 when the file was parsed, -ENOENT when there is none, -EBADMSG when iniparser refused it,
 * or the -errno that kept it from being read. */
int conf_file_error(const LundConf *c);

/* The open hwdb, NULL when there is none. */
Hwdb *conf_hwdb(const LundConf *c);
/* The hwdb path asked for (NULL: the system's), and 0 or why it could not be opened. */
const char *conf_hwdb_path(const LundConf *c);
int conf_hwdb_error(const LundConf *c);

/*
 * conf_read_group() - the group whose members may send read-only requests on the control socket
 * ([control] read_group=, the last one set), or NULL when none is set (also for "").
 */
const char *conf_read_group(const LundConf *c);
/* conf_group_lookup() - a group by name, or by number (decimal.h): 0 with *ret set, -ENOENT
 * when there is no such group, -ENOMEM. */
int conf_group_lookup(const char *name, gid_t *ret);

/* Why iniparser refused the file: its syntax errors, each at its line (0 when it gave none). */
typedef struct ConfError {
	unsigned line;
	char *message; /* "syntax error: \"TEXT\"", "input line too long" */
} ConfError;
size_t conf_n_errors(const LundConf *c);
const ConfError *conf_error(const LundConf *c, size_t i);

/* The sections in file order. */
size_t conf_n_sections(const LundConf *c);
const ConfSection *conf_section(const LundConf *c, size_t i);
