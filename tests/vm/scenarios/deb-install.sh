#!/bin/bash
# deb-install: the Debian package as an admin meets it. Boot 1: the systemd-root flavour's
# Debian 12 root without lund; `dpkg -i` of the package tools/deb built (its dependencies are in
# the root, nothing is fetched), the unit enabled by the package and its preset, started; reboot.
# Boot 2 (same disk): lund.service started by the boot itself and ready, `lunctl status`
# answering, every LU's names as `lunctl names` reports them linked in /dev/scsi/by-id and the
# tree lund(8) promises, the udev rule and hwdb where the package puts them (the rule's IDs on an
# sg node, which only it gives), /etc/lund/lund.conf a conffile; then `dpkg --purge lund` stops
# lund and removes its state and its links, and leaves a foreign link alone.
# LUs: scsi_debug's 8 (stage 1 loads it; its two hosts report the same IDs, so half the names
# collide) and one virtio-scsi disk with serial and wwn.
# vm-flavour: systemd-root
# vm-release: 12 13
# vm-topology: none
# vm-qemu: -device virtio-scsi-pci,id=vscsi0
# vm-qemu: -blockdev driver=null-co,node-name=deb0,read-zeroes=on,size=33554432
# vm-qemu: -device scsi-hd,bus=vscsi0.0,scsi-id=0,lun=0,drive=deb0,serial=DEBINST001,wwn=0x5000c500deb00001
# vm-reboot: 1
# vm-install: none
# vm-timeout: 1500
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

# Debian 12's package installs below /lib, 13's below /usr/lib (/lib its alias there)
LIB=/lib; [ "$VM_RELEASE" = 12 ] || LIB=/usr/lib
PKG_UNIT=$LIB/systemd/system/lund.service
PKG_RULE=$LIB/udev/rules.d/59-lund.rules
PKG_HWDB=$LIB/udev/hwdb.d/60-lund.hwdb
CONF=/etc/lund/lund.conf

vm_assert_eq 1 "$(grep -c '^systemd$' /proc/1/comm)" "systemd is PID 1"
boot_ms=$(vm_uptime_ms)
state=$(timeout 240 systemctl is-system-running --wait 2>&1) || :
vm_result "boot${VM_BOOT}_system=$state boot${VM_BOOT}_scenario_start_ms=$boot_ms"
[ "$state" = running ] || systemctl --failed --no-pager --plain || :
systemd-analyze time 2>&1 | head -n 1 || :

if [ "$VM_BOOT" = 1 ]; then
	# --- boot 1: install ---
	vm_assert "no lund in the root before the package" test ! -e /usr/sbin/lund -a ! -e /usr/local/bin/lund -a ! -e $PKG_UNIT
	cp "$VM_OUT/lund.deb" /tmp/lund.deb
	vm_result "package=$(dpkg-deb -f /tmp/lund.deb Package)_$(dpkg-deb -f /tmp/lund.deb Version)_$(dpkg-deb -f /tmp/lund.deb Architecture)"
	t0=$(vm_uptime_ms)
	if dpkg -i /tmp/lund.deb >/tmp/dpkg-i.log 2>&1; then
		vm_log "ok: dpkg -i"
	else
		vm_fail "dpkg -i failed: $(tail -n 5 /tmp/dpkg-i.log | tr '\n' ' ')"
	fi
	vm_result "dpkg_i_ms=$(($(vm_uptime_ms) - t0))"
	cat /tmp/dpkg-i.log
	vm_assert_eq "install ok installed" "$(dpkg-query -W -f='${Status}' lund 2>&1)" "dpkg status of lund"
	dpkg -L lund >"$VM_OUT/dpkg-L.txt" 2>&1 || :
	vm_assert "the package put lund in /usr/sbin" test -x /usr/sbin/lund
	vm_assert "the package put lunctl in /usr/bin" test -x /usr/bin/lunctl

	# enabled: Debian's postinst enables the unit (its [Install] section), and the preset the
	# package ships says the same (systemctl preset would enable it too)
	vm_assert_eq enabled "$(systemctl is-enabled lund.service 2>&1)" "systemctl is-enabled lund.service"
	systemctl list-unit-files --no-legend --no-pager lund.service | tee /tmp/luf
	vm_assert_eq "lund.service enabled enabled" "$(awk '{ print $1, $2, $3 }' /tmp/luf)" "unit file state and vendor preset"
	vm_assert "enabled as WantedBy=sysinit.target" test -L /etc/systemd/system/sysinit.target.wants/lund.service
	vm_assert "the preset file is installed" grep -qx 'enable lund.service' $LIB/systemd/system-preset/80-lund.preset
	# the postinst also started it
	vm_wait_until 60 systemctl is-active -q lund.service || :
	vm_assert_eq active "$(systemctl is-active lund.service 2>&1)" "lund.service after dpkg -i"
	vm_assert_eq /usr/bin/lunctl "$(command -v lunctl)" "lunctl on PATH"
	vm_reboot
