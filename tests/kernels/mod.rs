//! Kernels shared by the GPU tests (`gpu_gemm.rs`, `gpu_ops.rs`) and the interpreter tests
//! (`interp.rs`): one definition each, run on the H200 and on the CPU.
#![allow(dead_code)]

use tessel::prelude::*;
use tessel::Element;

/// bf16 x bf16 -> f32, B stored K x N (MN-major, the transposed wgmma form), 64 x 128 tiles.
#[kernel(grid = (M / 64, N / 128))]
pub fn gemm_bf16(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 128>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 128, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

/// f16 x f16 -> f16 accumulator and output, two 64-row tiles per program (M = 128).
#[kernel(grid = (M / 128, N / 64))]
pub fn gemm_f16_f16(a: Gmem<f16, M, K>, b: Gmem<f16, K, N>, c: GmemMut<f16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f16, 128, 64>,
         a_s: Smem<f16, 128, 64, Swizzle128>,
         b_s: Smem<f16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

/// bf16 -> f32 accumulate -> bf16 output, A from registers, B K-major (stored N x K, used as `.t()`).
#[kernel(grid = (M / 64, N / 64))]
pub fn gemm_bf16_rega(a: Gmem<bf16, M, K>, b: Gmem<bf16, N, K>, c: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                let a_r = a_s.load(Layout::Wgmma);
                wgmma(acc, a_r, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load().cast::<bf16>());
        },
    );
}

/// A GEMM with both operands K-major (B stored N x K, used as `.t()`), one stage, 64 x 64 tiles of
/// C and `BK`-wide K tiles: the 32-bit and 8-bit WGMMA forms, which need K-major operands.
macro_rules! kmajor_gemm {
    ($(#[$doc:meta])* $name:ident: $ga:ident x $gb:ident as $sa:ident x $sb:ident -> $acc:ident, BK = $bk:literal) => {
        $(#[$doc])*
        #[kernel(grid = (M / 64, N / 64), consts(BK = $bk))]
        pub fn $name(a: Gmem<$ga, M, K>, b: Gmem<$gb, N, K>, c: GmemMut<$acc, M, N>) {
            let (i, j) = (program_id(0), program_id(1));
            run_scoped(
                |acc: Acc<$acc, 64, 64>,
                 a_s: Smem<$sa, 64, BK, Swizzle128>,
                 b_s: Smem<$sb, 64, BK, Swizzle128>,
                 bar: Barrier<2>| {
                    for k in 0..K / BK {
                        copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                        copy_gmem_to_smem(b.tile([j, k]), b_s, bar);
                        barrier_wait(bar);
                        wgmma(acc, a_s, b_s.t());
                        wgmma_wait(0);
                    }
                    c.tile([i, j]).store(acc.load());
                },
            );
        }
    };
}

kmajor_gemm!(
    /// tf32 (f32 data) -> f32.
    gemm_tf32: f32 x f32 as tf32 x tf32 -> f32, BK = 32
);
kmajor_gemm!(
    /// e4m3 x e5m2 -> f32 (the fp8 mix), 128-wide K tiles.
    gemm_fp8: f8e4m3 x f8e5m2 as f8e4m3 x f8e5m2 -> f32, BK = 128
);
kmajor_gemm!(
    /// i8 x i8 -> i32.
    gemm_i8: i8 x i8 as i8 x i8 -> i32, BK = 128
);

/// TMA round trip: global -> shared (swizzled) -> registers (+1) -> shared -> global (TMA store).
#[kernel(grid = (M / 64, N / 64))]
pub fn tma_copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|s_in: Smem<f32, 64, 64, Swizzle128>, s_out: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), s_in, bar);
        barrier_wait(bar);
        let v = s_in.load(Layout::Strided);
        s_out.store(v + 1.0);
        commit_smem();
        copy_smem_to_gmem(s_out, y.tile([i, j]));
        wait_smem_to_gmem(0);
    });
}

/// 16-bit WGMMA-layout arrays into shared memory (`stmatrix`), swizzled (two 128-byte atoms wide)
/// and plain, then out with TMA stores: both outputs equal the input.
#[kernel(grid = (M / 128, N / 128))]
pub fn stmatrix_copy(x: Gmem<bf16, M, N>, y: GmemMut<bf16, M, N>, z: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|swizzled: Smem<bf16, 128, 128, Swizzle128>, plain: Smem<bf16, 128, 128>| {
        let v = x.tile([i, j], [128, 128]).load(Layout::Wgmma);
        swizzled.store(v);
        plain.store(v);
        commit_smem();
        copy_smem_to_gmem(swizzled, y.tile([i, j]));
        copy_smem_to_gmem(plain, z.tile([i, j]));
        wait_smem_to_gmem(0);
    });
}

/// Windows of a WGMMA-layout register array (`.slice`): each 128 x 128 tile of `x` loaded once,
/// its quadrants stored swapped into `y` (`stmatrix` into shared memory, TMA out), and its 8-column
/// blocks stored into `z` in reverse order from registers.
#[kernel(grid = (M / 128, N / 128))]
pub fn regs_windows(x: Gmem<bf16, M, N>, y: GmemMut<bf16, M, N>, z: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, j], [128, 128]).load(Layout::Wgmma);
    run_scoped(|quads: Smem<bf16, 2, 2, 64, 64, Swizzle128>| {
        #[unroll]
        for r in 0..2 {
            #[unroll]
            for c in 0..2 {
                quads.at(r).at(c).store(v.slice([64 - 64 * r..128 - 64 * r, 64 - 64 * c..128 - 64 * c]));
            }
        }
        commit_smem();
        #[unroll]
        for r in 0..2 {
            #[unroll]
            for c in 0..2 {
                copy_smem_to_gmem(quads.at(r).at(c), y.tile([2 * i + r, 2 * j + c]));
            }
        }
        wait_smem_to_gmem(0);
    });
    #[unroll]
    for b in 0..16 {
        z.tile([i, 16 * j + b], [128, 8]).store(v.slice([.., 120 - 8 * b..128 - 8 * b]));
    }
}

