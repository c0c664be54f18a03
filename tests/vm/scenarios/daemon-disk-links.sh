#!/bin/bash
# daemon-disk-links: lund --manage-disk-links makes /dev/disk/by-id exactly as udev does.
#  - udevd with Debian 13's rules (udev 257) and sg3-utils-udev builds
#    /dev/disk/by-id for the SAN, a third scsi_debug host with IDs of its own and a partition
#    table on scsi_debug's store; the names and targets are recorded, with every claimant of
#    every name from udev's database.
#  - udevd is stopped, /dev/disk/by-id removed, lund --manage-disk-links started: its tree must
#    hold the same names with the same targets. A name several LUs claim (scsi_debug's two hosts,
#    the multipath pair) goes to whichever device udev handled last, so there udev's target must
#    be one of the claimants and lund's the one lund(8) LINKS names: the lowest H:C:T:L.
#  - names udev gives devices that are not SCSI (a virtio-blk disk with a serial, added for
#    that in the last PCI slot so that the root disk stays vda) are left out, each logged with
#    its reason: lund names SCSI logical units only.
#  - /dev/disk/by-path likewise: udev's links to SCSI disks (ID_PATH from its path_id, the ATA
#    compat names, -partN) recorded, removed, and lund's must be the same names and targets;
#    lund's /dev/scsi/by-path holds each disk's ID_PATH name with udev's target.
#  - lund alone follows hot-add and hot-remove of a scsi_debug host; killed with SIGKILL while a
#    host goes and another comes, the restarted lund leaves no stale link and makes the new ones;
#    a link lund never made stays untouched throughout.
# vm-flavour: udev-root
# vm-release: 13
# vm-topology: san
# vm-timeout: 600
# vm-qemu: -blockdev driver=null-co,node-name=vblk0,read-zeroes=on,size=16777216 -device virtio-blk-pci,drive=vblk0,serial=LUNDVIRTBLK01,addr=0x1e
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

DISK=/dev/disk/by-id
PDISK=/dev/disk/by-path
SD=/sys/bus/pseudo/drivers/scsi_debug
TAB=$(printf '\t')

# scsi_hctl NODE: the H:C:T:L of the SCSI LU under block device NODE (a disk or a partition of
# one), or nothing when it is not a SCSI device.
scsi_hctl() {
	_b=/sys/class/block/$1
	[ -e "$_b/partition" ] && _b=$(readlink -f "$_b/..")
	[ -d "$_b/device/scsi_device" ] || return 0
	_d=$(readlink -f "$_b/device")
	echo "${_d##*/}"
}

# mbr FILE START SECTORS [START SECTORS]: a DOS partition table with one or two Linux partitions.
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
mbr() {
	_f=$1; shift
	head -c 446 /dev/zero >"$_f"
	_n=0
	while [ $# -ge 2 ]; do
		printf "\\x00\\x00\\x00\\x00\\x83\\x00\\x00\\x00$(le32 "$1")$(le32 "$2")" >>"$_f"
		_n=$((_n + 1)); shift 2
	done
	head -c $(((4 - _n) * 16)) /dev/zero >>"$_f"
	printf '\x55\xaa' >>"$_f"
}

# disk_actual: /dev/disk/by-id as "name<TAB>target", sorted, without the planted foreign link.
# (One find: a readlink per link costs seconds under TCG.)
disk_actual() {
	[ -d "$DISK" ] || return 0
	find "$DISK" -mindepth 1 -maxdepth 1 -printf '%f\t%l\n' |
		grep -v "^$FOREIGN$TAB" | sort -t"$TAB" -k1,1
}

# disk_expected: /dev/disk/by-id as lund(8) LINKS promises it, from sysfs and lunctl (which
# reads sysfs itself: LUND_RUN_DIR points nowhere): every name of a disk-like LU with a block
# node, -partN for each partition of an sd disk, the lowest H:C:T:L taking a shared name.
# (Shell builtins only per LU: it runs in a polling loop.)
disk_expected() {
	lund_names_from_lunctl >/tmp/dexp.names
	for d in /sys/bus/scsi/devices/*:*:*:*; do
		[ -r "$d/type" ] || continue
		read -r type <"$d/type"
		case $type in 0|4|5|7|14|20) ;; *) continue ;; esac
		for bd in "$d"/block/*; do
			[ -d "$bd" ] || continue
			blk=${bd##*/}
			printf '%s\t%s\t\n' "${d##*/}" "$blk"
			case $blk in sr*) continue ;; esac
			for p in "$bd/$blk"*; do
				[ -r "$p/partition" ] || continue
				read -r num <"$p/partition"
				printf '%s\t%s\t-part%s\n' "${d##*/}" "${p##*/}" "$num"
			done
		done
	done >/tmp/dexp.nodes
	awk -F'\t' '
		FNR == NR { names[$1] = names[$1] "\t" $2; next }
		{
			split($1, a, ":"); key = sprintf("%05d:%05d:%05d:%020s", a[1], a[2], a[3], a[4])
			n = split(substr(names[$1], 2), nm, "\t")
			for (i = 1; i <= n; i++) if (nm[i] != "") print nm[i] $3 "\t" key "\t../../" $2
		}' /tmp/dexp.names /tmp/dexp.nodes |
		awk -F'\t' 'length($1) <= 255' | sort -t"$TAB" -k1,1 -k2,2 |
		awk -F'\t' '!seen[$1]++ { print $1 "\t" $3 }'
}

