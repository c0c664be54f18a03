#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LUND=... LUNCTL=... control-loop-slices.py [N]

lund's start-up reconciliation and resyncs of a fake sysfs tree of N LUs (default 30000; made as
control-list-large.py makes its tree) take the loop a slice at a time: while lund still reads the
tree at start-up, a request is answered (the queue says a resync runs) and SIGTERM ends lund
before it is ready; once ready, five pipelined resync requests are all answered, coalesced into
at most two more resyncs, and a request on another connection is answered while they run;
unpaged lists of every LU are written while their clients read them (unpaged_lists()).
The bounds are generous (seconds where an answer takes milliseconds): they catch a loop held for
the whole tree, not a slow machine. Exit: 0 pass, 1 fail, 77 skipped."""
import json, os, signal, socket, subprocess, sys, tempfile, shutil, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from fakesys import many_lus  # noqa: E402

LUND, LUNCTL = os.environ.get('LUND'), os.environ.get('LUNCTL')
if not LUND or not LUNCTL:
    print('SKIP: LUND= and LUNCTL= are needed')
    sys.exit(77)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 30000
# An answer or an exit this late means the loop was held (a slice takes about 10 ms).
BOUND = 5.0
# lund's idle time for clients (the default is 30 s): a client that reads none of its reply
# is closed after it.
IDLE_MS = 3000


def make_tree(root):
    many_lus(root, N, 'SLICES')


def connect(run_dir, timeout):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(os.path.join(run_dir, 'control'))
    return s


def replies(s, n):
    buf, out = b'', []
    while len(out) < n:
        k = s.recv(1 << 20)
        if not k:
            break
        buf += k
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            out.append(json.loads(line))
    return out


def call(run_dir, req, timeout):
    """The reply to @req and how long it took, None when none came within @timeout."""
    t0 = time.monotonic()
    s = connect(run_dir, timeout)
    try:
        s.sendall((json.dumps(req) + '\n').encode())
        r = replies(s, 1)
    except socket.timeout:
        r = []
    finally:
        s.close()
    return (r[0] if r else None), time.monotonic() - t0


def answered_while_reading(run_dir, during, fail):
    """A queue request answered soon, saying a resync runs."""
    q, took = call(run_dir, {'cmd': 'queue'}, 600)
    print('during %s: queue answered after %.3f s: %.200r' % (during, took, q))
    if not q or q.get('resync_running') is not True:
        fail.append('no answer during %s: %.200r' % (during, q))
    elif took > BOUND:
        fail.append('queue answered after %.1f s during %s' % (took, during))


def start(root, run_dir, log):
    return subprocess.Popen([LUND, '--root', root, '--run-dir', run_dir, '--no-monitor',
                             '--sysfs-only', '--scan', 'never', '--load-modules', 'never',
                             '--log-level', 'info'], stderr=log,
                            env=dict(os.environ, LUND_CONTROL_IDLE_TIMEOUT_MS=str(IDLE_MS)))


def served(run_dir, during, fail):
    """Another client's status request answered soon."""
    q, took = call(run_dir, {'cmd': 'status'}, 600)
    print('during %s: status answered after %.3f s' % (during, took))
    if not q or q.get('ok') is not True:
        fail.append('no answer during %s: %.200r' % (during, q))
    elif took > BOUND:
        fail.append('status answered after %.1f s during %s' % (took, during))


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        return next(int(l.split()[1]) for l in f if l.startswith('VmRSS:'))


def unpaged_lists(run_dir, pid, fail):
    """Unpaged lists are written while their clients read (lund(8), CONTROL PROTOCOL): one
    that reads nothing holds lund to a bounded backlog and is closed after the idle time; one
    that goes away mid-reply is forgotten; others are served meanwhile; a request pipelined
    behind a list is answered after it, and the list is whole."""
    rss0 = rss_kib(pid)
    stalled = connect(run_dir, 600)
    stalled.sendall(b'{"cmd":"list"}\n')
    gone = connect(run_dir, 600)
    gone.sendall(b'{"cmd":"list"}\n')
    gone.recv(1 << 16)
    gone.close()
    served(run_dir, 'a list nobody reads', fail)
    # What lund holds for the client that reads nothing: a bounded backlog (about 1 MiB), not
    # the whole reply, N * ~350 bytes of JSON and the objects it was made from (220 MiB at
    # 30,000 LUs when it was built whole). The bound leaves room for ASan's quarantine.
    grew = rss_kib(pid) - rss0
    print('lund grew by %d KiB with a list nobody reads' % grew)
    if grew > 65536:
        fail.append('lund grew by %d KiB for a list nobody reads' % grew)
    s = connect(run_dir, 600)
    s.sendall(b'{"cmd":"list","id":1}\n{"cmd":"queue","id":2}\n')
    got = replies(s, 2)
    s.close()
    ids = [r.get('id') for r in got]
    lus = [lu['hctl'] for h in got[0].get('hosts', []) for t in h['targets'] for lu in t['lus']] \
        if got else []
    print('pipelined list and queue: ids %r, %d LUs listed' % (ids, len(lus)))
    if ids != [1, 2] or not all(r.get('ok') is True for r in got):
        fail.append('a list and a queue pipelined: %.300r' % [(r.get('id'), r.get('ok'))
                                                           for r in got])
    if len(lus) != N or len(set(lus)) != N:
        fail.append('the unpaged list held %d LUs (%d distinct), wanted %d' %
                    (len(lus), len(set(lus)), N))
    # The client that never read: closed after the idle time with its reply unfinished.
    time.sleep(IDLE_MS / 1000 + 1)
    data = b''
    while True:
        try:
            k = stalled.recv(1 << 20)
        except (socket.timeout, ConnectionResetError):
            break
        if not k:
            break
        data += k
    stalled.close()
    print('a list nobody read: %d bytes before lund closed it' % len(data))
    if data.endswith(b'\n') or len(data) >= len(json.dumps(got[0] if got else {})):
        fail.append('a list nobody read was written whole (%d bytes)' % len(data))
    served(run_dir, 'the lists', fail)


