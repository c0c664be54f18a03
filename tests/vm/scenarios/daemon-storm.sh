#!/bin/sh
# daemon-storm: 512 LUs added at once (one scsi_debug host, 2 targets x 256 LUNs) while lund
# listens with a 4 KiB uevent buffer, so most of the ~4600 uevents are lost (ENOBUFS): lund must
# resynchronise from sysfs and end with exactly the link tree computed from sysfs and lunctl.
# Then the host goes away at once: no link may stay behind.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 420
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
modprobe -a sd_mod sg
modprobe scsi_debug add_host=0 num_tgts=2 max_luns=256 dev_size_mb=1
lund_start --receive-buffer 4K
vm_assert_eq 0 "$(n_lus)" "LUs before the storm"

t0=$(vm_uptime_ms)
echo 1 >$SD/add_host
vm_wait_until 240 sh -c '[ $(ls -d /sys/bus/scsi/devices/*:*:*:* | wc -l) -ge 512 ] && [ $(ls /sys/class/scsi_generic | wc -l) -ge 512 ] && [ $(ls -d /sys/block/sd* | wc -l) -ge 512 ]' ||
	vm_fail "storm: not all 512 LUs appeared ($(n_lus))"
t1=$(vm_uptime_ms)
vm_log "kernel: 512 LUs with sd and sg nodes after $((t1 - t0)) ms"
daemon_check_tree "after the storm" 180
t2=$(vm_uptime_ms)
vm_assert_eq 1024 "$(grep -c '\.\./\.\./sd' /tmp/tree.act)" "links to sd nodes (512 LUs x scsi- + wwn-)"
enobufs=$(lunctl status --json | sed -n 's/.*"enobufs": *\([0-9]*\).*/\1/p')
vm_result "lus=$(n_lus) links=$(wc -l </tmp/tree.act) kernel_ms=$((t1 - t0)) exact_ms=$((t2 - t0)) enobufs=$enobufs"
# the scenario is only meaningful if the buffer did overflow
vm_assert_ge 1 "${enobufs:-0}" "receive buffer overflows during the storm (the resync path ran)"

echo -1 >$SD/add_host
vm_wait_until 240 sh -c '[ $(ls -d /sys/bus/scsi/devices/*:*:*:* 2>/dev/null | wc -l) -eq 0 ]' ||
	vm_fail "storm host not removed ($(n_lus) LUs left)"
daemon_check_tree "after the removal storm" 180
vm_assert_eq 0 "$(daemon_actual | wc -l)" "links left after every LU is gone"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
