# tests/vm/guest/kernel-udev.sh: body of kernel-udev-stock and kernel-udev-patched (sourced;
# $KMODE says which). What one failing command costs a machine running udevd (Debian 12's
# systemd-udevd and rules): the change events udevd processes for the scsi_device and for its
# disk, and the commands the disk receives meanwhile. systemd's 60-block.rules answers every
# change event of a scsi_device that has a disk with a change event on the disk, which udevd
# then processes like a new disk (persistent-storage rules, blkid): a re-probe of a disk that is
# failing. Results: RESULT key=value lines, in kernel/test.sh's stock-vs-patched table.

. /vm/guest/kernel-lib.sh
# udevadm settle pings udevd first; under a loaded host that ping once failed with "Failed to
# wait for daemon to reply: Broken pipe" while udevd ran on: ask once more before giving up
settle() { udevadm settle --timeout=120 || { sleep 1 && udevadm settle --timeout=120; }; }
kernel_disk
settle

MON=/tmp/udev-monitor
udevadm monitor --udev -s scsi -s block >"$MON" 2>/dev/null &
MON_PID=$!
sleep 1

inject() { echo "$1" >$SDBG/opts; echo "$2" >$SDBG/every_nth; }
rd() { dd if="$DEV" of=/dev/null bs=512 count=1 skip="${1:-0}" iflag=direct; }
# changes SUBSYSTEM: the change events of SUBSYSTEM udevd has processed so far
changes() { grep -c "^UDEV .* change .*($1)\$" "$MON"; }

# fail KEY N: N reads of a bad LBA (unrecovered read error: one command each, never retried);
# the udev events and the commands they caused, once udevd has processed everything
fail() {
	settle
	_s=$(changes scsi) _b=$(changes block) _c=$(cnt) _i=0
	inject 2 0
	while [ $_i -lt "$2" ]; do rd 4660 >/dev/null 2>&1 || true; _i=$((_i + 1)); done
	inject 0 0
	sleep 2 # the kernel sends its events from a workqueue
	settle
	sleep 1 # the monitor prints after udevd's processing
	vm_result "udev.$1.reads=$2" "udev.$1.scsi_changes=$(( $(changes scsi) - _s ))" \
		"udev.$1.disk_changes=$(( $(changes block) - _b ))" \
		"udev.$1.commands=$(( $(cnt) - _c ))"
}

vm_result "udev.rule_60_block=$(grep -c 'SUBSYSTEM=="scsi".*ATTR{block/\*/uevent}="change"' \
	/usr/lib/udev/rules.d/60-block.rules /lib/udev/rules.d/60-block.rules 2>/dev/null |
	awk -F: '{ s += $NF } END { print (s > 0) ? "yes" : "no" }')"

fail one_default 1
fail ten_default 10
if [ "$patched" = 1 ]; then
	# an error event per failed command (patch 4), bounded to 3 per minute for this LU
	echo 3 >"$SD/evt_error_burst"
	echo 60000 >"$SD/evt_error_interval_ms"
	echo 1 >"$SD/evt_error"
	fail one_events 1
	echo 60000 >"$SD/evt_error_interval_ms" # restarts the interval
	fail ten_events 10
	echo 0 >"$SD/evt_error"
	# counters only (patch 5): no event per command, one when errors/medium reaches the threshold
	echo $(( $(cat "$SD/errors/medium") + 5 )) >"$SD/error_threshold"
	fail ten_counters 10
	# A request sd marks quiet is neither counted nor reported: a WRITE SAME the disk rejects
	# (INVALID FIELD IN CDB: more blocks than scsi_debug's write_same_length) makes sd give
	# WRITE SAME up quietly, and the block layer writes the zeroes instead.
	if command -v blkdiscard >/dev/null; then
		errsum() { cat "$SD"/errors/* | awk '{ s += $1 } END { print s }'; }
		WS=/sys/module/scsi_debug/parameters/write_same_length
		vm_result quiet.zeroing_mode=$(cat /sys/class/scsi_disk/$DISK/zeroing_mode)
		echo 10 >"$SD/evt_error_burst"
		echo 5000 >"$SD/evt_error_interval_ms"
		echo 1 >"$SD/evt_error"
		echo 1 >$WS
		settle
		_s=$(changes scsi) _e=$(errsum)
		blkdiscard -z -o 0 -l 65536 "$DEV" && _r=ok || _r=fail
		sleep 2
		settle
		sleep 1
		vm_result quiet.result=$_r quiet.counted=$(( $(errsum) - _e )) \
			quiet.scsi_changes=$(( $(changes scsi) - _s )) \
			quiet.max_write_same_blocks=$(cat /sys/class/scsi_disk/$DISK/max_write_same_blocks)
		echo 0 >"$SD/evt_error"
		echo 65535 >$WS
	else
		vm_result quiet.result=no-blkdiscard
	fi
fi
kill "$MON_PID" 2>/dev/null
vm_done
