#!/bin/bash
# naming-upgrade: the same SAN booted under Debian 12 and then under Debian 13 (kernel, udev,
# sg3-utils-udev), /var/lib/lund carried over as an upgrade keeps it (lund(8), Naming
# contract: name records, aliases; "From Debian 12 to Debian 13").
#  - Debian 12: lund names the SAN in /dev/scsi/by-id (sg3-utils-udev 1.46's rules: QEMU's
#    disks get scsi-S... and scsi-0... names, scsi_debug's NAA-local scsi-3...), the admin
#    accepts every name (lunctl names --accept --all); each name and the ID_SERIAL of the LU
#    it names are kept for the second boot.
#  - Debian 13: sg3-utils-udev 1.48 no longer gives those names. lund keeps every name of
#    Debian 12 as it was, now as an alias pointing at an LU of the same ID_SERIAL (whatever
#    its H:C:T:L and node on this kernel); `lunctl names --diff` shows the aliases pending
#    and exits 1; `lunctl names --accept --all` retires them: the tree is then exactly
#    Debian 13's names, which naming-udev-13 holds against udev 257.
# vm-flavour: udev-root
# vm-release: 13
# vm-upgrade-from: 12
# vm-topology: san
# vm-timeout: 1380
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

TAB=$(printf '\t')
# names_with_serial: lund's links as "name<TAB>ID_SERIAL of the LU the link points at" (one
# lunctl per node, not per link: an LU has several names, each with its -sg twin).
names_with_serial() {
	local -A serial
	local f t s
	for f in "$LUND_LINKS"/*; do
		[ -L "$f" ] || continue
		t=$(readlink -f "$f")
		if [ -z "${serial[$t]:-}" ]; then
			s=$(lunctl id --export "$t" 2>/dev/null | sed -n 's/^ID_SERIAL=//p')
			serial[$t]=${s:--}
		fi
		printf '%s\t%s\n' "${f##*/}" "${serial[$t]}"
	done | sort
}

san_up
mkdir -p /var/lib/lund
if [ "$VM_RELEASE" = 12 ]; then
	lund_start
	daemon_check_tree "Debian 12: lund's names" 60
	lunctl names --accept --all || vm_fail "Debian 12: accept failed"
	lunctl names --diff >/tmp/diff.out 2>&1 || vm_fail "Debian 12: a change pending right after accept: $(cat /tmp/diff.out)"
	names_with_serial >/vm/out/names.12
	cp /var/lib/lund/names /vm/out/records.12
	vm_result "deb12.names=$(wc -l </vm/out/names.12)"
	lund_stop
	vm_done
fi

# Debian 13, the records of Debian 12 as an upgrade leaves them
[ -s /vm/out/records.12 ] || vm_fail "no name records from the Debian 12 boot"
cp /vm/out/records.12 /var/lib/lund/names
lund_start
# lund's current names under 13's rules, computed apart from lund (lunctl list, sysfs)
vm_wait_until 60 sh -c '[ "$(lunctl status --json | tr -d " \n" | sed -n "s/.*\"identifying\":\([0-9]*\).*/\1/p")" = 0 ]' || true
daemon_expected >/tmp/exp.13
cut -f1 /tmp/exp.13 | sort -u >/tmp/cur.13
cut -f1 /vm/out/names.12 >/tmp/old.12
grep -vxFf /tmp/cur.13 /tmp/old.12 >/tmp/dropped || true
vm_log "names of Debian 12 that Debian 13's rules do not give: $(wc -l </tmp/dropped)"
vm_assert_ge 1 "$(wc -l </tmp/dropped)" "Debian 13 drops names of Debian 12 (the test proves something)"
# every name of Debian 12 is still there, pointing at an LU of the same ID_SERIAL
kept() {
	names_with_serial >/tmp/names.13
	! grep -vxFf /tmp/names.13 /vm/out/names.12 >/tmp/lost
}
if vm_wait_until 60 kept; then
	vm_log "ok: every name of Debian 12 kept, on an LU of the same ID_SERIAL"
else
	vm_fail "names of Debian 12 lost or moved to another LU: $(head -n 5 /tmp/lost | tr '\n' ' ')"
fi
rc=0
lunctl names --diff >/tmp/diff.out 2>&1 || rc=$?
vm_assert_eq 1 "$rc" "lunctl names --diff: the aliases are a change pending"
# the records hold base names: their -sg (and -nst) twins follow them
grep -v -e '-sg$' -e '-nst$' /tmp/dropped >/tmp/dropped.base || true
n_alias=0
while IFS= read -r n; do
	grep -F "/$n (" /tmp/diff.out | grep -q "kept as an alias until accepted" && n_alias=$((n_alias + 1))
done </tmp/dropped.base
vm_assert_eq "$(wc -l </tmp/dropped.base)" "$n_alias" "every dropped base name shown by --diff as an alias"
lunctl names --accept --all || vm_fail "Debian 13: accept failed"
daemon_check_tree "Debian 13, accepted: its own names alone" 60
rc=0
lunctl names --diff >/tmp/diff.out 2>&1 || rc=$?
vm_assert_eq 0 "$rc" "nothing pending after the accept"
vm_result "deb13.dropped=$(wc -l </tmp/dropped) deb13.names=$(wc -l </tmp/cur.13)"
lund_stop
vm_done
