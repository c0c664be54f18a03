"""Host side of the capture scenario: raw captures -> annotated hex fixtures.

The guest leaves <out>/capture/<name>/{*.bin,*.export,commands,where}. check() renders them as
sg3_utils --inhex style hex (16 bytes a line, '#' comments) into <results>/fixtures/ and
compares them with tests/fixtures/captured/ (comments ignored). With
LUND_VM_UPDATE_FIXTURES=1 it writes them into the tree instead (then commit them).
"""
import os
import re
import shutil
import subprocess

VM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(VM_DIR))
FIXTURES = os.path.join(REPO, 'tests', 'fixtures', 'captured')

# guest file -> fixture file
HEX = {'inquiry.bin': 'inquiry.hex', 'pg00.bin': 'pg00.hex', 'pg80.bin': 'pg80.hex',
       'pg83.bin': 'pg83.hex', 'pg89.bin': 'pg89.hex', 'pgb0.bin': 'pgb0.hex',
       'luns.bin': 'luns.hex'}
SYSFS = ('inquiry', 'vpd_pg0', 'vpd_pg80', 'vpd_pg83', 'vpd_pg89', 'vpd_pgb0', 'vpd_pgb1',
         'vpd_pgb2')
TEXT = ('scsi_id.export', 'scsi_id-sg.export', 'sg_inq.export', 'sg_inq-di.export',
        'sg_inq-sn.export', 'sg_inq-sysfs-pg80.export', 'sg_inq-sysfs-pg83.export')

HBA = [('virtio-scsi-', 'virtio-scsi-pci'), ('megasas-', 'megasas'),
       ('lsi53c895a-', 'lsi53c895a'), ('mptsas1068-', 'mptsas1068'), ('ahci-', 'ahci'),
       ('pvscsi-', 'pvscsi'), ('usb-storage-', 'qemu-xhci usb-storage'),
       ('usb-bot-', 'qemu-xhci usb-bot'), ('scsi_debug-', 'scsi_debug'),
       ('lio-iscsi-', 'LIO iscsi_target_mod, iscsi_tcp initiator'),
       ('tcm_loop-', 'LIO tcm_loop')]
# devices that are not QEMU's: how guest/lio-lib.sh configured them
LIO_DEVICES = {
    'lio-iscsi-fileio': 'fileio 16 MiB, vpd_unit_serial 10de00000000, '
                        'iqn.2003-01.org.linux-iscsi.lund:san tpgt 1 on 127.0.0.1:3260',
    'tcm_loop-fileio': 'fileio 16 MiB, vpd_unit_serial 10de00000001, '
                       'naa.50014050000000a1 tpgt 1',
}


def hba_of(name):
    for prefix, hba in HBA:
        if name.startswith(prefix):
            return hba
    return '?'


def generic_nodes(s):
    """/dev/sg12 -> /dev/sgN etc.: keeps headers stable across probe orders."""
    s = re.sub(r'/dev/sg\d+', '/dev/sgN', s)
    s = re.sub(r'/dev/sr\d+', '/dev/srN', s)
    return re.sub(r'/dev/sd[a-z]+', '/dev/sdX', s)


def hexdump(data):
    return ''.join(' '.join(f'{b:02x}' for b in data[i:i + 16]) + '\n'
                   for i in range(0, len(data), 16))


def parse_hex(text):
    out = bytearray()
    for line in text.splitlines():
        line = line.split('#', 1)[0]
        out += bytes(int(t, 16) for t in line.split())
    return bytes(out)


