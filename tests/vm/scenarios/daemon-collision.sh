#!/bin/sh
# daemon-collision: LUs that share an ID, paths and clones (lund(8), LINKS, Paths and clones).
# The SAN's scsi_debug has two hosts with vpd_use_hostno=0 (every LU of host A has the LU and
# port IDs of its twin on host B, but another ALUA target port group: paths), and a disk seen on
# two HBAs (virtio-scsi and lsi) with one wwn and a port name and relative port each (paths),
# without multipath. A name paths want must be linked to the lowest running H:C:T:L, listed by
# `lunctl names --collisions` and `--paths`, counted in `lunctl status`, and each path's `lunctl
# names` must say so. Then the twin host goes and comes back (events, not a resync): the winner
# must not change. Last, the host hot-plugs two USB sticks with one serial and no port
# designators (clones): their shared names must be linked to neither, shown quarantined and
# explained. A USB reader (usb-bot) with two LUNs of one serial, vendor and model follows: udev's
# usb_id ends each name with the LUN, so those two are no clones. Last, an hwdb entry marks
# QEMU's USB mass storage (46f4:0001) LUND_NAME_IDENTITY=serial-path and lund reloads: every
# USB LU, the two sticks included, gets its own /dev/scsi/by-id name of serial plus path and
# nothing is quarantined any more (lund(8), "Devices that give one serial to different media").
# The expected outcome is computed from sysfs (the kernel's cached page 0x83), lunctl list and
# lunctl id (guest/daemon-lib.sh), not taken from lund.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 360
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug

# collisions_match LABEL: lunctl names --collisions --json against the computed set
collisions_from_lund() {
	lunctl names --collisions --json | awk '
		/"path": *"/ { p = $0; sub(/.*"path": *"/, "", p); sub(/".*/, "", p) }
		/"winner": *"/ { w = $0; sub(/.*"winner": *"/, "", w); sub(/".*/, "", w); print p "\t" w }
		/"winner": *null/ { print p "\t-" }
	' | sort
}
collisions_match() {
	daemon_tree_matches || return 1
	daemon_expected_collisions | cut -f1,2 >/tmp/coll.exp
	collisions_from_lund >/tmp/coll.act
	cmp -s /tmp/coll.exp /tmp/coll.act
}
check_collisions() {
	if vm_wait_until 30 collisions_match; then
		vm_log "ok: $1: $(wc -l </tmp/coll.exp) collisions, all reported with the right winner"
	else
		vm_fail "$1: collisions reported by lunctl differ from the computed ones"
		diff /tmp/coll.exp /tmp/coll.act | head -n 20 || true
		diff /tmp/tree.exp /tmp/tree.act | head -n 10 || true
	fi
}

san_up
lund_start
daemon_check_tree "start"
check_collisions "start"
n=$(wc -l </tmp/coll.exp)
# 8 scsi_debug LUs in 4 twin pairs x (scsi- + wwn-) x (name + -sg) = 16; the two-path disk 4:
# all paths
vm_assert_ge 20 "$n" "collisions computed"
vm_assert_eq 0 "$(awk -F'\t' '$2 == "-"' /tmp/coll.exp | wc -l)" "clones computed before the USB sticks"
vm_assert_eq "$n" "$(lunctl status --json | grep -c '"winner"')" "collisions counted by lunctl status"
# paths are no collisions: 4 twin pairs and the two-path disk, 5 LUs over 10 paths
lunctl status >/tmp/status.txt
grep -q "^Paths: *5 logical units over 10 paths" /tmp/status.txt || vm_fail "lunctl status: no 'Paths: 5 logical units over 10 paths' line: $(cat /tmp/status.txt)"
grep -q "^Collisions: *0\$" /tmp/status.txt || vm_fail "lunctl status: paths counted as collisions: $(grep Collisions /tmp/status.txt)"
grep -q 'one logical unit through 2 paths' "$LUND_LOG.new" || vm_fail "no paths in lund's log"

