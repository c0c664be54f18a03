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
check() { # DESCRIPTION CONDITION...
        local what=$1
        shift
        checks=$((checks + 1))
        "$@" || { echo "FAIL: $what"; fail=1; }
}

not() { ! "$@"; }

expect_rc 0 "--help" "$LUNCTL" --help
expect_rc 0 "--version" "$LUNCTL" --version
grep -q '^lunctl [0-9]' "$TMP/out" || { echo "FAIL: --version output"; fail=1; }
expect_rc 1 "no verb" "$LUNCTL"
expect_rc 1 "unknown verb" "$LUNCTL" frobnicate
expect_rc 1 "unknown option" "$LUNCTL" --frobnicate
# The global options anywhere on the command line, before or after the verb.
expect_rc 0 "list --sysfs-only --root after the verb" "$LUNCTL" list --sysfs-only --root "$TMP"
expect_rc 2 "id --root after the verb" "$LUNCTL" id --root "$TMP" 9:9:9:9
expect_err "9:9:9:9" "id --root after the verb"
LUND_RUN_DIR=$TMP/no-lund expect_rc 2 "status --timeout after the verb" "$LUNCTL" status --timeout 2
expect_err "control socket" "status --timeout after the verb"
expect_rc 1 "status --timeout nonsense after the verb" "$LUNCTL" status --timeout x
expect_rc 0 "list --version" "$LUNCTL" list --version
grep -q '^lunctl [0-9]' "$TMP/out" || { echo "FAIL: list --version output"; fail=1; }
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
# Without --page a response is decoded only when it validates as one kind, else exit 3 with a
# hint. Descriptor-format sense (ERASE OPERATION IN PROGRESS; its header also reads as a page
# 0x00 header of the right length) and a bare descriptor UNIT ATTENTION are sense data.
printf '72 00 00 18 00 00 00 14 02 06 00 00 80 40 00 00 00 0a 80 00 00 00 00 00 00 00 12 34\n' > "$TMP/dsense.hex"
expect_rc 0 "decode descriptor sense" "$LUNCTL" decode --inhex "$TMP/dsense.hex"
grep -q '^Sense data, descriptor format' "$TMP/out" || { echo "FAIL: descriptor sense: $(cat "$TMP/out")"; fail=1; }
grep -q 'Erase operation in progress' "$TMP/out" || { echo "FAIL: descriptor sense ASC text: $(cat "$TMP/out")"; fail=1; }
printf '72 06 29 00 00 00 00 00\n' > "$TMP/dsense8.hex"
expect_rc 0 "decode 8-byte descriptor sense" "$LUNCTL" decode --inhex "$TMP/dsense8.hex"
grep -q 'SDEV_UA=POWER_ON_RESET_OCCURRED' "$TMP/out" || { echo "FAIL: descriptor UA: $(cat "$TMP/out")"; fail=1; }
# What the standards allow is recognised: descriptor sense with SDAT_OVFL (byte 4, bit 7: the
# sense data did not fit) and a Block Limits page longer than SBC-4's 3Ch (a later standard's
# fields, passed over); a reserved bit set in byte 4, or a page 0xb0 of a length no standard
# gives, still cannot be told.
printf '72 06 29 00 80 00 00 00\n' > "$TMP/dsense-ovfl.hex"
expect_rc 0 "decode descriptor sense with SDAT_OVFL" "$LUNCTL" decode --inhex "$TMP/dsense-ovfl.hex"
grep -q 'SDEV_UA=POWER_ON_RESET_OCCURRED' "$TMP/out" || { echo "FAIL: descriptor sense with SDAT_OVFL: $(cat "$TMP/out")"; fail=1; }
printf '72 06 29 00 40 00 00 00\n' > "$TMP/dsense-rsvd.hex"
expect_rc 3 "decode descriptor sense with a reserved bit" "$LUNCTL" decode --inhex "$TMP/dsense-rsvd.hex"
expect_err "cannot tell.*--page" "decode descriptor sense with a reserved bit"
pgb0() { # PAGE_LENGTH: a Block Limits page of that length, MAXIMUM TRANSFER LENGTH 0x800
        python3 -c 'import sys; n = int(sys.argv[1], 0); b = bytearray(4 + n); b[1] = 0xb0; b[2:4] = n.to_bytes(2, "big"); b[8:12] = (0x800).to_bytes(4, "big"); print(b.hex(" "))' "$1"
}
pgb0 0x50 > "$TMP/pgb0-long.hex"
expect_rc 0 "decode a Block Limits page longer than SBC-4's" "$LUNCTL" decode --json --inhex "$TMP/pgb0-long.hex"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"]=="0xb0" and d["max_transfer_length"]==0x800, d' "$TMP/out" ||
        { echo "FAIL: decode of a long page 0xb0: $(cat "$TMP/out")"; fail=1; }
pgb0 0x20 > "$TMP/pgb0-odd.hex"
expect_rc 3 "decode a Block Limits page of no standard's length" "$LUNCTL" decode --inhex "$TMP/pgb0-odd.hex"
expect_err "cannot tell.*--page" "decode a page 0xb0 of no standard's length"
# ASC/ASCQ names from libsgutils2's full table: 03h/02h was "unknown" with a hand list.
printf '70 00 03 00 00 00 00 0a 00 00 00 00 03 02 00 00 00 00\n' > "$TMP/sense0302.hex"
expect_rc 0 "decode sense 03h/02h" "$LUNCTL" decode --inhex "$TMP/sense0302.hex"
grep -qi 'Excessive write errors' "$TMP/out" || { echo "FAIL: ASC 03h/02h: $(cat "$TMP/out")"; fail=1; }
# A page 0xb1 whose header INQUIRY's additional-length test once accepted; a page 0x00 out of
# order; an INQUIRY with a line feed in its vendor: none is guessed.
printf '00 b1 00 40 3a 98 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n' > "$TMP/pgb1.hex"
printf '00 00 00 03 83 80 00\n' > "$TMP/pg00bad.hex"
printf '00 00 05 02 1f 00 00 02 41 0a 43 44 45 46 47 48 50 52 4f 44 20 20 20 20 20 20 20 20 20 20 20 20 31 2e 30 20\n' > "$TMP/inqlf.hex"
for f in pgb1 pg00bad inqlf; do
        expect_rc 3 "decode of $f without --page" "$LUNCTL" decode --inhex "$TMP/$f.hex"
        expect_err "cannot tell.*--page" "decode of $f without --page"
