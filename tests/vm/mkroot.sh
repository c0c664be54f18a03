#!/bin/sh
# tests/vm/mkroot.sh [udev-root|systemd-root]: build (once) a root filesystem image.
#
# udev-root (default): a debootstrap'ed Debian 12 minbase with udev, sg3-utils, sg3-utils-udev,
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
# written down here). Cached as $LUND_VM_CACHE/root-<key>.img (systemd-root: sdroot-<key>.img);
# prints its path.
set -eu
. "$(dirname "$0")/lib/common.sh"

FLAVOUR=${1:-udev-root}
SUITE=bookworm
case $FLAVOUR in
udev-root)
	PACKAGES=udev,sg3-utils,sg3-utils-udev,lsscsi,kmod,bash,libjson-c5,multipath-tools
	PREFIX=root ;;
systemd-root)
	PACKAGES=systemd,systemd-sysv,udev,sg3-utils,lsscsi,kmod,bash,libjson-c5
	# the package's run-time dependencies (Debian 12 names)
	PACKAGES=$PACKAGES,libiniparser1,libsgutils2-1.46-2,libkmod2,libsmartcols1,libsystemd0,libudev1
	PREFIX=sdroot ;;
*) vm_die "mkroot.sh: unknown flavour $FLAVOUR" ;;
esac

# The configured Debian mirror: the first URI serving $SUITE's main component, from deb822
# .sources files or one-line .list files.
mirror() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v suite="$SUITE" '
			function flush() { if (uri != "" && suites ~ "(^| )" suite "( |$)" && comps ~ /(^| )main( |$)/ && types ~ /(^| )deb( |$)/) { print uri; found = 1; exit } uri = suites = comps = types = "" }
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
			/^URIs:/ { sub(/^URIs:[ \t]*/, ""); split($0, u, " "); uri = u[1] }
			/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
			/^Components:/ { sub(/^Components:[ \t]*/, ""); comps = $0 }
			END { if (!found) flush() }' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v suite="$SUITE" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
			if ($(i + 1) == suite) { for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; exit } } }'
}
MIRROR=${LUND_VM_MIRROR:-$(mirror | head -n1)}
[ -n "$MIRROR" ] || vm_die "no Debian $SUITE mirror found in /etc/apt/sources.list*"

key=$( { cat "$0"; echo "$MIRROR $SUITE $PACKAGES"; } | sha256sum | cut -c1-16)
img=$VM_CACHE/$PREFIX-$key.img
if [ ! -e "$img" ]; then
	vm_lock $PREFIX
	if [ ! -e "$img" ]; then
		command -v debootstrap >/dev/null || vm_die "debootstrap missing (run tests/vm/setup)"
		dir=$VM_CACHE/$PREFIX-$key.d
		rm -rf "$dir"
		vm_log "debootstrap $SUITE from $MIRROR (about 30-60 s, once)"
		debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$dir" "$MIRROR" \
			>"$VM_CACHE/debootstrap-$PREFIX.log" 2>&1 ||
			vm_die "debootstrap failed, see $VM_CACHE/debootstrap-$PREFIX.log"
		# slim down: package caches and docs are not needed in the guest
		rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* \
			"$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/locale/*
		if [ "$FLAVOUR" = udev-root ]; then
			mkdir -p "$dir/lib/udev/rules.d.mpath"
			for f in 56-dm-mpath.rules 60-multipath.rules 56-dm-parts.rules 60-kpartx.rules \
				68-del-part-nodes.rules; do
				[ -e "$dir/lib/udev/rules.d/$f" ] || vm_die "mkroot.sh: no $f in multipath-tools"
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
