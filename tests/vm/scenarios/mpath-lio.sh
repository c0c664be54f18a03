#!/bin/bash
# mpath-lio: two portals of a real target (LIO on loopback), dm-multipath on top, lund beside
# it, under udevd with rules/59-lund.rules (lund(8), PATHS and UDEV).
#  - One iSCSI target, two portal groups (tpgt_1 on 127.0.0.1, tpgt_2 on 127.0.0.2), the same
#    fileio LU exported and mapped through both; iscsid logs in to each portal: two sessions,
#    two SCSI hosts, the LU seen twice. lund shows one identity with two paths (`lunctl names
#    --paths`, `lunctl list -o +PATHS`) and its serial is the WWID the kernel derives from
#    LIO's NAA designator.
#  - multipathd (only that WWID) makes a map of both paths: `multipath -ll` and `multipathd
#    show paths` give lund's WWID; lund's by-id names move to the map and equal udev's.
#  - tpgt_2 is disabled: its session fails, the path goes faulty in multipathd (replacement
#    timeout 5 s), the map keeps the other path and still reads; lund's names stay on the map.
#    tpgt_2 comes back: iscsid logs in again and multipathd reinstates the path.
#    Throughout, both paths keep their H:C:T:L and nodes: lund removes and renames no path.
# vm-flavour: udev-root
# vm-release: 13
# vm-topology: none
# vm-timeout: 360
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/lio-lib.sh
. /vm/guest/mpath-lib.sh

BYID=/dev/scsi/by-id
P1=127.0.0.1:3260 P2=127.0.0.2:3260

settle() { udevadm settle --timeout=180 || vm_log "note: udev's queue not empty after 180 s"; }
vm_sync RULES 60
[ -r /vm/out/59-lund.rules ] || vm_fail "the host did not provide rules/59-lund.rules"
sed -e "s|@BINDIR@|/usr/local/bin|g" -e "s|@RUNDIR@|$LUND_RUN|g" /vm/out/59-lund.rules \
	>/etc/udev/rules.d/59-lund.rules
udevadm control --reload
command -v iscsiadm >/dev/null && iscsiadm --version >/dev/null ||
	vm_fail "no working iscsiadm in the root"

# --- the target: one LU behind two portal groups ---------------------------------------------
modprobe -a sd_mod sg
lio_up
lio_fileio lu0 16 "${LIO_SERIAL}0"
LIO_PORTAL=$P1 lio_iscsi_target
TPG1=$LIO_TPG
lio_tpg_lun 0 lu0; lio_map 0
lio_iscsi_tpg 2 "$P2"
TPG2=$LIO_TPG
lio_tpg_lun 0 lu0; lio_map 0
LIO_REPLACEMENT_TMO=5 lio_iscsid_login "$P1"
LIO_REPLACEMENT_TMO=5 lio_iscsid_login "$P2"
two_hosts() { [ "$(lio_hosts | wc -l)" -eq 2 ]; }
vm_wait_until 30 two_hosts || vm_fail "two iSCSI hosts expected, have: $(lio_hosts | tr '\n' ' ')"
vm_assert_eq 2 "$(iscsiadm -m session 2>/dev/null | wc -l)" "iscsiadm: two sessions"

