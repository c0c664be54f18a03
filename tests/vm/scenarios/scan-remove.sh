#!/bin/sh
# scan-remove: LUs a target no longer reports are removed by `lunctl rescan --remove`, kept by
# plain `lunctl rescan`, and kept when mounted; then the same step for rescan-scsi-bus.sh -r.
#  - scsi_debug: max_luns 2 -> 1 (LUN 1 of each of the 4 targets disappears); one of those is
#    mounted;
#  - megasas: a disk hot-added on a new target 3, then device_del'ed (guest blind). The whole
#    target is gone, so REPORT LUNS to it fails (DID_BAD_TARGET): lund keeps the LU and reports
#    the failure (never remove after an error), where rescan-scsi-bus.sh -r removes it.
# The device sets are recorded side by side; lund must leave every other host as it was, and
# rescan-scsi-bus.sh is held to the same unless its PQual parse is the one that fails (below).
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 480
. /vm/guest/lib.sh
. /vm/guest/scan-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
san_up
modprobe ext4 2>/dev/null || true
mg=$(hosts_of megaraid_sas)
sdh=$(hosts_of scsi_debug | head -n1)

vm_sync HOTADD 60
lunctl rescan "$mg" || vm_fail "lunctl rescan $mg failed"
settle
vm_assert_eq 3 "$(lu_set "$mg" | wc -l)" "megasas LUs after hot-add"

# mount LUN 1 of the first scsi_debug target
mlu=$sdh:0:0:1
blk=$(ls /sys/bus/scsi/devices/$mlu/block)
mke2fs -q "/dev/$blk" >/dev/null 2>&1 || vm_fail "mke2fs /dev/$blk"
mkdir -p /mnt/x
mount -t ext2 "/dev/$blk" /mnt/x || mount "/dev/$blk" /mnt/x || vm_fail "mount /dev/$blk"
lu_set >/tmp/s0

# the step: LUN 1 of every scsi_debug target unmapped, megasas 3:1 deleted
step() {
	echo 1 >$SD/max_luns
	vm_sync "$1" 60
}
step DEL1

rc=0; lunctl rescan >/tmp/add.txt 2>&1 || rc=$?
cat /tmp/add.txt
vm_assert_eq 2 "$rc" "plain lunctl rescan exit status (the vanished megasas target failed)"
lu_set >/tmp/s1
vm_assert "plain rescan removes nothing" cmp -s /tmp/s0 /tmp/s1
vm_result "plain.kept=$(grep -c '^keep' /tmp/add.txt)"

time_ms lunctl rescan --remove
lunctl_ms=$T_MS
vm_assert_eq 2 "$T_RC" "lunctl rescan --remove exit status (the vanished megasas target failed)"
lu_set >/tmp/lund
new_lus /tmp/lund /tmp/s0 >/tmp/removed
cat /tmp/removed
removed=$(wc -l </tmp/removed)
vm_result "lund.removed=$removed lund.ms=$lunctl_ms"
vm_assert_eq 3 "$removed" "removed: LUN 1 of the 3 unmounted scsi_debug targets"
vm_assert_eq 0 "$(grep -vc ':1$' /tmp/removed)" "only LUN 1s removed"
vm_assert "mounted $mlu kept" test -e "/sys/bus/scsi/devices/$mlu"
vm_assert_eq 3 "$(lu_set "$mg" | wc -l)" "vanished megasas target kept (REPORT LUNS failed)"
lunctl rescan --remove --json >/tmp/keep.json 2>&1 || true
vm_assert "megasas target reported failed" grep -q '"error": "Link has been severed"' /tmp/keep.json
vm_assert "mounted LU reported as kept" grep -q '"reason": "not reported by REPORT LUNS; kept: sd[a-z]* is mounted"' /tmp/keep.json

# undo: map LUN 1 again, let the kernel instantiate it, re-add the megasas LUN
echo 2 >$SD/max_luns
for h in $(hosts_of scsi_debug); do echo "- - -" >/sys/class/scsi_host/host$h/scan; done
vm_sync READD 60
echo "- - -" >/sys/class/scsi_host/host$mg/scan
settle
lu_set >/tmp/s2
vm_assert "step undone" cmp -s /tmp/s0 /tmp/s2
step DEL2
time_ms rsb -r
vm_result "rsb.rc=$T_RC rsb.ms=$T_MS"
lu_set >/tmp/rsb
if [ -e "/sys/bus/scsi/devices/$mlu" ]; then vm_result "rsb.kept_mounted=yes"
else vm_result "rsb.kept_mounted=no"; fi
compare_sets remove /tmp/lund /tmp/rsb || true
vm_result "rsb.removed=$(new_lus /tmp/rsb /tmp/s0 | tr '\n' ',')"
vm_result "rsb.removed_megasas=$(new_lus /tmp/rsb /tmp/s0 | grep -c "^$mg:" || true)"
# equal on every host but scsi_debug and megasas
others=$(ls /sys/class/scsi_host | sed 's/host//' | grep -vx -e "$mg" $(for h in $(hosts_of scsi_debug); do echo "-e $h"; done))
others=$(echo $others)
on_others() { awk -v h=" $others " 'index(h, " " substr($1, 1, index($1, ":") - 1) " ")' "$1"; }
on_others /tmp/s0 >/tmp/s0.o
on_others /tmp/lund >/tmp/lund.o
on_others /tmp/rsb >/tmp/rsb.o
# lund against the truth: nothing changed on the other hosts
vm_assert "lunctl rescan --remove left the other hosts as they were" cmp -s /tmp/s0.o /tmp/lund.o
# the peer beside it. Debian 12's rescan-scsi-bus.sh reads the peripheral qualifier from
# "PQual=N  Device_type=N", which sg_inq 1.46 prints as "PQual=N  PDT=N": it takes every LU it
# tests for one whose LU is not available, and -r removes it.
if ! compare_sets remove_others /tmp/lund.o /tmp/rsb.o; then
	# sg_inq's format, from a standard INQUIRY response (SPC-6 6.7.2) of a disk
	echo "00 00 05 02 1f 00 00 00 $(printf '%s' 'LUND    TEST            0001' | od -An -tx1)" >/tmp/inq.hex
	if sg_inq --inhex=/tmp/inq.hex | grep -q 'PQual=0  PDT=0'; then
		vm_log "rescan-scsi-bus.sh -r removed LUs of other hosts: its PQual parse misses sg_inq 1.46's PDT= output"
		vm_result "rsb.pqual_parse_broken=yes"
	else
		vm_fail "device sets differ on the other hosts"
	fi
fi
umount /mnt/x 2>/dev/null || true
vm_done
