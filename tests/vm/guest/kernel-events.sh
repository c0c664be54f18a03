# tests/vm/guest/kernel-events.sh: body of kernel-events (sourced). Checks in the guest, with
# RESULT lines for the log: scsi_debug fault injection against the counters errors/<class>,
# the scsi_cmd_error_class tracepoint and the SDEV_STATE uevents of kernel/7.3/events/.

. /vm/guest/kernel-lib.sh
events_disk
vm_result abi=events

# uevent listener: the SDEV_STATE events, and any per-command error event (there must be none)
: >/tmp/state; : >/tmp/errev
uevent sh -c '[ -n "$SDEV_STATE" ] && echo "$SDEV_STATE" >>/tmp/state
	[ -n "$SDEV_ERROR" ] && echo "$SDEV_ERROR" >>/tmp/errev' &
UEV_PID=$!
sleep 0.5

rd() { dd if="$DEV" of=/dev/null bs=512 count=1 skip="${1:-0}" iflag=direct; }
inject() { echo "$1" >$SDBG/opts; echo "$2" >$SDBG/every_nth; }
try_write() {
	if printf '%s\n' "$2" | dd of="$1" 2>/tmp/werr; then echo ok
	else echo "error:$(head -n1 /tmp/werr | sed 's/.*: //' | tr ' ' '_')"; fi
}
# counters: all classes as class=N, sorted
counters() { for f in "$SD"/errors/*; do printf '%s=%s ' "${f##*/}" "$(cat "$f")"; done; }
# delta CLASS BEFORE: the class's count now minus BEFORE's
cnt_of() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# expect_only CLASS N BEFORE: CLASS grew by N, every other class by 0
expect_only() {
	_after=$(counters)
	for f in "$SD"/errors/*; do
		c=${f##*/}
		d=$(( $(cnt_of "$_after" "$c") - $(cnt_of "$3" "$c") ))
		if [ "$c" = "$1" ]; then vm_assert_eq "$2" "$d" "errors/$c after $4"
		else vm_assert_eq 0 "$d" "errors/$c after $4"; fi
	done
}

# --- the classes the ABI defines --------------------------------------------------------------
classes=$(ls "$SD/errors" | tr '\n' ' ')
vm_result "classes=$(echo $classes | tr ' ' ,)"
vm_assert_eq "device driver medium protection reservation space target timeout transport zone " \
	"$classes" "errors/ classes"

# --- the fixes series: max_retries -------------------------------------------------------------
MR=/sys/class/scsi_disk/$DISK/max_retries
vm_result write.max_retries_m5=$(try_write $MR -5) write.max_retries_m1=$(try_write $MR -1) \
	write.max_retries_6=$(try_write $MR 6)
vm_assert_eq error:Invalid_argument "$(try_write $MR -5)" "max_retries=-5 rejected"
vm_assert_eq error:Invalid_argument "$(try_write $MR 6)" "max_retries=6 rejected"
vm_assert_eq ok "$(try_write $MR -1)" "max_retries=-1 accepted"
echo 5 >$MR

# --- medium error (unrecovered read error at LBA 0x1234) ----------------------------------------
b=$(counters)
inject 2 0
rd 4660 >/dev/null 2>&1 || true
inject 0 0
expect_only medium 1 "$b" "a medium error"

# --- transport error (ABORTED COMMAND 4B/03), retried max_retries times, one final failure -------
b=$(counters)
inject 16 1
rd 0 >/dev/null 2>&1 || true
inject 0 0
expect_only transport 1 "$b" "ABORTED COMMAND 4B/03"

# --- timeout: reads ignored, 2 s timeout, no retries --------------------------------------------
echo 2 >"$SD/timeout"; echo 0 >$MR
b=$(counters)
inject 128 1
rd 8 >/dev/null 2>&1 || true
inject 0 0
expect_only timeout 1 "$b" "a timed-out read"
echo 30 >"$SD/timeout"; echo 5 >$MR