done
expect_rc 0 "decode --page inquiry of inqlf" "$LUNCTL" decode --page inquiry --inhex "$TMP/inqlf.hex"
grep -q 'Vendor:   A\\x0aCDEFGH' "$TMP/out" || { echo "FAIL: inqlf escaped: $(cat "$TMP/out")"; fail=1; }
# --json for every kind: sense, REPORT LUNS and page 0xb0 decoded; several files, an array.
expect_rc 0 "decode --json sense" "$LUNCTL" decode --json --inhex "$TMP/dsense.hex"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"]=="sense" and d["format"]=="descriptor" and d["asc"]==0 and d["ascq"]==0x18 and d["information"]=="0x1234", d' "$TMP/out" || { echo "FAIL: decode --json sense"; fail=1; }
expect_rc 0 "decode --json luns and sense" "$LUNCTL" decode --json --inhex "$TMP/luns.hex" --inhex "$TMP/sense.hex"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [x["kind"] for x in d]==["luns","sense"] and [l["linux"] for l in d[0]["luns"]]==[1,16389,49409] and d[1]["ua_event"]=="REPORTED_LUNS_DATA_HAS_CHANGED", d' "$TMP/out" || { echo "FAIL: decode --json luns+sense: $(cat "$TMP/out")"; fail=1; }
for f in "$FIX"/captured/*/pgb0.hex; do
        expect_rc 0 "decode --json $f" "$LUNCTL" decode --json --inhex "$f"
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"]=="0xb0" and isinstance(d["max_write_same_length"], int), d' "$TMP/out" || { echo "FAIL: decode --json $f"; fail=1; }
        break
done
# The captured responses of five kinds of device (disk and CD-ROM behind AHCI, virtio-scsi,
# LIO over iSCSI, scsi_debug) decode as what their file names say, pages 0xb1/0xb2 (not
# decoded) as "cannot tell".
for f in "$FIX"/captured/{ahci-disk,ahci-cd,virtio-scsi-full,lio-iscsi-fileio,scsi_debug-a0-0-0-0}/*.hex; do
        base=${f##*/}
        case $base in
        inquiry.hex|sysfs-inquiry.hex) want='Standard INQUIRY data' ;;
        pg00.hex|sysfs-vpd_pg0.hex) want='Supported VPD pages (0x00)' ;;
        pg80.hex|sysfs-vpd_pg80.hex) want='Unit serial number (0x80)' ;;
        pg83.hex|sysfs-vpd_pg83.hex) want='Device identification (0x83)' ;;
        pg89.hex|sysfs-vpd_pg89.hex) want='ATA information (0x89)' ;;
        pgb0.hex|sysfs-vpd_pgb0.hex) want='Block limits (0xb0)' ;;
        luns.hex) want='REPORT LUNS:' ;;
        *) want= ;;
        esac
        checks=$((checks + 1))
        got=$("$LUNCTL" decode --inhex "$f" 2>/dev/null)
        rc=$?
        if [ -z "$want" ]; then
                [ $rc = 3 ] || { echo "FAIL: $f: decoded without --page"; fail=1; }
        elif [ $rc != 0 ] || [ "${got#"$want"}" = "$got" ]; then
                echo "FAIL: $f: exit $rc, detected as '${got%%$'\n'*}', expected '$want'"
                fail=1
        fi
done

# lunctl check-config: what lund ships is clean; a broken lund.conf and hwdb source are
# reported line by line (exit 3); a named file that cannot be read is exit 2.
SRC=$FIX/../..
expect_rc 0 "check-config of the shipped lund.conf and hwdb" "$LUNCTL" check-config \
        --hwdb "$SRC/hwdb/60-lund.hwdb" "$SRC/conf/lund.conf"
printf '[defaults]\ntimeout = 30\nmax_retries = 9\n[device x]\nvendor = A\nbogus = 1\n' > "$TMP/bad.conf"
printf 'lund:scsi:t0:*\n LUND_TIMEOUT=0\n' > "$TMP/bad.hwdb"
expect_rc 3 "check-config of a broken lund.conf and hwdb" "$LUNCTL" check-config --hwdb "$TMP/bad.hwdb" "$TMP/bad.conf"
checks=$((checks + 1))
if [ "$(grep -c . "$TMP/out")" != 3 ] || ! grep -q "^$TMP/bad.conf:3: invalid max_retries" "$TMP/out" ||
   ! grep -q "^$TMP/bad.conf:6: unknown key \"bogus\"" "$TMP/out" ||
   ! grep -q "^$TMP/bad.hwdb:2: invalid LUND_TIMEOUT" "$TMP/out"; then
        echo "FAIL: check-config lines: $(cat "$TMP/out")"
        fail=1
fi
expect_rc 3 "check-config --json" "$LUNCTL" check-config --json --hwdb "$TMP/bad.hwdb" "$TMP/bad.conf"
checks=$((checks + 1))
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] is False and len(d["problems"]) == 3 and d["problems"][0]["line"] == 3' "$TMP/out" ||
        { echo "FAIL: check-config --json: $(cat "$TMP/out")"; fail=1; }
# the daemon's reading of lund.conf (iniparser): an inline comment and a continued line are
# fine, a leading zero is not
printf '[defaults]\ntimeout = 45 ; seconds\neh_timeout = 2\\\n0\nqueue_depth = 047\n' > "$TMP/dialect.conf"
expect_rc 3 "check-config reads lund.conf as lund does" "$LUNCTL" check-config --hwdb "$SRC/hwdb/60-lund.hwdb" "$TMP/dialect.conf"
checks=$((checks + 1))
if [ "$(grep -c "^$TMP/dialect.conf" "$TMP/out")" != 1 ] ||
   ! grep -q "^$TMP/dialect.conf:5: invalid queue_depth \"047\"" "$TMP/out"; then
        echo "FAIL: check-config of lund's dialect: $(cat "$TMP/out")"
        fail=1
fi
expect_rc 2 "check-config of a missing file" "$LUNCTL" check-config "$TMP/none.conf"
expect_rc 1 "check-config with two files" "$LUNCTL" check-config a b
if [ -n "$LUND" ]; then
        expect_rc 1 "lund --check-config of a broken lund.conf" "$LUND" --check-config --config "$TMP/bad.conf"
        checks=$((checks + 1))
        grep -q "^$TMP/bad.conf:3: invalid max_retries" "$TMP/err" && grep -q "^$TMP/bad.conf:6: unknown key" "$TMP/err" ||
                { echo "FAIL: lund --check-config: $(cat "$TMP/err")"; fail=1; }
        expect_rc 0 "lund --check-config of the shipped lund.conf" "$LUND" --check-config --config "$SRC/conf/lund.conf"
fi

# lunctl rescan: its options, and a root without SCSI hosts (nothing to scan is no error).
expect_rc 0 "rescan --help" "$LUNCTL" rescan --help
for o in --update --hosts --channels --ids --luns --hwdb --config --no-quirks --max-lun; do
        checks=$((checks + 1))
        grep -q -- "$o" "$TMP/out" || { echo "FAIL: rescan --help does not mention $o"; fail=1; }
done
expect_rc 1 "rescan --max-lun 0" "$LUNCTL" rescan --max-lun 0
expect_err "Invalid number" "rescan --max-lun 0"
expect_rc 1 "rescan --hwdb without a file" "$LUNCTL" rescan --hwdb
mkdir -p "$TMP/nohosts/sys/class/scsi_host"
printf '[device x]\nvendor = A\nscan_sequential = yes\n' > "$TMP/quirks.conf"
expect_rc 0 "rescan --update of a root without hosts" "$LUNCTL" --root "$TMP/nohosts" rescan --update \
        --hwdb "$TMP/none.bin" --config "$TMP/quirks.conf"
expect_rc 0 "rescan --no-quirks of a root without hosts" "$LUNCTL" --root "$TMP/nohosts" rescan \
        --no-quirks --json

# A scan of this process prints its table straight from the engine's result: no JSON tree, so
# no libjson-c loaded (LD_DEBUG=libs names every library the loader opens); --json loads it.
mkdir -p "$TMP/onehost/sys/class/scsi_host/host0"
echo fake > "$TMP/onehost/sys/class/scsi_host/host0/proc_name"
: > "$TMP/onehost/sys/class/scsi_host/host0/scan"
expect_rc 0 "rescan of a root with one host" env LD_DEBUG=libs "$LUNCTL" --root "$TMP/onehost" \
        rescan --no-quirks
