# tests/vm/guest/mpath-lib.sh: dm-multipath in the udev-root flavour (sourced after lib.sh).
#
# mkroot.sh parks the udev rules of multipath-tools and kpartx in /lib/udev/rules.d.mpath, so
# that no other scenario pays for them; mpath_up puts them back, writes /etc/multipath.conf
# taking only the WWIDs given (every other device is blacklisted, find_multipaths "no": the
# paths are taken without waiting for a second one) and starts multipathd in the foreground.
# MPATH_DEFAULTS: more lines for its defaults section, separated by ";" (e.g.
# "polling_interval 2;max_polling_interval 4").

MPATHD_PID=

# mpath_up WWID...: enable the rules, configure, start multipathd.
mpath_up() {
	local w
	[ -d /lib/udev/rules.d.mpath ] || { vm_fail "no parked multipath rules in the image"; return 1; }
	# (a second mpath_up finds them in place)
	[ -z "$(ls /lib/udev/rules.d.mpath)" ] || mv /lib/udev/rules.d.mpath/* /lib/udev/rules.d/
	udevadm control --reload
	modprobe -a dm_mod dm_multipath dm_service_time || { vm_fail "dm_multipath does not load"; return 1; }
	{
		printf 'defaults {\n\tfind_multipaths "no"\n\tuser_friendly_names "yes"\n'
		[ -z "${MPATH_DEFAULTS:-}" ] || (IFS=';'; printf '\t%s\n' $MPATH_DEFAULTS)
		printf '}\n'
		printf 'blacklist {\n\twwid ".*"\n}\nblacklist_exceptions {\n'
		for w in "$@"; do printf '\twwid "%s"\n' "$w"; done
		printf '}\n'
	} >/etc/multipath.conf
	mkdir -p /etc/multipath
	/sbin/multipathd -d -s -v2 >/tmp/multipathd.log 2>&1 &
	MPATHD_PID=$!
}

# mpath_down: stop multipathd (the maps stay, as with `systemctl stop multipathd`).
mpath_down() {
	[ -n "$MPATHD_PID" ] || return 0
	/sbin/multipathd shutdown >/dev/null 2>&1 || kill "$MPATHD_PID" 2>/dev/null
	wait "$MPATHD_PID" 2>/dev/null || true
	MPATHD_PID=
}

# mpath_map_of NODE: the dm node holding block device NODE ("sdb" -> "dm-0"), empty if none.
mpath_map_of() {
	local h
	for h in /sys/block/"$1"/holders/dm-*; do
		[ -e "$h" ] && { echo "${h##*/}"; return 0; }
	done
}

# mpath_same_map NODE1 NODE2: both block devices are held by one dm map.
mpath_same_map() {
	[ -n "$(mpath_map_of "$1")" ] && [ "$(mpath_map_of "$1")" = "$(mpath_map_of "$2")" ]
}

# mpath_wait_map NODE1 NODE2: fail the scenario unless multipathd puts both in one map in 120 s.
mpath_wait_map() {
	vm_wait_until 120 mpath_same_map "$1" "$2" ||
		{ vm_fail "multipathd made no map of $1 and $2 in 120 s"; tail -n 20 /tmp/multipathd.log; }
}

# mpath_assert_lund_serial WWID H:C:T:L...: lund names each path's LU by WWID.
mpath_assert_lund_serial() {
	local wwid=$1 h s
	shift
	for h in "$@"; do
		s=$(lunctl names "$h" | awk '$1 == "serial" { print $2 }')
		vm_assert_eq "$wwid" "$s" "lund's serial of $h"
	done
}

