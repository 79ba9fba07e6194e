#!/usr/bin/env python3
"""The Pallas side of bench/examples/bench_matmul.rs: JAX Pallas Mosaic GPU's Hopper matmul
(jax.experimental.pallas.ops.gpu.hopper_matmul_mgpu) on the same shapes and dtypes.

    PYTHONUNBUFFERED=1 python3 bench/pallas_matmul.py

Protocol, per shape and dtype (the same as bench_matmul's, bench/README.md):
  * inputs are N(0,1) from fixed seeds; when one set of A, B and C is smaller than twice the L2,
    launches rotate over enough sets to exceed that;
  * a small space of the kernel's TuningConfig is searched in stages (tile shape, then pipeline
    depth, then grid order), each candidate checked against XLA's dot and timed briefly; the
    fastest correct one is then timed in full: 10 warm-up launches, >= BENCH_RUNS (default 50)
    timed ones, median;
  * timing: JAX's own CUPTI timer (jax.experimental.mosaic.gpu.profiler.measure, kernel time on
    the device, like CUDA events around one launch) when this JAX has it; otherwise wall clock
    around block_until_ready, each sample a batch of back-to-back launches;
  * then the chosen config and XLA's dot (a cuBLAS call) are timed again in alternating blocks
    (5 blocks, BENCH_RUNS launches each in all): "interleaved", "xla dot" and their ratio, the
    comparison that does not depend on how warm the GPU was when a kernel was timed alone;
  * relative error = max|c_pallas - c_xla| / max|c_xla|, c_xla rounded to the dtype like
    cuBLAS's output; the acceptance bound is 1e-2.

Environment: BENCH_SHAPES ("MxNxK,..."; C = A[M,K] @ B[K,N]), BENCH_DTYPES ("bf16,f16"),
BENCH_RUNS, BENCH_OUT (the CSV's directory; default bench/results), BENCH_TUNE ("quick": the
staged search, tuned once per shape on the first dtype and reused for the second; "full": the
whole product, per dtype; "none": one default config), BENCH_TIMER ("cupti" or "wall"; default:
cupti when available), BENCH_L2_MB (default 60, the H200's), BENCH_GAP_MS (default 0: samples
back to back; N: the GPU idles N ms before each sample, as bench_matmul's rounds, so it stays
cool), BENCH_HEAT_MS (default 0; N: before the full timing and before each interleaved block,
each contender runs back to back, untimed, for N ms, so that the samples find the card at the
clocks of a sustained load; with 1000 it ran hotter than in bench_matmul's rounds, whose shapes
load the card for about a second each: docs/performance.md), BENCH_CONFIGS (the CSV
of an earlier run: each shape and dtype takes that run's best config instead of a search). The
table is the last lines of the output; exit status 1 means a shape failed or missed the bound.
Without a GPU it says so and exits 0.
"""
import csv
import dataclasses
import functools
import inspect
import itertools
import math
import os
import statistics
import sys
import time

SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
          (8192, 8192, 1024), (8192, 8192, 16384), (128, 8192, 8192)]
WARMUP = 10
TOLERANCE = 1e-2
TUNE_RUNS = 10
# Launches per wall-clock sample: enough that the dispatch of one hides behind the last.
WALL_BATCH = 5
# Alternating blocks in which the chosen config and XLA's dot are timed.
INTERLEAVE_BLOCKS = 5
# Launches (of every operand set) queued at once while heating the card (BENCH_HEAT_MS).
HEAT_QUEUE = 4


def log(*args):
    print(*args, flush=True)


def env(name, default):
    value = os.environ.get(name, "").strip()
    return value if value else default


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        dims = [int(d) for d in item.strip().split("x")]
        if len(dims) != 3:
            sys.exit(f"pallas_matmul: shape `{item}` is not MxNxK")
        shapes.append(tuple(dims))
    return shapes


def load_kernel():
    """Imports JAX and the Hopper matmul, or exits saying what is missing."""
    try:
        import jax
    except ImportError as err:
        sys.exit(f"pallas_matmul: JAX is not installed: {err}")
    try:
        gpus = [d for d in jax.devices() if d.platform == "gpu"]
    except RuntimeError:
        gpus = []
    if not gpus:
        log(f"pallas_matmul: JAX {jax.__version__} sees no GPU; nothing to measure (run it on the GPU machine)")
        sys.exit(0)
    try:
        from jax.experimental.pallas.ops.gpu import hopper_matmul_mgpu as hm
    except Exception as err:  # An older JAX, or one without Mosaic GPU.
        sys.exit(f"pallas_matmul: JAX {jax.__version__} has no Pallas Mosaic GPU Hopper matmul: {err!r}")
    return jax, hm, gpus[0]


