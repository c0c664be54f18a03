#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LUND=... LUNCTL=... control-readgroup.py

lund.conf's [control] read_group against a real lund (run as root) on an empty fake tree:
the socket is 0660 in that group; lunctl run as a throwaway uid in the group (setpriv, no
account needed) gets status and list, and reload and a raw resync are refused with a readable
EPERM reply; a uid outside the group is refused at connect; a reload without the key closes the
socket again (0600). Skipped when not root.
Exit: 0 pass, 1 fail, 77 skipped."""
import json, os, signal, socket, stat, subprocess, sys, tempfile, shutil, time

LUND, LUNCTL = os.environ.get('LUND'), os.environ.get('LUNCTL')
if not LUND or not LUNCTL:
    print('SKIP: LUND= and LUNCTL= are needed')
    sys.exit(77)
if os.geteuid() != 0:
    print('SKIP: needs root (lund must run as another user than its clients)')
    sys.exit(77)
if not shutil.which('setpriv'):
    print('SKIP: no setpriv')
    sys.exit(77)

# Throwaway ids no account uses: the reader is in READ_GID by a supplementary group only,
# so SO_PEERGROUPS is what lets it in.
READER_UID, READER_GID, READ_GID, OTHER_UID = 61231, 61231, 61232, 61233


def as_user(uid, gid, groups, *argv, **kw):
    return subprocess.run(['setpriv', '--reuid=%d' % uid, '--regid=%d' % gid,
                           '--groups=%s' % ','.join(map(str, groups)) if groups
                           else '--clear-groups', '--'] + list(argv),
                          capture_output=True, text=True, timeout=60, **kw)


RAW = r'''
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
buf = b""
while not buf.endswith(b"\n"):
    d = s.recv(65536)
    if not d:
        break
    buf += d
sys.stdout.write(buf.decode())
'''

# Holds argv[2] monitoring connections, prints how many lund took ("ok") and how many it
# refused (and with what), then waits for stdin to close.
HOLD = r'''
import json, socket, sys
held, ok, refused = [], 0, []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(sys.argv[1])
    try:
        s.sendall(b'{"cmd":"monitor"}\n')
    except OSError:
        pass
    line = b''
    while not line.endswith(b'\n'):
        d = s.recv(1)
        if not d:
            break
        line += d
    r = json.loads(line or b'{}')
    if r.get('ok'):
        ok += 1
    else:
        refused.append(r.get('error'))
    held.append(s)
print(json.dumps({'ok': ok, 'refused': refused}), flush=True)
sys.stdin.read()
'''


def main():
    tmp = tempfile.mkdtemp(prefix='control-readgroup.')
    os.chmod(tmp, 0o755)
    root, run_dir, conf = (os.path.join(tmp, x) for x in ('root', 'run', 'lund.conf'))
    for d in ('sys/bus/scsi/devices', 'sys/class/scsi_host', 'dev'):
        os.makedirs(os.path.join(root, d))
    os.makedirs(run_dir)
    os.chmod(run_dir, 0o755)
    with open(conf, 'w') as f:
        f.write('[control]\nread_group = %d\n' % READ_GID)
    sock = os.path.join(run_dir, 'control')
    env = dict(os.environ, LUND_RUN_DIR=run_dir)
    fail = []
    checks = 0

    def check(what, ok, detail=''):
        nonlocal checks
        checks += 1
        if not ok:
            fail.append('%s %s' % (what, detail))

    lund = subprocess.Popen([LUND, '--root', root, '--run-dir', run_dir, '--config', conf,
                             '--no-monitor', '--scan', 'never', '--load-modules', 'never',
                             '--log-level', 'info'], stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):
            if os.path.exists(sock) and subprocess.run([LUNCTL, 'status'], env=env,
                                                       capture_output=True).returncode == 0:
                break
            if lund.poll() is not None:
                raise RuntimeError('lund exited at start')
            time.sleep(0.05)
        st = os.stat(sock)
        check('socket mode 0660', stat.S_IMODE(st.st_mode) == 0o660, oct(st.st_mode))
        check('socket group', st.st_gid == READ_GID, str(st.st_gid))

        reader = (READER_UID, READER_GID, [READ_GID])
        p = as_user(*reader, LUNCTL, 'status', env=env)
        check('a reader gets status', p.returncode == 0, p.stderr)
        p = as_user(*reader, LUNCTL, 'list', '--json', env=env)
        check('a reader gets lund\'s list', p.returncode == 0 and
              json.loads(p.stdout or '{}').get('source') == 'lund', p.stdout + p.stderr)
        p = as_user(*reader, LUNCTL, 'reload', env=env)
        check('a reader\'s reload is refused', p.returncode != 0, p.stdout)
        check('lunctl prints why', 'permission denied' in p.stderr and '"reload"' in p.stderr,
              repr(p.stderr))
        for cmd in ('resync', 'rescan', 'reload'):
            p = as_user(*reader, sys.executable, '-c', RAW, sock, json.dumps({'cmd': cmd}))
            r = json.loads(p.stdout or '{}')
            check('raw %s refused with EPERM' % cmd,
                  r.get('ok') is False and r.get('error') == 'EPERM' and
                  'read-only' in r.get('message', ''), p.stdout + p.stderr)
        p = as_user(*reader, sys.executable, '-c', RAW, sock, '{"cmd":"monitor"}')
        check('a reader may monitor', json.loads(p.stdout or '{}').get('ok') is True, p.stdout)

        # A reader holding more connections than its share cannot shut root out.
        holder = subprocess.Popen(
            ['setpriv', '--reuid=%d' % READER_UID, '--regid=%d' % READER_GID,
             '--groups=%d' % READ_GID, '--', sys.executable, '-c', HOLD, sock, '80'],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            got = json.loads(holder.stdout.readline() or '{}')
            check('a reader gets 16 connections', got.get('ok') == 16, str(got))
            check('its 17th and later are refused with EUSERS',
                  got.get('refused') == ['EUSERS'] * 64, str(got))
            p = subprocess.run([LUNCTL, 'status'], env=env, capture_output=True, text=True,
                               timeout=60)
            check('root is served while a reader holds its share', p.returncode == 0,
                  p.stderr)
            p = as_user(*reader, LUNCTL, 'status', env=env)
            check('the reader itself is refused beyond its share', p.returncode != 0,
                  p.stdout)
        finally:
            holder.stdin.close()
            holder.wait(timeout=60)

        # "names" tells a reader of LUs only, not whether a path exists or what it is.
        # (paths below lund's --root: a root-only file and directory, and a missing path)
        os.makedirs(os.path.join(root, 'etc/private'), mode=0o700)
        with open(os.path.join(root, 'etc/private/secret'), 'w') as f:
            f.write('x\n')
        answers = set()
        for path in ('/etc/private/secret', '/etc/private', '/etc/private/missing', '/etc/nothing'):
            p = as_user(*reader, sys.executable, '-c', RAW, sock,
                        json.dumps({'cmd': 'names', 'device': path}))
            r = json.loads(p.stdout or '{}')
            answers.add((r.get('ok'), r.get('error')))
        check('names: one answer for every path that is no LU', answers == {(False, 'ENODEV')},
              str(answers))

        # Outside the group: refused at connect, with a reason.
        p = as_user(OTHER_UID, OTHER_UID, [], sys.executable, '-c', RAW, sock,
                    '{"cmd":"status"}')
        check('an outsider cannot connect', p.returncode != 0 or
              json.loads(p.stdout or '{}').get('error') == 'EPERM', p.stdout + p.stderr)
        p = as_user(OTHER_UID, OTHER_UID, [], LUNCTL, 'status', env=env)
        check('an outsider\'s lunctl status fails', p.returncode != 0, p.stdout)

        # Root still does everything.
        p = subprocess.run([LUNCTL, 'reload'], env=env, capture_output=True, text=True)
        check('root reloads', p.returncode == 0, p.stderr)

        # The key gone: a reload closes the socket to the group again.
        with open(conf, 'w') as f:
            f.write('[control]\n')
        p = subprocess.run([LUNCTL, 'reload'], env=env, capture_output=True, text=True)
        st = os.stat(sock)
        check('reload without read_group: 0600',
              p.returncode == 0 and stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode))
        p = as_user(*reader, LUNCTL, 'status', env=env)
        check('the reader is shut out again', p.returncode != 0, p.stdout)

        lund.send_signal(signal.SIGTERM)
        rc = lund.wait(timeout=60)
        log = lund.stderr.read()
        check('lund exits 0', rc == 0, str(rc))
        check('the refusal is logged', 'refused "reload" from read-only client' in log, '')
        lund = None
    finally:
        if lund:
            lund.kill()
            lund.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fail:
        print('FAIL:', f)
    print('%s: %d checks, %d failed' % ('FAIL' if fail else 'PASS', checks, len(fail)))
    return 1 if fail else 0


if __name__ == '__main__':
    sys.exit(main())
