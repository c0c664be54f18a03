#!/bin/sh
# lio-session: an iSCSI session lost and back (LIO on loopback, open-iscsi's iscsid), lund
# running. While the target's portal group is disabled the session fails and its LUs are
# blocked; iscsid logs in again once it returns.
#  1. gone for 30 s, shorter than the session's replacement timeout (60 s): I/O waits and then
#     succeeds, no LU is removed, every name lund made stays exactly as it was, no error counted;
#  2. gone again with a replacement timeout of 5 s, set by lund: lund.conf gets
#     recovery_tmo = 5 for LIO's LUs and `lunctl reload` re-applies the policy; lund writes the
#     session's recovery_tmo (from its worker) and `lunctl policy` shows it. I/O fails after
#     it (the LUs go transport-offline; the kernel refuses the read before it reaches the
#     device, so no error counter moves); when the portal returns the LUs run again, still not
#     removed or renamed.
# Before that, the iSCSI ID_PATH ("ip-<portal>-iscsi-<target>-lun-<n>", the by-path name) lund
# computes (lunctl id --export) against udev's own path_id builtin on the same LUs.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 300
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/lio-lib.sh

modprobe -a sd_mod sg
lio_up
lio_fileio lu0 16 "${LIO_SERIAL}0"
lio_fileio lu1 16 "${LIO_SERIAL}1"
lio_iscsi_target
lio_tpg_lun 0 lu0; lio_tpg_lun 1 lu1
lio_map 0; lio_map 1
LIO_REPLACEMENT_TMO=60 lio_iscsid_login
vm_wait_until 30 lio_nlus_is 2 || vm_fail "2 LUNs expected after the login, have $(lio_nlus)"
S=$(ls -d /sys/class/iscsi_session/session* | head -n1)
vm_assert_eq 60 "$(cat "$S/recovery_tmo")" "the session's replacement timeout is 60 s"
H=$(lio_host)
LU0=/sys/bus/scsi/devices/$H:0:0:0
DISK=/dev/$(ls "$LU0/block")

# iSCSI ID_PATH: lund's against udev's path_id builtin (udevadm, no udevd needed)
for d in /sys/bus/scsi/devices/$H:0:0:*; do
	b=$(ls "$d/block" | head -n1)
	ours=$(lunctl id --export "$d" | sed -n 's/^ID_PATH=//p')
	theirs=$(udevadm test-builtin path_id "/sys/class/block/$b" 2>/dev/null |
		sed -n 's/^ID_PATH=//p')
	vm_log "${d##*/} ($b): lund ID_PATH=$ours, udev's path_id ID_PATH=$theirs"
	vm_assert "${d##*/}: an iSCSI ID_PATH ($ours)" \
		[ "$ours" = "ip-$LIO_PORTAL-iscsi-$LIO_IQN-lun-${d##*:}" ]
	vm_assert_eq "$theirs" "$ours" "${d##*/}: lund's ID_PATH is udev's"
done

lund_start --config /tmp/lund.conf
lunctl monitor --json >/tmp/monitor 2>&1 &
MON_PID=$!
vm_wait_until 30 sh -c '[ "$(ls /dev/scsi/by-id 2>/dev/null | wc -l)" -ge 4 ]' || true
links() { for l in /dev/scsi/by-id/*; do echo "${l##*/} $(readlink "$l")"; done; }
links >/tmp/links.before
vm_log "names: $(wc -l </tmp/links.before) links"
vm_assert "lund named both LUs" [ "$(wc -l </tmp/links.before)" -ge 4 ]
lio_lus >/tmp/lus.before
ioerr() { echo $(( $(cat "$LU0/ioerr_cnt") )); }
e0=$(ioerr)

# timed_read SECONDS_FILE: one direct read of LU 0, its exit status and duration in the file
timed_read() {
	( s=$(date +%s); r=0
	  dd if="$DISK" of=/dev/null bs=4096 count=1 skip=9 iflag=direct 2>/dev/null || r=$?
	  echo "$r $(( $(date +%s) - s ))" >"$1" ) &
}

