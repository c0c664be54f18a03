#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LUND=... control-hostile.py [CASE...]

Hostile clients against a real lund on an empty fake tree (--root, --run-dir): each case does
something a client may do to the control socket and checks what it is answered; then lund must
still answer a plain client and exit 0 on SIGTERM (under ASan a use-after-free or leak makes it
exit non-zero). Every limit must be answered with a JSON error and logged.
Exit: 0 pass, 1 fail, 77 skipped."""
import json, os, signal, socket, subprocess, sys, tempfile, shutil, threading, time

LUND = os.environ.get('LUND')
if not LUND:
    print('SKIP: LUND= is needed')
    sys.exit(77)


def connect(run_dir):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.path.join(run_dir, 'control'))
    return s


def first_line(run_dir, data, timeout=20):
    """@data sent on a fresh connection; the first reply line as bytes, b'' if none."""
    s = connect(run_dir)
    s.settimeout(timeout)
    s.sendall(data)
    buf = b''
    while b'\n' not in buf:
        k = s.recv(65536)
        if not k:
            break
        buf += k
    s.close()
    return buf.split(b'\n', 1)[0]


def call(run_dir, req, timeout=20):
    """One request on a fresh connection; the first reply line."""
    line = first_line(run_dir, (json.dumps(req) + '\n').encode(), timeout)
    return json.loads(line) if line else None


def lines_until_eof(s, timeout=60):
    s.settimeout(timeout)
    buf = bytearray()  # appended in place: output-cap reads 16 MiB
    while True:
        k = s.recv(1 << 20)
        if not k:
            break
        buf += k
    return [json.loads(l) for l in buf.split(b'\n') if l]


def expect_error(replies, error):
    if not replies or replies[-1].get('ok') is not False or replies[-1].get('error') != error:
        raise AssertionError('last reply %r, wanted error %s' %
                             (replies[-1] if replies else None, error))


def start(tmp, idle_ms=1500):
    root = os.path.join(tmp, 'root')
    run_dir = os.path.join(tmp, 'run')
    os.makedirs(os.path.join(root, 'sys/bus/scsi/devices'))
    os.makedirs(os.path.join(root, 'sys/class/scsi_host'))
    os.makedirs(os.path.join(root, 'dev'))
    os.makedirs(run_dir)
    lund = subprocess.Popen([LUND, '--root', root, '--run-dir', run_dir, '--no-monitor',
                             '--scan', 'never', '--load-modules', 'never',
                             '--log-level', 'warning'],
                            env=dict(os.environ, LUND_CONTROL_IDLE_TIMEOUT_MS=str(idle_ms),
                                     # freed memory is not held back: RSS is what lund keeps
                                     ASAN_OPTIONS=os.environ.get('ASAN_OPTIONS', '') +
                                     ':quarantine_size_mb=4'),
                            stderr=subprocess.PIPE)
    for _ in range(600):
        if lund.poll() is not None:
            raise RuntimeError('lund exited at start: %s' % lund.stderr.read()[-2000:])
        try:
            if call(run_dir, {'cmd': 'status'}, 5):
                return lund, run_dir
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError('lund never answered')


def stop(lund):
    lund.send_signal(signal.SIGTERM)
    try:
        _, err = lund.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        lund.kill()
        _, err = lund.communicate()
    return lund.returncode, err.decode(errors='replace')


def monitor_then(cmd):
    def case(run_dir):
        for _ in range(20):
            s = connect(run_dir)
            s.sendall(b'{"cmd":"monitor"}\n')
            s.recv(4096)  # the monitor reply
            s.sendall((json.dumps(cmd) + '\n').encode())
            # Gone at once: lund finds the peer closed while it broadcasts to monitors.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b'\1\0\0\0\0\0\0\0')
            s.close()
    return case


def monitor_and_request_together(cmd):
    """Monitor and request in one write, then close before lund reads."""
    def case(run_dir):
        for _ in range(20):
            s = connect(run_dir)
            s.sendall(b'{"cmd":"monitor"}\n' + (json.dumps(cmd) + '\n').encode())
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b'\1\0\0\0\0\0\0\0')
            s.close()
    return case


def request_too_long(run_dir):
    s = connect(run_dir)
    try:
        s.sendall(b'{"cmd":"' + b'x' * (70 * 1024))
    except OSError:
        pass  # lund may close before all of it is sent; its reply is already queued
    expect_error(lines_until_eof(s), 'EMSGSIZE')
    return 'request longer than'


def many_own_clients(run_dir):
    # lund's own user (and root) are not limited: the 80th connection is served like the
    # first (the read group's limits: control-readgroup.py).
    held = [connect(run_dir) for _ in range(80)]
    for h in (held[0], held[-1]):
        h.sendall(b'{"cmd":"status"}\n')
        if not json.loads(h.recv(65536).split(b'\n')[0]).get('ok'):
            raise AssertionError('a held client got no status')
    if not call(run_dir, {'cmd': 'status'}).get('ok'):
        raise AssertionError('the 81st connection got no status')
    for h in held:
        h.close()
    return None  # nothing to log: none was refused


def non_finite(run_dir):
    # json-c reads NaN, Infinity and 1e999; JSON has none, and lund must never echo one (its
    # "id" comes back in the reply): refused, and the reply is strict JSON.
    def strict(c):
        raise AssertionError('reply holds %s' % c)
    for lit in (b'NaN', b'Infinity', b'-Infinity', b'1e999'):
        line = first_line(run_dir, b'{"cmd":"status","id":' + lit + b'}\n')
        reply = json.loads(line, parse_constant=strict)
        if reply.get('ok') is not False or reply.get('error') != 'EINVAL':
            raise AssertionError('id %s: %r' % (lit.decode(), reply))
    if not call(run_dir, {'cmd': 'status', 'id': 1.5}).get('ok'):
        raise AssertionError('a finite id is refused')
    return None


def connect_burst(run_dir):
    # 64 clients connecting while lund's loop is busy (stopped here) wait in the listen
    # queue: none is refused.
    pid = call(run_dir, {'cmd': 'status'})['pid']
    os.kill(pid, signal.SIGSTOP)
    socks, refused = [], 0
    try:
        for _ in range(64):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect(os.path.join(run_dir, 'control'))
            except (BlockingIOError, ConnectionRefusedError):
                refused += 1
            socks.append(s)
    finally:
        os.kill(pid, signal.SIGCONT)
    for s in socks:
        s.close()
    if refused:
        raise AssertionError('%d of 64 connections refused while lund was busy' % refused)
    return None


def idle_timeout(run_dir):
    s = connect(run_dir)  # says nothing; lund runs with a 1.5 s idle timeout
    expect_error(lines_until_eof(s), 'ETIMEDOUT')
    return 'no request for too long'


def monitor_not_idle(run_dir):
    s = connect(run_dir)
    s.sendall(b'{"cmd":"monitor"}\n')
    s.recv(4096)
    # Past the idle timeout a monitor still gets events.
    time.sleep(2.5)
    call(run_dir, {'cmd': 'resync'})
    s.settimeout(20)
    ev = json.loads(s.recv(65536).split(b'\n')[0])
    if ev.get('event') != 'resync':
        raise AssertionError('monitor got %r' % ev)
    return None


def refused_lunctl(run_dir):
    """A peer lund refuses sees lund's reason from lunctl, not a broken pipe."""
    lunctl = os.environ.get('LUNCTL')
    if os.geteuid() != 0 or not lunctl or not shutil.which('setpriv'):
        print('  refused-lunctl: skipped (needs root, LUNCTL= and setpriv)')
        return None
    # As if the socket were opened to a group: the peer check must still refuse nobody.
    os.chmod(os.path.dirname(run_dir), 0o755)
    os.chmod(run_dir, 0o755)
    os.chmod(os.path.join(run_dir, 'control'), 0o666)
    r = subprocess.run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
                        lunctl, 'status'], env=dict(os.environ, LUND_RUN_DIR=run_dir),
                       capture_output=True, text=True, timeout=60)
    if r.returncode == 0 or 'permission denied' not in r.stderr or 'Broken pipe' in r.stderr:
        raise AssertionError('lunctl as nobody: exit %d, %r' % (r.returncode, r.stderr))
    return 'permission denied'


