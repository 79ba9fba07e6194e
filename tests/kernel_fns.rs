//! Kernel functions (`#[kernels]` modules) through the interpreter: kernels that share a tile
//! order, a TMA step and an epilogue that take handles, functions that call functions, the
//! hygiene of an inlined call (arguments evaluated once, in order, in the caller's names; the
//! function's names and consts its own), and a library of functions (`#[kernel_fns]`) that two
//! modules use, each against a CPU reference on random inputs.

use crate::common;

use common::{assert_close, matmul, values, Rng};
use tessel::prelude::*;

#[kernels]
mod gemm {
    use tessel::prelude::*;

    /// The tile `(row, column)` a program takes at step `u` of `tiles_m x tiles_n` tiles: `group`
    /// tile-rows at a time, walking down each column (an L2-friendly order).
    fn tile_order(u: i32, tiles_m: i32, tiles_n: i32, group: i32) -> (i32, i32) {
        let span = group * tiles_n;
        let first = u / span * group;
        let rows = min(tiles_m - first, group);
        (first + u % span % rows, u % span / rows)
    }

    /// How many 64-wide steps cover `extent` (its const `K` is not the kernels' dimension `K`).
    fn steps(extent: i32) -> i32 {
        const K: i32 = 64;
        cdiv(extent, K)
    }

    /// One step of the K loop: the two TMA copies that fill `a_s` and `b_s`, both arriving on `bar`.
    fn load_step(
        a: Gmem<bf16, M, K>,
        b: Gmem<bf16, K, N>,
        a_s: Smem<bf16, 64, 64, Swizzle128>,
        b_s: Smem<bf16, 64, _, Swizzle128>,
        bar: Barrier<2>,
        i: i32,
        j: i32,
        k: i32,
    ) {
        copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
        copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
    }

    /// `alpha * acc` as a register array.
    fn scaled(acc: Acc<f32, 64, _>, alpha: f32) -> Regs<f32, 64, 64, Layout::Wgmma> {
        acc.load() * alpha
    }

    /// Stores `alpha * acc` to the tile `(i, j)` of `c`.
    fn epilogue(acc: Acc<f32, 64, 64>, c: GmemMut<f32, M, N>, i: i32, j: i32, alpha: f32) {
        c.tile([i, j]).store(scaled(acc, alpha));
    }

