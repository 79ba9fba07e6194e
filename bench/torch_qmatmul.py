#!/usr/bin/env python3
"""PyTorch's quantized GEMMs on the shapes of bench/examples/bench_qmatmul.rs, for comparison with
tessel's fp8 and int8 kernels (kernels/src/quantized.rs).

    PYTHONUNBUFFERED=1 BENCH_OUT=$OUT python3 bench/torch_qmatmul.py

Implementations, all computing C[M,N] from A[M,K] and W[N,K] (both row-major, K-major: W is
passed as w.t(), the column-major K x N operand these ops want):
  * "scaled_mm tensor": torch._scaled_mm, fp8 e4m3 x e4m3 into bf16, per-tensor scales (two f32
    scalars; cuBLASLt underneath);
  * "scaled_mm row": the same with rowwise scales, scale_a [M,1] and scale_b [1,N] in f32 (what
    tessel's kernel computes: one scale per row of A and per row of W; a CUTLASS kernel
    underneath on Hopper);
  * each of those also with use_fast_accum=True ("... fast"): no periodic promotion of the partial
    sums out of the tensor cores' accumulators, which is how tessel's kernel accumulates;
  * "int_mm": torch._int_mm, int8 x int8 into the unscaled int32 accumulator (cuBLASLt's IMMA),
    so it writes 4-byte C where tessel writes scaled bf16 C.
Rates are 2MNK / median time: TFLOP/s for fp8, TOP/s for int8 (dense peak of both on H100 SXM and
H200: 1979).

Protocol, per shape and implementation (bench_qmatmul's inputs; its timing, except that the
implementations are timed one after the other, not interleaved):
  * inputs: N(0,1) from torch's generator (fixed seed), quantized as bench_qmatmul does: fp8 takes
    e4m3(x) with scales 0.5 (A) and 0.25 (W); int8 takes round(32 x) clamped to [-127, 127] with
    scales 1/32. When one set of A, W and C is smaller than twice the L2, launches rotate over
    enough sets to exceed that (each call allocates its C, as a model's would);
  * check: 64 rows of C spread over M against an f64 product of the same inputs and scales (the
    int32 result scaled first): max|c - ref| / max|ref| over those rows, bound 1e-2;
  * timing: 10 warm-up launches, then BENCH_RUNS (default 50) launches back to back, each between
    two CUDA events, median. The timed launches are queued behind torch.cuda._sleep, so that no
    event pair contains time the GPU spent waiting for Python to queue the launch.
A case that raises (an op or a layout this PyTorch does not support) is reported and skipped.

Environment: BENCH_SHAPES (comma-separated MxNxK; default the six shapes of bench_qmatmul),
BENCH_IMPLS (a comma-separated subset of the names above), BENCH_RUNS, BENCH_L2_MB (default: the
device's L2), BENCH_OUT (the directory of bench_qmatmul_torch.csv; default bench/results). The
table is the last lines of the output. Without a GPU it says so and exits 0; exit status 1 means
a result missed the bound.
"""
import csv
import math
import os
import statistics
import sys

SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
          (8192, 8192, 1024), (8192, 8192, 16384), (128, 8192, 8192)]
IMPLS = ["scaled_mm tensor", "scaled_mm tensor fast", "scaled_mm row", "scaled_mm row fast", "int_mm"]
WARMUP = 10
TOLERANCE = 1e-2
CHECKED_ROWS = 64
# fp8: e4m3(x) with scales 0.5 and 0.25; int8: round(32 x) with scales 1/32 (bench_qmatmul's).
FP8_SCALES = (0.5, 0.25)
INT8_STEPS = 32.0
# GPU cycles torch.cuda._sleep holds the stream for while a batch of launches is queued (about
# 50 ms at the H200's 1.98 GHz: far more than queuing one batch takes).
GATE_CYCLES = 100_000_000


def env_list(name, default):
    value = os.environ.get(name, "").strip()
    return [v.strip() for v in value.split(",")] if value else default


def parse_shape(text):
    dims = [int(d) for d in text.split("x")]
    if len(dims) != 3:
        sys.exit(f"torch_qmatmul: shape `{text}` is not MxNxK")
    return tuple(dims)


class Case:
    """One implementation: its call on one (A, W) set, and the factor that scales its C."""

    def __init__(self, torch, impl, m, n):
        self.impl = impl
        self.int8 = impl == "int_mm"
        self.unit = "TOP/s" if self.int8 else "TFLOP/s"
        if self.int8:
            # The int32 accumulator, unscaled.
            self.out_scale = (1 / INT8_STEPS) ** 2
            self.call = lambda a, w: torch._int_mm(a, w.t())
            return
        fast = impl.endswith(" fast")
        if impl.startswith("scaled_mm tensor"):
            scale_a, scale_b = (torch.tensor(s, dtype=torch.float32, device="cuda") for s in FP8_SCALES)
        else:
            scale_a = torch.full((m, 1), FP8_SCALES[0], dtype=torch.float32, device="cuda")
            scale_b = torch.full((1, n), FP8_SCALES[1], dtype=torch.float32, device="cuda")
        self.out_scale = 1.0  # _scaled_mm applies the scales itself
        self.call = lambda a, w: torch._scaled_mm(a, w.t(), scale_a=scale_a, scale_b=scale_b,
                                                  out_dtype=torch.bfloat16, use_fast_accum=fast)