/// What `regs_windows` writes: per 128 x 128 tile, `y` the quadrants swapped, `z` the 8-column
/// blocks reversed.
pub fn regs_windows_ref(x: &[f64], m: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut y, mut z) = (vec![0.0; m * n], vec![0.0; m * n]);
    for r in 0..m {
        for c in 0..n {
            let (r0, c0, rr, cc) = (r / 128 * 128, c / 128 * 128, r % 128, c % 128);
            y[r * n + c] = x[(r0 + (rr + 64) % 128) * n + c0 + (cc + 64) % 128];
            z[r * n + c] = x[r * n + c0 + (120 - cc / 8 * 8) + cc % 8];
        }
    }
    (y, z)
}

/// WGMMA-layout arrays through shared memory one thread address at a time: f32 stored into a
/// swizzled buffer two column blocks wide (TMA out to `y`: `x`) and into a plain one (`2 x`),
/// both loaded back whole and through windows of rows and of column blocks (`z`: `3 x`, the
/// bottom half's left and right blocks through windows), and bf16 stored (`stmatrix`) and loaded
/// back from a swizzled buffer (`h`: `x` rounded).
#[kernel(grid = (M / 128, N / 64))]
pub fn smem_walks(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, z: GmemMut<f32, M, N>, h: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |sw: Smem<f32, 128, 64, Swizzle128>, plain: Smem<f32, 128, 64>, halves: Smem<bf16, 128, 64, Swizzle128>| {
            let v = x.tile([i, j], [128, 64]).load(Layout::Wgmma);
            sw.store(v);
            plain.store(v * 2.0);
            halves.store(v.cast::<bf16>());
            commit_smem();
            copy_smem_to_gmem(sw, y.tile([i, j]));
            wait_smem_to_gmem(0);
            let whole = sw.load(Layout::Wgmma) + plain.load(Layout::Wgmma);
            z.tile([2 * i, j], [64, 64]).store(whole.slice([0..64, ..]));
            let left =
                sw.slice([64..128, 0..32]).load(Layout::Wgmma) + plain.slice([64..128, 0..32]).load(Layout::Wgmma);
            z.tile([2 * i + 1, 2 * j], [64, 32]).store(left);
            let right =
                sw.slice([64..128, 32..64]).load(Layout::Wgmma) + plain.slice([64..128, 32..64]).load(Layout::Wgmma);
            z.tile([2 * i + 1, 2 * j + 1], [64, 32]).store(right);
            h.tile([i, j], [128, 64]).store(halves.load(Layout::Wgmma));
        },
    );
}

/// What `smem_walks` writes, from `x`: `y` = x, `z` = x + 2 x (in f32), `h` = x rounded to bf16.
pub fn smem_walks_ref(x: &HostTensor<f32>) -> [Vec<f64>; 3] {
    let x: Vec<f64> = x.data().iter().map(|v| f64::from(*v)).collect();
    let h = x.iter().map(|&v| bf16::from_f32(v as f32).to_f64()).collect();
    let z = x.iter().map(|&v| f64::from(v as f32 + 2.0 * v as f32)).collect();
    [x, z, h]
}

/// Row and column vectors of a 128 x 64 tile through plain 1-D shared buffers, one thread address
/// at a time: f32 row sums (`WgmmaRow`, 128 of them), f32 column sums and maxima (`WgmmaCol`, in
/// pairs) and bf16 column sums (pairs packed in 32 bits), stored, loaded back and broadcast:
/// `y = x + rows + cols`; `z`'s top 64 rows `maxima + bf16 sums`, its bottom 64 the last 64 row
/// sums, loaded through a window.
#[kernel(grid = (M / 128))]
pub fn smem_vectors(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>, z: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    run_scoped(|rows: Smem<f32, 128>, cols: Smem<f32, 2, 64>, halves: Smem<bf16, 64>| {
        let v = x.tile([i, 0], [128, 64]).load(Layout::Wgmma);
        rows.store(v.sum(1));
        cols.at(0).store(v.sum(0));
        cols.at(1).store(v.max(0));
        halves.store(v.sum(0).cast::<bf16>());
        commit_smem();
        let r = rows.load(Layout::WgmmaRow).broadcast([128, 64], Layout::Wgmma);
        let c = cols.at(0).load(Layout::WgmmaCol).broadcast([128, 64], Layout::Wgmma);
        y.tile([i, 0], [128, 64]).store(v + r + c);
        let m = cols.at(1).load(Layout::WgmmaCol).broadcast([64, 64], Layout::Wgmma);
        let h = halves.load(Layout::WgmmaCol).cast::<f32>().broadcast([64, 64], Layout::Wgmma);
        z.tile([2 * i, 0], [64, 64]).store(m + h);
        let last = rows.slice([64..128]).load(Layout::WgmmaRow);
        z.tile([2 * i + 1, 0], [64, 64]).store(last.broadcast([64, 64], Layout::Wgmma));
    });
}

/// What `smem_vectors` writes from `x` (`m` x 64 of small integers, so that every f32 sum is
/// exact): `[y, z]`.
pub fn smem_vectors_ref(x: &HostTensor<f32>, m: usize) -> [Vec<f64>; 2] {
    let x: Vec<f64> = x.data().iter().map(|v| f64::from(*v)).collect();
    let (mut y, mut z) = (vec![0.0; m * 64], vec![0.0; m * 64]);
    for t in 0..m / 128 {
        let at = |r: usize, c: usize| x[(128 * t + r) * 64 + c];
        let row = |r: usize| (0..64).map(|c| at(r, c)).sum::<f64>();
        let col = |c: usize| (0..128).map(|r| at(r, c)).sum::<f64>();
        let top = |c: usize| (0..128).map(|r| at(r, c)).fold(f64::MIN, f64::max);
        for r in 0..128 {
            for c in 0..64 {
                let o = (128 * t + r) * 64 + c;
                y[o] = at(r, c) + row(r) + col(c);
                z[o] = if r < 64 { top(c) + bf16::from_f32(col(c) as f32).to_f64() } else { row(r) };
            }
        }
    }
    [y, z]
}

