# tests/vm/guest/lio-lib.sh: Linux's SCSI target (LIO) configured through configfs, for the
# lio-* scenarios (sourced after lib.sh). No targetcli: every step is a mkdir, echo or ln under
# /sys/kernel/config/target, so the scenario shows exactly what the target was told.
#
# The SAN: one target whose portal group holds fileio backstores as LUNs; an explicit ACL for
# the initiator decides which of them it sees (LUN masking). Mapping or unmapping a LUN on the
# live session makes LIO queue REPORTED LUNS DATA HAS CHANGED for every other LUN of that ACL;
# the kernel only reports it (SDEV_UA= change event) and scans nothing. Two fabrics:
#  - iSCSI (lio_iscsi_target, lio_iscsi_login): iscsi_target_mod on a loopback portal, the
#    kernel's iscsi_tcp initiator logged in by open-iscsi's iscsistart; LUs at H:0:0:L.
#  - tcm_loop (lio_loop_target): a local virtual HBA in front of LIO; LUs at H:0:1:L. It adds
#    the LUNs of its portal group itself and its host has max_lun 0, so the kernel refuses any
#    other scan of it (EINVAL): LUN masking cannot be acted on by a user-level scanner there.

LIO=/sys/kernel/config/target
LIO_FILES=/tmp/lio
LIO_IQN=iqn.2003-01.org.linux-iscsi.lund:san
LIO_IINIT=iqn.1993-08.org.debian:01:lund-vm
LIO_PORTAL=127.0.0.1:3260
# the fabric in use (set by lio_iscsi_target / lio_loop_target)
LIO_TPG= LIO_ACL= LIO_PROC= LIO_CT=
# unit serials are hex digits: LIO derives the NAA designator's vendor-specific part from them
LIO_SERIAL=10de0000000

# lio_up: load the target core, fileio and tcm_loop; mount configfs.
lio_up() {
	modprobe -a configfs target_core_mod target_core_file tcm_loop
	grep -qs ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
	mkdir -p "$LIO_FILES"
	[ -d "$LIO" ] || { vm_fail "lio_up: no $LIO"; return 1; }
}

# lio_fileio NAME SIZE_MB SERIAL: a fileio backstore on a sparse file, with a fixed unit serial
# (its VPD 0x80 and the NAA designator of VPD 0x83 derive from it, so names are stable).
lio_fileio() {
	_d=$LIO/core/fileio_0/$1
	mkdir -p "$_d"
	echo "fd_dev_name=$LIO_FILES/$1.img,fd_dev_size=$(($2 * 1048576))" >"$_d/control"
	echo "$3" >"$_d/wwn/vpd_unit_serial"
	echo 1 >"$_d/enable"
}

# lio_fileio_dev NAME DEVICE SERIAL: a fileio backstore on a block device (its capacity follows
# the device's size, which lets a test grow it: the loop device over a growing file).
lio_fileio_dev() {
	_d=$LIO/core/fileio_0/$1
	mkdir -p "$_d"
	echo "fd_dev_name=$2" >"$_d/control"
	echo "$3" >"$_d/wwn/vpd_unit_serial"
	echo 1 >"$_d/enable"
}

# lio_alua_state BACKSTORE STATE: set the access state of the backstore's default target port
# group (0 active/optimized, 1 active/non-optimized, 2 standby, 3 unavailable); LIO queues
# ASYMMETRIC ACCESS STATE CHANGED for every LUN of the group.
lio_alua_state() {
	echo "$2" >"$LIO/core/fileio_0/$1/alua/default_tg_pt_gp/alua_access_state"
}

# lio_loop_target: the tcm_loop target port and its portal group (a new SCSI host appears);
# the explicit ACL exists before the nexus, so the session is bound to it (no demo mode).
lio_loop_target() {
	LIO_TPG=$LIO/loopback/naa.50014050000000a1/tpgt_1 LIO_PROC=tcm_loopback LIO_CT=0:1
	LIO_ACL=$LIO_TPG/acls/naa.50014050000000b1
	mkdir -p "$LIO_TPG" "$LIO_ACL"
	echo naa.50014050000000b1 >"$LIO_TPG/nexus"
}

