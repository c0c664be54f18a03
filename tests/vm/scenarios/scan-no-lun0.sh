#!/bin/sh
# scan-no-lun0: targets without a LUN 0 (scsi_debug no_lun_0=1: LUNs 1-3 on each of two
# targets; LUN 0 answers INQUIRY with peripheral qualifier 3 and REPORT LUNS lists the rest, as
# an array or a hypervisor exporting LUN 1 and up does) under scsi_mod.scan=manual. A probe of
# LUN 0 leaves no trace of such a target; the kernel's own scan ("- - -") finds its LUNs.
#  1. `lunctl rescan H:0:1:2` adds that LU alone, `lunctl rescan H:0:0` that target's LUs;
#  2. `lunctl rescan H` then adds the rest: exactly the LUs the kernel's scan adds (the same
#     set, compared after deleting them again and letting the kernel scan); rescan-scsi-bus.sh
#     -a beside it;
#  3. lund's start-up scan finds them all and names them.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 240
# vm-append: scsi_mod.scan=manual
. /vm/guest/lib.sh
. /vm/guest/scan-lib.sh
. /vm/guest/daemon-lib.sh

# same_set WHAT A B: the LU sets in files A and B are the same
same_set() {
	if cmp -s "$2" "$3"; then
		vm_log "ok: $1 add the same $(wc -l <"$3") LUs"
	else
		vm_fail "$1 differ"
		diff "$2" "$3" || true
	fi
}

modprobe -a sd_mod sg
modprobe scsi_debug no_lun_0=1 max_luns=4 num_tgts=2
h=$(hosts_of scsi_debug)
[ -n "$h" ] || { vm_fail "no scsi_debug host"; vm_done; }
vm_assert_eq 0 "$(lu_set "$h" | wc -l)" "LUs before any scan (scan=manual)"

lunctl rescan "$h:0:1:2" || vm_fail "lunctl rescan $h:0:1:2 failed"
settle
vm_assert_eq "$h:0:1:2" "$(lu_set "$h" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')" \
	"LUs after lunctl rescan $h:0:1:2"

lunctl rescan "$h:0:0" || vm_fail "lunctl rescan $h:0:0 failed"
settle
vm_assert_eq "$h:0:0:1 $h:0:0:2 $h:0:0:3 $h:0:1:2" \
	"$(lu_set "$h" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')" "LUs after lunctl rescan $h:0:0"

lunctl rescan "$h" >/tmp/rescan.out 2>&1 || vm_fail "lunctl rescan $h failed: $(cat /tmp/rescan.out)"
cat /tmp/rescan.out
settle
lu_set "$h" >/tmp/lund
vm_assert_eq 6 "$(wc -l </tmp/lund)" "LUs after lunctl rescan $h"
vm_assert_eq 2 "$(awk -v h="host$h" '$1 == h { print $3 }' /tmp/rescan.out)" \
	"LUs lunctl rescan reports added"

# the kernel's own scan of the same host, from nothing
cut -d' ' -f1 /tmp/lund | delete_lus
settle
vm_assert_eq 0 "$(lu_set "$h" | wc -l)" "LUs after deleting them"
echo "- - -" >/sys/class/scsi_host/host$h/scan
settle
lu_set "$h" >/tmp/kernel
same_set "lunctl rescan and the kernel's scan" /tmp/lund /tmp/kernel

# rescan-scsi-bus.sh, from nothing: reported beside, not held to the kernel's set
cut -d' ' -f1 /tmp/kernel | delete_lus
settle
rsb -a --hosts="$h" >/dev/null 2>&1 || true
settle
lu_set "$h" >/tmp/rsb
compare_sets nolun0 /tmp/lund /tmp/rsb || true
cut -d' ' -f1 /tmp/rsb | delete_lus
settle

# lund's start-up scan, from nothing
vm_assert_eq 0 "$(lu_set "$h" | wc -l)" "LUs before lund starts"
lund_start
settle
lu_set "$h" >/tmp/daemon
same_set "the kernel's scan and lund's start-up scan" /tmp/kernel /tmp/daemon
grep "no LUN 0 on any target" "$LUND_LOG.new" | head -n 3
daemon_check_tree "LUs without a LUN 0 on their target, named" 30
lund_alive || vm_fail "lund died"
lund_stop
cp "$LUND_LOG" "$VM_OUT/lund.log"
vm_done
