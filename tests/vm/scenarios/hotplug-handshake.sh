#!/bin/sh
# hotplug-handshake: the guest/host handshake and QMP hot-add/remove.  The host adds a disk to
# virtio-scsi (the guest kernel scans by itself) and one to megasas (it does not: the guest
# has to write the host's scan attribute), removes the virtio disk, then hot-adds a whole
# virtio-scsi controller with a disk (PCI hotplug).
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 90
. /vm/guest/lib.sh

san_up
vhost=$(grep -l '^virtio_scsi$' /sys/class/scsi_host/host*/proc_name | head -n1 | cut -d/ -f5)
mhost=$(grep -l '^megaraid_sas$' /sys/class/scsi_host/host*/proc_name | head -n1 | cut -d/ -f5)
vm_sync READY-FOR-HOTADD
# virtio-scsi: target 5 appears on its own
vm_assert "virtio-scsi hot-added disk appears by itself" \
	vm_wait_until 20 test -e "/sys/class/scsi_device/${vhost#host}:0:5:0"
# megasas: nothing until we scan (megasas puts its disks on channel 2)
sleep 1
vm_assert_eq "" "$(ls /sys/class/scsi_device | grep "^${mhost#host}:2:3:0\$" || true)" \
	"megasas hot-added disk not visible before a scan"
echo "- - -" >"/sys/class/scsi_host/$mhost/scan"
vm_assert "megasas hot-added disk appears after a scan" \
	vm_wait_until 20 test -e "/sys/class/scsi_device/${mhost#host}:2:3:0"
vm_result "serial=$(sg_inq -p 0x80 -r /dev/$(ls /sys/class/scsi_device/${vhost#host}:0:5:0/device/scsi_generic) | tail -c +5)"
vm_sync READY-FOR-REMOVE
vm_assert "virtio-scsi hot-removed disk disappears" \
	vm_wait_until 20 test ! -e "/sys/class/scsi_device/${vhost#host}:0:5:0"
# a whole controller: PCI hot-add of a second virtio-scsi HBA with one disk
vm_sync READY-FOR-HBA
vm_assert "hot-added virtio-scsi controller and its disk appear" \
	vm_wait_until 30 sh -c '[ "$(grep -l "^virtio_scsi\$" /sys/class/scsi_host/*/proc_name | wc -l)" = 2 ] &&
		ls /sys/class/scsi_device/*/device/model | xargs grep -l "^HBA Hotplug" >/dev/null'
vm_result "virtio_hosts=$(grep -l '^virtio_scsi$' /sys/class/scsi_host/*/proc_name | wc -l)"
vm_done
