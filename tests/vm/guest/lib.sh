# tests/vm/guest/lib.sh: the guest-side helper library (busybox ash and bash).
#
# Results go to the second serial port (/dev/ttyS1, kept open on fd 7) as lines the host
# parses:   RESULT key=value ...   FAIL message   SYNC token   EXIT rc
# and are echoed on the console for the log.  Scenarios start with `. /vm/guest/lib.sh`.

VM_RES_FD=7

# Debian's busybox-static runs its own applets in preference to $PATH (SH_STANDALONE): make
# the real tools win where both exist.
if [ -x /usr/bin/lsscsi ]; then lsscsi() { /usr/bin/lsscsi "$@"; }; fi
VM_FAILURES=${VM_FAILURES:-0}

vm_log() {
	_up=; read -r _up _idle 2>/dev/null </proc/uptime
	echo "[vm $_up] $*" >/dev/console 2>/dev/null || echo "[vm $_up] $*"
}

# Send one protocol line to the host.
vm_send() {
	if [ -n "${VM_RES_OPEN:-}" ]; then
		printf '%s\n' "$*" >&$VM_RES_FD
	fi
	vm_log "$*"
}

# vm_result key=value [key=value...]: a machine-readable result line.
vm_result() { vm_send "RESULT $*"; }

# vm_fail message: record a failure (the scenario goes on; its exit code becomes 1).
vm_fail() {
	VM_FAILURES=$((VM_FAILURES + 1))
	vm_send "FAIL $*"
}

# Assertions record a failure and return 0, so a scenario under `sh -e` goes on and reports
# every failed check; end the scenario with vm_done.  (Any other failing command under -e
# ends the scenario with a non-zero exit code, which the host also reports.)
vm_assert_eq() {      # EXPECTED ACTUAL MESSAGE
	if [ "$1" = "$2" ]; then vm_log "ok: $3 ($2)"; else vm_fail "$3: expected '$1', got '$2'"; fi
}

vm_assert_ge() {      # MIN ACTUAL MESSAGE
	if [ "$2" -ge "$1" ] 2>/dev/null; then vm_log "ok: $3 ($2 >= $1)"
	else vm_fail "$3: expected >= $1, got '$2'"; fi
}

vm_assert() {         # MESSAGE COMMAND...: the command must succeed
	_m=$1; shift
	if "$@"; then vm_log "ok: $_m"; else vm_fail "$_m: '$*' failed"; fi
}

# vm_done: end of a scenario; exit 1 if any assertion failed.
vm_done() {
	[ "$VM_FAILURES" -eq 0 ] || exit 1
	exit 0
}

# vm_uptime_ms: milliseconds since boot (builtins only).
vm_uptime_ms() {
	read -r _up _idle </proc/uptime
	_s=${_up%.*}; _f=${_up#*.}
	echo $((_s * 1000 + ${_f#0} * 10))
}

# vm_wait_until TIMEOUT_S COMMAND...: poll (every 0.1 s) until COMMAND succeeds.
# The host's LUND_VM_TIMEOUT_SCALE, rounded up (vm.timeout_scale=N, absent: 1): on a busy host
# every wait in the guest stretches as the VM's own limit does.
vm_timeout_scale() {
	[ -z "${VM_TIMEOUT_SCALE:-}" ] || return 0
	VM_TIMEOUT_SCALE=1
	for _a in $(cat /proc/cmdline 2>/dev/null); do
		case $_a in
		vm.timeout_scale=[1-9] | vm.timeout_scale=[1-9][0-9]) VM_TIMEOUT_SCALE=${_a#*=} ;;
		esac
	done
}
vm_wait_until() {
	vm_timeout_scale
	_end=$(( $(vm_uptime_ms) + $1 * 1000 * VM_TIMEOUT_SCALE )); shift
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$(vm_uptime_ms)" -lt "$_end" ] || break
		sleep 0.1
	done
	"$@" >/dev/null 2>&1
}

# vm_wait_for PATH [TIMEOUT_S]: wait for a file or device node to exist (default 10 s).
vm_wait_for() { vm_wait_until "${2:-10}" test -e "$1"; }

# vm_sync TOKEN [TIMEOUT_S]: tell the host we reached TOKEN and wait until it answers
# "ACK TOKEN" (e.g. vm_sync READY-FOR-HOTADD; the host hot-adds, then acknowledges).
vm_sync() {
	_tok=$1 _t=${2:-60}
	[ -n "${VM_RES_OPEN:-}" ] || { vm_fail "vm_sync $_tok: no result channel"; return 1; }
	vm_send "SYNC $_tok"
	while IFS= read -r -t "$_t" _line <&$VM_RES_FD; do
		_line=$(printf '%s' "$_line" | tr -d '\r')
		case "$_line" in
		"ACK $_tok") vm_log "host acknowledged $_tok"; return 0 ;;
		"NAK $_tok"*) vm_fail "host refused $_tok: ${_line#NAK "$_tok"}"; return 1 ;;
		esac
	done
	vm_fail "vm_sync $_tok: no answer from the host within ${_t}s"
	return 1
}

# vm_coldplug [BUS...]: load the driver of every device present on the given buses (default
# all), as udev's coldplug does (no udevd in the busybox flavour).  The modprobes run in
# parallel: HBA probes mostly wait (firmware bring-up, bus resets), so they overlap well.
vm_coldplug() {
	_buses=${*:-*}
	for _b in $_buses; do
		for _f in /sys/bus/$_b/devices/*/modalias; do
			[ -r "$_f" ] || continue
			read -r _a <"$_f" || continue
			[ -z "$_a" ] || modprobe -q "$_a" 2>/dev/null &
		done
	done
	wait
	return 0
}

# san_counts: "proc_name count" for every HBA driver with SCSI devices (few forks: the
# loop uses shell builtins only, which matters under TCG).
san_counts() {
	for _d in /sys/class/scsi_device/*; do
		[ -e "$_d" ] || continue
		_h=${_d##*/}; _h=${_h%%:*}
		read -r _pn </sys/class/scsi_host/host$_h/proc_name && echo "$_pn"
	done | sort | uniq -c | awk '{ print $2, $1 }'
}

# san_count PROC_NAME: number of SCSI devices on hosts of that driver.
san_count() { san_counts | awk -v p="$1" '$1 == p { n = $2 } END { print n + 0 }'; }

# Does every HBA of $SAN_EXPECT have (at least) its expected number of devices?
san_all_present() {
	san_counts | awk -v want="$SAN_EXPECT" '
		BEGIN { n = split(want, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); w[f[1]] = f[2] } }
		{ have[$1] = $2 }
		END { for (p in w) if (have[p] + 0 < w[p]) exit 1 }'
}