# lio_iscsi_target: the iSCSI target, one portal group on $LIO_PORTAL, no authentication, an
# explicit ACL for $LIO_IINIT (no demo mode: unmapped LUNs stay invisible).
lio_iscsi_target() {
	modprobe -a iscsi_target_mod iscsi_tcp
	# (the udev-root flavour's Debian root has no iproute2: the initramfs' busybox is in /vm)
	if command -v ip >/dev/null; then ip link set lo up; else /vm/busybox ip link set lo up; fi
	LIO_TPG=$LIO/iscsi/$LIO_IQN/tpgt_1 LIO_PROC=iscsi_tcp LIO_CT=0:0
	LIO_ACL=$LIO_TPG/acls/$LIO_IINIT
	mkdir -p "$LIO_TPG/np/$LIO_PORTAL" "$LIO_ACL"
	echo 0 >"$LIO_TPG/attrib/authentication"
	echo 0 >"$LIO_TPG/attrib/generate_node_acls"
	echo 1 >"$LIO_TPG/enable"
}

# lio_iscsi_tpg N ADDR:PORT: another portal group (tpgt_N) of the same target on its own portal,
# set up as lio_iscsi_target's; LIO_TPG and LIO_ACL name it from then on (export and map LUNs to
# it as to the first). Each portal group is a target port of its LUs: a session through each
# gives every LU two paths, and one portal group can be disabled alone (enable=0).
lio_iscsi_tpg() {
	LIO_TPG=$LIO/iscsi/$LIO_IQN/tpgt_$1
	LIO_ACL=$LIO_TPG/acls/$LIO_IINIT
	mkdir -p "$LIO_TPG/np/$2" "$LIO_ACL"
	echo 0 >"$LIO_TPG/attrib/authentication"
	echo 0 >"$LIO_TPG/attrib/generate_node_acls"
	echo 1 >"$LIO_TPG/enable"
}

# lio_iscsi_portal ADDR:PORT: a second network portal of the same portal group (two paths)
lio_iscsi_portal() { mkdir -p "$LIO_TPG/np/$1"; }

# lio_iscsi_login [ADDR:PORT]: one session from $LIO_IINIT to that portal (default
# $LIO_PORTAL) with iscsistart (no iscsid, no node database). open-iscsi then scans the
# session's host itself (node.session.scan=auto, a write to its scan attribute, which
# scsi_mod.scan=manual does not stop); LIO_ISCSI_SCAN=manual leaves the scan to someone else.
# LIO_ISCSI_TPGT: the portal group to log in to (default 1); LIO_ISCSI_RETRIES: how often a
# refused login is tried again, about every 2 s (default 4, open-iscsi's).
lio_iscsi_login() {
	_p=${1:-$LIO_PORTAL}
	iscsistart -i "$LIO_IINIT" -t "$LIO_IQN" -g "${LIO_ISCSI_TPGT:-1}" -a "${_p%:*}" -p "${_p#*:}" \
		-P "node.session.scan=${LIO_ISCSI_SCAN:-auto}" \
		-P "node.session.initial_login_retry_max=${LIO_ISCSI_RETRIES:-4}" \
		>/tmp/iscsistart.log 2>&1 || { cat /tmp/iscsistart.log; vm_fail "iscsistart login to $_p failed"; return 1; }
	vm_wait_until 30 lio_host >/dev/null || vm_fail "no $LIO_PROC SCSI host after the login"
}

