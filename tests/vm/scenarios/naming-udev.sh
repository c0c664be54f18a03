#!/bin/bash
# naming-udev: under real udev (Debian 12's systemd-udevd 252 and sg3-utils-udev 1.46; as
# naming-udev-13 Debian 13's udev 257 and sg3-utils-udev 1.48, 60-persistent-storage.rules), the
# /dev/disk/by-id names lunctl derives for every SAN disk and cdrom equal the links udev made,
# name for name and target for target. Where several devices share one ID (the multipath pair,
# scsi_debug's two hosts) udev points the link at one of them: lund's candidates for that name
# must include udev's target. Before that, udev's own names are held against what the lab builds
# (wwn, scsi_id-style, serial-only, ATA, scsi_debug and USB links; every disk with an ID of its
# own linked), so that a lab that changed cannot pass as "lund equals udev".
# Then by-path, from the same lunctl runs: ID_PATH, ID_PATH_TAG, ID_PATH_ATA_COMPAT and (udev 254
# and later) ID_PATH_WITH_USB_REVISION of every
# disk against udev's database (its path_id builtin), and /dev/disk/by-path against the names
# the rules make from lunctl's values, name for name and target for target. (lunctl names
# --by-path itself is tested on a fake tree in tests/cli; lund's /dev/disk/by-path against
# udev's in daemon-disk-links.)
# vm-flavour: udev-root
# vm-release: 12 13
# vm-topology: san
# vm-timeout: 420
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

# --- udev itself names the SAN as the lab builds it (before lund is compared with it) ----------
vm_result "by_id_links=$(wc -l </tmp/udev.map)"
links() { grep -c "$1" /tmp/udev.map || true; }
# wwn links: each distinct wwn of the SAN (the multipath pair shares one link)
vm_assert_ge 7 "$(links '^wwn-0x5000c500')" "wwn- links for the SAN's wwns"
vm_assert "scsi_id-style link for the full virtio disk" test -L /dev/disk/by-id/scsi-35000c50015ea71a0
vm_assert "serial-only link (spaces become _)" test -L /dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_SER_WITH_SPACES
vm_assert "ATA link" test -L /dev/disk/by-id/ata-LUND_ATA_DISK_MODEL_0001_ATASER0123456789ABCD
# scsi_debug's ID_SERIAL: its NAA locally assigned ID under sg3-utils-udev 1.46, its T10 vendor
# ID under 1.48 (Debian 13: no ambiguous NAA local, lund(8) "Naming contract")
sd_link='^scsi-3333333'; [ "$VM_RELEASE" = 12 ] || sd_link='^scsi-1Linux_scsi_debug_'
vm_assert_ge 1 "$(links "$sd_link")" "scsi_debug link"
vm_assert_ge 1 "$(links '^usb-')" "usb link"
# every sd disk has a by-id link, except the one without any ID (virtio-scsi-noids) and LUs
# whose IDs another LU shares (the multipath pair, scsi_debug's two hosts): udev points each
# shared name at one of the claimants, whichever it processed last, so how many of those end
# up with no link at all varies from boot to boot (5 or 6 seen) -- but never a disk of its own.
linked=" $(cut -d' ' -f2 /tmp/udev.map | xargs) "
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

