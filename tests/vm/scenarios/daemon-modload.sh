#!/bin/sh
# daemon-modload: no udevd (busybox), and nobody loads sd_mod, sr_mod, st or sg: the SAN's LUs
# exist in sysfs without disks or sg nodes. lund must load their drivers itself (libkmod, from
# each LU's MODALIAS, plus sg), at start-up for the LUs already there and from the add uevent
# for new ones (a scsi_debug host of tapes: st). Evidence: the kernel's modules and nodes in
# sysfs, and the link tree computed by guest/daemon-lib.sh.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 240
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
loaded() { [ -d "/sys/module/$1" ]; }
san_up --no-uld
for m in sd_mod sr_mod st sg; do
	loaded $m && vm_fail "$m is loaded before lund runs (the scenario needs it absent)"
done
vm_assert_eq 0 "$(ls /sys/block | grep -c '^sd')" "disks before lund"

lund_start
disks=$(for d in /sys/bus/scsi/devices/*:*:*:*; do read -r t <$d/type; [ "$t" = 0 ] && echo; done | wc -l)
cds=$(for d in /sys/bus/scsi/devices/*:*:*:*; do read -r t <$d/type; [ "$t" = 5 ] && echo; done | wc -l)
vm_wait_until 30 sh -c "[ \$(ls /sys/block | grep -c '^sd') -ge $disks ] && [ \$(ls /sys/block | grep -c '^sr') -ge $cds ] && [ \$(ls /sys/class/scsi_generic | wc -l) -ge $(n_lus) ]" ||
	vm_fail "after lund's start: $(ls /sys/block | grep -c '^sd')/$disks disks, $(ls /sys/block | grep -c '^sr')/$cds CDs, $(ls /sys/class/scsi_generic | wc -l)/$(n_lus) sg nodes"
for m in sd_mod sr_mod sg; do vm_assert "lund loaded $m" loaded $m; done
daemon_check_tree "cold start, drivers loaded by lund" 30
vm_assert_ge 60 "$(wc -l </tmp/tree.act)" "links (the SAN's 28 LUs, sd/sr and sg nodes)"

# new LUs of a type whose driver is not loaded: tapes
loaded st && vm_fail "st loaded before any tape exists"
echo 1 >$SD/ptype
echo 1 >$SD/add_host
if vm_wait_until 30 sh -c 'ls /sys/class/scsi_tape 2>/dev/null | grep -q "^st[0-9]*$"'; then
	vm_log "ok: tape nodes after lund loaded st"
else
	vm_fail "no st nodes for the new tapes (st loaded: $(loaded st && echo yes || echo no))"
fi
daemon_check_tree "tapes hot-added" 30
vm_assert "tape links (-nst)" sh -c "ls $LUND_LINKS | grep -q -- '-nst\$'"
grep 'Loaded module' "$LUND_LOG.new" | head -n 8 || true

lund_alive || vm_fail "lund died"
lund_stop
vm_done
