#!/bin/sh
# bench/lio-scale.sh: scale on a real target, one VM run (tests/vm harness, TCG): 512 LUNs of
# Linux's LIO target over iSCSI on loopback (body: tests/vm/bench/lio-scale.sh). Prints the
# kernel's own scan of the session's target against `lunctl rescan` (ratio), and lund's cold
# start on the 512 LUs (time to Ready and to an exact link tree). Not a test: nothing here
# asserts a time.
#
# usage: bench/lio-scale.sh [BUILD_DIR]     (default: $LUND_VM_BUILD or build-vm)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${LUND_VM_BUILD:-$repo/build-vm}}
"$repo/tests/vm/run" --build "$build" --keep bench/lio-scale >/dev/null || true
res=${LUND_VM_CACHE:-$repo/.cache/vm}/results/bench/lio-scale/results.log
[ -s "$res" ] || { echo "bench/lio-scale.sh: no results ($res)" >&2; exit 1; }
tr -d '\r' <"$res" | awk '
	$1 == "RESULT" { for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } }
	$1 == "FAIL" { print }
	END {
		printf "LUs on the session:            %d\n", r["base_lus"]
		printf "kernel scan (echo 0 0 - > scan): %d ms, %d LUs\n", r["kernel.ms"], r["kernel.lus"]
		printf "lunctl rescan:                   %d ms, %d LUs\n", r["lund.ms"], r["lund.lus"]
		if (r["kernel.ms"] > 0)
			printf "lunctl rescan / kernel scan:     %.2f (target <= 1.2)\n", r["lund.ms"] / r["kernel.ms"]
		printf "lund cold start: Ready after %d ms (lund: %d ms); link tree verified exact after %d ms (includes the guest-side check: lunctl list --json and awk over every LU), %d links\n",
		       r["cold.ready_ms"], r["cold.lund_ready_ms"], r["cold.exact_ms"], r["cold.links"]
	}'
