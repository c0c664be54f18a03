"""deb-install: the package the guest installs, built for the guest's release.

$LUND_VM_DEB names a .deb already built from this tree for the host's release (tools/test passes
the one its package step built), $LUND_VM_DEB_13 (or _12) one for that release; without it,
tools/deb --nocheck [--release R] builds one now (about 1.5 min; for another release than the
host's in its build root, tools/buildroot, the first time ~2 min more)."""
import os
import shutil
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def host_release():
    with open('/etc/os-release') as f:
        for line in f:
            if line.startswith('VERSION_ID='):
                return line.split('=', 1)[1].strip().strip('"').split('.')[0]
    return ''


def lib_dir(vm):
    """Where the package puts units and udev files: /usr/lib from Debian 13 on."""
    return '/lib' if vm.scn.release == '12' else '/usr/lib'


def prepare(vm):
    rel = vm.scn.release
    deb = os.environ.get(f'LUND_VM_DEB_{rel}') or (
        os.environ.get('LUND_VM_DEB') if rel == host_release() else None)
    if not deb:
        r = subprocess.run([os.path.join(REPO, 'tools', 'deb'), '--nocheck', '--release', rel],
                           cwd=REPO,
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
    lib = lib_dir(vm)
    for want in ('/usr/sbin/lund', '/usr/bin/lunctl', f'{lib}/systemd/system/lund.service',
                 f'{lib}/udev/rules.d/59-lund.rules', f'{lib}/udev/hwdb.d/60-lund.hwdb',
                 '/etc/lund/lund.conf'):
        assert want in files, f'dpkg -L lund lacks {want}'
