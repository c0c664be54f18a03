#!/bin/sh
# tests/vm/san.sh: the emulated SAN, one definition for the tests and the README demo.
#
# Host side:   san.sh qemu      print the QEMU arguments, one per line
#              san.sh expect    print "<proc_name> <number of scsi_devices>" per HBA
#              san.sh devices   print "<name><TAB><QEMU device options>" per named device
# Guest side:  sourced by guest/lib.sh; san_up (there) loads the HBA drivers and scsi_debug
#              with $SAN_SCSI_DEBUG and waits until every expected device exists.
#
# Disks are null-co (reads return zeros, writes are dropped). The IDs are chosen to cover the
# cases naming has to get right: full IDs (serial + NAA + SAS port), serial only, spaces in
# serials, a maximum-length serial, an over-long one cut to that length, vendor strings with
# spaces, a device_id that differs from the serial, a CD-ROM, sparse and multi-LUN targets,
# the same serial+wwn on two paths (virtio-scsi and lsi: multipath), and scsi_debug with
# vpd_use_hostno=0 so its two hosts report identical IDs.

# scsi_debug: 2 hosts x 2 targets x 2 LUNs = 8 disks; with vpd_use_hostno=0 the two hosts'
# LUNs share their NAA IDs (same LU seen through two hosts).
SAN_SCSI_DEBUG="add_host=2 num_tgts=2 max_luns=2 vpd_use_hostno=0 dev_size_mb=8"

# Expected SCSI devices per HBA, keyed by the scsi_host's proc_name.
SAN_EXPECT="scsi_debug 8
virtio_scsi 7
megaraid_sas 2
sym53c8xx 2
mptsas 2
ahci 2
vmw_pvscsi 2
usb-storage 3"

san_qemu() {
	# blk NODE SIZE_MB: a null-co block node;  dev OPTIONS [NAME]: a device (NAME: see san_name)
	# (with SAN_LIST=1 print "NAME<TAB>OPTIONS" for every named device instead)
	blk() {
		[ -n "${SAN_LIST:-}" ] && return
		echo "-blockdev"; echo "driver=null-co,node-name=$1,read-zeroes=on,size=$(($2 * 1048576))"
	}
	dev() {
		if [ -n "${SAN_LIST:-}" ]; then
			[ -z "${2:-}" ] || printf '%s\t%s\n' "$2" "$1"
		else
			echo "-device"; echo "$1"
		fi
	}

	# virtio-scsi: target 0 with LUNs 0 and 1, target 1 with LUNs 0 and 3 (sparse), target 2 CD,
	# target 4 no IDs at all (QEMU defaults), target 3 the first path of the multipath disk
	# (second path on lsi; one wwn, a port name and relative port each: paths of one LU)
	dev virtio-scsi-pci,id=vscsi0
	blk vd0 64;  dev "scsi-hd,bus=vscsi0.0,scsi-id=0,lun=0,drive=vd0,serial=VD0SER0001,wwn=0x5000c50015ea71a0,port_wwn=0x5000c50015ea71a1,port_index=1,vendor=LUND,product=VirtDisk Full" virtio-scsi-full
	blk vd1 32;  dev "scsi-hd,bus=vscsi0.0,scsi-id=0,lun=1,drive=vd1,serial=SER WITH  SPACES" virtio-scsi-spaces
	# (QEMU 7.2, Debian 12's, truncated a serial to 36 characters and its default device_id to
	# the first 20; QEMU 9.1 and later, Debian 13's, refuse either instead. Both disks are
	# given what the guest saw from 7.2, so that it sees the same bytes from both.)
	blk vd2 32;  dev "scsi-hd,bus=vscsi0.0,scsi-id=1,lun=0,drive=vd2,serial=ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,device_id=ABCDEFGHIJKLMNOPQRST,product=Max Serial" virtio-scsi-maxserial
	blk vd3 32;  dev "scsi-hd,bus=vscsi0.0,scsi-id=1,lun=3,drive=vd3,serial=SERIAL-LONGER-THAN-THIRTY-SIX-CHARAC,device_id=lund-devid-0003" virtio-scsi-longserial
	blk vcd 16;  dev "scsi-cd,bus=vscsi0.0,scsi-id=2,lun=0,drive=vcd,serial=VCD0001" virtio-scsi-cd
	blk vd4 16;  dev "scsi-hd,bus=vscsi0.0,scsi-id=4,lun=0,drive=vd4" virtio-scsi-noids
	blk mp0 48;  dev "scsi-hd,bus=vscsi0.0,scsi-id=3,lun=0,drive=mp0,serial=MPATH00001,wwn=0x5000c500deadbe01,port_wwn=0x5000c500deadbe11,port_index=1,vendor=LUND,product=Multipath" virtio-scsi-mpath

	# megasas (megaraid_sas): wwn + serial, and serial only
	dev megasas,id=mega0
	blk mg0 64;  dev "scsi-hd,bus=mega0.0,scsi-id=0,lun=0,drive=mg0,serial=MEGA000001,wwn=0x5000c50022220001" megasas-wwn
	blk mg1 32;  dev "scsi-hd,bus=mega0.0,scsi-id=1,lun=0,drive=mg1,serial=MEGA000002" megasas-serial

	# lsi53c895a (sym53c8xx, parallel SCSI): the second path of the multipath disk, and a CD
	dev lsi53c895a,id=lsi0
	blk mp1 48;  dev "scsi-hd,bus=lsi0.0,scsi-id=0,lun=0,drive=mp1,serial=MPATH00001,wwn=0x5000c500deadbe01,port_wwn=0x5000c500deadbe12,port_index=2,vendor=LUND,product=Multipath" lsi53c895a-mpath
	blk lcd 16;  dev "scsi-cd,bus=lsi0.0,scsi-id=3,lun=0,drive=lcd,vendor=LUNDCD,product=Optical Drive,ver=1.0a" lsi53c895a-cd

	# mptsas1068 (SAS): SAS-style IDs (wwn + port_wwn), and a wwn without serial.  (Linux's
	# mptsas ignores an end device whose SAS address is 0, i.e. a disk without wwn.)
	dev mptsas1068,id=sas0
	blk sa0 64;  dev "scsi-hd,bus=sas0.0,scsi-id=0,lun=0,drive=sa0,serial=SAS0000001,wwn=0x5000c50033330001,port_wwn=0x5000c50033330002,port_index=2,vendor=SEAGATE,product=ST600MM0006" mptsas1068-sas
	blk sa1 32;  dev "scsi-hd,bus=sas0.0,scsi-id=1,lun=0,drive=sa1,wwn=0x5000c50033330011" mptsas1068-wwnonly

	# ahci + ide-hd / ide-cd (SAT: the kernel's libata translates); max ATA serial (20) and model
	dev ahci,id=ahci0
	blk ah0 64;  dev "ide-hd,bus=ahci0.0,drive=ah0,serial=ATASER0123456789ABCD,model=LUND ATA DISK MODEL 0001,wwn=0x5000c50044440001" ahci-disk
	blk ah1 16;  dev "ide-cd,bus=ahci0.1,drive=ah1,serial=ATAPI00001,model=LUND DVD-ROM" ahci-cd

	# pvscsi: serial only, vendor/product with spaces
	dev pvscsi,id=pv0
	blk pv0 32;  dev "scsi-hd,bus=pv0.0,scsi-id=0,lun=0,drive=pv0,serial=PV SER 01,vendor=A B,product=P Q R" pvscsi-spaces
	blk pv1 32;  dev "scsi-hd,bus=pv0.0,scsi-id=1,lun=0,drive=pv1,serial=PVSER00002,wwn=0x5000c50055550001" pvscsi-wwn

	# USB: an xHCI controller with a usb-storage stick and a usb-bot card reader with two LUNs
	dev qemu-xhci,id=xhci0
	blk us0 32;  dev "usb-storage,bus=xhci0.0,drive=us0,serial=USBSTICK0001" usb-storage-stick
	dev "usb-bot,bus=xhci0.0,id=ubot0,serial=CARDREADER01"
	blk ub0 16;  dev "scsi-hd,bus=ubot0.0,scsi-id=0,lun=0,drive=ub0,vendor=Generic,product=SD/MMC Reader,serial=CARDREADER01" usb-bot-sd
	blk ub1 16;  dev "scsi-hd,bus=ubot0.0,scsi-id=0,lun=1,drive=ub1,vendor=Generic,product=CF Reader,serial=CARDREADER01" usb-bot-cf
}

