#!/bin/bash
# admin-session: lunctl as an admin scripts it, next to lsscsi and udevadm, under udevd where
# udev makes lund's links (rules/59-lund.rules; lund(8), "When udev makes the links"):
#  - `lunctl list` on an 80-column terminal: a line per LU, none wider than the terminal;
#  - a scsi_debug host hot-added (vpd_use_hostno=1: LUs with IDs of their own), then
#    `lunctl settle && ls /dev/scsi/by-id`: each new disk's names are there when settle returns,
#    not only once udev gets to them, also when udevd has not read the hot-add's events yet
#    (held with SIGSTOP), and `--timeout` bounds the wait for udevd;
#  - `lunctl list` against Debian 13's lsscsi 0.32 field by field, on a terminal and in pairs,
#    and every lsscsi option taken or refused with a hint (guest/lsscsi-lib.sh; naming-peers
#    holds the same against Debian 12's lsscsi 0.31);
#  - `lunctl rescan --dry-run`, `lunctl reload`, `lunctl status` (paths are no collisions) and
#    `lunctl names --diff` (nothing recorded yet: exit 0, then 0 after --accept --all).
# vm-flavour: udev-root
# vm-topology: san
# vm-timeout: 660
# vm-release: 13
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
n_lus() { ls -d /sys/bus/scsi/devices/*:*:*:* | wc -l; }

san_up
udevadm settle --timeout=180 || vm_log "note: udev's queue not empty after 180 s"
vm_sync RULES 60
[ -r /vm/out/59-lund.rules ] || vm_fail "the host did not provide rules/59-lund.rules"
sed -e "s|@BINDIR@|/usr/local/bin|g" -e "s|@RUNDIR@|$LUND_RUN|g" /vm/out/59-lund.rules \
	>/etc/udev/rules.d/59-lund.rules
udevadm control --reload
lund_start
lunctl settle --timeout 180 || vm_fail "lunctl settle after start-up: exit $?"
lunctl settle --json >/tmp/settle.json || vm_fail "lunctl settle --json: exit $?"
vm_assert "lund says udev makes its links" grep -q '"udev_links": true' /tmp/settle.json

# list: a line per LU at 80 columns, as lsscsi
COLUMNS=80 script -qec "lunctl list" /dev/null | tr -d '\r' >/tmp/list.tty
vm_assert_eq $(($(n_lus) + 1)) "$(wc -l </tmp/list.tty)" "lunctl list at 80 columns: a line per LU and the heading"
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' /tmp/list.tty)
vm_assert "lunctl list at 80 columns: no line wider ($w)" [ "$w" -le 80 ]
vm_assert_eq "$(lsscsi | wc -l)" "$(($(wc -l </tmp/list.tty) - 1))" "lunctl list and lsscsi: as many lines"

# names_missing H: the disks of SCSI host H ($disks) and how many of them have no name in
# /dev/scsi/by-id yet ($missing)
names_missing() {
	missing=0 disks=0
	for d in /sys/bus/scsi/devices/$1:*:*:*; do
		b=$(ls "$d/block" 2>/dev/null) || continue
		disks=$((disks + 1))
		ls -l /dev/scsi/by-id/ | grep -q " -> \.\./\.\./$b\$" || {
			missing=$((missing + 1))
			vm_log "after settle: no /dev/scsi/by-id name of $b (${d##*/}) yet"
		}
	done
}
newest_host() { ls -d /sys/class/scsi_host/host* | sed 's/.*host//' | sort -n | tail -n1; }
# add_lus: one more scsi_debug host, its LUs in sysfs
add_lus() {
	local before=$(n_lus)
	echo 1 >$SD/add_host
	vm_wait_until 20 sh -c "[ \$(ls -d /sys/bus/scsi/devices/*:*:*:* | wc -l) -ge $((before + 4)) ]" ||
		vm_fail "scsi_debug add_host: no new LUs in sysfs"
}

