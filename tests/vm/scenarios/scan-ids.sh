#!/bin/sh
# scan-ids: `lunctl rescan --update` compares each LU's INQUIRY strings and VPD page 0x83 with what
# the kernel cached, and rescans those that changed; lund, running, re-derives their IDs on the
# change uevent the scan sends.
#  1. Nothing changed: no action, two SCSI commands per LU.
#  2. scsi_debug's inq_product written at run time (a writable module parameter in 6.1): every
#     scsi_debug LU answers INQUIRY with the new model, and its VPD page 0x83 (the T10 vendor
#     designator carries the product) changes with it. --dry-run plans, changes nothing; the real
#     run reports "reidentify ... ids changed", the kernel's vpd_pg83 follows after the rescan,
#     and lund logs the scan's change uevent for each LU.
#  3. A second run: the VPD pages match again; the INQUIRY strings the kernel shows do not
#     (Linux 6.1 reads them only when it adds an LU), which the reason says.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 240
. /vm/guest/lib.sh
. /vm/guest/scan-lib.sh
. /vm/guest/daemon-lib.sh

P=/sys/module/scsi_debug/parameters
DEV=/sys/bus/scsi/devices
n_actions() { grep -c "\"action\": *\"$2\"" "$1" || true; }
top_commands() { sed -n 's/.*"scsi_commands": *\([0-9]*\).*/\1/p' "$1" | head -n1; }
run_lunctl() { # OUT ARGS...: lunctl rescan --json ARGS > OUT; $T_RC, $T_MS
	_out=$1; shift
	time_ms sh -c "lunctl rescan --json $* >$_out 2>$_out.err"
	[ "$T_RC" -eq 0 ] || { vm_log "lunctl rescan $* exited $T_RC"; cat "$_out.err"; }
}

san_up
SDH=$(hosts_of scsi_debug | head -n1)
LUS=$(ls -d $DEV/$SDH:*:*:* | wc -l)
vm_assert_eq 4 "$LUS" "scsi_debug host$SDH LUs"

# --- 1. nothing changed -------------------------------------------------------------------------
run_lunctl /tmp/i0.json --update $SDH
vm_assert_eq 0 "$T_RC" "unchanged: exit status"
vm_assert_eq 0 "$(n_actions /tmp/i0.json reidentify)" "unchanged: no reidentify action"
# REPORT LUNS per target (2) + INQUIRY and VPD 0x83 per LU (8)
vm_assert_eq 10 "$(top_commands /tmp/i0.json)" "unchanged: SCSI commands (2 REPORT LUNS + 2 per LU)"
vm_result "unchanged.ms=$T_MS unchanged.commands=$(top_commands /tmp/i0.json)"

lund_start --log-level debug

# --- 2. the identity changes --------------------------------------------------------------------
ls -l $P/inq_product
read -r old_product <$P/inq_product
for d in $DEV/$SDH:*:*:*; do cat "$d/vpd_pg83" >"/tmp/pg83.${d##*/}"; done
printf 'LUNDNEWPROD' >$P/inq_product || vm_fail "inq_product is not writable on this kernel"
vm_log "inq_product: '$old_product' -> '$(cat $P/inq_product)'"
# what the device answers now, for the record
g=$(ls $DEV/$SDH:0:0:0/scsi_generic)
sg_inq /dev/$g 2>/dev/null | grep -i 'product' | head -n 2

run_lunctl /tmp/plan.json --update --dry-run $SDH
vm_assert_eq "$LUS" "$(n_actions /tmp/plan.json reidentify)" "dry run: a reidentify per LU planned"
vm_assert_eq 0 "$(grep -c '"applied": *true' /tmp/plan.json)" "dry run: nothing applied"
for d in $DEV/$SDH:*:*:*; do
	cmp -s "$d/vpd_pg83" "/tmp/pg83.${d##*/}" || vm_fail "dry run: ${d##*/} vpd_pg83 changed"
done

run_lunctl /tmp/i1.json --update $SDH
cat /tmp/i1.json | grep -E '"(action|hctl|reason)"' | head -n 12
vm_assert_eq 0 "$T_RC" "changed: exit status"
vm_assert_eq "$LUS" "$(n_actions /tmp/i1.json reidentify)" "changed: a reidentify action per LU"
vm_assert_eq "$LUS" "$(grep -c 'ids changed: .*model \\"scsi_debug\\" -> \\"LUNDNEWPROD\\"' /tmp/i1.json)" \
	"changed: the reason names the model change"
vpd_reported=$(grep -c '"reason": *"ids changed: .*VPD page 0x83' /tmp/i1.json || true)
vm_assert_eq "$LUS" "$(grep -c '"applied": *true' /tmp/i1.json)" "changed: every rescan applied"
vpd_followed=0
for d in $DEV/$SDH:*:*:*; do
	cmp -s "$d/vpd_pg83" "/tmp/pg83.${d##*/}" || vpd_followed=$((vpd_followed + 1))
done
vm_result "changed.ms=$T_MS changed.vpd_reported=$vpd_reported changed.kernel_vpd_reread=$vpd_followed"
# scsi_debug's VPD page 0x83 carries the product in its T10 vendor designator
vm_assert_eq "$LUS" "$vpd_reported" "changed: VPD page 0x83 reported changed"
vm_assert_eq "$LUS" "$vpd_followed" "changed: the kernel's vpd_pg83 re-read after the rescan"
# lund saw the scan's change uevent for each LU
if vm_wait_until 20 sh -c "[ \$(grep -c 'a scan found the identity changed' '$LUND_LOG.new') -ge $LUS ]"; then
	vm_log "ok: lund re-derived the IDs of $LUS LUs on the scan's change uevent"
else
	vm_fail "lund logged $(grep -c 'a scan found the identity changed' "$LUND_LOG.new") scan change uevents, expected $LUS"
fi
grep 'a scan found the identity changed\|identifiers changed' "$LUND_LOG.new" | head -n 6
daemon_check_tree "after the identity change" 30

# --- 3. again: VPD in line, the INQUIRY strings as 6.1 leaves them ------------------------------
run_lunctl /tmp/i2.json --update $SDH
vm_assert_eq 0 "$(grep -c '"reason": *"ids changed: .*VPD page 0x83' /tmp/i2.json || true)" \
	"second run: VPD page 0x83 matches the kernel's cache"
n2=$(n_actions /tmp/i2.json reidentify)
vm_result "second.reidentify=$n2 second.kernel_keeps_strings=$(grep -c 'kernel still shows the old INQUIRY strings' /tmp/i2.json || true)"
vm_assert_eq "$LUS" "$(grep -c 'kernel still shows the old INQUIRY strings' /tmp/i1.json)" \
	"the reason says the kernel keeps the INQUIRY strings"
printf '%s' "$old_product" >$P/inq_product
lund_stop
vm_done
