#!/bin/sh
# kernel-udev-patched: what one failing command costs with udevd running, on the patched modules
# (kernel/test.sh boots it with LUND_VM_MODULES_OVERLAY=<kernel/build.sh output>; body in guest/kernel-udev.sh).
# vm-flavour: udev-root
# vm-topology: none
# vm-timeout: 360
. /vm/guest/lib.sh
KMODE=udev-patched
. /vm/guest/kernel-udev.sh
