#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# LUNCTL=path captured.sh CAPTURED_DIR
#
# Ground truth from the VM (tests/fixtures/captured/<device>/, written by the `capture`
# scenario): for every device, `lunctl decode --export` on the responses captured with SG_IO
# must print exactly the ID_* lines the real scsi_id printed on that device, and exactly the
# SCSI_* lines sg_inq --export printed (standard INQUIRY, then -p sn, then -p di, as
# 55-scsi-sg3_id.rules runs it). The same must hold for the kernel's cached sysfs copies of the
# pages where the kernel cached them, which is what `lunctl id` reads. Every captured REPORT LUNS and block limits page must
# decode without error.
set -u
export LC_ALL=C
LUNCTL=${LUNCTL:?path to lunctl}
DIR=${1:?captured fixture dir}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0 devices=0

kind() {
        case $1 in
        inquiry) echo inquiry ;; pg00|vpd_pg0) echo 0x00 ;; pg80|vpd_pg80) echo 0x80 ;;
        pg83|vpd_pg83) echo 0x83 ;; pg89|vpd_pg89) echo 0x89 ;;
        esac
}

for d in "$DIR"/*/; do
        d=${d%/}
        n=${d##*/}
        [ -f "$d/inquiry.hex" ] && [ -f "$d/scsi_id.export" ] || continue
        devices=$((devices + 1))

        for src in sgio sysfs; do
                args=()
                for p in inquiry pg00 pg80 pg83 pg89; do
                        f=$d/$p.hex
                        if [ $src = sysfs ]; then
                                # What lunctl id reads: the kernel's copy where it cached the page,
                                # the device's answer (SG_IO) where it did not.
                                case $p in inquiry) c=$d/sysfs-inquiry.hex ;; pg00) c=$d/sysfs-vpd_pg0.hex ;;
                                *) c=$d/sysfs-vpd_$p.hex ;; esac
                                [ -f "$c" ] && f=$c
                        fi
                        [ -f "$f" ] && args+=(--page "$(kind $p)" --inhex "$f")
                done
                if [ $src = sysfs ] && [ ! -f "$d/sysfs-inquiry.hex" ]; then
                        continue
                fi
                if ! "$LUNCTL" decode --export "${args[@]}" > "$TMP/lund" 2> "$TMP/err"; then
                        echo "FAIL: $n ($src): lunctl decode failed: $(cat "$TMP/err")"
                        fail=1
                        continue
                fi
                grep '^ID_' "$TMP/lund" > "$TMP/lund.id" || true
                if ! diff -u "$d/scsi_id.export" "$TMP/lund.id" > "$TMP/diff"; then
                        echo "FAIL: $n ($src pages): ID_* lines differ from scsi_id"
                        cat "$TMP/diff"
                        fail=1
                fi
                if [ $src = sgio ]; then
                        cat "$d/sg_inq.export" "$d/sg_inq-sn.export" "$d/sg_inq-di.export" \
                                2>/dev/null | grep '^SCSI_' > "$TMP/peer.sg" || true
                        grep '^SCSI_' "$TMP/lund" > "$TMP/lund.sg" || true
                        if ! diff -u "$TMP/peer.sg" "$TMP/lund.sg" > "$TMP/diff"; then
                                echo "FAIL: $n: SCSI_* lines differ from sg_inq --export"
                                cat "$TMP/diff"
                                fail=1
                        fi
                fi
        done

        for p in luns pgb0; do
                [ -f "$d/$p.hex" ] || continue
                k=luns; [ $p = pgb0 ] && k=0xb0
                if ! "$LUNCTL" decode --page $k --inhex "$d/$p.hex" > /dev/null 2> "$TMP/err"; then
                        echo "FAIL: $n: $p.hex does not decode: $(cat "$TMP/err")"
                        fail=1
                fi
        done
done

echo "captured devices compared: $devices"
[ "$devices" -gt 0 ] || { echo "FAIL: no captured devices in $DIR"; exit 1; }
exit $fail
