#!/bin/bash
# tests/vm/mkinitramfs.sh: build the "busybox" initramfs for the VM tests.
#
# The image is two concatenated cpio archives (the kernel unpacks both):
#   base.cpio.gz  cached: busybox-static, the kernel's module closure for the SCSI stack and the
#                 emulated HBAs, sg3_utils + lsscsi + bash, udev's scsi_id (from the udev .deb,
#                 extracted, never installed) and every library ldd lists for them.
#   overlay.cpio  per run: /init, the guest library, the scenarios, the caller's binaries
#                 (e.g. build-vm/src/cli/lunctl) and their libraries.
#
# usage: mkinitramfs.sh [-o OUT] [BINARY...]      (default OUT: $LUND_VM_CACHE/initramfs.img)
# Prints the path of the image.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

out=$VM_CACHE/initramfs.img
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
bins=("$@")

eval "$("$VM_DIR/kernel.sh")"

# Everything the scenarios may need; the closure is resolved with modprobe --show-depends.
MODULES=(
	scsi_mod sd_mod sr_mod st sg ch ses enclosure scsi_debug scsi_dh_alua scsi_dh_emc
	scsi_dh_rdac scsi_dh_hp_sw scsi_transport_sas scsi_transport_spi scsi_transport_fc
	scsi_transport_iscsi
	virtio_pci virtio_scsi virtio_blk virtio_console
	megaraid_sas sym53c8xx mptsas mptspi vmw_pvscsi
	libata ahci ata_piix ata_generic
	usb-storage uas xhci_pci ehci_pci uhci_hcd ohci_pci
	9p 9pnet_virtio
	ext4 overlay dm_mod dm_multipath dm_service_time dm_round_robin loop
	configfs target_core_mod target_core_file target_core_iblock tcm_loop iscsi_target_mod
	iscsi_tcp
)
# Host tools copied in (with their libraries). GNU find and pr: rescan-scsi-bus.sh lists devices
# with find -printf, which busybox's find lacks (its -r and -a then see no LUs at all), and
# prints them with pr, which busybox lacks.
TOOLS=(/usr/bin/find /usr/bin/pr /usr/bin/lsscsi /usr/bin/bash /usr/bin/rescan-scsi-bus.sh /usr/bin/scsi_* /usr/bin/sg_*)

# udev_root (lib/common.sh): udev's .deb extracted into the cache, for its scsi_id.

# libs_of FILE: every library FILE needs, as ldd lists them, and those it dlopen()s on first use:
# the sonames in its .lund.dlopen section (src/shared/dlstub.h), resolved through
# ldconfig's cache, each with what ldd lists for it.
libs_of() {
	local so dl
	ldd "$1" | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}'
	readelf -p .lund.dlopen "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9a-f]*\] *//p' | while read -r so; do
		dl=$(ldconfig -p | awk -v s="$so" '$1 == s && /x86-64/ && !f {print $NF; f = 1}')
		[ -n "$dl" ] || vm_die "$1: no $so to load on first use"
		echo "$dl"
		ldd "$dl" | awk '/=> \//{print $3}'
	done
}

