//! Register arrays in the interpreter: reductions and broadcasts (a softmax), elementwise math
//! with scalars, `fma` (rounded once, in f32 and bf16), masks from `iota` and comparisons, integer
//! wrapping, casts, `run_state` and accumulator slices; scalars narrower than f32 and tf32 with
//! untyped literals; integers narrower than 32 bits wrapping at their width. References follow the
//! documented semantics in f32/i32, bit for bit.

use super::support::*;
use tessel::prelude::*;
use tessel::Element;

#[kernel(grid = (R / 64))]
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
}

#[test]
fn softmax_rounds_like_f32_step_by_step() {
    let (r, c) = (192, 128);
    let x = randn::<f32>(&[r, c], 41, 3.0);
    let mut y = poisoned::<bf16>(&[r, c], f64::NAN);
    let mut spread = poisoned::<f32>(&[r, c], f64::NAN);
    softmax::interpret(&x, &mut y, &mut spread).unwrap();
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

#[kernel(grid = (1))]
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
}

fn run_misc(alpha: f32, shift: i32) {
    let x = randn::<f32>(&[64, 64], 42, 2.0);
    let mut f = poisoned::<f32>(&[64, 64], f64::NAN);
    let mut q = poisoned::<i32>(&[64, 64], -1.0);
    misc::interpret(&x, &mut f, &mut q, alpha, shift).unwrap();
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
#[kernel(grid = (M / 64, N / 64))]
fn gemm_acc(
    a: Gmem<bf16, M, K>,
    b: Gmem<bf16, K, N>,
    c0: Gmem<f32, M, N>,
    c: GmemMut<f32, M, N>,
    left: GmemMut<f32, M, 32>,
) {
    let (i, j) = (program_id(0), program_id(1));
    let init = c0.tile([i, j], [64, 64]).load(Layout::Wgmma);
    let out = run_state(Acc::from_regs(init), |acc| {
        run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
        });
        if j == 0 {
            left.tile([i, 0], [64, 32]).store(acc.slice([.., 0..32]).load());
        }
        acc.load()
    });
    c.tile([i, j]).store(out);
}

#[test]
fn run_state_seeds_the_accumulator_and_slices_load_windows() {
    let (m, k, n) = (128, 128, 128);
    let a = randn::<bf16>(&[m, k], 43, 1.0);
    let b = randn::<bf16>(&[k, n], 44, 1.0);
    let c0 = randn::<f32>(&[m, n], 45, 10.0);
    let mut c = poisoned::<f32>(&[m, n], f64::NAN);
    let mut left = poisoned::<f32>(&[m, 32], f64::NAN);
    gemm_acc::interpret(&a, &b, &c0, &mut c, &mut left).unwrap();
    let mut want = matmul_ref(&values(&a), &values(&b), m, k, n, false);
    for (w, c) in want.iter_mut().zip(values(&c0)) {
        *w += c;
    }
    assert_close("c0 + a @ b", &values(&c), &want, 1e-5);
    let cv = values(&c);
    let want_left: Vec<f64> = (0..m * 32).map(|x| cv[(x / 32) * n + x % 32]).collect();
    assert_same("left", &values(&left), &want_left);
}

#[kernel(grid = (1))]
fn guarded(y: GmemMut<i32, 64, 8>, d: i32) {
    let mut q = 0;
    if d != 0 && 7 / d > 1 {
        q = 1;
    }
    if d == 0 || 7 % d == 0 {
        q = q + 2;
    }
    y.tile([0, 0]).store(splat::<i32>(q, [64, 8]));
}

#[test]
fn scalar_and_or_short_circuit() {
    for (d, want) in [(0, 2.0), (3, 1.0), (7, 2.0)] {
        let mut y = poisoned::<i32>(&[64, 8], -1.0);
        guarded::interpret(&mut y, d).unwrap();
        assert!(values(&y).iter().all(|&v| v == want), "d = {d}: {:?}", &values(&y)[..1]);
    }
}

/// Scalar constants fold with the instructions' wrapping: `65536 * 65536` is 0 in `i32`, on the GPU
/// (the PTX writer wraps its folded immediate) and here.
#[kernel(grid = (1))]
fn folded(q: GmemMut<i32, 64>) {
    let seven = 65536 * 65536 + 7;
    q.tile([0], [64]).store(splat::<i32>(seven, [64]));
}

