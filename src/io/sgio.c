/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <scsi/sg_cmds_basic.h>
#include <scsi/sg_lib.h>
#include <scsi/sg_pt.h>

#include "macro.h"
#include "sgio.h"
#include "unaligned.h"

/* SPC: allocation length of INQUIRY is 16 bits. */
#define VPD_FIRST_READ 255u
#define VPD_MAX_READ   (4u + 65535u)

static int category_to_errno(int cat)
{
	switch (cat) {
	case SG_LIB_CAT_CLEAN:
	case SG_LIB_CAT_RECOVERED:
	case SG_LIB_CAT_CONDITION_MET:
	case SG_LIB_CAT_NO_SENSE:
		return 0;
	case SG_LIB_CAT_ILLEGAL_REQ:
	case SG_LIB_CAT_ILLEGAL_REQ_WITH_INFO:
	case SG_LIB_CAT_INVALID_OP:
		return -EOPNOTSUPP;
	case SG_LIB_CAT_NOT_READY:
	case SG_LIB_CAT_BUSY:
	case SG_LIB_CAT_TS_FULL:
		return -EBUSY;
	case SG_LIB_CAT_UNIT_ATTENTION:
		return -EAGAIN;
	case SG_LIB_CAT_DATA_PROTECT:
		return -EROFS;
	case SG_LIB_CAT_TIMEOUT:
		return -ETIMEDOUT;
	case SG_LIB_CAT_MALFORMED:
		return -EBADMSG;
	default:
		return -EIO;
	}
}

int sgio_exec(int fd, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len,
              unsigned timeout_ms, SgioResult *result)
{
	struct sg_pt_base *pt;
	int r, cat, timeout_s;

	assert_return(fd >= 0, -EBADF);
	assert_return(cdb && cdb_len >= 6 && cdb_len <= 16, -EINVAL);
	assert_return(len == 0 || buf, -EINVAL);
	assert_return(len <= INT_MAX, -EINVAL);
	assert_return(result, -EINVAL);

	result->len = 0;
	result->status = -1;
	result->sense_len = 0;
	result->commands++;

	pt = construct_scsi_pt_obj();
	if (!pt)
		return -ENOMEM;

	timeout_s =
	        timeout_ms == 0 ? SGIO_DEFAULT_TIMEOUT_MS / 1000 : (int)((timeout_ms + 999) / 1000);

	set_scsi_pt_cdb(pt, cdb, (int)cdb_len);
	set_scsi_pt_sense(pt, result->sense, sizeof(result->sense));
	if (len > 0)
		set_scsi_pt_data_in(pt, buf, (int)len);

	r = do_scsi_pt(pt, fd, timeout_s, 0);
	if (r < 0) {
		destruct_scsi_pt_obj(pt);
		return r;
	}

	result->status = get_scsi_pt_status_response(pt);
	if (get_scsi_pt_sense_len(pt) > 0)
		result->sense_len = MIN((size_t)get_scsi_pt_sense_len(pt), sizeof(result->sense));

	/* Quiet: noisy=false, verbose=0, so libsgutils2 never writes to stderr. */
	cat = SG_LIB_CAT_CLEAN;
	r = sg_cmds_process_resp(pt, "", r, false, 0, &cat);
	if (r == -1) {
		int os_err = get_scsi_pt_os_err(pt);
		int transport_err = get_scsi_pt_transport_err(pt);

		destruct_scsi_pt_obj(pt);
		if (os_err > 0)
			return -os_err;
		/* Linux host byte: DID_TIME_OUT is a timeout, anything else a transport fault. */
		if (transport_err == 0x03)
			return -ETIMEDOUT;
		if (transport_err != 0)
			return -ENOLINK;
		return -EIO;
	}
	if (r == -2) {
		destruct_scsi_pt_obj(pt);
		return category_to_errno(cat);
	}

	if (len > 0) {
		int resid = get_scsi_pt_resid(pt);

		result->len = resid > 0 && (size_t)resid <= len ? len - (size_t)resid : len;
	}
	destruct_scsi_pt_obj(pt);
	return 0;
}

int sgio_exec_retry(int fd, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len,
                    unsigned timeout_ms, SgioResult *result)
{
	int r = -EAGAIN;

	for (unsigned attempt = 0; attempt <= SGIO_UA_RETRIES; attempt++) {
		r = sgio_exec(fd, cdb, cdb_len, buf, len, timeout_ms, result);
		if (r != -EAGAIN)
			return r;
	}
	return r;
}

int sgio_inquiry(int fd, bool evpd, uint8_t page, uint8_t *buf, size_t len, SgioResult *result)
{
	uint8_t cdb[6] = { 0x12, evpd ? 0x01 : 0x00, evpd ? page : 0, 0, 0, 0 };

	assert_return(len <= 0xffff, -EINVAL);
	assert_return(evpd || page == 0, -EINVAL);

	unaligned_write_be16(cdb + 3, (uint16_t)len);
	return sgio_exec_retry(fd, cdb, sizeof(cdb), buf, len, 0, result);
}

int sgio_vpd_page(int fd, uint8_t page, uint8_t **ret_buf, size_t *ret_len, SgioResult *result)
{
	_cleanup_free_ uint8_t *buf = NULL;
	size_t want = VPD_FIRST_READ, need;
	int r;

	assert_return(ret_buf && ret_len, -EINVAL);

	/* At most two reads: the second with exactly what the first one's header declared. */
	for (unsigned pass = 0; pass < 2; pass++) {
		free(buf);
		buf = calloc(1, want);
		if (!buf)
			return -ENOMEM;

		r = sgio_inquiry(fd, true, page, buf, want, result);
		if (r < 0)
			return r;
		if (result->len < 4)
			return -EBADMSG;
		/* SPC: a device that does not support the page may answer with another one. */
		if (buf[1] != page)
			return -ENODATA;

		need = 4 + (size_t)unaligned_read_be16(buf + 2);
		if (need <= result->len) {
			*ret_len = need;
			*ret_buf = TAKE_PTR(buf);
			return 0;
		}
		if (need > VPD_MAX_READ || want >= need)
			return -EBADMSG;
		want = need;
	}
	return -EBADMSG;
}

const char *sgio_asc_text(uint8_t asc, uint8_t ascq, char *buf, size_t size)
{
	/* What libsgutils2 prints before a code its table names; anything else it writes
	 * ("vendor specific ASC=80, ASCQ=00 (hex)", "ASC=3f, ...") is not a name. */
	static const char prefix[] = "Additional sense: ";
	size_t n;

	if (!buf || size < 2)
		return NULL;
	buf[0] = 0;
	sg_get_asc_ascq_str(asc, ascq, (int)MIN(size, (size_t)INT_MAX), buf);
	buf[size - 1] = 0;
	n = strlen(prefix);
	if (strncmp(buf, prefix, n) != 0 || !buf[n])
		return NULL;
	memmove(buf, buf + n, strlen(buf + n) + 1);
	return buf;
}
