#!/bin/sh
# daemon-collision: two LUs with one ID. The SAN's scsi_debug has two hosts with
# vpd_use_hostno=0 (every LU of host A has the IDs of its twin on host B) and a disk seen on
# two HBAs (virtio-scsi and lsi) without multipath. Every name wanted by more than one LU must
# be linked to the lowest H:C:T:L, listed by `lunctl names --collisions` and counted in
# `lunctl status`, and the loser's `lunctl names` must say so. The expected collisions are
# computed from sysfs and lunctl list (guest/daemon-lib.sh), not taken from lund. Then the twin
# host goes and comes back (events, not a resync): the winner must not change.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 200
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug

# collisions_match LABEL: lunctl names --collisions --json against the computed set
collisions_from_lund() {
	lunctl names --collisions --json | awk '
		/"path": *"/ { p = $0; sub(/.*"path": *"/, "", p); sub(/".*/, "", p) }
		/"winner": *"/ { w = $0; sub(/.*"winner": *"/, "", w); sub(/".*/, "", w); print p "\t" w }
	' | sort
}
collisions_match() {
	daemon_tree_matches || return 1
	daemon_expected_collisions | cut -f1,2 >/tmp/coll.exp
	collisions_from_lund >/tmp/coll.act
	cmp -s /tmp/coll.exp /tmp/coll.act
}
check_collisions() {
	if vm_wait_until 30 collisions_match; then
		vm_log "ok: $1: $(wc -l </tmp/coll.exp) collisions, all reported with the right winner"
	else
		vm_fail "$1: collisions reported by lunctl differ from the computed ones"
		diff /tmp/coll.exp /tmp/coll.act | head -n 20 || true
		diff /tmp/tree.exp /tmp/tree.act | head -n 10 || true
	fi
}

san_up
lund_start
daemon_check_tree "start"
check_collisions "start"
n=$(wc -l </tmp/coll.exp)
# 8 scsi_debug LUs in 4 twin pairs x (scsi- + wwn-) x (name + -sg) = 16; the two-path disk 4
vm_assert_ge 20 "$n" "collisions computed"
vm_assert_eq "$n" "$(lunctl status --json | grep -c '"winner"')" "collisions counted by lunctl status"
lunctl status | grep -q "^Collisions: *$n\$" || vm_fail "lunctl status: no 'Collisions: $n' line"
grep -q 'wanted by 2 logical units' "$LUND_LOG.new" || vm_fail "no collision in lund's log"

# a loser's view: names shows the name taken by the other LU
line=$(head -n1 /tmp/coll.exp)
path=$(echo "$line" | cut -f1); winner=$(echo "$line" | cut -f2)
loser=$(awk -F'\t' -v p="${path##*/}" -v w="$winner" '$1 == p && $4 != w { print $4; exit }' /tmp/exp.all)
lunctl names "$loser" >/tmp/names.loser || vm_fail "lunctl names $loser failed"
vm_assert "lunctl names $loser: $path in collision" grep -q "^collision *$path " /tmp/names.loser
lunctl names "$winner" >/tmp/names.winner || vm_fail "lunctl names $winner failed"
vm_assert "lunctl names $winner: $path linked" grep -q "^linked *$path " /tmp/names.winner
vm_result "collisions=$n example=${path##*/} winner=$winner loser=$loser"

# the twin host goes: its collisions go with it; it comes back through uevents: same winners
last=$(ls -d /sys/bus/pseudo/devices/adapter* | sort | tail -n1)
echo -1 >$SD/add_host
vm_wait_until 20 sh -c "[ ! -e $last ]" || vm_fail "scsi_debug host not removed"
check_collisions "twin host removed"
vm_assert_eq $((n - 16)) "$(wc -l </tmp/coll.exp)" "collisions left (the two-path disk)"
echo 1 >$SD/add_host
vm_wait_until 20 sh -c "[ \$(ls -d /sys/bus/scsi/devices/*:*:*:* | wc -l) -ge 28 ]" ||
	vm_fail "scsi_debug host not re-added"
check_collisions "twin host back"
vm_assert_eq "$n" "$(wc -l </tmp/coll.exp)" "collisions with the twin back"
lunctl status | grep -q "^Resyncs: *0" || vm_log "note: lund resynced: $(lunctl status | grep Resyncs)"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
