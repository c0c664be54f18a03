#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# An hwdb change that renames devices keeps the old names as aliases (lund(8), Naming contract;
# lund.hwdb(7), LUND_NAME_IDENTITY=unit-serial) on a fake sysfs tree. The admin accepts the names
# of two LUs (scsi-3<NAA> and wwn-0x<NAA>); a new hwdb marks their vendor and model unit-serial.
# `lunctl names --diff --hwdb NEW` previews the rename before it is installed (exit 1); the hwdb
# is installed and lund reloads: each LU gets scsi-S<vendor>_<model>_<page 0x80 serial>, its old
# names stay linked to it as aliases (marked so by lund and lunctl), --diff still exits 1;
# `--accept --all` retires the aliases (lund sees the records change and removes their links)
# and --diff exits 0. Every link's target is checked: no name points at another LU.
#
#   upgrade.sh REPLAY    (LUND= and LUNCTL= in the environment)
set -u
REPLAY=$1
. "$(dirname "$0")/lib.sh"
links_scratch upgrade

links_tree "$REPLAY" 2
mkdir -p "$TREE/dev/scsi/by-id" "$TREE/dev/disk/by-id" "$TREE/var/lib/lund" "$TREE/etc/udev"
RUN=$TMP/run
mkdir -p "$RUN"
BYID=$TREE/dev/scsi/by-id
DISK=$TREE/dev/disk/by-id
RECORDS=$TREE/var/lib/lund/names
HWDB=$TREE/etc/udev/hwdb.bin
lunctl() { "$LUNCTL" --root "$TREE" "$@"; }
names() { lunctl names --state-dir /var/lib/lund "$@"; }
# Wait up to 30 s (10 s and a loaded machine's margin) for CONDITION...
wait_for() { for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done; return 1; }
gone() { [ ! -L "$1" ] && [ ! -e "$1" ]; }

# hwdb PREFIX VALUE FILE: a compiled hwdb of one record "PREFIX*" LUND_NAME_IDENTITY=VALUE
# (systemd's hwdb-internal.h layout, as tests/unit/check-namerule.c builds it).
hwdb() {
        python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
prefix, value, out = sys.argv[1:]
strings = bytearray()
def string(t):
    off = 80 + len(strings)
    strings.extend(t.encode() + b'\0')
    return off
s_prefix, s_key, s_value, s_empty = (string(prefix), string(' LUND_NAME_IDENTITY'),
                                     string(value), string(''))
while (80 + len(strings)) % 8:
    strings.append(0)
root = 80 + len(strings)
leaf = root + 24 + 16
size = leaf + 24 + 16
head = b'KSLPHHRH' + struct.pack('<9Q', 252, size, 80, 24, 16, 16, root, size - root, root - 80)
node_root = struct.pack('<QB7xQ', s_prefix, 1, 0) + struct.pack('<B7xQ', ord('*'), leaf)
node_leaf = struct.pack('<QB7xQ', s_empty, 0, 1) + struct.pack('<QQ', s_key, s_value)
with open(out + '.tmp', 'wb') as f:
    f.write(head + bytes(strings) + node_root + node_leaf)
import os
os.rename(out + '.tmp', out)
PY
}

# The hwdb installed now names nothing differently; the new one marks the replay's disks
# (INQUIRY "Linux" / "scsi_debug") unit-serial.
hwdb "lund:scsi:t0:vNOBODY" unit-serial "$HWDB"
hwdb "lund:scsi:t0:vLinux:mscsi_debug" unit-serial "$TMP/new.bin"

# The LUs' identities, old names, nodes and page 0x80 serials, as lunctl gives them now.
for k in 1 2; do
        h=0:0:$((k - 1)):0
        lunctl names --json "$h" > "$TMP/lu$k.json" || { echo "FAIL: lunctl names $h"; exit 1; }
        python3 - "$TMP/lu$k.json" > "$TMP/lu$k.txt" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(j["wwn"], j["nodes"].get("block", "-"), j["nodes"].get("sg", "-"), *j["names"])
