# tests/vm/guest/lsscsi-lib.sh: `lunctl list` against the lsscsi the guest has, field by field
# (naming-peers: the busybox flavour, the host's lsscsi, 0.31 on Debian 12; admin-session: the
# release's own, 0.31 in Debian 12's root and 0.32 in Debian 13's). Sourced after lib.sh; POSIX
# sh (busybox ash). lsscsi_compare runs every comparison, vm_fail on each difference.

common() { awk 'NR == FNR { a[$0] = 1; next } a[$0] { n++ } END { print n + 0 }' "$1" "$2"; } # lines in both
pairs() { # KEY...: lunctl's --pairs lines on stdin as "VALUE|VALUE..." lines
	while read -r line; do
		for k; do eval "$k="; done
		eval "$line"
		out= sep=
		for k; do eval "out=\"\$out\$sep\$$k\""; sep='|'; done
		echo "$out"
	done
}
same_as_lsscsi() { # WHAT LSSCSI_FILE LUNCTL_FILE
	cmp -s "$2" "$3" && return 0
	vm_fail "$1 differs from lsscsi (< lsscsi, > lunctl)"
	diff "$2" "$3" || true
}

# lsscsi's line: "[H:C:T:L]" (13 columns, more when longer), the type (8), then what the options
# add: read from both ends. Prints "H:C:T:L|<the rest of the line from the type on>".
lsscsi_lines() {
	lsscsi "$@" | awk '{
		h = $1; gsub(/[][]/, "", h)
		s = length($1) >= 13 ? length($1) + 2 : 14
		print h "|" substr($0, s)
	}'
}

# On a terminal (util-linux script(1)), lunctl's table as "FIELD|FIELD|..." lines, cut where
# its heading puts each column (libsmartcols aligns cells under their heading's start); the
# first line is the heading's words. Returns 1 where there is no script(1) (busybox).
lunctl_tty() { # LUNCTL_LIST_ARGS...
	command -v script >/dev/null || return 1
	COLUMNS=160 script -qec "lunctl list $*" /dev/null | tr -d '\r' | awk '
	NR == 1 {
		n = NF; p = 1
		for (i = 1; i <= NF; i++) {
			p += index(substr($0, p), $i) - 1
			start[i] = p; p += length($i)
			out = out (i > 1 ? "|" : "") $i
		}
		print out
		next
	}
	{
		out = ""
		for (i = 1; i <= n; i++) {
			f = i < n ? substr($0, start[i], start[i + 1] - start[i]) : substr($0, start[i])
			sub(/ +$/, "", f)
			out = out (i > 1 ? "|" : "") f
		}
		print out
	}'
}

# 1. lunctl list --transport --size against lsscsi -t -s, field for field (type, transport,
#    device node, size). lunctl's --pairs lines are KEY="value", quoted and escaped by
#    libsmartcols, so the shell reads them back.
lsscsi_cmp_transport_size() { # [EXPECTED_LUS]
	lsscsi -t -s | awk '{
		h = $1; gsub(/[][]/, "", h)
		s = length($1) >= 13 ? length($1) + 2 : 14
		type = substr($0, s, 7); sub(/ +$/, "", type)
		rest = substr($0, s + 8)
		sub(/[ ]+[^ ]+[ ]+[^ ]+[ ]*$/, "", rest); sub(/^ +/, "", rest); sub(/ +$/, "", rest)
		node = $(NF - 1)
		if (node !~ /^\/dev\/(sd|sr|st|nst)/) node = "-"
		print h "|" type "|" rest "|" node "|" $NF
	}' | sort > /tmp/lsscsi.ts
	lunctl list --transport --size -o HCTL,PDT,TRANSPORT,BLOCK,TAPE,SIZE --pairs > /tmp/lunctl.pairs 2>/tmp/lunctl.err ||
		vm_fail "lunctl list --transport --size failed: $(cat /tmp/lunctl.err)"
	while read -r line; do
		HCTL= PDT= TRANSPORT= BLOCK= TAPE= SIZE=
		eval "$line"
		node=-
		[ -n "$TAPE" ] && node=/dev/$TAPE
		[ -n "$BLOCK" ] && node=/dev/$BLOCK
		echo "$HCTL|$PDT|$TRANSPORT|$node|$SIZE"
	done < /tmp/lunctl.pairs | sort > /tmp/lunctl.ts
	lus=$(wc -l < /tmp/lsscsi.ts)
	kinds=$(cut -d'|' -f3 /tmp/lsscsi.ts | sed 's/:.*//; s/^iqn.*/iqn/; s/^$/none/' | sort -u | tr '\n' ' ')
	same_as_lsscsi "lunctl list --transport --size (against lsscsi -t -s)" /tmp/lsscsi.ts /tmp/lunctl.ts
	[ -z "$1" ] || vm_assert_eq "$1" "$lus" "LUs lsscsi -t -s lists"
	vm_result "list-vs-lsscsi lus=$lus same=$(common /tmp/lsscsi.ts /tmp/lunctl.ts) transports=$kinds"
	while IFS='|' read -r h t tr n sz; do
		vm_result "list hctl=$h type=$t transport=${tr:--} node=$n size=$sz"
	done < /tmp/lunctl.ts
}

