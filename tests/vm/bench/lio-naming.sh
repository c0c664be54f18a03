#!/bin/bash
# bench/lio-naming: the cold-naming half of bench/lio-scale.sh (not a test: it asserts nothing
# about time). $LUND_BENCH_LUS (default 512) LUs of Linux's LIO target behind tcm_loop, a local
# virtual HBA: ramdisk backstores, the portal group without an ACL (tcm_loop's demo mode: every
# exported LUN is the initiator's). Exporting a LUN (its port link) makes tcm_loop add the LU
# (scsi_add_device: the kernel's own scan of that LUN, in the configfs write); the kernel's
# host refuses any other scan (max_lun 0). Each round exports every LUN at once, from the first
# port link, and times until the kernel has every sd device, then until every name exists:
#   kernel: nobody naming (the kernel's own time, nothing else running);
#   udev:   udevd with Debian's rules (scsi_id through 60-persistent-storage.rules; sg3-utils'
#           rule moved away, as in bench/daemon): scsi-3<naa> and wwn-0x<naa> in
#           /dev/disk/by-id for every LU;
#   lund:   udevd stopped, lund --manage-disk-links: the same two names in /dev/disk/by-id and
#           lund's own two in /dev/scsi/by-id for every LU.
# Rounds alternate kernel, udev, lund, then lund, udev, kernel (LUND_BENCH_ROUNDS, default 2;
# udevd only in the first LUND_BENCH_UDEV_ROUNDS; LUND_BENCH_TOOLS chooses among the three). Each naming round is checked: every LU has both names, pointing to
# its own disk, and udev's and lund's names are the same for the same LU (H:C:T:L). Between
# rounds the naming process stops first (udevd handling 512 removals costs more guest time
# than the round it timed), then the LUNs are unexported and the names removed, so the
# backstores and the tcm_loop host are the same in every round. Waits poll with bash globs (no
# process per poll: under TCG a fork costs milliseconds).
# vm-flavour: udev-root
# vm-topology: none
# vm-timeout: 2400
. /vm/guest/lib.sh
. /vm/guest/lio-lib.sh

N=${LUND_BENCH_LUS:-512}
ROUNDS=${LUND_BENCH_ROUNDS:-2}
UDEV_ROUNDS=${LUND_BENCH_UDEV_ROUNDS:-$ROUNDS}
TOOLS=" ${LUND_BENCH_TOOLS:-kernel udev lund} "
# each wait's limit (the harness's LUND_VM_TIMEOUT_SCALE stretches the VM's limit, not this)
LIMIT=${LUND_BENCH_WAIT:-1500}
. /vm/guest/bench-lib.sh
vm_timeout_scale
LIMIT=$((LIMIT * VM_TIMEOUT_SCALE))
DISKS='/sys/block/sd*'
# the names udev's rules give a LIO LU (its NAA designator, IEEE OUI 00-14-05)
NAMES='/dev/disk/by-id/@(scsi-36001405*|wwn-0x6001405*)'
# lund's own names of the disks (the -sg ones point to the sg node)
LUND_NAMES='/dev/scsi/by-id/@(scsi-36001405|wwn-0x6001405)!(*-sg)'
cpu_ms() { local st; read -r -a st </proc/$1/stat; echo $(((st[13] + st[14]) * 10)); }
sys_ms() { local st; read -r -a st </proc/$1/stat; echo $((st[14] * 10)); }

modprobe -a sd_mod sg
lio_up
t0=$(vm_uptime_ms)
lio_ramdisks $N
# the tcm_loop port without an ACL, its nexus first (commands need it)
LIO_TPG=$LIO/loopback/naa.50014050000000a1/tpgt_1 LIO_PROC=tcm_loopback LIO_CT=0:1
mkdir -p "$LIO_TPG"
echo naa.50014050000000b1 >"$LIO_TPG/nexus"
vm_wait_until 30 lio_host >/dev/null || vm_fail "no tcm_loop host"
h=$(lio_host)
# the LUN directories once (configfs, LIO's own work): a round only links and unlinks the ports
i=0 dirs=
while [ $i -lt $N ]; do dirs="$dirs $LIO_TPG/lun/lun_$i"; i=$((i + 1)); done
mkdir -p $dirs
vm_log "$N ramdisk backstores and the tcm_loop host$h in $(($(vm_uptime_ms) - t0)) ms; $(nproc) vCPUs"
vm_result "setup_ms=$(($(vm_uptime_ms) - t0)) lus=$N"
mv /lib/udev/rules.d/55-scsi-sg3_id.rules /tmp/ 2>/dev/null || true
udevadm control --reload
udevadm settle --timeout=120
udevadm control --exit
while [ -e /run/udev/control ] && pidof systemd-udevd >/dev/null; do nap; done

