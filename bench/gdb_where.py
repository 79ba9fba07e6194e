# Where every warp of a hung kernel is: run inside cuda-gdb attached to the hung process,
#   cuda-gdb -q -batch -p PID -x bench/gdb_where.py
# (bench/catch_hang.sh does that). Prints the running kernels and blocks, each SM's warps (PC,
# block, first active thread), then for each distinct PC the warps there and the SASS around it,
# and detaches. The PCs tell which wait each warp is in: a `SYNCS.PHASECHK` loop is an mbarrier
# wait, `BAR.SYNC` a named or program-wide barrier, an `LDG.E.STRONG.GPU` poll a semaphore wait.
import re

import gdb

SMS = 140  # more than the H200's 132; the missing ones say so
WARP = re.compile(
    r"^\*?\s*(\d+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\d+)\s+\((\d+),(\d+),(\d+)\)\s+\((\d+),(\d+),(\d+)\)"
)


def run(command):
    try:
        return gdb.execute(command, to_string=True)
    except gdb.error as err:
        return "ERR %s: %s\n" % (command, err)


print(run("info cuda kernels"))
print(run("info cuda blocks"))
pcs = {}
for sm in range(SMS):
    if run("cuda sm %d" % sm).startswith("ERR"):
        continue  # no warp of ours on this SM
    warps = run("info cuda warps")
    print("--- sm %d\n%s" % (sm, warps))
    for line in warps.splitlines():
        m = WARP.match(line)
        if m:
            mask = int(m.group(2), 16)
            lane = (mask & -mask).bit_length() - 1 if mask else 0
            pcs.setdefault(m.group(4), []).append((sm, int(m.group(1)), lane, int(m.group(6))))
print("=== distinct PCs")
for pc, where in sorted(pcs.items(), key=lambda kv: -len(kv[1])):
    print("PC %s: %d warps, blocks %s" % (pc, len(where), sorted(set(w[3] for w in where))))
for pc, where in pcs.items():
    sm, warp, lane, block = where[0]
    print("=== PC %s (sm %d, warp %d, lane %d, block %d)" % (pc, sm, warp, lane, block))
    print(run("cuda sm %d warp %d lane %d" % (sm, warp, lane)))
    print(run("x/14i $pc-128"))
gdb.execute("detach")
