#!/bin/bash
# kernel-udev-events: what the events series' SDEV_STATE uevent (kernel/7.3/events/, patch 3)
# costs a machine running udevd with Debian 13's rules, and the rules change that answers it
# (kernel/7.3/udev/). systemd's 60-block.rules answers every change event of a scsi_device that
# has a disk with a change event on the disk, which udevd processes like a new disk: blkid and
# the persistent-storage rules run on a device that refuses I/O. Four iSCSI LUs (LIO on
# loopback, replacement timeout 3 s, two with a swap signature) lose their session until they
# are transport-offline, then get it back: once with the rules as shipped, once with the
# changed 60-block.rules in /etc/udev/rules.d. Counted: SDEV_STATE events, the disk change
# events udevd forwards for them, and the /dev/disk links of the LUs before, while offline and
# after. kernel/test.sh --kernel 7.3 boots it with the patched modules; skipped on stock ones.
# vm-flavour: udev-root
# vm-topology: none
# vm-timeout: 480
. /vm/guest/lib.sh
. /vm/guest/lio-lib.sh

N=4
settle() { udevadm settle --timeout=120 || { sleep 1 && udevadm settle --timeout=120; }; }
command -v mkswap >/dev/null || vm_fail "no mkswap in the root"

modprobe -a sd_mod sg
lio_up
lio_ramdisks $N 64
lio_iscsi_target
lio_export_ramdisks $N
i=0; while [ $i -lt $N ]; do lio_map $i; i=$((i + 1)); done
LIO_REPLACEMENT_TMO=3 lio_iscsid_login
vm_wait_until 30 lio_nlus_is $N || vm_fail "$N LUs expected after the login, have $(lio_nlus)"
LUS=$(lio_lus | xargs)
L0=${LUS%% *}
if [ ! -d "/sys/bus/scsi/devices/$L0/errors" ]; then
	vm_log "no errors/ in $L0: stock modules (kernel/test.sh --kernel 7.3 overlays the patched ones)"
	vm_result skipped=1
	vm_done
fi
disks() { for l in $LUS; do ls "/sys/bus/scsi/devices/$l/block" 2>/dev/null; done | xargs; }
every_disk() { [ "$(disks | wc -w)" -eq $N ]; }
vm_wait_until 30 every_disk || vm_fail "no disk for every LU"
DISKS=$(disks)
settle
# swap signatures on two of them: udev's blkid gives them by-uuid links
set -- $DISKS
mkswap -U 6c756e64-0000-4000-8000-000000000001 "/dev/$1" >/dev/null || vm_fail "mkswap /dev/$1"
mkswap -U 6c756e64-0000-4000-8000-000000000002 "/dev/$2" >/dev/null || vm_fail "mkswap /dev/$2"
udevadm trigger --action=change --settle "/dev/$1" "/dev/$2" 2>/dev/null ||
	{ udevadm trigger --action=change "/dev/$1" "/dev/$2"; settle; }
vm_result "rule_60_block=$(grep -c 'SUBSYSTEM=="scsi".*ATTR{block/\*/uevent}="change"' \
	/usr/lib/udev/rules.d/60-block.rules 2>/dev/null)"

# links: every /dev/disk link to one of the LUs' disks, "link -> disk", sorted
links() {
	find /dev/disk -type l 2>/dev/null | while read -r l; do
		t=$(readlink -f "$l")
		case " $DISKS " in *" ${t#/dev/} "*) echo "${l#/dev/disk/} -> ${t#/dev/}" ;; esac
	done | LC_ALL=C sort
}
states() { for l in $LUS; do cat "/sys/bus/scsi/devices/$l/state"; done | sort -u | xargs; }
all_state() { [ "$(states)" = "$1" ]; }

MON=/tmp/udev-monitor
udevadm monitor --udev --property -s scsi -s block >"$MON" 2>/dev/null &
MON_PID=$!
sleep 1
# events so far: SDEV_STATE values of scsi change events, change events of the LUs' disks
state_events() { grep -c '^SDEV_STATE=' "$MON"; }
disk_changes() {
	awk -v d=" $DISKS " '/^UDEV /{ ev = $3; sub(/.*\//, "", $4); dev = $4 }
		/^$/ { if (ev == "change" && index(d, " " dev " ")) n++; ev = "" } END { print n + 0 }' "$MON"
}

