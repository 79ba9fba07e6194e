//! attention_train: one training step's attention, forward and backward, with grouped-query heads
//! (bf16 and f16, head dimensions 64 and 128, with and without the causal mask): the training
//! forward of `kernels/src/attention.rs` (O and each row's log-sum-exp), then dQ, dK and dV from
//! `kernels/src/attention_backward.rs`, checked against an f64 reference, and on a tiny problem
//! against finite differences of the loss.
//!
//! ```text
//! cargo run --release -p tessel-kernels --example attention_train
//! ```
//! With a GPU it runs 8 query heads over 2 K/V heads of 1024 queries and keys on it, and times the
//! bf16 backward on 16 heads of 4096; without one, 4 query heads over 2 K/V heads of 200 in the
//! CPU interpreter.

use tessel_kernels::{attention, attention_backward as backward};
#[path = "support/attention_ref.rs"]
#[allow(dead_code)]
mod inputs;
#[path = "support/attention_grad_ref.rs"]
mod reference;

use backward::Backward;
use reference::Problem;
use tessel::prelude::*;
use tessel::{Element, Result};

/// Gradients within 1e-2 of the reference, relative to each row's largest value.
const TOLERANCE: f64 = 1e-2;

/// The shapes of one run: query heads, K/V heads, queries (= keys), head dimension.
#[derive(Clone, Copy)]
struct Shape {
    heads: usize,
    kv_heads: usize,
    s: usize,
    d: usize,
}

/// The training forward on the GPU or in the interpreter: `attention_train_bf16` or
/// `attention_train_f16`, which also store each row's log-sum-exp.
struct Forward<T: Element> {
    launch: attention::TrainLaunch<T>,
    interpret: attention::TrainInterpret<T>,
}

/// Forward and backward of one problem; returns the largest relative error of dQ, dK and dV.
fn step<T: Backward>(fwd: &Forward<T>, shape: Shape, causal: bool, gpu: Option<&Device>) -> Result<f64> {
    let Shape { heads, kv_heads, s, d } = shape;
    let make = |h: usize, seed| HostTensor::<T>::new([h, s, d], inputs::randn(h * s * d, seed));
    let (q, k, v, d_o) = (make(heads, 21)?, make(kv_heads, 22)?, make(kv_heads, 23)?, make(heads, 24)?);
    let scale = 1.0 / (d as f32).sqrt();
    let problem = Problem::new([&q, &k, &v, &d_o], scale as f64, causal);
    let mut reference = problem.forward();
    let mut o = HostTensor::<T>::zeros([heads, s, d])?;
    let mut lse = HostTensor::<f32>::zeros([heads, s])?;
    let (mut dq, mut dk, mut dv) =
        (HostTensor::zeros([heads, s, d])?, HostTensor::zeros([kv_heads, s, d])?, HostTensor::zeros([kv_heads, s, d])?);
    match gpu {
        Some(dev) => {
            let up = |x: &HostTensor<T>| DeviceTensor::from_host(dev, x);
            let (q_g, k_g, v_g, do_g) = (up(&q)?, up(&k)?, up(&v)?, up(&d_o)?);
            let mut o_g = DeviceTensor::zeros(dev, [heads, s, d])?;
            let mut lse_g = DeviceTensor::zeros(dev, [heads, s])?;
            (fwd.launch)(dev, &q_g, &k_g, &v_g, &mut o_g, &mut lse_g, scale, causal)?;
            let (mut dq_g, mut dk_g, mut dv_g) = (up(&dq)?, up(&dk)?, up(&dv)?);
            backward::launch(
                dev, &q_g, &k_g, &v_g, &o_g, &do_g, &lse_g, &mut dq_g, &mut dk_g, &mut dv_g, scale, causal,
            )?;
            (o, lse) = (o_g.to_host()?, lse_g.to_host()?);
            (dq, dk, dv) = (dq_g.to_host()?, dk_g.to_host()?, dv_g.to_host()?);
        }
        None => {
            (fwd.interpret)(&q, &k, &v, &mut o, &mut lse, scale, causal)?;
            backward::interpret(&q, &k, &v, &o, &d_o, &lse, &mut dq, &mut dk, &mut dv, scale, causal)?;
        }
    }
    // The forward's lse against the reference's (absolute: it is a log), then the reference's
    // delta from the O the backward was given (see `take_o`).
    let lse_err = lse.data().iter().zip(&reference.lse).fold(0.0f64, |m, (a, b)| m.max((*a as f64 - b).abs()));
    if lse_err > 1e-3 {
        eprintln!("the forward's lse is {lse_err:.1e} from the reference's");
        return Ok(f64::INFINITY);
    }
    reference::take_o(&problem, &mut reference, &o);
    let err = reference::max_rel_err(&problem, &reference, [&dq, &dk, &dv], 128);
    let worst = err.iter().cloned().fold(0.0, f64::max);
    println!(
        "{} d = {d}{}: {heads} query heads over {kv_heads} K/V heads, {s} x {s}: relative errors dQ {:.1e} dK {:.1e} dV {:.1e}",
        T::DTYPE,
        if causal { " causal" } else { "" },
        err[0],
        err[1],
        err[2]
    );
    Ok(worst)
}

