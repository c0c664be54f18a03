#!/bin/bash
# bench/daemon-4096 (bench/daemon.sh 4096): bench/daemon's cold-start naming, lund's rounds
# only, at 1024 and then 4096 scsi_debug LUs (16 targets x 256 LUNs) in one lund process, the
# guest given 2 GiB for them. udevd + scsi_id named ~1-4 disks a second in this guest on a
# loaded host (bench/daemon at 1024 LUs): its round would take over half an hour of guest time
# at 4096; LUND_BENCH_TOOLS="udev lund" below runs it.
# vm-flavour: udev-root
# vm-topology: none
# vm-timeout: 2400
# vm-qemu: -m 2048
LUND_BENCH_LUS=4096 LUND_BENCH_WAIT=3000 LUND_BENCH_TOOLS=${LUND_BENCH_TOOLS:-lund}
LUND_BENCH_LUND_SIZES=${LUND_BENCH_LUND_SIZES:-1024 4096}
. /vm/bench/daemon.sh