# lose LABEL: the portal group is disabled until every LU is transport-offline, then enabled
# until every LU runs again; the events and links of each step as RESULT lines.
lose() {
	settle
	sleep 1
	_s=$(state_events) _d=$(disk_changes)
	links >"/tmp/links.$1.before"
	echo 0 >"$LIO_TPG/enable"
	vm_wait_until 60 all_state transport-offline || vm_fail "$1: LUs not transport-offline: $(states)"
	vm_wait_until 10 sh -c "[ \$(grep -c '^SDEV_STATE=' $MON) -ge $((_s + N)) ]" || true
	t0=$(vm_uptime_ms)
	settle
	vm_result "$1.settle_ms=$(( $(vm_uptime_ms) - t0 ))"
	sleep 1 # the monitor prints after udevd's processing
	links >"/tmp/links.$1.offline"
	echo 1 >"$LIO_TPG/enable"
	vm_wait_until 90 all_state running || vm_fail "$1: LUs not running again: $(states)"
	settle
	sleep 1
	links >"/tmp/links.$1.after"
	DCH=$(( $(disk_changes) - _d ))
	vm_result "$1.state_events=$(( $(state_events) - _s ))" "$1.disk_changes=$DCH" \
		"$1.links_before=$(wc -l <"/tmp/links.$1.before")" \
		"$1.links_offline=$(wc -l <"/tmp/links.$1.offline")" \
		"$1.links_after=$(wc -l <"/tmp/links.$1.after")"
	vm_log "$1: links lost while offline: $(comm -23 "/tmp/links.$1.before" "/tmp/links.$1.offline" | xargs)"
	vm_log "$1: links lost after the LUs run again: $(comm -23 "/tmp/links.$1.before" "/tmp/links.$1.after" | xargs)"
	vm_assert_eq $N "$(( $(state_events) - _s ))" "$1: one SDEV_STATE event per LU"
}

# forwarded: the disk change events one change event of the first LU's scsi_device (without
# SDEV_STATE, as the kernel sends for a unit attention or media change) gives
forwarded() {
	_d=$(disk_changes)
	udevadm trigger --action=change "/sys/bus/scsi/devices/$L0"
	settle
	sleep 1
	echo $(( $(disk_changes) - _d ))
}

# --- Debian 13's rules as shipped ------------------------------------------------------------
links >/tmp/links.start
FWD=$(forwarded)
vm_assert_ge 1 "$FWD" "stock: a scsi_device change event reaches its disk"
vm_assert_ge 2 "$(grep -c '^by-uuid/' /tmp/links.start)" "by-uuid links of the swap signatures"
lose stock
vm_assert_eq $N "$DCH" "stock: 60-block.rules forwards each SDEV_STATE event to the disk"

# --- 60-block.rules changed as kernel/7.3/udev/ proposes -------------------------------------
# the patch for systemd's rules.d/60-block.rules, applied to the installed file, in /etc
vm_sync UDEV_PATCH 60
[ -r /vm/out/udev-60-block.patch ] || vm_fail "the host did not provide kernel/7.3/udev/'s patch"
mkdir -p /tmp/systemd/rules.d
cp /usr/lib/udev/rules.d/60-block.rules /tmp/systemd/rules.d/
(cd /tmp/systemd && /vm/busybox patch -p1 </vm/out/udev-60-block.patch) ||
	vm_fail "kernel/7.3/udev/'s patch does not apply to Debian 13's 60-block.rules"
cp /tmp/systemd/rules.d/60-block.rules /etc/udev/rules.d/60-block.rules
vm_assert "the changed rule" grep -q 'ENV{SDEV_STATE}!="?\*"' /etc/udev/rules.d/60-block.rules
diff -u /usr/lib/udev/rules.d/60-block.rules /etc/udev/rules.d/60-block.rules | sed 's/^/  /' || true
udevadm control --reload
# the links lost above come back with a change event of the disks
udevadm trigger --action=change -s block
settle
links >/tmp/links.restored
vm_assert "links back after a retrigger" cmp -s /tmp/links.start /tmp/links.restored
vm_assert_eq "$FWD" "$(forwarded)" "changed rule: another scsi_device change event reaches the disk as before"
lose changed
vm_assert_eq 0 "$DCH" "changed: no disk change event for the SDEV_STATE events"
vm_assert "changed: links kept while offline" cmp -s /tmp/links.start /tmp/links.changed.offline
vm_assert "changed: links kept after" cmp -s /tmp/links.start /tmp/links.changed.after
kill "$MON_PID" 2>/dev/null || true
vm_done