disk_matches() { disk_expected >/tmp/disk.exp; disk_actual >/tmp/disk.act; cmp -s /tmp/disk.exp /tmp/disk.act; }

# disk_check LABEL [TIMEOUT_S]: wait until lund's /dev/disk/by-id is exactly disk_expected.
disk_check() {
	if vm_wait_until "${2:-60}" disk_matches; then
		vm_log "ok: $1: /dev/disk/by-id exact ($(wc -l </tmp/disk.exp) links)"
	else
		disk_matches || true
		vm_fail "$1: /dev/disk/by-id differs from lund(8)'s scheme ($(wc -l </tmp/disk.exp) expected, $(wc -l </tmp/disk.act) present)"
		diff /tmp/disk.exp /tmp/disk.act | head -n 40 || true
		lund_alive || vm_log "lund is not running"
		tail -n 20 "$LUND_LOG.new" 2>/dev/null || true
	fi
	vm_assert_ge 20 "$(wc -l </tmp/disk.exp)" "$1: expected links (the comparison is meaningful)"
}

# bypath_actual: the links in /dev/disk/by-path to SCSI disks (sd, sr and their partitions; not
# the virtio-blk disks) as "name<TAB>target", sorted.
bypath_actual() {
	for f in "$PDISK"/*; do
		[ -L "$f" ] || continue
		t=$(readlink "$f")
		case ${t##*/} in sd* | sr*) printf '%s\t%s\n' "${f##*/}" "$t" ;; esac
	done | sort
}

# n_sd: sd disks in sysfs.
n_sd() { ls -d /sys/block/sd* 2>/dev/null | wc -l; }

san_up
udevadm settle --timeout=120 || vm_fail "udev did not settle within 120 s"

