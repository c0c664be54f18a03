#!/bin/bash
# mpath-udev: dm-multipath takes the SAN's two-path disk and gives it back, under udevd with
# rules/59-lund.rules (lund(8), PATHS and UDEV).
#  - The disk on two HBAs (virtio-scsi and lsi: one wwn, a port name and relative port each):
#    lund shows one identity with two paths, its by-id names on the lowest path.
#  - multipathd (find_multipaths "no", only that WWID) makes a map of both paths: the WWID of
#    `multipathd show paths` and `multipath -ll` is lund's serial for both; lund's by-id names
#    move to the map (/dev/dm-N, through udev's database) and equal udev's own
#    /dev/disk/by-id names of the map (56-dm-mpath.rules); `lunctl names --paths` names the
#    map, each path says "linked" to it, and the journal has each hand-over.
#  - multipathd stops and `multipath -F` removes the map: the names go back to the lowest
#    path. Throughout, both paths keep their H:C:T:L, nodes and -sg names: lund never removes
#    or renames a path multipathd holds.
# vm-flavour: udev-root
# vm-release: 13
# vm-topology: san
# vm-timeout: 420
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/mpath-lib.sh

WWN=5000c500deadbe01
WWID=3$WWN
BYID=/dev/scsi/by-id

# settle: wait for udev's queue, which may take minutes on a loaded host; not fatal, every
# check below waits for its own condition
settle() { udevadm settle --timeout=180 || vm_log "note: udev's queue not empty after 180 s"; }
san_up
settle
vm_sync RULES 60
[ -r /vm/out/59-lund.rules ] || vm_fail "the host did not provide rules/59-lund.rules"
sed -e "s|@BINDIR@|/usr/local/bin|g" -e "s|@RUNDIR@|$LUND_RUN|g" /vm/out/59-lund.rules \
	>/etc/udev/rules.d/59-lund.rules
udevadm control --reload

# The two paths from sysfs: the disks whose kernel wwid is the NAA, lowest H:C:T:L first.
for b in /sys/block/sd*; do
	[ "$(cat "$b/device/wwid" 2>/dev/null)" = "naa.$WWN" ] || continue
	printf '%s %s\n' "$(basename "$(readlink -f "$b/device")")" "${b##*/}"
done | sort -t: -k1,1n -k2,2n -k3,3n -k4,4n >/tmp/paths
vm_assert_eq 2 "$(wc -l </tmp/paths)" "paths of naa.$WWN in sysfs"
# shellcheck disable=SC2046
set -- $(cat /tmp/paths)
H1=$1 D1=$2 H2=$3 D2=$4
vm_log "paths: $H1 ($D1), $H2 ($D2)"
sg_of() { basename /sys/class/scsi_device/"$1"/device/scsi_generic/sg*; }
SG1=$(sg_of "$H1") SG2=$(sg_of "$H2")

lund_start
settle
target() { readlink "$1" 2>/dev/null; }
names_at() { # TARGET: lund's scsi- and wwn- names of the disk point there
	[ "$(target $BYID/scsi-$WWID)" = "../../$1" ] && [ "$(target $BYID/wwn-0x$WWN)" = "../../$1" ]
}
vm_wait_until 90 names_at "$D1" ||
	vm_fail "before multipath: $BYID/scsi-$WWID -> $(target $BYID/scsi-$WWID), want ../../$D1"
lunctl names --paths >/tmp/paths.txt || vm_fail "lunctl names --paths failed"
vm_assert "one identity through $H1 and $H2" grep -q "^one LU through.*$H1.*names at $H1" /tmp/paths.txt
grep -q "owned by dm-multipath" /tmp/paths.txt && vm_fail "a map is named before multipathd runs"
mpath_assert_lund_serial "$WWID" "$H1" "$H2"
vm_result "paths=$H1,$H2 names_at=$D1"

# --- multipathd takes both paths -------------------------------------------------------------
t0=$(vm_uptime_ms)
mpath_up "$WWID"
mpath_wait_map "$D1" "$D2"
DM=$(mpath_map_of "$D1")
vm_assert_eq "mpath-$WWID" "$(cat /sys/block/$DM/dm/uuid 2>/dev/null)" "dm uuid of $DM"
vm_wait_until 90 names_at "$DM" ||
	vm_fail "with the map: $BYID/scsi-$WWID -> $(target $BYID/scsi-$WWID), want ../../$DM"
