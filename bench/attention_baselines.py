#!/usr/bin/env python3
"""The baselines of bench/examples/bench_attention.rs (and of the attention backward): attention forward
and backward passes of other systems on the same shapes, with the same columns.

    PYTHONUNBUFFERED=1 python3 bench/attention_baselines.py
    BENCH_DRY=1 python3 bench/attention_baselines.py      # the cases only, without a GPU

Implementations:
  * "cudnn": PyTorch's scaled_dot_product_attention with the cuDNN backend (cuDNN's fused
    flash attention for Hopper);
  * "flash2": the same with PyTorch's FLASH_ATTENTION backend (FlashAttention-2);
  * "pallas": JAX Pallas's Mosaic GPU attention (jax.experimental.pallas.ops.gpu.attention_mgpu,
    FlashAttention-3's structure). Forward: the fastest of block_kv in (64, 128, 256) with
    block_q = 64 (three launches each), then timed in full. Backward (its custom VJP: dQ and dK/dV
    kernels after an XLA rowsum(dO * O)): the fastest of a few backward block sizes
    (PALLAS_BWD_CONFIGS). It takes f16 only (its bf16 rows say why they are empty), has no causal
    backward, and computes softmax(Q K^T) V without a scale, so its queries are scaled beforehand.
  A backend that does not take a case (GQA, a dtype, the mask) gives a row without figures and
  the reason in its note.
Shapes (as bench_attention's): 16384 tokens and a model width of 2048, so heads = (16384 / S) x
(2048 / D) heads of S queries over S keys, without and with a causal mask, D in (64, 128), bf16
and f16. Grouped-query (GQA) cases: 32 query heads of D = 128 per sequence over HK K/V heads
(BENCH_GQA, default 8 and 4), so heads = (16384 / S) x 32 and kv heads = (16384 / S) x HK, for
S of 2048 and more; query head h reads K/V head h / (heads / kv heads).

FLOPs, the FlashAttention convention (FlashAttention-2/3's benchmarks): forward = the two products,
4 x heads x S x S x D; backward = 2.5 x forward (five products of the forward's size: S = Q K^T
recomputed, dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q; 10 x heads x S x S x D); both halved
with the causal mask. heads are the query heads.

Protocol, per case: inputs N(0,1) (torch's generator, fixed seed; dO too). Forward: the output is
compared with an f64 reference on 64 rows spread over heads and queries (max error relative to each
row's largest value). Backward: dQ, dK and dV of one K/V head's group of query heads (head 0 and
the heads sharing its K/V) against f64 autograd of the same math, the max error of each row
relative to that row's largest value (or a thousandth of the array's largest, whichever is
larger: with the mask, query 0's dQ is 0), the worst of the three. Then per measurement 10 warm-up
launches and BENCH_RUNS (default 50) timed ones, their median; BENCH_REPEATS (default 3)
measurements, and the figure is their median with their range. Timing: CUDA events around each
launch, back to back (torch; the backward is torch.autograd.grad of the forward's output alone,
the forward graph kept, so the forward is not timed); JAX's CUPTI timer (profiler.measure: kernel
time on the device) for Pallas (the backward: the VJP function alone, its residuals computed
beforehand).

Environment: BENCH_SEQS, BENCH_DIMS, BENCH_DTYPES, BENCH_CAUSAL ("0,1"), BENCH_GQA ("8,4"; "none"
for no GQA cases), BENCH_PASSES ("fwd,bwd"), BENCH_RUNS, BENCH_REPEATS, BENCH_OUT (the CSV's
directory; default bench/results), BENCH_IMPLS ("cudnn,flash2,pallas"), BENCH_DRY ("1": print the
cases and exit). The table is the last lines of the output. Without a GPU it says so and exits 0.
"""
import csv
import functools
import os
import statistics
import sys

TOKENS, WIDTH = 16384, 2048
GQA_HEADS, GQA_D = 32, 128
WARMUP = 10
CHECKED_ROWS = 64
# Pallas backward block sizes tried per case: (block_q_dkv, block_kv_dkv, block_q_dq, block_kv_dq,
# compute_wgs_bwd).
PALLAS_BWD_CONFIGS = [(64, 64, 64, 64, 1), (64, 128, 128, 64, 1), (64, 64, 64, 64, 2)]


def env_list(name, default):
    value = os.environ.get(name, "").strip()
    return [v.strip() for v in value.split(",")] if value else default


def flops(case):
    """The FlashAttention convention (module doc): 4 heads S^2 D forward, 2.5x that backward."""
    forward = 4 * case["heads"] * case["seq"] * case["seq"] * case["d"] / (2 if case["causal"] else 1)
    return forward * (2.5 if case["pass"] == "bwd" else 1)


