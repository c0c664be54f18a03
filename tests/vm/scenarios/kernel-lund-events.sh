#!/bin/sh
# kernel-lund-events: lund on the 7.3 events series (kernel/7.3/events/): the error classes read
# from errors/ (all ten, reservation and zone among them, which v2 did not have), a failure
# counted under its class by polling, and the SDEV_STATE=offline uevent of error recovery
# shown at once, names kept. kernel/test.sh --kernel 7.3 boots it with the patched modules;
# skipped on modules without errors/ (lund on a stock kernel: lund-errpolicy-stock).
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 300
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh
. /vm/guest/kernel-lib.sh
events_disk
rd() { dd if="$DEV" of=/dev/null bs=512 count=1 skip="${1:-0}" iflag=direct; }
inject() { echo "$1" >$SDBG/opts; echo "$2" >$SDBG/every_nth; }
HCTL=$(basename "$SD")
lund_start
lstate() { lunctl list -n -r -o HCTL,STATE | grep "^$HCTL " || true; }
lnames() { lunctl list -n -r -o HCTL,NAMES | grep "^$HCTL " || true; }
vm_assert_eq "$HCTL running" "$(lstate)" "lunctl list shows the LU running"
nm0=$(lnames)

# --- failures counted under their class by polling; the classes lund read ----------------------
kc() { lunctl status --json | tr -d ' \n' | grep -o '"kernel_classes":{[^}]*}'; }
# counted CLASS OPTS EVERY_NTH LBA TOTAL LIST: a read of LBA with scsi_debug's OPTS/EVERY_NTH
# fails for good; the kernel counts it in errors/CLASS, lund logs the growth with the class and
# lunctl status then shows TOTAL errors (LIST)
counted() {
	_c0=$(cat "$SD/errors/$1")
	inject "$2" "$3"
	rd "$4" >/dev/null 2>&1 || true
	inject 0 0
	vm_assert_eq $((_c0 + 1)) "$(cat "$SD/errors/$1")" "the kernel counted the $1 error"
	vm_wait_until 20 sh -c "lunctl status | grep -q '^  $HCTL: $5 errors'" || true
	vm_assert_eq "  $HCTL: $5 errors ($6), 0 suppressed by the kernel, 0 malformed, 0 threshold actions" \
		"$(lunctl status | grep "^  $HCTL: ")" "lunctl status counts it under $1"
	vm_assert_eq 1 "$(grep -c "Commands failed: class=$1 +1 (kernel counter errors/$1: $((_c0 + 1)))" "$LUND_LOG.new")" \
		"lund logged the $1 growth with its class"
	vm_assert_eq "$((_c0 + 1))" "$(kc | grep -o "\"$1\":[0-9]*" | cut -d: -f2)" \
		"status --json: the kernel's errors/$1"
}
counted medium 2 0 4660 1 "medium 1"
# ABORTED COMMAND 4B/03 after sd's retries
counted transport 16 1 0 2 "transport 1, medium 1"
# the classes: lund shows the counters of errors/ as the kernel has them, every class that is not
# zero under its own name (the series' ten names, reservation and zone new; lund(8) ERROR EVENTS)
vm_result "classes=$(ls "$SD/errors" | xargs | tr ' ' ,)"
nonzero=$(for f in "$SD"/errors/*; do [ "$(cat "$f")" = 0 ] || printf '"%s":%s\n' "${f##*/}" "$(cat "$f")"; done | sort | xargs)
vm_assert_eq "$nonzero" "$(kc | sed 's/.*{//; s/}//' | tr ',' '\n' | sort | xargs)" \
	"status --json: every class of errors/ that is not zero, with the kernel's count"

# --- error recovery offlines the device: the SDEV_STATE=offline uevent ------------------------
eh_offline
vm_assert_eq offline "$(cat "$SD/state")" "the kernel's state after error recovery"
vm_wait_until 5 sh -c "lunctl list -n -r -o HCTL,STATE | grep -q '^$HCTL offline\$'" || true
vm_assert_eq "$HCTL offline" "$(lstate)" "lunctl list shows it offline"
vm_assert_eq 1 "$(grep -c 'state running -> offline (uevent), names kept' "$LUND_LOG.new")" \
	"lund took it from the uevent, once"
vm_assert_eq "$nm0" "$(lnames)" "names kept"
eh_restore
vm_wait_until 10 sh -c "lunctl list -n -r -o HCTL,STATE | grep -q '^$HCTL running\$'" || true
vm_assert_eq "$HCTL running" "$(lstate)" "running again"
lund_alive || vm_fail "lund died"
lund_stop
vm_done