PY
        read -r ident blk sg old1 old2 < "$TMP/lu$k.txt"
        usn=$(lunctl id --export "$h" | sed -n 's/^ID_SCSI_SERIAL=//p')
        eval "I$k=\$ident BLK$k=\$blk SG$k=\$sg OLDA$k=\$old1 OLDB$k=\$old2 NEW$k=scsi-SLinux_scsi_debug_\$usn"
done
[ -n "$I1" ] && [ -n "$I2" ] && [ "$I1" != "$I2" ] || { echo "FAIL: no identities"; exit 1; }
[ "$OLDA1" = "scsi-3${I1#0x}" ] && [ "$OLDB1" = "wwn-$I1" ] ||
        { echo "FAIL: unexpected names of LU 1: $OLDA1 $OLDB1"; exit 1; }
[ "$NEW1" != "$NEW2" ] && [ "${NEW1#scsi-SLinux_scsi_debug_}" != "" ] ||
        { echo "FAIL: no page 0x80 serials ($NEW1, $NEW2)"; exit 1; }

names --accept --all
check "the first accept exits 0 ($?)" [ $? = 0 ]
names --diff > /dev/null
check "nothing pending after the accept ($?)" [ $? = 0 ]

"$LUND" --root "$TREE" --run-dir "$RUN" --state-dir /var/lib/lund --hwdb "$HWDB" --no-monitor \
        --manage-disk-links --sysfs-only --scan never --load-modules never --log-level debug 2> "$TMP/lund.log" &
LUND_PID=$!
PIDS+=("$LUND_PID")
wait_lund_ready "$TMP/lund.log"
T1=$(readlink "$BYID/$OLDA1")
T1SG=$(readlink "$BYID/$OLDA1-sg")
T2=$(readlink "$BYID/$OLDA2")
check "LU 1's names point at its disk ($T1)" [ "$T1" = "../../$BLK1" ]
check "LU 1's -sg names at its sg node ($T1SG)" [ "$T1SG" = "../../$SG1" ]
check "LU 2's names point at its disk ($T2)" [ "$T2" = "../../$BLK2" ]

DISK_BEFORE=$(cd "$DISK" && find . -mindepth 1 -printf '%f %l\n' | sort)
check "/dev/disk/by-id has the 4 names" [ "$(echo "$DISK_BEFORE" | wc -l)" = 4 ]

# ---- the preview: the new hwdb, not installed yet ----
names --diff --hwdb "$TMP/new.bin" > "$TMP/diff1.out"
check "--diff --hwdb NEW exits 1 ($?)" [ $? = 1 ]
for k in 1 2; do
        eval "i=\$I$k new=\$NEW$k a=\$OLDA$k b=\$OLDB$k"
        check "--diff --hwdb lists LU $k's new name" grep -qx -- "+ /dev/scsi/by-id/$new ($i)" "$TMP/diff1.out"
        for o in "$a" "$b"; do
                check "--diff --hwdb lists LU $k's $o kept as an alias" \
                        grep -qx -- "- /dev/scsi/by-id/$o ($i, kept as an alias until accepted)" "$TMP/diff1.out"
        done
done
check "--diff --hwdb lists 6 changes" [ "$(wc -l < "$TMP/diff1.out")" = 6 ]
names --diff > /dev/null
check "the installed hwdb has nothing pending ($?)" [ $? = 0 ]
check "the preview changed no link" [ "$(readlink "$BYID/$OLDA1")" = "$T1" ]
check "and made none" gone "$BYID/$NEW1"

# ---- the hwdb goes live ----
cp "$TMP/new.bin" "$HWDB.new" && mv "$HWDB.new" "$HWDB"
request '{"cmd":"reload"}' > "$TMP/reload.json"
check "lund reloads" grep -q '"ok": *true' "$TMP/reload.json"
check "LU 1's new name appears" wait_for [ "$(readlink "$BYID/$NEW1" 2>/dev/null)" = "$T1" ]
check "LU 1's new -sg name" wait_for [ "$(readlink "$BYID/$NEW1-sg" 2>/dev/null)" = "$T1SG" ]
check "LU 2's new name" wait_for [ "$(readlink "$BYID/$NEW2" 2>/dev/null)" = "$T2" ]
for o in "$OLDA1" "$OLDB1"; do
        check "LU 1's old $o still points at it" [ "$(readlink "$BYID/$o")" = "$T1" ]
        check "and its -sg form" [ "$(readlink "$BYID/$o-sg")" = "$T1SG" ]
