#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LUND=... LUNCTL=... control-list-large.py [N]

`lunctl list` against a real lund holding N LUs (default 100000) on a fake sysfs tree: every
sys/bus/scsi/devices/H:C:T:L is a link to one template device (type, vendor, model, state; no
nodes, so nothing is named and no command is sent), so the tree costs N links. lund's whole
inventory is far over the socket's 16 MiB per-client limit: an unpaged "list" is written in
parts as the client reads them (another client is answered meanwhile) and holds every LU,
each once, in H:C:T:L order; lunctl, which pages, must get the same.
Exit: 0 pass, 1 fail, 77 skipped."""
import json, os, signal, socket, subprocess, sys, tempfile, shutil, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from fakesys import many_hctl, many_lus  # noqa: E402

LUND, LUNCTL = os.environ.get('LUND'), os.environ.get('LUNCTL')
if not LUND or not LUNCTL:
    print('SKIP: LUND= and LUNCTL= are needed')
    sys.exit(77)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 100000


def hctl(i):
    return many_hctl(i, N)


def make_tree(root):
    many_lus(root, N, 'PAGED')


def call(run_dir, req, timeout):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(os.path.join(run_dir, 'control'))
    s.sendall((json.dumps(req) + '\n').encode())
    buf = b''
    while b'\n' not in buf:
        k = s.recv(1 << 20)
        if not k:
            break
        buf += k
    s.close()
    return json.loads(buf.split(b'\n', 1)[0]) if buf else None


def main():
    tmp = tempfile.mkdtemp(prefix='control-list-large.')
    lund = None
    fail = []
    try:
        t0 = time.monotonic()
        root, run_dir = os.path.join(tmp, 'root'), os.path.join(tmp, 'run')
        make_tree(root)
        os.makedirs(run_dir)
        print('tree of %d LUs in %.1f s' % (N, time.monotonic() - t0))
        t0 = time.monotonic()
        lund = subprocess.Popen([LUND, '--root', root, '--run-dir', run_dir, '--no-monitor',
                                 '--sysfs-only', '--scan', 'never', '--load-modules', 'never',
                                 '--log-level', 'warning'], stderr=subprocess.PIPE)
        # Ready once it answers and no longer reads the tree (it answers while it does).
        first = None
        while first is None or first.get('resync_running') is not False:
            if lund.poll() is not None:
                raise RuntimeError('lund exited: %s' % lund.stderr.read()[-2000:])
            try:
                first = call(run_dir, {'cmd': 'queue'}, 300)
            except OSError:
                pass
            time.sleep(0.5)
        print('lund answers after %.1f s' % (time.monotonic() - t0))

        # Unpaged: far over the per-client limit, written in parts as the client reads them;
        # another client is answered while this one has not read the rest.
        t0 = time.monotonic()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(600)
        s.connect(os.path.join(run_dir, 'control'))
        s.sendall(b'{"cmd":"list","id":"big"}\n')
        chunks = [s.recv(1 << 16)]
        q = call(run_dir, {'cmd': 'queue'}, 300)
        if not q or q.get('ok') is not True:
            fail.append('no answer to queue while an unpaged list was being read: %.200r' % q)
        while chunks[-1] and not chunks[-1].endswith(b'\n'):
            chunks.append(s.recv(1 << 20))
        s.close()
        text = b''.join(chunks)
        r = json.loads(text) if text.endswith(b'\n') else None
        if not r or r.get('ok') is not True or r.get('id') != 'big':
            fail.append('an unpaged list of %d LUs: %.200r' % (N, text[-200:]))
        else:
            got = []
            for h in r['hosts']:
                for t in h['targets']:
                    for lu in t['lus']:
                        got.append(lu.get('hctl'))
                        if lu.get('hctl', '').split(':')[:3] != [str(h['host']),
                                                                 str(t['channel']),
                                                                 str(t['target'])]:
                            fail.append('LU %r listed under %d:%d:%d' %
                                        (lu.get('hctl'), h['host'], t['channel'],
                                         t['target']))
                            break
            want = ['%d:%d:%d:%d' % x for x in sorted(hctl(i) for i in range(N))]
            if got != want:
                fail.append('the unpaged list gave %d LUs (%d distinct), wanted %d in '
                            'H:C:T:L order' % (len(got), len(set(got)), N))
            print('unpaged list: %d LUs, %d bytes in %.1f s' %
                  (len(got), len(text), time.monotonic() - t0))
        # A page past the end, a bad cursor and a bad limit.
        r = call(run_dir, {'cmd': 'list', 'after': '99:0:0:0', 'limit': 10}, 300)
        if not r or r.get('ok') is not True or r.get('hosts') != [] or 'next' in r:
            fail.append('a page after the last LU: %.200r' % r)
        for bad in ({'after': 'x'}, {'limit': 0}, {'limit': 10001}, {'limit': '5'}):
            r = call(run_dir, dict(cmd='list', **bad), 300)
            if not r or r.get('error') != 'EINVAL':
                fail.append('list %r: %.200r' % (bad, r))

        t0 = time.monotonic()
        p = subprocess.run([LUNCTL, 'list', '--json'], capture_output=True,
                           env=dict(os.environ, LUND_RUN_DIR=run_dir), timeout=1200)
        took = time.monotonic() - t0
        if p.returncode != 0:
            fail.append('lunctl list exit %d: %s' % (p.returncode, p.stderr[-500:]))
        else:
            out = json.loads(p.stdout)
            got = [lu['hctl'] for lu in out['logical_units']]
            want = ['%d:%d:%d:%d' % hctl(i) for i in range(N)]
            if out.get('source') != 'lund':
                fail.append('lunctl list did not read lund: %r' % out.get('source'))
            if sorted(got) != sorted(want) or len(set(got)) != len(got):
                fail.append('lunctl list gave %d LUs (%d distinct), wanted %d' %
                            (len(got), len(set(got)), N))
            print('lunctl list --json: %d LUs in %.1f s' % (len(got), took))
        if call(run_dir, {'cmd': 'list', 'limit': 1}, 300).get('ok') is not True:
            fail.append('lund stopped answering')
        lund.send_signal(signal.SIGTERM)
        rc = lund.wait(timeout=120)
        if rc != 0:
            fail.append('lund exited %d: %s' % (rc, lund.stderr.read()[-2000:]))
        lund = None
    finally:
        if lund:
            lund.kill()
            lund.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fail:
        print('FAIL:', f)
    print('%s: %d LUs' % ('FAIL' if fail else 'PASS', N))
    return 1 if fail else 0


if __name__ == '__main__':
    sys.exit(main())
