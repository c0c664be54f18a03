#!/bin/sh
# bench/lio-scale: the benchmark behind bench/lio-scale.sh (not a test: it asserts nothing about
# time). A real target: LIO over iSCSI on loopback with 512 fileio LUNs mapped to the
# initiator's ACL; the session is logged in with nobody scanning (node.session.scan=manual).
#   kernel: echo "0 0 -" > scan (the kernel's own REPORT LUNS scan of the session's target);
#   lund:   lunctl rescan HOST (the same LUs deleted first);
# each timed until every LU has its block device, then lund started cold on the 512 LUs: its
# "Ready:" time (every name written) and the time until the link tree is exact.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 1500
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/lio-lib.sh

N=512
modprobe -a sd_mod sg
lio_up
lio_iscsi_target
i=0
while [ $i -lt $N ]; do
	lio_fileio lu$i 1 "$(printf '10de%08x' $i)"
	lio_tpg_lun $i lu$i
	lio_map $i
	i=$((i + 1))
done
vm_log "$N LUNs mapped"
LIO_ISCSI_SCAN=manual
lio_iscsi_login
h=$(lio_host)
disks() { ls -d /sys/bus/scsi/devices/$h:0:0:*/block/* 2>/dev/null | wc -l; }
undo() { for d in /sys/bus/scsi/devices/$h:0:0:*; do echo 1 >"$d/delete"; done; }
vm_result "base_lus=$(lio_nlus)"

t0=$(vm_uptime_ms)
echo "0 0 -" >/sys/class/scsi_host/host$h/scan
vm_wait_until 900 test "$(disks)" -ge $N || vm_fail "kernel scan: $(disks) disks"
t1=$(vm_uptime_ms)
vm_result "kernel.ms=$((t1 - t0)) kernel.lus=$(lio_nlus)"
undo
vm_wait_until 120 test "$(lio_nlus)" -eq 0 || vm_fail "LUs left after delete: $(lio_nlus)"

t0=$(vm_uptime_ms)
lunctl rescan "$h" >/tmp/rescan.out 2>&1 || vm_fail "lunctl rescan: $(tail -n 3 /tmp/rescan.out)"
vm_wait_until 900 test "$(disks)" -ge $N || vm_fail "lunctl rescan: $(disks) disks"
t1=$(vm_uptime_ms)
vm_result "lund.ms=$((t1 - t0)) lund.lus=$(lio_nlus)"

t0=$(vm_uptime_ms)
lund_start
t1=$(vm_uptime_ms)
daemon_check_tree "cold start on $N LUs" 600
t2=$(vm_uptime_ms)
ready=$(sed -n 's/.*Ready:.* after \([0-9]*\) ms.*/\1/p' "$LUND_LOG.new" | tail -n1)
vm_result "cold.ready_ms=$((t1 - t0)) cold.lund_ready_ms=${ready:-0} cold.exact_ms=$((t2 - t0)) cold.links=$(wc -l </tmp/tree.act)"
lund_stop
vm_done
