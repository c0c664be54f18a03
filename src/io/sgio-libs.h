/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The functions of libsgutils2 that sgio.c calls, for the programs that dlopen() the library
 * on first use instead of linking it (shared/dlstub.h; lunctl: src/cli/lunctl-libs.c; lund:
 * src/daemon/lund-libs.c): F(return type, name, (parameters), (arguments)), V(name,
 * (parameters), (arguments)) for a function returning void. A function sgio.c starts to call
 * needs its line here, or neither program links.
 */

#include <stdbool.h>
#include <stdint.h>

#include <scsi/sg_cmds_basic.h>
#include <scsi/sg_lib.h>
#include <scsi/sg_pt.h>

/* clang-format 14 and 19 space a pointer in it differently */
/* clang-format off */
#define SGUTILS_FUNCTIONS(F, V)                                                                \
	F(struct sg_pt_base *, construct_scsi_pt_obj, (void), ())                              \
	F(char *, sg_get_asc_ascq_str, (int asc, int ascq, int n, char *b), (asc, ascq, n, b)) \
	V(destruct_scsi_pt_obj, (struct sg_pt_base * p), (p))                                  \
	F(int, do_scsi_pt, (struct sg_pt_base * p, int fd, int t, int v), (p, fd, t, v))       \
	F(int, get_scsi_pt_os_err, (const struct sg_pt_base *p), (p))                          \
	F(int, get_scsi_pt_resid, (const struct sg_pt_base *p), (p))                           \
	F(int, get_scsi_pt_sense_len, (const struct sg_pt_base *p), (p))                       \
	F(int, get_scsi_pt_status_response, (const struct sg_pt_base *p), (p))                 \
	F(int, get_scsi_pt_transport_err, (const struct sg_pt_base *p), (p))                   \
	V(set_scsi_pt_cdb, (struct sg_pt_base * p, const uint8_t *c, int n), (p, c, n))        \
	V(set_scsi_pt_data_in, (struct sg_pt_base * p, uint8_t * d, int n), (p, d, n))         \
	V(set_scsi_pt_sense, (struct sg_pt_base * p, uint8_t * s, int n), (p, s, n))           \
	F(int, sg_cmds_process_resp,                                                           \
	  (struct sg_pt_base * p, const char *l, int r, bool noisy, int v, int *cat),          \
	  (p, l, r, noisy, v, cat))
/* clang-format on */
