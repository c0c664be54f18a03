#!/bin/bash
# boot-manual: a real boot with systemd as PID 1 and scsi_mod.scan=manual. The kernel scans
# nothing (stage 1 records the hosts present and their LUs absent, libata's aside); lund.service,
# enabled with WantedBy=sysinit.target, scans every host at start-up and each host that appears
# later (USB storage, loaded by udevd while the system boots; a USB stick hot-plugged at the
# end), and signals READY only once the start-up scan's LUs are named. Checks: lund active and
# ready (Type=notify, no restart, watchdog armed), ready before local-fs-pre.target, a unit
# ordered after lund saw every LU of the hosts present at start-up named, every LU of the SAN
# named in the end (exact tree), the hot-plugged stick scanned and shown by `lunctl monitor`,
# no permission error under the unit's hardening; prints systemd-analyze's security exposure.
# vm-flavour: systemd-root
# vm-topology: san
# vm-append: scsi_mod.scan=manual
# vm-timeout: 720
. /vm/guest/lib.sh
. /vm/guest/daemon-lib.sh

vm_assert_eq manual "$(cat /sys/module/scsi_mod/parameters/scan)" "scsi_mod.scan"
vm_assert_eq 1 "$(cat /proc/1/comm | grep -c '^systemd$')" "systemd is PID 1"

# --- before lund: hosts present, LUs absent (the kernel did not scan) ---
want() { echo "$SAN_EXPECT" | awk -v p="$1" '$1 == p { print $2 }'; }
count_in() { awk -v p="$2" '$1 == p { n = $2 } END { print n + 0 }' "$1"; }
echo "stage 1 hosts: $(tr '\n' ' ' </vm/stage1/hosts)"
echo "stage 1 LUs:   $(tr '\n' ' ' </vm/stage1/lus)"
pre=0
echo "$SAN_EXPECT" | while read -r p n; do
	case $p in
	usb-storage) ;;  # its host comes with udevd in the real root
	ahci) vm_assert_eq "$n" "$(count_in /vm/stage1/lus "$p")" "$p LUs before lund (libata adds its own)" ;;
	*)
		vm_assert_ge 1 "$(count_in /vm/stage1/hosts "$p")" "$p hosts before lund"
		vm_assert_eq 0 "$(count_in /vm/stage1/lus "$p")" "$p LUs before lund (kernel scan=manual)"
		;;
	esac
done
vm_result "stage1_lus=$(awk '{ n += $2 } END { print n + 0 }' /vm/stage1/lus)"

# --- the boot ---
state=$(timeout 180 systemctl is-system-running --wait 2>&1) || :
vm_result "system=$state"
if [ "$state" != running ]; then
	systemctl --failed --no-pager --plain || :
fi
systemctl show -p ActiveState,SubState,StatusText,NRestarts,Result,Type,WatchdogUSec lund.service |
	tee /tmp/lund.show
prop() { sed -n "s/^$1=//p" /tmp/lund.show; }
vm_assert_eq active "$(prop ActiveState)" "lund.service ActiveState"
vm_assert_eq running "$(prop SubState)" "lund.service SubState"
vm_assert_eq 0 "$(prop NRestarts)" "lund.service NRestarts"
vm_assert_eq notify "$(prop Type)" "lund.service Type"
vm_assert "lund.service StatusText says it manages LUs" grep -q '^StatusText=Managing [0-9]* logical units' /tmp/lund.show
wd=$(prop WatchdogUSec)
vm_assert "watchdog armed (WatchdogUSec=$wd)" test -n "$wd" -a "$wd" != 0 -a "$wd" != infinity
vm_result "watchdog=$wd"

# --- ordering: READY before local-fs-pre.target; the at-ready unit ran after it ---
mono() { systemctl show -p "$2" --value "$1"; }
lund_start=$(mono lund.service ExecMainStartTimestampMonotonic)
lund_ready=$(mono lund.service ActiveEnterTimestampMonotonic)
lfp=$(mono local-fs-pre.target ActiveEnterTimestampMonotonic)
atr=$(mono vm-at-ready.service ExecMainStartTimestampMonotonic)
echo "lund start $lund_start ready $lund_ready; vm-at-ready $atr; local-fs-pre.target $lfp (usec)"
vm_assert "lund started and became ready" test "${lund_start:-0}" -gt 0 -a "${lund_ready:-0}" -ge "${lund_start:-0}"
vm_assert "lund ready ($lund_ready) before local-fs-pre.target ($lfp)" test "${lund_ready:-0}" -gt 0 -a "${lfp:-0}" -gt "${lund_ready:-0}"
vm_assert "vm-at-ready ran after lund was ready" test "${atr:-0}" -ge "${lund_ready:-1}"
vm_result "lund_ready_ms=$((lund_ready / 1000)) lund_start_to_ready_ms=$(((lund_ready - lund_start) / 1000)) local_fs_pre_ms=$((lfp / 1000))"
systemd-analyze time 2>&1 | head -n 2 || :
systemd-analyze critical-chain --no-pager local-fs-pre.target 2>&1 | tail -n +3 | head -n 12 || :
systemd-analyze blame --no-pager 2>&1 | head -n 12 || :

# --- in the end: every LU of the SAN, every name ---
vm_wait_until 60 san_all_present || :
echo "$SAN_EXPECT" | while read -r p n; do
	vm_assert_eq "$n" "$(san_count "$p")" "LUs on $p after boot"
done
daemon_check_tree "after boot" 60
vm_result "lus=$(n_lus) links=$(wc -l </tmp/tree.act)"

