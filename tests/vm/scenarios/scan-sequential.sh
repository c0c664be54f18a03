#!/bin/bash
# scan-sequential: devices whose REPORT LUNS is not to be used, marked by a scan quirk, are
# probed LUN by LUN like the kernel's sequential scan; nothing is ever removed there.
#  1. virtio-scsi, hwdb quirk (LUND_SCAN_SEQUENTIAL) on target 0 (LUNs 0, 1) and target 1
#     (LUNs 0 and 3: sparse). With LUNs 1 and 3 deleted, `lunctl rescan` must report method
#     "sequential" for both, add 0:1 (LUN 2 missing ends the walk) and not 1:3.
#  2. The same without quirks: REPORT LUNS adds both. Sparse LUNs are where the two differ.
#  3. scsi_debug with LUND_SCAN_MAX_LUN=3: max_luns 2 -> 4 adds only LUN 2 per target (the
#     bound); max_luns 1 with --remove removes nothing; without the quirk REPORT LUNS adds
#     LUN 3 and --remove removes what is no longer reported.
#  4. lund.conf's scan_sequential/scan_max_lun: the same decision from lunctl, and from lund's
#     own scan after REPORTED LUNS DATA HAS CHANGED.
# vm-flavour: udev-root
# vm-topology: san
# vm-timeout: 480
. /vm/guest/lib.sh
. /vm/guest/scan-lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
DEV=/sys/bus/scsi/devices

# method_of FILE H:C:T: the method lunctl rescan --json reports for that target
method_of() {
	awk -v t="$2" '
		/"target": *"/ { s = $0; sub(/.*"target": *"/, "", s); sub(/".*/, "", s); cur = s }
		/"method": *"/ && cur == t { s = $0; sub(/.*"method": *"/, "", s); sub(/".*/, "", s); print s; exit }
	' "$1"
}
# n_actions FILE KIND: actions of that kind in lunctl rescan --json output
n_actions() { grep -c "\"action\": *\"$2\"" "$1" || true; }
# mentions FILE H:C:T:L: actions naming that LU
mentions() { grep -c "\"hctl\": *\"$2\"" "$1" || true; }
lus_of() { ls -d $DEV/$1:*:*:* 2>/dev/null | wc -l; }
sdebug_total() { n=0; for h in $(hosts_of scsi_debug); do n=$((n + $(lus_of "$h"))); done; echo $n; }
sdebug_is() { [ "$(sdebug_total)" -eq "$1" ]; }
# one direct read from LUN 0 of every scsi_debug target: delivers the pending unit attention
touch_targets() {
	for h in $(hosts_of scsi_debug); do
		for d in $DEV/$h:*:*:0; do
			b=$(ls "$d/block" 2>/dev/null | head -n1)
			[ -n "$b" ] && dd if=/dev/$b of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
		done
	done
	return 0
}
run_lunctl() { # OUT ARGS...: lunctl rescan --json ARGS > OUT; $T_RC, $T_MS
	_out=$1; shift
	time_ms sh -c "lunctl rescan --json $* >$_out 2>$_out.err"
	[ "$T_RC" -eq 0 ] || { vm_log "lunctl rescan $* exited $T_RC"; cat "$_out.err"; }
}

san_up
udevadm settle --timeout=180
V=$(hosts_of virtio_scsi | head -n1)
SDH=$(hosts_of scsi_debug | head -n1)
[ -n "$V" ] && [ -n "$SDH" ] || vm_fail "no virtio_scsi or scsi_debug host"
vm_log "virtio_scsi host$V, scsi_debug host$SDH"
for l in $V:0:0:0 $V:0:0:1 $V:0:1:0 $V:0:1:3; do
	[ -e $DEV/$l ] || vm_fail "SAN: $l missing at start"
done

# The quirks, compiled into a root of their own so that the system's hwdb stays as it was.
mkdir -p /tmp/hw/etc/udev/hwdb.d
cat >/tmp/hw/etc/udev/hwdb.d/61-lund-seq.hwdb <<'EOF'
lund:scsi:t0:vLUND:mVirtDisk Full:*
 LUND_SCAN_SEQUENTIAL=1