# --- a third scsi_debug host with IDs of its own, partitions on scsi_debug's store -------------
# (QEMU's SAN disks discard writes: scsi_debug's RAM store, which all its LUs share, is the one
# that can hold a partition table.) With vpd_use_hostno=1 the third host's LUs get IDs of their
# own, so their partition names are unshared; those of the first two hosts are all shared.
# new_host: add a scsi_debug host whose LUs have IDs of their own; wait for its 4 disks.
new_host() {
	_before=$(n_sd)
	echo 1 >$SD/vpd_use_hostno
	echo 1 >$SD/add_host
	vm_wait_until 60 sh -c "[ \$(ls -d /sys/block/sd* | wc -l) -ge $((_before + 4)) ]" ||
		vm_fail "scsi_debug host: 4 new disks expected ($(n_sd) disks)"
	echo 0 >$SD/vpd_use_hostno
}
new_host
udevadm settle --timeout=120 || vm_fail "udev did not settle after adding a host"
mbr /tmp/mbr.sdebug 2048 4096 8192 4096
sdebug=
for b in /sys/block/sd*; do
	read -r v <"$b/device/vendor"
	[ "$v" = Linux ] || continue
	if [ -z "$sdebug" ]; then
		sdebug=${b##*/}
		dd if=/tmp/mbr.sdebug of="/dev/$sdebug" bs=512 count=1 conv=notrunc,fsync 2>/dev/null ||
			vm_fail "cannot write a partition table to /dev/$sdebug"
	fi
	blockdev --rereadpt "/dev/${b##*/}" || vm_fail "blockdev --rereadpt /dev/${b##*/}"
done
udevadm settle --timeout=120 || vm_fail "udev did not settle after partitioning"
parts=$(ls -d /sys/class/block/sd*[0-9] 2>/dev/null | wc -l)
vm_assert_eq 24 "$parts" "partitions (2 on each of 12 scsi_debug LUs)"

# --- what udev made ---------------------------------------------------------------------------
# every claimant of every by-id name, from udev's database: "name<TAB>node<TAB>hctl"
udevadm info --export-db | awk -v TAB="$TAB" '
	/^P: / { node = ""; n = 0 }
	/^N: / { node = substr($0, 4) }
	/^S: disk\/by-id\// { l[++n] = substr($0, 15) }
	/^$/ { for (i = 1; i <= n; i++) if (node != "") print l[i] TAB node; n = 0 }
	END { for (i = 1; i <= n; i++) if (node != "") print l[i] TAB node }' | sort -u >/tmp/udev.names
cut -f2 /tmp/udev.names | sort -u | while read -r n; do
	h=$(scsi_hctl "$n")
	printf '%s\t%s\n' "$n" "${h:--}"
done >/tmp/udev.hctl
awk -F'\t' -v TAB="$TAB" 'FNR == NR { h[$1] = $2; next } { print $1 TAB $2 TAB h[$2] }' \
	/tmp/udev.hctl /tmp/udev.names | sort >/tmp/udev.claims
FOREIGN=
disk_actual >/tmp/udev.links
cp /tmp/udev.claims /tmp/udev.links "$VM_OUT/" 2>/dev/null || true
vm_assert_ge 30 "$(wc -l </tmp/udev.links)" "links udev made in $DISK"
# Names of devices that are not SCSI: left out, each with its reason.
awk -F'\t' '$3 == "-" { print $1 "\t" $2 }' /tmp/udev.claims | sort -u >/tmp/udev.nonscsi
while IFS="$TAB" read -r name node; do
	vm_log "left out: $DISK/$name -> $node: /dev/$node is $(readlink -f /sys/class/block/$node/device/driver 2>/dev/null | sed 's|.*/||') (not SCSI), lund names SCSI LUs only"
done </tmp/udev.nonscsi
vm_assert_ge 1 "$(wc -l </tmp/udev.nonscsi)" "names udev gives non-SCSI devices (virtio-LUNDVIRTBLK01)"
# udev's directory holds exactly the names its database gives the devices
cut -f1 /tmp/udev.claims | sort -u >/tmp/udev.claimed
cut -f1 /tmp/udev.links >/tmp/udev.present
cmp -s /tmp/udev.claimed /tmp/udev.present ||
	{ vm_fail "udev's $DISK differs from its database's DEVLINKS"; diff /tmp/udev.claimed /tmp/udev.present | head -n 20; }
# What lund must make: names with SCSI claimants only; one claimant -> udev's target (which must
# be it), several -> the lowest H:C:T:L (udev's target must be one of them).
awk -F'\t' -v TAB="$TAB" '
	FNR == NR { tgt[$1] = $2; next }
	$3 == "-" { next }
	{
		split($3, a, ":"); key = sprintf("%05d:%05d:%05d:%020s", a[1], a[2], a[3], a[4])
		t = "../../" $2
		if (!($1 in best) || key < bestkey[$1]) { best[$1] = t; bestkey[$1] = key }
		if (!(($1, t) in seen)) { seen[$1, t] = 1; n[$1]++ }
		if (t == tgt[$1]) hit[$1] = 1
		order[$1] = 1
	}
	END {
		for (k in order) {
			if (!hit[k]) print "BAD" TAB k TAB tgt[k] > "/tmp/udev.bad"
			if (n[k] > 1) print k TAB best[k] TAB tgt[k] > "/tmp/udev.shared"
			print k TAB (n[k] > 1 ? best[k] : tgt[k])
		}
	}' /tmp/udev.links /tmp/udev.claims | sort -t"$TAB" -k1,1 >/tmp/want.links
touch /tmp/udev.bad /tmp/udev.shared
[ -s /tmp/udev.bad ] && { vm_fail "udev links pointing at no claimant: $(head -n 5 /tmp/udev.bad)"; }
nwant=$(wc -l </tmp/want.links)
nshared=$(wc -l </tmp/udev.shared)
vm_assert_ge 30 "$nwant" "SCSI names in udev's $DISK"
vm_assert_ge 1 "$nshared" "names several LUs claim (scsi_debug twins, multipath pair)"
for pfx in wwn- scsi- ata- usb-; do
	vm_assert_ge 1 "$(grep -c "^$pfx" /tmp/want.links)" "udev names starting with $pfx"
done
vm_assert_ge 16 "$(grep -c -- '-part[0-9]*	' /tmp/want.links)" "udev partition names"
# lund(8)'s scheme computed from lunctl and sysfs must already say the same
disk_expected >/tmp/disk.exp
cmp -s /tmp/want.links /tmp/disk.exp ||
	{ vm_fail "lunctl's names with lund(8)'s scheme differ from udev's $DISK"; diff /tmp/want.links /tmp/disk.exp | head -n 20; }

bypath_actual >/tmp/udev.bypath
vm_assert_ge 15 "$(wc -l </tmp/udev.bypath)" "links udev made in $PDISK to SCSI disks"

# --- udevd goes; nothing else makes links -----------------------------------------------------
udevadm control --exit || vm_fail "udevadm control --exit"
# udevd finishes its workers' events before it exits. Its clean exit is not what is tested here,
# only that it is gone before lund writes: one that has not exited after 30 s (seen once on a
# loaded CI host) is killed with its workers, and said so.
if ! vm_wait_until 30 sh -c '! pidof systemd-udevd'; then
	vm_log "systemd-udevd still running 30 s after udevadm control --exit ($(pidof systemd-udevd)): killed"
	# shellcheck disable=SC2046 # one argument per pid
	kill -9 $(pidof systemd-udevd) 2>/dev/null || true
fi
vm_wait_until 10 sh -c '! pidof systemd-udevd' || vm_fail "systemd-udevd still running"
hp=$(cat /proc/sys/kernel/hotplug 2>/dev/null || true)  # absent without CONFIG_UEVENT_HELPER
[ -z "$hp" ] || vm_fail "a uevent helper is set ($hp): it could make links"
rm -rf "$DISK" "$PDISK"
[ ! -e "$DISK" ] || vm_fail "$DISK still exists"

lund_start --manage-disk-links
[ -d "$DISK" ] || vm_fail "lund made no $DISK"
disk_actual >/tmp/lund.links
vm_assert_ge 30 "$(wc -l </tmp/lund.links)" "links lund made in $DISK"
if cmp -s /tmp/want.links /tmp/lund.links; then
	vm_log "ok: lund's $DISK equals udev's: $nwant names, $nshared shared ones to the lowest H:C:T:L"
else
	vm_fail "lund's $DISK differs from udev's (< udev, > lund)"
	diff /tmp/want.links /tmp/lund.links | head -n 60
fi
cp /tmp/want.links /tmp/lund.links "$VM_OUT/" 2>/dev/null || true
bypath_actual >/tmp/lund.bypath
if cmp -s /tmp/udev.bypath /tmp/lund.bypath; then
	vm_log "ok: lund's $PDISK equals udev's ($(wc -l </tmp/lund.bypath) links)"
else
	vm_fail "lund's $PDISK differs from udev's (< udev, > lund)"
	diff /tmp/udev.bypath /tmp/lund.bypath | head -n 40
fi
# lund's own by-path tree: each disk's ID_PATH name (udev's by-path names less partitions, the
# ATA compat ones and, udev 254 on, the USB revision ones) with udev's target
spath=0
while IFS="$TAB" read -r name target; do
	case $name in *-part[0-9]* | *-ata-[0-9] | *-ata-[0-9][0-9] | *-usbv[0-9]-*) continue ;; esac
	t=$(readlink "/dev/scsi/by-path/$name" 2>/dev/null || true)
	[ "$t" = "$target" ] || vm_fail "/dev/scsi/by-path/$name -> '$t', udev's $PDISK/$name -> $target"
	spath=$((spath + 1))