    /// C = alpha * A @ B, one 64 x 64 tile per program, in `tile_order`.
    #[kernel(grid = (M / 64 * (N / 64)))]
    pub fn matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>, alpha: f32) {
        let (i, j) = tile_order(program_id(0), M / 64, N / 64, 2);
        run_scoped(
            |acc: Acc<f32, 64, 64>,
             a_s: Smem<bf16, 64, 64, Swizzle128>,
             b_s: Smem<bf16, 64, 64, Swizzle128>,
             bar: Barrier<2>| {
                for k in 0..steps(K) {
                    load_step(a, b, a_s, b_s, bar, i, j, k);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s);
                    wgmma_wait(0);
                }
                epilogue(acc, c, i, j, alpha);
            },
        );
    }

    /// The tile `(i, j)` of C = alpha * A @ B over a `depth` of K, computed in a scope the function
    /// allocates (with the functions above; `K` itself is the kernel's, which it cannot see).
    fn gemm_tile(
        a: Gmem<bf16, M, K>,
        b: Gmem<bf16, K, N>,
        c: GmemMut<f32, M, N>,
        i: i32,
        j: i32,
        depth: i32,
        alpha: f32,
    ) {
        run_scoped(
            |acc: Acc<f32, 64, 64>,
             a_s: Smem<bf16, 64, 64, Swizzle128>,
             b_s: Smem<bf16, 64, 64, Swizzle128>,
             bar: Barrier<2>| {
                for k in 0..steps(depth) {
                    load_step(a, b, a_s, b_s, bar, i, j, k);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s);
                    wgmma_wait(0);
                }
                epilogue(acc, c, i, j, alpha);
            },
        );
    }

    /// `matmul` in one call: the function allocates what the kernel needs.
    #[kernel(grid = (M / 64, N / 64))]
    pub fn matmul_in_a_call(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>, alpha: f32) {
        gemm_tile(a, b, c, program_id(0), program_id(1), K, alpha);
    }

    /// `y = x * s + (1000 i + j)` on tile `(i, j)`, the tiles taken in `tile_order` as `matmul`
    /// takes them, three tile-rows at a time.
    #[kernel(grid = (M / 64 * (N / 64)))]
    pub fn mark_tiles(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, s: f32) {
        let (i, j) = tile_order(program_id(0), M / 64, N / 64, 3);
        let v = x.tile([i, j], [64, 64]).load(Layout::Wgmma);
        y.tile([i, j], [64, 64]).store(v * s + ((1000 * i + j) as f32));
    }

    /// `3 x + y`, through a local `t`.
    fn mix(x: i32, y: i32) -> i32 {
        let t = x * 3;
        t + y
    }

    /// `(b, a + K)` with `a` a mutable parameter and `K` the function's own const.
    fn rotate(mut a: i32, b: i32) -> (i32, i32) {
        const K: i32 = 7;
        a += K;
        (b, a)
    }

    /// `v * (0 + 1 + .. + (R - 1))` by an unrolled loop over the function's const `R`.
    fn unrolled(v: i32) -> i32 {
        const R: i32 = 4;
        let mut s = 0;
        #[unroll]
        for q in 0..R {
            s += v * q;
        }
        s
    }

    /// The elements a program of `hygiene` takes (no parameters).
    fn lanes() -> i32 {
        128
    }

    /// `0 + 1 + .. + (n - 1)`, in a loop that carries a mutable local.
    fn triangle(n: u32) -> u32 {
        let mut s = 0u32;
        for k in 0..n {
            s += k as u32;
        }
        s
    }

    /// Names that the functions also use (`t`, `x`, `y`, `q`, `K`), arguments that name them, and
    /// calls inside arguments and inside an unrolled loop: `y = x + scalars(program)`.
    #[kernel(grid = (N / 128,), consts(K = 2))]
    pub fn hygiene(x: Gmem<f32, N>, y: GmemMut<f32, N>) {
        let i = program_id(0) * lanes() / 128;
        let t = i + 1;
        // x = t, y = mix(i, t): the arguments are the caller's `t` and `i`, evaluated before `x`,
        // `y` and the local `t` are bound.
        let m = mix(t, mix(i, t));
        let (p, r) = rotate(m, t);
        // `rotate`'s parameters are `a` and `b`: bound together, after both arguments.
        let (a, b) = (i + 2, 3);
        let (p2, r2) = rotate(b, a);
        let mut u = 0;
        #[unroll]
        for q in 0..K {
            u += unrolled(q + 1);
        }
        let n = triangle(5) + triangle(i as u32);
        let v = x.tile([i], [128]).load(Layout::Strided);
        y.tile([i], [128]).store(v + ((m + p + r + 10 * p2 + 100 * r2 + u + K) as f32 + n as f32 * 0.5));
    }
}

/// `tile_order` on the CPU.
fn tile_order(u: usize, tiles_m: usize, tiles_n: usize, group: usize) -> (usize, usize) {
    let span = group * tiles_n;
    let first = u / span * group;
    let rows = (tiles_m - first).min(group);
    (first + u % span % rows, u % span / rows)
}

#[test]
fn kernels_share_a_tile_order_a_load_step_and_an_epilogue() {
    let mut rng = Rng::new(401);
    let (m, n, k) = (192, 256, 192);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    let alpha = 0.75;
    gemm::matmul::interpret(&a, &b, &mut c, alpha).unwrap();
    let want: Vec<f64> = matmul(&values(&a), &values(&b), m, n, k, true).iter().map(|v| v * 0.75).collect();
    assert_close("matmul", &values(&c), &want, 1e-5);
}