# 2. vendor, model and revision as lsscsi prints them: INQUIRY's own bytes (after the type,
#    8, 16 and 4 columns wide), not udev's ID_VENDOR/ID_MODEL forms.
lsscsi_cmp_inquiry() {
	lsscsi_lines | awk -F'|' '{
		v = substr($2, 9, 8); m = substr($2, 18, 16); r = substr($2, 35, 4)
		sub(/ +$/, "", v); sub(/ +$/, "", m); sub(/ +$/, "", r)
		print $1 "|" v "|" m "|" r
	}' | sort > /tmp/lsscsi.vmr
	lunctl list -o HCTL,VENDOR,MODEL,REV --pairs | pairs HCTL VENDOR MODEL REV | sort > /tmp/lunctl.vmr
	same_as_lsscsi "lunctl list's vendor, model and revision" /tmp/lsscsi.vmr /tmp/lunctl.vmr
	vm_result "inquiry-vs-lsscsi lus=$(wc -l < /tmp/lsscsi.vmr) same=$(common /tmp/lsscsi.vmr /tmp/lunctl.vmr)"
}

# 3. hosts: lunctl list -H -t against lsscsi -H -t ("[N]  proc_name  transport")
lsscsi_cmp_hosts() {
	lsscsi -H -t | awk '{ h = $1; gsub(/[][]/, "", h); t = $0; sub(/^[^ ]+ +[^ ]+ */, "", t); sub(/ +$/, "", t); print h "|" $2 "|" t }' |
		sort > /tmp/lsscsi.hosts
	lunctl list -H -t --pairs | pairs HOST DRIVER TRANSPORT | sort > /tmp/lunctl.hosts
	same_as_lsscsi "lunctl list -H -t" /tmp/lsscsi.hosts /tmp/lunctl.hosts
	vm_result "hosts-vs-lsscsi hosts=$(wc -l < /tmp/lsscsi.hosts) same=$(common /tmp/lsscsi.hosts /tmp/lunctl.hosts)"
	while IFS='|' read -r h d tr; do vm_result "host $h driver=$d transport=${tr:--}"; done < /tmp/lunctl.hosts
}

# 4. filters: the LUs lunctl list H:C:T:L selects are those lsscsi H:C:T:L lists.
lsscsi_cmp_filters() {
	first=$(head -n1 /tmp/lsscsi.ts | cut -d'|' -f1)
	last=$(tail -n1 /tmp/lsscsi.ts | cut -d'|' -f1)
	h1=${first%%:*} hl=${last%%:*}
	filters=0
	for f in "$h1" "host$hl" "$hl:0" "$first" "[$last]" "*:*:*:1" "*:*:1" "?:0:0:0" "$hl:-:-:0" "$(echo "$last" | tr ':' ' ')"; do
		# shellcheck disable=SC2086 # the last filter is four arguments
		lsscsi $f | awk '{ h = $1; gsub(/[][]/, "", h); print h }' | sort > /tmp/f.lsscsi
		# shellcheck disable=SC2086
		lunctl list -o HCTL --noheadings --raw -- $f | sort > /tmp/f.lunctl
		n=$(wc -l < /tmp/f.lsscsi)
		if cmp -s /tmp/f.lsscsi /tmp/f.lunctl; then
			filters=$((filters + 1))
		else
			vm_fail "filter '$f': lunctl list selects other LUs than lsscsi"
			diff /tmp/f.lsscsi /tmp/f.lunctl || true
		fi
		vm_log "filter '$f': $n LU(s)"
	done
	vm_assert_eq 10 "$filters" "filters selecting what lsscsi selects"
}

