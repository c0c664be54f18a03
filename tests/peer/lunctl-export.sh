#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# LUNCTL=path/to/lunctl lunctl-export.sh DIR NAME udev|sg|all
#
# `lunctl decode --export` on the pages of fixture DIR/NAME.*.hex, each named with --page (a
# hostile fixture may hold something else than its header claims). Prints the ID_* lines (udev),
# the SCSI_* lines (sg) or both, for the peer tests.
set -euo pipefail
LUNCTL=${LUNCTL:?path to lunctl} DIR=$1 NAME=$2 MODE=${3:-all}
TMP_EMPTY=$(mktemp)
trap 'rm -f "$TMP_EMPTY"' EXIT
echo '00 00 00 00' > "$TMP_EMPTY"
args=()
for p in inquiry pg00 pg80 pg83 pg89; do
        f=$DIR/$NAME.$p.hex
        [ -f "$f" ] || continue
        # A page file without bytes is a page the device rejects (scsi-id-mock.c). For page
        # 0x00 scsi_id then tries no other page, exactly as for a page 0x00 listing nothing,
        # which is what decode is given (lund's own path sees the rejection: identify-same.sh).
        if [ -z "$(grep -v '^[[:space:]]*#' "$f" | tr -d '[:space:]')" ]; then
                [ $p = pg00 ] || continue
                f=$TMP_EMPTY
        fi
        case $p in inquiry) k=inquiry ;; pg00) k=0x00 ;; pg80) k=0x80 ;; pg83) k=0x83 ;; pg89) k=0x89 ;; esac
        args+=(--page "$k" --inhex "$f")
done
out=$("$LUNCTL" decode --export "${args[@]}")
case $MODE in
udev) printf '%s\n' "$out" | grep '^ID_' || true ;;
sg) printf '%s\n' "$out" | grep '^SCSI_' || true ;;
*) printf '%s\n' "$out" ;;
esac