#[test]
fn constant_arithmetic_wraps_at_32_bits() {
    let mut q = poisoned::<i32>(&[64], -1.0);
    folded::interpret(&mut q).unwrap();
    assert!(q.data().iter().all(|&v| v == 7), "{:?}", &q.data()[..4]);
}

/// `fma(a, b, c)` of f32 arrays, of a scalar and an array plus a row vector broadcast back, of
/// scalar parameters (with untyped literals, in f32 and in bf16), and of bf16 arrays.
#[kernel(grid = (1))]
fn fmas(
    a: Gmem<f32, 64, 64>,
    b: Gmem<f32, 64, 64>,
    c: Gmem<f32, 64, 64>,
    h: Gmem<bf16, 64, 64>,
    k: Gmem<bf16, 64, 64>,
    l: Gmem<bf16, 64, 64>,
    y: GmemMut<f32, 64, 64>,
    z: GmemMut<f32, 64, 64>,
    s: GmemMut<f32, 192>,
    hy: GmemMut<bf16, 64, 64>,
    hz: GmemMut<bf16, 64, 64>,
    alpha: f32,
    beta: f32,
    gamma: f32,
) {
    let x = a.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let w = b.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let v = c.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([0, 0]).store(fma(x, w, v));
    z.tile([0, 0]).store(fma(alpha, x, v.max(1).broadcast([64, 64], Layout::Wgmma)));
    s.tile([0], [64]).store(splat::<f32>(fma(alpha, beta, gamma), [64]));
    s.tile([1], [64]).store(splat::<f32>(fma(2.0, alpha, gamma), [64]));
    s.tile([2], [64]).store(splat::<f32>(fma(gamma as bf16, 3.0, 0.5) as f32, [64]));
    let p = h.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let q = k.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let r = l.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    hy.tile([0, 0]).store(fma(p, q, r));
    hz.tile([0, 0]).store(fma(3.0, p, r));
}

/// A random tensor whose first elements are `head`.
fn with_head<T: Element>(seed: u64, head: &[f32]) -> HostTensor<T> {
    let mut t = randn::<T>(&[64, 64], seed, 1.0);
    for (x, &v) in t.data_mut().iter_mut().zip(head) {
        *x = T::from_f64(v as f64);
    }
    t
}

