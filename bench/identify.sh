#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Identify every disk of the emulated SAN with lunctl and with udev's scsi_id in one VM, and
# print time and SCSI commands per LU and the ratios. A benchmark: it prints, never asserts.
#   bench/identify.sh            (ROUNDS=N in the environment changes the repetitions)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
res=${LUND_VM_RESULTS:-${LUND_VM_CACHE:-.cache/vm}/results}/bench/identify/results.log
rm -f "$res" # a failed run must not print the last run's figures
tests/vm/run --keep bench/identify >/dev/null || true
python3 - "$res" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.search(r'tool=(\S+) runs=(\d+) us_per_lu=(\d+) cmds_per_lu_x1000=(\d+)', line)
    if m:
        rows[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)) / 1000)
if not rows:
    sys.exit("bench: no results (see the console log next to " + sys.argv[1] + ")")
print(f"{'tool':<12} {'runs':>6} {'ms/LU':>9} {'cmds/LU':>8}")
for k, (runs, us, cmds) in rows.items():
    print(f"{k:<12} {runs:>6} {us/1000:>9.2f} {cmds:>8.3f}")
l, s, f = rows.get('lunctl'), rows.get('scsi_id'), rows.get('sysfs-wwid')
if l and s:
    print(f"scsi_id / lunctl time: {s[1]/max(l[1],1):.2f}x")
c = rows.get('cat-wwid')
if l and c:
    print(f"lunctl / cat wwid (coreutils, one process) time: {l[1]/max(c[1],1):.2f}x (target <= 1.5x)")
if l and f:
    print(f"lunctl / busybox sh -c cat wwid (static) time: {l[1]/max(f[1],1):.2f}x")
PY
