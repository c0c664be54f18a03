"""Host side of scan-timeout: a megasas disk on a new target while scsi_debug is dead."""


def host(vm):
    vm.wait_sync('HOTADD', timeout=120)
    vm.qmp.hotadd_disk('mg-t3', 'mega0.0', scsi_id=3, lun=0, serial='MEGATO0003')
    vm.ack('HOTADD')
