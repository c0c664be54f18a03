#!/bin/sh
# bench/identify (a benchmark, not a test: bench/identify.sh runs it): identifying every disk
# of the SAN, lunctl id --export against udev's scsi_id --export --whitelisted -g, the way udev
# runs them (one process per device). Reports wall time per LU and SCSI commands per LU from
# the kernel's own iorequest_cnt, in all and per kind of disk (its HBA's proc_name) and round.
# A second lunctl given as /usr/local/bin/lunctl-old (bench/identify.sh --old PATH) runs as
# one more tool in the same rounds. Asserts nothing about time.
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 3600
. /vm/guest/lib.sh

san_up
mdev -s 2>/dev/null || true
ROUNDS=${LUND_BENCH_ROUNDS:-${ROUNDS:-10}}

# Non-removable disks only: the kernel polls removable media itself, which would pollute the
# command counts. Grouped by kind: nodes_<kind> lists the kind's disks.
nodes=
kinds=
for d in /sys/class/scsi_device/*; do
	s=$d/device
	read -r type < "$s/type"
	[ "$type" = 0 ] || continue
	blk=$(ls "$s/block" 2>/dev/null | head -n1)
	[ -n "$blk" ] || continue
	read -r rm < "$s/block/$blk/removable"
	[ "$rm" = 0 ] || continue
	hctl=${d##*/}
	read -r kind < "/sys/class/scsi_host/host${hctl%%:*}/proc_name"
	kind=$(echo "$kind" | tr -c 'A-Za-z0-9_\n' _)
	case " $kinds " in *" $kind "*) ;; *) kinds="$kinds $kind" ;; esac
	eval "nodes_$kind=\"\${nodes_$kind:-} $blk\""
	nodes="$nodes $blk"
done
n=$(echo $nodes | wc -w)

# iocount DISKS...: the commands the kernel sent to them so far
iocount() {
	t=0
	for b in "$@"; do
		read -r c < "/sys/block/$b/device/iorequest_cnt"
		t=$((t + c))
	done
	echo $t
}

# run_tool NAME DISKS...: one pass of tool NAME over the disks, one process per disk as udev
# runs them.
run_tool() {
	t=$1
	shift
	case $t in
	lunctl) for b in "$@"; do lunctl id --export "/dev/$b"; done ;;
	lunctl-old) for b in "$@"; do lunctl-old id --export "/dev/$b"; done ;;
	scsi_id) for b in "$@"; do /lib/udev/scsi_id --export --whitelisted -g -d "/dev/$b"; done ;;
	# The floor: one process that reads the kernel's cached identifier, the cheapest possible
	# answer; coreutils' cat is dynamically linked against libc as lunctl is (what a Debian
	# host runs).
	cat-wwid) for b in "$@"; do /usr/lib/vm-floor/cat "/sys/class/block/$b/device/wwid"; done ;;
	# busybox's static sh + cat applet: a lower floor no dynamically linked program reaches.
	sysfs-wwid) for b in "$@"; do sh -c 'cat /sys/class/block/${0##*/}/device/wwid' "/dev/$b"; done ;;
	# process start alone (each prints its version and exits): what a fork+exec per device costs
	start-lunctl) for b in "$@"; do lunctl --version; done ;;
	start-scsi_id) for b in "$@"; do /lib/udev/scsi_id --version; done ;;
	esac >/dev/null 2>&1
}

# Rounds alternate the tools (in reverse order every other round), so that a change of the
# host's load during the run weighs on every tool alike. Each round times each tool per kind of
# disk (RESULT round=...), and the sums over rounds per tool (RESULT tool=...).
TOOLS="lunctl scsi_id cat-wwid sysfs-wwid start-lunctl start-scsi_id"
command -v lunctl-old >/dev/null && TOOLS="lunctl lunctl-old ${TOOLS#lunctl }"
REV=
for t in $TOOLS; do REV="$t $REV"; done
var() { echo "$1" | tr -c 'A-Za-z0-9_\n' _; }
for t in $TOOLS; do eval "ms_$(var "$t")=0 io_$(var "$t")=0"; done
i=0
while [ $i -lt "$ROUNDS" ]; do
	order=$TOOLS
	[ $((i % 2)) = 1 ] && order=$REV
	for t in $order; do
		v=$(var "$t")
		for k in $kinds; do
			eval "disks=\$nodes_$k"
			io0=$(iocount $disks)
			t0=$(vm_uptime_ms)
			run_tool "$t" $disks || true # a tool failing on one disk still counts its time
			t1=$(vm_uptime_ms)
			io1=$(iocount $disks)
			vm_result "round=$i tool=$t kind=$k disks=$(echo $disks | wc -w) ms=$((t1 - t0)) cmds=$((io1 - io0))"
			eval "ms_$v=\$((ms_$v + t1 - t0)) io_$v=\$((io_$v + io1 - io0))"
		done
	done
	i=$((i + 1))
done
runs=$((ROUNDS * n))
for t in $TOOLS; do
	v=$(var "$t")
	eval "ms=\$ms_$v io=\$io_$v"
	# microseconds per LU, commands per LU (x1000 for three decimals)
	vm_result "tool=$t runs=$runs us_per_lu=$((ms * 1000 / runs)) cmds_per_lu_x1000=$((io * 1000 / runs))"
done
vm_result "disks=$n rounds=$ROUNDS"
vm_done