#[test]
fn fma_rounds_once_to_f32_then_to_the_dtype() {
    let p = |e: i32| 2f32.powi(e);
    // Element 0: (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 fused; a * b rounds away the 2^-24 first.
    // Element 1: (1 + 2^-12)^2 + 2^-80 rounds up from the f32 tie 1 + 2^-11 + 2^-24; rounded to
    // f64 first, the 2^-80 would be lost and the tie go to the even 1 + 2^-11.
    let a = with_head::<f32>(51, &[1.0 + p(-12), 1.0 + p(-12)]);
    let b = with_head::<f32>(52, &[1.0 + p(-12), 1.0 + p(-12)]);
    let c = with_head::<f32>(53, &[-1.0, p(-80)]);
    // bf16 element 0: (1 + 2^-4)^2 - 1 = 2^-3 + 2^-8 fused; a * b rounds to the even 1 + 2^-3 first.
    // Element 1: 3 * (1 + 2^-7) - 2^-30 rounds to f32's 3 + 2^-6 + 2^-7, a bf16 tie that goes to
    // the even 3 + 2^-5 (the exact value, below the tie, would round down to 3 + 2^-6).
    let h = with_head::<bf16>(54, &[1.0 + p(-4), 1.0 + p(-7)]);
    let k = with_head::<bf16>(55, &[1.0 + p(-4), 3.0]);
    let l = with_head::<bf16>(56, &[-1.0, -p(-30)]);
    let (alpha, beta, gamma) = (1.0 + p(-12), 1.0 + p(-12), -1.0);
    let mut y = poisoned::<f32>(&[64, 64], f64::NAN);
    let mut z = poisoned::<f32>(&[64, 64], f64::NAN);
    let mut s = poisoned::<f32>(&[192], f64::NAN);
    let mut hy = poisoned::<bf16>(&[64, 64], f64::NAN);
    let mut hz = poisoned::<bf16>(&[64, 64], f64::NAN);
    fmas::interpret(&a, &b, &c, &h, &k, &l, &mut y, &mut z, &mut s, &mut hy, &mut hz, alpha, beta, gamma).unwrap();

    let (av, bv, cv) = (a.data(), b.data(), c.data());
    let want_y: Vec<f64> = (0..64 * 64).map(|i| av[i].mul_add(bv[i], cv[i]) as f64).collect();
    assert_same("fma(a, b, c)", &values(&y), &want_y);
    assert_eq!(y.data()[..2], [p(-11) + p(-24), 1.0 + p(-11) + p(-23)]);
    assert_eq!(av[0] * bv[0] + cv[0], p(-11), "unfused, element 0 loses its last bit");

    let row_max: Vec<f32> = cv.chunks(64).map(|row| row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x))).collect();
    let want_z: Vec<f64> = (0..64 * 64).map(|i| alpha.mul_add(av[i], row_max[i / 64]) as f64).collect();
    assert_same("fma(alpha, a, row max)", &values(&z), &want_z);

    let bf16_s = bf16::from_f32(bf16::from_f32(gamma).to_f32().mul_add(3.0, 0.5)).to_f32();
    let want_s: Vec<f64> = [alpha.mul_add(beta, gamma), 2f32.mul_add(alpha, gamma), bf16_s]
        .iter()
        .flat_map(|&x| std::iter::repeat_n(x as f64, 64))
        .collect();
    assert_same("scalar fma", &values(&s), &want_s);
    assert_eq!(s.data()[0], p(-11) + p(-24));

    let (hv, kv, lv) = (h.data(), k.data(), l.data());
    let bf = |x: f32, y: bf16, z: bf16| bf16::from_f32(x.mul_add(y.to_f32(), z.to_f32())).to_f64();
    let want_hy: Vec<f64> = (0..64 * 64).map(|i| bf(hv[i].to_f32(), kv[i], lv[i])).collect();
    assert_same("bf16 fma(h, k, l)", &values(&hy), &want_hy);
    assert_eq!(values(&hy)[..2], [(p(-3) + p(-8)) as f64, (3.0 + p(-5)) as f64]);
    let want_hz: Vec<f64> = (0..64 * 64).map(|i| bf(3.0, hv[i], lv[i])).collect();
    assert_same("bf16 fma(3.0, h, l)", &values(&hz), &want_hz);
    assert_eq!(values(&hz)[1], (3.0 + p(-5)) as f64);
}

/// Scalars of bf16, f16, fp8 and tf32 with untyped float literals, which take the scalar's dtype
/// (the PTX of `compiler-tests/tests/ptx/in/narrow_scalars.rs`): arithmetic, `max`/`min`, comparisons and a math
/// function, each result rounded to the dtype.
#[kernel(grid = (1))]
fn narrow_scalars(y: GmemMut<f32, 576>, x: f32) {
    let s = x as bf16;
    y.tile([0], [64]).store(splat::<f32>((s * 2.0) as f32, [64]));
    y.tile([1], [64]).store(splat::<f32>((1.0 - s) as f32, [64]));
    y.tile([2], [64]).store(splat::<f32>(max(s, 0.5) as f32, [64]));
    y.tile([3], [64]).store(splat::<f32>((s * 1.0039062509313226) as f32, [64]));
    let mut flags = 0.0;
    if s > 2.0 {
        flags += 1.0;
    }
    if -1.0 == s {
        flags += 2.0;
    }
    y.tile([4], [64]).store(splat::<f32>(flags, [64]));
    y.tile([5], [64]).store(splat::<f32>(exp2(s * 0.5 + 1.0) as f32, [64]));
    let h = min(-1.5, x as f16) / 3.0;
    y.tile([6], [64]).store(splat::<f32>(h as f32, [64]));
    let e = -(x as f8e4m3) * 2.0 + 0.5;
    y.tile([7], [64]).store(splat::<f32>(e as f32, [64]));
    let t = (x as tf32) * 3.0 - 0.1;
    y.tile([8], [64]).store(splat::<f32>(t as f32, [64]));
}

/// tf32 rounding (`cvt.rna.tf32.f32`): the low 13 mantissa bits to nearest, ties away.
fn tf32(x: f32) -> f32 {
    f32::from_bits((x.to_bits() + 0x1000) & !0x1fff)
}

