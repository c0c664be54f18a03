#!/bin/sh
# daemon-hotplug: links follow devices while lund runs. scsi_debug gains a host (add_host=1,
# with vpd_use_hostno=1 so its LUs have IDs of their own) and loses it again (add_host=-1);
# the host hot-adds a virtio-scsi disk over QMP (the kernel scans it by itself) and removes it.
# After each step /dev/scsi/by-id must be exactly the tree computed from sysfs and lunctl
# (guest/daemon-lib.sh): new names appear, and no link of a removed LU stays behind.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 200
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
san_up
lund_start
daemon_check_tree "start"
base=$(wc -l </tmp/tree.exp)

# --- scsi_debug add_host / remove -------------------------------------------------------------
echo 1 >$SD/vpd_use_hostno
before=$(n_lus)
t0=$(vm_uptime_ms)
echo 1 >$SD/add_host
vm_wait_until 20 sh -c "[ \$(ls -d /sys/bus/scsi/devices/*:*:*:* | wc -l) -ge $((before + 4)) ]" ||
	vm_fail "scsi_debug add_host: no new LUs in sysfs"
daemon_check_tree "scsi_debug add_host=1" 30
t1=$(vm_uptime_ms)
added=$(wc -l </tmp/tree.exp)
vm_assert_ge $((base + 8)) "$added" "links after add_host (4 LUs x sd + sg, at least)"
vm_result "add_host_links=$((added - base)) add_host_ms=$((t1 - t0))"

echo -1 >$SD/add_host
vm_wait_until 20 sh -c "[ \$(ls -d /sys/bus/scsi/devices/*:*:*:* | wc -l) -eq $before ]" ||
	vm_fail "scsi_debug add_host=-1: LUs still in sysfs"
daemon_check_tree "scsi_debug add_host=-1" 30
vm_assert_eq "$base" "$(wc -l </tmp/tree.act)" "links after the host was removed"

# --- QMP hot-add / hot-remove on virtio-scsi --------------------------------------------------
vm_sync HOTADD 90
vm_wait_until 30 grep -q HOTPLUG01 /sys/bus/scsi/devices/*/vpd_pg80 ||
	vm_fail "hot-added virtio-scsi disk never appeared in sysfs"
daemon_check_tree "QMP hot-add" 30
# ID_SERIAL of a disk with an NAA designator is "3" + the NAA (scsi_id)
vm_assert "hot-added disk has its scsi- link" test -b "$LUND_LINKS/scsi-35000c500abcd0001"
vm_assert "hot-added disk has its wwn- link" test -b "$LUND_LINKS/wwn-0x5000c500abcd0001"
vm_assert "hot-added disk has its -sg link" test -c "$LUND_LINKS/wwn-0x5000c500abcd0001-sg"

vm_sync HOTREMOVE 90
vm_wait_until 30 sh -c '! grep -q HOTPLUG01 /sys/bus/scsi/devices/*/vpd_pg80' ||
	vm_fail "hot-removed virtio-scsi disk still in sysfs"
daemon_check_tree "QMP hot-remove" 30
vm_assert "no link of the removed disk" sh -c "! ls $LUND_LINKS | grep -q -e HOTPLUG01 -e 5000c500abcd0001"
vm_assert_eq "$base" "$(wc -l </tmp/tree.act)" "links after the hot-remove"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
