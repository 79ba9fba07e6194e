//! `wgmma` into a window of an accumulator (`acc.slice(..)`: whole 64-row, 8-column blocks): two
//! products side by side in one accumulator, and tiles taking turns in its halves with the
//! previous one's result stored while the next one's wgmmas run; and windows of a register array
//! in the WGMMA layout: a tile's converted result kept while the next tile's wgmmas run in the
//! whole accumulator, stored a window at a time.

use tessel::prelude::*;

// C[:, 0..64] = A B0 and C[:, 64..128] = A B1 in one 64 x 128 accumulator; then the rows of a
// 128 x 64 accumulator, one 64-row window per product.
#[kernel(grid = (M / 64,))]
fn side_by_side(a: Gmem<bf16, M, 64>, b: Gmem<bf16, 64, 128>, c: GmemMut<f32, M, 128>, d: GmemMut<f32, 128, 64>) {
    let i = program_id(0);
    run_scoped(
        |wide: Acc<f32, 64, 128>,
         tall: Acc<f32, 128, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 2, 64, 64, Swizzle128>,
         bar: Barrier<3>| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, 0]), b_s.at(0), bar);
            copy_gmem_to_smem(b.tile([0, 1]), b_s.at(1), bar);
            barrier_wait(bar);
            wgmma(wide.slice([.., 0..64]), a_s, b_s.at(0));
            wgmma(wide.slice([.., 64..128]), a_s, b_s.at(1));
            wgmma(tall.slice([0..64, ..]), a_s, b_s.at(0));
            wgmma(tall.slice([64..128, ..]), a_s, b_s.at(1));
            wgmma_wait(0);
            c.tile([i, 0]).store(wide.load());
            d.tile([0, 0], [128, 64]).store(tall.load());
        },
    );
}

// Tiles of C taking turns in the halves of one accumulator: tile t multiplies into half t % 2
// while tile t - 1's result is stored from the other half. The `wgmma_wait(0)` at the top of each
// turn costs nothing and shows ptxas that the other half's wgmmas are complete.
#[kernel(grid = (1,), consts(BN = 64))]
fn taking_turns(a: Gmem<bf16, 64, 64>, b: Gmem<bf16, 64, N>, c: GmemMut<f32, 64, N>) {
    let tiles = N / BN;
    run_scoped(|acc: Acc<f32, 64, 128>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, BN, Swizzle128>, bar: Barrier<2>| {
        for pair in 0..(tiles + 1) / 2 {
            #[unroll]
            for half in 0..2 {
                let t = 2 * pair + half;
                // This tile's half and the other: immutable `let`s of consts and the unrolled
                // counter are known when the kernel compiles, as slice bounds must be.
                let (mine, other) = (BN * half, BN - BN * half);
                if t < tiles {
                    wgmma_wait(0);
                    copy_gmem_to_smem(a.tile([0, 0]), a_s, bar);
                    copy_gmem_to_smem(b.tile([0, t]), b_s, bar);
                    barrier_wait(bar);
                    wgmma(acc.slice([.., mine..mine + BN]), a_s, b_s, accumulate = false);
                    if t > 0 {
                        c.tile([0, t - 1]).store(acc.slice([.., other..other + BN]).load());
                    }
                }
            }
        }
        wgmma_wait(0);
        #[unroll]
        for half in 0..2 {
            if tiles > 0 && (tiles - 1) % 2 == half {
                c.tile([0, tiles - 1]).store(acc.slice([.., BN * half..BN * half + BN]).load());
            }
        }
    });
}

// Each tile's bf16 result waits in `done` and is stored in two 64-column windows under the next
// tile's wgmmas; the last one's straight from the accumulator.
#[kernel(grid = (1,), consts(BN = 128))]
fn converted_windows(a: Gmem<bf16, 64, 64>, b: Gmem<bf16, 64, N>, c: GmemMut<bf16, 64, N>) {
    let tiles = N / BN;
    run_scoped(|acc: Acc<f32, 64, BN>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, BN, Swizzle128>, bar: Barrier<2>| {
        let mut done = splat::<bf16>(0.0, [64, BN]).to_layout(Layout::Wgmma);
        for t in 0..tiles {
            copy_gmem_to_smem(a.tile([0, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, t]), b_s, bar);
            barrier_wait(bar);
            wgmma(acc, a_s, b_s, accumulate = false);
            if t > 0 {
                #[unroll]
                for q in 0..2 {
                    c.tile([0, 2 * t - 2 + q], [64, 64]).store(done.slice([.., 64 * q..64 * q + 64]));
                }
            }
            wgmma_wait(0);
            done = acc.load().cast::<bf16>();
        }
        if tiles > 0 {
            c.tile([0, tiles - 1]).store(done);
        }
    });
}

fn main() {}
