#!/bin/sh
# daemon-ua: lund acts on the unit attentions the kernel only passes on (SDEV_UA= change
# events), and the admin's `lunctl rescan` finds what no device reports.
#  1. scsi_debug max_luns 2 -> 4: every LU gets REPORTED LUNS DATA HAS CHANGED; after one read
#     per target the kernel emits the event, lund rescans that target (REPORT LUNS) and the new
#     LUNs appear in sysfs with their links. Nobody else scans here (no udevd, no rule).
#  2. max_luns back to 2: the report no longer lists LUNs 2-3, lund removes them (unused), and
#     their links go.
#  3. virtual_gb -> 2: CAPACITY DATA HAS CHANGED; the block device's size follows without a
#     manual rescan.
# A control step first, before lund runs: the same unit attentions (max_luns 3, virtual_gb 1)
# change nothing by themselves, so what follows is lund's doing.
#  4. A disk hot-added on megasas (QMP): the guest sees nothing by itself; `lunctl rescan` of
#     that host adds it and lund names it.
# Evidence: sysfs (LUs, sizes) and the link tree computed by guest/daemon-lib.sh.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 240
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
# scsi_debug LUs: hosts whose proc_name is scsi_debug
sdebug_count() {
	n=0
	for h in /sys/class/scsi_host/host*; do
		read -r pn <"$h/proc_name"
		[ "$pn" = scsi_debug ] || continue
		hn=${h##*/host}
		for d in /sys/bus/scsi/devices/$hn:*:*:*; do [ -e "$d" ] && n=$((n + 1)); done
	done
	echo $n
}
sdebug_is() { [ "$(sdebug_count)" -eq "$1" ]; }
# one direct read from LUN 0 of every scsi_debug target: delivers the pending unit attention
touch_targets() {
	for h in /sys/class/scsi_host/host*; do
		read -r pn <"$h/proc_name"
		[ "$pn" = scsi_debug ] || continue
		hn=${h##*/host}
		for d in /sys/bus/scsi/devices/$hn:*:*:0; do
			b=$(ls "$d/block" 2>/dev/null | head -n1)
			[ -n "$b" ] && dd if=/dev/$b of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
		done
	done
	return 0
}

san_up
before=$(sdebug_count)
vm_assert_eq 8 "$before" "scsi_debug LUs at start"
d=$(ls -d /sys/class/scsi_host/host*/ | while read -r h; do read -r pn <"$h/proc_name"; [ "$pn" = scsi_debug ] && echo "${h%/}" && break; done)
hn=${d##*/host}
cap_dev=$(ls /sys/bus/scsi/devices/$hn:0:0:0/block | head -n1)
read -r size0 </sys/block/$cap_dev/size

# --- 0. control: without lund the kernel only passes the unit attentions on ------------------
echo 3 >$SD/max_luns
echo 1 >$SD/virtual_gb
touch_targets; touch_targets; touch_targets
sleep 3
vm_assert_eq 8 "$(sdebug_count)" "without lund: LUs after REPORTED LUNS DATA HAS CHANGED"
vm_assert_eq "$size0" "$(cat /sys/block/$cap_dev/size)" "without lund: $cap_dev size after CAPACITY DATA HAS CHANGED"

lund_start
daemon_check_tree "start"

# --- 1. REPORTED LUNS DATA HAS CHANGED: more LUNs -------------------------------------------
t0=$(vm_uptime_ms)
echo 4 >$SD/max_luns
touch_targets
if vm_wait_until 30 sdebug_is 16; then
	vm_log "ok: LUNs added after the unit attention ($(sdebug_count))"
else
	vm_fail "max_luns 4: expected 16 scsi_debug LUs, have $(sdebug_count)"
fi
t1=$(vm_uptime_ms)
daemon_check_tree "luns added" 30
grep -q 'REPORTED_LUNS_DATA_HAS_CHANGED\|reported-luns' "$LUND_LOG.new" ||
	vm_log "note: lund's log does not name the unit attention"
vm_result "ua_add_ms=$((t1 - t0)) links=$(wc -l </tmp/tree.act)"

# --- 2. fewer LUNs: removal after a successful REPORT LUNS ----------------------------------
echo 2 >$SD/max_luns
touch_targets
if vm_wait_until 30 sdebug_is 8; then
	vm_log "ok: LUNs removed after the unit attention"
else
	vm_fail "max_luns 2: expected 8 scsi_debug LUs, have $(sdebug_count)"
fi
daemon_check_tree "luns removed" 30

# --- 3. CAPACITY DATA HAS CHANGED ------------------------------------------------------------
echo 2 >$SD/virtual_gb
touch_targets
if vm_wait_until 20 sh -c "[ \$(cat /sys/block/$cap_dev/size) -eq 4194304 ]"; then
	vm_log "ok: $cap_dev grew from $size0 to $(cat /sys/block/$cap_dev/size) sectors without a manual rescan"
else
	vm_fail "$cap_dev: size $(cat /sys/block/$cap_dev/size), expected 4194304 (2 GiB) after virtual_gb=2"
fi
vm_result "capacity_before=$size0 capacity_after=$(cat /sys/block/$cap_dev/size)"

# --- 4. megasas hot-add: only a scan finds it -------------------------------------------------
mega=$(grep -l megaraid_sas /sys/class/scsi_host/host*/proc_name | head -n1)
mh=${mega%/proc_name}; mh=${mh##*/host}
vm_sync HOTADD 90
sleep 2
n=$(ls -d /sys/bus/scsi/devices/$mh:*:*:* | wc -l)
vm_assert_eq 2 "$n" "megasas LUs before anyone scans (the hot-added disk is not seen)"
lunctl rescan "$mh" >/tmp/rescan.out 2>&1 || vm_fail "lunctl rescan $mh failed: $(cat /tmp/rescan.out)"
vm_wait_until 20 grep -q UAMEGA0001 /sys/bus/scsi/devices/$mh:*/vpd_pg80 ||
	vm_fail "megasas hot-add not found by lunctl rescan"
daemon_check_tree "megasas hot-add + lunctl rescan" 30
vm_assert "megasas hot-add named" test -b "$LUND_LINKS/wwn-0x5000c500aaaa0001"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
