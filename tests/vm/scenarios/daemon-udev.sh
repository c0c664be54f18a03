#!/bin/bash
# daemon-udev: udevd (Debian 13's rules, udev 257, sg3-utils-udev 1.48) and lund on one machine.
#  - /dev/disk/by-id is udev's and stays exactly as it was without lund when lund runs and
#    rules/59-lund.rules imports lunctl's IDs: first with Debian's rules as shipped (sg3-utils'
#    55 rule names most disks), then with udev's own scsi_id path alone (55 removed), where the
#    SCSI_IDENT_* properties on the disks prove lunctl's import is what the links came from.
#  - sg nodes (which no stock rule identifies) carry lunctl's ID_SERIAL.
#  - lund's /dev/scsi/by-id is exactly the tree computed from sysfs and lunctl, and lund reports
#    no foreign file (udevd never writes there, lund never writes to /dev/disk).
# vm-flavour: udev-root
# vm-release: 13
# vm-topology: san
# vm-timeout: 1620
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

RULES=/etc/udev/rules.d
# /dev/disk/by-id as "name<TAB>target". A name several devices claim (the SAN's scsi_debug
# twins) goes to whichever udev processed last, which differs from one trigger to the next
# with or without lund: for those, record "shared" when the link points to one of the devices
# that claim it (from udev's own DEVLINKS), and the target otherwise.
byid() {
	for b in /sys/block/sd* /sys/block/sr*; do
		[ -e "$b" ] || continue
		for l in $(udevadm info -q symlink -n "/dev/${b##*/}"); do
			case $l in disk/by-id/*) printf '%s\t../../%s\n' "${l#disk/by-id/}" "${b##*/}" ;; esac
		done
	done | sort >/tmp/claims
	for f in /dev/disk/by-id/*; do
		n=${f##*/} t=$(readlink "$f")
		c=$(awk -F'\t' -v n="$n" '$1 == n' /tmp/claims | wc -l)
		if [ "$c" -gt 1 ] && grep -qxF "$n	$t" /tmp/claims; then t=shared; fi
		printf '%s\t%s\n' "$n" "$t"
	done | sort
}
retrigger() {
	udevadm control --reload
	udevadm trigger --action=change -s block -s scsi_generic
	udevadm settle --timeout=180
}

san_up
udevadm settle --timeout=180
vm_sync RULES 60
[ -r /vm/out/59-lund.rules ] || vm_fail "the host did not provide rules/59-lund.rules"
sed -e "s|@BINDIR@|/usr/local/bin|g" -e "s|@RUNDIR@|/run/lund|g" /vm/out/59-lund.rules >/tmp/59-lund.rules

# --- Debian's rules as shipped (with sg3-utils-udev) ------------------------------------------
retrigger
byid >/tmp/byid.stock
vm_assert_ge 20 "$(wc -l </tmp/byid.stock)" "by-id links with Debian's rules"
cp /tmp/59-lund.rules $RULES/59-lund.rules
lund_start
retrigger
byid >/tmp/byid.lund
if cmp -s /tmp/byid.stock /tmp/byid.lund; then
	vm_log "ok: /dev/disk/by-id unchanged with lund and its rule ($(wc -l </tmp/byid.lund) links)"
else
	vm_fail "/dev/disk/by-id changed with lund's rule (Debian's rules)"; diff /tmp/byid.stock /tmp/byid.lund | head -n 20
fi
# sg nodes: lunctl's IDs (nothing else identifies them)
withid=0 total=0
for s in /sys/class/scsi_generic/sg*; do
	total=$((total + 1))
	udevadm info -q property -n "/dev/${s##*/}" | grep -q '^SCSI_IDENT_SERIAL=\|^ID_SERIAL=' && withid=$((withid + 1))
done
vm_assert_ge 20 "$withid" "sg nodes with lunctl's ID properties (of $total)"
daemon_check_tree "lund beside udevd" 30
st=$(lunctl status)
echo "$st" | grep -q '^Foreign files: *0$' || vm_fail "lund reports foreign files: $(echo "$st" | grep -A3 Foreign)"

# --- udev's own scsi_id path (no sg3-utils rule): lunctl must give the same links -------------
mkdir -p /tmp/off
mv /lib/udev/rules.d/55-scsi-sg3_id.rules /tmp/off/ 2>/dev/null || vm_log "no 55-scsi-sg3_id.rules"
rm -f $RULES/59-lund.rules
retrigger
byid >/tmp/byid.scsi_id
cp /tmp/59-lund.rules $RULES/59-lund.rules
retrigger
byid >/tmp/byid.lunctl
if cmp -s /tmp/byid.scsi_id /tmp/byid.lunctl; then
	vm_log "ok: /dev/disk/by-id from lunctl's IDs equals scsi_id's ($(wc -l </tmp/byid.lunctl) links)"
else
	vm_fail "/dev/disk/by-id from lunctl differs from scsi_id's"; diff /tmp/byid.scsi_id /tmp/byid.lunctl | head -n 20
