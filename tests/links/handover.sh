#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The initramfs-to-service hand-over (lund(8), INITRAMFS) on a fake sysfs tree: instance A
# names the tree and is killed with SIGKILL, as at switch-root, leaving its lock file and its
# records; instance B starts on the same run dir, takes the lock (its holder is dead, so the
# flock is free), adopts the records and keeps every name, removing and rewriting nothing; a
# third instance while B lives is refused (exit 1, naming B's PID) and B runs on.
#
#   handover.sh REPLAY    (LUND= in the environment)
set -u
REPLAY=$1
. "$(dirname "$0")/lib.sh"
links_scratch handover
start_lund() { # LOG
        "$LUND" --root "$TREE" --run-dir "$RUN" --no-monitor --sysfs-only --scan never \
                --load-modules never --log-level info 2> "$1" &
        LUND_PID=$!
        PIDS+=("$LUND_PID")
}

# name -> target of every link, one per line, sorted
links() { (cd "$TREE/dev/scsi/by-id" && for l in *; do echo "$l -> $(readlink "$l")"; done); }

links_tree "$REPLAY" 8
mkdir -p "$TREE/dev/scsi/by-id"
RUN=$TMP/run
mkdir -p "$RUN"

# ---- A: the initramfs instance names the tree, then dies without cleaning up ----
start_lund "$TMP/a.log"
wait_lund_ready "$TMP/a.log"
A=$LUND_PID
links > "$TMP/links.a"
check "A made 32 links ($(wc -l < "$TMP/links.a"))" [ "$(wc -l < "$TMP/links.a")" = 32 ]
kill -9 "$A"
wait "$A" 2> /dev/null
check "A's lock file is left, with its PID" grep -qx "$A" "$RUN/lock"
check "A's records are left" [ "$(find "$RUN"/links -mindepth 2 ! -type d | wc -l)" = 32 ]
check "A's socket is left" [ -S "$RUN/control" ]

# ---- B: the service instance takes over the run dir ----
start_lund "$TMP/b.log"
wait_lund_ready "$TMP/b.log"
B=$LUND_PID
check "B took the stale lock" grep -qx "$B" "$RUN/lock"
links > "$TMP/links.b"
check "B kept every name, each pointing where A made it" cmp -s "$TMP/links.a" "$TMP/links.b"
check "B adopted A's records: nothing created, removed or lost" \
        grep -q "0 created, 0 updated, 0 removed, 32 unchanged, 0 adopted, 0 foreign, 0 lost" \
        "$TMP/b.log"
check "B's records are A's" [ "$(find "$RUN"/links -mindepth 2 ! -type d | wc -l)" = 32 ]

# ---- C: a live holder is still refused ----
"$LUND" --root "$TREE" --run-dir "$RUN" --no-monitor --sysfs-only --scan never \
        --load-modules never --log-level info 2> "$TMP/c.log" &
C=$!
PIDS+=("$C")
rc=0
for _ in $(seq 300); do kill -0 "$C" 2> /dev/null || break; sleep 0.1; done
wait "$C"
rc=$?
check "C exits 1 while B holds the lock (exit $rc)" [ "$rc" = 1 ]
check "C names B's PID" grep -q "Another lund (PID $B)" "$TMP/c.log"
request '{"cmd":"resync"}' > "$TMP/resync.json"
check "B answers a resync" grep -q '"ok": *true' "$TMP/resync.json"
links > "$TMP/links.c"
check "the names are unchanged after C and a resync" cmp -s "$TMP/links.a" "$TMP/links.c"
kill -TERM "$B"
wait "$B"
rc=$?
check "B exits 0 on SIGTERM (exit $rc)" [ "$rc" = 0 ]

links_done
