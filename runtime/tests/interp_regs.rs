//! Register arrays in the interpreter: reductions and broadcasts (a softmax), elementwise math
//! with scalars, masks from `iota` and comparisons, integer wrapping, casts, `run_state` and
//! accumulator slices. References follow the documented semantics in f32/i32, bit for bit.

mod interp_support;

use interp_support::*;
use tessel_runtime::{bf16, interpret, Arg, KernelSource};

static SOFTMAX: KernelSource = KernelSource {
    attr: "grid = (R / 64)",
    item: r#"
fn softmax(x: Gmem<f32, R, 128>, y: GmemMut<bf16, R, 128>, colmax: GmemMut<f32, R, 128>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 128]).load(Layout::Wgmma);
    let m = v.max(1);
    let e = (v - m.broadcast([64, 128], Layout::Wgmma)).exp2();
    let s = e.sum(1);
    let p = e / s.broadcast([64, 128], Layout::Wgmma);
    y.tile([i, 0], [64, 128]).store(p.cast::<bf16>());
    let spread = v.max(0) - v.min(0);
    colmax.tile([i, 0], [64, 128]).store(spread.broadcast([64, 128], Layout::Wgmma));
}"#,
};

#[test]
fn softmax_rounds_like_f32_step_by_step() {
    let (r, c) = (192, 128);
    let x = randn::<f32>(&[r, c], 41, 3.0);
    let mut y = poisoned::<bf16>(&[r, c], f64::NAN);
    let mut spread = poisoned::<f32>(&[r, c], f64::NAN);
    interpret(&SOFTMAX, &mut [Arg::Tensor(&x), Arg::TensorMut(&mut y), Arg::TensorMut(&mut spread)]).unwrap();
    let xv: Vec<f32> = x.data().to_vec();
    let mut want_y = Vec::new();
    let mut want_spread = Vec::new();
    for block in 0..r / 64 {
        for row in 0..64 {
            let v = &xv[(block * 64 + row) * c..(block * 64 + row + 1) * c];
            let m = v.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
            let e: Vec<f32> = v.iter().map(|&x| (x - m).exp2()).collect();
            let s = e.iter().skip(1).fold(e[0], |a, &b| a + b);
            want_y.extend(e.iter().map(|&x| bf16::from_f32(x / s).to_f64()));
        }
        for _ in 0..64 {
            for col in 0..c {
                let column = (0..64).map(|row| xv[(block * 64 + row) * c + col]);
                let (lo, hi) = column.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
                want_spread.push((hi - lo) as f64);
            }
        }
    }
    assert_same("softmax", &values(&y), &want_y);
    assert_same("column spread", &values(&spread), &want_spread);
}

static MISC: KernelSource = KernelSource {
    attr: "grid = (1)",
    item: r#"
fn misc(x: Gmem<f32, 64, 64>, f: GmemMut<f32, 64, 64>, q: GmemMut<i32, 64, 64>, alpha: f32, shift: i32) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let rows = iota::<i32>([64, 64], 0);
    let cols = iota::<i32>([64, 64], 1);
    let lower = (rows >= cols).cast::<f32>();
    let mut scale = alpha;
    if shift > 2 {
        scale = scale * 2.0;
    } else {
        scale = -scale;
    }
    let w = max(v * lower * scale, min(v, 0.5)) + abs(v).sqrt();
    f.tile([0, 0]).store(w);
    let qq = ((rows * 3 + cols) % 7 - (cols >> 2)) ^ shift;
    let big = rows * 50000000;
    q.tile([0, 0]).store(qq + big + (v * 10.0).cast::<i32>());
}"#,
};

fn run_misc(alpha: f32, shift: i32) {
    let x = randn::<f32>(&[64, 64], 42, 2.0);
    let mut f = poisoned::<f32>(&[64, 64], f64::NAN);
    let mut q = poisoned::<i32>(&[64, 64], -1.0);
    let args = &mut [Arg::Tensor(&x), Arg::TensorMut(&mut f), Arg::TensorMut(&mut q), Arg::F32(alpha), Arg::I32(shift)];
    interpret(&MISC, args).unwrap();
    let scale = if shift > 2 { alpha * 2.0 } else { -alpha };
    let (mut want_f, mut want_q) = (Vec::new(), Vec::new());
    for (idx, &v) in x.data().iter().enumerate() {
        let (r, c) = ((idx / 64) as i32, (idx % 64) as i32);
        let lower = if r >= c { 1.0f32 } else { 0.0 };
        want_f.push(((v * lower * scale).max(v.min(0.5)) + v.abs().sqrt()) as f64);
        let qq = ((r * 3 + c) % 7 - (c >> 2)) ^ shift;
        want_q.push(qq.wrapping_add(r.wrapping_mul(50_000_000)).wrapping_add((v * 10.0) as i32) as f64);
    }
    assert_same("f", &values(&f), &want_f);
    assert_same("q", &values(&q), &want_q);
}

