#!/bin/sh
# capture: record what every SAN device answers, for tests/fixtures/captured/ (ground truth
# for the ID code).  Per device: standard INQUIRY, VPD 0x00/0x80/0x83/0x89/0xb0 (where
# supported), REPORT LUNS of LUN 0, the kernel's sysfs inquiry/vpd_pg* bytes, and what
# scsi_id --export and sg_inq --export [--page=di|sn] print. Then the same for Linux's own SCSI
# target (LIO) over iSCSI and behind tcm_loop.  Raw bytes go out over 9p; capture.host.py
# turns them into annotated hex (and, with LUND_VM_UPDATE_FIXTURES=1, into the tree).
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 300
. /vm/guest/lib.sh

san_up
out=$VM_OUT/capture
mkdir -p "$out"
uname -r >"$out/kernel"
n=0
# capture_dev H:C:T:L NAME: every response of one device into $out/NAME
capture_dev() {
	hctl=$1 name=$2
	dev=$(readlink -f "/sys/class/scsi_device/$hctl/device")
	read -r proc </sys/class/scsi_host/host${hctl%%:*}/proc_name
	read -r type <"$dev/type"
	o=$out/$name
	mkdir -p "$o"
	sg=/dev/$(ls "$dev/scsi_generic")
	blk=
	[ -d "$dev/block" ] && blk=/dev/$(ls "$dev/block")
	echo "$hctl $proc type=$type sg=$sg blk=$blk" >"$o/where"
	: >"$o/commands"
	# cap FILE COMMAND...: raw output of COMMAND into FILE (dropped when the command fails)
	cap() {
		_f=$1; shift
		if "$@" >"$o/$_f" 2>"$o/$_f.err"; then
			echo "$_f $*" >>"$o/commands"; rm -f "$o/$_f.err"
		else
			echo "$_f FAILED($?) $*" >>"$o/commands"; rm -f "$o/$_f"
		fi
	}
	cap inquiry.bin sg_inq -r "$sg"
	for p in 00 80 83 89 b0; do
		cap pg$p.bin sg_vpd -r -p 0x$p "$sg"
	done
	case $hctl in *:0) cap luns.bin sg_luns -r "$sg" ;; esac
	for a in inquiry vpd_pg0 vpd_pg80 vpd_pg83 vpd_pg89 vpd_pgb0 vpd_pgb1 vpd_pgb2 wwid; do
		[ -r "$dev/$a" ] && cat "$dev/$a" >"$o/sysfs-$a.bin" 2>/dev/null || rm -f "$o/sysfs-$a.bin"
	done
	if [ -n "$blk" ]; then
		cap scsi_id.export /lib/udev/scsi_id --export --whitelisted -g -d "$blk"
		cap sg_inq.export sg_inq --export "$blk"
	else
		cap sg_inq.export sg_inq --export "$sg"
	fi
	cap scsi_id-sg.export /lib/udev/scsi_id --export --whitelisted -g -d "$sg"
	# what sg3-utils-udev's 55-scsi-sg3_id.rules import (SCSI_IDENT_*): from the device, and
	# from the kernel's cached pages
	cap sg_inq-di.export sg_inq --export --page=di "$sg"
	cap sg_inq-sn.export sg_inq --export --page=sn "$sg"
	[ ! -r "$dev/vpd_pg80" ] || cap sg_inq-sysfs-pg80.export sg_inq --export --inhex="$dev/vpd_pg80" --raw
	[ ! -r "$dev/vpd_pg83" ] || cap sg_inq-sysfs-pg83.export sg_inq --export --inhex="$dev/vpd_pg83" --raw
	n=$((n + 1))
}

for d in /sys/class/scsi_device/*; do
	hctl=${d##*/}
	dev=$(readlink -f "$d/device")
	read -r proc </sys/class/scsi_host/host${hctl%%:*}/proc_name
	read -r type <"$dev/type"
	read -r model <"$dev/model"
	capture_dev "$hctl" "$(san_name "$proc" "$hctl" "$type" "$model" "$dev")"
done

# Linux's own target (LIO, guest/lio-lib.sh): one fileio LUN over iSCSI on loopback and one
# behind tcm_loop, with fixed unit serials and port names, so their pages are stable.
. /vm/guest/lio-lib.sh
lio_up
lio_fileio cap0 16 "${LIO_SERIAL}0"
lio_fileio cap1 16 "${LIO_SERIAL}1"
lio_iscsi_target
lio_tpg_lun 0 cap0; lio_map 0
lio_iscsi_login
vm_wait_until 30 lio_nlus_is 1 || vm_fail "capture: no LIO iSCSI LU"
capture_dev "$(lio_lus | head -n1)" lio-iscsi-fileio
lio_loop_target
lio_tpg_lun 0 cap1; lio_map 0
lio_login_scan
vm_wait_until 30 lio_nlus_is 1 || vm_fail "capture: no tcm_loop LU"
capture_dev "$(lio_lus | head -n1)" tcm_loop-fileio
vm_result "captured=$n"
sync
vm_done
