# tests/vm/lib/common.sh: shared by the host-side harness scripts (sourced, POSIX sh).
VM_DIR=${VM_DIR:-$(cd "$(dirname "$0")" && pwd)}
case "$VM_DIR" in */lib) VM_DIR=${VM_DIR%/lib} ;; esac
REPO=$(cd "$VM_DIR/../.." && pwd)
VM_CACHE=${LUND_VM_CACHE:-$REPO/.cache/vm}
mkdir -p "$VM_CACHE"

vm_log() { [ -n "${VM_QUIET:-}" ] || echo "vm: $*" >&2; }
vm_die() { echo "vm: error: $*" >&2; exit 1; }

# The Debian release the guest runs ($LUND_VM_RELEASE): 12 (bookworm, the default) or 13
# (trixie). Its kernel (kernel.sh) and root images (mkroot.sh) come from that release.
VM_RELEASE=${LUND_VM_RELEASE:-12}
case $VM_RELEASE in
12) VM_SUITE=bookworm ;;
13) VM_SUITE=trixie ;;
*) echo "vm: error: LUND_VM_RELEASE=$VM_RELEASE: 12 or 13" >&2; exit 1 ;;
esac
HOST_SUITE=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")

# Serialise cache builders that may run concurrently (meson runs tests in parallel).
# usage: vm_lock NAME; ... ; (the lock is released when the script exits)
vm_lock() {
	exec 9>"$VM_CACHE/.$1.lock"
	flock 9
}

# merged_usr_links ROOT: a package extracted into ROOT from Debian 13, whose packages ship
# usr/lib, usr/bin and usr/sbin only (merged /usr), gets the links lib, bin and sbin to them
# that a merged-/usr system has, so that its files are where Debian 12's packages put them
# (lib/udev/scsi_id, bin/udevadm, sbin/iscsistart).
merged_usr_links() {
	local d
	for d in lib bin sbin; do
		[ -e "$1/$d" ] || [ ! -d "$1/usr/$d" ] || ln -s "usr/$d" "$1/$d"
	done
}

# udev_root: download the udev .deb matching this system's libsystemd into the cache and
# extract it (never installed); prints the extracted root. Its lib/udev/scsi_id is the peer the
# naming tests compare against, on the host and in the VM.
udev_root() {
	local ver dir
	ver=$(dpkg-query -W -f='${Version}' libsystemd-shared 2>/dev/null || true)
	[ -n "$ver" ] || ver=$(apt-cache policy udev | sed -n 's/^ *Candidate: //p')
	dir=$VM_CACHE/udev/$ver
	# (a root extracted before the merged-/usr links below is made again)
	if [ ! -e "$dir/.done" ] || [ ! -e "$dir/root/lib/udev/scsi_id" ]; then
		rm -rf "$dir"; mkdir -p "$dir/dl"
		local sandbox=; [ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
		(cd "$dir/dl" && apt-get download -qq $sandbox "udev=$ver" >/dev/null) ||
			vm_die "apt-get download udev=$ver failed"
		dpkg-deb -x "$dir"/dl/udev_*.deb "$dir/root"
		merged_usr_links "$dir/root"
		rm -rf "$dir/dl"; touch "$dir/.done"
	fi
	echo "$dir/root"
}

# iscsi_root: Debian's open-iscsi and the two libraries only it uses, downloaded at the
# candidate versions into the cache and extracted (never installed on the host); prints the
# extracted root. The guest's iSCSI initiator (iscsistart, iscsiadm) comes from here.
# Debian 13's 64-bit time_t transition renamed libisns0 libisns0t64: a package with no
# candidate is looked up again with t64.
ISCSI_PKGS="open-iscsi libopeniscsiusr libisns0"
iscsi_versions() {
	local p v
	for p in $ISCSI_PKGS; do
		v=$(apt-cache policy "$p" | sed -n 's/^ *Candidate: //p')
		case $v in "" | "(none)")
			p=${p}t64
			v=$(apt-cache policy "$p" | sed -n 's/^ *Candidate: //p') ;;
		esac
		printf '%s=%s\n' "$p" "$v"
	done
}
iscsi_root() {
	local dir sandbox=
	dir=$VM_CACHE/iscsi/$(iscsi_versions | sha256sum | cut -c1-16)
	if [ ! -e "$dir/.done" ] || [ ! -e "$dir/root/sbin/iscsistart" ]; then
		rm -rf "$dir"; mkdir -p "$dir/dl"
		[ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
		# shellcheck disable=SC2046
		(cd "$dir/dl" && apt-get download -qq $sandbox $(iscsi_versions) >/dev/null) ||
			vm_die "apt-get download $(iscsi_versions | tr '\n' ' ') failed"
		for f in "$dir"/dl/*.deb; do dpkg-deb -x "$f" "$dir/root"; done
		merged_usr_links "$dir/root"
		rm -rf "$dir/dl"; touch "$dir/.done"
	fi
	echo "$dir/root"
}

# host_mirror: the first Debian mirror apt is configured with for the host's own release (its
# main component), from deb822 .sources files or one-line .list files; $LUND_VM_MIRROR
# overrides. A Debian mirror serves every release, so the guest's comes from there too.
host_mirror() {
	if [ -n "${LUND_VM_MIRROR:-}" ]; then echo "$LUND_VM_MIRROR"; return; fi
	local f
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -r "$f" ] || continue
			awk -v suite="$HOST_SUITE" '
				function flush() { if (uri != "" && suites ~ "(^| )" suite "( |$)" && comps ~ /(^| )main( |$)/ && types ~ /(^| )deb( |$)/) { print uri; found = 1; exit } uri = suites = comps = types = "" }
				/^[ \t]*$/ { flush(); next }
				/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
				/^URIs:/ { sub(/^URIs:[ \t]*/, ""); split($0, u, " "); uri = u[1] }
				/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
				/^Components:/ { sub(/^Components:[ \t]*/, ""); comps = $0 }
				END { if (!found) flush() }' "$f"
		done
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk -v suite="$HOST_SUITE" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
				if ($(i + 1) == suite) { for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; exit } } }'
	} | head -n1
}

