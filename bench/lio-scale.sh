#!/bin/sh
# bench/lio-scale.sh: scale on a real target (tests/vm harness, TCG), 512 LUNs of Linux's LIO
# target on ramdisk backstores over iSCSI on loopback (body: tests/vm/bench/lio-scale.sh,
# busybox): the kernel's own scan of the session's target against `lunctl rescan`, alternating
# rounds; then lund's cold start on the 512 LUs (time to Ready and to an exact link tree).
# Prints min/median/max of each and the ratio of the medians, with the host's load average
# before and after the run. Not a test: nothing here asserts a time.
#
# usage: bench/lio-scale.sh [BUILD_DIR]     (default: $LUND_VM_BUILD or build-vm)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${LUND_VM_BUILD:-$repo/build-vm}}
parts=scale
results=${LUND_VM_CACHE:-$repo/.cache/vm}/results/bench
load() { cut -d' ' -f1-3 /proc/loadavg; }

summary() {
	python3 - "$@" <<'PY'
import re, statistics, sys
part, res, load0, load1 = sys.argv[1:5]
try:
    lines = open(res, errors='replace').read().replace('\r', '').splitlines()
except OSError:
    sys.exit(f"bench/lio-scale.sh: no results ({res})")
rows, kv = {}, {}
for line in lines:
    if line.startswith('FAIL'):
        print(line)
    if not line.startswith('RESULT '):
        continue
    d = dict(f.split('=', 1) for f in line.split()[1:] if '=' in f)
    if 'tool' in d:
        rows.setdefault(d['tool'], []).append(d)
    else:
        kv.update(d)
def mmm(xs):
    xs = [x / 1000 for x in xs]
    return f"{min(xs):7.1f} {statistics.median(xs):7.1f} {max(xs):7.1f}" if xs else "      -       -       -"
def med(xs):
    return statistics.median(xs) if xs else 0
print(f"host load average before {load0}, after {load1}; guest setup {int(kv.get('setup_ms', 0))/1000:.1f} s")
if part == 'scale':
    k = [int(r['ms']) for r in rows.get('kernel', [])]
    l = [int(r['ms']) for r in rows.get('lund', [])]
    print(f"512 LIO LUNs over iSCSI, {len(k)} alternating rounds, s:   min  median     max")
    print(f"  kernel scan (echo '0 0 -' > scan)              {mmm(k)}")
    print(f"  lunctl rescan                                  {mmm(l)}")
    if k and l:
        print(f"  lunctl rescan / kernel scan (medians): {med(l)/med(k):.2f} (target <= 1.15); rounds: "
              + ", ".join(f"{b/a:.2f}" for a, b in zip(k, l)))
    if 'cold.ready_ms' in kv:
        print(f"  lund cold start on the 512 LUs: Ready after {int(kv['cold.ready_ms'])} ms (lund: "
              f"{kv.get('cold.lund_ready_ms', '?')} ms); link tree verified exact after "
              f"{int(kv['cold.exact_ms'])} ms (with the guest-side check), {kv.get('cold.links', '?')} links")
PY
}

for part in $parts; do
	body=lio-scale
	l0=$(load)
	"$repo/tests/vm/run" --build "$build" --keep "bench/$body" >/dev/null || true
	summary "$part" "$results/$body/results.log" "$l0" "$(load)"
done