# 5. On a terminal, lsscsi's line and lunctl's, field by field and in lsscsi's order: the
#    default (a line per LU: H:C:T:L, vendor, model, revision in lsscsi's 8, 16 and 4 columns,
#    the device node, the sg node: -g), -k (kernel names), -b, -t and -s where lsscsi puts them,
#    -H/-C, and -N/-g/-k changing nothing (NODES has the sg node and kernel names already).
#    lunctl's TYPE is udev's ID_TYPE, lsscsi's type its PDT column (compared in 1.).
lsscsi_cmp_tty() {
	lunctl_tty > /tmp/tty.default || { vm_log "no script(1): lunctl list on a terminal not compared"; return 0; }
	vm_assert_eq "HCTL|TYPE|VENDOR|MODEL|REV|NODES|ID" "$(head -n1 /tmp/tty.default)" "lunctl list's columns, in lsscsi's order"
	# the columns' starts: VENDOR, MODEL and REV as wide as lsscsi's 8, 16 and 4
	COLUMNS=160 script -qec "lunctl list" /dev/null | head -n1 | awk '{
		print index($0, "MODEL") - index($0, "VENDOR") - 1, index($0, "REV") - index($0, "MODEL") - 1,
		      index($0, "NODES") - index($0, "REV") - 1 }' > /tmp/tty.widths
	vm_assert_eq "8 16 4" "$(cat /tmp/tty.widths)" "lunctl list's VENDOR, MODEL and REV widths on a terminal"
	# lsscsi -g: H:C:T:L, vendor, model, revision, node, sg node; in lsscsi's order (no sort)
	lsscsi_lines -g | awk -F'|' '{
		v = substr($2, 9, 8); m = substr($2, 18, 16); r = substr($2, 35, 4)
		sub(/ +$/, "", v); sub(/ +$/, "", m); sub(/ +$/, "", r)
		n = split($2, f, " ")
		print $1 "|" v "|" m "|" r "|" f[n - 1] "|" f[n]
	}' > /tmp/lsscsi.g
	sed 1d /tmp/tty.default | awk -F'|' '{
		k = split($6, nd, ","); sg = "-"; node = "-"
		if (nd[k] ~ /^sg/) { sg = "/dev/" nd[k]; k-- }
		if (k >= 1) node = "/dev/" nd[1]
		print $1 "|" $3 "|" $4 "|" $5 "|" node "|" sg
	}' > /tmp/lunctl.g
	same_as_lsscsi "lunctl list on a terminal (against lsscsi -g: H:C:T:L, vendor, model, rev, node, sg)" /tmp/lsscsi.g /tmp/lunctl.g
	vm_result "tty-vs-lsscsi lus=$(wc -l < /tmp/lsscsi.g) same=$(common /tmp/lsscsi.g /tmp/lunctl.g)"
	# -k -g: kernel names
	#    (lsscsi -k prints /dev/ and the kernel's name, not the node found in /dev)
	lsscsi_lines -k -g | awk -F'|' '{ n = split($2, f, " "); print $1 "|" f[n - 1] "|" f[n] }' > /tmp/lsscsi.k
	lunctl_tty -k | sed 1d | awk -F'|' '{
		k = split($6, nd, ","); sg = "-"; node = "-"
		if (nd[k] ~ /^sg/) { sg = "/dev/" nd[k]; k-- }
		if (k >= 1) node = "/dev/" nd[1]
		print $1 "|" node "|" sg
	}' > /tmp/lunctl.k
	same_as_lsscsi "lunctl list -k (against lsscsi -k -g)" /tmp/lsscsi.k /tmp/lunctl.k
	# -N, -g and -k change nothing
	for o in -N -g -k "-g -k -N"; do
		# shellcheck disable=SC2086 # "-g -k -N" is three options
		lunctl_tty $o > /tmp/tty.o
		cmp -s /tmp/tty.default /tmp/tty.o || vm_fail "lunctl list $o differs from lunctl list"
	done
	# -b: the tuple and the node
	lsscsi_lines -b | awk -F'|' '{ n = split($2, f, " "); print $1 "|" f[n] }' > /tmp/lsscsi.b
	lunctl_tty -b > /tmp/tty.b
	vm_assert_eq "HCTL|NODES" "$(head -n1 /tmp/tty.b)" "lunctl list -b: lsscsi -b's columns"
	sed 1d /tmp/tty.b | awk -F'|' '{ k = split($2, nd, ","); if (nd[k] ~ /^sg/) k--; print $1 "|" (k >= 1 ? "/dev/" nd[1] : "-") }' > /tmp/lunctl.b
	same_as_lsscsi "lunctl list -b (against lsscsi -b)" /tmp/lsscsi.b /tmp/lunctl.b
	# -t and -s: where lsscsi puts them (the transport after the type, the size after the node)
	vm_assert_eq "HCTL|TYPE|TRANSPORT|VENDOR|MODEL|REV|NODES|SIZE|ID" "$(lunctl_tty -t -s | head -n1)" "lunctl list -t -s: the columns in lsscsi's order"
	vm_assert_eq "HCTL|TRANSPORT|NODES|SIZE" "$(lunctl_tty -b -t -s | head -n1)" "lunctl list -b -t -s: lsscsi -b -t -s's columns"
	# -H and -C: lsscsi -H's host and driver
	lsscsi -H | awk '{ h = $1; gsub(/[][]/, "", h); print h "|" $2 }' > /tmp/lsscsi.H
	lunctl_tty -H | sed '1d; s/^ *//' | cut -d'|' -f1,2 > /tmp/lunctl.H
	same_as_lsscsi "lunctl list -H (against lsscsi -H)" /tmp/lsscsi.H /tmp/lunctl.H
	lunctl_tty -C | sed '1d; s/^ *//' | cut -d'|' -f1,2 > /tmp/lunctl.C
	same_as_lsscsi "lunctl list -C (against lsscsi -H)" /tmp/lsscsi.H /tmp/lunctl.C
}

