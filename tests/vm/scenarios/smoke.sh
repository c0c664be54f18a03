#!/bin/sh
# smoke: boot the SAN, count SCSI devices per HBA, run lunctl --version.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 60
. /vm/guest/lib.sh

san_up
echo "$SAN_EXPECT" | while read -r p n; do
	vm_assert_eq "$n" "$(san_count "$p")" "devices on $p"
	vm_result "hba.$p=$(san_count "$p")"
done
total=$(ls /sys/class/scsi_device | wc -l)
vm_result "scsi_devices=$total"
ls -l /sys/class/scsi_device/
lsscsi -g
for h in /sys/class/scsi_host/host*; do
	echo "${h##*/}: $(cat "$h/proc_name")"
done
if command -v lunctl >/dev/null; then
	v=$(lunctl --version)
	vm_result "lunctl_version=$(echo "$v" | head -n1 | tr ' ' '_')"
	vm_assert "lunctl --version" test -n "$v"
fi
vm_done