# vm_apt apt-get|apt-cache ARGS...: apt on the guest release's packages. On a host of that
# release this is the host's apt; otherwise a private apt under $VM_CACHE/apt/<suite>/ (its own
# sources list of <suite>, <suite>-updates and <suite>-backports on the host's mirror, its own
# package lists, refreshed when older than a day, no dpkg status): the host's configuration is
# never changed.
vm_apt() {
	local tool=$1; shift
	local sandbox=; [ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
	if [ "$VM_SUITE" = "$HOST_SUITE" ]; then
		# shellcheck disable=SC2086
		"$tool" $sandbox "$@"
		return
	fi
	local d=$VM_CACHE/apt/$VM_SUITE
	# shellcheck disable=SC2086
	set -- $sandbox -o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts="$d/empty" \
		-o Dir::Etc::preferences=/dev/null -o Dir::Etc::preferencesparts="$d/empty" \
		-o Dir::State::Lists="$d/lists" -o Dir::State::status="$d/status" \
		-o Dir::Cache="$d/cache" -o APT::Get::List-Cleanup=0 "$@"
	mkdir -p "$d/empty"
	fresh() { [ -n "$(find "$d/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n1)" ]; }
	if ! fresh; then
		exec 8>"$VM_CACHE/.apt-$VM_SUITE.lock"
		flock 8
		if ! fresh; then
			local mirror s
			mirror=$(host_mirror)
			[ -n "$mirror" ] || vm_die "no Debian mirror configured for $HOST_SUITE (LUND_VM_MIRROR=URL)"
			mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
			: >"$d/status"
			for s in "$VM_SUITE" "$VM_SUITE-updates" "$VM_SUITE-backports"; do
				echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main"
			done >"$d/sources.list"
			vm_log "package lists of $VM_SUITE from $mirror"
			apt-get $sandbox -o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts="$d/empty" \
				-o Dir::State::Lists="$d/lists" -o Dir::State::status="$d/status" \
				-o Dir::Cache="$d/cache" -qq update >/dev/null ||
				vm_die "apt-get update for $VM_SUITE failed"
			find "$d/lists" -maxdepth 1 -name '*_Packages*' -exec touch {} +
		fi
		exec 8>&-
	fi
	"$tool" "$@"
}
