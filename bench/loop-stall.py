#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/loop-stall.py LUND [N]

How long lund's loop is held on a fake sysfs tree of N LUs (default 100000; the tree of
tests/daemon/control-loop-slices.py, made in a temporary directory or reused from
$LUND_BENCH_ROOT, which it is made in when that has none): a client asks
{"cmd":"queue"} every 20 ms from start-up to the end and the longest wait for an answer is the
longest stall; start-up time ("Ready:"), a resync asked by request (until the queue says none
runs; the request's own answer time beside it), an unpaged list of every LU read as fast as a
client can (its time, and lund's VmHWM after it), and how long SIGTERM 1 s into start-up takes
to end lund. Host only; prints figures, asserts nothing."""
import importlib.util
import os
import shutil
import signal
import sys
import tempfile
import threading
import time


if len(sys.argv) < 2:
    sys.exit(__doc__)
os.environ['LUND'] = sys.argv[1]
os.environ.setdefault('LUNCTL', 'unused')
sys.argv = [sys.argv[0], sys.argv[2] if len(sys.argv) > 2 else '100000']

spec = importlib.util.spec_from_file_location(
    'slices', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'daemon',
                           'control-loop-slices.py'))
t = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t)


class Prober(threading.Thread):
    def __init__(self, run_dir):
        super().__init__(daemon=True)
        self.run_dir, self.worst, self.stop, self.last = run_dir, 0.0, False, None

    def run(self):
        while not self.stop:
            try:
                q, took = t.call(self.run_dir, {'cmd': 'queue'}, 600)
                self.worst, self.last = max(self.worst, took), q
            except OSError:
                pass
            time.sleep(0.02)


def main():
    tmp = tempfile.mkdtemp(prefix='loop-stall.')
    root = os.environ.get('LUND_BENCH_ROOT') or os.path.join(tmp, 'root')
    try:
        if not os.path.exists(os.path.join(root, 'sys')):
            t0 = time.monotonic()
            t.make_tree(root)
            print('tree of %d LUs in %.1f s' % (t.N, time.monotonic() - t0))
        run_dir, log_path = os.path.join(tmp, 'run'), os.path.join(tmp, 'lund.log')
        os.makedirs(run_dir, exist_ok=True)
        with open(log_path, 'w') as log:
            t0 = time.monotonic()
            lund = t.start(root, run_dir, log)
            t.wait_socket(lund, run_dir)
            p = Prober(run_dir)
            p.start()
            while not t.logged(log_path, 'Ready:'):
                time.sleep(0.05)
            ready = time.monotonic() - t0
            startup_worst = p.worst
            p.worst = 0.0
            t1 = time.monotonic()
            r, answered = t.call(run_dir, {'cmd': 'resync'}, 600)
            while True:
                q, _ = t.call(run_dir, {'cmd': 'queue'}, 600)
                if q and not q.get('resync_running'):
                    break
                time.sleep(0.05)
            resync = time.monotonic() - t1
            resync_worst = p.worst
            # an unpaged list of every LU, read as fast as this client can
            p.worst = 0.0
            t1 = time.monotonic()
            s = t.connect(run_dir, 600)
            s.sendall(b'{"cmd":"list"}\n')
            got = b''
            while not got.endswith(b'\n'):
                k = s.recv(1 << 20)
                if not k:
                    break
                got += k
            s.close()
            listed = time.monotonic() - t1
            p.stop = True
            p.join()
            with open('/proc/%d/status' % lund.pid) as f:
                hwm = next(int(l.split()[1]) for l in f if l.startswith('VmHWM:'))
            print('%d LUs: ready after %.1f s (longest wait for an answer %.2f s); resync %.1f s '
                  '(request answered in %.2f s, longest wait %.2f s)' %
                  (t.N, ready, startup_worst, resync, answered, resync_worst))
            print('unpaged list: %d bytes%s in %.1f s (longest wait %.2f s); lund\'s VmHWM '
                  'after it %.0f MiB' % (len(got), ' (refused)' if b'"ok":false' in got[:200]
                                         else '', listed, p.worst, hwm / 1024))
            lund.send_signal(signal.SIGTERM)
            lund.wait()
        shutil.rmtree(run_dir)
        os.makedirs(run_dir)
        with open(log_path, 'w') as log:
            lund = t.start(root, run_dir, log)
            t.wait_socket(lund, run_dir)
            time.sleep(1)
            t1 = time.monotonic()
            lund.send_signal(signal.SIGTERM)
            lund.wait()
            print('SIGTERM 1 s into start-up: exit after %.2f s%s' %
                  (time.monotonic() - t1,
                   ' (after "Ready:")' if t.logged(log_path, 'Ready:') else ''))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
