#!/bin/sh
# lund-errpolicy-stock: `lunctl policy` on the stock kernel: the companion patchset's knobs reported missing, sd max_retries set, bad values refused, an LU offlined without a uevent shown offline by the counters' round
# Body: guest/lund-errpolicy.sh.
# vm-flavour: busybox
# vm-topology: none
# vm-timeout: 300
. /vm/guest/lib.sh
KMODE=stock
. /vm/guest/lund-errpolicy.sh
