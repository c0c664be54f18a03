#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# lund's links under faults, on a fake sysfs tree (bench/uevent-replay --keep) with a real lund
# (--root TREE --run-dir DIR --no-monitor): names that cannot go stale, writes that are retried.
#
#   records lost   lund killed (-9), its records wiped, started again: the links it finds are
#                  adopted and recorded, so an LU removed afterwards takes its names with it
#   broken records record entries replaced by a file and a directory: a resync repairs them
#                  and succeeds, the links are right
#   foreign file   a file at a link name: left alone; removed, the next resync makes the link
#   full /dev      (root only: a tmpfs with few inodes at the link directory) most links fail;
#                  room made, the retry timer (or a resync) makes every one
#
#   links-faults.sh REPLAY    (LUND=, LUNCTL= in the environment)
set -u
REPLAY=$1
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d /tmp/links-faults.XXXXXX)
LUND_PID=
cleanup() {
        [ -n "$LUND_PID" ] && kill -9 "$LUND_PID" 2>/dev/null
        [ -n "${TREE:-}" ] && umount "$TREE/dev/scsi/by-id" 2>/dev/null
        rm -rf "$TMP" "${TREE:-/nonexistent}"
}
trap cleanup EXIT

resync() { request '{"cmd":"resync"}' > "$TMP/resync.json"; grep -q '"ok": *true' "$TMP/resync.json"; }

start_lund() {
        "$LUND" --root "$TREE" --run-dir "$RUN" --no-monitor --sysfs-only --scan never \
                --load-modules never --log-level info 2>> "$TMP/lund.log" &
        LUND_PID=$!
        for _ in $(seq 200); do
                [ -S "$RUN/control" ] && request '{"cmd":"status"}' > /dev/null 2>&1 && return 0
                kill -0 "$LUND_PID" 2>/dev/null || break
                sleep 0.1
        done
        echo "FAIL: lund did not start"; tail "$TMP/lund.log"; exit 1
}
stop_lund() { kill -9 "$LUND_PID"; wait "$LUND_PID" 2>/dev/null; LUND_PID=; }

LINKS() { ls -A "$TREE/dev/scsi/by-id" 2>/dev/null | grep -vc '^\.#lund\.'; }
# Every link resolves to a node of the LU its name says (the fake tree's WWN ends in the LU
# number + 1, its nodes are sd<letter>/sg<n> of that LU): none names a node nobody has.
links_resolve() {
        local n bad=0
        for n in "$TREE"/dev/scsi/by-id/*; do
                [ -L "$n" ] || continue
                [ -e "$TREE/dev/scsi/by-id/$(readlink "$n")" ] && continue
                t=$(readlink "$n")
                node=${t##*/}
                if ! ls "$TREE"/sys/bus/scsi/devices/*/block/"$node" > /dev/null 2>&1 &&
                   ! ls "$TREE"/sys/bus/scsi/devices/*/scsi_generic/"$node" > /dev/null 2>&1; then
                        echo "stale: ${n##*/} -> $t"
                        bad=1
                fi
        done
        return $bad
}

links_tree "$REPLAY" 8
mkdir -p "$TREE/dev/scsi/by-id"
RUN=$TMP/run
mkdir -p "$RUN"

# ---- records lost, then an LU removed: its names go with it ----
start_lund
check "32 links at start ($(LINKS))" [ "$(LINKS)" = 32 ]
stop_lund
rm -rf "$RUN/links"
start_lund
check "the links found at start are adopted" grep -q "32 adopted" "$TMP/lund.log"
lu=$(ls "$TREE/sys/bus/scsi/devices" | grep -v host | head -n1)
blk=$(ls "$TREE/sys/bus/scsi/devices/$lu/block")
mv "$TREE/sys/bus/scsi/devices/$lu" "$TMP/gone-lu"
check "resync after the LU left" resync
check "its four names are gone ($(LINKS) links)" [ "$(LINKS)" = 28 ]
not_grep() { ! ls -l "$TREE/dev/scsi/by-id" | grep -q -- "-> ../../$1\$"; }
check "no link names $blk any more" not_grep "$blk"
mv "$TMP/gone-lu" "$TREE/sys/bus/scsi/devices/$lu"
check "resync after it came back" resync
check "32 links again ($(LINKS))" [ "$(LINKS)" = 32 ]

