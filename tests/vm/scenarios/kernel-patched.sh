#!/bin/sh
# kernel-patched: the SCSI error scenarios of kernel/ on the patched modules
# (kernel/test.sh boots it with LUND_VM_MODULES_OVERLAY=<kernel/build.sh output>).
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 300
. /vm/guest/lib.sh
KMODE=patched
. /vm/guest/kernel-faults.sh
