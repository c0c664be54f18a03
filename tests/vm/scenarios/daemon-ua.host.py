"""daemon-ua: hot-add a disk on megasas (the guest is not told) when the guest asks."""


def host(vm):
    vm.wait_sync('HOTADD', timeout=200)
    vm.qmp.hotadd_disk('ua-mega', 'mega0.0', scsi_id=2, lun=0, serial='UAMEGA0001',
                       wwn=0x5000c500aaaa0001)
    vm.ack('HOTADD')
