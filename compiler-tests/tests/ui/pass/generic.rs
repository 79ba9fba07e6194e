//! Generic kernels: one kernel for several dtypes and tile widths. Every instance `instances(..)`
//! lists is checked and compiled when the crate builds; calls name the instance with a turbofish.
//! A type parameter stands for a dtype wherever one may appear (parameters, buffers, turbofish
//! operations), a const parameter for an integer wherever one may (shapes, the grid, consts,
//! expressions, `#[unroll]` bounds).

use tessel::prelude::*;

/// C = A @ B over `T` operands, accumulated in f32: a 64 x BN tile of C per program.
#[kernel(grid = (M / 64, N / BN), consts(BK = 64), instances((bf16, 128), (f16, 64), (bf16, 64)))]
fn matmul<T, const BN: usize>(a: Gmem<T, M, K>, b: Gmem<T, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, BN>,
         a_s: Smem<T, 64, BK, Swizzle128>,
         b_s: Smem<T, BK, BN, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / BK {
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

/// y = x * s + 1 in `T`, through f32 (`.cast::<T>()`, `splat::<T>`), one W-wide strip per
/// program, in W / 64 unrolled column blocks.
#[kernel(grid = (M / 64, N / W), instances((bf16, 128), (f32, 64), (f16, 192)))]
fn scale_shift<T, const W: usize>(x: Gmem<T, M, N>, y: GmemMut<T, M, N>, s: f32) {
    let (i, j) = (program_id(0), program_id(1));
    #[unroll]
    for q in 0..W / 64 {
        let v = x.tile([i, j * (W / 64) + q], [64, 64]).load(Layout::Wgmma).cast::<f32>();
        let one = splat::<T>(1.0, [64, 64]).cast::<f32>();
        y.tile([i, j * (W / 64) + q], [64, 64]).store((v * s + one).cast::<T>());
    }
}

/// A kernel generic in a dtype alone: `instances(..)` then lists bare dtypes.
#[kernel(grid = (M / 64), instances(bf16, f16, f8e4m3))]
pub fn copy_rows<T>(x: Gmem<T, M, 64>, y: GmemMut<T, M, 64>) {
    let i = program_id(0);
    y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

/// A generic kernel in a function body.
fn local_kernel() -> tessel::Result<()> {
    #[kernel(grid = (M / 64), instances(f32, i32))]
    fn negate<T>(x: Gmem<T, M, 64>, y: GmemMut<T, M, 64>) {
        let i = program_id(0);
        y.tile([i, 0], [64, 64]).store(-x.tile([i, 0], [64, 64]).load(Layout::Strided));
    }
    let x = HostTensor::from_fn([64, 64], |ix| ix[1] as i32 - 7)?;
    let mut y = HostTensor::<i32>::zeros([64, 64])?;
    negate::<i32>::interpret(&x, &mut y)?;
    assert_eq!(y.get(&[0, 10]), Some(-3));
    Ok(())
}

fn main() -> tessel::Result<()> {
    local_kernel()?;
    let (m, k, n) = (64, 64, 128);
    let a = HostTensor::from_fn([m, k], |ix| bf16::from_f32(((ix[0] + 3 * ix[1]) % 7) as f32 - 3.0))?;
    let b = HostTensor::from_fn([k, n], |ix| bf16::from_f32(((2 * ix[0] + ix[1]) % 5) as f32 - 2.0))?;
    let mut c = HostTensor::<f32>::zeros([m, n])?;
    if Device::is_available() {
        let device = Device::new(0)?;
        let (a_gpu, b_gpu) = (DeviceTensor::from_host(&device, &a)?, DeviceTensor::from_host(&device, &b)?);
        let mut c_gpu = DeviceTensor::zeros(&device, [m, n])?;
        matmul::<bf16, 128>::launch(&device, &a_gpu, &b_gpu, &mut c_gpu)?;
        c = c_gpu.to_host()?;
    } else {
        matmul::<bf16, 128>::interpret(&a, &b, &mut c)?;
    }
    let dot: f32 = (0..k).map(|t| a.get(&[5, t]).unwrap().to_f32() * b.get(&[t, 7]).unwrap().to_f32()).sum();
    assert_eq!(c.get(&[5, 7]), Some(dot));

    // The other items, per instance.
    let plan = matmul::<f16, 64>::check_args(&[m, k], &[k, n], &[m, n])?;
    assert_eq!(plan.dims, [m as i32, k as i32, n as i32]);
    assert!(matmul::<bf16, 64>::PTX.contains(".entry matmul"));
    assert_ne!(matmul::<bf16, 64>::PTX, matmul::<bf16, 128>::PTX);
    assert_eq!(matmul::<f16, 64>::ENTRY, "matmul");
    assert!(matmul::<f16, 64>::SIGNATURE.smem_bytes < matmul::<bf16, 128>::SIGNATURE.smem_bytes);

    let x = HostTensor::from_fn([64, 128], |ix| f32::from((ix[0] * 3 + ix[1]) as u8 % 9))?;
    let mut y = HostTensor::<f32>::zeros([64, 128])?;
    scale_shift::<f32, 64>::interpret(&x, &mut y, 0.5)?;
    assert_eq!(y.get(&[3, 100]), Some(x.get(&[3, 100]).unwrap() * 0.5 + 1.0));

    let fp8 = HostTensor::<f8e4m3>::zeros([128, 64])?;
    let mut copied = HostTensor::<f8e4m3>::zeros([128, 64])?;
    copy_rows::<f8e4m3>::interpret(&fp8, &mut copied)?;
    Ok(())
}
