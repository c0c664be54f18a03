# tests/vm/lib/common.sh: shared by the host-side harness scripts (sourced, POSIX sh).
VM_DIR=$(cd "$(dirname "$0")" && pwd)
case "$VM_DIR" in */lib) VM_DIR=${VM_DIR%/lib} ;; esac
REPO=$(cd "$VM_DIR/../.." && pwd)
VM_CACHE=${LUND_VM_CACHE:-$REPO/.cache/vm}
mkdir -p "$VM_CACHE"

vm_log() { [ -n "${VM_QUIET:-}" ] || echo "vm: $*" >&2; }
vm_die() { echo "vm: error: $*" >&2; exit 1; }

# Serialise cache builders that may run concurrently (meson runs tests in parallel).
# usage: vm_lock NAME; ... ; (the lock is released when the script exits)
vm_lock() {
	exec 9>"$VM_CACHE/.$1.lock"
	flock 9
}

# udev_root: download the udev .deb matching this system's libsystemd into the cache and
# extract it (never installed); prints the extracted root. Its lib/udev/scsi_id is the peer the
# naming tests compare against, on the host and in the VM.
udev_root() {
	local ver dir
	ver=$(dpkg-query -W -f='${Version}' libsystemd-shared 2>/dev/null || true)
	[ -n "$ver" ] || ver=$(apt-cache policy udev | sed -n 's/^ *Candidate: //p')
	dir=$VM_CACHE/udev/$ver
	if [ ! -e "$dir/.done" ]; then
		rm -rf "$dir"; mkdir -p "$dir/dl"
		local sandbox=; [ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
		(cd "$dir/dl" && apt-get download -qq $sandbox "udev=$ver" >/dev/null) ||
			vm_die "apt-get download udev=$ver failed"
		dpkg-deb -x "$dir"/dl/udev_*.deb "$dir/root"
		rm -rf "$dir/dl"; touch "$dir/.done"
	fi
	echo "$dir/root"
}

# iscsi_root: Debian's open-iscsi and the two libraries only it uses, downloaded at the
# candidate versions into the cache and extracted (never installed on the host); prints the
# extracted root. The guest's iSCSI initiator (iscsistart, iscsiadm) comes from here.
ISCSI_PKGS="open-iscsi libopeniscsiusr libisns0"
iscsi_versions() {
	local p
	for p in $ISCSI_PKGS; do
		printf '%s=%s\n' "$p" "$(apt-cache policy "$p" | sed -n 's/^ *Candidate: //p')"
	done
}
iscsi_root() {
	local dir sandbox=
	dir=$VM_CACHE/iscsi/$(iscsi_versions | sha256sum | cut -c1-16)
	if [ ! -e "$dir/.done" ]; then
		rm -rf "$dir"; mkdir -p "$dir/dl"
		[ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
		# shellcheck disable=SC2046
		(cd "$dir/dl" && apt-get download -qq $sandbox $(iscsi_versions) >/dev/null) ||
			vm_die "apt-get download $(iscsi_versions | tr '\n' ' ') failed"
		for f in "$dir"/dl/*.deb; do dpkg-deb -x "$f" "$dir/root"; done
		rm -rf "$dir/dl"; touch "$dir/.done"
	fi
	echo "$dir/root"
}