# 6. Every option `lsscsi --help` names, short and long (and the long one with '_' for '-' and
#    back, as lsscsi takes it): lunctl list takes it (then it is one compared above) or refuses
#    it in one line naming lsscsi's meaning and lunctl's equivalent.
LSSCSI_TAKEN="b C g h H k N s t V" # compared above (-h and -V: help and version)
lsscsi_cmp_options() {
	lsscsi --help 2>&1 | sed -n 's/^ *--\([a-z_-]*\)[=A-Z]*|-\([a-zA-Z]\).*/\1 \2/p' > /tmp/lsscsi.opts
	n=0
	while read -r long letter; do
		arg=
		[ "$letter" = y ] && arg=/sys
		twin=$(echo "$long" | sed 'y/-_/_-/')
		spellings="-$letter --$long"
		[ "$twin" = "$long" ] || spellings="$spellings --$twin"
		for o in $spellings; do
			# lsscsi must take it (else it is not lsscsi's option)
			if [ -n "$arg" ]; then
				case $o in --*) set -- "$o=$arg" ;; *) set -- "$o" "$arg" ;; esac
			else
				set -- "$o"
			fi
			lsscsi "$@" </dev/null >/dev/null 2>&1 || { vm_log "lsscsi does not take $*"; continue; }
			n=$((n + 1))
			rc=0
			lunctl list "$@" </dev/null >/dev/null 2>/tmp/opt.err || rc=$?
			if [ $rc = 0 ]; then
				case " $LSSCSI_TAKEN " in
				*" $letter "*) ;;
				*) vm_fail "lunctl list takes lsscsi's $* (--$long) without it being compared" ;;
				esac
			elif [ $rc != 1 ] || [ "$(wc -l < /tmp/opt.err)" != 1 ] || ! grep -q "is lsscsi's \".*\"; " /tmp/opt.err; then
				vm_fail "lunctl list $*: exit $rc, no one-line hint: $(cat /tmp/opt.err)"
			fi
		done
	done < /tmp/lsscsi.opts
	vm_assert_ge 20 "$(wc -l < /tmp/lsscsi.opts)" "options read from lsscsi --help"
	vm_assert_ge $((2 * $(wc -l < /tmp/lsscsi.opts))) "$n" "lsscsi options tried on lunctl list"
	for o in -ss -sss; do
		rc=0
		lunctl list $o >/dev/null 2>/tmp/opt.err || rc=$?
		vm_assert_eq 1 "$rc" "lunctl list $o (lsscsi's other sizes) refused"
		vm_assert "lunctl list $o: a hint" grep -q "is lsscsi's" /tmp/opt.err
	done
	vm_result "lsscsi-options tried=$n version=$(lsscsi -V 2>&1 | sed -n 's/.*\(0\.[0-9]*\).*/\1/p')"
}

lsscsi_compare() { # [EXPECTED_LUS]
	lsscsi_cmp_transport_size "$@"
	lsscsi_cmp_inquiry
	lsscsi_cmp_hosts
	lsscsi_cmp_filters
	lsscsi_cmp_tty
	lsscsi_cmp_options
}