def san_devices():
    out = subprocess.run([os.path.join(VM_DIR, 'san.sh'), 'devices'], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    devs = {}
    for line in out.splitlines():
        name, _, opts = line.partition('\t')
        devs[name] = opts
    return devs


def qemu_version():
    v = subprocess.run(['qemu-system-x86_64', '--version'], stdout=subprocess.PIPE,
                       text=True).stdout.split('\n')[0]
    m = re.search(r'version (\S+)', v)
    return m.group(1) if m else '?'


def render(src, kernel, qemu):
    """Render one device's raw capture directory into fixture files. Returns the list of
    (file, content) pairs."""
    devs = dict(san_devices(), **LIO_DEVICES)
    files = {}
    for name in sorted(os.listdir(src)):
        d = os.path.join(src, name)
        if not os.path.isdir(d):
            continue
        opts = devs.get(name) or devs.get(name.split('-')[0], '?')
        cmds = {}
        with open(os.path.join(d, 'commands')) as f:
            for line in f:
                k, _, v = line.rstrip('\n').partition(' ')
                cmds[k] = generic_nodes(v)
        where = open(os.path.join(d, 'where')).read().split()
        head = f'# captured: qemu {qemu} {hba_of(name)} {opts}, kernel {kernel}, command '
        for raw, fx in HEX.items():
            p = os.path.join(d, raw)
            if os.path.exists(p) and not cmds.get(raw, '').startswith('FAILED'):
                data = open(p, 'rb').read()
                files[f'{name}/{fx}'] = head + cmds[raw] + '\n' + hexdump(data)
        for a in SYSFS:
            p = os.path.join(d, f'sysfs-{a}.bin')
            if os.path.exists(p):
                data = open(p, 'rb').read()
                if data:
                    files[f'{name}/sysfs-{a}.hex'] = (
                        head + f'cat /sys/class/scsi_device/H:C:T:L/device/{a}\n' +
                        hexdump(data))
        p = os.path.join(d, 'sysfs-wwid.bin')
        if os.path.exists(p):
            files[f'{name}/sysfs-wwid.txt'] = open(p, 'rb').read().decode('latin-1')
        for t in TEXT:
            p = os.path.join(d, t)
            if os.path.exists(p):
                files[f'{name}/{t}'] = open(p, 'rb').read().decode('latin-1')
        unsupported = [k for k, v in cmds.items() if v.startswith('FAILED')]
        files[f'{name}/info'] = (
            f'hba: {hba_of(name)}\nqemu: {qemu}\ndevice: {opts}\nkernel: {kernel}\n'
            f'address: {where[0]} ({where[1]}, {where[2]})\n'
            f'unsupported: {" ".join(sorted(u.replace(".bin", "") for u in unsupported)) or "-"}\n')
    return files


def readme(files):
    names = sorted({k.split('/')[0] for k in files})
    lines = ['# Captured SCSI responses (ground truth)', '',
             'Written by `tests/vm/run capture` (scenario `tests/vm/scenarios/capture.sh`,',
             'host side `capture.host.py`); refresh with',
             '`LUND_VM_UPDATE_FIXTURES=1 tests/vm/run capture`. Every device of the emulated SAN',
             '(`tests/vm/san.sh`) under QEMU 7.2 and Debian 12\'s kernel, and Linux\'s own SCSI',
             'target (LIO, `tests/vm/guest/lio-lib.sh`) over iSCSI and behind tcm_loop, one',
             'directory each:', '',
             '- `inquiry.hex` standard INQUIRY (`sg_inq -r`), `pgXX.hex` VPD page 0xXX',
             '  (`sg_vpd -r -p 0xXX`, only where the device supports it), `luns.hex` REPORT LUNS',
             '  (`sg_luns -r`, LUN 0 of each target only); all in sg3_utils `--inhex` format, with a',
             '  `# captured:` header naming the device options, kernel and command;',
             '- `sysfs-*.hex` the bytes of the kernel\'s cached `inquiry` / `vpd_pg*` attributes,',
             '  `sysfs-wwid.txt` its `wwid`;',
             '- `scsi_id.export` (`/lib/udev/scsi_id --export --whitelisted -g -d` on the sd/sr node),',
             '  `scsi_id-sg.export` (same on the sg node), `sg_inq.export` (`sg_inq --export`),',
             '  `sg_inq-di.export` / `sg_inq-sn.export` (`sg_inq --export --page=di|sn`: SCSI_IDENT_*,',
             '  as sg3-utils-udev\'s rules run it), `sg_inq-sysfs-pg8x.export` (`sg_inq --export',
             '  --inhex=<sysfs vpd_pg8x> --raw`, the rules\' no-I/O path);',
             '- `info`: HBA, device options, H:C:T:L at capture time, unsupported pages.', '',
             '| directory | HBA | pages | device options |', '| --- | --- | --- | --- |']
    for n in names:
        info = files[f'{n}/info']
        hba = re.search(r'^hba: (.*)$', info, re.M).group(1)
        dev = re.search(r'^device: (.*)$', info, re.M).group(1)
        pages = ' '.join(p[2:4] for p in ('pg00', 'pg80', 'pg83', 'pg89', 'pgb0')
                         if f'{n}/{p}.hex' in files)
        lines.append(f'| `{n}` | {hba} | {pages or "-"} | `{dev}` |')
    return '\n'.join(lines) + '\n'


def check(vm):
    src = os.path.join(vm.out_dir, 'capture')
    kernel = open(os.path.join(src, 'kernel')).read().strip()
    kv = subprocess.run([os.path.join(VM_DIR, 'kernel.sh')], stdout=subprocess.PIPE,
                        text=True).stdout
    m = re.search(r"KVERSION='([^']*)'", kv)
    if m:
        kernel = f'{kernel} ({m.group(1)})'
    files = render(src, kernel, qemu_version())
    files['README.md'] = readme(files)
    rendered = os.path.join(vm.workdir, 'fixtures')
    for dst_root in [rendered] + ([FIXTURES] if os.environ.get('LUND_VM_UPDATE_FIXTURES')
                                  else []):
        if dst_root == FIXTURES:
            shutil.rmtree(FIXTURES, ignore_errors=True)
        for rel, content in files.items():
            p = os.path.join(dst_root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, 'w', encoding='latin-1') as f:
                f.write(content)
    vm.results['fixtures'] = str(len(files))
    if os.environ.get('LUND_VM_UPDATE_FIXTURES'):
        return
    if not os.path.isdir(FIXTURES):
        raise AssertionError(f'{FIXTURES} missing; create it with '
                             'LUND_VM_UPDATE_FIXTURES=1 tests/vm/run capture')
    diffs = []
    for rel, content in files.items():
        if rel.endswith('info') or rel == 'README.md':
            continue
        p = os.path.join(FIXTURES, rel)
        if not os.path.exists(p):
            diffs.append(f'new: {rel}')
            continue
        old = open(p, encoding='latin-1').read()
        same = parse_hex(old) == parse_hex(content) if rel.endswith('.hex') else old == content
        if not same:
            diffs.append(f'differs: {rel}')
    if diffs:
        raise AssertionError('captures differ from tests/fixtures/captured (QEMU, kernel or '
                             'udev changed? refresh with LUND_VM_UPDATE_FIXTURES=1): ' +
                             '; '.join(diffs[:10]) + (' ...' if len(diffs) > 10 else ''))
