#!/bin/sh
# lio-ua: unit attentions and paths from a real target (LIO over iSCSI on loopback), lund running.
#  1. resize: the loop device under a fileio backstore grows. With `capacity = report` for the
#     iSCSI host (a [react] section, previewed by `lunctl rescan --dry-run --config` first, then
#     applied by `lunctl reload`) lund's resize scan keeps the old size and says why; back to
#     the default, the LUN's new capacity must reach the block device (LIO's CAPACITY DATA HAS
#     CHANGED, or `lunctl rescan --resize` where the target sends none);
#  2. ALUA: the backstore's target port group goes active/non-optimized: the unit attention is
#     logged by lund and shown by `lunctl monitor`; the target's state (sg_rtpg) and the kernel's
#     (access_state) agree;
#  3. two portals: a second session to the same target gives every LU a second path: one ID,
#     two paths, the link tree by lund(8)'s collision rule.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 240
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/lio-lib.sh

modprobe -a sd_mod sg loop scsi_dh_alua
lio_up
truncate -s 32M /tmp/lio/grow.img
loop=$(losetup -f)
losetup "$loop" /tmp/lio/grow.img
lio_fileio_dev lu0 "$loop" "${LIO_SERIAL}0"
lio_fileio lu1 16 "${LIO_SERIAL}1"
lio_iscsi_target
lio_iscsi_portal 127.0.0.2:3260
lio_tpg_lun 0 lu0; lio_tpg_lun 1 lu1
lio_map 0; lio_map 1
lio_iscsi_login
vm_wait_until 30 lio_nlus_is 2 || vm_fail "2 LUNs expected after the login, have $(lio_nlus)"
h=$(lio_host)
: >/tmp/lund.conf
lund_start --config /tmp/lund.conf
daemon_check_tree "start"
lunctl monitor --json >/tmp/monitor.json 2>&1 &
mon=$!
sleep 1

blk() { ls /sys/bus/scsi/devices/$1/block 2>/dev/null | head -n1; }
# --- 1. resize ----------------------------------------------------------------------------------
b0=$(blk $h:0:0:0)
read -r s0 </sys/block/$b0/size
truncate -s 64M /tmp/lio/grow.img
losetup -c "$loop"
# capacity = report (lund.conf(5) REACTIONS) for the iSCSI host, previewed before the reload
# that applies it: lund then leaves the size to the admin and says so
printf '[react lio-sizes]\ntransport = iscsi\ncapacity = report\n' >/tmp/react.conf
lunctl rescan --dry-run --resize "$h" >/tmp/preview.now 2>&1 || vm_fail "rescan --dry-run: $(cat /tmp/preview.now)"
lunctl rescan --dry-run --resize --config /tmp/react.conf "$h" >/tmp/preview.new 2>&1 ||
	vm_fail "rescan --dry-run --config: $(cat /tmp/preview.new)"
cat /tmp/preview.now /tmp/preview.new
vm_assert "preview under the running lund.conf: the grown LU would be resized" \
	grep -q "^would resize *$h:0:0:0 " /tmp/preview.now
vm_assert "preview under the new one: kept, capacity = report" \
	grep -q "^keep *$h:0:0:0 .*capacity = report by \\[react lio-sizes\\]" /tmp/preview.new
vm_assert_eq "$s0" "$(cat /sys/block/$b0/size)" "a dry run changes nothing"
cp /tmp/react.conf /tmp/lund.conf
lunctl reload >/tmp/reload.out 2>&1 || vm_fail "lunctl reload: $(cat /tmp/reload.out)"
lunctl rescan --resize "$h" >/tmp/kept.out 2>&1 || vm_fail "rescan --resize: $(cat /tmp/kept.out)"
cat /tmp/kept.out
vm_assert "capacity = report: lund's scan keeps the grown LU, saying why" \
	grep -q "^keep *$h:0:0:0 .*capacity = report by \\[react lio-sizes\\]" /tmp/kept.out
vm_assert_eq "$s0" "$(cat /sys/block/$b0/size)" "capacity = report: the kernel keeps the old size"
: >/tmp/lund.conf
lunctl reload >/tmp/reload.out 2>&1 || vm_fail "lunctl reload: $(cat /tmp/reload.out)"
lio_touch 0; lio_touch 0
if vm_wait_until 10 sh -c "[ \$(cat /sys/block/$b0/size) -eq 131072 ]"; then
	how=ua
else
	vm_log "no new size after the unit attention window: $(cat /sys/block/$b0/size) sectors"
	how=rescan
	lunctl rescan --resize >/tmp/resize.out 2>&1 || vm_fail "lunctl rescan --resize: $(cat /tmp/resize.out)"
	cat /tmp/resize.out
