//! An error in one instance only: a tile width legal for `BN = 64` and not for `BN = 60` (A6).
//! The error points at the use of `BN` and names the instance; the calls of the rejected kernel's
//! instances add no errors of their own.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / BN), instances((bf16, 64), (bf16, 60)))]
fn matmul<T, const BN: usize>(a: Gmem<T, M, K>, c: GmemMut<f32, M, N>) {
    run_scoped(|acc: Acc<f32, 64, BN>| {
        c.tile([program_id(0), program_id(1)]).store(acc.load());
    });
}

fn main() -> tessel::Result<()> {
    let a = HostTensor::<bf16>::zeros([64, 64])?;
    let mut c = HostTensor::<f32>::zeros([64, 64])?;
    matmul::<bf16, 64>::interpret(&a, &mut c)?;
    let _ = (matmul::<bf16, 60>::PTX, matmul::<bf16, 60>::check_args(&[64, 64], &[64, 64]));
    Ok(())
}
