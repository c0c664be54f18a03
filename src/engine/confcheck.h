/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * lund.conf(5) and lund.hwdb(7) sources checked before they are used (lund --check-config,
 * lunctl check-config) and, for lund.conf, by the daemon at every load: every section, key and
 * value lund would read, against the same definitions the daemon applies (policyknob.h with
 * io/errpolicy.h's ranges, the scan quirks of scanquirk.h). Each problem is reported with its
 * file and line. What conf_check() reports is exactly what lund ignores of a lund.conf.
 */

#include <json-c/json.h>
#include <stdbool.h>

#include "conf.h"

/* One problem: @line is 1-based; @message says what is wrong and what is expected. */
typedef void (*ConfCheckReport)(const char *path, unsigned line, const char *message,
                                void *userdata);

/* A ConfCheckReport appending {file, line, message} to the JSON array @userdata (lunctl
 * check-config --json, lund's reload reply); a problem that does not fit in memory is left out. */
void conf_check_report_json(const char *path, unsigned line, const char *message, void *userdata);

/*
 * conf_check() - every problem of @conf, as conf_load() parsed it: iniparser's syntax errors
 * (then lund ignores the whole file), keys outside a section, unknown sections and keys, values
 * the key does not take, and a key set twice in a section (the last one wins). lund ignores
 * each of these and applies everything else. Returns the number of problems reported.
 */
int conf_check(const LundConf *conf, ConfCheckReport report, void *userdata);

/*
 * conf_check_file() - conf_check() of the lund.conf at @path (conf_load_file()). Returns the
 * number of problems reported, -errno when the file cannot be read (-ENOENT: there is none).
 */
int conf_check_file(const char *path, ConfCheckReport report, void *userdata);

/*
 * hwdb_check_file() - check the hwdb source at @path (udev's hwdb.d format): lund's records
 * (match lines "lund:scsi:...") and their properties; records of other users are passed over.
 * Returns the number of problems reported, -errno when the file cannot be read.
 */
int hwdb_check_file(const char *path, ConfCheckReport report, void *userdata);

/*
 * hwdb_check_sources() - hwdb_check_file() on lund's hwdb sources as udev finds them below
 * @root (NULL: "/"): *lund*.hwdb in etc/udev/hwdb.d, lib/udev/hwdb.d and usr/lib/udev/hwdb.d.
 * @checked (may be NULL) is called with each file checked. Returns the number of problems,
 * -errno when a file found cannot be read.
 */
int hwdb_check_sources(const char *root,
                       void (*checked)(const char *path, int problems, void *userdata),
                       ConfCheckReport report, void *userdata);
