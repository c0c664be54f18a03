#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# scsi-id-page80.sh HELPER MOCK_SO VPD_DIR CAPTURED_DIR
#
# lund.hwdb's unit-serial rule against the real udev scsi_id: for every fixture (the hand-made and
# hostile ones of VPD_DIR, and every device captured in the VM, CAPTURED_DIR/<device>/), the name
# lund gives (HELPER, tests/peer/unit-serial-name.c) must be "scsi-" + the ID_SERIAL that scsi_id
# prints with --page=0x80, run through the LD_PRELOAD SG_IO mock, and the same as an
# /etc/scsi_id.config line "vendor=...,model=...,options=-p 0x80" gives (scsi_id -f; the file
# takes the option and its value as two words: "options=--page=0x80" there is refused). Where
# page 0x80 gives no serial of its own (scsi_id prints no ID_SERIAL, or one with an empty
# ID_SERIAL_SHORT: "S" alone, or "S<vendor>_<model>" for a blank serial), lund makes no name
# (lund.hwdb(7)); those are counted apart.
# scsi_id is found as tests/peer/scsi-id.sh finds it. Exit: 0 pass, 1 fail, 77 skipped.
set -u
export LC_ALL=C
HELPER=${1:?helper} MOCK=${2:?mock .so} VPD=$(realpath "${3:?vpd fixture dir}") CAPTURED=$(realpath "${4:?captured dir}")
. "$(dirname "$0")/scsi-id-find.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
: > "$TMP/dev"
FX=$TMP/fx
mkdir "$FX"
# Every fixture with an INQUIRY as FX/NAME.*.hex: the vpd ones as they are, each captured device
# as captured-<device> (what the device answered through SG_IO, as scsi_id read it there).
for f in "$VPD"/*.inquiry.hex; do
        n=$(basename "$f" .inquiry.hex)
        for p in inquiry pg00 pg80 pg83 pg89; do
                [ -f "$VPD/$n.$p.hex" ] && ln -s "$VPD/$n.$p.hex" "$FX/$n.$p.hex"
        done
done
for d in "$CAPTURED"/*/; do
        d=${d%/}
        [ -f "$d/inquiry.hex" ] || continue
        for p in inquiry pg00 pg80 pg83 pg89; do
                [ -f "$d/$p.hex" ] && ln -s "$d/$p.hex" "$FX/captured-${d##*/}.$p.hex"
        done
done
names=$(cd "$FX" && ls ./*.inquiry.hex | sed 's|^\./||; s|\.inquiry\.hex$||')
"$HELPER" "$FX" $names > "$TMP/lund" || { echo "FAIL: $HELPER failed"; exit 1; }

scsi_id() { # NAME ARGS...: scsi_id --export --whitelisted on fixture NAME
        local n=$1
        shift
        LD_PRELOAD=$MOCK LUND_MOCK_DIR=$FX LUND_MOCK_NAME=$n \
                "$SCSI_ID" "$@" --export --whitelisted -d "$TMP/dev" 2>/dev/null
}
value() { sed -n "s/^$1=//p" "$2"; }
# A value for the config file: scsi_id's get_value() reads up to the closing quote.
quoted() { case $1 in *'"'*) return 1 ;; esac; printf '"%s"' "$1"; }

fail=0 named=0 none=0 cases=0 captured=0 crashed=0 configured=0 udev_only=0
while IFS=$'\t' read -r n name why; do
        cases=$((cases + 1))
        case $n in captured-*) captured=$((captured + 1)) ;; esac
        scsi_id "$n" --page=0x80 > "$TMP/peer"
        rc=$?
        if [ $rc -ge 128 ]; then
                # undefined behaviour in scsi_id (tests/peer/scsi-id.sh, "scsi_id-crashes")
                crashed=$((crashed + 1))
                continue
        fi
        serial=$(value ID_SERIAL "$TMP/peer")
        short=$(value ID_SERIAL_SHORT "$TMP/peer")
        if [ "$name" = - ]; then
                none=$((none + 1))
                [ -z "$serial" ] || udev_only=$((udev_only + 1))
                if [ -n "$short" ]; then
                        echo "FAIL: $n: lund makes no name ($why), scsi_id --page=0x80 prints ID_SERIAL=$serial ID_SERIAL_SHORT=$short"
                        fail=1
                fi
        else
                named=$((named + 1))
                if [ "$name" != "scsi-$serial" ] || [ -z "$short" ]; then
                        echo "FAIL: $n: lund's name $name, scsi_id --page=0x80: ID_SERIAL=$serial ID_SERIAL_SHORT=$short"
                        fail=1
                fi
        fi
        # The same through scsi_id's config file, for the device's vendor and model.
        vendor=$(value ID_VENDOR "$TMP/peer") model=$(value ID_MODEL "$TMP/peer")
        if v=$(quoted "$vendor") && m=$(quoted "$model"); then
                printf 'vendor=%s,model=%s,options=-p 0x80\n' "$v" "$m" > "$TMP/scsi_id.config"
                configured=$((configured + 1))
                scsi_id "$n" -f "$TMP/scsi_id.config" > "$TMP/conf"
                if ! cmp -s "$TMP/peer" "$TMP/conf"; then
                        echo "FAIL: $n: scsi_id.config's -p 0x80 differs from --page=0x80"
                        diff "$TMP/peer" "$TMP/conf" | head -5
                        fail=1
                fi
        fi
done < "$TMP/lund"
[ "$cases" -gt 0 ] && [ "$captured" -gt 0 ] || { echo "FAIL: no fixtures"; fail=1; }
echo "$cases fixtures ($captured captured): $named named as scsi_id --page=0x80 names them, $none without a serial of page 0x80's own ($udev_only of them named scsi-\$ID_SERIAL by udev all the same), $crashed where scsi_id crashed; $configured through scsi_id.config"
exit $fail
