/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Paths versus clones: two logical units that want one by-id name are either two paths to one
 * LU or two different media that claim one ID. Pure: the keys come from page 0x83 only.
 *
 * Page 0x83 (SPC-6 7.7.6) says which designators belong to the LU (association 0) and which to
 * the target port it was reached through (association 1: relative target port, target port
 * group, the port's own NAA or SCSI name string). One LU seen through two ports reports the
 * same LU designators and different port designators; that is the only proof lund accepts.
 * Anything less is a clone: a USB bridge that gives every card one serial (no page 0x83, or no
 * port designators), a copied ID with identical port designators, LU designators that differ.
 * Target device designators (association 2) name the device, not the port, and are not used.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

typedef enum LuRelation {
	LU_RELATION_PATHS,  /* the same LU through different target ports */
	LU_RELATION_CLONES, /* one claimed ID, not provably the same LU */
	_LU_RELATION_MAX,
	_LU_RELATION_INVALID = -EINVAL,
} LuRelation;

/*
 * lupath_keys() - the LU key and the port key of page 0x83 @buf (@len bytes, header included).
 * Each key is the set of the page's designators of that association, each written as
 * "<byte 0><byte 1 without its reserved bit>:<value>" in hex, sorted and without duplicates,
 * joined by ','; so the order in which a device lists them does not matter. A key is the
 * empty string when the page has no designator of its association.
 * Returns 0 with *@ret_lu and *@ret_port allocated (the caller frees both); -EBADMSG for a
 * malformed page or a pre-SPC-2 page (no associations to tell ports by); -ENODATA when @buf
 * is not page 0x83; -ENOMEM.
 */
int lupath_keys(const uint8_t *buf, size_t len, char **ret_lu, char **ret_port);

/*
 * lupath_relation() - how two LUs that want one name relate, from their keys (NULL: the LU
 * has no usable page 0x83). Paths when both LU keys are non-empty and equal and both port keys
 * are non-empty and differ; clones otherwise.
 */
LuRelation lupath_relation(const char *lu_a, const char *port_a, const char *lu_b,
                           const char *port_b);
