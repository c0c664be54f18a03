#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Old names kept as aliases (lund(8), Naming contract) on a fake sysfs tree. The admin accepts
# the names of two LUs; the records are then changed to what an older naming (another lund
# version, hwdb entry or udev naming mode) gave them: LU 1 had a name it does not get now, and
# LU 2's wwn- name was LU 1's. lund links LU 1's old name as an alias and marks it so, LU 2's
# current name wins over LU 1's alias of it; `lunctl names --diff` reports both changes and
# exits 1; `--accept DEVICE` retires LU 1's alias (lund sees the records change and removes
# the link), `--accept --all` the rest, and --diff exits 0.
#
#   alias.sh REPLAY    (LUND= and LUNCTL= in the environment)
set -u
REPLAY=$1
. "$(dirname "$0")/lib.sh"
links_scratch alias

links_tree "$REPLAY" 2
mkdir -p "$TREE/dev/scsi/by-id" "$TREE/var/lib/lund"
RUN=$TMP/run
mkdir -p "$RUN"
BYID=$TREE/dev/scsi/by-id
RECORDS=$TREE/var/lib/lund/names
lunctl() { "$LUNCTL" --root "$TREE" "$@"; }
# Wait up to 30 s (10 s and a loaded machine's margin) for CONDITION...
wait_for() { for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done; return 1; }
gone() { [ ! -L "$1" ] && [ ! -e "$1" ]; }
not() { ! "$@"; }

# The two LUs' identities (ID_WWN_WITH_EXTENSION) and names, as lunctl gives them now.
lunctl names --json 0:0:0:0 > "$TMP/lu1.json" && lunctl names --json 0:0:1:0 > "$TMP/lu2.json"
I1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wwn"])' "$TMP/lu1.json")
I2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wwn"])' "$TMP/lu2.json")
[ -n "$I1" ] && [ -n "$I2" ] && [ "$I1" != "$I2" ] || { echo "FAIL: no identities"; exit 1; }
OLD=scsi-SLEGACY_NAME_OF_LU1
WWN2=wwn-$I2

lunctl names --state-dir /var/lib/lund --accept --all
check "the first accept exits 0 ($?)" [ $? = 0 ]
check "the records hold both LUs' current names" \
        [ "$(grep -c "^0x.* name scsi/by-id/" "$RECORDS")" = 4 ]
lunctl names --state-dir /var/lib/lund --diff > /dev/null
check "nothing pending after the accept ($?)" [ $? = 0 ]

# What an older naming left: an old name of LU 1, and LU 2's wwn- name recorded as LU 1's.
# (by hand: the checksum line goes, or the file would not match it and not be read)
check "lunctl wrote a checksum line" grep -q "^#sum [0-9a-f]\{16\}\$" "$RECORDS"
sed -i -e '/^#sum /d' -e "s|^$I2 name scsi/by-id/$WWN2\$|$I1 name scsi/by-id/$WWN2|" "$RECORDS"
echo "$I1 name scsi/by-id/$OLD" >> "$RECORDS"
check "the records were changed" grep -q "^$I1 name scsi/by-id/$WWN2\$" "$RECORDS"

"$LUND" --root "$TREE" --run-dir "$RUN" --state-dir /var/lib/lund --no-monitor --sysfs-only \
        --scan never --load-modules never --log-level debug 2> "$TMP/lund.log" &
LUND_PID=$!
PIDS+=("$LUND_PID")
wait_lund_ready "$TMP/lund.log"

T1=$(readlink "$BYID/wwn-$I1")
T1SG=$(readlink "$BYID/wwn-$I1-sg")
T2=$(readlink "$BYID/scsi-3${I2#0x}")
check "LU 1 has its current names" [ -n "$T1" -a -n "$T1SG" ]
check "LU 1's old name is linked as its alias" [ "$(readlink "$BYID/$OLD")" = "$T1" ]
check "and its -sg form too" [ "$(readlink "$BYID/$OLD-sg")" = "$T1SG" ]
check "LU 2's current name wins over LU 1's alias" [ "$(readlink "$BYID/$WWN2")" = "$T2" ]
check "the alias given up is logged" \
        grep -q "$WWN2: old name of 0:0:0:0 kept as an alias, now another logical unit's current name: the alias is dropped" \
        "$TMP/lund.log"
