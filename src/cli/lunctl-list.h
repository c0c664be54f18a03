/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The rows of `lunctl list` and where they come from: lund's inventory (lunctl-list-lund.c) or
 * lunctl's own identification of what sysfs has (lunctl-list-sysfs.c). Both fill the same Row,
 * so every output (lunctl-list-render.c) is the same either way. The row model itself is in
 * lunctl-list.c.
 */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lunctl-list-fmt.h"
#include "probe.h"

/* One LU of the listing, whoever identified it. */
typedef struct Row {
	LuRef lu;  /* hctl, host, channel, target, lun and the nodes (block, tape, sg) */
	int error; /* identification failed: only hctl, nodes and what sysfs has are shown */
	char *type, *vendor, *model, *revision;
	char *serial;            /* ID_SERIAL, NULL when scsi_id prints none */
	json_object *properties; /* scsi_id --export, as an object */
	char **names;
	size_t n_names;
	char *paths; /* the other paths of the same LU, space-separated; NULL: none (or no lund) */
	json_object *multipath; /* lund's {node, uuid, name} of the dm-multipath map holding it */
	char *state;            /* the kernel's device state, as lund last saw it or sysfs has it */
	char *excluded; /* the [exclude] rule lund leaves it alone by (lund's), NULL: none */
	/* its persistent reservations, read live when asked for (list_rows_read_pr()) */
	char *pr;
	json_object *pr_json;
	/* read from sysfs as lsscsi reads them (list_rows_read_sysfs()) */
	int pdt;         /* -1: unknown */
	char *transport; /* "" when lsscsi prints none; NULL when not asked for */
	bool have_size;
	uint64_t size; /* bytes */
} Row;

void row_done(Row *w);
void rows_free(Row *rows, size_t n);
/* Rows in H:C:T:L order (qsort()). */
int row_cmp(const void *a, const void *b);
/* A new zeroed row at the end of *@rows (*@n rows in *@allocated), NULL on ENOMEM. */
Row *rows_append(Row **rows, size_t *n, size_t *allocated);
/* Append a copy of @name to the row's names. Returns 0, -ENOMEM. */
int row_add_name(Row *w, const char *name);
/* strdup() that keeps NULL and records a failure in *@oom. */
char *row_strdup(const char *s, bool *oom);

/*
 * list_rows_from_lund() - the LUs of lund's inventory that @filter lets through.
 * Returns 1 with the rows, 0 when no daemon answers on the control socket (absent, refused,
 * not permitted), -errno when one answered but its reply was unusable.
 */
int list_rows_from_lund(const ListFilter *filter, Row **ret, size_t *ret_n);

/*
 * list_rows_from_sysfs() - the LUs in sys/bus/scsi/devices below @rootfd that @filter lets
 * through, each identified as @flags say (one that cannot be is a row with its error, and a
 * warning); none without that directory. Returns 0, -errno.
 */
int list_rows_from_sysfs(int rootfd, ProbeFlags flags, const ListFilter *filter, Row **ret,
                         size_t *ret_n);

/*
 * list_rows_read_sysfs() - what lsscsi reads from sysfs for each row: the peripheral device
 * type, the state (when lund did not give it), and the transport (-t) and size (-s) when
 * @transport and @size ask for them.
 */
void list_rows_read_sysfs(int rootfd, Row *rows, size_t n, bool transport, bool size);

/*
 * list_rows_read_pr() - each row's persistent reservations, read now with PERSISTENT RESERVE
 * IN through its sg (or bsg) node, this host told as lund tells it (engine/reservation.h) with
 * the keys of @conf_path (NULL: the installed lund.conf). Only for `-o +PR`: SCSI commands.
 */
void list_rows_read_pr(int rootfd, Row *rows, size_t n, const char *conf_path);

/* A SCSI host, as lsscsi -H lists it. */
typedef struct Host {
	unsigned host;
	char *driver;    /* proc_name, else the device's driver; NULL when unknown */
	char *transport; /* as lsscsi -H -t prints it, when asked for */
} Host;

void host_done(Host *h);
void hosts_free(Host *h, size_t n);

/*
 * list_hosts_from_sysfs() - the hosts in sys/class/scsi_host that @filter lets through, sorted,
 * with their transports when @transport asks. None when there is no such class. Returns 0,
 * -errno.
 */
int list_hosts_from_sysfs(int rootfd, const ListFilter *filter, bool transport, Host **ret,
                          size_t *ret_n);
