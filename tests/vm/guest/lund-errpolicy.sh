# tests/vm/guest/lund-errpolicy.sh: body of lund-errpolicy-stock and lund-errpolicy-patched
# (sourced; $KMODE says which). `lunctl policy` against scsi_debug: what it shows, what it sets,
# what it refuses.
# Every effect is checked from the kernel's side: the sysfs attribute read back with cat, and
# the attempts a read took as the device's iorequest_cnt delta (scsi_debug opts=16 every_nth=1:
# ABORTED COMMAND 4B/03 on every command, kernel/README.md).

. /vm/guest/daemon-lib.sh
. /vm/guest/kernel-lib.sh
kernel_disk
MR=/sys/class/scsi_disk/$DISK/max_retries

rd() { dd if="$DEV" of=/dev/null bs=512 count=1 iflag=direct; }
inject() { echo "$1" >$SDBG/opts; echo "$2" >$SDBG/every_nth; }
transport_attempts() { inject 16 1; attempts rd; inject 0 0; }
# lp ARGS...: run lunctl policy, output in /tmp/lp.out, exit code echoed
lp() { lunctl policy "$@" >/tmp/lp.out 2>&1 && echo 0 || echo $?; }
attr() { cat "$1" 2>/dev/null || echo na; }

# --- show ---------------------------------------------------------------------------------
vm_assert_eq 0 "$(lp "$DEV")" "lunctl policy $DEV"
cat /tmp/lp.out >&2
vm_assert_eq 0 "$(lp --json "$BLK")" "lunctl policy --json $BLK"
json=$(tr -d ' \n' </tmp/lp.out)
vm_assert_eq "$(attr "$MR")" "$(lunctl policy "$DEV" | sed -n 's/^  max_retries  *//p')" \
	"max_retries shown as the kernel has it"
vm_assert_eq "$(attr "$SD/timeout")" "$(lunctl policy "$DEV" | sed -n 's/^  timeout  *//p')" \
	"timeout shown as the kernel has it"
notes=$(lunctl policy "$DEV" | grep -c '^Missing on this kernel' || true)

# --- the device goes offline and comes back: lund's view (lund(8) ERROR EVENTS, Device state) ---
# Patched: the kernel's SDEV_STATE=offline event (patch 7) reaches lund, which shows the LU
# offline (list, status, monitor), logs it once, keeps its names, and sees it running again
# (no event for that: it re-reads the state of LUs not running every 2 s). Stock: no event, but
# the round that reads the LU's error counters (every 5 s, only for LUs whose disk did I/O,
# every LU each 12th round) reads its state too: after I/O on the disk lund shows it offline
# within a round, and running again as above.
HCTL=$(basename "$SD")
lund_start
lstate() { lunctl list -n -r -o HCTL,STATE | grep "^$HCTL " || true; }
lnames() { lunctl list -n -r -o HCTL,NAMES | grep "^$HCTL " || true; }
nm0=$(lnames) ln0=$(ls -A /dev/scsi/by-id 2>/dev/null | wc -l)
vm_assert_eq "$HCTL running" "$(lstate)" "state: lunctl list shows the LU running"
lunctl monitor --event lu-state >/tmp/mon.out 2>&1 &
MON_PID=$!
sleep 1
# a descriptor opened before: an offline disk cannot be opened (sd_open), but I/O through it
# is tried, fails and is counted by the block layer (proc/diskstats), which is what the
# stock kernel's round goes by
exec 3<"$DEV"
echo offline >"$SD/state"
if [ "$patched" = 1 ]; then
	vm_wait_until 5 sh -c "lunctl list -n -r -o HCTL,STATE | grep -q '^$HCTL offline\$'" || true
	vm_assert_eq "$HCTL offline" "$(lstate)" "state: lunctl list shows it offline (SDEV_STATE event)"
	vm_assert_eq 1 "$(grep -c 'state running -> offline (uevent), names kept' "$LUND_LOG.new")" \
		"state: lund logged the offline event once"
	vm_assert_eq "Not running:   $HCTL offline" "$(lunctl status | grep '^Not running:')" \
		"state: lunctl status lists it"
	vm_assert "state: status --json not_running" sh -c \
		"lunctl status --json | tr -d ' \n' | grep -q '\"not_running\":{\"$HCTL\":\"offline\"}'"
	vm_assert "state: list --json state" sh -c \
		"lunctl list --json | tr -d ' \n' | grep -q '\"hctl\":\"$HCTL\".*\"state\":\"offline\"'"
