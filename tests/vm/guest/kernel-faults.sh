# tests/vm/guest/kernel-faults.sh: body of kernel-stock and kernel-patched (sourced; $KMODE
# says which).
# scsi_debug fault injection against the SCSI error policy and error events of the kernel
# companion patchset (kernel/). Every attempt count is the device's own iorequest_cnt delta;
# error events are captured from the kernel's uevent netlink socket (busybox `uevent`).
# Results: RESULT key=value lines, compared stock vs patched by kernel/test.sh.

. /vm/guest/kernel-lib.sh
kernel_disk

# uevent listener: one line per SDEV_ERROR event
EV=/tmp/events
: >"$EV"
uevent sh -c '[ -n "$SDEV_ERROR" ] && env | grep "^SDEV_ERROR" | sort | tr "\n" " " >>/tmp/events && echo >>/tmp/events' &
UEV_PID=$!
sleep 0.5

rd() { dd if="$DEV" of=/dev/null bs=512 count=1 skip="${1:-0}" iflag=direct; }
nev() { wc -l <"$EV"; }
# wait_ev N: wait until N events arrived (events are sent from a workqueue)
wait_ev() { vm_wait_until 5 sh -c "[ \$(wc -l <$EV) -ge $1 ]" || true; }
# evfield N KEY: KEY of the Nth event
evfield() { sed -n "${1}p" "$EV" | tr ' ' '\n' | sed -n "s/^SDEV_ERROR_$2=//p"; }
# try_write FILE VALUE: "ok" or the errno text of the failed write
try_write() {
	[ -e "$1" ] || { echo na; return; }
	# (dd, not the shell's builtin echo: ash says nothing about a failed write)
	if printf '%s\n' "$2" | dd of="$1" 2>/tmp/werr; then echo ok
	else echo "error:$(head -n1 /tmp/werr | sed 's/.*: //' | tr ' ' '_')"; fi
}
set_attr() { [ -e "$SD/$1" ] && echo "$2" >"$SD/$1"; return 0; }
inject() { echo "$1" >$SDBG/opts; echo "$2" >$SDBG/every_nth; }
report_ev() {   # PREFIX N: the Nth event's fields as PREFIX.ev.*
	for k in CLASS RETRYABLE ERRNO RESULT SK ASC ASCQ OPCODE SECTOR SUPPRESSED; do
		vm_result "$1.ev.$(echo $k | tr A-Z a-z)=$(evfield "$2" $k)"
	done
}

[ "$patched" = 1 ] && echo 1 >"$SD/evt_error"

# --- 1. medium error: unrecovered read error at LBA 0x1234, never retried ---------------------
inject 2 0
n0=$(nev)
vm_result medium.attempts=$(attempts rd 4660)
inject 0 0
if [ "$patched" = 1 ]; then
	wait_ev $((n0 + 1)); vm_result medium.events=$(( $(nev) - n0 ))
	report_ev medium $((n0 + 1))
else
	vm_result medium.events=$(( $(nev) - n0 ))
fi

# --- 2. transport error (ABORTED COMMAND 4B/03 on every command) ------------------------------
transport() {   # KEY: one read with the current policy
	n0=$(nev)
	inject 16 1
	vm_result "transport.$1.attempts=$(attempts rd 0)"
	inject 0 0
	wait_ev $((n0 + 1))
	vm_result "transport.$1.events=$(( $(nev) - n0 ))"
}
vm_result sd.max_retries.default=$(cat /sys/class/scsi_disk/$DISK/max_retries)
transport sd_default
echo 0 >/sys/class/scsi_disk/$DISK/max_retries; transport sd_max_retries_0
echo 2 >/sys/class/scsi_disk/$DISK/max_retries; transport sd_max_retries_2
echo 5 >/sys/class/scsi_disk/$DISK/max_retries
[ "$patched" = 1 ] && report_ev transport "$(nev)"
if [ "$patched" = 1 ]; then
	set_attr retry_limit 1; transport retry_limit_1
	set_attr retry_limit 0; transport retry_limit_0
	set_attr retry_limit default
	set_attr failfast transport; transport failfast_transport
	set_attr failfast driver; transport failfast_driver
	set_attr failfast device; transport failfast_device
	set_attr failfast none
fi

# --- 3. timeout: reads and writes ignored (MAC_TIMEOUT), 2 s command timeout, no retries -------
echo 2 >"$SD/timeout"
echo 0 >/sys/class/scsi_disk/$DISK/max_retries
n0=$(nev); t0=$(cat "$SD/iotmo_cnt")
inject 128 1
vm_result timeout.attempts=$(attempts rd 8)
inject 0 0
vm_result timeout.iotmo=$(( $(cat "$SD/iotmo_cnt") - t0 ))
wait_ev $((n0 + 1)); vm_result timeout.events=$(( $(nev) - n0 ))
[ "$patched" = 1 ] && report_ev timeout $((n0 + 1))
echo 30 >"$SD/timeout"
echo 5 >/sys/class/scsi_disk/$DISK/max_retries

