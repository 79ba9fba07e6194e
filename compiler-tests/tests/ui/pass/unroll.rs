//! `#[unroll]` loops: a copy of the body per value, in which the counter is an integer literal, so
//! that slices, `.at(q)` and tiles may depend on it; nested (an inner bound naming the outer
//! counter), with bounds computed from consts, and with bounds a `macro_rules!` passes on.

use tessel::prelude::*;

// Each 64 x 64 quarter of a 64 x 256 accumulator, scaled by its own column factor (a slice needs
// constant bounds), stored as its own tile.
#[kernel(grid = (M / 64, N / BN), consts(BN = 256, BLOCK = 64))]
fn quarters(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, BN>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, BN, Swizzle128>, bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            const BLOCKS: i32 = BN / BLOCK;
            #[unroll]
            for q in 0..BLOCKS {
                let part = acc.slice([.., BLOCK * q..BLOCK * (q + 1)]).load() * (q + 1) as f32;
                c.tile([i, BLOCKS * j + q], [64, 64]).store(part);
            }
        },
    );
}

// Nested: the outer counter is a literal in the inner loop's bounds' arithmetic too.
#[kernel(grid = (1,))]
fn nested(x: Gmem<f32, 256, 256>, y: GmemMut<f32, 256, 256>) {
    #[unroll]
    for r in 0..2 {
        #[unroll]
        for s in r..r + 2 {
            let v = x.tile([r + s, r], [64, 64]).load(Layout::Strided);
            y.tile([r + s, r], [64, 64]).store(v + (r + s) as f32);
        }
    }
}

macro_rules! halves {
    ($name:ident, $n:literal) => {
        #[kernel(grid = (1,))]
        fn $name(x: Gmem<f32, 64, 128>, y: GmemMut<f32, 64, 128>) {
            #[unroll]
            for h in 0..$n {
                y.tile([0, h], [64, 64]).store(x.tile([0, h], [64, 64]).load(Layout::Wgmma));
            }
        }
    };
}

halves!(two_halves, 2);

fn main() {}
