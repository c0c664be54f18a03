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
# The same again with a tape seen through four paths (ptype=1): its name (st), -nst and -sg
# names.
# The expected tree is computed from sysfs (states, the kernel's cached page 0x83) and lunctl
# (guest/daemon-lib.sh), not taken from lund.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 300
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

SYSDEV=/sys/bus/scsi/devices

# path_of NODE: the H:C:T:L whose block, tape or generic node NODE is.
path_of() {
	d=$(ls -d $SYSDEV/*:*:*:*/block/"$1" $SYSDEV/*:*:*:*/scsi_tape/"$1" \
		$SYSDEV/*:*:*:*/scsi_generic/"$1" 2>/dev/null | head -n1)
	d=${d%/*/*}
	echo "${d##*/}"
}
# live_names: every link resolves to a node of a running path.
live_names() {
	bad=0
	for f in "$LUND_LINKS"/*; do
		[ -L "$f" ] || continue
		node=$(readlink "$f")
		lp=$(path_of "${node##*/}")
		[ -n "$lp" ] || { vm_log "$f -> $node: no such node"; bad=$((bad + 1)); continue; }
		st=$(cat "$SYSDEV/$lp/state")
		[ "$st" = running ] || { vm_log "$f -> $node: path $lp is $st"; bad=$((bad + 1)); }
	done
	return "$bad"
}
# holder: the path the LU's first name without a suffix points at
holder() {
	f=$(ls "$LUND_LINKS" | grep -v -e '-sg$' -e '-nst$' | head -n1)
	node=$(readlink "$LUND_LINKS/$f")
	path_of "${node##*/}"
}

# four_paths KIND PTYPE: the whole story for one device type.
four_paths() {
	kind=$1
	modprobe scsi_debug ptype="$2" add_host=4 num_tgts=1 max_luns=1 vpd_use_hostno=0 dev_size_mb=1
	vm_wait_until 60 sh -c '[ $(ls /sys/class/scsi_generic | wc -l) -ge 4 ]' || vm_fail "$kind: no 4 paths"
	paths=$(ls -d $SYSDEV/*:*:*:* | sed 's|.*/||' | sort -t: -k1,1n -k2,2n -k3,3n -k4,4n)
	vm_log "$kind: paths $(echo $paths)"
	lund_start
	daemon_check_tree "$kind: four paths running"
	vm_assert_eq "$(echo $paths | cut -d' ' -f1)" "$(holder)" "$kind: the names are on the lowest path"
	n_links=$(daemon_actual | wc -l)
	vm_log "$kind: names $(daemon_actual | cut -f1 | tr '\n' ' ')"
	vm_assert_ge 4 "$n_links" "$kind: names of the LU"

	moved=0
	for i in 1 2 3; do
		h=$(holder)
		echo offline >"$SYSDEV/$h/state"
		vm_log "$kind: path $h offline"
		daemon_check_tree "$kind: path $h offline ($i of 3)" 30
		live_names || vm_fail "$kind: after $h went offline, names point at offline paths"
		[ "$(holder)" != "$h" ] && moved=$((moved + 1))
	done
	vm_assert_eq 3 "$moved" "$kind: the names moved away from each offlined path"
	vm_assert_eq "$(echo $paths | cut -d' ' -f4)" "$(holder)" "$kind: the names are on the one path still running"

	for k in 3 2 1; do
		h=$(echo $paths | cut -d' ' -f$k)
		echo running >"$SYSDEV/$h/state"
		vm_log "$kind: path $h running again"
		daemon_check_tree "$kind: path $h running again" 30
		live_names || vm_fail "$kind: after $h ran again, names point at offline paths"
	done
	vm_assert_eq "$(echo $paths | cut -d' ' -f1)" "$(holder)" "$kind: the names are back on the lowest path"
	grep -q "state running -> offline (sysfs)" "$LUND_LOG.new" || vm_fail "$kind: no state change seen by lund's watch"
	vm_result "$kind.paths=4 $kind.links=$n_links $kind.moved=$moved"
	lund_stop
	rm -rf "$LUND_RUN/links" "$LUND_LINKS"
	rmmod scsi_debug
	vm_wait_until 30 sh -c '[ $(ls /sys/class/scsi_generic | wc -l) -eq 0 ]' || vm_fail "$kind: paths not gone"
}

modprobe -a sd_mod st sg
four_paths disk 0
four_paths tape 1
vm_done
