"""Host hook of the kernel-* and kernel-udev-* stock/patched pairs (their NAME.host.py import check from here):
check the modules booted were the ones meant, and save the guest's results for kernel/test.sh."""
import os


def check(vm):
    mode = vm.results.get('mode')
    patched = vm.results.get('patched')
    overlay = bool(os.environ.get('LUND_VM_MODULES_OVERLAY'))
    if mode.endswith('stock') and patched != '0':
        raise AssertionError('kernel-stock booted patched modules (LUND_VM_MODULES_OVERLAY set?)')
    if mode.endswith('patched') and overlay and patched != '1':
        raise AssertionError('the overlay modules do not have the patchset attributes')
    out = os.environ.get('LUND_KERNEL_RESULTS')
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f'{mode}.txt'), 'w') as f:
            f.write('\n'.join(vm.result_lines) + '\n')