# --- 1. the portal gone for 30 s --------------------------------------------------------------
echo 0 >"$LIO_TPG/enable"
vm_wait_until 20 grep -q FAILED "$S/state" || true
vm_assert_eq FAILED "$(lio_session_state)" "portal gone: the session failed"
vm_assert_eq blocked "$(cat "$LU0/state")" "portal gone: the LU is blocked"
timed_read /tmp/read1
sleep 30
echo 1 >"$LIO_TPG/enable"
t_back=$(date +%s)
vm_wait_until 90 grep -q LOGGED_IN "$S/state" || true
vm_assert_eq LOGGED_IN "$(lio_session_state)" "portal back: iscsid logged in again"
vm_result outage30.relogin_secs=$(( $(date +%s) - t_back ))
vm_wait_until 30 test -s /tmp/read1 || true
read -r rc secs </tmp/read1
vm_result outage30.read_rc=$rc outage30.read_secs=$secs
vm_assert_eq 0 "$rc" "the read held during the outage succeeded"
vm_assert "the read waited for the session (${secs} s)" [ "$secs" -ge 25 ]
vm_assert_eq running "$(cat "$LU0/state")" "the LU runs again"
vm_assert_eq "$(cat /tmp/lus.before)" "$(lio_lus)" "no LU removed or added"
vm_assert_eq "$(cat /tmp/links.before)" "$(links)" "every name as it was"
vm_assert_eq "$e0" "$(ioerr)" "no command failed"
# lund's decisions as lunctl monitor saw them, and its link reconciles
removals() {
	echo "$(grep -c '"lu-removed"' /tmp/monitor) $(grep -cE ' [1-9][0-9]* removed' "$LUND_LOG.new")"
}
vm_assert_eq "0 0" "$(removals)" "lund removed no LU and no link"

# --- 2. gone again, replacement timeout 5 s ---------------------------------------------------
printf '[device lio]\nvendor = LIO-ORG\nrecovery_tmo = 5\n' >/tmp/lund.conf
vm_assert "lunctl reload re-applies the policy" lunctl reload
vm_wait_until 20 sh -c "[ \"\$(cat $S/recovery_tmo)\" = 5 ]" || true
vm_assert_eq 5 "$(cat "$S/recovery_tmo")" "lund set the session's replacement timeout to 5 s"
vm_assert "lund logged it" grep -q "${S##*/} recovery_tmo 60 -> 5" "$LUND_LOG.new"
vm_log "$(grep "recovery_tmo" "$LUND_LOG.new" | head -n 3)"
lunctl policy "$H:0:0:1" >/tmp/policy
vm_assert "lunctl policy shows the session's timeout" \
	grep -qE "^ +recovery_tmo +5\$" /tmp/policy
echo 0 >"$LIO_TPG/enable"
vm_wait_until 20 grep -q FAILED "$S/state" || true
timed_read /tmp/read2
vm_wait_until 40 test -s /tmp/read2 || true
read -r rc secs </tmp/read2 || { rc=none secs=none; }
vm_result outage5.read_rc=$rc outage5.read_secs=$secs
vm_assert "the read failed after the replacement timeout (rc $rc)" [ "$rc" != 0 ]
vm_assert "it failed within 20 s (${secs} s)" [ "$secs" -lt 20 ]
vm_assert_eq transport-offline "$(cat "$LU0/state")" "the LU is transport-offline"
# The read was refused before it reached the device ("rejecting I/O to offline device"), so
# no command failed: the kernel's ioerr_cnt does not count it, and neither can lund.
vm_result outage5.ioerr_delta=$(( $(ioerr) - e0 ))
echo 1 >"$LIO_TPG/enable"
vm_wait_until 60 grep -q LOGGED_IN "$S/state" || true
vm_assert_eq LOGGED_IN "$(lio_session_state)" "portal back again: logged in"
vm_wait_until 20 sh -c "[ \"\$(cat $LU0/state)\" = running ]" || true
vm_assert_eq running "$(cat "$LU0/state")" "the LU runs again after transport-offline"
vm_assert "a read succeeds again" dd if="$DISK" of=/dev/null bs=4096 count=1 iflag=direct
vm_assert_eq "$(cat /tmp/lus.before)" "$(lio_lus)" "still no LU removed or added"
vm_assert_eq "$(cat /tmp/links.before)" "$(links)" "still every name as it was"
vm_assert_eq "0 0" "$(removals)" "lund still removed no LU and no link"
kill "$MON_PID" 2>/dev/null
tail -n 30 /tmp/iscsid.log >&2
lund_stop
vm_done
