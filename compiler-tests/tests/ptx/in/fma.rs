//! `fma(a, b, c)`: one `fma.rn.f32` per element, `a * b + c` rounded once. A WGMMA-layout f32
//! array times a scalar parameter plus its row maxima broadcast back; bf16 arrays (a splat that
//! takes the WGMMA layout, an untyped literal that takes bf16) and a bf16 scalar with literals
//! (each converted to bf16 first), all through f32 and rounded back once.
// expect: fma.rn.f32
// expect: cvt.f32.bf16
// expect: cvt.rn.bf16.f32

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn fma_rows(
    x: Gmem<f32, M, 16>,
    h: Gmem<bf16, M, 16>,
    y: GmemMut<f32, M, 16>,
    hy: GmemMut<bf16, M, 16>,
    alpha: f32,
) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 16]).load(Layout::Wgmma);
    let row = v.max(1).broadcast([64, 16], Layout::Wgmma);
    y.tile([i, 0], [64, 16]).store(fma(v, alpha, row));
    let w = h.tile([i, 0], [64, 16]).load(Layout::Wgmma);
    let beta = fma(alpha as bf16, 2.0, -1.0);
    hy.tile([i, 0], [64, 16]).store(fma(w, splat::<bf16>(beta, [64, 16]), 0.5));
}

fn main() {}
