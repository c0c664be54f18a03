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
: >"$EV"; : >/tmp/thr; : >/tmp/state
uevent sh -c '[ -n "$SDEV_ERROR_THRESHOLD" ] && echo "$SDEV_ERROR_THRESHOLD/$SDEV_ERROR_COUNT" >>/tmp/thr
	[ -n "$SDEV_STATE" ] && echo "$SDEV_STATE" >>/tmp/state
	[ -n "$SDEV_ERROR" ] && env | grep "^SDEV_ERROR" | sort | tr "\n" " " >>/tmp/events && echo >>/tmp/events' &
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
set_attr_dir() { [ -e "$1/$2" ] && echo "$3" >"$1/$2"; return 0; }
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

# --- 2b. unit attention (CAPACITY DATA HAS CHANGED) during a flush and a read -----------------
# A changed virtual_gb makes scsi_debug raise the unit attention on the next command of every
# LU. It is harmless: the command is sent again and succeeds, also with failfast=device.
ua() {   # KEY CMD...: raise the unit attention, run CMD; result and commands sent
	_k=$1; shift
	echo $(( $(cat $SDBG/virtual_gb) ^ 1 )) >$SDBG/virtual_gb
	_b=$(cnt)
	if "$@" >/dev/null 2>&1; then _r=ok; else _r=fail; fi
	sleep 0.2
	vm_result "ua.$_k.result=$_r" "ua.$_k.attempts=$(( $(cnt) - _b ))"
}
flush() { sync -d "$DEV"; }
vm_result sd.cache_type=$(cat /sys/class/scsi_disk/$DISK/cache_type | tr ' ' '_')
ua flush_default flush
ua read_default rd 0
if [ "$patched" = 1 ]; then
	set_attr failfast device
	ua flush_failfast_device flush
	ua read_failfast_device rd 0
	set_attr failfast none
fi
echo 0 >$SDBG/virtual_gb
rd 0 >/dev/null 2>&1 || true

# --- 2c. NOT READY while the unit becomes ready (04/01) or in an ALUA transition (04/0A) -------
# For 1 s every read, write and flush gets NOT READY (scsi_debug's not_ready_ascq/not_ready_ms,
# a test fixture of kernel/fixtures/, so patched runs only). The midlayer waits these out
# (delayed retries, bounded by the command's runtime), also with failfast=device.
NR=/sys/module/scsi_debug/parameters
notready() {   # KEY ASCQ CMD...: result, and whether the command was sent more than once
	_k=$1; _q=$2; shift 2
	echo "$_q" >$NR/not_ready_ascq
	echo 1000 >$NR/not_ready_ms
	_b=$(cnt)
	if "$@" >/dev/null 2>&1; then _r=ok; else _r=fail; fi
	sleep 0.2
	vm_result "nr.$_k.result=$_r" \
		"nr.$_k.resent=$([ $(( $(cnt) - _b )) -gt 1 ] && echo yes || echo no)"
	echo 0 >$NR/not_ready_ascq
}
if [ "$patched" = 1 ] && [ -e $NR/not_ready_ascq ]; then
	notready becoming_flush 1 flush
	notready alua_read 10 rd 0
	set_attr failfast device
	notready becoming_flush_failfast_device 1 flush
	notready becoming_read_failfast_device 1 rd 0
	notready alua_flush_failfast_device 10 flush
	notready alua_read_failfast_device 10 rd 0
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
vm_result write.evt_error_interval_ms_0=$(try_write "$SD/evt_error_interval_ms" 0)
vm_result write.evt_error_burst_1001=$(try_write "$SD/evt_error_burst" 1001)
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

