#!/bin/sh
# bench/identify-strace (a benchmark body, not a test): the system calls of one
# `lunctl id --export` per kind of disk of the SAN, against coreutils' `cat wwid` (the floor of
# bench/identify), counted by strace in the guest. strace is not part of the guest; give it
# with the binaries:
#   tests/vm/run --keep --bin build/src/cli/lunctl --bin /usr/bin/strace bench/identify-strace
# Writes <name>.{lunctl,cat}.count (strace -c -f) and <name>.lunctl.trace (strace -f) to the
# result directory, and one RESULT line per disk with both totals. Asserts nothing.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 300
. /vm/guest/lib.sh

san_up
mdev -s 2>/dev/null || true
command -v strace >/dev/null || {
	vm_fail "no strace in the guest (tests/vm/run --bin /usr/bin/strace)"
	vm_done
}

# total calls of a strace -c summary (its "total" line: calls in the 4th column, or the 3rd
# when no time was measured)
total() { awk '$NF == "total" { print ($(NF - 2) ~ /^[0-9]+$/ && NF > 4) ? $(NF - 2) : $(NF - 1) }' "$1"; }

for d in /sys/class/scsi_device/*; do
	s=$d/device
	hctl=${d##*/}
	read -r type <"$s/type"
	[ "$type" = 0 ] || continue
	blk=$(ls "$s/block" 2>/dev/null | head -n1)
	[ -n "$blk" ] || continue
	proc=$(cat "$s/../../scsi_host/"host*/proc_name 2>/dev/null || true)
	[ -n "$proc" ] || proc=$(cat /sys/class/scsi_host/host${hctl%%:*}/proc_name)
	read -r model <"$s/model"
	name=$(san_name "$proc" "$hctl" "$type" "$model" "$(readlink -f "$s")")
	case $name in
	virtio-scsi-full | megasas-wwn | mptsas1068-sas | ahci-disk | usb-storage-stick | \
		scsi_debug-a0-0-0-0) ;;
	*) continue ;;
	esac
	# once untraced, so every page the kernel lazily fills is there for the counted run
	lunctl id --export "/dev/$blk" >/dev/null 2>&1 || true
	strace -f -c -o "$VM_OUT/$name.lunctl.count" lunctl id --export "/dev/$blk" >/dev/null 2>&1 || true
	strace -f -c -o "$VM_OUT/$name.cat.count" /usr/lib/vm-floor/cat "/sys/class/block/$blk/device/wwid" \
		>/dev/null 2>&1 || true
	strace -f -o "$VM_OUT/$name.lunctl.trace" lunctl id --export "/dev/$blk" >/dev/null 2>&1 || true
	vm_result "disk=$name node=$blk lunctl_calls=$(total "$VM_OUT/$name.lunctl.count") cat_calls=$(total "$VM_OUT/$name.cat.count")"
done
vm_done
