#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Cold-start naming of 1024 (or 4096) scsi_debug LUs in one VM: udevd + scsi_id against lund,
# each timed from adding the host until every disk has its by-id names, next to the kernel's
# own time to create the disks. A benchmark: it prints ratios, never asserts.
#   bench/daemon.sh [1024|4096]     (LUND_VM_BUILD / LUND_VM_CACHE as for tests/vm/run)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
case ${1:-1024} in
1024) body=daemon ;;
4096) body=daemon-4096 ;;
*) echo "usage: bench/daemon.sh [1024|4096]" >&2; exit 2 ;;
esac
load0=$(cut -d' ' -f1-3 /proc/loadavg)
tests/vm/run --keep bench/$body >/dev/null || true
res=${LUND_VM_CACHE:-.cache/vm}/results/bench/$body/results.log
python3 - "$res" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import re, sys
print(f"host load average before {sys.argv[2]}, after {sys.argv[3]}")
rows, extra = [], {}
try:
    lines = open(sys.argv[1]).read().replace('\r', '').splitlines()
except OSError:
    sys.exit(f"bench: no results ({sys.argv[1]})")
for line in lines:
    if line.startswith('FAIL'):
        print(line)
    if not line.startswith('RESULT '):
        continue
    d = dict(f.split('=', 1) for f in line.split()[1:] if '=' in f)
    if line.startswith('RESULT lag ') and rows:
        # the delays of the round just reported
        extra.setdefault((rows[-1]['tool'], int(rows[-1]['lus'])), {}).update(d)
    elif 'tool' in d:
        rows.append(d)
    elif 'lus' in d:
        extra.setdefault(('lund', int(d['lus'])), {}).update(d)
if not rows:
    sys.exit("bench: no results (see the console log next to " + sys.argv[1] + ")")
print(f"{'tool':<6} {'LUs':>5} {'kernel s':>9} {'names s':>8} {'names/kernel':>13} {'names':>6}")
for r in rows:
    lus, kms, nms = int(r['lus']), int(r['kernel_ms']), int(r['names_ms'])
    print(f"{r['tool']:<6} {lus:>5} {kms/1000:>9.1f} {nms/1000:>8.1f} {nms/max(kms,1):>12.2f}x {r['names']:>6}")
for r in rows:
    e = extra.get((r['tool'], int(r['lus'])), {})
    if 'lag_med_ms' in e:
        print(f"{r['tool']} {r['lus']}: node to link per disk: median {int(e['lag_med_ms'])/1000:.1f} s, "
              f"90% {int(e['lag_p90_ms'])/1000:.1f} s, max {int(e['lag_max_ms'])/1000:.1f} s; last node "
              f"{int(e['last_node_ms'])/1000:.1f} s, last link {int(e['last_link_ms'])/1000:.1f} s, "
              f"{e['links_after_last_node']} of {e['links']} links after the last node")
    if 'lund_cpu_ms' in e:
        print(f"lund {r['lus']}: {int(e['lund_cpu_ms'])/1000:.1f} s CPU for the round "
              f"({int(e.get('lund_cpu_kernel_ms', 0))/1000:.1f} s of it while the kernel added the "
              f"disks; system time {int(e.get('lund_sys_ms', 0))/1000:.1f} s), RSS "
              f"{int(e.get('lund_rss_kb', 0))/1024:.1f} MiB, {e.get('lund_resyncs', '?')} resyncs")
u = [r for r in rows if r['tool'] == 'udev']
l = [r for r in rows if r['tool'] == 'lund' and u and r['lus'] == u[0]['lus']]
if u and l:
    print(f"udevd+scsi_id / lund, time until every name exists: "
          f"{int(u[0]['names_ms'])/max(int(l[0]['names_ms']),1):.2f}x")
PY