lund:scsi:t0:vQEMU:mMax Serial:*
 LUND_SCAN_SEQUENTIAL=1

lund:scsi:t0:vLinux:mscsi_debug:*
 LUND_SCAN_SEQUENTIAL=1
 LUND_SCAN_MAX_LUN=3
EOF
systemd-hwdb update --root=/tmp/hw --strict || vm_fail "systemd-hwdb update failed"
HW=/tmp/hw/etc/udev/hwdb.bin
[ -s "$HW" ] || vm_fail "no compiled hwdb at $HW"
NOCONF=/nonexistent/lund.conf

# --- 1. hwdb quirk on the virtio targets -----------------------------------------------------
lu_set >/tmp/s0
echo 1 >$DEV/$V:0:0:1/delete
echo 1 >$DEV/$V:0:1:3/delete
settle
run_lunctl /tmp/q1.json --hwdb "$HW" --config "$NOCONF" --add --remove $V:0:0 $V:0:1
seq_ms=$T_MS
vm_assert_eq 0 "$T_RC" "quirk: lunctl rescan exit status"
cat /tmp/q1.json
vm_assert_eq sequential "$(method_of /tmp/q1.json $V:0:0)" "quirk: method of $V:0:0"
vm_assert_eq sequential "$(method_of /tmp/q1.json $V:0:1)" "quirk: method of $V:0:1"
vm_assert "quirk: $V:0:0:1 added (LUNs 1..k up to the first missing one)" test -e $DEV/$V:0:0:1
vm_assert "quirk: $V:0:1:3 not added (behind the missing LUN 1)" test ! -e $DEV/$V:0:1:3
vm_assert_eq 0 "$(mentions /tmp/q1.json $V:0:1:2)" "quirk: LUN 2 of target 1 not probed (the walk ended at LUN 1)"
vm_assert_eq 0 "$(mentions /tmp/q1.json $V:0:0:3)" "quirk: LUN 3 of target 0 not probed (the walk ended at LUN 2)"
vm_assert_eq 0 "$(n_actions /tmp/q1.json remove)" "quirk: nothing removed"
grep -q '"detail": *".*quirk' /tmp/q1.json || vm_fail "quirk: the targets' detail does not name the quirk"
vm_result "quirk.ms=$seq_ms quirk.added_0_1=$([ -e $DEV/$V:0:0:1 ] && echo 1 || echo 0) quirk.added_1_3=$([ -e $DEV/$V:0:1:3 ] && echo 1 || echo 0)"

# --- 2. the same targets without quirks: REPORT LUNS ------------------------------------------
echo 1 >$DEV/$V:0:0:1/delete
settle
run_lunctl /tmp/q2.json --hwdb "$HW" --config "$NOCONF" --no-quirks $V:0:0 $V:0:1
vm_assert_eq 0 "$T_RC" "no quirks: lunctl rescan exit status"
vm_assert_eq report-luns "$(method_of /tmp/q2.json $V:0:0)" "no quirks: method of $V:0:0"
vm_assert_eq report-luns "$(method_of /tmp/q2.json $V:0:1)" "no quirks: method of $V:0:1"
vm_assert "no quirks: $V:0:0:1 added" test -e $DEV/$V:0:0:1
vm_assert "no quirks: $V:0:1:3 added (reported)" test -e $DEV/$V:0:1:3
settle
lu_set >/tmp/s1
vm_assert "back to the device set at start" cmp -s /tmp/s0 /tmp/s1
vm_result "report_luns.added_1_3=$([ -e $DEV/$V:0:1:3 ] && echo 1 || echo 0)"

