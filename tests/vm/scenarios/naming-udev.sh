#!/bin/bash
# naming-udev: under real udev (Debian 12's systemd-udevd, 60-persistent-storage.rules), the
# /dev/disk/by-id names lunctl derives for every SAN disk and cdrom equal the links udev made,
# name for name and target for target. Where several devices share one ID (the multipath pair,
# scsi_debug's two hosts) udev points the link at one of them: lund's candidates for that name
# must include udev's target.
# Then by-path: udev's path_id builtin (`udevadm test-builtin path_id`) against `lunctl id
# --export` (ID_PATH, ID_PATH_TAG, ID_PATH_ATA_COMPAT) on every LU, and /dev/disk/by-path against
# `lunctl names --by-path`, name for name and target for target.
# vm-flavour: udev-root
# vm-topology: san
# vm-timeout: 300
. /vm/guest/lib.sh

san_up
udevadm settle --timeout=120 || vm_fail "udev did not settle within 120 s"

# udev: name -> target (whole devices only; the SAN's null disks carry no partitions)
: > /tmp/udev.map
for l in /dev/disk/by-id/*; do
	[ -L "$l" ] || continue
	t=$(readlink "$l")
	echo "${l##*/} ${t##*/}" >> /tmp/udev.map
done
sort -o /tmp/udev.map /tmp/udev.map

# lund: name -> every node that derives it
: > /tmp/lund.map
for b in /sys/block/sd* /sys/block/sr*; do
	[ -e "$b" ] || continue
	n=${b##*/}
	lunctl id --json "/dev/$n" > /tmp/id.json 2>/tmp/id.err || { vm_fail "lunctl id /dev/$n: $(cat /tmp/id.err)"; continue; }
	sed -n '/"names"/,/]/p' /tmp/id.json | sed -n 's/^ *"\(.*\)",\{0,1\}$/\1/p' |
		while read -r name; do echo "$name $n"; done >> /tmp/lund.map
done
sort -o /tmp/lund.map /tmp/lund.map

cut -d' ' -f1 /tmp/udev.map | sort -u > /tmp/udev.names
cut -d' ' -f1 /tmp/lund.map | sort -u > /tmp/lund.names
only_udev=$(comm -23 /tmp/udev.names /tmp/lund.names | tr '\n' ' ')
only_lund=$(comm -13 /tmp/udev.names /tmp/lund.names | tr '\n' ' ')
[ -z "$only_udev" ] || vm_fail "names udev made that lunctl does not derive: $only_udev"
[ -z "$only_lund" ] || vm_fail "names lunctl derives that udev did not make: $only_lund"

same=0 shared=0 wrong=0
while read -r name target; do
	cands=$(awk -v n="$name" '$1 == n { print $2 }' /tmp/lund.map | tr '\n' ' ')
	[ -n "$cands" ] || continue
	case " $cands" in
	*" $target "*)
		if [ "$(echo $cands | wc -w)" = 1 ]; then same=$((same + 1)); else shared=$((shared + 1)); fi ;;
	*)
		wrong=$((wrong + 1))
		vm_fail "$name: udev -> $target, lunctl -> $cands" ;;
	esac
done < /tmp/udev.map
vm_result "udev_names=$(wc -l < /tmp/udev.names) lund_names=$(wc -l < /tmp/lund.names) same_target=$same shared_id=$shared wrong_target=$wrong"
vm_assert_ge 25 "$same" "names with exactly udev's target"
cp /tmp/udev.map /tmp/lund.map "$VM_OUT/" 2>/dev/null || true

# ID_PATH: udev's path_id run on the block device (the sg node where there is none), against
# lunctl names --by-path --json, which carries ID_PATH* and the disk/by-path names: one peer
# and one lunctl run per LU.
lus=0 with_path=0 path_same=0
: > /tmp/lund.bypath
for s in /sys/bus/scsi/devices/*:*:*:*; do
	[ -e "$s/scsi_generic" ] || [ -e "$s/block" ] || continue
	hctl=${s##*/}
	blk=$(ls "$s/block" 2>/dev/null | head -n1)
	sg=$(ls "$s/scsi_generic" 2>/dev/null | head -n1)
	if [ -n "$blk" ]; then dev=/sys/class/block/$blk node=/dev/$blk; else dev=/sys/class/scsi_generic/$sg node=/dev/$sg; fi
	lus=$((lus + 1))
	udevadm test-builtin path_id "$dev" 2>/dev/null | grep -E '^ID_PATH(_TAG|_ATA_COMPAT)?=' | sort > /tmp/peer.path || true
	lunctl names --by-path --json "$node" > /tmp/bp.json 2>/tmp/bp.err || vm_fail "lunctl names --by-path $node: $(cat /tmp/bp.err)"
	sed -n 's/^ *"\(id_path\|id_path_tag\|id_path_ata_compat\)": "\(.*\)",\{0,1\}$/\1=\2/p' /tmp/bp.json |
		sed 's/^id_path/ID_PATH/; s/^ID_PATH_tag/ID_PATH_TAG/; s/^ID_PATH_ata_compat/ID_PATH_ATA_COMPAT/' | sort > /tmp/lund.path
	awk -F'"' '$2 == "name" { n = $4 } $2 == "node" { print "/dev/disk/by-path/" n " " $4 }' /tmp/bp.json >> /tmp/lund.bypath
	[ -s /tmp/peer.path ] && with_path=$((with_path + 1))
	if cmp -s /tmp/peer.path /tmp/lund.path; then
		path_same=$((path_same + 1))
		vm_log "$hctl ${node#/dev/}: $(tr '\n' ' ' < /tmp/peer.path)"
	else
		vm_fail "$hctl ${node#/dev/}: ID_PATH differs from udev's path_id"
		diff /tmp/peer.path /tmp/lund.path || true
	fi
done
vm_result "path_id_lus=$lus with_id_path=$with_path id_path_same=$path_same"
vm_assert_eq "$lus" "$path_same" "LUs whose ID_PATH* equal udev's path_id"
vm_assert_ge 15 "$with_path" "LUs udev gives an ID_PATH"

# /dev/disk/by-path: udev's links to SCSI disks (sd, sr: not the virtio-blk root) against lunctl's.
: > /tmp/udev.bypath
for l in /dev/disk/by-path/*; do
	[ -L "$l" ] || continue
	t=$(readlink "$l")
	case ${t##*/} in sd* | sr*) echo "$l ${t##*/}" >> /tmp/udev.bypath ;; esac
done
sort -o /tmp/udev.bypath /tmp/udev.bypath
sort -o /tmp/lund.bypath /tmp/lund.bypath
if cmp -s /tmp/udev.bypath /tmp/lund.bypath; then bp=same; else bp=differs; vm_fail "/dev/disk/by-path differs from lunctl names --by-path"; diff /tmp/udev.bypath /tmp/lund.bypath || true; fi
vm_result "by_path_udev=$(wc -l < /tmp/udev.bypath) by_path_lunctl=$(wc -l < /tmp/lund.bypath) by_path=$bp"
vm_assert_ge 15 "$(wc -l < /tmp/udev.bypath)" "udev's /dev/disk/by-path links to SCSI disks"
cp /tmp/udev.bypath /tmp/lund.bypath "$VM_OUT/" 2>/dev/null || true
vm_done
