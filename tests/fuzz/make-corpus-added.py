#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make-corpus-added.py - the seed corpora of fuzz_interval, fuzz_timeline,
fuzz_whatif and fuzz_diskparams (tests/fuzz/corpus-*), from corpus-trace's
small traces, hand-made requests far apart in time, and the installed
disks (capture/disks).  Run from the repository's top; rewrites them."""
import os
import struct

SEP = b"\nWCFUZZ\n"


def act(what, *cats):
    return what | sum(1 << (16 + c) for c in cats)


def records(recs):
    out = b""
    for seq, (t, sector, nbytes, a) in enumerate(recs, 1):
        out += struct.pack('<IIQQIIIIIHH', 0x65617407, seq, t, sector, nbytes,
                           a, 100, (7 << 20) | 1, 0, 0, 0)
    return out


def request(t, lat, rw, sector, flush=False):
    cat = (1, 9) if flush else (rw,)
    n = 0 if flush else 4096
    return [(t, sector, n, act(1, *cat, 4)), (t + 1000, sector, n, act(7, *cat, 6)),
            (t + 1000 + lat, sector, n, act(8, *cat, 7))]


t0 = 10 ** 9
far = records(request(t0, 1 << 58, 1, 8) + request(t0 + (1 << 58) + 5000, 1000, 0, 16))
wrap = records(request(t0, 1 << 63, 1, 8) + request(t0 + 10, 2000, 1, 64, True))
flood = records([(t0 + i * 1000, 8 * i, 4096, act(7, 1, 6)) for i in range(200)])
busy = records(sum((request(t0 + i * 2000000, 1500000 + i * 1000, i % 2, 8 * i)
                    for i in range(40)), []))
small = {n: open('tests/fuzz/corpus-trace/' + n, 'rb').read()
         for n in ('xfs', 'ext4', 'btt-dupq', 'xfs-notify')}
traces = {'far': far, 'wrap': wrap, 'flood': flood, 'busy': busy}
traces.update(small)

conf = b"destination = 7,1\ndevice.loop1.dev = 7:1\nwrite_cache = on\nbarrier = on\n"
phases = b"copy\t1000000000\t1500000000\t0.5\t0\t0\ndelete\t1500000000\t%d\t1\t0\t0\n" % (t0 + (1 << 63) + 5)


def seed(corpus, name, opts, trace, c=conf, ph=phases):
    os.makedirs('tests/fuzz/corpus-' + corpus, exist_ok=True)
    with open('tests/fuzz/corpus-%s/%s' % (corpus, name), 'wb') as f:
        f.write(opts + SEP + c + SEP + ph + SEP + trace)


for name, tr in traces.items():
    seed('interval', name, b"interval 0.001", tr)
    seed('timeline', name, b"limit 3", tr)
seed('interval', 'far-filtered', b"interval 1\nwindow 0,100\ndevice 7,1\nprocess 100", far)
seed('interval', 'busy-phase', b"interval 0.0005\nphase copy", busy)
seed('timeline', 'busy-nolimit', b"limit 0\nwindow 0.01,0.05", busy)
seed('timeline', 'busy-process', b"limit 7\nprocess 100\nphase delete", busy)
for name in ('busy', 'xfs', 'ext4', 'far', 'wrap'):
    seed('whatif', name, b"whatif cache=off\nwhatif disk=ssd,barrier=off", traces[name])
seed('whatif', 'busy-model', b"whatif queue_depth=1\nwhatif kernel=2.6.24",
     busy, conf + b"disk_model = hdd7200\nfs = ext4\n")
seed('whatif', 'busy-badmodel', b"whatif capacity=1048576", busy,
     conf + b"disk_model = /etc/passwd\n")

os.makedirs('tests/fuzz/corpus-diskparams', exist_ok=True)
for d in os.listdir('capture/disks'):
    with open('capture/disks/' + d, 'rb') as f, \
            open('tests/fuzz/corpus-diskparams/' + d, 'wb') as g:
        g.write(f.read())
for name, text in (('nul', b"queue_depth = 4\n\0\0\0\n"), ('name', b"ssd-plp"),
                   ('badline', b"cache_kib 8192\n# c\n\nrpm = 0\n")):
    with open('tests/fuzz/corpus-diskparams/' + name, 'wb') as f:
        f.write(text)
