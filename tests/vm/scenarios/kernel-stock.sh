#!/bin/sh
# kernel-stock: the SCSI error scenarios of kernel/ on Debian's stock modules (the baseline).
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 360
. /vm/guest/lib.sh
KMODE=stock
. /vm/guest/kernel-faults.sh
