//! Kernels of several devices (`devices = W`): `#[peers]` parameters, `device_id()`,
//! `device_count()`, `remote(..)` views as TMA sources and destinations (reducing too), register
//! loads, stores and atomic adds into peers' memory, and semaphores between devices; a generic
//! kernel over the group's size, and a kernel function that takes a peers array.

use tessel::prelude::*;

// All-gather around a ring by TMA stores into the next device's `out`, each complete before the
// signal that publishes it; the group's size is a const parameter.
#[kernel(grid = (M / 64), devices = W, instances(2, 4, 8))]
fn ring_all_gather<const W: usize>(
    x: Gmem<bf16, M, 64>,
    #[peers] out: GmemMut<bf16, S, 64>,
    #[peers] ready: GmemMut<u32, T>,
) {
    let (i, me) = (program_id(0), device_id());
    let (next, tiles) = ((me + 1) % W, num_programs(0));
    run_scoped(|t: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), t, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(t, out.tile([me * tiles + i, 0]));
        copy_smem_to_gmem(t, remote(out, next).tile([me * tiles + i, 0]));
        wait_smem_to_gmem(0, complete = true);
        semaphore_signal(remote(ready, next), i);
        for step in 1..W - 1 {
            let from = (me + W - step) % W;
            semaphore_wait(ready, i);
            copy_gmem_to_smem(out.tile([from * tiles + i, 0]), t, bar);
            barrier_wait(bar);
            copy_smem_to_gmem(t, remote(out, next).tile([from * tiles + i, 0]));
            wait_smem_to_gmem(0, complete = true);
            semaphore_signal(remote(ready, next), i);
        }
        semaphore_wait(ready, i);
        wait_smem_to_gmem(0);
    });
}

// Reduce-scatter into the owner's `y` by reducing TMA stores and by register atomic adds, one
// release for every peer's counter (a range), and a pull of the next device's row block by
// TMA load and register load.
#[kernel(grid = (M / 64), devices = 4)]
fn scatter_add(
    x: Gmem<f32, S, 64>,
    #[peers] y: GmemMut<f32, M, 64>,
    #[peers] z: GmemMut<f32, M, 64>,
    #[peers] done: GmemMut<u32, 4>,
    w: GmemMut<f32, M, 64>,
) {
    let (i, me, tiles) = (program_id(0), device_id(), num_programs(0));
    run_scoped(|t: Smem<f32, 64, 64>, u: Smem<f32, 64, 64>, bar: Barrier| {
        #[unroll]
        for d in 0..device_count() {
            copy_gmem_to_smem(x.tile([d * tiles + i, 0]), t, bar);
            barrier_wait(bar);
            copy_smem_to_gmem(t, remote(y, d).tile([i, 0]), reduce = Reduce::Add);
            remote(z, d).tile([i, 0], [64, 64]).atomic_add(t.load(Layout::Strided));
            wait_smem_to_gmem(0, complete = true);
        }
        semaphore_signal(remote(done, (me + 1) % 4), 0..4);
        semaphore_wait(done, me, device_count());
        let next = (me + 1) % device_count();
        copy_gmem_to_smem(remote(y, next).tile([i, 0]), u, bar);
        barrier_wait(bar);
        let pulled = u.load(Layout::Strided) + remote(z, next).tile([i, 0], [64, 64]).load(Layout::Strided);
        w.tile([i, 0], [64, 64]).store(pulled);
    });
}

#[kernels]
mod exchange {
    use tessel::prelude::*;

    /// Stores `v` into device `to`'s tile `i` of `buf`, and publishes it.
    fn send(buf: GmemMut<f32, M, 64>, sems: GmemMut<u32, T>, to: i32, i: i32, v: Regs<f32, 64, 64, Layout::Strided>) {
        remote(buf, to).tile([i, 0], [64, 64]).store(v);
        semaphore_signal(remote(sems, to), i);
    }

    #[kernel(grid = (M / 64), devices = 2)]
    fn swap(x: Gmem<f32, M, 64>, #[peers] buf: GmemMut<f32, M, 64>, #[peers] sems: GmemMut<u32, T>) {
        let i = program_id(0);
        send(buf, sems, 1 - device_id(), i, x.tile([i, 0], [64, 64]).load(Layout::Strided));
        semaphore_wait(sems, i);
    }
}

fn main() {}
