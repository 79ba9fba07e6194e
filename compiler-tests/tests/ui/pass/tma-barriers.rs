//! TMA loads and stores, barriers (one, and arrays with `.at(s)`), `commit_smem` and
//! `wait_smem_to_gmem`, with elementwise work in between.

use tessel::prelude::*;

// y = alpha * x + beta, through shared memory both ways.
#[kernel(grid = (M / 64, N / 64))]
fn axpb(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, alpha: f32, beta: f32) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, y_s: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
        barrier_wait(bar);
        let v = x_s.load(Layout::Strided) * alpha + beta;
        y_s.store(v);
        commit_smem();
        copy_smem_to_gmem(y_s, y.tile([i, j]));
        wait_smem_to_gmem(0);
    });
}

// Sums two inputs arriving on two barriers of an array; a second array of barriers is signalled by
// hand (`barrier_arrive`) and waited on.
#[kernel(grid = (M / 32, N / 128))]
fn add_two(x: Gmem<bf16, M, N>, z: Gmem<bf16, M, N>, out: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |in_s: Smem<bf16, 2, 32, 128>, out_s: Smem<bf16, 32, 128>, loaded: Barrier<1, 2>, done: Barrier<1, 2>| {
            copy_gmem_to_smem(x.tile([i, j]), in_s.at(0), loaded.at(0));
            copy_gmem_to_smem(z.tile([i, j]), in_s.at(1), loaded.at(1));
            for s in 0..2 {
                barrier_wait(loaded.at(s));
                barrier_arrive(done.at(s));
                barrier_wait(done.at(s));
            }
            let sum = in_s.at(0).load(Layout::Strided) + in_s.at(1).load(Layout::Strided);
            out_s.store(sum);
            commit_smem();
            copy_smem_to_gmem(out_s, out.tile([i, j]));
            wait_smem_to_gmem(0);
        },
    );
}

// A 3-D global array, copied by 3-D boxes, with static dimensions from `consts`.
#[kernel(grid = (B, R / 16), consts(R = 256, C = 64))]
fn copy_3d(x: Gmem<f16, B, R, C>, y: GmemMut<f16, B, R, C>) {
    let (b, r) = (program_id(0), program_id(1));
    run_scoped(|buf: Smem<f16, 1, 16, C, Swizzle128>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([b, r, 0]), buf, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(buf, y.tile([b, r, 0]));
        wait_smem_to_gmem(0);
    });
}

fn main() {}