# lio_iscsid_login [ADDR:PORT]: like lio_iscsi_login, but through iscsid and iscsiadm (node
# database, discovery), as a installed initiator does: iscsid stays and recovers the session
# when its connection fails (iscsistart leaves nobody to log in again). The session's
# replacement timeout (how long I/O is held while the portal is gone) is
# $LIO_REPLACEMENT_TMO (default 120, open-iscsi's).
lio_iscsid_login() {
	_p=${1:-$LIO_PORTAL}
	mkdir -p /etc/iscsi /var/lib/iscsi /run/lock/iscsi /var/lock/iscsi
	echo "InitiatorName=$LIO_IINIT" >/etc/iscsi/initiatorname.iscsi
	if ! pidof iscsid >/dev/null; then
		iscsid -f >/tmp/iscsid.log 2>&1 &
		vm_wait_until 10 sh -c 'iscsiadm -m session >/dev/null 2>&1; [ $? -ne 20 ]' || true
	fi
	{ iscsiadm -m discovery -t st -p "$_p" &&
	  iscsiadm -m node -T "$LIO_IQN" -p "$_p" -o update \
		-n node.session.timeo.replacement_timeout -v "${LIO_REPLACEMENT_TMO:-120}" &&
	  iscsiadm -m node -T "$LIO_IQN" -p "$_p" --login; } >/tmp/iscsiadm.log 2>&1 ||
		{ cat /tmp/iscsiadm.log /tmp/iscsid.log; vm_fail "iscsiadm login to $_p failed"; return 1; }
	LIO_PROC=iscsi_tcp
	vm_wait_until 30 lio_host >/dev/null || vm_fail "no $LIO_PROC SCSI host after the login"
}

# lio_rescan_adds_none N: `lunctl rescan` of every host adds no LU on an iSCSI session (lund
# scanned them all already) and the system has N LUs
lio_rescan_adds_none() {
	lunctl rescan >/tmp/rescan.out 2>&1 || vm_fail "lunctl rescan failed: $(cat /tmp/rescan.out)"
	cat /tmp/rescan.out
	vm_assert_eq 0 "$(awk '$2 == "iscsi_tcp" { n += $3 } END { print n + 0 }' /tmp/rescan.out)" \
		"LUs lunctl rescan added afterwards"
	vm_assert_eq "$1" "$(ls -d /sys/bus/scsi/devices/*:*:*:* 2>/dev/null | wc -l)" "LUs in all"
}

# lio_session_state: the state of the (first) iSCSI session: LOGGED_IN, FAILED, FREE
lio_session_state() { cat /sys/class/iscsi_session/session*/state 2>/dev/null | head -n1; }

# lio_hosts: every SCSI host of the fabric's initiator (one per iSCSI session)
lio_hosts() {
	for _h in /sys/class/scsi_host/host*; do
		read -r _p <"$_h/proc_name" 2>/dev/null || continue
		[ "$_p" = "$LIO_PROC" ] && echo "${_h##*/host}"
	done
	return 0
}

# lio_tpg_lun N BACKSTORE: export a backstore as LUN N of the portal group. tcm_loop asks the
# kernel to probe H:0:1:N right away; an unmapped LUN answers with peripheral qualifier 3, so
# no device appears until the ACL maps it.
lio_tpg_lun() {
	mkdir -p "$LIO_TPG/lun/lun_$1"
	ln -s "$LIO/core/fileio_0/$2" "$LIO_TPG/lun/lun_$1/port"
}

# lio_login_scan: the kernel's scan of the target (what an iSCSI login does once; tcm_loop's
# nexus does not scan).
lio_login_scan() {
	echo "${LIO_CT%:*} ${LIO_CT#*:} -" >/sys/class/scsi_host/host$(lio_host)/scan
}

# lio_map N / lio_unmap N: map LUN N of the portal group to the ACL as mapped LUN N, or take it
# away again (LUN masking on the live nexus).
lio_map() {
	mkdir -p "$LIO_ACL/lun_$1"
	ln -s "$LIO_TPG/lun/lun_$1" "$LIO_ACL/lun_$1/port"
}
lio_unmap() {
	rm -f "$LIO_ACL/lun_$1/port"
	rmdir "$LIO_ACL/lun_$1"
}

