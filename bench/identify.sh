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
rows, per, rounds = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.search(r'tool=(\S+) runs=(\d+) us_per_lu=(\d+) cmds_per_lu_x1000=(\d+)', line)
    if m:
        rows[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)) / 1000)
    m = re.search(r'round=(\d+) tool=(\S+) kind=(\S+) disks=(\d+) ms=(\d+) cmds=(\d+)', line)
    if m:
        r, t, k, n, ms, c = m.group(1), m.group(2), m.group(3), *map(int, m.groups()[3:])
        per.setdefault(k, {}).setdefault(t, {})[int(r)] = (n, ms, c)
if not rows and not per:
    sys.exit("bench: no results (see the console log next to " + sys.argv[1] + ")")
if rows:
    print(f"{'tool':<14} {'runs':>6} {'ms/LU':>9} {'cmds/LU':>8}   (means over every round)")
    for k, (runs, us, cmds) in rows.items():
        print(f"{k:<14} {runs:>6} {us/1000:>9.2f} {cmds:>8.3f}")
else:
    print("(the guest stopped before its totals: the rounds it finished only)")
# rounds every tool finished on every kind (a guest stopped by its timeout leaves a partial one)
done = sorted(set.intersection(*(set(x) for v in per.values() for x in v.values())))
tools = [t for t in ('lunctl', 'lunctl-old', 'scsi_id', 'cat-wwid', 'sysfs-wwid', 'start-lunctl',
                     'start-scsi_id') if any(t in v for v in per.values())]
med = lambda xs: statistics.median(xs) if xs else float('nan')
def lu_ms(t, kinds):
    """per round: ms per LU over @kinds; the median over the rounds"""
    return med([sum(per[k][t][r][1] for k in kinds) / sum(per[k][t][r][0] for k in kinds)
                for r in done])
def lu_cmds(t, kinds):
    return med([sum(per[k][t][r][2] for k in kinds) / sum(per[k][t][r][0] for k in kinds)
                for r in done])
print(f"\n{len(done)} rounds; median over the rounds of ms per LU (SCSI commands per LU):")
print(f"{'kind':<14} {'disks':>5} " + " ".join(f"{t:>15}" for t in tools)
      + f" {'lunctl/cat':>10} {'scsi_id/lunctl':>14}")
for k in list(per) + ['all']:
    kinds = list(per) if k == 'all' else [k]
    n = sum(per[x]['lunctl'][done[0]][0] for x in kinds)
    cells = [f"{lu_ms(t, kinds):>9.1f} ({lu_cmds(t, kinds):.1f})" for t in tools]
    l, c, s = lu_ms('lunctl', kinds), lu_ms('cat-wwid', kinds), lu_ms('scsi_id', kinds)
    print(f"{k:<14} {n:>5} " + " ".join(f"{x:>15}" for x in cells)
          + f" {l / c:>9.2f}x {s / l:>13.2f}x")
def paired(a, b):
    """the median over the rounds of @a's time / @b's, each round's over all kinds"""
    return med([sum(per[k][a][r][1] for k in per) / sum(per[k][b][r][1] for k in per)
                for r in done])
print("paired by round (median of each round's ratio): lunctl/cat %.2fx, scsi_id/lunctl %.2fx"
      % (paired('lunctl', 'cat-wwid'), paired('scsi_id', 'lunctl')))
if 'lunctl-old' in tools:
    print(f"paired by round: lunctl / lunctl-old {paired('lunctl', 'lunctl-old'):.2f}x")
    print(f"lunctl / lunctl-old (all kinds): {lu_ms('lunctl', list(per)) / lu_ms('lunctl-old', list(per)):.2f}x")
PY
