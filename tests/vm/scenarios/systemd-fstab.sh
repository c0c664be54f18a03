#!/bin/bash
# systemd-fstab: lund's names as systemd knows them (lund(8), UDEV). systemd as PID 1, lund's
# unit and 59-lund.rules installed: udev makes /dev/scsi/by-id from lund's records, so the
# names are in udev's database and have .device units. An /etc/fstab line naming the disk present
# at boot by /dev/scsi/by-id/wwn-… mounts at boot and its .device unit is active; a disk
# hot-added over QMP gets its name and its mount unit (wanted by that .device) mounts it; once
# the disk is removed, its .device unit is inactive. lund itself writes no link there.
# vm-flavour: systemd-root
# vm-topology: none
# vm-timeout: 420
. /vm/guest/lib.sh

A=/dev/scsi/by-id/wwn-0x5000c500f5000001
B=/dev/scsi/by-id/wwn-0x5000c500f5000002
unit_of() { systemd-escape --path --suffix=device "$1"; }
active() { [ "$(systemctl is-active "$1" 2>/dev/null)" = active ]; }
inactive() { [ "$(systemctl is-active "$1" 2>/dev/null)" != active ]; }

vm_assert_eq 1 "$(grep -c '^systemd$' /proc/1/comm)" "systemd is PID 1"
state=$(timeout 240 systemctl is-system-running --wait 2>&1) || :
vm_result "system=$state boot_ms=$(vm_uptime_ms)"
vm_assert "lund.service is active" active lund.service
vm_assert "lund hands its names to udev" sh -c 'journalctl -b -u lund.service --no-pager | grep -q "names for udev in /run/lund/udev"'

# --- at boot: the fstab line's device and mount ---
vm_assert "$A exists" test -L "$A"
vm_assert "udev has $A in its database" sh -c "udevadm info -q symlink -n '$A' | tr ' ' '\n' | grep -qx '${A#/dev/}'"
vm_assert "$(unit_of "$A") is active" active "$(unit_of "$A")"
vm_assert "/mnt/lund-a is mounted from the fstab line" mountpoint -q /mnt/lund-a
vm_result "mount_a=$(findmnt -n -o SOURCE,FSTYPE /mnt/lund-a | tr -s ' ' ,)"
vm_assert "lund wrote no link of its own (its link records are empty)" \
	sh -c '! find /run/lund/links -mindepth 2 ! -type d 2>/dev/null | grep -q .'
vm_assert "lund's record names the disk" sh -c "grep -qx 'LUND_LINK_[0-9]*=\"scsi/by-id/wwn-0x5000c500f5000001\"' /run/lund/udev/b*"

# --- hot-add: the name, its .device unit, the mount unit it wants ---
t0=$(vm_uptime_ms)
vm_sync HOTADD
vm_wait_until 60 active "$(unit_of "$B")" || vm_fail "$(unit_of "$B") not active within 60 s"
vm_result "hotadd_device_ms=$(($(vm_uptime_ms) - t0))"
vm_wait_until 30 mountpoint -q /mnt/lund-b || vm_fail "/mnt/lund-b not mounted within 30 s"
vm_result "hotadd_mount_ms=$(($(vm_uptime_ms) - t0))"
vm_assert "$B -> the new disk" sh -c "[ \"\$(lsblk -no LABEL '$B')\" = lund-b ]"
vm_assert "the new disk's sg node has its name too" test -L "$B-sg"

# --- removal: the .device unit goes inactive, the mount goes with it ---
t0=$(vm_uptime_ms)
vm_sync HOTREMOVE
vm_wait_until 60 inactive "$(unit_of "$B")" || vm_fail "$(unit_of "$B") still active 60 s after removal"
vm_result "remove_device_ms=$(($(vm_uptime_ms) - t0))"
vm_wait_until 30 sh -c '! mountpoint -q /mnt/lund-b' && vm_result mount_b_after_removal=gone || vm_result mount_b_after_removal=still-mounted
vm_assert "$B is gone" test ! -e "$B"
vm_assert "the disk at boot keeps its name and mount" sh -c "test -L '$A' && mountpoint -q /mnt/lund-a"
vm_assert "lund is still running" active lund.service
journalctl -b -u lund.service --no-pager | tail -n 30
vm_done
