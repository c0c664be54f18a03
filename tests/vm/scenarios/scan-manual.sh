#!/bin/sh
# scan-manual: boot with scsi_mod.scan=manual: the kernel scans nothing (only libata adds its
# devices itself). `lunctl rescan` (every host) must make every LU of the SAN appear. Then the
# LUs are deleted again and rescan-scsi-bus.sh -a run: both device sets are compared. Last, from
# the boot state again, the daemon's own start-up scan must give lunctl rescan's set, named.
# vm-flavour: busybox
# vm-topology: san
# vm-append: scsi_mod.scan=manual
# vm-timeout: 1080
. /vm/guest/lib.sh
. /vm/guest/scan-lib.sh

modprobe -a sd_mod sr_mod st sg
vm_assert_eq manual "$(cat /sys/module/scsi_mod/parameters/scan)" "scsi_mod.scan"
modprobe scsi_debug $SAN_SCSI_DEBUG
vm_coldplug pci virtio
# USB hosts come after enumeration; keep loading drivers until the host count settles
n=0 last=-1 same=0
while [ $same -lt 3 ] && [ $n -lt 40 ]; do
	vm_coldplug usb
	c=$(ls /sys/class/scsi_host | wc -l)
	if [ "$c" = "$last" ]; then same=$((same + 1)); else same=0; fi
	last=$c n=$((n + 1))
	sleep 0.5
done
vm_result "hosts=$(ls /sys/class/scsi_host | wc -l)"
lu_set >/tmp/boot
vm_result "boot_lus=$(wc -l </tmp/boot)"
cat /tmp/boot

time_ms lunctl rescan
vm_result "lund.rc=$T_RC lund.ms=$T_MS"
vm_assert_eq 0 "$T_RC" "lunctl rescan exit status"
vm_wait_until 20 san_all_present || true
echo "$SAN_EXPECT" | while read -r p n; do
	vm_assert_eq "$n" "$(san_count "$p")" "LUs on $p after lunctl rescan"
done
lu_set >/tmp/lund
vm_result "lund.lus=$(wc -l </tmp/lund)"
# an empty SATA port: only the LUN 0 probe (its devices are LUN 0 each; a second scan would
# reset its link again)
for h in $(hosts_of ahci); do
	[ -z "$(lu_set "$h")" ] || continue
	lunctl rescan --json "$h" >/tmp/ahci.json || vm_fail "lunctl rescan --json $h failed"
	vm_assert_eq 1 "$(grep -c '"- - 0"' /tmp/ahci.json)" "LUN 0 probes of the empty SATA port host$h"
	vm_assert_eq 0 "$(grep -c '"- - -"' /tmp/ahci.json)" "scans of every target of the empty SATA port host$h"
	break
done

new_lus /tmp/boot /tmp/lund | delete_lus
settle
lu_set >/tmp/s2
vm_assert "back to the boot state" cmp -s /tmp/boot /tmp/s2
time_ms rsb -a
vm_result "rsb.rc=$T_RC rsb.ms=$T_MS"
settle
lu_set >/tmp/rsb
# rescan-scsi-bus.sh scans channel 0 only unless told (-c): it misses megasas (channel 2)
compare_sets manual /tmp/lund /tmp/rsb || true
vm_result "rsb.missing=$(new_lus /tmp/rsb /tmp/lund | tr '\n' ',')"

# The daemon, as at boot (lund(8) SCANNING): from the boot state again, lund's start-up scan
# must have instantiated what lunctl rescan did by the time it reports readiness, and named it.
new_lus /tmp/boot /tmp/rsb | delete_lus
settle
lu_set >/tmp/s3
vm_assert "back to the boot state before lund" cmp -s /tmp/boot /tmp/s3
. /vm/guest/daemon-lib.sh
time_ms lund_start
vm_result "daemon.ms=$T_MS"
lu_set >/tmp/daemon
if cmp -s /tmp/lund /tmp/daemon; then
	vm_log "ok: lund's start-up scan found what lunctl rescan found"
else
	vm_fail "lund's start-up scan differs from lunctl rescan (<)"
	diff /tmp/lund /tmp/daemon || true
fi
vm_assert "lund scanned at start-up" grep -q 'Scan of every host (start-up) done' "$LUND_LOG.new"
daemon_check_tree "lund ready after its start-up scan" 5
lund_stop
vm_done