/// A product through windows of whole column blocks of swizzled buffers: the left half of `c`
/// adds A's two 64-column blocks (K-major windows) times B's row windows of its left block, the
/// right half takes all of A times B's right block (an MN-major window): `c = a b` either way.
#[kernel(grid = (M / 64, N / 128))]
pub fn column_windows(a: Gmem<bf16, M, 128>, b: Gmem<bf16, 128, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|a_s: Smem<bf16, 64, 128, Swizzle128>, b_s: Smem<bf16, 128, 128, Swizzle128>, bar: Barrier<2>| {
        copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
        copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
        barrier_wait(bar);
        run_scoped(|left: Acc<f32, 64, 64>, right: Acc<f32, 64, 64>| {
            wgmma(left, a_s.slice([.., 0..64]), b_s.slice([0..64, 0..64]), accumulate = false);
            wgmma(left, a_s.slice([.., 64..128]), b_s.slice([64..128, 0..64]));
            wgmma(right, a_s, b_s.slice([.., 64..128]), accumulate = false);
            wgmma_wait(0);
            c.tile([i, 2 * j], [64, 64]).store(left.load());
            c.tile([i, 2 * j + 1], [64, 64]).store(right.load());
        });
    });
}

/// Row softmax of a 64 x 64 tile in the WGMMA layout: max, exp2, sum, broadcast, divide.
#[kernel(grid = (M / 64,))]
pub fn softmax(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    let m = v.max(1).broadcast([64, 64], Layout::Wgmma);
    let e = exp2((v - m) * 1.4426950408889634);
    let s = e.sum(1).broadcast([64, 64], Layout::Wgmma);
    y.tile([i, 0], [64, 64]).store(e / s);
}

/// Column sums (axis 0 goes across warps) and a relayout to the strided layout and back.
#[kernel(grid = (M / 64,))]
pub fn colsum(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    let c = v.sum(0).broadcast([64, 64], Layout::Wgmma);
    let out = (v + c).to_layout(Layout::Strided);
    y.tile([i, 0], [64, 64]).store(out.to_layout(Layout::Wgmma));
}

/// Reductions of 1-D arrays to scalars, each written to one column of every row of the program's
/// [64, 8] block of `out`: the sum of a tile's row sums (a row vector: its partials meet across
/// the warps), the maximum of its column maxima (a column vector: whole in every warp), the
/// maximum of 200 strided f32 (the last 72 one per thread: the others hold the identity), the
/// minimum and the sum of 200 strided i32, a splat's sum, and the sum of a bf16 row vector.
#[kernel(grid = (M / 64,))]
pub fn scalar_reductions(x: Gmem<f32, M, 64>, f: Gmem<f32, 200>, n: Gmem<i32, 200>, out: GmemMut<f32, M, 8>) {
    let i = program_id(0);
    let t = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    let fs = f.tile([0], [200]).load(Layout::Strided);
    let ns = n.tile([0], [200]).load(Layout::Strided);
    let total = t.sum(1).sum(0);
    let top = t.max(0).max(0);
    let strided_max = fs.max(0);
    let (low, sum) = (ns.min(0).cast::<f32>(), ns.sum(0).cast::<f32>());
    let quarters = splat::<f32>(0.25, [64]).sum(0);
    let narrow = t.cast::<bf16>().sum(1).sum(0).cast::<f32>();
    let col = iota::<i32>([64, 8], 1);
    let row = (col == 0).cast::<f32>() * total
        + (col == 1).cast::<f32>() * top
        + (col == 2).cast::<f32>() * strided_max
        + (col == 3).cast::<f32>() * low
        + (col == 4).cast::<f32>() * sum
        + (col == 5).cast::<f32>() * quarters
        + (col == 6).cast::<f32>() * narrow;
    out.tile([i, 0], [64, 8]).store(row);
}

/// `scalar_reductions`' outputs for one 64-row block of `x` (f32 values) with the interpreter's
/// semantics: each reduction left to right, rounding to the dtype after every step.
pub fn scalar_reductions_ref(x: &[f32], f: &[f32], n: &[i32]) -> [f64; 7] {
    let rows: Vec<&[f32]> = x.chunks(64).collect();
    let fold = |v: &mut dyn Iterator<Item = f32>, op: fn(f32, f32) -> f32| {
        let first = v.next().unwrap_or(0.0);
        v.fold(first, op)
    };
    let row_sums: Vec<f32> = rows.iter().map(|r| fold(&mut r.iter().copied(), |a, b| a + b)).collect();
    let col_max: Vec<f32> = (0..64).map(|c| fold(&mut rows.iter().map(|r| r[c]), f32::max)).collect();
    let to_bf16 = |v: f32| bf16::from_f32(v);
    let bf16_row_sums: Vec<bf16> = rows
        .iter()
        .map(|r| r[1..].iter().fold(to_bf16(r[0]), |a, &b| to_bf16(a.to_f32() + to_bf16(b).to_f32())))
        .collect();
    let bf16_total = bf16_row_sums[1..].iter().fold(bf16_row_sums[0], |a, &b| to_bf16(a.to_f32() + b.to_f32()));
    [
        f64::from(fold(&mut row_sums.into_iter(), |a, b| a + b)),
        f64::from(fold(&mut col_max.into_iter(), f32::max)),
        f64::from(fold(&mut f.iter().copied(), f32::max)),
        f64::from(n.iter().copied().min().unwrap_or(0)),
        f64::from(n.iter().fold(0i32, |a, &b| a.wrapping_add(b)) as f32),
        16.0,
        f64::from(bf16_total.to_f32()),
    ]
}

/// `scalar_reductions`' inputs: two 64-row blocks of N(0,1) values, 200 negative f32 (a maximum
/// that an identity of 0 for the threads past the end would spoil) and 200 small integers.
pub fn scalar_reductions_inputs() -> (HostTensor<f32>, HostTensor<f32>, HostTensor<i32>) {
    let mut rng = crate::common::Rng::new(131);
    let x = rng.tensor::<f32>(&[128, 64], 1.0);
    let f = HostTensor::from_fn(vec![200], |_| -1.0 - rng.normal().abs() as f32).expect("shape");
    let n = rng.ints::<i32>(&[200]);
    (x, f, n)
}

/// Warp-level mma.sync, bf16 -> f32, a 64 x 64 block per program, K in steps of 16.
#[kernel(grid = (M / 64, N / 64))]
pub fn mma_bf16(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let mut acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
    for k in 0..K / 16 {
        let x = a.tile([i, k], [64, 16]).load(Layout::MmaLhs);
        let y = b.tile([k, j], [16, 64]).load(Layout::MmaRhs);
        acc = mma(acc, x, y);
    }
    c.tile([i, j], [64, 64]).store(acc);
}

