#!/usr/bin/env bash
# Runs a command up to RUNS times (default 6), each for at most SECONDS (default 25); the first
# time it is still running then, attaches cuda-gdb and writes where every warp of the hung kernel
# is (bench/gdb_where.py) to $OUT/gdb-where.txt, then kills it. For a hang that comes now and then:
# the split-K kernels' producer-wait hang was found this way (docs/experiments.md).
#
# Usage, on the GPU machine:
#   BENCH_SHAPES=... bench/catch_hang.sh [RUNS] [SECONDS] -- target/release/examples/bench_linear
set -u
runs=${1:-6}; limit=${2:-25}
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
shift || { echo "usage: $0 [RUNS] [SECONDS] -- command..." >&2; exit 2; }
out=${OUT:-/tmp}
gdb=$(command -v cuda-gdb || ls /usr/local/cuda*/bin/cuda-gdb 2>/dev/null | head -1)
[ -n "$gdb" ] || echo "no cuda-gdb here: a hang is reported, not examined" >&2
for i in $(seq 1 "$runs"); do
  "$@" > "$out/catch-run-$i.txt" 2>&1 &
  pid=$!
  for _ in $(seq 1 "$limit"); do sleep 1; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "run $i hung; last line: $(tail -1 "$out/catch-run-$i.txt" | cut -c1-80)"
    if [ -n "$gdb" ]; then
      timeout 200 "$gdb" -q -batch -p $pid -x "$(dirname "$0")/gdb_where.py" > "$out/gdb-where.txt" 2>&1
      echo "cuda-gdb exit $?: $out/gdb-where.txt"
    fi
    kill -9 $pid; wait $pid 2>/dev/null
    exit 1
  fi
  wait $pid; echo "run $i: exit $?"
done
echo "no hang in $runs runs"
