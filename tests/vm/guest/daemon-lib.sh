# tests/vm/guest/daemon-lib.sh: helpers of the daemon-* scenarios (sourced after lib.sh).
#
# The expected link tree is computed here from independent evidence: the LU's type and nodes
# from sysfs, its base names from `lunctl list --json` (the naming core run by the CLI, which
# the naming-peers scenario holds against scsi_id and sg_inq), the kernel's cached page 0x83,
# and the link scheme and the paths and clones rules of lund(8) written out again in awk. Nothing is taken from lund's own state.

LUND_RUN=/run/lund
LUND_LINKS=/dev/scsi/by-id
LUND_LOG=/tmp/lund.log
LUND_PID=

# lund_start [ARGS...]: start lund in the background and wait until it reports readiness
# (its "Ready:" log line comes after the initial inventory and link reconcile).
lund_start() {
	: >"$LUND_LOG.new"
	lund --run-dir "$LUND_RUN" "$@" >>"$LUND_LOG.new" 2>&1 &
	LUND_PID=$!
	if ! vm_wait_until 60 grep -q 'Ready:' "$LUND_LOG.new"; then
		cat "$LUND_LOG.new" >>"$LUND_LOG"
		vm_fail "lund did not become ready within 60 s"
		tail -n 30 "$LUND_LOG.new"
		return 1
	fi
	[ -S "$LUND_RUN/control" ] || vm_fail "no control socket $LUND_RUN/control"
	vm_log "lund (pid $LUND_PID) ready: $(grep 'Ready:' "$LUND_LOG.new" | tail -n1)"
}

# lund_stop: SIGTERM, wait for it to exit.
lund_stop() {
	[ -n "$LUND_PID" ] || return 0
	kill "$LUND_PID" 2>/dev/null || true
	wait "$LUND_PID" 2>/dev/null || true
	cat "$LUND_LOG.new" >>"$LUND_LOG" 2>/dev/null
	LUND_PID=
}

# lund_alive: still running?
lund_alive() { [ -n "$LUND_PID" ] && kill -0 "$LUND_PID" 2>/dev/null; }

# lund_names_from_lunctl: base names of every LU, "hctl<TAB>name" lines, from lunctl list --json
# computed from sysfs by lunctl itself (LUND_RUN_DIR points where no daemon answers).
lund_names_from_lunctl() {
	LUND_RUN_DIR=/nonexistent lunctl list --json >/tmp/lunctl-list.json 2>/tmp/lunctl-list.err ||
		vm_fail "lunctl list --json failed: $(head -c 300 /tmp/lunctl-list.err)"
	# json-c's pretty output: one member per line; "names": [ ... ] spans lines.
	awk '
		/"hctl": *"/ { s = $0; sub(/.*"hctl": *"/, "", s); sub(/".*/, "", s); hctl = s }
		/"names": *\[/ { innames = 1; if ($0 ~ /\]/) innames = 0; next }
		innames && /\]/ { innames = 0; next }
		innames {
			s = $0; sub(/^[ \t]*"/, "", s); sub(/",?[ \t]*$/, "", s)
			gsub(/\\\\/, "\\", s)
			print hctl "\t" s
		}' /tmp/lunctl-list.json
}

