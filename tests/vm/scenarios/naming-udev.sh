#!/bin/bash
# naming-udev: under real udev (Debian 12's systemd-udevd, 60-persistent-storage.rules), the
# /dev/disk/by-id names lunctl derives for every SAN disk and cdrom equal the links udev made,
# name for name and target for target. Where several devices share one ID (the multipath pair,
# scsi_debug's two hosts) udev points the link at one of them: lund's candidates for that name
# must include udev's target.
# Then by-path, from the same lunctl runs: ID_PATH, ID_PATH_TAG and ID_PATH_ATA_COMPAT of every
# disk against udev's database (its path_id builtin), and /dev/disk/by-path against the names
# the rules make from lunctl's values, name for name and target for target. (lunctl names
# --by-path itself is tested on a fake tree in tests/cli; lund's /dev/disk/by-path against
# udev's in daemon-disk-links.)
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
	# its ID_PATH* properties, for the by-path comparison below
	sed -n 's/^ *"\(ID_PATH[A-Z_]*\)": "\(.*\)",\{0,1\}$/\1=\2/p' /tmp/id.json | sort > "/tmp/lund.path.$n"
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

# ID_PATH: udev's database (60-persistent-storage.rules imports path_id for every disk; lund's
# own rule is not installed here) against the ID_PATH* properties of `lunctl id --json` above.
udevadm info --export-db | awk '
	/^P: / { node = "" }
	/^N: (sd|sr)/ { node = substr($0, 4) }
	/^E: ID_PATH(_TAG|_ATA_COMPAT)?=/ { if (node != "") print node " " substr($0, 4) }' > /tmp/udev.paths
disks=0 with_path=0 path_same=0
: > /tmp/lund.bypath
for f in /tmp/lund.path.*; do
	n=${f#/tmp/lund.path.}
	disks=$((disks + 1))
	awk -v n="$n" '$1 == n { print $2 }' /tmp/udev.paths | sort > /tmp/udev.path
	[ -s /tmp/udev.path ] && with_path=$((with_path + 1))
	if cmp -s /tmp/udev.path "$f"; then
		path_same=$((path_same + 1))
		vm_log "$n: $(tr '\n' ' ' < "$f")"
	else
		vm_fail "$n: ID_PATH* differ from udev's path_id (< udev, > lunctl)"
		diff /tmp/udev.path "$f" || true
	fi
	# the by-path names the rules make from them (the SAN's disks carry no partitions)
	sed -n 's|^ID_PATH\(_ATA_COMPAT\)\{0,1\}=\(.*\)|/dev/disk/by-path/\2 '"$n"'|p' "$f" >> /tmp/lund.bypath
done
vm_result "disks=$disks with_id_path=$with_path id_path_same=$path_same"
vm_assert_eq "$disks" "$path_same" "disks whose ID_PATH* equal udev's path_id"
vm_assert_ge 15 "$with_path" "disks udev gives an ID_PATH"

# /dev/disk/by-path: udev's links to SCSI disks (sd, sr: not the virtio-blk root disk).
: > /tmp/udev.bypath
for l in /dev/disk/by-path/*; do
	[ -L "$l" ] || continue
	t=$(readlink "$l")
	case ${t##*/} in sd* | sr*) echo "$l ${t##*/}" >> /tmp/udev.bypath ;; esac
done
sort -o /tmp/udev.bypath /tmp/udev.bypath
sort -o /tmp/lund.bypath /tmp/lund.bypath
if cmp -s /tmp/udev.bypath /tmp/lund.bypath; then bp=same; else bp=differs; vm_fail "/dev/disk/by-path differs from the names of lunctl's ID_PATH"; diff /tmp/udev.bypath /tmp/lund.bypath || true; fi
vm_result "by_path_udev=$(wc -l < /tmp/udev.bypath) by_path_lunctl=$(wc -l < /tmp/lund.bypath) by_path=$bp"
vm_assert_ge 15 "$(wc -l < /tmp/udev.bypath)" "udev's /dev/disk/by-path links to SCSI disks"
cp /tmp/udev.bypath /tmp/lund.bypath "$VM_OUT/" 2>/dev/null || true
vm_done
