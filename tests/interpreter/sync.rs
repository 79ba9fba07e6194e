//! Warpgroups, barriers and clusters in the interpreter: a 3-warpgroup producer/consumer GEMM,
//! shared memory handed between warpgroups, multicast in a cluster, and deadlocks reported as
//! errors naming the barriers and warpgroups.

use super::support::*;
use tessel::prelude::*;

/// Warpgroup 0 loads A (128 rows) and B tiles into a 2-stage ring; warpgroups 1 and 2 each
/// multiply 64 rows of A. `full` gets the two TMA arrivals of a stage, `empty` one arrival from
/// each consumer.
#[kernel(grid = (M / 128, N / 64), warpgroups = 3, warpgroup_axis = wg, consts(STAGES = 2, BK = 64))]
fn pc_matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let w = warpgroup_id();
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<bf16, STAGES, 128, BK, Swizzle128>,
         b_s: Smem<bf16, STAGES, BK, 64, Swizzle128>,
         full: Barrier<2, STAGES>,
         empty: Barrier<2, STAGES>| {
            let steps = K / BK;
            if w == 0 {
                for k in 0..steps {
                    let s = k % STAGES;
                    if k >= STAGES {
                        barrier_wait(empty.at(s));
                    }
                    copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), full.at(s));
                    copy_gmem_to_smem(b.tile([k, j]), b_s.at(s), full.at(s));
                }
            } else {
                let out = run_scoped(|acc: Acc<f32, 64, 64>| {
                    for k in 0..steps {
                        let s = k % STAGES;
                        barrier_wait(full.at(s));
                        if w == 1 {
                            wgmma(acc, a_s.at(s).slice([0..64, ..]), b_s.at(s));
                        } else {
                            wgmma(acc, a_s.at(s).slice([64..128, ..]), b_s.at(s));
                        }
                        wgmma_wait(0);
                        barrier_arrive(empty.at(s));
                    }
                    acc.load()
                });
                c.tile([2 * i + w - 1, j]).store(out);
            }
        },
    );
}

#[test]
fn three_warpgroup_producer_consumer_gemm() {
    let (m, k, n) = (256, 384, 128);
    let a = randn::<bf16>(&[m, k], 21, 1.0);
    let b = randn::<bf16>(&[k, n], 22, 1.0);
    let mut c = poisoned::<f32>(&[m, n], f64::NAN);
    pc_matmul::interpret(&a, &b, &mut c).unwrap();
    assert_close("producer/consumer gemm", &values(&c), &matmul_ref(&values(&a), &values(&b), m, k, n, false), 1e-5);
}

/// Warpgroup 0 writes a tile into shared memory and signals; warpgroup 1 waits, reads it back,
/// doubles it and stores it.
#[kernel(grid = (R / 64), warpgroups = 2, warpgroup_axis = wg)]
fn handoff(x: Gmem<f32, R, 32>, y: GmemMut<f32, R, 32>) {
    let i = program_id(0);
    run_scoped(collective_axes = [wg], |buf: Smem<f32, 64, 32>, ready: Barrier| {
        if warpgroup_id() == 0 {
            buf.store(x.tile([i, 0], [64, 32]).load(Layout::Strided));
            commit_smem();
            barrier_arrive(ready);
        } else {
            barrier_wait(ready);
            let v = buf.load(Layout::Strided);
            y.tile([i, 0], [64, 32]).store(v * 2.0);
        }
    });
}

#[test]
fn shared_memory_is_shared_by_the_warpgroups_of_a_program() {
    let x = randn::<f32>(&[256, 32], 23, 1.0);
    let mut y = poisoned::<f32>(&[256, 32], f64::NAN);
    handoff::interpret(&x, &mut y).unwrap();
    let want: Vec<f64> = values(&x).iter().map(|v| v * 2.0).collect();
    assert_same("y", &values(&y), &want);
}

/// Both programs of each cluster multicast the same tile; each then stores what landed in its own
/// buffer, plus its cluster rank.
#[kernel(grid = (2 * T, 1), cluster = (2, 1))]
fn multicast(x: Gmem<f32, T, 64, 32>, y: GmemMut<f32, T, 128, 32>) {
    let p = program_id(0);
    let t = p / 2;
    run_scoped(|buf: Smem<f32, 1, 64, 32>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([t, 0, 0]), buf, bar, multicast = true);
        barrier_wait(bar);
        let v = buf.load(Layout::Strided);
        let r = cluster_rank() as f32;
        y.tile([t, cluster_rank(), 0], [1, 64, 32]).store(v + r);
    });
}

#[test]
fn multicast_lands_in_every_program_of_the_cluster() {
    let x = randn::<f32>(&[3, 64, 32], 24, 1.0);
    let mut y = poisoned::<f32>(&[3, 128, 32], f64::NAN);
    multicast::interpret(&x, &mut y).unwrap();
    let xv = values(&x);
    let mut want = Vec::new();
    for t in 0..3 {
        for rank in 0..2 {
            want.extend(xv[t * 2048..(t + 1) * 2048].iter().map(|v| ((v + rank as f64) as f32) as f64));
        }
    }
    assert_same("y", &values(&y), &want);
}

