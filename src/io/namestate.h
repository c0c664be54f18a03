/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The name records on disk (core/namerec.h): the file NAMESTATE_FILE in lund's state directory
 * (NAMESTATE_DIR unless lund --state-dir or lunctl --state-dir say otherwise), replaced whole
 * and atomically (written to a temporary file, synced, renamed over, the directory synced), so
 * a crash leaves the old file or the new one. io/ does not log: damage is reported to the
 * caller, which logs it and writes the file again.
 */

#include <stdbool.h>
#include <stddef.h>

#include "namerec.h"

#define NAMESTATE_DIR  "/var/lib/lund"
#define NAMESTATE_FILE "names"
#define NAMESTATE_TMP  ".names.tmp"
/* Where lund sets a damaged file aside (namestate_set_aside()). */
#define NAMESTATE_DAMAGED "names.damaged"

/* What was wrong with the file read. */
typedef struct NameStateDamage {
	bool unusable;    /* header missing or wrong, or the file too big: nothing was read */
	bool checksum;    /* unusable because its checksum line does not match (namerec.h) */
	size_t bad_lines; /* records skipped (malformed, cut short, a name given twice) */
} NameStateDamage;

/*
 * namestate_open_dir() - the state directory @dir (absolute or relative, taken below @rootfd;
 * no symlink followed, no "." or ".." component), made with mode 0755 when missing and
 * @create. Returns a directory fd (the caller closes it), -ENOENT when missing and !@create,
 * -ENOTDIR, -EINVAL for a path with "." or "..", -errno.
 */
int namestate_open_dir(int rootfd, const char *dir, bool create);

/*
 * namestate_load() - the records in @dirfd. A missing file is no records and no damage; a
 * damaged one gives what could be read and says what was wrong in *ret_damage. Returns 0 with
 * *ret filled (the caller frees it), -ENOMEM, -errno when the file cannot be read.
 */
int namestate_load(int dirfd, NameRecSet *ret, NameStateDamage *ret_damage);

/* namestate_set_aside() - move the file in @dirfd to NAMESTATE_DAMAGED (replacing an older
 * one), for the admin to look at. Returns 0, -errno. */
int namestate_set_aside(int dirfd);

/* namestate_save() - replace the file in @dirfd by @s. Returns 0, -EINVAL (a record that may
 * not be written), -ENOMEM, -errno (the old file is left then). */
int namestate_save(int dirfd, const NameRecSet *s);