def socket_mode(run_dir):
    mode = os.stat(os.path.join(run_dir, 'control')).st_mode & 0o7777
    if mode != 0o600:
        raise AssertionError('socket mode %o, lund(8) says 0600' % mode)
    return None


def rss_kib(pid, field):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1])
    return 0


def output_cap(run_dir, lund):
    """A client that sends requests and never reads the replies: lund answers it ENOBUFS once
    16 MiB is queued for it, keeps answering others meanwhile, and its memory grows by about
    the cap, not by the 64 MiB of replies the client asked for."""
    line = b'{"cmd":"status"}\n'
    size = len(json.dumps(call(run_dir, {'cmd': 'status'}), separators=(',', ':'))) + 1
    # Enough requests for 4x the cap in replies: unbounded, lund would queue 64 MiB.
    n = 4 * 16 * 1024 * 1024 // size + 1
    before = rss_kib(lund.pid, 'VmRSS')
    t_start = time.monotonic()
    hogs, threads, errors = [], [], []

    def send(s):
        try:
            s.sendall(line * n)
        except OSError:
            pass  # refused and closed before all of it was sent: fine

    for _ in range(1):
        s = connect(run_dir)
        s.settimeout(120)
        t = threading.Thread(target=send, args=(s,), daemon=True)
        t.start()
        hogs.append(s)
        threads.append(t)
    # Others are answered while the hogs are being fed.
    for _ in range(5):
        t0 = time.monotonic()
        r = call(run_dir, {'cmd': 'status'}, 20)
        if not r or r.get('ok') is not True or time.monotonic() - t0 > 10:
            raise AssertionError('status while a client does not read: %r after %.1f s' %
                                 (r, time.monotonic() - t0))
        time.sleep(0.2)
    for t in threads:
        t.join(120)
    t_fed = time.monotonic()
    peak = rss_kib(lund.pid, 'VmHWM')
    # Both read at once: lund closes a client whose queue does not drain within its timeout.
    results = [None]

    def drain(i):
        try:
            results[i] = lines_until_eof(hogs[i], 120)
        except Exception as e:
            results[i] = e

    readers = [threading.Thread(target=drain, args=(i,), daemon=True) for i in range(len(hogs))]
    for t in readers:
        t.start()
    for t in readers:
        t.join(150)
    for replies in results:
        if not isinstance(replies, list):
            raise AssertionError('reading what a capped client was sent: %r' % replies)
        expect_error(replies, 'ENOBUFS')
        got = sum(len(json.dumps(r, separators=(',', ':'))) + 1 for r in replies)
        # lund's 16 MiB, and what the socket buffers held on top of it
        if got > 18 * 1024 * 1024:
            raise AssertionError('a client that did not read got %d bytes' % got)
    print('  output-cap: fed in %.1f s, drained in %.1f s' %
          (t_fed - t_start, time.monotonic() - t_fed))
    growth = (peak - before) // 1024
    print('  output-cap: %d requests per client, lund grew %d MiB at most' % (n, growth))
    if growth > 16 + 24:
        raise AssertionError('lund grew by %d MiB for a client capped at 16 MiB' % growth)
    return 'more than 16777216 bytes queued'


