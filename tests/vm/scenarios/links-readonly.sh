#!/bin/sh
# links-readonly: /dev/scsi/by-id goes read-only (remounted) just before a hot-add burst of
# three scsi_debug hosts, and writable again afterwards (lund(8), LINKS: failed writes).
#  - While it is read-only, every link present is one the expected tree has (none names
#    another device), and lund tells the truth at every look: `lunctl status` counts exactly
#    the names missing from the directory as failed (JSON and its "Names:" line), and `lunctl settle` does not say settled
#    (it expires, naming the failing link writes).
#  - Writable again, lund's retry (with back-off) makes every name without being asked; status
#    then counts none failed and settle returns at once.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 300
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
modprobe -a sd_mod sg
modprobe scsi_debug add_host=1 num_tgts=1 max_luns=2 dev_size_mb=1
vm_wait_until 60 sh -c '[ $(ls /sys/class/scsi_generic | wc -l) -ge 2 ]' || vm_fail "no 2 LUs"

mkdir -p "$LUND_LINKS"
mount -t tmpfs -o mode=755 links-ro "$LUND_LINKS" || vm_fail "tmpfs mount"
lund_start
daemon_check_tree "before the burst" 30

# status_failed: lund's count of names whose write failed (lunctl status --json).
status_failed() {
	lunctl status --json | tr -d ' \n' | sed -n 's/.*"links_failed":\([0-9]*\).*/\1/p'
}
# truthful: no link the expected tree lacks, every LU known, and lund's failed count is the
# number of expected links missing from the directory.
truthful() {
	daemon_expected >/tmp/ro.exp
	daemon_actual >/tmp/ro.act
	wrong=$(grep -cvxFf /tmp/ro.exp /tmp/ro.act)
	missing=$(grep -cvxFf /tmp/ro.act /tmp/ro.exp)
	failed=$(status_failed)
	[ "$wrong" -eq 0 ] && [ "$(n_lus)" -eq 8 ] && [ "${failed:--1}" -eq "$missing" ]
}

mount -o remount,ro "$LUND_LINKS" || vm_fail "remount read-only"
echo 3 >"$SD/add_host"
vm_wait_until 60 sh -c '[ $(ls /sys/class/scsi_generic | wc -l) -ge 8 ]' || vm_fail "no 8 LUs after the burst"
vm_wait_until 60 truthful || vm_fail "read-only: status never matched the directory (failed=$failed missing=$missing wrong=$wrong)"
vm_log "read-only: $missing names missing, $failed failed by lund's count"
vm_assert "names are missing while read-only" [ "$missing" -gt 0 ]
# Every look while read-only: lund keeps retrying (back-off), the truth stays the same.
looks=0
for i in 1 2 3 4 5; do
	sleep 2
	truthful || vm_fail "read-only, look $i: wrong=$wrong missing=$missing failed=$failed"
	looks=$((looks + 1))
done
lunctl status | grep -q "^Names: .*, $failed failed (retried)" ||
	vm_fail "lunctl status does not say $failed names failed: $(lunctl status | grep '^Names')"
rc=0
lunctl settle --timeout 3 >/tmp/settle.out 2>&1 || rc=$?
vm_assert "settle does not say settled while names cannot be written (rc $rc)" [ "$rc" -ne 0 ]
grep -qi "link" /tmp/settle.out || vm_fail "settle's message does not name the link writes: $(cat /tmp/settle.out)"
grep -q "Retrying .* link writes that failed" "$LUND_LOG.new" || vm_fail "no retry logged while read-only"

mount -o remount,rw "$LUND_LINKS" || vm_fail "remount read-write"
# The back-off doubles from 1 s: after ~30-60 s read-only the next retry is at most ~64 s away.
daemon_check_tree "writable again, retried by lund" 150
vm_assert_eq 0 "$(status_failed)" "no name counted as failed once written"
vm_assert "settle returns once every name is written" lunctl settle --timeout 30
vm_result "ro_missing=$missing ro_failed=$failed ro_looks=$looks settle_rc_ro=$rc"
lund_stop
vm_done
