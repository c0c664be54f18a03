#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LUND=... LUNCTL=... identify-same.py FIXTURES_DIR MOCK_SO

lund and lunctl must name every device alike: one fake sysfs tree holds one LU per fixture (every
modelled page set in FIXTURES_DIR/vpd with an .expect, every captured device in
FIXTURES_DIR/captured), its pages cached as the kernel caches them, its dev/sgN a file that
tests/peer/scsi-id-mock.c (preloaded into both) answers SG_IO for from that fixture, and a block
node for the types sd and sr bind (an sd node with one partition). lund runs on the tree (--root,
--manage-disk-links) once reading the cache first and SG_IO second, once --sysfs-only; for each LU
the links lund wrote under the tree's dev/scsi/by-id, the names and properties lund serves, the
names `lunctl names --root` computes and the ID_* lines of `lunctl id --export --root` must agree,
and so must every link: each one lund claims (its `names` reply), each one it wrote, and each one
`lunctl names --root --json` lists, with its node (one link scheme, engine/linkscheme.h).

LUs that want one name are paths when their cached pages 0x83 have the same logical-unit
designators and different target-port ones (SPC-6 7.7.6, computed here independently of lund):
the name is linked to one of them; otherwise they are clones and lund must link none of them.

Page 0x00 is cached as vpd_pg0 when the fixture has it; a fixture whose page 0x00 has no bytes
is a device that rejects it, for which the kernel caches no VPD page at all (scsi_attach_vpd()).
Exit: 0 pass, 1 fail, 77 skipped."""
import json, os, re, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from fakesys import lu, put  # noqa: E402

LUND, LUNCTL = os.environ.get('LUND'), os.environ.get('LUNCTL')
FIX, MOCK = sys.argv[1], sys.argv[2]
if not LUND or not LUNCTL:
    print('SKIP: LUND= and LUNCTL= are needed')
    sys.exit(77)

def hexbytes(path):
    text = ''.join(l.split('#', 1)[0] for l in open(path, encoding='latin-1'))
    return bytes.fromhex(''.join(text.split()))

PAGES = (('inquiry', 'inquiry'), ('pg00', 'vpd_pg0'), ('pg80', 'vpd_pg80'),
         ('pg83', 'vpd_pg83'), ('pg89', 'vpd_pg89'))

def fixtures(tmp):
    """(label, mock dir, mock name, {attr: bytes}) for every fixture."""
    vpd = os.path.join(FIX, 'vpd')
    for exp in sorted(os.listdir(vpd)):
        if not exp.endswith('.expect'):
            continue
        name = exp[:-len('.expect')]
        if not os.path.exists(os.path.join(vpd, name + '.inquiry.hex')):
            continue
        pages = {}
        for kind, attr in PAGES:
            p = os.path.join(vpd, '%s.%s.hex' % (name, kind))
            if os.path.exists(p):
                pages[attr] = hexbytes(p)
        if pages.get('vpd_pg0') == b'':
            # Rejected: the kernel caches no VPD page without page 0x00.
            pages = {'inquiry': pages['inquiry']}
        yield 'vpd/' + name, vpd, name, pages
    cap = os.path.join(FIX, 'captured')
    links = os.path.join(tmp, 'captured')
    os.makedirs(links)
    for d in sorted(os.listdir(cap)):
        src = os.path.join(cap, d)
        if not os.path.exists(os.path.join(src, 'sysfs-inquiry.hex')):
            continue
        # The mock reads DIR/NAME.<page>.hex: the device's SG_IO answers under that name.
        for kind, _ in PAGES:
            if os.path.exists(os.path.join(src, kind + '.hex')):
                os.symlink(os.path.join(os.path.abspath(src), kind + '.hex'),
                           os.path.join(links, '%s.%s.hex' % (d, kind)))
        pages = {}
        for f in os.listdir(src):
            m = re.fullmatch(r'sysfs-(inquiry|vpd_pg[0-9a-f]+)\.hex', f)
            if m:
                pages[m.group(1)] = hexbytes(os.path.join(src, f))
        yield 'captured/' + d, links, d, pages

def pg83_keys(page):
    """(LU designators, target-port designators) of a page 0x83 as two frozensets, or None."""
    if not page or len(page) < 4 or page[1] != 0x83:
        return None
    end = 4 + (page[2] << 8 | page[3])
    if end > len(page) or (end > 6 and page[6] != 0):  # truncated, or pre-SPC-2
        return None
    lu, port, k = set(), set(), 4
    while k < end:
        if k + 4 > end or k + 4 + page[k + 3] > end:
            return None
        d = (page[k], page[k + 1] & 0xbf, page[k + 4:k + 4 + page[k + 3]])
        assoc = (page[k + 1] >> 4) & 3
        (lu if assoc == 0 else port if assoc == 1 else set()).add(d)
        k += 4 + page[k + 3]
    return frozenset(lu), frozenset(port)

def are_paths(keys):
    """Are all these LUs (their pg83_keys) paths to one LU?"""
    keys = list(keys)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            if (a is None or b is None or not a[0] or a[0] != b[0] or not a[1] or not b[1]
                    or a[1] == b[1]):
                return False
    return True

def build_tree(tmp):
    root = os.path.join(tmp, 'root')
    lus = []
    for t, (label, mdir, mname, pages) in enumerate(fixtures(tmp)):
        hctl, sg = '0:0:%d:0' % t, 'sg%d' % t
        pdt = pages['inquiry'][0] & 0x1f
        # The block node sd or sr binds, and for sd a partition: the links of every kind.
        block, attrs = None, dict(pages)
        if pdt in (0x00, 0x04, 0x07, 0x0e, 0x14):
            block = 'sd' + ''.join(chr(97 + int(c)) for c in '%03d' % t)
            attrs['block/%s/%s1/partition' % (block, block)] = '1'
        elif pdt == 0x05:
            block = 'sr%d' % t
        lu(root, hctl, ptype=pdt, vendor=None, model=None, rev=None, block=block, sg=sg,
           attrs=attrs)
        NODES[sg] = {sg, block} - {None}
        put(root, 'dev/' + sg, '%s/%s\n' % (os.path.abspath(mdir), mname))
        lus.append((hctl, label, sg))
        KEYS[sg] = pg83_keys(pages.get('vpd_pg83'))
    return root, lus

KEYS = {}
NODES = {}  # the nodes of each LU, by its sg node
# The link directories lund manages with --manage-disk-links (lund(8) LINKS).
LUND_DIRS = ('/dev/scsi/by-id', '/dev/scsi/by-path', '/dev/disk/by-id', '/dev/disk/by-path')

def run(args, env=None, check=True):
    r = subprocess.run(args, env=env, capture_output=True, text=True, errors='surrogateescape')
    if check and r.returncode != 0:
        raise RuntimeError('%s: exit %d: %s' % (' '.join(args), r.returncode, r.stderr[:300]))
    return r.stdout

def main():
    tmp = tempfile.mkdtemp()
    fail = checks = 0
    try:
        root, lus = build_tree(tmp)
        env = dict(os.environ, LD_PRELOAD=MOCK,
                   # the sanitizers' runtime need not come first: the mock only interposes ioctl
                   ASAN_OPTIONS=os.environ.get('ASAN_OPTIONS', '') + ':verify_asan_link_order=0')
        for mode in ([], ['--sysfs-only']):
            tag = ' '.join(mode) or 'cache, then SG_IO'
            run_dir = os.path.join(tmp, 'run' + ''.join(mode))
            links_dir = os.path.join(root, 'dev/scsi/by-id')
            for d in LUND_DIRS:
                shutil.rmtree(os.path.join(root, d.lstrip('/')), ignore_errors=True)
            os.makedirs(run_dir)
            lund = subprocess.Popen([LUND, '--root', root, '--run-dir', run_dir, '--no-monitor',
                                     '--scan', 'never', '--load-modules', 'never',
                                     '--manage-disk-links', '--log-level', 'err'] + mode,
                                    env=env, stderr=subprocess.PIPE)
            denv = dict(env, LUND_RUN_DIR=run_dir)
            try:
                for _ in range(300):
                    if subprocess.run([LUNCTL, 'status'], env=denv,
                                      capture_output=True).returncode == 0:
                        break
                    if lund.poll() is not None:
                        raise RuntimeError('lund exited: %s' % lund.stderr.read()[:300])
                    time.sleep(0.1)
                # LUs the kernel cached too little of are identified with SG_IO off lund's
                # loop: wait until those are done.
                run([LUNCTL, 'settle', '--timeout', '120'], denv)
                served = {}
                for hctl, _, _ in lus:
                    served[hctl] = json.loads(run([LUNCTL, 'names', '--json', hctl], denv))
                status = json.loads(run([LUNCTL, 'status', '--json'], denv))
                kinds = {os.path.basename(c['path']): c['kind']
                         for c in status.get('collisions', [])}
                groups = json.loads(run([LUNCTL, 'names', '--paths', '--json'], denv))['paths']
                owners = {(frozenset(c['owners']), c['winner'])
                          for c in status.get('collisions', []) if c['kind'] == 'paths'}
                checks += 1
                if {(frozenset(g['paths']), g['active']) for g in groups} != owners or \
                        sum(len(g['names']) for g in groups) != \
                        sum(c['kind'] == 'paths' for c in status.get('collisions', [])):
                    print('FAIL: (%s) names --paths %r does not group status\'s paths %r' %
                          (tag, groups, sorted(owners, key=str)))
                    fail = 1
                # list's JSON carries paths only with the PATHS column, so lund's listing
                # stays the one computed from sysfs alone (lunctl(8), JSON OUTPUT).
                plain = json.loads(run([LUNCTL, 'list', '--json'], denv))['logical_units']
                wide = json.loads(run([LUNCTL, 'list', '--json', '-o', '+PATHS'],
                                      denv))['logical_units']
                with_paths = {lu['hctl'] for lu in wide if lu.get('paths')}
                want_paths = {h for g in groups for h in g['paths']}
                checks += 1
                if any('paths' in lu for lu in plain) or with_paths != want_paths:
                    print('FAIL: (%s) list --json paths: plain %d with, +PATHS %r, want %r' %
                          (tag, sum('paths' in lu for lu in plain), sorted(with_paths),
                           sorted(want_paths)))
                    fail = 1
                made, made_links = {}, {}
                for n in os.listdir(links_dir):
                    target = os.path.basename(os.readlink(os.path.join(links_dir, n)))
                    made[re.sub(r'-sg$', '', n)] = target
                    made_links[n] = target
            finally:
                lund.send_signal(signal.SIGTERM)
                lund.wait()

            wanted, wanted_links = {}, {}
            for hctl, label, sg in lus:
                idj = json.loads(run([LUNCTL, '--root', root] + mode +
                                     ['id', '--json', hctl], env))
                r = subprocess.run([LUNCTL, '--root', root] + mode + ['names', '--json', hctl],
                                   env=env, capture_output=True, text=True)
                mine = json.loads(r.stdout) if r.returncode == 0 else {}
                checks += 1
                if mine.get('names') != idj['names']:
                    print('FAIL: %s (%s): lunctl names %s, lunctl id %s: %s' %
                          (label, tag, mine.get('names'), idj['names'], r.stderr.strip()))
                    fail = 1
                mine['names'] = idj['names']
                ids = [l for l in run([LUNCTL, '--root', root] + mode +
                                      ['id', '--export', hctl], env).splitlines()
                       if l.startswith('ID_')]
                lund_props = ['%s=%s' % kv for kv in served[hctl].get('properties', {}).items()]
                checks += 3
                if served[hctl].get('names') != mine['names']:
                    print('FAIL: %s (%s): lund names %s, lunctl names %s' %
                          (label, tag, served[hctl].get('names'), mine['names']))
                    fail = 1
                if lund_props != ids:
                    print('FAIL: %s (%s): lund\'s properties differ from lunctl id --export:' %
                          (label, tag))
                    for l in sorted(set(lund_props) ^ set(ids)):
                        print('   %s %s' % ('lund  ' if l in lund_props else 'lunctl', l))
                    fail = 1
                for k in ('serial', 'wwn'):
                    if served[hctl].get(k) != mine.get(k):
                        print('FAIL: %s (%s): lund %s %r, lunctl %r' %
                              (label, tag, k, served[hctl].get(k), mine.get(k)))
                        fail = 1
                for n in mine['names']:
                    wanted.setdefault(n, set()).add(sg)
                # Every link of the LU, whoever computes it: lund's claims (path, node, alias)
                # and the links lunctl lists in the directories lund manages.
                theirs = sorted((l.get('path'), os.path.basename(l.get('target') or ''),
                                 l.get('alias')) for l in served[hctl].get('links', []))
                ours = sorted((l['path'], l['node'], l['alias']) for l in mine.get('links', [])
                              if os.path.dirname(l['path']) in LUND_DIRS)
                checks += 1
                if theirs != ours:
                    print('FAIL: %s (%s): lund\'s links differ from lunctl names\':' %
                          (label, tag))
                    for l in sorted(set(theirs) ^ set(ours), key=str):
                        print('   %s %s -> %s%s' % ('lund  ' if l in theirs else 'lunctl', l[0],
                                                    l[1], ' (alias)' if l[2] else ''))
                    fail = 1
                checks += 1
                if any(not l.get('reason') for l in mine.get('links', [])):
                    print('FAIL: %s (%s): lunctl names gives a link without a reason: %r' %
                          (label, tag, mine.get('links')))
                    fail = 1
                for l in mine.get('links', []):
                    if os.path.dirname(l['path']) == '/dev/scsi/by-id':
                        wanted_links.setdefault(os.path.basename(l['path']),
                                                set()).add(l['node'])
            # Every link lund made is a name lunctl gives the LU it points to, and every name
            # lunctl gives has a link (to one of the LUs wanting it: a collision has one winner).
            checks += 1
            for n, target in sorted(made.items()):
                if not any(target in NODES[x] for x in wanted.get(n, ())):
                    print('FAIL: (%s) lund linked %s -> %s, which lunctl does not name so' %
                          (tag, n, target))
                    fail = 1
            quarantined = {n for n, sgs in wanted.items()
                           if len(sgs) > 1 and not are_paths(KEYS[x] for x in sgs)}
            for n, sgs in sorted(wanted.items()):
                if len(sgs) < 2:
                    continue
                want = 'clones' if n in quarantined else 'paths'
                # every LU here has an sg node; the plain name only where its node exists
                for name in [x for x in (n, n + '-sg') if x in kinds or x.endswith('-sg')]:
                    checks += 1
                    if kinds.get(name) != want:
                        print('FAIL: (%s) lund status says %s is %r, %s are %s' %
                              (tag, name, kinds.get(name), sorted(sgs), want))
                        fail = 1
            # The same per link written: every link lund wrote is one lunctl lists with that
            # node, and every link lunctl lists is written unless its name is quarantined.
            checks += 1
            for n, target in sorted(made_links.items()):
                if target not in wanted_links.get(n, ()):
                    print('FAIL: (%s) lund wrote %s -> %s, which lunctl names does not list' %
                          (tag, n, target))
                    fail = 1
            for n in sorted(set(wanted_links) - set(made_links)):
                if re.sub(r'-(sg|nst)$', '', n) not in quarantined:
                    print('FAIL: (%s) no link %s, lunctl names lists it -> %s' %
                          (tag, n, sorted(wanted_links[n])))
                    fail = 1
            for n in sorted(quarantined & set(made)):
                print('FAIL: (%s) %s linked, but %s are clones' % (tag, n, sorted(wanted[n])))
                fail = 1
            for n in sorted(set(wanted) - set(made) - quarantined):
                print('FAIL: (%s) no link %s, lunctl names %s so' % (tag, n, sorted(wanted[n])))
                fail = 1
            print('identify-same (%s): %d LUs, %d links, %d names quarantined' %
                  (tag, len(lus), len(made_links), len(quarantined)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('identify-same: %d checks, %s' % (checks, 'FAILED' if fail else 'ok'))
    return fail

sys.exit(main())