CASES = {
    'request-too-long': request_too_long,
    'many-own-clients': many_own_clients,
    'non-finite': non_finite,
    'connect-burst': connect_burst,
    'idle-timeout': idle_timeout,
    'monitor-not-idle': monitor_not_idle,
    'socket-mode': socket_mode,
    'refused-lunctl': refused_lunctl,
    'monitor-resync-close': monitor_then({'cmd': 'resync'}),
    'monitor-rescan-close': monitor_then({'cmd': 'rescan', 'progress': True}),
    'monitor-resync-oneshot': monitor_and_request_together({'cmd': 'resync'}),
    'monitor-rescan-oneshot': monitor_and_request_together({'cmd': 'rescan'}),
}
# Run by name only (meson: control-output-cap): it takes longer than the others together.
EXTRA = {'output-cap': output_cap}


def main():
    names = sys.argv[1:] or list(CASES)
    CASES.update(EXTRA)
    fail = 0
    for name in names:
        tmp = tempfile.mkdtemp()
        try:
            # output-cap: the replies must pile up to the cap, not time out first
            lund, run_dir = start(tmp, 300000 if name == 'output-cap' else 1500)
            logged = None
            try:
                case = CASES[name]
                logged = case(run_dir, lund) if case is output_cap else case(run_dir)
                reply = call(run_dir, {'cmd': 'status'})
            except Exception as e:
                reply = None
                print('  %s: %s' % (name, e))
            rc, err = stop(lund)
            ok = reply is not None and reply.get('ok') is True and rc == 0
            if ok and logged and logged not in err:
                print('  %s: lund did not log %r' % (name, logged))
                ok = False
            print('%s  %s  (status %s, exit %s)' % ('PASS' if ok else 'FAIL', name,
                                                   'answered' if reply else 'none', rc))
            if not ok:
                print('\n'.join('    ' + l for l in err.splitlines()[-25:]))
                fail = 1
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return fail


sys.exit(main())