else
	t_off=$(vm_uptime_ms)
	echo 1 >/proc/sys/vm/drop_caches
	dd of=/dev/null bs=4096 count=1 <&3 2>/dev/null || true
	vm_wait_until 12 sh -c "lunctl list -n -r -o HCTL,STATE | grep -q '^$HCTL offline\$'" || true
	vm_result lund.state_offline_ms=$(( $(vm_uptime_ms) - t_off ))
	vm_assert_eq "$HCTL offline" "$(lstate)" \
		"state: stock kernel, no event: the counters' round reads it offline"
	vm_assert_eq 1 "$(grep -c 'state running -> offline (sysfs), names kept' "$LUND_LOG.new")" \
		"state: lund logged it once"
	vm_assert_eq "Not running:   $HCTL offline" "$(lunctl status | grep '^Not running:')" \
		"state: lunctl status lists it"
fi
exec 3<&-
vm_result lund.state_offline="$(lstate | cut -d' ' -f2)"
vm_assert_eq "$nm0" "$(lnames)" "state: the LU keeps its names"
vm_assert_eq "$ln0" "$(ls -A /dev/scsi/by-id 2>/dev/null | wc -l)" "state: and its links"
echo running >"$SD/state"
src=uevent
[ "$patched" = 1 ] || src=sysfs
vm_wait_until 15 sh -c "lunctl list -n -r -o HCTL,STATE | grep -q '^$HCTL running\$'" || true
vm_assert_eq "$HCTL running" "$(lstate)" "state: running again (re-read, no event)"
vm_assert_eq 1 "$(grep -c 'state offline -> running (sysfs), names kept' "$LUND_LOG.new")" \
	"state: the return logged once"
vm_assert_eq "Not running:   none" "$(lunctl status | grep '^Not running:')" \
	"state: lunctl status lists none"
sleep 1
vm_assert_eq 2 "$(grep -c "lu-state *$HCTL" /tmp/mon.out)" "state: monitor got two lu-state events"
vm_assert "state: monitor shows offline ($src)" grep -q "$HCTL *running -> offline ($src)" /tmp/mon.out
vm_assert "state: monitor shows running (sysfs)" grep -q "$HCTL *offline -> running (sysfs)" /tmp/mon.out
vm_result lund.state_running_again="$(lstate | cut -d' ' -f2)" \
	lund.state_monitor_events=$(grep -c "lu-state" /tmp/mon.out)
cat /tmp/mon.out >&2
kill "$MON_PID" 2>/dev/null || true
lund_stop

