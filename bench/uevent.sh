#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The daemon's cost per kernel uevent and its memory with many LUs, on the host: the replay
# harness (bench/uevent-replay.c) feeds the manager the uevents of N scsi_debug-like LUs
# appearing and going away, against a fake sysfs tree in a temporary directory.
#  - instructions per event: callgrind counting only inside manager_handle_uevent(), the
#    identifications it hands to the identify threads and their results back in the loop
#    (identify_job_run(), identify_job_done()), and the links written at the end of each LU's
#    burst, on_links_flush() (start-up, building the fake tree and the harness itself excluded);
#  - memory: VmHWM/VmRSS and the heap in use with LUND_BENCH_MEM_LUS (4096) LUs, next to the
#    same process with no LU at all; then the same LUs present before the start (the resync
#    finds them, as at boot).
# A benchmark: it prints figures and ratios against the targets it names, never fails on
# them (it fails only when the harness does: a link missing is a bug, not a slow run).
#   bench/uevent.sh [build-dir]       LUND_BENCH_LUS (256), LUND_BENCH_MEM_LUS (4096)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
n=${LUND_BENCH_LUS:-256}
nmem=${LUND_BENCH_MEM_LUS:-4096}
[ -d "$build" ] || meson setup "$build" "$top" >/dev/null
meson compile -C "$build" bench/uevent-replay >/dev/null
replay=$build/bench/uevent-replay
command -v valgrind >/dev/null || { echo "bench: valgrind is needed" >&2; exit 1; }

# The fake tree and the daemon's name records go to a tmpfs when there is one: on a disk the
# records' fsync dominates the wall time (a 4096-LU run took 766 s on a loaded machine, a
# few tens of seconds on /dev/shm), and no figure measured here depends on where they are.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
        export TMPDIR=/dev/shm
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() { # <label> <args...>: instructions inside the handler, and the event count
        local label=$1; shift
        valgrind --tool=callgrind --callgrind-out-file="$tmp/$label.out" \
                --toggle-collect=manager_handle_uevent --toggle-collect=on_links_flush \
                --toggle-collect=identify_job_run --toggle-collect=identify_job_done \
                "$replay" "$@" >"$tmp/$label.log" 2>/dev/null
        local ir events
        ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/$label.out")
        events=$(sed -n 's/^events=//p' "$tmp/$label.log")
        echo "$ir $events"
}

read -r ir_add ev_add < <(count add --lus "$n")
read -r ir_all ev_all < <(count all --lus "$n" --remove)
ir_rm=$((ir_all - ir_add)); ev_rm=$((ev_all - ev_add))
printf 'uevents replayed: %d LUs, %d events to add them, %d to remove them\n' "$n" "$ev_add" "$ev_rm"
printf 'instructions per event, adding:   %d\n' $((ir_add / ev_add))
printf 'instructions per event, removing: %d\n' $((ir_rm / ev_rm))
per=$((ir_all / ev_all))
printf 'instructions per event: %d (target <= 10000, %.2fx of it)\n' "$per" "$(echo "$per / 10000" | bc -l)"

"$replay" --lus 0 >"$tmp/mem0.log" 2>/dev/null
"$replay" --lus "$nmem" --smaps >"$tmp/mem.log" 2>/dev/null
# The same LUs present before lund starts (a boot): found by the start-up resync.
"$replay" --lus "$nmem" --cold >"$tmp/cold.log" 2>/dev/null
python3 - "$tmp/mem0.log" "$tmp/mem.log" "$nmem" "$tmp/cold.log" <<'PY'
import re, sys
def mem(path, when):
    for line in open(path):
        if line.startswith(f"memory {when}:"):
            return {k: int(v) for k, v in re.findall(r'(\w+)=(\d+)', line)}
    sys.exit(f"bench: no memory figures in {path}")
n = int(sys.argv[3])
base, full = mem(sys.argv[1], "added"), mem(sys.argv[2], "added")
hwm = full["VmHWM"] / 1024
print(f"max RSS (VmHWM) with {n} LUs: {hwm:.1f} MiB (target <= 8 MiB, {hwm / 8:.2f}x of it); "
      f"with none: {base['VmHWM'] / 1024:.1f} MiB")
anon = full["RssAnon"] / 1024
print(f"private RSS (RssAnon, what lund itself owns; the rest is shared library pages) with {n} LUs: "
      f"{anon:.1f} MiB ({anon / 4:.2f}x of 4 MiB); with none: {base['RssAnon'] / 1024:.1f} MiB")
# malloc's chunks in the arena and the ones it mmap()s on their own (over 128 KiB: the claims'
# slot table), headers and rounding included.
heap = full["heap_in_use"] + full["heap_mmap"] - base["heap_in_use"] - base["heap_mmap"]
print(f"heap in use for {n} LUs: {heap / 1048576:.2f} MiB, {heap / max(n, 1):.0f} bytes per LU "
      f"(target <= 1024, {heap / max(n, 1) / 1024:.2f}x of it); "
      f"heap arena {full['heap_arena'] / 1048576:.2f} MiB, mmap()ed {full['heap_mmap'] / 1048576:.2f} MiB")
regions = []
for line in open(sys.argv[2]):
    m = re.match(r'smaps anon=(\d+) rss=(\d+) (.*)', line)
    if m:
        regions.append((int(m.group(1)), int(m.group(2)), m.group(3)))
regions.sort(reverse=True)
print(f"private pages by mapping with {n} LUs (KiB): " +
      ", ".join(f"{name} {anon}" for anon, rss, name in regions[:6] if anon > 0))
growth = full["VmHWM"] - base["VmHWM"]
print(f"RSS growth for {n} LUs: {growth / 1024:.1f} MiB ({growth * 1024 / max(n, 1):.0f} bytes per LU)")
cold = mem(sys.argv[4], "added")
cheap = cold["heap_in_use"] + cold["heap_mmap"] - base["heap_in_use"] - base["heap_mmap"]
print(f"cold start with {n} LUs present: VmHWM {cold['VmHWM'] / 1024:.1f} MiB "
      f"(VmRSS after it {cold['VmRSS'] / 1024:.1f}), RssAnon {cold['RssAnon'] / 1024:.1f} MiB, "
      f"heap in use {cheap / max(n, 1):.0f} bytes per LU, heap arena {cold['heap_arena'] / 1048576:.2f} MiB")
PY
