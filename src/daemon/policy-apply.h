/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Error-handling policy on a stock kernel (lund.conf(5), lund.hwdb(7)): per-LU command timeout,
 * EH timeout, sd's max_retries and the queue depth, and its transport's timeouts (the iSCSI
 * session's recovery_tmo, the FC remote port's fast_io_fail_tmo and dev_loss_tmo), from the
 * hardware database and /etc/lund/lund.conf, written to the LU's (and its transport's) sysfs
 * attributes when it is added, when its disk
 * node appears, and after a POWER ON, RESET OCCURRED unit attention. A value the knob does not
 * take sets nothing (an earlier source's stays): lund.conf's are logged at the load, the
 * hwdb's when met. One the kernel refuses is logged and the attribute left as it was.
 */

#include "conf.h"
#include "exclusion.h"
#include "inventory.h"
#include "worker.h"

typedef struct PolicyEngine PolicyEngine;

/*
 * policy_conf_load() - load lund.conf at @conf_path (NULL: /etc/lund/lund.conf; a missing file
 * is no error) and open the hwdb at @hwdb_path (NULL: the system's; none is no error), once, for
 * the policy engine and the scan quirks to share (scan_quirks_new_from_conf()). Logs what it
 * loaded and every problem of the file, FILE:LINE, as conf_check() and so lunctl check-config
 * find them, and a file that cannot be parsed (then ignored as a whole: *ret holds the hwdb
 * alone). Returns 0 or -ENOMEM.
 */
int policy_conf_load(const char *conf_path, const char *hwdb_path, LundConf **ret);

/* policy_engine_new() - the policy of @conf, which it keeps a reference to. 0 or -ENOMEM. */
int policy_engine_new(int rootfd, LundConf *conf, PolicyEngine **ret);
PolicyEngine *policy_engine_free(PolicyEngine *p);

/*
 * policy_engine_set_worker() - where the transport timeouts (recovery_tmo, fast_io_fail_tmo,
 * dev_loss_tmo: tportknob.h) are written: the LU's iSCSI session or FC remote port is found and
 * written in @w's threads, never in the loop, and the result logged when the job is done.
 * Without a worker they are not set (and that is logged).
 */
void policy_engine_set_worker(PolicyEngine *p, Worker *w);

/* The configuration the policy comes from. */
LundConf *policy_engine_conf(const PolicyEngine *p);

/*
 * policy_lu_verdict() - is @lu excluded (lund.conf(5) EXCLUSIONS), by which rule? The one
 * judgement every action of lund on an LU consults: exclusion_judge() on what the inventory
 * knows of it. @p may be NULL (no configuration: nothing excluded).
 */
void policy_lu_verdict(const PolicyEngine *p, const Lu *lu, ExclusionVerdict *ret);

/* policy_lu_facts() - what the inventory knows of @lu (and of its host) to judge it on; the
 * strings are @lu's and its host's. */
void policy_lu_facts(const Lu *lu, ExclusionFacts *ret);

/* policy_apply() - write what differs, unless @lu is excluded (then 0); @why goes into the log
 * ("add", "power-on-reset"). Returns the number of the LU's attributes changed, or -errno of the
 * first failure; the transport's are handed to the worker and logged when written. */
int policy_apply(PolicyEngine *p, const Lu *lu, const char *why);
