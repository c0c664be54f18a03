#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# LUNCTL=path cli.sh FIXTURES_DIR
#
# lunctl's command-line contract: exit codes (0 ok, 1 usage, 2 device/I/O, 3 malformed data),
# one-line errors naming the device or file, and `lunctl id` on a sysfs tree rebuilt from the
# kernel attributes captured in the VM (--root), which must give the real scsi_id's ID_* lines
# while sending no command (--sysfs-only: there is no device to send one to). Then `lunctl list`
# served by a real lund on one tree holding every captured LU: the same table and JSON as
# lunctl computes from the tree itself, and the sysfs fallback when no daemon answers.
set -u
export LC_ALL=C
LUNCTL=${LUNCTL:?path to lunctl}
LUND=${LUND:-}
FIX=${1:?fixtures dir}
TMP=$(mktemp -d)
LUND_PID=
trap '[ -n "$LUND_PID" ] && kill "$LUND_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
fail=0 checks=0

expect_rc() { # RC DESCRIPTION COMMAND...
        local want=$1 what=$2 rc
        shift 2
        "$@" > "$TMP/out" 2> "$TMP/err"
        rc=$?
        checks=$((checks + 1))
        if [ "$rc" != "$want" ]; then
                echo "FAIL: $what: exit $rc, expected $want; stderr: $(head -c 300 "$TMP/err")"
                fail=1
        fi
}
expect_err() { # PATTERN DESCRIPTION: the last command's stderr is one line matching PATTERN
        checks=$((checks + 1))
        if [ "$(wc -l < "$TMP/err")" != 1 ] || ! grep -q -- "$1" "$TMP/err"; then
                echo "FAIL: $2: stderr not one line matching '$1': $(cat "$TMP/err")"
                fail=1
        fi
}

expect_rc 0 "--help" "$LUNCTL" --help
expect_rc 0 "--version" "$LUNCTL" --version
grep -q '^lunctl [0-9]' "$TMP/out" || { echo "FAIL: --version output"; fail=1; }
expect_rc 1 "no verb" "$LUNCTL"
expect_rc 1 "unknown verb" "$LUNCTL" frobnicate
expect_rc 1 "unknown option" "$LUNCTL" --frobnicate
expect_rc 1 "id without device" "$LUNCTL" id
expect_rc 1 "id with a word that is no device" "$LUNCTL" id sda
expect_err "not a device node" "id sda"
expect_rc 2 "id of a missing node" "$LUNCTL" id /dev/lund-no-such-node
expect_err "/dev/lund-no-such-node" "missing node"
expect_rc 2 "id of a missing H:C:T:L" "$LUNCTL" --root "$TMP" id 9:9:9:9
expect_err "9:9:9:9" "missing H:C:T:L"
expect_rc 2 "id of a file that is no device" "$LUNCTL" id /etc/hostname
expect_rc 1 "decode without file" "$LUNCTL" decode
expect_rc 2 "decode of a missing file" "$LUNCTL" decode --inhex "$TMP/none.hex"
expect_err "none.hex" "missing file"
printf '00 83 00 08 02 01 00 20 41 42\n' > "$TMP/bad83.hex"
expect_rc 3 "decode of a designator running past its page" "$LUNCTL" decode --page 0x83 --inhex "$TMP/bad83.hex"
expect_err "bad83.hex" "malformed page"
printf 'zz 83 00\n' > "$TMP/nothex.hex"
expect_rc 3 "decode of malformed hex" "$LUNCTL" decode --inhex "$TMP/nothex.hex"
expect_rc 1 "decode --page nonsense" "$LUNCTL" decode --page 0x42 --inhex "$TMP/bad83.hex"
# REPORT LUNS with a peripheral, a flat-space and a well-known LUN; fixed-format sense with
# REPORTED LUNS DATA HAS CHANGED: both recognised from their headers and decoded.
printf '00 00 00 18 00 00 00 00  00 01 00 00 00 00 00 00  40 05 00 00 00 00 00 00  c1 01 00 00 00 00 00 00\n' > "$TMP/luns.hex"
expect_rc 0 "decode REPORT LUNS" "$LUNCTL" decode --inhex "$TMP/luns.hex"
grep -q 'REPORT LUNS: 3 LUNs' "$TMP/out" || { echo "FAIL: luns: $(cat "$TMP/out")"; fail=1; }
grep -q '^  0x4005000000000000  16389  ' "$TMP/out" || { echo "FAIL: flat LUN 5 (Linux LUN 16389, as scsilun_to_int gives): $(cat "$TMP/out")"; fail=1; }
printf '70 00 06 00 00 00 00 0a 00 00 00 00 3f 0e 00 00 00 00\n' > "$TMP/sense.hex"
expect_rc 0 "decode sense" "$LUNCTL" decode --inhex "$TMP/sense.hex"
grep -q 'SDEV_UA=REPORTED_LUNS_DATA_HAS_CHANGED' "$TMP/out" || { echo "FAIL: sense: $(cat "$TMP/out")"; fail=1; }

