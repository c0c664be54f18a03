/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Error-handling policy on a stock kernel (lund.conf(5), lund.hwdb(7)): per-LU command timeout,
 * EH timeout, sd's max_retries and the queue depth, from the hardware database and
 * /etc/lund/lund.conf, written to the LU's sysfs attributes when it is added, when its disk
 * node appears, and after a POWER ON, RESET OCCURRED unit attention. A value that does not
 * parse or is out of range, or that the kernel refuses, is logged and the attribute left as it
 * was.
 */

#include "inventory.h"

typedef struct PolicyEngine PolicyEngine;

/*
 * policy_engine_new() - load @conf_path (NULL: /etc/lund/lund.conf; a missing file is no
 * error) and open the hwdb at @hwdb_path (NULL: the system's; none is no error). A config file
 * that cannot be parsed fails with -EBADMSG. Logs what it loaded.
 */
int policy_engine_new(int rootfd, const char *conf_path, const char *hwdb_path, PolicyEngine **ret);
PolicyEngine *policy_engine_free(PolicyEngine *p);

/* policy_apply() - write what differs; @why goes into the log ("add", "power-on-reset").
 * Returns the number of attributes changed, or -errno of the first failure. */
int policy_apply(PolicyEngine *p, const Lu *lu, const char *why);
