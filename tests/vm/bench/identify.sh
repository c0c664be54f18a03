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

# run_tool NAME: one pass of tool NAME over every disk, one process per disk as udev runs them.
run_tool() {
	case $1 in
	lunctl) for b in $nodes; do lunctl id --export "/dev/$b"; done ;;
	scsi_id) for b in $nodes; do /lib/udev/scsi_id --export --whitelisted -g -d "/dev/$b"; done ;;
	# The floor: one process that reads the kernel's cached identifier, the cheapest possible
	# answer; coreutils' cat is dynamically linked against libc as lunctl is (what a Debian
	# host runs).
	cat-wwid) for b in $nodes; do /usr/lib/vm-floor/cat "/sys/class/block/$b/device/wwid"; done ;;
	# busybox's static sh + cat applet: a lower floor no dynamically linked program reaches.
	sysfs-wwid) for b in $nodes; do sh -c 'cat /sys/class/block/${0##*/}/device/wwid' "/dev/$b"; done ;;
	# process start alone (each prints its version and exits): what a fork+exec per device costs
	start-lunctl) for b in $nodes; do lunctl --version; done ;;
	start-scsi_id) for b in $nodes; do /lib/udev/scsi_id --version; done ;;
	esac >/dev/null 2>&1
}

# Rounds alternate the tools (in reverse order every other round), so that a change of the
# host's load during the run weighs on every tool alike.
TOOLS="lunctl scsi_id cat-wwid sysfs-wwid start-lunctl start-scsi_id"
REV="start-scsi_id start-lunctl sysfs-wwid cat-wwid scsi_id lunctl"
for t in $TOOLS; do eval "ms_${t%%-*}_${t#*-}=0 io_${t%%-*}_${t#*-}=0"; done
i=0
while [ $i -lt "$ROUNDS" ]; do
	order=$TOOLS
	[ $((i % 2)) = 1 ] && order=$REV
	for t in $order; do
		v=${t%%-*}_${t#*-}
		io0=$(iocount)
		t0=$(vm_uptime_ms)
		run_tool "$t" || true # a tool failing on one disk still counts its time
		t1=$(vm_uptime_ms)
		io1=$(iocount)
		eval "ms_$v=\$((ms_$v + t1 - t0)) io_$v=\$((io_$v + io1 - io0))"
	done
	i=$((i + 1))
done
runs=$((ROUNDS * n))
for t in $TOOLS; do
	v=${t%%-*}_${t#*-}
	eval "ms=\$ms_$v io=\$io_$v"
	# microseconds per LU, commands per LU (x1000 for three decimals)
	vm_result "tool=$t runs=$runs us_per_lu=$((ms * 1000 / runs)) cmds_per_lu_x1000=$((io * 1000 / runs))"
done
vm_result "disks=$n rounds=$ROUNDS"
vm_done
