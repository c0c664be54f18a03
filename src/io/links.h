/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The symlink writer: lund's links (/dev/scsi/by-id/<name>, optionally /dev/disk/by-id/<name>),
 * all relative to a root directory fd so tests point it at a temporary tree.
 *
 * Ownership: lund only ever replaces or removes a link it made. Every link it makes is recorded
 * in a record directory under the run dir (e.g. run/lund/links/scsi-by-id): one entry per link,
 * a symlink named like the link whose target is the link's target, so a record is written
 * atomically exactly as a link is. A link is lund's when its record exists and the link is a
 * symlink with the recorded target, or when the caller knows it made that very link (@known: the
 * record was lost since); anything else at a name is foreign and left alone. A symlink found
 * at a wanted name already pointing at the wanted target is adopted: recorded, and lund's from
 * then on, so it is removed with its device like any other. A record entry that cannot be a
 * record (not a symlink, a bad name) is reported and removed, never an error forever.
 *
 * Atomicity: at a free name a link (and a record) is made by symlinkat(2) itself, which creates
 * the entry whole or not at all and fails rather than replace anything. Over lund's old link a
 * new one is made as a uniquely named temporary symlink in the same directory (".#lund.<hex>")
 * swapped in with renameat2(RENAME_EXCHANGE) (the exchanged-out entry is checked and the
 * exchange undone if someone replaced the link meanwhile); a record is rewritten the same way,
 * a temporary renamed over it. Removal first renames
 * the link aside, checks it, then unlinks it. The record is written before a link is created and
 * removed after it is gone, so a crash leaves at worst a record without a link (fixed at the next
 * reconcile) or a temporary file (removed at the next reconcile), never an unrecorded link.
 *
 * Names are one path component: non-empty, not "." or "..", no '/', no control characters,
 * at most NAME_MAX bytes. Anything else is refused with -EINVAL before it touches a path.
 *
 * io/ does not log: what happened is reported through a callback.
 */

#include <stdbool.h>
#include <stddef.h>

typedef struct Links Links;

typedef enum LinkAction {
	LINK_CREATED, /* a new link */
	LINK_UPDATED, /* lund's link now points elsewhere */
	LINK_REMOVED, /* lund's link is gone */
	LINK_FOREIGN, /* something lund did not make is at the name: left alone */
	LINK_LOST,    /* a recorded link was replaced or removed by someone else: record dropped */
	LINK_TEMP_REMOVED,    /* a leftover temporary file from an interrupted operation */
	LINK_FAILED,          /* an operation failed with the error given */
	LINK_ADOPTED,         /* an unrecorded symlink already right: recorded, lund's now */
	LINK_RECORD_REPAIRED, /* a broken record entry was removed */
	_LINK_ACTION_MAX,
	_LINK_ACTION_INVALID = -22,
} LinkAction;

/* @target is NULL where it does not apply; @error is 0 or -errno (LINK_FAILED). */
typedef void (*LinksReportFn)(LinkAction action, const char *name, const char *target, int error,
                              void *userdata);

typedef struct LinkSpec {
	const char *name;
	const char *target; /* NULL in links_reconcile(): lund's link @known is to go */
	const char *known;  /* links_add()'s @known, may be NULL */
} LinkSpec;

typedef struct LinksStats {
	unsigned created, updated, removed, unchanged, foreign, lost, temp_removed, failed;
	unsigned adopted, repaired;
	/* of @failed, the recorded links nobody wants that links_reconcile() could not remove
	 * (their records stay: the next reconcile tries again) */
	unsigned unremoved;
} LinksStats;

/* links_name_valid() - 0 if @name may be used as a link name, else -EINVAL. */
int links_name_valid(const char *name);

/* links_target_valid() - 0 if @target is a non-empty symlink target without control bytes and
 * shorter than PATH_MAX, else -EINVAL. */
int links_target_valid(const char *target);

/*
 * Record directories: the records of link directory D (relative, as links_new() takes it) live
 * in a directory named after D with '/' as '-' and '-' and '\' as "\x2d" and "\x5c" (systemd's
 * unit name escaping), so that each name stands for exactly one link directory.
 *
 * links_record_dir_escape() - that name for @link_dir. Returns 0 or -ENOMEM.
 * links_record_dir_unescape() - the link directory @name stands for. Returns 0, -EINVAL when an
 * escape is not "\x" and two hex digits or stands for a NUL byte, -ENOMEM.
 */
int links_record_dir_escape(const char *link_dir, char **ret);
int links_record_dir_unescape(const char *name, char **ret);

/* links_record_has() - whether the record value @record (the link targets that count as lund's,
 * one per line) holds @target. */
bool links_record_has(const char *record, const char *target);

/*
 * links_open_dir() - the directory @path (absolute or relative, taken below @rootfd), opened
 * without following a symlink on the way; missing components made when @create. Returns the
 * fd, -ENOTDIR where a component is a symlink or no directory, -EINVAL for a "." or ".."
 * component, -ENOENT (without @create), or another -errno.
 */
int links_open_dir(int rootfd, const char *path, bool create);

/*
 * links_new() - a writer for links in @link_dir (relative to @rootfd), recorded in @record_dir
 * (relative to @record_rootfd: the run dir need not be inside the root). Neither path starts
 * with '/'; directories are created 0755 as needed and no component may be a symlink. The fds
 * are duplicated. @report may be NULL. Returns 0 or -errno.
 */