class Kernel:
    """hopper_matmul_mgpu as this JAX version spells it: the entry point (`matmul(a, b, c, config)`
    in JAX 0.11, `matmul(a, b, config)` or `matmul_kernel(a, b, config)` before), the TuningConfig
    fields, and the MatmulDimension enum if any."""

    def __init__(self, hm):
        self.fn = getattr(hm, "matmul", None) or getattr(hm, "matmul_kernel", None)
        if self.fn is None or not hasattr(hm, "TuningConfig"):
            sys.exit("pallas_matmul: hopper_matmul_mgpu has no matmul / TuningConfig: "
                     f"it has {[n for n in dir(hm) if not n.startswith('_')]}")
        self.takes_c = "c" in inspect.signature(self.fn).parameters
        self.config_type = hm.TuningConfig
        self.fields = {f.name: f.default for f in dataclasses.fields(hm.TuningConfig)}
        self.dims = getattr(hm, "MatmulDimension", None)

    def default(self, field):
        return self.fields.get(field)

    def config(self, **options):
        """A TuningConfig from the options this version knows (the others are dropped)."""
        return self.config_type(**{k: v for k, v in options.items() if k in self.fields})

    def __call__(self, a, b, config):
        if self.takes_c:
            return self.fn(a, b, None, config=config)
        return self.fn(a, b, config=config)


def describe(config):
    """A short, comma-free description of a config: the tile and depth, then fields off their default."""
    text = f"tile={config.tile_m}x{config.tile_n}x{config.tile_k} steps={config.max_concurrent_steps}"
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if field.name not in ("tile_m", "tile_n", "tile_k", "max_concurrent_steps") and value != field.default:
            text += f" {field.name}={getattr(value, 'name', value)}"
    return text


def dims_of(kernel):
    return list(kernel.dims) if kernel.dims is not None else [None]


def tile_ms(shape):
    # In JAX versions whose CTA is always two warpgroup tiles tall, M = 128 needs tile_m = 64.
    return [128] + ([64] if shape[0] % 256 else [])


def stage_tiles(kernel, shape, best):
    """Warpgroup tile shapes (and how the two consumer warpgroups split the CTA tile)."""
    wgs = [dict(wg_dimension=wg) for wg in dims_of(kernel)] if "wg_dimension" in kernel.fields else [{}]
    return [dict(tile_m=tm, tile_n=tn, tile_k=64, max_concurrent_steps=4, **wg)
            for tm, tn, wg in itertools.product(tile_ms(shape), (128, 256), wgs)]


def stage_depth(kernel, shape, best):
    """Pipeline depth for the best tile shape (4 was tried with it)."""
    return [dict(best, max_concurrent_steps=s) for s in (5, 6)]


def stage_grid(kernel, shape, best):
    """The order of output tiles over the persistent grid, for the best so far (default tried)."""
    if "grid_minor_dim" not in kernel.fields:
        return []
    tried = (best.get("grid_minor_dim", kernel.default("grid_minor_dim")),
             best.get("grid_tile_width", kernel.default("grid_tile_width")))
    return [dict(best, grid_minor_dim=d, grid_tile_width=w)
            for d, w in itertools.product(dims_of(kernel), (1, 4, 8, 16)) if (d, w) != tried]


def stage_full(kernel, shape, best):
    """BENCH_TUNE=full: the whole product, at once."""
    dims = dims_of(kernel)
    return [dict(tile_m=tm, tile_n=tn, tile_k=64, max_concurrent_steps=s, wg_dimension=wg,
                 grid_minor_dim=d, grid_tile_width=w)
            for tm, tn, s, wg, d, w in itertools.product(tile_ms(shape), (128, 256), (4, 5, 6), dims, dims,
                                                         (1, 4, 8, 16))]