fi
read -r s1 </sys/block/$b0/size
vm_assert_eq 131072 "$s1" "$b0 sectors after growing the backstore from $s0"
dmesg | grep -i 'capacity' | tail -n 3
vm_result "resize.how=$how resize.before=$s0 resize.after=$s1 resize.ua_logged=$(grep -c CAPACITY_DATA_HAS_CHANGED "$LUND_LOG.new")"

# --- 2. ALUA ------------------------------------------------------------------------------------
sg1=$(ls /sys/bus/scsi/devices/$h:0:0:1/scsi_generic)
vm_log "before: dh_state=$(cat /sys/bus/scsi/devices/$h:0:0:1/dh_state 2>/dev/null) access_state=$(cat /sys/bus/scsi/devices/$h:0:0:1/access_state 2>/dev/null)"
lio_alua_state lu1 1
lio_touch 1; lio_touch 1
vm_wait_until 15 grep -q ASYMMETRIC_ACCESS_STATE_CHANGED /tmp/monitor.json ||
	vm_fail "lunctl monitor did not show ASYMMETRIC_ACCESS_STATE_CHANGED"
grep ASYMMETRIC /tmp/monitor.json | head -n 2
sg_rtpg -d /dev/$sg1 2>&1 | head -n 8
rtpg=$(sg_rtpg -d /dev/$sg1 2>/dev/null | sed -n 's/.*asymmetric access state *: *[^(]*(\(.*\))/\1/p' | head -n1)
vm_assert_eq "active/non optimized" "$rtpg" "the target's access state (REPORT TARGET PORT GROUPS)"
vm_assert_eq "active/non-optimized" "$(cat /sys/bus/scsi/devices/$h:0:0:1/access_state 2>/dev/null)" \
	"the kernel's access state (scsi_dh_alua)"
grep -q ASYMMETRIC_ACCESS_STATE_CHANGED "$LUND_LOG.new" || vm_fail "lund's log does not name the ALUA unit attention"
vm_result "alua.monitor=$(grep -c ASYMMETRIC_ACCESS_STATE_CHANGED /tmp/monitor.json) alua.access_state=$(cat /sys/bus/scsi/devices/$h:0:0:1/access_state 2>/dev/null | tr ' /' '__')"
LUND_RUN_DIR=$LUND_RUN lunctl list

# --- 3. two portals -----------------------------------------------------------------------------
lio_iscsi_login 127.0.0.2:3260
vm_wait_until 30 sh -c '[ $(ls -d /sys/bus/scsi/devices/*:0:0:* | wc -l) -ge 4 ]' ||
	vm_fail "4 paths expected after the second login"
hosts=$(lio_hosts | tr '\n' ' ')
vm_log "iSCSI hosts: $hosts"
for l in 0 1; do
	ids=$(for hh in $hosts; do cat /sys/bus/scsi/devices/$hh:0:0:$l/wwid; done | sort -u | wc -l)
	vm_assert_eq 1 "$ids" "LUN $l: one kernel wwid over both paths"
done
daemon_check_tree "two sessions" 30
LUND_RUN_DIR=$LUND_RUN lunctl names --collisions >/tmp/coll.txt 2>&1 || true
cat /tmp/coll.txt
LUND_RUN_DIR=$LUND_RUN lunctl list
# one identity over both paths in lund's view: the same names derived for each path
lund_names_from_lunctl >/tmp/names.txt
for l in 0 1; do
	set -- $hosts
	a=$(awk -F'\t' -v k="$1:0:0:$l" '$1 == k { print $2 }' /tmp/names.txt | sort | tr '\n' ' ')
	b=$(awk -F'\t' -v k="$2:0:0:$l" '$1 == k { print $2 }' /tmp/names.txt | sort | tr '\n' ' ')
	vm_assert_eq "$a" "$b" "LUN $l: lund derives the same names on both paths"
	w=$(cat /sys/bus/scsi/devices/$1:0:0:$l/wwid)
	case " $a" in *" wwn-0x${w#naa.} "*) vm_log "ok: LUN $l: lund's wwn- name is the kernel's wwid $w" ;;
	*) vm_fail "LUN $l: lund's names '$a' do not carry the kernel's wwid $w" ;; esac
done
vm_result "paths=$(ls -d /sys/bus/scsi/devices/*:0:0:* | wc -l) collisions=$(grep -c . /tmp/coll.txt)"

kill $mon 2>/dev/null || true
cp /tmp/monitor.json "$VM_OUT/monitor.json"; dmesg >"$VM_OUT/dmesg.txt"
lund_alive || vm_fail "lund died"
lund_stop
cp "$LUND_LOG" "$VM_OUT/lund.log"
vm_done
