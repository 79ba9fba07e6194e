//! Near misses of the synchronization check (`tests/ui/README.md`, S1-S7): kernels a step away
//! from one of its errors, each correct, which must compile. Some are correct in a way the check
//! can prove; others depend on run-time data (a stage index, a branch), where it says nothing.

use tessel::prelude::*;

// S1: the wait for each K step's tiles is at the top of the turn that reads them, after the
// previous turn prefetched them (the last turn prefetches nothing).
#[kernel(grid = (M / 64, N / 64))]
fn wait_at_the_top(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j, steps) = (program_id(0), program_id(1), K / 64);
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            for k in 0..steps {
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
                if k + 1 < steps {
                    copy_gmem_to_smem(a.tile([i, k + 1]), a_s, bar);
                    copy_gmem_to_smem(b.tile([k + 1, j]), b_s, bar);
                }
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

// S1, S3: two stages at a run-time index: the next step's copies go into the other stage, whose
// wgmma has completed, while this step's wait and wgmma use this one.
#[kernel(grid = (M / 64, N / 64))]
fn two_stages(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j, steps) = (program_id(0), program_id(1), K / 64);
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 2, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 2, 64, 64, Swizzle128>,
         bars: Barrier<2, 2>| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s.at(0), bars.at(0));
            copy_gmem_to_smem(b.tile([0, j]), b_s.at(0), bars.at(0));
            for k in 0..steps {
                let s = k % 2;
                if k + 1 < steps {
                    copy_gmem_to_smem(a.tile([i, k + 1]), a_s.at(1 - s), bars.at(1 - s));
                    copy_gmem_to_smem(b.tile([k + 1, j]), b_s.at(1 - s), bars.at(1 - s));
                }
                barrier_wait(bars.at(s));
                wgmma(acc, a_s.at(s), b_s.at(s));
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

// S3, S4: `wgmma_wait(1)` completes the older of two groups, whose B buffer is then refilled,
// while the younger one keeps running; each half of the accumulator is read once the wgmma that
// writes it is complete.
#[kernel(grid = (M / 64, N / 128))]
fn one_group_in_flight(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 128>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b0_s: Smem<bf16, 64, 64, Swizzle128>,
         b1_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<3>,
         more: Barrier| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, 2 * j]), b0_s, bar);
            copy_gmem_to_smem(b.tile([0, 2 * j + 1]), b1_s, bar);
            barrier_wait(bar);
            wgmma(acc.slice([.., 0..64]), a_s, b0_s);
            wgmma(acc.slice([.., 64..128]), a_s, b1_s);
            wgmma_wait(1);
            copy_gmem_to_smem(b.tile([0, 2 * j + 1]), b0_s, more);
            c.tile([i, 2 * j], [64, 64]).store(acc.slice([.., 0..64]).load());
            wgmma_wait(0);
            c.tile([i, 2 * j + 1], [64, 64]).store(acc.slice([.., 64..128]).load());
            barrier_wait(more);
        },
    );
}

// S5, S6: an epilogue loop through one buffer: each turn waits for the previous turn's TMA store
// to read it before rewriting it, and commits its register stores before the next store.
#[kernel(grid = (M / 64))]
fn epilogue_loop(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let i = program_id(0);
    run_scoped(|y_s: Smem<f32, 64, 64>| {
        for j in 0..N / 64 {
            wait_smem_to_gmem(0);
            y_s.store(x.tile([i, j], [64, 64]).load(Layout::Strided) * 2.0);
            commit_smem();
            copy_smem_to_gmem(y_s, y.tile([i, j]));
        }
        wait_smem_to_gmem(0);
    });
}

// S6: two buffers taking turns: `wait_smem_to_gmem(1)` leaves the store of the second in flight
// and lets the first be rewritten.
#[kernel(grid = (M / 64, N / 192))]
fn two_buffers(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|y_s: Smem<f32, 2, 64, 64>| {
        y_s.at(0).store(x.tile([i, 3 * j], [64, 64]).load(Layout::Strided));
        commit_smem();
        copy_smem_to_gmem(y_s.at(0), y.tile([i, 3 * j]));
        y_s.at(1).store(x.tile([i, 3 * j + 1], [64, 64]).load(Layout::Strided));
        commit_smem();
        copy_smem_to_gmem(y_s.at(1), y.tile([i, 3 * j + 1]));
        wait_smem_to_gmem(1);
        y_s.at(0).store(x.tile([i, 3 * j + 2], [64, 64]).load(Layout::Strided));
        commit_smem();
        copy_smem_to_gmem(y_s.at(0), y.tile([i, 3 * j + 2]));
        wait_smem_to_gmem(0);
    });
}

