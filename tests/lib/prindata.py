# SPDX-License-Identifier: LGPL-2.1-or-later
"""PERSISTENT RESERVE IN data as a device sends it (SPC-4 6.16.5, 7.6.4), for the SG_IO mock's
NAME.prin.hex fixtures (tests/peer/scsi-id-mock.c):

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
    import prindata
    prindata.hexfile(prindata.full_status(prindata.desc(0x1234, True, 0x1,
                                                        prindata.tid_iscsi('iqn.x'))))
"""

import struct


def tid_iscsi(name):
    """An iSCSI TransportID of format 01b (name, ",i,0x", ISID), padded to 4, as LIO sends it."""
    b = (name + ',i,0x23d000000001').encode() + b'\0'
    n = max(20, (len(b) + 3) & ~3)
    return bytes([0x45, 0]) + struct.pack('>H', n) + b.ljust(n, b'\0')


def tid_fc(port):
    """A Fibre Channel TransportID: N_Port name @port (an integer) at bytes 8..15 of 24."""
    return bytes(8) + struct.pack('>Q', port) + bytes(8)


def desc(key, holder, typ, tid):
    """One READ FULL STATUS descriptor: @key, R_HOLDER with reservation type @typ, @tid."""
    return (struct.pack('>Q', key) + bytes(4) + bytes([1 if holder else 0, typ if holder else 0])
            + bytes(6) + struct.pack('>I', len(tid)) + tid)


def full_status(*descs, cut=0):
    """READ FULL STATUS data of @descs (PRGENERATION 1), its last @cut bytes left off."""
    body = b''.join(descs)
    data = struct.pack('>II', 1, len(body)) + body
    return data[:len(data) - cut] if cut else data


def hexfile(data):
    """@data as an annotated hex fixture."""
    return '# READ FULL STATUS\n' + ' '.join('%02x' % x for x in data) + '\n'
