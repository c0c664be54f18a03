#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Cold-start naming of 1024 (or 4096) scsi_debug LUs in one VM: udevd + scsi_id against lund,
# each timed from adding the host until every disk has its by-id names, next to the kernel's
# own time to create the disks. A benchmark: it prints ratios, never asserts.
#   bench/daemon.sh [1024|4096] [--bin PATH]...  (LUND_VM_BUILD / LUND_VM_CACHE as for tests/vm/run)
# Builds against each other in one VM: LUND_BENCH_LUNDS="lund-main lund" LUND_BENCH_ROUNDS=4
# bench/daemon.sh 1024 --bin /path/to/lund-main (any --bin puts the build's lund and lunctl in
# the guest as well); LUND_BENCH_TOOLS=lund skips udevd's round, LUND_BENCH_TOOLS="kernel lund"
# adds a round with no naming tool (the kernel's time alone, a second reference);
# LUND_BENCH_TOOLS="kernel floor lund" a round of bench/name-floor.c before lund's (the least a
# namer hearing the same uevents does: libudev's receive and two links per disk from its wwid);
# "floor-full" a round of it that also reads the seven attributes lund identifies an LU from and
# writes eight links and eight records per LU (the system calls lund's names cannot do without).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
case ${1:-1024} in
1024) body=daemon ;;
4096) body=daemon-4096 ;;
*) echo "usage: bench/daemon.sh [1024|4096] [--bin PATH]..." >&2; exit 2 ;;
esac
shift || true
bins=()
while [ $# -ge 2 ] && [ "$1" = --bin ]; do bins+=(--bin "$(realpath "$2")"); shift 2; done
b=$(realpath "${LUND_VM_BUILD:-build-vm}")
# LUND_BENCH_TOOLS with "floor": the build's bench/name-floor in the guest (a round of the least a
# namer with lund's monitor does: the floor lund is compared with)
[[ " ${LUND_BENCH_TOOLS:-} " != *" floor"* ]] || bins+=(--bin "$b/bench/name-floor")
[ ${#bins[@]} -eq 0 ] || bins+=(--bin "$b/src/daemon/lund" --bin "$b/src/cli/lunctl")
load0=$(cut -d' ' -f1-3 /proc/loadavg)
tests/vm/run --keep "${bins[@]}" bench/$body >/dev/null || true
res=${LUND_VM_RESULTS:-${LUND_VM_CACHE:-.cache/vm}/results}/bench/$body/results.log
python3 - "$res" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import re, sys
print(f"host load average before {sys.argv[2]}, after {sys.argv[3]}")
rows = []
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
    if line.startswith('RESULT lag ') or ('tool' not in d and 'lus' in d):
        # the delays, lund's CPU time and counters of the round just reported
        if rows:
            rows[-1].setdefault('extra', {}).update(d)
    elif 'tool' in d:
        rows.append(d)
if not rows:
    sys.exit("bench: no results (see the console log next to " + sys.argv[1] + ")")
# the kernel alone (LUND_BENCH_TOOLS with "kernel"): its time per size, the other reference
alone = {r['lus']: int(r['kernel_ms']) for r in rows if r['tool'] == 'kernel'}
alone_node = {r['lus']: int(r['last_node_ms']) for r in rows
              if r['tool'] == 'kernel' and 'last_node_ms' in r}
print(f"{'tool':<10} {'LUs':>5} {'kernel s':>9} {'names s':>8} {'names/kernel':>13} {'names':>6}"
      + (f" {'names/kernel alone':>19}" if alone else ""))
for r in rows:
    lus, kms, nms = int(r['lus']), int(r['kernel_ms']), int(r['names_ms'])
    line = f"{r['tool']:<10} {lus:>5} {kms/1000:>9.1f} {nms/1000:>8.1f} {nms/max(kms,1):>12.2f}x {r['names']:>6}"
    if r['tool'] != 'kernel' and r['lus'] in alone:
        line += f" {nms/max(alone[r['lus']],1):>18.2f}x"
    print(line)
# the same from the filesystem's timestamps: the kernel's last disk node (devtmpfs) and the last
# name the tool wrote, where the polls above notice each a nap and a directory listing later
stamped = [r for r in rows if r['tool'] != 'kernel' and 'last_name_ms' in r.get('extra', {})]
if stamped:
    print(f"{'tool':<10} {'LUs':>5} {'last node s':>12} {'last name s':>12} {'name/node':>10}"
          + (f" {'name/node alone':>16}" if alone_node else "") + "   (timestamps)")
    for r in stamped:
        e = r['extra']
        node, name = int(e['last_node_ms']), int(e['last_name_ms'])
        line = f"{r['tool']:<10} {r['lus']:>5} {node/1000:>12.1f} {name/1000:>12.1f} {name/max(node,1):>9.2f}x"
        if r['lus'] in alone_node:
            line += f" {name/max(alone_node[r['lus']],1):>15.2f}x"
        print(line)
    for lus, v in alone_node.items():
        print(f"kernel     {lus:>5} {v/1000:>12.1f}   (alone: its last disk node)")
for r in rows:
    e = r.get('extra', {})
    if 'lag_med_ms' in e:
        print(f"{r['tool']} {r['lus']}: node to link per disk: median {int(e['lag_med_ms'])/1000:.1f} s, "
              f"90% {int(e['lag_p90_ms'])/1000:.1f} s, max {int(e['lag_max_ms'])/1000:.1f} s; last node "
              f"{int(e['last_node_ms'])/1000:.1f} s, last link {int(e['last_link_ms'])/1000:.1f} s, "
              f"{e['links_after_last_node']} of {e['links']} links after the last node")
    if 'ulag_med_ms' in e:
        print(f"kernel {r['lus']}: node to the disk's add uevent: median {int(e['ulag_med_ms'])/1000:.1f} s, "
              f"90% {int(e['ulag_p90_ms'])/1000:.1f} s, max {int(e['ulag_max_ms'])/1000:.1f} s; last node "
              f"{int(e['last_node_ms'])/1000:.1f} s, last uevent {int(e['last_uevent_ms'])/1000:.1f} s "
              f"({e['uevents']} disks)")
    if 'lund_run_kernel_ms' in e:
        print(f"{r['tool']} {r['lus']}: while the kernel added the disks, its main thread ran "
              f"{int(e['lund_run_kernel_ms'])/1000:.1f} s, waited for a CPU "
              f"{int(e['lund_runq_kernel_ms'])/1000:.1f} s, was blocked {int(e['lund_blocked_kernel_ms'])/1000:.1f} s")
    if 'lund_cpu_ms' in e:
        print(f"{r['tool']} {r['lus']}: {int(e['lund_cpu_ms'])/1000:.1f} s CPU for the round "
              f"({int(e.get('lund_cpu_kernel_ms', 0))/1000:.1f} s of it while the kernel added the "
              f"disks; system time {int(e.get('lund_sys_ms', 0))/1000:.1f} s), RSS "
              f"{int(e.get('lund_rss_kb', 0))/1024:.1f} MiB, {e.get('lund_resyncs', '?')} resyncs")
# several rounds of several builds (LUND_BENCH_LUNDS): min/median/max of names/kernel and of
# lund's CPU per kernel second, by build and size
groups = {}
for r in rows:
    if r['tool'] in ('udev', 'kernel'):
        continue
    e = r.get('extra', {})
    g = groups.setdefault((r['tool'], r['lus']), [])
    g.append((int(r['names_ms']) / max(int(r['kernel_ms']), 1),
              int(e.get('lund_cpu_ms', 0)) / max(int(r['kernel_ms']), 1),
              int(e['last_name_ms']) / max(int(e['last_node_ms']), 1) if 'last_name_ms' in e else 0))
if any(len(g) > 1 for g in groups.values()):
    print("build     LUs   rounds  names/kernel min/median/max   lund CPU/kernel min/median/max"
          "   name/node (timestamps)")
    for (tool, lus), g in groups.items():
        a = sorted(x[0] for x in g)
        c = sorted(x[1] for x in g)
        t = sorted(x[2] for x in g)
        print(f"{tool:<9} {lus:>5} {len(g):>6}  {a[0]:.2f} / {a[len(a)//2]:.2f} / {a[-1]:.2f}x"
              f"              {c[0]:.2f} / {c[len(c)//2]:.2f} / {c[-1]:.2f}"
              f"               {t[0]:.2f} / {t[len(t)//2]:.2f} / {t[-1]:.2f}x")
u = [r for r in rows if r['tool'] == 'udev']
l = [r for r in rows if r['tool'] not in ('udev', 'kernel') and u and r['lus'] == u[0]['lus']]
if u and l:
    print(f"udevd+scsi_id / lund, time until every name exists: "
          f"{int(u[0]['names_ms'])/max(int(l[0]['names_ms']),1):.2f}x")
PY
