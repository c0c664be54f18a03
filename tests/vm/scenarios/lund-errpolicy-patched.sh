#!/bin/sh
# lund-errpolicy-patched: `lunctl policy` on the patched modules: retry_limit, failfast and evt_error set, their effect counted by the kernel
# (kernel/test.sh boots it with LUND_VM_MODULES_OVERLAY=<kernel/build.sh output>).
# Body: guest/lund-errpolicy.sh.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 300
. /vm/guest/lib.sh
KMODE=patched
. /vm/guest/lund-errpolicy.sh
