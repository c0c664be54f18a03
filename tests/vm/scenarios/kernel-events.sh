#!/bin/sh
# kernel-events: the ABI of the 7.3 events series (kernel/7.3/: errors/<class> counters, the
# scsi_cmd_error_class tracepoint, SDEV_STATE uevents only for unasked offline transitions) and
# the fixes series (max_retries), on the patched modules; kernel/test.sh --kernel 7.3 boots it
# with LUND_VM_MODULES_OVERLAY=<kernel/build.sh --kernel 7.3 output>. Skipped on modules
# without errors/.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 300
. /vm/guest/lib.sh
. /vm/guest/kernel-events.sh