done
for o in "$OLDA2" "$OLDB2"; do
        check "LU 2's old $o still points at it" [ "$(readlink "$BYID/$o")" = "$T2" ]
done
# /dev/disk/by-id stays udev's: the old names are current there, the new one is not made
disk_names() { (cd "$DISK" && find . -mindepth 1 -printf '%f %l\n' | sort); }
check "/dev/disk/by-id is unchanged by the reload" [ "$(disk_names)" = "$DISK_BEFORE" ]
check "the old names are current names there" grep -qx "$OLDA1 ../../$BLK1" <(disk_names)
check "the new name is not made there" gone "$DISK/$NEW1"
check "the new name's link is logged" grep -q "scsi/by-id/$NEW1 created -> $T1" "$TMP/lund.log"
check "no collision, no quarantine" bash -c "! grep -qi 'quarantined\|collision' '$TMP/lund.log'"

request '{"cmd":"names","device":"0:0:0:0"}' > "$TMP/names1.json"
python3 - "$TMP/names1.json" > "$TMP/names1.txt" <<'PY'
import json, sys
for l in json.load(open(sys.argv[1]))["links"]:
    print(l["path"].rsplit("/", 1)[1], l["state"], "alias" if l["alias"] else "current")
PY
check "lund: the new name is current" grep -qx "$NEW1 linked current" "$TMP/names1.txt"
check "lund: $OLDA1 is an alias" grep -qx "$OLDA1 linked alias" "$TMP/names1.txt"
check "lund: $OLDB1 is an alias" grep -qx "$OLDB1 linked alias" "$TMP/names1.txt"
LUND_RUN_DIR=$RUN "$LUNCTL" names 0:0:0:0 > "$TMP/names1.out"
check "lunctl names marks the alias" grep -q "^linked .*/$OLDA1 -> .* (alias)" "$TMP/names1.out"
names --why 0:0:0:0 > "$TMP/why1.out"
check "--why: the rule and the page" \
        grep -A1 -x "name $NEW1" "$TMP/why1.out" | grep -q "rule:   lund.hwdb: unit-serial (.*page 0x80)"
check "--why: the hwdb match and scsi_id's form" \
        grep -q "source: lund.hwdb LUND_NAME_IDENTITY=unit-serial (match \"lund:scsi:t0:vLinux:mscsi_debug:r0191\"): ID_SERIAL as scsi_id --page=0x80" "$TMP/why1.out"
check "--why: the old names are aliases" grep -qx "alias $OLDA1" "$TMP/why1.out"
names --diff > "$TMP/diff2.out"
check "--diff exits 1 while the aliases are kept ($?)" [ $? = 1 ]
check "--diff under the installed hwdb is the preview" cmp -s "$TMP/diff1.out" "$TMP/diff2.out"

# ---- accepted: the aliases go, lund notices by itself ----
names --accept --all
check "--accept --all exits 0 ($?)" [ $? = 0 ]
for o in "$OLDA1" "$OLDB1" "$OLDA2" "$OLDB2"; do
        check "lund removes $o once accepted" wait_for gone "$BYID/$o"
        check "and $o-sg" wait_for gone "$BYID/$o-sg"
done
check "LU 1 keeps its new name" [ "$(readlink "$BYID/$NEW1")" = "$T1" ]
check "LU 2 keeps its new name" [ "$(readlink "$BYID/$NEW2")" = "$T2" ]
check "/dev/disk/by-id keeps udev's names after the accept" [ "$(disk_names)" = "$DISK_BEFORE" ]
check "the records keep the identity as key" grep -qx "$I1 name scsi/by-id/$NEW1" "$RECORDS"
names --diff > "$TMP/diff3.out"
check "--diff exits 0 after the accept ($?)" [ $? = 0 ]
(cd "$BYID" && ls) > "$TMP/links.after"
check "exactly the new names are linked ($(wc -l < "$TMP/links.after"))" \
        [ "$(wc -l < "$TMP/links.after")" = 4 ]
links_stop_lund

links_done