# daemon_expected: the link tree lund(8) promises, "name<TAB>target" sorted by name.
daemon_expected() {
	lund_names_from_lunctl >/tmp/exp.names
	# Each LU's type and nodes are read with the shell's own reads and globs: a process per LU
	# costs tens of milliseconds under TCG, and daemon-kill's 1,024 LUs took thousands.
	for d in /sys/bus/scsi/devices/*:*:*:*; do
		[ -r "$d/type" ] || continue
		read -r type <"$d/type"
		blk= sg= st= nst=
		for x in "$d"/block/*; do [ -e "$x" ] && blk=${x##*/}; break; done
		for x in "$d"/scsi_generic/*; do [ -e "$x" ] && sg=${x##*/}; break; done
		for x in "$d"/scsi_tape/*; do
			# st0 and nst0, not their mode twins (st0a, nst0l, ...)
			case ${x##*/} in
			st*[!0-9]* | nst*[!0-9]*) ;;
			st[0-9]*) [ -n "$st" ] || st=${x##*/} ;;
			nst[0-9]*) [ -n "$nst" ] || nst=${x##*/} ;;
			esac
		done
		# the node a plain name points to (lund(8) LINKS table)
		case $type in
		0|4|5|7|14|20) prim=$blk ;;
		1) prim=$st ;;
		*) prim=$sg ;;
		esac
		printf '%s\t%s\t%s\t%s\n' "${d##*/}" "${prim:--}" "${nst:--}" "${sg:--}"
	done | awk -F'\t' '{
		split($1, a, ":")
		printf "%s\t%05d:%05d:%05d:%020s\t%s\t%s\t%s\n", $1, a[1], a[2], a[3], a[4], $2, $3, $4
	}' >/tmp/exp.lus
	# join names with nodes; lowest H:C:T:L wins a name (lund(8): whatever the event order)
	awk -F'\t' '
		FNR == NR { names[$1] = names[$1] "\t" $2; next }
		{
			n = split(substr(names[$1], 2), nm, "\t")
			for (i = 1; i <= n; i++) {
				if (nm[i] == "") continue
				if ($3 != "-") print nm[i] "\t" $2 "\t../../" $3 "\t" $1
				if ($4 != "-") print nm[i] "-nst\t" $2 "\t../../" $4 "\t" $1
				if ($5 != "-") print nm[i] "-sg\t" $2 "\t../../" $5 "\t" $1
			}
		}' /tmp/exp.names /tmp/exp.lus |
		awk -F'\t' 'length($1) <= 255' | sort -t"$(printf '\t')" -k1,1 -k2,2 >/tmp/exp.all
	daemon_expected_keys >/tmp/exp.keys
	# a name several LUs want with different targets: paths of one LU (lund(8), PATHS) go to
	# the lowest running one; clones get nothing. /tmp/exp.win: name, winner ("-": none), target
	awk -F'\t' '
		FNR == NR { lu[$1] = $2; port[$1] = $3; run[$1] = $4; next }
		function flush(   i, j, w, paths, differ) {
			if (n == 0) return
			paths = 1; differ = 0
			for (i = 1; i <= n; i++)
				for (j = i + 1; j <= n; j++) {
					if (t[i] != t[j]) differ = 1
					if (lu[h[i]] == "" || lu[h[i]] != lu[h[j]] || port[h[i]] == "" ||
					    port[h[j]] == "" || port[h[i]] == port[h[j]]) paths = 0
				}
			w = 0
			if (!differ || paths) {
				for (i = 1; i <= n && !w; i++) if (run[h[i]]) w = i
				if (!w) w = 1
			}
			if (w) print name "\t" h[w] "\t" t[w]
			else print name "\t-\t-"
			n = 0
		}
		$1 != name { flush(); name = $1 }
		{ n++; h[n] = $4; t[n] = $3 }
		END { flush() }
	' /tmp/exp.keys /tmp/exp.all >/tmp/exp.win
	awk -F'\t' '$2 != "-" { print $1 "\t" $3 }' /tmp/exp.win
}

# daemon_expected_keys: every LU's page 0x83 as "hctl<TAB>LU designators<TAB>target-port
# designators<TAB>1 if running", each set sorted and joined by ',' (empty: none, or no usable
# page), read from the kernel's cached vpd_pg83 (SPC-6 7.7.6), independently of lund.
daemon_expected_keys() {
	for d in /sys/bus/scsi/devices/*:*:*:*; do
		[ -r "$d/type" ] || continue
		st= run=0
		{ read -r st <"$d/state"; } 2>/dev/null
		[ "$st" != running ] || run=1
		printf '%s\t%s\t' "${d##*/}" "$run"
		# the page's bytes on one line (word splitting joins od's lines)
		echo $(od -An -tx1 -v "$d/vpd_pg83" 2>/dev/null)
	done | awk -F'\t' '
		function sorted(a, n,   i, j, x, s) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
			s = ""
			for (i = 1; i <= n; i++) if (i == 1 || a[i] != a[i - 1]) s = s (s == "" ? "" : ",") a[i]
			return s
		}
		{
			nb = split($3, b, " "); nl = 0; np = 0; bad = 0
			if (nb < 4 || b[2] != "83") bad = 1
			else {
				end = 4 + hex(b[3]) * 256 + hex(b[4])
				if (end > nb || (end > 6 && b[7] != "00")) bad = 1
			}
			for (k = 4; !bad && k < end; k += 4 + dl) {
				if (k + 4 > end) { bad = 1; break }
				dl = hex(b[k + 4])
				if (k + 4 + dl > end) { bad = 1; break }
				assoc = int(hex(b[k + 2]) / 16) % 4
				key = b[k + 1] sprintf("%02x", and_bf(hex(b[k + 2]))) ":"
				for (i = 1; i <= dl; i++) key = key b[k + 4 + i]
				if (assoc == 0) l[++nl] = key
				else if (assoc == 1) p[++np] = key
			}
			if (bad) { nl = 0; np = 0 }
			print $1 "\t" sorted(l, nl) "\t" sorted(p, np) "\t" ($2 == 1 ? 1 : "")
		}
		function hex(s,   i, v) {
			v = 0
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		function and_bf(v) { return v >= 128 ? 128 + (v % 64) : v % 64 }'
}