# names_of TOOL ROUND: the round's names as "NAME H:C:T:L", sorted, in /tmp/names.TOOL.ROUND
# (one find for the disks' devices, one for the links: no process per LU)
names_of() {
	{
		find /sys/block -maxdepth 1 -name 'sd*' -printf 'D %f %l\n'
		find /dev/disk/by-id -maxdepth 1 -type l \( -name 'scsi-36001405*' -o -name 'wwn-0x6001405*' \) -printf 'L %f %l\n'
	} | awk '
		$1 == "D" { n = split($3, p, "/"); hctl[$2] = p[n - 2]; next }
		{ sub("^\\.\\./\\.\\./", "", $3); print $2, ($3 in hctl) ? hctl[$3] : "?" $3 }' |
		LC_ALL=C sort >/tmp/names.$1.$2
}
# check_names TOOL ROUND: every LU has both names, each on its own disk; FAIL otherwise
check_names() {
	local bad
	names_of "$1" "$2"
	bad=$(awk -v n=$N '
		$2 ~ /^\?/ { print "name on no LIO disk:", $0; next }
		{ split($1, a, "-"); k = a[1]; lus[$2]++; kind[$2, k]++ }
		END {
			for (l in lus) { c++; if (kind[l, "scsi"] != 1 || kind[l, "wwn"] != 1) print "LU", l, "has", lus[l], "names" }
			if (c != n) print c + 0, "LUs named of", n
		}' /tmp/names.$1.$2 | head -n 5)
	[ -z "$bad" ] || vm_fail "$1 round $2: $bad"
}

round() {
	local tool=$1 r=$2 t0 tk tn cpu0 cpuk sys0
	[ "$tool" != lund ] || { cpu0=$(cpu_ms $lp); sys0=$(sys_ms $lp); }
	t0=$(vm_uptime_ms)
	lio_export_ramdisks $N
	wait_count "$tool round $r, disks" $N "$DISKS" || vm_fail "$tool round $r: $n of $N disks"
	tk=$(vm_uptime_ms)
	[ "$tool" != lund ] || cpuk=$(cpu_ms $lp)
	if [ "$tool" = kernel ]; then
		vm_result "tool=kernel round=$r lus=$N kernel_ms=$((tk - t0))"
		return 0
	fi
	wait_count "$tool round $r, names" $((2 * N)) "$NAMES" || vm_fail "$tool round $r: $n of $((2 * N)) names"
	[ "$tool" != lund ] ||
		wait_count "lund round $r, /dev/scsi/by-id" $((2 * N)) "$LUND_NAMES" ||
		vm_fail "lund round $r: $n of $((2 * N)) names in /dev/scsi/by-id"
	tn=$(vm_uptime_ms)
	count_ge 0 "$NAMES"
	vm_result "tool=$tool round=$r lus=$N kernel_ms=$((tk - t0)) names_ms=$((tn - t0)) names=$n"
	lag "$tool" $t0 /dev/disk/by-id
	if [ "$tool" = lund ]; then
		vm_result "round=$r lund_cpu_ms=$(($(cpu_ms $lp) - cpu0)) lund_cpu_kernel_ms=$((cpuk - cpu0)) lund_sys_ms=$(($(sys_ms $lp) - sys0)) lund_rss_kb=$(awk '/VmRSS/ { print $2 }' /proc/$lp/status)"
	fi
	check_names "$tool" "$r"
}
# unexport: every LU goes (tcm_loop removes the device in the port unlink), then the names
unexport() {
	rm -f "$LIO_TPG"/lun/lun_*/port
	until ! count_ge 1 "$DISKS"; do nap; done
	rm -f /dev/disk/by-id/* /dev/disk/by-path/* /dev/scsi/by-id/* /dev/scsi/by-path/*
}

kernel_round() {
	[[ $TOOLS == *" kernel "* ]] || return 0
	round kernel $1
	unexport
}
udev_round() {
	[[ $TOOLS == *" udev "* ]] && [ $1 -le $UDEV_ROUNDS ] || return 0
	/lib/systemd/systemd-udevd --daemon --resolve-names=never
	round udev $1
	udevadm control --exit
	while pidof systemd-udevd >/dev/null; do nap; done
	unexport
}
lund_round() {
	[[ $TOOLS == *" lund "* ]] || return 0
	rm -rf /run/lund
	lund --run-dir /run/lund --load-modules never --udev-links never --manage-disk-links \
		>/tmp/lund.$1.log 2>&1 &
	lp=$!
	vm_wait_until 60 grep -q 'Ready:' /tmp/lund.$1.log || vm_fail "lund not ready: $(tail -n 5 /tmp/lund.$1.log)"
	round lund $1
	# what lund logged, by kind of line (digits folded)
	vm_result "round=$1 lund_log_lines=$(wc -l </tmp/lund.$1.log) lund_resyncs=$(grep -c Resynchronising /tmp/lund.$1.log)"
	sed 's/[0-9a-f]\{6,\}/X/g; s/[0-9]\+/N/g' /tmp/lund.$1.log | sort | uniq -c | sort -rn | head -n 8 |
		while read -r l; do vm_log "lund log: $l"; done
	kill $lp 2>/dev/null || true
	wait $lp 2>/dev/null || true
	unexport
}

# odd rounds kernel, udev, lund; even rounds the other way round (a drift in the host's load
# then weighs on every tool alike)
r=1
while [ $r -le $ROUNDS ]; do
	if [ $((r % 2)) -eq 1 ]; then
		kernel_round $r; udev_round $r; lund_round $r
	else
		lund_round $r; udev_round $r; kernel_round $r
	fi
	# udev's and lund's names for the same LUs
	if [ -e /tmp/names.udev.$r ] && [ -e /tmp/names.lund.$r ]; then
		if cmp -s /tmp/names.udev.$r /tmp/names.lund.$r; then
			vm_result "round=$r names_equal=1 names_compared=$(wc -l </tmp/names.lund.$r)"
		else
			vm_result "round=$r names_equal=0"
			vm_fail "round $r: udev's and lund's names differ: $(diff /tmp/names.udev.$r /tmp/names.lund.$r | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
		fi
	fi
	r=$((r + 1))
done
vm_done
