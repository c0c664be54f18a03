/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Per-device scan quirks: how a target is scanned, from the hardware database (lund.hwdb(7),
 * LUND_SCAN_*) and lund.conf(5) (scan_* keys of [defaults] and [device NAME] sections). Both
 * front ends load the same sources, so `lunctl rescan` and the daemon's scans treat a device
 * alike. Later sources win: hwdb, then [defaults], then the matching [device] sections in file
 * order (the order of the error-handling policy, lund.conf(5)).
 *
 *   LUND_SCAN_SEQUENTIAL / scan_sequential  boolean: the device has no usable REPORT LUNS;
 *                                           probe its LUNs one by one, as the kernel's
 *                                           sequential scan does (BLIST_NOREPORTLUN)
 *   LUND_SCAN_SPARSE / scan_sparse          boolean: sequential probing goes on past a missing
 *                                           LUN (BLIST_SPARSELUN)
 *   LUND_SCAN_MAX_LUN / scan_max_lun        1..16384: sequential probing stops below this LUN
 *                                           (as the kernel's max_luns)
 *
 * The sources are a LundConf (conf.h): the daemon hands in the one its policy engine shares,
 * so lund.conf is parsed and the hwdb opened once per load. Lookups only read it (the hwdb
 * serialises its own): scan worker threads may call scan_quirks_lookup() concurrently.
 * Nothing here logs.
 */

#include <stddef.h>

#include "conf.h"
#include "scan.h"

#define SCAN_QUIRK_MAX_LUN_LIMIT 16384u

typedef struct ScanQuirks ScanQuirks;

/*
 * scan_quirks_new_from_conf() - the scan quirks of @conf, which they keep a reference to.
 * Returns 0, -ENOMEM.
 */
int scan_quirks_new_from_conf(LundConf *conf, ScanQuirks **ret);

/*
 * scan_quirks_new() - load a LundConf of their own (conf_load()): open the compiled hwdb at
 * @hwdb_path (NULL: the system's; none is no error) and read the lund.conf at @conf_path (NULL:
 * /etc/lund/lund.conf; a missing file is no error). Returns 0, -EBADMSG when the configuration
 * cannot be parsed (then *ret is still set, with the hwdb only), -ENOMEM.
 */
int scan_quirks_new(const char *hwdb_path, const char *conf_path, ScanQuirks **ret);
ScanQuirks *scan_quirks_free(ScanQuirks *q);

/* The configuration the quirks come from. */
LundConf *scan_quirks_conf(const ScanQuirks *q);

/* Whether any source was loaded (a hwdb, or a lund.conf with at least one scan key). */
bool scan_quirks_active(const ScanQuirks *q);

/*
 * scan_quirks_lookup() - the quirk of an LU by its peripheral type and INQUIRY strings. A value
 * that does not parse or is out of range is skipped, and described in @why (when given) as
 * "SOURCE: invalid KEY \"VALUE\""; the return is then -EINVAL with *ret still filled from the
 * valid keys. Returns 0, -EINVAL, -ENOMEM.
 */
int scan_quirks_lookup(ScanQuirks *q, int type, const char *vendor, const char *model,
                       const char *revision, ScanQuirk *ret, char *why, size_t why_size);

/* Pure: parse a boolean ("1", "yes", "true", "on" / "0", "no", "false", "off"). 0 or -EINVAL. */
int scan_quirk_parse_bool(const char *s, bool *ret);
/* Pure: parse a LUN bound, 1..SCAN_QUIRK_MAX_LUN_LIMIT (decimal.h's integers). 0 or -EINVAL. */
int scan_quirk_parse_max_lun(const char *s, uint64_t *ret);

/*
 * scan_quirk_check() - is @key a scan quirk of lund.conf (@hwdb false: "scan_sparse") or of the
 * hwdb (@hwdb true: "LUND_SCAN_SPARSE"), and @value one it takes? 0 yes, -ENOENT not a scan
 * quirk key, -EINVAL a bad value.
 */
int scan_quirk_check(const char *key, bool hwdb, const char *value);
