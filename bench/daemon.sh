#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Cold-start naming of 1024 scsi_debug LUs in one VM: udevd + scsi_id against lund, each timed
# from modprobe until every disk has its by-id names, next to the kernel's own time to create
# the disks. A benchmark: it prints ratios, never asserts.
#   bench/daemon.sh      (LUND_VM_BUILD / LUND_VM_CACHE as for tests/vm/run)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tests/vm/run --keep bench/daemon >/dev/null || true
res=${LUND_VM_CACHE:-.cache/vm}/results/bench/daemon/results.log
python3 - "$res" <<'PY'
import re, sys
rows = {}
try:
    lines = open(sys.argv[1]).read().splitlines()
except OSError:
    sys.exit(f"bench: no results ({sys.argv[1]})")
for line in lines:
    m = re.search(r'tool=(\S+) lus=(\d+) kernel_ms=(\d+) names_ms=(\d+) names=(\d+)', line)
    if m:
        rows[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
if not rows:
    sys.exit("bench: no results (see the console log next to " + sys.argv[1] + ")")
print(f"{'tool':<6} {'LUs':>5} {'kernel s':>9} {'names s':>8} {'names/kernel':>13} {'names':>6}")
for k, (lus, kms, nms, names) in rows.items():
    print(f"{k:<6} {lus:>5} {kms/1000:>9.1f} {nms/1000:>8.1f} {nms/max(kms,1):>12.2f}x {names:>6}")
extra = {}
for line in lines:
    for k in ('lund_cpu_ms', 'lund_rss_kb', 'lund_start_cpu_ms', 'lund_resyncs'):
        m = re.search(k + r'=(\d+)', line)
        if m:
            extra[k] = int(m.group(1))
u, l = rows.get('udev'), rows.get('lund')
if 'lund_cpu_ms' in extra:
    busy = extra['lund_cpu_ms'] - extra.get('lund_start_cpu_ms', 0)
    print(f"lund: {busy/1000:.1f} s CPU for the round, RSS {extra.get('lund_rss_kb', 0)/1024:.1f} MiB "
          f"with {l[0] if l else '?'} LUs, {extra.get('lund_resyncs', '?')} resyncs")
if u and l:
    print(f"udevd+scsi_id / lund, time until every name exists: {u[2]/max(l[2],1):.2f}x")
PY
