#!/bin/sh
# tests/vm/kernel.sh: fetch, extract and prepare a Debian kernel for QEMU: the current one of
# the guest's release ($LUND_VM_RELEASE, lib/common.sh: Debian 12's 6.1 by default, Debian 13's
# 6.12 with 13).
#
# Resolves the kernel through `apt-cache depends linux-image-amd64` (or the meta package
# $LUND_VM_KERNEL_META names, e.g. linux-image-6.12-amd64 on Debian 12), downloads the .deb with
# `apt-get download`, unpacks it with dpkg-deb -x (never installs it), runs depmod -b and
# extracts the ELF vmlinux from the bzImage (TCG boots it twice as fast: no emulated XZ).
# LUND_VM_KERNEL=backports takes the meta package from <release>-backports (Debian 13: the
# newest 7.x). apt is lib/common.sh's vm_apt: the host's own for its release, a private one
# for the other.
# Cached under $LUND_VM_CACHE (default <repo>/.cache/vm)/kernel/<package>_<version>/.
#
# Prints shell assignments on stdout: KVER (the ABI, e.g. 6.1.0-57-amd64), KPKG, KVERSION,
# KROOT (extracted tree), VMLINUX, BZIMAGE.  usage: eval "$(tests/vm/kernel.sh)"
set -eu
. "$(dirname "$0")/lib/common.sh"

meta=${LUND_VM_KERNEL_META:-linux-image-amd64}
resolved=$VM_CACHE/kernel/resolved
[ "$VM_RELEASE" = 12 ] || resolved=$resolved-$VM_RELEASE
[ "$meta" = linux-image-amd64 ] || resolved=$resolved-$meta
dflt=
case ${LUND_VM_KERNEL:-} in
'') ;;
backports) dflt="-o APT::Default-Release=$VM_SUITE-backports"; resolved=$resolved-backports ;;
*) vm_die "LUND_VM_KERNEL=${LUND_VM_KERNEL}: only 'backports' (or unset)" ;;
esac
# apt-cache takes ~1 s per call here (no pkgcache.bin); remember the answer until the
# package lists change.
lists=/var/lib/apt/lists
[ "$VM_SUITE" = "$HOST_SUITE" ] || lists=$VM_CACHE/apt/$VM_SUITE/lists
stamp=$(stat -c %Y "$lists" "$lists"/* 2>/dev/null | sort -n | tail -n1)
pkg= version=
if [ -r "$resolved" ] && [ "$(sed -n 1p "$resolved")" = "$stamp" ]; then
	pkg=$(sed -n 2p "$resolved"); version=$(sed -n 3p "$resolved")
fi
if [ -z "$pkg" ] || [ -z "$version" ]; then
	# shellcheck disable=SC2086
	pkg=$(vm_apt apt-cache $dflt depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1)
	[ -n "$pkg" ] || vm_die "cannot resolve $meta (apt-get update?)"
	# shellcheck disable=SC2086
	version=$(vm_apt apt-cache $dflt policy "$pkg" | sed -n 's/^ *Candidate: //p')
	[ -n "$version" ] && [ "$version" != "(none)" ] || vm_die "no candidate for $pkg"
	mkdir -p "$VM_CACHE/kernel"
	# the stamp after vm_apt: it may just have fetched the lists
	stamp=$(stat -c %Y "$lists" "$lists"/* 2>/dev/null | sort -n | tail -n1)
	printf '%s\n%s\n%s\n' "$stamp" "$pkg" "$version" >"$resolved.$$" && mv "$resolved.$$" "$resolved"
fi
kver=${pkg#linux-image-}
dir=$VM_CACHE/kernel/${pkg}_$version

if [ ! -e "$dir/.done" ]; then
	vm_lock kernel
	if [ ! -e "$dir/.done" ]; then
		vm_log "fetching $pkg $version"
		rm -rf "$dir"; mkdir -p "$dir/dl"
		(cd "$dir/dl" && vm_apt apt-get download -qq "$pkg=$version" >/dev/null) ||
			vm_die "apt-get download $pkg failed"
		# 7.x splits the image: its files are in linux-binary-<abi> (and linux-base-<abi>),
		# which the image package depends on
		# shellcheck disable=SC2086
		parts=$(vm_apt apt-cache $dflt depends "$pkg" 2>/dev/null |
			awk -v abi="-$kver" '$1 == "Depends:" && $2 ~ /^linux-/ && $2 != "'"$pkg"'" &&
				substr($2, length($2) - length(abi) + 1) == abi { print $2 }' | sort -u)
		for part in $parts; do
			(cd "$dir/dl" && vm_apt apt-get download -qq "$part=$version" >/dev/null) ||
				vm_die "apt-get download $part failed"
		done
		for deb in "$dir"/dl/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
		rm -rf "$dir/dl"
		# Debian 13's package is usrmerged (usr/lib/modules): /lib is /usr/lib, as on the system
		[ -e "$dir/root/lib" ] || ln -s usr/lib "$dir/root/lib"
		depmod -b "$dir/root" "$kver"
		bz=$dir/root/boot/vmlinuz-$kver
		# 7.x ships it beside its modules only
		if [ ! -e "$bz" ]; then
			mkdir -p "$dir/root/boot"
			ln -s "../lib/modules/$kver/vmlinuz" "$bz"
		fi
		# The bzImage carries the kernel as an XZ stream (6.1) or a zstd one (6.12, 7.x); find its
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
