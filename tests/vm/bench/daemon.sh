#!/bin/bash
# bench/daemon (bench/daemon.sh; a benchmark, not in the suite): cold-start naming of 1024
# scsi_debug LUs (4 targets x 256 LUNs) in one VM, first with udevd + Debian's rules naming
# them with scsi_id (sg3-utils-udev's rule moved away), then with lund alone (udevd stopped).
# Each round reports the time from adding the host (modprobe, then add_host) until the kernel had every sd device, and until
# every by-id name existed (2 per disk: scsi- and wwn-). Prints, never asserts.
# vm-flavour: udev-root
# vm-topology: none
# vm-timeout: 1500
. /vm/guest/lib.sh

N=${LUND_BENCH_LUS:-1024}
ARGS="add_host=1 num_tgts=4 max_luns=$((N / 4)) dev_size_mb=1"
sd_count() { ls /sys/block | grep -c '^sd'; }
now() { vm_uptime_ms; }

# --- udevd + scsi_id ---------------------------------------------------------------------------
mv /lib/udev/rules.d/55-scsi-sg3_id.rules /tmp/ 2>/dev/null || true
udevadm control --reload
modprobe -a sd_mod sg
t0=$(now)
modprobe scsi_debug $ARGS
vm_wait_until 900 sh -c "[ \$(ls /sys/block | grep -c '^sd') -ge $N ]"; tk=$(now)
vm_wait_until 900 sh -c "[ \$(ls /dev/disk/by-id 2>/dev/null | grep -c '^scsi-\|^wwn-') -ge $((2 * N)) ]"; tn=$(now)
vm_result "tool=udev lus=$(sd_count) kernel_ms=$((tk - t0)) names_ms=$((tn - t0)) names=$(ls /dev/disk/by-id | grep -c '^scsi-\|^wwn-')"
# the host goes (udev's helpers may still hold the module: no rmmod); round two adds it again
udevadm settle --timeout=300
echo -1 >/sys/bus/pseudo/drivers/scsi_debug/add_host
vm_wait_until 600 sh -c "[ \$(ls /sys/block | grep -c '^sd') -eq 0 ]"
udevadm settle --timeout=300

# --- lund alone --------------------------------------------------------------------------------
udevadm control --exit
sleep 1
lund --run-dir /run/lund --load-modules never >/tmp/lund.log 2>&1 &
lp=$!
vm_wait_until 60 grep -q 'Ready:' /tmp/lund.log
read -r -a st </proc/$lp/stat; cpu0=$(( (st[13] + st[14]) * 10 ))
t0=$(now)
echo 1 >/sys/bus/pseudo/drivers/scsi_debug/add_host
vm_wait_until 900 sh -c "[ \$(ls /sys/block | grep -c '^sd') -ge $N ]"; tk=$(now)
vm_wait_until 900 sh -c "[ \$(ls -l /dev/scsi/by-id 2>/dev/null | grep -c ' -> \.\./\.\./sd') -ge $((2 * N)) ]"; tn=$(now)
vm_result "tool=lund lus=$(sd_count) kernel_ms=$((tk - t0)) names_ms=$((tn - t0)) names=$(ls -l /dev/scsi/by-id | grep -c ' -> \.\./\.\./sd')"
# where lund's time went: its CPU time (user+system) and memory with the LUs named
read -r -a st </proc/$lp/stat
vm_result "lund_cpu_ms=$(( (st[13] + st[14]) * 10 )) lund_rss_kb=$(awk '/VmRSS/ { print $2 }' /proc/$lp/status) lund_start_cpu_ms=${cpu0:-0}"
lunctl status | sed -n '/^Resyncs/,/^Uevents/p'
vm_result "lund_resyncs=$(grep -c 'Resynchronising' /tmp/lund.log) lund_log_lines=$(wc -l </tmp/lund.log)"
kill %1 2>/dev/null || true
vm_done