/// Warp-level mma.sync, i8 -> i32, 32 rows per program (two warps along M).
#[kernel(grid = (M / 32, N / 32))]
pub fn mma_i8(a: Gmem<i8, M, K>, b: Gmem<i8, K, N>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let mut acc = splat::<i32>(0, [32, 32]).to_layout(Layout::MmaAcc);
    for k in 0..K / 32 {
        let x = a.tile([i, k], [32, 32]).load(Layout::MmaLhs);
        let y = b.tile([k, j], [32, 32]).load(Layout::MmaRhs);
        acc = mma(acc, x, y);
    }
    c.tile([i, j], [32, 32]).store(acc);
}

/// Warp specialization: warpgroup 0 produces tiles through a two-stage ring, warpgroups 1 and 2
/// each multiply their half of the rows.
#[kernel(grid = (M / 128, N / 64), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, consts(STAGES = 2))]
pub fn specialized(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<bf16, STAGES, 2, 64, 64, Swizzle128>,
         b_s: Smem<bf16, STAGES, 64, 64, Swizzle128>,
         full: Barrier<3, STAGES>,
         empty: Barrier<2, STAGES>| {
            if warpgroup_id() == 0 {
                set_max_registers(40);
                for k in 0..K / 64 {
                    let s = k % STAGES;
                    if k >= STAGES {
                        barrier_wait(empty.at(s));
                    }
                    copy_gmem_to_smem(a.tile([2 * i, k]), a_s.at(s).at(0), full.at(s));
                    copy_gmem_to_smem(a.tile([2 * i + 1, k]), a_s.at(s).at(1), full.at(s));
                    copy_gmem_to_smem(b.tile([k, j]), b_s.at(s), full.at(s));
                }
            } else {
                set_max_registers(232);
                let h = warpgroup_id() - 1;
                run_scoped(|acc: Acc<f32, 64, 64>| {
                    for k in 0..K / 64 {
                        let s = k % STAGES;
                        barrier_wait(full.at(s));
                        wgmma(acc, a_s.at(s).at(h), b_s.at(s));
                        wgmma_wait(0);
                        barrier_arrive(empty.at(s));
                    }
                    c.tile([2 * i + h, j], [64, 64]).store(acc.load());
                });
            }
        },
    );
}

/// A 2 x 1 cluster on a `Pipeline`: each program loads its A tile and half of the B tile both
/// programs share (multicast); the consumer releases each stage in both programs (`cluster =
/// true`), so that no multicast lands in a stage a peer still reads, over many K steps.
#[kernel(grid = (M / 64, N / 128), cluster = (2, 1), warpgroups = 2, warpgroup_axis = wg, consts(STAGES = 3))]
pub fn pipelined_cluster(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<bf16, STAGES, 64, 64, Swizzle128>,
         b_s: Smem<bf16, STAGES, 64, 128, Swizzle128>,
         ring: Pipeline<STAGES, 2, 2>| {
            if warpgroup_id() == 0 {
                pipeline_produce(ring, K / 64, |k, s, bar| {
                    copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s.at(s), bar, multicast = true);
                });
            } else {
                run_scoped(|acc: Acc<f32, 64, 128>| {
                    pipeline_consume(
                        ring,
                        K / 64,
                        |k, s| {
                            wgmma(acc, a_s.at(s), b_s.at(s));
                        },
                        cluster = true,
                    );
                    c.tile([i, j]).store(acc.load());
                });
            }
        },
    );
}

/// Split K across a 2 x 1 cluster: each program multiplies half of K for the same 64 x 128 tile
/// of C; program 1 sends its f32 partial into program 0's `part` (`copy_smem_to_peer`), which adds
/// it to its own and stores the sum.
#[kernel(grid = (2 * (M / 64), N / 128), cluster = (2, 1), warpgroups = 2, warpgroup_axis = wg, consts(STAGES = 2))]
pub fn split_k_pair(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (half, i, j, steps) = (cluster_rank(), program_id(0) / 2, program_id(1), K / 128);
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<bf16, STAGES, 64, 64, Swizzle128>,
         b_s: Smem<bf16, STAGES, 64, 128, Swizzle128>,
         ring: Pipeline<STAGES, 2, 1>,
         part: Smem<f32, 64, 128, Swizzle128>,
         received: Barrier| {
            if warpgroup_id() == 0 {
                pipeline_produce(ring, steps, |k, s, bar| {
                    copy_gmem_to_smem(a.tile([i, half * steps + k]), a_s.at(s), bar);
                    copy_gmem_to_smem(b.tile([half * steps + k, j]), b_s.at(s), bar);
                });
            } else {
                run_scoped(|acc: Acc<f32, 64, 128>| {
                    pipeline_consume(ring, steps, |k, s| {
                        wgmma(acc, a_s.at(s), b_s.at(s));
                    });
                    if half == 1 {
                        part.store(acc.load());
                        commit_smem();
                        copy_smem_to_peer(part, part, received, 0);
                    } else {
                        barrier_wait(received);
                        c.tile([i, j]).store(acc.load() + part.load(Layout::Wgmma));
                    }
                });
            }
        },
    );
}

/// One program per column of 64 x 128 tiles walks down it, reusing one accumulator: each tile's
/// first K step replaces the accumulator (`accumulate = k > 0`) instead of zeroing it first.
#[kernel(grid = (N / 128,))]
pub fn tiles_down_a_column(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let j = program_id(0);
    run_scoped(
        |acc: Acc<f32, 64, 128>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 128, Swizzle128>,
         bar: Barrier<2>| {
            for i in 0..M / 64 {
                for k in 0..K / 64 {
                    copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s, accumulate = k > 0);
                    wgmma_wait(0);
                }
                c.tile([i, j]).store(acc.load());
            }
        },
    );
}

/// Scalar control flow: mutable names bound together from a tuple, one of them a constant, and
/// assigned under branches inside a loop (each program sums its own schedule of ranges).
#[kernel(grid = (N / 128,))]
pub fn branchy_ranges(x: Gmem<f32, N>, y: GmemMut<f32, N>, n: i32) {
    let i = program_id(0);
    let mut total = 0;
    for k in 0..n {
        let (mut lo, mut hi) = (0, n);
        if k % 3 == i % 3 {
            lo = k;
        }
        if k % 2 == 0 {
            hi = k + i;
        }
        total += hi - lo;
    }
    let v = x.tile([i], [128]).load(Layout::Strided) + (total as f32);
    y.tile([i], [128]).store(v);
}

