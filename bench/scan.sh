#!/bin/sh
# bench/scan.sh: user-level scan benchmark, one VM run (tests/vm harness, TCG).
# One scsi_debug host with 1024 LUs of which 64 newly mapped; the time until every new LU has
# its block device, for the kernel's own wildcard scan (echo "- - -" > scan), `lunctl rescan`
# (seven rounds each, alternating; min/median/max, medians compared) and `rescan-scsi-bus.sh -a`, and the SCSI
# commands per new LU (sdevs' iorequest_cnt), and lunctl's fixed cost (a rescan with nothing new,
# its start alone), lunctl's figures also without the guest's address-space randomisation (TCG
# translates a randomised process's code again at every start; hardware does not). Prints the
# ratios. Not a test: nothing here asserts a time.
#
# usage: bench/scan.sh [BUILD_DIR] [--bin PATH/lunctl-old]   (default: $LUND_VM_BUILD or build-vm)
# A lunctl-old given with --bin (another build of lunctl, named so) runs in the same rounds and
# is printed beside. LUND_BENCH_ROUNDS=N: N alternating rounds instead of 7 (TCG's speed varies
# by tens of percent from one round to the next; more rounds steady the medians).
# rescan-scsi-bus.sh is capped at 900 s in the guest; a capped run prints its ratio as a lower
# bound.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${LUND_VM_BUILD:-$repo/build-vm}
case ${1:-} in --*|'') ;; *) build=$1; shift ;; esac
build=$(cd "$build" && pwd)
bins=""
while [ $# -ge 2 ] && [ "$1" = --bin ]; do bins="$bins --bin $(realpath "$2")"; shift 2; done
[ $# -eq 0 ] || { echo "usage: bench/scan.sh [BUILD_DIR] [--bin PATH/lunctl-old]" >&2; exit 2; }
res=${LUND_VM_RESULTS:-${LUND_VM_CACHE:-$repo/.cache/vm}/results}/bench/scan/results.log
rm -f "$res" # a failed run must not print the last run's figures
if [ -n "$bins" ]; then
	# --bin replaces the build's binaries in the guest: the build's lunctl goes along
	ninja -C "$build" src/cli/lunctl >/dev/null
	# shellcheck disable=SC2086 # $bins: --bin PATH pairs, paths without blanks
	"$repo/tests/vm/run" --keep $bins --bin "$build/src/cli/lunctl" bench/scan >/dev/null || true
else
	"$repo/tests/vm/run" --build "$build" --keep bench/scan >/dev/null || true
fi
[ -s "$res" ] || { echo "bench/scan.sh: no results ($res)" >&2; exit 1; }
tr -d '\r' <"$res" | awk '
	# stat(P, K): the K-th (1 min, 2 median, 3 max) of the rounds P1..P99 that ran
	function stat(p, k,    n, i, j, t, v) {
		n = 0
		for (i = 1; i <= 99; i++) if ((p i ".ms") in r) v[++n] = r[p i ".ms"]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		if (n == 0) return 0
		if (k == 1) return v[1]
		if (k == 3) return v[n]
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	# paired(P): each round P<i> against the kernel scan just before it, the median of those
	function paired(p,    n, i, j, t, q) {
		n = 0
		for (i = 1; i <= 99; i++)
			if (("kernel" i ".ms") in r && (p i ".ms") in r && r["kernel" i ".ms"] > 0)
				q[++n] = r[p i ".ms"] / r["kernel" i ".ms"]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && q[j - 1] > q[j]; j--) { t = q[j]; q[j] = q[j - 1]; q[j - 1] = t }
		if (n == 0) return 0
		return n % 2 ? q[(n + 1) / 2] : (q[n / 2] + q[n / 2 + 1]) / 2
	}
	$1 == "RESULT" { for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } }
	END {
		printf "%-8s %10s %6s %10s\n", "method", "time_ms", "new", "cmds/LU"
		for (i = 1; i <= 99; i++) for (j = 1; j <= 4; j++) {
			m = (j == 1 ? "kernel" : j == 2 ? "lund" : j == 3 ? "norand" : "old") i
			if ((m ".ms") in r)
				printf "%-8s %10d %6d %10d\n", m, r[m ".ms"], r[m ".new"], r[m ".cmds_per_lu"]
		}
		if ("rsb.ms" in r)
			printf "%-8s %10d %6d %10d\n", "rsb", r["rsb.ms"], r["rsb.new"], r["rsb.cmds_per_lu"]
		k = stat("kernel", 2); l = stat("lund", 2)
		if (k > 0 && l > 0) {
			printf "%-15s %8s %8s %8s\n", "ms", "min", "median", "max"
			printf "%-15s %8d %8d %8d\n", "kernel scan", stat("kernel", 1), k, stat("kernel", 3)
			printf "%-15s %8d %8d %8d\n", "lunctl rescan", stat("lund", 1), l, stat("lund", 3)
			printf "%-15s %8d %8d %8d\n", "  nothing new", stat("idle", 1), stat("idle", 2), stat("idle", 3)
			printf "%-15s %8d %8d %8d\n", "  start alone", stat("start", 1), stat("start", 2), stat("start", 3)
			nr = stat("norand", 2)
			if (nr > 0) {
				printf "%-15s %8d %8d %8d\n", "no ASLR: lunctl", stat("norand", 1), nr, stat("norand", 3)
				printf "%-15s %8d %8d %8d\n", "  nothing new", stat("norandidle", 1), stat("norandidle", 2), stat("norandidle", 3)
				printf "%-15s %8d %8d %8d\n", "  start alone", stat("norandstart", 1), stat("norandstart", 2), stat("norandstart", 3)
			}
			if (stat("old", 2) > 0)
				printf "%-15s %8d %8d %8d   (lunctl-old / kernel scan: %.2f)\n", "lunctl-old", stat("old", 1),
				       stat("old", 2), stat("old", 3), stat("old", 2) / k
			printf "lunctl rescan / kernel scan (medians): %.2f (target <= 1.15: %s)\n", l / k,
			       l / k <= 1.15 ? "met" : "not met"
			if (nr > 0)
				printf "the same without address-space randomisation (TCG translates a randomised process again): %.2f (%s)\n",
				       nr / k, nr / k <= 1.15 ? "met" : "not met"
			if (paired("lund") > 0)
				printf "paired rounds, median of lunctl/kernel: %.2f\n", paired("lund")
			if (paired("norand") > 0)
				printf "paired rounds without randomisation, median: %.2f\n", paired("norand")
			printf "lunctl above the kernel (medians): %d ms; its cost with nothing new: %d ms, of it %d ms its start\n",
			       l - k, stat("idle", 2), stat("start", 2)
			# timeout(1) exits 124; busybox'"'"'s timeout, killed by its TERM, 143
			capped = r["rsb.rc"] == 124 || r["rsb.rc"] == 143
			if (r["rsb.ms"] > 0)
				printf "rescan-scsi-bus.sh / lunctl rescan: %s%.1f (target >= 20)%s\n",
				       capped ? ">= " : "", r["rsb.ms"] / l,
				       capped ? " (rescan-scsi-bus.sh capped)" : ""
		}
	}'