# --- passthrough (SG_IO READ of the bad LBA): not counted ---------------------------------------
b=$(counters)
inject 2 0
vm_result passthrough.result=$(sg_raw -r 512 "$DEV" 28 00 00 00 12 34 00 00 01 00 \
	>/dev/null 2>&1 && echo ok || echo fail)
inject 0 0
expect_only medium 0 "$b" "an SG_IO READ of the bad LBA"

# --- the tracepoint: one record per counted failure --------------------------------------------
TR=/sys/kernel/tracing
mount -t tracefs nodev $TR 2>/dev/null || true
if [ -e $TR/events/scsi/scsi_cmd_error_class/enable ]; then
	: >$TR/trace
	echo 1 >$TR/events/scsi/scsi_cmd_error_class/enable
	echo 1 >$TR/events/scsi/scsi_dispatch_cmd_done/enable
	inject 2 0
	sg_raw -r 512 "$DEV" 28 00 00 00 12 34 00 00 01 00 >/dev/null 2>&1 || true
	for i in 1 2; do rd 4660 >/dev/null 2>&1 || true; done
	inject 16 1
	rd 0 >/dev/null 2>&1 || true
	inject 0 0
	echo 0 >$TR/events/scsi/scsi_cmd_error_class/enable
	echo 0 >$TR/events/scsi/scsi_dispatch_cmd_done/enable
	grep scsi_cmd_error_class: $TR/trace >/tmp/trace || true
	sed -n 1p /tmp/trace | sed 's/^.*scsi_cmd_error_class: /trace.example: /' >&2
	vm_result trace.records=$(wc -l </tmp/trace)
	vm_assert_eq 3 "$(wc -l </tmp/trace)" "scsi_cmd_error_class records (2 ULD reads, 1 transport, not SG_IO)"
	vm_assert_eq 2 "$(grep -c 'opcode=READ_10 .*blk_status=[0-9]* class=medium sense=(key=0x3 asc=0x11' /tmp/trace)" \
		"medium records"
	vm_assert_eq 1 "$(grep -c 'class=transport sense=(key=0xb asc=0x4b ascq=0x3)' /tmp/trace)" \
		"transport record"
	# the fields join with scsi_dispatch_cmd_done: the same address and driver tag
	l=$(sed -n 1p /tmp/trace | grep -o 'host_no=[0-9]* channel=[0-9]* id=[0-9]* lun=[0-9]* driver_tag=[0-9-]*')
	vm_assert_ge 1 "$(grep scsi_dispatch_cmd_done: $TR/trace | grep -c "$(echo "$l" | sed 's/ driver_tag=/ .*driver_tag=/')")" \
		"a scsi_dispatch_cmd_done record with the same host_no..lun and driver_tag"
else
	vm_fail "no scsi_cmd_error_class tracepoint"
fi

# --- offline written by user space: no event --------------------------------------------------
echo offline >"$SD/state"; sleep 0.5; echo running >"$SD/state"; sleep 0.5
vm_result user_offline.events=$(wc -l </tmp/state)
vm_assert_eq 0 "$(wc -l </tmp/state)" "SDEV_STATE events after writing offline"

# --- error recovery gives up on the device: one SDEV_STATE=offline -----------------------------
# (kernel-lib.sh eh_offline: every command times out, eh_deadline 0)
eh_offline
vm_wait_until 5 sh -c '[ -s /tmp/state ]' || true
sleep 1
vm_result eh_offline.state="$(cat "$SD/state")" eh_offline.events=$(wc -l </tmp/state) \
	eh_offline.sdev_state=$(head -n1 /tmp/state)
vm_assert_eq offline "$(cat "$SD/state")" "state after error recovery"
vm_assert_eq 1 "$(wc -l </tmp/state)" "SDEV_STATE events after error recovery"
vm_assert_eq offline "$(head -n1 /tmp/state)" "SDEV_STATE"
eh_restore
vm_assert "a read after state=running" rd 0
vm_result "counters=$(counters | tr ' ' ,)"