# --- an iSCSI session lost longer than its replacement timeout: transport-offline ------------
# LIO's iSCSI target on loopback, two ramdisk LUs, logged in through iscsid with a replacement
# timeout of 3 s; the portal group disabled: the session fails, the LUs are blocked, and when
# the timeout expires the iSCSI transport class takes them to transport-offline through
# scsi_internal_device_unblock_nowait(). Then enabled again: iscsid logs in, the LUs run.
# Patched: one SDEV_STATE=transport-offline uevent per LU (kernel/ patch 7), lund shows both
# transport-offline, keeps their names and sees them running again. Stock: the same states,
# no event, lund's view stays running. Results iscsi.* go into kernel/test.sh's table.
# (Not lio_up: it loads tcm_loop, which the patched scsi_mod's CRCs would refuse.)
. /vm/guest/lio-lib.sh
modprobe -a configfs target_core_mod
grep -qs ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
lio_ramdisks 2
lio_iscsi_target
lio_export_ramdisks 2
lio_map 0; lio_map 1
LIO_REPLACEMENT_TMO=3 lio_iscsid_login
vm_wait_until 30 lio_nlus_is 2 || vm_fail "iscsi: 2 LUs expected after the login, have $(lio_nlus)"
IH=$(lio_host)
ILUS=$(lio_lus | xargs)
S=$(ls -d /sys/class/iscsi_session/session* | head -n1)
vm_assert_eq 3 "$(cat "$S/recovery_tmo")" "iscsi: the session's replacement timeout is 3 s"
: >/tmp/sdev_state
uevent sh -c '[ -n "$SDEV_STATE" ] && echo "${DEVPATH##*/} $SDEV_STATE" >>/tmp/sdev_state' &
SST_PID=$!
lund_start
# istates: the kernel's states of the iSCSI LUs, distinct, joined by "+"; lstates: lund's
# (lunctl list)
joined() { sort -u | xargs | tr ' ' +; }
istates() { for l in $ILUS; do cat "/sys/bus/scsi/devices/$l/state"; done | joined; }
lstates() { lunctl list -n -r -o HCTL,STATE | grep "^$IH:" | cut -d' ' -f2 | joined; }
inames() { lunctl list -n -r -o HCTL,NAMES | grep "^$IH:" || true; }
ilinks() { for l in /dev/scsi/by-id/*; do echo "${l##*/} $(readlink "$l")"; done; }
vm_wait_until 30 sh -c "[ \$(lunctl list -n -r -o HCTL | grep -c '^$IH:') -eq 2 ]" || true
vm_assert_eq running "$(lstates)" "iscsi: lund has both LUs, running"
inames >/tmp/inames.before; ilinks >/tmp/ilinks.before
vm_assert "iscsi: lund named both LUs" [ "$(wc -l </tmp/inames.before)" -eq 2 ]
lunctl monitor --event lu-state >/tmp/imon.out 2>&1 &
IMON_PID=$!
sleep 0.5
echo 0 >"$LIO_TPG/enable"
t_off=$(date +%s)
vm_wait_until 30 sh -c "for l in $ILUS; do grep -qx transport-offline /sys/bus/scsi/devices/\$l/state || exit 1; done" || true
vm_result iscsi.lus=$(echo $ILUS | wc -w) iscsi.state="$(istates)" \
	iscsi.offline_secs=$(( $(date +%s) - t_off ))
if [ "$patched" = 1 ]; then
	vm_wait_until 5 sh -c '[ $(wc -l </tmp/sdev_state) -ge 2 ]' || true
	vm_wait_until 5 sh -c "[ \"\$(lunctl list -n -r -o HCTL,STATE | grep '^$IH:' | cut -d' ' -f2 | sort -u | xargs)\" = transport-offline ]" || true
else
	sleep 3
fi
vm_result iscsi.events=$(wc -l </tmp/sdev_state) \
	iscsi.event_lus=$(cut -d' ' -f1 /tmp/sdev_state | sort -u | wc -l) \
	iscsi.sdev_state="$(cut -d' ' -f2 /tmp/sdev_state | joined)" \
	iscsi.lund_state="$(lstates)" \
	iscsi.lund_logged=$(grep -c 'state running -> transport-offline (uevent), names kept' "$LUND_LOG.new")
vm_log "iscsi: SDEV_STATE events: $(xargs </tmp/sdev_state)"
vm_assert_eq transport-offline "$(istates)" "iscsi: replacement timeout expired: LUs transport-offline"
if [ "$patched" = 1 ]; then
	vm_assert_eq "$(echo $ILUS | tr ' ' '\n' | sed 's/$/ transport-offline/')" \
		"$(sort /tmp/sdev_state)" "iscsi: one SDEV_STATE=transport-offline event per LU"
	vm_assert_eq transport-offline "$(lstates)" "iscsi: lunctl list shows them transport-offline"
	vm_assert_eq 2 "$(grep -c 'state running -> transport-offline (uevent), names kept' "$LUND_LOG.new")" \
		"iscsi: lund logged each once"
