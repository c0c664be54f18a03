"""Host hook of the kernel-* and kernel-udev-* stock/patched pairs (their NAME.host.py import check from here):
check the modules booted were the ones meant, and save the guest's results for kernel/test.sh.
lund-errpolicy-* save only their iscsi.* figures (check_iscsi), as iscsi-<mode>.txt: the rest of
what they report is checked in the guest and would shadow kernel-*'s keys of the same name."""
import os


def check(vm, prefix=None, name=None):
    mode = vm.results.get('mode')
    patched = vm.results.get('patched')
    overlay = bool(os.environ.get('LUND_VM_MODULES_OVERLAY'))
    if mode.endswith('stock') and patched != '0':
        raise AssertionError('kernel-stock booted patched modules (LUND_VM_MODULES_OVERLAY set?)')
    if mode.endswith('patched') and overlay and patched != '1':
        raise AssertionError('the overlay modules do not have the patchset attributes')
    out = os.environ.get('LUND_KERNEL_RESULTS')
    if out:
        lines = vm.result_lines
        if prefix:
            lines = [' '.join(kv for kv in line.split() if kv.startswith(prefix))
                     for line in lines]
            lines = [line for line in lines if line]
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f'{name or ""}{mode}.txt'), 'w') as f:
            f.write('\n'.join(lines) + '\n')


def check_iscsi(vm):
    check(vm, prefix='iscsi.', name='iscsi-')
