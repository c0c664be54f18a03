#!/bin/sh
# bench/lio-scale: the scan half of bench/lio-scale.sh (not a test: it asserts nothing about
# time). A real target: LIO over iSCSI on loopback with 512 ramdisk LUNs in a portal group in
# demo mode (generate_node_acls: every exported LUN is the initiator's, no ACL to map), the
# session logged in with nobody scanning (node.session.scan=manual). Rounds alternate:
#   kernel: echo "0 0 -" > scan (the kernel's own REPORT LUNS scan of the session's target);
#   lund:   lunctl rescan HOST;
# each from no LU to every LU with its block device, the LUs deleted between rounds. Then lund
# started cold on the 512 LUs: its "Ready:" time (every name written) and the time until the
# link tree is exact. Waits poll with shell globs (no process per poll).
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 1500
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/lio-lib.sh

N=512
ROUNDS=${LUND_BENCH_ROUNDS:-3}
modprobe -a sd_mod sg
lio_up
t0=$(vm_uptime_ms)
lio_iscsi_target
rmdir "$LIO_ACL"
lio_demo_mode
lio_ramdisks $N
lio_export_ramdisks $N
vm_result "setup_ms=$(($(vm_uptime_ms) - t0))"
vm_log "$N LUNs exported in $(($(vm_uptime_ms) - t0)) ms"
LIO_ISCSI_SCAN=manual
lio_iscsi_login
h=$(lio_host)
# disks_ge MIN: whether at least MIN LUs of the session have their block device (sets $n)
disks_ge() {
	set -- "$1" /sys/bus/scsi/devices/$h:0:0:*/block/*
	_min=$1
	shift
	n=$#
	[ -e "$1" ] || n=0
	[ "$n" -ge "$_min" ]
}
wait_disks() {
	_end=$(($(vm_uptime_ms) + 900000))
	until disks_ge $N; do
		[ "$(vm_uptime_ms)" -lt $_end ] || return 1
		sleep 0.1
	done
}
lus_left() { set -- /sys/bus/scsi/devices/$h:0:0:*; [ -e "$1" ]; }
undo() {
	for d in /sys/bus/scsi/devices/$h:0:0:*; do [ -e "$d/delete" ] && echo 1 >"$d/delete"; done
	_end=$(($(vm_uptime_ms) + 120000))
	while lus_left; do
		[ "$(vm_uptime_ms)" -lt $_end ] || vm_fail "LUs left after delete: $(lio_nlus)"
		sleep 0.2
	done
}
vm_result "base_lus=$(lio_nlus)"

r=1
while [ $r -le $ROUNDS ]; do
	t0=$(vm_uptime_ms)
	echo "0 0 -" >/sys/class/scsi_host/host$h/scan
	wait_disks || vm_fail "kernel scan, round $r: $n disks"
	t1=$(vm_uptime_ms)
	vm_result "tool=kernel round=$r ms=$((t1 - t0)) lus=$(lio_nlus)"
	undo
	t0=$(vm_uptime_ms)
	lunctl rescan "$h" >/tmp/rescan.out 2>&1 || vm_fail "lunctl rescan: $(tail -n 3 /tmp/rescan.out)"
	wait_disks || vm_fail "lunctl rescan, round $r: $n disks"
	t1=$(vm_uptime_ms)
	vm_result "tool=lund round=$r ms=$((t1 - t0)) lus=$(lio_nlus)"
	[ $r -eq $ROUNDS ] || undo
	r=$((r + 1))
done

t0=$(vm_uptime_ms)
lund_start
t1=$(vm_uptime_ms)
daemon_check_tree "cold start on $N LUs" 600
t2=$(vm_uptime_ms)
ready=$(sed -n 's/.*Ready:.* after \([0-9]*\) ms.*/\1/p' "$LUND_LOG.new" | tail -n1)
vm_result "cold.ready_ms=$((t1 - t0)) cold.lund_ready_ms=${ready:-0} cold.exact_ms=$((t2 - t0)) cold.links=$(wc -l </tmp/tree.act)"
lund_stop
vm_done