/// Tuple assignment evaluates every value before it assigns any: `(a, b) = (b, a + b)` steps a
/// Fibonacci recurrence over register arrays, `(j, k) = (k, j)` swaps scalars, `_` drops a value.
/// After `n` steps `y = a + (1000 j + k)`.
#[kernel(grid = (N / 128,))]
pub fn tuple_steps(x: Gmem<f32, N>, y: GmemMut<f32, N>, n: i32) {
    let i = program_id(0);
    let mut a = x.tile([i], [128]).load(Layout::Strided);
    let mut b = a * 0.5;
    let (mut j, mut k) = (i, 1);
    for _t in 0..n {
        (a, b) = (b, a + b);
        (j, k, _) = (k, j, a);
    }
    y.tile([i], [128]).store(a + ((1000 * j + k) as f32));
}

/// `tuple_steps` on the CPU, in f32 as the kernel computes: `x` has `128 * programs` elements.
pub fn tuple_steps_ref(x: &[f32], n: i32) -> Vec<f64> {
    (0..x.len())
        .map(|e| {
            let (mut a, mut b) = (x[e], x[e] * 0.5);
            let (mut j, mut k) = ((e / 128) as i32, 1);
            for _ in 0..n {
                (a, b) = (b, a + b);
                (j, k) = (k, j);
            }
            (a + (1000 * j + k) as f32) as f64
        })
        .collect()
}

/// `if` as a value: scalars (an `else if` chain; a literal that takes the other branch's `u32`),
/// register arrays, a branch with statements before its value, a tuple, and a constant condition
/// (only its branch is emitted). `y = w + (band + m)`.
#[kernel(grid = (N / 128,), consts(FLIP = 1))]
pub fn if_values(x: Gmem<f32, N>, y: GmemMut<f32, N>, n: u32) {
    let i = program_id(0);
    let band = if i % 3 == 0 {
        10
    } else if i % 3 == 1 {
        20
    } else {
        30
    };
    let m = if i > 1 { n } else { 0 };
    let v = x.tile([i], [128]).load(Layout::Strided);
    let w = if i % 2 == 0 {
        v * 2.0
    } else {
        let h = v + 1.0;
        h * h
    };
    let (a, b) = if FLIP == 1 { (band, m) } else { (m as i32, band as u32) };
    y.tile([i], [128]).store(w + ((a as u32 + b) as f32));
}

/// `if_values` on the CPU, in f32 as the kernel computes: `x` has `128 * programs` elements.
pub fn if_values_ref(x: &[f32], n: u32) -> Vec<f64> {
    (0..x.len())
        .map(|e| {
            let i = e / 128;
            let band = [10, 20, 30][i % 3];
            let m = if i > 1 { n } else { 0 };
            let w = if i % 2 == 0 { x[e] * 2.0 } else { (x[e] + 1.0) * (x[e] + 1.0) };
            (w + (band + m) as f32) as f64
        })
        .collect()
}

/// A float literal in a bf16 splat or beside a bf16 array is rounded once, from its written value:
/// 1 + 2^-8 + 2^-30 is bf16 1 + 2^-7 (rounded to f32 first it would be the tie 1 + 2^-8, and
/// then 1). With `x` all ones, every element of `y` and `z` is 1.0078125.
#[kernel(grid = (1,))]
pub fn literal_rounding(x: Gmem<bf16, 64, 64>, y: GmemMut<bf16, 64, 64>, z: GmemMut<bf16, 64, 64>) {
    let ones = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([0, 0]).store(ones * 1.003906250931322574615478515625);
    z.tile([0, 0]).store((ones - 1.0) + splat::<bf16>(1.003906250931322574615478515625, [64, 64]));
}

/// A global tile's leading extents of 1 do not count in registers: a 1 x 64 x 64 block of an
/// H x R x 64 array loads as a 64 x 64 array (in `Layout::Wgmma`, with paired accesses, and in
/// `Layout::Strided`) and stores from one: `y = 2 x`, `z = x + 1`.
#[kernel(grid = (H, R / 64))]
pub fn per_head(x: Gmem<f32, H, R, 64>, y: GmemMut<f32, H, R, 64>, z: GmemMut<f32, H, R, 64>) {
    let (h, i) = (program_id(0), program_id(1));
    let v = x.tile([h, i, 0], [1, 64, 64]).load(Layout::Wgmma);
    y.tile([h, i, 0], [1, 64, 64]).store(v * 2.0);
    let w = x.tile([h, i, 0], [1, 64, 64]).load(Layout::Strided);
    z.tile([h, i, 0], [1, 64, 64]).store(w + 1.0);
}

/// `bitcast` reads the same bits as another dtype of their width, on register arrays and scalars:
/// f32 <-> u32 (`bits`, and `next`: one ulp up by adding 1 to the bits), bf16 -> i16 -> bf16,
/// f8e4m3 -> u8 -> f8e4m3, and an f32 parameter's bits as an i32 plus the column.
#[kernel(grid = (1,))]
pub fn bit_views(
    x: Gmem<f32, 64, 64>,
    bits: GmemMut<u32, 64, 64>,
    next: GmemMut<f32, 64, 64>,
    half_bits: GmemMut<i16, 64, 64>,
    half_back: GmemMut<bf16, 64, 64>,
    byte_bits: GmemMut<u8, 64, 64>,
    byte_back: GmemMut<f32, 64, 64>,
    param_bits: GmemMut<i32, 64, 64>,
    scale: f32,
) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let b = v.bitcast::<u32>();
    bits.tile([0, 0]).store(b);
    next.tile([0, 0]).store((b + 1).bitcast::<f32>());
    let h = v.cast::<bf16>().bitcast::<i16>();
    half_bits.tile([0, 0]).store(h);
    half_back.tile([0, 0]).store(h.bitcast::<bf16>());
    let e = v.cast::<f8e4m3>().bitcast::<u8>();
    byte_bits.tile([0, 0]).store(e);
    byte_back.tile([0, 0]).store(e.bitcast::<f8e4m3>().cast::<f32>());
    param_bits.tile([0, 0]).store(iota::<i32>([64, 64], 1).to_layout(Layout::Wgmma) + scale.bitcast::<i32>());
}