int links_new(int rootfd, const char *link_dir, int record_rootfd, const char *record_dir,
              LinksReportFn report, void *userdata, Links **ret);
Links *links_free(Links *l);

enum {
	LINKS_ADD_CREATED = 1,
	LINKS_ADD_UPDATED = 2,
	LINKS_ADD_ADOPTED = 3,
};

/*
 * links_add() - make @name point to @target. @known (may be NULL) is the target of the link the
 * caller itself made at @name (or targets, one per line, as in a record, when a write that
 * failed may have left either): such a link is lund's even when its record was lost.
 * Returns LINKS_ADD_CREATED or LINKS_ADD_UPDATED when the link changed, LINKS_ADD_ADOPTED when
 * an unrecorded symlink already pointed at @target (now recorded), 0 when it already was right,
 * -EEXIST when a foreign file holds the name (left alone), -EINVAL for a bad name or target,
 * -errno otherwise. When lund's link at @name pointed elsewhere and could not be updated, it
 * is removed rather than left naming the wrong node.
 */
int links_add(Links *l, const char *name, const char *target, const char *known);

/*
 * links_remove() - remove lund's link @name (@known as for links_add()). Returns 1 when
 * removed, 0 when there was nothing of lund's to remove (a foreign file is never touched),
 * -errno otherwise.
 */
int links_remove(Links *l, const char *name, const char *known);

/*
 * links_hold(), links_release() - between them, links_add() and links_remove() open the link
 * and record directories once (on first use, never through a symlink, as each call does
 * alone) and keep them open; the last release closes them. For a batch of operations of one
 * moment, not across loop iterations: a directory replaced meanwhile would not be seen.
 * Holds nest; NULL is ignored.
 */
void links_hold(Links *l);
void links_release(Links *l);

/*
 * links_set_fault_fn() - fault injection for tests (a full file system, a read-only one, a
 * damaged one): every step the writer takes on disk first calls @fn (NULL: none) with the kind
 * of step and the entry's name (the directory's path for LINKS_STEP_OPEN); a negative errno
 * from @fn fails the step as the system call would have, 0 lets it run.
 */
typedef enum LinksStep {
	LINKS_STEP_OPEN,    /* opening or listing the link or record directory */
	LINKS_STEP_SYMLINK, /* symlinkat(2): a link, a record, a temporary one */
	LINKS_STEP_RENAME,  /* renameat2(2): a swap, a move aside or back, a record rewritten */
	LINKS_STEP_UNLINK,  /* unlinkat(2): a link, a record, a temporary one */
	_LINKS_STEP_MAX,
	_LINKS_STEP_INVALID = -22,
} LinksStep;
typedef int (*LinksFaultFn)(LinksStep step, const char *name, void *userdata);
void links_set_fault_fn(Links *l, LinksFaultFn fn, void *userdata);

/*
 * links_reconcile() - make the directory match @want (@n entries, names unique): create missing
 * links, fix wrong targets, remove recorded links not in @want, drop records of links someone
 * else replaced, remove leftover temporary files, and report foreign files at wanted names.
 * Broken record entries are removed (LINK_RECORD_REPAIRED). An entry of @want without a target
 * is a link of lund's nobody wants that the caller knows it made (@known), removed as
 * links_remove() does even when its record is gone, and counted as the sweep's are.
 * Every problem is reported and counted; the walk continues past failures.
 * @ret_results (may be NULL, else @n entries) receives each wanted link's outcome as
 * links_add() returns it (-EEXIST: foreign, -EINVAL: bad or duplicate name), and each removal's
 * as links_remove() does.
 * Returns 0 when everything wanted is in place, -EEXIST if a foreign file blocked a name,
 * or the first other error; @ret_stats (may be NULL) is filled either way.
 */
int links_reconcile(Links *l, const LinkSpec *want, size_t n, int *ret_results,
                    LinksStats *ret_stats);

/*
 * links_prune() - for a directory only lund writes: offer every symlink in it that is not
 * recorded, and not wanted (@want, @n entries) with that target or its @known, to @prune (@dfd:
 * the link directory, for resolving @target); those it returns true for are removed (reported
 * LINK_REMOVED), as lund's own links are. Such links are left by an LU that went away, or moved
 * to another node, while lund was down or could not write, and its records were lost; pruned
 * before links_reconcile(), a wanted name is then free for its link. Anything but a symlink is
 * never offered. @ret_stats (may be NULL) counts the removed,
 * and as unremoved those it failed to remove, or one when the directory could not be read.
 * Returns 0 or the first error (the walk continues past failures).
 */
typedef bool (*LinksPruneFn)(const char *name, const char *target, int dfd, void *userdata);
int links_prune(Links *l, const LinkSpec *want, size_t n, LinksPruneFn prune, void *userdata,
                LinksStats *ret_stats);

/*
 * links_recorded() - the links lund has recorded, sorted by name: arrays of malloc'd strings
 * (free with links_spec_free()). Returns 0 or -errno.
 */
int links_recorded(Links *l, LinkSpec **ret, size_t *ret_n);
void links_spec_free(LinkSpec *s, size_t n);

const char *link_action_name(LinkAction a);
