#!/bin/sh
# lio-masking: LUN masking on Linux's own SCSI target (LIO over iSCSI on loopback, fileio
# backstores). The initiator's ACL maps LUN 0; 8 more LUNs are mapped on the live session, then
# 4 unmapped.
# LIO queues REPORTED LUNS DATA HAS CHANGED; the kernel only reports it.
#  0. control: without anyone scanning, the kernel adds and removes nothing;
#     peer: rescan-scsi-bus.sh -a -r (add) and -r (remove) on the same two steps;
#  1. lund: adds the 8 LUNs after the unit attention and names them (time from the configfs
#     write to the last link), then removes the 4 unmapped ones and their links.
#  2. a hold on the target (lunctl hold, lund(8) HOLDS): LUN 4 unmapped and LUN 5 mapped; the
#     unit attention comes and lund adds and removes nothing, and renames nothing, until the
#     release, which reconciles the target with the ACL.
#  3. one masking change over four kinds of LU (lund(8) RESERVATIONS): LUN 1 excluded by
#     lund.conf, LUN 2 held, LUN 3 registered on and reserved by this host (sg_persist; lund
#     reads it on the disk's change uevent, which udev's watch would send), LUN 5 ordinary;
#     all four unmapped and LUNs 6 and 7 mapped: lund adds 6 and 7, removes 5, leaves 1 and 2
#     alone and keeps 3, saying why in its journal and `lunctl status`; `lunctl list -o +PR`
#     shows the holder.
#  4. a reaction policy changed by a reload, previewed first (lund.conf(5) REACTIONS): with
#     `luns = add` for iSCSI hosts LUN 6 is unmapped and 8 mapped; `lunctl rescan --dry-run
#     --config NEW` keeps 6 where the running policy would remove it; after `lunctl reload` the
#     unit attention adds 8 and keeps 6, saying why. Peer: rescan-scsi-bus.sh -r on the same LUs
#     afterwards.
# Evidence: sysfs (LUs, their unit serials) and the link tree computed by guest/daemon-lib.sh.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 360
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/scan-lib.sh
. /vm/guest/lio-lib.sh

modprobe -a sd_mod sg
lio_up
for i in 0 1 2 3 4 5 6 7 8; do lio_fileio lu$i 16 "$LIO_SERIAL$i"; done
lio_iscsi_target
for i in 0 1 2 3 4 5 6 7 8; do lio_tpg_lun $i lu$i; done
lio_map 0
lio_iscsi_login
vm_wait_until 30 lio_nlus_is 1 || vm_fail "LUN 0 did not appear ($(lio_nlus) LUs)"
h=$(lio_host)
vm_log "iscsi_tcp is host$h: $(lio_lus | tr '\n' ' ')"
vm_assert_eq "$h:0:0:0" "$(lio_lus)" "only the mapped LUN 0 visible after the login"

# serials: "H:C:T:L serial" of the tcm_loop LUs (unit serial from VPD 0x80 in sysfs)
serials() {
	for l in $(lio_lus); do
		s=$(sg_vpd -p sn -r /dev/$(ls /sys/bus/scsi/devices/$l/scsi_generic) 2>/dev/null | tail -c +5 | tr -d '\0 ')
		echo "$l $s"
	done
}

# --- 0. control and peer ----------------------------------------------------------------------
for i in 1 2 3 4 5 6 7 8; do lio_map $i; done
lio_touch 0; lio_touch 0
sleep 3
sg_luns /dev/$(ls /sys/bus/scsi/devices/$h:0:0:0/scsi_generic) || true
vm_assert_eq 1 "$(lio_nlus)" "without a scanner: LUs after mapping 8 LUNs"
dmesg | grep -q 'LUN assignments on this target have changed' &&
	vm_log "ok: the kernel reported the change and did nothing else"
