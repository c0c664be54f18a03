#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
lund's event loop, signals, reload and single instance, on fake sysfs trees (lund --root).

  daemon-loop.py LUND stuck-scan   the host's "scan" attribute is a FIFO nobody reads, so the
                                   scan thread's write blocks in open() as a kernel scan of dead
                                   targets does; meanwhile a rescan request queues behind it,
                                   status is answered and shows the queue, WATCHDOG=1 keeps
                                   coming, and SIGTERM answers the waiting client and ends lund
                                   after its shutdown grace with status 75, naming the stuck scan.
  daemon-loop.py LUND rescan-waits `lunctl rescan` during a hung host scan waits in lund's queue
                                   (`lunctl status` shows it) and succeeds once the kernel's
                                   write returns.
  daemon-loop.py LUND rescan-running a rescan request whose own scan hangs: status and other
                                   clients are answered meanwhile, a second request queues, a
                                   client that disconnects mid-scan or while queued costs
                                   nothing, and each remaining client gets its reply (with its
                                   id) when the kernel's write returns.
  daemon-loop.py LUND signals      SIGPIPE, SIGUSR1 and SIGUSR2 do not end lund.
  daemon-loop.py LUND reload       SIGHUP and {"cmd":"reload"} re-read lund.conf and re-apply the
                                   policy; a file that cannot be parsed keeps the old one.
  daemon-loop.py LUND by-path      on a PCI virtio-scsi tree: /dev/scsi/by-path for a disk and
                                   an enclosure (sg only), /dev/disk/by-path for the disk and
                                   its partition with --manage-disk-links, udev's names; gone
                                   with the LU after a resync.
  daemon-loop.py LUND transport   lund.conf's transport timeouts reach the iSCSI session and the
                                   FC remote port above each LU, from a worker: with the
                                   session's recovery_tmo a FIFO that nobody serves, status is
                                   still answered and the remote port is set; once the "kernel"
                                   answers, 120 becomes 5. `lunctl policy` shows and sets them.
  daemon-loop.py LUND clones       two USB sticks with one serial on two ports of a fake xHCI
                                   tree: their shared by-id name is quarantined; an hwdb entry
                                   for their VID:PID (LUND_NAME_IDENTITY=serial-path, loaded by
                                   a reload) gives each a /dev/scsi/by-id name of its serial
                                   plus its path, while /dev/disk/by-id stays udev's (still
                                   quarantined); `lunctl names --why` says which rule made it.
  daemon-loop.py LUND rename      an hwdb update renames a USB stick (serial-path): `lunctl
                                   names --diff --hwdb` previews it before it is installed; after
                                   the reload the new name is linked and the old one is not kept
                                   (no alias for a device whose identity may be another medium's),
                                   --diff says so until `--accept`.
  daemon-loop.py LUND exclusions   lund.conf's [exclude] and [exception] sections: an excluded
                                   LU gets no links and no policy while the others do, one
                                   excluded with names = yes gets links only, an exception wins;
                                   list marks each with its rule; a reload moves the links.
  daemon-loop.py LUND react       lund.conf's [react] sections through lund's scans (REPORT LUNS
                                   from the SG_IO mock, $LUND_MOCK): luns = add keeps the LU a
                                   target no longer reports and adds the new one, capacity =
                                   report writes nothing; `lunctl rescan --dry-run --config NEW`
                                   previews a changed policy, a reload applies it.
  daemon-loop.py LUND lock         a second lund on the same run dir exits 1 naming the first's
                                   PID; the first keeps its socket.
  daemon-loop.py LUND state        an LU lund finds offline (a resync reads its state) is shown
                                   in status' not_running; once sysfs says running again lund
                                   notices by itself within a few seconds (the kernel sends no
                                   event for that), logs it once and lists it running.
  daemon-loop.py LUND state-poll   a stock kernel's running LU (ioerr_cnt/iotmo_cnt polled) that
                                   the kernel offlines without a uevent: the error counters'
                                   round reads its state too, so list and status show it
                                   offline within a round or two (5 s each), running again after.
  daemon-loop.py LUND identify-hang LUs the kernel cached too little of are identified with
                                   SG_IO (answered by tests/peer/scsi-id-mock.c, $LUND_MOCK) off
                                   the loop: one device never answers, another answers only after
                                   its LU was removed; meanwhile status, names and list answer and
                                   show the first pending without names, WATCHDOG=1 keeps coming,
                                   the other LUs are named, readiness waits for the pending ones,
                                   the removed LU's late result is dropped, and SIGTERM ends lund
                                   after its shutdown grace with status 75.
"""

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

# the compiled one-record hwdb the VM scenarios hand to their busybox guests
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'vm', 'lib'))
from hwdb_bin import hwdb_bin  # noqa: E402
# the fake sysfs trees every script builds (tests/README.md)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from fakesys import device, inquiry, lu, put  # noqa: E402
import prindata  # noqa: E402

LUND = sys.argv[1]
CASE = sys.argv[2]
LUNCTL = os.environ.get('LUNCTL')


class Lund:
    def __init__(self, tmp, root, run_dir, args=(), env=None, sysfs_only=True):
        self.log = open(os.path.join(tmp, 'lund-%d.log' % time.monotonic_ns()), 'w+')
        self.p = subprocess.Popen([LUND, '--root', root, '--run-dir', run_dir, '--no-monitor',
                                   '--load-modules', 'never'] +
                                  (['--sysfs-only'] if sysfs_only else []) +
                                  ['--log-level', 'debug'] + list(args),
                                  env=dict(os.environ, **(env or {})),
                                  stdout=self.log, stderr=subprocess.STDOUT)
        self.run_dir = run_dir

    def text(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def wait_socket(self, seconds=60):
        for _ in range(seconds * 10):
            if self.p.poll() is not None:
                raise RuntimeError('lund exited %d:\n%s' % (self.p.returncode, self.text()))
            try:
                return request(self.run_dir, {'cmd': 'status'}, 2)
            except OSError:
                time.sleep(0.1)
        raise RuntimeError('no control socket:\n' + self.text())

    def wait_log(self, needle, seconds=30):
        for _ in range(seconds * 10):
            if needle in self.text():
                return True
            time.sleep(0.1)
        return False

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(60)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def connect(run_dir, timeout):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(os.path.join(run_dir, 'control'))
    return s


def read_reply(s):
    buf = b''
    while not buf.endswith(b'\n'):
        k = s.recv(65536)
        if not k:
            raise ConnectionError('closed without a reply')
        buf += k
    return json.loads(buf.split(b'\n')[0])


def request(run_dir, req, timeout):
    with connect(run_dir, timeout) as s:
        s.sendall((json.dumps(req) + '\n').encode())
        return read_reply(s)


failures = []


def check(cond, what):
    print('%s: %s' % ('ok' if cond else 'FAIL', what))
    if not cond:
        failures.append(what)


def case_stuck_scan(tmp):
    root = os.path.join(tmp, 'root')
    put(root, 'sys/class/scsi_host/host0/proc_name', 'fake\n')
    os.mkfifo(os.path.join(root, 'sys/class/scsi_host/host0/scan'))
    notify_path = os.path.join(tmp, 'notify')
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(0.2)
    watchdog_usec = 6000000
    lund = Lund(tmp, root, os.path.join(tmp, 'run'), ['--scan', 'always'],
                {'NOTIFY_SOCKET': notify_path, 'WATCHDOG_USEC': str(watchdog_usec)})
    try:
        lund.wait_socket()
        check(lund.wait_log('Scanning every host'), 'the start-up scan started')
        # A rescan asked for while the host scan hangs in the kernel: it waits in the queue.
        waiting = connect(lund.run_dir, 60)
        waiting.sendall(b'{"cmd":"rescan","id":7}\n')
        check(lund.wait_log('queued behind'), 'the rescan request is queued behind the scan')
        try:
            st = request(lund.run_dir, {'cmd': 'status'}, 10)
            hs = st['host_scan']
            check(st.get('ok', True) is not False and hs['running'] and
                  hs['current']['reason'] == 'start-up' and len(hs['queue']) == 1 and
                  hs['queue'][0]['client'] and
                  hs['queue'][0]['reason'].startswith('request from pid'),
                  'status is answered while a scan hangs, and shows it and the queue: %s' %
                  {k: hs.get(k) for k in ('current', 'queue')})
        except (OSError, ValueError, KeyError, TypeError) as e:
            check(False, 'status is answered while a scan hangs (%s)' % e)
        # The watchdog keeps being pinged: over a window of three watchdog periods no gap
        # reaches the period (systemd's kill condition).
        pings, end = [], time.monotonic() + 3 * watchdog_usec / 1e6
        while time.monotonic() < end:
            try:
                msg = notify.recv(4096).decode()
            except socket.timeout:
                continue
            if 'WATCHDOG=1' in msg.split('\n'):
                pings.append(time.monotonic())
        gaps = [b - a for a, b in zip(pings, pings[1:])]
        check(len(pings) >= 3 and max(gaps) < watchdog_usec / 1e6,
              'WATCHDOG=1 keeps coming during the hung scan (%d pings, largest gap %.1f s)' %
              (len(pings), max(gaps) if gaps else -1))
        t0 = time.monotonic()
        lund.p.send_signal(signal.SIGTERM)
        try:
            r = read_reply(waiting)
            check(r.get('ok') is False and r.get('error') == 'ESHUTDOWN' and r.get('id') == 7,
                  'the waiting client is told lund stops: %s' % r)
        except (OSError, ValueError) as e:
            check(False, 'the waiting client is answered at SIGTERM (%s)' % e)
        waiting.close()
        try:
            rc = lund.p.wait(30)
            check(rc == 75, 'SIGTERM ends lund after the grace despite the hung scan '
                  '(exit %d, 75 wanted, after %.1f s)' % (rc, time.monotonic() - t0))
            check('stuck in the kernel after the 5 s shutdown grace: "start-up, every host"'
                  in lund.text(), 'the stuck scan is named in the log')
        except subprocess.TimeoutExpired:
            check(False, 'SIGTERM ends lund despite the hung scan (still running after 30 s)')
    finally:
        lund.stop()
        # Release anything still blocked on the FIFO.
        try:
            fd = os.open(os.path.join(root, 'sys/class/scsi_host/host0/scan'),
                         os.O_RDONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass
        notify.close()


def case_rescan_waits(tmp):
    root = os.path.join(tmp, 'root')
    put(root, 'sys/class/scsi_host/host0/proc_name', 'fake\n')
    fifo = os.path.join(root, 'sys/class/scsi_host/host0/scan')
    os.mkfifo(fifo)
    lund = Lund(tmp, root, os.path.join(tmp, 'run'), ['--scan', 'always'])
    rescan = None
    try:
        lund.wait_socket()
        check(lund.wait_log('Scanning every host'), 'the start-up scan started')
        rescan = subprocess.Popen([LUNCTL, 'rescan', '0'],
                                  env=dict(os.environ, LUND_RUN_DIR=lund.run_dir),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(lund.wait_log('queued behind "start-up"'), 'lund queues it behind the scan')
        check(rescan.poll() is None, 'lunctl rescan waits for the running scan')
        st = request(lund.run_dir, {'cmd': 'status'}, 10)
        check(st['host_scan']['running'] and len(st['host_scan']['queue']) == 1,
              'status shows the running scan and the request queued')
        out = subprocess.run([LUNCTL, 'status'], env=dict(os.environ, LUND_RUN_DIR=lund.run_dir),
                             capture_output=True, text=True, timeout=30).stdout
        check('running: start-up (every host)' in out and 'queued:  request from pid %d (0)' %
              rescan.pid in out, 'lunctl status shows the queue:\n%s' % out)
        check('refused' not in lund.text(), 'nothing was refused')

        release_fifo(fifo)
        try:
            out = rescan.communicate(timeout=60)[0]
            check(rescan.returncode == 0, 'lunctl rescan succeeds after the scan (exit %d: %s)' %
                  (rescan.returncode, out.strip()[-300:]))
        except subprocess.TimeoutExpired:
            check(False, 'lunctl rescan ends after the scan (still running after 60 s)')
    finally:
        if rescan and rescan.poll() is None:
            rescan.kill()
            rescan.wait()
        lund.stop()


def release_fifo(fifo):
    """The kernel lets go: every write to the scan attribute returns from now on.

    The FIFO is held open for reading and writing at once: a reader that closed on each
    writer's EOF and opened again left a gap in which the next writer's open succeeded and
    its write then failed with EPIPE (seen under load as "failed host0: Broken pipe")."""
    import threading

    def drain():
        fd = os.open(fifo, os.O_RDWR)
        while os.read(fd, 4096):
            pass
    threading.Thread(target=drain, daemon=True).start()


def case_rescan_running(tmp):
    root = os.path.join(tmp, 'root')
    put(root, 'sys/class/scsi_host/host0/proc_name', 'fake\n')
    fifo = os.path.join(root, 'sys/class/scsi_host/host0/scan')
    os.mkfifo(fifo)
    lund = Lund(tmp, root, os.path.join(tmp, 'run'), ['--scan', 'never'])
    try:
        lund.wait_socket()
        first = connect(lund.run_dir, 60)
        first.sendall(b'{"cmd":"rescan","selectors":["0"],"id":"first"}\n')
        # Its scan hangs in the write to host0/scan; the loop answers everyone else.
        t0 = time.monotonic()
        try:
            st = request(lund.run_dir, {'cmd': 'status'}, 10)
            cur = st['host_scan']['current']
            check(cur is not None and cur['client'] and cur['selectors'] == ['0'],
                  'status is answered while a rescan request runs, and shows it (%.1f s): %s' %
                  (time.monotonic() - t0, cur))
        except (OSError, ValueError, KeyError, TypeError) as e:
            check(False, 'status is answered while a rescan request runs (%s)' % e)
        try:
            r = request(lund.run_dir, {'cmd': 'list'}, 10)
            check(r.get('ok') is True, 'list is answered while a rescan request runs')
        except (OSError, ValueError) as e:
            check(False, 'list is answered while a rescan request runs (%s)' % e)
        # A second request queues; a third client asks and disconnects while queued; a
        # fourth shuts down its sending side and still gets its reply.
        second = connect(lund.run_dir, 60)
        second.sendall(b'{"cmd":"rescan","selectors":["0"],"dry_run":true,"id":2}\n')
        gone = connect(lund.run_dir, 60)
        gone.sendall(b'{"cmd":"rescan","selectors":["0"]}\n')
        half = connect(lund.run_dir, 60)
        half.sendall(b'{"cmd":"rescan","selectors":["0"],"dry_run":true,"id":4}\n')
        half.shutdown(socket.SHUT_WR)
        for _ in range(100):
            st = request(lund.run_dir, {'cmd': 'status'}, 10)
            if len(st['host_scan']['queue']) == 3:
                break
            time.sleep(0.1)
        check(len(st['host_scan']['queue']) == 3, 'three requests queued behind it (%d)' %
              len(st['host_scan']['queue']))
        gone.close()
        # The requester of the running scan goes away too, mid-scan.
        first.close()
        time.sleep(0.5)
        check(lund.p.poll() is None, 'clients gone mid-scan and while queued cost nothing')
        release_fifo(fifo)
        for sock, rid in ((second, 2), (half, 4)):
            try:
                r = read_reply(sock)
                check(r.get('ok') is True and r.get('id') == rid and 'result' in r,
                      'request %s gets its reply when its scan ends: %s' %
                      (rid, json.dumps(r)[:200]))
            except (OSError, ValueError) as e:
                check(False, 'request %s gets its reply (%s)' % (rid, e))
            sock.close()
        check(lund.wait_log('dropped: its client went away'),
              'the request of the client that left is dropped unrun')
        st = request(lund.run_dir, {'cmd': 'status'}, 10)
        check(st['host_scan']['current'] is None and st['host_scan']['queue'] == [],
              'the queue is empty afterwards')
        r = request(lund.run_dir, {'cmd': 'rescan', 'selectors': ['0']}, 60)
        check(r.get('ok') is True, 'a later rescan request is answered at once: %s' %
              json.dumps(r)[:200])
    finally:
        lund.stop()
    check(lund.p.returncode == 0, 'SIGTERM ends lund cleanly (exit %d)' % lund.p.returncode)


def case_signals(tmp):
    root = os.path.join(tmp, 'root')
    lu(root, '0:0:0:0', attrs={'timeout': '30'})
    lund = Lund(tmp, root, os.path.join(tmp, 'run'), ['--scan', 'never'])
    try:
        lund.wait_socket()
        for sig in (signal.SIGPIPE, signal.SIGUSR1, signal.SIGUSR2):
            lund.p.send_signal(sig)
            try:
                request(lund.run_dir, {'cmd': 'status'}, 10)
                alive = lund.p.poll() is None
            except OSError:
                alive = False
            check(alive, '%s does not end lund' % sig.name)
    finally:
        lund.stop()
    check(lund.p.returncode == 0, 'SIGTERM afterwards ends lund cleanly (exit %d)' %
          lund.p.returncode)


def case_reload(tmp):
    root = os.path.join(tmp, 'root')
    lu(root, '0:0:0:0', attrs={'timeout': '30'})
    timeout = os.path.join(root, 'sys/bus/scsi/devices/0:0:0:0/timeout')
    conf = os.path.join(tmp, 'lund.conf')
    with open(conf, 'w') as f:
        f.write('[defaults]\ntimeout = 40\n')
    lund = Lund(tmp, root, os.path.join(tmp, 'run'),
                ['--scan', 'never', '--config', conf, '--hwdb', '/nonexistent/hwdb.bin'])
    try:
        lund.wait_socket()
        check(open(timeout).read().strip() == '40', 'the start-up policy applies (timeout 40)')
        # A file that cannot be parsed: the old configuration stays, and lund says why.
        with open(conf, 'w') as f:
            f.write('[defaults]\ntimeout = 50\n[device\n')
        lund.p.send_signal(signal.SIGHUP)
        check(lund.wait_log('keeping the old configuration'),
              'SIGHUP with a broken lund.conf keeps the old one and says so')
        st = request(lund.run_dir, {'cmd': 'status'}, 10)
        check(st['reloads'] == 0 and lund.p.poll() is None, 'nothing was reloaded, lund runs')
        check(open(timeout).read().strip() == '40', 'the old policy stays (timeout 40)')
        # A good file, by signal and then by request.
        with open(conf, 'w') as f:
            f.write('[defaults]\ntimeout = 60\n')
        lund.p.send_signal(signal.SIGHUP)
        check(lund.wait_log('Reloaded the configuration (SIGHUP)'), 'SIGHUP reloads')
        check(open(timeout).read().strip() == '60', 'the new policy is applied (timeout 60)')
        with open(conf, 'w') as f:
            f.write('[defaults]\ntimeout = 70\n')
        r = request(lund.run_dir, {'cmd': 'reload'}, 30)
        check(r.get('ok') is True, 'the reload request is answered ok: %s' % r)
        check(open(timeout).read().strip() == '70', 'the reload request re-applies (timeout 70)')
        st = request(lund.run_dir, {'cmd': 'status'}, 10)
        check(st['reloads'] == 2, 'status counts two reloads (%s)' % st['reloads'])
        if LUNCTL:
            env = dict(os.environ, LUND_RUN_DIR=lund.run_dir)
            with open(conf, 'w') as f:
                f.write('[defaults]\ntimeout = 80\n')
            r = subprocess.run([LUNCTL, 'reload'], env=env, capture_output=True, text=True)
            check(r.returncode == 0 and 'reloaded' in r.stdout and
                  open(timeout).read().strip() == '80',
                  'lunctl reload reloads (exit %d: %s%s)' % (r.returncode, r.stdout, r.stderr))
            with open(conf, 'w') as f:
                f.write('[defaults\n')
            r = subprocess.run([LUNCTL, 'reload'], env=env, capture_output=True, text=True)
            check(r.returncode != 0 and conf + ':1: cannot parse' in r.stderr and
                  open(timeout).read().strip() == '80',
                  'lunctl reload of a broken file fails and says where (exit %d: %s)' %
                  (r.returncode, r.stderr.strip()))
            # What lund ignores of a file it applies comes back, in check-config's words.
            with open(conf, 'w') as f:
                f.write('[defaults]\ntimeout = 90\nmax_retries = 10\nfrobnicate = 1\n')
            cc = subprocess.run([LUNCTL, 'check-config', conf], capture_output=True, text=True)
            r = subprocess.run([LUNCTL, 'reload'], env=env, capture_output=True, text=True)
            check(r.returncode == 0 and open(timeout).read().strip() == '90' and
                  r.stdout.startswith('lund reloaded its configuration, 2 problems ignored:\n') and
                  r.stdout.splitlines()[1:] == cc.stdout.splitlines() and
                  cc.stdout.count(conf + ':') == 2,
                  'lunctl reload says what lund ignored, as check-config does (exit %d: %s%s; '
                  'check-config: %s)' % (r.returncode, r.stdout, r.stderr, cc.stdout))
            r = subprocess.run([LUNCTL, 'reload', '--strict'], env=env, capture_output=True,
                               text=True)
            check(r.returncode == 3 and '2 problems ignored' in r.stdout,
                  'lunctl reload --strict fails on them (exit %d)' % r.returncode)
            r = subprocess.run([LUNCTL, 'reload', '--json'], env=env, capture_output=True,
                               text=True)
            check(r.returncode == 0 and
                  [p['line'] for p in json.loads(r.stdout).get('problems', [])] == [3, 4],
                  'lunctl reload --json gives them with their lines: %s' % r.stdout)
    finally:
        lund.stop()


def case_state(tmp):
    root = os.path.join(tmp, 'root')
    for h in ('0:0:0:0', '0:0:0:1'):
        lu(root, h, attrs={'timeout': '30', 'state': 'running'})
    lund = Lund(tmp, root, os.path.join(tmp, 'run'),
                ['--scan', 'never', '--hwdb', '/nonexistent/hwdb.bin'])

    def states():
        r = request(lund.run_dir, {'cmd': 'list'}, 10)
        return {lu['hctl']: lu['state'] for h in r['hosts'] for t in h['targets']
                for lu in t['lus']}

    try:
        lund.wait_socket()
        check(states() == {'0:0:0:0': 'running', '0:0:0:1': 'running'}, 'both LUs running')
        check(request(lund.run_dir, {'cmd': 'status'}, 10).get('not_running') == {},
              'status: none not running')
        put(root, 'sys/bus/scsi/devices/0:0:0:1/state', 'offline\n')
        r = request(lund.run_dir, {'cmd': 'resync'}, 30)
        check(r.get('ok') is True, 'resync answered ok: %s' % r)
        check(states()['0:0:0:1'] == 'offline', 'the resync read the LU offline')
        st = request(lund.run_dir, {'cmd': 'status'}, 10)
        check(st.get('not_running') == {'0:0:0:1': 'offline'},
              'status: not_running lists it (%s)' % st.get('not_running'))
        put(root, 'sys/bus/scsi/devices/0:0:0:1/state', 'running\n')
        t0 = time.monotonic()
        check(lund.wait_log('state offline -> running (sysfs), names kept', 15),
              'lund saw it running again by itself')
        check(time.monotonic() - t0 < 10, 'within a few seconds (%.1f s)' % (time.monotonic() - t0))
        check(states()['0:0:0:1'] == 'running', 'and lists it running')
        check(request(lund.run_dir, {'cmd': 'status'}, 10).get('not_running') == {},
              'status: none not running again')
        check(lund.text().count('state offline -> running') == 1, 'logged once')
    finally:
        lund.stop()


def case_state_poll(tmp):
    root = os.path.join(tmp, 'root')
    for h in ('0:0:0:0', '0:0:0:1'):
        lu(root, h, attrs={'timeout': '30', 'state': 'running', 'ioerr_cnt': '0x0',
                           'iotmo_cnt': '0x0'})
    lund = Lund(tmp, root, os.path.join(tmp, 'run'),
                ['--scan', 'never', '--hwdb', '/nonexistent/hwdb.bin'])

    def states():
        r = request(lund.run_dir, {'cmd': 'list'}, 10)
        return {lu['hctl']: lu['state'] for h in r['hosts'] for t in h['targets']
                for lu in t['lus']}

    def wait_state(want, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if states()['0:0:0:1'] == want:
                return True
            time.sleep(0.5)
        return False

    try:
        lund.wait_socket()
        check(states() == {'0:0:0:0': 'running', '0:0:0:1': 'running'}, 'both LUs running')
        # no uevent, no resync: only the counters' round reads it (a round every 5 s, the
        # first may wait for the LUs being added; no proc/diskstats: every LU is read)
        put(root, 'sys/bus/scsi/devices/0:0:0:1/state', 'offline\n')
        t0 = time.monotonic()
        check(wait_state('offline', 30), 'list shows the LU offline (%.1f s)' %
              (time.monotonic() - t0))
        st = request(lund.run_dir, {'cmd': 'status'}, 10)
        check(st.get('not_running') == {'0:0:0:1': 'offline'},
              'status: not_running lists it (%s)' % st.get('not_running'))
        check(lund.wait_log('state running -> offline (sysfs), names kept', 5),
              'logged the change')
        put(root, 'sys/bus/scsi/devices/0:0:0:1/state', 'running\n')
        t0 = time.monotonic()
        check(wait_state('running', 15), 'list shows it running again (%.1f s)' %
              (time.monotonic() - t0))
        check(request(lund.run_dir, {'cmd': 'status'}, 10).get('not_running') == {},
              'status: none not running again')
        check(states()['0:0:0:0'] == 'running', 'the other LU still running')
    finally:
        lund.stop()


def virtio_host(root):
    """A fake PCI virtio-scsi HBA at 0000:00:02.0 with SCSI host 2; returns the host's
    directory below @root."""
    hba = 'sys/devices/pci0000:00/0000:00:02.0'
    host = hba + '/virtio1/host2'
    device(root, 'sys/devices/pci0000:00')
    device(root, hba, 'pci')
    device(root, hba + '/virtio1', 'virtio')
    device(root, host, 'scsi', 'scsi_host')
    return host


def case_by_path(tmp):
    root = os.path.join(tmp, 'root')
    host = virtio_host(root)
    for t in ('1', '2'):
        device(root, host + '/target2:0:' + t, 'scsi', 'scsi_target')
    lu(root, '2:0:1:0', host[len('sys/devices/'):] + '/target2:0:1', std_inquiry=True,
       uevent=True, block=('sdb', '8:16'), sg=('sg1', '21:1'),
       attrs={'timeout': '30', 'block/sdb/sdb1/partition': '1'})
    lu(root, '2:0:2:0', host[len('sys/devices/'):] + '/target2:0:2', ptype=0x0d,
       std_inquiry=True, uevent=True, sg=('sg2', '21:1'), attrs={'timeout': '30'})
    lund = Lund(tmp, root, os.path.join(tmp, 'run'), ['--scan', 'never', '--manage-disk-links'])

    def link(d, name):
        try:
            return os.readlink(os.path.join(root, 'dev', d, name))
        except OSError:
            return None

    base = 'pci-0000:00:02.0-scsi-0:0:'
    try:
        lund.wait_socket()
        check(link('scsi/by-path', base + '1:0') == '../../sdb',
              'scsi/by-path: the disk\'s path names its primary node (%s)' %
              link('scsi/by-path', base + '1:0'))
        check(link('scsi/by-path', base + '1:0-sg') == '../../sg1',
              'scsi/by-path: and "-sg" its sg node')
        check(link('scsi/by-path', base + '2:0') == '../../sg2',
              'scsi/by-path: the enclosure\'s path names its sg node')
        check(link('disk/by-path', base + '1:0') == '../../sdb',
              'disk/by-path: udev\'s name for the disk (%s)' % link('disk/by-path', base + '1:0'))
        check(link('disk/by-path', base + '1:0-part1') == '../../sdb1',
              'disk/by-path: udev\'s name for its partition')
        check(link('disk/by-path', base + '2:0') is None, 'no disk/by-path for the enclosure')
        shutil.rmtree(os.path.join(root, host, 'target2:0:1'))
        os.unlink(os.path.join(root, 'sys/bus/scsi/devices/2:0:1:0'))
        r = request(lund.run_dir, {'cmd': 'resync'}, 30)
        check(r.get('ok') is True, 'resync answered ok: %s' % r)
        check(link('scsi/by-path', base + '1:0') is None and
              link('disk/by-path', base + '1:0-part1') is None,
              'the removed LU\'s by-path names are gone')
        check(link('scsi/by-path', base + '2:0') == '../../sg2', 'the enclosure\'s stays')
    finally:
        lund.stop()


def case_exclusions(tmp):
    root = os.path.join(tmp, 'root')
    host = virtio_host(root)
    naa = {'1': '600a098038303052', '2': '600a098038303053', '3': '600a0980383030aa',
           '4': '600a0980383030bb'}
    for t, n in naa.items():
        device(root, host + '/target2:0:' + t, 'scsi', 'scsi_target')
        # page 0x83 with one NAA designator: ID_SERIAL 3<naa>, ID_WWN 0x<naa>
        pg83 = bytes([0, 0x83, 0, 12, 1, 3, 0, 8]) + bytes.fromhex(n)
        lu(root, '2:0:%s:0' % t, host[len('sys/devices/'):] + '/target2:0:' + t,
           vendor='ACME', std_inquiry=True, uevent=True,
           block=('sd' + 'abcde'[int(t)], '8:%d' % (16 * int(t))), sg=('sg' + t, '21:' + t),
           attrs={'timeout': '30', 'vpd_pg83': pg83})
    conf = os.path.join(tmp, 'lund.conf')
    with open(conf, 'w') as f:
        f.write('[defaults]\ntimeout = 45\n'
                '[exclude boot]\nwwid = 3600a098038303052\n'           # line 3
                '[exclude acme]\nvendor = ACME\nhctl = 2:*:3:*\n'       # line 5
                '[exception keep-c]\nhctl = 2:0:3:0\n'                 # line 8
                '[exclude names-only]\nwwid = 0x600a0980383030bb\nnames = yes\n')  # line 10
    lund = Lund(tmp, root, os.path.join(tmp, 'run'),
                ['--scan', 'never', '--manage-disk-links', '--config', conf,
                 '--hwdb', '/nonexistent/hwdb.bin'])

    def linked(t):
        """The LU of target @t's by-path and by-id links that exist."""
        got = []
        for d, name in (('scsi/by-path', 'pci-0000:00:02.0-scsi-0:0:%s:0' % t),
                        ('disk/by-id', 'wwn-0x' + naa[t])):
            if os.path.islink(os.path.join(root, 'dev', d, name)):
                got.append(d)
        return got

    def timeout(t):
        with open(os.path.join(root, host, 'target2:0:%s/2:0:%s:0/timeout' % (t, t))) as f:
            return f.read().strip()

    def listed():
        r = request(lund.run_dir, {'cmd': 'list'}, 10)
        return {lu['hctl']: (lu.get('excluded'), (lu.get('exclusion') or {}).get('rule'),
                             (lu.get('exclusion') or {}).get('line'))
                for h in r['hosts'] for t in h['targets'] for lu in t['lus']}

    both = ['scsi/by-path', 'disk/by-id']
    try:
        lund.wait_socket()
        check(linked('1') == [], 'the LU excluded by its wwid has no links (%s)' % linked('1'))
        check(timeout('1') == '30', 'and no policy (timeout %s)' % timeout('1'))
        check(linked('2') == both and timeout('2') == '45',
              'the LU no rule takes has its links and policy (%s, %s)' % (linked('2'),
                                                                         timeout('2')))
        check(linked('3') == both and timeout('3') == '45',
              'the LU an exception saves from an exclusion has both (%s, %s)' % (linked('3'),
                                                                                 timeout('3')))
        check(linked('4') == both and timeout('4') == '30',
              'names = yes: links, no policy (%s, %s)' % (linked('4'), timeout('4')))
        got = listed()
        want = {'2:0:1:0': (True, 'boot', 3), '2:0:2:0': (None, None, None),
                '2:0:3:0': (False, 'keep-c', 8), '2:0:4:0': (True, 'names-only', 10)}
        check(got == want, 'list marks each LU with the rule that decided (%s)' % got)
        if LUNCTL:
            env = dict(os.environ, LUND_RUN_DIR=lund.run_dir)
            r = subprocess.run([LUNCTL, 'list', '-o', 'HCTL,EXCLUDED'], env=env,
                               capture_output=True, text=True)
            rows = [ln.split() for ln in r.stdout.splitlines()[1:]]
            check(r.returncode == 0 and rows == [['2:0:1:0', 'boot'], ['2:0:2:0'], ['2:0:3:0'],
                                                 ['2:0:4:0', 'names-only']],
                  'lunctl list shows the excluding rule (exit %d: %s%s)' %
                  (r.returncode, r.stdout, r.stderr))
            r = subprocess.run([LUNCTL, 'names', '2:0:1:0'], env=env, capture_output=True,
                               text=True)
            check(r.returncode == 0 and
                  ('excluded by [exclude boot] (%s:3): lund makes no links' % conf) in r.stdout
                  and 'no names' in r.stdout,
                  'lunctl names asks lund and says it is excluded (exit %d: %s%s)' %
                  (r.returncode, r.stdout, r.stderr))
            r = subprocess.run([LUNCTL, '--root', root, 'names', '--why', '--config', conf,
                                '2:0:1:0'], capture_output=True, text=True)
            check(r.returncode == 0 and
                  ('excluded by [exclude boot] (%s:3)' % conf) in r.stdout,
                  'lunctl names --why says which rule excluded it (exit %d: %s%s)' %
                  (r.returncode, r.stdout, r.stderr))
        # The reload: the first LU no longer excluded, the second now is.
        with open(conf, 'w') as f:
            f.write('[defaults]\ntimeout = 45\n[exclude second]\nhctl = 2:0:2:0\n')
        r = request(lund.run_dir, {'cmd': 'reload'}, 30)
        check(r.get('ok') is True, 'reload answered ok: %s' % r)
        check(lund.wait_log('Reloaded the configuration'), 'reloaded')
        for _ in range(100):  # the links follow once the loop is idle
            if linked('1') == both and linked('2') == []:
                break
            time.sleep(0.1)
        check(linked('1') == both and timeout('1') == '45',
              'no longer excluded: links and policy (%s, %s)' % (linked('1'), timeout('1')))
        check(linked('2') == [], 'newly excluded: its links are gone (%s)' % linked('2'))
        check(listed()['2:0:2:0'] == (True, 'second', 3), 'and list says why')
    finally:
        lund.stop()


def usb_tree(root, ports):
    """A fake xHCI at 0000:00:04.0 with a QEMU USB stick (46f4:0001, serial CLONE0000001) on
    each port of @ports: port p is SCSI host p + 2, disk sd<b+p>, sg<p>."""
    hba = 'sys/devices/pci0000:00/0000:00:04.0'

    def stick(port, host, block, sg):
        udev = hba + '/usb2/2-%d' % port
        intf = udev + '/2-%d:1.0' % port
        device(root, udev, 'usb', 'usb_device')
        for a, v in (('idVendor', '46f4'), ('idProduct', '0001'), ('manufacturer', 'QEMU'),
                     ('product', 'QEMU USB HARDDRIVE'), ('serial', 'CLONE0000001')):
            put(root, udev + '/' + a, v + '\n')
        device(root, intf, 'usb', 'usb_interface')
        put(root, intf + '/bInterfaceClass', '08\n')
        put(root, intf + '/bInterfaceSubClass', '06\n')
        h = intf + '/host%d' % host
        device(root, h, 'scsi', 'scsi_host')
        t = h + '/target%d:0:0' % host
        device(root, t, 'scsi', 'scsi_target')
        lu(root, '%d:0:0:0' % host, t[len('sys/devices/'):], std_inquiry=True, uevent=True,
           block=(block, '8:%d' % (16 * port)), sg=(sg, '21:%d' % port),
           attrs={'timeout': '30'})
        put(root, 'sys/block/%s/removable' % block, '1\n')

    device(root, 'sys/devices/pci0000:00')
    device(root, hba, 'pci')
    device(root, hba + '/usb2', 'usb', 'usb_device')
    for port in ports:
        stick(port, port + 2, 'sd' + chr(ord('a') + port), 'sg%d' % port)


# The names of the sticks usb_tree() makes: udev's by-id name they share, and lund's
# serial-path name of the stick on each port.
USB_SHARED = 'usb-FAKE_DISK_CLONE0000001-0:0'


def usb_serial_path(port):
    return USB_SHARED + '-pci-0000_00_04_0-usb-0_%d_1_0-scsi-0_0_0_0' % port


def case_clones(tmp):
    root = os.path.join(tmp, 'root')
    usb_tree(root, (1, 2))
    hwdb = os.path.join(root, 'etc/udev/hwdb.bin')
    lund = Lund(tmp, root, os.path.join(tmp, 'run'),
                ['--scan', 'never', '--manage-disk-links', '--hwdb', hwdb])

    def link(d, name):
        try:
            return os.readlink(os.path.join(root, 'dev', d, name))
        except OSError:
            return None

    shared = USB_SHARED
    own = {'sdb': usb_serial_path(1), 'sdc': usb_serial_path(2)}
    env = dict(os.environ, LUND_RUN_DIR=lund.run_dir)
    try:
        lund.wait_socket()
        check(lund.wait_log('clones'), 'the shared name is reported as clones')
        check(link('scsi/by-id', shared) is None and link('scsi/by-id', shared + '-sg') is None
              and link('disk/by-id', shared) is None,
              'no hwdb entry: %s quarantined in both trees' % shared)
        check(all(link('scsi/by-id', n) is None for n in own.values()),
              'no hwdb entry: no serial-path names')
        if LUNCTL:
            r = subprocess.run([LUNCTL, 'names', '--collisions'], env=env, capture_output=True,
                               text=True)
            check(r.returncode == 0 and '/dev/scsi/by-id/%s: quarantined, clones' % shared
                  in r.stdout, 'lunctl names --collisions explains the clones:\n' + r.stdout)

        os.makedirs(os.path.dirname(hwdb), exist_ok=True)
        with open(hwdb, 'wb') as f:
            f.write(hwdb_bin('lund:usb:v46F4p0001', 'LUND_NAME_IDENTITY', 'serial-path'))
        r = request(lund.run_dir, {'cmd': 'reload'}, 30)
        check(r.get('ok') is True, 'the reload with the hwdb entry is answered ok: %s' % r)
        # the reload's flush writes the four links one by one: wait for all of them
        for _ in range(100):
            if all(link('scsi/by-id', n) and link('scsi/by-id', n + '-sg')
                   for n in own.values()):
                break
            time.sleep(0.1)
        for node, name in own.items():
            check(link('scsi/by-id', name) == '../../' + node,
                  'serial-path: /dev/scsi/by-id/%s -> %s (%s)' %
                  (name, node, link('scsi/by-id', name)))
        check(link('scsi/by-id', own['sdb'] + '-sg') == '../../sg1' and
              link('scsi/by-id', own['sdc'] + '-sg') == '../../sg2',
              'serial-path: and "-sg" their sg nodes')
        check(link('scsi/by-id', shared) is None, 'serial-path: the shared name is not in lund\'s tree')
        check(link('disk/by-id', shared) is None,
              '/dev/disk/by-id keeps udev\'s name, still quarantined')
        if LUNCTL:
            r = subprocess.run([LUNCTL, 'names', '--collisions'], env=env, capture_output=True,
                               text=True)
            check(r.returncode == 0 and '/dev/scsi/by-id/' not in r.stdout and
                  '/dev/disk/by-id/%s: quarantined, clones' % shared in r.stdout,
                  'lunctl names --collisions: only /dev/disk/by-id has clones:\n' + r.stdout)
            r = subprocess.run([LUNCTL, '--root', root, 'names', '--why', '3:0:0:0'],
                               env=env, capture_output=True, text=True)
            check(r.returncode == 0 and ('name %s\n  rule:   lund.hwdb: serial-path' % own['sdb'])
                  in r.stdout and 'lund:usb:v46F4p0001' in r.stdout,
                  'lunctl names --why names the serial-path rule:\n' + r.stdout + r.stderr)
            r = subprocess.run([LUNCTL, '--root', root, '--json', 'names', '--why', '4:0:0:0'],
                               env=env, capture_output=True, text=True)
            j = json.loads(r.stdout) if r.returncode == 0 else {}
            check(j.get('name_rule') == 'serial-path' and
                  any(n.get('name') == own['sdc'] for n in j.get('names', [])),
                  'lunctl --json names --why: name_rule serial-path and the name')
    finally:
        lund.stop()


def put_id_pages(root, d):
    """Pages 0x00, 0x80 (serial SER0001) and 0x83 (NAA 5000c50015ea71a0) cached for the LU
    whose directory is @d: the records' key is the LU's own wwn."""
    for attr, data in (('vpd_pg0', bytes([0, 0, 0, 3, 0x00, 0x80, 0x83])),
                       ('vpd_pg80', bytes([0, 0x80, 0, 7]) + b'SER0001'),
                       ('vpd_pg83', bytes([0, 0x83, 0, 12, 0x01, 0x03, 0, 8]) +
                        bytes.fromhex('5000c50015ea71a0'))):
        put(root, d + attr, data)


def case_rename(tmp):
    root = os.path.join(tmp, 'root')
    usb_tree(root, (1,))
    # Pages 0x80 and 0x83 cached: the records' key is the LU's own wwn.
    d = 'sys/bus/scsi/devices/3:0:0:0/'
    put_id_pages(root, d)
    hwdb = os.path.join(root, 'etc/udev/hwdb.bin')
    preview = os.path.join(tmp, 'preview-hwdb.bin')
    entry = hwdb_bin('lund:usb:v46F4p0001', 'LUND_NAME_IDENTITY', 'serial-path')
    with open(preview, 'wb') as f:
        f.write(entry)
    new = usb_serial_path(1)
    os.makedirs(os.path.join(root, 'var/lib/lund'))

    def lunctl(*args):
        return subprocess.run([LUNCTL, '--root', root] + list(args), capture_output=True,
                              text=True, env=dict(os.environ, LUND_RUN_DIR=lund.run_dir))

    def states(*args):
        return lunctl('names', '--state-dir', '/var/lib/lund', *args)

    def link(name):
        try:
            return os.readlink(os.path.join(root, 'dev/scsi/by-id', name))
        except OSError:
            return None

    def wait(cond):
        for _ in range(300):
            if cond():
                return True
            time.sleep(0.1)
        return False

    lund = Lund(tmp, root, os.path.join(tmp, 'run'),
                ['--scan', 'never', '--hwdb', hwdb, '--state-dir', '/var/lib/lund'])
    try:
        r = states('--accept', '--all')
        check(r.returncode == 0, 'the names are accepted: %d %s' % (r.returncode, r.stderr))
        lund.wait_socket()
        check(wait(lambda: link(USB_SHARED) == '../../sdb'),
              'by identity: /dev/scsi/by-id/%s -> sdb (%s)' % (USB_SHARED, link(USB_SHARED)))
        r = states('--diff')
        check(r.returncode == 0, 'nothing pending before the hwdb changes (%d)\n%s' %
              (r.returncode, r.stdout))

        # An hwdb update that renames the device, previewed before it is installed.
        r = states('--diff', '--hwdb', preview)
        check(r.returncode == 1 and new in r.stdout and USB_SHARED in r.stdout,
              '--diff --hwdb previews the rename, exit 1 (%d):\n%s%s' %
              (r.returncode, r.stdout, r.stderr))
        os.makedirs(os.path.dirname(hwdb), exist_ok=True)
        with open(hwdb, 'wb') as f:
            f.write(entry)
        r = request(lund.run_dir, {'cmd': 'reload'}, 30)
        check(r.get('ok') is True, 'the reload with the new hwdb is answered ok: %s' % r)
        check(wait(lambda: link(new) == '../../sdb'),
              'renamed: /dev/scsi/by-id/%s -> sdb (%s)' % (new, link(new)))
        # The hwdb says its identity is not its own: the old name may be another medium's
        # (a clone's), so it is not kept as an alias.
        check(wait(lambda: link(USB_SHARED) is None and link(USB_SHARED + '-sg') is None),
              'the old name is not kept: no alias for a serial-path device (%s, %s)' %
              (link(USB_SHARED), link(USB_SHARED + '-sg')))
        r = lunctl('--json', 'names', '3:0:0:0')
        j = json.loads(r.stdout) if r.returncode == 0 else {}
        check(r.returncode == 0 and j.get('aliases') == [],
              'lunctl names lists no alias:\n' + r.stdout + r.stderr)
        r = states('--diff')
        check(r.returncode == 1 and new in r.stdout and 'no alias' in r.stdout,
              'the rename is pending, no alias said (--diff exit 1, %d):\n%s' %
              (r.returncode, r.stdout))
        r = states('--json', '--diff')
        removed = [c for c in (json.loads(r.stdout).get('changes', []) if r.stdout else [])
                   if c.get('change') == 'removed']
        check(len(removed) == 1 and removed[0].get('alias') is False,
              '--json --diff: the removed name has "alias": false:\n' + r.stdout)

        r = states('--accept', '--all')
        check(r.returncode == 0, 'the rename is accepted (%d)' % r.returncode)
        check(link(new) == '../../sdb', 'accepted: the new name stays (%s)' % link(new))
        r = states('--diff')
        check(r.returncode == 0, 'nothing pending after the accept (%d):\n%s' %
              (r.returncode, r.stdout))
    finally:
        lund.stop()


def case_holds(tmp):
    """lunctl hold / release (lund(8), HOLDS): a held LU keeps its names while the rules that
    name it change (an hwdb update, reloaded), across a restart of lund (the hold is kept); the
    release names it anew; a time limit ends a hold by itself; bad requests are refused."""
    root = os.path.join(tmp, 'root')
    host = virtio_host(root)
    device(root, host + '/target2:0:1', 'scsi', 'scsi_target')
    lu(root, '2:0:1:0', host[len('sys/devices/'):] + '/target2:0:1', std_inquiry=True,
       uevent=True, block=('sdb', '8:16'), sg=('sg1', '21:1'), attrs={'timeout': '30'})
    d = 'sys/bus/scsi/devices/2:0:1:0/'
    put_id_pages(root, d)
    hwdb = os.path.join(root, 'etc/udev/hwdb.bin')
    run_dir = os.path.join(tmp, 'run')
    byid = os.path.join(root, 'dev/scsi/by-id')

    def lunctl(*args):
        return subprocess.run([LUNCTL] + list(args), capture_output=True, text=True,
                              env=dict(os.environ, LUND_RUN_DIR=run_dir))

    def names():
        try:
            return sorted(os.listdir(byid))
        except OSError:
            return []

    def wait(cond, seconds=30):
        for _ in range(seconds * 10):
            if cond():
                return True
            time.sleep(0.1)
        return False

    def holds():
        return [h['scope'] for h in request(run_dir, {'cmd': 'status'}, 30).get('holds', [])]

    args = ['--scan', 'never', '--hwdb', hwdb]
    lund = Lund(tmp, root, run_dir, args)
    try:
        lund.wait_socket()
        check(wait(lambda: 'wwn-0x5000c50015ea71a0' in names()), 'named: %s' % names())
        before = names()
        r = lunctl('hold', '2:0:1:0', '--reason', 'attach by the orchestrator')
        check(r.returncode == 0 and '2:0:1:0: attach by the orchestrator' in r.stdout,
              'lunctl hold (%d): %s%s' % (r.returncode, r.stdout, r.stderr))
        check(holds() == ['2:0:1:0'], 'status lists the hold: %s' % holds())
        r = lunctl('status')
        check('Holds:         1' in r.stdout, 'lunctl status says so:\n' + r.stdout)
        # an hwdb update that names the device by serial and path, reloaded: not while held
        os.makedirs(os.path.dirname(hwdb), exist_ok=True)
        with open(hwdb, 'wb') as f:
            f.write(hwdb_bin('lund:scsi:t0:vFAKE:mDISK*', 'LUND_NAME_IDENTITY', 'serial-path'))
        check(request(run_dir, {'cmd': 'reload'}, 60).get('ok') is True, 'reload answered')
        check(request(run_dir, {'cmd': 'resync'}, 60).get('ok') is True, 'resync answered')
        check(names() == before, 'held: its names stay as they were (%s, were %s)' %
              (names(), before))
    finally:
        lund.stop()
    # a restart keeps the hold
    lund = Lund(tmp, root, run_dir, args)
    try:
        lund.wait_socket()
        check(holds() == ['2:0:1:0'], 'the hold outlives a restart: %s' % holds())
        check(names() == before, 'restarted, still held: the names it had (%s, were %s)' %
              (names(), before))
        r = lunctl('release', '2:0:1:1')
        check(r.returncode != 0 and 'no hold' in r.stderr,
              'release of a scope not held refused (%d): %s' % (r.returncode, r.stderr))
        r = lunctl('release', '2:0:1:0')
        check(r.returncode == 0 and holds() == [], 'released (%d): %s' % (r.returncode, r.stderr))
        new = 'scsi-35000c50015ea71a0-pci-0000_00_02_0-scsi-0_0_1_0'
        check(wait(lambda: new in names() and 'wwn-0x5000c50015ea71a0' not in names()),
              'after the release the LU is named by the new rule: %s' % names())
        # a time limit ends a hold by itself
        r = lunctl('hold', '2', '--reason', 'maintenance', '--expire', '1')
        check(r.returncode == 0 and holds() == ['2'], 'a hold of host 2 for 1 s: %s' % holds())
        check(wait(lambda: holds() == [], 10), 'the hold ends after its time limit')
        check(lund.wait_log('reached its time limit'), 'its end is logged')
        for bad in ({'scope': '3:0'}, {'scope': 'x'}, {'scope': '3', 'reason': ''},
                    {'scope': '3:-:0', 'reason': 'r'}, {'scope': '3', 'reason': 'r', 'timeout_sec': 0}):
            r = request(run_dir, dict(cmd='hold', **bad), 30)
            check(r.get('error') == 'EINVAL', 'hold %r refused: %s' % (bad, r))
        r = lunctl('hold', '3')
        check(r.returncode != 0 and '--reason' in r.stderr, 'hold without --reason refused')
    finally:
        lund.stop()


def case_react(tmp):
    """lund.conf's [react] (lund.conf(5) REACTIONS), through lund's scans with REPORT LUNS
    answered by the SG_IO mock: with luns = add the LU a target no longer reports is kept (its
    KEEP says which rule) while the new LUN is added; with capacity = report a resize check
    writes nothing; a changed policy is previewed by `lunctl rescan --dry-run --config NEW`
    and applied by a reload: then the LU is removed."""
    mock = os.environ['LUND_MOCK']
    root = os.path.join(tmp, 'root')
    fx = os.path.join(tmp, 'fixtures')
    os.makedirs(fx)
    host = virtio_host(root)
    # the host's scsi_host class device, which the scans write "C T L" to
    put(root, host + '/scsi_host/host2/proc_name', 'virtio_scsi\n')
    put(root, host + '/scsi_host/host2/scan', '')
    os.makedirs(os.path.join(root, 'sys/class/scsi_host'))
    os.symlink('../../../%s/scsi_host/host2' % host,
               os.path.join(root, 'sys/class/scsi_host/host2'))
    device(root, host + '/target2:0:1', 'scsi', 'scsi_target')
    for n in (0, 1):
        lu(root, '2:0:1:%d' % n, host[len('sys/devices/'):] + '/target2:0:1', std_inquiry=True,
           uevent=True, block=('sd' + 'bc'[n], '8:%d' % (16 + 16 * n)),
           sg=('sg%d' % n, '21:%d' % n), attrs={'delete': b'', 'rescan': b''})
        put(root, 'dev/sg%d' % n, '%s/react\n' % fx)
    with open(os.path.join(fx, 'react.inquiry.hex'), 'w') as f:
        f.write(' '.join('%02x' % b for b in inquiry()) + '\n')
    # REPORT LUNS: LUNs 0 and 2 (SAM peripheral addressing); LUN 1 is gone, LUN 2 is new
    with open(os.path.join(fx, 'react.luns.hex'), 'w') as f:
        f.write('00 00 00 10 00 00 00 00\n00 00 00 00 00 00 00 00\n00 02 00 00 00 00 00 00\n')
    conf = os.path.join(tmp, 'lund.conf')
    new = os.path.join(tmp, 'lund.conf.new')
    with open(conf, 'w') as f:
        f.write('[react orchestrated]\nhost = 2\nluns = add\ncapacity = report\n')
    with open(new, 'w') as f:
        f.write('[react orchestrated]\nhost = 2\ncapacity = report\n')
    scan_attr = os.path.join(root, 'sys/class/scsi_host/host2/scan')
    lu_dir = os.path.join(root, host, 'target2:0:1')
    env = {'LD_PRELOAD': mock,
           'ASAN_OPTIONS': os.environ.get('ASAN_OPTIONS', '') + ':verify_asan_link_order=0'}
    run_dir = os.path.join(tmp, 'run')
    lund = Lund(tmp, root, run_dir, ['--scan', 'never', '--config', conf], env)

    def lunctl(*args):
        return subprocess.run([LUNCTL] + list(args), capture_output=True, text=True,
                              env=dict(os.environ, LUND_RUN_DIR=run_dir, **env))

    def actions(r):
        try:
            res = json.loads(r.stdout)
        except ValueError:
            return {}
        return {a['hctl']: (a['action'], a['reason']) for a in res.get('actions', [])}

    def written(path):
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            return None

    try:
        lund.wait_socket()
        r = lunctl('rescan', '--json', '--add', '--remove', '2')
        got = actions(r)
        check(got.get('2:0:1:1', ('', ''))[0] == 'keep' and
              'luns = add by [react orchestrated]' in got['2:0:1:1'][1],
              'luns = add: the LU no longer reported is kept, saying why (%d): %s %s' %
              (r.returncode, got, r.stderr))
        check(written(os.path.join(lu_dir, '2:0:1:1/delete')) == '',
              'and its delete attribute is not written')
        check(got.get('2:0:1:2', ('', ''))[0] == 'add' and written(scan_attr) == '0 1 2',
              'the new LUN is added (%s, scan attribute %r)' % (got.get('2:0:1:2'),
                                                                written(scan_attr)))
        check(lund.wait_log('luns = add by [react orchestrated]'), 'lund logs the keep')
        r = lunctl('rescan', '--json', '--resize', '2')
        got = actions(r)
        check(got.get('2:0:1:0', ('', ''))[0] == 'keep' and
              'capacity = report by [react orchestrated]' in got['2:0:1:0'][1] and
              got.get('2:0:1:1', ('', ''))[0] == 'keep',
              'capacity = report: no capacity check, kept with the rule (%d): %s %s' %
              (r.returncode, got, r.stderr))
        check(all(written(os.path.join(lu_dir, '2:0:1:%d/rescan' % n)) == ''
                  for n in (0, 1)), 'no rescan attribute written')
        r = lunctl('--root', root, 'names', '--why', '--config', conf, '2:0:1:0')
        check(r.returncode == 0 and ('luns = add by [react orchestrated] (%s:3): lund removes '
                                     'nothing from its target' % conf) in r.stdout and
              'capacity = report by [react orchestrated] (%s:4)' % conf in r.stdout,
              'names --why lists the reactions that report (%d): %s%s' %
              (r.returncode, r.stdout, r.stderr))
        r = lunctl('--root', root, 'names', '--why', '--json', '--config', conf, '2:0:1:0')
        try:
            got = [(x['key'], x['value'], x['rule'], x['line'])
                   for x in json.loads(r.stdout).get('reactions', [])]
        except ValueError:
            got = None
        check(got == [('luns', 'add', 'orchestrated', 3),
                      ('capacity', 'report', 'orchestrated', 4)],
              'and in JSON (%d): %s %s' % (r.returncode, got, r.stderr))
        # the changed policy, previewed: the dry run under NEW removes, under the file lund
        # reads it keeps; nothing is written either way
        os.truncate(scan_attr, 0)
        r = lunctl('--root', root, 'rescan', '--json', '--dry-run', '--add', '--remove',
                   '--config', conf, '2')
        got = actions(r)
        check(got.get('2:0:1:1', ('', ''))[0] == 'keep',
              'the dry run under the current file keeps the LU (%d): %s %s' %
              (r.returncode, got, r.stderr))
        r = lunctl('--root', root, 'rescan', '--json', '--dry-run', '--add', '--remove',
                   '--config', new, '2')
        got = actions(r)
        check(got.get('2:0:1:1', ('', ''))[0] == 'remove' and got['2:0:1:2'][0] == 'add',
              'the dry run under NEW removes it and adds the new LUN (%d): %s %s' %
              (r.returncode, got, r.stderr))
        check(written(os.path.join(lu_dir, '2:0:1:1/delete')) == '' and
              written(scan_attr) == '', 'the dry runs wrote nothing')
        r = lunctl('check-config', new)
        check(r.returncode == 0, 'check-config takes NEW (%d): %s%s' %
              (r.returncode, r.stdout, r.stderr))
        # applied: a reload, then lund's own scan removes it
        shutil.copy(new, conf)
        check(request(run_dir, {'cmd': 'reload'}, 30).get('ok') is True, 'reload answered')
        r = lunctl('rescan', '--json', '--add', '--remove', '2')
        got = actions(r)
        check(got.get('2:0:1:1', ('', ''))[0] == 'remove' and
              written(os.path.join(lu_dir, '2:0:1:1/delete')) == '1',
              'after the reload the LU no longer reported is removed (%d): %s %s' %
              (r.returncode, got, r.stderr))
    finally:
        lund.stop()


def case_list_pages(tmp):
    """A "list" page ends once its LUs take the page's bytes (lund(8), CONTROL PROTOCOL), so
    that no page the protocol allows overruns a client's backlog: shrunk here to 1500 bytes
    (LUND_CONTROL_LIST_PAGE_BYTES), a page of limit 100 over 12 LUs holds a few, says "next",
    and the pages together hold every LU once, in order; lunctl list gets them all."""
    root = os.path.join(tmp, 'root')
    host = virtio_host(root)
    want = []
    for t in range(12):
        device(root, host + '/target2:0:%d' % t, 'scsi', 'scsi_target')
        lu(root, '2:0:%d:0' % t, host[len('sys/devices/'):] + '/target2:0:%d' % t,
           std_inquiry=True, uevent=True, block=('sd' + chr(ord('b') + t), '8:%d' % (16 * t)),
           sg=('sg%d' % t, '21:%d' % t), attrs={'timeout': '30'})
        want.append('2:0:%d:0' % t)
    run_dir = os.path.join(tmp, 'run')
    lund = Lund(tmp, root, run_dir, ['--scan', 'never'],
                env={'LUND_CONTROL_LIST_PAGE_BYTES': '1500'})
    try:
        lund.wait_socket()
        got, pages, after = [], 0, None
        while pages < 20:
            req = {'cmd': 'list', 'limit': 100}
            if after:
                req['after'] = after
            r = request(run_dir, req, 30)
            check(r.get('ok') is True, 'page %d answered: %.200s' % (pages, r))
            lus = [l['hctl'] for h in r.get('hosts', []) for t in h['targets'] for l in t['lus']]
            check(0 < len(lus) or 'next' not in r, 'a page holds at least one LU')
            got += lus
            pages += 1
            after = r.get('next')
            if not after:
                break
            check(len(lus) < 12, 'a page of 1500 bytes holds fewer than 12 LUs (%d)' % len(lus))
        check(pages > 1, 'the LUs took more than one page (%d)' % pages)
        check(got == want, 'the pages hold every LU once, in order: %s' % got)
        p = subprocess.run([LUNCTL, 'list', '--json'], capture_output=True, text=True,
                           env=dict(os.environ, LUND_RUN_DIR=run_dir))
        j = json.loads(p.stdout) if p.returncode == 0 else {}
        check([l['hctl'] for l in j.get('logical_units', [])] == want,
              'lunctl list gets them all (%d): %s' % (p.returncode, p.stderr[-300:]))
    finally:
        lund.stop()


def case_transport(tmp):
    import threading
    root = os.path.join(tmp, 'root')
    for parent, hctl in (('pseudo_0/adapter0/host0/target0:0:0', '0:0:0:0'),
                         ('platform/host3/session1/target3:0:0', '3:0:0:0'),
                         ('pci0000:00/0000:00:03.0/host5/rport-5:0-0/target5:0:0', '5:0:0:0')):
        lu(root, hctl, parent, vendor='LIO-ORG', rev='4.0', attrs={'timeout': '30'})
    sess = os.path.join(root, 'sys/class/iscsi_session/session1')
    os.makedirs(sess)
    fifo = os.path.join(sess, 'recovery_tmo')
    os.mkfifo(fifo)
    rport = 'sys/class/fc_remote_ports/rport-5:0-0/'
    put(root, rport + 'fast_io_fail_tmo', 'off\n')
    put(root, rport + 'dev_loss_tmo', '600\n')
    conf = os.path.join(tmp, 'lund.conf')
    with open(conf, 'w') as f:
        f.write('[defaults]\nrecovery_tmo = 5\nfast_io_fail_tmo = 5\ndev_loss_tmo = 30\n')
    lund = Lund(tmp, root, os.path.join(tmp, 'run'),
                ['--scan', 'never', '--config', conf, '--hwdb', '/nonexistent/hwdb.bin'])

    def attr(rel):
        with open(os.path.join(root, rel)) as f:
            return f.read().split('\n')[0]
    try:
        # The worker holds the session's attribute open: the loop answers all the same (a loop
        # that wrote it itself would never get to its socket).
        st = lund.wait_socket(20)
        check(st.get('lus') == 3 or 'lus' not in st, 'lund is up with 3 LUs (%s)' % st.get('lus'))
        check(lund.wait_log('rport-5:0-0 fast_io_fail_tmo off -> 5'),
              'the FC remote port\'s fast_io_fail_tmo is set (off -> 5)')
        check(attr(rport + 'fast_io_fail_tmo').startswith('5') and
              attr(rport + 'dev_loss_tmo').startswith('30'),
              'fast_io_fail_tmo 5 and dev_loss_tmo 30 written (%s, %s)' %
              (attr(rport + 'fast_io_fail_tmo'), attr(rport + 'dev_loss_tmo')))
        t0 = time.monotonic()
        r = request(lund.run_dir, {'cmd': 'status'}, 10)
        check('error' not in r and time.monotonic() - t0 < 5,
              'status is answered while the session\'s write waits (%.1f s)' %
              (time.monotonic() - t0))
        # The "kernel" answers the read (120), then takes the write.
        fd = os.open(fifo, os.O_WRONLY)
        os.write(fd, b'120\n')
        os.close(fd)
        got = []

        def take():
            fd = os.open(fifo, os.O_RDONLY)
            got.append(os.read(fd, 64))
            os.close(fd)
        th = threading.Thread(target=take, daemon=True)
        th.start()
        th.join(30)
        check(got == [b'5'], 'lund wrote recovery_tmo=5 to the session (%s)' % got)
        check(lund.wait_log('session1 recovery_tmo 120 -> 5'),
              'and logs it with the old value')
        check('refused' not in lund.text(), 'nothing refused')
        # lunctl policy: shown and set, each LU on its own transport.
        os.unlink(fifo)
        put(root, 'sys/class/iscsi_session/session1/recovery_tmo', '5\n')
        if LUNCTL:
            def lunctl(*args):
                return subprocess.run([LUNCTL, '--root', root] + list(args),
                                      capture_output=True, text=True)
            r = lunctl('--json', 'policy', '3:0:0:0')
            j = json.loads(r.stdout) if r.returncode == 0 else {}
            check(j.get('transport') == {'kind': 'iscsi', 'name': 'session1',
                                         'knobs': {'recovery_tmo': '5'}},
                  'lunctl policy --json shows the session (%s)' % j.get('transport'))
            r = lunctl('policy', '5:0:0:0')
            check('Transport: fc rport-5:0-0' in r.stdout and 'dev_loss_tmo' in r.stdout,
                  'lunctl policy shows the remote port:\n' + r.stdout)
            r = lunctl('--json', 'policy', '0:0:0:0')
            check(r.returncode == 0 and json.loads(r.stdout).get('transport', 1) is None,
                  'and no transport for a scsi_debug-like LU')
            r = lunctl('policy', '3:0:0:0', 'recovery_tmo=off')
            check(r.returncode == 0 and attr('sys/class/iscsi_session/session1/recovery_tmo')
                  == 'off', 'lunctl policy sets recovery_tmo=off (exit %d: %s)' %
                  (r.returncode, r.stderr.strip()))
            r = lunctl('policy', '3:0:0:0', 'dev_loss_tmo=30')
            check(r.returncode == 2 and 'session1' in r.stderr,
                  'an FC knob on an iSCSI LU is refused with exit 2 (%d: %s)' %
                  (r.returncode, r.stderr.strip()))
            r = lunctl('policy', '3:0:0:0', 'recovery_tmo=5s')
            check(r.returncode == 1 and 'off|0..3600' in r.stderr,
                  'an invalid value is a usage error (%d: %s)' % (r.returncode, r.stderr.strip()))
    finally:
        lund.stop()
    check(lund.p.returncode == 0, 'lund ends cleanly (exit %d)' % lund.p.returncode)


def case_lock(tmp):
    root = os.path.join(tmp, 'root')
    lu(root, '0:0:0:0', attrs={'timeout': '30'})
    run_dir = os.path.join(tmp, 'run')
    first = Lund(tmp, root, run_dir, ['--scan', 'never'])
    try:
        first.wait_socket()
        second = Lund(tmp, root, run_dir, ['--scan', 'never'])
        try:
            rc = second.p.wait(60)
        except subprocess.TimeoutExpired:
            rc = None
        second.stop()
        check(rc == 1, 'a second lund on the same run dir exits 1 (%s)' % rc)
        check('PID %d' % first.p.pid in second.text(),
              'it names the running one\'s PID %d' % first.p.pid)
        try:
            request(run_dir, {'cmd': 'status'}, 10)
            ok = first.p.poll() is None
        except OSError:
            ok = False
        check(ok, 'the first lund still answers on its socket')
    finally:
        first.stop()
    check(first.p.returncode == 0, 'the first lund ends cleanly (exit %d)' % first.p.returncode)


def hexbytes(path):
    text = ''.join(l.split('#', 1)[0] for l in open(path, encoding='latin-1'))
    return bytes.fromhex(''.join(text.split()))


def sg_links(root):
    """{sg node: [names]} of the -sg links in lund's by-id directory."""
    d = os.path.join(root, 'dev/scsi/by-id')
    out = {}
    for n in os.listdir(d) if os.path.isdir(d) else []:
        if n.endswith('-sg') and os.path.islink(os.path.join(d, n)):
            out.setdefault(os.path.basename(os.readlink(os.path.join(d, n))), []).append(n)
    return out


def case_identify_hang(tmp):
    mock = os.environ['LUND_MOCK']
    vpd = os.path.join(os.environ['LUND_FIXTURES'], 'vpd')
    root = os.path.join(tmp, 'root')
    hang = os.path.join(tmp, 'hang')     # sg2's device answers nothing while this exists
    late = os.path.join(tmp, 'late')     # sg3's answers once its LU is gone
    open(hang, 'w').close()
    open(late, 'w').close()

    def sg_lu(n, fixture, cached, node):
        inq = hexbytes(os.path.join(vpd, fixture + '.inquiry.hex'))
        lu(root, '0:0:0:%d' % n, vendor=None, model=None, rev=None, sg='sg%d' % n,
           attrs=dict(cached, inquiry=inq))
        put(root, 'dev/sg%d' % n, node)

    # sg0: every identifying page cached by the kernel, named without a command.
    pg83 = hexbytes(os.path.join(vpd, 'naa2-ext.pg83.hex'))
    pg80 = hexbytes(os.path.join(vpd, 'naa2-ext.pg80.hex'))
    sg_lu(0, 'naa2-ext', {'vpd_pg0': bytes([0, 0, 0, 3, 0x00, 0x80, 0x83]), 'vpd_pg80': pg80,
                          'vpd_pg83': pg83}, 'none\n')
    # sg1..sg3: only the INQUIRY data cached, the pages need SG_IO.
    sg_lu(1, 'eui64-16', {}, '%s/eui64-16\n' % vpd)
    sg_lu(2, 'eui64-8', {}, 'wait:%s:%s/eui64-8\n' % (hang, vpd))
    sg_lu(3, 'eui64-12', {}, 'wait:%s:%s/eui64-12\n' % (late, vpd))

    notify_path = os.path.join(tmp, 'notify')
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(0.2)
    watchdog_usec = 4000000
    env = {'NOTIFY_SOCKET': notify_path, 'WATCHDOG_USEC': str(watchdog_usec),
           'LD_PRELOAD': mock,
           # the sanitizers' runtime need not come first: the mock only interposes ioctl
           'ASAN_OPTIONS': os.environ.get('ASAN_OPTIONS', '') + ':verify_asan_link_order=0'}
    run_dir = os.path.join(tmp, 'run')
    lund = Lund(tmp, root, run_dir, ['--scan', 'never'], env, sysfs_only=False)
    msgs = []

    def drain(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                msgs.append((time.monotonic(), notify.recv(4096).decode()))
            except socket.timeout:
                pass

    try:
        t0 = time.monotonic()
        try:
            lund.wait_socket(30)
            answered = True
        except RuntimeError:
            answered = False
        check(answered, 'the control socket answers while an identification hangs '
              '(%.1f s)' % (time.monotonic() - t0))
        if not answered:
            return
        named = {}
        for _ in range(300):
            named = sg_links(root)
            if 'sg0' in named and 'sg1' in named:
                break
            time.sleep(0.1)
        check('sg0' in named, 'the LU the kernel cached is named: %s' % named.get('sg0'))
        check('sg1' in named, 'the LU identified with SG_IO is named: %s' % named.get('sg1'))
        check('sg2' not in named and 'sg3' not in named,
              'no name for the LUs whose identification has not ended: %s' % named)
        t1 = time.monotonic()
        st = request(run_dir, {'cmd': 'status'}, 5)
        check(time.monotonic() - t1 < 3 and st.get('identifying') == 2,
              'status answers at once and counts 2 identifications under way: %s' %
              st.get('identifying'))
        check(st.get('ready') is False, 'readiness waits for them (ready: %s)' % st.get('ready'))
        n = request(run_dir, {'cmd': 'names', 'device': '0:0:0:2'}, 5)
        check(n.get('identifying') is True and not n.get('names') and not n.get('links'),
              'the hung LU is shown pending, without names: %s' %
              {k: n.get(k) for k in ('identifying', 'names', 'links')})
        q = request(run_dir, {'cmd': 'queue'}, 5)
        check(q.get('settled') is False and q.get('identifying') == 2,
              'lund is not settled while LUs are identified: %s' % q)
        check(q.get('udev_links') is False, 'lund makes its links itself here: %s' % q)
        if LUNCTL:
            out = subprocess.run([LUNCTL, 'list'], env=dict(os.environ, LUND_RUN_DIR=run_dir),
                                 capture_output=True, text=True, timeout=30).stdout
            row = [l for l in out.splitlines() if l.startswith('0:0:0:2')]
            check(row and '(identifying)' in row[0], 'lunctl list shows it: %s' % row)
            out = subprocess.run([LUNCTL, 'names', '0:0:0:2'],
                                 env=dict(os.environ, LUND_RUN_DIR=run_dir),
                                 capture_output=True, text=True, timeout=30).stdout
            check('identifying:' in out and 'no names' in out,
                  'lunctl names shows it: %r' % out)

        # The LU whose device answers late goes away first: its result must not name anything.
        shutil.rmtree(os.path.join(root, 'sys/bus/scsi/devices/0:0:0:3'))
        r = request(run_dir, {'cmd': 'resync'}, 30)
        check(r.get('ok') is True, 'resync after the removal: %s' % r)
        os.unlink(late)
        drain(3)
        st = request(run_dir, {'cmd': 'status'}, 5)
        check(st.get('identifying') == 1 and st.get('lus') == 3,
              'the removed LU is forgotten, the hung one still pending: %s identifying, '
              '%s LUs' % (st.get('identifying'), st.get('lus')))
        check('sg3' not in sg_links(root), 'the late result of the removed LU names nothing')

        # The watchdog keeps being pinged while a thread waits for the device.
        msgs.clear()
        drain(3 * watchdog_usec / 1e6)
        pings = [t for t, m in msgs if 'WATCHDOG=1' in m.split('\n')]
        gaps = [b - a for a, b in zip(pings, pings[1:])]
        check(len(pings) >= 3 and max(gaps) < watchdog_usec / 1e6,
              'WATCHDOG=1 keeps coming (%d pings, largest gap %.1f s)' %
              (len(pings), max(gaps) if gaps else -1))
        check(not any('READY=1' in m for _, m in msgs), 'no READY=1 while identifying')

        t2 = time.monotonic()
        lund.p.send_signal(signal.SIGTERM)
        try:
            rc = lund.p.wait(30)
            check(rc == 75, 'SIGTERM ends lund after the grace despite the hung device '
                  '(exit %d, 75 wanted, after %.1f s)' % (rc, time.monotonic() - t2))
            check('identifying a logical unit' in lund.text(), 'the stuck command is named')
        except subprocess.TimeoutExpired:
            check(False, 'SIGTERM ends lund despite the hung device (running after 30 s)')
    finally:
        lund.stop()
        for f in (hang, late):
            if os.path.exists(f):
                os.unlink(f)
        notify.close()


def case_reservations(tmp):
    """lund(8) RESERVATIONS: lund reads an LU's persistent reservations when its identification
    ends (the SG_IO mock answers READ FULL STATUS) and lists those this host is registered on
    in `status`: by a key lund.conf configures (reservation_key) and by its iSCSI session's
    initiator name; an LU registered by others only, and one without PERSISTENT RESERVE IN,
    are not listed. Without the key, the initiator name alone still tells. With --sysfs-only
    nothing is read."""
    mock = os.environ['LUND_MOCK']
    vpd = os.path.join(os.environ['LUND_FIXTURES'], 'vpd')
    root, mdir = os.path.join(tmp, 'root'), os.path.join(tmp, 'mock')
    os.makedirs(mdir)
    us = 'iqn.1993-08.org.debian:01:lund-test'
    fc_peer = prindata.tid_fc(0x2100000000000009)
    prin = {1: prindata.full_status(prindata.desc(0x1234, True, 0x1, fc_peer)),  # by its key
            2: prindata.full_status(prindata.desc(0x77, False, 0, prindata.tid_iscsi(us))),
            3: prindata.full_status(prindata.desc(0x9, True, 0x1, fc_peer)),  # a peer's only
            4: None}  # no PERSISTENT RESERVE IN
    inq = os.path.join(vpd, 'naa2-ext.inquiry.hex')
    parent = 'platform/host3/session1/target3:0:0'
    put(root, 'sys/devices/platform/host3/session1/iscsi_session/session1/initiatorname',
        us + '\n')
    for n, data in prin.items():
        shutil.copy(inq, os.path.join(mdir, 'lu%d.inquiry.hex' % n))
        if data:
            put(mdir, 'lu%d.prin.hex' % n, prindata.hexfile(data))
        lu(root, '3:0:0:%d' % n, parent, vendor=None, model=None, rev=None, sg='sg%d' % n,
           attrs={'inquiry': hexbytes(inq)})
        put(root, 'dev/sg%d' % n, '%s/lu%d\n' % (mdir, n))
    conf = os.path.join(tmp, 'lund.conf')
    with open(conf, 'w') as f:
        f.write('[defaults]\nreservation_key = 0x1234\n')
    env = {'LD_PRELOAD': mock,
           'ASAN_OPTIONS': os.environ.get('ASAN_OPTIONS', '') + ':verify_asan_link_order=0'}
    run_dir = os.path.join(tmp, 'run')

    def reserved(want=None):
        """status's reserved LUs; with @want, asked again for up to 30 s until they match."""
        for _ in range(300 if want is not None else 1):
            got = {r['hctl']: r['reservations']
                   for r in request(run_dir, {'cmd': 'status'}, 30).get('reserved', [])}
            if got == want:
                break
            time.sleep(0.1)
        return got

    lund = Lund(tmp, root, run_dir, ['--scan', 'never', '--config', conf], env, sysfs_only=False)
    try:
        lund.wait_socket()
        want = {'3:0:0:1': '1 key (this host), WE held by this host',
                '3:0:0:2': '1 key (this host), no reservation'}
        got = reserved(want)
        check(got == want, 'status lists the LUs this host is registered on: %s' % got)
        r = subprocess.run([LUNCTL, 'status'], capture_output=True, text=True,
                           env=dict(os.environ, LUND_RUN_DIR=run_dir))
        check('Reserved:      2 logical units this host is registered on' in r.stdout and
              '  3:0:0:1: 1 key (this host), WE held by this host' in r.stdout,
              'lunctl status says so:\n' + r.stdout)
        check(lund.wait_log('3:0:0:1: reservations: 1 key (this host), WE held by this host'),
              'journalled when it became so')
    finally:
        lund.stop()
    # No key configured: the iSCSI session's initiator name alone still names this host.
    empty = os.path.join(tmp, 'empty.conf')
    open(empty, 'w').close()
    lund = Lund(tmp, root, run_dir, ['--scan', 'never', '--config', empty], env,
                sysfs_only=False)
    try:
        lund.wait_socket()
        want = {'3:0:0:2': '1 key (this host), no reservation'}
        got = reserved(want)
        check(got == want, 'without a key, by the initiator name alone: %s' % got)
    finally:
        lund.stop()
    lund = Lund(tmp, root, run_dir, ['--scan', 'never', '--config', conf], env)
    try:
        lund.wait_socket()
        time.sleep(1)
        got = reserved()
        check(got == {}, '--sysfs-only reads nothing: %s' % got)
    finally:
        lund.stop()


def main():
    tmp = tempfile.mkdtemp(prefix='daemon-loop-')
    try:
        globals()['case_' + CASE.replace('-', '_')](tmp)
    finally:
        if failures:
            for f in sorted(os.listdir(tmp)):
                if f.startswith('lund-'):
                    print('--- %s' % f)
                    print(open(os.path.join(tmp, f)).read()[-4000:])
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
