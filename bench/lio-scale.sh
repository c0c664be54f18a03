#!/bin/sh
# bench/lio-scale.sh: scale on a real target (tests/vm harness, TCG), 512 LUNs of Linux's LIO
# target on ramdisk backstores, two VM runs:
#  - scan (tests/vm/bench/lio-scale.sh, busybox): iSCSI on loopback, the kernel's own scan of
#    the session's target against `lunctl rescan`, alternating rounds; then lund's cold start on
#    the 512 LUs (time to Ready and to an exact link tree);
#  - naming (tests/vm/bench/lio-naming.sh, udev-root): tcm_loop, every LUN exported at once;
#    the kernel alone, udevd + scsi_id, lund (--manage-disk-links, the same /dev/disk/by-id
#    names), alternating rounds: the kernel's time to add every disk and each tool's time until
#    every name exists; every round checked complete, udev's and lund's names compared.
# Prints min/median/max of each and the ratios of the medians, with the host's load average
# before and after each run. Not a test: nothing here asserts a time.
#
# usage: bench/lio-scale.sh [BUILD_DIR]     (default: $LUND_VM_BUILD or build-vm)
#        LUND_BENCH_PARTS="scale naming" (the default) chooses the runs
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${LUND_VM_BUILD:-$repo/build-vm}}
parts=${LUND_BENCH_PARTS:-scale naming}
results=${LUND_VM_RESULTS:-${LUND_VM_CACHE:-$repo/.cache/vm}/results}/bench
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
    if not line.startswith('RESULT ') or line.startswith('RESULT lag '):
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
else:
    lus = kv.get('lus', '512')
    kern = [int(r['kernel_ms']) for r in rows.get('kernel', [])]
    print(f"cold naming, {lus} LIO LUs behind tcm_loop, from the first LUN export, s:   min  median     max")
    print(f"  kernel alone, every sd device ({len(kern)} rounds)                  {mmm(kern)}")
    names = {}
    for t, what in (('udev', 'udevd + scsi_id'), ('lund', 'lund')):
        rs = rows.get(t, [])
        if not rs:
            continue
        k = [int(r['kernel_ms']) for r in rs]
        n = [int(r['names_ms']) for r in rs]
        names[t] = n
        print(f"  {what:<16} kernel, every sd device ({len(rs)} rounds)  {mmm(k)}")
        print(f"  {what:<16} every name ({rs[-1]['names']} in /dev/disk/by-id)       {mmm(n)}")
    for t, what in (('udev', 'udevd + scsi_id'), ('lund', 'lund')):
        if t not in names:
            continue
        k = [int(r['kernel_ms']) for r in rows[t]]
        print(f"  {what}: names / kernel in the same round (medians) {med(names[t])/med(k):.2f}x; rounds: "
              + ", ".join(f"{b/a:.2f}" for a, b in zip(k, names[t])))
        if kern:
            # the rounds paired by number: the host's load drifts, a round's three tools are
            # the closest in time
            alone = {r['round']: int(r['kernel_ms']) for r in rows['kernel']}
            pairs = [(alone[r['round']], int(r['names_ms'])) for r in rows[t] if r['round'] in alone]
            print(f"  {what}: names / kernel alone (medians) {med(names[t])/med(kern):.2f}x (target <= 1.2x); rounds: "
                  + ", ".join(f"{b/a:.2f}" for a, b in pairs))
    if 'udev' in names and 'lund' in names:
        print(f"  udevd + scsi_id / lund, time until every name exists (medians): "
              f"{med(names['udev']) / med(names['lund']):.2f}x")
    for line in lines:
        if line.startswith('RESULT lag ') or ('names_equal' in line) or ('lund_cpu_ms' in line):
            print('  ' + line[len('RESULT '):])
PY
}

for part in $parts; do
	case $part in
	scale) body=lio-scale ;;
	naming) body=lio-naming ;;
	*) echo "bench/lio-scale.sh: unknown part $part" >&2; exit 2 ;;
	esac
	l0=$(load)
	"$repo/tests/vm/run" --build "$build" --keep "bench/$body" >/dev/null || true
	summary "$part" "$results/$body/results.log" "$l0" "$(load)"
done
