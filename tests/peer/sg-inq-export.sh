#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# sg-inq-export.sh DECODE FIXTURE_DIR
#
# For every FIXTURE_DIR/NAME.expect, compare the SCSI_* lines lund prints (DECODE DIR NAME sg;
# DECODE is tests/peer/decode-export today, `lunctl decode --export` later) with what the real
# sg_inq prints for the same pages: `sg_inq --export --raw --inhex=PAGE -p sinq|sn|di`.
#  - They must be equal, except for keys listed in a "# sg_inq-breaks: KEY..." line of the
#    .expect file. For those both facts are asserted: sg_inq's output is broken (a line with a
#    control byte or invalid UTF-8, or an extra line it injected) and lund prints exactly one
#    KEY= line, clean (device bytes that would break it escaped as \xNN).
#  - "# sg_inq-ignores: pg83" skips that page (sg_inq decodes a page whose code byte says
#    otherwise; lund does not).
# It also runs sg_inq the way Debian's 55-scsi-sg3_id.rules does (no -p, so it guesses the
# page from its first bytes) and reports, without failing, where that guess goes wrong.
# Exit: 0 pass, 1 fail, 77 skipped (no sg_inq).
set -u
export LC_ALL=C
DECODE=${1:?decode program}
DIR=${2:?fixture dir}
SG_INQ=${SG_INQ:-$(command -v sg_inq || true)}
[ -n "$SG_INQ" ] || { echo "SKIP: sg_inq not installed"; exit 77; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0 cases=0 broken=0 guesses=0

unhex() { grep -v '^[[:space:]]*#' "$1" | xxd -r -p > "$2"; }

for exp in "$DIR"/*.expect; do
        n=$(basename "$exp" .expect)
        [ -f "$DIR/$n.inquiry.hex" ] || continue
        cases=$((cases + 1))
        breaks=$(sed -n 's/^# sg_inq-breaks: //p' "$exp")
        ignores=$(sed -n 's/^# sg_inq-ignores: //p' "$exp")

        : > "$TMP/peer"
        for p in inquiry pg80 pg83; do
                [ -f "$DIR/$n.$p.hex" ] || continue
                case " $ignores " in *" $p "*) continue ;; esac
                case $p in inquiry) pg=sinq ;; pg80) pg=sn ;; pg83) pg=di ;; esac
                unhex "$DIR/$n.$p.hex" "$TMP/$p.bin"
                "$SG_INQ" --export --raw --inhex="$TMP/$p.bin" -p $pg >> "$TMP/peer" 2>/dev/null
                # The udev rule's invocation: no -p, sg_inq guesses.
                "$SG_INQ" --export --raw --inhex="$TMP/$p.bin" > "$TMP/guess" 2>/dev/null
                if [ $p != inquiry ] && grep -q '^SCSI_TPGS=' "$TMP/guess"; then
                        echo "note: $n: sg_inq without -p takes $p for a standard INQUIRY"
                        guesses=$((guesses + 1))
                elif [ $p = inquiry ] && ! grep -q '^SCSI_TPGS=' "$TMP/guess"; then
                        echo "note: $n: sg_inq without -p takes the INQUIRY data for a VPD page"
                        guesses=$((guesses + 1))
                fi
        done
        if ! "$DECODE" "$DIR" "$n" sg > "$TMP/lund.all"; then
                echo "FAIL: $n: decode failed"; fail=1; continue
        fi
        if [ -n "$ignores" ]; then
                # Drop lund's lines for the ignored page (only pg83 is ever ignored).
                grep -v '^SCSI_IDENT_\(LUN\|PORT\|TARGET\)_' "$TMP/lund.all" > "$TMP/lund"
        else
                cp "$TMP/lund.all" "$TMP/lund"
        fi

        if [ -z "$breaks" ]; then
                if ! cmp -s "$TMP/peer" "$TMP/lund"; then
                        echo "FAIL: $n: SCSI_* lines differ from sg_inq"
                        diff "$TMP/peer" "$TMP/lund" | cat -A | head -20
                        fail=1
                fi
                continue
        fi

        # A page where sg_inq breaks a line. Lines both print must agree; what differs must be
        # exactly the listed keys.
        broken=$((broken + 1))
        sort "$TMP/peer" > "$TMP/peer.s"
        sort "$TMP/lund" > "$TMP/lund.s"
        comm -13 "$TMP/peer.s" "$TMP/lund.s" > "$TMP/lund.only"
        comm -23 "$TMP/peer.s" "$TMP/lund.s" > "$TMP/peer.only"
        for key in $breaks; do
                nl=$(grep -c "^$key=" "$TMP/lund")
                grep "^$key=" "$TMP/lund" > "$TMP/keyline"
                if [ "$nl" != 1 ] || grep -qP '[\x00-\x1f\x7f]' "$TMP/keyline" ||
                   ! iconv -f UTF-8 -t UTF-8 "$TMP/keyline" > /dev/null 2>&1; then
                        echo "FAIL: $n: lund must print one clean $key line (has $nl)"; fail=1
                fi
                if ! grep -q "^$key=" "$TMP/peer.only"; then
                        echo "FAIL: $n: sg_inq's $key line was expected to be broken"; fail=1
                fi
        done
        # sg_inq's broken output: a control byte / invalid UTF-8, or more lines than lund.
        if ! grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$TMP/peer.only" &&
           iconv -f UTF-8 -t UTF-8 "$TMP/peer.only" > /dev/null 2>&1 &&
           [ "$(wc -l < "$TMP/peer.only")" -le "$(wc -l < "$TMP/lund.only")" ]; then
                echo "FAIL: $n: sg_inq's output for $breaks does not look broken"; fail=1
        fi
        # Nothing else may differ.
        extra=$(grep -v "^\($(echo $breaks | sed 's/ /\\|/g')\)=" "$TMP/lund.only")
        if [ -n "$extra" ]; then
                echo "FAIL: $n: unexpected lund-only lines:"; echo "$extra" | cat -A; fail=1
        fi
done

echo "$cases fixtures, $broken with lines sg_inq breaks, $guesses pages the udev rule's sg_inq call misreads"
[ $fail = 0 ] && echo PASS || echo FAIL
exit $fail