# settle under udevd: the new LUs' names exist as soon as settle returns
echo 1 >$SD/vpd_use_hostno
add_lus
t0=$(vm_uptime_ms)
lunctl settle --timeout 180 || vm_fail "lunctl settle after add_host: exit $?"
t1=$(vm_uptime_ms)
host=$(newest_host)
names_missing $host
vm_assert_ge 1 "$disks" "disks on the new host$host"
vm_assert_eq 0 "$missing" "new disks without their names when lunctl settle returned"
vm_result "settle_ms=$((t1 - t0)) disks=$disks"

# The race `udevadm settle` closes by asking udevd first (its control socket): udevd creates
# /run/udev/queue only once it has read an event from the kernel, so right after a hot-add the
# file can be missing while udevd has not got to the events yet (a busy machine). Widened here:
# udevd's main process held (SIGSTOP) across the hot-add and let go 6 s later, long after lund
# is done. A settle that trusts the file returns before udev has read a single event; settle
# must wait for udevd, and still return by its --timeout while udevd cannot answer.
udevd=$(for p in $(pidof systemd-udevd); do
	[ "$(cut -d' ' -f4 /proc/$p/stat)" = 1 ] && echo $p
done)
vm_assert "udevd's main process found ($udevd)" test -n "$udevd"
for round in 1 2; do
	udevadm settle --timeout=180 # each round from an empty queue (the one before left events)
	kill -STOP $udevd
	add_lus
	rc=0 t0=$(vm_uptime_ms)
	lunctl settle --timeout 2 2>/tmp/settle.err || rc=$?
	t1=$(vm_uptime_ms)
	vm_assert_eq 2 "$rc" "round $round: lunctl settle --timeout 2 before udevd read the events ($(cat /tmp/settle.err))"
	vm_assert "round $round: lunctl settle --timeout 2 returned after $((t1 - t0)) ms" [ $((t1 - t0)) -lt 5000 ]
	(sleep 6; kill -CONT $udevd) &
	cont=$!
	t0=$(vm_uptime_ms)
	lunctl settle --timeout 180 || vm_fail "round $round: lunctl settle with udevd held: exit $?"
	t1=$(vm_uptime_ms)
	host=$(newest_host)
	names_missing $host
	wait $cont
	kill -CONT $udevd
	vm_assert_ge 1 "$disks" "round $round: disks on the new host$host"
	vm_assert_eq 0 "$missing" "round $round: new disks without their names when lunctl settle returned (udevd held 6 s)"
	vm_result "settle_held${round}_ms=$((t1 - t0))"
done

# lunctl list against this release's lsscsi, field by field
. /vm/guest/lsscsi-lib.sh
lsscsi_compare

# the rest of the session: each reads as lsscsi/udevadm users expect
lunctl rescan --dry-run >/tmp/rescan.txt 2>&1 || vm_fail "lunctl rescan --dry-run: exit $?: $(tail -n3 /tmp/rescan.txt)"
lunctl reload >/tmp/reload.txt || vm_fail "lunctl reload: exit $?"
vm_assert "lunctl reload reports" grep -q '^lund reloaded its configuration' /tmp/reload.txt
lunctl status >/tmp/status.txt || vm_fail "lunctl status: exit $?"
grep -q '^Paths: .* over .* paths' /tmp/status.txt || vm_log "lunctl status: no paths"
vm_assert "lunctl status: no collision between the SAN's LUs" grep -q '^Collisions: *0$' /tmp/status.txt
rc=0; lunctl names --diff >/tmp/diff.txt || rc=$?
vm_assert_eq 0 "$rc" "lunctl names --diff on a fresh install"
vm_assert "lunctl names --diff says to accept first" grep -q 'lunctl names --accept --all' /tmp/diff.txt
lunctl names --accept --all || vm_fail "lunctl names --accept --all: exit $?"
rc=0; lunctl names --diff >/tmp/diff.txt || rc=$?
vm_assert_eq 0 "$rc" "lunctl names --diff after --accept --all"
vm_done
