# tests/vm/guest/scan-lib.sh: helpers shared by the scan-* scenarios and bench/scan.sh (sourced
# after lib.sh).

# lu_set [HOST...]: the lsscsi-style device set, "H:C:T:L type vendor model" per line, sorted
# (vendor/model with their blanks squeezed).  No argument: every host.
lu_set() {
	for _d in /sys/bus/scsi/devices/*:*:*:*; do
		[ -e "$_d" ] || continue
		_n=${_d##*/}
		if [ $# -gt 0 ]; then
			_ok=
			for _h in "$@"; do [ "${_n%%:*}" = "$_h" ] && _ok=1; done
			[ -n "$_ok" ] || continue
		fi
		read -r _t <"$_d/type"; read -r _v <"$_d/vendor"; read -r _m <"$_d/model"
		echo "$_n $_t $_v $_m"
	done | tr -s ' ' | LC_ALL=C sort
}

# hosts_of PROC_NAME: host numbers of that driver
hosts_of() {
	for _h in /sys/class/scsi_host/host*; do
		read -r _p <"$_h/proc_name"
		[ "$_p" != "$1" ] || echo "${_h##*/host}"
	done
	return 0
}

# new_lus OLD NEW: LUs (H:C:T:L) in file NEW that are not in file OLD
new_lus() { awk 'NR == FNR { old[$1] = 1; next } !($1 in old) { print $1 }' "$1" "$2"; }

# delete_lus: delete every LU named on stdin (back to the state before a step)
delete_lus() {
	while read -r _l; do echo 1 >"/sys/bus/scsi/devices/$_l/delete"; done
}

# settle: let the asynchronous sd probes finish (the sd devices of new LUs)
settle() { sleep 1; }

# time_ms COMMAND...: run COMMAND; $T_MS its wall time, $T_RC its exit code
time_ms() {
	_t0=$(vm_uptime_ms)
	T_RC=0; "$@" || T_RC=$?
	T_MS=$(( $(vm_uptime_ms) - _t0 ))
}

# compare_sets NAME FILE_LUND FILE_PEER: RESULT lines; FAIL unless identical
compare_sets() {
	_a=$(wc -l <"$2"); _b=$(wc -l <"$3")
	if cmp -s "$2" "$3"; then _s=same; else _s=differs; fi
	vm_result "$1.lund_lus=$_a $1.rsb_lus=$_b $1.sets=$_s"
	if [ "$_s" != same ]; then
		echo "--- $1: lunctl rescan (<) vs rescan-scsi-bus.sh (>)"
		diff "$2" "$3" || true
	fi
	[ "$_s" = same ]
}

# rsb ARGS...: rescan-scsi-bus.sh, its output on the console, bounded by $RSB_TIMEOUT seconds
# (300). Not through timeout(1): the script writes the hosts' "scan" attributes, and a write
# that waits on the kernel's scan of dead targets sleeps uninterruptibly, deaf to SIGTERM and
# SIGKILL alike, for minutes. Past the bound the script is killed and left to the kernel,
# and rsb returns 124 as timeout(1) would.
rsb() {
	bash /usr/bin/rescan-scsi-bus.sh "$@" >/tmp/rsb.out 2>&1 &
	_p=$! _t=0
	while kill -0 "$_p" 2>/dev/null && [ "$_t" -lt "${RSB_TIMEOUT:-300}" ]; do
		sleep 1
		_t=$((_t + 1))
	done
	if kill -0 "$_p" 2>/dev/null; then
		kill -KILL "$_p" 2>/dev/null
		tail -n 15 /tmp/rsb.out
		vm_log "rescan-scsi-bus.sh still running after ${RSB_TIMEOUT:-300} s (waiting on the kernel), left behind"
		return 124
	fi
	wait "$_p"
	_r=$?
	tail -n 15 /tmp/rsb.out
	return $_r
}
