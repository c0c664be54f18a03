#!/bin/bash
# bench/daemon (bench/daemon.sh; a benchmark, not in the suite): cold-start naming of
# $LUND_BENCH_LUS (default 1024) scsi_debug LUs (N/256 targets x 256 LUNs) in one VM, first with
# udevd + Debian's rules naming them with scsi_id (sg3-utils-udev's rule moved away), then with
# lund alone (udevd stopped). Each round reports the time from adding the host (add_host) until
# the kernel had every sd device, and until every by-id name existed (2 per disk: scsi- and
# wwn-). Prints, never asserts. bench/daemon-4096 runs this body with 4096 LUs
# (LUND_BENCH_LUS) and lund's round only (LUND_BENCH_TOOLS).
#
# The guest's own load stays out of the figures: the waits poll with bash globs and a read
# timeout (no process per poll: under TCG a fork costs milliseconds, and at 10 polls a second
# the old `sh -c 'ls | grep'` loop took CPU from udevd's workers and from lund).
# vm-flavour: udev-root
# vm-topology: none
# vm-timeout: 2400
. /vm/guest/lib.sh

N=${LUND_BENCH_LUS:-1024}
TOOLS=${LUND_BENCH_TOOLS:-udev lund}
# lund's rounds, one per size (LUs), in the same lund process
LUND_SIZES=${LUND_BENCH_LUND_SIZES:-$N}
T=$(((N + 255) / 256))
ARGS="add_host=0 num_tgts=$T max_luns=$((N / T)) dev_size_mb=1"
# each wait's limit: at host load 18, udevd named ~2 disks a second in this guest
LIMIT=${LUND_BENCH_WAIT:-2400}
. /vm/guest/bench-lib.sh
now() { vm_uptime_ms; }
# lund's names that udev's rules also give (scsi-3<naa>, wwn-0x<naa>) and that point to the disk
LUND_NAMES='/dev/scsi/by-id/@(scsi-3|wwn-)!(*-sg)'
lund_names() { ls -l /dev/scsi/by-id 2>/dev/null | grep -c ' \(scsi-3\|wwn-\)[^ ]* -> \.\./\.\./sd'; }
# host_add ROUND LUS: a host with LUS LUs (LUS/256 targets) added, until the kernel had every sd
# device; $t0 and $T0_UP (/proc/uptime) when it started, $tk when it ended (ms)
host_add() {
	local t=$((($2 + 255) / 256))
	echo $t >/sys/bus/pseudo/drivers/scsi_debug/num_tgts
	echo $(($2 / t)) >/sys/bus/pseudo/drivers/scsi_debug/max_luns
	t0=$(now)
	read -r T0_UP _ </proc/uptime
	echo 1 >/sys/bus/pseudo/drivers/scsi_debug/add_host
	wait_count "$1 round, disks" $2 '/sys/block/sd*' || true
	tk=$(now)
}
# host_remove: the host taken away, every disk gone
host_remove() {
	echo -1 >/sys/bus/pseudo/drivers/scsi_debug/add_host
	until ! count_ge 1 '/sys/block/sd*'; do nap; done
}
cpu_ms() { local st; read -r -a st </proc/$1/stat; echo $(((st[13] + st[14]) * 10)); }
sys_ms() { local st; read -r -a st </proc/$1/stat; echo $((st[14] * 10)); }
# sched_ms PID: the main thread's time on a CPU and waiting for one (runnable), in ms, into
# $RUN_MS and $WAIT_MS
sched_ms() { local s; read -r -a s </proc/$1/schedstat; RUN_MS=$((s[0] / 1000000)); WAIT_MS=$((s[1] / 1000000)); }

modprobe -a sd_mod sg
modprobe scsi_debug $ARGS
vm_log "$N LUs: scsi_debug $ARGS; $(nproc) vCPUs, $(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB"

# --- udevd + scsi_id ---------------------------------------------------------------------------
if [[ " $TOOLS " == *" udev "* ]]; then
mv /lib/udev/rules.d/55-scsi-sg3_id.rules /tmp/ 2>/dev/null || true
udevadm control --reload
udevadm settle --timeout=120
host_add udev $N
wait_count "udev round, by-id names" $((2 * N)) '/dev/disk/by-id/@(scsi|wwn)-*' || true
tn=$(now)
count_ge 0 '/dev/disk/by-id/@(scsi|wwn)-*'
vm_result "tool=udev lus=$N kernel_ms=$((tk - t0)) names_ms=$((tn - t0)) names=$n"
lag udev $t0 /dev/disk/by-id
fi

