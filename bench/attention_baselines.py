#!/usr/bin/env python3
"""The baselines of bench/examples/bench_attention.rs: attention forward passes of other systems on the
same shapes, with the same columns.

    PYTHONUNBUFFERED=1 python3 bench/attention_baselines.py

Implementations:
  * "cudnn": PyTorch's scaled_dot_product_attention with the cuDNN backend (cuDNN's fused
    flash attention for Hopper);
  * "flash2": the same with PyTorch's FLASH_ATTENTION backend (FlashAttention-2);
  * "pallas": JAX Pallas's Mosaic GPU attention (jax.experimental.pallas.ops.gpu.attention_mgpu,
    FlashAttention-3's structure), the fastest of block_kv in (64, 128, 256) with block_q = 64
    (three launches each), then timed in full; it takes f16 only (its bf16 rows say why they are
    empty), and computes softmax(Q K^T) V without a scale, so its queries are scaled beforehand.
Shapes (as bench_attention's): 16384 tokens and a model width of 2048, so heads = (16384 / S) x
(2048 / D) heads of S queries over S keys, without and with a causal mask, D in (64, 128), bf16
and f16. FLOPs = 4 x heads x S x S x D, halved with the mask.

Protocol, per case: inputs N(0,1) (torch's generator, fixed seed); the output is compared with an
f64 reference on 64 rows spread over heads and queries (max error relative to each row's largest
value); 10 warm-up launches, then BENCH_RUNS (default 50) timed ones, median. Timing: CUDA events
around each launch, back to back (torch); JAX's CUPTI timer (profiler.measure: kernel time on the
device) for Pallas.

Environment: BENCH_SEQS, BENCH_DIMS, BENCH_DTYPES, BENCH_CAUSAL ("0,1"), BENCH_RUNS, BENCH_OUT (the CSV's directory;
default bench/results), BENCH_IMPLS ("cudnn,flash2,pallas"). The table is the last lines of the
output. Without a GPU it says so and exits 0.
"""
import csv
import functools
import os
import statistics
import sys

TOKENS, WIDTH = 16384, 2048
WARMUP = 10
CHECKED_ROWS = 64


def env_list(name, default):
    value = os.environ.get(name, "").strip()
    return [v.strip() for v in value.split(",")] if value else default


def flops(heads, seq, d, causal):
    return 4 * heads * seq * seq * d / (2 if causal else 1)


def checked_rows(heads, seq):
    """(head, query) pairs spread over the heads and queries, as bench_attention's."""
    return [(n * heads // CHECKED_ROWS, (n * 2654435761) % seq) for n in range(CHECKED_ROWS)]


def rel_err(torch, q, k, v, o, scale, causal):
    """Max error of o over the checked rows, each relative to its row's largest value.
    q, k, v, o: [heads, seq, d] torch tensors; causal: query r sees keys 0..=r."""
    worst = 0.0
    for h, r in checked_rows(q.shape[0], q.shape[1]):
        seen = r + 1 if causal else k.shape[1]
        logits = (q[h, r].double() @ k[h, :seen].double().T) * scale
        want = torch.softmax(logits, dim=-1) @ v[h, :seen].double()
        got = o[h, r].double()
        if not torch.isfinite(got).all():
            return float("inf")
        worst = max(worst, ((got - want).abs().max() / want.abs().max()).item())
    return worst


def time_torch(torch, fn, runs):
    for _ in range(WARMUP):
        fn()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


def torch_cases(cases, impls, runs):
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash2": SDPBackend.FLASH_ATTENTION}
    rows = []
    for causal, dtype_name, d, seq in cases:
        heads = TOKENS // seq * (WIDTH // d)
        dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype_name]
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(1, heads, seq, d, device="cuda", dtype=dtype, generator=gen) for _ in range(3))
        scale = d ** -0.5
        for impl in [i for i in impls if i in backends]:
            try:
                with sdpa_kernel(backends[impl]):
                    run = functools.partial(torch.nn.functional.scaled_dot_product_attention, q, k, v,
                                            scale=scale, is_causal=causal)
                    o = run()
                    err = rel_err(torch, q[0], k[0], v[0], o[0], scale, causal)
                    ms = time_torch(torch, run, runs)
                rows.append((impl, dtype_name, causal, heads, seq, d, ms, err, ""))
            except Exception as e:  # a backend that does not take this case
                rows.append((impl, dtype_name, causal, heads, seq, d, None, None, f"{type(e).__name__}: {e}"[:120]))
            print(row_text(rows[-1]), flush=True)
        del q, k, v
        torch.cuda.empty_cache()
    return rows


