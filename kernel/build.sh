#!/bin/bash
# kernel/build.sh: check, apply and build the companion patchset against Debian 12's kernel.
#
#  1. resolves the kernel the VM boots (linux-image-amd64 -> linux-image-<abi>-amd64) and
#     linux-source-6.1; refuses to go on unless both have the same version;
#  2. downloads linux-source-6.1, linux-headers-<abi>-amd64, -common and linux-kbuild-6.1 with
#     `apt-get download` (never installs them) and extracts them under
#     <repo>/.cache/kernel/<version>/;
#  3. applies kernel/series to a pristine copy of the SCSI sources (git apply --check first)
#     and runs scripts/checkpatch.pl --strict on every patch;
#  4. builds the SCSI modules the VM loads (scsi_mod scsi_common sd_mod sr_mod sg st ch
#     scsi_debug virtio_scsi, and the iSCSI initiator: scsi_transport_iscsi libiscsi
#     libiscsi_tcp iscsi_tcp) and every other module holding a C file the series changes
#     (from its diffstat: scsi_transport_fc) out of tree against the headers, from the patched
#     sources, into .cache/kernel/<version>/modules/ (the directory LUND_VM_MODULES_OVERLAY
#     takes), with the test fixtures of kernel/fixtures/ (scsi_debug fault injection, not part
#     of the series) on top;
#  5. with --bisect, builds the pristine tree (whose module CRCs must equal Debian's
#     Module.symvers) and then every prefix of the series in the same tree, incrementally
#     (make recompiles what each patch touches), with W=1: each prefix must add no warning;
#     the fixtures go on last and that build is the one installed. A stamp per prefix, keyed
#     on the patches applied so far and the modules built, lets an interrupted --bisect run
#     continue where it stopped (the tree is kept until the fixtures' build is installed).
#
# usage: kernel/build.sh [--kernel 6.1|6.12|7.3] [--bisect] [--stock] [--quiet]
#   --kernel  the kernel line: 6.1 (default: Debian 12's linux-image-amd64, linux-source-6.1 and
#             the series in kernel/) or 6.12 (linux-image-6.12-amd64, linux-source-6.12 and the
#             series rebased on it in kernel/6.12/) or 7.3 (Debian 13's trixie-backports:
#             linux-image-amd64 there, linux-source-7.3 and kernel/7.3/series, the fixes and
#             events series; packages through tests/vm's private apt of Debian 13, compiled in
#             tools/buildroot 13's build root, whose gcc-14 built the kernel)
#   --stock   also build the unpatched modules into .cache/kernel/<version>/modules-stock/
# Prints "MODULES=<dir>" on its last line.
set -euo pipefail

KDIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$KDIR/.." && pwd)
CACHE=${LUND_KERNEL_CACHE:-$REPO/.cache/kernel}
bisect= stock= quiet= line=6.1
usage() { echo "usage: $0 [--kernel 6.1|6.12|7.3] [--bisect] [--stock] [--quiet]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--bisect) bisect=1 ;;
	--stock) stock=1 ;;
	--quiet) quiet=1 ;;
	--kernel) [ $# -ge 2 ] || usage; line=$2; shift ;;
	*) usage ;;
	esac
	shift
done
case $line in
6.1) SDIR=$KDIR meta=linux-image-amd64 ;;
6.12) SDIR=$KDIR/6.12 meta=linux-image-6.12-amd64 ;;
7.3) SDIR=$KDIR/7.3 meta=linux-image-amd64 ;;
*) usage ;;
esac
# apt_ TOOL ARGS: apt-get or apt-cache on the packages of the kernel line: the host's apt, or
# for 7.3 the VM harness' private apt of Debian 13 (tests/vm/lib/common.sh's vm_apt, the host's
# configuration untouched) preferring trixie-backports
apt_() { "$@"; }
if [ "$line" = 7.3 ]; then
	VM_DIR=$REPO/tests/vm LUND_VM_RELEASE=13
	# shellcheck source=../tests/vm/lib/common.sh
	. "$REPO/tests/vm/lib/common.sh"
	apt_() { local t=$1; shift; vm_apt "$t" -o APT::Default-Release=trixie-backports "$@"; }
