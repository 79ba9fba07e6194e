//! Register loads and stores of global tiles two elements at a time (`ld.global.v2`,
//! `st.global.v2`, and for 16-bit floats one word, `st.global.b32`, the pair packed by a
//! `mov.b32`): a `Wgmma` f32 load and bf16 store whose rows are known to be even (the launch
//! checks `K` and `N` against the 16-wide tiles; tiles of 32 columns or more store in runs of
//! eight instead, `quads.rs`), and shapeless stores into an array whose last
//! dimension nothing constrains, which branch on its parity at run time (odd rows are not
//! pair-aligned: element by element).
// expect: ld.global.v2.f32
// expect: mov.b32
// expect: st.global.b32
// expect: st.global.v2.f32
// expect: bra L_odd_rows

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 16))]
fn pairs_known_even(x: Gmem<f32, M, K>, y: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, 0], [64, 16]).load(Layout::Wgmma);
    y.tile([i, j], [64, 16]).store(v.cast::<bf16>());
}

#[kernel(grid = ((M + 63) / 64, (N + 63) / 64))]
fn pairs_runtime_parity(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([i, j]).store(v);
}

fn main() {}
