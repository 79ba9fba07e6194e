//! A library of kernel functions (`#[kernel_fns]`) that two `#[kernels]` modules use: a generic
//! tile order whose arithmetic a private function does, and a generic epilogue. One module names
//! the library by a path from the crate's root, and has a function named like the library's
//! private one (which the library's own calls still reach).

use tessel::prelude::*;

#[kernel_fns]
mod tiles {
    use tessel::prelude::*;

    /// The tile (row, column) of step `u` over `tiles_m x tiles_n` tiles, GROUP tile-rows at a
    /// time down each column.
    pub fn grouped<const GROUP: usize>(u: i32, tiles_m: i32, tiles_n: i32) -> (i32, i32) {
        let first = u / (GROUP * tiles_n) * GROUP;
        let rows = min(tiles_m - first, GROUP);
        (first + offset(u, GROUP * tiles_n) % rows, offset(u, GROUP * tiles_n) / rows)
    }

    /// `u`'s place in its span.
    fn offset(u: i32, span: i32) -> i32 {
        u % span
    }

    /// Stores `acc` to the tile (i, j) of `c`, in `T`.
    pub fn store_tile<T>(acc: Acc<f32, 64, 64>, c: GmemMut<T, M, N>, i: i32, j: i32) {
        c.tile([i, j]).store(acc.load().cast::<T>());
    }
}

#[kernels(uses(tiles))]
mod gemm {
    use tessel::prelude::*;

    #[kernel(grid = (M / 64 * (N / 64)), instances(bf16, f32))]
    pub fn matmul<T>(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<T, M, N>) {
        let (i, j) = grouped::<8>(program_id(0), M / 64, N / 64);
        run_scoped(
            |acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier<2>| {
                for k in 0..K / 64 {
                    copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s);
                    wgmma_wait(0);
                }
                store_tile::<T>(acc, c, i, j);
            },
        );
    }
}

#[kernels(uses(crate::tiles))]
mod marks {
    use tessel::prelude::*;

    /// `1000 i + j`.
    fn offset(i: i32, j: i32) -> f32 {
        (1000 * i + j) as f32
    }

    #[kernel(grid = (M / 64 * (N / 64)))]
    pub fn mark(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
        let (i, j) = grouped::<3>(program_id(0), M / 64, N / 64);
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma) + offset(i, j));
    }
}

fn main() {
    assert_eq!(gemm::ALL_PTX.len(), 2);
    assert!(marks::mark::PTX.contains(".entry mark"));
}