time_ms rsb -a -r --hosts=$h
cp /tmp/rsb.out $VM_OUT/rsb-map.out
lio_lus >/tmp/rsb.map
lio_expected >/tmp/exp.map
vm_result "rsb.map.rc=$T_RC rsb.map.ms=$T_MS rsb.map.lus=$(lio_nlus) rsb.map.exact=$(cmp -s /tmp/exp.map /tmp/rsb.map && echo yes || echo no)"
for i in 5 6 7 8; do lio_unmap $i; done
lio_touch 0
time_ms rsb -r --hosts=$h
cp /tmp/rsb.out $VM_OUT/rsb-unmap.out
lio_lus >/tmp/rsb.unmap
lio_expected >/tmp/exp.unmap
vm_result "rsb.unmap.rc=$T_RC rsb.unmap.ms=$T_MS rsb.unmap.lus=$(lio_nlus) rsb.unmap.exact=$(cmp -s /tmp/exp.unmap /tmp/rsb.unmap && echo yes || echo no)"
serials >/tmp/rsb.serials
# back to LUN 0 alone
for i in 1 2 3 4; do lio_unmap $i; done
lio_touch 0
for l in $(lio_lus); do [ "${l##*:}" = 0 ] || echo 1 >/sys/bus/scsi/devices/$l/delete; done
[ -e /sys/bus/scsi/devices/$h:0:0:0 ] || lio_login_scan
vm_assert_eq 1 "$(lio_nlus)" "back to LUN 0 alone"
lio_touch 0

# --- 1. lund ----------------------------------------------------------------------------------
lund_start
daemon_check_tree "start"
t0=$(vm_uptime_ms)
for i in 1 2 3 4 5 6 7 8; do lio_map $i; done
lio_touch 0
vm_wait_until 60 lio_nlus_is 9 || vm_fail "lund: expected 9 LUs after mapping 8, have $(lio_nlus)"
t1=$(vm_uptime_ms)
daemon_check_tree "8 LUNs mapped" 30
t2=$(vm_uptime_ms)
lio_lus >/tmp/lund.map
lio_expected >/tmp/exp.map
vm_result "lund.map.lus=$(lio_nlus) lund.map.lus_ms=$((t1 - t0)) lund.map.names_ms=$((t2 - t0)) links=$(wc -l </tmp/tree.act)"
t0=$(vm_uptime_ms)
for i in 5 6 7 8; do lio_unmap $i; done
lio_touch 0
vm_wait_until 60 lio_nlus_is 5 || vm_fail "lund: expected 5 LUs after unmapping 4, have $(lio_nlus)"
t1=$(vm_uptime_ms)
daemon_check_tree "4 LUNs unmapped" 30
t2=$(vm_uptime_ms)
lio_lus >/tmp/lund.unmap
lio_expected >/tmp/exp.unmap
serials >/tmp/lund.serials
vm_result "lund.unmap.lus=$(lio_nlus) lund.unmap.lus_ms=$((t1 - t0)) lund.unmap.names_ms=$((t2 - t0))"
grep -c 'REPORTED_LUNS_DATA_HAS_CHANGED' "$LUND_LOG.new" >/dev/null ||
	vm_fail "lund's log does not name the unit attention"

# lund against the target's own mapping (the ACL); the peer's result is reported beside it
vm_assert "lund after mapping: exactly the LUNs the ACL maps" cmp -s /tmp/exp.map /tmp/lund.map
vm_assert "lund after unmapping: exactly the LUNs the ACL maps" cmp -s /tmp/exp.unmap /tmp/lund.unmap
compare_sets map /tmp/lund.map /tmp/rsb.map || true
compare_sets unmap /tmp/lund.unmap /tmp/rsb.unmap || true
cat /tmp/lund.serials
vm_assert_eq "${LIO_SERIAL}0 ${LIO_SERIAL}1 ${LIO_SERIAL}2 ${LIO_SERIAL}3 ${LIO_SERIAL}4" \
	"$(awk '{ printf "%s%s", sep, $2; sep = " " }' /tmp/lund.serials)" "the mapped LUNs' unit serials, in LUN order"
vm_result "rsb.serials=$(cmp -s /tmp/lund.serials /tmp/rsb.serials && echo same || echo differ)"

# --- 2. a held target -------------------------------------------------------------------------
tgt=$h:${LIO_CT}
lunctl hold "$tgt" --reason "orchestrator at work" >/tmp/hold.out 2>&1 || vm_fail "lunctl hold: $(cat /tmp/hold.out)"
lunctl status | grep -q "^  $tgt: orchestrator at work" || vm_fail "lunctl status does not list the hold"
daemon_actual >/tmp/tree.held
lio_lus >/tmp/lus.held
ua_left() { grep -c "unit attention REPORTED_LUNS_DATA_HAS_CHANGED: excluded" "$LUND_LOG.new" || true; }
n_ua=$(ua_left)
ua_seen() { lio_touch 0; [ "$(ua_left)" -gt "$n_ua" ]; }
lio_unmap 4
lio_map 5
vm_wait_until 30 ua_seen || vm_fail "held: the unit attention was not reported as left alone"
sleep 5 # lund took ~1-2 s to act in part 1: give it more than that to do nothing
vm_assert_eq "$(cat /tmp/lus.held)" "$(lio_lus)" "held: no LU added or removed"
vm_assert_eq "$(cat /tmp/tree.held)" "$(daemon_actual)" "held: no name added, removed or moved"
t0=$(vm_uptime_ms)
lunctl release "$tgt" >/tmp/hold.out 2>&1 || vm_fail "lunctl release: $(cat /tmp/hold.out)"
lio_expected >/tmp/exp.released
released() { lio_lus | cmp -s - /tmp/exp.released; }
vm_wait_until 60 released ||
	vm_fail "released: the target was not reconciled with the ACL ($(lio_lus | tr '\n' ' '))"