# --- 5b. the interval ends in real time: burst 1 per 1 s ---------------------------------------
set_attr evt_error_burst 1
set_attr evt_error_interval_ms 1000
n0=$(nev)
inject 2 0
rd 4660 >/dev/null 2>&1 || true
rd 4660 >/dev/null 2>&1 || true
wait_ev $((n0 + 1))
vm_result window.events_within=$(( $(nev) - n0 ))
sleep 1.5
rd 4660 >/dev/null 2>&1 || true
inject 0 0
wait_ev $((n0 + 2))
vm_result window.events_after=$(( $(nev) - n0 ))
vm_result window.suppressed=$(evfield "$(nev)" SUPPRESSED)
set_attr evt_error_burst 10
set_attr evt_error_interval_ms 5000

# --- 5c. passthrough commands (SG_IO) are never reported ---------------------------------------
n0=$(nev)
inject 2 0
vm_result passthrough.result=$(sg_raw -r 512 "$DEV" 28 00 00 00 12 34 00 00 01 00 \
	>/dev/null 2>&1 && echo ok || echo fail)
rd 4660 >/dev/null 2>&1 || true    # then one ULD read: its event ends the wait
inject 0 0
wait_ev $((n0 + 1)); sleep 0.5
vm_result passthrough.events=$(( $(nev) - n0 ))
vm_result passthrough.ev.opcode=$(evfield $((n0 + 1)) OPCODE)

