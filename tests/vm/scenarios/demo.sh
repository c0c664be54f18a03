#!/bin/sh
# demo: what the README's first command shows. The emulated SAN comes up, lund lists and names
# every logical unit, then the host hot-adds two disks: one on virtio-scsi (the kernel scans
# it by itself) and one on megasas (the guest sees nothing until someone scans the host).
# The transcript goes to $VM_OUT/demo.txt for the host to print; the scenario also asserts
# that both new disks end up listed with their names.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 120
. /vm/guest/lib.sh

out=$VM_OUT/demo.txt
say() { echo "$*" >> "$out"; }
show() { say "# $*"; "$@" >> "$out" 2>&1; }

san_up
mdev -s 2>/dev/null || true
: > "$out"
say "The emulated SAN: $(ls /sys/class/scsi_device | wc -l) logical units on $(ls /sys/class/scsi_host | wc -l) SCSI hosts."
say ""
show lunctl list
say ""
show lunctl id /dev/sda

vm_sync HOTADD
# virtio-scsi reports the new LUN and the kernel scans it; megasas does not.
vm_wait_until 20 sh -c 'lunctl list --json | grep -q DEMOVIRT01' ||
	vm_fail "virtio-scsi hot-add never appeared"
say ""
say "Hot-added: one disk on virtio-scsi (the kernel scans it), one on megasas (nobody does)."
if lunctl rescan --help >/dev/null 2>&1; then
	show lunctl rescan
else
	mega=$(grep -l megaraid_sas /sys/class/scsi_host/host*/proc_name | head -n1)
	mega=${mega%/proc_name}
	say "# echo '- - -' > $mega/scan"
	echo "- - -" > "$mega/scan"
fi
mdev -s 2>/dev/null || true
say ""
show lunctl list
lunctl list --json > /tmp/after.json
vm_assert "virtio-scsi hot-add listed" grep -q DEMOVIRT01 /tmp/after.json
vm_assert "megasas hot-add listed" grep -q DEMOMEGA01 /tmp/after.json
vm_done
