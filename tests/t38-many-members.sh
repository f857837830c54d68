#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t38-many-members.sh - an archive of 20,000 one-record NAME.blktrace.N
# members, and a folder of 2,000 such files, read under 256 open files and
# a 1 GB address space: each member once kept its own libarchive handle
# (about 230 KB and a descriptor) for the whole merge.  Peak memory is
# measured in make bench (scripts/bench.sh), not here.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

cd "$TMP"
python3 - <<'PY'
import io, os, struct, tarfile

Q = 1 | (1 << 16) << 1 | (1 << 16) << 4      # queue, write, category queue
def rec(cpu, t):
    return struct.pack('<IIQQIIIIIHH', 0x65617407, 1, t, 8 * t, 4096, Q,
                       100 + cpu % 7, (7 << 20) | 1, cpu, 0, 0)

with tarfile.open('many.tar.gz', 'w:gz') as tar:
    for cpu in range(20000):
        data = rec(cpu, 1000 + cpu)
        ti = tarfile.TarInfo('many/trace/loop1.blktrace.%d' % cpu)
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
os.mkdir('folder')
for cpu in range(2000):
    with open('folder/loop1.blktrace.%d' % cpu, 'wb') as f:
        f.write(rec(cpu, 5000 - cpu))
PY

limits() {
	ulimit -n 256
	# AddressSanitizer reserves terabytes of address space: no -v for it.
	if ! ldd "$WCANALYZE" | grep libasan >/dev/null; then
		ulimit -v 1048576
	fi
	"$@"
}
rc=0
(limits "$WCANALYZE" --dump many.tar.gz >many.out 2>many.err) || rc=$?
[[ $rc -eq 0 ]] || fail "archive: exit $rc: $(head -3 many.err)"
[[ $(grep -c ' Q ' many.out) -eq 20000 ]] || fail "archive: expected 20000 events, got $(grep -c ' Q ' many.out)"
(limits "$WCANALYZE" --format json many.tar.gz >many.json 2>many.err) || fail "archive analysis: $(head -3 many.err)"
(limits "$WCANALYZE" --dump folder >folder.out 2>folder.err) || fail "folder: $(head -3 folder.err)"
[[ $(grep -c ' Q ' folder.out) -eq 2000 ]] || fail "folder: expected 2000 events"
# Time order across the files: the folder's times run backwards by CPU.
sort -s -k4,4n folder.out | cmp -s - folder.out || fail "folder: events not in time order"
echo "ok: 20000 members and 2000 files under 256 open files"