# ---- records lost AND an LU gone while lund was down: its unrecorded names go too ----
stop_lund
rm -rf "$RUN/links"
lu=$(ls "$TREE/sys/bus/scsi/devices" | grep -v host | tail -n1)
blk=$(ls "$TREE/sys/bus/scsi/devices/$lu/block")
sg=$(ls "$TREE/sys/bus/scsi/devices/$lu/scsi_generic")
mv "$TREE/sys/bus/scsi/devices/$lu" "$TMP/gone-lu"
# Not lund's to judge: a file, and a symlink to something that exists and is no LU's node.
echo admin > "$TREE/dev/scsi/by-id/admin-file"
touch "$TREE/dev/not-an-lu"
ln -s ../../not-an-lu "$TREE/dev/scsi/by-id/admin-link"
start_lund
check "the gone LU's four unrecorded names are removed at start ($(LINKS) links)" \
        [ "$(LINKS)" = 30 ]
check "no link names $blk any more" not_grep "$blk"
check "no link names $sg any more" not_grep "$sg"
check "the removal is logged" grep -q "4 unrecorded links naming no present logical unit removed" \
        "$TMP/lund.log"
check "a file in the link directory is left alone" grep -qx admin "$TREE/dev/scsi/by-id/admin-file"
check "a symlink to an existing non-LU node is left alone" [ -L "$TREE/dev/scsi/by-id/admin-link" ]
rm -f "$TREE/dev/scsi/by-id/admin-file" "$TREE/dev/scsi/by-id/admin-link" "$TREE/dev/not-an-lu"
mv "$TMP/gone-lu" "$TREE/sys/bus/scsi/devices/$lu"
check "resync after it came back" resync
check "32 links again ($(LINKS))" [ "$(LINKS)" = 32 ]

# ---- records lost AND an LU that cannot be identified now: no name of its node stays ----
# Its node may be another disk's now: a name lund cannot vouch for must not name it.
stop_lund
rm -rf "$RUN/links"
lu=$(ls "$TREE/sys/bus/scsi/devices" | grep -v host | tail -n1)
dev=$(readlink -f "$TREE/sys/bus/scsi/devices/$lu")
blk=$(ls "$dev/block")
mkdir -p "$TMP/pages"
mv "$dev"/inquiry "$dev"/vpd_pg* "$TMP/pages/"
start_lund
check "the unidentifiable LU's unrecorded names are removed at start ($(LINKS) links)" \
        [ "$(LINKS)" = 28 ]