done </tmp/udev.bypath
vm_assert_ge 12 "$spath" "disks in /dev/scsi/by-path with udev's ID_PATH and target"
cp /tmp/udev.bypath /tmp/lund.bypath "$VM_OUT/" 2>/dev/null || true
st=$(lunctl status)
echo "$st" | grep -q "^Link dirs:.* $DISK" || vm_fail "lunctl status does not list $DISK: $(echo "$st" | head -n 20)"
echo "$st" | grep -q '^Foreign files: *0$' || vm_fail "lund reports foreign files: $(echo "$st" | grep -A3 Foreign)"
# lund's own tree is still made (daemon-coldstart and daemon-udev check it link by link)
# (Debian 13's sg3-utils-udev names no ambiguous ID: fewer names, 82 seen)
min_links=100; [ "$VM_RELEASE" = 12 ] || min_links=80
vm_assert_ge $min_links "$(ls "$LUND_LINKS" | wc -l)" "links in $LUND_LINKS beside $DISK"
[ -e "$DISK/virtio-LUNDVIRTBLK01" ] && vm_fail "lund made a link for a device that is not SCSI"
ls -a "$DISK" | grep -q '^\.#lund\.' && vm_fail "temporary files left in $DISK"

# a link lund never made (as udev would have left one): lund must not touch it
FOREIGN=virtio-lund-foreign-root  # (disk_actual leaves it out from here on)
ln -s ../../vda "$DISK/$FOREIGN"
base=$(disk_actual)
base_sd=$(n_sd)