# --- 4. invalid writes ------------------------------------------------------------------------
vm_result write.max_retries_m5=$(try_write /sys/class/scsi_disk/$DISK/max_retries -5)
vm_result write.max_retries_m1=$(try_write /sys/class/scsi_disk/$DISK/max_retries -1)
echo 5 >/sys/class/scsi_disk/$DISK/max_retries
vm_result write.max_retries_6=$(try_write /sys/class/scsi_disk/$DISK/max_retries 6)
vm_result write.retry_limit_m1=$(try_write "$SD/retry_limit" -1)
vm_result write.retry_limit_256=$(try_write "$SD/retry_limit" 256)
vm_result write.retry_limit_abc=$(try_write "$SD/retry_limit" abc)
vm_result write.retry_limit_3=$(try_write "$SD/retry_limit" 3)
vm_result read.retry_limit=$(cat "$SD/retry_limit" 2>/dev/null || echo na)
vm_result write.retry_limit_default=$(try_write "$SD/retry_limit" default)
vm_result write.failfast_bogus=$(try_write "$SD/failfast" bogus)
vm_result write.failfast_none_transport=$(try_write "$SD/failfast" "none transport")
vm_result write.failfast_empty=$(try_write "$SD/failfast" "")
vm_result write.failfast_transport_device=$(try_write "$SD/failfast" "transport,device")
vm_result read.failfast=$(cat "$SD/failfast" 2>/dev/null | tr ' ' '+' || echo na)
vm_result write.failfast_none=$(try_write "$SD/failfast" none)
vm_result write.evt_error_2=$(try_write "$SD/evt_error" 2)
vm_result write.evt_error_burst_0=$(try_write "$SD/evt_error_burst" 0)
vm_result write.evt_error_interval_ms_x=$(try_write "$SD/evt_error_interval_ms" x)
vm_result write.evt_media_change_1=$(try_write "$SD/evt_media_change" 1)

# --- 5. a burst of 8 medium errors with evt_error_burst=3 per 60 s, then one more -------------
set_attr evt_error_burst 3
set_attr evt_error_interval_ms 60000
n0=$(nev)
inject 2 0
i=0
while [ $i -lt 8 ]; do rd 4660 >/dev/null 2>&1 || true; i=$((i + 1)); done
sleep 1
vm_result burst.events=$(( $(nev) - n0 ))
set_attr evt_error_interval_ms 60000    # restarts the interval
rd 4660 >/dev/null 2>&1 || true
inject 0 0
wait_ev $((n0 + 4))
vm_result burst.events_after=$(( $(nev) - n0 ))
vm_result burst.suppressed=$(evfield "$(nev)" SUPPRESSED)
vm_result burst.suppressed_first=$(evfield $((n0 + 1)) SUPPRESSED)

# --- 6. sr: scsi_debug as a CD-ROM (2048-byte blocks), reads time out ---------------------------
kill "$UEV_PID" 2>/dev/null
rmmod scsi_debug
modprobe sr_mod
modprobe scsi_debug ptype=5 sector_size=2048 dev_size_mb=8 num_tgts=1 max_luns=1
if vm_wait_until 20 sh -c 'ls /sys/class/scsi_device/*/device/block/sr* >/dev/null 2>&1'; then
	SD=$(cd /sys/class/scsi_device/*/device && pwd -P)
	SR=/dev/$(ls "$SD/block")
	vm_wait_for "$SR"
	echo 1 >"$SD/timeout"
	srread() { dd if="$SR" of=/dev/null bs=2048 count=1 iflag=direct; }
	# Opening and closing sr sends commands of its own (TEST UNIT READY, GET EVENT STATUS,
	# ...), so iorequest_cnt is reported but the READ attempts are counted by iotmo_cnt:
	# only medium access commands time out (MAC_TIMEOUT).
	sr_case() {
		_t=$(cat "$SD/iotmo_cnt")
		inject 128 1
		vm_result "sr.$1.commands=$(attempts srread)"
		inject 0 0
		vm_result "sr.$1.read_attempts=$(( $(cat "$SD/iotmo_cnt") - _t ))"
	}
	sr_case default
	if [ "$patched" = 1 ]; then
		echo 0 >"$SD/retry_limit"; sr_case retry_limit_0
		echo 1 >"$SD/retry_limit"; sr_case retry_limit_1
	fi
else
	vm_fail "no sr device from scsi_debug ptype=5"
fi

vm_done