# --- 3. scsi_debug: the bound, and never a removal --------------------------------------------
vm_assert_eq 4 "$(lus_of $SDH)" "scsi_debug host$SDH LUs at start"
echo 4 >$SD/max_luns
run_lunctl /tmp/b1.json --hwdb "$HW" --config "$NOCONF" --add --remove $SDH
vm_assert_eq 0 "$T_RC" "bound: lunctl rescan exit status"
vm_assert_eq sequential "$(method_of /tmp/b1.json $SDH:0:0)" "bound: method of $SDH:0:0"
vm_assert_eq 6 "$(lus_of $SDH)" "bound: LUNs 0-2 per target (LUND_SCAN_MAX_LUN=3), not LUN 3"
vm_assert "bound: LUN 3 not added" test ! -e $DEV/$SDH:0:0:3
vm_assert_eq 0 "$(mentions /tmp/b1.json $SDH:0:0:3)" "bound: LUN 3 not even probed"
echo 1 >$SD/max_luns
run_lunctl /tmp/b2.json --hwdb "$HW" --config "$NOCONF" --add --remove $SDH
vm_assert_eq 6 "$(lus_of $SDH)" "bound: max_luns 1, --remove: nothing removed on a sequential target"
vm_assert_eq 0 "$(n_actions /tmp/b2.json remove)" "bound: no remove action"
udevadm settle --timeout=180
run_lunctl /tmp/b3.json --no-quirks --add --remove $SDH
vm_assert_eq report-luns "$(method_of /tmp/b3.json $SDH:0:0)" "no quirks: method of $SDH:0:0"
vm_assert_eq 2 "$(lus_of $SDH)" "no quirks, max_luns 1, --remove: LUNs 1-2 removed"
echo 4 >$SD/max_luns
run_lunctl /tmp/b4.json --no-quirks $SDH
vm_assert_eq 8 "$(lus_of $SDH)" "no quirks, max_luns 4: every reported LUN added, LUN 3 too"
echo 2 >$SD/max_luns
udevadm settle --timeout=180
run_lunctl /tmp/b5.json --no-quirks --remove $SDH
vm_assert_eq 4 "$(lus_of $SDH)" "back to 2 LUNs per target"

# --- 4. lund.conf: lunctl, then lund's own scans --------------------------------------------
cat >/tmp/seq.conf <<'EOF'
[device sdebug]
vendor = Linux
model = scsi_debug
scan_sequential = yes
scan_max_lun = 3
EOF
echo 4 >$SD/max_luns
run_lunctl /tmp/c1.json --hwdb /nonexistent/hwdb.bin --config /tmp/seq.conf $SDH
vm_assert_eq sequential "$(method_of /tmp/c1.json $SDH:0:0)" "lund.conf: method of $SDH:0:0"
vm_assert_eq 6 "$(lus_of $SDH)" "lund.conf: LUNs 0-2 per target"
for l in $DEV/$SDH:*:*:2; do echo 1 >"$l/delete"; done
echo 2 >$SD/max_luns
udevadm settle --timeout=180
vm_assert_eq 8 "$(sdebug_total)" "scsi_debug LUs before lund"

lund_start --hwdb /nonexistent/hwdb.bin --config /tmp/seq.conf --log-level debug
echo 4 >$SD/max_luns
touch_targets
if vm_wait_until 30 sdebug_is 12; then
	vm_log "ok: lund's scans added LUN 2 of each target ($(sdebug_total))"
else
	vm_fail "lund.conf quirk: expected 12 scsi_debug LUs after REPORTED LUNS DATA HAS CHANGED, have $(sdebug_total)"
fi
sleep 3
vm_assert_eq 12 "$(sdebug_total)" "lund: no LUN 3 (scan_max_lun=3)"
grep -q 'sequential probe' "$LUND_LOG.new" || vm_fail "lund's log has no sequential probe line"
grep 'sequential probe' "$LUND_LOG.new" | head -n 3
echo 1 >$SD/max_luns
touch_targets
sleep 5
vm_assert_eq 12 "$(sdebug_total)" "lund: max_luns 1: nothing removed on sequential targets"
lund_stop
vm_done
