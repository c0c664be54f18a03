"""boot-manual: once the booted system is checked, hot-plug a USB stick (a new scsi_host that,
under scsi_mod.scan=manual, only lund scans)."""


def host(vm):
    vm.wait_sync('HOTADD-USB', timeout=560)
    vm.qmp.add_null_blockdev('node-hotusb', 32 << 20)
    vm.qmp.cmd('device_add', driver='usb-storage', id='hotusb', bus='xhci0.0',
               drive='node-hotusb', serial='HOTUSB000001')
    vm.ack('HOTADD-USB')