#[test]
fn a_function_allocates_its_own_scope() {
    let mut rng = Rng::new(404);
    let (m, n, k) = (128, 192, 256);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    gemm::matmul_in_a_call::interpret(&a, &b, &mut c, -2.0).unwrap();
    let want: Vec<f64> = matmul(&values(&a), &values(&b), m, n, k, true).iter().map(|v| v * -2.0).collect();
    assert_close("matmul_in_a_call", &values(&c), &want, 1e-5);
}

#[test]
fn every_tile_is_visited_once_in_the_shared_order() {
    let mut rng = Rng::new(402);
    let (m, n) = (320, 192);
    let x = rng.tensor::<f32>(&[m, n], 1.0);
    let mut y = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    gemm::mark_tiles::interpret(&x, &mut y, 1.5).unwrap();
    let (tm, tn) = (m / 64, n / 64);
    let mut seen = vec![false; tm * tn];
    for u in 0..tm * tn {
        let (i, j) = tile_order(u, tm, tn, 3);
        assert!(!seen[i * tn + j], "tile ({i}, {j}) twice");
        seen[i * tn + j] = true;
    }
    let xs = values(&x);
    let want: Vec<f64> =
        (0..m * n).map(|e| (xs[e] as f32 * 1.5 + (1000 * (e / n / 64) + e % n / 64) as f32) as f64).collect();
    assert_close("mark_tiles", &values(&y), &want, 0.0);
}

#[test]
fn inlined_calls_are_hygienic() {
    let mut rng = Rng::new(403);
    let n = 128 * 5;
    let x = rng.tensor::<f32>(&[n], 1.0);
    let mut y = HostTensor::new([n], vec![f32::NAN; n]).unwrap();
    gemm::hygiene::interpret(&x, &mut y).unwrap();
    let mix = |x: i64, y: i64| 3 * x + y;
    let triangle = |n: i64| n * (n - 1) / 2;
    let xs = values(&x);
    let want: Vec<f64> = (0..n)
        .map(|e| {
            let i = (e / 128) as i64;
            let t = i + 1;
            let m = mix(t, mix(i, t));
            let (p, r) = (t, m + 7);
            let (p2, r2) = (i + 2, 3 + 7);
            let u: i64 = (0..2).map(|q| (q + 1) * 6).sum();
            let scalars = (m + p + r + 10 * p2 + 100 * r2 + u + 2) as f32 + (triangle(5) + triangle(i)) as f32 * 0.5;
            (xs[e] as f32 + scalars) as f64
        })
        .collect();
    assert_close("hygiene", &values(&y), &want, 0.0);
}

/// Generic kernel functions, and what only some instances of a generic kernel have.
#[kernels]
mod family {
    use tessel::prelude::*;

    /// `x`'s N-wide tile `i` times `by`, in `T`.
    fn scaled<T, const N: usize>(x: Gmem<T, _>, i: i32, by: f32) -> Regs<T, N, Layout::Strided> {
        (x.tile([i], [N]).load(Layout::Strided).cast::<f32>() * by).cast::<T>()
    }

    /// y = 2 x, or (STAGED = 1) y = 2 x + 1 through a shared buffer that only that instance has.
    #[kernel(grid = (L / 128), instances((bf16, 0), (f16, 1), (f32, 1)))]
    pub fn double<T, const STAGED: usize>(x: Gmem<T, L>, y: GmemMut<T, L>) {
        let i = program_id(0);
        run_scoped(|#[when(STAGED == 1)] s: Smem<T, 128>| {
            let v = scaled::<T, 128>(x, i, 2.0);
            if STAGED == 1 {
                s.store(v + splat::<T>(1.0, [128]).to_layout(Layout::Strided));
                commit_smem();
                y.tile([i], [128]).store(s.load(Layout::Strided));
            } else {
                y.tile([i], [128]).store(v);
            }
        });
    }
}

