#!/bin/bash
# kernel/test.sh: build the patchset (kernel/build.sh) and run the VM scenarios kernel-stock
# (Debian's modules) and kernel-patched (the patched ones) side by side, then kernel-udev-stock
# and kernel-udev-patched (udevd running: the events and re-probes a failing command causes), then
# lund's lund-errpolicy-stock and lund-errpolicy-patched (`lunctl policy`, the device state
# events, an iSCSI session lost: transport-offline), then print the stock-vs-patched table and
# check the figures.  Exit 77 (skip) without QEMU.
# With --kernel 6.12: the series rebased on 6.12 (kernel/6.12/), built against Debian's 6.12
# headers and booted on Debian's linux-image-6.12-amd64: the kernel-stock/kernel-patched and
# lund-errpolicy pairs and their table (the udev pair needs the 6.1 root image).
# With --kernel 7.3: the fixes and events series (kernel/7.3/), built in Debian 13's build root
# against trixie-backports' 7.3 headers and booted on its kernel (LUND_VM_RELEASE=13
# LUND_VM_KERNEL=backports): kernel-stock, lund-errpolicy-stock and kernel-udev-stock on
# Debian's modules beside, on the patched ones, kernel-events (the series' ABI, checked in the
# guest), kernel-udev-events (its offline event under Debian 13's udevd, with and without the
# 60-block.rules change of kernel/7.3/udev/) and kernel-lund-events (lund on the series). The
# v2 scenarios (kernel-patched, kernel-udev-patched, lund-errpolicy-patched) test v2's ABI,
# which 7.3's series does not have.
# usage: kernel/test.sh [--kernel 6.1|6.12|7.3] [--bisect]
set -euo pipefail
KDIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$KDIR/.." && pwd)
command -v qemu-system-x86_64 >/dev/null || { echo "kernel/test.sh: no QEMU, skipping"; exit 77; }
line=6.1
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) line=${2:?}; shift ;;
	*) args+=("$1") ;;
	esac
	shift
done
case $line in
6.1) ;;
6.12) export LUND_VM_KERNEL_META=linux-image-6.12-amd64 ;;
7.3) export LUND_VM_RELEASE=13 LUND_VM_KERNEL=backports ;;
*) echo "usage: $0 [--kernel 6.1|6.12|7.3] [--bisect]" >&2; exit 2 ;;
esac
t0=$(date +%s)
mods=$("$KDIR/build.sh" --kernel "$line" "${args[@]}" | sed -n 's/^MODULES=//p')
[ -d "$mods" ] || { echo "kernel/test.sh: build failed" >&2; exit 1; }
t1=$(date +%s)
res=$REPO/.cache/kernel/results
[ "$line" = 6.1 ] || res=$res-$line
rm -rf "$res"; mkdir -p "$res"
export LUND_KERNEL_RESULTS=$res
"$REPO/tests/vm/setup"
rc=0
# lund's binaries for lund-errpolicy-* (`lunctl policy` must be in them), built once before
# both runners copy them: tests/vm/run's build directory, $LUND_VM_BUILD or build-vm
build=${LUND_VM_BUILD:-$REPO/build-vm}
[ -d "$build" ] || meson setup "$build" "$REPO" >/dev/null
ninja -C "$build" src/cli/lunctl src/daemon/lund >/dev/null
if [ "$line" = 7.3 ]; then
	# Debian's modules (the stock scenarios of 6.1: the kernel alone, lund, udevd) beside the
	# patched ones (the series' own scenarios), one runner each
	"$REPO/tests/vm/run" --no-build --jobs 1 kernel-stock lund-errpolicy-stock kernel-udev-stock \
		>"$res/stock.log" 2>&1 & p1=$!
	LUND_VM_MODULES_OVERLAY=$mods "$REPO/tests/vm/run" --no-build --jobs 1 kernel-events \
		kernel-udev-events kernel-lund-events >"$res/events.log" 2>&1 & p2=$!
	wait $p1 || rc=1
	wait $p2 || rc=1
	cat "$res/stock.log" "$res/events.log"
	t2=$(date +%s)
	echo "kernel/test.sh: $line: build $((t1 - t0))s, VMs $((t2 - t1))s, total $((t2 - t0))s"
	exit $rc
fi
# Stock and patched side by side, one runner each (one VM each): the failing commands alone
# (kernel-*), with udevd running (kernel-udev-*: the events and re-probes they cause), and
# lund's side (lund-errpolicy-*: `lunctl policy`, the device going offline and an iSCSI session
# lost until its LUs are transport-offline, the iscsi.* rows of the table).
pairs="kernel lund-errpolicy"
[ "$line" != 6.1 ] || pairs="$pairs kernel-udev" # the udev pair needs the 6.1 root image
stock=() patched=()
for p in $pairs; do stock+=("$p-stock"); patched+=("$p-patched"); done
"$REPO/tests/vm/run" --no-build --jobs 1 "${stock[@]}" >"$res/stock.log" 2>&1 & p1=$!
LUND_VM_MODULES_OVERLAY=$mods "$REPO/tests/vm/run" --no-build --jobs 1 "${patched[@]}" \
	>"$res/patched.log" 2>&1 & p2=$!
wait $p1 || rc=1
wait $p2 || rc=1
cat "$res/stock.log" "$res/patched.log"
if [ "$line" != 6.1 ]; then
	python3 "$KDIR/table.py" --faults-only "$res/stock.txt,$res/iscsi-stock.txt" \
		"$res/patched.txt,$res/iscsi-patched.txt" || rc=1
	t2=$(date +%s)
	echo "kernel/test.sh: $line: build $((t1 - t0))s, VMs $((t2 - t1))s, total $((t2 - t0))s"
	exit $rc
fi
python3 "$KDIR/table.py" "$res/stock.txt,$res/udev-stock.txt,$res/iscsi-stock.txt" \
	"$res/patched.txt,$res/udev-patched.txt,$res/iscsi-patched.txt" || rc=1
t2=$(date +%s)
echo "kernel/test.sh: build $((t1 - t0))s, VMs $((t2 - t1))s, total $((t2 - t0))s"
exit $rc
