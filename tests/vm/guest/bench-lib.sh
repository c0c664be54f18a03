# tests/vm/guest/bench-lib.sh: helpers of the benchmark bodies in the root flavours (bash,
# sourced after lib.sh). Waits poll with globs and a read timeout: no process per poll, which
# under TCG costs milliseconds and would take CPU from what is measured. $LIMIT is each wait's
# limit in seconds.
LIMIT=${LIMIT:-900}
shopt -s nullglob extglob
mkfifo /tmp/nap
exec 9<>/tmp/nap

# count_ge MIN PATTERN...: whether at least MIN paths match (sets $n; no process started)
count_ge() {
	local min=$1 a
	shift
	a=($@)
	n=${#a[@]}
	[ "$n" -ge "$min" ]
}
# guest_state: what the guest is busy with (udevd and its workers, scsi_id
# processes, the guest's load average), read from /proc without starting a process
guest_state() {
	local c comm udevd=0 scsi_id=0
	for c in /proc/[0-9]*/comm; do
		read -r comm 2>/dev/null <"$c" || continue
		case $comm in
		systemd-udevd|\(udev-worker\)) udevd=$((udevd + 1)) ;;
		scsi_id) scsi_id=$((scsi_id + 1)) ;;
		esac
	done
	read -r -a la </proc/loadavg
	echo "udevd+workers $udevd, scsi_id $scsi_id, guest load ${la[0]} (${la[3]} runnable)"
}
# wait_count WHAT MIN PATTERN...: poll every 0.2 s until count_ge; a progress line every 60 s
wait_count() {
	local what=$1 end=$((SECONDS + LIMIT)) next=$((SECONDS + 60))
	shift
	until count_ge "$@"; do
		if [ $SECONDS -ge $end ]; then
			vm_log "$what: $n of $1 after ${LIMIT} s"
			return 1
		fi
		if [ $SECONDS -ge $next ]; then
			vm_log "$what: $n of $1; $(guest_state)"
			next=$((SECONDS + 60))
		fi
		nap
	done
}
nap() { read -t 0.2 -u 9 _ || true; }
# uptime_offset: the realtime clock minus /proc/uptime, in seconds: a file's mtime minus it is
# on the uptime (and CLOCK_MONOTONIC) scale
uptime_offset() {
	local up
	read -r up _ </proc/uptime
	awk -v e="$EPOCHREALTIME" -v u="$up" 'BEGIN { printf "%.3f", e - u }'
}
# lag TOOL T0 LINKDIR: where the time went, from timestamps the round leaves behind: devtmpfs
# gives each disk node its creation time (mtime), each link has its own (mtime). Prints the
# delay from a disk's node to its link (median, 90th percentile, max) and, relative to T0, when
# the last node and the last link to a disk appeared, how many links came after the last node,
# and when the last of every link in LINKDIR (the -sg ones too) was written: last_name_ms, the
# moment every name existed, exact where the round's poll notices it a nap and a listing of
# thousands of entries later.
lag() {
	local off
	off=$(uptime_offset)
	find /dev -maxdepth 1 -name 'sd*' -printf 'N %f %T@\n' >/tmp/lag.in
	find "$3" -maxdepth 1 -type l -lname '../../sd*' -printf 'L %l %T@\n' >>/tmp/lag.in
	find "$3" -maxdepth 1 -type l -printf 'A - %T@\n' >>/tmp/lag.in
	awk -v t0="$2" -v off="$off" '
		$1 == "N" { node[$2] = $3; if ($3 > lastn) lastn = $3; next }
		$1 == "A" { if ($3 > lasta) lasta = $3; next }
		{ sub("^\\.\\./\\.\\./", "", $2); if (!($2 in node)) next
		  n++; print "L", ($3 - node[$2]) * 1000; t[n] = $3; if ($3 > lastl) lastl = $3 }
		END {
			for (i = 1; i <= n; i++) if (t[i] > lastn) after++
			printf "S %d %d %d %d %d\n", n, (lastn - off) * 1000 - t0, (lastl - off) * 1000 - t0, after,
			       (lasta - off) * 1000 - t0
		}' /tmp/lag.in | sort -k1,1 -k2,2n >/tmp/lag.out
	awk -v tool="$1" '
		$1 == "L" { l[++n] = $2 }
		$1 == "S" && n {
			printf "RESULT lag tool=%s links=%d lag_med_ms=%d lag_p90_ms=%d lag_max_ms=%d last_node_ms=%d last_link_ms=%d links_after_last_node=%d last_name_ms=%d\n",
			       tool, $2, l[int((n + 1) / 2)], l[int(n * 0.9)], l[n], $3, $4, $5, $6
		}' /tmp/lag.out >/tmp/lag.res
	[ -s /tmp/lag.res ] && vm_send "$(cat /tmp/lag.res)"
	return 0
}
# last_node T0: when the kernel made the last disk's devtmpfs node, in ms from T0 (its mtime; the
# same clock as lag's last_node_ms)
last_node() {
	local off
	off=$(uptime_offset)
	find /dev -maxdepth 1 -name 'sd*' -printf '%T@\n' |
		awk -v t0="$1" -v off="$off" '$1 > l { l = $1 } END { printf "%d", (l - off) * 1000 - t0 }'
}
# uevent_lag LUS UP0 MONITOR_LOG: per disk, the delay from its devtmpfs node (mtime) to the
# kernel's add uevent of the disk (udevadm monitor -k, CLOCK_MONOTONIC), and when the last of
# each came, from UP0 (/proc/uptime at the add)
uevent_lag() {
	local off
	off=$(uptime_offset)
	find /dev -maxdepth 1 -name 'sd*' -printf 'N %f %T@\n' >/tmp/ulag.in
	awk '$1 ~ /^KERNEL\[/ && $2 == "add" && $4 == "(block)" {
		t = $1; sub(/^KERNEL\[/, "", t); sub(/\]$/, "", t); n = split($3, p, "/")
		if (p[n] ~ /^sd[a-z]+$/) print "E", p[n], t }' "$3" >>/tmp/ulag.in
	awk -v off="$off" -v up0="$2" '
		$1 == "N" { node[$2] = $3 - off; if ($3 - off > ln) ln = $3 - off; next }
		{ ev[$2] = $3; if ($3 > le) le = $3 }
		END { for (d in ev) if (d in node) print "L", (ev[d] - node[d]) * 1000
		      printf "S %d %d\n", (ln - up0) * 1000, (le - up0) * 1000 }' /tmp/ulag.in |
		sort -k1,1 -k2,2n >/tmp/ulag.out
	awk -v lus="$1" '
		$1 == "L" { l[++n] = $2 }
		$1 == "S" && n {
			printf "RESULT ulag lus=%d uevents=%d ulag_min_ms=%d ulag_med_ms=%d ulag_p90_ms=%d ulag_max_ms=%d last_node_ms=%d last_uevent_ms=%d\n",
			       lus, n, l[1], l[int((n + 1) / 2)], l[int(n * 0.9)], l[n], $2, $3
		}' /tmp/ulag.out >/tmp/ulag.res
	[ -s /tmp/ulag.res ] && vm_send "$(cat /tmp/ulag.res)"
	return 0
}