#[test]
fn generic_functions_and_instance_specific_code_interpret() {
    let n = 128 * 3;
    let mut rng = Rng::new(405);
    let x = rng.ints::<f32>(&[n]);
    let want = |plus: f64| values(&x).iter().map(|v| 2.0 * v + plus).collect::<Vec<f64>>();
    let mut y = HostTensor::new([n], vec![f32::NAN; n]).unwrap();
    family::double::<f32, 1>::interpret(&x, &mut y).unwrap();
    assert_close("double::<f32, 1>", &values(&y), &want(1.0), 0.0);
    let xb = HostTensor::from_fn([n], |ix| bf16::from_f64(values(&x)[ix[0]])).unwrap();
    let mut yb = HostTensor::new([n], vec![bf16::NAN; n]).unwrap();
    family::double::<bf16, 0>::interpret(&xb, &mut yb).unwrap();
    assert_close("double::<bf16, 0>", &values(&yb), &want(0.0), 0.0);
    let names: Vec<&str> = family::ALL_PTX.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, ["double::<bf16, 0>", "double::<f16, 1>", "double::<f32, 1>"]);
    const { assert!(family::double::<bf16, 0>::SIGNATURE.smem_bytes < family::double::<f32, 1>::SIGNATURE.smem_bytes) };
}

/// Functions whose bodies end in an `if` with an `else`, which is their value (as a Rust
/// function's), on a condition known when the kernel is read or on one known at run time.
#[kernels]
mod branches {
    use tessel::prelude::*;

    /// `v` clamped at 0 (MODE = 1), doubled (MODE = 2), or as it is.
    fn shaped<const MODE: usize>(v: Regs<f32, _, Layout::Strided>) -> Regs<f32, _, Layout::Strided> {
        if MODE == 1 {
            max(v, 0.0)
        } else if MODE == 2 {
            v * 2.0
        } else {
            v
        }
    }

    /// The same, with the mode chosen at run time.
    fn shaped_at(v: Regs<f32, _, Layout::Strided>, mode: i32) -> Regs<f32, _, Layout::Strided> {
        if mode == 1 {
            shaped::<1>(v)
        } else if mode == 2 {
            shaped::<2>(v)
        } else {
            shaped::<0>(v)
        }
    }

    /// y = shaped::<MODE>(x), z = shaped_at(x, mode).
    #[kernel(grid = (L / 128), instances(1, 2))]
    pub fn shape<const MODE: usize>(x: Gmem<f32, L>, y: GmemMut<f32, L>, z: GmemMut<f32, L>, mode: i32) {
        let i = program_id(0);
        let v = x.tile([i], [128]).load(Layout::Strided);
        y.tile([i], [128]).store(shaped::<MODE>(v));
        z.tile([i], [128]).store(shaped_at(v, mode));
    }
}

#[test]
fn a_body_ending_in_an_if_is_its_value() {
    let n = 128 * 2;
    let x = Rng::new(406).ints::<f32>(&[n]);
    let shaped = |mode: i32| -> Vec<f64> {
        values(&x)
            .iter()
            .map(|&v| {
                if mode == 1 {
                    v.max(0.0)
                } else if mode == 2 {
                    2.0 * v
                } else {
                    v
                }
            })
            .collect()
    };
    for mode in [0, 1, 2] {
        let (mut y, mut z) = (HostTensor::<f32>::zeros([n]).unwrap(), HostTensor::<f32>::zeros([n]).unwrap());
        branches::shape::<1>::interpret(&x, &mut y, &mut z, mode).unwrap();
        assert_close("shaped::<1>", &values(&y), &shaped(1), 0.0);
        assert_close(&format!("shaped_at(.., {mode})"), &values(&z), &shaped(mode), 0.0);
        branches::shape::<2>::interpret(&x, &mut y, &mut z, mode).unwrap();
        assert_close("shaped::<2>", &values(&y), &shaped(2), 0.0);
    }
}

/// A library of kernel functions that the two modules below use: a tile order whose arithmetic a
/// private function does, a generic epilogue, and a function of the same name as a function of
/// one of the modules, which the library's own calls reach.
#[kernel_fns]
mod tiles {
    use tessel::prelude::*;