def cases_from_env():
    """Every case, as dicts: the multi-head ones (kv heads = heads), then the GQA ones."""
    seqs = [int(s) for s in env_list("BENCH_SEQS", ["1024", "2048", "4096", "8192", "16384"])]
    for s in seqs:
        if s <= 0 or TOKENS % s:
            raise SystemExit(f"BENCH_SEQS: {s} does not divide {TOKENS} (the heads are {TOKENS} / S)")
    dims = [int(d) for d in env_list("BENCH_DIMS", ["64", "128"])]
    dtypes = env_list("BENCH_DTYPES", ["bf16", "f16"])
    causal = [c == "1" for c in env_list("BENCH_CAUSAL", ["0", "1"])]
    gqa = [] if os.environ.get("BENCH_GQA", "").strip() == "none" else [int(g) for g in env_list("BENCH_GQA", ["8", "4"])]
    for g in gqa:
        if g <= 0 or GQA_HEADS % g:
            raise SystemExit(f"BENCH_GQA: {g} K/V heads do not divide {GQA_HEADS} query heads")
    passes = env_list("BENCH_PASSES", ["fwd", "bwd"])
    cases = []
    for p in passes:
        for c in causal:
            for t in dtypes:
                for d in dims:
                    for s in seqs:
                        heads = TOKENS // s * (WIDTH // d)
                        cases.append(dict(pass_=p, causal=c, dtype=t, d=d, seq=s, heads=heads, kv=heads))
                for s in [s for s in seqs if s >= 2048]:
                    for g in gqa:
                        cases.append(dict(pass_=p, causal=c, dtype=t, d=GQA_D, seq=s, heads=TOKENS // s * GQA_HEADS,
                                          kv=TOKENS // s * g))
    for case in cases:
        case["pass"] = case.pop("pass_")
    return cases


def checked_rows(heads, seq):
    """(head, query) pairs spread over the heads and queries, as bench_attention's."""
    return [(n * heads // CHECKED_ROWS, (n * 2654435761) % seq) for n in range(CHECKED_ROWS)]


def rel_err(torch, q, k, v, o, scale, causal):
    """Max error of o over the checked rows, each relative to its row's largest value.
    q, o: [heads, seq, d], k, v: [kv heads, seq, d] torch tensors; causal: query r sees keys 0..=r."""
    worst = 0.0
    group = q.shape[0] // k.shape[0]
    for h, r in checked_rows(q.shape[0], q.shape[1]):
        seen = r + 1 if causal else k.shape[1]
        logits = (q[h, r].double() @ k[h // group, :seen].double().T) * scale
        want = torch.softmax(logits, dim=-1) @ v[h // group, :seen].double()
        got = o[h, r].double()
        if not torch.isfinite(got).all():
            return float("inf")
        worst = max(worst, ((got - want).abs().max() / want.abs().max()).item())
    return worst


def grad_err(torch, q, k, v, do, grads, scale, causal):
    """The worst row error of dQ, dK, dV (`grads`, [heads or kv heads, seq, d] each) over K/V head 0's
    group of query heads, against f64 autograd, each row relative to its largest value (at least a
    thousandth of the array's)."""
    group = q.shape[0] // k.shape[0]
    kr, vr = (x[0].double().requires_grad_() for x in (k, v))
    dq_want = []
    for h in range(group):
        qr = q[h].double().requires_grad_()
        logits = (qr @ kr.T) * scale
        if causal:
            hidden = torch.ones_like(logits, dtype=torch.bool).triu(1)
            logits = logits.masked_fill(hidden, float("-inf"))
        out = torch.softmax(logits, dim=-1) @ vr
        out.backward(do[h].double())
        dq_want.append(qr.grad)
    pairs = [(grads[0][h], dq_want[h]) for h in range(group)] + [(grads[1][0], kr.grad), (grads[2][0], vr.grad)]
    worst = 0.0
    for got, want in pairs:
        got = got.double()
        if not torch.isfinite(got).all():
            return float("inf")
        # A row whose gradient is 0 (with the mask, query 0's dQ: its only probability is 1) is
        # measured against a thousandth of the array's largest value instead.
        row_top = want.abs().amax(dim=-1).clamp_min(1e-3 * want.abs().max().item())
        worst = max(worst, ((got - want).abs().amax(dim=-1) / row_top).max().item())
    return worst


def repeated(measure, repeats):
    """`repeats` measurements: (median, low, high) in ms."""
    times = [measure() for _ in range(repeats)]
    return statistics.median(times), min(times), max(times)


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


def row(impl, case, times=None, err=None, note=""):
    return dict(impl=impl, case=case, times=times, err=err, note=note)


def torch_cases(cases, impls, runs, repeats):
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash2": SDPBackend.FLASH_ATTENTION}
    rows = []
    for case in cases:
        dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[case["dtype"]]
        heads, kv, seq, d, causal = case["heads"], case["kv"], case["seq"], case["d"], case["causal"]
        gen = torch.Generator(device="cuda").manual_seed(0)
        backward = case["pass"] == "bwd"
        q = torch.randn(1, heads, seq, d, device="cuda", dtype=dtype, generator=gen)
        k, v = (torch.randn(1, kv, seq, d, device="cuda", dtype=dtype, generator=gen) for _ in range(2))
        do = torch.randn(1, heads, seq, d, device="cuda", dtype=dtype, generator=gen) if backward else None
        scale = d ** -0.5
        for impl in [i for i in impls if i in backends]:
            try:
                with sdpa_kernel(backends[impl]):
                    sdpa = functools.partial(torch.nn.functional.scaled_dot_product_attention, scale=scale,
                                             is_causal=causal, **({"enable_gqa": True} if kv != heads else {}))
                    if backward:
                        leaves = [x.detach().requires_grad_() for x in (q, k, v)]
                        o = sdpa(*leaves)
                        run = functools.partial(torch.autograd.grad, o, leaves, do, retain_graph=True)
                        err = grad_err(torch, q[0], k[0], v[0], do[0], [g[0] for g in run()], scale, causal)
                    else:
                        run = functools.partial(sdpa, q, k, v)
                        err = rel_err(torch, q[0], k[0], v[0], run()[0], scale, causal)
                    times = repeated(lambda: time_torch(torch, run, runs), repeats)
                rows.append(row(impl, case, times, err))
            except Exception as e:  # a backend that does not take this case
                rows.append(row(impl, case, note=f"{type(e).__name__}: {e}"[:120]))
            finally:
                o = run = leaves = None
            print(row_text(rows[-1]), flush=True)
        del q, k, v, do
        torch.cuda.empty_cache()
    return rows


def pallas_cases(cases, runs, repeats):
    # JAX takes 75% of the GPU's memory at its first use unless told otherwise: the f64 references
    # of the backward (PyTorch, on the same GPU) need room beside it.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    import jax.numpy as jnp
    import numpy as np
    import torch  # only for the reference checks
    from jax.experimental.mosaic.gpu import profiler
    from jax.experimental.pallas.ops.gpu import attention_mgpu as am
    as_torch = lambda x: torch.from_numpy(np.asarray(x.astype(jnp.float32))[0].transpose(1, 0, 2).copy()).cuda()
    rows = []
    for case in cases:
        heads, kv, seq, d, causal = case["heads"], case["kv"], case["seq"], case["d"], case["causal"]
        backward = case["pass"] == "bwd"
        if case["dtype"] != "f16":
            rows.append(row("pallas", case, note="attention_mgpu takes f16 only"))
            print(row_text(rows[-1]), flush=True)
            continue
        if backward and causal:
            rows.append(row("pallas", case, note="attention_mgpu has no causal backward"))
            print(row_text(rows[-1]), flush=True)
            continue
        keys = jax.random.split(jax.random.key(0), 4)
        q = jax.random.normal(keys[0], (1, seq, heads, d), jnp.float16)
        k, v = (jax.random.normal(key, (1, seq, kv, d), jnp.float16) for key in keys[1:3])
        do = jax.random.normal(keys[3], (1, seq, heads, d), jnp.float16)
        # attention_mgpu computes softmax(Q K^T) V, unscaled: the queries are scaled beforehand
        # (untimed), so that it computes what the others do.
        q = (q.astype(jnp.float32) * d ** -0.5).astype(jnp.float16)
        try:
            configs = pallas_configs(am, backward, causal)
        except TypeError as e:  # a JAX whose TuningConfig has no backward block sizes
            rows.append(row("pallas", case, note=f"this JAX's attention_mgpu: {e}"[:120]))
            print(row_text(rows[-1]), flush=True)
            continue
        # A short trial of each configuration, then the fastest timed in full.
        trials = []
        for config in configs:
            try:
                if backward:
                    _, vjp = jax.vjp(functools.partial(am.attention, config=config, save_residuals=False), q, k, v)
                    fn, args = jax.jit(lambda f, g: f(g)), (vjp, do)
                else:
                    fn, args = functools.partial(am.attention, config=config), (q, k, v)
                trials.append((min(profiler.measure(fn)(*args)[1] for _ in range(3)), config, fn, args))
            except Exception as e:  # a configuration that does not fit, or a case it does not take
                print(f"pallas {case['pass']} {heads}/{kv}x{seq}x{d} {config}: {type(e).__name__}: {str(e)[:100]}")
        if not trials:
            rows.append(row("pallas", case, note="no configuration ran"))
            print(row_text(rows[-1]), flush=True)
            continue
        _, config, fn, args = min(trials, key=lambda t: t[0])

        def measure():
            for _ in range(WARMUP):
                profiler.measure(fn)(*args)
            return statistics.median(profiler.measure(fn)(*args)[1] for _ in range(runs))
        times = repeated(measure, repeats)
        out = profiler.measure(fn)(*args)[0]
        if backward:
            grads = [as_torch(g) for g in out]
            err = grad_err(torch, as_torch(q), as_torch(k), as_torch(v), as_torch(do), grads, 1.0, causal)
            note = "bwd blocks " + "/".join(str(x) for x in (config.block_q_dkv, config.block_kv_dkv,
                                                             config.block_q_dq, config.block_kv_dq))
            note += f" wgs={config.compute_wgs_bwd}"
        else:
            err = rel_err(torch, as_torch(q), as_torch(k), as_torch(v), as_torch(out), 1.0, causal)
            note = f"block_kv={config.block_kv}"
        rows.append(row("pallas", case, times, err, note))
        print(row_text(rows[-1]), flush=True)
    return rows


def pallas_configs(am, backward, causal):
    """The attention_mgpu configurations to try: the forward's block_kv, or the backward's block sizes."""
    if backward:
        return [am.TuningConfig(block_q=64, block_kv=128, max_concurrent_steps=2, compute_wgs_bwd=wgs,
                                block_q_dkv=a, block_kv_dkv=b, block_q_dq=c, block_kv_dq=e)
                for a, b, c, e, wgs in PALLAS_BWD_CONFIGS]
    return [am.TuningConfig(block_q=64, block_kv=b, max_concurrent_steps=2, causal=causal) for b in (64, 128, 256)]


HEADER = ["impl", "pass", "dtype", "causal", "heads", "kv heads", "seq", "d", "ms", "ms range", "TFLOP/s",
          "TFLOP/s range", "rel err", "note"]
WIDTHS = [7, 4, 5, 6, 5, 8, 6, 4, 8, 15, 8, 13, 9, 0]


def cells(r):
    c, times = r["case"], r["times"]
    dash = "-"
    if times is None:
        ms = ms_range = rate = rate_range = dash
    else:
        med, lo, hi = times
        ms, ms_range = f"{med:.4f}", f"{lo:.4f}-{hi:.4f}"
        rate, rate_range = f"{flops(c) / med / 1e9:.1f}", f"{flops(c) / hi / 1e9:.1f}-{flops(c) / lo / 1e9:.1f}"
    err = f"{r['err']:.2e}" if r["err"] is not None else dash
    return [r["impl"], c["pass"], c["dtype"], str(c["causal"]).lower(), c["heads"], c["kv"], c["seq"], c["d"], ms,
            ms_range, rate, rate_range, err, r["note"]]


def row_text(r):
    return "  ".join(f"{c:>{w}}" for c, w in zip(cells(r), WIDTHS))


def dry_run(cases, impls):
    """The cases, their FLOPs and implementations, without measuring (BENCH_DRY=1)."""
    print(f"attention_baselines (dry run): {len(cases)} cases x implementations {','.join(impls)}")
    for c in cases:
        print(f"{c['pass']:>4} {c['dtype']:>5} causal={str(c['causal']).lower():<5} heads={c['heads']:<5} "
              f"kv heads={c['kv']:<5} seq={c['seq']:<6} d={c['d']:<4} GFLOP={flops(c) / 1e9:.1f}")
    return 0


def main():
    cases = cases_from_env()
    impls = env_list("BENCH_IMPLS", ["cudnn", "flash2", "pallas"])
    if os.environ.get("BENCH_DRY", "").strip() == "1":
        return dry_run(cases, impls)
    try:
        import torch
        gpu = torch.cuda.is_available()
    except ImportError:
        gpu = False
    if not gpu:
        print("attention_baselines: no GPU here (PyTorch with CUDA not found): nothing to measure")
        return 0
    runs = max(1, int(os.environ.get("BENCH_RUNS", "50") or 50))
    repeats = max(1, int(os.environ.get("BENCH_REPEATS", "3") or 3))
    print(f"attention_baselines on {torch.cuda.get_device_name()}: {repeats} measurements of {WARMUP} warm-up + "
          f"{runs} timed launches (median of each); the median measurement and their range")
    rows = torch_cases(cases, impls, runs, repeats)
    if "pallas" in impls:
        rows += pallas_cases(cases, runs, repeats)
    out_dir = os.environ.get("BENCH_OUT", "bench/results")
    table = [cells(r) for r in rows]
    try:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "attention_baselines.csv"), "w", newline="") as f:
            csv.writer(f).writerows([HEADER] + table)
        print(f"wrote {out_dir}/attention_baselines.csv")
    except OSError as e:
        print(f"could not write the CSV: {e}")
    print()
    print("  ".join(f"{c:>{w}}" for c, w in zip(HEADER, WIDTHS)))
    for r in rows:
        print(row_text(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