# san_name PROC_NAME H:C:T:L TYPE MODEL SYSFS_PATH: the short name of a SAN device, as used
# for fixture directories (tests/fixtures/captured/<name>/) and in scenario results.
san_name() {
	_ctl=${2#*:}
	case "$1 $_ctl" in
	"virtio_scsi 0:0:0") echo virtio-scsi-full ;;
	"virtio_scsi 0:0:1") echo virtio-scsi-spaces ;;
	"virtio_scsi 0:1:0") echo virtio-scsi-maxserial ;;
	"virtio_scsi 0:1:3") echo virtio-scsi-longserial ;;
	"virtio_scsi 0:2:0") echo virtio-scsi-cd ;;
	"virtio_scsi 0:3:0") echo virtio-scsi-mpath ;;
	"virtio_scsi 0:4:0") echo virtio-scsi-noids ;;
	"megaraid_sas 2:0:0") echo megasas-wwn ;;
	"megaraid_sas 2:1:0") echo megasas-serial ;;
	"sym53c8xx 0:0:0") echo lsi53c895a-mpath ;;
	"sym53c8xx 0:3:0") echo lsi53c895a-cd ;;
	"mptsas 0:0:0") echo mptsas1068-sas ;;
	"mptsas 0:1:0") echo mptsas1068-wwnonly ;;
	"ahci "*) if [ "$3" = 5 ]; then echo ahci-cd; else echo ahci-disk; fi ;;
	"vmw_pvscsi 0:0:0") echo pvscsi-spaces ;;
	"vmw_pvscsi 0:1:0") echo pvscsi-wwn ;;
	"usb-storage "*)
		case "$4" in
		"SD/MMC Reader"*) echo usb-bot-sd ;;
		"CF Reader"*) echo usb-bot-cf ;;
		*) echo usb-storage-stick ;;
		esac ;;
	"scsi_debug "*)
		# adapterN in the sysfs path: the N-th scsi_debug host (stable, unlike hostM)
		_a=${5##*/adapter}; _a=${_a%%/*}
		echo "scsi_debug-a$_a-$(echo "$_ctl" | tr : -)" ;;
	*) echo "$1-$(echo "$2" | tr : -)" ;;
	esac
}

[ -n "${SAN_SOURCED:-}" ] || case "${1:-}" in
qemu)    san_qemu ;;
expect)  echo "$SAN_EXPECT" ;;
devices) SAN_LIST=1 san_qemu
	 echo "scsi_debug	modprobe scsi_debug $SAN_SCSI_DEBUG" ;;
*)       echo "usage: san.sh qemu|expect|devices" >&2; exit 2 ;;
esac
