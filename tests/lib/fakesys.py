# SPDX-License-Identifier: LGPL-2.1-or-later
"""A fake sysfs below a root directory, as lund and lunctl see one with --root: SCSI LUs and
the devices above them, laid out as Linux 6.1 lays them out. The scripts' twin of
check_tree_put_lu() (tests/unit/check-util.h); only what is asked for is written.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
    import fakesys
    fakesys.lu(root, '0:0:0:0', block=('sda', '8:0'), sg=('sg0', '21:0'),
               attrs={'timeout': '30', 'vpd_pg83': page})
"""

import os


def put(root, path, data):
    """Writes @data (text, or bytes as they are) to @path below @root, making directories."""
    p = os.path.join(root, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'wb' if isinstance(data, bytes) else 'w') as f:
        f.write(data)


def device(root, path, subsystem=None, devtype=None):
    """The device @path below @root: its uevent (DEVTYPE=@devtype) and, with @subsystem, its
    `subsystem` link to sys/bus/@subsystem."""
    put(root, path + '/uevent', 'DEVTYPE=%s\n' % devtype if devtype else '')
    if subsystem:
        os.makedirs(os.path.join(root, 'sys/bus', subsystem), exist_ok=True)
        os.symlink('../' * (path.count('/') + 1) + 'sys/bus/' + subsystem,
                   os.path.join(root, path, 'subsystem'))


def inquiry(ptype=0, vendor='FAKE', model='DISK', rev='0001'):
    """Standard INQUIRY data (SPC-4, 36 bytes) of a peripheral type @ptype."""
    return (bytes([ptype, 0, 6, 2, 31, 0, 0, 0]) + vendor.ljust(8).encode()[:8] +
            model.ljust(16).encode()[:16] + rev.ljust(4).encode()[:4])


def lu(root, hctl, parent=None, ptype=0, vendor='FAKE', model='DISK', rev='0001',
       scsi_level=6, std_inquiry=False, block=None, sg=None, tape=None, attrs=None,
       uevent=False):
    """The LU @hctl below @root; returns its directory (relative to @root).

    @parent: None for a directory sys/bus/scsi/devices/@hctl; else the LU's parent below
    sys/devices ("platform/host3/session1/target3:0:0"), and the bus's entry a symlink to it.
    @vendor, @model, @rev are written padded to 8, 16 and 4 as the kernel shows them, None
    not at all; @std_inquiry writes the `inquiry` of them. @block, @sg, @tape: a node's name,
    or (name, "major:minor") for its `dev` file too. @attrs: any other file below the LU
    ("vpd_pg83", "block/sda/sda1/partition"), text written with a newline, bytes as they are.
    @uevent: the LU's uevent and subsystem, as device() writes them."""
    d = ('sys/devices/%s/%s' % (parent, hctl)) if parent else 'sys/bus/scsi/devices/' + hctl
    files = {'type': '%d' % ptype}
    if scsi_level:
        files['scsi_level'] = '%d' % scsi_level
    for name, v, width in (('vendor', vendor, 8), ('model', model, 16), ('rev', rev, 4)):
        if v is not None:
            files[name] = v.ljust(width)[:width]
    if std_inquiry:
        files['inquiry'] = inquiry(ptype, vendor or '', model or '', rev or '')
    for cls, node in (('block', block), ('scsi_generic', sg), ('scsi_tape', tape)):
        if isinstance(node, str):
            os.makedirs(os.path.join(root, d, cls, node))
        elif node:
            files['%s/%s/dev' % (cls, node[0])] = node[1]
    files.update(attrs or {})
    if uevent:
        device(root, d, 'scsi', 'scsi_device')
    for name, v in files.items():
        put(root, d + '/' + name, v if isinstance(v, bytes) else v + '\n')
    if parent:
        os.makedirs(os.path.join(root, 'sys/bus/scsi/devices'), exist_ok=True)
        os.symlink('../../../devices/%s/%s' % (parent, hctl),
                   os.path.join(root, 'sys/bus/scsi/devices', hctl))
    return d


def many_hctl(i, n, hosts=4, targets=100):
    """The H:C:T:L of the @i-th of @n LUs of many_lus(), as a tuple."""
    per_host = n // hosts + 1
    h, rest = divmod(i, per_host)
    t, l = divmod(rest, per_host // targets + 1)
    return h, 0, t, l


def many_lus(root, n, model, hosts=4):
    """A tree of @n LUs at the cost of @n links: every sys/bus/scsi/devices/H:C:T:L (many_hctl())
    is a link to one template LU (type, vendor, model, state; no nodes, so nothing is named and
    no command is sent)."""
    lu(root, '0:0:0:0', 'template', vendor='LUND', model=model, scsi_level=7,
       attrs={'state': 'running', 'queue_depth': '32', 'timeout': '30'})
    bus = os.path.join(root, 'sys/bus/scsi/devices')
    for h in range(hosts):
        os.makedirs(os.path.join(root, 'sys/class/scsi_host/host%d' % h))
    for i in range(1, n):
        os.symlink('../../../devices/template/0:0:0:0',
                   os.path.join(bus, '%d:%d:%d:%d' % many_hctl(i, n, hosts)))
    os.makedirs(os.path.join(root, 'dev'))
