#!/bin/sh
# daemon-kill: lund is killed with SIGKILL in the middle of a 512-LU storm (links half made,
# perhaps a temporary file or a record without its link). While it is down the storm's host is
# removed (its links become stale) and a new 512-LU host is added. The restarted lund must end
# with exactly the tree computed from sysfs and lunctl: no stale link, no temporary file, none
# missing.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 660
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
all_lus() { [ "$(n_lus)" -eq "$1" ] && [ "$(ls /sys/class/scsi_generic | wc -l)" -ge "$1" ]; }
modprobe -a sd_mod sg
modprobe scsi_debug add_host=0 num_tgts=2 max_luns=256 dev_size_mb=1
lund_start --receive-buffer 64K

echo 1 >$SD/add_host &
adder=$!
vm_wait_until 120 sh -c '[ $(ls /dev/scsi/by-id 2>/dev/null | wc -l) -ge 100 ]' ||
	vm_fail "lund made no links during the storm"
kill -9 "$LUND_PID"; wait "$LUND_PID" 2>/dev/null || true
cat "$LUND_LOG.new" >>"$LUND_LOG"; LUND_PID=
made=$(daemon_actual | wc -l)
vm_log "killed lund with $made links made, $(n_lus) LUs in sysfs"
wait $adder
vm_wait_until 240 all_lus 512 || vm_fail "first storm incomplete ($(n_lus))"

# while lund is down: the host goes (stale links), another comes
echo -1 >$SD/add_host
vm_wait_until 240 all_lus 0 || vm_fail "first host not removed ($(n_lus))"
stale=$(daemon_actual | wc -l)
echo 1 >$SD/add_host &
adder=$!
sleep 1
lund_start --receive-buffer 64K
wait $adder   # not a bare wait: lund is a background job too
vm_wait_until 240 all_lus 512 || vm_fail "second storm incomplete ($(n_lus))"
daemon_check_tree "after the restart" 180
vm_result "links_at_kill=$made stale_links=$stale final_links=$(wc -l </tmp/tree.act)"
vm_assert_ge 1 "$stale" "stale links left by the killed lund (the test is meaningful)"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
