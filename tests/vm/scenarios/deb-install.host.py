"""deb-install: the package the guest installs.

$LUND_VM_DEB names a .deb already built from this tree (tools/test passes the one its package
step built); without it, tools/deb --nocheck builds one now (about 1.5 min)."""
import os
import shutil
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def prepare(vm):
    deb = os.environ.get('LUND_VM_DEB')
    if not deb:
        r = subprocess.run([os.path.join(REPO, 'tools', 'deb'), '--nocheck'], cwd=REPO,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise AssertionError('tools/deb --nocheck failed: ' + r.stderr[-1500:])
        deb = r.stdout.strip().splitlines()[-1]
    if not os.path.isfile(deb):
        raise AssertionError(f'no package at {deb}')
    vm.log(f'package: {deb}')
    shutil.copy(deb, os.path.join(vm.out_dir, 'lund.deb'))


def check(vm):
    with open(os.path.join(vm.out_dir, 'dpkg-L.txt')) as f:
        files = f.read().split()
    for want in ('/usr/sbin/lund', '/usr/bin/lunctl', '/lib/systemd/system/lund.service',
                 '/lib/udev/rules.d/59-lund.rules', '/lib/udev/hwdb.d/60-lund.hwdb',
                 '/etc/lund/lund.conf'):
        assert want in files, f'dpkg -L lund lacks {want}'
