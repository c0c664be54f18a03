"""daemon-policy: hand the guest the shipped hwdb file and the scenario's hwdb and lund.conf
(tests/vm/data/daemon-policy.{hwdb,conf})."""
import os
import shutil

VM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(VM_DIR, 'data')
REPO = os.path.dirname(os.path.dirname(VM_DIR))


def host(vm):
    shutil.copy(os.path.join(REPO, 'hwdb', '60-lund.hwdb'), vm.out_dir)
    shutil.copy(os.path.join(DATA, 'daemon-policy.hwdb'), vm.out_dir)
    shutil.copy(os.path.join(DATA, 'daemon-policy.conf'), vm.out_dir)
    vm.wait_sync('FILES', timeout=240)
    vm.ack('FILES')
