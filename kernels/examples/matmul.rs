//! matmul: the persistent warp-specialized bf16 / f16 GEMM of `kernels/src/matmul.rs` and the
//! fp8 / int8 quantized GEMMs of `kernels/src/quantized.rs`, run and checked against an f64
//! reference on sampled elements.
//!
//! ```text
//! cargo run --release -p tessel-kernels --example matmul
//! ```
//! With a GPU it runs 4096 x 4096 x 4096 on it (`MATMUL_SIZE=n` for n^3: any multiple of 16, the
//! 8-bit operands' 16-byte rows, e.g. 1008, whose last tiles overhang every dimension); without
//! one it runs 256 x 512 x 128 in the CPU interpreter.

use tessel_kernels::matmul as kernels;
use tessel_kernels::quantized;

use tessel::prelude::*;
use tessel::{Element, Result};

/// Deterministic N(0,1) inputs (xorshift + Box-Muller).
fn randn<T: Element>(shape: [usize; 2], seed: u64) -> Result<HostTensor<T>> {
    let mut s = seed | 1;
    let mut uniform = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    HostTensor::from_fn(shape, |_| {
        let (u, v) = (uniform(), uniform());
        T::from_f64((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos())
    })
}

/// Largest relative error over sampled elements (every 61st row and 37th column).
fn check<T: Element>(a: &HostTensor<T>, b: &HostTensor<T>, c: &HostTensor<T>) -> f64 {
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let mut worst = 0.0f64;
    for i in (0..m).step_by(61) {
        for j in (0..n).step_by(37) {
            let want: f64 = (0..k).map(|p| a.data()[i * k + p].to_f64() * b.data()[p * n + j].to_f64()).sum();
            let got = c.data()[i * n + j].to_f64();
            worst = worst.max((got - want).abs() / (want.abs() + (k as f64).sqrt()));
        }
    }
    worst
}

/// M, N and K: `MATMUL_SIZE` (default 4096) cubed on the GPU, a small product in the interpreter.
fn shape(gpu: Option<&Device>) -> (usize, usize, usize) {
    let size = std::env::var("MATMUL_SIZE").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
    if gpu.is_some() {
        (size, size, size)
    } else {
        (256, 512, 128)
    }
}

/// Runs `launch` 20 times more and prints its rate, `ops` (twice the multiply-adds) per second in
/// `unit` (TFLOP/s, or TOP/s for integers): a rough wall-clock figure (bench/examples/bench_matmul.rs
/// and bench_qmatmul.rs measure properly).
fn rate(name: &str, unit: &str, dev: &Device, ops: usize, mut launch: impl FnMut() -> Result<()>) -> Result<()> {
    let start = std::time::Instant::now();
    for _ in 0..20 {
        launch()?;
    }
    dev.synchronize()?;
    let secs = start.elapsed().as_secs_f64() / 20.0;
    println!("{name}: {:.0} {unit} (wall clock, 20 launches)", ops as f64 / secs / 1e12);
    Ok(())
}

fn run<T: Element>(
    name: &str,
    gpu: Option<&Device>,
    launch: impl Fn(&Device, &DeviceTensor<T>, &DeviceTensor<T>, &mut DeviceTensor<T>) -> Result<()>,
    interpret: impl Fn(&HostTensor<T>, &HostTensor<T>, &mut HostTensor<T>) -> Result<()>,
) -> Result<f64> {
    let (m, n, k) = shape(gpu);
    let (a, b) = (randn::<T>([m, k], 1)?, randn::<T>([k, n], 2)?);
    let mut c = HostTensor::<T>::zeros([m, n])?;
    match gpu {
        Some(dev) => {
            let (da, db) = (DeviceTensor::from_host(dev, &a)?, DeviceTensor::from_host(dev, &b)?);
            let mut dc = DeviceTensor::<T>::zeros(dev, [m, n])?;
            launch(dev, &da, &db, &mut dc)?;
            c = dc.to_host()?;
            rate(name, "TFLOP/s", dev, 2 * m * n * k, || launch(dev, &da, &db, &mut dc))?;
        }
        None => interpret(&a, &b, &mut c)?,
    }
    let err = check(&a, &b, &c);
    println!("{name}: C = A @ B, {m} x {n} x {k}: max relative error {err:.2e}");
    Ok(err)
}

/// The rows (of length `cols`) of the row-major matrix `x` quantized to `T`, each with its own
/// scale: the row's largest magnitude maps to `top` (448, e4m3's largest value; 127 for int8).
fn quantize<T: Element>(x: &[f32], cols: usize, top: f64) -> Result<(HostTensor<T>, HostTensor<f32>)> {
    let rows = x.len() / cols;
    let scales: Vec<f32> = x
        .chunks(cols)
        .map(|row| match row.iter().fold(0.0f64, |m, &v| m.max(f64::from(v).abs())) {
            0.0 => 1.0,
            absmax => (absmax / top) as f32,
        })
        .collect();
    let q = HostTensor::from_fn([rows, cols], |ix| {
        T::from_f64(f64::from(x[ix[0] * cols + ix[1]]) / f64::from(scales[ix[0]]))
    })?;
    Ok((q, HostTensor::new([rows], scales)?))
}

/// The quantized kernels' launch: A (M x K) and W (N x K) in `T`, their scales, C in bf16.
type Launch<T> = fn(
    &Device,
    &DeviceTensor<T>,
    &DeviceTensor<T>,
    &DeviceTensor<f32>,
    &DeviceTensor<f32>,
    &mut DeviceTensor<bf16>,
) -> Result<()>;
/// The same in the interpreter.
type Interpret<T> =
    fn(&HostTensor<T>, &HostTensor<T>, &HostTensor<f32>, &HostTensor<f32>, &mut HostTensor<bf16>) -> Result<()>;

/// C = diag(sa) (A W^T) diag(sw) for N(0,1) data quantized per row (A) and per output channel
/// (W), against the f64 product of the dequantized values; also prints how far the quantized
/// product is from the unquantized one (the cost of 8 bits, not an error of the kernel).
fn run_quantized<T: Element>(
    name: &str,
    gpu: Option<&Device>,
    top: f64,
    launch: Launch<T>,
    interpret: Interpret<T>,
) -> Result<f64> {
    let (m, n, k) = shape(gpu);
    let (x, y) = (randn::<f32>([m, k], 3)?, randn::<f32>([n, k], 4)?);
    let (a, sa) = quantize::<T>(x.data(), k, top)?;
    let (w, sw) = quantize::<T>(y.data(), k, top)?;
    let mut c = HostTensor::<bf16>::zeros([m, n])?;
    match gpu {
        Some(dev) => {
            let (da, dw) = (DeviceTensor::from_host(dev, &a)?, DeviceTensor::from_host(dev, &w)?);
            let (dsa, dsw) = (DeviceTensor::from_host(dev, &sa)?, DeviceTensor::from_host(dev, &sw)?);
            let mut dc = DeviceTensor::<bf16>::zeros(dev, [m, n])?;
            launch(dev, &da, &dw, &dsa, &dsw, &mut dc)?;
            c = dc.to_host()?;
            let unit = if T::DTYPE == "i8" { "TOP/s" } else { "TFLOP/s" };
            rate(name, unit, dev, 2 * m * n * k, || launch(dev, &da, &dw, &dsa, &dsw, &mut dc))?;
        }
        None => interpret(&a, &w, &sa, &sw, &mut c)?,
    }
    let (mut err, mut quantization) = (0.0f64, 0.0f64);
    for i in (0..m).step_by(61) {
        for j in (0..n).step_by(37) {
            let scale = |s: &HostTensor<f32>, r: usize| f64::from(s.data()[r]);
            let (a_row, w_row) = (&a.data()[i * k..(i + 1) * k], &w.data()[j * k..(j + 1) * k]);
            let dot: f64 = a_row.iter().zip(w_row).map(|(p, q)| p.to_f64() * q.to_f64()).sum();
            let want = scale(&sa, i) * scale(&sw, j) * dot;
            let ideal: f64 = (0..k).map(|p| f64::from(x.data()[i * k + p]) * f64::from(y.data()[j * k + p])).sum();
            let (got, norm) = (c.data()[i * n + j].to_f64(), want.abs() + (k as f64).sqrt());
            err = err.max((got - want).abs() / norm);
            quantization = quantization.max((got - ideal).abs() / norm);
        }
    }
    println!(
        "{name}: C = diag(sa) (A W^T) diag(sw), {m} x {n} x {k}: max relative error {err:.2e} \
         (against the unquantized product: {quantization:.2e})"
    );
    Ok(err)
}

fn main() -> Result<()> {
    // `TESSEL_DUMP_PTX=dir` writes the kernels' PTX there (for cuobjdump -sass, ptxas -v).
    if let Ok(dir) = std::env::var("TESSEL_DUMP_PTX") {
        for &(name, ptx) in kernels::ALL_PTX.iter().chain(quantized::ALL_PTX) {
            // An instance's name as a file name: `matmul::<bf16, 256, 4, 128, 1>` is
            // `matmul-bf16-256-4-128-1.ptx`.
            let parts: Vec<&str> = name.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
            let file =
                format!("{dir}/{}.ptx", parts.into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().join("-"));
            if let Err(e) = std::fs::write(&file, ptx) {
                eprintln!("could not write {file}: {e}");
            }
        }
    }
    let dev = if Device::is_available() { Some(Device::new(0)?) } else { None };
    match &dev {
        Some(d) => println!("running on {}", d.name()),
        None => println!("no NVIDIA GPU found: running in tessel's CPU interpreter"),
    }
    let e1 = run::<bf16>("bf16", dev.as_ref(), kernels::matmul_bf16_any, kernels::interpret_bf16_any)?;
    let e2 = run::<f16>("f16", dev.as_ref(), kernels::matmul_f16_any, kernels::interpret_f16_any)?;
    let e3 =
        run_quantized::<F8E4M3>("fp8", dev.as_ref(), 448.0, quantized::fp8_matmul, quantized::interpret_fp8_matmul)?;
    let e4 = run_quantized::<i8>("int8", dev.as_ref(), 127.0, quantized::i8_matmul, quantized::interpret_i8_matmul)?;
    if [e1, e2, e3, e4].into_iter().any(|e| e > 1e-2) {
        eprintln!("FAILED: results do not match the reference");
        std::process::exit(1);
    }
    println!("results checked: OK");
    Ok(())
}
