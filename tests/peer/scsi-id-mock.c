/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LD_PRELOAD shim that lets the real udev scsi_id binary (Debian 12, systemd 252) run against a
 * fixture set instead of a device: ioctl(fd, SG_IO, ...) with an INQUIRY CDB is answered from
 * $LUND_MOCK_DIR/$LUND_MOCK_NAME.{inquiry,pg00,pg80,pg83}.hex, and REPORT LUNS from its .luns.hex
 * (CHECK CONDITION without one); every other ioctl is refused.
 * Run scsi_id with -d pointing at any readable regular file. This is how the fixtures'
 * expected ID_* lines are checked against the reference itself (tests/peer/scsi-id.sh).
 *
 * A page without a fixture file, or whose file holds no bytes (only comments), is answered with
 * CHECK CONDITION, ILLEGAL REQUEST (what a device does for an unsupported page). Without a pg00
 * file, page 0x00 is synthesised from the pages present, exactly as lund's
 * ScsiIdentInput.pg00_infer assumes.
 *
 * PERSISTENT RESERVE IN, READ FULL STATUS, is answered from $NAME.prin.hex; without that file,
 * and for its other service actions, with ILLEGAL REQUEST (a device without it: the caller
 * falls back to READ KEYS, which is refused too).
 *
 * Without $LUND_MOCK_NAME the fixture is named by the file the ioctl's fd refers to: its content
 * is "DIR/NAME" (one line). That is how lund and lunctl run on a fake tree whose dev/sgN files
 * each stand for a different fixture (tests/peer/identify-same.sh).
 *
 * A node whose content is "wait:FILE:DIR/NAME" is a device that does not answer while FILE
 * exists: each command waits (in the ioctl, as SG_IO waits for the device) until FILE is
 * removed, then is answered from DIR/NAME (tests/daemon/daemon-loop.py identify-hang).
 */

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
#include <linux/bsg.h>
#include <scsi/sg.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>

#include "fixture-load.h"

static Fixture fx;
static bool loaded;

static void load(int fd)
{
	const char *dir = getenv("LUND_MOCK_DIR"), *name = getenv("LUND_MOCK_NAME");
	char spec[1024], *slash;
	ssize_t n;

	if (name) {
		if (loaded)
			return;
		loaded = true;
		if (!dir || fixture_load(dir, name, &fx) < 0)
			memset(&fx, 0, sizeof(fx));
		return;
	}
	/* The fixture the node stands for: its content. */
	fixture_done(&fx);
	n = pread(fd, spec, sizeof(spec) - 1, 0);
	if (n <= 0)
		return;
	spec[n] = 0;
	spec[strcspn(spec, "\n")] = 0;
	if (strncmp(spec, "wait:", 5) == 0) {
		char *colon = strchr(spec + 5, ':');

		if (!colon)
			return;
		memmove(spec, colon + 1, strlen(colon + 1) + 1);
	}
	slash = strrchr(spec, '/');
	if (!slash)
		return;
	*slash = 0;
	if (fixture_load(spec, slash + 1, &fx) < 0)
		memset(&fx, 0, sizeof(fx));
}

/* Fill @buf (@buflen) for INQUIRY or PERSISTENT RESERVE IN @cdb; returns bytes or -1 for
 * ILLEGAL REQUEST. */
static int answer(const uint8_t *cdb, uint8_t *buf, size_t buflen)
{
	static uint8_t pg00[4 + 8];
	const uint8_t *src = NULL;
	size_t len = 0;

	if (cdb[0] == 0x5e) {
		if ((cdb[1] & 0x1f) == 0x03) {
			src = fx.buf[FX_PRIN];
			len = fx.len[FX_PRIN];
		}
	} else if (!(cdb[1] & 1)) {
		if (cdb[2] != 0)
			return -1;
		src = fx.buf[FX_INQUIRY];
		len = fx.len[FX_INQUIRY];
	} else {
		switch (cdb[2]) {
		case 0x00:
			src = fx.buf[FX_PG00];
			len = fx.len[FX_PG00];
			if (!src) {
				size_t n = 4;

				memset(pg00, 0, sizeof(pg00));
				pg00[0] = fx.buf[FX_INQUIRY] ? fx.buf[FX_INQUIRY][0] : 0;
				pg00[n++] = 0x00;
				if (fx.buf[FX_PG80])
					pg00[n++] = 0x80;
				if (fx.buf[FX_PG83])
					pg00[n++] = 0x83;
				if (fx.buf[FX_PG89])
					pg00[n++] = 0x89;
				pg00[3] = (uint8_t)(n - 4);
				src = pg00;
				len = n;
			}
			break;
		case 0x80:
			src = fx.buf[FX_PG80];
			len = fx.len[FX_PG80];
			break;
		case 0x83:
			src = fx.buf[FX_PG83];
			len = fx.len[FX_PG83];
			break;
		case 0x89:
			src = fx.buf[FX_PG89];
			len = fx.len[FX_PG89];
			break;
		}
	}
	if (!src || len == 0)
		return -1;
	if (len > buflen)
		len = buflen;
	memcpy(buf, src, len);
	return (int)len;
}