check "no link names $blk any more" not_grep "$blk"
mv "$TMP/pages"/* "$dev/"
check "resync after its pages came back" resync
check "32 links again ($(LINKS))" [ "$(LINKS)" = 32 ]

# ---- broken record entries: repaired, not an error forever ----
rec=$(ls -d "$RUN"/links/* | grep 'by\\x2did$')
names=($(ls "$TREE/dev/scsi/by-id" | head -n2))
rm -f "$rec/${names[0]}" "$rec/${names[1]}"
echo garbage > "$rec/${names[0]}"
mkdir "$rec/${names[1]}"
check "resync with broken records succeeds" resync
check "broken records reported" grep -q "broken record entry" "$TMP/lund.log"
check "the records are symlinks again" [ -L "$rec/${names[0]}" -a -L "$rec/${names[1]}" ]
check "a second resync succeeds too" resync
check "32 links ($(LINKS))" [ "$(LINKS)" = 32 ]
check "every link resolves to its LU's node" links_resolve

# ---- a foreign file at a name: left alone, then retried once it is gone ----
stop_lund
name=$(ls "$TREE/dev/scsi/by-id" | head -n1)
rm "$TREE/dev/scsi/by-id/$name"
rm -f "$rec/$name"
echo admin > "$TREE/dev/scsi/by-id/$name"
start_lund
check "the foreign file is left alone" grep -qx admin "$TREE/dev/scsi/by-id/$name"
rm "$TREE/dev/scsi/by-id/$name"
check "resync after the foreign file went" resync
check "the link is made once the file is gone" [ -L "$TREE/dev/scsi/by-id/$name" ]
check "32 links ($(LINKS))" [ "$(LINKS)" = 32 ]

# ---- the link directory cannot be opened: every link failed, none counted made; then made ----
stop_lund
rm -rf "$TREE/dev/scsi/by-id" "$RUN/links"
echo "not a directory" > "$TREE/dev/scsi/by-id"
start_lund
request '{"cmd":"status"}' > "$TMP/status.json"
check "unopenable directory: status counts no link made" grep -q '"links": *0[,}]' "$TMP/status.json"
# 32 names, and the directory itself: what it holds for lund to remove is not known
check "unopenable directory: status counts 32 names and the directory failed" \
        grep -q '"links_failed": *33[,}]' "$TMP/status.json"
rm "$TREE/dev/scsi/by-id"
for _ in $(seq 60); do [ "$(LINKS)" = 32 ] && break; sleep 0.5; done
check "a directory again: the retry timer makes every link ($(LINKS))" [ "$(LINKS)" = 32 ]
request '{"cmd":"status"}' > "$TMP/status.json"
check "status counts 32 links, none failed" \
        grep -q '"links_failed": *0[,}]' "$TMP/status.json"
check "every link resolves to its LU's node" links_resolve

# ---- /dev full: most links fail; room made, the retry timer makes them ----
if [ "$(id -u)" = 0 ] && stop_lund && rm -rf "$TREE/dev/scsi/by-id" "$RUN/links" &&
   mkdir -p "$TREE/dev/scsi/by-id" &&
   mount -t tmpfs -o nr_inodes=12,mode=755 links-faults "$TREE/dev/scsi/by-id" 2>/dev/null; then
        start_lund
        n=$(LINKS)
        check "/dev full: some links fail ($n made)" [ "$n" -lt 32 ]
        # each failure is logged once per cause: the retries failing for the same one
        # (ENOSPC) say so in their summary, not link by link again
        said=$(grep -c "failed to update link" "$TMP/lund.log")
        for _ in $(seq 120); do
                [ "$(grep -c "Retrying .* link writes that failed" "$TMP/lund.log")" -ge 2 ] && break
                sleep 0.5
        done
        check "two retries while full" [ "$(grep -c "Retrying .* link writes" "$TMP/lund.log")" -ge 2 ]
        check "failures logged once per cause ($said, then $(grep -c "failed to update link" "$TMP/lund.log"))" \
                [ "$(grep -c "failed to update link" "$TMP/lund.log")" = "$said" ]
        mount -o remount,nr_inodes=4096 "$TREE/dev/scsi/by-id"
        for _ in $(seq 60); do [ "$(LINKS)" = 32 ] && break; sleep 0.5; done
        check "room made: the retry timer makes every link ($(LINKS))" [ "$(LINKS)" = 32 ]
        check "the retry was logged" grep -q "Retrying .* link writes that failed" "$TMP/lund.log"
        check "every link resolves to its LU's node" links_resolve
        stop_lund
        umount "$TREE/dev/scsi/by-id"
else
        echo "SKIP: /dev full (needs root and a tmpfs mount)"
fi

[ -n "$LUND_PID" ] && stop_lund
[ $fail = 0 ] || { echo "--- lund log"; tail -n 40 "$TMP/lund.log"; }
echo "$checks checks, $([ $fail = 0 ] && echo passed || echo FAILED)"
exit $fail
