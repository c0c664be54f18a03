"""admin-session: hand the guest rules/59-lund.rules (it is not part of the initramfs)."""
import os
import shutil

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def host(vm):
    shutil.copy(os.path.join(REPO, 'rules', '59-lund.rules'), vm.out_dir)
    vm.wait_sync('RULES', timeout=240)
    vm.ack('RULES')
