# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Sourced by the scsi_id peer tests: SCSI_ID= from the environment, else udev's installed
# scsi_id, else the one in Debian's udev package extracted into the VM cache (the VM tests use
# it too); exits 77 (skipped) when there is none.
SCSI_ID=${SCSI_ID:-}
for c in /lib/udev/scsi_id /usr/lib/udev/scsi_id; do
        [ -z "$SCSI_ID" ] && [ -x "$c" ] && SCSI_ID=$c
done
if [ -z "$SCSI_ID" ] && root=$("$(dirname "$0")/../vm/udev-pkg.sh" 2>/dev/null); then
        [ -x "$root/lib/udev/scsi_id" ] && SCSI_ID=$root/lib/udev/scsi_id
fi
[ -n "$SCSI_ID" ] || { echo "SKIP: no scsi_id (set SCSI_ID=)"; exit 77; }
echo "scsi_id: $SCSI_ID"
