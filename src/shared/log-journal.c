/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <systemd/sd-journal.h>

#include "log.h"

/* One journal entry with lund's structured fields; fields whose value is absent are omitted. */
void log_journal_send(int level, int error, const LogDevice *dev, const char *message_id,
                      const char *ident, const char *msg)
{
	char *fields[8] = {};
	struct iovec iov[8 + LOG_EXTRA_MAX];
	size_t n = 0, n_iov;
	bool ok;

	ok = asprintf(&fields[n++], "MESSAGE=%s", msg) >= 0 &&
	     asprintf(&fields[n++], "PRIORITY=%i", level) >= 0 &&
	     asprintf(&fields[n++], "SYSLOG_IDENTIFIER=%s", ident) >= 0 &&
	     (error >= 0 || asprintf(&fields[n++], "ERRNO=%i", -error) >= 0) &&
	     (!dev || !dev->hctl || asprintf(&fields[n++], "LUND_HCTL=%s", dev->hctl) >= 0) &&
	     (!dev || !dev->devnode ||
	      asprintf(&fields[n++], "LUND_DEVICE=%s", dev->devnode) >= 0) &&
	     (!dev || !dev->wwid || asprintf(&fields[n++], "LUND_WWID=%s", dev->wwid) >= 0) &&
	     (!message_id || asprintf(&fields[n++], "MESSAGE_ID=%s", message_id) >= 0);
	if (!ok)
		fields[--n] = NULL; /* the failed asprintf() left its slot undefined */
	else {
		for (size_t i = 0; i < n; i++)
			iov[i] = (struct iovec){ fields[i], strlen(fields[i]) };
		n_iov = n;
		for (size_t i = 0; dev && dev->extra && dev->extra[i] && i < LOG_EXTRA_MAX; i++)
			iov[n_iov++] =
			        (struct iovec){ (void *)dev->extra[i], strlen(dev->extra[i]) };
		sd_journal_sendv(iov, (int)n_iov);
	}
	for (size_t i = 0; i < n; i++)
		free(fields[i]);
}
