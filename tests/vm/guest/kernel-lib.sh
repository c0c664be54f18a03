# tests/vm/guest/kernel-lib.sh: what the bodies of kernel/test.sh's stock/patched scenario pairs
# (guest/kernel-faults.sh, guest/lund-errpolicy.sh) share: their disk and the count of the
# commands it received. Sourced after lib.sh.

# kernel_disk: one 8 MiB scsi_debug disk under sd_mod. Sets SDBG (scsi_debug's driver
# directory), SD (the LU's sysfs directory), DISK (its H:C:T:L), BLK (sdX), DEV (/dev/sdX) and
# patched (1 when the modules have the patchset's retry_limit, else 0), and reports
# mode=$KMODE patched=$patched. A patched run on stock modules ends here as skipped=1: only
# kernel/test.sh boots it with the patched modules (LUND_VM_MODULES_OVERLAY).
kernel_disk() {
	SDBG=/sys/bus/pseudo/drivers/scsi_debug
	modprobe sd_mod
	modprobe scsi_debug dev_size_mb=8 num_tgts=1 max_luns=1
	vm_wait_until 20 sh -c 'ls /sys/class/scsi_disk/*/device/block/sd* >/dev/null 2>&1'
	SD=$(cd /sys/class/scsi_disk/*/device && pwd -P)
	DISK=$(ls /sys/class/scsi_disk/)
	BLK=$(ls "$SD/block")
	DEV=/dev/$BLK
	vm_wait_for "$DEV"
	vm_log "scsi_debug disk $DEV ($SD)"

	patched=0
	[ -e "$SD/retry_limit" ] && patched=1
	vm_result mode=$KMODE patched=$patched
	if [ "${KMODE%patched}" != "$KMODE" ] && [ "$patched" = 0 ]; then
		vm_log "stock modules: $VM_SCENARIO needs LUND_VM_MODULES_OVERLAY (kernel/test.sh)"
		vm_result skipped=1
		vm_done
	fi
}

# events_disk: kernel_disk for the scenarios of the 7.3 events series (kernel-events,
# kernel-lund-events); on modules without errors/ (stock ones: kernel/test.sh --kernel 7.3
# overlays the patched ones) the scenario ends here as skipped=1.
events_disk() {
	KMODE=events
	kernel_disk
	if [ ! -d "$SD/errors" ]; then
		vm_log "no errors/ in $SD: stock modules (kernel/test.sh --kernel 7.3 overlays the patched ones)"
		vm_result skipped=1
		vm_done
	fi
}

# eh_offline: error recovery gives up on the disk. Every command times out (scsi_debug opts
# TIMEOUT, every_nth 1); with the host's eh_deadline at 0 the timed-out READ is not aborted but
# handed to the error handler, which skips the device, target and bus resets (past the
# deadline), resets the host, and offlines the device when its TEST UNIT READY times out too
# ("not ready after error recovery"). Waits up to 30 s for the state offline. eh_restore puts
# the deadline and timeouts back and sets the device running.
eh_offline() {
	EH_HOST=/sys/class/scsi_host/host${SD##*/}; EH_HOST=${EH_HOST%%:*}
	EH_TO=$(cat "$SD/timeout") EH_ETO=$(cat "$SD/eh_timeout")
	echo 0 >"$EH_HOST/eh_deadline"
	echo 2 >"$SD/timeout"; echo 1 >"$SD/eh_timeout"
	echo 4 >$SDBG/opts; echo 1 >$SDBG/every_nth
	dd if="$DEV" of=/dev/null bs=512 count=1 iflag=direct >/dev/null 2>&1 || true
	echo 0 >$SDBG/opts; echo 0 >$SDBG/every_nth
	vm_wait_until 30 sh -c "[ \"\$(cat $SD/state)\" = offline ]" || true
}
eh_restore() {
	echo off >"$EH_HOST/eh_deadline"
	echo "$EH_TO" >"$SD/timeout"; echo "$EH_ETO" >"$SD/eh_timeout"
	echo running >"$SD/state"
}

# cnt: the commands the disk has received (the kernel's iorequest_cnt, hex)
cnt() { echo $(( $(cat "$SD/iorequest_cnt") )); }

# attempts CMD...: how many commands the disk received while CMD ran
attempts() {
	_b=$(cnt)
	"$@" >/dev/null 2>&1 || true
	sleep 0.2
	echo $(( $(cnt) - _b ))
}
