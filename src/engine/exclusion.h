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
 *   driver     glob (case-insensitive) against the host's driver (io/hostfacts.h)
 *   transport  glob (case-insensitive) against the host's transport kind as lsscsi -t names it
 *              (fc, fcoe, sas, iscsi, spi, srp, sata, ata, usb, sbp; "none" when it names none)
 * and, in [exclude] only, names = yes|no: yes keeps the LU's links (names only).
 *
 * Reactions, lund.conf(5) REACTIONS: a [react NAME] section takes the same match keys and says
 * what lund does, for the LUs (or hosts) it matches, on
 *   luns       = add-remove | add | report   a change of a target's LUN inventory
 *   capacity   = resize | report             a capacity change
 *   identity   = rename | report             an INQUIRY / identity change
 *   new_hosts  = scan | report               a host that appears
 * "report" logs what lund would have done and does nothing. For each action key the last
 * matching section that sets it decides; without one lund does the first (today's behaviour).
 * An exclusion or a hold wins over every reaction.
 *
 * A section with a key whose value is invalid (conf_check() reports it) matches no LU: a
 * mistyped restriction never widens an exclusion to LUs it was not meant for.
 *
 * Pure: no I/O, no logging, no allocation. One decision, exclusion_judge(), used wherever lund
 * acts on an LU and wherever it says why it does not.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "scan.h"

/* What an LU is judged on; a NULL string or a negative number is unknown and matches only a
 * section that does not ask for it. */
typedef struct ExclusionFacts {
	const char *serial; /* ID_SERIAL */
	const char *wwn;    /* "0x..." */
	const char *vendor, *model;
	int64_t host, channel, target; /* -1: unknown */
	int64_t lun;
	int type;              /* peripheral device type, -1 unknown */
	const char *driver;    /* the host's (io/hostfacts.h) */
	const char *transport; /* the host's transport kind: "fc", "sas", ..., "none" */
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
 * exclusion_check_entry() - is @key = @value valid in a section of @kind (CONF_SECTION_EXCLUDE,
 * _EXCEPTION or _REACT)? 0; -ENOENT for a key such a section does not take; -EINVAL for a value
 * it does not take, with *ret_expected (may be NULL) set to a phrase saying what it takes.
 */
int exclusion_check_entry(ConfSectionKind kind, const char *key, const char *value,
                          const char **ret_expected);

/* The keys a section of @kind takes, for messages: "wwid, vendor, ..., transport and names". */
const char *exclusion_keys_help(ConfSectionKind kind);

/* What lund would do, as a [react] section's action keys name it. */
typedef enum ReactAction {
	REACT_ADD,       /* add a reported LUN (luns = add-remove or add) */
	REACT_REMOVE,    /* remove an LU no longer reported (luns = add-remove) */
	REACT_RESIZE,    /* have the kernel re-read a changed capacity (capacity = resize) */
	REACT_RENAME,    /* re-read changed IDs and rename (identity = rename) */
	REACT_SCAN_HOST, /* scan a host that appeared (new_hosts = scan) */
	_REACT_ACTION_MAX,
	_REACT_ACTION_INVALID = -EINVAL,
} ReactAction;

typedef struct ReactVerdict {
	bool report;       /* lund only reports what it would have done */
	const char *key;   /* the action key that decided ("luns"); NULL: none, the default */
	const char *value; /* its value */
	const char *rule;  /* the [react NAME] that set it */
	unsigned line;     /* the key's line */
} ReactVerdict;

/*
 * reaction_judge() - does lund do @what for the LU (or host, with only host facts) of @facts,
 * by @conf's [react] sections (@conf may be NULL)? Exclusions and holds are the caller's to ask
 * first. Never fails: *ret is always set.
 */
void reaction_judge(const LundConf *conf, const ExclusionFacts *facts, ReactAction what,
                    ReactVerdict *ret);

/* Does @conf have any [react] section? */
bool reaction_any(const LundConf *conf);

/* reaction_why() - @v (one that reports) as the phrase lund logs and shows: "luns = add by
 * [react NAME]", in @buf (@size bytes, truncated). */
void reaction_why(const ReactVerdict *v, char *buf, size_t size);

/*
 * exclusion_leaves() - the scans' one decision by @conf (ScanPolicy.leave, engine/scan.h): is
 * the LU of @facts excluded, or does a [react] section have lund only report @what (ADD,
 * REMOVE, RESIZE, REIDENTIFY)? Then true, with the phrase saying why in @why (@size bytes):
 * "excluded by [exclude NAME]", "luns = add by [react NAME]". Holds are the daemon's to ask.
 */
bool exclusion_leaves(const LundConf *conf, const ExclusionFacts *facts, ScanActionKind what,
                      char *why, size_t size);

/* Does @conf have a section whose match keys read the host's facts (driver=, transport=)? Only
 * then need a judgement of an LU not in lund's inventory read them from sysfs. */
bool exclusion_needs_host_facts(const LundConf *conf);

/* exclusion_type_from_string() - a peripheral device type from "0".."31" or its name; -EINVAL. */
int exclusion_type_from_string(const char *s);
