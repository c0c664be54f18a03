#!/bin/bash
# daemon-policy: error-handling policy on the stock kernel, from hwdb and lund.conf, checked
# in sysfs. The test hwdb (tests/vm/data/daemon-policy.hwdb, compiled with systemd-hwdb together
# with the shipped hwdb/60-lund.hwdb) gives scsi_debug disks timeout 45, eh_timeout 17, max_retries 3,
# queue_depth 8; QEMU's disks an unparsable timeout; the SAS disk a queue depth above its host's
# can_queue. data/daemon-policy.conf overrides the timeout of the LUND VirtDisk and gives pvscsi's
# disk a negative eh_timeout. Every other attribute of every LU must be as it was before lund
# started; bad values leave the attribute unchanged with a log line. New LUs get the policy on
# add; after a device reset (POWER ON, RESET OCCURRED) lund re-applies it, which the kernel
# alone does not (control step before lund runs).
# vm-flavour: udev-root
# vm-topology: san
# vm-timeout: 480
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
attrs() {   # "hctl vendor|model timeout eh_timeout queue_depth max_retries" per LU
	for d in /sys/bus/scsi/devices/*:*:*:*; do
		h=${d##*/}
		mr=-; [ -r "$d/scsi_disk/$h/max_retries" ] && mr=$(cat "$d/scsi_disk/$h/max_retries")
		printf '%s\t%s|%s\t%s\t%s\t%s\t%s\n' "$h" "$(sed 's/ *$//' "$d/vendor")" \
			"$(sed 's/ *$//' "$d/model")" "$(cat "$d/timeout")" "$(cat "$d/eh_timeout")" \
			"$(cat "$d/queue_depth")" "$mr"
	done
}
# expected: the baseline with the policy above applied
expected() {
	awk -F'\t' 'BEGIN { OFS = "\t" }
		$2 == "Linux|scsi_debug" { $3 = 45; $4 = 17; $5 = 8; if ($6 != "-") $6 = 3 }
		$2 ~ /^LUND\|VirtDisk/ { $3 = 77 }
		{ print }' "$1"
}

san_up
udevadm settle --timeout=180
vm_sync FILES 60
for f in 60-lund.hwdb daemon-policy.hwdb daemon-policy.conf; do
	[ -r /vm/out/$f ] || vm_fail "the host did not provide $f"
done
# lund reads the lund.conf of its prefix: the guest's is a /usr/local build (tests/vm/run)
conf=$(lund --help | sed -n 's/.*--config .*(default \(.*\))$/\1/p')
[ -n "$conf" ] || vm_fail "lund --help names no default lund.conf"
mkdir -p /etc/udev/hwdb.d "${conf%/*}"
cp /vm/out/60-lund.hwdb /etc/udev/hwdb.d/60-lund.hwdb
cp /vm/out/daemon-policy.hwdb /etc/udev/hwdb.d/61-lund-test.hwdb
cp /vm/out/daemon-policy.conf "$conf"
systemd-hwdb update --strict || vm_fail "systemd-hwdb update failed on lund's hwdb files"

attrs >/tmp/pol.base
grep -q 'scsi_debug' /tmp/pol.base || vm_fail "no scsi_debug LU"
# control: without lund, a device reset changes no attribute back
sdh=$(awk -F'\t' '$2 == "Linux|scsi_debug" { print $1; exit }' /tmp/pol.base)
sdb=$(ls /sys/bus/scsi/devices/$sdh/block); sdg=$(ls /sys/bus/scsi/devices/$sdh/scsi_generic)
echo 99 >/sys/bus/scsi/devices/$sdh/timeout
sg_reset -d /dev/$sdg >/dev/null 2>&1 || vm_log "sg_reset -d /dev/$sdg failed"
dd if=/dev/$sdb of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
sleep 2
vm_assert_eq 99 "$(cat /sys/bus/scsi/devices/$sdh/timeout)" "without lund: timeout after a device reset"
attrs >/tmp/pol.base

lund_start
expected /tmp/pol.base >/tmp/pol.exp
sleep 2
attrs >/tmp/pol.act
if cmp -s /tmp/pol.exp /tmp/pol.act; then
	vm_log "ok: every LU's timeout, eh_timeout, queue_depth, max_retries as the policy says"
else
	vm_fail "policy attributes differ from the expected ones"; diff /tmp/pol.exp /tmp/pol.act | head -n 30
fi
grep -q 'invalid timeout "forty"' "$LUND_LOG.new" || vm_fail "no log line for the hwdb's bad timeout"
grep -q 'invalid eh_timeout "-5"' "$LUND_LOG.new" || vm_fail "no log line for lund.conf's bad eh_timeout"
grep -q 'refused queue_depth=60000' "$LUND_LOG.new" || vm_fail "no log line for the refused queue depth"
grep -E 'invalid|refused' "$LUND_LOG.new" | head -n 5

# add: a new scsi_debug host's LUs get the policy
echo 1 >$SD/add_host
vm_wait_until 20 sh -c '[ $(ls -d /sys/bus/scsi/devices/*:*:*:* | wc -l) -ge 32 ]' || vm_fail "add_host: no new LUs"
udevadm settle --timeout=180
newest=$(ls -d /sys/class/scsi_host/host* | sed 's/.*host//' | sort -n | tail -n1)
ok=0 n=0
for d in /sys/bus/scsi/devices/$newest:*:*:*; do
	h=${d##*/}; n=$((n + 1))
	vm_wait_until 10 sh -c "[ \$(cat $d/timeout) = 45 ] && [ \$(cat $d/eh_timeout) = 17 ] && [ \$(cat $d/queue_depth) = 8 ] && [ \$(cat $d/scsi_disk/$h/max_retries 2>/dev/null) = 3 ]" && ok=$((ok + 1))
done
vm_assert_eq 4 "$ok" "new LUs with the policy applied on add (of $n)"

# POWER ON, RESET OCCURRED: lund re-applies
echo 99 >/sys/bus/scsi/devices/$sdh/timeout
echo 5 >/sys/bus/scsi/devices/$sdh/queue_depth
sg_reset -d /dev/$sdg >/dev/null 2>&1 || vm_log "sg_reset -d /dev/$sdg failed"
dd if=/dev/$sdb of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
if vm_wait_until 15 sh -c "[ \$(cat /sys/bus/scsi/devices/$sdh/timeout) = 45 ] && [ \$(cat /sys/bus/scsi/devices/$sdh/queue_depth) = 8 ]"; then
	vm_log "ok: policy re-applied after the device reset"
else
	vm_fail "after POWER ON RESET: timeout $(cat /sys/bus/scsi/devices/$sdh/timeout), queue_depth $(cat /sys/bus/scsi/devices/$sdh/queue_depth), expected 45 and 8"
	grep -i 'unit attention' "$LUND_LOG.new" | tail -n 3
fi
vm_result "lus=$(wc -l </tmp/pol.act) policy_changed=$(diff /tmp/pol.base /tmp/pol.exp | grep -c '^>')"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