/// `bit_views`'s input (N(0,1) with -0, 1, -2.5 and 100 planted) and its outputs' expected values,
/// computed on the host from the same bits, in the order of the kernel's outputs.
pub fn bit_views_case() -> (HostTensor<f32>, f32, Vec<Vec<f64>>) {
    let mut x = crate::common::Rng::new(15).tensor::<f32>(&[64, 64], 1.0);
    x.data_mut()[..4].copy_from_slice(&[-0.0, 1.0, -2.5, 100.0]);
    let scale = 0.1f32;
    let (mut want, xs) = (vec![Vec::new(); 7], x.data().to_vec());
    for (e, &v) in xs.iter().enumerate() {
        let (h, b) = (bf16::from_f32(v), F8E4M3::from_f32(v));
        want[0].push(f64::from(v.to_bits()));
        want[1].push(f64::from(f32::from_bits(v.to_bits() + 1)));
        want[2].push(f64::from(h.to_bits() as i16));
        want[3].push(h.to_f64());
        want[4].push(f64::from(b.to_bits()));
        want[5].push(b.to_f64());
        want[6].push(f64::from(scale.to_bits() as i32 + (e % 64) as i32));
    }
    (x, scale, want)
}

/// The names of `bit_views`'s outputs, for messages.
pub const BIT_VIEWS: [&str; 7] = ["bits", "next", "half_bits", "half_back", "byte_bits", "byte_back", "param_bits"];

/// `floor`, `ceil`, `round` (ties to even) and `trunc` of `x` into the four 64-row blocks of `y`,
/// and `round` of `x` in bf16 into `h`.
#[kernel(grid = (1,))]
pub fn roundings(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 256, 64>, h: GmemMut<bf16, 64, 64>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([0, 0], [64, 64]).store(floor(v));
    y.tile([1, 0], [64, 64]).store(ceil(v));
    y.tile([2, 0], [64, 64]).store(round(v));
    y.tile([3, 0], [64, 64]).store(trunc(v));
    h.tile([0, 0]).store(round(v.cast::<bf16>()));
}

/// `roundings`'s input, quarter steps from -512 to 512 (every tie `round` has to break), and its
/// expected `y` and `h`.
pub fn roundings_case() -> (HostTensor<f32>, Vec<f64>, Vec<f64>) {
    let x: Vec<f32> = (0..64 * 64).map(|e| (e as f32 - 2048.0) * 0.25).collect();
    let ops: [fn(f32) -> f32; 4] = [f32::floor, f32::ceil, f32::round_ties_even, f32::trunc];
    let y = ops.iter().flat_map(|op| x.iter().map(|&v| f64::from(op(v)))).collect();
    let h = x.iter().map(|&v| bf16::from_f32(v).to_f32().round_ties_even() as f64).collect();
    (HostTensor::new([64, 64], x).unwrap(), y, h)
}

/// `y[r, c] = x[r, c % 64] + c`, and `h` the same rounded to bf16, through `Wgmma` registers and
/// shapeless stores (the launch does not make N a multiple of the tile) over a grid that covers a
/// ragged last column of tiles: an even N takes the paired stores (`st.global.v2`; bf16 in runs of
/// eight, `st.global.v4`, where N is a multiple of 8), an odd N the element-wise ones, and
/// elements past N are not written.
#[kernel(grid = (M / 64, (N + 63) / 64))]
pub fn ragged_store(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, N>, h: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let cols = (iota::<i32>([64, 64], 1) + j * 64).cast::<f32>();
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma) + cols;
    y.tile([i, j]).store(v);
    h.tile([i, j]).store(v.cast::<bf16>());
}

/// `ragged_store`'s `y` in f64 (the kernel adds in f32): `x` is `rows` x 64, the result `rows` x `n`.
pub fn ragged_store_ref(x: &[f64], rows: usize, n: usize) -> Vec<f64> {
    (0..rows * n).map(|e| (x[e / n * 64 + e % n % 64] as f32 + (e % n) as f32) as f64).collect()
}

/// The widths `ragged_store` is tested at: a whole number of tiles, ragged edges at a multiple of
/// 8, at an even width, and at an odd one.
pub const RAGGED_WIDTHS: [usize; 4] = [256, 200, 198, 197];

/// `fma(a, b, c)`, rounded once: of f32 arrays (`y`), of a scalar times an array plus the row maxima
/// broadcast back (`z`), of bf16 arrays (`hy`), and of scalars with literals, in f32 and in bf16
/// (`s`, by program 0).
#[kernel(grid = (M / 64,))]
pub fn fma_ops(
    a: Gmem<f32, M, 64>,
    b: Gmem<f32, M, 64>,
    c: Gmem<f32, M, 64>,
    h: Gmem<bf16, M, 64>,
    k: Gmem<bf16, M, 64>,
    l: Gmem<bf16, M, 64>,
    y: GmemMut<f32, M, 64>,
    z: GmemMut<f32, M, 64>,
    hy: GmemMut<bf16, M, 64>,
    s: GmemMut<f32, 128>,
    alpha: f32,
    beta: f32,
) {
    let i = program_id(0);
    let x = a.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    let w = b.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    let v = c.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([i, 0], [64, 64]).store(fma(x, w, v));
    z.tile([i, 0], [64, 64]).store(fma(alpha, x, v.max(1).broadcast([64, 64], Layout::Wgmma)));
    let p = h.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    let q = k.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    let r = l.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    hy.tile([i, 0], [64, 64]).store(fma(p, q, r));
    if i == 0 {
        s.tile([0], [64]).store(splat::<f32>(fma(alpha, beta, -1.0), [64]));
        s.tile([1], [64]).store(splat::<f32>(fma(beta as bf16, 3.0, -1.0) as f32, [64]));
    }
}

