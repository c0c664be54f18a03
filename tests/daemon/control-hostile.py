#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LUND=... control-hostile.py [CASE...]

Hostile clients against a real lund on an empty fake tree (--root, --run-dir): each case does
something a client may do to the control socket and checks what it is answered; then lund must
still answer a plain client and exit 0 on SIGTERM (under ASan a use-after-free or leak makes it
exit non-zero). Every limit must be answered with a JSON error and logged.
Exit: 0 pass, 1 fail, 77 skipped."""
import json, os, signal, socket, subprocess, sys, tempfile, shutil, time

LUND = os.environ.get('LUND')
if not LUND:
    print('SKIP: LUND= is needed')
    sys.exit(77)


def connect(run_dir):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.path.join(run_dir, 'control'))
    return s


def call(run_dir, req, timeout=20):
    """One request on a fresh connection; the first reply line."""
    s = connect(run_dir)
    s.settimeout(timeout)
    s.sendall((json.dumps(req) + '\n').encode())
    buf = b''
    while b'\n' not in buf:
        k = s.recv(65536)
        if not k:
            break
        buf += k
    s.close()
    return json.loads(buf.split(b'\n', 1)[0]) if buf else None


def lines_until_eof(s, timeout=60):
    s.settimeout(timeout)
    buf = b''
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


def start(tmp):
    root = os.path.join(tmp, 'root')
    run_dir = os.path.join(tmp, 'run')
    os.makedirs(os.path.join(root, 'sys/bus/scsi/devices'))
    os.makedirs(os.path.join(root, 'sys/class/scsi_host'))
    os.makedirs(os.path.join(root, 'dev'))
    os.makedirs(run_dir)
    lund = subprocess.Popen([LUND, '--root', root, '--run-dir', run_dir, '--no-monitor',
                             '--scan', 'never', '--load-modules', 'never',
                             '--log-level', 'warning'],
                            env=dict(os.environ, LUND_CONTROL_IDLE_TIMEOUT_MS='1500'),
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


def too_many_clients(run_dir):
    held = [connect(run_dir) for _ in range(64)]
    # Each held one is accepted: it answers status.
    for h in held[:2]:
        h.sendall(b'{"cmd":"status"}\n')
        if not json.loads(h.recv(65536).split(b'\n')[0]).get('ok'):
            raise AssertionError('a held client got no status')
    extra = connect(run_dir)
    expect_error(lines_until_eof(extra), 'EUSERS')
    for h in held:
        h.close()
    # Slots come back as lund sees the hang-ups.
    for _ in range(200):
        if call(run_dir, {'cmd': 'status'}).get('ok'):
            break
        time.sleep(0.05)
    return 'too many clients'


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


CASES = {
    'request-too-long': request_too_long,
    'too-many-clients': too_many_clients,
    'idle-timeout': idle_timeout,
    'monitor-not-idle': monitor_not_idle,
    'socket-mode': socket_mode,
    'refused-lunctl': refused_lunctl,
    'monitor-resync-close': monitor_then({'cmd': 'resync'}),
    'monitor-rescan-close': monitor_then({'cmd': 'rescan', 'progress': True}),
    'monitor-resync-oneshot': monitor_and_request_together({'cmd': 'resync'}),
    'monitor-rescan-oneshot': monitor_and_request_together({'cmd': 'rescan'}),
}


def main():
    names = sys.argv[1:] or list(CASES)
    fail = 0
    for name in names:
        tmp = tempfile.mkdtemp()
        try:
            lund, run_dir = start(tmp)
            logged = None
            try:
                logged = CASES[name](run_dir)
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