check "rescan's table: $(cat "$TMP/out")" grep -q '^host0    fake                0 ' "$TMP/out"
# (the fake host's "scan" keeps the last write: after the LUN 0 probe left it without a LUN 0,
# the kernel's scan of every target)
check "rescan wrote the target probes" grep -qx -- '- - -' "$TMP/onehost/sys/class/scsi_host/host0/scan"
check "rescan's table loaded libjson-c: $(grep -m1 'json-c' "$TMP/err")" \
        sh -c '! grep -q "calling init: .*libjson-c" "$1"' sh "$TMP/err"
expect_rc 0 "rescan --json of a root with one host" env LD_DEBUG=libs "$LUNCTL" --root "$TMP/onehost" \
        rescan --no-quirks --json
check "rescan --json: $(head -c 200 "$TMP/out")" grep -q '"scanned_by": "lunctl"' "$TMP/out"
check "rescan --json without libjson-c?" grep -q "calling init: .*libjson-c" "$TMP/err"
# rescan-scsi-bus.sh's options: those lunctl shares mean the same here; every other one is
# refused (exit 1) with what to use instead, so no letter silently means something else.
# Destructive actions have long options only.
for o in -r -f -i -I -c -l -L -w -m -d -V --flush --issue-lip --issue-lip-wait=5 --wide \
         --multipath --version --alltargets --forceremove --forcerescan --nooptscan --attachpq3 \
         --largelun --reportlun2 --sparselun --sync --nosync --color --ignore-rev; do
        expect_rc 1 "rescan $o (rescan-scsi-bus.sh's)" "$LUNCTL" --root "$TMP/nohosts" rescan "$o"
        checks=$((checks + 1))
        grep -qF "'${o%%=*}' is rescan-scsi-bus.sh's" "$TMP/err" || { echo "FAIL: rescan $o: $(cat "$TMP/err")"; fail=1; }
done
expect_rc 1 "rescan -r" "$LUNCTL" --root "$TMP/nohosts" rescan -r
expect_err "use --remove" "rescan -r"
expect_rc 1 "rescan --force is long only" "$LUNCTL" --root "$TMP/nohosts" rescan -f
expect_err "long only" "rescan -f"
expect_rc 1 "rescan -L 7" "$LUNCTL" --root "$TMP/nohosts" rescan -L 7
expect_err "use --luns 0-NUM" "rescan -L 7"
expect_rc 0 "rescan -a -s -u (shared with rescan-scsi-bus.sh)" "$LUNCTL" --root "$TMP/nohosts" \
        rescan -a -s -u --no-quirks
expect_rc 0 "rescan --add --remove --resize --update" "$LUNCTL" --root "$TMP/nohosts" \
        rescan --add --remove --resize --update --force --no-quirks
# the lists: rescan-scsi-bus.sh's syntax, bad input refused with the element and exit 1
expect_rc 0 "rescan --hosts/--channels/--ids/--luns, no hosts" "$LUNCTL" --root "$TMP/nohosts" \
        rescan --channels 0 --ids 0-7 --luns 0-3,9 --no-quirks
for bad in "--hosts=3-1:runs backwards" "--hosts=x:'x' is not a host number" "--luns=1,,2:empty element" \
           "--ids=0-4294967296:above the largest" "--channels=-1:'-1'" "--luns=0-99999:more than 2048"; do
        expect_rc 1 "rescan ${bad%%:*}" "$LUNCTL" --root "$TMP/nohosts" rescan --hosts 0 "${bad%%:*}"
        expect_err "${bad#*:}" "rescan ${bad%%:*}"
done
# --ids is rescan-scsi-bus.sh's target list: without one it is an error, never a re-identify
expect_rc 1 "rescan --ids without a list" "$LUNCTL" --root "$TMP/nohosts" rescan --ids
checks=$((checks + 1))
grep -q "requires an argument" "$TMP/err" || { echo "FAIL: rescan --ids: $(cat "$TMP/err")"; fail=1; }
expect_rc 1 "rescan --hosts with an H:C:T argument" "$LUNCTL" --root "$TMP/nohosts" rescan --hosts 1 2:0:1
expect_err "can only be host numbers" "rescan --hosts 1 2:0:1"

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
        cp "$TMP/out" "$TMP/export"
        grep '^ID_' "$TMP/out" > "$TMP/id"
        checks=$((checks + 1))
        if ! diff -u "$d/scsi_id.export" "$TMP/id"; then
                echo "FAIL: ${d##*/}: ID_* from the kernel's cached pages differ from scsi_id"
                fail=1
        fi
        expect_rc 0 "${d##*/}: id --json" "$LUNCTL" --root "$root" --sysfs-only id --json "$hctl"
        checks=$((checks + 1))
        grep -q '"scsi_commands": 0' "$TMP/out" || { echo "FAIL: ${d##*/}: commands sent"; fail=1; }
        # --export reads only what its lines need (no names, no node listing): the same
        # properties as --json, which reads everything
        checks=$((checks + 1))
        python3 -c 'import json, sys
props = json.load(open(sys.argv[1]))["properties"]
lines = [l.split("=", 1) for l in open(sys.argv[2]).read().splitlines()]
assert [k for k, _ in lines] == list(props) and all(props[k] == v for k, v in lines), (props, lines)' \
                "$TMP/out" "$TMP/export" || { echo "FAIL: ${d##*/}: --export and --json properties differ"; fail=1; }
        # names --why (checked after the loop): every name explained by a rule, the designator
        # ID_SERIAL came from marked used exactly when scsi_id took it from page 0x83
        expect_rc 0 "${d##*/}: names --why --json" "$LUNCTL" --root "$root" --sysfs-only names --why --json "$hctl"
        cp "$TMP/out" "$TMP/why-${d##*/}.json"
        echo "$TMP/why-${d##*/}.json $d/scsi_id.export" >> "$TMP/why.list"
        devices=$((devices + 1))
done
[ "$devices" -ge 20 ] || { echo "FAIL: only $devices captured sysfs trees"; fail=1; }
checks=$((checks + 1))
python3 - "$TMP/why.list" <<'PY' || fail=1
import json, sys
bad = 0
for line in open(sys.argv[1]):
    path, export = line.split()
    w = json.load(open(path))
    exp = dict(l.rstrip('\n').split('=', 1) for l in open(export) if '=' in l)
    unexplained = [n['name'] for n in w['names'] if n['rule'] == 'unknown' or not n['source']]
    used = [d for d in w['designators'] if d['verdict'] == 'used']
    want_used = 1 if w['serial_source'] == 'pg83' else 0
    if unexplained or len(used) != want_used or \
            ('ID_SERIAL' in exp) == (w['serial_source'] == 'none'):
        print(f"FAIL: {path}: names --why: unexplained {unexplained}, {len(used)} designators "
              f"used (want {want_used}), serial source {w['serial_source']}")
        bad += 1
sys.exit(1 if bad else 0)
PY

