//! The shipped kernel-function libraries (`tessel_kernels::gemm_fns`) in a kernel of another
//! crate, as a user writes one: a `#[kernels]` module that uses `tiles` by its path through
//! `tessel_kernels`, against a CPU reference in the interpreter.

use crate::common;

use common::{assert_close, values, Rng};
use tessel::prelude::*;

/// `y = x + u` on the 64 x 64 tile (i, j) that program `u` takes in the GEMMs' tile order, three
/// tile-rows at a time.
#[kernels(uses(tessel_kernels::gemm_fns::tiles))]
mod marks {
    use tessel::prelude::*;

    #[kernel(grid = (cdiv(M, 64) * cdiv(N, 64)))]
    pub fn mark(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
        let (i, j) = tile_order::<3>(program_id(0), cdiv(M, 64), cdiv(N, 64));
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma) + (program_id(0) as f32));
    }
}

/// The tile (row, column) of unit `u`, as `tiles::tile_order::<GROUP>` computes it.
fn tile_order(u: usize, rows: usize, cols: usize, group: usize) -> (usize, usize) {
    let first = u / (group * cols) * group;
    let here = (rows - first).min(group);
    (first + u % (group * cols) % here, u % (group * cols) / here)
}

#[test]
fn a_kernel_of_another_crate_uses_the_shipped_tile_order() {
    let (m, n) = (448, 192);
    let x = Rng::new(501).tensor::<f32>(&[m, n], 1.0);
    let mut y = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    marks::mark::interpret(&x, &mut y).unwrap();
    // The program that takes each tile, by the order computed here: every tile exactly once.
    let (rows, cols) = (m / 64, n / 64);
    let mut taken_by = vec![None; rows * cols];
    for u in 0..rows * cols {
        let (i, j) = tile_order(u, rows, cols, 3);
        assert!(taken_by[i * cols + j].replace(u).is_none(), "tile ({i}, {j}) twice");
    }
    let xs = values(&x);
    let want: Vec<f64> = (0..m * n)
        .map(|e| {
            let u = taken_by[e / n / 64 * cols + e % n / 64].expect("every tile taken");
            (xs[e] as f32 + u as f32) as f64
        })
        .collect();
    assert_close("mark", &values(&y), &want, 0.0);
}
