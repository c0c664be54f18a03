#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Identify every disk of the emulated SAN with lunctl and with udev's scsi_id in one VM, and
# print time and SCSI commands per LU and the ratios, in all and per kind of disk (medians of
# the rounds). A benchmark: it prints, never asserts.
#   bench/identify.sh [--old PATH/lunctl]
# LUND_BENCH_ROUNDS=N changes the repetitions (10). --old: a second lunctl (e.g. main's) runs
# as tool lunctl-old in the same rounds of the same VM, beside the build's ($LUND_VM_BUILD or
# build-vm).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bins=()
if [ "${1:-}" = --old ]; then
	old=${2:?--old PATH}
	build=${LUND_VM_BUILD:-build-vm}
	[ -e "$build/build.ninja" ] || meson setup "$build" >/dev/null
	ninja -C "$build" src/cli/lunctl >/dev/null
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	cp "$old" "$tmp/lunctl-old"
	bins=(--bin "$build/src/cli/lunctl" --bin "$tmp/lunctl-old")
fi
res=${LUND_VM_RESULTS:-${LUND_VM_CACHE:-.cache/vm}/results}/bench/identify/results.log
rm -f "$res" # a failed run must not print the last run's figures
tests/vm/run --keep "${bins[@]}" bench/identify >/dev/null || true
python3 - "$res" <<'PY'
import re, statistics, sys
rows, per = {}, {}
for line in open(sys.argv[1]):
    m = re.search(r'tool=(\S+) runs=(\d+) us_per_lu=(\d+) cmds_per_lu_x1000=(\d+)', line)
    if m:
        rows[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)) / 1000)
    m = re.search(r'round=(\d+) tool=(\S+) kind=(\S+) disks=(\d+) ms=(\d+) cmds=(\d+)', line)
    if m:
        r, t, k, n, ms, c = m.groups()
        per.setdefault(k, {}).setdefault(t, []).append((int(ms) / int(n), int(c) / int(n)))
if not rows:
    sys.exit("bench: no results (see the console log next to " + sys.argv[1] + ")")
print(f"{'tool':<14} {'runs':>6} {'ms/LU':>9} {'cmds/LU':>8}")
for k, (runs, us, cmds) in rows.items():
    print(f"{k:<14} {runs:>6} {us/1000:>9.2f} {cmds:>8.3f}")
l, s, f = rows.get('lunctl'), rows.get('scsi_id'), rows.get('sysfs-wwid')
if l and s:
    print(f"scsi_id / lunctl time: {s[1]/max(l[1],1):.2f}x")
c = rows.get('cat-wwid')
if l and c:
    print(f"lunctl / cat wwid (coreutils, one process) time: {l[1]/max(c[1],1):.2f}x (target <= 1.3x)")
if l and f:
    print(f"lunctl / busybox sh -c cat wwid (static) time: {l[1]/max(f[1],1):.2f}x")
if per:
    tools = [t for t in ('lunctl', 'lunctl-old', 'scsi_id', 'cat-wwid', 'start-lunctl')
             if any(t in v for v in per.values())]
    print()
    print("per kind of disk, median over the rounds of ms per LU (cmds per LU):")
    print(f"{'kind':<14} {'disks':>5} " + " ".join(f"{t:>16}" for t in tools)
          + f" {'lunctl/cat':>10} {'scsi_id/lunctl':>14}")
    med = lambda v: statistics.median(x[0] for x in v)
    for k, v in per.items():
        disks = re.search(rf'round=0 tool=lunctl kind={k} disks=(\d+)', open(sys.argv[1]).read())
        cells = [f"{med(v[t]):>9.1f} ({statistics.median(x[1] for x in v[t]):.1f})" if t in v
                 else f"{'':>16}" for t in tools]
        lc = med(v['lunctl']) / max(med(v['cat-wwid']), 0.1) if 'cat-wwid' in v else 0
        sl = med(v['scsi_id']) / max(med(v['lunctl']), 0.1) if 'scsi_id' in v else 0
        print(f"{k:<14} {disks.group(1) if disks else '?':>5} " + " ".join(f"{c:>16}" for c in cells)
              + f" {lc:>9.2f}x {sl:>13.2f}x")
PY