def make_sets(torch, m, n, k, int8, l2):
    """Enough (A, W) pairs of quantized N(0,1) values that one round over them exceeds 2 x L2."""
    set_bytes = (m + n) * k + m * n * (4 if int8 else 2)
    count = max(1, math.ceil(2 * l2 / set_bytes))
    gen = torch.Generator(device="cuda").manual_seed(0)

    def quantized(rows):
        x = torch.randn(rows, k, device="cuda", generator=gen)
        if int8:
            return (x * INT8_STEPS).round().clamp(-127, 127).to(torch.int8)
        return x.to(torch.float8_e4m3fn)

    return [(quantized(m), quantized(n)) for _ in range(count)]


def rel_err(torch, case, a, w, c):
    """max|c - ref| / max|ref| over CHECKED_ROWS rows spread over M; ref in f64."""
    rows = sorted({r * a.shape[0] // CHECKED_ROWS for r in range(CHECKED_ROWS)})
    scales = (1 / INT8_STEPS) ** 2 if case.int8 else FP8_SCALES[0] * FP8_SCALES[1]
    # Through f32, which holds every fp8 and int8 value exactly.
    want = (a[rows].float().double() @ w.float().double().t()) * scales
    got = c[rows].double() * case.out_scale
    if not torch.isfinite(got).all():
        return float("inf")
    return ((got - want).abs().max() / want.abs().max()).item()


def time_case(torch, case, sets, runs):
    """Median ms of `runs` launches, each between CUDA events, rotating over `sets`."""
    for i in range(WARMUP):
        case.call(*sets[i % len(sets)])
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
    torch.cuda.synchronize()
    if hasattr(torch.cuda, "_sleep"):
        torch.cuda._sleep(GATE_CYCLES)
    for i, (start, end) in enumerate(events):
        a, w = sets[(WARMUP + i) % len(sets)]
        start.record()
        case.call(a, w)
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


def bench_shape(torch, shape, impls, runs, l2):
    m, n, k = shape
    rows = []
    for int8 in (False, True):
        names = [i for i in impls if (i == "int_mm") == int8]
        if not names:
            continue
        sets = make_sets(torch, m, n, k, int8, l2)
        for impl in names:
            case = Case(torch, impl, m, n)
            try:
                err = rel_err(torch, case, *sets[0], case.call(*sets[0]))
                ms = time_case(torch, case, sets, runs)
                rows.append((shape, impl, case.unit, ms, err, f"{len(sets)} set(s)"))
            except Exception as e:  # an op or layout this PyTorch does not take
                rows.append((shape, impl, case.unit, None, None, f"{type(e).__name__}: {e}"[:160]))
            print(row_text(rows[-1]), flush=True)
        del sets
        torch.cuda.empty_cache()
    return rows


def cells(row):
    (m, n, k), impl, unit, ms, err, note = row
    rate = f"{2 * m * n * k / (ms * 1e-3) / 1e12:.1f}" if ms is not None else "-"
    return [f"{m}x{n}x{k}", impl, f"{ms:.4f}" if ms is not None else "-", rate, unit,
            f"{err:.2e}" if err is not None else "-", note]


WIDTHS = [15, 21, 8, 9, 7, 8, 0]


def row_text(row):
    return "  ".join(f"{c:>{w}}" for c, w in zip(cells(row), WIDTHS))


def main():
    try:
        import torch
        gpu = torch.cuda.is_available()
    except ImportError:
        gpu = False
    if not gpu:
        print("torch_qmatmul: no GPU here (PyTorch with CUDA not found): nothing to measure")
        return 0
    shapes = [parse_shape(s) for s in env_list("BENCH_SHAPES", [])] or SHAPES
    impls = env_list("BENCH_IMPLS", IMPLS)
    unknown = [i for i in impls if i not in IMPLS]
    if unknown:
        sys.exit(f"torch_qmatmul: BENCH_IMPLS: {unknown} not among {IMPLS}")
    runs = max(1, int(os.environ.get("BENCH_RUNS", "50") or 50))
    props = torch.cuda.get_device_properties(0)
    l2_mb = os.environ.get("BENCH_L2_MB", "").strip()
    l2 = int(l2_mb) << 20 if l2_mb else getattr(props, "L2_cache_size", 60 << 20)
    print(f"torch_qmatmul on {props.name}, PyTorch {torch.__version__} (CUDA {torch.version.cuda}): "
          f"L2 {l2 >> 20} MiB, {WARMUP} warm-up + {runs} timed launches, back to back, median", flush=True)
    rows = []
    for shape in shapes:
        rows += bench_shape(torch, shape, impls, runs, l2)
    failed = [r for r in rows if r[4] is not None and not r[4] <= TOLERANCE]
    out_dir = os.environ.get("BENCH_OUT", "bench/results")
    header = ["shape", "impl", "ms", "rate", "unit", "rel err", "note"]
    try:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "bench_qmatmul_torch.csv"), "w", newline="") as f:
            csv.writer(f).writerows([header] + [cells(row) for row in rows])
        print(f"wrote {out_dir}/bench_qmatmul_torch.csv")
    except OSError as e:
        print(f"could not write the CSV: {e}")
    if failed:
        print(f"FAILED: {len(failed)} result(s) off by more than {TOLERANCE:.0e} (lines above)")
    print("rate: 2MNK / median time, TFLOP/s for fp8 and TOP/s for int8; int_mm writes unscaled int32 C")
    print()
    print("  ".join(f"{c:>{w}}" for c, w in zip(header, WIDTHS)))
    for row in rows:
        print(row_text(row))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