check "no collision, no quarantine" not grep -qi "quarantined\|collision" "$TMP/lund.log"

request '{"cmd":"names","device":"0:0:0:0"}' > "$TMP/names1.json"
python3 - "$TMP/names1.json" "$OLD" "$WWN2" > "$TMP/names1.txt" <<'PY'
import json, sys
links = json.load(open(sys.argv[1]))["links"]
for l in links:
    print(l["path"].rsplit("/", 1)[1], l["state"], "alias" if l["alias"] else "current")
PY
check "lund marks the alias (JSON)" grep -qx "$OLD linked alias" "$TMP/names1.txt"
check "lund marks the alias given up" grep -qx "$WWN2 superseded alias" "$TMP/names1.txt"
check "lund marks current names as such" grep -qx "wwn-$I1 linked current" "$TMP/names1.txt"
LUND_RUN_DIR=$RUN "$LUNCTL" names 0:0:0:0 > "$TMP/names1.out"
check "lunctl names marks the alias" grep -q "^linked .*/$OLD -> .* (alias)" "$TMP/names1.out"

lunctl names --state-dir /var/lib/lund --diff > "$TMP/diff1.out"
check "--diff exits 1 while changes are pending ($?)" [ $? = 1 ]
check "--diff lists the old name kept as an alias" \
        grep -qx -- "- /dev/scsi/by-id/$OLD ($I1, kept as an alias until accepted)" "$TMP/diff1.out"
check "--diff lists the name moving to LU 2" \
        grep -qx -- "~ /dev/scsi/by-id/$WWN2 ($I1 -> $I2)" "$TMP/diff1.out"
lunctl names --state-dir /var/lib/lund --json --diff > "$TMP/diff1.json"
check "--diff --json says pending" grep -q '"pending": *true' "$TMP/diff1.json"
lunctl names --state-dir /var/lib/lund --why 0:0:0:0 > "$TMP/why1.out"
check "--why explains the alias" \
        grep -A1 -x "alias $OLD" "$TMP/why1.out" | grep -q "alias of accepted name, pending --accept"

# ---- accept LU 1: its alias goes, lund notices by itself ----
lunctl names --state-dir /var/lib/lund --accept 0:0:0:0
check "--accept 0:0:0:0 exits 0 ($?)" [ $? = 0 ]
check "lund removes the alias once accepted" wait_for gone "$BYID/$OLD"
check "and its -sg form" wait_for gone "$BYID/$OLD-sg"
check "lund logged the records change" grep -q "Name records changed" "$TMP/lund.log"
check "LU 1 keeps its current names" [ "$(readlink "$BYID/wwn-$I1")" = "$T1" ]
check "LU 2 keeps its name" [ "$(readlink "$BYID/$WWN2")" = "$T2" ]
lunctl names --state-dir /var/lib/lund --diff > "$TMP/diff2.out"
check "LU 2's name, no longer recorded, is still pending ($?)" [ $? = 1 ]

lunctl names --state-dir /var/lib/lund --accept --all
check "--accept --all exits 0 ($?)" [ $? = 0 ]
lunctl names --state-dir /var/lib/lund --diff > "$TMP/diff3.out"
check "--diff exits 0 after the accept ($?)" [ $? = 0 ]
check "--diff says so" grep -qx "no changes pending" "$TMP/diff3.out"
(cd "$BYID" && ls) > "$TMP/links.after"
check "exactly the current names are linked ($(wc -l < "$TMP/links.after"))" \
        [ "$(wc -l < "$TMP/links.after")" = 8 ]
links_stop_lund

links_done
