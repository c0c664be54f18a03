#!/bin/bash
# udev-smoke: the SAN under real udev (Debian 13's systemd-udevd 257 and rules, sg3-utils-udev):
# every disk with an ID has its /dev/disk/by-id links.
# vm-flavour: udev-root
# vm-release: 13
# vm-topology: san
# vm-timeout: 240
. /vm/guest/lib.sh

san_up
udevadm settle --timeout=120 || vm_fail "udev did not settle within 120 s"
ls -l /dev/disk/by-id/ | sed 's/^.* \([^ ]* -> [^ ]*\)$/\1/'
links() { ls /dev/disk/by-id/ | grep -c "$1" || true; }
vm_result "by_id_links=$(ls /dev/disk/by-id | wc -l)"
# wwn links: each distinct wwn of the SAN (the multipath pair shares one link)
vm_assert_ge 7 "$(links '^wwn-0x5000c500')" "wwn- links for the SAN's wwns"
vm_assert "scsi_id-style link for the full virtio disk" test -L /dev/disk/by-id/scsi-35000c50015ea71a0
vm_assert "serial-only link (spaces become _)" test -L /dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_SER_WITH_SPACES
vm_assert "ATA link" test -L /dev/disk/by-id/ata-LUND_ATA_DISK_MODEL_0001_ATASER0123456789ABCD
# scsi_debug's ID_SERIAL: its NAA locally assigned ID under sg3-utils-udev 1.46, its T10 vendor
# ID under 1.48 (Debian 13: no ambiguous NAA local, lund(8) "Naming contract")
sd_link='^scsi-3333333'; [ "$VM_RELEASE" = 12 ] || sd_link='^scsi-1Linux_scsi_debug_'
vm_assert "scsi_debug link" test -n "$(ls /dev/disk/by-id/ | grep "$sd_link")"
vm_assert "usb link" test -n "$(ls /dev/disk/by-id/ | grep '^usb-')"
# every sd disk has a by-id link, except the one without any ID (virtio-scsi-noids) and LUs
# whose IDs another LU shares (the multipath pair, scsi_debug's two hosts): udev points each
# shared name at one of the claimants, whichever it processed last, so how many of those end
# up with no link at all varies from boot to boot (5 or 6 seen) -- but never a disk of its own.
linked=" $(for l in /dev/disk/by-id/*; do t=$(readlink "$l"); echo -n "${t##*/} "; done)"
nolink=0
for b in /sys/block/sd*; do
	n=${b##*/}
	case "$linked" in *" $n "*) continue ;; esac
	nolink=$((nolink + 1))
	read -r v <"$b/device/vendor"; read -r m <"$b/device/model"
	echo "no by-id link: $n ($v $m)"
	case "$v/$m" in
	Linux/scsi_debug*|LUND/Multipath*) ;;   # shares its IDs with another LU
	QEMU/QEMU\ HARDDISK*)
		# only the disk without any ID may go unlinked
		[ ! -e "$b/device/vpd_pg80" ] ||
			vm_fail "$n ($v $m) has a serial of its own but no by-id link" ;;
	*) vm_fail "$n ($v $m) has IDs of its own but no by-id link" ;;
	esac
done
vm_assert_ge 2 "$nolink" "disks without a by-id link (at least noids + one shared-ID path)"
vm_result "sd_disks=$(ls -d /sys/block/sd* | wc -l)" "sd_without_link=$nolink"
# for the naming engineers: udev's view of the SAN
ls -l /dev/disk/by-id /dev/disk/by-path >"$VM_OUT/by-id.txt" 2>&1 || true
udevadm info --export-db >"$VM_OUT/udev-db.txt" 2>&1 || true   # (one process, ~1 s)
vm_done
