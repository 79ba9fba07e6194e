#!/usr/bin/env bash
# Runs bench_linear over 16 split-K shapes RUNS times (default 6), each under a 25 s timeout (a
# normal run takes 10-12 s on the H200), and prints one line per run. A faster exchange that
# signalled each program's own semaphore hung in 8 of 17 such runs (2026-11-30); the cause was a
# producer warp's wait for a free stage (docs/experiments.md); with that fixed, the kernels ran 10
# without a hang (bench/results/split/hang-check-*.txt). Any change to the split-K kernels or to
# the pipelines' waits should pass this before it lands.
#
# Usage, on a GPU machine, after `cargo build --release -p tessel-bench --examples`:
#   bench/split_hang_check.sh target/release/examples/bench_linear [RUNS]
set -u
bin=${1:?usage: $0 path/to/bench_linear [runs]}
runs=${2:-6}
out=${OUT:-/tmp}/split-hang-check
mkdir -p "$out"
shapes=80x4096x14336,128x4096x14336,128x1024x14336,128x4096x8192,128x2048x8192,96x1024x8192,256x2048x8192
shapes=$shapes,128x4096x4096,128x2048x4096,128x1024x4096,128x8192x8192,256x1024x8192,128x1024x8192
shapes=$shapes,128x5632x8192,192x2048x4096,256x1024x4096
hung=0
for i in $(seq 1 "$runs"); do
  start=$SECONDS
  BENCH_SHAPES=$shapes BENCH_DTYPES=bias,gelu BENCH_VARIANTS=narrow BENCH_OUT="$out/csv" \
    timeout 25 "$bin" > "$out/run-$i.txt" 2>&1
  rc=$?
  [ "$rc" = 124 ] && hung=$((hung + 1))
  echo "run $i: exit $rc after $((SECONDS - start)) s; last line: $(tail -1 "$out/run-$i.txt" | cut -c1-70)"
done
echo "$hung of $runs runs hung"
[ "$hung" = 0 ]
