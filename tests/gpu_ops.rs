//! GPU tests of the language's other constructs, each against an f64 reference and the interpreter:
//! TMA copies, register arrays through shared memory (walks, windows of whole swizzled column
//! blocks), register-array math and reductions, `fma` (bit for bit), warp-level mma, warp
//! specialization with barriers, running sums handed down a chain of programs through global-memory
//! semaphores, a stream-K GEMM whose programs hand partial products to each other the same way,
//! scalars assigned under branches, integers narrower than 32 bits wrapping at their width (bit for
//! bit), bad launches, and the JIT log of every GEMM module.
//! `.gpu/tests/tessel-test --ignored --nocapture gpu_ops::`.

use crate::common;
use crate::kernels;
use crate::semaphores;

use common::{assert_close, matmul, values, Rng};
use kernels::*;
use semaphores::{running_sums, running_sums_ref, stream_k_gemm, stream_workspace, STREAM_SHAPES};
use tessel::prelude::*;

fn device() -> Device {
    Device::new(0).expect("an sm_90 GPU")
}

/// `globaltimer()` on the GPU: every program's readings are positive, in order, and less than a
/// second apart; the threads of a program read within a millisecond of each other.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn the_global_timer_reads_nanoseconds() {
    let dev = device();
    let x = HostTensor::from_fn([4 * 64, 64], |ix| ix[1] as f32).unwrap();
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dy = DeviceTensor::<f32>::zeros(&dev, [4 * 64, 64]).unwrap();
    let mut dns = DeviceTensor::<i64>::zeros(&dev, [4, 2, 128]).unwrap();
    timed_double::launch(&dev, &dx, &mut dy, &mut dns).unwrap();
    assert_eq!(dy.to_host().unwrap().get(&[3 * 64 + 5, 7]), Some(14.0));
    let ns = dns.to_host().unwrap();
    for p in 0..4 {
        let (starts, ends): (Vec<i64>, Vec<i64>) =
            (0..128).map(|t| (ns.get(&[p, 0, t]).unwrap(), ns.get(&[p, 1, t]).unwrap())).unzip();
        for (t, (s, e)) in starts.iter().zip(&ends).enumerate() {
            assert!(0 < *s && s <= e && e - s < 1_000_000_000, "program {p} thread {t}: {s} .. {e}");
        }
        let spread = starts.iter().max().unwrap() - starts.iter().min().unwrap();
        assert!(spread < 1_000_000, "program {p}: its threads' first readings {spread} ns apart");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn tma_round_trip() {
    let dev = device();
    let x = Rng::new(1).tensor::<f32>(&[128, 192], 1.0);
    let want: Vec<f64> = values(&x).iter().map(|v| (*v as f32 + 1.0) as f64).collect();
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dy = DeviceTensor::<f32>::zeros(&dev, [128, 192]).unwrap();
    dy.poison(f32::NAN).unwrap();
    tma_copy::launch(&dev, &dx, &mut dy).unwrap();
    assert_close("tma_copy GPU", &values(&dy.to_host().unwrap()), &want, 0.0);
    let mut hy = HostTensor::<f32>::zeros([128, 192]).unwrap();
    tma_copy::interpret(&x, &mut hy).unwrap();
    assert_close("tma_copy interpreter", &values(&hy), &want, 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn stmatrix_stores() {
    let dev = device();
    let x = Rng::new(7).tensor::<bf16>(&[256, 384], 1.0);
    let want = values(&x);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dy = DeviceTensor::<bf16>::zeros(&dev, [256, 384]).unwrap();
    let mut dz = DeviceTensor::<bf16>::zeros(&dev, [256, 384]).unwrap();
    stmatrix_copy::launch(&dev, &dx, &mut dy, &mut dz).unwrap();
    assert_close("stmatrix_copy GPU (swizzled)", &values(&dy.to_host().unwrap()), &want, 0.0);
    assert_close("stmatrix_copy GPU (plain)", &values(&dz.to_host().unwrap()), &want, 0.0);
    let (mut hy, mut hz) =
        (HostTensor::<bf16>::zeros([256, 384]).unwrap(), HostTensor::<bf16>::zeros([256, 384]).unwrap());
    stmatrix_copy::interpret(&x, &mut hy, &mut hz).unwrap();
    assert_close("stmatrix_copy interpreter", &values(&hy), &want, 0.0);
    assert_close("stmatrix_copy interpreter (plain)", &values(&hz), &want, 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn register_array_windows() {
    let dev = device();
    let (m, n) = (256, 384);
    let x = Rng::new(8).tensor::<bf16>(&[m, n], 1.0);
    let (want_y, want_z) = regs_windows_ref(&values(&x), m, n);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dy = DeviceTensor::<bf16>::zeros(&dev, [m, n]).unwrap();
    let mut dz = DeviceTensor::<bf16>::zeros(&dev, [m, n]).unwrap();
    regs_windows::launch(&dev, &dx, &mut dy, &mut dz).unwrap();
    assert_close("regs_windows GPU: quadrants swapped", &values(&dy.to_host().unwrap()), &want_y, 0.0);
    assert_close("regs_windows GPU: 8-column blocks reversed", &values(&dz.to_host().unwrap()), &want_z, 0.0);
}

/// `smem_walks` and `column_windows` (shared-memory loads and stores by one address a thread,
/// windows of whole column blocks of swizzled buffers) against the interpreter's references.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn shared_memory_walks_and_column_windows() {
    let dev = device();
    let (m, n) = (256, 192);
    let x = Rng::new(109).tensor::<f32>(&[m, n], 1.0);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let (mut dy, mut dz) =
        (DeviceTensor::<f32>::zeros(&dev, [m, n]).unwrap(), DeviceTensor::<f32>::zeros(&dev, [m, n]).unwrap());
    let mut dh = DeviceTensor::<bf16>::zeros(&dev, [m, n]).unwrap();
    dy.poison(f32::NAN).unwrap();
    dz.poison(f32::NAN).unwrap();
    dh.poison(bf16::NAN).unwrap();
    smem_walks::launch(&dev, &dx, &mut dy, &mut dz, &mut dh).unwrap();
    let [want_y, want_z, want_h] = smem_walks_ref(&x);
    assert_close("smem_walks GPU: y", &values(&dy.to_host().unwrap()), &want_y, 0.0);
    assert_close("smem_walks GPU: z", &values(&dz.to_host().unwrap()), &want_z, 0.0);
    assert_close("smem_walks GPU: h", &values(&dh.to_host().unwrap()), &want_h, 0.0);
    let m = 256;
    let x = HostTensor::from_fn([m, 64], |ix| ((7 * ix[0] + 3 * ix[1]) % 17) as f32 - 8.0).unwrap();
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let (mut dy, mut dz) =
        (DeviceTensor::<f32>::zeros(&dev, [m, 64]).unwrap(), DeviceTensor::<f32>::zeros(&dev, [m, 64]).unwrap());
    dy.poison(f32::NAN).unwrap();
    dz.poison(f32::NAN).unwrap();
    smem_vectors::launch(&dev, &dx, &mut dy, &mut dz).unwrap();
    let [want_y, want_z] = smem_vectors_ref(&x, m);
    assert_close("smem_vectors GPU: y", &values(&dy.to_host().unwrap()), &want_y, 0.0);
    assert_close("smem_vectors GPU: z", &values(&dz.to_host().unwrap()), &want_z, 0.0);
    let (m, n) = (128, 256);
    let a = Rng::new(110).tensor::<bf16>(&[m, 128], 1.0);
    let b = Rng::new(111).tensor::<bf16>(&[128, n], 1.0);
    let (da, db) = (DeviceTensor::from_host(&dev, &a).unwrap(), DeviceTensor::from_host(&dev, &b).unwrap());
    let mut dc = DeviceTensor::<f32>::zeros(&dev, [m, n]).unwrap();
    dc.poison(f32::NAN).unwrap();
    column_windows::launch(&dev, &da, &db, &mut dc).unwrap();
    let want = matmul(&values(&a), &values(&b), m, n, 128, true);
    assert_close("column_windows GPU", &values(&dc.to_host().unwrap()), &want, 1e-5);
}

fn softmax_ref(x: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().cloned().fold(f64::MIN, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        for c in 0..cols {
            out[r * cols + c] = (row[c] - m).exp() / s;
        }
    }
    out
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn register_math_and_reductions() {
    let dev = device();
    let x = Rng::new(2).tensor::<f32>(&[256, 64], 2.0);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let want = softmax_ref(&values(&x), 256, 64);
    let mut dy = DeviceTensor::<f32>::zeros(&dev, [256, 64]).unwrap();
    dy.poison(f32::NAN).unwrap();
    softmax::launch(&dev, &dx, &mut dy).unwrap();
    let gpu = values(&dy.to_host().unwrap());
    assert_close("softmax GPU", &gpu, &want, 1e-5);
    let mut hy = HostTensor::<f32>::zeros([256, 64]).unwrap();
    softmax::interpret(&x, &mut hy).unwrap();
    assert_close("softmax GPU vs interpreter", &gpu, &values(&hy), 1e-5);

    let xs = values(&x);
    let mut want = vec![0.0; xs.len()];
    for t in 0..4 {
        for c in 0..64 {
            let s: f64 = (0..64).map(|r| xs[(t * 64 + r) * 64 + c]).sum();
            for r in 0..64 {
                want[(t * 64 + r) * 64 + c] = xs[(t * 64 + r) * 64 + c] + s;
            }
        }
    }
    colsum::launch(&dev, &dx, &mut dy).unwrap();
    let gpu = values(&dy.to_host().unwrap());
    assert_close("colsum GPU", &gpu, &want, 1e-5);
    colsum::interpret(&x, &mut hy).unwrap();
    assert_close("colsum GPU vs interpreter", &gpu, &values(&hy), 1e-5);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn one_dimensional_arrays_reduce_to_scalars() {
    let dev = device();
    let (x, f, n) = scalar_reductions_inputs();
    let (dx, df, dn) = (
        DeviceTensor::from_host(&dev, &x).unwrap(),
        DeviceTensor::from_host(&dev, &f).unwrap(),
        DeviceTensor::from_host(&dev, &n).unwrap(),
    );
    let mut dout = DeviceTensor::<f32>::zeros(&dev, [128, 8]).unwrap();
    dout.poison(f32::NAN).unwrap();
    scalar_reductions::launch(&dev, &dx, &df, &dn, &mut dout).unwrap();
    let gpu = values(&dout.to_host().unwrap());
    let mut hout = HostTensor::<f32>::zeros([128, 8]).unwrap();
    scalar_reductions::interpret(&x, &f, &n, &mut hout).unwrap();
    let interp = values(&hout);
    for (b, block) in x.data().chunks(64 * 64).enumerate() {
        let rows = &gpu[b * 64 * 8..(b + 1) * 64 * 8];
        // Every thread of the warpgroup holds the same scalar, bit for bit.
        assert!(rows.chunks(8).all(|r| r == &rows[..8]), "block {b}: rows differ: {rows:?}");
        let (got, want) = (&rows[..8], &interp[b * 64 * 8..b * 64 * 8 + 8]);
        // Maxima, minima, an integer sum and a splat's sum are exact.
        assert_eq!(got[1..6], want[1..6], "block {b}");
        assert_eq!(got[7], 0.0);
        // The f32 sum adds in another order than the interpreter's left-to-right one.
        assert!((got[0] - want[0]).abs() <= 1e-4 * want[0].abs().max(1.0), "block {b}: {} vs {}", got[0], want[0]);
        // The bf16 sums add in f32 and round once per reduction (rows, then their sum).
        let round = |v: f64| bf16::from_f64(v).to_f64();
        let row_sums: Vec<f64> =
            block.chunks(64).map(|r| round(r.iter().map(|&v| round(f64::from(v))).sum())).collect();
        let bf16_total = round(row_sums.iter().sum());
        assert!((got[6] - bf16_total).abs() <= bf16_total.abs() / 128.0, "block {b}: {} vs {bf16_total}", got[6]);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn warp_level_mma() {
    let dev = device();
    let mut rng = Rng::new(3);
    let (m, n, k) = (128, 192, 96);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let want = matmul(&values(&a), &values(&b), m, n, k, true);
    let (da, db) = (DeviceTensor::from_host(&dev, &a).unwrap(), DeviceTensor::from_host(&dev, &b).unwrap());
    let mut dc = DeviceTensor::<f32>::zeros(&dev, [m, n]).unwrap();
    dc.poison(f32::NAN).unwrap();
    mma_bf16::launch(&dev, &da, &db, &mut dc).unwrap();
    let gpu = values(&dc.to_host().unwrap());
    assert_close("mma bf16 GPU", &gpu, &want, 1e-5);
    let mut hc = HostTensor::<f32>::zeros([m, n]).unwrap();
    mma_bf16::interpret(&a, &b, &mut hc).unwrap();
    assert_close("mma bf16 GPU vs interpreter", &gpu, &values(&hc), 1e-5);

    let (m, n, k) = (64, 96, 128);
    let (a, b) = (rng.ints::<i8>(&[m, k]), rng.ints::<i8>(&[k, n]));
    let want = matmul(&values(&a), &values(&b), m, n, k, true);
    let (da, db) = (DeviceTensor::from_host(&dev, &a).unwrap(), DeviceTensor::from_host(&dev, &b).unwrap());
    let mut dc = DeviceTensor::<i32>::zeros(&dev, [m, n]).unwrap();
    mma_i8::launch(&dev, &da, &db, &mut dc).unwrap();
    assert_close("mma i8 GPU", &values(&dc.to_host().unwrap()), &want, 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn warp_specialized_pipeline() {
    let dev = device();
    let mut rng = Rng::new(4);
    let (m, n, k) = (256, 128, 512);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let want = matmul(&values(&a), &values(&b), m, n, k, true);
    let (da, db) = (DeviceTensor::from_host(&dev, &a).unwrap(), DeviceTensor::from_host(&dev, &b).unwrap());
    let mut dc = DeviceTensor::<f32>::zeros(&dev, [m, n]).unwrap();
    dc.poison(f32::NAN).unwrap();
    specialized::launch(&dev, &da, &db, &mut dc).unwrap();
    let gpu = values(&dc.to_host().unwrap());
    assert_close("specialized GPU", &gpu, &want, 1e-5);
    let mut hc = HostTensor::<f32>::zeros([m, n]).unwrap();
    specialized::interpret(&a, &b, &mut hc).unwrap();
    assert_close("specialized GPU vs interpreter", &gpu, &values(&hc), 1e-5);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn semaphores_hand_running_sums_down_a_chain() {
    let dev = device();
    // A long chain, launched many times: every hand-off is a chance to catch a signal that does not
    // order the stores before it.
    let (rows, cols) = (32 * 64, 1024);
    let x = Rng::new(8).tensor::<f32>(&[rows, cols], 1.0);
    let want = running_sums_ref(&values(&x), rows, cols);
    let mut hsums = HostTensor::<f32>::zeros([rows, 128]).unwrap();
    let mut hsems = HostTensor::<u32>::zeros([rows / 64]).unwrap();
    running_sums::interpret(&x, &mut hsums, &mut hsems).unwrap();
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dsums = DeviceTensor::<f32>::zeros(&dev, [rows, 128]).unwrap();
    // Zeroed once: balanced signals and waits leave it zeroed for the next launch.
    let mut dsems = DeviceTensor::<u32>::zeros(&dev, [rows / 64]).unwrap();
    for launch in 0..10 {
        dsums.poison(f32::NAN).unwrap();
        running_sums::launch(&dev, &dx, &mut dsums, &mut dsems).unwrap();
        let gpu = values(&dsums.to_host().unwrap());
        assert_close(&format!("running_sums GPU, launch {launch}"), &gpu, &want, 1e-5);
        // The same f32 additions in the same order: equal to the bit.
        assert_close(&format!("running_sums GPU vs interpreter, launch {launch}"), &gpu, &values(&hsums), 0.0);
        let sems = dsems.to_host().unwrap();
        assert!(sems.data().iter().all(|&s| s == 0), "launch {launch} left the semaphores at {:?}", sems.data());
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn stream_k_on_the_gpu_matches_the_interpreter() {
    let dev = device();
    let mut partial = DeviceTensor::<f32>::zeros(&dev, [512, 256]).unwrap();
    let mut sems = DeviceTensor::<u32>::zeros(&dev, [8]).unwrap();
    // One workspace for every launch: each must leave the semaphores at zero for the next.
    for (m, n, k) in STREAM_SHAPES {
        let mut rng = Rng::new((m * 17 + n * 5 + k) as u64);
        let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
        let (da, db) = (DeviceTensor::from_host(&dev, &a).unwrap(), DeviceTensor::from_host(&dev, &b).unwrap());
        let mut dc = DeviceTensor::<bf16>::zeros(&dev, [m, n]).unwrap();
        dc.poison(bf16::NAN).unwrap();
        stream_k_gemm::launch(&dev, &da, &db, &mut dc, &mut partial, &mut sems).unwrap();
        let got = values(&dc.to_host().unwrap());
        let want = matmul(&values(&a), &values(&b), m, n, k, true);
        assert_close(&format!("stream-K {m}x{n}x{k} GPU"), &got, &want, 1e-2);
        let mut hc = HostTensor::<bf16>::zeros([m, n]).unwrap();
        let (mut hp, mut hs) = stream_workspace();
        stream_k_gemm::interpret(&a, &b, &mut hc, &mut hp, &mut hs).unwrap();
        assert_close(&format!("stream-K {m}x{n}x{k} GPU vs interpreter"), &got, &values(&hc), 1e-2);
        let left = sems.to_host().unwrap();
        assert!(left.data().iter().all(|&s| s == 0), "{m}x{n}x{k}: semaphores left at {:?}", left.data());
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn mutable_scalars_assigned_under_branches() {
    let dev = device();
    let n = 8 * 128;
    let x = Rng::new(9).tensor::<f32>(&[n], 1.0);
    let want: Vec<f64> = (0..n)
        .map(|e| {
            let (i, steps) = ((e / 128) as i64, 37i64);
            let total: i64 = (0..steps)
                .map(|k| {
                    let lo = if k % 3 == i % 3 { k } else { 0 };
                    let hi = if k % 2 == 0 { k + i } else { steps };
                    hi - lo
                })
                .sum();
            // The kernel adds in f32.
            (values(&x)[e] as f32 + total as f32) as f64
        })
        .collect();
    let mut hy = HostTensor::<f32>::zeros([n]).unwrap();
    branchy_ranges::interpret(&x, &mut hy, 37).unwrap();
    assert_close("branchy_ranges interpreter", &values(&hy), &want, 0.0);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dy = DeviceTensor::<f32>::zeros(&dev, [n]).unwrap();
    branchy_ranges::launch(&dev, &dx, &mut dy, 37).unwrap();
    assert_close("branchy_ranges GPU", &values(&dy.to_host().unwrap()), &want, 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn tuple_assignment_evaluates_before_it_assigns() {
    let dev = device();
    let x = Rng::new(12).tensor::<f32>(&[4 * 128], 1.0);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    for n in [0, 1, 6, 7] {
        let mut dy = DeviceTensor::<f32>::zeros(&dev, [4 * 128]).unwrap();
        tuple_steps::launch(&dev, &dx, &mut dy, n).unwrap();
        let want = tuple_steps_ref(x.data(), n);
        assert_close(&format!("tuple_steps GPU, n = {n}"), &values(&dy.to_host().unwrap()), &want, 0.0);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn if_values_take_the_branch_their_condition_picks() {
    let dev = device();
    let x = Rng::new(13).tensor::<f32>(&[6 * 128], 1.0);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dy = DeviceTensor::<f32>::zeros(&dev, [6 * 128]).unwrap();
    if_values::launch(&dev, &dx, &mut dy, 7).unwrap();
    assert_close("if_values GPU", &values(&dy.to_host().unwrap()), &if_values_ref(x.data(), 7), 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn float_literals_round_once_to_bf16() {
    let dev = device();
    let x = HostTensor::new([64, 64], vec![bf16::ONE; 64 * 64]).unwrap();
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let (mut dy, mut dz) =
        (DeviceTensor::<bf16>::zeros(&dev, [64, 64]).unwrap(), DeviceTensor::zeros(&dev, [64, 64]).unwrap());
    literal_rounding::launch(&dev, &dx, &mut dy, &mut dz).unwrap();
    assert_close("x * literal GPU", &values(&dy.to_host().unwrap()), &[1.0078125; 64 * 64], 0.0);
    assert_close("splat of a literal GPU", &values(&dz.to_host().unwrap()), &[1.0078125; 64 * 64], 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn tiles_with_leading_unit_extents_move_through_registers() {
    let dev = device();
    let (heads, rows) = (3, 192);
    let x = Rng::new(14).tensor::<f32>(&[heads, rows, 64], 1.0);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dy = DeviceTensor::<f32>::zeros(&dev, [heads, rows, 64]).unwrap();
    let mut dz = DeviceTensor::<f32>::zeros(&dev, [heads, rows, 64]).unwrap();
    per_head::launch(&dev, &dx, &mut dy, &mut dz).unwrap();
    let twice: Vec<f64> = values(&x).iter().map(|v| 2.0 * v).collect();
    let plus: Vec<f64> = x.data().iter().map(|&v| (v + 1.0) as f64).collect();
    assert_close("per_head y GPU", &values(&dy.to_host().unwrap()), &twice, 0.0);
    assert_close("per_head z GPU", &values(&dz.to_host().unwrap()), &plus, 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn bitcasts_keep_the_bits() {
    let dev = device();
    let (x, scale, want) = bit_views_case();
    fn z<T: tessel::Element>(dev: &Device) -> DeviceTensor<T> {
        DeviceTensor::zeros(dev, [64, 64]).unwrap()
    }
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let (mut bits, mut next, mut half_bits, mut half_back) =
        (z::<u32>(&dev), z::<f32>(&dev), z::<i16>(&dev), z::<bf16>(&dev));
    let (mut byte_bits, mut byte_back, mut param_bits) = (z::<u8>(&dev), z::<f32>(&dev), z::<i32>(&dev));
    bit_views::launch(
        &dev,
        &dx,
        &mut bits,
        &mut next,
        &mut half_bits,
        &mut half_back,
        &mut byte_bits,
        &mut byte_back,
        &mut param_bits,
        scale,
    )
    .unwrap();
    let host = |t: &DeviceTensor<_>| values(&t.to_host().unwrap());
    let got = [
        values(&bits.to_host().unwrap()),
        host(&next),
        values(&half_bits.to_host().unwrap()),
        values(&half_back.to_host().unwrap()),
        values(&byte_bits.to_host().unwrap()),
        host(&byte_back),
        values(&param_bits.to_host().unwrap()),
    ];
    for ((name, got), want) in BIT_VIEWS.iter().zip(&got).zip(&want) {
        assert_close(&format!("{name} GPU"), got, want, 0.0);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn roundings_are_exact() {
    let dev = device();
    let (x, want_y, want_h) = roundings_case();
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut y = DeviceTensor::<f32>::zeros(&dev, [256, 64]).unwrap();
    let mut h = DeviceTensor::<bf16>::zeros(&dev, [64, 64]).unwrap();
    roundings::launch(&dev, &dx, &mut y, &mut h).unwrap();
    assert_close("floor, ceil, round, trunc GPU", &values(&y.to_host().unwrap()), &want_y, 0.0);
    assert_close("round of bf16 GPU", &values(&h.to_host().unwrap()), &want_h, 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn paired_register_stores_at_even_and_odd_widths() {
    let dev = device();
    let rows = 128;
    let x = Rng::new(10).tensor::<f32>(&[rows, 64], 1.0);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    for n in RAGGED_WIDTHS {
        let mut dy = DeviceTensor::<f32>::zeros(&dev, [rows, n]).unwrap();
        let mut dh = DeviceTensor::<bf16>::zeros(&dev, [rows, n]).unwrap();
        dy.poison(f32::NAN).unwrap();
        dh.poison(bf16::NAN).unwrap();
        ragged_store::launch(&dev, &dx, &mut dy, &mut dh).unwrap();
        let mut hy = HostTensor::<f32>::zeros([rows, n]).unwrap();
        let mut hh = HostTensor::<bf16>::zeros([rows, n]).unwrap();
        ragged_store::interpret(&x, &mut hy, &mut hh).unwrap();
        let want = ragged_store_ref(&values(&x), rows, n);
        assert_close(&format!("ragged_store y GPU, N = {n}"), &values(&dy.to_host().unwrap()), &want, 0.0);
        assert_close(
            &format!("ragged_store h GPU vs interpreter, N = {n}"),
            &values(&dh.to_host().unwrap()),
            &values(&hh),
            0.0,
        );
    }
}

/// A tensor of N(0,1) values whose first elements are `head`.
fn with_head<T: tessel::Element>(rng: &mut Rng, shape: &[usize], head: &[f32]) -> HostTensor<T> {
    let mut t = rng.tensor::<T>(shape, 1.0);
    for (x, &v) in t.data_mut().iter_mut().zip(head) {
        *x = T::from_f64(v as f64);
    }
    t
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn fma_rounds_once_like_the_interpreter() {
    let dev = device();
    let rows = 128;
    let shape = [rows, 64];
    let p = |e: i32| 2f32.powi(e);
    let mut rng = Rng::new(11);
    // f32 element 0: (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 fused (unfused, 2^-11). Element 1:
    // (1 + 2^-12)^2 + 2^-80 rounds up from the f32 tie 1 + 2^-11 + 2^-24 (through f64, down).
    let a = with_head::<f32>(&mut rng, &shape, &[1.0 + p(-12), 1.0 + p(-12)]);
    let b = with_head::<f32>(&mut rng, &shape, &[1.0 + p(-12), 1.0 + p(-12)]);
    let c = with_head::<f32>(&mut rng, &shape, &[-1.0, p(-80)]);
    // bf16 element 0: (1 + 2^-4)^2 - 1 = 2^-3 + 2^-8 fused (unfused, 2^-3). Element 1:
    // 3 * (1 + 2^-7) - 2^-30 is a bf16 tie in f32, which goes to the even 3 + 2^-5.
    let h = with_head::<bf16>(&mut rng, &shape, &[1.0 + p(-4), 1.0 + p(-7)]);
    let k = with_head::<bf16>(&mut rng, &shape, &[1.0 + p(-4), 3.0]);
    let l = with_head::<bf16>(&mut rng, &shape, &[-1.0, -p(-30)]);
    let (alpha, beta) = (1.0 + p(-12), 1.0 + p(-12));

    let (av, bv, cv) = (a.data(), b.data(), c.data());
    let want_y: Vec<f64> = (0..rows * 64).map(|e| av[e].mul_add(bv[e], cv[e]) as f64).collect();
    let row_max: Vec<f32> = cv.chunks(64).map(|r| r.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x))).collect();
    let want_z: Vec<f64> = (0..rows * 64).map(|e| alpha.mul_add(av[e], row_max[e / 64]) as f64).collect();
    let (hv, kv, lv) = (h.data(), k.data(), l.data());
    let want_hy: Vec<f64> = (0..rows * 64)
        .map(|e| bf16::from_f32(hv[e].to_f32().mul_add(kv[e].to_f32(), lv[e].to_f32())).to_f64())
        .collect();
    let bf16_s = bf16::from_f32(bf16::from_f32(beta).to_f32().mul_add(3.0, -1.0)).to_f32();
    let want_s: Vec<f64> = [alpha.mul_add(beta, -1.0), bf16_s].iter().flat_map(|&x| [x as f64; 64]).collect();
    assert_eq!((want_y[0], want_y[1]), ((p(-11) + p(-24)) as f64, (1.0 + p(-11) + p(-23)) as f64));
    assert_eq!((want_hy[0], want_hy[1]), ((p(-3) + p(-8)) as f64, (3.0 + p(-5)) as f64));

    let (mut int_y, mut int_z) = (HostTensor::<f32>::zeros(shape).unwrap(), HostTensor::<f32>::zeros(shape).unwrap());
    let (mut int_hy, mut int_s) = (HostTensor::<bf16>::zeros(shape).unwrap(), HostTensor::<f32>::zeros([128]).unwrap());
    fma_ops::interpret(&a, &b, &c, &h, &k, &l, &mut int_y, &mut int_z, &mut int_hy, &mut int_s, alpha, beta).unwrap();

    let (da, db, dc) = (
        DeviceTensor::from_host(&dev, &a).unwrap(),
        DeviceTensor::from_host(&dev, &b).unwrap(),
        DeviceTensor::from_host(&dev, &c).unwrap(),
    );
    let (dh, dk, dl) = (
        DeviceTensor::from_host(&dev, &h).unwrap(),
        DeviceTensor::from_host(&dev, &k).unwrap(),
        DeviceTensor::from_host(&dev, &l).unwrap(),
    );
    let mut dy = DeviceTensor::<f32>::zeros(&dev, shape).unwrap();
    let mut dz = DeviceTensor::<f32>::zeros(&dev, shape).unwrap();
    let mut dhy = DeviceTensor::<bf16>::zeros(&dev, shape).unwrap();
    let mut ds = DeviceTensor::<f32>::zeros(&dev, [128]).unwrap();
    dy.poison(f32::NAN).unwrap();
    dz.poison(f32::NAN).unwrap();
    dhy.poison(bf16::NAN).unwrap();
    ds.poison(f32::NAN).unwrap();
    fma_ops::launch(&dev, &da, &db, &dc, &dh, &dk, &dl, &mut dy, &mut dz, &mut dhy, &mut ds, alpha, beta).unwrap();

    // Bit for bit: the GPU's `fma.rn.f32` is the one rounding the interpreter and `mul_add` make.
    let outputs = [
        ("y = fma(a, b, c)", values(&dy.to_host().unwrap()), values(&int_y), want_y),
        ("z = fma(alpha, a, row max)", values(&dz.to_host().unwrap()), values(&int_z), want_z),
        ("hy = fma(h, k, l) in bf16", values(&dhy.to_host().unwrap()), values(&int_hy), want_hy),
        (
            "s = fma(alpha, beta, -1.0), fma(beta as bf16, 3.0, -1.0)",
            values(&ds.to_host().unwrap()),
            values(&int_s),
            want_s,
        ),
    ];
    for (what, gpu, interp, want) in outputs {
        assert_close(&format!("{what} GPU"), &gpu, &want, 0.0);
        assert_close(&format!("{what} GPU vs interpreter"), &gpu, &interp, 0.0);
    }
}

/// Integers narrower than 32 bits (u8, i8, u16, i16) wrap at their width on the GPU exactly as in
/// the interpreter and in Rust's wrapping arithmetic and `as`: arithmetic that overflows (arrays
/// loaded from global memory, scalars converted from the parameter `s`, so nothing folds),
/// comparisons and shifts of the wrapped values, `!`, `-` and `abs` of the minimum, `/ -1`, i32
/// and i64 to narrower conversions, and stores to narrow arrays.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn narrow_integers_wrap_like_the_interpreter() {
    let dev = device();
    let x = NarrowInts::generate();
    let n = NARROW_N;
    let (da, db, dc, dd, de) = (
        DeviceTensor::from_host(&dev, &x.a).unwrap(),
        DeviceTensor::from_host(&dev, &x.b).unwrap(),
        DeviceTensor::from_host(&dev, &x.c).unwrap(),
        DeviceTensor::from_host(&dev, &x.d).unwrap(),
        DeviceTensor::from_host(&dev, &x.e).unwrap(),
    );
    let mut ya = DeviceTensor::<u8>::zeros(&dev, [n]).unwrap();
    let mut yb = DeviceTensor::<i8>::zeros(&dev, [n]).unwrap();
    let mut yc = DeviceTensor::<u16>::zeros(&dev, [n]).unwrap();
    let mut yd = DeviceTensor::<i16>::zeros(&dev, [n]).unwrap();
    let mut r = DeviceTensor::<i32>::zeros(&dev, [NARROW_ROWS * n]).unwrap();
    let mut sc = DeviceTensor::<i32>::zeros(&dev, [NARROW_SCALARS * 128]).unwrap();
    for s in NARROW_S {
        ya.poison(0x5a).unwrap();
        yb.poison(0x5a).unwrap();
        yc.poison(0x5a5a).unwrap();
        yd.poison(0x5a5a).unwrap();
        r.poison(i32::MIN + 7).unwrap();
        sc.poison(i32::MIN + 7).unwrap();
        narrow_ints::launch(&dev, &da, &db, &dc, &dd, &de, &mut ya, &mut yb, &mut yc, &mut yd, &mut r, &mut sc, s)
            .unwrap();
        let gpu = [
            values(&ya.to_host().unwrap()),
            values(&yb.to_host().unwrap()),
            values(&yc.to_host().unwrap()),
            values(&yd.to_host().unwrap()),
            values(&r.to_host().unwrap()),
            values(&sc.to_host().unwrap()),
        ];
        let (interp, want) = (x.interpret(s), x.reference(s));
        for (((what, gpu), interp), want) in NARROW_OUTPUTS.iter().zip(&gpu).zip(&interp).zip(&want) {
            assert_close(&format!("narrow_ints {what} GPU, s = {s}"), gpu, want, 0.0);
            assert_close(&format!("narrow_ints {what} GPU vs interpreter, s = {s}"), gpu, interp, 0.0);
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn bad_launches_return_errors_and_the_gpu_still_works() {
    let dev = device();
    let x = DeviceTensor::<f32>::zeros(&dev, [128, 192]).unwrap();
    let mut wrong = DeviceTensor::<f32>::zeros(&dev, [128, 128]).unwrap();
    let err = tma_copy::launch(&dev, &x, &mut wrong).unwrap_err();
    println!("mismatched dims: {err}");
    let mut odd = DeviceTensor::<f32>::zeros(&dev, [100, 192]).unwrap();
    let x_odd = DeviceTensor::<f32>::zeros(&dev, [100, 192]).unwrap();
    let err = tma_copy::launch(&dev, &x_odd, &mut odd).unwrap_err();
    println!("indivisible dims: {err}");
    tma_round_trip();
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn jit_logs_have_no_wgmma_serialization() {
    let dev = device();
    let modules = [
        (specialized::PTX, specialized::ENTRY),
        (tma_copy::PTX, tma_copy::ENTRY),
        (softmax::PTX, softmax::ENTRY),
        (colsum::PTX, colsum::ENTRY),
        (mma_bf16::PTX, mma_bf16::ENTRY),
        (mma_i8::PTX, mma_i8::ENTRY),
    ];
    for (ptx, entry) in modules {
        let module = tessel::Module::load(&dev, ptx, entry).unwrap();
        let log = module.info_log();
        assert!(!log.contains("C75"), "{entry}: the JIT reported wgmma serialization:\n{log}");
    }
}