# The two paths from sysfs: every disk of the iSCSI hosts, lowest H:C:T:L first; one wwid.
lio_paths() {
	local h b
	for h in $(lio_hosts); do
		for b in /sys/class/scsi_host/host$h/device/session*/target*/*/block/sd*; do
			[ -e "$b" ] && printf '%s %s\n' "$(basename "$(readlink -f "$b/../..")")" "${b##*/}"
		done
	done | sort -t: -k1,1n -k2,2n -k3,3n -k4,4n
}
two_paths() { [ "$(lio_paths | wc -l)" -eq 2 ]; }
vm_wait_until 30 two_paths || vm_fail "two disks expected on the iSCSI hosts: $(lio_paths | tr '\n' ' ')"
lio_paths >/tmp/paths
# shellcheck disable=SC2046
set -- $(cat /tmp/paths)
H1=$1 D1=$2 H2=$3 D2=$4
KW1=$(cat /sys/block/$D1/device/wwid) KW2=$(cat /sys/block/$D2/device/wwid)
vm_log "paths: $H1 ($D1, $KW1), $H2 ($D2, $KW2)"
vm_assert_eq "$KW1" "$KW2" "the kernel's wwid of both paths"
case $KW1 in naa.*) ;; *) vm_fail "LIO's LU has no NAA wwid: $KW1" ;; esac
WWID=3${KW1#naa.}
sg_of() { basename /sys/class/scsi_device/"$1"/device/scsi_generic/sg*; }
SG1=$(sg_of "$H1") SG2=$(sg_of "$H2")
settle

lund_start
target() { readlink "$1" 2>/dev/null; }
names_at() { [ "$(target $BYID/scsi-$WWID)" = "../../$1" ]; }
vm_wait_until 90 names_at "$D1" ||
	vm_fail "before multipath: $BYID/scsi-$WWID -> $(target $BYID/scsi-$WWID), want ../../$D1"
lunctl names --paths >/tmp/paths.txt || vm_fail "lunctl names --paths failed"
# (the paths in any order, the names at the lowest)
grep "^one LU through" /tmp/paths.txt >/tmp/paths.line
vm_assert_eq 1 "$(wc -l </tmp/paths.line)" "lunctl names --paths: one LU with several paths"
vm_assert "one identity through $H1 and $H2, names at $H1" \
	grep -Eq "^one LU through( ($H1|$H2)){2}, names at $H1\$" /tmp/paths.line
vm_assert "and two different paths" sh -c "grep -q ' $H1[ ,]' /tmp/paths.line && grep -q ' $H2[ ,]' /tmp/paths.line"
mpath_assert_lund_serial "$WWID" "$H1" "$H2"
vm_result "paths=$H1,$H2 wwid=$WWID names_at=$D1"

# --- multipathd takes both paths -------------------------------------------------------------
t0=$(vm_uptime_ms)
MPATH_DEFAULTS="polling_interval 2;max_polling_interval 4" mpath_up "$WWID"
mpath_wait_map "$D1" "$D2"
DM=$(mpath_map_of "$D1")
vm_assert_eq "mpath-$WWID" "$(cat /sys/block/$DM/dm/uuid 2>/dev/null)" "dm uuid of $DM"
vm_wait_until 90 names_at "$DM" ||
	vm_fail "with the map: $BYID/scsi-$WWID -> $(target $BYID/scsi-$WWID), want ../../$DM"
vm_log "names on the map $DM after $(($(vm_uptime_ms) - t0)) ms"
settle
/sbin/multipath -ll >/tmp/mp-ll.txt 2>&1
cat /tmp/mp-ll.txt
vm_assert "multipath -ll: the map has WWID $WWID" grep -q "($WWID) $DM" /tmp/mp-ll.txt
# multipathd's view of each path: WWID, device, dm state, checker state
mp_path() { /sbin/multipathd show paths format "%w %d %t %T" 2>/dev/null | awk -v d="$1" '$2 == d'; }
path_is() { [ "$(mp_path "$1" | awk '{ print $3, $4 }')" = "$2" ]; }
for d in "$D1" "$D2"; do
	vm_wait_until 30 path_is "$d" "active ready" ||
		vm_fail "multipathd show paths: $d is '$(mp_path "$d")', want active ready"
	vm_assert_eq "$WWID" "$(mp_path "$d" | awk '{ print $1 }')" "multipathd show paths: the WWID of $d"
done
vm_log "multipathd: $(mp_path "$D1") / $(mp_path "$D2")"
vm_assert_eq "../../$DM" "$(target /dev/disk/by-id/scsi-$WWID)" "udev's /dev/disk/by-id/scsi-$WWID"
vm_assert_eq "$(target /dev/disk/by-id/scsi-$WWID)" "$(target $BYID/scsi-$WWID)" "lund's scsi-$WWID equals udev's"
lunctl names --paths >/tmp/paths.txt || vm_fail "lunctl names --paths failed"
vm_assert "lunctl names --paths names the map" grep -q "owned by dm-multipath: $DM, named dm-uuid-mpath-$WWID" /tmp/paths.txt
lunctl list -o HCTL,PATHS -n >/tmp/list.txt
for h in "$H1" "$H2"; do
	vm_assert "lunctl list -o +PATHS: $h shows the map" grep -q "^$h .*\[$DM\]" /tmp/list.txt
done
vm_result "map=$DM wwid_multipath=$WWID wwid_lund=$WWID paths=$D1,$D2 udev=$(target /dev/disk/by-id/scsi-$WWID) lund=$(target $BYID/scsi-$WWID)"

# --- portal 2 goes away ----------------------------------------------------------------------
session_of() { basename /sys/class/scsi_host/host"${1%%:*}"/device/session*; }
S2=$(session_of "$H2")
state_of() { cat /sys/class/iscsi_session/"$1"/state 2>/dev/null; }
t0=$(vm_uptime_ms)
echo 0 >"$TPG2/enable"
state_is() { [ "$(state_of "$1")" = "$2" ]; }
vm_wait_until 60 state_is "$S2" FAILED ||
	vm_fail "$S2 is $(state_of "$S2") with tpgt_2 disabled, want FAILED"
# a read through the map: served by the other path once the failed one gives up (5 s)
timeout 60 dd if=/dev/$DM of=/dev/null bs=4096 count=16 iflag=direct 2>/tmp/dd.err ||
	vm_fail "a read through $DM with one path left failed: $(cat /tmp/dd.err)"
vm_wait_until 60 path_is "$D2" "failed faulty" ||
	vm_fail "multipathd: $D2 is '$(mp_path "$D2")' with its portal gone, want failed faulty"
vm_log "portal 2 gone: $D2 failed after $(($(vm_uptime_ms) - t0)) ms; $(mp_path "$D1")"
vm_assert "the map keeps $D1 active" path_is "$D1" "active ready"
vm_assert_eq "$DM" "$(mpath_map_of "$D2")" "$D2 still held by the map"
vm_assert_eq "../../$DM" "$(target $BYID/scsi-$WWID)" "lund's scsi-$WWID stays on the map"
vm_assert "$H2 still there" [ -e /sys/class/scsi_device/"$H2" ]
/sbin/multipath -ll >/tmp/mp-ll-down.txt 2>&1
vm_result "portal2_down session=$(state_of "$S2") $D2=$(mp_path "$D2" | awk '{ print $3 "/" $4 }') lund=$(target $BYID/scsi-$WWID)"

# --- portal 2 comes back ---------------------------------------------------------------------
t0=$(vm_uptime_ms)
echo 1 >"$TPG2/enable"
vm_wait_until 90 state_is "$S2" LOGGED_IN ||
	vm_fail "$S2 is $(state_of "$S2") after tpgt_2 came back, want LOGGED_IN"
vm_wait_until 60 path_is "$D2" "active ready" ||
	vm_fail "multipathd: $D2 is '$(mp_path "$D2")' after its portal came back, want active ready"
vm_log "portal 2 back: $D2 reinstated after $(($(vm_uptime_ms) - t0)) ms"
timeout 60 dd if=/dev/$DM of=/dev/null bs=4096 count=16 iflag=direct 2>/tmp/dd.err ||
	vm_fail "a read through $DM failed after the portal came back: $(cat /tmp/dd.err)"
vm_assert_eq "../../$DM" "$(target $BYID/scsi-$WWID)" "lund's scsi-$WWID still on the map"
# the paths were never touched
vm_assert_eq "$(cat /tmp/paths)" "$(lio_paths)" "both paths kept their H:C:T:L and disks"
vm_assert_eq "$SG1 $SG2" "$(sg_of "$H1") $(sg_of "$H2")" "and their sg nodes"
grep -Eq "^lund: ($H1|$H2): removed" "$LUND_LOG.new" && vm_fail "lund removed a path"
lund_alive || vm_fail "lund died"
vm_result "portal2_back session=$(state_of "$S2") $D2=$(mp_path "$D2" | awk '{ print $3 "/" $4 }') lund=$(target $BYID/scsi-$WWID)"
mpath_down
lund_stop
vm_done
