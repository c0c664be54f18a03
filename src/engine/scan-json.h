/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A scan's result as JSON: what `lunctl rescan --json` prints, and what lund sends back for a
 * "rescan" request on its control socket, so both front ends print from the same object
 * (lunctl(8), "JSON OUTPUT").
 */

#include <json-c/json.h>

#include "scan.h"

/* NULL on allocation failure. @scanned_by: "lunctl" or "lund". */
json_object *scan_result_to_json(const ScanResult *r, ScanFlags flags, const char *scanned_by);

/* Request members for the scan flags, and back. */
void scan_flags_to_json(json_object *o, ScanFlags flags);
ScanFlags scan_flags_from_json(json_object *o);
