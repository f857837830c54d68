#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check-trace-event.py FILE [MIN_SLICES] - checks a Trace Event Format
file (JSON object form) as its documentation asks, and as wcanalyze
promises (analyze/lib/model/traceevent.h):

  - the file (gzip-compressed when its name ends in .gz, as the bundle
    writes it: one gzip member) is one JSON object whose traceEvents is
    a list;
  - every event has ph, ts, pid and tid; ts is a number;
  - on every thread (pid, tid), B and E pair: never an E without an open
    B, none left open at the end;
  - on every thread, ts never decreases;
  - a counter (C) has a name and numeric args;
  - at least MIN_SLICES B events (default 1).

Prints one line of counts; exits 1 with the first problem found.
"""
import gzip
import json
import sys
from collections import defaultdict


def fail(msg):
    print("check-trace-event: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    path = sys.argv[1]
    min_slices = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            fail("%s: not whole gzip: %s" % (path, e))
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("%s: not valid UTF-8 JSON: %s" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("%s: no traceEvents list" % path)
    depth = defaultdict(int)
    last = {}
    counts = defaultdict(int)
    for i, ev in enumerate(doc["traceEvents"]):
        for k in ("ph", "ts", "pid", "tid"):
            if k not in ev:
                fail("event %d has no %s: %r" % (i, k, ev))
        if not isinstance(ev["ts"], (int, float)) or isinstance(ev["ts"], bool):
            fail("event %d: ts is not a number" % i)
        track = (ev["pid"], ev["tid"])
        if track in last and ev["ts"] < last[track]:
            fail("event %d: ts %r before %r on thread %r" %
                 (i, ev["ts"], last[track], track))
        last[track] = ev["ts"]
        ph = ev["ph"]
        counts[ph] += 1
        if ph == "B":
            depth[track] += 1
        elif ph == "E":
            if depth[track] == 0:
                fail("event %d: E without B on thread %r" % (i, track))
            depth[track] -= 1
        elif ph == "C":
            args = ev.get("args")
            if not ev.get("name") or not isinstance(args, dict) or not all(
                    isinstance(v, (int, float)) for v in args.values()):
                fail("event %d: counter without name or numeric args" % i)
    open_ = [t for t, d in depth.items() if d]
    if open_:
        fail("B without E on thread %r" % (open_[0],))
    if counts["B"] < min_slices:
        fail("%d slices, expected at least %d" % (counts["B"], min_slices))
    print("events %d B %d E %d C %d M %d threads %d" %
          (len(doc["traceEvents"]), counts["B"], counts["E"], counts["C"],
           counts["M"], len(last)))


main()
