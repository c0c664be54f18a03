#!/bin/sh
# bench/scan: the benchmark behind bench/scan.sh (not a test: the suite runs only scenarios/;
# it asserts nothing about time). One scsi_debug host, 16 targets x 60 LUNs = 960 LUs, then
# max_luns 64: 64 newly mapped LUs, added three ways on the same state, each timed until every
# new LU has its block device, with the SCSI commands per new LU from the sdevs' iorequest_cnt:
#   kernel: echo "- - -" > scan;   lund: lunctl rescan HOST;   rsb: rescan-scsi-bus.sh -a
# (kernel and lund seven times each, alternating; rescan-scsi-bus.sh once)
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 1500
. /vm/guest/lib.sh
. /vm/guest/scan-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
modprobe -a sd_mod sg
modprobe scsi_debug add_host=1 num_tgts=16 max_luns=60 dev_size_mb=1 vpd_use_hostno=0
h=$(hosts_of scsi_debug)
lus() { ls -d /sys/bus/scsi/devices/$h:*:*:* 2>/dev/null | wc -l; }
disks() { ls -d /sys/bus/scsi/devices/$h:*:*:*/block/* 2>/dev/null | wc -l; }
vm_wait_until 300 test "$(disks)" -ge 960 || vm_fail "960 disks did not appear"
vm_result "base_lus=$(lus)"
# sum of iorequest_cnt (hex) over the host's LUs
cmds() {
	_s=0
	for _f in /sys/bus/scsi/devices/$h:*:*:*/iorequest_cnt; do read -r _c <"$_f"; _s=$((_s + _c)); done
	echo $_s
}
ready() { [ "$(disks)" -ge 1024 ]; }
undo() {
	for _d in /sys/bus/scsi/devices/$h:*:*:6[0-3]; do echo 1 >"$_d/delete"; done
	vm_wait_until 60 test "$(lus)" -eq 960
}
echo 64 >$SD/max_luns

run() {       # NAME COMMAND...
	_n=$1; shift
	_c0=$(cmds)
	_t0=$(vm_uptime_ms)
	_rc=0; "$@" >/tmp/$_n.out 2>&1 || _rc=$?
	vm_wait_until "${WAIT:-120}" ready || vm_log "$_n: not every new LU appeared"
	_ms=$(( $(vm_uptime_ms) - _t0 ))
	_c1=$(cmds)
	_new=$(( $(lus) - 960 ))
	vm_result "$_n.ms=$_ms $_n.rc=$_rc $_n.new=$_new $_n.cmds=$((_c1 - _c0)) $_n.cmds_per_lu=$(( (_c1 - _c0) / (_new > 0 ? _new : 1) ))"
	tail -n 5 /tmp/$_n.out
	undo
}
kernel_scan() { echo "- - -" >/sys/class/scsi_host/host$h/scan; }
# Alternating rounds on the same state: bench/scan.sh compares medians, since one TCG guest
# on a shared machine varies by tens of percent from one run to the next.
for i in 1 2 3 4 5 6 7; do
	run kernel$i kernel_scan
	run lund$i lunctl rescan "$h"
done
WAIT=5 run rsb timeout "${RSB_BENCH_TIMEOUT:-900}" bash /usr/bin/rescan-scsi-bus.sh -a --hosts=$h
vm_done
