#!/bin/sh
# naming-peers: on every SCSI device of the SAN, `lunctl id --export` against the peers run on
# the same device in the same VM: udev's scsi_id (ID_* lines) and sg_inq --export (SCSI_*
# lines) must be identical, and lunctl must not send a single SCSI command when the kernel has
# cached the pages (the device's iorequest_cnt does not move). Then `lunctl list` against
# lsscsi on the same LUs: `--transport --size` against `lsscsi -t -s` field for field (type,
# transport, device node, size), vendor, model and revision against lsscsi's, `-H -t` against
# `lsscsi -H -t`, and H:C:T:L filters.
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

# 4. lunctl list --transport --size against lsscsi -t -s, field for field. lsscsi's line is
#    "[H:C:T:L]" (13 columns), the type (8), the transport (30 + 2, may hold blanks), the device
#    node and the size: read from both ends. lunctl's --pairs lines are KEY="value", quoted and
#    escaped by libsmartcols, so the shell reads them back.
common() { awk 'NR == FNR { a[$0] = 1; next } a[$0] { n++ } END { print n + 0 }' "$1" "$2"; } # lines in both
pairs() { # KEY...: lunctl's --pairs lines on stdin as "VALUE|VALUE..." lines
	while read -r line; do
		for k; do eval "$k="; done
		eval "$line"
		out= sep=
		for k; do eval "out=\"\$out\$sep\$$k\""; sep='|'; done
		echo "$out"
	done
}
same_as_lsscsi() { # WHAT LSSCSI_FILE LUNCTL_FILE
	cmp -s "$2" "$3" && return 0
	vm_fail "$1 differs from lsscsi (< lsscsi, > lunctl)"
	diff "$2" "$3" || true
}
lsscsi -t -s | awk '{
	h = $1; gsub(/[][]/, "", h)
	s = length($1) >= 13 ? length($1) + 2 : 14
	type = substr($0, s, 7); sub(/ +$/, "", type)
	rest = substr($0, s + 8)
	sub(/[ ]+[^ ]+[ ]+[^ ]+[ ]*$/, "", rest); sub(/^ +/, "", rest); sub(/ +$/, "", rest)
	node = $(NF - 1)
	if (node !~ /^\/dev\/(sd|sr|st|nst)/) node = "-"
	print h "|" type "|" rest "|" node "|" $NF
}' | sort > /tmp/lsscsi.ts
lunctl list --transport --size -o HCTL,PDT,TRANSPORT,BLOCK,TAPE,SIZE --pairs > /tmp/lunctl.pairs 2>/tmp/lunctl.err ||
	vm_fail "lunctl list --transport --size failed: $(cat /tmp/lunctl.err)"
while read -r line; do
	HCTL= PDT= TRANSPORT= BLOCK= TAPE= SIZE=
	eval "$line"
	node=-
	[ -n "$TAPE" ] && node=/dev/$TAPE
	[ -n "$BLOCK" ] && node=/dev/$BLOCK
	echo "$HCTL|$PDT|$TRANSPORT|$node|$SIZE"
done < /tmp/lunctl.pairs | sort > /tmp/lunctl.ts
lus=$(wc -l < /tmp/lsscsi.ts)
same=$(common /tmp/lsscsi.ts /tmp/lunctl.ts)
kinds=$(cut -d'|' -f3 /tmp/lsscsi.ts | sed 's/:.*//; s/^iqn.*/iqn/; s/^$/none/' | sort -u | tr '\n' ' ')
if ! cmp -s /tmp/lsscsi.ts /tmp/lunctl.ts; then
	vm_fail "lunctl list --transport --size differs from lsscsi -t -s (< lsscsi, > lunctl)"
	diff /tmp/lsscsi.ts /tmp/lunctl.ts || true
fi
vm_assert_eq "$expected" "$lus" "LUs lsscsi -t -s lists"
vm_result "list-vs-lsscsi lus=$lus same=$same transports=$kinds"
while IFS='|' read -r h t tr n sz; do
	vm_result "list hctl=$h type=$t transport=${tr:--} node=$n size=$sz"
done < /tmp/lunctl.ts

# 4b. vendor, model and revision as lsscsi prints them: INQUIRY's own bytes (after the type,
#     8, 16 and 4 columns wide), not udev's ID_VENDOR/ID_MODEL forms.
lsscsi | awk '{
	h = $1; gsub(/[][]/, "", h)
	s = length($1) >= 13 ? length($1) + 2 : 14
	v = substr($0, s + 8, 8); m = substr($0, s + 17, 16); r = substr($0, s + 34, 4)
	sub(/ +$/, "", v); sub(/ +$/, "", m); sub(/ +$/, "", r)
	print h "|" v "|" m "|" r
}' | sort > /tmp/lsscsi.vmr
lunctl list -o HCTL,VENDOR,MODEL,REV --pairs | pairs HCTL VENDOR MODEL REV | sort > /tmp/lunctl.vmr
same_as_lsscsi "lunctl list's vendor, model and revision" /tmp/lsscsi.vmr /tmp/lunctl.vmr
vm_result "inquiry-vs-lsscsi lus=$(wc -l < /tmp/lsscsi.vmr) same=$(common /tmp/lsscsi.vmr /tmp/lunctl.vmr)"

# 5. hosts: lunctl list -H -t against lsscsi -H -t ("[N]  proc_name  transport")
lsscsi -H -t | awk '{ h = $1; gsub(/[][]/, "", h); t = $0; sub(/^[^ ]+ +[^ ]+ */, "", t); sub(/ +$/, "", t); print h "|" $2 "|" t }' |
	sort > /tmp/lsscsi.hosts
lunctl list -H -t --pairs | pairs HOST DRIVER TRANSPORT | sort > /tmp/lunctl.hosts
same_as_lsscsi "lunctl list -H -t" /tmp/lsscsi.hosts /tmp/lunctl.hosts
vm_result "hosts-vs-lsscsi hosts=$(wc -l < /tmp/lsscsi.hosts) same=$(common /tmp/lsscsi.hosts /tmp/lunctl.hosts)"
while IFS='|' read -r h d tr; do vm_result "host $h driver=$d transport=${tr:--}"; done < /tmp/lunctl.hosts

# 6. filters: the LUs lunctl list H:C:T:L selects are those lsscsi H:C:T:L lists.
first=$(head -n1 /tmp/lsscsi.ts | cut -d'|' -f1)
last=$(tail -n1 /tmp/lsscsi.ts | cut -d'|' -f1)
h1=${first%%:*} hl=${last%%:*}
filters=0
for f in "$h1" "host$hl" "$hl:0" "$first" "[$last]" "*:*:*:1" "*:*:1" "?:0:0:0" "$hl:-:-:0" "$(echo "$last" | tr ':' ' ')"; do
	# shellcheck disable=SC2086 # the last filter is four arguments
	lsscsi $f | awk '{ h = $1; gsub(/[][]/, "", h); print h }' | sort > /tmp/f.lsscsi
	# shellcheck disable=SC2086
	lunctl list -o HCTL --noheadings --raw -- $f | sort > /tmp/f.lunctl
	n=$(wc -l < /tmp/f.lsscsi)
	if cmp -s /tmp/f.lsscsi /tmp/f.lunctl; then
		filters=$((filters + 1))
	else
		vm_fail "filter '$f': lunctl list selects other LUs than lsscsi"
		diff /tmp/f.lsscsi /tmp/f.lunctl || true
	fi
	vm_log "filter '$f': $n LU(s)"
done
vm_assert_eq 10 "$filters" "filters selecting what lsscsi selects"
vm_done