# --- removal of an offline device: no event -------------------------------------------------------
: >/tmp/state
echo offline >"$SD/state"
echo 1 >"$SD/delete"
sleep 1
vm_assert_eq 0 "$(wc -l </tmp/state)" "SDEV_STATE events on deleting a device"
vm_assert_eq 0 "$(wc -l </tmp/errev)" "per-command SDEV_ERROR events (there are none in this series)"
kill "$UEV_PID" 2>/dev/null

# --- an iSCSI session lost longer than its replacement timeout: transport-offline -------------
# (as in lund-errpolicy.sh, without lund: LIO's iSCSI target on loopback, two ramdisk LUs,
# iscsid with a replacement timeout of 3 s, the portal group disabled, then enabled again, then
# a logout of the running session)
. /vm/guest/lio-lib.sh
modprobe -a configfs target_core_mod
grep -qs ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
lio_ramdisks 2
lio_iscsi_target
lio_export_ramdisks 2
lio_map 0; lio_map 1
LIO_REPLACEMENT_TMO=3 lio_iscsid_login
vm_wait_until 30 lio_nlus_is 2 || vm_fail "iscsi: 2 LUs expected after the login, have $(lio_nlus)"
ILUS=$(lio_lus | xargs)
S=$(ls -d /sys/class/iscsi_session/session* | head -n1)
istates() { for l in $ILUS; do cat "/sys/bus/scsi/devices/$l/state"; done | sort -u | xargs; }
: >/tmp/sdev_state
uevent sh -c '[ -n "$SDEV_STATE" ] && echo "${DEVPATH##*/} $SDEV_STATE" >>/tmp/sdev_state' &
SST_PID=$!
sleep 0.5
echo 0 >"$LIO_TPG/enable"
vm_wait_until 30 sh -c "[ \"\$(for l in $ILUS; do cat /sys/bus/scsi/devices/\$l/state; done | sort -u | xargs)\" = transport-offline ]" || true
vm_wait_until 5 sh -c '[ $(wc -l </tmp/sdev_state) -ge 2 ]' || true
sleep 1
vm_result iscsi.lus=$(echo $ILUS | wc -w) iscsi.state="$(istates)" iscsi.events=$(wc -l </tmp/sdev_state)
vm_log "iscsi: SDEV_STATE events: $(xargs </tmp/sdev_state)"
vm_assert_eq transport-offline "$(istates)" "iscsi: replacement timeout expired: LUs transport-offline"
vm_assert_eq "$(echo $ILUS | tr ' ' '\n' | sed 's/$/ transport-offline/')" "$(sort /tmp/sdev_state)" \
	"iscsi: one SDEV_STATE=transport-offline event per LU"
echo 1 >"$LIO_TPG/enable"
vm_wait_until 60 grep -q LOGGED_IN "$S/state" || true
vm_wait_until 20 sh -c "[ \"\$(for l in $ILUS; do cat /sys/bus/scsi/devices/\$l/state; done | sort -u | xargs)\" = running ]" || true
vm_assert_eq running "$(istates)" "iscsi: portal back: the LUs run again"
vm_assert_eq 2 "$(wc -l </tmp/sdev_state)" "iscsi: no event on coming back"
iscsiadm -m node -T "$LIO_IQN" --logout >/dev/null 2>&1 || true
vm_wait_until 10 lio_nlus_is 0 || true
sleep 0.5
vm_result iscsi.logout_lus=$(lio_nlus) iscsi.events_in_all=$(wc -l </tmp/sdev_state)
vm_assert_eq 2 "$(wc -l </tmp/sdev_state)" "iscsi: no event on the logout of a running session"
kill "$SST_PID" 2>/dev/null || true
vm_done
