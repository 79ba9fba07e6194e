//! Layout changes: Strided -> Wgmma -> MmaAcc -> Strided through scratch shared memory, row and
//! column broadcasts, a splat made into a WGMMA array, `layout_cast` between the WGMMA layout and
//! the mma accumulator and A fragments (no data moves), and B fragments back to the WGMMA layout.
// expect: to_layout Layout::Strided -> Layout::Wgmma through scratch shared memory
// expect: to_layout Layout::MmaRhs -> Layout::Wgmma through scratch shared memory
// expect: bar.sync

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 16))]
fn relayout(
    x: Gmem<f32, M, N>,
    h: Gmem<f16, M, N>,
    spread: GmemMut<f32, M, N>,
    same: GmemMut<f32, M, N>,
    halves: GmemMut<f16, M, N>,
    from_b: GmemMut<f16, M, N>,
) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, j], [64, 16]).load(Layout::Strided).to_layout(Layout::Wgmma);
    let rows = v.max(1).broadcast([64, 16], Layout::Wgmma);
    let cols = v.sum(0).broadcast([64, 16], Layout::Wgmma);
    let ones = splat::<f32>(1.0, [64, 16]).to_layout(Layout::Wgmma);
    let s = (v - rows + cols + ones).to_layout(Layout::MmaAcc).to_layout(Layout::Strided);
    spread.tile([i, j], [64, 16]).store(s);
    same.tile([i, j], [64, 16]).store(v.layout_cast(Layout::MmaAcc));
    let hv = h.tile([i, j], [64, 16]).load(Layout::Wgmma).layout_cast(Layout::MmaLhs);
    halves.tile([i, j], [64, 16]).store(hv);
    let hb = h.tile([i, j], [64, 16]).load(Layout::MmaRhs).to_layout(Layout::Wgmma);
    from_b.tile([i, j], [64, 16]).store(hb);
}

fn main() {}
