#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel/debug.sh: the 7.3 series (kernel/7.3/series) under the kernel's own checkers. Builds a
# small x86_64 kernel from Debian's linux-source-7.3 with the series applied and
# kernel/7.3/debug.config merged over `make tinyconfig` (lockdep with PROVE_RCU, KASAN,
# DEBUG_ATOMIC_SLEEP, the series' KUnit tests built in, scsi_debug as a module), boots it under
# QEMU with a busybox initramfs and an AHCI disk, and runs in the guest:
#  - the KUnit suites scsi_lib (with the series' error-class table) and scsi_proto, at boot;
#  - scsi_debug with submit_queues=4: parallel direct reads on every queue, then injected
#    failures (medium error, ABORTED COMMAND 4B/03, timeout) counted in errors/<class> and
#    traced, error recovery offlining the device (the SDEV_STATE uevent's work item), a write of
#    "offline", deletion of the offline device and rmmod;
#  - libata hot-unplug: the AHCI controller removed from the PCI bus under I/O (libata offlines
#    its devices under its port lock: the series must send and allocate nothing there).
# It passes when every KUnit case passes, the guest's checks hold and the kernel log has no
# splat (BUG, WARNING, lockdep, KASAN, sleeping in atomic context, suspicious RCU usage).
# Not part of tools/test: the build takes 20-40 min on 2 cores. Needs what kernel/build.sh
# --kernel 7.3 fetches (it is run first) and the host's gcc, flex, bison, bc, libelf-dev.
# usage: kernel/debug.sh [--build-only]
set -euo pipefail
KDIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$KDIR/.." && pwd)
build_only=0
[ "${1:-}" != --build-only ] || build_only=1

log() { echo "debug: $*" >&2; }
die() { log "error: $*"; exit 1; }

mods=$("$KDIR/build.sh" --kernel 7.3 | sed -n 's/^MODULES=//p')
[ -d "$mods" ] || die "kernel/build.sh --kernel 7.3 failed"
V=${mods%/modules}
SRC=$V/linux-source-7.3
D=$V/debug
mapfile -t PATCHES < <(grep -v '^#' "$KDIR/7.3/series")
key=$(cat "${PATCHES[@]/#/$KDIR/7.3/}" | sha256sum | cut -c1-16)
ckey=$(sha256sum <"$KDIR/7.3/debug.config" | cut -c1-16)

# --- the patched tree (a copy of the source, made again when the series changes) -------------
if [ "$(cat "$D/key" 2>/dev/null)" != "$key" ]; then
	log "patched tree in $D/src"
	rm -rf "$D"
	mkdir -p "$D"
	cp -a "$SRC" "$D/src"
	for p in "${PATCHES[@]}"; do
		(cd "$D/src" && GIT_CEILING_DIRECTORIES=$D git apply "$KDIR/7.3/$p") ||
			die "$p does not apply"
	done
	echo "$key" >"$D/key"
fi

# --- configure and build ---------------------------------------------------------------------
B=$D/build
mkdir -p "$B"
if [ ! -e "$B/.config" ] || [ "$(cat "$B/.debug-config" 2>/dev/null)" != "$ckey" ]; then
	make -s -C "$D/src" O="$B" tinyconfig >/dev/null
	"$D/src/scripts/kconfig/merge_config.sh" -m -O "$B" "$B/.config" "$KDIR/7.3/debug.config" >/dev/null
	make -s -C "$D/src" O="$B" olddefconfig >/dev/null
	missing=0
	while IFS= read -r l; do
		case $l in CONFIG_*=*) grep -qx "$l" "$B/.config" || { log "not set: $l"; missing=1; } ;; esac
	done <"$KDIR/7.3/debug.config"
	[ "$missing" = 0 ] || { rm -f "$B/.config"; die "debug.config: options Kconfig did not take"; }
	echo "$ckey" >"$B/.debug-config"
fi
t0=$(date +%s)
make -s -C "$D/src" O="$B" -j"$(nproc)" bzImage modules >"$D/make.log" 2>&1 ||
	{ tail -30 "$D/make.log"; die "build failed (log: $D/make.log)"; }
log "built in $(( $(date +%s) - t0 ))s: $B/arch/x86/boot/bzImage"
[ "$build_only" = 0 ] || exit 0