# --- 5e. per-class counters (errors/), counted without evt_error; error_threshold -----------
# The LU's medium errors so far: 1 + 9 (burst) + 3 (window) + 1 (the ULD read of 5c; the SG_IO
# READ is passthrough and not counted).
set_attr evt_error 0
c0=$(cat "$SD/errors/medium" 2>/dev/null || echo na)
vm_result counters.medium_before=$c0
n0=$(nev)
[ "$c0" != na ] && echo $((c0 + 2)) >"$SD/error_threshold"
inject 2 0
for i in 1 2 3; do rd 4660 >/dev/null 2>&1 || true; done
inject 0 0
vm_wait_until 5 sh -c '[ -s /tmp/thr ]' || true
sleep 0.5
if [ "$c0" = na ]; then vm_result counters.medium_delta=na
else vm_result counters.medium_delta=$(( $(cat "$SD/errors/medium") - c0 )); fi
vm_result counters.events=$(( $(nev) - n0 ))
vm_result threshold.events=$(wc -l </tmp/thr)
vm_result "threshold.first=$(head -n1 /tmp/thr | sed "s|/$((${c0#na} + 2))\$|/threshold|")"
vm_result counters.transport=$(cat "$SD/errors/transport" 2>/dev/null || echo na)
vm_result counters.timeout=$(cat "$SD/errors/timeout" 2>/dev/null || echo na)

# --- 5f. the scsi_cmd_error_class tracepoint: every final failure with its class, evt_error is off
# since 5e; the SG_IO READ of the same LBA is not traced
TR=/sys/kernel/tracing
mount -t tracefs nodev $TR 2>/dev/null || true
if [ -e $TR/events/scsi/scsi_cmd_error_class/enable ]; then
	: >$TR/trace
	echo 1 >$TR/events/scsi/scsi_cmd_error_class/enable
	inject 2 0
	sg_raw -r 512 "$DEV" 28 00 00 00 12 34 00 00 01 00 >/dev/null 2>&1 || true
	for i in 1 2; do rd 4660 >/dev/null 2>&1 || true; done
	inject 16 1
	rd 0 >/dev/null 2>&1 || true
	inject 0 0
	echo 0 >$TR/events/scsi/scsi_cmd_error_class/enable
	grep scsi_cmd_error_class $TR/trace >/tmp/trace || true
	vm_result trace.records=$(wc -l </tmp/trace) \
		trace.medium=$(grep -c 'class=medium retryable=0 opcode=READ_10 sector=4660 ' /tmp/trace) \
		trace.transport=$(grep -c 'class=transport retryable=1 .* sense=0b/4b/03' /tmp/trace)
else
	vm_result trace.records=na
fi

# --- 5g. the device goes offline: one SDEV_STATE=offline uevent per transition --------------
# offline, offline again (no transition), running, offline: two events
go() { echo "$1" >"$SD/state"; sleep 0.3; }
go offline; go offline; go running; go offline
vm_wait_until 5 sh -c '[ $(wc -l </tmp/state) -ge 2 ]' || true
sleep 0.5
go running
vm_result offline.events=$(wc -l </tmp/state) offline.state=$(head -n1 /tmp/state)
rd 0 >/dev/null 2>&1 || true

# --- 5h. error recovery gives up on the device: one SDEV_STATE=offline uevent ---------------
# (kernel-lib.sh eh_offline: every command times out, eh_deadline 0)
: >/tmp/state
eh_offline
vm_result eh_offline.state="$(cat "$SD/state")"
[ "$patched" = 1 ] && { vm_wait_until 5 sh -c '[ -s /tmp/state ]' || true; }
sleep 1
vm_result eh_offline.events=$(wc -l </tmp/state) eh_offline.sdev_state=$(head -n1 /tmp/state)
eh_restore
vm_result eh_offline.read_after_running=$(rd 0 >/dev/null 2>&1 && echo ok || echo fail)

# --- 5d. errors on many LUs at once: 16 LUs, 3 reads of the bad LBA each, in parallel --------
# Each LU may send 10 events per 5 s; all of them together at most the global limit,
# scsi_mod's evt_error_global_burst per evt_error_global_interval_ms (here 8 per 60 s: fewer
# than the LUs).
kill "$UEV_PID" 2>/dev/null
rmmod scsi_debug
modprobe scsi_debug dev_size_mb=8 num_tgts=1 max_luns=16
vm_wait_until 30 sh -c '[ $(ls -d /sys/class/scsi_disk/*/device/block/sd* 2>/dev/null | wc -l) -ge 16 ]' || true
LUS=$(ls -d /sys/class/scsi_disk/*/device/block/sd* 2>/dev/null | wc -l)
vm_result many.lus=$LUS
: >"$EV"
uevent sh -c '[ -n "$SDEV_ERROR_THRESHOLD" ] && echo "$SDEV_ERROR_THRESHOLD/$SDEV_ERROR_COUNT" >>/tmp/thr
	[ -n "$SDEV_ERROR" ] && env | grep "^SDEV_ERROR" | sort | tr "\n" " " >>/tmp/events && echo >>/tmp/events' &
UEV_PID=$!
sleep 0.5
G=/sys/module/scsi_mod/parameters
vm_result write.evt_error_global_interval_ms_0=$(try_write $G/evt_error_global_interval_ms 0)
[ -e $G/evt_error_global_burst ] && echo 8 >$G/evt_error_global_burst
[ -e $G/evt_error_global_interval_ms ] && echo 60000 >$G/evt_error_global_interval_ms
for d in /sys/class/scsi_disk/*/device; do set_attr_dir "$d" evt_error 1; done
inject 2 0
pids=
for b in /sys/class/scsi_disk/*/device/block/*; do
	b=${b##*/}
	( for i in 1 2 3; do dd if=/dev/$b of=/dev/null bs=512 count=1 skip=4660 iflag=direct \
		>/dev/null 2>&1; done ) &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || true; done
inject 0 0
# the listener runs one handler per event: wait until it has caught up (no new event for 2 s)
quiet_ev() {
	_n=-1; _i=0
	while [ "$_n" != "$(nev)" ] && [ $_i -lt 30 ]; do _n=$(nev); sleep 2; _i=$((_i + 1)); done
}
quiet_ev
vm_result many.reads=$(( LUS * 3 ))
vm_result many.events=$(nev)
# the final failures the LUs had (the patch's own counters): more than the global limit
if [ "$patched" = 1 ]; then
	_f=$(cat /sys/class/scsi_disk/*/device/errors/medium | awk '{ s += $1 } END { print s }')
	vm_result many.failures=$_f many.failures_over_limit=$([ "$_f" -gt 8 ] && echo yes || echo no)
fi

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