def wait_socket(lund, run_dir):
    path = os.path.join(run_dir, 'control')
    while not os.path.exists(path):
        if lund.poll() is not None:
            raise RuntimeError('lund exited %d before listening' % lund.returncode)
        time.sleep(0.002)


def logged(log_path, what):
    with open(log_path, errors='replace') as f:
        return what in f.read()


def main():
    tmp = tempfile.mkdtemp(prefix='control-loop-slices.')
    lund = None
    fail = []
    try:
        root, run_dir = os.path.join(tmp, 'root'), os.path.join(tmp, 'run')
        log_path = os.path.join(tmp, 'lund.log')
        make_tree(root)
        os.makedirs(run_dir)

        # Start-up: answered while the tree is still read, stopped before ready.
        with open(log_path, 'w') as log:
            t0 = time.monotonic()
            lund = start(root, run_dir, log)
            wait_socket(lund, run_dir)
            answered_while_reading(run_dir, 'the start-up reconciliation', fail)
            t1 = time.monotonic()
            lund.send_signal(signal.SIGTERM)
            rc = lund.wait(timeout=600)
            took = time.monotonic() - t1
            lund = None
            print('start-up: SIGTERM to exit %.3f s, %.1f s after start' %
                  (took, time.monotonic() - t0))
            if rc != 0:
                fail.append('lund exited %d after SIGTERM in start-up' % rc)
            if took > BOUND:
                fail.append('SIGTERM during start-up took %.1f s' % took)
            if logged(log_path, 'Ready:'):
                fail.append('lund finished its start-up before the SIGTERM was handled')

        # Resyncs: pipelined requests answered, coalesced, others served meanwhile.
        with open(log_path, 'w') as log:
            t0 = time.monotonic()
            lund = start(root, run_dir, log)
            while not logged(log_path, 'Ready:'):
                if lund.poll() is not None or time.monotonic() - t0 > 600:
                    raise RuntimeError('lund did not get ready')
                time.sleep(0.1)
            print('ready after %.1f s' % (time.monotonic() - t0))
            st, _ = call(run_dir, {'cmd': 'status'}, 600)
            before = st.get('resyncs', 0)
            s = connect(run_dir, 600)
            t1 = time.monotonic()
            s.sendall(b''.join((json.dumps({'cmd': 'resync'}) + '\n').encode()
                               for _ in range(5)))
            got = replies(s, 5)
            took = time.monotonic() - t1
            print('5 pipelined resyncs answered in %.3f s' % took)
            if len(got) != 5 or not all(r.get('ok') is True for r in got):
                fail.append('pipelined resyncs: %d answers %.300r' % (len(got), got))
            answered_while_reading(run_dir, 'the resyncs', fail)
            s.close()
            t1 = time.monotonic()
            while True:
                q, _ = call(run_dir, {'cmd': 'queue'}, 600)
                if q and not q.get('resync_running'):
                    break
                if time.monotonic() - t1 > 600:
                    raise RuntimeError('the resyncs did not end')
                time.sleep(0.1)
            print('resyncs over after %.1f s' % (time.monotonic() - t1))
            st, _ = call(run_dir, {'cmd': 'status'}, 600)
            n = st.get('resyncs', 0) - before
            if n < 1 or n > 2:
                fail.append('5 resync requests made %d resyncs, wanted 1 or 2' % n)
            unpaged_lists(run_dir, lund.pid, fail)
            lund.send_signal(signal.SIGTERM)
            rc = lund.wait(timeout=120)
            lund = None
            if rc != 0:
                fail.append('lund exited %d' % rc)
    finally:
        if lund:
            lund.kill()
            lund.wait()
        if fail and os.path.exists(os.path.join(tmp, 'lund.log')):
            with open(os.path.join(tmp, 'lund.log'), errors='replace') as f:
                print(f.read()[-3000:])
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fail:
        print('FAIL:', f)
    print('%s: %d LUs' % ('FAIL' if fail else 'PASS', N))
    return 1 if fail else 0


if __name__ == '__main__':
    sys.exit(main())
