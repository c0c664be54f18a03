"""daemon-policy: hand the guest the shipped hwdb file and the scenario's hwdb and lund.conf."""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def host(vm):
    shutil.copy(os.path.join(REPO, 'hwdb', '60-lund.hwdb'), vm.out_dir)
    shutil.copy(os.path.join(HERE, 'daemon-policy.hwdb'), vm.out_dir)
    shutil.copy(os.path.join(HERE, 'daemon-policy.conf'), vm.out_dir)
    vm.wait_sync('FILES', timeout=240)
    vm.ack('FILES')
