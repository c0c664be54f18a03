#!/bin/sh
# bench/scan.sh: user-level scan benchmark, one VM run (tests/vm harness, TCG).
# One scsi_debug host with 1024 LUs of which 64 newly mapped; the time until every new LU has
# its block device, for the kernel's own wildcard scan (echo "- - -" > scan), `lunctl rescan`
# and `rescan-scsi-bus.sh -a`, and the SCSI commands per new LU (sdevs' iorequest_cnt).
# Prints the ratios. Not a test: nothing here asserts a time.
#
# usage: bench/scan.sh [BUILD_DIR]     (default: $LUND_VM_BUILD or build-vm)
# rescan-scsi-bus.sh is capped at 900 s in the guest; a capped run prints its ratio as a lower
# bound.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${LUND_VM_BUILD:-$repo/build-vm}}
"$repo/tests/vm/run" --build "$build" --keep _scan-bench >/dev/null || true
res=${LUND_VM_CACHE:-$repo/.cache/vm}/results/_scan-bench/results.log
[ -s "$res" ] || { echo "bench/scan.sh: no results ($res)" >&2; exit 1; }
tr -d '\r' <"$res" | awk '
	$1 == "RESULT" { for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } }
	END {
		printf "%-8s %10s %6s %10s\n", "method", "time_ms", "new", "cmds/LU"
		n = split("kernel lund kernel2 lund2 rsb", m, " ")
		for (i = 1; i <= n; i++) if ((m[i] ".ms") in r)
			printf "%-8s %10d %6d %10d\n", m[i], r[m[i] ".ms"], r[m[i] ".new"], r[m[i] ".cmds_per_lu"]
		k = (r["kernel.ms"] + r["kernel2.ms"]) / 2; l = (r["lund.ms"] + r["lund2.ms"]) / 2
		if (k > 0 && l > 0) {
			printf "lunctl rescan / kernel scan:        %.2f (target <= 1.2)\n", l / k
			if (r["rsb.ms"] > 0)
				printf "rescan-scsi-bus.sh / lunctl rescan: %s%.1f (target >= 20)%s\n",
				       r["rsb.rc"] == 124 ? ">= " : "", r["rsb.ms"] / l,
				       r["rsb.rc"] == 124 ? " (rescan-scsi-bus.sh capped)" : ""
		}
	}'
