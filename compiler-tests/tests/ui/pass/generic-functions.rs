//! Generic kernel functions (`load::<T, 2>(..)`), and code, allocations and flags that only some
//! instances of a generic kernel have: `if` on a condition known when the kernel is read,
//! `#[when(..)]` on an allocation, `multicast = MULTICAST == 1`, `cluster = (CLUSTER,)`.

use tessel::prelude::*;

#[kernels]
mod gemm {
    use tessel::prelude::*;

    /// A step of the producer: A's 64 x 64 slice and B's 64 x BN one, B's multicast with
    /// MULTICAST = 1.
    fn load<T, const MULTICAST: usize>(
        a: Gmem<T, M, K>,
        b: Gmem<T, K, N>,
        a_s: Smem<T, 64, 64, Swizzle128>,
        b_s: Smem<T, 64, _, Swizzle128>,
        bar: Barrier<_>,
        i: i32,
        j: i32,
        k: i32,
    ) {
        copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
        copy_gmem_to_smem(b.tile([k, j]), b_s, bar, multicast = MULTICAST == 1);
    }

    /// C = A @ B in 64 x BN tiles; with CLUSTER = 2, the two programs of a cluster share B's
    /// slices (each loads half and multicasts it) and store their tiles through a buffer.
    #[kernel(grid = (M / 64, N / BN), cluster = (CLUSTER,), consts(BK = 64),
             instances((bf16, 128, 1), (f16, 64, 2)))]
    pub fn matmul<T, const BN: usize, const CLUSTER: usize>(a: Gmem<T, M, K>, b: Gmem<T, K, N>, c: GmemMut<f32, M, N>) {
        let (i, j) = (program_id(0), program_id(1));
        run_scoped(
            |acc: Acc<f32, 64, BN>,
             a_s: Smem<T, 64, BK, Swizzle128>,
             b_s: Smem<T, BK, BN, Swizzle128>,
             bar: Barrier<2>,
             #[when(CLUSTER > 1)] c_s: Smem<f32, 64, BN>| {
                for k in 0..K / BK {
                    load::<T, { CLUSTER - 1 }>(a, b, a_s, b_s, bar, i, j, k);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s);
                    wgmma_wait(0);
                }
                // `cluster_rank()` only where there are clusters.
                let rank = if CLUSTER > 1 { cluster_rank() } else { 0 };
                if CLUSTER > 1 {
                    c_s.store((acc.load() + (rank as f32) * 0.0).to_layout(Layout::Strided));
                    commit_smem();
                    copy_smem_to_gmem(c_s, c.tile([i, j]));
                } else {
                    c.tile([i, j]).store(acc.load());
                }
            },
        );
    }
}

fn main() -> tessel::Result<()> {
    let (m, k, n) = (64, 128, 128);
    let a = HostTensor::from_fn([m, k], |ix| bf16::from_f32(((ix[0] + 3 * ix[1]) % 7) as f32 - 3.0))?;
    let b = HostTensor::from_fn([k, n], |ix| bf16::from_f32(((2 * ix[0] + ix[1]) % 5) as f32 - 2.0))?;
    let mut c = HostTensor::<f32>::zeros([m, n])?;
    gemm::matmul::<bf16, 128, 1>::interpret(&a, &b, &mut c)?;
    let dot: f32 = (0..k).map(|t| a.get(&[5, t]).unwrap().to_f32() * b.get(&[t, 7]).unwrap().to_f32()).sum();
    assert_eq!(c.get(&[5, 7]), Some(dot));
    assert!(gemm::matmul::<f16, 64, 2>::PTX.contains("multicast::cluster"));
    assert!(!gemm::matmul::<bf16, 128, 1>::PTX.contains("multicast::cluster"));
    assert_eq!(gemm::ALL_PTX.len(), 2);
    assert_eq!(gemm::ALL_PTX[1].0, "matmul::<f16, 64, 2>");
    Ok(())
}
