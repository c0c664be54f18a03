#!/bin/sh
# tests/vm/kernel.sh: fetch, extract and prepare Debian 12's current kernel for QEMU.
#
# Resolves the kernel through `apt-cache depends linux-image-amd64` (or the meta package
# $LUND_VM_KERNEL_META names, e.g. linux-image-6.12-amd64), downloads the .deb with
# `apt-get download`, unpacks it with dpkg-deb -x (never installs it), runs depmod -b and
# extracts the ELF vmlinux from the bzImage (TCG boots it twice as fast: no emulated XZ).
# Cached under $LUND_VM_CACHE (default <repo>/.cache/vm)/kernel/<package>_<version>/.
#
# Prints shell assignments on stdout: KVER (the ABI, e.g. 6.1.0-57-amd64), KPKG, KVERSION,
# KROOT (extracted tree), VMLINUX, BZIMAGE.  usage: eval "$(tests/vm/kernel.sh)"
set -eu
. "$(dirname "$0")/lib/common.sh"

# apt-cache takes ~1 s per call here (no pkgcache.bin); remember the answer until the
# package lists change.
stamp=$(stat -c %Y /var/lib/apt/lists /var/lib/apt/lists/* 2>/dev/null | sort -n | tail -n1)
meta=${LUND_VM_KERNEL_META:-linux-image-amd64}
resolved=$VM_CACHE/kernel/resolved
[ "$meta" = linux-image-amd64 ] || resolved=$resolved-$meta
pkg= version=
if [ -r "$resolved" ] && [ "$(sed -n 1p "$resolved")" = "$stamp" ]; then
	pkg=$(sed -n 2p "$resolved"); version=$(sed -n 3p "$resolved")
fi
if [ -z "$pkg" ] || [ -z "$version" ]; then
	pkg=$(apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1)
	[ -n "$pkg" ] || vm_die "cannot resolve $meta (apt-get update?)"
	version=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
	[ -n "$version" ] && [ "$version" != "(none)" ] || vm_die "no candidate for $pkg"
	mkdir -p "$VM_CACHE/kernel"
	printf '%s\n%s\n%s\n' "$stamp" "$pkg" "$version" >"$resolved.$$" && mv "$resolved.$$" "$resolved"
fi
kver=${pkg#linux-image-}
dir=$VM_CACHE/kernel/${pkg}_$version

if [ ! -e "$dir/.done" ]; then
	vm_lock kernel
	if [ ! -e "$dir/.done" ]; then
		vm_log "fetching $pkg $version"
		rm -rf "$dir"; mkdir -p "$dir/dl"
		sandbox=; [ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
		(cd "$dir/dl" && apt-get download -qq $sandbox "$pkg=$version" >/dev/null) ||
			vm_die "apt-get download $pkg failed"
		dpkg-deb -x "$dir"/dl/*.deb "$dir/root"
		rm -rf "$dir/dl"
		depmod -b "$dir/root" "$kver"
		bz=$dir/root/boot/vmlinuz-$kver
		# The bzImage carries the kernel as an XZ stream (6.1) or a zstd one (6.12); find its
		# magic and decompress.
		off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | head -n1 | cut -d: -f1)
		if [ -n "$off" ]; then
			tail -c +$((off + 1)) "$bz" | xz -dc 2>/dev/null >"$dir/vmlinux.tmp" || true
		else
			off=$(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$bz" | head -n1 | cut -d: -f1)
			[ -n "$off" ] || vm_die "no XZ or zstd payload in $bz"
			tail -c +$((off + 1)) "$bz" | zstd -dcq 2>/dev/null >"$dir/vmlinux.tmp" || true
		fi
		head -c 4 "$dir/vmlinux.tmp" | grep -q 'ELF' || vm_die "extracted payload is not ELF"
		mv "$dir/vmlinux.tmp" "$dir/vmlinux"
		touch "$dir/.done"
		vm_log "kernel ready in $dir"
	fi
fi
echo "KVER='$kver'"
echo "KPKG='$pkg'"
echo "KVERSION='$version'"
echo "KROOT='$dir/root'"
echo "VMLINUX='$dir/vmlinux'"
echo "BZIMAGE='$dir/root/boot/vmlinuz-$kver'"
