/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The link scheme, lund(8) LINKS: from what is known of one LU (its type, nodes, partitions,
 * dm-multipath map, by-id base names, ID_PATH, the hwdb's naming rule and the name it gives,
 * the recorded aliases) every link it should have, in every link set. lund writes exactly these
 * (daemon/manager-links.c); `lunctl names`, `--why`, `--by-path`, `--diff` and list's NAMES
 * column print them. One computation, so the two cannot drift.
 *
 * Pure: no I/O, no logging. The caller resolves the facts (sysfs, the hwdb, the name records)
 * and owns the output; the symlink target (relative to the link directory) is the writer's.
 *
 * The scheme, in the order the links come out:
 *  1. By path, when ID_PATH gives a name (pathtag_link_name(), no suffix): in the scsi-path set
 *     ID_PATH -> the primary node, ID_PATH-nst -> non-rewinding tape node (tapes),
 *     ID_PATH-sg -> sg node; then, for an LU with a block node outside devices/virtual/, in the
 *     disk-path set ID_PATH and ID_PATH_ATA_COMPAT -> block node, each with -partN -> partition
 *     N, as 60-persistent-storage.rules makes them. Without an ID_PATH name, no by-path link
 *     at all (not even from ID_PATH_ATA_COMPAT).
 *  2. The hwdb rule's name (serial-path, unit-serial), when there is one: in the scsi set only,
 *     linked as a base name is in it (3.), in place of the base names there.
 *  3. For each by-id base name N: in the scsi set (unless a rule name replaced it) N -> primary
 *     node, N-nst (tapes), N-sg; in the disk set, for disk-like and CD/DVD LUs with a block node,
 *     N -> block node and, except for sr nodes, N-partN -> partition N. A disk dm-multipath
 *     holds has its plain by-id names on the map instead (the scsi set's N when it points at the
 *     block node, and the disk set's N), and no partition names: kpartx maps the partitions and
 *     udev names those (lund(8), Paths and clones).
 *  4. The aliases, only for an LU with a base name (lund(8), Naming contract), each flagged
 *     alias: a base name the rule replaced in the scsi set as in 3. for the scsi set only (the
 *     disk set has it already); any other as a base name in 3.
 * The primary node is the block node for disk, optical, RBC, ZBC, WORM and CD/DVD types, the
 * rewinding tape node for tapes, the sg node for every other type (lund(8) LINKS' table).
 *
 * A link whose node is absent (NULL), or whose set is not enabled, is left out. A name that is
 * not a valid link name (links_name_valid(): empty, ".", "..", a '/', a control byte, longer
 * than NAME_MAX) is left out too: a suffix that pushes a name past NAME_MAX makes no link.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "namerule.h"

/* The order of the daemon's link sets (daemon/manager-private.h, LinkSet). */
typedef enum LinkSchemeSet {
	LINK_SCHEME_SCSI,      /* lund's tree, /dev/scsi/by-id, every LU type */
	LINK_SCHEME_DISK,      /* /dev/disk/by-id, udev's names for sd and sr */
	LINK_SCHEME_SCSI_PATH, /* lund's by-path tree, /dev/scsi/by-path, every LU type */
	LINK_SCHEME_DISK_PATH, /* /dev/disk/by-path, udev's names for sd and sr */
	_LINK_SCHEME_SET_MAX,
	_LINK_SCHEME_SET_INVALID = -EINVAL,
} LinkSchemeSet;

/* "scsi", "disk", "scsi-path", "disk-path"; NULL for anything else. */
const char *link_scheme_set_name(LinkSchemeSet s);
/* The set's directory below /dev: "scsi/by-id", "disk/by-id", "scsi/by-path", "disk/by-path". */
const char *link_scheme_set_dir(LinkSchemeSet s);

typedef struct LinkSchemePart {
	const char *node; /* "sda1" */
	unsigned number;  /* its partition number, 1 */
} LinkSchemePart;

/* One LU's facts. Strings not NULL are kernel node names ("sda", "st0", "dm-3") or names as
 * resolved already (safe components, core/names.h); all of them borrowed. */
typedef struct LinkSchemeInput {
	int type; /* SPC peripheral device type, -1 when unknown (then as "all others") */
	const char *block, *sg, *tape, *tape_nr; /* tape_nr: the non-rewinding node, "nst0" */
	const char *mpath;                       /* the dm-multipath map holding @block, "dm-3" */
	const LinkSchemePart *parts;             /* @block's partitions, in number order */
	size_t n_parts;
	const char *const *names; /* the by-id base names, identify's order */
	size_t n_names;
	const char *id_path, *id_path_ata_compat; /* path_id's, NULL when unset */
	const char *id_path_usb_revision;         /* ID_PATH_WITH_USB_REVISION (udev 254 on) */
	bool path_virtual;                        /* the LU is below devices/virtual/ */
	NameRule rule;                            /* the hwdb's rule for the LU */
	const char *rule_name;      /* the name @rule gives, NULL when it gives none */
	const char *const *aliases; /* the recorded names the LU does not get now */
	size_t n_aliases;
	bool set[_LINK_SCHEME_SET_MAX]; /* which sets are wanted */
} LinkSchemeInput;

/* "rule serial-path -part12": the longest reason. */
#define LINK_SCHEME_REASON_MAX 48

/* One link as the scheme hands it out, valid during the call it is handed to. */
typedef struct LinkSchemeName {
	LinkSchemeSet set;
	bool alias;       /* an old name kept as an alias */
	const char *node; /* the node it points at: one of the input's strings */
	const char *name; /* the whole name, suffix included: a valid link name */
	/* Why, machine-readable: the kind of name ("by-id", "by-path", "ata-compat",
	 * "rule serial-path", "rule unit-serial", "alias") and the suffix ("", "-sg", "-nst",
	 * "-partN"); link_scheme_reason() joins them: "by-id -sg", "alias -part1". */
	const char *why;
	const char *suffix;
} LinkSchemeName;

/* The reason of @l, "by-id -sg", in @buf. */
void link_scheme_reason(const LinkSchemeName *l, char buf[static LINK_SCHEME_REASON_MAX]);

/*
 * link_scheme_foreach() - hand every link of the LU @in describes to @emit, in the order above;
 * a name may come out twice in one set only if the input repeats it. Stops at the first
 * negative return of @emit and returns it; 0 when every link went; -EINVAL for a NULL argument.
 * The writer's way: nothing is allocated.
 */
typedef int (*link_scheme_emit_t)(void *userdata, const LinkSchemeName *l);
int link_scheme_foreach(const LinkSchemeInput *in, link_scheme_emit_t emit, void *userdata);

/* The same links gathered, each with its own copy of name and reason. */
typedef struct LinkSchemeLink {
	LinkSchemeSet set;
	bool alias;
	const char *node;
	char name[NAME_MAX + 1];
	char reason[LINK_SCHEME_REASON_MAX];
} LinkSchemeLink;

typedef struct LinkScheme {
	LinkSchemeLink *links;
	size_t n;
} LinkScheme;

/*
 * link_scheme_compute() - link_scheme_foreach()'s links into @ret (free with
 * link_scheme_done()). Returns 0; -EINVAL for a NULL argument; -ENOMEM (@ret untouched).
 */
int link_scheme_compute(const LinkSchemeInput *in, LinkScheme *ret);

void link_scheme_done(LinkScheme *s);

/*
 * link_scheme_alias() - is @base, a by-id base name recorded for the identity of the LU @in
 * describes, an alias it keeps (lund(8), Naming contract; @in->aliases is ignored)? Not for an
 * LU without a base name (nothing says whose aliases), nor one the serial-path rule names (its
 * identity may be another medium's), nor a name it gets now (a base name, or the rule's name
 * in place of them), nor another path's serial-path name of the same identity (another
 * medium's, core/names.h: names_serial_path_other()), nor a name that is no one component.
 */
bool link_scheme_alias(const LinkSchemeInput *in, const char *base);

/*
 * link_scheme_scsi_names() - the base names the LU @in describes has in the scsi set, whatever
 * nodes it has: the rule's name alone when there is one, else its by-id names (2. and 3.
 * above). These are the names lund's records keep (lund(8), Naming contract). @ret gets
 * pointers into @in, room for MAX(@in->n_names, 1) of them; returns how many.
 */
size_t link_scheme_scsi_names(const LinkSchemeInput *in, const char **ret);

/* The primary node of the LU @in describes (above); NULL when it has none. */
const char *link_scheme_primary(const LinkSchemeInput *in);
