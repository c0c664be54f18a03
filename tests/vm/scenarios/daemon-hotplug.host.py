"""daemon-hotplug: hot-add a disk on virtio-scsi, then remove it, when the guest asks."""


def host(vm):
    vm.wait_sync('HOTADD', timeout=150)
    vm.qmp.hotadd_disk('hp0', 'vscsi0.0', scsi_id=5, lun=0, serial='HOTPLUG01',
                       wwn=0x5000c500abcd0001)
    vm.ack('HOTADD')
    vm.wait_sync('HOTREMOVE', timeout=120)
    vm.qmp.hotremove('hp0')
    vm.ack('HOTREMOVE')