# a loser's view: names shows the name taken by the other path
line=$(head -n1 /tmp/coll.exp)
path=$(echo "$line" | cut -f1); winner=$(echo "$line" | cut -f2)
loser=$(awk -F'\t' -v p="${path##*/}" -v w="$winner" '$1 == p && $4 != w { print $4; exit }' /tmp/exp.all)
lunctl names "$loser" >/tmp/names.loser || vm_fail "lunctl names $loser failed"
vm_assert "lunctl names $loser: $path in collision" grep -q "^collision *$path " /tmp/names.loser
lunctl names "$winner" >/tmp/names.winner || vm_fail "lunctl names $winner failed"
vm_assert "lunctl names $winner: $path linked" grep -q "^linked *$path " /tmp/names.winner
lunctl names --paths >/tmp/paths.txt || vm_fail "lunctl names --paths failed"
vm_assert "lunctl names --paths: $winner and $loser" grep -q "through.*$winner.*$loser.*names at $winner\|through.*$loser.*$winner.*names at $winner" /tmp/paths.txt
vm_assert "lunctl names --paths lists $path" grep -q "^  $path\$" /tmp/paths.txt
vm_result "collisions=$n example=${path##*/} winner=$winner loser=$loser"

# the twin host goes: its collisions go with it; it comes back through uevents: same winners
last=$(ls -d /sys/bus/pseudo/devices/adapter* | sort | tail -n1)
echo -1 >$SD/add_host
vm_wait_until 20 sh -c "[ ! -e $last ]" || vm_fail "scsi_debug host not removed"
check_collisions "twin host removed"
vm_assert_eq $((n - 16)) "$(wc -l </tmp/coll.exp)" "collisions left (the two-path disk)"
echo 1 >$SD/add_host
vm_wait_until 20 sh -c "[ \$(ls -d /sys/bus/scsi/devices/*:*:*:* | wc -l) -ge 28 ]" ||
	vm_fail "scsi_debug host not re-added"
check_collisions "twin host back"
vm_assert_eq "$n" "$(wc -l </tmp/coll.exp)" "collisions with the twin back"
lunctl status | grep -q "^Resyncs: *0" || vm_log "note: lund resynced: $(lunctl status | grep Resyncs)"

# clones: two USB sticks, one serial, no page 0x83 port designators
usb_before=$(san_count usb-storage)
vm_sync HOTADD-CLONES
usb_more() { [ "$(san_count usb-storage)" -ge $((usb_before + 2)) ]; }
vm_wait_until 90 usb_more || vm_fail "hot-plugged USB clones: no LUs within 90 s"
check_collisions "USB clones"
clones=$(awk -F'\t' '$2 == "-"' /tmp/coll.exp | wc -l)
vm_assert_ge 2 "$clones" "clone names computed (scsi- + -sg)"
cpath=$(awk -F'\t' '$2 == "-"' /tmp/coll.exp | head -n1 | cut -f1)
for h in $(awk -F'\t' -v p="${cpath##*/}" '$1 == p { print $4 }' /tmp/exp.all); do
	lunctl names "$h" >/tmp/names.clone || vm_fail "lunctl names $h failed"
	vm_assert "lunctl names $h: $cpath quarantined" grep -q "^quarantined *$cpath " /tmp/names.clone
done
[ ! -e "$cpath" ] && [ ! -L "$cpath" ] || vm_fail "$cpath exists, but clones claim it"
lunctl names --collisions >/tmp/coll.txt
vm_assert "lunctl names --collisions explains the clones" grep -q "^$cpath: quarantined, clones" /tmp/coll.txt
grep -q 'claimed by 2 logical units .*quarantined' "$LUND_LOG.new" || vm_fail "no quarantine in lund's log"
vm_result "clones=$clones quarantined=${cpath##*/}"

