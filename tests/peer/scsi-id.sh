#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# scsi-id.sh DECODE FIXTURE_DIR MOCK_SO
#
# For every FIXTURE_DIR/NAME.expect, run the real udev scsi_id (--export --whitelisted) on the
# fixture pages through the LD_PRELOAD SG_IO mock and compare its ID_* lines with lund's
# (DECODE DIR NAME udev). Annotations in the .expect file:
#   "# scsi_id-breaks: KEY..."  scsi_id prints device bytes raw there: assert its output is
#                               broken and lund prints one clean line per KEY, the rest equal;
#   "# scsi_id-crashes"         assert scsi_id dies from a signal (undefined behaviour in it)
#                               and lund still answers.
# scsi_id is $SCSI_ID, else /lib/udev/scsi_id or /usr/lib/udev/scsi_id (Debian 12: package
# udev; `apt-get download udev && dpkg-deb -x udev_*.deb DIR` gives one without installing).
# Exit: 0 pass, 1 fail, 77 skipped.
set -u
export LC_ALL=C
DECODE=${1:?decode program}
DIR=${2:?fixture dir}
MOCK=${3:?mock .so}
. "$(dirname "$0")/scsi-id-find.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
: > "$TMP/dev"
fail=0 cases=0

for exp in "$DIR"/*.expect; do
        n=$(basename "$exp" .expect)
        [ -f "$DIR/$n.inquiry.hex" ] || continue
        cases=$((cases + 1))
        breaks=$(sed -n 's/^# scsi_id-breaks: //p' "$exp")
        LD_PRELOAD=$MOCK LUND_MOCK_DIR=$DIR LUND_MOCK_NAME=$n \
                "$SCSI_ID" --export --whitelisted -d "$TMP/dev" > "$TMP/peer" 2>/dev/null
        rc=$?
        "$DECODE" "$DIR" "$n" udev > "$TMP/lund" || { echo "FAIL: $n: decode failed"; fail=1; continue; }

        if grep -q '^# scsi_id-crashes' "$exp"; then
                if [ $rc -lt 128 ]; then
                        echo "note: $n: scsi_id did not crash this time (rc=$rc), its output:"
                        head -3 "$TMP/peer"
                fi
                grep -q '^ID_SCSI=1$' "$TMP/lund" || { echo "FAIL: $n: lund printed nothing"; fail=1; }
                continue
        fi
        if [ -z "$breaks" ]; then
                if ! cmp -s "$TMP/peer" "$TMP/lund"; then
                        echo "FAIL: $n: ID_* lines differ from scsi_id (rc=$rc)"
                        diff "$TMP/peer" "$TMP/lund" | cat -A | head -20
                        fail=1
                fi
                continue
        fi
        sort "$TMP/peer" > "$TMP/peer.s"
        sort "$TMP/lund" > "$TMP/lund.s"
        comm -13 "$TMP/peer.s" "$TMP/lund.s" > "$TMP/lund.only"
        comm -23 "$TMP/peer.s" "$TMP/lund.s" > "$TMP/peer.only"
        for key in $breaks; do
                grep "^$key=" "$TMP/lund" > "$TMP/keyline"
                if [ "$(wc -l < "$TMP/keyline")" != 1 ] || grep -qP '[\x00-\x1f\x7f]' "$TMP/keyline"; then
                        echo "FAIL: $n: lund must print one clean $key line"; fail=1
                fi
                grep -q "^$key=" "$TMP/peer.only" || { echo "FAIL: $n: scsi_id's $key not broken?"; fail=1; }
        done
        if [ "$(wc -l < "$TMP/peer.only")" -le "$(wc -l < "$TMP/lund.only")" ]; then
                echo "FAIL: $n: scsi_id's output for $breaks does not look broken"; fail=1
        fi
        extra=$(grep -v "^\($(echo $breaks | sed 's/ /\\|/g')\)=" "$TMP/lund.only")
        [ -z "$extra" ] || { echo "FAIL: $n: unexpected lund-only lines: $extra"; fail=1; }
done
echo "$cases fixtures against $SCSI_ID"
[ $fail = 0 ] && echo PASS || echo FAIL
exit $fail
