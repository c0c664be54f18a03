"""demo: hot-add a disk on virtio-scsi and one on megasas once the guest has listed the SAN."""


def host(vm):
    vm.wait_sync('HOTADD', timeout=90)
    vm.qmp.hotadd_disk('demo-virt', 'vscsi0.0', scsi_id=5, lun=0, serial='DEMOVIRT01',
                       wwn=0x5000c500d3d30001, vendor='LUND', product='Hot Added')
    vm.qmp.hotadd_disk('demo-mega', 'mega0.0', scsi_id=2, lun=0, serial='DEMOMEGA01',
                       wwn=0x5000c500d3d30002)
    vm.ack('HOTADD')


def check(vm):
    with open(vm.out_dir + '/demo.txt') as f:
        print(f.read())