# one reader, two LUNs with one serial, vendor and model: usb_id's instance (target:lun) ends each
# by-id name, so they are told apart without any hwdb entry
n_coll=$(wc -l </tmp/coll.exp)
vm_sync HOTADD-READER
reader_more() { [ "$(san_count usb-storage)" -ge $((usb_before + 4)) ]; }
vm_wait_until 90 reader_more || vm_fail "hot-plugged USB reader: no 2 LUs within 90 s"
check_collisions "USB reader"
vm_assert_eq "$n_coll" "$(wc -l </tmp/coll.exp)" "collisions with the reader's two LUNs"
rd=usb-LUND_Card_Reader_CLONE0000002
r0=$(readlink "$LUND_LINKS/$rd-0:0"); r1=$(readlink "$LUND_LINKS/$rd-0:1")
[ -n "$r0" ] && [ -n "$r1" ] && [ "$r0" != "$r1" ] ||
	vm_fail "the reader's LUNs: $rd-0:0 -> '$r0', $rd-0:1 -> '$r1'"
vm_result "reader=$rd lun0=$r0 lun1=$r1"

# the hwdb marks QEMU's USB mass storage serial-path ("lund:usb:v46F4p0001*", compiled by the
# host: this guest has no systemd-hwdb); lund reloads it
mkdir -p /etc/udev
cp /vm/out/clones-hwdb.bin /etc/udev/hwdb.bin || vm_fail "the host did not provide clones-hwdb.bin"
lunctl reload >/dev/null || vm_fail "lunctl reload failed"
# expected: every LU below a USB device gets its first base name (lunctl list) + "-" +
# ID_PATH_TAG (lunctl id) in lund's tree, pointing at its disk; none keeps a base name there
lund_names_from_lunctl >/tmp/exp.names
: >/tmp/sp.exp
for d in /sys/bus/scsi/devices/*:*:*:*; do
	case $(readlink -f "$d") in */usb*) ;; *) continue ;; esac
	h=${d##*/}
	base=$(awk -F'\t' -v h="$h" '$1 == h { print $2; exit }' /tmp/exp.names)
	tag=$(LUND_RUN_DIR=/nonexistent lunctl id --export "$h" | sed -n 's/^ID_PATH_TAG=//p')
	[ -n "$base" ] && [ -n "$tag" ] || { vm_fail "$h: no base name ('$base') or tag ('$tag')"; continue; }
	printf '%s\t%s\t%s\n' "$h" "$base-$tag" "$(ls "$d/block")" >>/tmp/sp.exp
done
sp_match() {
	while IFS="$(printf '\t')" read -r h name blk; do
		[ "$(readlink "$LUND_LINKS/$name")" = "../../$blk" ] || return 1
	done </tmp/sp.exp
}
vm_wait_until 20 sp_match || vm_fail "serial-path names missing after the reload: $(cat /tmp/sp.exp)"
n_sp=$(wc -l </tmp/sp.exp)
vm_assert_ge 7 "$n_sp" "USB LUs named by serial and path (stick, reader x2, clones x2, new reader x2)"
vm_assert_eq "$n_sp" "$(cut -f2 /tmp/sp.exp | sort -u | wc -l)" "distinct serial-path names"
[ ! -e "$LUND_LINKS/$rd-0:0" ] && [ ! -L "$LUND_LINKS/${cpath##*/}" ] ||
	vm_fail "identity names of serial-path LUs left in $LUND_LINKS"
lunctl names --collisions >/tmp/coll.txt
! grep -q "^$cpath: quarantined" /tmp/coll.txt || vm_fail "$cpath still quarantined after the hwdb entry"
h=$(awk -F'\t' -v p="${cpath##*/}" '$1 == p { print $4; exit }' /tmp/exp.all)
lunctl names --why "$h" >/tmp/why.txt || vm_fail "lunctl names --why $h failed"
vm_assert "lunctl names --why $h: the serial-path rule" grep -q 'rule:   lund.hwdb: serial-path' /tmp/why.txt
vm_result "serial-path names=$n_sp example=$(head -n1 /tmp/sp.exp | cut -f2)"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
