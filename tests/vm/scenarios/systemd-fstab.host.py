"""systemd-fstab: two ext4 disks in files (data that persists, unlike null-co), the rule for
stage 1, and the second disk hot-added and removed over QMP when the guest asks."""
import os
import shutil
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
WWN_A = 0x5000c500f5000001
WWN_B = 0x5000c500f5000002


def _image(vm, name, label):
    path = os.path.join(vm.out_dir, name)
    with open(path, 'wb') as f:
        f.truncate(16 << 20)
    subprocess.run(['mkfs.ext4', '-q', '-F', '-L', label, path], check=True)
    return path


def prepare(vm):
    shutil.copy(os.path.join(REPO, 'rules', '59-lund.rules'), vm.out_dir)
    a = _image(vm, 'fs-a.img', 'lund-a')
    _image(vm, 'fs-b.img', 'lund-b')
    vm.argv += ['-device', 'virtio-scsi-pci,id=vscsi0',
                '-blockdev', f'driver=file,filename={a},node-name=fsa',
                '-device', f'scsi-hd,bus=vscsi0.0,scsi-id=0,lun=0,drive=fsa,serial=FSTABA,wwn={WWN_A}']


def host(vm):
    vm.wait_sync('HOTADD', timeout=240)
    vm.qmp.cmd('blockdev-add', driver='file', filename=os.path.join(vm.out_dir, 'fs-b.img'),
               **{'node-name': 'node-hotb'})
    vm.qmp.cmd('device_add', driver='scsi-hd', id='hotb', bus='vscsi0.0', drive='node-hotb',
               **{'scsi-id': 1, 'lun': 0}, serial='FSTABB', wwn=WWN_B)
    vm.ack('HOTADD')
    vm.wait_sync('HOTREMOVE', timeout=120)
    vm.qmp.hotremove('hotb')
    vm.ack('HOTREMOVE')