else
	vm_assert_eq 0 "$(wc -l </tmp/sdev_state)" "iscsi: stock kernel: no SDEV_STATE event"
	# idle LUs: their state is read with their counters by the 12th-round sweep (60 s), so
	# lund may show them either way yet
	case "$(lstates)" in
	running | transport-offline) vm_log "iscsi: stock kernel: lund shows $(lstates)" ;;
	*) vm_fail "iscsi: stock kernel: lund shows $(lstates)" ;;
	esac
fi
vm_assert_eq "$(cat /tmp/inames.before)" "$(inames)" "iscsi: transport-offline, the LUs keep their names"
vm_assert_eq "$(cat /tmp/ilinks.before)" "$(ilinks)" "iscsi: and their links"
echo 1 >"$LIO_TPG/enable"
t_on=$(date +%s)
vm_wait_until 60 grep -q LOGGED_IN "$S/state" || true
vm_wait_until 20 sh -c "[ \"\$(for l in $ILUS; do cat /sys/bus/scsi/devices/\$l/state; done | sort -u | xargs)\" = running ]" || true
vm_result iscsi.state_back="$(istates)" iscsi.back_secs=$(( $(date +%s) - t_on ))
# lund re-reads the state of LUs not running every 2 s (no event says they came back)
{ vm_wait_until 10 sh -c "[ \"\$(lunctl list -n -r -o HCTL,STATE | grep '^$IH:' | cut -d' ' -f2 | sort -u | xargs)\" = running ]" || true; }
sleep 0.5
vm_result iscsi.lund_state_back="$(lstates)" iscsi.events_in_all=$(wc -l </tmp/sdev_state) \
	iscsi.monitor_events=$(grep -c 'lu-state' /tmp/imon.out) \
	iscsi.names_kept=$( [ "$(cat /tmp/inames.before)" = "$(inames)" ] &&
		[ "$(cat /tmp/ilinks.before)" = "$(ilinks)" ] && echo yes || echo no)
vm_assert_eq "$ILUS" "$(lio_lus | xargs)" "iscsi: no LU removed or added"
vm_assert_eq running "$(istates)" "iscsi: portal back: the LUs run again"
vm_assert_eq running "$(lstates)" "iscsi: lund sees them running again"
cat /tmp/imon.out >&2
kill "$IMON_PID" 2>/dev/null || true
lund_stop
# a logout of the running session removes the LUs without taking them offline: no event
n0=$(wc -l </tmp/sdev_state)
iscsiadm -m node -T "$LIO_IQN" --logout >/dev/null 2>&1 || true
vm_wait_until 10 lio_nlus_is 0 || true
sleep 0.5
vm_result iscsi.logout_lus=$(lio_nlus) iscsi.logout_events=$(( $(wc -l </tmp/sdev_state) - n0 ))
kill "$SST_PID" 2>/dev/null || true