# USB disks appear after their bus is enumerated: keep loading drivers while waiting.
_san_poll() {
	vm_coldplug usb
	[ -z "$1" ] || vm_coldplug scsi
	san_all_present
}

# san_up [--no-uld] [--timeout S (90)]: bring the SAN up: load the HBA drivers (coldplug) and
# scsi_debug, load sd/sr/st/sg (unless --no-uld) and wait until every expected device exists.
san_up() {
	_uld=1 _t=90
	while [ $# -gt 0 ]; do
		case $1 in --no-uld) _uld= ;; --timeout) _t=$2; shift ;; esac
		shift
	done
	if [ -n "$_uld" ]; then modprobe -a sd_mod sr_mod st sg; fi
	vm_log "san_up: upper-level drivers loaded"
	# scsi_debug first, alone: it gets host0 and host1, and its target port IDs (which
	# derive from the host number) stay the same from boot to boot
	modprobe scsi_debug $SAN_SCSI_DEBUG
	vm_coldplug pci virtio
	vm_log "san_up: HBA drivers loaded"
	if ! vm_wait_until "$_t" _san_poll "$_uld"; then
		vm_log "san_up: expected: $(echo "$SAN_EXPECT" | tr '\n' ' ')"
		vm_log "san_up: present:  $(san_counts | tr '\n' ' ')"
		vm_fail "san_up: not all SAN devices appeared within ${_t}s"
		return 1
	fi
	return 0
}

# --- used by /init ---------------------------------------------------------------------
vm_cmdline() {
	VM_SCENARIO= VM_FLAVOUR=busybox VM_SHELL= VM_DEBUG= VM_REBOOTS= VM_INSTALL=project
	VM_RELEASE=12
	for _a in $(cat /proc/cmdline); do
		case $_a in
		vm.scenario=*) VM_SCENARIO=${_a#*=} ;;
		vm.release=*) VM_RELEASE=${_a#*=} ;;
		vm.flavour=*) VM_FLAVOUR=${_a#*=} ;;
		vm.shell=*) VM_SHELL=${_a#*=} ;;
		vm.debug=*) VM_DEBUG=${_a#*=} ;;
		vm.reboots=*) VM_REBOOTS=${_a#*=} ;;
		vm.install=*) VM_INSTALL=${_a#*=} ;;
		esac
	done
	export VM_SCENARIO VM_FLAVOUR VM_SHELL VM_DEBUG VM_REBOOTS VM_INSTALL VM_RELEASE
}

# The boot of a scenario that reboots (`# vm-reboot: N`): 1 for the first, counted by stage 1 on
# the persistent root disk (guest/udev-root.sh); always 1 otherwise.
VM_BOOT=1
if [ -r /vm/boot ]; then read -r VM_BOOT </vm/boot || VM_BOOT=1; fi