# copy_libs ROOT FILE...: copy the loader and every library libs_of lists, at their real paths,
# unless $skip (a file listing paths already present in the base image) names it.
skip=/dev/null
copy_libs() {
	local root=$1; shift
	local f lib
	for f in "$@"; do
		file -L "$f" | grep -q 'dynamically linked' || continue
		libs_of "$f" | while read -r lib; do
			case $lib in "$root"/*) continue ;; esac    # already in place (LD_LIBRARY_PATH)
			[ -e "$root$lib" ] || [ -L "$root$lib" ] && continue
			grep -qxF ".$lib" "$skip" && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L --remove-destination "$lib" "$root$lib"
		done
		if ldd "$f" | grep -q 'not found'; then
			vm_die "$f: missing libraries: $(ldd "$f" | grep 'not found' | tr -d '\t' | tr '\n' ' ')"
		fi
	done
}

build_base() {
	local base=$1 st=$base.d udev
	rm -rf "$st"; mkdir -p "$st"/{bin,sbin,usr/bin,usr/sbin,lib/udev,etc,proc,sys,dev,tmp,run,mnt,root,vm}
	cp --remove-destination /usr/bin/busybox "$st/bin/busybox"
	local a
	for a in $(/usr/bin/busybox --list); do
		[ -e "$st/bin/$a" ] || ln -s busybox "$st/bin/$a"
	done
	for a in modprobe insmod rmmod depmod lsmod modinfo poweroff reboot halt switch_root; do
		ln -s ../bin/busybox "$st/sbin/$a"
	done
	# modules: closure of MODULES, then depmod so busybox modprobe and autoload work
	local m line ko
	for m in "${MODULES[@]}"; do
		modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" 2>/dev/null || vm_log "no module $m"
	done | awk '$1 == "insmod" {print $2}' | sort -u | while read -r ko; do
		mkdir -p "$st$(dirname "${ko#"$KROOT"}")"
		cp --remove-destination "$ko" "$st${ko#"$KROOT"}"
	done
	cp "$KROOT/lib/modules/$KVER"/modules.{order,builtin,builtin.modinfo} "$st/lib/modules/$KVER/"
	# newer Debian kernels (6.12) ship xz-compressed modules: busybox modprobe wants plain ones
	find "$st/lib/modules" -name '*.ko.xz' -exec xz -d {} +
	sed -i 's/\.ko\.xz$/.ko/' "$st/lib/modules/$KVER/modules.order"
	depmod -b "$st" "$KVER"
	# tools
	local t
	# (--remove-destination everywhere: never write through a symlink in the staging tree)
	for t in "${TOOLS[@]}"; do [ -e "$t" ] && cp --remove-destination "$t" "$st/usr/bin/"; done
	udev=$(udev_root)
	cp --remove-destination "$udev/lib/udev/scsi_id" "$st/lib/udev/scsi_id"
	# udevadm for its builtins (`udevadm test-builtin path_id`: udev's ID_PATH without udevd)
	cp --remove-destination "$udev/bin/udevadm" "$st/usr/bin/udevadm"
	# coreutils' cat, dynamically linked like lunctl, off PATH (busybox's cat stays the scenarios'
	# cat): bench/identify's floor, the process a Debian host would use to read the sysfs wwid
	mkdir -p "$st/usr/lib/vm-floor"
	cp --remove-destination /usr/bin/cat "$st/usr/lib/vm-floor/cat"
	copy_libs "$st" "${TOOLS[@]}" "$udev/lib/udev/scsi_id" "$udev/bin/udevadm" "$st/usr/lib/vm-floor/cat"
	# the iSCSI initiator: iscsistart logs in without iscsid or a node database
	local iscsi lib=usr/lib/x86_64-linux-gnu
	iscsi=$(iscsi_root)
	mkdir -p "$st/$lib" "$st/etc/iscsi"
	cp --remove-destination "$iscsi"/sbin/{iscsistart,iscsiadm,iscsid} "$st/sbin/"
	cp -a "$iscsi/$lib"/lib{isns,openiscsiusr}.so* "$st/$lib/"
	LD_LIBRARY_PATH=$st/$lib copy_libs "$st" "$st"/sbin/{iscsistart,iscsiadm,iscsid}
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$st/etc/passwd"
	printf 'root:x:0:\n' >"$st/etc/group"
	(cd "$st" && find . -mindepth 1 | LC_ALL=C sort) >"$base.list"
	(cd "$st" && cpio -o -H newc --quiet -R 0:0 <"$base.list") | gzip -1 >"$base.tmp"
	mv "$base.tmp" "$base"
	rm -rf "$st"
}

# The base is keyed on the kernel, this script up to the per-run part (so that changing what
# each run adds costs no rebuild) and the versions of the packages it copies from.
key=$( { echo "$KVER $KVERSION"; sed '/^# --- per-run overlay ---$/q' "$0"
	 dpkg-query -W busybox-static findutils coreutils sg3-utils lsscsi bash libc6 libsystemd-shared 2>/dev/null
       } | sha256sum | cut -c1-16)
base=$VM_CACHE/initramfs-base-$key.cpio.gz
if [ ! -e "$base" ]; then
	vm_lock initramfs
	if [ ! -e "$base" ]; then
		vm_log "building initramfs base ($KVER)"
		build_base "$base"
		# other bases may belong to another checkout sharing this cache: only
		# those unused for a day go
		find "$VM_CACHE" -maxdepth 1 -name 'initramfs-base-*' ! -name "${base##*/}" \
			! -name "${base##*/}.list" -mmin +1440 -delete
	fi
fi
touch "$base" "$base.list" # in use: keeps it from other checkouts' pruning

# --- per-run overlay ---
st=$(mktemp -d "$VM_CACHE/overlay.XXXXXX")
trap 'rm -rf "$st" "$st.cpio"' EXIT
mkdir -p "$st/vm" "$st/usr/local/bin"
cp "$VM_DIR/guest/init" "$st/init"
cp -r "$VM_DIR/guest" "$st/vm/guest"
cp -r "$VM_DIR/scenarios" "$st/vm/scenarios"
cp -r "$VM_DIR/bench" "$st/vm/bench"
cp "$VM_DIR/san.sh" "$st/vm/san.sh"
for b in "${bins[@]}"; do
	[ -x "$b" ] || vm_die "not an executable: $b"
	cp "$b" "$st/usr/local/bin/"
done
# Libraries of the caller's binaries go where ldd found them, unless the base has them already.
if [ ${#bins[@]} -gt 0 ]; then
	skip=$base.list
	copy_libs "$st" "${bins[@]}"
	# every library they need, for the udev-root flavour (it copies what its root lacks)
	for b in "${bins[@]}"; do libs_of "$b" | grep -v '^/lib64/ld-linux'; done | sort -u >"$st/vm/bin-libs"
fi
# LUND_VM_MODULES_OVERLAY=DIR: its *.ko (e.g. kernel/build.sh's patched SCSI modules, built for
# this kernel) replace the stock modules of the same name; their dependencies must not change.
if [ -n "${LUND_VM_MODULES_OVERLAY:-}" ]; then
	for ko in "$LUND_VM_MODULES_OVERLAY"/*.ko; do
		rel=$(grep -m1 "/${ko##*/}\$" "$base.list") || vm_die "overlay: no stock ${ko##*/}"
		mkdir -p "$st/${rel%/*}" && cp "$ko" "$st/$rel"
	done
fi
# lund.service for the systemd-root flavour: $LUND_VM_UNIT (the unit meson configured beside the
# binaries), else the source with @SBINDIR@ pointing where the guest gets the binaries.
if [ -n "${LUND_VM_UNIT:-}" ] && [ -r "$LUND_VM_UNIT" ]; then
	cp "$LUND_VM_UNIT" "$st/vm/lund.service"
else
	sed 's|@SBINDIR@|/usr/local/bin|g' "$REPO/systemd/lund.service" >"$st/vm/lund.service"
fi
echo "$KVER" >"$st/vm/kver"
(cd "$st" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$st.cpio"
# An uncompressed cpio after a compressed one must start 4-byte aligned (the kernel skips
# zero padding between archives).
pad=$(( (4 - $(stat -c %s "$base") % 4) % 4 ))
{ cat "$base"; head -c "$pad" /dev/zero; cat "$st.cpio"; } >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
