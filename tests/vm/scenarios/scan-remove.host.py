"""Host side of scan-remove: a disk on a new megasas target, then device_del'ed (twice: once
for lunctl, once for rescan-scsi-bus.sh). QEMU's megasas cannot give the kernel a LUN 1, so the
vanished LU is a whole target."""


def host(vm):
    vm.wait_sync('HOTADD', timeout=120)
    q = vm.qmp
    q.hotadd_disk('mg-t3', 'mega0.0', scsi_id=3, lun=0, serial='MEGARM0003')
    vm.ack('HOTADD')
    vm.wait_sync('DEL1', timeout=120)
    q.hotremove('mg-t3')
    vm.ack('DEL1')
    vm.wait_sync('READD', timeout=300)
    q.hotadd_disk('mg-t3', 'mega0.0', scsi_id=3, lun=0, serial='MEGARM0003')
    vm.ack('READD')
    vm.wait_sync('DEL2', timeout=120)
    q.hotremove('mg-t3')
    vm.ack('DEL2')