// S7, S2: warpgroup 0 stores a tile and arrives; warpgroup 1 waits, then reads it. The barrier's
// phase gets the one arrival it is declared with, from the warpgroup that does not wait.
#[kernel(grid = (M / 64, N / 64), warpgroups = 2, warpgroup_axis = wg)]
fn handoff(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(collective_axes = [wg], |buf: Smem<f32, 64, 64>, ready: Barrier| {
        if warpgroup_id() == 0 {
            buf.store(x.tile([i, j], [64, 64]).load(Layout::Strided));
            commit_smem();
            barrier_arrive(ready);
        } else {
            barrier_wait(ready);
            y.tile([i, j], [64, 64]).store(buf.load(Layout::Strided) * 2.0);
        }
    });
}

// S2: two warpgroups' copies add up to the barrier's three arrivals (two from warpgroup 0, one
// from warpgroup 1), and both warpgroups' releases to `done`'s two.
#[kernel(grid = (M / 128, N / 64), warpgroups = 2, warpgroup_axis = wg)]
fn copies_of_two_warpgroups(a: Gmem<f16, M, K>, b: Gmem<f16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let w = warpgroup_id();
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<f16, 2, 64, 64, Swizzle128>, b_s: Smem<f16, 64, 64, Swizzle128>, bar: Barrier<3>, done: Barrier<2>| {
            run_scoped(|acc: Acc<f32, 64, 64>| {
                for k in 0..K / 64 {
                    copy_gmem_to_smem(a.tile([2 * i + w, k]), a_s.at(w), bar);
                    if w == 0 {
                        copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                    }
                    barrier_wait(bar);
                    wgmma(acc, a_s.at(w), b_s);
                    wgmma_wait(0);
                    barrier_arrive(done);
                    barrier_wait(done);
                }
                c.tile([2 * i + w, j]).store(acc.load());
            });
        },
    );
}

// S2: a producer warpgroup copies a tile and never waits; the two consumers each wait once.
#[kernel(grid = (M / 64, N / 64), warpgroups = 3, warpgroup_axis = wg)]
fn one_phase(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(collective_axes = [wg], |x_s: Smem<f32, 64, 64>, loaded: Barrier| {
        if warpgroup_id() == 0 {
            copy_gmem_to_smem(x.tile([i, j]), x_s, loaded);
        } else {
            barrier_wait(loaded);
            let h = warpgroup_id() - 1;
            y.tile([i, j], [64, 64]).store(x_s.load(Layout::Strided) * (h as f32));
        }
    });
}

// S2 in a cluster: each program's release arrives in both programs of the pair, so each phase
// gets the two arrivals `Barrier<2>` declares.
#[kernel(grid = (M / 64, N / 64), cluster = (2, 1))]
fn released_by_the_pair(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, loaded: Barrier, released: Barrier<2>| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, loaded);
        barrier_wait(loaded);
        let v = x_s.load(Layout::Strided);
        barrier_arrive(released, cluster = true);
        barrier_wait(released);
        y.tile([i, j], [64, 64]).store(v);
    });
}

// S1 at run-time indices: each stage is read after the wait on its own barrier, in an order that
// depends on the program.
#[kernel(grid = (M / 64, N / 128))]
fn run_time_order(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 2, 64, 64>, bars: Barrier<1, 2>| {
        copy_gmem_to_smem(x.tile([i, 2 * j]), x_s.at(0), bars.at(0));
        copy_gmem_to_smem(x.tile([i, 2 * j + 1]), x_s.at(1), bars.at(1));
        let first = i % 2;
        barrier_wait(bars.at(first));
        let v = x_s.at(first).load(Layout::Strided);
        barrier_wait(bars.at(1 - first));
        let w = x_s.at(1 - first).load(Layout::Strided);
        y.tile([i, 2 * j], [64, 64]).store(v + w);
    });
}

// S1 on a branch: both paths wait before the read.
#[kernel(grid = (M / 64, N / 64))]
fn wait_on_both_paths(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, scale: f32) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
        let v = if scale > 0.0 {
            barrier_wait(bar);
            x_s.load(Layout::Strided) * scale
        } else {
            barrier_wait(bar);
            x_s.load(Layout::Strided)
        };
        y.tile([i, j], [64, 64]).store(v);
    });
}

fn main() {}
