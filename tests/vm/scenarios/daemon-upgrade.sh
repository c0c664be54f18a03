#!/bin/sh
# daemon-upgrade: an hwdb change that renames a device keeps the old names as aliases until the
# admin accepts (lund(8), Naming contract; lund.hwdb(7), LUND_NAME_IDENTITY=unit-serial), on two
# QEMU disks with a wwn and a serial each. lund runs and the admin accepts every name. A new
# hwdb (compiled by the host: this guest has no systemd-hwdb) marks disk A's vendor and model
# unit-serial: `lunctl names --diff --hwdb NEW` lists the rename and exits 1. The hwdb is
# installed and lund reloads: disk A gets "scsi-" + the ID_SERIAL the real `scsi_id
# --page=0x80` prints in this VM (and an /etc/scsi_id.config line "options=-p 0x80" gives), its
# old names still point at it as aliases (lunctl names says so), disk B keeps its names. `lunctl
# names --accept --all` retires the aliases: their links go, --diff exits 0. The whole link
# tree, every name with its target, is compared at each step with the one computed here.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 120
# vm-qemu: -device virtio-scsi-pci,id=up0 -blockdev driver=null-co,node-name=upa,read-zeroes=on,size=16777216 -device 'scsi-hd,bus=up0.0,scsi-id=0,lun=0,drive=upa,vendor=ACME,product=RAID5 LUN,serial=USN-A0001,wwn=0x5000c50077770001' -blockdev driver=null-co,node-name=upb,read-zeroes=on,size=16777216 -device 'scsi-hd,bus=up0.0,scsi-id=1,lun=0,drive=upb,vendor=ACME,product=Other LUN,serial=USN-B0001,wwn=0x5000c50077770002'
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

WWN_A=0x5000c50077770001 WWN_B=0x5000c50077770002
TAB=$(printf '\t')

modprobe -a sd_mod sg
vm_coldplug pci virtio
two_disks() { [ "$(ls -d /sys/bus/scsi/devices/*:*:*:*/block/sd* 2>/dev/null | wc -l)" -ge 2 ]; }
vm_wait_until 60 two_disks || vm_fail "the two QEMU disks did not appear within 60 s"
mdev -s 2>/dev/null || true

# disk_of WWN: "sdX sgN" of the disk whose kernel-cached wwid names WWN
disk_of() {
	for d in /sys/bus/scsi/devices/*:*:*:*; do
		grep -q "naa.${1#0x}" "$d/wwid" 2>/dev/null || continue
		echo "$(ls "$d/block") $(ls "$d/scsi_generic")"
		return 0
	done
}
set -- $(disk_of $WWN_A); BLK_A=$1 SG_A=$2
set -- $(disk_of $WWN_B); BLK_B=$1 SG_B=$2
[ -n "$BLK_A" ] && [ -n "$SG_A" ] && [ -n "$BLK_B" ] && [ -n "$SG_B" ] ||
	vm_fail "disks not found by their wwid: A=$BLK_A/$SG_A B=$BLK_B/$SG_B"

# udev's name for disk A with page 0x80 asked for, from the real scsi_id: as an option, and as
# /etc/scsi_id.config gives it (the way an admin tells udev to name such an array)
/lib/udev/scsi_id --page=0x80 --export --whitelisted -g -d /dev/$BLK_A >/tmp/sid80.txt ||
	vm_fail "scsi_id --page=0x80 failed on /dev/$BLK_A"
SERIAL80=$(sed -n 's/^ID_SERIAL=//p' /tmp/sid80.txt)
vendor=$(sed -n 's/^ID_VENDOR=//p' /tmp/sid80.txt) model=$(sed -n 's/^ID_MODEL=//p' /tmp/sid80.txt)
printf 'vendor="%s",model="%s",options=-p 0x80\n' "$vendor" "$model" >/tmp/scsi_id.config
/lib/udev/scsi_id -f /tmp/scsi_id.config --export --whitelisted -g -d /dev/$BLK_A >/tmp/sidconf.txt ||
	vm_fail "scsi_id -f scsi_id.config failed on /dev/$BLK_A"
vm_assert "scsi_id.config's -p 0x80 gives the same lines" cmp -s /tmp/sid80.txt /tmp/sidconf.txt
vm_assert_eq "SACME_RAID5_LUN_USN-A0001" "$SERIAL80" "scsi_id --page=0x80's ID_SERIAL of disk A"
NEW_A=scsi-$SERIAL80
OLD_A1=scsi-3${WWN_A#0x} OLD_A2=wwn-$WWN_A
B1=scsi-3${WWN_B#0x} B2=wwn-$WWN_B

# tree_is NAME...: /dev/scsi/by-id is exactly these base names (A's and B's), each with its -sg
# form, pointing at the disk and sg node of the LU it belongs to
tree_expect() {
	for n in "$@"; do
		case $n in
		"$B1" | "$B2") b=$BLK_B s=$SG_B ;;
		*) b=$BLK_A s=$SG_A ;;
		esac
		printf '%s\t../../%s\n%s-sg\t../../%s\n' "$n" "$b" "$n" "$s"
	done | sort
}
tree_actual() {
	for f in "$LUND_LINKS"/*; do
		[ -L "$f" ] && printf '%s\t%s\n' "${f##*/}" "$(readlink "$f")"
	done | sort
}
tree_is() {
	tree_expect "$@" >/tmp/tree.exp
	tree_actual >/tmp/tree.act
	cmp -s /tmp/tree.exp /tmp/tree.act
}
check_tree() { # LABEL NAME...
	_l=$1
	shift
	if vm_wait_until 30 tree_is "$@"; then
		vm_log "ok: $_l: $(wc -l </tmp/tree.act) links, each to its own LU"
	else
		vm_fail "$_l: /dev/scsi/by-id differs from the expected tree"
		diff /tmp/tree.exp /tmp/tree.act | head -n 20
	fi
}

