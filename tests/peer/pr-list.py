#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LUNCTL=... pr-list.py FIXTURES_DIR MOCK_SO

`lunctl list -o HCTL,PR` on a fake tree of iSCSI LUs (captured LIO pages cached as the kernel
caches them) whose dev/sgN tests/peer/scsi-id-mock.c answers PERSISTENT RESERVE IN for, each
from READ FULL STATUS data written here as LIO sends it (TransportIDs of format 01b): this host
(the session's initiatorname) registered and holding the reservation, a peer holding it with
this host registered too, nobody registered, a device that refuses PERSISTENT RESERVE IN, and
one that sends a descriptor longer than its data. The words of each row and the JSON members,
and that lunctl reads reservations only when the column is asked for.
Exit: 0 pass, 1 fail, 77 skipped."""
import json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from fakesys import lu, put  # noqa: E402
from prindata import desc, full_status, hexfile, tid_iscsi  # noqa: E402

LUNCTL = os.environ.get('LUNCTL')
FIX, MOCK = sys.argv[1], sys.argv[2]
if not LUNCTL:
    print('SKIP: LUNCTL= is needed')
    sys.exit(77)

US, PEER = 'iqn.1993-08.org.debian:01:lund-vm', 'iqn.1993-08.org.debian:01:peer'


# (LUN, prin data or None, expected words)
CASES = [
    (1, full_status(desc(0x1234, True, 0x1, tid_iscsi(US))), '1 key (this host), WE held by this host'),
    (2, full_status(desc(0x9, True, 0x3, tid_iscsi(PEER)), desc(0x1234, False, 0, tid_iscsi(US))),
     '2 keys (this host), EA held by %s (key 0x9)' % PEER),
    (3, full_status(), 'none'),
    (4, None, 'unsupported'),
    (5, full_status(desc(0x9, False, 0, tid_iscsi(PEER)), cut=4), 'EBADMSG'),
]


def main():
    tmp = tempfile.mkdtemp()
    fail = 0
    try:
        root, mock = os.path.join(tmp, 'root'), os.path.join(tmp, 'mock')
        os.makedirs(mock)
        cap = os.path.join(FIX, 'captured', 'lio-iscsi-fileio')
        pages = {}
        for f in os.listdir(cap):
            if f.startswith('sysfs-') and f.endswith('.hex') and 'vpd_pgb' not in f:
                text = ''.join(l.split('#', 1)[0] for l in open(os.path.join(cap, f)))
                pages[f[len('sysfs-'):-len('.hex')]] = bytes.fromhex(''.join(text.split()))
        parent = 'platform/host3/session1/target3:0:0'
        put(root, 'sys/devices/platform/host3/session1/iscsi_session/session1/initiatorname',
            US + '\n')
        for lun, data, _ in CASES:
            name = 'lu%d' % lun
            shutil.copy(os.path.join(cap, 'inquiry.hex'), os.path.join(mock, name + '.inquiry.hex'))
            if data is not None:
                put(mock, name + '.prin.hex', hexfile(data))
            lu(root, '3:0:0:%d' % lun, parent=parent, vendor='LIO-ORG', model='FILEIO',
               rev='4.0', sg='sg%d' % lun, attrs=dict(pages))
            put(root, 'dev/sg%d' % lun, '%s/%s\n' % (mock, name))
        env = dict(os.environ, LD_PRELOAD=MOCK, LUND_RUN_DIR=os.path.join(tmp, 'none'),
                   # the sanitizers' runtime need not come first: the mock only interposes ioctl
                   ASAN_OPTIONS=os.environ.get('ASAN_OPTIONS', '') + ':verify_asan_link_order=0')
        r = subprocess.run([LUNCTL, '--root', root, 'list', '-o', 'HCTL,PR', '--raw'], env=env,
                           capture_output=True, text=True)
        print(r.stdout, r.stderr, sep='')
        rows = {l.split(' ', 1)[0]: l.split(' ', 1)[1] if ' ' in l else ''
                for l in r.stdout.splitlines()[1:]}
        for lun, _, want in CASES:
            got = rows.get('3:0:0:%d' % lun, '<missing>').replace('\\x20', ' ')
            if got != want:
                print('FAIL: LUN %d: %r, expected %r' % (lun, got, want))
                fail += 1
        # the table as a pipe gets it: every word, nothing cut
        r = subprocess.run([LUNCTL, '--root', root, 'list', '-o', 'HCTL,PR'], env=env,
                           capture_output=True, text=True)
        for lun, _, want in CASES:
            if not any(l.startswith('3:0:0:%d ' % lun) and l.rstrip().endswith(want)
                       for l in r.stdout.splitlines()):
                print('FAIL: table row of LUN %d is not %r:\n%s' % (lun, want, r.stdout))
                fail += 1
        r = subprocess.run([LUNCTL, '--root', root, 'list', '-o', '+PR', '--json'], env=env,
                           capture_output=True, text=True)
        pr = {d['hctl']: d.get('pr') for d in json.loads(r.stdout)['logical_units']}
        one = pr.get('3:0:0:1') or {}
        if not (one.get('keys') == 1 and one.get('holder_this_host') and one.get('type') == 'WE'
                and one.get('holder') == US and one.get('full_status')):
            print('FAIL: JSON of LUN 1: %r' % one)
            fail += 1
        two = pr.get('3:0:0:2') or {}
        if not (two.get('registered_this_host') and not two.get('holder_this_host')
                and two.get('holder') == PEER and two.get('holder_key') == 9):
            print('FAIL: JSON of LUN 2: %r' % two)
            fail += 1
        if (pr.get('3:0:0:4') or {}).get('error') != 'unsupported':
            print('FAIL: JSON of LUN 4: %r' % pr.get('3:0:0:4'))
            fail += 1
        # without the column: no PERSISTENT RESERVE IN at all (a device of garbage would say)
        r = subprocess.run([LUNCTL, '--root', root, 'list', '--json'], env=env,
                           capture_output=True, text=True)
        if any('pr' in d for d in json.loads(r.stdout)['logical_units']):
            print('FAIL: reservations read without -o PR')
            fail += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('%s: %d cases' % ('FAIL' if fail else 'PASS', len(CASES)))
    return 1 if fail else 0


sys.exit(main())
