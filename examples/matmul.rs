//! matmul: the persistent warp-specialized bf16 / f16 GEMM of `examples/kernels/matmul.rs`, run and
//! checked against an f64 reference on sampled elements.
//!
//! ```text
//! cargo run --release --example matmul
//! ```
//! With a GPU it runs 4096 x 4096 x 4096 on it; without one it runs 256 x 512 x 128 in the CPU
//! interpreter.

#[path = "kernels/matmul.rs"]
mod kernels;

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

fn run<T: Element>(
    name: &str,
    gpu: Option<&Device>,
    launch: impl Fn(&Device, &DeviceTensor<T>, &DeviceTensor<T>, &mut DeviceTensor<T>) -> Result<()>,
    interpret: impl Fn(&HostTensor<T>, &HostTensor<T>, &mut HostTensor<T>) -> Result<()>,
) -> Result<f64> {
    let size = std::env::var("MATMUL_SIZE").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
    let (m, n, k) = if gpu.is_some() { (size, size, size) } else { (256, 512, 128) };
    let (a, b) = (randn::<T>([m, k], 1)?, randn::<T>([k, n], 2)?);
    let mut c = HostTensor::<T>::zeros([m, n])?;
    match gpu {
        Some(dev) => {
            let (da, db) = (DeviceTensor::from_host(dev, &a)?, DeviceTensor::from_host(dev, &b)?);
            let mut dc = DeviceTensor::<T>::zeros(dev, [m, n])?;
            launch(dev, &da, &db, &mut dc)?;
            c = dc.to_host()?;
            // A rough wall-clock rate over 20 launches; examples/bench_matmul.rs measures properly.
            let start = std::time::Instant::now();
            for _ in 0..20 {
                launch(dev, &da, &db, &mut dc)?;
            }
            dev.synchronize()?;
            let secs = start.elapsed().as_secs_f64() / 20.0;
            println!("{name}: {:.0} TFLOP/s (wall clock, 20 launches)", 2.0 * (m * n * k) as f64 / secs / 1e12);
        }
        None => interpret(&a, &b, &mut c)?,
    }
    let err = check(&a, &b, &c);
    println!("{name}: C = A @ B, {m} x {n} x {k}: max relative error {err:.2e}");
    Ok(err)
}

fn main() -> Result<()> {
    // `TESSEL_DUMP_PTX=dir` writes the kernels' PTX there (for cuobjdump -sass, ptxas -v).
    if let Ok(dir) = std::env::var("TESSEL_DUMP_PTX") {
        for &(name, ptx) in kernels::ALL_PTX {
            if let Err(e) = std::fs::write(format!("{dir}/{name}.ptx"), ptx) {
                eprintln!("could not write {dir}/{name}.ptx: {e}");
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
    if e1.max(e2) > 1e-2 {
        eprintln!("FAILED: results do not match the reference");
        std::process::exit(1);
    }
    println!("results checked: OK");
    Ok(())
}
