"""kernel-udev-events: hand the guest the proposed 60-block.rules change (kernel/7.3/udev/)."""
import glob
import os
import shutil

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def host(vm):
    for p in glob.glob(os.path.join(REPO, 'kernel', '7.3', 'udev', '*.patch')):
        shutil.copy(p, os.path.join(vm.out_dir, 'udev-60-block.patch'))
    vm.wait_sync('UDEV_PATCH', timeout=420)
    vm.ack('UDEV_PATCH')
