#!/bin/sh
# daemon-coldstart: lund started on a machine whose SAN is already up, with scsi_debug raised
# to 48 LUs so there are more than 64 logical units on mixed HBAs (virtio-scsi, megasas, lsi,
# mptsas, ahci, pvscsi, usb-storage, scsi_debug). Once lund says it is ready, /dev/scsi/by-id
# must be exactly the tree lund(8) promises, computed here from sysfs and `lunctl list`
# (names), including the lowest-H:C:T:L rule for the names the SAN's two scsi_debug hosts
# (vpd_use_hostno=0) and its multipath disk share. A restart must leave the tree unchanged,
# and a start after links were tampered with must recreate lund's removed link and leave what
# someone else put at a name alone. `lunctl list` served by lund must equal its listing from
# sysfs without lund.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 240
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SAN_SCSI_DEBUG="add_host=2 num_tgts=4 max_luns=6 vpd_use_hostno=0 dev_size_mb=8"
san_up --timeout 60
lus=$(n_lus)
vm_assert_ge 64 "$lus" "logical units in sysfs"

t0=$(vm_uptime_ms)
lund_start
t1=$(vm_uptime_ms)
daemon_check_tree "cold start" 5
vm_result "lus=$lus links=$(wc -l </tmp/tree.exp) ready_ms=$((t1 - t0))"

# every LU type of the SAN got names: at least one link per LU that has any name
named=$(cut -f1 /tmp/exp.names | sort -u | wc -l)
linked=$(awk -F'\t' '{ print $2 }' /tmp/tree.act | sort -u | wc -l)
vm_log "LUs with names: $named; distinct link targets: $linked"
vm_assert_ge "$named" "$linked" "distinct nodes linked (>= LUs with names)"

# lunctl list served by lund equals lunctl's own listing from sysfs (LUND_RUN_DIR pointing
# where no daemon listens), apart from the "source" member that says who computed it
lunctl list --json >/tmp/list.lund || vm_fail "lunctl list --json with lund running"
LUND_RUN_DIR=/nonexistent lunctl list --json >/tmp/list.sysfs || vm_fail "lunctl list --json from sysfs"
source_of() { sed -n 's/^  "source": "\(.*\)",$/\1/p' "$1"; }
vm_assert_eq lund "$(source_of /tmp/list.lund)" "source of the listing with lund running"
vm_assert_eq sysfs "$(source_of /tmp/list.sysfs)" "source of the listing without lund"
vm_assert_eq "$lus" "$(grep -c '"hctl"' /tmp/list.lund)" "LUs lund listed"
grep -v '^  "source"' /tmp/list.lund >/tmp/list.lund.body
grep -v '^  "source"' /tmp/list.sysfs >/tmp/list.sysfs.body
if cmp -s /tmp/list.lund.body /tmp/list.sysfs.body; then
	vm_log "ok: lunctl list --json from lund equals the sysfs listing ($lus LUs)"
else
	vm_fail "lunctl list --json from lund differs from the sysfs listing (< lund, > sysfs)"
	diff /tmp/list.lund.body /tmp/list.sysfs.body | head -n 30 || true
fi
lunctl list >/tmp/table.lund || vm_fail "lunctl list with lund running"
LUND_RUN_DIR=/nonexistent lunctl list >/tmp/table.sysfs || vm_fail "lunctl list from sysfs"
vm_assert "lunctl list table from lund equals the sysfs one" cmp -s /tmp/table.lund /tmp/table.sysfs

# restart: nothing changes (the records survive in /run/lund)
cp /tmp/tree.act /tmp/tree.before
lund_stop
lund_start
daemon_check_tree "restart" 5
vm_assert "restart left the tree unchanged" cmp -s /tmp/tree.before /tmp/tree.act

# tamper while lund is down: remove one of its links, point another elsewhere, drop a foreign
# file at a third name. The next start recreates the removed link; the replaced link and the
# file are someone else's now (lund(8): a recorded link someone else replaced is forgotten,
# not touched) and stay as they are.
lund_stop
set -- $(head -n 3 /tmp/tree.act | cut -f1)
rm "$LUND_LINKS/$1"
ln -sfn ../../null "$LUND_LINKS/$2"
rm "$LUND_LINKS/$3"; echo foreign >"$LUND_LINKS/$3"
lund_start
others() {
	daemon_expected | grep -v -e "^$2	" -e "^$3	" >/tmp/tree.exp2
	daemon_actual | grep -v -e "^$2	" -e "^$3	" >/tmp/tree.act2
	cmp -s /tmp/tree.exp2 /tmp/tree.act2
}
if vm_wait_until 5 others "$@"; then
	vm_log "ok: removed link recreated, the rest exact"
else
	vm_fail "tampered tree not repaired"; diff /tmp/tree.exp2 /tmp/tree.act2 | head -n 20 || true
fi
vm_assert_eq ../../null "$(readlink "$LUND_LINKS/$2")" "a link someone else replaced is left alone"
vm_assert_eq foreign "$(cat "$LUND_LINKS/$3" 2>/dev/null)" "foreign file left alone"
lund_alive || vm_fail "lund died"
lund_stop
vm_done
