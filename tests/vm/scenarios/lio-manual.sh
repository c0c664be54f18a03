#!/bin/sh
# lio-manual: scsi_mod.scan=manual with iSCSI, open-iscsi told not to scan either
# (node.session.scan=manual): lund, running before the login, scans the new session's host and
# names its LUs. Control: a login without lund leaves its session without LUs; lund's start-up
# scan then finds them. Afterwards `lunctl rescan` finds nothing more to add. Then, with
# `new_hosts = report` for iSCSI hosts (a [react] section, `lunctl reload`), a third session's
# host is left unscanned with a log line saying why, until `lunctl rescan` of that host.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 180
# vm-append: scsi_mod.scan=manual
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/lio-lib.sh

modprobe -a sd_mod sg
lio_up
for i in 0 1 2; do lio_fileio lu$i 16 "${LIO_SERIAL}$i"; done
lio_iscsi_target
lio_iscsi_portal 127.0.0.2:3260
lio_iscsi_portal 127.0.0.3:3260
for i in 0 1 2; do lio_tpg_lun $i lu$i; lio_map $i; done

# control: nobody scans the session
LIO_ISCSI_SCAN=manual
lio_iscsi_login
sleep 3
vm_assert_eq 0 "$(n_lus)" "LUs after a login without lund (scan=manual)"

h0=$(lio_host)
: >/tmp/lund.conf
lund_start --config /tmp/lund.conf
vm_assert_eq 3 "$(ls -d /sys/bus/scsi/devices/$h0:0:0:* 2>/dev/null | wc -l)" "LUs of the unscanned session after lund's start-up scan"
t0=$(vm_uptime_ms)
lio_iscsi_login 127.0.0.2:3260
h1=$(lio_hosts | grep -vx "$h0" | head -n1)
if vm_wait_until 60 sh -c "[ \$(ls -d /sys/bus/scsi/devices/$h1:0:0:* 2>/dev/null | wc -l) -ge 3 ]"; then
	vm_log "ok: lund scanned the new session (host$h1)"
else
	vm_fail "no LUs on the new session (host$h1) after 60 s ($(n_lus) in all)"
fi
t1=$(vm_uptime_ms)
daemon_check_tree "second session scanned" 30
vm_result "manual.lus=$(n_lus) manual.ms=$((t1 - t0)) links=$(wc -l </tmp/tree.act)"
lio_rescan_adds_none 6

# new_hosts = report (lund.conf(5) REACTIONS) for iSCSI hosts: a third session's host is left
# unscanned, and said so, until the admin scans it
printf '[react iscsi-hosts]\ntransport = iscsi\nnew_hosts = report\n' >/tmp/lund.conf
lunctl reload >/tmp/reload.out 2>&1 || vm_fail "lunctl reload: $(cat /tmp/reload.out)"
lio_iscsi_login 127.0.0.3:3260
h2=$(lio_hosts | grep -vx "$h0" | grep -vx "$h1" | head -n1)
reported() { grep -q "host$h2: .*not scanned: new_hosts = report by \\[react iscsi-hosts\\]" "$LUND_LOG.new"; }
vm_wait_until 30 reported || vm_fail "lund did not say it leaves host$h2 unscanned"
grep "host$h2" "$LUND_LOG.new" || :
sleep 3 # lund scanned the second session within ~1-2 s: give it more than that to do nothing
vm_assert_eq 0 "$(ls -d /sys/bus/scsi/devices/$h2:0:0:* 2>/dev/null | wc -l)" "LUs of a new iSCSI host with new_hosts = report"
lunctl rescan "$h2" >/tmp/rescan.out 2>&1 || vm_fail "lunctl rescan $h2: $(cat /tmp/rescan.out)"
vm_assert_eq 3 "$(ls -d /sys/bus/scsi/devices/$h2:0:0:* 2>/dev/null | wc -l)" "LUs of that host after the admin's rescan"
daemon_check_tree "third session, scanned by the admin" 30
lund_alive || vm_fail "lund died"
lund_stop
cp "$LUND_LOG" "$VM_OUT/lund.log"
vm_done
