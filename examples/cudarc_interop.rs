//! cudarc_interop: a tessel kernel launched on buffers and a stream that the program's own cudarc
//! code made, one of its inputs and its output a view of part of a buffer, and the result read back
//! with cudarc.
//!
//! ```text
//! cargo run --release --example cudarc_interop
//! ```
//!
//! The program keeps a batch of two matrices in one cudarc buffer and multiplies only the second,
//! writing the second half of another buffer. Without a Hopper GPU it says so and runs the same
//! kernel on that matrix in tessel's CPU interpreter instead (cudarc itself needs the driver).

use std::sync::Arc;

use tessel::cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use tessel::prelude::*;

/// C = A @ B for bf16 A [M, K] and B [K, N] with f32 accumulation, one 64 x 64 tile of C per
/// program (as in the quickstart example).
#[kernel(grid = (M / 64, N / 64))]
fn matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
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
            c.tile([i, j]).store(acc.load());
        },
    );
}

/// Two matrices in the batch, each A [ROWS, DEPTH] @ B [DEPTH, COLS].
const BATCH: usize = 2;
const ROWS: usize = 128;
const DEPTH: usize = 256;
const COLS: usize = 192;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The batch of A matrices, [BATCH, ROWS, DEPTH] row-major, and B [DEPTH, COLS]: small
    // integers, exact in bf16.
    let a: Vec<bf16> = (0..BATCH * ROWS * DEPTH).map(|i| bf16::from_f32((i * 7 % 11) as f32 - 5.0)).collect();
    let b: Vec<bf16> = (0..DEPTH * COLS).map(|i| bf16::from_f32((i * 5 % 13) as f32 - 6.0)).collect();
    let second = ROWS * DEPTH..2 * ROWS * DEPTH;

    let (c, ran_on) = if Device::is_available() {
        (on_the_gpu(&a, &b)?, "the GPU, on the program's own cudarc stream")
    } else {
        println!(
            "No Hopper (sm_90) GPU with an NVIDIA driver was found, and cudarc needs one: running the \
             kernel in tessel's CPU interpreter instead."
        );
        let a1 = HostTensor::new([ROWS, DEPTH], a[second.clone()].to_vec())?;
        let mut c1 = HostTensor::<f32>::zeros([ROWS, COLS])?;
        matmul::interpret(&a1, &HostTensor::new([DEPTH, COLS], b.clone())?, &mut c1)?;
        (c1.into_data(), "the CPU (interpreter)")
    };

    let want = reference(&a[second], &b);
    let exact = c.len() == want.len() && c.iter().zip(&want).all(|(x, y)| x == y);
    println!("C[1] = A[1] @ B with M = {ROWS}, K = {DEPTH}, N = {COLS} ran on {ran_on}.");
    if !exact {
        eprintln!("FAILED: the result does not match the reference");
        std::process::exit(1);
    }
    println!("result checked: exact");
    Ok(())
}

/// What a program that already uses cudarc does: its own context, stream and buffers; tessel only
/// wraps the stream and borrows the buffers. Returns the second matrix of C, read back by cudarc.
fn on_the_gpu(a: &[bf16], b: &[bf16]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let context: Arc<CudaContext> = CudaContext::new(0)?;
    let stream: Arc<CudaStream> = context.new_stream()?;
    let a_batch: CudaSlice<bf16> = stream.clone_htod(a)?;
    let b_buf: CudaSlice<bf16> = stream.clone_htod(b)?;
    let mut c_batch: CudaSlice<f32> = stream.alloc_zeros(BATCH * ROWS * COLS)?;

    // Launches on a `Device` made from the stream run on that stream, in order with cudarc's work.
    let device = Device::from_stream(Arc::clone(&stream))?;
    // B, wrapped whole as a tensor (it is handed back below); A[1] and C[1], views of part of a
    // buffer: borrowed, with a shape, and checked against the buffer.
    let b_tensor = DeviceTensor::from_slice(b_buf, [DEPTH, COLS])?;
    let a1 = DeviceView::new(&a_batch, ROWS * DEPTH..2 * ROWS * DEPTH, [ROWS, DEPTH])?;
    let mut c1 = DeviceViewMut::new(&mut c_batch, ROWS * COLS..2 * ROWS * COLS, [ROWS, COLS])?;
    matmul::launch(&device, &a1, &b_tensor, &mut c1)?;
    drop(c1);

    // Back to cudarc: the buffer behind the tensor, and the result copied out by cudarc.
    let _b_buf: CudaSlice<bf16> = b_tensor.into_slice();
    let c_host: Vec<f32> = stream.clone_dtoh(&c_batch)?; // waits for the stream
    let (c0, c1) = c_host.split_at(ROWS * COLS);
    if c0.iter().any(|&x| x != 0.0) {
        return Err("the launch wrote outside the view C[1]".into());
    }
    Ok(c1.to_vec())
}

/// A @ B in f64 (exact here: small integers, sums far below 2^24).
fn reference(a: &[bf16], b: &[bf16]) -> Vec<f32> {
    let mut c = vec![0.0f32; ROWS * COLS];
    for i in 0..ROWS {
        for j in 0..COLS {
            let dot: f64 = (0..DEPTH).map(|p| a[i * DEPTH + p].to_f64() * b[p * COLS + j].to_f64()).sum();
            c[i * COLS + j] = dot as f32;
        }
    }
    c
}
