#!/bin/sh
# kernel-udev-stock: what one failing command costs with udevd running, on Debian's stock modules
# (kernel/test.sh boots it; body in guest/kernel-udev.sh).
# vm-flavour: udev-root
# vm-topology: none
# vm-timeout: 360
. /vm/guest/lib.sh
KMODE=udev-stock
. /vm/guest/kernel-udev.sh