# --- the guest -------------------------------------------------------------------------------
command -v qemu-system-x86_64 >/dev/null || { log "no QEMU, skipping the boot"; exit 77; }
R=$D/run
rm -rf "$R"; mkdir -p "$R/root/bin" "$R/root/proc" "$R/root/sys" "$R/root/dev" "$R/root/tmp"
cp /bin/busybox "$R/root/bin/busybox"
make -s -C "$D/src" O="$B" modules_install INSTALL_MOD_PATH="$R/root" INSTALL_MOD_STRIP=1 >/dev/null
cat >"$R/root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev 2>/dev/null
mount -t debugfs none /sys/kernel/debug; mount -t tracefs none /sys/kernel/tracing
fails=0
say() { echo "GUEST $*"; }
check() { if [ "$2" = "$3" ]; then say "ok: $1 ($3)"; else say "FAIL: $1: expected '$2', got '$3'"; fails=$((fails + 1)); fi; }
at_least() { if [ "$3" -ge "$2" ]; then say "ok: $1 ($3)"; else say "FAIL: $1: expected at least $2, got $3"; fails=$((fails + 1)); fi; }

: >/tmp/state
# no networking in this kernel: the uevents reach user space through the uevent helper
printf '#!/bin/sh\n[ -n "$SDEV_STATE" ] && echo "$SDEV_STATE" >>/tmp/state\nexit 0\n' >/bin/uevent-helper
chmod +x /bin/uevent-helper
echo /bin/uevent-helper >/sys/kernel/uevent_helper
say "$(nproc) CPUs"
[ "$(nproc)" -ge 4 ] || { say "FAIL: 4 CPUs expected (one hardware queue each)"; fails=$((fails + 1)); }

# --- scsi_debug: four submit queues, two LUs ---------------------------------------------------
modprobe scsi_debug dev_size_mb=16 max_luns=2 submit_queues=4 || { say "FAIL: modprobe scsi_debug"; fails=$((fails + 1)); }
SDBG=/sys/bus/pseudo/drivers/scsi_debug
n=0; while [ $n -lt 60 ] && [ "$(ls -d /sys/bus/pseudo/devices/adapter0/host*/target*/*/block/sd* 2>/dev/null | wc -l)" -lt 2 ]; do sleep 1; n=$((n + 1)); done
set -- /sys/bus/pseudo/devices/adapter0/host*/target*/*:*:*:0
SD=$(cd "$1" && pwd -P); BLK=$(ls "$SD/block"); DEV=/dev/$BLK
H=/sys/class/scsi_host/host${SD##*/}; H=${H%%:*}
say "scsi_debug disk $DEV ($SD)"
check "scsi_debug's hardware queues (submit_queues=4)" 4 "$(cat "$H/nr_hw_queues")"
check "errors/ classes" "device driver medium protection reservation space target timeout transport zone" "$(ls "$SD/errors" | xargs)"
rd() { dd if="$DEV" of=/dev/null bs=512 count=1 skip="${1:-0}" iflag=direct 2>/dev/null; }
inject() { echo "$1" >$SDBG/opts; echo "$2" >$SDBG/every_nth; }
for q in 1 2 3 4 5 6 7 8; do dd if="$DEV" of=/dev/null bs=4k count=512 skip=$((q * 64)) iflag=direct 2>/dev/null & done; wait
TR=/sys/kernel/tracing
echo 1 >$TR/events/scsi/scsi_cmd_error_class/enable
inject 2 0; rd 4660; rd 4660; inject 0 0
inject 16 1; rd 0; inject 0 0
echo 2 >"$SD/timeout"; echo 0 >"/sys/class/scsi_disk/${SD##*/}/max_retries"
inject 128 1; rd 8; inject 0 0
echo 30 >"$SD/timeout"
check "errors/medium" 2 "$(cat "$SD/errors/medium")"
check "errors/transport" 1 "$(cat "$SD/errors/transport")"
check "errors/timeout" 1 "$(cat "$SD/errors/timeout")"
check "scsi_cmd_error_class records" 4 "$(grep -c 'scsi_cmd_error_class:' $TR/trace)"
echo 0 >$TR/events/scsi/scsi_cmd_error_class/enable
# error recovery gives up on the device: one SDEV_STATE=offline from the work item
echo 0 >"$H/eh_deadline"; echo 1 >"$SD/eh_timeout"
inject 4 1
for q in 1 2 3 4; do rd $((q * 8)) & done; wait
inject 0 0
n=0; while [ $n -lt 60 ] && [ "$(cat "$SD/state")" != offline ]; do sleep 1; n=$((n + 1)); done
sleep 2
check "state after error recovery" offline "$(cat "$SD/state")"
check "SDEV_STATE events" offline "$(xargs </tmp/state)"
echo running >"$SD/state"; echo offline >"$SD/state"
echo 1 >"$SD/delete"
sleep 1
check "SDEV_STATE events after a written offline and a delete" offline "$(xargs </tmp/state)"
rmmod scsi_debug || say "FAIL: rmmod scsi_debug"

