#!/bin/sh
# scan-resize: scsi_debug's virtual_gb grown (every LU's capacity changes; the kernel only gets a
# unit attention) -> `lunctl rescan --resize` updates every block device's size; the same step
# for rescan-scsi-bus.sh -s.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 300
. /vm/guest/lib.sh
. /vm/guest/scan-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
san_up
hosts=$(hosts_of scsi_debug)
# sizes: "H:C:T:L sectors" of the scsi_debug disks
sizes() {
	for h in $hosts; do
		for d in /sys/bus/scsi/devices/$h:*; do
			read -r s <"$d/block/$(ls "$d/block")/size"
			echo "${d##*/} $s"
		done
	done | LC_ALL=C sort
}
sizes >/tmp/z0
lunctl rescan --resize >/tmp/r0.txt 2>&1 || vm_fail "lunctl rescan --resize (nothing to do) failed"
vm_assert_eq 0 "$(grep -c '^resize' /tmp/r0.txt)" "nothing resized before the change"

echo 1 >$SD/virtual_gb
lunctl rescan --resize --dry-run >/tmp/plan.txt 2>&1 || vm_fail "dry run failed"
sizes >/tmp/zd
vm_assert "dry run changes nothing" cmp -s /tmp/z0 /tmp/zd
vm_result "dry_run_would_resize=$(grep -c '^would resize' /tmp/plan.txt)"
time_ms lunctl rescan --resize
vm_assert_eq 0 "$T_RC" "lunctl rescan --resize exit status"
vm_result "lund.ms=$T_MS"
sizes >/tmp/lund
cat /tmp/lund
vm_assert_eq 8 "$(awk '$2 == 2097152' /tmp/lund | wc -l)" "scsi_debug disks at 1 GiB"

# undo, then rescan-scsi-bus.sh -s
echo 0 >$SD/virtual_gb
for h in $hosts; do for d in /sys/bus/scsi/devices/$h:*; do echo 1 >"$d/rescan"; done; done
sizes >/tmp/z1
vm_assert "step undone" cmp -s /tmp/z0 /tmp/z1
echo 1 >$SD/virtual_gb
time_ms rsb -s
vm_result "rsb.rc=$T_RC rsb.ms=$T_MS"
sizes >/tmp/rsb
vm_result "rsb.resized_to_1g=$(awk '$2 == 2097152' /tmp/rsb | wc -l)"
compare_sets resize /tmp/lund /tmp/rsb || vm_fail "sizes differ"
vm_done