/* Any command the mock answers: INQUIRY and PERSISTENT RESERVE IN (above), REPORT LUNS from the
 * .luns fixture. */
static int answer_cdb(const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen)
{
	size_t len = fx.len[FX_LUNS];

	if ((cdb_len >= 6 && cdb[0] == 0x12) || (cdb_len >= 10 && cdb[0] == 0x5e))
		return answer(cdb, buf, buflen);
	if (cdb_len < 12 || cdb[0] != 0xa0 || !fx.buf[FX_LUNS])
		return -1;
	if (len > buflen)
		len = buflen;
	memcpy(buf, fx.buf[FX_LUNS], len);
	return (int)len;
}

/* "wait:FILE:...": wait while FILE exists, outside the lock (other devices go on answering). */
static void wait_if_asked(int fd)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	char spec[1024], *colon;
	ssize_t n;

	n = pread(fd, spec, sizeof(spec) - 1, 0);
	if (n <= 5)
		return;
	spec[n] = 0;
	if (strncmp(spec, "wait:", 5) != 0 || !(colon = strchr(spec + 5, ':')))
		return;
	*colon = 0;
	while (access(spec + 5, F_OK) == 0)
		nanosleep(&tick, NULL);
}

/* lund identifies LUs in several threads: one fixture is loaded and answered at a time. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const uint8_t illegal_request[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24 };

static int sg_io(int fd, void *arg);

/* Exported despite the project-wide -fvisibility=hidden: this is the interposed symbol. */
__attribute__((visibility("default"))) int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int r;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (req != SG_IO) {
		int (*real)(int, unsigned long, void *) =
		        (int (*)(int, unsigned long, void *))dlsym(RTLD_NEXT, "ioctl");
		return real(fd, req, arg);
	}

	if (!getenv("LUND_MOCK_NAME"))
		wait_if_asked(fd);
	pthread_mutex_lock(&lock);
	r = sg_io(fd, arg);
	pthread_mutex_unlock(&lock);
	return r;
}

static int sg_io(int fd, void *arg)
{
	if (*(int *)arg == 'Q') {
		struct sg_io_v4 *h = arg;
		const uint8_t *cdb = (const uint8_t *)(uintptr_t)h->request;
		int n;

		if (h->request_len < 6 || (cdb[0] != 0x12 && cdb[0] != 0xa0 && cdb[0] != 0x5e))
			return errno = EINVAL, -1;
		load(fd);
		memset((void *)(uintptr_t)h->din_xferp, 0, h->din_xfer_len);
		n = answer_cdb(cdb, h->request_len, (uint8_t *)(uintptr_t)h->din_xferp,
		               h->din_xfer_len);
		h->device_status = h->transport_status = h->driver_status = 0;
		h->response_len = 0;
		if (n < 0) {
			size_t l = h->max_response_len < sizeof(illegal_request)
			                   ? h->max_response_len
			                   : sizeof(illegal_request);
			memcpy((void *)(uintptr_t)h->response, illegal_request, l);
			h->response_len = (uint32_t)l;
			h->device_status = 0x02; /* SAM: CHECK CONDITION */
			h->driver_status = 0x08; /* DRIVER_SENSE */
			h->din_resid = (int)h->din_xfer_len;
		} else
			h->din_resid = (int)(h->din_xfer_len - (unsigned)n);
		return 0;
	}
	if (*(int *)arg == 'S') {
		struct sg_io_hdr *h = arg;
		const uint8_t *cdb = h->cmdp;
		int n;

		if (h->cmd_len < 6 || (cdb[0] != 0x12 && cdb[0] != 0xa0 && cdb[0] != 0x5e))
			return errno = EINVAL, -1;
		load(fd);
		memset(h->dxferp, 0, h->dxfer_len);
		n = answer_cdb(cdb, h->cmd_len, h->dxferp, h->dxfer_len);
		h->status = h->masked_status = h->host_status = h->driver_status = 0;
		h->sb_len_wr = 0;
		if (n < 0) {
			size_t l = h->mx_sb_len < sizeof(illegal_request) ? h->mx_sb_len
			                                                  : sizeof(illegal_request);
			memcpy(h->sbp, illegal_request, l);
			h->sb_len_wr = (unsigned char)l;
			h->status = 0x02;
			h->masked_status = 0x01;
			h->driver_status = 0x08;
			h->resid = (int)h->dxfer_len;
		} else
			h->resid = (int)(h->dxfer_len - (unsigned)n);
		return 0;
	}
	errno = EINVAL;
	return -1;
}