    /// The tile `(row, column)` at step `u` of `tiles_m x tiles_n` tiles, GROUP tile-rows at a
    /// time, walking down each column.
    pub fn grouped<const GROUP: usize>(u: i32, tiles_m: i32, tiles_n: i32) -> (i32, i32) {
        let first = u / (GROUP * tiles_n) * GROUP;
        let rows = min(tiles_m - first, GROUP);
        (first + offset(u, GROUP * tiles_n) % rows, offset(u, GROUP * tiles_n) / rows)
    }

    /// `u`'s place in its span (private: the modules that use the library do not see it, and
    /// `second` has a function of this name).
    fn offset(u: i32, span: i32) -> i32 {
        u % span
    }

    /// Stores `scale * acc` to the tile `(i, j)` of `c`, in `T`.
    pub fn store_scaled<T>(acc: Acc<f32, 64, 64>, c: GmemMut<T, M, N>, i: i32, j: i32, scale: f32) {
        c.tile([i, j]).store((acc.load() * scale).cast::<T>());
    }
}

/// C = scale * A @ B in `T`, a 64 x 64 tile per program, the tiles taken in `tiles::grouped`
/// order.
#[kernels(uses(tiles))]
mod first {
    use tessel::prelude::*;

    #[kernel(grid = (M / 64 * (N / 64)), instances(bf16, f32))]
    pub fn matmul<T>(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<T, M, N>, scale: f32) {
        let (i, j) = grouped::<2>(program_id(0), M / 64, N / 64);
        run_scoped(
            |acc: Acc<f32, 64, 64>,
             a_s: Smem<bf16, 64, 64, Swizzle128>,
             b_s: Smem<bf16, 64, 64, Swizzle128>,
             bar: Barrier<2>| {
                for k in 0..K / 64 {
                    copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s);
                    wgmma_wait(0);
                }
                store_scaled::<T>(acc, c, i, j, scale);
            },
        );
    }
}

/// The tiles marked in the same order, three tile-rows at a time; the module has a function named
/// like the library's private one.
#[kernels(uses(crate::kernel_fns::tiles))]
mod second {
    use tessel::prelude::*;

    /// `1000 i + j`, as a float.
    fn offset(i: i32, j: i32) -> f32 {
        (1000 * i + j) as f32
    }

    #[kernel(grid = (M / 64 * (N / 64)))]
    pub fn mark(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
        let (i, j) = grouped::<3>(program_id(0), M / 64, N / 64);
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma) + offset(i, j));
    }
}

#[test]
fn two_modules_share_a_library() {
    let mut rng = Rng::new(407);
    let (m, n, k) = (192, 128, 128);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    first::matmul::<f32>::interpret(&a, &b, &mut c, 0.5).unwrap();
    let want: Vec<f64> = matmul(&values(&a), &values(&b), m, n, k, true).iter().map(|v| v * 0.5).collect();
    assert_close("first::matmul", &values(&c), &want, 1e-5);

    let (m, n) = (320, 192);
    let x = rng.tensor::<f32>(&[m, n], 1.0);
    let mut y = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    second::mark::interpret(&x, &mut y).unwrap();
    let (tm, tn) = (m / 64, n / 64);
    let mut seen = vec![false; tm * tn];
    for u in 0..tm * tn {
        let (i, j) = tile_order(u, tm, tn, 3);
        assert!(!seen[i * tn + j], "tile ({i}, {j}) twice");
        seen[i * tn + j] = true;
    }
    let xs = values(&x);
    let want: Vec<f64> =
        (0..m * n).map(|e| (xs[e] as f32 + (1000 * (e / n / 64) + e % n / 64) as f32) as f64).collect();
    assert_close("second::mark", &values(&y), &want, 0.0);
    assert_eq!(first::ALL_PTX.len(), 2);
    assert!(first::matmul::<bf16>::PTX.contains(".entry") && second::mark::PTX.contains(".entry"));
}