/// Integers narrower than 32 bits wrap at their width, on the GPU as in the interpreter (Rust's
/// wrapping arithmetic and `as`): each program loads 128 elements of u8, i8, u16, i16 and i32
/// arrays and stores wrapped sums and products to narrow arrays (`ya`..`yd`) and 16 rows of
/// elementwise results, widened to i32, to `r` (row `k` of program `i` at tile `k * programs + i`:
/// `NARROW_ROWS` rows of N); program 0 stores the 19 scalar results of `s` (a parameter, so that
/// nothing folds), each splat over 128 elements of `sc`.
#[kernel(grid = (N / 128,))]
pub fn narrow_ints(
    a: Gmem<u8, N>,
    b: Gmem<i8, N>,
    c: Gmem<u16, N>,
    d: Gmem<i16, N>,
    e: Gmem<i32, N>,
    ya: GmemMut<u8, N>,
    yb: GmemMut<i8, N>,
    yc: GmemMut<u16, N>,
    yd: GmemMut<i16, N>,
    r: GmemMut<i32, R>,
    sc: GmemMut<i32, 2432>,
    s: i32,
) {
    let (i, p) = (program_id(0), num_programs(0));
    let a8 = s as u8;
    let b8 = s as i8;
    let va = a.tile([i], [128]).load(Layout::Strided);
    let vb = b.tile([i], [128]).load(Layout::Strided);
    let vc = c.tile([i], [128]).load(Layout::Strided);
    let vd = d.tile([i], [128]).load(Layout::Strided);
    let ve = e.tile([i], [128]).load(Layout::Strided);
    ya.tile([i], [128]).store(va + va);
    yb.tile([i], [128]).store(vb * vb);
    yc.tile([i], [128]).store(vc * vc);
    yd.tile([i], [128]).store(vd + vd);
    r.tile([i], [128]).store((va + 200).cast::<i32>());
    r.tile([p + i], [128]).store(((va + va) < va).cast::<i32>());
    r.tile([2 * p + i], [128]).store((-vb).cast::<i32>());
    r.tile([3 * p + i], [128]).store((vb / -1).cast::<i32>());
    r.tile([4 * p + i], [128]).store(abs(vb).cast::<i32>());
    r.tile([5 * p + i], [128]).store((vb * 5 - 3).cast::<i32>());
    r.tile([6 * p + i], [128]).store(((va << 3) >> 2).cast::<i32>());
    r.tile([7 * p + i], [128]).store((vb.cast::<u8>() > 100).cast::<i32>());
    r.tile([8 * p + i], [128]).store(ve.cast::<u8>().cast::<i32>());
    r.tile([9 * p + i], [128]).store(ve.cast::<i8>().cast::<i32>());
    r.tile([10 * p + i], [128]).store(ve.cast::<i16>().cast::<i32>());
    r.tile([11 * p + i], [128]).store(ve.cast::<u16>().cast::<i32>());
    r.tile([12 * p + i], [128]).store(((vc + vc) > vc).cast::<i32>());
    r.tile([13 * p + i], [128]).store((vd * 3).cast::<i32>());
    r.tile([14 * p + i], [128]).store(max(vb + vb, vb).cast::<i32>());
    r.tile([15 * p + i], [128]).store((va * a8 + vb.cast::<u8>()).cast::<i32>());
    if i == 0 {
        let c16 = s as u16;
        let d16 = s as i16;
        let sum8 = a8 + 250u8;
        let big = (s as i64) * 4294967296i64 + (s as i64);
        sc.tile([0], [128]).store(splat::<i32>(a8 as i32, [128]));
        sc.tile([1], [128]).store(splat::<i32>(b8 as i32, [128]));
        sc.tile([2], [128]).store(splat::<i32>(c16 as i32, [128]));
        sc.tile([3], [128]).store(splat::<i32>(d16 as i32, [128]));
        sc.tile([4], [128]).store(splat::<i32>(sum8 as i32, [128]));
        sc.tile([5], [128]).store(splat::<i32>((sum8 < a8) as i32, [128]));
        sc.tile([6], [128]).store(splat::<i32>((!a8) as i32, [128]));
        sc.tile([7], [128]).store(splat::<i32>((!b8) as i32, [128]));
        sc.tile([8], [128]).store(splat::<i32>((b8 * 3i8) as i32, [128]));
        sc.tile([9], [128]).store(splat::<i32>((-b8) as i32, [128]));
        sc.tile([10], [128]).store(splat::<i32>((b8 / -1i8) as i32, [128]));
        sc.tile([11], [128]).store(splat::<i32>((a8 << 3u8) as i32, [128]));
        sc.tile([12], [128]).store(splat::<i32>(((a8 << 3) >> 3) as i32, [128]));
        sc.tile([13], [128]).store(splat::<i32>((c16 * 7u16) as i32, [128]));
        sc.tile([14], [128]).store(splat::<i32>((d16 + 30000i16) as i32, [128]));
        sc.tile([15], [128]).store(splat::<i32>(((d16 - 30000) > 0i16) as i32, [128]));
        sc.tile([16], [128]).store(splat::<i32>((big as u8) as i32, [128]));
        sc.tile([17], [128]).store(splat::<i32>((b8 as u8) as i32, [128]));
        sc.tile([18], [128]).store(splat::<i32>(abs(b8) as i32, [128]));
    }
}

/// `narrow_ints`'s N (every u8 and i8 value appears in `a` and `b`), the length of `r`
/// (`NARROW_ROWS` rows of N) and of `sc`, and the `s` it is tested with: 8-bit values that
/// overflow (300, 200, 128, -129 ..), 16-bit ones (65835, -32769, 70000) and the extremes.
pub const NARROW_N: usize = 256;
pub const NARROW_ROWS: usize = 16;
pub const NARROW_SCALARS: usize = 19;
pub const NARROW_S: [i32; 11] = [300, 200, -128, 128, -129, -1, 65835, -32769, 70000, i32::MAX, i32::MIN];

/// The inputs of `narrow_ints`: every u8 and i8 value (permuted), u16 and i16 values across their
/// range with the extremes, and i32 values that wrap when narrowed (with the extremes).
pub struct NarrowInts {
    pub a: HostTensor<u8>,
    pub b: HostTensor<i8>,
    pub c: HostTensor<u16>,
    pub d: HostTensor<i16>,
    pub e: HostTensor<i32>,
}

/// `narrow_ints`'s outputs as f64, in parameter order: `ya`, `yb`, `yc`, `yd`, `r`, `sc`.
pub type NarrowOutputs = [Vec<f64>; 6];

pub const NARROW_OUTPUTS: [&str; 6] = [
    "ya = a + a (u8)",
    "yb = b * b (i8)",
    "yc = c * c (u16)",
    "yd = d + d (i16)",
    "r (array rows)",
    "sc (scalars of s)",
];