# --- libata hot-unplug: the AHCI controller removed under I/O --------------------------------
A=$(for d in /sys/bus/pci/devices/*; do [ "$(cat "$d/class")" = 0x010601 ] && echo "$d"; done | head -n1)
ATA=$(ls -d "$A"/ata*/host*/target*/*/block/sd* 2>/dev/null | head -n1)
if [ -n "$ATA" ]; then
	say "AHCI ${A##*/}, disk /dev/${ATA##*/}"
	dd if="/dev/${ATA##*/}" of=/dev/null bs=4k count=4096 iflag=direct 2>/dev/null &
	sleep 0.2
	echo 1 >"$A/remove"
	wait
	sleep 2
	check "AHCI disk gone" "" "$(ls -d /sys/block/${ATA##*/} 2>/dev/null)"
	check "SDEV_STATE events after the hot-unplug" offline "$(xargs </tmp/state)"
else
	say "FAIL: no AHCI disk"; fails=$((fails + 1))
fi

# --- the verdict -------------------------------------------------------------------------------
dmesg >/tmp/dmesg
grep -E '^ *(not )?ok [0-9]+ ' /tmp/dmesg | sed 's/^/GUEST kunit: /'
kunit_bad=$(grep -cE '^ *not ok [0-9]+ ' /tmp/dmesg)
kunit_ok=$(grep -cE '^ *ok [0-9]+ ' /tmp/dmesg)
at_least "KUnit results that passed" 3 "$kunit_ok"
check "KUnit case of the error classes" 1 "$(grep -cE '^ *ok [0-9]+ scsi_lib_test_error_class$' /tmp/dmesg)"
check "KUnit results that failed" 0 "$kunit_bad"
# the checkers are on (their boot banners), so that "no splat" means something
check "KASAN initialized" 1 "$(grep -c 'KernelAddressSanitizer initialized' /tmp/dmesg)"
check "lockdep's validator" 1 "$(grep -c 'Lock dependency validator' /tmp/dmesg)"
check "KUnit ran at boot" 1 "$(grep -c '^KTAP version' /tmp/dmesg)"
SPLAT='BUG:|WARNING:|possible (recursive|circular) locking|inconsistent lock state|lock held when returning|sleeping function called from invalid context|suspicious RCU usage|UBSAN:|Call Trace'
splats=$(grep -cE "$SPLAT" /tmp/dmesg)
check "splats in the kernel log" 0 "$splats"
[ "$splats" = 0 ] || grep -B2 -A30 -E "$SPLAT" /tmp/dmesg | head -n 150
say "RESULT fails=$fails"
poweroff -f
EOF
chmod +x "$R/root/init"
(cd "$R/root" && find . | cpio -o -H newc --quiet -R 0:0 | gzip -1) >"$R/initrd.gz"
qemu-img create -q -f raw "$R/ata.img" 64M
t0=$(date +%s)
# the guest powers off at its end; a time limit and this script's own end stop it otherwise
timeout "${LUND_DEBUG_TIMEOUT:-1800}" qemu-system-x86_64 -machine q35 -accel tcg -smp 4 -m 2048 \
	-nographic -no-reboot -kernel "$B/arch/x86/boot/bzImage" -initrd "$R/initrd.gz" \
	-append "console=ttyS0 panic=-1 quiet loglevel=4 kunit.filter_glob=scsi*" \
	-drive if=none,id=ata0,file="$R/ata.img",format=raw -device ide-hd,drive=ata0,bus=ide.0 \
	>"$R/console.log" 2>&1 </dev/null &
qpid=$!
trap 'kill "$qpid" 2>/dev/null; pkill -P "$qpid" 2>/dev/null' EXIT INT TERM
wait "$qpid" || true
trap - EXIT INT TERM
log "guest ran $(( $(date +%s) - t0 ))s; console: $R/console.log"
grep -a '^GUEST' "$R/console.log" | sed 's/^GUEST //'
grep -aq '^GUEST RESULT fails=0' "$R/console.log"
