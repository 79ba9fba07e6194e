//! A call of an instance that `instances(..)` does not list: rustc rejects the call, saying how to
//! add the instance (the kernel itself compiles).

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / BN), instances((bf16, 128), (f16, 64)))]
fn matmul<T, const BN: usize>(a: Gmem<T, M, K>, b: Gmem<T, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|acc: Acc<f32, 64, BN>, a_s: Smem<T, 64, 64, Swizzle128>, b_s: Smem<T, 64, BN, Swizzle128>, bar: Barrier<2>| {
        for k in 0..K / 64 {
            copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
            copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
            barrier_wait(bar);
            wgmma(acc, a_s, b_s);
            wgmma_wait(0);
        }
        c.tile([i, j]).store(acc.load());
    });
}

fn main() -> tessel::Result<()> {
    let device = Device::new(0)?;
    let a = DeviceTensor::<f32>::zeros(&device, [64, 64])?;
    let b = DeviceTensor::<f32>::zeros(&device, [64, 64])?;
    let mut c = DeviceTensor::<f32>::zeros(&device, [64, 64])?;
    matmul::<f32, 64>::launch(&device, &a, &b, &mut c)
}
