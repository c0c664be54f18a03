#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# LUNCTL=path/to/lunctl lunctl-export.sh DIR NAME udev|sg|all
#
# `lunctl decode --export` on the pages of fixture DIR/NAME.*.hex, each named with --page (a
# hostile fixture may hold something else than its header claims). Prints the ID_* lines (udev),
# the SCSI_* lines (sg) or both, for the peer tests. The peer tests run it once per fixture, so
# it starts no process but lunctl (under ASan each start counts).
set -euo pipefail
LUNCTL=${LUNCTL:?path to lunctl} DIR=$1 NAME=$2 MODE=${3:-all}

# has_bytes FILE: does the hex file hold a byte, on a line that is no comment?
has_bytes() {
        local line
        while IFS= read -r line || [ -n "$line" ]; do
                line=${line#"${line%%[![:space:]]*}"}
                [ -n "$line" ] && [ "${line:0:1}" != "#" ] && return 0
        done <"$1"
        return 1
}

args=()
for p in inquiry pg00 pg80 pg83 pg89; do
        f=$DIR/$NAME.$p.hex
        [ -f "$f" ] || continue
        # A page file without bytes is a page the device rejects (scsi-id-mock.c). For page
        # 0x00 scsi_id then tries no other page, exactly as for a page 0x00 listing nothing,
        # which is what decode is given (lund's own path sees the rejection: identify-same.sh).
        if ! has_bytes "$f"; then
                [ $p = pg00 ] || continue
                f=/dev/fd/3 # the empty page 0x00 below
        fi
        case $p in inquiry) k=inquiry ;; pg00) k=0x00 ;; pg80) k=0x80 ;; pg83) k=0x83 ;; pg89) k=0x89 ;; esac
        args+=(--page "$k" --inhex "$f")
done
out=$("$LUNCTL" decode --export "${args[@]}" 3< <(echo '00 00 00 00'))
while IFS= read -r line; do
        case $MODE:$line in
        udev:ID_* | sg:SCSI_* | all:*) printf '%s\n' "$line" ;;
        esac
done <<<"$out"
