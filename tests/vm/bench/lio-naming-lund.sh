#!/bin/bash
# bench/lio-naming-lund: bench/lio-naming's rounds of the kernel alone and of lund, without
# udevd's (minutes each at 512 LUs), one round each: where lund's time goes (its user and
# system CPU time) on the same 512 LUs.
# vm-flavour: udev-root
# vm-topology: none
# vm-timeout: 1200
LUND_BENCH_TOOLS="kernel lund" LUND_BENCH_ROUNDS=${LUND_BENCH_ROUNDS:-1}
. /vm/bench/lio-naming.sh
