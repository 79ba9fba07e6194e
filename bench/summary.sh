#!/usr/bin/env bash
# The runs behind the summary of docs/performance.md: the benchmarks on a few shapes, ROUNDS times each,
# every run's CSVs in its own folder under OUT_DIR; then `python3 bench/summarize.py OUT_DIR`.
#
#   cargo build --release -p tessel-bench --examples
#   bench/summary.sh bench/results/summary "1 2 3"
#
# BENCH_BIN: where the benchmark executables are (default target/release/examples; on a GPU
# machine without cargo, wherever they were copied). Run from the repository root.
set -u
out=${1:?usage: bench/summary.sh OUT_DIR [ROUNDS]}
rounds=${2:-"1 2 3"}
bin=${BENCH_BIN:-target/release/examples}
gemm=2048x2048x2048,4096x4096x4096,8192x8192x8192,128x8192x8192
quant=4096x4096x4096,8192x8192x8192
attention=(BENCH_SEQS=1024,4096,16384 BENCH_DIMS=128 BENCH_CAUSAL=0 BENCH_GQA=none BENCH_PASSES=fwd BENCH_REPEATS=1)
for r in $rounds; do
  d=$out/rust-r$r
  mkdir -p "$d"
  BENCH_SHAPES=$gemm BENCH_OUT=$d "$bin/bench_matmul" > "$d/bench_matmul.log" 2>&1
  BENCH_SHAPES=$quant BENCH_OUT=$d "$bin/bench_qmatmul" > "$d/bench_qmatmul.log" 2>&1
  env "${attention[@]}" BENCH_OUT=$d "$bin/bench_attention" > "$d/bench_attention.log" 2>&1
  echo "round $r: tessel benchmarks done"
done
for r in $rounds; do
  d=$out/py-r$r
  mkdir -p "$d"
  env "${attention[@]}" BENCH_IMPLS=cudnn,pallas BENCH_OUT=$d python3 bench/attention_baselines.py \
    > "$d/attention_baselines.log" 2>&1
  # The Pallas configurations its tuning chose (bench/results/pallas_matmul.csv), to skip tuning.
  BENCH_SHAPES=$gemm BENCH_CONFIGS=bench/results/pallas_matmul.csv BENCH_OUT=$d python3 bench/pallas_matmul.py \
    > "$d/pallas_matmul.log" 2>&1
  echo "round $r: baselines done"
done
python3 bench/summarize.py "$out"
