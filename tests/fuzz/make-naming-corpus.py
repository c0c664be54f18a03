#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the seed corpus of fuzz-naming (corpus/naming/) from the fixtures: every modelled page
set in tests/fixtures/vpd and every captured device in tests/fixtures/captured, in the input
form fuzz-naming.c describes, with flags chosen per seed; then a few hostile ones built here.
Run: python3 tests/fuzz/make-naming-corpus.py"""
import os, struct

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, '..', 'fixtures')
OUT = os.path.join(HERE, 'corpus', 'naming')
KINDS = ('inquiry', 'pg00', 'pg80', 'pg83', 'pg89')

def hexbytes(path):
    text = ''.join(l.split('#', 1)[0] for l in open(path, encoding='latin-1'))
    return bytes.fromhex(''.join(text.split()))

def seed(flags, level, pages):
    head = bytes([flags, level])
    body = b''
    for k in KINDS:
        p = pages.get(k)
        p = p[:0xfffe] if p is not None else None  # 0xffff means absent
        head += struct.pack('>H', 0xffff if p is None else len(p))
        body += p or b''
    return head + body

def write(name, data):
    open(os.path.join(OUT, name), 'wb').write(data)

os.makedirs(OUT, exist_ok=True)
vpd = os.path.join(FIX, 'vpd')
for f in sorted(os.listdir(vpd)):
    if not f.endswith('.inquiry.hex'):
        continue
    n = f[:-len('.inquiry.hex')]
    pages = {k: hexbytes(os.path.join(vpd, '%s.%s.hex' % (n, k)))
             for k in KINDS if os.path.exists(os.path.join(vpd, '%s.%s.hex' % (n, k)))}
    write('vpd-' + n, seed(1 | 4, 6, pages))
cap = os.path.join(FIX, 'captured')
for d in sorted(os.listdir(cap)):
    src = os.path.join(cap, d)
    if not os.path.isdir(src):
        continue
    pages = {k: hexbytes(os.path.join(src, k + '.hex'))
             for k in KINDS if os.path.exists(os.path.join(src, k + '.hex'))}
    write('captured-' + d, seed(4 | (2 if pages['inquiry'][0] & 0x1f == 5 else 0), 6, pages))

INQ = bytes([0, 0, 5, 2, 31, 0, 0, 2]) + b'VENDOR  ' + b'PRODUCT         ' + b'1.0 '
def desig(code_set, assoc, typ, value):
    return bytes([code_set, assoc << 4 | typ, 0, len(value)]) + value
def page(code, body):
    return bytes([0, code]) + struct.pack('>H', len(body)) + body
# A line feed in every string a device gives: vendor, page 0x80 serial, T10 and name designators.
write('hostile-lf', seed(1 | 4, 6, {
    'inquiry': INQ[:8] + b'VE\nDOR  ' + b'PROD\nCT         ' + b'1\n0 ',
    'pg80': page(0x80, b'SER\nID=x'),
    'pg83': page(0x83, desig(2, 0, 1, b'VENDOR  SER\nID_SERIAL=evil')
                 + desig(3, 0, 8, b'iqn.x\nID_BUS=usb\0\0\0'))}))
# A 255-byte vendor-specific designator of '.' and '/': names past NAME_MAX once escaped.
write('hostile-overlong', seed(1 | 4, 6, {
    'inquiry': INQ, 'pg83': page(0x83, desig(2, 0, 0, b'./' * 127 + b'.'))}))
# Zero-length designators of every type before an NAA one.
write('hostile-zero-len', seed(1 | 4, 6, {
    'inquiry': INQ, 'pg00': page(0, bytes([0, 0x80, 0x83])),
    'pg83': page(0x83, b''.join(desig(1, 0, t, b'') for t in range(10))
                 + desig(1, 0, 3, bytes.fromhex('5000c50015ea71a0')))}))
# ".." as the whole serial, and page 0x00 rejected (absent, not inferred).
write('hostile-dotdot', seed(4, 6, {'inquiry': b'', 'pg80': page(0x80, b'..')}))
write('hostile-dotdot-inferred', seed(1, 6, {'inquiry': INQ, 'pg80': page(0x80, b'..')}))
print(len(os.listdir(OUT)), 'seeds')
