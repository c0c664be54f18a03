#!/bin/sh
# tests/vm/mkroot.sh [udev-root|systemd-root]: build (once) a root filesystem image.
#
# udev-root (default): a debootstrap'ed minbase of the guest's release ($LUND_VM_RELEASE, see
# lib/common.sh: Debian 12 by default, 13 with 13) with udev, sg3-utils, sg3-utils-udev,
# lsscsi, kmod and multipath-tools, packed into an ext4 image with mkfs.ext4 -d. The udev rules
# of multipath-tools and kpartx (which run `multipath -u` on every sd event, mark paths
# SYSTEMD_READY=0 and give the maps the by-id names of their paths) are parked in
# /lib/udev/rules.d.mpath, so that scenarios without multipathd see udev as before; a scenario
# that runs multipathd moves them back (guest/mpath-lib.sh). dmsetup's rules stay: they only
# act on device-mapper devices. The guest mounts it read-only on
# a virtio disk under a tmpfs overlay (see guest/udev-root.sh).
# systemd-root: the same minbase with systemd as init (systemd-sysv) instead of sg3-utils-udev,
# whose rules would only slow the boot down, and with the libraries the lund package depends on
# (dpkg-deb -f lund_*.deb Depends), so that `dpkg -i` of the package works offline in the guest
# (scenarios/deb-install.sh); guest/systemd-root.sh boots it.
# The Debian mirror is the one apt is configured with on this host (read at run time, never
# written down here). Cached as $LUND_VM_CACHE/root-<key>.img (systemd-root: sdroot-<key>.img;
# Debian 13: root13-, sdroot13-); prints its path.
set -eu
. "$(dirname "$0")/lib/common.sh"

FLAVOUR=${1:-udev-root}
SUITE=$VM_SUITE
# a library package of this release: the one its -dev package depends on (libsgutils2-1.46-2 on
# Debian 12, libsgutils2-1.48 on 13), never a name written down here
libpkg() {
	vm_apt apt-cache depends "$1" 2>/dev/null | sed -n 's/^ *Depends: \(lib[^ <]*\)$/\1/p' | head -n1
}
case $FLAVOUR in
udev-root)
	PACKAGES=udev,sg3-utils,sg3-utils-udev,lsscsi,kmod,bash,libjson-c5,multipath-tools
	PREFIX=root ;;
systemd-root)
	PACKAGES=systemd,systemd-sysv,udev,sg3-utils,lsscsi,kmod,bash,libjson-c5
	# the package's run-time dependencies (debian/control and what tools/deb generates)
	for dev in libiniparser-dev libsgutils2-dev; do
		p=$(libpkg $dev)
		[ -n "$p" ] || vm_die "mkroot.sh: no library package for $dev in $SUITE"
		PACKAGES=$PACKAGES,$p
	done
	PACKAGES=$PACKAGES,libkmod2,libsmartcols1,libsystemd0,libudev1
	PREFIX=sdroot ;;
*) vm_die "mkroot.sh: unknown flavour $FLAVOUR" ;;
esac
# Debian 12's images keep their names; another release's carry its number (root13-*)
[ "$VM_RELEASE" = 12 ] || PREFIX=$PREFIX$VM_RELEASE

MIRROR=$(host_mirror)
[ -n "$MIRROR" ] || vm_die "no Debian mirror found in /etc/apt/sources.list* (LUND_VM_MIRROR=URL)"

key=$( { cat "$0"; echo "$MIRROR $SUITE $PACKAGES"; } | sha256sum | cut -c1-16)
img=$VM_CACHE/$PREFIX-$key.img
if [ ! -e "$img" ]; then
	vm_lock $PREFIX
	if [ ! -e "$img" ]; then
		command -v debootstrap >/dev/null || vm_die "debootstrap missing (run tests/vm/setup)"
		# The tree is made in memory when there is room: dpkg syncs every file it unpacks,
		# which on a disk is most of the time debootstrap takes; only the image is kept.
		dir=$VM_CACHE/$PREFIX-$key.d
		if [ -d /dev/shm ] && [ -w /dev/shm ] &&
			[ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt 2097152 ]; then
			dir=$(mktemp -d "/dev/shm/lund-$PREFIX-$key.XXXXXX")
			trap 'rm -rf "$dir"' EXIT
		fi
		rm -rf "$dir"
		vm_log "debootstrap $SUITE from $MIRROR (about 30-60 s, once)"
		debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$dir" "$MIRROR" \
			>"$VM_CACHE/debootstrap-$PREFIX.log" 2>&1 ||
			vm_die "debootstrap failed, see $VM_CACHE/debootstrap-$PREFIX.log"
		# slim down: package caches and docs are not needed in the guest
		rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* \
			"$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/locale/*
		if [ "$FLAVOUR" = udev-root ]; then
			# every rule the two packages install (Debian 12: 56-dm-mpath, 60-multipath,
			# 56-dm-parts, 60-kpartx, 68-del-part-nodes; 13 also 99-z-dm-mpath-late)
			mkdir -p "$dir/lib/udev/rules.d.mpath"
			rules=$(chroot "$dir" dpkg-query -L multipath-tools kpartx | grep '/udev/rules\.d/.*\.rules$' |
				sed 's|.*/||' | sort -u)
			[ -n "$rules" ] || vm_die "mkroot.sh: no udev rules in multipath-tools and kpartx"
			for f in $rules; do
				[ -e "$dir/lib/udev/rules.d/$f" ] || vm_die "mkroot.sh: no $f in /lib/udev/rules.d"
				mv "$dir/lib/udev/rules.d/$f" "$dir/lib/udev/rules.d.mpath/"
			done
		fi
		mkdir -p "$dir/vm" "$dir/usr/local/bin"
		echo lund-vm >"$dir/etc/hostname"
		size=$(du -sm "$dir" | cut -f1)
		mkfs.ext4 -q -F -L lundroot -d "$dir" "$img.tmp" $((size * 13 / 10 + 32))M >/dev/null
		mv "$img.tmp" "$img"
		rm -rf "$dir"
		find "$VM_CACHE" -maxdepth 1 -name "$PREFIX-*.img" ! -name "${img##*/}" -mmin +1440 -delete
		vm_log "root image ready: $img"
	fi
fi
touch "$img" # in use: keeps it from other checkouts' pruning
echo "$img"