if [ "$patched" = 0 ]; then
	# --- stock: the patchset's knobs are reported missing, once --------------------------
	vm_assert_eq 1 "$notes" "one note naming the missing knobs"
	vm_assert_eq "Missing on this kernel: retry_limit, failfast, evt_error, evt_error_burst, evt_error_interval_ms." \
		"$(lunctl policy "$DEV" | grep '^Missing')" "missing knobs named"
	for k in retry_limit failfast evt_error; do
		vm_assert_eq "(not supported by this kernel)" \
			"$(lunctl policy "$DEV" | sed -n "s/^  $k  *//p")" "$k shown as not supported"
	done
	vm_assert "json: patchset false" sh -c "echo '$json' | grep -q '\"patchset\":false'"
	vm_assert "json: retry_limit, failfast missing" \
		sh -c "echo '$json' | grep -q '\"missing\":\[\"retry_limit\",\"failfast\",'"
	lp "$DEV" >/dev/null
	vm_assert "the note names the companion patchset" grep -q 'companion patchset (kernel/' /tmp/lp.out
	vm_assert_eq 2 "$(lp "$DEV" retry_limit=1)" "setting retry_limit on stock: exit 2"
	vm_assert "its message names the patchset" grep -q 'companion patchset adds it' /tmp/lp.out
	vm_assert_eq 2 "$(lp "$DEV" max_retries=2 failfast=transport)" \
		"max_retries with failfast on stock: exit 2"
	vm_assert_eq 5 "$(attr "$MR")" "... and max_retries left as it was"

	# --- stock: max_retries through lunctl, attempts from the kernel ---------------------
	vm_result sd.max_retries.default=$(attr "$MR")
	vm_assert_eq 0 "$(lp "$DEV" max_retries=2)" "lunctl policy max_retries=2"
	vm_assert_eq 2 "$(attr "$MR")" "sd max_retries reads 2"
	a=$(transport_attempts); vm_result transport.max_retries_2.attempts=$a
	vm_assert_eq 3 "$a" "transport error, max_retries=2: attempts"
	vm_assert_eq 0 "$(lp "$SD" max_retries=0)" "lunctl policy <sysfs path> max_retries=0"
	vm_assert_eq 0 "$(attr "$MR")" "sd max_retries reads 0"
	a=$(transport_attempts); vm_result transport.max_retries_0.attempts=$a
	vm_assert_eq 1 "$a" "transport error, max_retries=0: attempts"

	# --- stock: bad values rejected before the kernel sees them --------------------------
	# (the stock kernel itself takes max_retries=-5: kernel/0001 fixes that)
	vm_assert_eq 1 "$(lp "$DEV" max_retries=-5)" "max_retries=-5: exit 1"
	vm_assert_eq 0 "$(attr "$MR")" "... max_retries unchanged"
	vm_assert_eq 1 "$(lp "$DEV" max_retries=6)" "max_retries=6: exit 1"
	vm_assert_eq 1 "$(lp "$DEV" max_retries=abc)" "max_retries=abc: exit 1"
	vm_assert_eq 1 "$(lp "$DEV" timeout=60 max_retries=9)" "timeout=60 max_retries=9: exit 1"
	vm_assert_eq 30 "$(attr "$SD/timeout")" "... timeout unchanged (nothing written)"
	vm_assert_eq 0 "$(attr "$MR")" "... max_retries unchanged"
	vm_assert_eq 1 "$(lp "$DEV" ioerr_cnt=0)" "ioerr_cnt=0 (read-only): exit 1"
	vm_assert_eq 1 "$(lp "$DEV" bogus=1)" "unknown knob: exit 1"
	vm_assert_eq 2 "$(lp /dev/nonexistent)" "missing device: exit 2"
	vm_assert_eq 0 "$(lp "$DEV" max_retries=5)" "max_retries back to 5"

	# --- stock: the daemon says once which knobs are missing, polls the counters ------
	HCTL=$(basename "$SD")
	printf '[defaults]\nmax_retries = 3\nretry_limit = 1\nfailfast = transport\n' >/tmp/lund-err.conf
	lund_start --error-threshold timeout:100/60:log --config /tmp/lund-err.conf
	vm_assert_eq 3 "$(attr "$MR")" "lund.conf max_retries = 3 applied"
	for k in retry_limit failfast; do
		vm_assert "lund.conf $k: named as missing on this kernel" \
			grep -q "$k is not available on this kernel (the lund kernel companion patchset adds it)" "$LUND_LOG.new"
	done
	vm_assert_eq 1 "$(grep -c "lacks the companion patchset's knobs" "$LUND_LOG.new")" \
		"lund names the missing knobs once"
	e0=$(( $(cat "$SD/ioerr_cnt") ))
	a=$(transport_attempts); vm_result daemon.transport.attempts=$a
	de=$(( $(cat "$SD/ioerr_cnt") - e0 )); vm_result daemon.transport.ioerr_cnt_delta=$de
	# lund polls every 5 s
	vm_wait_until 12 sh -c "lunctl status | grep -q '^  $HCTL: ioerr_cnt +[1-9]'" || true
	st=$(lunctl status | grep "^  $HCTL:" || true)
	vm_log "lunctl status: $st"
	vm_assert_eq "  $HCTL: ioerr_cnt +$de, iotmo_cnt +0 since lund started (no error events on this kernel: polled)" \
		"$st" "lunctl status shows the kernel's ioerr_cnt growth"
	lund_stop
	echo 5 >"$MR"
	vm_done
