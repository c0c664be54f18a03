#!/bin/sh
# naming-peers: on every SCSI device of the SAN, `lunctl id --export` against the peers run on
# the same device in the same VM: udev's scsi_id (ID_* lines) and sg_inq --export (SCSI_*
# lines) must be identical, and lunctl must not send a single SCSI command when the kernel has
# cached the pages (the device's iorequest_cnt does not move). Then `lunctl list` against
# lsscsi on the same LUs: `--transport --size` against `lsscsi -t -s` field for field (type,
# transport, device node, size), vendor, model and revision against lsscsi's, `-H -t` against
# `lsscsi -H -t`, H:C:T:L filters, and every option `lsscsi --help` names taken or refused with
# a hint (guest/lsscsi-lib.sh, which admin-session runs against Debian 12's and 13's lsscsi).
# vm-flavour: busybox
# vm-topology: san
# vm-timeout: 185
. /vm/guest/lib.sh

san_up
mdev -s 2>/dev/null || true

devices=0 same_id=0 same_sg=0 silent=0
for d in /sys/class/scsi_device/*; do
	hctl=${d##*/}
	s=$d/device
	read -r pn < "/sys/class/scsi_host/host${hctl%%:*}/proc_name"
	read -r type < "$s/type"
	read -r model < "$s/model"
	name=$(san_name "$pn" "$hctl" "$type" "$model" "$(readlink -f "$s")")
	blk=$(ls "$s/block" 2>/dev/null | head -n1)
	sg=$(ls "$s/scsi_generic" 2>/dev/null | head -n1)
	node=/dev/${blk:-$sg}
	[ -e "$node" ] || { vm_fail "$name: no device node for $hctl"; continue; }
	devices=$((devices + 1))

	# 1. No SCSI command when the kernel has the pages: the LU's request counter is unchanged.
	#    (Removable media are polled by the kernel itself, so the counter proves nothing there.)
	read -r before < "$s/iorequest_cnt"
	lunctl id --export "$node" > /tmp/lund.all 2>/tmp/lund.err || vm_fail "$name: lunctl id failed: $(cat /tmp/lund.err)"
	read -r after < "$s/iorequest_cnt"
	removable=0
	[ -z "$blk" ] || read -r removable < "$s/block/$blk/removable"
	cmds=$(lunctl id --json "$node" | sed -n 's/.*"scsi_commands": *\([0-9]*\).*/\1/p')
	# With the pages cached (the kernel reads VPD only from devices it deems capable: not from
	# most MMC drives), the count must be zero; otherwise lunctl asked for what was missing.
	sgio=$(lunctl id --json "$node" | grep -c '"sgio"' || true)
	if [ -e "$s/inquiry" ] && [ -e "$s/vpd_pg83" ]; then
		vm_assert_eq 0 "$cmds" "$name: SCSI commands lunctl id counted (pages cached)"
		if [ "$removable" = 0 ] && [ "$type" != 5 ]; then
			vm_assert_eq 0 $((after - before)) "$name: SCSI commands the kernel saw (iorequest_cnt)"
		fi
	else
		vm_assert_ge "$sgio" "$cmds" "$name: one command per page the kernel did not cache"
		vm_log "$name: kernel cached no vpd_pg83; lunctl read $sgio page(s) with SG_IO"
	fi
	[ "$cmds" = 0 ] && silent=$((silent + 1))

	# 2. scsi_id --export --whitelisted -g: identical ID_* lines.
	/lib/udev/scsi_id --export --whitelisted -g -d "$node" > /tmp/peer.id 2>/dev/null || true
	grep '^ID_' /tmp/lund.all | grep -Ev '^ID_PATH(_TAG|_ATA_COMPAT)?=' > /tmp/lund.id || true
	if cmp -s /tmp/peer.id /tmp/lund.id; then
		same_id=$((same_id + 1)); r_id=same
	else
		r_id=differs
		vm_fail "$name ($hctl): ID_* lines differ from scsi_id"
		diff /tmp/peer.id /tmp/lund.id || true
	fi

	# 3. sg_inq --export: identical SCSI_* lines. sg_inq exports one page per run, as
	#    Debian's 55-scsi-sg3_id.rules runs it: standard INQUIRY, then 0x80, then 0x83.
	{
		sg_inq --export "$node"
		sg_inq --export -p sn "$node"
		sg_inq --export -p di "$node"
	} > /tmp/peer.sg 2>/dev/null || true
	grep '^SCSI_' /tmp/lund.all > /tmp/lund.sg || true
	if cmp -s /tmp/peer.sg /tmp/lund.sg; then
		same_sg=$((same_sg + 1)); r_sg=same
	else
		r_sg=differs
		vm_fail "$name ($hctl): SCSI_* lines differ from sg_inq --export"
		diff /tmp/peer.sg /tmp/lund.sg || true
	fi
	vm_result "device=$name hctl=$hctl node=${node#/dev/} scsi_id=$r_id sg_inq=$r_sg commands=$cmds"
done

vm_result "devices=$devices scsi_id_same=$same_id sg_inq_same=$same_sg zero_commands=$silent"
expected=$(echo "$SAN_EXPECT" | awk '{ n += $2 } END { print n }')
vm_assert_eq "$expected" "$devices" "devices compared"

# 4. lunctl list against lsscsi, field for field (guest/lsscsi-lib.sh): -t -s, vendor, model
#    and revision, -H -t, H:C:T:L filters, every lsscsi option taken or refused with a hint
. /vm/guest/lsscsi-lib.sh
lsscsi_compare "$expected"
vm_done
