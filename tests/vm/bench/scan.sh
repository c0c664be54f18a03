#!/bin/sh
# bench/scan: the benchmark behind bench/scan.sh (not a test: the suite runs only scenarios/;
# it asserts nothing about time). One scsi_debug host, 16 targets x 60 LUNs = 960 LUs, then
# max_luns 64: 64 newly mapped LUs, added three ways on the same state, each timed until every
# new LU has its block device, with the SCSI commands per new LU from the sdevs' iorequest_cnt:
#   kernel: echo "- - -" > scan;   lund: lunctl rescan HOST;   rsb: rescan-scsi-bus.sh -a
# (kernel and lund seven times each, alternating; rescan-scsi-bus.sh once), and lunctl's fixed
# cost: `lunctl rescan` with nothing new, `lunctl --version`
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 1500
. /vm/guest/lib.sh
. /vm/guest/scan-lib.sh

SD=/sys/bus/pseudo/drivers/scsi_debug
modprobe -a sd_mod sg
modprobe scsi_debug add_host=1 num_tgts=16 max_luns=60 dev_size_mb=1 vpd_use_hostno=0
h=$(hosts_of scsi_debug)
lus() { ls -d /sys/bus/scsi/devices/$h:*:*:* 2>/dev/null | wc -l; }
disks() { ls -d /sys/bus/scsi/devices/$h:*:*:*/block/* 2>/dev/null | wc -l; }
vm_wait_until 300 test "$(disks)" -ge 960 || vm_fail "960 disks did not appear"
vm_result "base_lus=$(lus)"
# sum of iorequest_cnt (hex) over the host's LUs
cmds() {
	_s=0
	for _f in /sys/bus/scsi/devices/$h:*:*:*/iorequest_cnt; do read -r _c <"$_f"; _s=$((_s + _c)); done
	echo $_s
}
# The timed part polls without starting a process: under TCG each fork costs milliseconds
# of the guest CPU that the scan being measured needs (a `ls | wc` every 0.1 s took a
# share of it that grew with the host's load). The clock is read into $NOW, the new LUs'
# disks counted with a glob, the pause is a read timeout on a FIFO nobody writes.
mkfifo /tmp/nap
exec 9<>/tmp/nap
now_ms() {
	read -r _up _idle </proc/uptime
	_s=${_up%.*}; _f=${_up#*.}
	NOW=$((_s * 1000 + ${_f#0} * 10))
}
ready() {
	set -- /sys/bus/scsi/devices/$h:*:*:6[0-3]/block/*
	[ -e "$1" ] && [ $# -ge 64 ]
}
# wait_ready LIMIT_S: until every new LU has its disk, polling every 20 ms
wait_ready() {
	vm_timeout_scale
	now_ms
	_end=$((NOW + $1 * 1000 * VM_TIMEOUT_SCALE))
	until ready; do
		now_ms
		[ "$NOW" -lt "$_end" ] || return 1
		read -t 0.02 _ <&9
	done
}
# Each round starts from the same quiet state: the deleted LUs gone and a second for the
# kernel's work after a deletion (the tool timed right after one ran up to 2x slower).
undo() {
	for _d in /sys/bus/scsi/devices/$h:*:*:6[0-3]; do echo 1 >"$_d/delete"; done
	vm_wait_until 60 test "$(lus)" -eq 960
	sleep 1
}
echo 64 >$SD/max_luns

run() {       # NAME COMMAND...
	_n=$1; shift
	_c0=$(cmds)
	now_ms; _t0=$NOW
	_rc=0; "$@" >/tmp/$_n.out 2>&1 || _rc=$?
	wait_ready "${WAIT:-120}" || vm_log "$_n: not every new LU appeared"
	now_ms; _ms=$((NOW - _t0))
	_c1=$(cmds)
	_new=$(( $(lus) - 960 ))
	vm_result "$_n.ms=$_ms $_n.rc=$_rc $_n.new=$_new $_n.cmds=$((_c1 - _c0)) $_n.cmds_per_lu=$(( (_c1 - _c0) / (_new > 0 ? _new : 1) ))"
	tail -n 5 /tmp/$_n.out
	undo
}
kernel_scan() { echo "- - -" >/sys/class/scsi_host/host$h/scan; }
# lunctl's own cost, with nothing to add (the target reports 60 LUNs again): its start, the host
# walk, one REPORT LUNS per target, the result; and its start alone
fixed() {     # NAME COMMAND...
	_n=$1; shift
	now_ms; _t0=$NOW
	"$@" >/dev/null 2>&1
	now_ms; vm_result "$_n.ms=$((NOW - _t0))"
}
# LUND_BENCH_TRACE=1 (a profile, not a timing: ptrace slows every system call; strace from
# --bin /usr/bin/strace): lunctl rescan under strace -f -tt -T with nothing new (idle.trace) and
# with the 64 new LUs (new.trace), and a strace -c -f of each (*.count).
# LUND_BENCH_PARTS=1: lunctl's fixed cost taken apart, ten runs of each variant with nothing
# new (its start, the rescan, with --jobs 1, -J, --dry-run, and the target probe "- - 0" lunctl
# writes, from the shell), then rounds with new LUs: the kernel's scan, lunctl, and one
# "C T -" per target from the shell (what lunctl asks of the kernel).
if [ "${LUND_BENCH_TRACE:-}" = 1 ]; then
	command -v strace >/dev/null || { vm_fail "no strace (--bin /usr/bin/strace)"; vm_done; }
	lunctl rescan --dry-run "$h" >/dev/null 2>&1 || true
	echo 60 >$SD/max_luns
	strace -f -tt -T -o "$VM_OUT/idle.trace" lunctl rescan "$h" >/dev/null 2>&1 || :
	strace -c -f -o "$VM_OUT/idle.count" lunctl rescan "$h" >/dev/null 2>&1 || :
	echo 64 >$SD/max_luns
	run traced strace -f -tt -T -o "$VM_OUT/new.trace" lunctl rescan "$h"
	run counted strace -c -f -o "$VM_OUT/new.count" lunctl rescan "$h"
	vm_done
fi
if [ "${LUND_BENCH_PARTS:-}" = 1 ]; then
	lunctl rescan --dry-run "$h" >/dev/null 2>&1 || true
	echo 60 >$SD/max_luns
	ten() { # NAME COMMAND...: ten runs, the mean in ms
		_n=$1; shift
		now_ms; _t0=$NOW
		for _i in 0 1 2 3 4 5 6 7 8 9; do "$@" >/dev/null 2>&1 || :; done
		now_ms; vm_result "$_n.ms=$(( (NOW - _t0) / 10 ))"
	}
	probe0() { echo "- - 0" >/sys/class/scsi_host/host$h/scan; }
	# user and system time of ten runs (busybox time: "real", "user", "sys" lines)
	tensys() { # NAME COMMAND...
		_n=$1; shift
		time sh -c 'for i in 0 1 2 3 4 5 6 7 8 9; do "$@" >/dev/null 2>&1; done' sh "$@" \
			2>/tmp/time.out || :
		vm_result "$_n.time=$(tr -s ' \n' ',' </tmp/time.out)"
	}
	for _r in 1 2; do
		# the guest's floor for any process: a small dynamically linked one printing its
		# version (coreutils' pr: libc only, as lunctl)
		ten floor$_r /usr/bin/pr --version
		ten start$_r lunctl --version
		ten idle$_r lunctl rescan "$h"
		ten jobs1_$_r lunctl rescan --jobs 1 "$h"
		ten json$_r lunctl rescan -J "$h"
		ten dry$_r lunctl rescan --dry-run "$h"
		ten dryjobs1_$_r lunctl rescan --dry-run --jobs 1 "$h"
		ten onetarget$_r lunctl rescan "$h:0:0"
		ten nohost$_r lunctl rescan 99
		ten probe0_$_r probe0
	done
	# the pieces of a target job and of the host's listing, from the shell
	opensg() { : </dev/sg0; }
	openbsg() { : <"/dev/bsg/$h:0:0:0"; }
	ten opensg opensg
	ten openbsg openbsg
	ten lsroot ls /sys/class/scsi_host
	ten lsdevices ls -f /sys/bus/scsi/devices
	tensys floor.sys /usr/bin/pr --version
	tensys start.sys lunctl --version
	tensys idle.sys lunctl rescan "$h"
	tensys onetarget.sys lunctl rescan "$h:0:0"
	echo 64 >$SD/max_luns
	targets() {
		for _d in /sys/class/scsi_device/$h:*:*:0; do
			_t=${_d##*/}; _t=${_t%:0}; _t=${_t#*:}
			echo "${_t%%:*} ${_t#*:} -" >/sys/class/scsi_host/host$h/scan
		done
	}
	for _r in 1 2 3; do
		run kernel$_r kernel_scan
		run lund$_r lunctl rescan "$h"
		run targets$_r targets
	done
	vm_done
fi
# Alternating rounds on the same state: bench/scan.sh compares medians, since one TCG guest
# on a shared machine varies by tens of percent from one run to the next.
# lunctl and the libraries it loads read once before the rounds, as on any host that ran it
lunctl rescan --dry-run "$h" >/dev/null 2>&1 || true
for i in 1 2 3 4 5 6 7; do
	run kernel$i kernel_scan
	run lund$i lunctl rescan "$h"
	echo 60 >$SD/max_luns
	fixed idle$i lunctl rescan "$h"
	echo 64 >$SD/max_luns
	fixed start$i lunctl --version
done
WAIT=5 run rsb timeout "${RSB_BENCH_TIMEOUT:-900}" bash /usr/bin/rescan-scsi-bus.sh -a --hosts=$h
vm_done