#[test]
fn narrow_scalars_take_untyped_literals_in_their_dtype() {
    // Rounded as the GPU's `cvt` rounds (`half`'s own `from_f64` goes through f32).
    let bf = |v: f64| <bf16 as Element>::to_f64(<bf16 as Element>::from_f64(v));
    let half = |v: f64| <f16 as Element>::to_f64(<f16 as Element>::from_f64(v));
    let fp8 = |v: f64| <F8E4M3 as Element>::to_f64(<F8E4M3 as Element>::from_f64(v));
    // 1 + 2^-8 + 2^-30 rounds once to bf16's 1 + 2^-7; through f32 it would be the tie 1 + 2^-8,
    // which goes to the even 1.
    let odd = 1.0039062509313226;
    assert_eq!(bf(odd), 1.0078125);
    assert_eq!(bf(odd as f32 as f64), 1.0);
    for x in [1.0f32, 3.3, -1.0, -0.7, 300.0] {
        let mut y = poisoned::<f32>(&[576], f64::NAN);
        narrow_scalars::interpret(&mut y, x).unwrap();
        let s = bf(x as f64);
        let flags = if s > 2.0 { 1.0 } else { 0.0 } + if s == -1.0 { 2.0 } else { 0.0 };
        let h = half(half(x as f64).min(-1.5) / 3.0);
        let e = fp8(-fp8(x as f64) * 2.0);
        let t = tf32(tf32(tf32(x) * 3.0) - tf32(0.1));
        let want = [
            bf(s * 2.0),
            bf(1.0 - s),
            s.max(0.5),
            bf(s * 1.0078125),
            flags,
            bf((bf(bf(s * 0.5) + 1.0) as f32).exp2() as f64),
            h,
            fp8(e + 0.5),
            t as f64,
        ];
        let want: Vec<f64> = want.iter().flat_map(|&v| std::iter::repeat_n(v, 64)).collect();
        assert_same(&format!("narrow scalars of {x}"), &values(&y), &want);
    }
    // Spot values: bf16(3.3) * 2, and fp8 saturating at 448.
    let mut y = poisoned::<f32>(&[576], f64::NAN);
    narrow_scalars::interpret(&mut y, 3.3).unwrap();
    assert_eq!(y.data()[0], 6.59375);
    narrow_scalars::interpret(&mut y, 1.0).unwrap();
    assert_eq!(y.data()[3 * 64], 1.0078125);
    narrow_scalars::interpret(&mut y, 300.0).unwrap();
    assert_eq!(y.data()[7 * 64], -448.0);
}

/// Integers narrower than 32 bits wrap at their width, like Rust's wrapping arithmetic and `as`
/// (the PTX of `compiler-tests/tests/ptx/in/narrow_ints.rs` wraps the same way): i32 and i64 to u8/i8/i16/u16/i4
/// conversions take the low bits (300 as u8 is 44, not 255), sums and products wrap before a
/// comparison reads them, `!` of a u8 stays below 256, `-` and `/ -1` of -128 give -128, and a u8
/// array's wrapped sum is what a u8 array stores.
#[kernel(grid = (1))]
fn narrow_ints(
    a: Gmem<u8, 64>,
    b: Gmem<i8, 64>,
    ya: GmemMut<u8, 64>,
    y: GmemMut<i32, 192>,
    sc: GmemMut<i32, 768>,
    s: i32,
) {
    let (a8, b8) = (s as u8, s as i8);
    sc.tile([0], [64]).store(splat::<i32>(a8 as i32, [64]));
    sc.tile([1], [64]).store(splat::<i32>(b8 as i32, [64]));
    sc.tile([2], [64]).store(splat::<i32>((a8 + 100u8) as i32, [64]));
    sc.tile([3], [64]).store(splat::<i32>(((a8 + 100u8) < a8) as i32, [64]));
    sc.tile([4], [64]).store(splat::<i32>((!a8) as i32, [64]));
    sc.tile([5], [64]).store(splat::<i32>((!b8) as i32, [64]));
    sc.tile([6], [64]).store(splat::<i32>((-b8) as i32, [64]));
    sc.tile([7], [64]).store(splat::<i32>((b8 / -1i8) as i32, [64]));
    sc.tile([8], [64]).store(splat::<i32>((s as i16 * 2i16) as i32, [64]));
    sc.tile([9], [64]).store(splat::<i32>((s as u16 + 1u16) as i32, [64]));
    sc.tile([10], [64]).store(splat::<i32>(((s as i4) + 7i4) as i32, [64]));
    sc.tile([11], [64]).store(splat::<i32>(((s as i64) as u8) as i32, [64]));
    let va = a.tile([0], [64]).load(Layout::Strided);
    let vb = b.tile([0], [64]).load(Layout::Strided);
    ya.tile([0], [64]).store(va + 200);
    y.tile([0], [64]).store(((va + 200) < va).cast::<i32>());
    y.tile([1], [64]).store((-vb).cast::<i32>());
    y.tile([2], [64]).store((vb * vb).cast::<i32>());
}

