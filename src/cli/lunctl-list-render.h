/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The outputs of `lunctl list`, whichever source the rows came from (lunctl-list.h): the
 * column table (libsmartcols: aligned, --raw, --pairs), --json, --tree (as a table or JSON)
 * and --hosts. Nothing here reads a device.
 */

#include <stdbool.h>
#include <stddef.h>

#include "lunctl-list-fmt.h"
#include "lunctl-list.h"

typedef enum Column {
	COL_HCTL,
	COL_TYPE,
	COL_PDT,
	COL_VENDOR,
	COL_MODEL,
	COL_REV,
	COL_TRANSPORT,
	COL_NODES,
	COL_BLOCK,
	COL_TAPE,
	COL_SG,
	COL_SIZE,
	COL_ID,
	COL_NAMES,
	COL_PATHS,
	COL_STATE,
	COL_EXCLUDED,
	COL_PR,
	_COL_MAX,
} Column;

typedef struct ListOptions {
	Column cols[2 * _COL_MAX];
	size_t n_cols;
	bool want[_COL_MAX]; /* the columns shown, and what --json adds for them */
	bool noheadings, raw, pairs, json, tree, hosts, transport, size;
	ListFilter filter;
} ListOptions;

/*
 * list_parse_columns() - the columns of -o @arg: they replace the default, "+LIST" adds to it
 * (as lsblk takes it). NULL: the default, with TRANSPORT and SIZE where -t and -s place them.
 * Returns 0, or -EINVAL (logged).
 */
int list_parse_columns(ListOptions *lo, const char *arg);

/* list_print_columns() - the columns -o takes, with their help, on stdout. */
void list_print_columns(void);

/*
 * list_print() - print the @n rows (and with --tree or --hosts the @nh hosts) as @lo asks;
 * @source ("lund", "sysfs") goes into the JSON. Returns 0, -errno.
 */
int list_print(const ListOptions *lo, const Host *h, size_t nh, const Row *w, size_t n,
               const char *source);