fi

# --- boot 2: started by the boot ---
vm_assert_eq 2 "$VM_BOOT" "boot number"
vm_assert_eq "install ok installed" "$(dpkg-query -W -f='${Status}' lund 2>&1)" "lund still installed after the reboot"
systemctl show -p ActiveState,SubState,NRestarts,Result,Type,StatusText,WantedBy,FragmentPath,ExecMainStartTimestampMonotonic,ActiveEnterTimestampMonotonic lund.service |
	tee /tmp/lund.show
prop() { sed -n "s/^$1=//p" /tmp/lund.show; }
vm_assert_eq active "$(prop ActiveState)" "lund.service ActiveState"
vm_assert_eq running "$(prop SubState)" "lund.service SubState"
vm_assert_eq 0 "$(prop NRestarts)" "lund.service NRestarts"
vm_assert_eq $PKG_UNIT "$(prop FragmentPath)" "lund.service is the package's unit"
vm_assert "lund.service is wanted by sysinit.target" grep -q '^WantedBy=.*sysinit.target' /tmp/lund.show
ready=$(prop ActiveEnterTimestampMonotonic)
scen=$(systemctl show -p ExecMainStartTimestampMonotonic --value vm-scenario.service)
vm_assert "lund was ready during the boot (${ready:-0} us), before the scenario (${scen:-0} us)" \
	test "${ready:-0}" -gt 0 -a "${ready:-0}" -lt "${scen:-0}"
vm_result "lund_ready_ms=$((${ready:-0} / 1000))"
journalctl -b -u lund.service --no-pager -o short-monotonic >/tmp/lund.journal 2>&1 || :
cp /tmp/lund.journal "$VM_OUT/lund.journal" 2>/dev/null || :
vm_assert "lund was started in this boot" grep -q 'Ready:' /tmp/lund.journal

lunctl status --json >/tmp/status.json 2>&1 || vm_fail "lunctl status failed: $(head -c 200 /tmp/status.json)"
vm_assert "lunctl status: ready" grep -q '"ready": *true' /tmp/status.json
lunctl status || :

# --- the LUs and their names ---
vm_wait_until 60 san_all_present || :
vm_assert_eq 8 "$(san_count scsi_debug)" "scsi_debug LUs"
vm_assert_eq 1 "$(san_count virtio_scsi)" "virtio-scsi LUs"
# per LU: every LU wants at least one name; the names `lunctl names` reports linked in
# /dev/scsi/by-id (it lists the by-path ones too), with their targets, are exactly that
# directory as it is (each link there points where lunctl says, and none is nobody's)
: >/tmp/names.linked
for d in /sys/bus/scsi/devices/*:*:*:*; do
	hctl=${d##*/}
	if ! lunctl names "$hctl" >/tmp/names.out 2>&1; then
		vm_fail "lunctl names $hctl failed: $(head -c 200 /tmp/names.out)"
		continue
	fi
	wanted=$(awk '$3 == "->" && ($1 == "linked" || $1 == "collision")' /tmp/names.out | wc -l)
	vm_assert_ge 1 "$wanted" "names lund gives $hctl"
	awk '$1 == "linked" && $3 == "->" && $2 ~ /scsi\/by-id\// { n = split($2, p, "/"); print p[n] "\t" $4 }' /tmp/names.out >>/tmp/names.linked
