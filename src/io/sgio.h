/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * SG_IO through libsgutils2's pass-through layer. This is the only place that sees libsgutils2's
 * status categories: they are mapped to -errno here, and libsgutils2 is never allowed to print.
 *
 *   GOOD, RECOVERED, CONDITION MET       0
 *   ILLEGAL REQUEST, INVALID OPCODE      -EOPNOTSUPP
 *   NOT READY, BUSY, TASK SET FULL       -EBUSY
 *   UNIT ATTENTION                       -EAGAIN (sense returned; callers retry a bounded number)
 *   DATA PROTECT                         -EROFS
 *   MEDIUM/HARDWARE ERROR, others        -EIO
 *   command timed out                    -ETIMEDOUT
 *   transport error                      -ENOLINK
 *   response malformed                   -EBADMSG
 *   submission failed                    -errno from the OS
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SPC: sense data is at most 252 bytes (8-byte header + 244 additional). */
#define SGIO_SENSE_MAX          252
#define SGIO_DEFAULT_TIMEOUT_MS 20000
/* Bounded retries after UNIT ATTENTION: a device reports each pending one once. */
#define SGIO_UA_RETRIES 3

typedef struct SgioResult {
	size_t len; /* data-in bytes actually received */
	int status; /* SCSI status byte, -1 if none */
	uint8_t sense[SGIO_SENSE_MAX];
	size_t sense_len;
	unsigned commands; /* commands issued, retries included */
} SgioResult;

/*
 * sgio_exec() - issue one data-in (or no-data when @len is 0) command.
 * @result is filled whether the command succeeded or failed with sense, so that callers see the
 * unit attention or the error's sense data. Returns 0 or -errno per the table above.
 */
int sgio_exec(int fd, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len,
              unsigned timeout_ms, SgioResult *result);

/* As sgio_exec(), retrying up to SGIO_UA_RETRIES times while the device reports UNIT ATTENTION. */
int sgio_exec_retry(int fd, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len,
                    unsigned timeout_ms, SgioResult *result);

/* INQUIRY (SPC 6.7): standard data when !evpd, else VPD page @page. */
int sgio_inquiry(int fd, bool evpd, uint8_t page, uint8_t *buf, size_t len, SgioResult *result);

/*
 * sgio_vpd_page() - read a whole VPD page: asks for 255 bytes first, then re-reads with the
 * length the page header declares. On success *ret_buf (malloc'd) holds 4 + page length bytes.
 */
int sgio_vpd_page(int fd, uint8_t page, uint8_t **ret_buf, size_t *ret_len, SgioResult *result);

/*
 * sgio_asc_text() - the SPC name of an additional sense code and qualifier from libsgutils2's
 * full table ("Reported luns data has changed"), written to @buf of @size bytes (at least
 * SGIO_ASC_TEXT_MAX is enough). Returns @buf, or NULL when the pair is reserved, vendor
 * specific or unknown to the table.
 */
#define SGIO_ASC_TEXT_MAX 256
const char *sgio_asc_text(uint8_t asc, uint8_t ascq, char *buf, size_t size);