daemon_check_tree "hold released, reconciled" 30
vm_result "lund.release.ms=$(($(vm_uptime_ms) - t0))"
ls -l "$LUND_LINKS" | head -n 30
lund_alive || vm_fail "lund died"

# --- 3. excluded, held, reserved and ordinary LUs under one masking change ----------------------
L=$h:$LIO_CT
cp $LUND_LOG.new $VM_OUT/lund.log
lund_stop
printf '[exclude masked-excluded]\nhctl = %s:1\n' "$L" >/tmp/lund-mask.conf
lund_start --config /tmp/lund-mask.conf
lunctl hold "$L:2" --reason "orchestrator at work" >/tmp/hold.out 2>&1 ||
	vm_fail "lunctl hold: $(cat /tmp/hold.out)"
sd3=$(ls /sys/bus/scsi/devices/$L:3/block 2>/dev/null | head -n1)
[ -n "$sd3" ] || vm_fail "LUN 3 has no disk"
vm_log "initiator: $(cat /sys/class/iscsi_session/session*/initiatorname 2>/dev/null)"
# LIO keeps its persistent reservation state in dbroot's pr/ (targetcli's setup makes it): a
# registration it cannot record there answers NOT READY, though it is made
mkdir -p /var/target/pr
# A UNIT ATTENTION still pending for LUN 3 (REPORTED LUNS DATA HAS CHANGED of the mapping
# changes above) fails the first command that meets it, and sg_persist does not retry: as an
# admin does, try once more (the failed command was not executed).
pr_out() { sg_persist "$@" || sg_persist "$@"; }
{ pr_out --out --register --param-sark=0x1234 /dev/$sd3 &&
  pr_out --out --reserve --param-rk=0x1234 --prout-type=1 /dev/$sd3; } >/tmp/pr.out 2>&1 ||
	vm_fail "sg_persist: $(cat /tmp/pr.out)"
sg_persist --in --read-full-status --hex /dev/$sd3 >$VM_OUT/prin-full-status.hex 2>&1 || true
# what udevd's watch (60-block.rules) does when sg_persist closes the disk it opened for writing
echo change >/sys/class/block/$sd3/uevent
pr_seen() { grep -q "reservations: 1 key (this host), WE held by this host" "$LUND_LOG.new"; }
vm_wait_until 30 pr_seen || vm_fail "lund did not read LUN 3's reservation on the change uevent"
lunctl list -o HCTL,PR >$VM_OUT/list-pr.out 2>&1 || vm_fail "lunctl list -o HCTL,PR failed"
cat $VM_OUT/list-pr.out
grep -q "^$L:3 *1 key (this host), WE held by this host" $VM_OUT/list-pr.out ||
	vm_fail "lunctl list -o +PR: LUN 3 not shown held by this host"
grep -q "^$L:5 *none" $VM_OUT/list-pr.out || vm_fail "lunctl list -o +PR: LUN 5 not shown unreserved"

t0=$(vm_uptime_ms)
for i in 1 2 3 5; do lio_unmap $i; done
lio_map 6
lio_map 7
lio_touch 0
for i in 0 1 2 3 6 7; do echo "$L:$i"; done | LC_ALL=C sort >/tmp/exp.mixed
mixed() { lio_lus | cmp -s - /tmp/exp.mixed; }
vm_wait_until 60 mixed ||
	vm_fail "mixed: expected $(tr '\n' ' ' </tmp/exp.mixed), have $(lio_lus | tr '\n' ' ')"