# --- lund alone --------------------------------------------------------------------------------
# udevd goes first, then the host (no rmmod; round two adds it again): udevd processing the
# removal of every disk costs more guest time than the round it timed
udevadm control --exit
sleep 1
if count_ge 1 '/sys/block/sd*'; then
	host_remove
fi
# LUND_BENCH_PERF=1 (a profile, not a timing; perf from --bin /usr/bin/perf): the whole guest
# sampled (cpu-clock, every CPU) from adding the host until every name exists, and the samples
# taken apart in the guest into the result directory: perf-LUS.comm (per process), perf-LUS.sym
# (per process and symbol, kernel and user), perf-LUS.timeline (samples per 0.5 s per process),
# perf-LUS.lund and .lund-children (lund's own samples by symbol, alone and with what they
# call), .lund-calls (call graphs); the kernel's round without a tool as perf-kernel-LUS.*
perf_start() {
	[ "${LUND_BENCH_PERF:-}" = 1 ] || return 0
	command -v perf >/dev/null || vm_fail "no perf (--bin /usr/bin/perf)"
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	echo 0 >/proc/sys/kernel/kptr_restrict
	perf record -q -e cpu-clock -F 499 -a -g -o /tmp/perf.data >/tmp/perf.log 2>&1 &
	perf_pid=$!
	sleep 1
}
perf_stop() { # LUS KERNEL_MS NAMES_MS
	[ "${LUND_BENCH_PERF:-}" = 1 ] || return 0
	kill -INT $perf_pid
	wait $perf_pid 2>/dev/null || true
	local o=$VM_OUT/perf-$1
	echo "kernel_ms=$2 names_ms=$3" >"$o.comm"
	perf report -i /tmp/perf.data --no-children --sort comm --stdio -g none 2>/dev/null |
		grep -v '^$' | head -40 >>"$o.comm"
	# the timeline: samples per 0.5 s per command (lund's threads apart), from adding the host
	perf script -i /tmp/perf.data -F comm,tid,time 2>/dev/null |
		awk -v t0="$T0_UP" '{ sub(":", "", $3); b = int(($3 - t0) * 2) / 2
			c = $1 == "lund" ? "lund:" $2 : ($1 ~ /^kworker/ ? "kworker" : $1); n[b, c]++; k[c]++; bs[b]++ }
			END { for (b in bs) { printf "%6.1f", b; for (c in k) if (n[b, c] > 0) printf " %s=%d", c, n[b, c]; printf "\n" } }' |
		sort -n >"$o.timeline"
	perf report -i /tmp/perf.data --no-children --sort comm,dso,sym --stdio -g none \
		2>/dev/null | grep -v '^$' | head -150 >"$o.sym"
	# the rest is lund's (none in the kernel's round)
	[[ $1 != kernel-* ]] || { rm -f /tmp/perf.data; return 0; }
	# lund's time by system call and by kernel path, callers included
	perf report -i /tmp/perf.data --children --comm lund --sort sym --stdio -g none 2>/dev/null |
		grep -v '^$' | head -200 >"$o.lund-children"
	cp /tmp/lund.log "$o.log"
	perf report -i /tmp/perf.data --no-children --comm lund --sort sym --stdio -g none \
		2>/dev/null | grep -v '^$' | head -120 >"$o.lund"
	perf report -i /tmp/perf.data --no-children --comm lund --sort sym --stdio \
		-g caller,0.5,callee --percent-limit 2 2>/dev/null | head -600 >"$o.lund-calls"
	# by thread: the loop's own share apart from the identification threads'
	perf report -i /tmp/perf.data --children --comm lund --sort pid,sym --stdio -g none \
		2>/dev/null | grep -v '^$' | head -400 >"$o.lund-tid"
	rm -f /tmp/perf.data
}
# --- the kernel alone ---------------------------------------------------------------------------
# LUND_BENCH_TOOLS with "kernel": each size's host added with no naming tool running (udevd
# stopped, no lund), the time until the kernel had every sd device: the reference that a
# round's own kernel time (the kernel sharing the CPUs with the tool) is compared with as well.
# Then once more with the disks' add uevents recorded (udevadm monitor, which receives and
# prints every uevent: a sixth of the guest's CPU, so not in the timed round), to tell when the
# kernel announces each disk after making its node (the uevent a tool names it from).
if [[ " $TOOLS " == *" kernel "* ]]; then
	for lus in $LUND_SIZES; do
		perf_start
		host_add kernel $lus
		perf_stop kernel-$lus $((tk - t0)) $((tk - t0))
		wait_count "kernel round, nodes" $lus '/dev/sd*' || true
		vm_result "tool=kernel lus=$lus kernel_ms=$((tk - t0)) names_ms=$((tk - t0)) names=0 last_node_ms=$(last_node $t0)"
		host_remove
		sleep 1
		udevadm monitor -k -s block >/tmp/kmon.log 2>&1 &
		mp=$!
		sleep 1
		host_add kernel $lus
		until count_ge $lus '/dev/sd*' &&
			[ "$(grep -c ' add .*/block/sd[a-z]* (block)' /tmp/kmon.log)" -ge $lus ]; do
			nap
			[ $(($(now) - tk)) -lt 60000 ] || break
		done
		kill $mp
		uevent_lag $lus "$T0_UP" /tmp/kmon.log
		host_remove
		sleep 1
	done
