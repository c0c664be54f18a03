/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Name records: which names each identity was given and the admin accepted, kept across reboots
 * and upgrades (lund(8), "Naming contract"). The file is text, one record a line:
 *
 *     lund-names 1
 *     <identity> <state> <name>
 *
 * <identity> is the LU's ID_SERIAL ([A-Za-z0-9._:-], at most NAMEREC_IDENTITY_MAX bytes),
 * <state> "name" (a name lund gives the identity now) or "alias" (an old name kept until the
 * admin accepts the change), <name> the link below /dev (e.g. "scsi/by-id/scsi-35000c5"),
 * relative, printable ASCII without blanks, no "." or ".." component, at most NAMEREC_NAME_MAX
 * bytes. Lines starting with '#' and empty lines are ignored, but for the last line lund
 * writes, NAMEREC_SUM_PREFIX and the FNV-1a (64 bits, 16 hex digits) of every byte before it:
 * a file that has it and does not match is damaged as a whole (a flipped bit must not give a
 * name to another identity); one without it (written by hand, or by an older lund) is read as
 * it is. Pure: no I/O, no logging.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#define NAMEREC_MAGIC        "lund-names 1"
#define NAMEREC_SUM_PREFIX   "#sum "
#define NAMEREC_IDENTITY_MAX 255
#define NAMEREC_NAME_MAX     1024
/* A file larger than this is not read (16 MiB: 64k LUs with a few names each fit). */
#define NAMEREC_FILE_MAX (16u * 1024 * 1024)

typedef enum NameRecState {
	NAMEREC_NAME,
	NAMEREC_ALIAS,
	_NAMEREC_STATE_MAX,
	_NAMEREC_STATE_INVALID = -EINVAL,
} NameRecState;

typedef struct NameRec {
	char *identity;
	char *name;
	NameRecState state;
	size_t seq; /* order of addition, so that of two records of one name the later wins */
} NameRec;

/* A set of records; sorted by name, each name once, after namerec_set_sort(). */
typedef struct NameRecSet {
	NameRec *rec;
	size_t n;
	size_t n_alloc;
} NameRecSet;

/* namerec_set_done() - free the records of @s and zero it. */
void namerec_set_done(NameRecSet *s);

const char *namerec_state_name(NameRecState s);

/* Whether @identity / @name may be recorded (the character sets and limits above). */
bool namerec_identity_valid(const char *identity);
bool namerec_name_valid(const char *name);

/*
 * namerec_set_add() - add a copy of (@identity, @name, @state) to @s (unsorted until
 * namerec_set_sort()). Returns 0, -EINVAL for an identity or name that may not be recorded,
 * -ENOMEM.
 */
int namerec_set_add(NameRecSet *s, const char *identity, const char *name, NameRecState state);

/*
 * namerec_set_sort() - sort @s by name (the order the file is written in); of records with one
 * name only the last added stays. Returns the number of records dropped.
 */
size_t namerec_set_sort(NameRecSet *s);

/* namerec_set_find() - the record of @name in @s (sorted), or NULL. */
const NameRec *namerec_set_find(const NameRecSet *s, const char *name);

/*
 * namerec_parse() - the records of @len bytes at @buf (need not be NUL-terminated). A first
 * line other than NAMEREC_MAGIC makes the whole file -EBADMSG (nothing in *ret), and so does a
 * checksum line that does not match, or that is not the last line (-EBADE). A malformed
 * line, or a name seen twice (the later one counts), is skipped and counted in *ret_bad, so a
 * file cut short by a crash loses only its last line. Returns 0 with *ret filled (owned by the
 * caller), -EBADMSG, -EBADE, -EFBIG for more than NAMEREC_FILE_MAX bytes, -ENOMEM.
 */
int namerec_parse(const char *buf, size_t len, NameRecSet *ret, size_t *ret_bad);

/*
 * namerec_format() - @s as the file's text (sorted by name) with its checksum line,
 * NUL-terminated and malloc'd, its length in *ret_len. Returns 0, -EINVAL when a record may not be
 * recorded, -ENOMEM.
 */
int namerec_format(const NameRecSet *s, char **ret, size_t *ret_len);

typedef enum NameChangeKind {
	NAMECHANGE_ADDED,      /* a new name */
	NAMECHANGE_REMOVED,    /* a recorded name the identity would lose (kept as an alias) */
	NAMECHANGE_RETARGETED, /* a recorded name that would point at another identity */
	_NAMECHANGE_KIND_MAX,
	_NAMECHANGE_KIND_INVALID = -EINVAL,
} NameChangeKind;

/* One change; the strings point into the sets given to namerec_diff(). */
typedef struct NameChange {
	NameChangeKind kind;
	const char *name;
	const char *old_identity; /* NULL for NAMECHANGE_ADDED */
	const char *new_identity; /* NULL for NAMECHANGE_REMOVED */
} NameChange;

const char *namechange_kind_name(NameChangeKind k);

/*
 * namerec_diff() - what would change from @recorded to @current (the names computed now, all
 * with state NAMEREC_NAME). Only identities present in @current are judged: the records of an
 * LU that is not attached are neither removed nor changed. Aliases in @recorded count as names
 * the identity has. The changes are sorted by name; @only_identity, when not NULL, limits them
 * to those of that identity (old or new). Returns 0 with the changes in *ret (free() it; NULL
 * when there are none) and their number in *ret_n, -ENOMEM.
 */
int namerec_diff(const NameRecSet *recorded, const NameRecSet *current, const char *only_identity,
                 NameChange **ret, size_t *ret_n);

/*
 * namerec_accept() - the records after the admin accepts the changes (of @only_identity, or of
 * every identity when NULL): the accepted identities' records become exactly their names in
 * @current; every other record stays (a name now wanted by an identity whose change is not
 * accepted stays with its recorded owner). Returns 0 with *ret filled, -ENOMEM.
 */
int namerec_accept(const NameRecSet *recorded, const NameRecSet *current, const char *only_identity,
                   NameRecSet *ret);

/*
 * namerec_keep() - the records once the names in @current are given: @current's names, plus
 * every record of @recorded whose name @current does not give, the names of attached identities
 * (in @current) becoming aliases. This is what lund records on its own: nothing is lost until an
 * admin accepts. Returns 0 with *ret filled, -ENOMEM.
 */
int namerec_keep(const NameRecSet *recorded, const NameRecSet *current, NameRecSet *ret);