# --- what a unit ordered after lund saw: every LU of the hosts present at start-up, named ---
# The tree lund(8) promises (just computed, with the LU each name's link belongs to) restricted
# to the LUs present then on hosts other than USB (whose host may come later), against the
# tree recorded then.
r=/run/vm-at-ready
if [ -r $r/lu-hosts ] && [ -r $r/act ]; then
	awk '{ print $2 }' $r/lu-hosts | sort | uniq -c | awk '{ print $2, $1 }' >/tmp/ready.lus
	echo "at ready: $(tr '\n' ' ' </tmp/ready.lus)"
	echo "$SAN_EXPECT" | while read -r p n; do
		[ "$p" = usb-storage ] && continue
		vm_assert_eq "$n" "$(count_in /tmp/ready.lus "$p")" "$p LUs when lund was ready"
	done
	awk -F'\t' '!seen[$1]++ { print $1 "\t" $3 "\t" $4 }' /tmp/exp.all >/tmp/winners
	awk -F'\t' 'FNR == NR { split($0, f, " "); if (f[2] != "usb-storage") want[f[1]] = 1; next }
		($3 in want) { print $1 "\t" $2 }' $r/lu-hosts /tmp/winners | sort >/tmp/ready.exp
	sort $r/act >/tmp/ready.act
	comm -23 /tmp/ready.exp /tmp/ready.act >/tmp/missing
	if [ -s /tmp/missing ]; then head -n 20 /tmp/missing; fi
	vm_assert_ge 1 "$(wc -l </tmp/ready.exp)" "links expected at ready"
	vm_assert_eq 0 "$(wc -l </tmp/missing)" "links missing when lund was ready (hosts present at start-up)"
	vm_result "ready_lus=$(wc -l <$r/lu-hosts) ready_links=$(wc -l <$r/act) ready_uptime_ms=$(cat $r/uptime_ms)"
else
	vm_fail "vm-at-ready.service left no record"
fi

# --- lund's journal: the decisions, and nothing the sandbox refused ---
journalctl -b -u lund.service --no-pager -o short-monotonic >/tmp/lund.journal 2>&1 || :
cp /tmp/lund.journal "$VM_OUT/lund.journal" 2>/dev/null || :
grep -E 'scsi_mod.scan|Scanning|Scan of|new host|new transport|Ready:|readiness' /tmp/lund.journal || :
vm_assert "lund logged the kernel's scan mode" grep -q 'scsi_mod.scan=manual: the kernel scans nothing' /tmp/lund.journal
vm_assert "lund scanned every host at start-up" grep -q 'Scan of every host (start-up) done' /tmp/lund.journal
added=$(sed -n 's/.*Scan of every host (start-up) done.* \([0-9]*\) LUs added.*/\1/p' /tmp/lund.journal | head -n1)
# what the kernel left out at boot: every LU but libata's, USB's if its host came later
vm_assert_ge "$(( $(awk '$1 != "ahci" && $1 != "usb-storage" { n += $2 } END { print n }' <<<"$SAN_EXPECT") ))" "${added:-0}" "LUs the start-up scan added"
if grep -q 'new host' /tmp/lund.journal; then usb=uevent; else usb=startup; fi
vm_result "startup_added=${added:-0} late_hosts_scanned_on=$usb"
if grep -inE 'EPERM|EACCES|denied|not permitted|read-only file system' /tmp/lund.journal; then
	vm_fail "lund's journal shows a permission error under the unit's hardening"
fi
journalctl -b -k --no-pager | grep -iE 'audit.*lund|seccomp' | head -n 5 || :

# --- the unit's hardening, as systemd scores it ---
systemd-analyze security --no-pager lund.service >"$VM_OUT/security.txt" 2>&1 || :
score=$(sed -n 's/.*Overall exposure level for lund.service: *\([0-9.]*\).*/\1/p' "$VM_OUT/security.txt")
vm_assert "systemd-analyze security scored lund.service" test -n "$score"
vm_result "security_exposure=${score:-none}"
tail -n 3 "$VM_OUT/security.txt" || :

# --- a host that appears now: a hot-plugged USB stick, scanned by lund alone ---
usb_before=$(san_count usb-storage)
lunctl monitor >/tmp/monitor.log 2>&1 &
mon=$!
sleep 1
vm_sync HOTADD-USB
usb_more() { [ "$(san_count usb-storage)" -gt "$usb_before" ]; }
if vm_wait_until 90 usb_more; then
	vm_log "ok: the hot-plugged USB stick's LU appeared"
else
	vm_fail "hot-plugged USB stick: no LU within 90 s"
fi
vm_wait_until 30 grep -q 'scan-done.*new host' /tmp/monitor.log || :
kill $mon 2>/dev/null || :
cat /tmp/monitor.log
vm_assert "lunctl monitor showed the scan adding the stick's LU" grep -q 'scan-action .* add ' /tmp/monitor.log
vm_assert "lunctl monitor showed the end of the new host's scan" grep -q 'scan-done .*new host.*1 added' /tmp/monitor.log
daemon_check_tree "after the USB hot-plug" 60
vm_result "hotplug_usb_lus=$(( $(san_count usb-storage) - usb_before ))"

lunctl status --json >/tmp/status.json 2>&1 || vm_fail "lunctl status failed: $(head -c 200 /tmp/status.json)"
vm_assert "lunctl status: ready" grep -q '"ready": *true' /tmp/status.json
vm_assert "lunctl status: kernel scan manual" grep -q '"kernel_scan": *"manual"' /tmp/status.json
vm_done