fi
# --- the floor ----------------------------------------------------------------------------------
# LUND_BENCH_TOOLS with "floor" (bench/name-floor from --bin): the least a namer with lund's
# monitor does, each size's host added while it runs: every uevent received through libudev,
# each disk's two names written from its LU's wwid, nothing else (LUND_BENCH_FLOOR_EXTRA more
# links per disk). What is left between this and the kernel alone is the cost of hearing the
# uevents and writing names at all; between lund and this, lund's own work.
# "floor-full" in LUND_BENCH_TOOLS: a second floor that also makes the system calls lund's
# names cannot be had without: the LU's seven identifying attributes read at its add, eight
# links per LU and a record beside each (name-floor --pages --extra 6 --records).
floor_rounds=
[[ " $TOOLS " != *" floor "* ]] || floor_rounds=floor
[[ " $TOOLS " != *" floor-full "* ]] || floor_rounds="$floor_rounds floor-full"
for floor in $floor_rounds; do
	command -v name-floor >/dev/null || vm_fail "no name-floor (--bin build/bench/name-floor)"
	fargs=(${LUND_BENCH_FLOOR_EXTRA:+--extra $LUND_BENCH_FLOOR_EXTRA})
	[ $floor = floor ] || fargs=(--extra 6 --pages --records /run/floor-records)
	for lus in $LUND_SIZES; do
		mkdir -p /dev/floor
		name-floor /dev/floor/by-id "${fargs[@]}" 2>/tmp/floor.log &
		fp=$!
		vm_wait_until 60 grep -q ready /tmp/floor.log
		cpu0=$(cpu_ms $fp)
		sys0=$(sys_ms $fp)
		sched_ms $fp; run0=$RUN_MS; wait0=$WAIT_MS
		host_add $floor $lus
		cpuk=$(cpu_ms $fp)
		sched_ms $fp; runk=$RUN_MS; waitk=$WAIT_MS
		wait_count "$floor round, names" $((2 * lus)) '/dev/floor/by-id/@(scsi-3|wwn-)*' || true
		tn=$(now)
		count_ge 0 '/dev/floor/by-id/@(scsi-3|wwn-)*'
		vm_result "tool=$floor lus=$lus kernel_ms=$((tk - t0)) names_ms=$((tn - t0)) names=$n"
		lag $floor $t0 /dev/floor/by-id
		vm_result "lus=$lus lund_cpu_ms=$(($(cpu_ms $fp) - cpu0)) lund_cpu_kernel_ms=$((cpuk - cpu0)) lund_sys_ms=$(($(sys_ms $fp) - sys0)) lund_rss_kb=$(awk '/VmRSS/ { print $2 }' /proc/$fp/status)"
		# the floor's share of the CPUs while the kernel added the disks, as for lund below
		vm_result "lus=$lus lund_run_kernel_ms=$((runk - run0)) lund_runq_kernel_ms=$((waitk - wait0)) lund_blocked_kernel_ms=$((tk - t0 - (runk - run0) - (waitk - wait0)))"
		kill $fp
		wait $fp 2>/dev/null || true
		vm_log "$(cat /tmp/floor.log)"
		host_remove
		rm -rf /dev/floor /run/floor-records
		sleep 1
	done
