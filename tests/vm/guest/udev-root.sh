# tests/vm/guest/udev-root.sh: stage 1 of the "udev-root" flavour (sourced by /init).
#
# The root image (mkroot.sh: Debian 12 minbase + udev + sg3-utils) is on /dev/vda, read-only.
# Mount it under a tmpfs overlay (read-write as it is, when the scenario reboots: then it is the
# run's own qcow2 overlay), copy in what the initramfs brings (the harness in /vm, the
# project's binaries and the libraries the root lacks, the kernel modules), move /dev, /proc,
# /sys and the 9p mount across and switch_root to guest/udev-stage2 (or, for other flavours, to
# the command in $VM_ROOT_INIT after running the function named in $VM_ROOT_HOOK).

udev_root_switch() {
	modprobe -a virtio_pci virtio_blk ext4 overlay || return 1
	vm_wait_for /dev/vda 10 || { vm_log "udev-root: no /dev/vda"; return 1; }
	mkdir -p /.ro /.rw /newroot
	if [ -n "${VM_REBOOTS:-}" ]; then
		# a scenario that reboots: /dev/vda is this run's copy-on-write overlay of the image,
		# mounted read-write so that what the scenario installs survives the reboot; the boot
		# number is kept on it (guest/lib.sh: $VM_BOOT)
		mount -t ext4 /dev/vda /newroot || return 1
		_boot=0
		[ -r /newroot/vm/boot ] && read -r _boot </newroot/vm/boot
		_boot=$((_boot + 1))
		mkdir -p /newroot/vm && echo "$_boot" >/newroot/vm/boot && sync
		vm_log "$VM_FLAVOUR: boot $_boot of $((VM_REBOOTS + 1)), root disk read-write"
		if [ "$_boot" -gt $((VM_REBOOTS + 1)) ]; then
			# a reboot nobody asked for (a kernel panic reboots with panic=-1): stop here
			vm_fail "boot $_boot: the scenario reboots $VM_REBOOTS time(s); the guest rebooted by itself"
			vm_exit 1
		fi
	else
		mount -t ext4 -o ro /dev/vda /.ro || return 1
		mount -t tmpfs -o mode=0755 tmpfs /.rw || return 1
		mkdir -p /.rw/upper /.rw/work
		mount -t overlay overlay -o lowerdir=/.ro,upperdir=/.rw/upper,workdir=/.rw/work /newroot ||
			return 1
	fi
	# the harness, the scenarios, the benchmark bodies, the project's binaries (unless the
	# scenario installs them itself: `# vm-install: none`) and the kernel's modules
	mkdir -p /newroot/vm /newroot/usr/local/bin /newroot/lib/modules
	cp -a /vm/guest /vm/scenarios /vm/bench /vm/san.sh /vm/kver /newroot/vm/
	[ "$VM_INSTALL" = none ] || cp -a /usr/local/bin/. /newroot/usr/local/bin/
	cp -a /lib/modules/. /newroot/lib/modules/
	if [ "$VM_INSTALL" != none ] && [ -r /vm/bin-libs ]; then
		while read -r _l; do
			[ -e "/newroot$_l" ] && continue
			mkdir -p "/newroot${_l%/*}" && cp -L "$_l" "/newroot$_l"
		done </vm/bin-libs
	fi
	# open-iscsi's initiator for the LIO scenarios of this flavour (the root image has every
	# library it needs but its own two), and busybox for the applets the root lacks (ip)
	cp /bin/busybox /newroot/vm/busybox
	for _t in /sbin/iscsiadm /sbin/iscsid /sbin/iscsistart; do
		[ -e "$_t" ] && [ ! -e "/newroot$_t" ] && cp "$_t" "/newroot$_t"
	done
	for _l in /usr/lib/x86_64-linux-gnu/libisns.so* /usr/lib/x86_64-linux-gnu/libopeniscsiusr.so*; do
		[ -e "$_l" ] && [ ! -e "/newroot$_l" ] && cp -a "$_l" "/newroot$_l"
	done
	mkdir -p /newroot/vm/out
	if grep -q ' /vm/out ' /proc/mounts; then mount --move /vm/out /newroot/vm/out; fi
	if [ -n "${VM_ROOT_HOOK:-}" ]; then $VM_ROOT_HOOK || return 1; fi
	vm_log "$VM_FLAVOUR: switching root"
	mount --move /dev /newroot/dev
	mount --move /proc /newroot/proc
	mount --move /sys /newroot/sys
	umount /run /tmp 2>/dev/null
	exec switch_root /newroot ${VM_ROOT_INIT:-/bin/sh /vm/guest/udev-stage2}
}
