"""A compiled hwdb for the busybox guests, which have no systemd-hwdb, and tests/daemon's
daemon-loop.py."""
import struct


def hwdb_bin(prefix, key, value):
    """A compiled hwdb (systemd's hwdb-internal.h layout) of one record: "PREFIX*" with the
    property KEY=VALUE, as tests/unit/check-namerule.c builds it."""
    strings = bytearray()

    def string(t):
        off = 80 + len(strings)
        strings.extend(t.encode() + b'\0')
        return off
    s_prefix, s_key, s_value, s_empty = string(prefix), string(' ' + key), string(value), string('')
    while (80 + len(strings)) % 8:
        strings.append(0)
    root = 80 + len(strings)
    leaf = root + 24 + 16
    size = leaf + 24 + 16
    head = b'KSLPHHRH' + struct.pack('<9Q', 252, size, 80, 24, 16, 16, root, size - root,
                                     root - 80)
    node_root = struct.pack('<QB7xQ', s_prefix, 1, 0) + struct.pack('<B7xQ', ord('*'), leaf)
    node_leaf = struct.pack('<QB7xQ', s_empty, 0, 1) + struct.pack('<QQ', s_key, s_value)
    return head + bytes(strings) + node_root + node_leaf