#[test]
fn elementwise_math_masks_scalars_and_wrapping() {
    run_misc(0.75, 3);
    run_misc(1.25, 1);
}

/// `c = c0 + a @ b` with the accumulator seeded from registers; the first 32 columns of the
/// accumulator of each program in column 0 also go to `left`.
static RUN_STATE: KernelSource = KernelSource {
    attr: "grid = (M / 64, N / 64)",
    item: r#"
fn gemm_acc(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c0: Gmem<f32, M, N>, c: GmemMut<f32, M, N>, left: GmemMut<f32, M, 32>) {
    let (i, j) = (program_id(0), program_id(1));
    let init = c0.tile([i, j], [64, 64]).load(Layout::Wgmma);
    let out = run_state(Acc::from_regs(init), |acc| {
        run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
            }
        });
        if j == 0 {
            left.tile([i, 0], [64, 32]).store(acc.slice([.., 0..32]).load());
        }
        acc.load()
    });
    c.tile([i, j]).store(out);
}"#,
};

#[test]
fn run_state_seeds_the_accumulator_and_slices_load_windows() {
    let (m, k, n) = (128, 128, 128);
    let a = randn::<bf16>(&[m, k], 43, 1.0);
    let b = randn::<bf16>(&[k, n], 44, 1.0);
    let c0 = randn::<f32>(&[m, n], 45, 10.0);
    let mut c = poisoned::<f32>(&[m, n], f64::NAN);
    let mut left = poisoned::<f32>(&[m, 32], f64::NAN);
    let args =
        &mut [Arg::Tensor(&a), Arg::Tensor(&b), Arg::Tensor(&c0), Arg::TensorMut(&mut c), Arg::TensorMut(&mut left)];
    interpret(&RUN_STATE, args).unwrap();
    let mut want = matmul_ref(&values(&a), &values(&b), m, k, n, false);
    for (w, c) in want.iter_mut().zip(values(&c0)) {
        *w += c;
    }
    assert_close("c0 + a @ b", &values(&c), &want, 1e-5);
    let cv = values(&c);
    let want_left: Vec<f64> = (0..m * 32).map(|x| cv[(x / 32) * n + x % 32]).collect();
    assert_same("left", &values(&left), &want_left);
}

static SHORT_CIRCUIT: KernelSource = KernelSource {
    attr: "grid = (1)",
    item: r#"
fn guarded(y: GmemMut<i32, 64, 8>, d: i32) {
    let mut q = 0;
    if d != 0 && 7 / d > 1 {
        q = 1;
    }
    if d == 0 || 7 % d == 0 {
        q = q + 2;
    }
    y.tile([0, 0]).store(splat::<i32>(q, [64, 8]));
}"#,
};

#[test]
fn scalar_and_or_short_circuit() {
    for (d, want) in [(0, 2.0), (3, 1.0), (7, 2.0)] {
        let mut y = poisoned::<i32>(&[64, 8], -1.0);
        interpret(&SHORT_CIRCUIT, &mut [Arg::TensorMut(&mut y), Arg::I32(d)]).unwrap();
        assert!(values(&y).iter().all(|&v| v == want), "d = {d}: {:?}", &values(&y)[..1]);
    }
}

/// Scalar constants fold with the instructions' wrapping: `65536 * 65536` is 0 in `i32`, on the GPU
/// (the PTX writer wraps its folded immediate) and here.
static FOLDED: KernelSource = KernelSource {
    attr: "grid = (1)",
    item: r#"
fn folded(q: GmemMut<i32, 64>) {
    let seven = 65536 * 65536 + 7;
    q.tile([0], [64]).store(splat::<i32>(seven, [64]));
}"#,
};

#[test]
fn constant_arithmetic_wraps_at_32_bits() {
    let mut q = poisoned::<i32>(&[64], -1.0);
    interpret(&FOLDED, &mut [Arg::TensorMut(&mut q)]).unwrap();
    assert!(q.data().iter().all(|&v| v == 7), "{:?}", &q.data()[..4]);
}
