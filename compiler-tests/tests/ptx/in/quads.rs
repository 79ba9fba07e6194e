//! Register stores of 16-bit `Wgmma` arrays in runs of eight: each quad's words of 32 columns
//! transposed across its lanes (`shfl.sync.bfly` by 1 and 2, `selp`) and stored 16 bytes a thread
//! (`st.global.v4.b32`). A bf16 store of 64 x 128 tiles whose rows the launch knows to start
//! 16-byte aligned (it checks `N` against the tile), an f16 store of 128-row tiles (two of the
//! fragment's row blocks), and shapeless stores into an array whose last dimension nothing
//! constrains, which test at run time for a multiple of 8 (runs), then for an even one (pairs),
//! else go element by element.
// expect: shfl.sync.bfly.b32
// expect: st.global.v4.b32
// expect: bra L_rows_not_16_byte_aligned
// expect: bra L_odd_rows
// expect: st.global.b32

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 128))]
fn runs_known_aligned(x: Gmem<f32, M, K>, y: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, 0], [64, 128]).load(Layout::Wgmma);
    y.tile([i, j], [64, 128]).store(v.cast::<bf16>());
}

#[kernel(grid = (M / 128, N / 64))]
fn runs_of_two_row_blocks(x: Gmem<f32, M, K>, y: GmemMut<f16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, 0], [128, 64]).load(Layout::Wgmma);
    y.tile([i, j], [128, 64]).store(v.cast::<f16>());
}

#[kernel(grid = ((M + 63) / 64, (N + 63) / 64))]
fn runs_runtime_alignment(x: Gmem<f32, M, 64>, y: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([i, j]).store(v.cast::<bf16>());
}

fn main() {}