# lunctl rescan: its options, and a root without SCSI hosts (nothing to scan is no error).
expect_rc 0 "rescan --help" "$LUNCTL" rescan --help
for o in --ids --hwdb --config --no-quirks --max-lun; do
        checks=$((checks + 1))
        grep -q -- "$o" "$TMP/out" || { echo "FAIL: rescan --help does not mention $o"; fail=1; }
done
expect_rc 1 "rescan --max-lun 0" "$LUNCTL" rescan --max-lun 0
expect_err "Invalid number" "rescan --max-lun 0"
expect_rc 1 "rescan --hwdb without a file" "$LUNCTL" rescan --hwdb
mkdir -p "$TMP/nohosts/sys/class/scsi_host"
printf '[device x]\nvendor = A\nscan_sequential = yes\n' > "$TMP/quirks.conf"
expect_rc 0 "rescan --ids of a root without hosts" "$LUNCTL" --root "$TMP/nohosts" rescan --ids \
        --hwdb "$TMP/none.bin" --config "$TMP/quirks.conf"
expect_rc 0 "rescan --no-quirks of a root without hosts" "$LUNCTL" --root "$TMP/nohosts" rescan \
        --no-quirks --json

# lunctl id on a sysfs tree rebuilt from the kernel's attributes captured in the VM.
devices=0
for d in "$FIX"/captured/*/; do
        d=${d%/}
        [ -f "$d/sysfs-vpd_pg83.hex" ] && [ -f "$d/sysfs-inquiry.hex" ] || continue
        hctl=$(sed -n 's/^address: \([0-9:]*\) .*/\1/p' "$d/info")
        root=$TMP/root-${d##*/}
        s=$root/sys/bus/scsi/devices/$hctl
        mkdir -p "$s"
        for f in "$d"/sysfs-*.hex; do
                a=${f##*/sysfs-}; a=${a%.hex}
                grep -v '^#' "$f" | xxd -r -p > "$s/$a"
        done
        echo 6 > "$s/scsi_level"
        # the same LU in the tree lund serves
        all=$TMP/all/sys/bus/scsi/devices/$hctl
        mkdir -p "$all"
        cp "$s"/* "$all/"
        sed -n 's/^address: .*type=\([0-9]*\).*/\1/p' "$d/info" > "$all/type"
        expect_rc 0 "${d##*/}: id --sysfs-only --export" "$LUNCTL" --root "$root" --sysfs-only id --export "$hctl"
        grep '^ID_' "$TMP/out" > "$TMP/id"
        checks=$((checks + 1))
        if ! diff -u "$d/scsi_id.export" "$TMP/id"; then
                echo "FAIL: ${d##*/}: ID_* from the kernel's cached pages differ from scsi_id"
                fail=1
        fi
        expect_rc 0 "${d##*/}: id --json" "$LUNCTL" --root "$root" --sysfs-only id --json "$hctl"
        checks=$((checks + 1))
        grep -q '"scsi_commands": 0' "$TMP/out" || { echo "FAIL: ${d##*/}: commands sent"; fail=1; }
        devices=$((devices + 1))
done
[ "$devices" -ge 20 ] || { echo "FAIL: only $devices captured sysfs trees"; fail=1; }

# ID_PATH in `lunctl id --export` and --json, and `lunctl names --by-path`, on a tree laid out as
# Linux lays out an AHCI port (devices with uevent and subsystem links, the ata_port class): the
# libata path with its ATA compat name, and the by-path names of the disk and its partition.
pr=$TMP/pathroot
hba=sys/devices/pci0000:00/0000:00:1f.2
d=$hba/ata2/host1/target1:0:0/1:0:0:0
mkdir -p "$pr/$d/block/sdb/sdb1" "$pr/sys/bus/scsi/devices" "$pr/sys/bus/pci" "$pr/sys/class/ata_port/ata2"
: > "$pr/sys/devices/pci0000:00/uevent"
: > "$pr/$hba/uevent"
: > "$pr/$hba/ata2/uevent"
ln -s ../../../../bus/pci "$pr/$hba/subsystem"
for x in host1:scsi_host target1:0:0:scsi_target 1:0:0:0:scsi_device; do
        n=${x%:*} t=${x##*:}
        p=$(echo "$d" | sed "s|\(/$n\)/.*|\1|")
        echo "DEVTYPE=$t" > "$pr/$p/uevent"
        ln -s "$(echo "$p" | sed 's|[^/]*|..|g')/sys/bus/scsi" "$pr/$p/subsystem"
done
mkdir -p "$pr/sys/bus/scsi"
echo 2 > "$pr/sys/class/ata_port/ata2/port_no"
ln -s "../../../${d#sys/}" "$pr/sys/bus/scsi/devices/1:0:0:0"
grep -v '^#' "$FIX/captured/ahci-disk/sysfs-inquiry.hex" | xxd -r -p > "$pr/$d/inquiry"
echo 0 > "$pr/$d/type"
echo 1 > "$pr/$d/block/sdb/sdb1/partition"
expect_rc 0 "id --export with a path" "$LUNCTL" --root "$pr" --sysfs-only id --export 1:0:0:0
checks=$((checks + 1))
grep -E '^ID_PATH' "$TMP/out" > "$TMP/path"
printf '%s\n' ID_PATH=pci-0000:00:1f.2-ata-2.0 ID_PATH_TAG=pci-0000_00_1f_2-ata-2_0 \
        ID_PATH_ATA_COMPAT=pci-0000:00:1f.2-ata-2 > "$TMP/path.want"
diff -u "$TMP/path.want" "$TMP/path" || { echo "FAIL: ID_PATH lines of id --export"; fail=1; }
expect_rc 0 "id --json with a path" "$LUNCTL" --root "$pr" --sysfs-only id --json 1:0:0:0
checks=$((checks + 1))
grep -q '"ID_PATH_TAG": "pci-0000_00_1f_2-ata-2_0"' "$TMP/out" || { echo "FAIL: ID_PATH_TAG in id --json"; fail=1; }
expect_rc 0 "names --by-path" "$LUNCTL" --root "$pr" --sysfs-only names --by-path 1:0:0:0
checks=$((checks + 1))
printf '%s\n' "/dev/disk/by-path/pci-0000:00:1f.2-ata-2.0 sdb" \
        "/dev/disk/by-path/pci-0000:00:1f.2-ata-2.0-part1 sdb1" \
        "/dev/disk/by-path/pci-0000:00:1f.2-ata-2 sdb" \
        "/dev/disk/by-path/pci-0000:00:1f.2-ata-2-part1 sdb1" > "$TMP/bp.want"
diff -u "$TMP/bp.want" "$TMP/out" || { echo "FAIL: names --by-path"; fail=1; }
expect_rc 1 "names --by-path with --collisions" "$LUNCTL" names --by-path --collisions
expect_rc 1 "names --by-path without a device" "$LUNCTL" names --by-path

# lunctl rescan through the daemon: a stand-in for lund's control socket records the request,
# sends a progress note and then the reply lund would give ($1: "ok", "failed" or "enoent").
fake_lund() {
        mkdir -p "$TMP/rrun"
        rm -f "$TMP/rrun/control" "$TMP/request"
        python3 - "$TMP/rrun/control" "$TMP/request" "$1" <<'PY' &
import json, socket, sys
path, record, mode = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(1)
open(path + ".ready", "w").close()
c, _ = s.accept()
req = b""
while not req.endswith(b"\n"):
    req += c.recv(4096)
open(record, "wb").write(req)
out = [{"progress": {"targets_done": 1, "targets_total": 2}}]
if mode == "enoent":
    out.append({"ok": False, "error": "ENOENT", "message": "No such file or directory"})
else:
    res = {"scanned_by": "lund", "dry_run": False, "scsi_commands": 3, "failed": 1 if mode == "failed" else 0,
           "hosts": [{"host": 3, "driver": "fake_hba", "added": 2, "removed": 0, "resized": 0, "unchanged": 5,
                      "kept": 0, "failed": 1 if mode == "failed" else 0, "error": None}],
           "targets": [], "actions": [{"action": "add", "hctl": "3:0:1:4", "reason": "reported, not instantiated",
                                       "applied": True, "error": "Input/output error" if mode == "failed" else None}]}
    out.append({"ok": True, "result": res})
c.sendall(b"".join(json.dumps(o).encode() + b"\n" for o in out))
c.close()
PY
        for _ in $(seq 50); do [ -e "$TMP/rrun/control.ready" ] && break; sleep 0.1; done
        rm -f "$TMP/rrun/control.ready"
}
fake_lund ok
expect_rc 0 "rescan through lund" env LUND_RUN_DIR="$TMP/rrun" "$LUNCTL" rescan --json --remove 3 2:0:1
wait
checks=$((checks + 1))
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["cmd"]=="rescan" and r["selectors"]==["3","2:0:1"] and r["remove"] and not r["add"] and not r["dry_run"], r' "$TMP/request" ||
        { echo "FAIL: rescan request: $(cat "$TMP/request")"; fail=1; }
checks=$((checks + 1))
grep -q '"scanned_by": "lund"' "$TMP/out" || { echo "FAIL: rescan --json through lund: $(head -c 300 "$TMP/out")"; fail=1; }
fake_lund ok
expect_rc 0 "rescan through lund, table" env LUND_RUN_DIR="$TMP/rrun" "$LUNCTL" rescan
wait
checks=$((checks + 1))
grep -q '^add    3:0:1:4 .*reported, not instantiated' "$TMP/out" && grep -q '^host3 .*fake_hba .* 2 .* 5 ' "$TMP/out" ||
        { echo "FAIL: rescan table from lund's result: $(cat "$TMP/out")"; fail=1; }
fake_lund failed
expect_rc 2 "rescan through lund with a failure" env LUND_RUN_DIR="$TMP/rrun" "$LUNCTL" rescan
wait
checks=$((checks + 1))
grep -q 'FAILED: Input/output error' "$TMP/out" || { echo "FAIL: failed action not shown: $(cat "$TMP/out")"; fail=1; }
fake_lund enoent
expect_rc 2 "rescan of a host lund does not have" env LUND_RUN_DIR="$TMP/rrun" "$LUNCTL" rescan 42
wait
expect_err "No such SCSI host" "rescan of a missing host through lund"
# no daemon listening (a stale socket file): lunctl scans by itself, here a tree without hosts
rm -f "$TMP/rrun/control"; mkdir -p "$TMP/empty/sys/class/scsi_host"
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/rrun/control"
expect_rc 0 "rescan without a daemon" env LUND_RUN_DIR="$TMP/rrun" "$LUNCTL" --root "$TMP/empty" rescan --direct
# (host42 exists on no machine this runs on: the direct scan of / finds no such host)
expect_rc 2 "rescan, socket not listening: direct" env LUND_RUN_DIR="$TMP/rrun" "$LUNCTL" rescan 42
expect_err "No such SCSI host" "rescan of a missing host without a listening daemon"

# lunctl list: served by lund when it answers, computed from sysfs when it does not.
check() { # DESCRIPTION CONDITION...
        local what=$1
        shift
        checks=$((checks + 1))
        "$@" || { echo "FAIL: $what"; fail=1; }
}
not() { ! "$@"; }
json_source() { sed -n 's/^  "source": "\(.*\)",$/\1/p' "$1"; }
if [ -z "$LUND" ]; then
        echo "FAIL: no lund binary (LUND=)"
        fail=1
else
        ALL=$TMP/all RUN=$TMP/run
        mkdir -p "$RUN"
        # the tree as lunctl reads it itself: the reference
        expect_rc 0 "list --json of the tree" "$LUNCTL" --root "$ALL" --sysfs-only list --json
        cp "$TMP/out" "$TMP/list-sysfs.json"
        expect_rc 0 "list of the tree" "$LUNCTL" --root "$ALL" --sysfs-only list
        cp "$TMP/out" "$TMP/list-sysfs.txt"
        lus=$(grep -c '"hctl"' "$TMP/list-sysfs.json")
        check "the tree holds the captured LUs ($lus)" [ "$lus" -ge 20 ]
        check "sysfs listing names its source" [ "$(json_source "$TMP/list-sysfs.json")" = sysfs ]

        "$LUND" --root "$ALL" --run-dir "$RUN" --no-monitor --sysfs-only --log-level warning \
                2> "$TMP/lund.err" &
        LUND_PID=$!
        for _ in $(seq 100); do
                LUND_RUN_DIR=$RUN "$LUNCTL" status > /dev/null 2>&1 && break
                kill -0 "$LUND_PID" 2>/dev/null || break
                sleep 0.1
        done
        expect_rc 0 "lund answers status" env LUND_RUN_DIR="$RUN" "$LUNCTL" status
        # lund was started without the uevent monitor: what it serves is its inventory, so an
        # LU that leaves the tree now stays in its answer (and proves who answered)
        gone=$(ls "$ALL/sys/bus/scsi/devices" | head -n1)
        mv "$ALL/sys/bus/scsi/devices/$gone" "$TMP/gone"
        expect_rc 0 "list --json served by lund" env LUND_RUN_DIR="$RUN" "$LUNCTL" list --json
        cp "$TMP/out" "$TMP/list-lund.json"
        check "lund's listing names its source" [ "$(json_source "$TMP/list-lund.json")" = lund ]
        check "lund served its inventory (with $gone)" grep -q "\"hctl\": \"$gone\"" "$TMP/list-lund.json"
        checks=$((checks + 1))
        if ! diff -u <(grep -v '^  "source"' "$TMP/list-sysfs.json") \
                     <(grep -v '^  "source"' "$TMP/list-lund.json"); then
                echo "FAIL: list --json from lund differs from lunctl's own"
                fail=1
        fi
        expect_rc 0 "list served by lund" env LUND_RUN_DIR="$RUN" "$LUNCTL" list
        checks=$((checks + 1))
        diff -u "$TMP/list-sysfs.txt" "$TMP/out" || { echo "FAIL: list table from lund differs from lunctl's own"; fail=1; }
        # --root, --sysfs-only, --sgio-only: lunctl's own work even with lund running
        expect_rc 0 "list --root with lund running" env LUND_RUN_DIR="$RUN" "$LUNCTL" --root "$ALL" --sysfs-only list --json
        check "--root lists the tree, not lund" [ "$(json_source "$TMP/out")" = sysfs ]
        check "--root lists the tree as it is now" not grep -q "\"hctl\": \"$gone\"" "$TMP/out"
        mv "$TMP/gone" "$ALL/sys/bus/scsi/devices/$gone"

        # no daemon: a missing socket, then one nobody listens on any more
        expect_rc 0 "list without a socket" env LUND_RUN_DIR="$TMP/none" "$LUNCTL" list --json
        check "no socket: sysfs" [ "$(json_source "$TMP/out")" = sysfs ]
        check "no socket: nothing on stderr" [ ! -s "$TMP/err" ]
        kill "$LUND_PID"; wait "$LUND_PID" 2>/dev/null; LUND_PID=
        python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$RUN/control" 2>/dev/null
        expect_rc 0 "list with a refused socket" env LUND_RUN_DIR="$RUN" "$LUNCTL" list --json
        check "refused: sysfs" [ "$(json_source "$TMP/out")" = sysfs ]
        check "refused: nothing on stderr" [ ! -s "$TMP/err" ]
        # a daemon whose answer is unusable: one warning, then the sysfs listing
        rm -f "$RUN/control"
        python3 - "$RUN/control" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
s.settimeout(30)
c, _ = s.accept()
c.makefile().readline()
c.sendall(b'{"ok": true, "hosts": [{"host": 0, "targets": [{"lus": [{"hctl": 7}]}]}]}\n')
c.close()
PY
        fake=$!
        for _ in $(seq 100); do [ -S "$RUN/control" ] && break; sleep 0.1; done
        expect_rc 0 "list with an unusable answer" env LUND_RUN_DIR="$RUN" "$LUNCTL" list --json
        check "unusable answer: sysfs" [ "$(json_source "$TMP/out")" = sysfs ]
        expect_err "unusable" "unusable answer: one warning"
        wait "$fake"
fi
echo "cli: $checks checks, $devices sysfs trees, $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
