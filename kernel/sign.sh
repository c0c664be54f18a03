#!/bin/bash
# kernel/sign.sh: the patches of kernel/series as the submitter sends them.
#
# The patches in kernel/ carry no author and no Signed-off-by: only the person who submits
# them can certify the Developer's Certificate of Origin. This writes a copy of each patch
# (and of the cover letter) with "From: IDENTITY" as the author and "Signed-off-by: IDENTITY"
# at the end of the commit message into OUTDIR, ready for `git am` or `git send-email`.
#
# usage: kernel/sign.sh "Full Name <address>" OUTDIR
set -euo pipefail
KDIR=$(cd "$(dirname "$0")" && pwd)
[ $# = 2 ] || { echo "usage: $0 \"Full Name <address>\" OUTDIR" >&2; exit 2; }
id=$1 out=$2
case $id in *' <'*@*'>') ;; *) echo "$0: identity must look like 'Full Name <address>'" >&2; exit 2 ;; esac
mkdir -p "$out"
for p in 0000-cover-letter.patch $(grep -v '^\s*\(#\|$\)' "$KDIR/series"); do
	# author after the mbox "From " line; sign-off before the first "---" (not in the cover)
	awk -v id="$id" -v cover="$([ "$p" = 0000-cover-letter.patch ] && echo 1)" '
		NR == 1 { print; print "From: " id; next }
		!done && !cover && /^---$/ { print "Signed-off-by: " id; done = 1 }
		{ print }' "$KDIR/$p" >"$out/$p"
done
echo "$out"