# lund: name -> every node that derives it
: > /tmp/lund.map
: > /tmp/lund.paths
: > /tmp/lund.disks
for b in /sys/block/sd* /sys/block/sr*; do
	[ -e "$b" ] || continue
	n=${b##*/}
	lunctl id --json "/dev/$n" > /tmp/id.json 2>/tmp/id.err || { vm_fail "lunctl id /dev/$n: $(cat /tmp/id.err)"; continue; }
	# its ID_PATH* properties, for the by-path comparison below
	sed -n 's/^ *"\(ID_PATH[A-Z_]*\)": "\(.*\)",\{0,1\}$/'"$n"' \1=\2/p' /tmp/id.json >> /tmp/lund.paths
	echo "$n" >> /tmp/lund.disks
	sed -n '/"names": *\[$/,/]/p' /tmp/id.json | sed -n 's/^ *"\(.*\)",\{0,1\}$/\1/p' |
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
# Debian 13's sg3-utils-udev makes no links of ambiguous IDs (T10, NAA local, vendor-specific,
# serial): fewer names
min_same=25; [ "$VM_RELEASE" = 12 ] || min_same=23
vm_assert_ge $min_same "$same" "names with exactly udev's target"
cp /tmp/udev.map /tmp/lund.map "$VM_OUT/" 2>/dev/null || true

# ID_PATH: udev's database (60-persistent-storage.rules imports path_id for every disk; lund's
# own rule is not installed here) against the ID_PATH* properties of `lunctl id --json` above,
# "node KEY=VALUE" lines compared in one go (a process per disk costs seconds under TCG).
udevadm info --export-db | awk '
	FNR == NR { disk[$1] = 1; next }
	/^P: / { node = "" }
	/^N: / { node = substr($0, 4) }
	/^E: ID_PATH(_TAG|_ATA_COMPAT|_WITH_USB_REVISION)?=/ { if (node in disk) print node " " substr($0, 4) }' \
	/tmp/lund.disks - | sort > /tmp/udev.paths
sort -o /tmp/lund.paths /tmp/lund.paths
disks=$(wc -l < /tmp/lund.disks)
with_path=$(grep -c ' ID_PATH=' /tmp/udev.paths || true)
if cmp -s /tmp/udev.paths /tmp/lund.paths; then
	id_path=same
	vm_log "ok: ID_PATH* of $disks disks equal udev's path_id ($with_path with an ID_PATH)"
else
	id_path=differs
	vm_fail "ID_PATH* differ from udev's path_id (< udev, > lunctl)"
	diff /tmp/udev.paths /tmp/lund.paths || true
fi
vm_result "disks=$disks with_id_path=$with_path id_path=$id_path"
vm_assert_ge 15 "$with_path" "disks udev gives an ID_PATH"
# the by-path names the rules make from lunctl's values (the SAN's disks carry no partitions)
sed -n -E 's#^([^ ]*) ID_PATH(_ATA_COMPAT|_WITH_USB_REVISION)?=(.*)#/dev/disk/by-path/\3 \1#p' /tmp/lund.paths > /tmp/lund.bypath

# /dev/disk/by-path: udev's links to SCSI disks (sd, sr: not the virtio-blk root disk).
find /dev/disk/by-path -maxdepth 1 -type l -printf '%p %l\n' |
	awk '{ t = $2; sub(/.*\//, "", t) } t ~ /^s[dr]/ { print $1 " " t }' | sort > /tmp/udev.bypath
sort -o /tmp/lund.bypath /tmp/lund.bypath
if cmp -s /tmp/udev.bypath /tmp/lund.bypath; then bp=same; else bp=differs; vm_fail "/dev/disk/by-path differs from the names of lunctl's ID_PATH"; diff /tmp/udev.bypath /tmp/lund.bypath || true; fi
vm_result "by_path_udev=$(wc -l < /tmp/udev.bypath) by_path_lunctl=$(wc -l < /tmp/lund.bypath) by_path=$bp"
vm_assert_ge 15 "$(wc -l < /tmp/udev.bypath)" "udev's /dev/disk/by-path links to SCSI disks"
cp /tmp/udev.paths /tmp/lund.paths /tmp/udev.bypath /tmp/lund.bypath "$VM_OUT/" 2>/dev/null || true
# for the naming engineers: udev's view of the SAN
ls -l /dev/disk/by-id /dev/disk/by-path >"$VM_OUT/by-id.txt" 2>&1 || true
udevadm info --export-db >"$VM_OUT/udev-db.txt" 2>&1 || true   # (one process, ~1 s)
vm_done