done
[[ " $TOOLS " == *" lund "* ]] || [ -n "${LUND_BENCH_LUNDS:-}" ] || vm_done
# LUND_BENCH_TRACE=1 (a profile, not a timing: ptrace slows every system call): lund runs under
# strace (tests/vm/run --bin /usr/bin/strace), every thread's calls written to the 9p output
# directory (out/lund.trace), a count per call printed at the end
# lund_start BINARY: lund (or another build of it put into /usr/local/bin with --bin) started
lund_start() {
	if [ "${LUND_BENCH_TRACE:-}" = 1 ]; then
		strace -f -tt -qq -o "$VM_OUT/lund.trace" "$1" --run-dir /run/lund \
			--load-modules never >/tmp/lund.log 2>&1 &
		vm_wait_until 60 grep -q 'Ready:' /tmp/lund.log
		lp=$(pidof "$1")
	else
		${LUND_BENCH_NICE:+nice -n "$LUND_BENCH_NICE"} "$1" --run-dir /run/lund \
			--load-modules never >/tmp/lund.log 2>&1 &
		lp=$!
	fi
	vm_wait_until 60 grep -q 'Ready:' /tmp/lund.log
	LUND_TAG=$1
}
# lund_round LUS: a host with LUS LUs (LUS/256 targets) added while lund runs, then taken away
lund_round() {
	local t0 tk tn cpu0 cpuk sys0 end
	cpu0=$(cpu_ms $lp)
	sys0=$(sys_ms $lp)
	sched_ms $lp; run0=$RUN_MS; wait0=$WAIT_MS
	perf_start
	host_add lund $1
	cpuk=$(cpu_ms $lp)
	sched_ms $lp; runk=$RUN_MS; waitk=$WAIT_MS
	# the names (the -sg ones point to the sg node), then checked once more that they point
	# to the disks
	end=$((SECONDS + LIMIT))
	while wait_count "lund round, names" $((2 * $1)) "$LUND_NAMES" &&
		[ "$(lund_names)" -lt $((2 * $1)) ] && [ $SECONDS -lt $end ]; do
		nap
	done
	tn=$(now)
	perf_stop $1 $((tk - t0)) $((tn - t0))
	vm_result "tool=$LUND_TAG lus=$1 kernel_ms=$((tk - t0)) names_ms=$((tn - t0)) names=$(lund_names)"
	lag $LUND_TAG $t0 /dev/scsi/by-id
	# where lund's time went: its CPU time (user+system) while the kernel added the disks and
	# in all, and memory with the LUs named
	vm_result "lus=$1 lund_cpu_ms=$(($(cpu_ms $lp) - cpu0)) lund_cpu_kernel_ms=$((cpuk - cpu0)) lund_sys_ms=$(($(sys_ms $lp) - sys0)) lund_rss_kb=$(awk '/VmRSS/ { print $2 }' /proc/$lp/status)"
	# while the kernel added the disks: lund's main thread running, runnable but waiting for a
	# CPU, and neither (blocked: waiting for uevents or in the kernel on a lock)
	vm_result "lus=$1 lund_run_kernel_ms=$((runk - run0)) lund_runq_kernel_ms=$((waitk - wait0)) lund_blocked_kernel_ms=$((tk - t0 - (runk - run0) - (waitk - wait0)))"
	lunctl status | sed -n '/^Resyncs/,/^Uevents/p'
	vm_result "lus=$1 lund_resyncs=$(grep -c 'Resynchronising' /tmp/lund.log) lund_log_lines=$(wc -l </tmp/lund.log)"
	host_remove
}
# LUND_BENCH_LUNDS="lund-main lund" (each put into the guest with --bin) and
# LUND_BENCH_ROUNDS=N: the builds take turns, a fresh process each round, in forward order in
# odd rounds and backward in even ones, so a change of the host's load weighs on each alike
if [ -n "${LUND_BENCH_LUNDS:-}" ]; then
	for r in $(seq 1 "${LUND_BENCH_ROUNDS:-1}"); do
		order=$LUND_BENCH_LUNDS
		[ $((r % 2)) = 1 ] || order=$(echo $LUND_BENCH_LUNDS | tr ' ' '\n' | tac | tr '\n' ' ')
		for bin in $order; do
			lund_start $bin
			vm_log "round $r: $bin"
			for lus in $LUND_SIZES; do lund_round $lus; done
			kill $lp 2>/dev/null || true
			wait $lp 2>/dev/null || true
		done
	done
	vm_done
fi
lund_start lund
for lus in $LUND_SIZES; do lund_round $lus; done
kill $lp 2>/dev/null || true
[ "${LUND_BENCH_TRACE:-}" != 1 ] || { sleep 2; wc -l "$VM_OUT/lund.trace"; }
vm_done