class Bench:
    """One shape and dtype: the operand sets, the reference, the timer, and compiled candidates."""

    def __init__(self, jax, kernel, shape, dtype, l2_bytes, timer, runs, heat_ms):
        import jax.numpy as jnp
        self.jax, self.jnp, self.kernel, self.shape, self.timer, self.runs = jax, jnp, kernel, shape, timer, runs
        self.heat_ms = heat_ms
        m, n, k = shape
        set_bytes = (m * k + k * n + m * n) * jnp.dtype(dtype).itemsize
        self.count = max(1, math.ceil(2 * l2_bytes / set_bytes))
        self.sets = []
        for i in range(self.count):
            ka, kb = jax.random.split(jax.random.key(1000 + i))
            self.sets.append((jax.random.normal(ka, (m, k), jnp.float32).astype(dtype),
                              jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)))
        a, b = self.sets[0]
        ref = jnp.dot(a, b, preferred_element_type=jnp.float32).astype(dtype).astype(jnp.float32)
        self.ref, self.ref_max = ref, float(jnp.max(jnp.abs(ref)))
        self.compiled = {}

    def every_set(self, config):
        """One jitted program that multiplies every operand set once (compiled once per config)."""
        key = describe(config)
        if key not in self.compiled:
            one = functools.partial(self.kernel, config=config)
            self.compiled[key] = self.jax.jit(lambda sets: [one(a, b) for a, b in sets])
        return self.compiled[key]

    def heat(self, fn):
        """BENCH_HEAT_MS: `fn` back to back over the operand sets for that long, untimed. A few
        launches stay queued (each wait is for the oldest), so the GPU never idles meanwhile."""
        end, queued = time.perf_counter() + self.heat_ms / 1e3, []
        while time.perf_counter() < end:
            queued.append(fn(self.sets))
            if len(queued) > HEAT_QUEUE:
                self.jax.block_until_ready(queued.pop(0))
        self.jax.block_until_ready(queued)

    def try_config(self, options, runs, heat=False):
        """(median ms, rel err, config) for one candidate, after BENCH_HEAT_MS of it if `heat`;
        raises if it cannot run or is wrong."""
        config = self.kernel.config(**options)
        every_set = self.every_set(config)
        out = every_set(self.sets)[0].astype(self.jnp.float32)
        err = float(self.jnp.max(self.jnp.abs(out - self.ref))) / self.ref_max
        if not err <= TOLERANCE:  # Also catches NaN.
            raise ValueError(f"wrong result: relative error {err:.2e}")
        for _ in range(max(1, math.ceil(WARMUP / self.count))):
            self.jax.block_until_ready(every_set(self.sets))
        if heat:
            self.heat(every_set)
        return statistics.median(self.timer(every_set, self.sets, runs, self.count)), err, config

    def xla_every_set(self):
        """XLA's dot (a cuBLAS call) over every operand set: the reference rate."""
        if "xla" not in self.compiled:
            self.compiled["xla"] = self.jax.jit(lambda sets: [self.jnp.dot(a, b) for a, b in sets])
        return self.compiled["xla"]

    def interleaved(self, config):
        """(Pallas ms, XLA ms): the chosen config and XLA's dot timed in alternating blocks with the
        same timer, so that both run at the same clocks (a GPU under a sustained load slows down
        as it heats; a kernel timed alone right after tuning is not timed like one timed later)."""
        pallas, xla = self.every_set(config), self.xla_every_set()
        self.jax.block_until_ready(xla(self.sets))
        times = ([], [])
        per_block = max(1, math.ceil(self.runs / INTERLEAVE_BLOCKS))
        for _ in range(INTERLEAVE_BLOCKS):
            for fn, out in zip((pallas, xla), times):
                self.heat(fn)
                out.extend(self.timer(fn, self.sets, per_block, self.count))
        return statistics.median(times[0]), statistics.median(times[1])


def cupti_timer(profiler, gap_ms):
    def time_cupti(every_set, sets, runs, count):
        if gap_ms > 0:
            # One launch per set per sample, each after an idle gap (bench_matmul's BENCH_GAP_MS).
            times = []
            for _ in range(max(2, math.ceil(runs / count))):
                time.sleep(gap_ms / 1e3)
                _, t = profiler.measure(every_set, iterations=1)(sets)
                if t is None:
                    raise RuntimeError("CUPTI recorded no kernels")
                times.extend(t if isinstance(t, list) else [t])
            return [t / count for t in times]
        iterations = max(2, math.ceil(runs / count))
        _, times = profiler.measure(every_set, iterations=iterations)(sets)
        if times is None:
            raise RuntimeError("CUPTI recorded no kernels")
        times = times if isinstance(times, list) else [times]
        # Each iteration launches the kernel once per set: its time is the sum of those.
        return [t / count for t in times]
    return time_cupti


