#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The JSON lunctl prints holds what lunctl(8) JSON OUTPUT and lund(8) CONTROL PROTOCOL say.
Usage: check-json.py KIND=FILE...  (KIND: status, list, id, names-lund, names-local, settle,
decode-sense, decode-luns). Prints one line per fault; exit 1 on any."""
import json
import sys

faults = []
S, I, B, N = str, int, bool, type(None)


def need(obj, where, spec):
    """spec: {key: type or tuple of types, or a function(value, where)}; every key must be there."""
    if not isinstance(obj, dict):
        faults.append(f"{where}: not an object")
        return
    for k, t in spec.items():
        if k not in obj:
            faults.append(f"{where}: no '{k}'")
        elif callable(t) and not isinstance(t, type) and not isinstance(t, tuple):
            t(obj[k], f"{where}.{k}")
        elif not isinstance(obj[k], t) or (t is I and isinstance(obj[k], bool)):
            faults.append(f"{where}.{k}: {type(obj[k]).__name__}, expected {t}")


def array_of(check):
    def f(v, where):
        if not isinstance(v, list):
            faults.append(f"{where}: not an array")
            return
        for i, x in enumerate(v):
            check(x, f"{where}[{i}]")
    return f


def strings(v, where):
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        faults.append(f"{where}: not an array of strings")


def str_map(v, where):
    if not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values()):
        faults.append(f"{where}: not an object of strings")


def nodes(v, where):
    if not isinstance(v, dict) or not all(isinstance(x, (str, int, N)) for x in v.values()):
        faults.append(f"{where}: not a node object")


def lu(v, where):
    need(v, where, {"hctl": S, "host": I, "channel": I, "target": I, "lun": I, "type": I,
                    "type_name": (S, N), "vendor": (S, N), "model": (S, N), "revision": (S, N),
                    "nodes": nodes,
                    "names": strings, "links": array_of(link)})


def link(v, where):
    need(v, where, {"path": S, "state": S})
    if isinstance(v, dict) and v.get("state") not in ("linked", "foreign", "collision",
                                                      "quarantined", "pending"):
        faults.append(f"{where}.state: {v.get('state')!r}")


def list_lu(v, where):
    need(v, where, {"hctl": S, "nodes": nodes, "names": strings})
    if isinstance(v, dict) and "error" not in v:
        need(v, where, {"type": (S, N), "properties": str_map})


def collision(v, where):
    need(v, where, {"path": S, "winner": (S, N), "owners": strings, "kind": S})
    if isinstance(v, dict) and v.get("kind") not in ("paths", "clones"):
        faults.append(f"{where}.kind: {v.get('kind')!r}")


CHECKS = {
    "status": lambda o: need(o, "status", {
        "version": S, "protocol": I, "pid": I, "uptime_usec": I, "root": S, "run_dir": S,
        "link_dirs": strings, "hosts": I, "targets": I, "lus": I, "names": I, "links": I,
        "links_failed": I,
        "collisions": array_of(collision), "foreign": strings, "resyncs": I,
        "monitor": (dict, N), "clients": I, "reloads": I, "ready": B, "host_scan": dict}),
    "list": lambda o: need(o, "list", {"source": S, "logical_units": array_of(list_lu)}),
    "id": lambda o: need(o, "id", {"hctl": S, "nodes": nodes, "properties": str_map,
                                   "names": strings, "pages": str_map, "scsi_commands": I}),
    "names-lund": lambda o: lu(o, "names"),
    "names-local": lambda o: need(o, "names", {"hctl": S, "nodes": nodes, "bus": S,
                                               "serial": (S, N), "wwn": (S, N),
                                               "names": strings}),
    "settle": lambda o: need(o, "settle", {
        "settled": B, "scan_running": B, "scans_queued": I, "uevents_pending": B,
        "resync_pending": B, "reload_pending": B, "bind_wait": I, "link_retry_pending": B,
        "links_pending": B}),
    "decode-sense": lambda o: need(o, "decode", {
        "file": S, "kind": S, "length": I, "format": S, "response_code": I, "deferred": B,
        "sense_key": I, "sense_key_name": S, "asc": I, "ascq": I, "asc_text": (S, N),
        "ua_event": (S, N), "filemark": B, "eom": B, "ili": B, "truncated": B}),
    "decode-luns": lambda o: need(o, "decode", {
        "file": S, "kind": S, "length": I,
        "luns": array_of(lambda v, w: need(v, w, {"lun": S, "linux": I, "description": S}))}),
}

for arg in sys.argv[1:]:
    kind, _, path = arg.partition("=")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        faults.append(f"{kind}: {path}: {e}")
        continue
    CHECKS[kind](doc)
    if kind == "status" and isinstance(doc, dict) and "ok" in doc:
        faults.append("status: the reply's 'ok' member was printed")

for f in faults:
    print("FAIL: json:", f)
sys.exit(1 if faults else 0)
