#!/bin/bash
# tests/vm/udev-pkg.sh: print the root of Debian's udev package, extracted (never installed)
# into the VM cache; its lib/udev/scsi_id is the peer of lunctl's ID export.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
vm_lock udev
udev_root
