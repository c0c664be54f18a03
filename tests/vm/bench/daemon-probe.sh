#!/bin/sh
# bench/daemon-probe: diagnostics for bench/daemon.sh (not a test): 512 LUs at once with lund at
# its defaults; kernel time, naming time, lund's CPU time, resyncs and uevent counters.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 600
. /vm/guest/lib.sh
modprobe -a sd_mod sg
modprobe scsi_debug add_host=0 num_tgts=4 max_luns=128 dev_size_mb=1
lund --run-dir /run/lund >/tmp/lund.log 2>&1 &
lp=$!
vm_wait_until 60 grep -q 'Ready:' /tmp/lund.log
read -r _p _c _s _x1 _x2 _x3 _x4 _x5 _x6 _x7 _x8 _x9 _x10 u0 s0 _rest </proc/$lp/stat
t0=$(vm_uptime_ms)
echo 1 >/sys/bus/pseudo/drivers/scsi_debug/add_host &
vm_wait_until 600 sh -c '[ $(ls /sys/block | grep -c "^sd") -ge 512 ]'; tk=$(vm_uptime_ms)
vm_wait_until 600 sh -c '[ $(ls -l /dev/scsi/by-id | grep -c " -> \.\./\.\./sd") -ge 1024 ]'; tn=$(vm_uptime_ms)
read -r _p _c _s _x1 _x2 _x3 _x4 _x5 _x6 _x7 _x8 _x9 _x10 u1 s1 _rest </proc/$lp/stat
vm_result "kernel_ms=$((tk - t0)) names_ms=$((tn - t0)) lund_cpu_ms=$(( (u1 + s1 - u0 - s0) * 10 )) resyncs=$(grep -c Resynchron /tmp/lund.log) log_lines=$(wc -l </tmp/lund.log) rss_kb=$(awk '/VmRSS/ { print $2 }' /proc/$lp/status)"
lunctl status
grep -v 'created ->\|added:' /tmp/lund.log | tail -n 15
vm_done