# lunctl names --diff / --accept on the captured LUs: nothing accepted yet, everything accepted,
# then an upgrade: the records hold a name an older version gave one LU and this one does not,
# so --diff reports it (exit 1, kept as an alias) until that LU's names are accepted.
up=$TMP/upgrade
cp -a "$TMP/all" "$up"
names_st() { "$LUNCTL" --root "$up" --sysfs-only names "$@"; }
# a fresh install has nothing to compare with: nothing pending, and --accept --all comes first
expect_rc 0 "names --diff, nothing accepted yet" names_st --diff
check "names --diff, nothing accepted yet: says to accept: $(cat "$TMP/out")" grep -q '^no names recorded in /var/lib/lund yet: `lunctl names --accept --all`' "$TMP/out"
expect_rc 0 "names --diff --json, nothing accepted yet" names_st --diff --json
check "names --diff --json, nothing accepted yet: nothing pending" grep -q '"pending": false' "$TMP/out"
mkdir -p "$up/var/lib/lund"; : > "$up/var/lib/lund/names"
expect_rc 1 "names --diff against an empty record file" names_st --diff
added=$(grep -c '^+ /dev/scsi/by-id/' "$TMP/out")
check "names --diff: every LU's names added ($added)" [ "$added" -ge "$devices" ]
rm "$up/var/lib/lund/names"
expect_rc 0 "names --accept --all" names_st --accept --all
expect_rc 0 "names --diff after --accept --all" names_st --diff
check "names --diff: nothing pending" grep -qx 'no changes pending' "$TMP/out"
one=$(ls "$up/sys/bus/scsi/devices" | head -n 1)
expect_rc 0 "names --accept of one LU into its own state directory" \
        names_st --state-dir /var/lib/lund-one --accept "$one"
key=$(sed -n '2s/ .*//p' "$up/var/lib/lund-one/names")
check "names --accept: the LU's records" [ -n "$key" ]
# By hand, as an admin edits it: the checksum line goes (a file with it must match it).
sed -i '/^#sum /d' "$up/var/lib/lund/names"
echo "$key name scsi/by-id/scsi-1LUND_OLD_FORM" >> "$up/var/lib/lund/names"
expect_rc 1 "names --diff after an upgrade renamed an LU" names_st --diff
check "names --diff: the old name, kept" \
        grep -qxF -- "- /dev/scsi/by-id/scsi-1LUND_OLD_FORM ($key, kept as an alias until accepted)" "$TMP/out"
check "names --diff: only that" [ "$(wc -l < "$TMP/out")" = 1 ]
expect_rc 1 "names --diff --json" names_st --diff --json
check "names --diff --json: removed, pending" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = j["changes"]
assert j["pending"] is True and len(c) == 1, j
assert c[0]["change"] == "removed" and c[0]["old_identity"] == sys.argv[2], c
assert c[0]["path"] == "scsi/by-id/scsi-1LUND_OLD_FORM" and c[0]["new_identity"] is None, c
' "$TMP/out" "$key"
# under a lund.conf whose [react] keeps that LU's identity (identity = report) lund leaves its
# names as they are: --diff --config previews that, nothing pending (every path of it)
printf '[react keep]\nwwid = %s\nidentity = report\n' "$key" > "$TMP/keep.conf"
expect_rc 0 "names --diff --config, identity = report for the renamed LU" \
        names_st --diff --config "$TMP/keep.conf"
check "names --diff --config: says the LU's names stay: $(cat "$TMP/err")" \
        grep -q "^lunctl: $one: its names stay as they are (identity = report by .react keep.)" "$TMP/err"
expect_rc 0 "names --accept of the renamed LU" names_st --accept "$one"
expect_rc 0 "names --diff after --accept" names_st --diff
check "names --accept: the old name retired" \
        sh -c '! grep -q LUND_OLD_FORM "$1"' sh "$up/var/lib/lund/names"
# --diff under another lund.conf or hwdb: each checked first, any error exit 2 (1 is "pending").
printf '[defaults]\ntimeout = 45\n' > "$TMP/preview.conf"
expect_rc 0 "names --diff --config FILE" names_st --diff --config "$TMP/preview.conf"
expect_rc 2 "names --diff --config, a missing file" names_st --diff --config "$TMP/nonexistent"
expect_rc 2 "names --diff --hwdb, a missing file" names_st --diff --hwdb "$TMP/nonexistent"
printf 'KSLPHHRH\0\0\0\0\0\0\0\0' > "$TMP/corrupt.hwdb.bin"
expect_rc 2 "names --diff --hwdb, a corrupt compiled hwdb" \
        names_st --diff --hwdb "$TMP/corrupt.hwdb.bin"
printf 'lund:scsi:t0:vLUNDTEST:*\n LUND_TIMEOUT=45\n' > "$TMP/preview.hwdb"
if command -v systemd-hwdb > /dev/null; then
        expect_rc 0 "names --diff --hwdb SOURCE (compiled with systemd-hwdb)" \
                names_st --diff --hwdb "$TMP/preview.hwdb"
        printf 'not an hwdb\n' > "$TMP/bad.hwdb"
        expect_rc 2 "names --diff --hwdb, source systemd-hwdb refuses" \
                names_st --diff --hwdb "$TMP/bad.hwdb"
else
        expect_rc 2 "names --diff --hwdb SOURCE without systemd-hwdb" \
                names_st --diff --hwdb "$TMP/preview.hwdb"
        check "names --diff --hwdb: says systemd-hwdb is needed" grep -q "systemd-hwdb" "$TMP/err"
fi
check "names --diff --hwdb: no temporary root left" \
        sh -c '! ls -d /tmp/lunctl-hwdb.* > /dev/null 2>&1'
expect_rc 1 "names --config without --diff" names_st --config "$TMP/preview.conf" "$one"
# a damaged record file: reported in one warning, every name pending, repaired by --accept
printf 'lund-names 1\nnot a record\n%s name scsi/by-id/cut' "$key" > "$up/var/lib/lund/names"
expect_rc 1 "names --diff with a damaged record file" names_st --diff
expect_err "2 damaged record" "damaged records: one warning"
printf '\0\0garbage' > "$up/var/lib/lund/names"
expect_rc 1 "names --diff with an unreadable record file" names_st --diff
expect_err "damaged (not a name record file)" "unusable record file: one warning"
expect_rc 0 "names --accept --all repairs it" names_st --accept --all
check "names --accept --all: the damaged file set aside" [ -f "$up/var/lib/lund/names.damaged" ]
check "names --accept --all: says so" grep -q "set aside as names.damaged" "$TMP/err"
expect_rc 0 "names --diff after the repair" names_st --diff
check "names --diff after the repair: no warning" [ ! -s "$TMP/err" ]
expect_rc 1 "names --all without --accept" names_st --all
expect_rc 1 "names --accept without a device" names_st --accept
expect_rc 1 "names --accept with a device and --all" names_st --accept --all "$one"
expect_rc 1 "names --diff with a device" names_st --diff "$one"
expect_rc 1 "names --diff --why" names_st --diff --why "$one"
expect_rc 2 "names --accept of a missing LU" names_st --accept 9:9:9:9

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
expect_rc 1 "names --paths with --collisions" "$LUNCTL" names --paths --collisions
expect_rc 1 "names --paths with a device" "$LUNCTL" names --paths 0:0:0:0

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
# the lists become one scope per combination, host arguments joining --hosts
fake_lund ok
expect_rc 0 "rescan --hosts --luns through lund" env LUND_RUN_DIR="$TMP/rrun" "$LUNCTL" rescan \
        --json --hosts 5,3 --luns 0-1 7