fi

# --- patched -------------------------------------------------------------------------------
vm_assert_eq 0 "$notes" "no missing-knob note on the patched kernel"
vm_assert "json: patchset true" sh -c "echo '$json' | grep -q '\"patchset\":true'"
vm_assert "json: nothing missing" sh -c "echo '$json' | grep -q '\"missing\":\[\]'"
vm_assert_eq default "$(lunctl policy "$DEV" | sed -n 's/^  retry_limit  *//p')" "retry_limit shown"

EV=/tmp/events
: >"$EV"
uevent sh -c '[ -n "$SDEV_ERROR" ] && env | grep "^SDEV_ERROR" | sort | tr "\n" " " >>/tmp/events && echo >>/tmp/events' &
UEV_PID=$!
sleep 0.5

a=$(transport_attempts); vm_result transport.default.attempts=$a
vm_assert_eq 6 "$a" "transport error, defaults (sd max_retries 5): attempts"

vm_assert_eq 0 "$(lp "$DEV" retry_limit=1 failfast=transport evt_error=1)" \
	"lunctl policy retry_limit=1 failfast=transport evt_error=1"
cat /tmp/lp.out >&2
vm_assert_eq 1 "$(attr "$SD/retry_limit")" "kernel retry_limit reads 1"
vm_assert_eq transport "$(attr "$SD/failfast")" "kernel failfast reads transport"
vm_assert_eq 1 "$(attr "$SD/evt_error")" "kernel evt_error reads 1"

n0=$(wc -l <"$EV")
a=$(transport_attempts); vm_result transport.retry_limit_1_failfast_transport.attempts=$a
vm_assert_eq 1 "$a" "transport error, failfast=transport: attempts (no retry)"
vm_wait_until 5 sh -c "[ \$(wc -l <$EV) -gt $n0 ]" || true
vm_assert_eq 1 "$(( $(wc -l <"$EV") - n0 ))" "one SDEV_ERROR event"
ev=$(tail -n1 "$EV")
vm_log "event: $ev"
vm_assert "event class transport" sh -c "echo '$ev' | grep -q 'SDEV_ERROR_CLASS=transport '"

vm_assert_eq 0 "$(lp "$DEV" failfast=none)" "lunctl policy failfast=none"
vm_assert_eq none "$(attr "$SD/failfast")" "kernel failfast reads none"
a=$(transport_attempts); vm_result transport.retry_limit_1.attempts=$a
vm_assert_eq 2 "$a" "transport error, retry_limit=1: attempts (1 + 1 retry)"

vm_assert_eq 0 "$(lp "$DEV" retry_limit=0)" "lunctl policy retry_limit=0"
a=$(transport_attempts); vm_result transport.retry_limit_0.attempts=$a
vm_assert_eq 1 "$a" "transport error, retry_limit=0: attempts"

vm_assert_eq 0 "$(lp "$DEV" failfast=device,transport)" "failfast=device,transport"
vm_assert_eq "transport device" "$(attr "$SD/failfast")" "kernel failfast reads transport device"
vm_assert_eq 0 "$(lp "$DEV" failfast=none retry_limit=1)" "failfast=none retry_limit=1"