fi
log() { [ -n "$quiet" ] || echo "kernel: $*" >&2; }
die() { echo "kernel: error: $*" >&2; exit 1; }
t0=$(date +%s.%N)
elapsed() { printf '%.1f' "$(echo "$(date +%s.%N) - $1" | bc)"; }

# --- host packages ---------------------------------------------------------------------------
need=
for p in gcc-12 make flex bison libelf-dev dwarves kmod cpio zstd xz-utils bc; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		need="$need $p"
done
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || die "need root to install:$need"
	log "installing$need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need \
		>/dev/null
fi

# --- resolve versions ------------------------------------------------------------------------
img=$(apt_ apt-cache depends "$meta" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1)
[ -n "$img" ] || die "cannot resolve $meta (apt-get update?)"
abi=${img#linux-image-}            # 6.1.0-57-amd64, 6.12.118+deb12-amd64
abi=${abi%-amd64}                  # 6.1.0-57, 6.12.118+deb12
cand() { apt_ apt-cache policy "$1" | sed -n 's/^ *Candidate: //p'; }
kver=$(cand "$img")
sver=$(cand "linux-source-$line")
hver=$(cand "linux-headers-$abi-amd64")
# 6.12's kbuild package is named after the ABI, 6.1's after the line
kbuild=linux-kbuild-$abi
bver=$(cand "$kbuild" | head -n1)
if [ -z "$bver" ] || [ "$bver" = "(none)" ]; then
	kbuild=linux-kbuild-$line
	bver=$(cand "$kbuild" | head -n1)
fi
[ -n "$kver" ] && [ "$kver" != "(none)" ] || die "no candidate for $img"
if [ "$kver" != "$sver" ] || [ "$kver" != "$hver" ]; then
	die "version mismatch: $img $kver, linux-source-$line $sver, linux-headers-$abi-amd64 $hver"
fi
log "kernel $img $kver; linux-source-$line $sver; $kbuild $bver"

V=$CACHE/$kver
SRC=$V/linux-source-$line
HDR=$V/headers/usr/src/linux-headers-$abi-amd64
mkdir -p "$V"
exec 9>"$CACHE/.lock"
flock 9

# --- fetch and extract -----------------------------------------------------------------------
if [ ! -e "$V/.fetched" ]; then
	t=$(date +%s.%N)
	rm -rf "$V/dl" "$V/headers" "$SRC"; mkdir -p "$V/dl"
	sandbox=; [ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
	(cd "$V/dl" && apt_ apt-get download -qq $sandbox "linux-source-$line=$sver" \
		"linux-headers-$abi-amd64=$kver" "linux-headers-$abi-common=$kver" \
		"$kbuild=$bver" >/dev/null) || die "apt-get download failed"
	for d in "$V"/dl/linux-headers-*.deb "$V"/dl/linux-kbuild-*.deb; do
		dpkg-deb -x "$d" "$V/headers"
	done
	# The -amd64 Makefile includes the -common one by absolute path.
	sed -i "s|/usr/src/linux-headers-$abi-common/|$V/headers/usr/src/linux-headers-$abi-common/|" \
		"$HDR/Makefile"
	# 7.3's names its output directory the same way
	[ "$line" != 7.3 ] || sed -i "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$V/headers/usr/src/|" "$HDR/Makefile"
	dpkg-deb -x "$V"/dl/linux-source-"$line"_*.deb "$V/src-deb"
	tar -xJf "$V"/src-deb/usr/src/linux-source-"$line".tar.xz -C "$V"
	rm -rf "$V/dl" "$V/src-deb"
	touch "$V/.fetched"
	log "fetched and extracted in $(elapsed "$t")s"
fi
[ -d "$SRC/drivers/scsi" ] || die "no $SRC"

mapfile -t PATCHES < <(grep -v '^\s*\(#\|$\)' "$SDIR/series")
[ ${#PATCHES[@]} -gt 0 ] || die "empty series"

# --- checkpatch ------------------------------------------------------------------------------
t=$(date +%s.%N)
cp_fail=0
for p in "${PATCHES[@]}"; do
	# The patches carry no Signed-off-by: the submitter adds theirs (kernel/sign.sh). The
	# source is not a git tree, so checkpatch cannot look up the mainline id in Fixes:.
	if out=$(cd "$SRC" && perl scripts/checkpatch.pl --strict --no-tree -q \
		--ignore MISSING_SIGN_OFF,UNKNOWN_COMMIT_ID "$SDIR/$p" 2>&1); then
		log "checkpatch --strict: $p: clean"
	else
		echo "$out" >&2
		log "checkpatch --strict: $p: NOT CLEAN"
		cp_fail=1
	fi
done
log "checkpatch took $(elapsed "$t")s"
[ "$cp_fail" = 0 ] || die "checkpatch reported problems"

# --- a tree with the first N patches applied (only the parts we build and document) ----------
# prepare_tree DIR N [FIXTURES]: with FIXTURES, also the test fixtures (kernel/fixtures/*.patch)
prepare_tree() {
	local dir=$1 n=$2 fixtures=${3:-} i f
	rm -rf "$dir"; mkdir -p "$dir/drivers" "$dir/include" "$dir/Documentation/ABI"
	cp -a "$SRC/drivers/scsi" "$dir/drivers/"
	cp -a "$SRC/include/scsi" "$dir/include/"
	mkdir -p "$dir/include/trace/events"
	cp "$SRC/include/trace/events/scsi.h" "$dir/include/trace/events/"
	cp -a "$SRC/Documentation/ABI/testing" "$dir/Documentation/ABI/"
	cp -a "$SRC/MAINTAINERS" "$dir/"
	# The cache lives inside lund's own repository: without a ceiling, git apply would take
	# that for the tree and silently skip every path outside the current directory.
	for ((i = 0; i < n; i++)); do
		(cd "$dir" && GIT_CEILING_DIRECTORIES=${dir%/*} git apply --check \
			"$SDIR/${PATCHES[i]}") || die "${PATCHES[i]} does not apply (after $i patches)"
		(cd "$dir" && GIT_CEILING_DIRECTORIES=${dir%/*} git apply "$SDIR/${PATCHES[i]}")
	done
	# test fixtures (scsi_debug fault injection the VM tests use), not part of the series
	if [ -n "$fixtures" ]; then
		for f in "$SDIR"/fixtures/*.patch; do
			(cd "$dir" && GIT_CEILING_DIRECTORIES=${dir%/*} git apply "$f") ||
				die "fixture ${f##*/} does not apply"
		done
	fi
	# and prove it: the patched files must differ from the pristine ones
	if [ "$n" -gt 0 ] && diff -q "$SRC/drivers/scsi/scsi_sysfs.c" "$dir/drivers/scsi/scsi_sysfs.c" \
		>/dev/null && diff -q "$SRC/drivers/scsi/sd.c" "$dir/drivers/scsi/sd.c" >/dev/null; then
		die "applying $n patches changed nothing"
	fi
}

# The modules the VM loads, plus (below) every module that holds a C file the series changes.
# The iSCSI initiator links against scsi_mod, whose symbol CRCs the series changes, so the
# patched VM needs it from the same tree (an iSCSI session to LIO in the guest is the software
# transport that takes devices transport-offline).
MODS="scsi_mod scsi_common sd_mod sr_mod sg st ch scsi_debug virtio_scsi"
MODS="$MODS scsi_transport_iscsi libiscsi libiscsi_tcp iscsi_tcp"
# C files (drivers/scsi/<name>.c) the series changes, from its diffstat
mapfile -t CHANGED_C < <(sed -n 's|^+++ b/drivers/scsi/\(.*\)\.c$|\1|p' "${PATCHES[@]/#/$SDIR/}" |
	sort -u)
for c in "${CHANGED_C[@]}"; do
	case $c in */*) die "the series changes drivers/scsi/$c.c: build.sh builds top-level files only" ;; esac
done
# A file another one #includes (scsi_lib_test.c, KUnit tests scsi_lib.c includes only with
# CONFIG_SCSI_LIB_KUNIT_TEST, which Debian's config does not set) is no object of its own: it is
# compiled by kernel/debug.sh's kernel, which sets it.
for i in "${!CHANGED_C[@]}"; do
	grep -qs "^#include \"${CHANGED_C[i]}\.c\"" "$SRC"/drivers/scsi/*.c && unset "CHANGED_C[i]"
done
CHANGED_C=("${CHANGED_C[@]}")

# write_kbuild DIR: the Kbuild of the out-of-tree build, mirroring drivers/scsi/Makefile for the
# composite modules; every other changed C file is a module of its own name (scsi_transport_fc,
# scsi_debug, ...), so a patch to another file is built without editing this script.
# Sets BUILT_MODS.
write_kbuild() {
	local b=$1 c m
	cat >"$b/Kbuild" <<'EOF'
# Out-of-tree build of the SCSI core and the drivers the lund VM tests load, mirroring
# drivers/scsi/Makefile; the patched headers in ./include shadow the packaged ones.
NOSTDINC_FLAGS += -I$(src)/include
ccflags-y += -I$(src)

scsi_mod-y			+= scsi.o hosts.o scsi_ioctl.o scsicam.o scsi_error.o scsi_lib.o
scsi_mod-y			+= constants.o scsi_lib_dma.o scsi_scan.o scsi_sysfs.o scsi_devinfo.o
scsi_mod-$(CONFIG_SCSI_NETLINK)	+= scsi_netlink.o
scsi_mod-$(CONFIG_SYSCTL)	+= scsi_sysctl.o
scsi_mod-$(CONFIG_SCSI_PROC_FS)	+= scsi_proc.o
scsi_mod-$(CONFIG_BLK_DEBUG_FS)	+= scsi_debugfs.o
scsi_mod-y			+= scsi_trace.o scsi_logging.o
scsi_mod-$(CONFIG_PM)		+= scsi_pm.o
scsi_mod-$(CONFIG_SCSI_DH)	+= scsi_dh.o
scsi_mod-$(CONFIG_BLK_DEV_BSG)	+= scsi_bsg.o

sd_mod-objs	:= sd.o
sd_mod-$(CONFIG_BLK_DEV_INTEGRITY) += sd_dif.o
sd_mod-$(CONFIG_BLK_DEV_ZONED) += sd_zbc.o
CFLAGS_sd_zbc.o := -DTRACE_INCLUDE_PATH=$(src)

sr_mod-objs	:= sr.o sr_ioctl.o sr_vendor.o

$(obj)/scsi_sysfs.o: $(obj)/scsi_devinfo_tbl.c
quiet_cmd_bflags = GEN     $@
	cmd_bflags = sed -n 's/.*define *BLIST_\([A-Z0-9_]*\) *.*/BLIST_FLAG_NAME(\1),/p' $< > $@
$(obj)/scsi_devinfo_tbl.c: $(src)/include/scsi/scsi_devinfo.h
	$(call if_changed,bflags)
EOF
	BUILT_MODS=$MODS
	for c in "${CHANGED_C[@]}"; do
		m=$(sed -n "s/^\([a-z_]*\)-[^ 	]*[ 	].*[ 	]$c\.o\b.*/\1/p" "$b/Kbuild" | head -n1)
		[ -n "$m" ] || m=$c
		case " $BUILT_MODS " in *" $m "*) ;; *) BUILT_MODS="$BUILT_MODS $m" ;; esac
	done
	for m in $BUILT_MODS; do echo "obj-m += $m.o"; done >>"$b/Kbuild"
}

# sync_build TREE: copy the SCSI sources of TREE into TREE/build, only the files that differ,
# so that make rebuilds only what a patch touched.
sync_build() {
	local tree=$1 b=$1/build f d
	mkdir -p "$b/include"
	for f in "$tree"/drivers/scsi/*.[ch]; do
		cmp -s "$f" "$b/${f##*/}" || cp "$f" "$b/"
	done
	(cd "$tree/include" && find . -type f) | while read -r f; do
		d=$b/include/${f#./}
		cmp -s "$tree/include/$f" "$d" || { mkdir -p "${d%/*}"; cp "$tree/include/$f" "$d"; }
	done
}

# kmake ARGS: make, on the host; for 7.3 in Debian 13's build root (tools/buildroot 13), with
# the cache bind-mounted at the same path and /proc (objtool reads its limits) in a private
# mount namespace, so nothing stays mounted
kmake() {
	if [ -z "${BROOT:-}" ]; then
		make "$@"
		return
	fi
	mkdir -p "$BROOT$CACHE"
	unshare --mount --propagation private sh -c 'mount --bind "$1" "$2$1" &&
		mount -t proc proc "$2/proc" && mount --bind /dev "$2/dev" && shift 2 &&
		exec chroot "$0" "$@"' "$BROOT" "$CACHE" "$BROOT" make "$@"
}
if [ "$line" = 7.3 ]; then
	BROOT=$("$REPO/tools/buildroot" 13) || die "no Debian 13 build root (tools/buildroot 13)"
	[ -x "$BROOT/usr/bin/x86_64-linux-gnu-gcc-14" ] || die "no gcc-14 in $BROOT"
	# pahole: the BTF of the modules, and kbuild warns when its version is not the kernel's
	if [ ! -x "$BROOT/usr/bin/pahole" ]; then
		log "installing dwarves (pahole) in $BROOT"
		chroot "$BROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends dwarves >/dev/null || die "cannot install dwarves in $BROOT"
	fi
fi

# make_modules TREE [W=1]: (re)build TREE/build; the compiler's output goes to TREE/build/make.log
make_modules() {
	local b=$1/build
	shift
	kmake -C "$HDR" M="$b" -j"$(nproc)" "$@" modules >"$b/make.log" 2>&1 ||
		{ grep -v '^  \(CC\|LD\|MODPOST\|GEN\)' "$b/make.log" | tail -n 40 >&2; return 1; }
}

# copy_modules TREE OUT: the .ko and Module.symvers of TREE's build into OUT
copy_modules() {
	local b=$1/build out=$2 m
	rm -rf "$out"; mkdir -p "$out"
	for m in $BUILT_MODS; do cp "$b/$m.ko" "$out/"; done
	cp "$b/Module.symvers" "$out/"
}

# build_modules TREE OUT: build the SCSI modules of TREE out of tree (no warning allowed),
# copy the .ko to OUT.
build_modules() {
	local tree=$1 out=$2 b=$1/build c
	rm -rf "$b"; mkdir -p "$b"
	sync_build "$tree"
	write_kbuild "$b"
	make_modules "$tree" || return 1
	if grep -q 'warning:' "$b/make.log"; then
		grep 'warning:' "$b/make.log" >&2
		return 1
	fi
	# every C file the series changes must have been compiled
	for c in "${CHANGED_C[@]}"; do
		[ -e "$b/$c.o" ] || { echo "kernel: $c.c is changed but not built" >&2; return 1; }
	done
	copy_modules "$tree" "$out"
}

# warnings LOG: the compiler warnings of a make log without line and column (a patch moves
# code), sorted
warnings() {
	sed -n 's|^\(.*/\)\{0,1\}\([^/:]*\):[0-9]*:[0-9]*: warning: \(.*\)$|\2: \3|p' "$1" | sort
}

# --- bisectability: every prefix applies and builds ------------------------------------------
# One tree, the patches applied in order; after each, only the files that differ are copied
# into the build directory, so make recompiles what the patch touched (and what includes a
# header it touched) and relinks those modules. W=1 throughout: a prefix must not add a
# warning to those of the prefixes before it (the pristine tree has some of its own).
#
# Resuming: applied-N and built-N in the tree hold prefix_key N (the patches up to N, the
# modules built, the kernel) once patch N is applied and once prefix N built cleanly. A run
# whose keys match continues after the last prefix built; one stopped during a build deletes
# the objects that build wrote (newer than applied-N) so they are compiled again, with their
# warnings. Any other difference (a patch or the module list changed) starts from scratch.

# prefix_key N: what prefix N of the bisect tree is
prefix_key() {
	local i
	{
		echo "$kver $BUILT_MODS"
		for ((i = 0; i < $1; i++)); do cat "$SDIR/${PATCHES[i]}"; done
	} | sha256sum | cut -d' ' -f1
}
# stamp_ok NAME N: the stamp exists and is for prefix N as the series is now
stamp_ok() { [ -e "$B/$1-$2" ] && [ "$(cat "$B/$1-$2")" = "$(prefix_key "$2")" ]; }

if [ -n "$bisect" ]; then
	B=$V/bisect
	write_kbuild "$V" # sets BUILT_MODS for prefix_key; rewritten into the tree below
	rm -f "$V/Kbuild"
	# last: the last prefix whose patch the tree holds as the series is now (-1: none)
	last=-1 resumed=
	if stamp_ok applied 0 && [ -d "$B/build" ]; then
		last=0
		while [ "$last" -lt "${#PATCHES[@]}" ] && stamp_ok applied $((last + 1)); do
			last=$((last + 1))
		done
		# the tree holds a later patch that is not the series' any more: start again
		[ -e "$B/applied-$((last + 1))" ] && last=-1
	fi
	if [ "$last" -ge 0 ]; then
		if stamp_ok built "$last"; then
			start=$((last + 1))
		else
			# stopped during this prefix's build: what it compiled is compiled again
			start=$last resumed=" (resumed)"
			find "$B/build" \( -name '*.o' -o -name '*.ko' \) -newer "$B/applied-$start" -delete
		fi
		log "bisect: resuming at prefix $start of ${#PATCHES[@]}: the tree in $B has" \
			"prefixes 0-$((start - 1)) built"
	else
		start=0
		prepare_tree "$B" 0
		rm -rf "$B/build"; mkdir -p "$B/build"
		sync_build "$B"
		prefix_key 0 >"$B/applied-0"
	fi
	write_kbuild "$B/build"
	log "bisect: modules built at every prefix:$BUILT_MODS"
	for ((n = start; n <= ${#PATCHES[@]}; n++)); do
		t=$(date +%s.%N)
		if [ "$n" -gt 0 ]; then
			p=${PATCHES[n-1]}
			if ! stamp_ok applied "$n"; then
				(cd "$B" && GIT_CEILING_DIRECTORIES=${B%/*} git apply --check "$SDIR/$p") ||
					die "$p does not apply (after $((n - 1)) patches)"
				(cd "$B" && GIT_CEILING_DIRECTORIES=${B%/*} git apply "$SDIR/$p")
				prefix_key "$n" >"$B/applied-$n"
			fi
			sync_build "$B"
		fi
		make_modules "$B" W=1 || die "build failed with $n patches"
		warnings "$B/build/make.log" >"$B/warnings-$n"
		# (6.x prints the object's path, 7.x its name relative to the build directory)
		compiled=$(sed -n 's|^ *CC \[M\] *\(.*/\)\{0,1\}\([^/]*\)\.o$|\2|p' "$B/build/make.log" |
			grep -v '\.mod$' | sort -u | tr '\n' ' ' || true)
		linked=$(sed -n 's|^ *LD \[M\] *\(.*/\)\{0,1\}\([^/]*\)\.ko$|\2|p' "$B/build/make.log" |
			sort -u | tr '\n' ' ')
		nw=$(wc -l <"$B/warnings-$n")
		if [ "$n" = 0 ]; then
			copy_modules "$B" "$B/ko-0"
			# the pristine build must reproduce Debian's CRCs for what it exports
			bad=$(awk 'NR==FNR { crc[$2] = $1; next } ($2 in crc) && crc[$2] != $1 { print $2 }' \
				"$B/ko-0/Module.symvers" "$HDR/Module.symvers" | head -n5)
			[ -z "$bad" ] || die "unpatched build differs from Debian's Module.symvers: $bad"
			rm -rf "$B/ko-0"
			prefix_key 0 >"$B/built-0"
			log "prefix 0 (unpatched): built in $(elapsed "$t")s$resumed, CRCs match Debian's" \
				"Module.symvers; W=1 warnings: $nw"
			resumed=
			continue
		fi
		# a warning is new if no prefix before this one had it (each log holds the warnings
		# of the files that prefix recompiled)
		for ((i = 0; i < n; i++)); do cat "$B/warnings-$i"; done | sort -u >"$B/warnings-known"
		new=$(comm -13 "$B/warnings-known" "$B/warnings-$n")
		if [ -n "$new" ]; then
			echo "$new" >&2
			die "prefix $n ($p) adds W=1 warnings"
		fi
		# what this patch changes must have been recompiled
		for c in $(sed -n 's|^+++ b/drivers/scsi/\([^/]*\)\.c$|\1|p' "$SDIR/$p"); do
			# (a file another one #includes is no object here: kernel/debug.sh compiles it)
			case " ${CHANGED_C[*]} " in *" $c "*) ;; *) continue ;; esac
			case " $compiled " in *" $c "*) ;; *) die "prefix $n: $c.c changed but not recompiled" ;; esac
		done
		prefix_key "$n" >"$B/built-$n"
		log "prefix $n ($p): applies, builds in $(elapsed "$t")s$resumed; compiled: ${compiled:-nothing};" \
			"relinked: ${linked:-nothing}; W=1 warnings: $nw (none new)"
		resumed=
	done
fi

if [ -n "$stock" ] && [ ! -e "$V/modules-stock/scsi_mod.ko" ]; then
	t=$(date +%s.%N)
	prepare_tree "$V/tree-stock" 0
	build_modules "$V/tree-stock" "$V/modules-stock" || die "stock build failed"
	rm -rf "$V/tree-stock"
	log "stock modules built in $(elapsed "$t")s"
fi

# --- the full series -------------------------------------------------------------------------
t=$(date +%s.%N)
if [ -n "$bisect" ]; then
	# the bisect tree holds the whole series: add the fixtures and rebuild what they touch
	fkey=$( { prefix_key "${#PATCHES[@]}"; cat "$SDIR"/fixtures/*.patch; } | sha256sum)
	if [ ! -e "$B/applied-fixtures" ] || [ "$(cat "$B/applied-fixtures")" != "$fkey" ]; then
		for f in "$SDIR"/fixtures/*.patch; do
			(cd "$B" && GIT_CEILING_DIRECTORIES=${B%/*} git apply "$f") ||
				die "fixture ${f##*/} does not apply"
		done
		echo "$fkey" >"$B/applied-fixtures"
	else
		find "$B/build" \( -name '*.o' -o -name '*.ko' \) -newer "$B/applied-fixtures" -delete
	fi
	sync_build "$B"
	make_modules "$B" W=1 || die "build of the patched modules failed"
	warnings "$B/build/make.log" >"$B/warnings-fixtures"
	cat "$B"/warnings-[0-9]* | sort -u >"$B/warnings-known"
	new=$(comm -13 "$B/warnings-known" "$B/warnings-fixtures")
	[ -z "$new" ] || { echo "$new" >&2; die "the fixtures add W=1 warnings"; }
	copy_modules "$B" "$V/modules"
	rm -rf "$B"
else
	prepare_tree "$V/tree" "${#PATCHES[@]}" fixtures
	build_modules "$V/tree" "$V/modules" || die "build of the patched modules failed"
fi
for m in $BUILT_MODS; do
	vm=$(modinfo -F vermagic "$V/modules/$m.ko")
	case $vm in "$abi-amd64 "*) ;; *) die "$m.ko: vermagic '$vm' is not for $abi-amd64" ;; esac
done
log "patched modules (${#PATCHES[@]} patches) built in $(elapsed "$t")s: $V/modules"
log "total $(elapsed "$t0")s"
echo "MODULES=$V/modules"
