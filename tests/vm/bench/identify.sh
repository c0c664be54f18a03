#!/bin/sh
# bench/identify (a benchmark, not a test: bench/identify.sh runs it): identifying every disk
# of the SAN, lunctl id --export against udev's scsi_id --export --whitelisted -g, the way udev
# runs them (one process per device). Reports wall time per LU and SCSI commands per LU from
# the kernel's own iorequest_cnt. Asserts nothing about time.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 600
. /vm/guest/lib.sh

san_up
mdev -s 2>/dev/null || true
ROUNDS=${ROUNDS:-10}

# Non-removable disks only: the kernel polls removable media itself, which would pollute the
# command counts.
nodes=
for d in /sys/class/scsi_device/*; do
	s=$d/device
	read -r type < "$s/type"
	[ "$type" = 0 ] || continue
	blk=$(ls "$s/block" 2>/dev/null | head -n1)
	[ -n "$blk" ] || continue
	read -r rm < "$s/block/$blk/removable"
	[ "$rm" = 0 ] || continue
	nodes="$nodes $blk"
done
n=$(echo $nodes | wc -w)

iocount() {
	t=0
	for b in $nodes; do
		read -r c < "/sys/block/$b/device/iorequest_cnt"
		t=$((t + c))
	done
	echo $t
}

measure() { # NAME COMMAND-PREFIX...
	name=$1; shift
	io0=$(iocount)
	t0=$(vm_uptime_ms)
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		for b in $nodes; do "$@" "/dev/$b" > /dev/null 2>&1 || true; done
		i=$((i + 1))
	done
	t1=$(vm_uptime_ms)
	io1=$(iocount)
	runs=$((ROUNDS * n))
	# microseconds per LU, commands per LU (x1000 for three decimals)
	vm_result "tool=$name runs=$runs us_per_lu=$(( (t1 - t0) * 1000 / runs )) cmds_per_lu_x1000=$(( (io1 - io0) * 1000 / runs ))"
}

measure lunctl lunctl id --export
measure scsi_id /lib/udev/scsi_id --export --whitelisted -g -d
# The floor: reading the kernel's cached identifier, the cheapest possible answer.
measure sysfs-wwid sh -c 'cat /sys/class/block/${0##*/}/device/wwid'
# Process start alone (each prints its version and exits): what a fork+exec per device costs.
measure start-lunctl lunctl --version
measure start-scsi_id /lib/udev/scsi_id --version
vm_result "disks=$n rounds=$ROUNDS"
vm_done
