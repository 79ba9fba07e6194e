//! quickstart: a bf16 GEMM written in tessel, run on the GPU when there is one and in the CPU
//! interpreter otherwise, and checked against a reference.
//!
//! ```text
//! cargo run --release --example quickstart
//! ```

use tessel::prelude::*;

/// C = A @ B for bf16 A [M, K] and B [K, N] with f32 accumulation: each program computes one 64 x 64
/// tile of C with one warpgroup, streaming 64-wide slices of K through shared memory with TMA.
#[kernel(grid = (M / 64, N / 64))]
fn matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar); // TMA: one arrival on `bar`
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar); // the second arrival
                barrier_wait(bar); // both tiles have landed
                wgmma(acc, a_s, b_s); // acc += a_s @ b_s on the tensor cores
                wgmma_wait(0); // a_s and b_s may be overwritten after this
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() -> tessel::Result<()> {
    let (m, n, k) = (256, 256, 512);
    // Deterministic inputs with a spread of values: a small LCG mapped to [-2, 2).
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
    };
    let a = HostTensor::from_fn([m, k], |_| bf16::from_f32(next()))?;
    let b = HostTensor::from_fn([k, n], |_| bf16::from_f32(next()))?;
    let mut c = HostTensor::<f32>::zeros([m, n])?;

    let ran_on = if Device::is_available() {
        let dev = Device::new(0)?;
        let (da, db) = (DeviceTensor::from_host(&dev, &a)?, DeviceTensor::from_host(&dev, &b)?);
        let mut dc = DeviceTensor::<f32>::zeros(&dev, [m, n])?;
        matmul::launch(&dev, &da, &db, &mut dc)?;
        c = dc.to_host()?;
        format!("the GPU ({})", dev.name())
    } else {
        println!("No NVIDIA GPU with a driver was found: running the same kernel in tessel's CPU interpreter.");
        matmul::interpret(&a, &b, &mut c)?;
        "the CPU (interpreter)".to_string()
    };

    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k).map(|p| a.data()[i * k + p].to_f64() * b.data()[p * n + j].to_f64()).sum();
            worst = worst.max((c.data()[i * n + j] as f64 - want).abs() / want.abs().max(1.0));
        }
    }
    println!("C = A @ B with M = {m}, N = {n}, K = {k} (bf16 in, f32 out) ran on {ran_on}.");
    println!("max relative error vs an f64 reference: {worst:.2e}");
    if worst > 1e-4 {
        eprintln!("FAILED: the result does not match the reference");
        std::process::exit(1);
    }
    println!("result checked: OK");
    Ok(())
}
