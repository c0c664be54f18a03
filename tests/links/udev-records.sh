#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Names for udev (lund(8), UDEV) on a fake sysfs tree: lund first writes its links itself
# (--udev-links never); restarted with --udev-links always it removes those links (udev is the
# one writer now) and writes one record per device node in <run-dir>/udev with exactly the
# names it had linked, telling udev with "change" in each device's uevent file; restarted
# again it rewrites nothing and tells udev nothing; an LU that goes takes its records with it;
# a record of an earlier run for a device no longer named is removed and udev told; with
# --udev-links auto it is udev's turn only when udevd is expected (run/udev/control,
# run/systemd/system) and 59-lund.rules is installed.
#
#   udev-records.sh REPLAY    (LUND= in the environment)
set -u
REPLAY=$1
. "$(dirname "$0")/lib.sh"
links_scratch udev-records
start_lund() { # LOG MODE
        "$LUND" --root "$TREE" --run-dir "$RUN" --no-monitor --sysfs-only --scan never \
                --load-modules never --udev-links "$2" --log-level info 2> "$1" &
        LUND_PID=$!
        PIDS+=("$LUND_PID")
        wait_lund_ready "$1"
}
stop_lund() {
        kill -TERM "$LUND_PID"
        wait "$LUND_PID"
}
# name -> target of every link lund's tree holds, sorted
links() { (cd "$TREE/dev/scsi/by-id" && for l in *; do [ -L "$l" ] && echo "$l -> $(readlink "$l")"; done) | sort; }
# the same from the records: each LUND_LINK_<n> of record b8:16 as "name -> ../../<node>"
records() {
        for f in "$RUN"/udev/[bc]*; do
                [ -f "$f" ] || continue
                node=${NODE[${f##*/}]:-unknown}
                sed -n 's|^LUND_LINK_[0-9]*="scsi/by-id/\(.*\)"$|\1 -> ../../'"$node"'|p' "$f"
        done | sort
}
# how many devices were sent "change" (written off lund's loop: wait up to 10 s for @1 of them)
uevents() {
        local n
        for _ in $(seq 100); do
                n=$(grep -lx change "$TREE"/sys/dev/*/*/uevent 2> /dev/null | wc -l)
                [ "$n" -ge "${1:-0}" ] && break
                sleep 0.1
        done
        echo "$n"
}

links_tree "$REPLAY" 4
mkdir -p "$TREE/dev/scsi/by-id"
RUN=$TMP/run
mkdir -p "$RUN"
# Every node its own device number (the replay tree gives them all one) and a uevent file
# under sys/dev, as the kernel has them.
declare -A NODE
i=0
for lu in "$TREE"/sys/devices/pseudo_0/adapter0/host0/target*/*:*:*:*; do
        for d in "$lu"/block/* "$lu"/scsi_generic/*; do
                case $d in */block/*) kind=block key=b num=8:$((16 * i)) ;;
                        *) kind=char key=c num=21:$i ;; esac
                echo "$num" > "$d/dev"
                mkdir -p "$TREE/sys/dev/$kind/$num"
                : > "$TREE/sys/dev/$kind/$num/uevent"
                NODE[$key$num]=${d##*/}
        done
        i=$((i + 1))
done

# ---- A: no udev: lund writes its links ----
start_lund "$TMP/a.log" never
links > "$TMP/links.a"
check "A made 16 links ($(wc -l < "$TMP/links.a"))" [ "$(wc -l < "$TMP/links.a")" = 16 ]
check "A wrote no udev record" [ ! -e "$RUN/udev" ]
stop_lund

# ---- B: udev's turn: the links go, the records hold the same names ----
start_lund "$TMP/b.log" always
check "B removed the links A made ($(links | wc -l) left)" [ "$(links | wc -l)" = 0 ]
check "B logged the hand-over" grep -q "16 links lund made itself removed, udev makes them now" "$TMP/b.log"
records > "$TMP/records.b"
check "B's records name what A linked, node for node" cmp -s "$TMP/links.a" "$TMP/records.b"
check "one record per node (8)" [ "$(ls "$RUN/udev" | wc -l)" = 8 ]
n=$(uevents 8)
check "udev told of every node (8 change events, $n)" [ "$n" = 8 ]
check "records are 0644 files" [ "$(stat -c %a "$RUN/udev/b8:0")" = 644 ]
request '{"cmd":"resync"}' > /dev/null
sleep 1
check "a resync with nothing changed rewrites nothing" [ "$(uevents)" = 8 ]
stop_lund

# ---- C: a restart with the same names tells udev nothing ----
for f in "$TREE"/sys/dev/*/*/uevent; do : > "$f"; done
start_lund "$TMP/c.log" always
records > "$TMP/records.c"
check "C's records are B's" cmp -s "$TMP/records.b" "$TMP/records.c"
sleep 1
check "C told udev nothing ($(uevents) change events)" [ "$(uevents)" = 0 ]

# ---- an LU goes: its records go ----
lu=$(readlink -f "$TREE/sys/bus/scsi/devices/0:0:3:0")
rm -f "$TREE/sys/bus/scsi/devices/0:0:3:0" "$TREE/sys/block/sdd"
rm -rf "$lu"
request '{"cmd":"resync"}' > /dev/null
check "the gone LU's two records are removed ($(ls "$RUN/udev" | wc -l) left)" [ "$(ls "$RUN/udev" | wc -l)" = 6 ]
records > "$TMP/records.d"
check "the others' records are unchanged" \
        cmp -s "$TMP/records.d" <(grep -v '0000000000004' "$TMP/records.b")
stop_lund

# ---- D: a record an earlier run left for a device no longer named ----
for f in "$TREE"/sys/dev/*/*/uevent; do : > "$f"; done
printf 'LUND_LINK_0="scsi/by-id/old"\n' > "$RUN/udev/b8:48"
printf 'junk' > "$RUN/udev/.#b8:0"
start_lund "$TMP/d.log" always
check "the stale record is removed" [ ! -e "$RUN/udev/b8:48" ]
n=$(uevents 1)
check "udev is told of the stale record's device" grep -qx change "$TREE/sys/dev/block/8:48/uevent"
check "a leftover temporary file is removed" [ ! -e "$RUN/udev/.#b8:0" ]
check "only that device was told ($n)" [ "$n" = 1 ]
stop_lund

# ---- auto: udev's turn only with udevd expected and the rule installed ----
mkdir -p "$TREE/run/udev"
: > "$TREE/run/udev/control"
start_lund "$TMP/e.log" auto
check "udevd without 59-lund.rules: lund links itself ($(links | wc -l))" [ "$(links | wc -l)" = 12 ]
check "and says why" grep -q "no 59-lund.rules is installed" "$TMP/e.log"
stop_lund
mkdir -p "$TREE/etc/udev/rules.d"
: > "$TREE/etc/udev/rules.d/59-lund.rules"
start_lund "$TMP/f.log" auto
check "udevd and the rule: udev's turn ($(links | wc -l) links left)" [ "$(links | wc -l)" = 0 ]
stop_lund
rm -f "$TREE/run/udev/control"
mkdir -p "$TREE/run/systemd/system"
start_lund "$TMP/g.log" auto
check "systemd as init (run/systemd/system) and the rule: udev's turn" grep -q "names for udev in" "$TMP/g.log"
stop_lund
rm -rf "$TREE/run/systemd" "$TREE/etc/udev"
start_lund "$TMP/h.log" auto
check "no udevd: lund links itself ($(links | wc -l))" [ "$(links | wc -l)" = 12 ]
stop_lund

links_done
