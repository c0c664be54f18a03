#!/bin/sh
# links-faults: /dev/scsi/by-id full (a tmpfs with few inodes) while lund starts: most links
# fail; room made, lund's retry timer must complete the tree. Then lund is killed (-9), its
# link records wiped and lund started again: the links it finds are adopted, so when the host
# goes every one of its names must go too (none left naming a node another disk gets next).
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 240
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
modprobe -a sd_mod sg
modprobe scsi_debug add_host=1 num_tgts=1 max_luns=8 dev_size_mb=1
vm_wait_until 60 sh -c '[ $(ls /sys/class/scsi_generic | wc -l) -ge 8 ]' || vm_fail "no 8 LUs"

mkdir -p "$LUND_LINKS"
mount -t tmpfs -o nr_inodes=12,mode=755 links-full "$LUND_LINKS" || vm_fail "tmpfs mount"
lund_start
made=$(daemon_actual | wc -l)
daemon_expected >/tmp/tree.exp
want=$(wc -l </tmp/tree.exp)
vm_log "with /dev full: $made of $want links made"
[ "$made" -lt "$want" ] || vm_fail "/dev full: every link was made ($made), the test proves nothing"
mount -o remount,nr_inodes=100000 "$LUND_LINKS"
daemon_check_tree "room made, retried by the timer" 60
grep -q "Retrying .* link writes that failed" "$LUND_LOG.new" || vm_fail "no retry logged"

kill -9 "$LUND_PID"; wait "$LUND_PID" 2>/dev/null || true
cat "$LUND_LOG.new" >>"$LUND_LOG"; LUND_PID=
rm -rf "$LUND_RUN/links"
lund_start
grep -q " $want adopted" "$LUND_LOG.new" || vm_fail "the $want links found were not adopted"
daemon_check_tree "records wiped, restarted" 30
echo -1 >$SD/add_host
vm_wait_until 60 sh -c '[ $(ls /sys/class/scsi_generic | wc -l) -eq 0 ]' || vm_fail "host not removed"
daemon_check_tree "host removed" 30
left=$(daemon_actual | wc -l)
vm_assert_eq 0 "$left" "links left after the host went"
vm_result "links_made_full=$made links_wanted=$want links_left=$left"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
