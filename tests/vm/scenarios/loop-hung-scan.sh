#!/bin/sh
# loop-hung-scan: a host scan that hangs in the kernel does not hang lund. Under
# scsi_mod.scan=manual lund scans every host at start-up; every scsi_debug command times out
# (opts=4 TIMEOUT, every_nth=1), so the kernel's probe behind lund's write to the host's scan
# attribute lasts minutes. Meanwhile status requests are answered, a `lunctl rescan` waits in
# lund's queue behind the running scan (`lunctl status` shows both) without stalling anyone
# else, the loop answers every probe across a watchdog period (sd-event pings the watchdog from
# each loop iteration; the host test daemon-stuck-scan reads the WATCHDOG=1 messages), and
# SIGTERM answers the waiting client, makes lund give up the scan after its grace period, name
# it, remove its control socket and exit 75.
# vm-flavour: busybox
# vm-topology: none
# vm-append: scsi_mod.scan=manual
# vm-timeout: 400
. /vm/guest/lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
RUN=/run/lund
LOG=/tmp/lund.log
export LUND_RUN_DIR=$RUN

modprobe -a sd_mod sg
modprobe scsi_debug add_host=1 num_tgts=2 max_luns=1
echo 1 >$SD/every_nth
echo 4 >$SD/opts

lund --run-dir $RUN --scan always --load-modules never --log-level debug >$LOG 2>&1 &
pid=$!
vm_wait_until 60 test -S $RUN/control || vm_fail "no control socket"
vm_wait_until 60 grep -q 'Scanning every host' $LOG || vm_fail "no start-up scan"
# The probe write is in the kernel once scsi_debug has seen a command time out.
vm_wait_until 120 sh -c "lunctl status --json 2>/dev/null | grep -q '\"running\": *true'" ||
	vm_fail "status never showed the running scan"

vm_assert "status answered during the hung scan" timeout 20 lunctl status
lunctl rescan 0 >/tmp/rescan.log 2>&1 &
rpid=$!
vm_wait_until 30 grep -q 'queued behind "start-up"' $LOG ||
	vm_fail "the rescan request was not queued behind the hung scan"
vm_assert "status answered while a rescan waits" sh -c 'timeout 20 lunctl status >/tmp/status.txt'
cat /tmp/status.txt
vm_assert "status shows the running scan" grep -q 'running: start-up (every host)' /tmp/status.txt
vm_assert "status shows the queued request" grep -q "queued:  request from pid $rpid (0)" \
	/tmp/status.txt
vm_assert "lunctl rescan waits in the queue" kill -0 $rpid
# The loop keeps turning: every probe over 6 s is answered, none slowly.
worst=0
for i in 1 2 3 4 5 6; do
	a=$(vm_uptime_ms)
	timeout 10 lunctl status --json >/dev/null || vm_fail "status probe $i not answered"
	d=$(($(vm_uptime_ms) - a))
	[ $d -gt $worst ] && worst=$d
	sleep 1
done
vm_result "status_probe_worst_ms=$worst"
[ $worst -lt 5000 ] || vm_fail "a status probe took $worst ms during the hung scan"

t0=$(vm_uptime_ms)
kill -TERM $pid
vm_wait_until 30 grep -q 'stuck in the kernel after the 5 s shutdown grace: "start-up, every host"' $LOG ||
	vm_fail "SIGTERM: lund did not give up the hung scan"
vm_wait_until 10 sh -c "! test -S $RUN/control" || vm_fail "the control socket outlived SIGTERM"
vm_result "sigterm_to_socket_gone_ms=$(($(vm_uptime_ms) - t0))"
rrc=0
wait $rpid || rrc=$?
vm_assert "the waiting lunctl rescan was told lund stops (exit $rrc)" grep -q 'lund is stopping' \
	/tmp/rescan.log

# Let the kernel finish: the process goes once its last thread leaves the write.
echo 0 >$SD/opts
vm_wait_until 300 sh -c "! kill -0 $pid 2>/dev/null" || vm_log "lund still in the kernel's scan"
vm_result "exited_ms=$(($(vm_uptime_ms) - t0))"
rc=0
wait $pid || rc=$?
vm_assert "lund exited 75 (scan stuck), got $rc" test $rc -eq 75
tail -n 20 $LOG
vm_done
