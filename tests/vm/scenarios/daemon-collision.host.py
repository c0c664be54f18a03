"""daemon-collision: hot-plug two USB sticks that give one serial (clones), then one USB reader
(usb-bot) with two LUNs of one serial, vendor and model; hand the guest a compiled hwdb marking
QEMU's USB mass storage serial-path (the busybox guest has no systemd-hwdb)."""
import os

from hwdb_bin import hwdb_bin


def host(vm):
    with open(os.path.join(vm.out_dir, 'clones-hwdb.bin'), 'wb') as f:
        f.write(hwdb_bin('lund:usb:v46F4p0001', 'LUND_NAME_IDENTITY', 'serial-path'))
    vm.wait_sync('HOTADD-CLONES', timeout=560)
    for i in (1, 2):
        vm.qmp.add_null_blockdev('node-clone%d' % i, 16 << 20)
        vm.qmp.cmd('device_add', driver='usb-storage', id='clone%d' % i, bus='xhci0.0',
                   drive='node-clone%d' % i, serial='CLONE0000001')
    vm.ack('HOTADD-CLONES')

    # A hot-plugged usb-bot stays detached until its LUNs are there (QEMU: attached=true).
    vm.wait_sync('HOTADD-READER', timeout=300)
    vm.qmp.cmd('device_add', driver='usb-bot', id='reader', bus='xhci0.0', serial='CLONE0000002')
    for lun in (0, 1):
        vm.qmp.hotadd_disk('reader%d' % lun, 'reader.0', scsi_id=0, lun=lun, size=16 << 20,
                           serial='CLONE0000002', vendor='LUND', product='Card Reader')
    vm.qmp.cmd('qom-set', path='/machine/peripheral/reader', property='attached', value=True)
    vm.ack('HOTADD-READER')
