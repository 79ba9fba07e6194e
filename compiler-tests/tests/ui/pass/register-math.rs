//! Register arrays: elementwise arithmetic with arrays and scalars, casts, math functions (`exp2` as a
//! function and a method), `max`/`min`, `fma` (of arrays and scalars, and of f16 with a splat),
//! comparisons and masks from `iota`, row and column reductions (and of their vectors to scalars),
//! broadcasts back, `to_layout` and `layout_cast`, and values carried through loops and branches.

use tessel::prelude::*;

// Row softmax of a 64 x N block.
#[kernel(grid = (M / 64), consts(N = 128))]
fn softmax_rows(x: Gmem<f32, M, N>, y: GmemMut<bf16, M, N>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, N]).load(Layout::Strided).to_layout(Layout::Wgmma);
    let row_max = v.max(1);
    let shifted = v - row_max.broadcast([64, N], Layout::Wgmma);
    let e = exp2(shifted * 1.4426950408889634);
    let denom = e.sum(1).broadcast([64, N], Layout::Wgmma);
    let p = e / denom;
    y.tile([i, 0], [64, N]).store(p.cast::<bf16>());
}

// A causal mask from `iota`, column statistics and a handful of math functions.
#[kernel(grid = (M / 64, N / 64))]
fn masked_stats(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, col_min: GmemMut<f32, N>, eps: f32) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, j], [64, 64]).load(Layout::Wgmma);
    let rows = iota::<i32>([64, 64], 0) + i * 64;
    let cols = iota::<i32>([64, 64], 1) + j * 64;
    let keep = (rows >= cols).cast::<f32>();
    let relu = max(v * keep, 0.0);
    let clipped = min(relu, splat::<f32>(6.0, [64, 64]));
    let norm = rsqrt(fma(clipped, clipped, fma(eps, eps, 1e-6)));
    let mixed = tanh(norm) + log2(abs(-v) + 1.0) - sqrt(clipped) * exp(v) / recip(norm + 1.0) + v.exp2().log()
        + floor(v) - ceil(v) + round(v) * trunc(v);
    y.tile([i, j], [64, 64]).store(mixed);
    let lowest = mixed.min(0);
    // 1-D arrays reduce to scalars: a column vector, a row vector, a splat.
    let range = lowest.max(0) - mixed.max(1).min(0) + splat::<f32>(1.0, [64]).sum(0);
    col_min.tile([j], [64]).store(lowest - range);
}

// Values carried through loops and branches keep their layouts; `layout_cast` reinterprets the WGMMA
// layout as mma fragments without moving data.
#[kernel(grid = (M / 64, N / 64), consts(STEPS = 4))]
fn carried(x: Gmem<f16, M, N>, y: GmemMut<f32, M, N>, z: GmemMut<f16, M, N>, w: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, j], [64, 64]).load(Layout::Strided).to_layout(Layout::Wgmma).cast::<f32>();
    let mut total = splat::<f32>(0.0, [64, 64]).to_layout(Layout::Wgmma);
    let mut scale = 1.0;
    for t in 0..STEPS {
        total = total + v * (t as f32) * scale;
        scale = scale * 0.5;
        if t % 2 == 1 {
            total = -total;
        } else {
            total = total.to_layout(Layout::Strided).to_layout(Layout::Wgmma);
        }
    }
    let fragments = total.layout_cast(Layout::MmaAcc);
    y.tile([i, j], [64, 64]).store(fragments.layout_cast(Layout::Wgmma));
    let halves = fma(v.cast::<f16>(), 0.5, splat::<f16>(1.0, [64, 64])).layout_cast(Layout::MmaLhs);
    z.tile([i, j], [64, 64]).store(halves);
    let bits = (v.cast::<i32>() << 2) >> 1 & 255 | 1 ^ 3;
    w.tile([i, j], [64, 64]).store(bits % 7);
}

fn main() {}