vm_log "names on the map $DM after $(( $(vm_uptime_ms) - t0 )) ms"
settle
# multipath's view of the WWID, the same as lund's
/sbin/multipath -ll >/tmp/mp-ll.txt 2>&1
vm_assert "multipath -ll: the map has WWID $WWID" grep -q "($WWID) $DM" /tmp/mp-ll.txt
/sbin/multipathd show paths format "%w %d" >/tmp/mp-paths.txt 2>&1
for d in "$D1" "$D2"; do
	vm_assert "multipathd show paths: $d has WWID $WWID" grep -q "^$WWID *$d *\$" /tmp/mp-paths.txt
done
# udev's names of the map, next to lund's
for n in "scsi-$WWID" "wwn-0x$WWN" "dm-uuid-mpath-$WWID"; do
	vm_assert_eq "../../$DM" "$(target /dev/disk/by-id/$n)" "udev's /dev/disk/by-id/$n"
done
vm_assert_eq "$(target /dev/disk/by-id/scsi-$WWID)" "$(target $BYID/scsi-$WWID)" "lund's scsi-$WWID equals udev's"
vm_assert "udev's database has lund's name on $DM" sh -c "udevadm info -q symlink -n /dev/$DM | grep -qw scsi/by-id/scsi-$WWID"
lunctl names --paths >/tmp/paths.txt || vm_fail "lunctl names --paths failed"
vm_assert "lunctl names --paths names the map" grep -q "owned by dm-multipath: $DM, named dm-uuid-mpath-$WWID" /tmp/paths.txt
lunctl names --paths --json >/tmp/paths.json
vm_assert "lunctl names --paths --json: the map's node" grep -q "\"node\": *\"$DM\"" /tmp/paths.json
for h in "$H1" "$H2"; do
	lunctl names "$h" >/tmp/names.$h
	vm_assert "lunctl names $h: scsi-$WWID linked to $DM" grep -q "^linked *$BYID/scsi-$WWID -> ../../$DM\$" /tmp/names.$h
done
lunctl list -o HCTL,PATHS -n >/tmp/list.txt
for h in "$H1" "$H2"; do
	vm_assert "lunctl list -o +PATHS: $h shows the map" grep -q "^$h .*\[$DM\]" /tmp/list.txt
done
vm_assert_eq 2 "$(lunctl list -o HCTL,PATHS --json | grep -c "\"node\": *\"$DM\"")" "lunctl list --json: the map of both paths"
for d in "$D1" "$D2"; do
	vm_assert "the hand-over of $d is logged" grep -q "/dev/$d is a path of dm-multipath map /dev/$DM (mpath-$WWID)" "$LUND_LOG.new"
done
vm_assert_eq "../../$SG1" "$(target $BYID/scsi-$WWID-sg)" "the -sg name stays on the lowest path"
vm_result "map=$DM uuid=mpath-$WWID udev=$(target /dev/disk/by-id/scsi-$WWID) lund=$(target $BYID/scsi-$WWID)"

# --- the map goes ----------------------------------------------------------------------------
mpath_down
/sbin/multipath -F >/tmp/mp-flush.txt 2>&1 || vm_fail "multipath -F failed: $(cat /tmp/mp-flush.txt)"
vm_wait_until 60 sh -c "[ ! -e /sys/block/$DM ]" || vm_fail "$DM still there after multipath -F"
vm_wait_until 90 names_at "$D1" ||
	vm_fail "map gone: $BYID/scsi-$WWID -> $(target $BYID/scsi-$WWID), want ../../$D1"
vm_assert "the hand-back is logged" grep -q "/dev/$D1 is no longer held by dm-multipath map /dev/$DM" "$LUND_LOG.new"
settle
t=$(target /dev/disk/by-id/scsi-$WWID)
case $t in ../../"$D1" | ../../"$D2") vm_log "ok: udev's scsi-$WWID back on a path ($t)" ;;
*) vm_fail "udev's scsi-$WWID -> $t after the map went" ;; esac
# the paths were never touched
vm_assert_eq "$(cat /tmp/paths)" "$(for h in $H1 $H2; do echo "$h $(basename /sys/class/scsi_device/$h/device/block/sd*)"; done)" "both paths kept their H:C:T:L and disks"
vm_assert_eq "$SG1 $SG2" "$(sg_of "$H1") $(sg_of "$H2")" "and their sg nodes"
grep -Eq "^lund: ($H1|$H2): removed" "$LUND_LOG.new" && vm_fail "lund removed a path"
lund_alive || vm_fail "lund died"
vm_result "map_removed names_at=$D1 udev=$t"
lund_stop
vm_done