wait
checks=$((checks + 1))
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["selectors"]==["3:-:-:0","3:-:-:1","5:-:-:0","5:-:-:1","7:-:-:0","7:-:-:1"] and r["add"] and not r["ids"], r' "$TMP/request" ||
        { echo "FAIL: rescan --hosts --luns request: $(cat "$TMP/request")"; fail=1; }
fake_lund ok
expect_rc 0 "rescan --channels --ids -u through lund" env LUND_RUN_DIR="$TMP/rrun" "$LUNCTL" rescan \
        --json -u --hosts 2 --channels 0 --ids 1-2
wait
checks=$((checks + 1))
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["selectors"]==["2:0:1:-","2:0:2:-"] and r["ids"] and not r["add"], r' "$TMP/request" ||
        { echo "FAIL: rescan --channels --ids request: $(cat "$TMP/request")"; fail=1; }
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

# A stand-in for lund's control socket: every connection gets the lines of file $1, then is
# closed ($1 "hang": it is accepted and never answered).
stand_in_lund() {
        mkdir -p "$TMP/srun"
        rm -f "$TMP/srun/control"
        python3 - "$TMP/srun/control" "$1" <<'PY' &
import socket, sys
path, reply = sys.argv[1:3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(8)
open(path + ".ready", "w").close()
held = []
while True:
    c, _ = s.accept()
    if reply == "hang":
        held.append(c)
        continue
    # a client that gives up first (its --timeout) costs its connection, not the stand-in
    try:
        req = b""
        while not req.endswith(b"\n"):
            k = c.recv(4096)
            if not k:
                break
            req += k
        c.sendall(open(reply, "rb").read())
    except OSError:
        pass
    c.close()
PY
        STAND_IN_PID=$!
        # up to 60 s: a loaded machine may take seconds to start python
        for _ in $(seq 600); do [ -e "$TMP/srun/control.ready" ] && break; sleep 0.1; done
        rm -f "$TMP/srun/control.ready"
}
stand_in_stop() { kill "$STAND_IN_PID"; wait "$STAND_IN_PID" 2>/dev/null; }
# lunctl settle: --timeout bounds everything, a lund that never answers included; where udevd
# makes lund's links (the queue answer's udev_links), settle waits for udev's queue as well
# (/run/udev/queue below --root).
stand_in_lund hang
start=$(date +%s)
expect_rc 2 "settle --timeout 2 against a lund that does not answer" env LUND_RUN_DIR="$TMP/srun" "$LUNCTL" settle --timeout 2
check "settle --timeout 2 returned in $(($(date +%s) - start)) s" [ $(($(date +%s) - start)) -le 6 ]
expect_err "did not answer" "settle against a lund that does not answer"
stand_in_stop
echo '{"ok": true, "settled": true, "udev_links": true}' > "$TMP/queue.json"
stand_in_lund "$TMP/queue.json"
mkdir -p "$TMP/sroot/run/udev"; touch "$TMP/sroot/run/udev/queue"
expect_rc 2 "settle while udev's queue is not empty" env LUND_RUN_DIR="$TMP/srun" "$LUNCTL" settle --root "$TMP/sroot" --timeout 1
expect_err "udev's queue not empty" "settle while udev's queue is not empty"
rm "$TMP/sroot/run/udev/queue"
expect_rc 0 "settle once udev's queue is empty" env LUND_RUN_DIR="$TMP/srun" "$LUNCTL" settle --root "$TMP/sroot" --timeout 1 --json
check "settle --json: udev_queue_empty" grep -q '"udev_queue_empty": true' "$TMP/out"
# On the running system (no --root) settle also asks udevd, with what is left of --timeout:
# /run/udev/queue alone says "empty" before udevd has read the events. As root it pings udevd
# (`udevadm control --ping`: udevadm settle takes a udevd it cannot reach for an idle one), then
# runs `udevadm settle`. A stand-in udevadm that never answers (as udevadm waits 5 s for a held
# udevd whatever its --timeout) is cut off at the deadline; a ping that fails is no settled udev;
# one that answers at once settles.
if [ ! -e /run/udev/queue ]; then
        for kind in hang ok noping; do
                mkdir -p "$TMP/udevadm-$kind"
                {
                        echo '#!/bin/sh'
                        echo "echo \"\$*\" >> '$TMP/udevadm.args'"
                        case $kind in
                        hang) echo 'exec sleep 60' ;;
                        noping) echo 'case $1 in control) exit 1 ;; esac' ;;
                        esac
                } > "$TMP/udevadm-$kind/udevadm"
                chmod +x "$TMP/udevadm-$kind/udevadm"
        done
        if [ "$(id -u)" = 0 ]; then first='control --timeout=[12] --ping'; else first='settle --timeout=[12]'; fi
        rm -f "$TMP/udevadm.args"
        start=$(date +%s)
        expect_rc 2 "settle --timeout 2 while udevadm does not return" env PATH="$TMP/udevadm-hang:$PATH" LUND_RUN_DIR="$TMP/srun" "$LUNCTL" settle --timeout 2
        check "settle --timeout 2 with udevadm hanging returned in $(($(date +%s) - start)) s" [ $(($(date +%s) - start)) -le 4 ]
        expect_err "udev's queue not empty" "settle while udevadm does not return"
        check "udevadm given the time left: $(cat "$TMP/udevadm.args")" grep -qx "$first" "$TMP/udevadm.args"
        rm -f "$TMP/udevadm.args"
        expect_rc 0 "settle once udevadm returns" env PATH="$TMP/udevadm-ok:$PATH" LUND_RUN_DIR="$TMP/srun" "$LUNCTL" settle --timeout 5 --json
        check "settle --json after udevadm settle: udev_queue_empty" grep -q '"udev_queue_empty": true' "$TMP/out"
        check "udevadm settle run last: $(cat "$TMP/udevadm.args")" [ "$(tail -n1 "$TMP/udevadm.args" | cut -d' ' -f1)" = settle ]
        if [ "$(id -u)" = 0 ]; then
                check "udevd pinged first: $(cat "$TMP/udevadm.args")" grep -qx 'control --timeout=[1-5] --ping' "$TMP/udevadm.args"
                # 5 s: lund's answer (the stand-in's) comes first, which on a loaded machine
                # took more than 1 s; the failed pings then fill what is left
                expect_rc 2 "settle while udevd cannot be pinged" env PATH="$TMP/udevadm-noping:$PATH" LUND_RUN_DIR="$TMP/srun" "$LUNCTL" settle --timeout 5
                expect_err "udevd not answering" "settle while udevd cannot be pinged"
        fi
        rm -f "$TMP/udevadm.args"
        expect_rc 0 "settle --timeout 0 only looks" env PATH="$TMP/udevadm-hang:$PATH" LUND_RUN_DIR="$TMP/srun" "$LUNCTL" settle --timeout 0
        check "settle --timeout 0 does not run udevadm" [ ! -e "$TMP/udevadm.args" ]
fi
stand_in_stop
# lunctl status: the names paths of one LU want are no collisions: two LUs over two paths each
# (each two names), and one name two clones want.
python3 - > "$TMP/status.json" <<'PY'
import json
c = [{"path": "/dev/scsi/by-id/" + n, "winner": w, "kind": "paths", "multipath": None, "owners": o}
     for n, w, o in (("scsi-3a", "2:0:0:0", ["2:0:0:0", "3:0:0:0"]), ("wwn-0xa", "2:0:0:0", ["3:0:0:0", "2:0:0:0"]),
                     ("scsi-3b", "2:0:0:1", ["2:0:0:1", "3:0:0:1"]), ("wwn-0xb", "2:0:0:1", ["2:0:0:1", "3:0:0:1"]))]
