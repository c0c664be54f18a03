#!/bin/sh
# lio-login-late: iSCSI logins that complete seconds after their session appeared, under
# scsi_mod.scan=manual with open-iscsi told not to scan (node.session.scan=manual). The kernel
# creates the session (its iscsi_session add uevent, its SCSI host) when the initiator starts
# to log in and sends nothing when the login completes; a portal group that is disabled
# refuses the login ("target error 03/01") and iscsistart retries it every 2 s (up to 60 times
# here: a loaded machine may take a while to start lund), so the session stays FREE/FAILED
# until the group is enabled. lund must scan the session once it is logged in, not only when
# it appears (a scan then finds no target):
#  1. lund starts while a session is still logging in: its start-up scan finds nothing there;
#     once the login completes lund scans it and names its LUs;
#  2. lund running, a second session to another portal group appears and logs in 3 s later:
#     `lunctl status` shows it waiting, then its LUs appear and are named.
# Afterwards `lunctl rescan` finds nothing more to add.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 240
# vm-append: scsi_mod.scan=manual
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/lio-lib.sh

modprobe -a sd_mod sg
lio_up
for i in 0 1 2 3 4 5; do lio_fileio lu$i 16 "${LIO_SERIAL}$i"; done
lio_iscsi_target
for i in 0 1 2; do lio_tpg_lun $i lu$i; lio_map $i; done
TPG1=$LIO_TPG
lio_iscsi_tpg 2 127.0.0.2:3260
for i in 3 4 5; do lio_tpg_lun $i lu$i; lio_map $i; done
TPG2=$LIO_TPG
echo 0 >"$TPG1/enable"
echo 0 >"$TPG2/enable"

# session_of_host H: the iSCSI session (sessionN) whose SCSI host is hostH
session_of_host() {
	for _s in /sys/class/iscsi_session/session*; do
		case "$(readlink "$_s")" in */host$1/*) echo "${_s##*/}"; return 0 ;; esac
	done
	return 1
}
# host_lus H: LUs below hostH
host_lus() { ls -d /sys/bus/scsi/devices/$1:0:0:* 2>/dev/null | wc -l; }
# release TPG H S: enable portal group TPG, whose login of session S (host H) iscsistart is
# retrying, and wait for lund to scan the session's three LUs once it is logged in;
# RELEASE_MS: how long that took
release() {
	_t0=$(vm_uptime_ms)
	echo 1 >"$1/enable"
	if vm_wait_until 60 sh -c "[ \$(ls -d /sys/bus/scsi/devices/$2:0:0:* 2>/dev/null | wc -l) -ge 3 ]"; then
		vm_log "ok: lund scanned $3 (host$2) after its login"
	else
		vm_fail "no LUs on $3 (host$2) 60 s after its login ($(n_lus) in all, state $(cat /sys/class/iscsi_session/$3/state))"
	fi
	RELEASE_MS=$(($(vm_uptime_ms) - _t0))
}
# held S: session S exists and is not logged in
held() { _st=$(cat /sys/class/iscsi_session/$1/state 2>/dev/null) && [ "$_st" != LOGGED_IN ]; }

# 1. a session logging in when lund starts
LIO_ISCSI_SCAN=manual LIO_ISCSI_RETRIES=60 lio_iscsi_login 127.0.0.1:3260 &
login1=$!
vm_wait_until 30 sh -c 'ls /sys/class/iscsi_session/ 2>/dev/null | grep -q session' ||
	vm_fail "no iSCSI session while the first login is refused"
h1=$(lio_host)
s1=$(session_of_host "$h1")
lund_start
held "$s1" || vm_fail "the login of $s1 was not held back (state $(cat /sys/class/iscsi_session/$s1/state))"
vm_assert_eq 0 "$(host_lus "$h1")" "LUs on $s1 (host$h1) before its login"
grep -q "host$h1: iSCSI $s1 not logged in yet" "$LUND_LOG.new" ||
	vm_fail "lund did not say it waits for $s1's login"
release "$TPG1" "$h1" "$s1"
first_ms=$RELEASE_MS
wait "$login1" || vm_fail "the first login failed"
daemon_check_tree "first session, logged in after lund's start" 30

# 2. lund running: a new session that logs in 3 s after it appeared
LIO_ISCSI_SCAN=manual LIO_ISCSI_TPGT=2 LIO_ISCSI_RETRIES=60 lio_iscsi_login 127.0.0.2:3260 &
login2=$!
vm_wait_until 30 sh -c "[ \$(ls /sys/class/iscsi_session/ | wc -l) -ge 2 ]" ||
	vm_fail "no second iSCSI session while its login is refused"
h2=$(lio_hosts | grep -vx "$h1" | head -n1)
s2=$(session_of_host "$h2")
# whatever lund does about the new session's uevents, it has done it: it waits for nothing else
lunctl settle --timeout 60 >/dev/null 2>&1 || vm_fail "lunctl settle failed"
held "$s2" || vm_fail "the login of $s2 was not held back"
vm_assert_eq 0 "$(host_lus "$h2")" "LUs on $s2 (host$h2) before its login"
lunctl --json status >/tmp/status.json || vm_fail "lunctl status failed"
grep -q "\"$s2\"" /tmp/status.json || vm_fail "status does not show $s2 waiting: $(grep -A4 iscsi_logins /tmp/status.json)"
lunctl status | grep "iSCSI logins" || vm_fail "lunctl status does not show the waiting login"
sleep 3
release "$TPG2" "$h2" "$s2"
wait "$login2" || vm_fail "the second login failed"
daemon_check_tree "second session, logged in 3 s after it appeared" 30
grep -q "host$h2: iSCSI $s2 logged in" "$LUND_LOG.new" || vm_fail "lund did not log $s2's login"
lunctl --json status >/tmp/status.json
vm_assert_eq 0 "$(grep -c '"session' /tmp/status.json)" "sessions still shown waiting"
vm_result "late.lus=$(n_lus) first.ms=$first_ms second.ms=$RELEASE_MS links=$(wc -l </tmp/tree.act)"
lio_rescan_adds_none 6
lund_alive || vm_fail "lund died"
lund_stop
cp "$LUND_LOG" "$VM_OUT/lund.log"
vm_done