done
sort -t"$(printf '\t')" -k1,1 -o /tmp/names.linked /tmp/names.linked
daemon_actual >/tmp/names.act
vm_assert "/dev/scsi/by-id holds exactly the names lunctl names reports linked" cmp -s /tmp/names.linked /tmp/names.act
diff /tmp/names.linked /tmp/names.act | head -n 20 || :
vm_assert_ge 9 "$(wc -l </tmp/names.act)" "links in /dev/scsi/by-id"
# and the tree lund(8) promises, computed from independent evidence (guest/daemon-lib.sh)
daemon_check_tree "after the reboot" 60
vm_result "lus=$(n_lus) links=$(wc -l </tmp/names.act)"

# --- udev rule, hwdb, conffile ---
for f in $PKG_RULE $PKG_HWDB $CONF; do
	vm_assert "$f is installed" test -s "$f"
	vm_assert_eq "lund: $f" "$(dpkg -S "$f" 2>&1)" "owner of $f"
done
vm_assert "the rule runs the installed lunctl" grep -q 'IMPORT{program}="/usr/bin/lunctl id --export' $PKG_RULE
vm_assert "udev compiled the hwdb after the package was installed" \
	test /lib/udev/hwdb.bin -nt $LIB/systemd/system-preset/80-lund.preset -o /etc/udev/hwdb.bin -nt $LIB/systemd/system-preset/80-lund.preset
# the rule gives sg nodes IDs (udev's stock rules do not): the virtio disk's sg node
vsg=
for d in /sys/bus/scsi/devices/*:*:*:*; do
	read -r pn <"/sys/class/scsi_host/host$(echo "${d##*/}" | cut -d: -f1)/proc_name"
	[ "$pn" = virtio_scsi ] && vsg=$(ls "$d/scsi_generic" 2>/dev/null | head -n1)
done
if [ -n "$vsg" ]; then
	sg_serial=$(udevadm info -q property -n "/dev/$vsg" | sed -n 's/^ID_SERIAL=//p')
	want=$(lunctl id --export "/dev/$vsg" | sed -n 's/^ID_SERIAL=//p')
	vm_assert "lunctl id gives /dev/$vsg an ID_SERIAL" test -n "$want"
	vm_assert_eq "$want" "$sg_serial" "ID_SERIAL udev has for /dev/$vsg (59-lund.rules)"
else
	vm_fail "no sg node for the virtio-scsi disk"
fi
dpkg-query -W -f='${Conffiles}\n' lund | tee /tmp/conffiles
vm_assert "$CONF is a conffile" grep -q "^ $CONF [0-9a-f]\{32\}$" /tmp/conffiles
vm_assert_eq "$(awk -v f=$CONF '$1 == f { print $2 }' /tmp/conffiles)" "$(md5sum $CONF | cut -d' ' -f1)" "$CONF as shipped"

# --- purge ---
ln -s /dev/null /dev/scsi/by-id/admin-foreign-link
vm_assert "lund keeps state under /run/lund" test -d /run/lund/links
t0=$(vm_uptime_ms)
if dpkg --purge lund >/tmp/dpkg-purge.log 2>&1; then vm_log "ok: dpkg --purge lund"
else vm_fail "dpkg --purge lund failed: $(tail -n 5 /tmp/dpkg-purge.log | tr '\n' ' ')"; fi
vm_result "dpkg_purge_ms=$(($(vm_uptime_ms) - t0))"
cat /tmp/dpkg-purge.log
vm_assert "lund is no longer known to dpkg" sh -c '! dpkg-query -W -f="\${Status}" lund 2>/dev/null | grep -q installed'
vm_assert "lund is not running" sh -c '! grep -qx lund /proc/[0-9]*/comm'
vm_assert "no state left under /run/lund" test ! -e /run/lund
for f in /usr/sbin/lund /usr/bin/lunctl $PKG_UNIT $PKG_RULE $PKG_HWDB $CONF /etc/lund \
	/etc/systemd/system/sysinit.target.wants/lund.service; do
	vm_assert "purge removed $f" test ! -e "$f" -a ! -L "$f"
done
ls -la /dev/scsi/by-id/ 2>&1 || :
vm_assert_eq "admin-foreign-link" "$(ls /dev/scsi/by-id 2>&1 | tr '\n' ' ' | sed 's/ $//')" "only the foreign link is left in /dev/scsi/by-id"
vm_assert_eq /dev/null "$(readlink /dev/scsi/by-id/admin-foreign-link)" "the foreign link untouched"
vm_done
