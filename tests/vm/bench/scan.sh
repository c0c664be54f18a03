#!/bin/sh
# bench/scan: the benchmark behind bench/scan.sh (not a test: the suite runs only scenarios/;
# it asserts nothing about time). One scsi_debug host, 16 targets x 60 LUNs = 960 LUs, then
# max_luns 64: 64 newly mapped LUs, added three ways on the same state, each timed until every
# new LU has its block device, with the SCSI commands per new LU from the sdevs' iorequest_cnt:
#   kernel: echo "- - -" > scan;   lund: lunctl rescan HOST;   rsb: rescan-scsi-bus.sh -a
# (kernel and lund seven times each, alternating; rescan-scsi-bus.sh once), and lunctl's fixed
# cost: `lunctl rescan` with nothing new, `lunctl --version`; lunctl's figures also with the
# guest's address-space randomisation off (below)
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
	[ -n "${NOUNDO:-}" ] || undo
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
ten() { # NAME COMMAND...: ten runs, the mean in ms
	_n=$1; shift
	now_ms; _t0=$NOW
	for _i in 0 1 2 3 4 5 6 7 8 9; do "$@" >/dev/null 2>&1 || :; done
	now_ms; vm_result "$_n.ms=$(( (NOW - _t0) / 10 ))"
}
# target_scans LUN...: for each target (those with a LUN 0), one "C T LUN" per LUN given ("-":
# the kernel's REPORT LUNS scan of the target), from the shell: what lunctl asks of the kernel
target_scans() {
	for _d in /sys/class/scsi_device/$h:*:*:0; do
		_t=${_d##*/}; _t=${_t%:0}; _t=${_t#*:}
		for _l in "$@"; do
			echo "${_t%%:*} ${_t#*:} $_l" >/sys/class/scsi_host/host$h/scan
		done
	done
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
# LUND_BENCH_ASLR=compare: a process's start and lunctl with nothing new, ten runs each, with the
# guest's address-space randomisation on (2) and off (0), twice in turn: what a randomised
# process costs TCG, which translates code per virtual address.
if [ "${LUND_BENCH_ASLR:-}" = compare ]; then
	lunctl rescan --dry-run "$h" >/dev/null 2>&1 || true
	echo 60 >$SD/max_luns
	for _r in 1 2; do
		for _a in 2 0; do
			echo $_a >/proc/sys/kernel/randomize_va_space
			ten floor${_r}_aslr$_a /usr/bin/pr --version
			ten start${_r}_aslr$_a lunctl --version
			ten idle${_r}_aslr$_a lunctl rescan "$h"
		done
	done
	echo 2 >/proc/sys/kernel/randomize_va_space
	vm_done
fi
# LUND_BENCH_ASLR=rounds: the 64 new LUs without address-space randomisation, five rounds of the
# kernel's scan, lunctl, lunctl --jobs 1, a lunctl-old given with --bin, one "C T -" per
# target and one "C T L" per new LUN from the shell
if [ "${LUND_BENCH_ASLR:-}" = rounds ]; then
	lunctl rescan --dry-run "$h" >/dev/null 2>&1 || true
	echo 0 >/proc/sys/kernel/randomize_va_space
	for _r in 1 2 3 4 5; do
		run kernel$_r kernel_scan
		run lund$_r lunctl rescan "$h"
		run jobs1_$_r lunctl rescan --jobs 1 "$h"
		# another lunctl to compare with, from --bin (lunctl-old)
		if command -v lunctl-old >/dev/null; then run old$_r lunctl-old rescan "$h"; fi
		run targets$_r target_scans -
		run luns$_r target_scans 60 61 62 63
	done
	echo 2 >/proc/sys/kernel/randomize_va_space
	vm_done
fi
if [ "${LUND_BENCH_PARTS:-}" = 1 ]; then
	lunctl rescan --dry-run "$h" >/dev/null 2>&1 || true
	echo 60 >$SD/max_luns
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
	for _r in 1 2 3; do
		run kernel$_r kernel_scan
		run lund$_r lunctl rescan "$h"
		run targets$_r target_scans -
	done
	vm_done
fi
# LUND_BENCH_PERF=1 (a profile, not a timing; perf from --bin /usr/bin/perf): three rounds of
# the kernel's scan and of lunctl rescan, each under a system-wide perf record, taken apart per
# process and library (perf-NAME.comm) and per symbol (perf-NAME.sym): where the wall time of
# each goes on the guest's one vCPU, lunctl's process included.
if [ "${LUND_BENCH_PERF:-}" = 1 ]; then
	command -v perf >/dev/null || { vm_fail "no perf (--bin /usr/bin/perf)"; vm_done; }
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	echo 0 >/proc/sys/kernel/kptr_restrict
	lunctl rescan --dry-run "$h" >/dev/null 2>&1 || true
	perfrun() { # NAME COMMAND...
		_p=$1
		perf record -q -e cpu-clock -F 999 -a -g -o /tmp/perf.data >/tmp/perf.log 2>&1 &
		_pp=$!
		sleep 1
		NOUNDO=1 run "$@"
		kill -INT $_pp
		wait $_pp 2>/dev/null || true
		undo
		perf report -i /tmp/perf.data --no-children --sort comm,dso --stdio -g none \
			2>/dev/null | grep -v '^$' | head -60 >"$VM_OUT/perf-$_p.comm"
		perf report -i /tmp/perf.data --no-children --sort comm,dso,sym --stdio -g none \
			2>/dev/null | grep -v '^$' | head -200 >"$VM_OUT/perf-$_p.sym"
		# samples per 20 ms from the command's start to its last disk: idle (swapper),
		# lunctl, the shell (the kernel's scan runs in its write), kworkers, the rest
		perf script -i /tmp/perf.data -F comm,time 2>/dev/null |
			awk -v t0="$_t0" -v ms="$_ms" '{ sub(":", "", $NF); t = $NF * 1000 - t0
				if (t < 0 || t > ms) next; b = int(t / 20)
				c = $1 == "swapper" ? "idle" : $1 == "lunctl" || $1 == "sh" ? $1 : \
				    $1 ~ /^kworker/ ? "kworker" : "other"
				n[b, c]++; if (b > nb) nb = b }
				END { for (b = 0; b <= nb; b++) printf "%5d idle=%d lunctl=%d sh=%d kworker=%d other=%d\n",
					b * 20, n[b, "idle"], n[b, "lunctl"], n[b, "sh"], n[b, "kworker"], n[b, "other"] }' \
			>"$VM_OUT/perf-$_p.timeline"
		rm -f /tmp/perf.data
	}
	for _r in 1 2 3; do
		perfrun kernel$_r kernel_scan
		perfrun lund$_r lunctl rescan "$h"
	done
	# lunctl's own cost alone, twenty times over: nothing new (perf-idle.*: lunctl's
	# samples by library and symbol, user and kernel), with the address-space
	# randomisation on (2) and off (0)
	echo 60 >$SD/max_luns
	for _a in 2 0; do
		echo $_a >/proc/sys/kernel/randomize_va_space
		perf record -q -e cpu-clock -F 999 -a -g -o /tmp/perf.data -- \
			sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
				lunctl rescan "$1" >/dev/null 2>&1; done' sh "$h" >/tmp/perf.log 2>&1
		echo 2 >/proc/sys/kernel/randomize_va_space
		_o=$VM_OUT/perf-idle-aslr$_a
		perf report -i /tmp/perf.data --no-children --sort comm,dso --stdio -g none \
			2>/dev/null | grep -v '^$' | head -60 >"$_o.comm"
		perf report -i /tmp/perf.data --no-children --comm lunctl --sort dso,sym \
			--stdio -g none 2>/dev/null | grep -v '^$' | head -300 >"$_o.sym"
		perf report -i /tmp/perf.data --children --comm lunctl --sort dso,sym --stdio \
			-g none 2>/dev/null | grep -v '^$' | head -300 >"$_o.children"
		rm -f /tmp/perf.data
	done
	echo 64 >$SD/max_luns
	vm_done
fi
# Alternating rounds on the same state: bench/scan.sh compares medians, since one TCG guest
# on a shared machine varies by tens of percent from one run to the next.
# lunctl and the libraries it loads read once before the rounds, as on any host that ran it
lunctl rescan --dry-run "$h" >/dev/null 2>&1 || true
# Each round also runs lunctl with the guest's address-space randomisation off (norand, and its
# fixed cost: norandidle, norandstart). TCG translates a process's code per virtual address, so a
# randomised process pays for translating again every block it runs (lunctl's start 28-31 ms
# against 7-9 without, the same as any small program's); hardware does not. The kernel's
# rounds start no process. Both figures are printed, the default first.
norand() { echo 0 >/proc/sys/kernel/randomize_va_space; }
rand() { echo 2 >/proc/sys/kernel/randomize_va_space; }
# LUND_BENCH_ROUNDS=N: N rounds instead of seven (at most 99)
for i in $(seq 1 "${LUND_BENCH_ROUNDS:-7}"); do
	run kernel$i kernel_scan
	run lund$i lunctl rescan "$h"
	norand
	run norand$i lunctl rescan "$h"
	rand
	# another lunctl to compare with in the same rounds, from --bin (lunctl-old)
	if command -v lunctl-old >/dev/null; then run old$i lunctl-old rescan "$h"; fi
	echo 60 >$SD/max_luns
	fixed idle$i lunctl rescan "$h"
	norand
	fixed norandidle$i lunctl rescan "$h"
	rand
	echo 64 >$SD/max_luns
	fixed start$i lunctl --version
	norand
	fixed norandstart$i lunctl --version
	rand
done
# LUND_BENCH_RSB=0: without rescan-scsi-bus.sh (minutes; its ratio is then not printed)
[ "${LUND_BENCH_RSB:-}" = 0 ] && vm_done
WAIT=5 run rsb timeout "${RSB_BENCH_TIMEOUT:-900}" bash /usr/bin/rescan-scsi-bus.sh -a --hosts=$h
vm_done