# daemon_expected_collisions: after daemon_expected, every link name wanted by two or more LUs
# (with different targets) as "path<TAB>winner H:C:T:L ("-": quarantined clones)<TAB>number of
# LUs", sorted.
daemon_expected_collisions() {
	awk -F'\t' -v dir="$LUND_LINKS" '
		FNR == NR { win[$1] = $2; next }
		!($1 in tgt) { tgt[$1] = $3; n[$1] = 0; order[++k] = $1 }
		{ n[$1]++; if ($3 != tgt[$1]) differ[$1] = 1 }
		END { for (i = 1; i <= k; i++) if (differ[order[i]]) print dir "/" order[i] "\t" win[order[i]] "\t" n[order[i]] }
	' /tmp/exp.win /tmp/exp.all | sort
}

# daemon_actual: lund's link directory as "name<TAB>target", sorted.
daemon_actual() {
	[ -d "$LUND_LINKS" ] || return 0
	# GNU find (the udev and systemd roots) reads every link in one process; busybox's has no
	# -printf: a readlink each
	if [ -z "${DAEMON_FIND_PRINTF:-}" ]; then
		DAEMON_FIND_PRINTF=no
		find / -maxdepth 0 -printf '' 2>/dev/null && DAEMON_FIND_PRINTF=yes
	fi
	if [ "$DAEMON_FIND_PRINTF" = yes ]; then
		find "$LUND_LINKS" -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%f\t%l\n'
	else
		for f in "$LUND_LINKS"/*; do
			[ -e "$f" ] || [ -L "$f" ] || continue
			printf '%s\t%s\n' "${f##*/}" "$(readlink "$f")"
		done
	fi | sort -t"$(printf '\t')" -k1,1
}

# daemon_tree_matches: does the link tree equal the expected one (and hold no temp files)?
daemon_tree_matches() {
	daemon_expected >/tmp/tree.exp
	daemon_actual >/tmp/tree.act
	! ls -a "$LUND_LINKS" 2>/dev/null | grep -q '^\.#lund\.' && cmp -s /tmp/tree.exp /tmp/tree.act
}

# daemon_check_tree LABEL [TIMEOUT_S]: wait until the link tree is exactly as expected; on
# failure report the difference. Also checks every link resolves to the node it names.
daemon_check_tree() {
	_lbl=$1 _t=${2:-30}
	if vm_wait_until "$_t" daemon_tree_matches; then
		vm_log "ok: $_lbl: link tree exact ($(wc -l </tmp/tree.exp) links)"
	else
		daemon_tree_matches || true
		vm_fail "$_lbl: link tree differs from the expected one ($(wc -l </tmp/tree.exp) expected, $(wc -l </tmp/tree.act) present)"
		diff /tmp/tree.exp /tmp/tree.act | head -n 40 || true
		ls -a "$LUND_LINKS" 2>/dev/null | grep '^\.#lund\.' | head -n 5 || true
		lund_alive || vm_log "lund is not running"
		tail -n 20 "$LUND_LOG.new" 2>/dev/null || true
		return 0
	fi
	# dangling links: every target must exist and be a device node
	_bad=0
	for f in "$LUND_LINKS"/*; do
		[ -L "$f" ] || continue
		[ -b "$f" ] || [ -c "$f" ] || { _bad=$((_bad + 1)); vm_log "dangling: $f -> $(readlink "$f")"; }
	done
	vm_assert_eq 0 "$_bad" "$_lbl: links that do not resolve to a device node"
}

# n_lus: SCSI devices in sysfs.
n_lus() { ls -d /sys/bus/scsi/devices/*:*:*:* 2>/dev/null | wc -l; }
