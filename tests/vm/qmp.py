#!/usr/bin/env python3
"""tests/vm/qmp.py: a small QMP client (QEMU Machine Protocol) for the VM harness.

As a library:   q = QMP('/path/qmp.sock'); q.cmd('query-status'); q.hotadd_disk(...)
As a command:   qmp.py SOCK COMMAND ['{"json": "args"}']
"""
import json
import os
import socket
import sys
import time


class QMPError(Exception):
    pass


class QMP:
    def __init__(self, path, timeout=30.0):
        self.path = path
        self.events = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise QMPError(f'cannot connect to {path}')
                time.sleep(0.05)
        self.sock.settimeout(timeout)
        self.rfile = self.sock.makefile('r', encoding='utf-8')
        greeting = self._read()
        if 'QMP' not in greeting:
            raise QMPError(f'unexpected greeting {greeting}')
        self.cmd('qmp_capabilities')

    def _read(self):
        line = self.rfile.readline()
        if not line:
            raise QMPError('QMP connection closed')
        return json.loads(line)

    def cmd(self, name, **args):
        """Execute a command; return its 'return' value or raise QMPError."""
        msg = {'execute': name}
        if args:
            msg['arguments'] = args
        self.sock.sendall((json.dumps(msg) + '\n').encode())
        while True:
            r = self._read()
            if 'event' in r:
                self.events.append(r)
                continue
            if 'error' in r:
                raise QMPError(f"{name}: {r['error'].get('class')}: {r['error'].get('desc')}")
            return r.get('return')

    def hmp(self, command_line):
        return self.cmd('human-monitor-command', **{'command-line': command_line})

    def wait_event(self, name, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e['event'] == name:
                    return self.events.pop(i)
            left = deadline - time.monotonic()
            if left <= 0:
                raise QMPError(f'no {name} event within {timeout}s')
            self.sock.settimeout(left)
            try:
                self.events.append(self._read())
            except socket.timeout:
                pass

    # --- conveniences for the scenarios --------------------------------------------------
    def add_null_blockdev(self, node, size=64 << 20):
        self.cmd('blockdev-add', **{'driver': 'null-co', 'node-name': node,
                                    'read-zeroes': True, 'size': size})

    def hotadd_disk(self, dev_id, bus, scsi_id=0, lun=0, size=64 << 20, driver='scsi-hd',
                    **props):
        """blockdev-add a null-co node and device_add a SCSI disk on BUS (e.g. 'vscsi0.0').
        props: serial, vendor, product, wwn (int), port_wwn (int), device_id, ..."""
        node = 'node-' + dev_id
        self.add_null_blockdev(node, size)
        args = {'driver': driver, 'id': dev_id, 'bus': bus, 'drive': node,
                'scsi-id': scsi_id, 'lun': lun}
        args.update(props)
        self.cmd('device_add', **args)

    def hotremove(self, dev_id, timeout=10.0, blockdev=True):
        """device_del and wait for DEVICE_DELETED, then drop the backing node."""
        self.cmd('device_del', id=dev_id)
        deadline = time.monotonic() + timeout
        while True:
            e = self.wait_event('DEVICE_DELETED', max(0.1, deadline - time.monotonic()))
            if e.get('data', {}).get('device') == dev_id:
                break
        if blockdev:
            try:
                self.cmd('blockdev-del', **{'node-name': 'node-' + dev_id})
            except QMPError:
                pass

    def hotadd_controller(self, dev_id, driver='virtio-scsi-pci', **props):
        """PCI hot-add an HBA (works on the 'pc' machine: ACPI hotplug on the root bus)."""
        self.cmd('device_add', driver=driver, id=dev_id, **props)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    q = QMP(argv[1])
    args = json.loads(argv[3]) if len(argv) > 3 else {}
    try:
        print(json.dumps(q.cmd(argv[2], **args), indent=1))
    except QMPError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
