/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Exclusions, lund.conf(5) EXCLUSIONS: the LUs lund leaves alone, as multipath.conf's
 * blacklist / blacklist_exceptions leave devices to others. An [exclude NAME] section whose
 * match keys all match an LU excludes it, unless an [exception NAME] section's keys all match
 * it too: an exception wins over every exclusion. Among several matching sections of a kind
 * the last in the file is the one reported (and, for exclusions, whose names= holds).
 *
 * Match keys (each optional, all given must match):
 *   wwid       glob (case-insensitive) against ID_SERIAL or the WWN ("0x..."), either matching
 *   vendor     glob (case-insensitive) against the INQUIRY vendor, trailing blanks removed
 *   model      glob (case-insensitive) against the INQUIRY product
 *   hctl       H:C:T:L, each field a decimal number or '*'
 *   host       a host number N or a range N-M
 *   type       a peripheral device type: 0..31 or a name (disk, tape, cdrom, enclosure, ...)
 * and, in [exclude] only, names = yes|no: yes keeps the LU's links (names only).
 *
 * A section with a key whose value is invalid (conf_check() reports it) matches no LU: a
 * mistyped restriction never widens an exclusion to LUs it was not meant for.
 *
 * Pure: no I/O, no logging, no allocation. One decision, exclusion_judge(), used wherever lund
 * acts on an LU and wherever it says why it does not.
 */

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"

/* What an LU is judged on; a NULL string or a negative number is unknown and matches only a
 * section that does not ask for it. */
typedef struct ExclusionFacts {
	const char *serial; /* ID_SERIAL */
	const char *wwn;    /* "0x..." */
	const char *vendor, *model;
	int64_t host, channel, target; /* -1: unknown */
	int64_t lun;
	int type; /* peripheral device type, -1 unknown */
} ExclusionFacts;

typedef struct ExclusionVerdict {
	bool excluded;
	bool names;       /* excluded, but its links are still made (names = yes) */
	const char *kind; /* "exclude" or "exception" of the rule that decided, NULL: none */
	const char *rule; /* that section's NAME (in the LundConf), NULL: none matched */
	unsigned line;    /* its header's line, 0 when none */
} ExclusionVerdict;

/*
 * exclusion_judge() - the verdict on the LU of @facts by @conf's [exclude] and [exception]
 * sections. @conf may be NULL (no exclusions). Never fails: *ret is always set; ret->rule is
 * the exception that saved it, the exclusion that excluded it, or NULL when no section matched.
 */
void exclusion_judge(const LundConf *conf, const ExclusionFacts *facts, ExclusionVerdict *ret);

/* Does @conf have any [exclude] section? (lund skips the judgement for every LU when not.) */
bool exclusion_any(const LundConf *conf);

/*
 * exclusion_check_entry() - is @key = @value valid in an [exclude] (@exception false) or
 * [exception] section? 0; -ENOENT for a key such a section does not take; -EINVAL for a value
 * it does not take, with *ret_expected (may be NULL) set to a phrase saying what it takes.
 */
int exclusion_check_entry(bool exception, const char *key, const char *value,
                          const char **ret_expected);

/* exclusion_type_from_string() - a peripheral device type from "0".."31" or its name; -EINVAL. */
int exclusion_type_from_string(const char *s);