mkdir -p /var/lib/lund /etc/udev
lund_start
check_tree "start" "$OLD_A1" "$OLD_A2" "$B1" "$B2"
lunctl names --accept --all || vm_fail "lunctl names --accept --all failed ($?)"
vm_assert "the records key disk A by its wwn" grep -q "^$WWN_A name scsi/by-id/$OLD_A1\$" /var/lib/lund/names
rc=0; lunctl names --diff >/tmp/diff0.txt || rc=$?
vm_assert_eq 0 "$rc" "--diff exit status after the first accept"

# ---- the preview ----
rc=0; lunctl names --diff --hwdb /vm/out/upgrade-hwdb.bin >/tmp/diff1.txt || rc=$?
vm_assert_eq 1 "$rc" "--diff --hwdb NEW exit status"
vm_assert "--diff --hwdb lists the new name" grep -qx -- "+ /dev/scsi/by-id/$NEW_A ($WWN_A)" /tmp/diff1.txt
for o in "$OLD_A1" "$OLD_A2"; do
	vm_assert "--diff --hwdb lists $o kept as an alias" \
		grep -qx -- "- /dev/scsi/by-id/$o ($WWN_A, kept as an alias until accepted)" /tmp/diff1.txt
done
vm_assert_eq 3 "$(wc -l </tmp/diff1.txt)" "changes --diff --hwdb lists (disk B has none)"
vm_result "diff=$(tr '\n' ';' </tmp/diff1.txt)"

# ---- the hwdb goes live ----
cp /vm/out/upgrade-hwdb.bin /etc/udev/hwdb.bin
lunctl reload >/dev/null || vm_fail "lunctl reload failed"
check_tree "after the reload" "$NEW_A" "$OLD_A1" "$OLD_A2" "$B1" "$B2"
grep -q "/$NEW_A created -> ../../$BLK_A" "$LUND_LOG.new" || vm_fail "no log line for $NEW_A"
lunctl names "/dev/$BLK_A" >/tmp/names-a.txt || vm_fail "lunctl names /dev/$BLK_A failed"
vm_assert "lunctl names: $NEW_A is current" grep -q "^linked *$LUND_LINKS/$NEW_A -> ../../$BLK_A\$" /tmp/names-a.txt
for o in "$OLD_A1" "$OLD_A2"; do
	vm_assert "lunctl names: $o is an alias of disk A" \
		grep -q "^linked *$LUND_LINKS/$o -> ../../$BLK_A (alias)\$" /tmp/names-a.txt
done
lunctl names "/dev/$BLK_B" >/tmp/names-b.txt || vm_fail "lunctl names /dev/$BLK_B failed"
vm_assert "lunctl names: disk B has its names" grep -q "^linked *$LUND_LINKS/$B1 -> ../../$BLK_B\$" /tmp/names-b.txt
vm_assert "lunctl names: disk B has no alias" sh -c "! grep -q '(alias)' /tmp/names-b.txt"
lunctl names --why "/dev/$BLK_A" >/tmp/why.txt || vm_fail "lunctl names --why /dev/$BLK_A failed"
vm_assert "--why: the rule and page 0x80" \
	grep -A1 -x "name $NEW_A" /tmp/why.txt | grep -q "rule:   lund.hwdb: unit-serial (.*page 0x80)"
vm_assert "--why: the aliases" grep -qx "alias $OLD_A1" /tmp/why.txt
rc=0; lunctl names --diff >/tmp/diff2.txt || rc=$?
vm_assert_eq 1 "$rc" "--diff exit status while the aliases are kept"
vm_assert "--diff under the installed hwdb is the preview" cmp -s /tmp/diff1.txt /tmp/diff2.txt
vm_result "new=$NEW_A target=$(readlink "$LUND_LINKS/$NEW_A") aliases=$OLD_A1,$OLD_A2"

# ---- accepted ----
lunctl names --accept --all || vm_fail "lunctl names --accept --all failed ($?)"
check_tree "after the accept" "$NEW_A" "$B1" "$B2"
rc=0; lunctl names --diff >/tmp/diff3.txt || rc=$?
vm_assert_eq 0 "$rc" "--diff exit status after the accept"
grep -q "Name records changed" "$LUND_LOG.new" || vm_fail "lund did not log the records change"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