impl NarrowInts {
    pub fn generate() -> NarrowInts {
        let n = NARROW_N;
        let head = |j: usize, head: &[i64], rest: i64| head.get(j).copied().unwrap_or(rest);
        let tensor = |f: &dyn Fn(usize) -> i64| (0..n).map(f).collect::<Vec<i64>>();
        let c = tensor(&|j| head(j, &[65535, 32768, 32767, 0, 1, 40000], (j as i64 * 40503 + 17) % 65536));
        let d = tensor(&|j| head(j, &[-32768, 32767, -1, 0, 20000, -20000], (j as i64 * 7451) % 65536 - 32768));
        let e_head = [300, -129, 128, 255, 256, 65535, 65536, -32769, 70000, i32::MIN as i64, i32::MAX as i64, -1];
        let e = tensor(&|j| head(j, &e_head, (j as i64 * 1_234_567_891) % (1 << 32) - (1 << 31)));
        NarrowInts {
            a: HostTensor::new([n], (0..n).map(|j| (j * 7 + 3) as u8).collect()).unwrap(),
            b: HostTensor::new([n], (0..n).map(|j| (j * 13 + 5) as u8 as i8).collect()).unwrap(),
            c: HostTensor::new([n], c.iter().map(|&v| v as u16).collect()).unwrap(),
            d: HostTensor::new([n], d.iter().map(|&v| v as i16).collect()).unwrap(),
            e: HostTensor::new([n], e.iter().map(|&v| v as i32).collect()).unwrap(),
        }
    }

    /// The outputs for `s`, computed with Rust's wrapping arithmetic and `as`.
    pub fn reference(&self, s: i32) -> NarrowOutputs {
        let n = NARROW_N;
        let (a, b, c, d, e) = (self.a.data(), self.b.data(), self.c.data(), self.d.data(), self.e.data());
        let (a8, b8, c16, d16) = (s as u8, s as i8, s as u16, s as i16);
        let f = |v: i64| v as f64;
        let ya = a.iter().map(|&x| f(x.wrapping_add(x).into())).collect();
        let yb = b.iter().map(|&x| f(x.wrapping_mul(x).into())).collect();
        let yc = c.iter().map(|&x| f(x.wrapping_mul(x).into())).collect();
        let yd = d.iter().map(|&x| f(x.wrapping_add(x).into())).collect();
        let mut r = vec![0.0; NARROW_ROWS * n];
        for j in 0..n {
            let (a, b, c, d, e) = (a[j], b[j], c[j], d[j], e[j]);
            let row: [i64; NARROW_ROWS] = [
                a.wrapping_add(200).into(),
                (a.wrapping_add(a) < a).into(),
                b.wrapping_neg().into(),
                b.wrapping_div(-1).into(),
                b.wrapping_abs().into(),
                b.wrapping_mul(5).wrapping_sub(3).into(),
                ((a << 3) >> 2).into(),
                (b as u8 > 100).into(),
                (e as u8).into(),
                (e as i8).into(),
                (e as i16).into(),
                (e as u16).into(),
                (c.wrapping_add(c) > c).into(),
                d.wrapping_mul(3).into(),
                b.wrapping_add(b).max(b).into(),
                a.wrapping_mul(a8).wrapping_add(b as u8).into(),
            ];
            for (k, v) in row.into_iter().enumerate() {
                r[k * n + j] = f(v);
            }
        }
        let sum8 = a8.wrapping_add(250);
        let big = (s as i64).wrapping_mul(1 << 32).wrapping_add(s as i64);
        let scalars: [i64; NARROW_SCALARS] = [
            a8.into(),
            b8.into(),
            c16.into(),
            d16.into(),
            sum8.into(),
            (sum8 < a8).into(),
            (!a8).into(),
            (!b8).into(),
            b8.wrapping_mul(3).into(),
            b8.wrapping_neg().into(),
            b8.wrapping_div(-1).into(),
            (a8 << 3).into(),
            ((a8 << 3) >> 3).into(),
            c16.wrapping_mul(7).into(),
            d16.wrapping_add(30000).into(),
            (d16.wrapping_sub(30000) > 0).into(),
            (big as u8).into(),
            (b8 as u8).into(),
            b8.wrapping_abs().into(),
        ];
        let sc = scalars.iter().flat_map(|&v| std::iter::repeat_n(f(v), 128)).collect();
        [ya, yb, yc, yd, r, sc]
    }

    /// The outputs for `s` from the interpreter.
    pub fn interpret(&self, s: i32) -> NarrowOutputs {
        let n = NARROW_N;
        let mut ya = HostTensor::<u8>::zeros([n]).unwrap();
        let mut yb = HostTensor::<i8>::zeros([n]).unwrap();
        let mut yc = HostTensor::<u16>::zeros([n]).unwrap();
        let mut yd = HostTensor::<i16>::zeros([n]).unwrap();
        let mut r = HostTensor::new([NARROW_ROWS * n], vec![i32::MIN; NARROW_ROWS * n]).unwrap();
        let mut sc = HostTensor::new([NARROW_SCALARS * 128], vec![i32::MIN; NARROW_SCALARS * 128]).unwrap();
        let (a, b, c, d, e) = (&self.a, &self.b, &self.c, &self.d, &self.e);
        narrow_ints::interpret(a, b, c, d, e, &mut ya, &mut yb, &mut yc, &mut yd, &mut r, &mut sc, s).unwrap();
        [values(&ya), values(&yb), values(&yc), values(&yd), values(&r), values(&sc)]
    }
}

fn values<T: Element>(t: &HostTensor<T>) -> Vec<f64> {
    t.data().iter().map(|v| v.to_f64()).collect()
}

/// y = 2 x, with each program's `globaltimer()` readings before and after its tile:
/// `ns[p, 0, ..]` and `ns[p, 1, ..]`, one per thread (each thread reads the timer itself).
#[kernel(grid = (M / 64))]
pub fn timed_double(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>, ns: GmemMut<i64, P, 2, 128>) {
    let i = program_id(0);
    let start = globaltimer();
    y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided) * 2.0);
    let end = globaltimer();
    ns.tile([i, 0, 0], [1, 1, 128]).store(splat::<i64>(start, [1, 1, 128]));
    ns.tile([i, 1, 0], [1, 1, 128]).store(splat::<i64>(end, [1, 1, 128]));
}