# --- hot-add / hot-remove with lund alone -----------------------------------------------------
# del_host: remove the newest scsi_debug host, wait until its disks are gone from sysfs.
del_host() {
	echo -1 >$SD/add_host
	vm_wait_until 60 sh -c "[ \$(ls -d /sys/block/sd* | wc -l) -eq $base_sd ]" ||
		vm_fail "host not removed ($(n_sd) disks, $base_sd expected)"
}
new_host
disk_check "after add_host=1" 60
added=$(($(wc -l </tmp/disk.act) - $(echo "$base" | wc -l)))
vm_assert_ge 8 "$added" "links the new scsi_debug host added (4 LUs, wwn- and scsi- each)"
del_host
disk_check "after add_host=-1" 60
[ "$(disk_actual)" = "$base" ] || { vm_fail "the tree after removing the host is not the one before adding it"; diff <(echo "$base") <(disk_actual) | head -n 20; }

# --- SIGKILL; a host goes and another comes while lund is down; restart ----------------------
new_host
disk_check "host added again, before the kill" 60
with_host=$(wc -l </tmp/disk.act)
kill -9 "$LUND_PID"; wait "$LUND_PID" 2>/dev/null || true
cat "$LUND_LOG.new" >>"$LUND_LOG"; LUND_PID=
del_host
stale=$(( $(disk_actual | wc -l) - $(echo "$base" | wc -l) ))
vm_assert_ge 8 "$stale" "stale links left by the killed lund (the restart has something to clean)"
new_host
lund_start --manage-disk-links
disk_check "after the restart" 60
restarted=$(wc -l </tmp/disk.act)
vm_assert_eq "$with_host" "$restarted" "links after the restart (the host added while lund was down replaces the removed one)"
[ -L "$DISK/$FOREIGN" ] && [ "$(readlink "$DISK/$FOREIGN")" = ../../vda ] ||
	vm_fail "the link lund never made was changed or removed"
del_host
disk_check "that host removed" 60
[ "$(disk_actual)" = "$base" ] || vm_fail "the tree after the restart and removal is not the original one"
[ -L "$DISK/$FOREIGN" ] || vm_fail "the link lund never made was removed"
echo "$(lunctl status)" | grep -q '^Foreign files: *0$' ||
	vm_log "lund reports foreign files: $(lunctl status | grep -A3 Foreign)"

vm_result "udev_bypath=$(wc -l </tmp/udev.bypath) lund_bypath=$(wc -l </tmp/lund.bypath) scsi_bypath_disks=$spath"
vm_result "udev_links=$(wc -l </tmp/udev.links) compared=$nwant shared=$nshared left_out=$(cut -f1 /tmp/udev.nonscsi | sort -u | wc -l) partitions=$parts hotadd_links=$added stale_at_kill=$stale"
lund_alive || vm_fail "lund died"
lund_stop
vm_done
