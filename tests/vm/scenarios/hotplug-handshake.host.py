"""Host side of hotplug-handshake: hot-add over QMP when the guest is ready."""


def host(vm):
    vm.wait_sync('READY-FOR-HOTADD', timeout=60)
    vm.qmp.hotadd_disk('hot0', 'vscsi0.0', scsi_id=5, lun=0, serial='HOTADD0001',
                       wwn=0x5000c50066660001)
    vm.qmp.hotadd_disk('hot1', 'mega0.0', scsi_id=3, lun=0, serial='HOTADD0002')
    vm.ack('READY-FOR-HOTADD')
    vm.wait_sync('READY-FOR-REMOVE', timeout=60)
    vm.qmp.hotremove('hot0')
    vm.ack('READY-FOR-REMOVE')
    vm.wait_sync('READY-FOR-HBA', timeout=60)
    vm.qmp.hotadd_controller('vscsi1')
    vm.qmp.hotadd_disk('hot2', 'vscsi1.0', scsi_id=0, lun=0, serial='HOTADD0003',
                       product='HBA Hotplug')
    vm.ack('READY-FOR-HBA')


def check(vm):
    assert vm.results.get('serial') == 'HOTADD0001', vm.results
    assert vm.results.get('virtio_hosts') == '2', vm.results