/// The backward of a tiny problem in the interpreter against central differences of the f64 loss
/// sum(dO o O) (its lse and O from the reference).
fn finite_differences(causal: bool) -> Result<f64> {
    let (heads, kv_heads, s, d) = (2, 1, 9, 64);
    let make = |h: usize, seed| HostTensor::<f16>::new([h, s, d], inputs::randn(h * s * d, seed));
    let (q, k, v, d_o) = (make(heads, 31)?, make(kv_heads, 32)?, make(kv_heads, 33)?, make(heads, 34)?);
    let problem = Problem::new([&q, &k, &v, &d_o], 0.125, causal);
    let (o, lse) = reference::saved::<f16>(&problem, &mut problem.forward())?;
    let (mut dq, mut dk, mut dv) =
        (HostTensor::zeros([heads, s, d])?, HostTensor::zeros([kv_heads, s, d])?, HostTensor::zeros([kv_heads, s, d])?);
    backward::interpret(&q, &k, &v, &o, &d_o, &lse, &mut dq, &mut dk, &mut dv, 0.125, causal)?;
    let err = reference::finite_difference_err(&problem, [&dq, &dk, &dv], &[0, 100, 333, 575, 1000]);
    println!("finite differences (f16, causal {causal}, 2 x 9 x 64): largest relative difference {err:.1e}");
    Ok(err)
}

/// A rough rate of the backward on the GPU: 16 heads of 4096 queries and keys, D = 128, the
/// wall clock over 10 launches (FlashAttention's count: 2.5 times the forward's 4 H S T D
/// flops, half of them with the causal mask).
fn time_backward<T: Backward>(dev: &Device, causal: bool) -> Result<()> {
    let (heads, s, d) = (16, 4096, 128);
    let make =
        |seed| DeviceTensor::from_host(dev, &HostTensor::<T>::new([heads, s, d], inputs::randn(heads * s * d, seed))?);
    let (q, k, v, o, d_o) = (make(41)?, make(42)?, make(43)?, make(44)?, make(45)?);
    // Any finite lse serves for timing: the gradients are not checked here.
    let lse = DeviceTensor::from_host(dev, &HostTensor::from_fn([heads, s], |_| 12.0f32)?)?;
    let (mut dq, mut dk, mut dv) = (make(0)?, make(0)?, make(0)?);
    let scale = 1.0 / (d as f32).sqrt();
    let mut run = || backward::launch(dev, &q, &k, &v, &o, &d_o, &lse, &mut dq, &mut dk, &mut dv, scale, causal);
    run()?;
    dev.synchronize()?;
    let start = std::time::Instant::now();
    for _ in 0..10 {
        run()?;
    }
    dev.synchronize()?;
    let secs = start.elapsed().as_secs_f64() / 10.0;
    let flops = 10.0 * (heads * s * s * d) as f64 / if causal { 2.0 } else { 1.0 };
    println!(
        "{} backward, {heads} x {s} x {s}, d = {d}{}: {:.0} TFLOP/s (wall clock, 10 launches)",
        T::DTYPE,
        if causal { ", causal" } else { "" },
        flops / secs / 1e12
    );
    Ok(())
}

fn main() -> Result<()> {
    let dev = if Device::is_available() { Some(Device::new(0)?) } else { None };
    match &dev {
        Some(d) => println!("running on {}", d.name()),
        None => println!("no NVIDIA GPU found: running in tessel's CPU interpreter"),
    }
    let gpu = dev.as_ref();
    let sized = |d| match gpu {
        Some(_) => Shape { heads: 8, kv_heads: 2, s: 1024, d },
        None => Shape { heads: 4, kv_heads: 2, s: 200, d },
    };
    let bf16 = Forward::<bf16> { launch: attention::attention_train_bf16, interpret: attention::interpret_train_bf16 };
    let f16 = Forward::<f16> { launch: attention::attention_train_f16, interpret: attention::interpret_train_f16 };
    let mut worst = 0.0f64;
    for causal in [false, true] {
        worst = worst.max(step(&bf16, sized(64), causal, gpu)?);
        worst = worst.max(step(&bf16, sized(128), causal, gpu)?);
        worst = worst.max(step(&f16, sized(64), causal, gpu)?);
        worst = worst.max(step(&f16, sized(128), causal, gpu)?);
        worst = worst.max(finite_differences(causal)?);
    }
    if let Some(dev) = gpu {
        for causal in [false, true] {
            time_backward::<bf16>(dev, causal)?;
        }
    }
    if worst > TOLERANCE {
        eprintln!("the largest relative error, {worst:.2e}, is over {TOLERANCE:.0e}");
        std::process::exit(1);
    }
    println!("every gradient within {TOLERANCE:.0e} of the reference");
    Ok(())
}