# --- patched: bad values, attributes unchanged --------------------------------------------
vm_assert_eq 1 "$(lp "$DEV" retry_limit=256)" "retry_limit=256: exit 1"
vm_assert_eq 1 "$(attr "$SD/retry_limit")" "... retry_limit unchanged"
vm_assert_eq 1 "$(lp "$DEV" retry_limit=-1)" "retry_limit=-1: exit 1"
vm_assert_eq 1 "$(lp "$DEV" retry_limit=abc)" "retry_limit=abc: exit 1"
vm_assert_eq 1 "$(lp "$DEV" retry_limit=3 failfast=bogus)" "retry_limit=3 failfast=bogus: exit 1"
vm_assert_eq 1 "$(attr "$SD/retry_limit")" "... retry_limit unchanged (nothing written)"
vm_assert_eq none "$(attr "$SD/failfast")" "... failfast unchanged"
vm_assert_eq 1 "$(lp "$DEV" "failfast=none transport")" "failfast='none transport': exit 1"
vm_assert_eq 1 "$(lp "$DEV" failfast=)" "failfast='': exit 1"
vm_assert_eq 1 "$(lp "$DEV" evt_error=2)" "evt_error=2: exit 1"
vm_assert_eq 1 "$(attr "$SD/evt_error")" "... evt_error unchanged"
vm_assert_eq 1 "$(lp "$DEV" evt_error_burst=0)" "evt_error_burst=0: exit 1"
vm_assert_eq 10 "$(attr "$SD/evt_error_burst")" "... evt_error_burst unchanged"
vm_assert_eq 1 "$(lp "$DEV" max_retries=-5)" "max_retries=-5: exit 1"
vm_assert_eq 5 "$(attr "$MR")" "... max_retries unchanged"
vm_assert_eq 0 "$(lp "$DEV" evt_error_burst=3 evt_error_interval_ms=60000)" "burst 3/60 s"
vm_assert_eq 60000 "$(attr "$SD/evt_error_interval_ms")" "kernel evt_error_interval_ms reads 60000"
vm_assert_eq 0 "$(lp "$DEV" retry_limit=default evt_error=0)" "back to defaults"
vm_assert_eq default "$(attr "$SD/retry_limit")" "kernel retry_limit reads default"

# --- patched: lund counts the kernel's per-class counters (the default) ----------------------
# No event is switched on; errors/<class> is polled (every 5 s), its growth logged with the
# class and counted for `lunctl status` and the threshold: with transport:2/60:offline the LU
# goes offline at the second transport error.
HCTL=$(basename "$SD")
echo 0 >"$SD/evt_error"
vm_assert_eq 0 "$(lp "$DEV" retry_limit=0)" "retry_limit=0 (one command per error)"
lund_start --error-threshold transport:2/60:offline
vm_assert_eq 0 "$(attr "$SD/evt_error")" "counters: lund left evt_error off"
n0=$(wc -l <"$EV")
t0=$(attr "$SD/errors/transport")
a=$(transport_attempts); vm_result daemon.counters_1.attempts=$a
vm_wait_until 15 sh -c "lunctl status | grep -q '^  $HCTL: 1 errors'" || true
vm_assert_eq "  $HCTL: 1 errors (transport 1), 0 suppressed by the kernel, 0 malformed, 0 threshold actions" \
	"$(lunctl status | grep "^  $HCTL:" || true)" "counters: lunctl status counts the transport error"
vm_assert_eq 1 "$(grep -c "Commands failed: class=transport +1 (kernel counter errors/transport: $((t0 + 1)))" "$LUND_LOG.new")" \
	"counters: lund logged the growth with its class"
vm_assert_eq "\"counters\"" "$(lunctl status --json | tr -d ' \n' | grep -o '"source":"[a-z]*"' | head -n1 | cut -d: -f2)" \
	"counters: status --json says where the count came from"
a=$(transport_attempts); vm_result daemon.counters_2.attempts=$a
vm_wait_until 15 sh -c "[ \"\$(cat $SD/state)\" = offline ]" || true
vm_assert_eq offline "$(attr "$SD/state")" "counters: second transport error within 60 s: LU offline"
vm_assert_eq 0 "$(( $(wc -l <"$EV") - n0 ))" "counters: no SDEV_ERROR event was sent"
lund_stop
echo running >"$SD/state"