def wall_timer(jax, gap_ms):
    def time_wall(every_set, sets, runs, count):
        reps = max(1, math.ceil(WALL_BATCH / count))
        samples = max(10, math.ceil(runs / (reps * count)))
        times = []
        for _ in range(samples):
            time.sleep(gap_ms / 1e3)
            start = time.perf_counter()
            outs = [every_set(sets) for _ in range(reps)]
            jax.block_until_ready(outs)
            times.append((time.perf_counter() - start) * 1e3 / (reps * count))
        return times
    return time_wall


def pick_timer(jax, wanted, gap_ms):
    try:
        from jax.experimental.mosaic.gpu import profiler
        has_cupti = "iterations" in inspect.signature(profiler.measure).parameters
    except Exception:
        has_cupti = False
    if wanted == "cupti" and not has_cupti:
        log("pallas_matmul: this JAX's profiler.measure cannot time iterations; using the wall clock")
    if wanted != "wall" and has_cupti:
        return "cupti (device kernel time)", cupti_timer(profiler, gap_ms)
    return f"wall clock (median of batches of >= {WALL_BATCH} launches)", wall_timer(jax, gap_ms)


def attempt(bench, options, runs, heat=False):
    """`bench.try_config`, printed; None (with the reason printed) if the config cannot run."""
    try:
        ms, err, config = bench.try_config(options, runs, heat)
    except Exception as err:  # A config this shape or this JAX cannot run: skip it.
        first_line = (str(err).splitlines() or [""])[0][:200]
        log(f"    skipped {options}: {type(err).__name__}: {first_line}")
        return None
    log(f"    {describe(config)}: {ms:.4f} ms {tflops(bench.shape, ms):.1f} TFLOP/s (rel err {err:.1e}, {runs} runs)")
    return ms, err, config


def search(bench, tune, tuned):
    """The best (ms, err, config) and its options: `tuned` (found for the other dtype) if given,
    else what BENCH_TUNE asks for, then timed with the full run count."""
    if tuned is not None or tune == "none":
        options = tuned or dict(tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=4)
        return attempt(bench, options, bench.runs, heat=True), options
    stages = [stage_full] if tune == "full" else [stage_tiles, stage_depth, stage_grid]
    best, best_options = None, None
    for stage in stages:
        for options in stage(bench.kernel, bench.shape, best_options):
            result = attempt(bench, options, TUNE_RUNS)
            if result is not None and (best is None or result[0] < best[0]):
                best, best_options = result, options
        if best is None:
            return None, None
    log(f"    best: {describe(best[2])}; timing it with {bench.runs} runs")
    return attempt(bench, best_options, bench.runs, heat=True), best_options


def parse_config(kernel, text):
    """The options of a config as `describe` wrote it (`tile=MxNxK steps=S field=value ..`)."""
    options = {}
    for item in text.split():
        name, _, value = item.partition("=")
        if name == "tile":
            options.update(zip(("tile_m", "tile_n", "tile_k"), map(int, value.split("x"))))
        elif name == "steps":
            options["max_concurrent_steps"] = int(value)
        elif value.lstrip("-").isdigit():
            options[name] = int(value)
        elif value in ("True", "False"):
            options[name] = value == "True"
        elif kernel.dims is not None and value in kernel.dims.__members__:
            options[name] = kernel.dims[value]
        else:
            options[name] = value
    return options


