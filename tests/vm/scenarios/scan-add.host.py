"""Host side of scan-add: hot-add disks on megasas and lsi53c895a (HBAs that tell the guest
nothing), then let the guest scan."""


def host(vm):
    vm.wait_sync('HOTADD', timeout=120)
    q = vm.qmp
    q.hotadd_disk('mg-new', 'mega0.0', scsi_id=3, lun=0, serial='MEGANEW003')
    q.hotadd_disk('lsi-t1', 'lsi0.0', scsi_id=1, lun=0, serial='LSITGT0001')
    q.hotadd_disk('lsi-t5', 'lsi0.0', scsi_id=5, lun=0, serial='LSITGT0005')
    vm.ack('HOTADD')