# --- patched: lund consumes the error events (--error-events) -------------------------------
# It switches evt_error on by itself, counts each event per LU for `lunctl status`, and with
# --error-threshold transport:2/60:offline sets the LU offline at the second transport error.
echo 0 >"$SD/evt_error"
lund_start --error-events --error-threshold transport:2/60:offline
vm_assert_eq 1 "$(attr "$SD/evt_error")" "lund switched evt_error on"
a=$(transport_attempts); vm_result daemon.transport_1.attempts=$a
vm_wait_until 5 sh -c "lunctl status | grep -q '^  $HCTL: 1 errors'" || true
st=$(lunctl status | grep "^  $HCTL:" || true)
vm_log "lunctl status: $st"
vm_assert_eq "  $HCTL: 1 errors (transport 1), 0 suppressed by the kernel, 0 malformed, 0 threshold actions" \
	"$st" "lunctl status counts the transport error"
vm_assert_eq 1 "$(grep -c 'Command failed: class=transport retryable=yes errno=5 sense=0b/4b/03 opcode=0x28 sector=0' "$LUND_LOG.new")" \
	"lund logged the failure with class, sense and sector"
vm_assert_eq running "$(attr "$SD/state")" "one transport error: LU still running"
a=$(transport_attempts); vm_result daemon.transport_2.attempts=$a
vm_wait_until 5 sh -c "[ \"\$(cat $SD/state)\" = offline ]" || true
vm_assert_eq offline "$(attr "$SD/state")" "second transport error within 60 s: lund set the LU offline"
vm_assert_eq 1 "$(lunctl status --json | tr -d ' \n' | grep -o '"threshold_actions":[0-9]*' | head -n1 | cut -d: -f2)" \
	"status: one threshold action"
vm_assert_eq "$(attr "$SD/errors/transport")" \
	"$(lunctl status --json | tr -d ' \n' | grep -o '"kernel_classes":{[^}]*}' | grep -o '"transport":[0-9]*' | cut -d: -f2)" \
	"status --json: lund reads the kernel's errors/transport count"
vm_assert_eq "    kernel counters: transport $(attr "$SD/errors/transport")" \
	"$(lunctl status | grep -A1 "^  $HCTL:" | sed -n 2p)" \
	"status shows the kernel's per-class counters"
grep -E 'Command failed|errors within' "$LUND_LOG.new" >&2 || true
lund_stop
echo running >"$SD/state"
lp "$DEV" retry_limit=default >/dev/null

# --- patched: lund.conf sets retry_limit and failfast per LU --------------------------------
printf '[defaults]\nretry_limit = 2\nfailfast = device transport\n' >/tmp/lund-err.conf
lund_start --config /tmp/lund-err.conf
vm_assert_eq 2 "$(attr "$SD/retry_limit")" "lund.conf retry_limit = 2 applied"
vm_assert_eq "transport device" "$(attr "$SD/failfast")" "lund.conf failfast applied"
a=$(transport_attempts); vm_result daemon.conf_failfast_transport.attempts=$a
vm_assert_eq 1 "$a" "transport error under lund.conf's failfast: attempts"
lund_stop
lp "$DEV" failfast=none >/dev/null
printf '[defaults]\nretry_limit = 300\nfailfast = bogus\n' >/tmp/lund-err.conf
lund_start --config /tmp/lund-err.conf
vm_assert_eq 2 "$(attr "$SD/retry_limit")" "lund.conf retry_limit = 300 refused, unchanged"
vm_assert_eq none "$(attr "$SD/failfast")" "lund.conf failfast = bogus refused, unchanged"
for k in retry_limit failfast; do
	vm_assert "lund.conf's bad $k logged as invalid" grep -q "invalid $k" "$LUND_LOG.new"
done
lund_stop
lp "$DEV" retry_limit=default >/dev/null

kill "$UEV_PID" 2>/dev/null || true
vm_done
