#!/usr/bin/env python3
"""Medians and ranges over several runs of the benchmarks: the summary of docs/performance.md.

    python3 bench/summarize.py bench/results/summary

reads DIR/rust-r*/ (CSVs of bench_matmul, bench_qmatmul, bench_attention, each run with BENCH_OUT
set to its own folder) and DIR/py-r*/ (CSVs of pallas_matmul.py and attention_baselines.py) and
prints, per shape, the median and range of each implementation's rate and of tessel's ratio. GEMM
ratios are per run (the contenders timed interleaved in one process); attention ratios are the
ratio of the medians (tessel and the Python baselines run in separate processes).
"""
import csv
import glob
import os
import statistics
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def spread(xs):
    return f"{statistics.median(xs):.1f} ({min(xs):.1f}-{max(xs):.1f})"


def ratio_spread(xs):
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def collect(pattern, key, fields):
    """{key(row): {field: [value per run]}} over every CSV matching pattern."""
    out = {}
    for path in sorted(glob.glob(pattern)):
        for row in rows(path):
            values = out.setdefault(key(row), {})
            for field in fields:
                if row.get(field) not in (None, "", "-"):
                    values.setdefault(field, []).append(float(row[field]))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    runs = len(glob.glob(os.path.join(d, "rust-r*")))
    print(f"{runs} runs; median (min-max)")

    gemm = collect(f"{d}/rust-r*/bench_matmul.csv", lambda r: (r["shape"], r["dtype"]),
                   ["tessel TFLOP/s", "cuBLAS TFLOP/s", "ratio"])
    pallas = collect(f"{d}/py-r*/pallas_matmul.csv", lambda r: (r["shape"], r["dtype"]),
                     ["interleaved", "xla dot", "pallas/xla"])
    print("\nGEMM: tessel, cuBLAS, tessel/cuBLAS | Pallas, XLA dot, Pallas/XLA")
    for k, v in gemm.items():
        line = f"{k[0]} {k[1]}: {spread(v['tessel TFLOP/s'])}, {spread(v['cuBLAS TFLOP/s'])}, " \
               f"{ratio_spread(v['ratio'])}"
        if k in pallas:
            p = pallas[k]
            line += f" | {spread(p['interleaved'])}, {spread(p['xla dot'])}, {ratio_spread(p['pallas/xla'])}"
        print(line)

    quant = collect(f"{d}/rust-r*/bench_qmatmul.csv", lambda r: (r["shape"], r["dtype"]),
                    ["tessel T(FL)OP/s", "cuBLASLt T(FL)OP/s", "ratio"])
    print("\nQuantized GEMM: tessel, cuBLASLt, tessel/cuBLASLt")
    for k, v in quant.items():
        print(f"{k[0]} {k[1]}: {spread(v['tessel T(FL)OP/s'])}, {spread(v['cuBLASLt T(FL)OP/s'])}, "
              f"{ratio_spread(v['ratio'])}")

    attention = {}
    for path in sorted(glob.glob(f"{d}/rust-r*/bench_attention.csv")):
        for r in rows(path):
            case = (r.get("pass", "fwd"), r["dtype"], r["causal"], r["heads"], r.get("kv heads", r["heads"]), r["seq"],
                    r["d"])
            attention.setdefault(case, {}).setdefault("tessel", []).append(float(r["TFLOP/s"]))
    for path in sorted(glob.glob(f"{d}/py-r*/attention_baselines.csv")):
        for r in rows(path):
            if r["TFLOP/s"] in ("", "-"):
                continue
            case = (r.get("pass", "fwd"), r["dtype"], r["causal"], r["heads"], r.get("kv heads", r["heads"]), r["seq"],
                    r["d"])
            attention.setdefault(case, {}).setdefault(r["impl"], []).append(float(r["TFLOP/s"]))
    print("\nAttention (pass, dtype, causal, heads, K/V heads, S, D): each implementation; tessel / each (ratio of medians)")
    for case, v in attention.items():
        if "tessel" not in v:
            continue
        parts = [f"{impl} {spread(xs)}" for impl, xs in v.items()]
        t = statistics.median(v["tessel"])
        ratios = [f"/{impl} {t / statistics.median(xs):.3f}" for impl, xs in v.items() if impl != "tessel"]
        print(f"{' '.join(case)}: {', '.join(parts)}; tessel {' '.join(ratios)}")


main()
