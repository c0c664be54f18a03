#!/bin/bash
# naming-udev: under real udev (Debian 12's systemd-udevd, 60-persistent-storage.rules), the
# /dev/disk/by-id names lunctl derives for every SAN disk and cdrom equal the links udev made,
# name for name and target for target. Where several devices share one ID (the multipath pair,
# scsi_debug's two hosts) udev points the link at one of them: lund's candidates for that name
# must include udev's target.
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
vm_done
