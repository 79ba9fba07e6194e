//! attention: the flash attention forward pass of `kernels/src/attention.rs` (bf16 and f16,
//! head dimensions 64 and 128, with and without a causal mask), run and checked against an f64
//! reference on sampled rows.
//!
//! ```text
//! cargo run --release -p tessel-kernels --example attention
//! ```
//! With a GPU it runs 32 heads of 4096 queries over 4096 keys on it; without one it runs 2 heads
//! of 256 queries over 384 keys in the CPU interpreter.

use tessel_kernels::attention as kernels;
#[path = "support/attention_ref.rs"]
#[allow(dead_code)] // the training forward's lse check is the tests'
mod reference;

use kernels::{Interpret, Launch};
use tessel::prelude::*;
use tessel::{Element, Result};

fn run<T: Element>(
    name: &str,
    (d, causal): (usize, bool),
    gpu: Option<&Device>,
    launch: Launch<T>,
    interpret: Interpret<T>,
) -> Result<f64> {
    let (heads, s, t) = match (gpu.is_some(), causal) {
        (true, _) => (32, 4096, 4096),
        (false, false) => (2, 256, 384),
        (false, true) => (2, 384, 384),
    };
    let name = if causal { format!("{name} causal") } else { name.to_string() };
    let qkv = reference::inputs::<T>(heads, s, t, d)?;
    let [q, k, v] = &qkv;
    let scale = 1.0 / (d as f32).sqrt();
    let mut o = HostTensor::<T>::zeros([heads, s, d])?;
    match gpu {
        Some(dev) => {
            let (dq, dk, dv) =
                (DeviceTensor::from_host(dev, q)?, DeviceTensor::from_host(dev, k)?, DeviceTensor::from_host(dev, v)?);
            let mut dout = DeviceTensor::<T>::zeros(dev, [heads, s, d])?;
            dout.poison(T::from_f64(f64::NAN))?;
            launch(dev, &dq, &dk, &dv, &mut dout, scale, causal)?;
            o = dout.to_host()?;
            // A rough wall-clock rate over 20 launches; bench/examples/bench_attention.rs measures properly.
            let start = std::time::Instant::now();
            for _ in 0..20 {
                launch(dev, &dq, &dk, &dv, &mut dout, scale, causal)?;
            }
            dev.synchronize()?;
            let secs = start.elapsed().as_secs_f64() / 20.0;
            // Two products of 2 * s * t * d flops per head, half of them with a causal mask.
            let flops = 4.0 * (heads * s * t * d) as f64 / if causal { 2.0 } else { 1.0 };
            println!("{name}, d = {d}: {:.0} TFLOP/s (wall clock, 20 launches)", flops / secs / 1e12);
        }
        None => interpret(q, k, v, &mut o, scale, causal)?,
    }
    let err = reference::max_rel_err(&qkv, &o, scale as f64, 256, causal);
    println!("{name}, d = {d}: O = softmax(Q K^T / sqrt(d)) V, {heads} heads, {s} x {t}: max relative error {err:.2e}");
    Ok(err)
}

fn main() -> Result<()> {
    // `TESSEL_DUMP_PTX=dir` writes the forward's and the backward's PTX there (for cuobjdump -sass,
    // ptxas -v), an instance's name as a file name: `attention_bwd_dq_cast::<bf16, 64>` is
    // `attention_bwd_dq_cast-bf16-64.ptx`.
    if let Ok(dir) = std::env::var("TESSEL_DUMP_PTX") {
        for &(name, ptx) in kernels::ALL_PTX.iter().chain(tessel_kernels::attention_backward::ALL_PTX) {
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
    let gpu = dev.as_ref();
    let errors = [
        run::<bf16>("bf16", (64, false), gpu, kernels::attention_bf16, kernels::interpret_bf16)?,
        run::<bf16>("bf16", (128, false), gpu, kernels::attention_bf16, kernels::interpret_bf16)?,
        run::<f16>("f16", (64, false), gpu, kernels::attention_f16, kernels::interpret_f16)?,
        run::<f16>("f16", (128, false), gpu, kernels::attention_f16, kernels::interpret_f16)?,
        run::<bf16>("bf16", (128, true), gpu, kernels::attention_bf16, kernels::interpret_bf16)?,
        run::<f16>("f16", (64, true), gpu, kernels::attention_f16, kernels::interpret_f16)?,
    ];
    // Outputs and the probabilities in P V are rounded to bf16 (relative step 2^-8) or f16 (2^-11).
    if errors.iter().any(|&e| e > 1e-2) {
        eprintln!("FAILED: results do not match the reference");
        std::process::exit(1);
    }
    println!("results checked: OK");
    Ok(())
}
