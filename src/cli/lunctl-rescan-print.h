/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * `lunctl rescan`'s human form: the actions worth showing, the failed targets and hosts, and a
 * table of counts per host. Printed from the engine's ScanResult when this process scanned (no
 * JSON tree, no libjson-c), and from the result's JSON (scan-json.h) when lund did; both print
 * the same bytes for the same scan (tests/unit/check-rescanprint.c).
 */

#include <json-c/json.h>
#include <stdio.h>

#include "scan.h"

/* @flags: those the scan ran with (SCAN_DRY_RUN and SCAN_IDS change the form). */
void rescan_print_result(FILE *out, const ScanResult *r, ScanFlags flags);

/* The same from a result object as scan_result_to_json() builds it. */
void rescan_print_json(FILE *out, json_object *res);
