"""daemon-collision: hot-plug two USB sticks that give one serial (clones)."""


def host(vm):
    vm.wait_sync('HOTADD-CLONES', timeout=560)
    for i in (1, 2):
        vm.qmp.add_null_blockdev('node-clone%d' % i, 16 << 20)
        vm.qmp.cmd('device_add', driver='usb-storage', id='clone%d' % i, bus='xhci0.0',
                   drive='node-clone%d' % i, serial='CLONE0000001')
    vm.ack('HOTADD-CLONES')
