#!/bin/sh
# scan-add: LUs that exist but that the kernel has not instantiated are added by `lunctl rescan`
# (default: --add), side by side with rescan-scsi-bus.sh -a on the same step.
#  - scsi_debug: max_luns 2 -> 4 (8 new LUs on 2 hosts x 2 targets; the kernel only gets a
#    unit attention, nothing appears by itself);
#  - megasas and lsi53c895a: QMP hot-add (guest blind: those HBAs tell the kernel nothing):
#    megasas a new target, lsi new targets 1 and 5 (QEMU's lsi53c895a has LUN 0 only).
# The step is then undone (the new LUs deleted) and rescan-scsi-bus.sh -a run on it: both must
# give the same device set (H:C:T:L type vendor model). Undone once more with lund running:
# `lunctl rescan` must then be served by lund (its result says so, lund's log has the scan and
# its decisions) and give the same set again, and --direct must scan in lunctl itself.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 420
. /vm/guest/lib.sh
. /vm/guest/scan-lib.sh
. /vm/guest/daemon-lib.sh

san_up
lu_set >/tmp/s0
vm_result "before_lus=$(wc -l </tmp/s0)"

echo 4 >/sys/bus/pseudo/drivers/scsi_debug/max_luns
vm_sync HOTADD 60
sleep 1
lu_set >/tmp/s1
vm_assert_eq "$(wc -l </tmp/s0)" "$(wc -l </tmp/s1)" "guest blind: nothing appeared by itself"

# dry run first: the plan, no change
lunctl rescan --dry-run >/tmp/plan.txt 2>&1 || vm_fail "lunctl rescan --dry-run failed"
cat /tmp/plan.txt
lu_set >/tmp/s1b
vm_assert "dry run changes nothing" cmp -s /tmp/s0 /tmp/s1b
vm_result "dry_run_would_add=$(grep -c '^would add' /tmp/plan.txt)"

time_ms sh -c 'lunctl rescan --json >/tmp/rescan.json'
lunctl_rc=$T_RC lunctl_ms=$T_MS
settle
lu_set >/tmp/lund
new_lus /tmp/s0 /tmp/lund >/tmp/added
cat /tmp/added
vm_result "lund.rc=$lunctl_rc lund.ms=$lunctl_ms lund.added=$(wc -l </tmp/added)"
vm_assert_eq 0 "$lunctl_rc" "lunctl rescan exit status"
vm_assert_eq 11 "$(wc -l </tmp/added)" "LUs added by lunctl rescan (8 scsi_debug + 1 megasas + 2 lsi)"
# lunctl's own summary must count what sysfs shows was added, new targets included
reported=$(sed -n 's/.*"added": *\([0-9]*\).*/\1/p' /tmp/rescan.json | awk '{ n += $1 } END { print n + 0 }')
vm_assert_eq "$(wc -l </tmp/added)" "$reported" "LUs lunctl rescan reports as added"
for h in $(hosts_of scsi_debug); do
	vm_assert_eq 8 "$(lu_set "$h" | wc -l)" "scsi_debug host$h LUs"
done
vm_assert_eq 3 "$(lu_set $(hosts_of megaraid_sas) | wc -l)" "megasas LUs"
vm_assert_eq 4 "$(lu_set $(hosts_of sym53c8xx) | wc -l)" "lsi LUs"
# every added disk got its block device
for l in $(cat /tmp/added); do
	vm_assert "$l has a block device" test -d "/sys/bus/scsi/devices/$l/block"
done
# a second run changes nothing
lunctl rescan >/tmp/again.txt 2>&1 || vm_fail "second lunctl rescan failed"
lu_set >/tmp/lund2
vm_assert "second rescan is a no-op" cmp -s /tmp/lund /tmp/lund2

# the same step for rescan-scsi-bus.sh
delete_lus </tmp/added
settle
lu_set >/tmp/s2
vm_assert "step undone" cmp -s /tmp/s0 /tmp/s2
# Only the hosts that changed: rescan-scsi-bus.sh forks several tools per target and LUN, and
# on all 17 hosts it needs ~5 minutes under TCG, past its bound on a busy machine.
changed=$(echo $(hosts_of scsi_debug) $(hosts_of megaraid_sas) $(hosts_of sym53c8xx) | tr ' ' ,)
time_ms rsb -a --hosts="$changed"
vm_result "rsb.rc=$T_RC rsb.ms=$T_MS rsb.hosts=$changed"
settle
lu_set >/tmp/rsb
vm_result "rsb.added=$(new_lus /tmp/s0 /tmp/rsb | wc -l)"
compare_sets add /tmp/lund /tmp/rsb || vm_fail "device sets differ"
[ "$T_MS" -gt 0 ] && vm_result "speedup_vs_rsb=$((T_MS / (lunctl_ms > 0 ? lunctl_ms : 1)))"

# --- the same step through lund ------------------------------------------------------------
new_lus /tmp/s0 /tmp/rsb | delete_lus
settle
lu_set >/tmp/s3
vm_assert "step undone again" cmp -s /tmp/s0 /tmp/s3
lund_start
time_ms sh -c 'lunctl rescan --json >/tmp/daemon.json 2>/tmp/daemon.err'
vm_result "daemon.rc=$T_RC daemon.ms=$T_MS"
vm_assert_eq 0 "$T_RC" "lunctl rescan through lund: exit status"
vm_assert "result comes from lund" grep -q '"scanned_by": *"lund"' /tmp/daemon.json
settle
lu_set >/tmp/daemon
compare_sets daemon /tmp/lund /tmp/daemon || vm_fail "device sets differ (lund vs lunctl)"
reported=$(sed -n 's/.*"added": *\([0-9]*\).*/\1/p' /tmp/daemon.json | awk '{ n += $1 } END { print n + 0 }')
vm_assert_eq 11 "$reported" "LUs lund reports as added"
vm_assert "lund logged the scan" grep -q 'Scan (request from pid [0-9]*): .* 11 added' "$LUND_LOG.new"
vm_assert_ge 11 "$(grep -c 'scan: add (' "$LUND_LOG.new")" "lund logged each add"
lunctl rescan --direct --json >/tmp/direct.json 2>&1 || vm_fail "lunctl rescan --direct failed"
vm_assert "--direct scans in lunctl" grep -q '"scanned_by": *"lunctl"' /tmp/direct.json
lund_alive || vm_fail "lund died"
lund_stop
grep -E 'Scan \(|scan: ' "$LUND_LOG" | head -n 20
vm_done