/// Warpgroup 0 waits on `done.at(1)` and warpgroup 1 on `ready`, which nothing arrives on in this
/// launch. The arrivals in launches of more than 64 programs keep the compile-time check (which
/// rejects a wait that surely never returns) from seeing it: this is the interpreter's to report.
#[kernel(grid = (2), warpgroups = 2, warpgroup_axis = wg)]
fn stuck(y: GmemMut<f32, 64, 64>) {
    run_scoped(collective_axes = [wg], |ready: Barrier, done: Barrier<1, 2>| {
        if num_programs(0) > 64 {
            barrier_arrive(ready);
            barrier_arrive(done.at(1));
        }
        if warpgroup_id() == 0 {
            barrier_arrive(done.at(0));
            barrier_wait(done.at(1));
        } else {
            barrier_wait(done.at(0));
            barrier_wait(ready);
        }
    });
    y.tile([0, 0]).store(splat::<f32>(1.0, [64, 64]));
}

fn interpreter_error(r: Result<()>) -> String {
    match r {
        Err(Error::Interpreter(msg)) => msg,
        other => panic!("expected an interpreter error, got {other:?}"),
    }
}

#[test]
fn a_deadlock_names_the_barriers_and_the_waiting_warpgroups() {
    let mut y = poisoned::<f32>(&[64, 64], f64::NAN);
    let msg = interpreter_error(stuck::interpret(&mut y));
    println!("{msg}");
    assert!(msg.contains("deadlock in `stuck`, program (0, 0, 0)"), "{msg}");
    assert!(msg.contains("warpgroup 0 waits on barrier `done.at(1)` for phase 0"), "{msg}");
    assert!(msg.contains("warpgroup 1 waits on barrier `ready` for phase 0"), "{msg}");
    // Nothing is written back on an error.
    assert!(values(&y).iter().all(|v| v.is_nan()));
}

/// Warpgroup 0 has nothing to wait for, but leaving a scope with barriers is a program-wide
/// barrier (`bar.sync 0`), where it waits for warpgroup 1, which waits for a phase forever (no
/// arrival in a launch of one program, which the compile-time check cannot tell).
#[kernel(grid = (1), warpgroups = 2, warpgroup_axis = wg)]
fn orphan(y: GmemMut<f32, 64, 64>) {
    run_scoped(collective_axes = [wg], |go: Barrier| {
        if num_programs(0) > 64 {
            barrier_arrive(go);
        }
        if warpgroup_id() == 1 {
            barrier_wait(go);
        }
    });
}

#[test]
fn leaving_a_scope_waits_for_every_warpgroup() {
    let mut y = poisoned::<f32>(&[64, 64], f64::NAN);
    let msg = interpreter_error(orphan::interpret(&mut y));
    assert!(msg.contains("warpgroup 0 waits at the program-wide barrier of a `run_scoped`"), "{msg}");
    assert!(msg.contains("(1 of 2 running warpgroup(s) there"), "{msg}");
    assert!(msg.contains("warpgroup 1 waits on barrier `go` for phase 0"), "{msg}");
}

/// Shared memory is reused across scopes: the entry of the second scope waits for both warpgroups
/// to leave the first, so warpgroup 1 reads `first` before warpgroup 0 overwrites it as `second`.
#[kernel(grid = (1), warpgroups = 2, warpgroup_axis = wg)]
fn reuse(x: Gmem<f32, 64, 32>, y: GmemMut<f32, 64, 32>) {
    run_scoped(collective_axes = [wg], |first: Smem<f32, 64, 32>, ready: Barrier| {
        if warpgroup_id() == 0 {
            first.store(x.tile([0, 0], [64, 32]).load(Layout::Strided));
            barrier_arrive(ready);
        } else {
            barrier_wait(ready);
            y.tile([0, 0], [64, 32]).store(first.load(Layout::Strided));
        }
    });
    run_scoped(collective_axes = [wg], |second: Smem<f32, 64, 32>| {
        if warpgroup_id() == 0 {
            second.store(splat::<f32>(0.0, [64, 32]));
        }
    });
}

#[test]
fn scopes_that_reuse_shared_memory_are_ordered() {
    let x = randn::<f32>(&[64, 32], 27, 1.0);
    for _ in 0..20 {
        let mut y = poisoned::<f32>(&[64, 32], f64::NAN);
        reuse::interpret(&x, &mut y).unwrap();
        assert_same("y", &values(&y), &values(&x));
    }
}

/// Two TMA loads complete two phases of a `Barrier<1>`: the first wait's parity then names the
/// third phase, as `mbarrier.try_wait.parity` does on the GPU. (The second load is issued where
/// the grid has fewer than 64 programs along M, as in this test: a count the compile-time check,
/// which rejects a barrier with more arrivals per phase than declared, cannot tell.)
#[kernel(grid = (M / 64, N / 64))]
fn too_many_arrivals(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                if num_programs(0) < 64 {
                    copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                }
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[test]
fn two_loads_on_a_one_arrival_barrier_deadlock_by_parity() {
    let a = randn::<bf16>(&[64, 64], 25, 1.0);
    let b = randn::<bf16>(&[64, 64], 26, 1.0);
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    let msg = interpreter_error(too_many_arrivals::interpret(&a, &b, &mut c));
    assert!(
        msg.contains("warpgroup 0 waits on barrier `bar` for phase 0 (parity 0), but it has completed 2 phase(s)"),
        "{msg}"
    );
    assert!(msg.contains("Declare `Barrier<n>`"), "{msg}");
}
