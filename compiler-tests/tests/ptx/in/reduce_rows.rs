//! Row reductions of WGMMA-layout arrays (axis 1 -> Layout::WgmmaRow): each thread combines its own
//! elements of a row, then the four lanes of its quad (shfl xor 1, 2). Two 64-row tiles; f32 sums
//! and maxima, and a bf16 sum computed in f32 and rounded once.
// expect: shfl.sync.bfly.b32
// expect: cvt.rn.bf16.f32

use tessel::prelude::*;

#[kernel(grid = (M / 128))]
fn reduce_rows(x: Gmem<f32, M, 16>, h: Gmem<bf16, M, 16>, sums: GmemMut<f32, M>, maxes: GmemMut<f32, M>, hsums: GmemMut<bf16, M>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [128, 16]).load(Layout::Wgmma);
    sums.tile([i], [128]).store(v.sum(1));
    maxes.tile([i], [128]).store(v.max(1));
    let w = h.tile([i, 0], [128, 16]).load(Layout::Wgmma);
    hsums.tile([i], [128]).store(w.sum(1));
}

fn main() {}