c.append({"path": "/dev/scsi/by-id/usb-X_Y_1", "winner": None, "kind": "clones", "owners": ["6:0:0:0", "7:0:0:0"]})
print(json.dumps({"ok": True, "version": "0", "collisions": c, "foreign": []}))
PY
stand_in_lund "$TMP/status.json"
expect_rc 0 "status with paths and clones" env LUND_RUN_DIR="$TMP/srun" "$LUNCTL" status
check "status: paths are no collisions: $(cat "$TMP/out")" grep -q '^Paths: *2 logical units over 4 paths' "$TMP/out"
check "status: one line per LU's paths" [ "$(grep -c '^  names at ' "$TMP/out")" = 2 ]
check "status: the clones' name is the one collision" grep -q '^Collisions: *1$' "$TMP/out"
check "status: the clones' name listed" grep -q '^  /dev/scsi/by-id/usb-X_Y_1 -> nobody (wanted by 6:0:0:0 7:0:0:0)$' "$TMP/out"
stand_in_stop
# 4096 LUs over two paths, four names each, in no order: each LU counted once, at once
python3 - > "$TMP/status.json" <<'PY'
import json, random
c = [{"path": "/dev/scsi/by-id/%s-%d" % (k, i), "winner": "2:0:%d:%d" % (i // 256, i % 256), "kind": "paths",
      "owners": ["3:0:%d:%d" % (i // 256, i % 256), "2:0:%d:%d" % (i // 256, i % 256)]}
     for i in range(4096) for k in ("scsi", "scsi-sg", "wwn", "wwn-sg")]
random.Random(37).shuffle(c)
print(json.dumps({"ok": True, "version": "0", "collisions": c, "foreign": []}))
PY
stand_in_lund "$TMP/status.json"
expect_rc 0 "status of 4096 LUs over 8192 paths" env LUND_RUN_DIR="$TMP/srun" timeout 60 "$LUNCTL" status
check "status: 4096 LUs over 8192 paths: $(grep -e '^Paths' -e '^Collisions' "$TMP/out")" grep -q '^Paths: *4096 logical units over 8192 paths' "$TMP/out"
check "status: a line per LU" [ "$(grep -c '^  names at ' "$TMP/out")" = 4096 ]
stand_in_stop
# lunctl monitor: an LU's target number is no link target ("-> 1")
printf '%s\n' '{"ok": true}' '{"event": "lu-added", "hctl": "2:0:1:0", "target": 1, "names": ["scsi-3a"], "time_usec": 0}' \
        '{"event": "link-created", "hctl": "2:0:1:0", "path": "/dev/scsi/by-id/scsi-3a", "target": "../../sda", "time_usec": 0}' > "$TMP/monitor.json"
stand_in_lund "$TMP/monitor.json"
expect_rc 0 "monitor" env LUND_RUN_DIR="$TMP/srun" "$LUNCTL" monitor
check "monitor: no '-> 1': $(cat "$TMP/out")" not grep -q -- '-> 1' "$TMP/out"
check "monitor: a link's target: $(cat "$TMP/out")" grep -q 'scsi-3a -> ../../sda' "$TMP/out"
stand_in_stop

# lunctl list: served by lund when it answers, computed from sysfs when it does not.
json_source() { sed -n 's/^  "source": "\(.*\)",$/\1/p' "$1"; }
# lunctl list as lsscsi: a tree laid out as sysfs is (device directories under sys/devices, the
# bus and class entries links to them) with a USB stick, a SATA disk (its captured VPD page
# 0x83), a SAS disk behind an end device, a parallel SCSI disk and a virtio one; the transports
# are lsscsi -t's for them, as the naming-peers VM scenario checks against lsscsi itself.
LT=$TMP/lt
lt_lu() { # HCTL DEVPATH PROC_NAME FIXTURE BLOCK SECTORS: one LU and its host
        local hctl=$1 dev=$LT/sys/devices/$2 proc=$3 fx=$FIX/captured/$4 blk=$5 h=${1%%:*}
        local hostdir=${dev%/target*}
        mkdir -p "$dev/block/$blk" "$dev/scsi_device/$hctl" "$hostdir/scsi_host/host$h" \
                "$LT/sys/bus/scsi/devices" "$LT/sys/class/scsi_device" "$LT/sys/class/scsi_host" \
                "$LT/sys/class/block"
        for f in "$fx"/sysfs-*.hex; do
                a=${f##*/sysfs-}; a=${a%.hex}
                grep -v '^#' "$f" | xxd -r -p > "$dev/$a"
        done
        echo 0 > "$dev/type"
        echo "$6" > "$dev/block/$blk/size"
        echo "$proc" > "$hostdir/scsi_host/host$h/proc_name"
        ln -s "../../../devices/$2" "$LT/sys/bus/scsi/devices/$hctl"
        ln -s "../../devices/$2/scsi_device/$hctl" "$LT/sys/class/scsi_device/$hctl"
        ln -s "../../${hostdir#"$LT"/sys/}/scsi_host/host$h" "$LT/sys/class/scsi_host/host$h"
        ln -s "../../devices/$2/block/$blk" "$LT/sys/class/block/$blk"
}
lt_lu 6:0:0:0 pci0000:00/0000:00:05.0/usb1/1-1/1-1:1.0/host6/target6:0:0/6:0:0:0 usb-storage \
        usb-storage-stick sdy 65536
lt_lu 7:0:0:0 pci0000:00/0000:00:1f.2/ata1/host7/target7:0:0/7:0:0:0 ahci ahci-disk sdt 131072
lt_lu 4:0:1:0 pci0000:00/0000:00:06.0/host4/port-4:1/end_device-4:1/target4:0:1/4:0:1:0 mptsas \
        mptsas1068-sas sdv 65536
mkdir -p "$LT/sys/class/sas_host/host4" "$LT/sys/class/sas_device/end_device-4:1"
echo 0x5000c50033330011 > "$LT/sys/class/sas_device/end_device-4:1/sas_address"
lt_lu 5:0:3:0 pci0000:00/0000:00:07.0/host5/target5:0:3/5:0:3:0 sym53c8xx lsi53c895a-mpath sdo 98304
mkdir -p "$LT/sys/class/spi_host/host5"
lt_lu 2:0:0:0 pci0000:00/0000:00:04.0/virtio1/host2/target2:0:0/2:0:0:0 virtio_scsi \
        virtio-scsi-full sdi 16777216
expect_rc 0 "list -t -s of a laid-out tree" "$LUNCTL" --root "$LT" --sysfs-only list -t -s \
        -o HCTL,PDT,TRANSPORT,BLOCK,SIZE --raw --noheadings
checks=$((checks + 1))
printf '%s\n' '2:0:0:0 disk  sdi 8.58GB' '4:0:1:0 disk sas:0x5000c50033330011 sdv 33.5MB' \
        '5:0:3:0 disk spi:3 sdo 50.3MB' '6:0:0:0 disk usb:1-1:1.0 sdy 33.5MB' \
        '7:0:0:0 disk sata:5000c50044440001 sdt 67.1MB' > "$TMP/lt.want"
diff -u "$TMP/lt.want" "$TMP/out" || { echo "FAIL: list -t -s transports and sizes"; fail=1; }
# on an 80-column terminal, as lsscsi: one line per LU (a heading and 5 LUs), none wider than
# the terminal, INQUIRY's vendor and model as the device gave them (udev's "QEMU_HARDDISK" stays
# in the JSON's properties), the ID whole (it was cut to 2 characters once), no by-id names
# unless -o +NAMES asks for them (then a line per name)
if command -v script > /dev/null; then
        COLUMNS=80 script -qec "$LUNCTL --root $LT --sysfs-only list" /dev/null | tr -d '\r' > "$TMP/tty" 2>&1
        check "list on an 80-column terminal: one line per LU: $(cat "$TMP/tty")" [ "$(wc -l < "$TMP/tty")" = 6 ]
        check "list on an 80-column terminal: no line wider: $(cat "$TMP/tty")" [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMP/tty")" -le 80 ]
        check "list on an 80-column terminal shows the ID" grep -q '^2:0:0:0 .* 35000c50015ea71a0$' "$TMP/tty"
        check "list shows INQUIRY's model as lsscsi: $(cat "$TMP/tty")" grep -q '^6:0:0:0 disk QEMU     QEMU HARDDISK    2.5+ sdy ' "$TMP/tty"
        check "list shows no by-id names by default" not grep -q 'wwn-0x' "$TMP/tty"
        COLUMNS=80 script -qec "$LUNCTL --root $LT --sysfs-only list -o +NAMES" /dev/null | tr -d '\r' > "$TMP/tty" 2>&1
        check "list -o +NAMES: a line per name" grep -q '^  *wwn-0x5000c50015ea71a0' "$TMP/tty"
fi
expect_rc 0 "list --json of a laid-out tree" "$LUNCTL" --root "$LT" --sysfs-only list --json 6:0:0:0
check "list --json keeps udev's ID_MODEL" grep -q '"ID_MODEL": "QEMU_HARDDISK"' "$TMP/out"
# lsscsi's letters: taken as lsscsi takes them, or refused with lunctl's equivalent
expect_rc 0 "list -b -g -k -N (lsscsi's)" "$LUNCTL" --root "$LT" --sysfs-only list -b -g -k -N -n -r 7:0:0:0
check "list -b: H:C:T:L and nodes: $(cat "$TMP/out")" [ "$(cat "$TMP/out")" = "7:0:0:0 sdt" ]
expect_rc 0 "list -b -t -s (lsscsi's)" "$LUNCTL" --root "$LT" --sysfs-only list -b -t -s -n -r 7:0:0:0
check "list -b -t -s: transport and size too: $(cat "$TMP/out")" [ "$(cat "$TMP/out")" = "7:0:0:0 sata:5000c50044440001 sdt 67.1MB" ]
expect_rc 0 "list -C (lsscsi's --controllers)" "$LUNCTL" --root "$LT" list -C -n -r
check "list -C lists the hosts" grep -q '^2 virtio_scsi$' "$TMP/out"
# (lsscsi's getopt takes --protmode, whatever its usage line says, and '_' for '-' and back)
for opt in -c -d -D -i -l -L -p -P -S -u -U -v -w -x -y/sys --sysfsroot=/sys --lunhex --prot-mode \
        --protmode --scsi-id --scsi_id --sz_lbs --long_unit; do
        expect_rc 1 "list $opt (lsscsi's, not lunctl's)" "$LUNCTL" --root "$LT" list "$opt"
        expect_err "is lsscsi's \".*\"; " "list $opt refused with a hint"
done
expect_rc 0 "list --no_nvme (lsscsi's spelling of --no-nvme)" "$LUNCTL" --root "$LT" --sysfs-only list --no_nvme
expect_rc 1 "list -ss (lsscsi's powers of 1024)" "$LUNCTL" --root "$LT" list -ss
expect_err "'-ss' is lsscsi's \"size in powers of 1024\"" "list -ss refused"
expect_rc 1 "list -P" "$LUNCTL" --root "$LT" list -P
expect_err "is --pairs" "list -P points at --pairs"
expect_rc 0 "list -H -t" "$LUNCTL" --root "$LT" list -H -t --pairs
checks=$((checks + 1))
grep -qx 'HOST="7" DRIVER="ahci" TRANSPORT="sata:"' "$TMP/out" &&
        grep -qx 'HOST="6" DRIVER="usb-storage" TRANSPORT="usb:1-1:1.0"' "$TMP/out" &&
        grep -qx 'HOST="5" DRIVER="sym53c8xx" TRANSPORT="spi:"' "$TMP/out" &&
        grep -qx 'HOST="2" DRIVER="virtio_scsi" TRANSPORT=""' "$TMP/out" ||
        { echo "FAIL: list -H -t: $(cat "$TMP/out")"; fail=1; }
for f in "7|7:0:0:0" "host4|4:0:1:0" "*:0:1|4:0:1:0" "[5:0:3:0]|5:0:3:0" "2 0 0 0|2:0:0:0" \
         "6:0:0:0x0|6:0:0:0" "9|"; do
        arg=${f%%|*} want=${f#*|}
        # shellcheck disable=SC2086 # "2 0 0 0" is four arguments
        expect_rc 0 "list filter '$arg'" "$LUNCTL" --root "$LT" --sysfs-only list -o HCTL -n -r -- $arg
        checks=$((checks + 1))
        [ "$(cat "$TMP/out")" = "$want" ] || { echo "FAIL: list '$arg': '$(cat "$TMP/out")', not '$want'"; fail=1; }
done
for bad in x 1:2:3:4:5 "[1:2" 0x1 -1; do
        expect_rc 1 "list filter '$bad'" "$LUNCTL" --root "$LT" list -- "$bad"
        expect_err "Invalid filter" "list filter '$bad'"
done
expect_rc 1 "list -o with an unknown column" "$LUNCTL" --root "$LT" list -o HCTL,BOGUS
expect_err "Unknown column 'BOGUS'" "list -o BOGUS"
expect_rc 1 "list --raw --json" "$LUNCTL" --root "$LT" list --raw --json
expect_rc 1 "list --hosts --tree" "$LUNCTL" --root "$LT" list --hosts --tree
expect_rc 0 "list --list-columns" "$LUNCTL" list --list-columns
check "--list-columns names TRANSPORT and SIZE" grep -q '^SIZE ' "$TMP/out"
check "--list-columns names PATHS" grep -q '^PATHS ' "$TMP/out"
expect_rc 0 "list -t -s --json" "$LUNCTL" --root "$LT" --sysfs-only list -t -s --json 7:0:0:0
check "--json -t -s carries transport and size" python3 -c 'import json,sys; u=json.load(open(sys.argv[1]))["logical_units"]; assert len(u)==1 and u[0]["transport"]=="sata:5000c50044440001" and u[0]["size"]=="67.1MB" and u[0]["size_bytes"]==67108864, u' "$TMP/out"
expect_rc 0 "list --json without -t -s" "$LUNCTL" --root "$LT" --sysfs-only list --json 7:0:0:0
check "--json alone keeps its members" not grep -q '"transport"\|"size"' "$TMP/out"
expect_rc 0 "list --tree -t" "$LUNCTL" --root "$LT" --sysfs-only list --tree -t -s -r 4
check "--tree: host, target, LU, nodes, names" python3 -c 'import sys; t=open(sys.argv[1]).read(); assert "host4 mptsas\n" in t and "sas:0x5000c50033330011" in t and "target4:0:1" in t and "4:0:1:0" in t and "/dev/sdv block" in t and "scsi-" in t and "host5" not in t, t' "$TMP/out"
expect_rc 0 "list --tree --json" "$LUNCTL" --root "$LT" --sysfs-only list --tree --json
check "--tree --json nests hosts, targets, LUs" python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hosts"]; assert [x["host"] for x in h]==[2,4,5,6,7] and h[1]["targets"][0]["target"]=="4:0:1" and h[1]["targets"][0]["logical_units"][0]["hctl"]=="4:0:1:0", h' "$TMP/out"

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
        # lund keeps the bytes of the pages scsi_id reads: an LU whose pages are gone from sysfs
        # shows the scsi_id view and names it was named from, lunctl's own from before it left
        check "the LU gone shows the scsi_id view it was named from" python3 -c 'import json,sys; f=lambda p: [x for x in json.load(open(p))["logical_units"] if x["hctl"]==sys.argv[3]]; l=f(sys.argv[1]); r=f(sys.argv[2]); assert len(l)==1 and len(r)==1 and l[0].get("properties") and all(l[0].get(k)==r[0].get(k) for k in ("properties","names","type")), (l, r)' "$TMP/list-lund.json" "$TMP/list-sysfs.json" "$gone"
        # --root, --sysfs-only, --sgio-only: lunctl's own work even with lund running
        expect_rc 0 "list --root with lund running" env LUND_RUN_DIR="$RUN" "$LUNCTL" --root "$ALL" --sysfs-only list --json
        check "--root lists the tree, not lund" [ "$(json_source "$TMP/out")" = sysfs ]
        check "--root lists the tree as it is now" not grep -q "\"hctl\": \"$gone\"" "$TMP/out"
        mv "$TMP/gone" "$ALL/sys/bus/scsi/devices/$gone"
        # the LU back as it was named: lund's listing is lunctl's own again, to the byte
        expect_rc 0 "list --json served by lund, the LU back" env LUND_RUN_DIR="$RUN" "$LUNCTL" list --json
        cp "$TMP/out" "$TMP/list-lund.json"
        check "lund's listing names its source" [ "$(json_source "$TMP/list-lund.json")" = lund ]
        checks=$((checks + 1))
        if ! diff -u <(grep -v '^  "source"' "$TMP/list-sysfs.json") \
                     <(grep -v '^  "source"' "$TMP/list-lund.json"); then
                echo "FAIL: list --json from lund differs from lunctl's own"
                fail=1
        fi
        expect_rc 0 "list served by lund" env LUND_RUN_DIR="$RUN" "$LUNCTL" list
        checks=$((checks + 1))
        diff -u "$TMP/list-sysfs.txt" "$TMP/out" || { echo "FAIL: list table from lund differs from lunctl's own"; fail=1; }

        # settle, resync, monitor filters, and the client's timeout against a lund that stopped
        expect_rc 0 "settle with lund idle" env LUND_RUN_DIR="$RUN" "$LUNCTL" settle --timeout 30 --json
        check "settle --json: settled" grep -q '"settled": true' "$TMP/out"
        env LUND_RUN_DIR="$RUN" "$LUNCTL" monitor --json --event resync,lu-removed > "$TMP/mon-resync" 2>&1 &
        mon1=$!
        env LUND_RUN_DIR="$RUN" "$LUNCTL" monitor --json --event lu --device 99 > "$TMP/mon-none" 2>&1 &
        mon2=$!
        for _ in $(seq 100); do
                [ "$(env LUND_RUN_DIR="$RUN" "$LUNCTL" status --json | grep -c '"clients": 3')" = 1 ] && break
                sleep 0.1
        done
        expect_rc 0 "resync" env LUND_RUN_DIR="$RUN" "$LUNCTL" resync --json
        check "resync: counted" grep -q '"resyncs": [1-9]' "$TMP/out"
        for _ in $(seq 100); do grep -q '"event"' "$TMP/mon-resync" && break; sleep 0.1; done
        kill "$mon1" "$mon2"; wait "$mon1" "$mon2" 2>/dev/null
        check "monitor --event resync: the resync" grep -q '"event":"resync"' "$TMP/mon-resync"
        check "monitor --event resync: nothing else" not grep -v '"event":"resync"' "$TMP/mon-resync"
        check "monitor --device 99: nothing" [ ! -s "$TMP/mon-none" ]
        expect_rc 1 "monitor --event nonsense" env LUND_RUN_DIR="$RUN" "$LUNCTL" monitor --event frob
        expect_err "unknown event 'frob'" "monitor --event nonsense"
        expect_rc 1 "monitor --device 1::2" env LUND_RUN_DIR="$RUN" "$LUNCTL" monitor --device 1::2
        expect_rc 1 "settle --timeout x" env LUND_RUN_DIR="$RUN" "$LUNCTL" settle --timeout x
        expect_rc 1 "--timeout 0" env LUND_RUN_DIR="$RUN" "$LUNCTL" --timeout 0 status
        # every --json output against the documented fields (lunctl(8) JSON OUTPUT)
        one=$(ls "$ALL/sys/bus/scsi/devices" | grep -m1 '^[0-9]*:[0-9]*:[0-9]*:[0-9]*$')
        j=$TMP/json
        mkdir -p "$j"
        cp "$TMP/list-sysfs.json" "$j/list-sysfs"
        cp "$TMP/list-lund.json" "$j/list-lund"
        env LUND_RUN_DIR="$RUN" "$LUNCTL" settle --json > "$j/settle"
        env LUND_RUN_DIR="$RUN" "$LUNCTL" status --json > "$j/status"
        env LUND_RUN_DIR="$RUN" "$LUNCTL" names --json "$one" > "$j/names-lund"
        env LUND_RUN_DIR="$TMP/none" "$LUNCTL" --root "$ALL" --sysfs-only names --json "$one" > "$j/names-local"
        "$LUNCTL" --root "$ALL" --sysfs-only id --json "$one" > "$j/id"
        "$LUNCTL" decode --json --inhex "$TMP/dsense.hex" > "$j/decode-sense"
        "$LUNCTL" decode --json --inhex "$TMP/luns.hex" > "$j/decode-luns"
        check "every --json output as documented" "$(dirname "$0")/check-json.py" \
                status="$j/status" list="$j/list-sysfs" list="$j/list-lund" id="$j/id" \
                names-lund="$j/names-lund" names-local="$j/names-local" settle="$j/settle" \
                decode-sense="$j/decode-sense" decode-luns="$j/decode-luns"
        kill -STOP "$LUND_PID"
        t0=$(date +%s%N)
        expect_rc 2 "status from a stopped lund" env LUND_RUN_DIR="$RUN" "$LUNCTL" --timeout 0.5 status
        t1=$(date +%s%N)
        expect_err "did not answer \"status\" within 0.5 s" "status from a stopped lund"
        check "status gave up after 0.5 s, not 30 ($(( (t1 - t0) / 1000000 )) ms)" [ $(( (t1 - t0) / 1000000 )) -lt 10000 ]
        expect_rc 2 "settle with a stopped lund" env LUND_RUN_DIR="$RUN" "$LUNCTL" --timeout 0.5 settle --timeout 1
        kill -CONT "$LUND_PID"
        expect_rc 0 "lund answers again" env LUND_RUN_DIR="$RUN" "$LUNCTL" settle --timeout 30

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