def pallas_cases(cases, runs):
    import jax
    import jax.numpy as jnp
    import numpy as np
    import torch  # only for the reference check, on the host
    from jax.experimental.mosaic.gpu import profiler
    from jax.experimental.pallas.ops.gpu import attention_mgpu as am
    rows = []
    for causal, dtype_name, d, seq in cases:
        heads = TOKENS // seq * (WIDTH // d)
        if dtype_name != "f16":
            rows.append(("pallas", dtype_name, causal, heads, seq, d, None, None, "attention_mgpu takes f16 only"))
            print(row_text(rows[-1]), flush=True)
            continue
        keys = jax.random.split(jax.random.key(0), 3)
        q, k, v = (jax.random.normal(key, (1, seq, heads, d), jnp.float16) for key in keys)
        # attention_mgpu computes softmax(Q K^T) V, unscaled: the queries are scaled beforehand
        # (untimed), so that it computes what the others do.
        q = (q.astype(jnp.float32) * d ** -0.5).astype(jnp.float16)
        # A short trial of each block size, then the fastest timed in full.
        trials = []
        for block_kv in (64, 128, 256):
            config = am.TuningConfig(block_q=64, block_kv=block_kv, max_concurrent_steps=2, causal=causal)
            fn = functools.partial(am.attention, config=config)
            try:
                trials.append((min(profiler.measure(fn)(q, k, v)[1] for _ in range(3)), block_kv, fn))
            except Exception as e:  # a config that does not fit
                print(f"pallas {dtype_name} {heads}x{seq}x{d} block_kv={block_kv}: {type(e).__name__}: {str(e)[:100]}")
        best = None
        if trials:
            _, block_kv, fn = min(trials, key=lambda t: t[0])
            for _ in range(WARMUP):
                profiler.measure(fn)(q, k, v)
            samples = [profiler.measure(fn)(q, k, v) for _ in range(runs)]
            best = (statistics.median(ms for _, ms in samples), block_kv, samples[-1][0])
        if best is None:
            rows.append(("pallas", dtype_name, causal, heads, seq, d, None, None, "no config ran"))
        else:
            ms, block_kv, out = best
            as_torch = lambda x: torch.from_numpy(np.asarray(x.astype(jnp.float32))[0].transpose(1, 0, 2).copy())
            err = rel_err(torch, as_torch(q), as_torch(k), as_torch(v), as_torch(out), 1.0, causal)
            rows.append(("pallas", dtype_name, causal, heads, seq, d, ms, err, f"block_kv={block_kv}"))
        print(row_text(rows[-1]), flush=True)
    return rows


def cells(row):
    impl, dtype, causal, heads, seq, d, ms, err, note = row
    return [impl, dtype, str(causal).lower(), heads, seq, d, f"{ms:.4f}" if ms is not None else "-",
            f"{flops(heads, seq, d, causal) / ms / 1e9:.1f}" if ms is not None else "-",
            f"{err:.2e}" if err is not None else "-", note]


WIDTHS = [7, 5, 6, 5, 6, 4, 8, 8, 9, 0]


def row_text(row):
    return "  ".join(f"{c:>{w}}" for c, w in zip(cells(row), WIDTHS))


def main():
    try:
        import torch
        gpu = torch.cuda.is_available()
    except ImportError:
        gpu = False
    if not gpu:
        print("attention_baselines: no GPU here (PyTorch with CUDA not found): nothing to measure")
        return 0
    seqs = [int(s) for s in env_list("BENCH_SEQS", ["1024", "2048", "4096", "8192", "16384"])]
    dims = [int(d) for d in env_list("BENCH_DIMS", ["64", "128"])]
    dtypes = env_list("BENCH_DTYPES", ["bf16", "f16"])
    impls = env_list("BENCH_IMPLS", ["cudnn", "flash2", "pallas"])
    causal = [c == "1" for c in env_list("BENCH_CAUSAL", ["0", "1"])]
    runs = max(1, int(os.environ.get("BENCH_RUNS", "50") or 50))
    cases = [(c, t, d, s) for c in causal for t in dtypes for d in dims for s in seqs]
    print(f"attention_baselines on {torch.cuda.get_device_name()}: {WARMUP} warm-up + {runs} timed launches, median")
    rows = torch_cases(cases, impls, runs)
    if "pallas" in impls:
        rows += pallas_cases(cases, runs)
    out_dir = os.environ.get("BENCH_OUT", "bench/results")
    header = ["impl", "dtype", "causal", "heads", "seq", "d", "ms", "TFLOP/s", "rel err", "note"]
    table = [cells(row) for row in rows]
    try:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "attention_baselines.csv"), "w", newline="") as f:
            csv.writer(f).writerows([header] + table)
        print(f"wrote {out_dir}/attention_baselines.csv")
    except OSError as e:
        print(f"could not write the CSV: {e}")
    print()
    print("  ".join(f"{c:>{w}}" for c, w in zip(header, WIDTHS)))
    for row in rows:
        print(row_text(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
