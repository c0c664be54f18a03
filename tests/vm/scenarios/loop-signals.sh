#!/bin/sh
# loop-signals: lund's signals, reload and single instance on the real kernel. SIGHUP with a
# changed lund.conf re-applies the policy (a scsi_debug disk's timeout attribute follows the
# file), a lund.conf that cannot be parsed keeps the old policy, `lunctl reload` does what SIGHUP
# does, SIGUSR1, SIGUSR2 and SIGPIPE leave lund running, a second lund on the same run dir exits
# 1 naming the first's PID, and SIGTERM still ends the first with exit status 0.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 240
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

CONF=/tmp/lund.conf
conf() { printf '[defaults]\ntimeout = %s\n' "$1" >"$CONF"; }

san_up
lu=
for d in /sys/bus/scsi/devices/*:*:*:*; do
	[ "$(cat "$d/type")" = 0 ] && grep -q scsi_debug "$d/model" && { lu=$d; break; }
done
[ -n "$lu" ] || vm_fail "no scsi_debug disk"
vm_log "policy checked on ${lu##*/}"

conf 41
lund_start --config "$CONF" --load-modules never --scan never
vm_assert_eq 41 "$(cat "$lu/timeout")" "timeout from lund.conf at start-up"

conf 52
kill -HUP "$LUND_PID"
vm_wait_until 20 grep -q 'Reloaded the configuration (SIGHUP)' "$LUND_LOG.new" ||
	vm_fail "SIGHUP: no reload logged"
vm_assert_eq 52 "$(cat "$lu/timeout")" "timeout after SIGHUP with a changed lund.conf"

printf '[defaults\ntimeout = 99\n' >"$CONF"
kill -HUP "$LUND_PID"
vm_wait_until 20 grep -q 'keeping the old configuration' "$LUND_LOG.new" ||
	vm_fail "SIGHUP with a broken lund.conf: no refusal logged"
vm_assert_eq 52 "$(cat "$lu/timeout")" "timeout kept after a broken lund.conf"
vm_assert "lund alive after a broken lund.conf" lund_alive

conf 63
out=$(LUND_RUN_DIR=$LUND_RUN lunctl reload 2>&1) || vm_fail "lunctl reload failed: $out"
vm_assert_eq 63 "$(cat "$lu/timeout")" "timeout after lunctl reload"

for sig in USR1 USR2 PIPE; do
	kill -$sig "$LUND_PID"
	sleep 0.5
	vm_assert "lund survives SIG$sig" lund_alive
done
vm_assert "lund answers after the signals" sh -c "LUND_RUN_DIR=$LUND_RUN lunctl status >/dev/null"

rc=0
lund --run-dir "$LUND_RUN" --load-modules never --scan never >/tmp/second.log 2>&1 || rc=$?
vm_assert_eq 1 "$rc" "a second lund on the same run dir exits 1"
vm_assert "the second lund names the first's PID" grep -q "PID $LUND_PID" /tmp/second.log
vm_assert "the first lund still answers" sh -c "LUND_RUN_DIR=$LUND_RUN lunctl status >/dev/null"

kill -TERM "$LUND_PID"
rc=0
wait "$LUND_PID" || rc=$?
cat "$LUND_LOG.new" >>"$LUND_LOG"
LUND_PID=
vm_assert_eq 0 "$rc" "exit status after SIGTERM"
vm_result "reloads=ok second_instance_rc=1"
vm_done
