# tests/vm/guest/systemd-root.sh: stage 1 of the "systemd-root" flavour (sourced by /init,
# with udev-root.sh, whose udev_root_switch calls systemd_root_prepare before switch_root).
#
# The root image (mkroot.sh systemd-root: Debian 12 minbase + systemd-sysv + udev) boots with
# systemd as PID 1. What stage 1 does first is what an initramfs does for storage: load the
# upper-level drivers, scsi_debug and the HBA drivers present at boot, and wait for the hosts,
# for libata's devices (it adds its own whatever scsi_mod.scan says) and for the SAS end devices.
# USB storage is left to udevd in the real root: its host appears while the system boots.
# Then, in the overlay: lund installed from /vm (unit as meson configures it, enabled as
# `systemctl enable` would: WantedBy=sysinit.target), units useless in a VM masked, and two
# harness units:
#   vm-at-ready.service  after lund, before local-fs-pre.target: records what a unit ordered
#                        after lund sees (guest/systemd-at-ready, into /run/vm-at-ready)
#   vm-scenario.service  after multi-user.target: runs the scenario (guest/systemd-stage2),
#                        which reports over /dev/ttyS1 and powers off as in the other flavours.

_sdroot_last=-1 _sdroot_same=0
_sdroot_want() { echo "$SAN_EXPECT" | awk -v p="$1" '$1 == p { print $2 + 0; f = 1 } END { if (!f) print 0 }'; }
_sdroot_settled() {
	_n=$(ls /sys/class/scsi_host | wc -l)
	if [ "$_n" = "$_sdroot_last" ]; then _sdroot_same=$((_sdroot_same + 1)); else _sdroot_same=0; fi
	_sdroot_last=$_n
	[ "$_sdroot_same" -ge 5 ] || return 1
	[ "$(san_count ahci)" -ge "$(_sdroot_want ahci)" ] || return 1
	[ "$(ls /sys/class/sas_end_device 2>/dev/null | wc -l)" -ge "$(_sdroot_want mptsas)" ]
}

# systemd_root_storage: the initramfs part; records the state in /newroot/vm/stage1.
systemd_root_storage() {
	modprobe -a sd_mod sr_mod st sg
	modprobe scsi_debug $SAN_SCSI_DEBUG
	vm_coldplug pci virtio
	vm_wait_until 60 _sdroot_settled || vm_log "systemd-root: storage did not settle within 60 s"
	mkdir -p /newroot/vm/stage1
	cat /sys/module/scsi_mod/parameters/scan >/newroot/vm/stage1/scan 2>/dev/null || :
	for _h in /sys/class/scsi_host/host*; do
		[ -e "$_h" ] || continue
		read -r _pn <"$_h/proc_name" && echo "$_pn"
	done | sort | uniq -c | awk '{ print $2, $1 }' >/newroot/vm/stage1/hosts
	san_counts >/newroot/vm/stage1/lus
	vm_log "systemd-root: storage up: hosts $(tr '\n' ' ' </newroot/vm/stage1/hosts); LUs $(tr '\n' ' ' </newroot/vm/stage1/lus)"
}

_sdroot_unit() {	# NAME: stdin becomes /etc/systemd/system/NAME
	cat >"/newroot/etc/systemd/system/$1"
}

systemd_root_prepare() {
	systemd_root_storage
	_etc=/newroot/etc/systemd/system
	mkdir -p "$_etc/sysinit.target.wants" "$_etc/multi-user.target.wants"
	# lund: the unit as installed, enabled like `systemctl enable lund` (its [Install] section)
	# (not with `# vm-install: none`: the scenario installs the package)
	if [ -r /vm/lund.service ] && [ "$VM_INSTALL" != none ]; then
		cp /vm/lund.service "$_etc/lund.service"
		_exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' /vm/lund.service)
		if [ -n "$_exe" ] && [ ! -e "/newroot$_exe" ]; then
			mkdir -p "/newroot${_exe%/*}"
			ln -s /usr/local/bin/lund "/newroot$_exe"
		fi
		for _w in $(sed -n 's/^WantedBy=//p' /vm/lund.service); do
			mkdir -p "$_etc/$_w.wants"
			ln -sf ../lund.service "$_etc/$_w.wants/lund.service"
		done
	fi
	# a booted system, not a first boot; multi-user, no gettys (the console is the log)
	echo 4c756e64564d0000000000000000b007 >/newroot/etc/machine-id
	ln -sf /lib/systemd/system/multi-user.target "$_etc/default.target"
	for _u in getty.target getty@tty1.service serial-getty@ttyS0.service console-getty.service \
		systemd-logind.service systemd-firstboot.service systemd-hwdb-update.service \
		ldconfig.service systemd-journal-catalog-update.service systemd-update-done.service \
		systemd-update-utmp.service systemd-update-utmp-runlevel.service \
		systemd-random-seed.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount \
		apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
		e2scrub_reap.service fstrim.timer systemd-tmpfiles-clean.timer; do
		ln -sf /dev/null "$_etc/$_u"
	done
	_sdroot_unit vm-at-ready.service <<-'UNIT'
	[Unit]
	Description=VM harness: what units ordered after lund see
	DefaultDependencies=no
	After=lund.service
	Before=local-fs-pre.target
	Wants=local-fs-pre.target
	[Service]
	Type=oneshot
	RemainAfterExit=yes
	ExecStart=/bin/bash /vm/guest/systemd-at-ready
	UNIT
	ln -sf ../vm-at-ready.service "$_etc/sysinit.target.wants/vm-at-ready.service"
	_sdroot_unit vm-scenario.service <<-'UNIT'
	[Unit]
	Description=VM harness: the scenario
	After=multi-user.target
	[Service]
	Type=exec
	ExecStart=/bin/sh /vm/guest/systemd-stage2
	StandardInput=null
	StandardOutput=tty
	StandardError=tty
	TTYPath=/dev/console
	UNIT
	ln -sf ../vm-scenario.service "$_etc/multi-user.target.wants/vm-scenario.service"
	cp -a /vm/lund.service /newroot/vm/ 2>/dev/null || :
	# a scenario's own set-up of the root before it boots (its fstab, its units)
	if [ -n "$VM_SCENARIO" ] && [ -r "/vm/guest/$VM_SCENARIO.stage1" ]; then
		. "/vm/guest/$VM_SCENARIO.stage1"
	fi
	return 0
}