/// `narrow_ints`'s 12 scalars for `s`, in Rust's wrapping arithmetic.
fn narrow_scalars_ref(s: i32) -> [i64; 12] {
    let (a8, b8) = (s as u8, s as i8);
    let i4 = ((s as i64) << 60) >> 60;
    [
        a8.into(),
        b8.into(),
        a8.wrapping_add(100).into(),
        (a8.wrapping_add(100) < a8).into(),
        (!a8).into(),
        (!b8).into(),
        b8.wrapping_neg().into(),
        b8.wrapping_div(-1).into(),
        (s as i16).wrapping_mul(2).into(),
        (s as u16).wrapping_add(1).into(),
        ((i4 + 7) << 60) >> 60,
        (s as u8).into(),
    ]
}

#[test]
fn narrow_integers_wrap_at_their_width() {
    let a = HostTensor::new([64], (0..64).map(|j| (j * 5) as u8).collect()).unwrap();
    let b = HostTensor::new([64], (0..64).map(|j| (j * 4 + 64) as u8 as i8).collect()).unwrap();
    let run = |s: i32| {
        let mut ya = poisoned::<u8>(&[64], 7.0);
        let mut y = poisoned::<i32>(&[192], -7.0);
        let mut sc = poisoned::<i32>(&[768], -7.0);
        narrow_ints::interpret(&a, &b, &mut ya, &mut y, &mut sc, s).unwrap();
        (values(&ya), values(&y), values(&sc))
    };
    for s in [300, 200, -128, 128, -129, -1, 65535 + 44, -32769, i32::MAX, i32::MIN] {
        let (_, _, sc) = run(s);
        let want: Vec<f64> = narrow_scalars_ref(s).iter().flat_map(|&v| std::iter::repeat_n(v as f64, 64)).collect();
        assert_same(&format!("narrow scalars of {s}"), &sc, &want);
    }
    // Spot values: 300 as u8 is 44 (a saturating conversion would give 255), 44 + 100 = 144 and
    // !44 = 211 in u8; 300 as i8 is 44; 300 * 2 in i16 is 600; 300 as i4 is -4, + 7 is 3.
    let (ya, y, sc) = run(300);
    let row = |k: usize| sc[k * 64];
    assert_eq!(
        [row(0), row(1), row(2), row(3), row(4), row(8), row(10), row(11)],
        [44.0, 44.0, 144.0, 0.0, 211.0, 600.0, 3.0, 44.0]
    );
    // 200 as u8 + 100 wraps to 44, below 200; 200 as i8 is -56, !-56 = 55; -128 / -1 and -(-128)
    // are -128 in i8; 65535 + 1 is 0 in u16.
    let (_, _, sc) = run(200);
    assert_eq!([sc[2 * 64], sc[3 * 64], sc[5 * 64]], [44.0, 1.0, 55.0]);
    let (_, _, sc) = run(-128);
    assert_eq!([sc[6 * 64], sc[7 * 64]], [-128.0, -128.0]);
    let (_, _, sc) = run(65535);
    assert_eq!(sc[9 * 64], 0.0);
    // Arrays: the u8 sums wrap before they are stored and compared; -(-128) and -128 * -128 wrap.
    let (av, bv) = (a.data(), b.data());
    let want_ya: Vec<f64> = av.iter().map(|&x| x.wrapping_add(200) as f64).collect();
    assert_same("ya = a + 200", &ya, &want_ya);
    let mut want_y: Vec<f64> = av.iter().map(|&x| f64::from(u8::from(x.wrapping_add(200) < x))).collect();
    want_y.extend(bv.iter().map(|&x| x.wrapping_neg() as f64));
    want_y.extend(bv.iter().map(|&x| x.wrapping_mul(x) as f64));
    assert_same("y", &y, &want_y);
    assert_eq!(ya[12], 4.0, "60 + 200 wraps to 4");
    assert_eq!((bv[16], y[64 + 16], y[128 + 16]), (-128, -128.0, 0.0), "-(-128) and -128 * -128 in i8");
}
