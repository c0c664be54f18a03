#!/bin/sh
# paths-offline: one disk seen through four paths (scsi_debug, four hosts with
# vpd_use_hostno=0: one LU name, a target port group per host), without multipath, on the
# stock kernel, which sends no uevent when a device goes offline (lund(8), PATHS).
#  - The names of the disk (its block node's and its -sg names) are on the lowest running
#    path. The path holding them is offlined (echo offline > state), three times, one path
#    after the other: each time every name moves to the lowest path still running, unasked,
#    and no name is left on an offline device.
#  - The paths run again (echo running > state) one by one, highest first: the names stay
#    where they are until the lowest path runs again, then go back to it.
# The expected tree is computed from sysfs (states, the kernel's cached page 0x83) and lunctl
# (guest/daemon-lib.sh), not taken from lund.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 300
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

modprobe -a sd_mod sg
modprobe scsi_debug add_host=4 num_tgts=1 max_luns=1 vpd_use_hostno=0 dev_size_mb=1
vm_wait_until 60 sh -c '[ $(ls /sys/class/scsi_generic | wc -l) -ge 4 ]' || vm_fail "no 4 paths"
paths=$(ls -d /sys/bus/scsi/devices/*:*:*:* | sed 's|.*/||' | sort -t: -k1,1n -k2,2n -k3,3n -k4,4n)
vm_log "paths: $(echo $paths)"

# live_names: every link resolves to a device of a running path.
live_names() {
	bad=0
	for f in "$LUND_LINKS"/*; do
		[ -L "$f" ] || continue
		node=$(readlink "$f"); node=${node##*/}
		dev=$(ls -d /sys/bus/scsi/devices/*:*:*:*/block/"$node" \
			/sys/bus/scsi/devices/*:*:*:*/scsi_generic/"$node" 2>/dev/null | head -n1)
		[ -n "$dev" ] || { bad=$((bad + 1)); continue; }
		st=$(cat "${dev%/*/*}/state")
		[ "$st" = running ] || { vm_log "$f -> $node: path ${dev%/*/*} is $st"; bad=$((bad + 1)); }
	done
	return "$bad"
}
# holder: the path the disk's first by-id name points at
holder() {
	f=$(ls "$LUND_LINKS" | grep -v -- '-sg$' | head -n1)
	node=$(readlink "$LUND_LINKS/$f"); node=${node##*/}
	d=$(ls -d /sys/bus/scsi/devices/*:*:*:*/block/"$node" | head -n1)
	d=${d%/block/*}
	echo "${d##*/}"
}

lund_start
daemon_check_tree "four paths running"
vm_assert_eq "$(echo $paths | cut -d' ' -f1)" "$(holder)" "the names are on the lowest path"
n_links=$(daemon_actual | wc -l)
vm_assert_ge 4 "$n_links" "names of the disk (by-id and -sg)"

moved=0
for i in 1 2 3; do
	h=$(holder)
	echo offline >"/sys/bus/scsi/devices/$h/state"
	vm_log "path $h offline"
	daemon_check_tree "path $h offline ($i of 3)" 30
	live_names || vm_fail "after $h went offline, names point at offline paths"
	[ "$(holder)" != "$h" ] && moved=$((moved + 1))
done
vm_assert_eq 3 "$moved" "the names moved away from each offlined path"
last=$(echo $paths | cut -d' ' -f4)
vm_assert_eq "$last" "$(holder)" "the names are on the one path still running"

for h in $(echo $paths | cut -d' ' -f3) $(echo $paths | cut -d' ' -f2) $(echo $paths | cut -d' ' -f1); do
	echo running >"/sys/bus/scsi/devices/$h/state"
	vm_log "path $h running again"
	daemon_check_tree "path $h running again" 30
	live_names || vm_fail "after $h ran again, names point at offline paths"
done
vm_assert_eq "$(echo $paths | cut -d' ' -f1)" "$(holder)" "the names are back on the lowest path"
grep -q "state running -> offline (sysfs)" "$LUND_LOG.new" || vm_fail "no state change seen by lund's watch"
vm_result "paths=4 links=$n_links moved=$moved"
lund_stop
vm_done