t1=$(vm_uptime_ms)
sleep 3 # nothing more may go: the scan is over
vm_assert_eq "$(cat /tmp/exp.mixed)" "$(lio_lus)" "mixed: excluded, held and reserved LUs stay, 5 goes, 6 and 7 come"
vm_result "lund.mixed.ms=$((t1 - t0))"
kept() { grep "$L:$1" "$LUND_LOG.new" | grep -q "scan: keep (not reported by REPORT LUNS; kept: $2"; }
kept 1 "excluded by \[exclude masked-excluded\]" || vm_fail "journal: no keep of the excluded LUN 1"
kept 2 "held by" || vm_fail "journal: no keep of the held LUN 2"
kept 3 "reserved when last read: 1 key (this host), WE held by this host; now: " ||
	vm_fail "journal: no keep of LUN 3 for its reservation"
grep "keep\|reserv" "$LUND_LOG.new" | tail -n 12
lunctl status >/tmp/status.out 2>&1 || vm_fail "lunctl status failed"
grep "Reserved\|^  $L" /tmp/status.out
grep -q "^  $L:3: .*a scan kept it: reserved when last read" /tmp/status.out ||
	vm_fail "lunctl status does not say why LUN 3 was kept"

# --- 4. a reaction policy, previewed, then reloaded: add only ---------------------------------
lio_unmap 6
lio_map 8
{ cat /tmp/lund-mask.conf; printf '[react add-only]\ntransport = iscsi\nluns = add\n'; } >/tmp/react.conf
lunctl rescan --dry-run --add --remove "$h" >/tmp/preview.now 2>&1 || vm_fail "rescan --dry-run: $(cat /tmp/preview.now)"
lunctl rescan --dry-run --add --remove --config /tmp/react.conf "$h" >/tmp/preview.new 2>&1 ||
	vm_fail "rescan --dry-run --config: $(cat /tmp/preview.new)"
cat /tmp/preview.now /tmp/preview.new
vm_assert "preview under the running lund.conf: LUN 6 would be removed" grep -q "^would remove *$L:6 " /tmp/preview.now
vm_assert "preview under the new one: LUN 6 kept, luns = add" \
	grep -q "^keep *$L:6 .*luns = add by \\[react add-only\\]" /tmp/preview.new
vm_assert "preview under the new one: LUN 8 would be added" grep -q "^would add *$L:8 " /tmp/preview.new
vm_assert "a dry run changes nothing" test -e /sys/bus/scsi/devices/$L:6 -a ! -e /sys/bus/scsi/devices/$L:8
cp /tmp/react.conf /tmp/lund-mask.conf
lunctl reload >/tmp/reload.out 2>&1 || vm_fail "lunctl reload: $(cat /tmp/reload.out)"
# the scan's actions as `lunctl monitor` gets them (the journal folds a burst of notices)
lunctl monitor --json >/tmp/monitor4.json 2>&1 &
mon=$!
sleep 1
lio_touch 0
vm_wait_until 60 test -e /sys/bus/scsi/devices/$L:8 || vm_fail "add only: LUN 8 was not added"
sleep 3 # the scan that added 8 is the one that would have removed 6
kill $mon 2>/dev/null; wait $mon 2>/dev/null || :
vm_assert "add only: LUN 6, no longer mapped, is kept" test -e /sys/bus/scsi/devices/$L:6
grep "\"$L:6\"" /tmp/monitor4.json || :
grep "\"$L:6\"" /tmp/monitor4.json | grep -q 'luns = add by \[react add-only\]' ||
	vm_fail "lunctl monitor: no keep of LUN 6 for luns = add"
for i in 1 2 3; do vm_assert "LUN $i still there" test -e /sys/bus/scsi/devices/$L:$i; done
sd8=$(ls /sys/bus/scsi/devices/$L:8/block 2>/dev/null | head -n1)
named8() { [ -n "$sd8" ] && ls -l "$LUND_LINKS" | grep -q " -> \.\./\.\./$sd8\$"; }
vm_wait_until 30 named8 || vm_fail "add only: LUN 8 ($sd8) not named in $LUND_LINKS"
lund_alive || vm_fail "lund died"
cp $LUND_LOG.new $VM_OUT/lund-3.log
lund_stop

# the peer on the same LUs: it removes what no longer answers
time_ms rsb -r --hosts=$h
cp /tmp/rsb.out $VM_OUT/rsb-mixed.out
for i in 1 2 3; do
	[ -e /sys/bus/scsi/devices/$L:$i ] && st=kept || st=removed
	vm_result "rsb.mixed.lun$i=$st"
done
vm_result "rsb.mixed.ms=$T_MS"
dmesg >$VM_OUT/dmesg.txt
vm_done