def read_configs(kernel, path):
    """BENCH_CONFIGS: {(shape, dtype): options} from an earlier run's CSV (its best configs)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {(tuple(int(d) for d in row["shape"].split("x")), row["dtype"]): parse_config(kernel, row["best config"])
            for row in rows if row.get("best config", "-") != "-"}


def tflops(shape, ms):
    m, n, k = shape
    return 2 * m * n * k / (ms * 1e-3) / 1e12


def main():
    shapes = parse_shapes(env("BENCH_SHAPES", ",".join("x".join(map(str, s)) for s in SHAPES)))
    dtype_names = [d.strip() for d in env("BENCH_DTYPES", "bf16,f16").split(",")]
    runs = max(1, int(env("BENCH_RUNS", "50")))
    out_dir = env("BENCH_OUT", "bench/results")
    tune = env("BENCH_TUNE", "quick")
    l2_bytes = int(float(env("BENCH_L2_MB", "60")) * 2**20)
    jax, hm, gpu = load_kernel()
    import jax.numpy as jnp
    dtypes = {"bf16": jnp.bfloat16, "f16": jnp.float16}
    unknown = [d for d in dtype_names if d not in dtypes]
    if unknown or tune not in ("quick", "full", "none"):
        sys.exit(f"pallas_matmul: BENCH_DTYPES must be bf16/f16 (got {unknown}); BENCH_TUNE quick/full/none")
    kernel = Kernel(hm)
    configs_path = env("BENCH_CONFIGS", "")
    configs = read_configs(kernel, configs_path) if configs_path else {}
    heat_ms = float(env("BENCH_HEAT_MS", "0"))
    gap_ms = float(env("BENCH_GAP_MS", "0"))
    timer_name, timer = pick_timer(jax, env("BENCH_TIMER", "cupti"), gap_ms)
    if gap_ms > 0:
        timer_name += f", {gap_ms:g} ms idle before each sample"
    if heat_ms > 0:
        timer_name += f", {heat_ms:g} ms back to back before each timing"

    log(f"pallas_matmul: JAX {jax.__version__} on {gpu.device_kind}; {hm.__name__}.{kernel.fn.__name__}; "
        f"timer: {timer_name}; tuning: {f'configs of {configs_path}' if configs else tune}; L2 {l2_bytes >> 20} MiB")
    rows = []
    for shape in shapes:
        tuned = None
        for name in dtype_names:
            start = time.perf_counter()
            log(f"{'x'.join(map(str, shape))} {name}:")
            try:
                bench = Bench(jax, kernel, shape, dtypes[name], l2_bytes, timer, runs, heat_ms)
                log(f"    {bench.count} operand set(s)")
                given = configs.get((shape, name))
                if configs and given is None:
                    raise KeyError(f"{configs_path} has no config for this shape and dtype")
                result, options = search(bench, tune, given or (tuned if tune == "quick" else None))
            except Exception as err:
                log(f"    FAILED: {type(err).__name__}: {err}")
                result, options = None, None
            paired = None
            if result is not None:
                try:
                    paired = bench.interleaved(result[2])
                    log(f"    interleaved with XLA's dot: pallas {paired[0]:.4f} ms {tflops(shape, paired[0]):.1f} "
                        f"TFLOP/s, xla {paired[1]:.4f} ms {tflops(shape, paired[1]):.1f} TFLOP/s")
                except Exception as err:
                    log(f"    interleaved timing FAILED: {type(err).__name__}: {err}")
            tuned = tuned or options
            rows.append((shape, name, result, paired))
            log(f"    ({time.perf_counter() - start:.0f} s)")
    return report(rows, out_dir)


def report(rows, out_dir):
    header = ["shape", "dtype", "pallas TFLOP/s", "interleaved", "xla dot", "pallas/xla", "rel err", "best config"]
    table = [header]
    for shape, name, result, paired in rows:
        label = "x".join(map(str, shape))
        if result is None:
            table.append([label, name] + ["-"] * 6)
            continue
        ms, err, config = result
        pair = ["-"] * 3
        if paired is not None:
            pair = [f"{tflops(shape, paired[0]):.1f}", f"{tflops(shape, paired[1]):.1f}", f"{paired[1] / paired[0]:.3f}"]
        table.append([label, name, f"{tflops(shape, ms):.1f}"] + pair + [f"{err:.2e}", describe(config)])
    path = os.path.join(out_dir, "pallas_matmul.csv")
    try:
        os.makedirs(out_dir, exist_ok=True)
        with open(path, "w", newline="") as f:
            csv.writer(f).writerows(table)
        log(f"wrote {path}")
    except OSError as err:
        log(f"could not write {path}: {err}")
    passed = all(r[2] is not None and r[3] is not None for r in rows)
    log("all shapes ran and matched XLA within 1e-2" if passed else "FAILED: a shape did not run (lines above)")
    log()
    widths = [15, 5, 14, 11, 8, 10, 8, 0]
    for cells in table:
        log("  ".join(f"{c:>{w}}" for c, w in zip(cells, widths)))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