# vm_reboot: reboot the guest (only in a scenario with `# vm-reboot: N`, at most N times). The
# scenario ends here and runs again from its start after the next boot, with $VM_BOOT one higher;
# what it wrote to the root file system is still there, /run and /tmp are new. Failures
# reported so far stand. With systemd as PID 1 the reboot is systemd's (units stopped, file
# systems unmounted); otherwise immediate, after a sync.
vm_reboot() {
	if [ -z "${VM_REBOOTS:-}" ] || [ "$VM_BOOT" -gt "$VM_REBOOTS" ]; then
		vm_fail "vm_reboot in boot $VM_BOOT: the scenario's vm-reboot header allows ${VM_REBOOTS:-0}"
		vm_done
	fi
	vm_log "reboot after boot $VM_BOOT"
	: >/run/vm-rebooting
	sync
	if [ -d /run/systemd/system ]; then systemctl --no-block reboot
	else echo b >/proc/sysrq-trigger; fi
	exit 0
}

vm_boot_common() {
	vm_cmdline
	if [ -c /dev/ttyS1 ]; then
		stty -F /dev/ttyS1 raw -echo 2>/dev/null
		exec 7<>/dev/ttyS1 && VM_RES_OPEN=1 && export VM_RES_OPEN
	fi
	# 9p output directory (tag "vmout") if the host gave one
	modprobe -a virtio_pci 9pnet_virtio 9p 2>/dev/null
	if grep -qs vmout /sys/bus/virtio/devices/*/mount_tag; then
		mkdir -p /vm/out
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmout /vm/out ||
			vm_log "cannot mount 9p vmout"
	fi
	export VM_OUT=/vm/out
}

vm_exit() {
	_rc=$1
	vm_send "EXIT $_rc"
	echo "@@RC=$_rc" >/dev/console
	sync
	umount /vm/out 2>/dev/null
	# sysrq powers off asynchronously; PID 1 must not exit meanwhile (kernel panic)
	echo o >/proc/sysrq-trigger 2>/dev/null
	while :; do sleep 1; done
}

vm_run_scenario() {
	_rc=0
	if [ -n "$VM_SCENARIO" ]; then
		case $VM_SCENARIO in
		*/*) _s=/vm/$VM_SCENARIO.sh ;;    # ROOM/NAME, e.g. a benchmark body bench/NAME
		*) _s=/vm/scenarios/$VM_SCENARIO.sh ;;
		esac
		if [ -r "$_s" ]; then
			vm_log "scenario $VM_SCENARIO ($VM_FLAVOUR) starting"
			_x=; [ -n "$VM_DEBUG" ] && _x=x
			(cd /tmp && ${VM_SH:-/bin/sh} -e$_x "$_s") </dev/null >/dev/console 2>&1
			_rc=$?
			vm_log "scenario $VM_SCENARIO exited with $_rc"
			if [ -e /run/vm-rebooting ]; then    # vm_reboot: the system goes down by itself
				while :; do sleep 1; done
			fi
		else
			vm_fail "no scenario $_s"; _rc=2
		fi
	fi
	if [ -n "$VM_SHELL" ]; then
		[ -n "$VM_SCENARIO" ] || san_up || :
		echo "lund VM shell ($VM_FLAVOUR): san_counts, lsscsi, ...; leave with poweroff -f" >/dev/console
		export ENV=/vm/guest/lib.sh    # the helpers (san_up, vm_*) in the interactive shell
		if [ -n "${VM_SH:-}" ]; then setsid -c ${VM_SH} --rcfile /vm/guest/lib.sh -i <>/dev/console >&0 2>&1
		else setsid cttyhack /bin/sh -l; fi
	fi
	vm_exit $_rc
}

# A benchmark body's knobs from the host's environment (tests/vm/run: vm.bench.NAME=VALUE, a
# comma for each space); what the body sets itself comes after this and wins
for _a in $(cat /proc/cmdline 2>/dev/null); do
	case $_a in
	vm.bench.LUND_BENCH_*=*)
		_a=${_a#vm.bench.}
		export "${_a%%=*}=$(echo "${_a#*=}" | tr , ' ')"
		;;
	esac
done

SAN_SOURCED=1 . /vm/san.sh
# `# vm-topology: none`: no QEMU devices of the SAN, only scsi_debug's LUs when san_up (or the
# systemd-root flavour's stage 1) loads it
case " $(cat /proc/cmdline 2>/dev/null) " in
*" vm.topology=none "*) SAN_EXPECT=$(echo "$SAN_EXPECT" | grep '^scsi_debug ') ;;
esac
