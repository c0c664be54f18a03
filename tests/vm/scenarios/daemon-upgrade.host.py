"""daemon-upgrade: hand the guest a compiled hwdb marking disk A's vendor and model
LUND_NAME_IDENTITY=unit-serial (the busybox guest has no systemd-hwdb)."""
import os

from hwdb_bin import hwdb_bin


def prepare(vm):
    with open(os.path.join(vm.out_dir, 'upgrade-hwdb.bin'), 'wb') as f:
        f.write(hwdb_bin('lund:scsi:t0:vACME:mRAID5 LUN:', 'LUND_NAME_IDENTITY', 'unit-serial'))