fi
# proof the disks' IDs came from lunctl: SCSI_IDENT_* is only exported by lunctl now
from_lunctl=0
for b in /sys/block/sd*; do
	udevadm info -q property -n "/dev/${b##*/}" | grep -q '^SCSI_IDENT_' && from_lunctl=$((from_lunctl + 1))
done
vm_assert_ge 10 "$from_lunctl" "disks identified by lunctl's import"
vm_result "by_id_stock=$(wc -l </tmp/byid.stock) by_id_scsi_id=$(wc -l </tmp/byid.scsi_id) sg_with_ids=$withid disks_from_lunctl=$from_lunctl"
# lund named the LUs with sg3-utils' rules installed (its names follow the rule files present
# when an LU is identified, as lunctl's do): put them back before comparing
mv /tmp/off/55-scsi-sg3_id.rules /lib/udev/rules.d/ 2>/dev/null || true
daemon_check_tree "after the retriggers" 30

# --- serial-path names through udev ------------------------------------------------------------
# An admin marks QEMU's USB mass storage (46f4:0001: the stick and both LUNs of the reader) as a
# bridge whose serials cannot be trusted (lund.hwdb(7), LUND_NAME_IDENTITY=serial-path), compiles
# the hwdb and reloads lund: each USB LU's /dev/scsi/by-id name becomes its base name plus
# ID_PATH_TAG, made by udevd from lund's records (in udev's database for the disk), the identity
# names go, and /dev/disk/by-id stays udev's.
mkdir -p /etc/udev/hwdb.d
printf 'lund:usb:v46F4p0001*\n LUND_NAME_IDENTITY=serial-path\n' >/etc/udev/hwdb.d/70-lund-test.hwdb
t0=$(vm_uptime_ms)
systemd-hwdb update || vm_fail "systemd-hwdb update failed"
vm_log "systemd-hwdb update: $(( $(vm_uptime_ms) - t0 )) ms"
lund_names_from_lunctl >/tmp/exp.names
lunctl reload >/dev/null || vm_fail "lunctl reload failed"
: >/tmp/sp.exp
for d in /sys/bus/scsi/devices/*:*:*:*; do
	case $(readlink -f "$d") in */usb*) ;; *) continue ;; esac
	[ -d "$d/block" ] || continue
	h=${d##*/}
	base=$(awk -F'\t' -v h="$h" '$1 == h { print $2; exit }' /tmp/exp.names)
	tag=$(LUND_RUN_DIR=/nonexistent lunctl id --export "$h" | sed -n 's/^ID_PATH_TAG=//p')
	[ -n "$base" ] && [ -n "$tag" ] || { vm_fail "$h: no base name ('$base') or tag ('$tag')"; continue; }
	printf '%s\t%s\t%s\t%s\n' "$h" "$base-$tag" "$(ls "$d/block")" "$base" >>/tmp/sp.exp
done
vm_assert_ge 3 "$(wc -l </tmp/sp.exp)" "USB LUs (stick, reader x2)"
sp_by_udev() {
	while IFS="$(printf '\t')" read -r h name blk base; do
		[ "$(readlink "$LUND_LINKS/$name")" = "../../$blk" ] || return 1
		udevadm info -q symlink -n "/dev/$blk" | tr ' ' '\n' | grep -qxF "scsi/by-id/$name" || return 1
		[ ! -e "$LUND_LINKS/$base" ] && [ ! -L "$LUND_LINKS/$base" ] || return 1
	done </tmp/sp.exp
}
if ! vm_wait_until 60 sp_by_udev; then
	while IFS="$(printf '\t')" read -r h name blk base; do
		vm_log "$h $blk: $name -> '$(readlink "$LUND_LINKS/$name")'; $base -> '$(readlink "$LUND_LINKS/$base")';" \
			"udev: $(udevadm info -q symlink -n "/dev/$blk" | tr ' ' '\n' | grep '^scsi/' | tr '\n' ' ')"
	done </tmp/sp.exp
	vm_fail "serial-path names not made by udev from lund's records"
fi
# every event imports the records again: a full retrigger (now with Debian's rules as shipped,
# 55-scsi-sg3_id.rules back) keeps them, and /dev/disk/by-id is as it was without lund
retrigger
sp_by_udev || vm_fail "serial-path names lost in a retrigger"
byid >/tmp/byid.sp
cmp -s /tmp/byid.stock /tmp/byid.sp || { vm_fail "/dev/disk/by-id changed with the serial-path rule"; diff /tmp/byid.stock /tmp/byid.sp | head -n 20; }
st=$(lunctl status)
echo "$st" | grep -q '^Foreign files: *0$' || vm_fail "lund reports foreign files: $(echo "$st" | grep -A3 Foreign)"
vm_result "serial_path_by_udev=$(wc -l </tmp/sp.exp) example=$(head -n1 /tmp/sp.exp | cut -f2)"

lund_alive || vm_fail "lund died"
lund_stop
vm_done