# lio_host: the SCSI host number of the fabric's initiator
lio_host() {
	for _h in /sys/class/scsi_host/host*; do
		read -r _p <"$_h/proc_name" 2>/dev/null || continue
		[ "$_p" = "$LIO_PROC" ] && { echo "${_h##*/host}"; return 0; }
	done
	return 1
}

# lio_lus: the fabric host's LUs (H:C:T:L), sorted
lio_lus() {
	_h=$(lio_host) || return 0
	for _d in /sys/bus/scsi/devices/$_h:*:*:*; do [ -e "$_d" ] && echo "${_d##*/}"; done | LC_ALL=C sort
	return 0
}
lio_nlus() { lio_lus | wc -l; }
lio_nlus_is() { [ "$(lio_nlus)" -eq "$1" ]; }

# lio_touch LUN: one direct read from that LUN's block device: delivers a pending unit attention
# (what any I/O on a real SAN does).
lio_touch() {
	_h=$(lio_host)
	for _d in /sys/bus/scsi/devices/$_h:$LIO_CT:$1; do
		_b=$(ls "$_d/block" 2>/dev/null | head -n1)
		[ -n "$_b" ] && dd if=/dev/$_b of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
	done
	return 0
}

# lio_expected: the LUs the ACL maps, as the initiator must see them (H:C:T:L, sorted)
lio_expected() {
	_h=$(lio_host) || return 0
	for _m in "$LIO_ACL"/lun_*; do
		[ -d "$_m" ] && echo "$_h:$LIO_CT:${_m##*/lun_}"
	done | LC_ALL=C sort
	return 0
}

# lio_ramdisks N [PAGES]: N ramdisk backstores rd0..rd<N-1> of PAGES (default 8) 4 KiB pages,
# unit serials 10de<8 hex digits of i>, configured in one pass of shell builtins: one mkdir for
# every directory, then echo (no process per backstore; under TCG a fork costs milliseconds and
# fileio backstores cost a file each).
lio_ramdisks() {
	_n=$1 _i=0 _dirs=
	while [ $_i -lt "$_n" ]; do _dirs="$_dirs $LIO/core/rd_mcp_0/rd$_i"; _i=$((_i + 1)); done
	mkdir -p $_dirs
	_i=0
	while [ $_i -lt "$_n" ]; do
		_d=$LIO/core/rd_mcp_0/rd$_i
		echo "rd_pages=${2:-8}" >"$_d/control"
		printf '10de%08x\n' $_i >"$_d/wwn/vpd_unit_serial"
		echo 1 >"$_d/enable"
		_i=$((_i + 1))
	done
}

# lio_demo_mode: the portal group gives every initiator every exported LUN (generate_node_acls,
# read-write), so no ACL and no per-LUN mapping is needed.
lio_demo_mode() {
	echo 1 >"$LIO_TPG/attrib/generate_node_acls"
	echo 0 >"$LIO_TPG/attrib/demo_mode_write_protect"
	echo 1 >"$LIO_TPG/attrib/cache_dynamic_acls"
}

# lio_export_ramdisks N: export rd<i> as LUN i of the portal group (one mkdir for every LUN
# directory, then one `ln -s` per LUN: configfs takes no other way to link a LUN to its device).
lio_export_ramdisks() {
	_n=$1 _i=0 _dirs=
	while [ $_i -lt "$_n" ]; do _dirs="$_dirs $LIO_TPG/lun/lun_$_i"; _i=$((_i + 1)); done
	mkdir -p $_dirs
	_i=0
	while [ $_i -lt "$_n" ]; do
		[ -e "$LIO_TPG/lun/lun_$_i/port" ] || ln -s "$LIO/core/rd_mcp_0/rd$_i" "$LIO_TPG/lun/lun_$_i/port"
		_i=$((_i + 1))
	done
}
