#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# lund's log of the links it writes (lund(8), LOGGING) on a fake sysfs tree: the links an LU's
# uevents bring are one entry for that LU, naming each link, its action and its target, and its
# removal is one more; no entry mixes two LUs' links. The start-up reconciliation of LUs present
# before lund logs its links in entries of at most 64. Thousands of LUs would otherwise log
# eight entries each, past journald's rate limit.
#
#   link-log.sh REPLAY
set -u
REPLAY=$1
. "$(dirname "$0")/lib.sh"
LUS=6
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$REPLAY" --lus $LUS --targets 2 --remove --check 2> "$log" > "$log.out"
rc=$?
check "the replay named and removed every LU (exit $rc)" [ $rc = 0 ]
links=$(sed -n 's/.* links=\([0-9]*\) expected_links=.*/\1/p' "$log.out")
rm -f "$log.out"
check "the replay wrote links ($links)" [ "${links:-0}" -gt $LUS ]

python3 - "$log" "$LUS" "${links:-0}" <<'PY' || fail=1
import re, sys
lines = open(sys.argv[1]).read().splitlines()
lus, links = int(sys.argv[2]), int(sys.argv[3])
ok = True
def expect(cond, what):
    global ok
    if not cond:
        print("FAIL:", what)
        ok = False
item = re.compile(r"^/dev/scsi/by-id/(\S+) (created|removed) -> \.\./\.\./(\S+)$")
for action in ("created", "removed"):
    entries = [l for l in lines if f" {action} -> " in l]
    expect(len(entries) == lus, f"one '{action}' entry per LU: {len(entries)} for {lus} LUs")
    hctls, n = set(), 0
    for e in entries:
        m = re.match(r"^lund: (\d+:\d+:\d+:\d+): (.*)$", e)
        expect(m is not None, f"an entry names its LU: {e[:100]}")
        if not m:
            continue
        hctls.add(m.group(1))
        nodes = set()
        for it in m.group(2).split(", "):
            mi = item.match(it)
            expect(mi is not None and mi.group(2) == action, f"a link of the entry: {it!r}")
            if mi:
                n += 1
                nodes.add(mi.group(3))
        # one disk and one sg node per LU: an entry with more mixes LUs
        kinds = {"sg" if x.startswith("sg") else "block" for x in nodes}
        expect(len(nodes) == len(kinds), f"{m.group(1)}'s {action} entry names one LU's nodes: {sorted(nodes)}")
    expect(len(hctls) == lus, f"every LU has its own '{action}' entry: {sorted(hctls)}")
    expect(n == links, f"every link {action} is in an entry: {n} of {links}")
sys.exit(0 if ok else 1)
PY
# LUs present at the start: the reconciliation's links, 64 to an entry, every one of them
"$REPLAY" --lus 40 --targets 2 --cold 2> "$log" > "$log.out"
rc=$?
check "the cold replay named every LU (exit $rc)" [ $rc = 0 ]
links=$(sed -n 's/.* links=\([0-9]*\) expected_links=.*/\1/p' "$log.out")
rm -f "$log.out"
python3 - "$log" "${links:-0}" <<'PY' || fail=1
import re, sys
links = int(sys.argv[2])
entries = [l for l in open(sys.argv[1]).read().splitlines() if " created -> " in l]
items = [it for e in entries for it in e.split(": ", 1)[1].split(", ")]
ok = links > 64 and len(entries) == (links + 63) // 64 and len(items) == links
ok = ok and all(len(e.split(": ", 1)[1].split(", ")) <= 64 for e in entries)
ok = ok and all(re.match(r"^/dev/scsi/by-id/\S+ created -> \.\./\.\./\S+$", it) for it in items)
if not ok:
    print(f"FAIL: start-up links in entries of 64: {len(entries)} entries, {len(items)} of {links} links")
sys.exit(0 if ok else 1)
PY
echo "link-log: $checks checks"
exit $fail
