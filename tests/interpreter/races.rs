//! The interpreter as a race detector. For each kind of race, a kernel whose run-time arguments
//! decide whether it races (an index, a branch, a count: nothing a compile-time check can see),
//! run once without the race, which must compute the right values, and once with it, which must be
//! an `Error::Interpreter` naming both accesses by their place in this file, their program and
//! their warpgroup. Then near misses that must not be reported, and the switch that turns the
//! detector off.

use super::support::*;
use std::time::{Duration, Instant};
use tessel::prelude::*;

/// This file, to check that a message's `races.rs:line:column` points at the right operation.
const SOURCE: &str = include_str!("races.rs");

/// The interpreter's message of a failed run.
fn race_error(r: Result<()>) -> String {
    match r {
        Err(Error::Interpreter(msg)) => msg,
        other => panic!("expected an interpreter error, got {other:?}"),
    }
}

/// The `line:column` places in this file that `msg` names, in order.
fn sites(msg: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (at, tag) in msg.match_indices("tests/interpreter/races.rs:") {
        let rest = &msg[at + tag.len()..];
        let end = rest.find(|c: char| !c.is_ascii_digit() && c != ':').unwrap_or(rest.len());
        let mut parts = rest[..end].split(':').map(|n| n.parse::<usize>().unwrap());
        out.push((parts.next().unwrap(), parts.next().unwrap()));
    }
    out
}

/// The source text from a place on.
fn text_at((line, column): (usize, usize)) -> &'static str {
    &SOURCE.lines().nth(line - 1).unwrap()[column - 1..]
}

/// Asserts that `msg` names exactly two places, which start with `first` and `second` in either
/// order (which access the detector meets second depends on the host threads' timing).
fn assert_sites(msg: &str, first: &str, second: &str) {
    let found = sites(msg);
    assert_eq!(found.len(), 2, "{msg}");
    let (a, b) = (text_at(found[0]), text_at(found[1]));
    let ok = (a.starts_with(first) && b.starts_with(second)) || (a.starts_with(second) && b.starts_with(first));
    assert!(ok, "{msg}\nnames `{a}` and `{b}`, not `{first}` and `{second}`");
}

/// Copies two tiles into two stages, each on a barrier of its own, waits for stage 0 only, and
/// reads stage `read`: stage 1's copy may not have landed.
#[kernel(grid = (1))]
fn read_stage(x: Gmem<f32, 128, 32>, y: GmemMut<f32, 64, 32>, read: i32) {
    run_scoped(|bufs: Smem<f32, 2, 64, 32>, full: Barrier<1, 2>| {
        copy_gmem_to_smem(x.tile([0, 0]), bufs.at(0), full.at(0));
        copy_gmem_to_smem(x.tile([1, 0]), bufs.at(1), full.at(1));
        barrier_wait(full.at(0));
        y.tile([0, 0]).store(bufs.at(read).load(Layout::Strided));
        barrier_wait(full.at(1));
    });
}

#[test]
fn a_read_of_a_stage_whose_copy_was_not_waited_for_is_a_race() {
    let x = randn::<f32>(&[128, 32], 301, 1.0);
    let mut y = poisoned::<f32>(&[64, 32], f64::NAN);
    read_stage::interpret(&x, &mut y, 0).unwrap();
    assert_same("y", &values(&y), &values(&x)[..64 * 32]);
    let msg = race_error(read_stage::interpret(&x, &mut y, 1));
    assert!(msg.contains("data race on shared memory `bufs` (element [1, 0, 0] in stored order)"), "{msg}");
    assert!(msg.contains("reads it while the `copy_gmem_to_smem` at"), "{msg}");
    assert!(msg.contains("(program (0, 0, 0), warpgroup 0)"), "{msg}");
    assert!(msg.contains("Wait on the barrier the copy arrives on (`barrier_wait`)"), "{msg}");
    assert_sites(&msg, "bufs.at(read).load", "copy_gmem_to_smem(x.tile([1, 0])");
}

/// The same for a wgmma's operand: two stages of A on barriers of their own, a wait for stage 0
/// only, and a wgmma on stage `read`.
#[kernel(grid = (1))]
fn wgmma_stage(a: Gmem<bf16, 128, 64>, b: Gmem<bf16, 64, 64>, c: GmemMut<f32, 64, 64>, read: i32) {
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 2, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         full: Barrier<1, 3>| {
            copy_gmem_to_smem(a.tile([0, 0]), a_s.at(0), full.at(0));
            copy_gmem_to_smem(a.tile([1, 0]), a_s.at(1), full.at(1));
            copy_gmem_to_smem(b.tile([0, 0]), b_s, full.at(2));
            barrier_wait(full.at(2));
            barrier_wait(full.at(0));
            wgmma(acc, a_s.at(read), b_s);
            wgmma_wait(0);
            barrier_wait(full.at(1));
            c.tile([0, 0]).store(acc.load());
        },
    );
}

#[test]
fn a_wgmma_of_a_stage_whose_copy_was_not_waited_for_is_a_race() {
    let (a, b) = (randn::<bf16>(&[128, 64], 318, 1.0), randn::<bf16>(&[64, 64], 319, 1.0));
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    wgmma_stage::interpret(&a, &b, &mut c, 0).unwrap();
    let a0 = &values(&a)[..64 * 64];
    assert_close("c", &values(&c), &matmul_ref(a0, &values(&b), 64, 64, 64, false), 1e-5);
    let msg = race_error(wgmma_stage::interpret(&a, &b, &mut c, 1));
    assert!(msg.contains("data race on shared memory `a_s` (element [1, 0, 0] in stored order)"), "{msg}");
    assert!(msg.contains("the `wgmma` at"), "{msg}");
    assert_sites(&msg, "wgmma(acc, a_s.at(read)", "copy_gmem_to_smem(a.tile([1, 0])");
}

/// A `Barrier<2>` for two copies, and one more arrival when `extra` is set: the phase then
/// completes with the first copy, and the wait returns before the second lands.
#[kernel(grid = (1))]
fn extra_arrival(x: Gmem<f32, 128, 32>, y: GmemMut<f32, 64, 32>, extra: i32) {
    run_scoped(|a_s: Smem<f32, 64, 32>, b_s: Smem<f32, 64, 32>, bar: Barrier<2>| {
        if extra != 0 {
            barrier_arrive(bar);
        }
        copy_gmem_to_smem(x.tile([0, 0]), a_s, bar);
        copy_gmem_to_smem(x.tile([1, 0]), b_s, bar);
        barrier_wait(bar);
        y.tile([0, 0]).store(a_s.load(Layout::Strided) + b_s.load(Layout::Strided));
    });
}

fn halves_summed(x: &HostTensor<f32>) -> Vec<f64> {
    let v = values(x);
    (0..64 * 32).map(|i| (v[i] as f32 + v[64 * 32 + i] as f32) as f64).collect()
}

#[test]
fn an_arrival_too_many_lets_the_wait_return_before_the_copy_lands() {
    let x = randn::<f32>(&[128, 32], 302, 1.0);
    let mut y = poisoned::<f32>(&[64, 32], f64::NAN);
    extra_arrival::interpret(&x, &mut y, 0).unwrap();
    assert_same("y", &values(&y), &halves_summed(&x));
    let msg = race_error(extra_arrival::interpret(&x, &mut y, 1));
    assert!(msg.contains("data race on shared memory `b_s`"), "{msg}");
    assert!(msg.contains("a phase with more arrivals than declared completes before the copy lands"), "{msg}");
    assert_sites(&msg, "b_s.load", "copy_gmem_to_smem(x.tile([1, 0])");
}

/// A `Barrier<2>` that gets `copies` copies: with one, its phase never completes.
#[kernel(grid = (1))]
fn too_few(x: Gmem<f32, 128, 32>, y: GmemMut<f32, 64, 32>, copies: i32) {
    run_scoped(|bufs: Smem<f32, 2, 64, 32>, bar: Barrier<2>| {
        for c in 0..copies {
            copy_gmem_to_smem(x.tile([c, 0]), bufs.at(c), bar);
        }
        barrier_wait(bar);
        y.tile([0, 0]).store(bufs.at(0).load(Layout::Strided) + bufs.at(1).load(Layout::Strided));
    });
}

#[test]
fn an_arrival_too_few_is_an_error_not_a_hang() {
    let x = randn::<f32>(&[128, 32], 303, 1.0);
    let mut y = poisoned::<f32>(&[64, 32], f64::NAN);
    too_few::interpret(&x, &mut y, 2).unwrap();
    assert_same("y", &values(&y), &halves_summed(&x));
    let start = Instant::now();
    let msg = race_error(too_few::interpret(&x, &mut y, 1));
    assert!(start.elapsed() < Duration::from_secs(5), "the deadlock took {:?} to report", start.elapsed());
    assert!(
        msg.contains(
            "warpgroup 0 waits on barrier `bar` for phase 0 (parity 0), but it has completed 0 phase(s) and has 1 of \
             2 arrival(s)"
        ),
        "{msg}"
    );
}

/// A GEMM that waits for each step's wgmma only while `k < waited`: the next step's copies then
/// overwrite operands the wgmma may still read.
#[kernel(grid = (M / 64, N / 64))]
fn unwaited(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>, waited: i32) {
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
                if k < waited {
                    wgmma_wait(0);
                }
            }
            wgmma_wait(0);
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[test]
fn an_operand_overwritten_while_a_wgmma_may_read_it_is_a_race() {
    let (m, k, n) = (64, 192, 64);
    let (a, b) = (randn::<bf16>(&[m, k], 304, 1.0), randn::<bf16>(&[k, n], 305, 1.0));
    let mut c = poisoned::<f32>(&[m, n], f64::NAN);
    unwaited::interpret(&a, &b, &mut c, 3).unwrap();
    assert_close("c", &values(&c), &matmul_ref(&values(&a), &values(&b), m, k, n, false), 1e-5);
    let msg = race_error(unwaited::interpret(&a, &b, &mut c, 1));
    assert!(msg.contains("data race on shared memory `a_s`"), "{msg}");
    assert!(msg.contains("while the `wgmma` at"), "{msg}");
    assert!(msg.contains("Wait for the wgmma (`wgmma_wait`) before issuing the `copy_gmem_to_smem`"), "{msg}");
    assert_sites(&msg, "copy_gmem_to_smem(a.tile", "wgmma(acc, a_s, b_s)");
}

/// Reads the accumulator after a `wgmma_wait` only when `wait` is set.
#[kernel(grid = (1))]
fn early_acc(a: Gmem<bf16, 64, 64>, b: Gmem<bf16, 64, 64>, c: GmemMut<f32, 64, 64>, wait: i32) {
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            copy_gmem_to_smem(a.tile([0, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, 0]), b_s, bar);
            barrier_wait(bar);
            wgmma(acc, a_s, b_s);
            if wait != 0 {
                wgmma_wait(0);
            }
            c.tile([0, 0]).store(acc.load());
            wgmma_wait(0);
        },
    );
}

#[test]
fn an_accumulator_read_with_its_wgmma_in_flight_is_a_race() {
    let (a, b) = (randn::<bf16>(&[64, 64], 306, 1.0), randn::<bf16>(&[64, 64], 307, 1.0));
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    early_acc::interpret(&a, &b, &mut c, 1).unwrap();
    assert_close("c", &values(&c), &matmul_ref(&values(&a), &values(&b), 64, 64, 64, false), 1e-5);
    let msg = race_error(early_acc::interpret(&a, &b, &mut c, 0));
    assert!(msg.contains("data race on accumulator `acc`"), "{msg}");
    assert!(msg.contains("(program (0, 0, 0), warpgroup 0) reads it while the same warpgroup's `wgmma` at"), "{msg}");
    assert!(msg.contains("Call `wgmma_wait(0)` before the accumulator is read"), "{msg}");
    assert_sites(&msg, "acc.load()", "wgmma(acc, a_s, b_s)");
}

/// Stores registers into a buffer and copies it out by TMA, with the fence only when `fence` is
/// set.
#[kernel(grid = (1))]
fn unfenced_store(x: Gmem<f32, 64, 32>, y: GmemMut<f32, 64, 32>, fence: i32) {
    run_scoped(|buf: Smem<f32, 64, 32>| {
        buf.store(x.tile([0, 0], [64, 32]).load(Layout::Strided) * 2.0);
        if fence != 0 {
            commit_smem();
        }
        copy_smem_to_gmem(buf, y.tile([0, 0]));
        wait_smem_to_gmem(0);
    });
}

#[test]
fn a_tma_store_of_register_stores_without_commit_smem_is_a_race() {
    let x = randn::<f32>(&[64, 32], 308, 1.0);
    let mut y = poisoned::<f32>(&[64, 32], f64::NAN);
    unfenced_store::interpret(&x, &mut y, 1).unwrap();
    let want: Vec<f64> = values(&x).iter().map(|v| v * 2.0).collect();
    assert_same("y", &values(&y), &want);
    let msg = race_error(unfenced_store::interpret(&x, &mut y, 0));
    assert!(msg.contains("and nothing orders the two for the async proxy"), "{msg}");
    assert!(msg.contains("call `commit_smem()` after them, before the `copy_smem_to_gmem`"), "{msg}");
    assert_sites(&msg, "copy_smem_to_gmem(buf", "buf.store(");
}

/// A's tile goes through registers into shared memory, fenced only when `fence` is set, and a
/// wgmma reads it (the async proxy, like a TMA store).
#[kernel(grid = (1))]
fn through_registers(a: Gmem<bf16, 64, 64>, b: Gmem<bf16, 64, 64>, c: GmemMut<f32, 64, 64>, fence: i32) {
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier| {
            copy_gmem_to_smem(b.tile([0, 0]), b_s, bar);
            a_s.store(a.tile([0, 0], [64, 64]).load(Layout::Wgmma));
            if fence != 0 {
                commit_smem();
            }
            barrier_wait(bar);
            wgmma(acc, a_s, b_s);
            wgmma_wait(0);
            c.tile([0, 0]).store(acc.load());
        },
    );
}

#[test]
fn a_wgmma_of_register_stores_without_commit_smem_is_a_race() {
    let (a, b) = (randn::<bf16>(&[64, 64], 309, 1.0), randn::<bf16>(&[64, 64], 310, 1.0));
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    through_registers::interpret(&a, &b, &mut c, 1).unwrap();
    assert_close("c", &values(&c), &matmul_ref(&values(&a), &values(&b), 64, 64, 64, false), 1e-5);
    let msg = race_error(through_registers::interpret(&a, &b, &mut c, 0));
    assert!(msg.contains("call `commit_smem()` after them, before the `wgmma`"), "{msg}");
    assert_sites(&msg, "wgmma(acc, a_s, b_s)", "a_s.store(");
}

/// Writes `R / 64` tiles out through one buffer by TMA store, waiting for the previous store to
/// read the buffer only from step `drained` on.
#[kernel(grid = (1))]
fn rewritten(x: Gmem<f32, R, 32>, y: GmemMut<f32, R, 32>, drained: i32) {
    run_scoped(|buf: Smem<f32, 64, 32>| {
        for t in 0..R / 64 {
            if t >= drained {
                wait_smem_to_gmem(0);
            }
            buf.store(x.tile([t, 0], [64, 32]).load(Layout::Strided));
            commit_smem();
            copy_smem_to_gmem(buf, y.tile([t, 0]));
        }
        wait_smem_to_gmem(0);
    });
}

#[test]
fn a_buffer_rewritten_while_a_tma_store_reads_it_is_a_race() {
    let x = randn::<f32>(&[192, 32], 311, 1.0);
    let mut y = poisoned::<f32>(&[192, 32], f64::NAN);
    rewritten::interpret(&x, &mut y, 0).unwrap();
    assert_same("y", &values(&y), &values(&x));
    let msg = race_error(rewritten::interpret(&x, &mut y, 2));
    assert!(msg.contains("data race on shared memory `buf`"), "{msg}");
    assert!(msg.contains("while the `copy_smem_to_gmem` at"), "{msg}");
    assert!(msg.contains("Wait for the TMA store to read its source (`wait_smem_to_gmem`) before the access"), "{msg}");
    assert_sites(&msg, "buf.store(", "copy_smem_to_gmem(buf");
}

/// Each warpgroup writes its own slab, then reads slab `peek` (warpgroup 0) or its own
/// (warpgroup 1), with no barrier between them: warpgroup 0 reading slab 1 races with its writer.
#[kernel(grid = (1), warpgroups = 2, warpgroup_axis = wg)]
fn peek(x: Gmem<f32, 64, 32>, y: GmemMut<f32, 128, 32>, peek: i32) {
    run_scoped(collective_axes = [wg], |bufs: Smem<f32, 2, 64, 32>| {
        let w = warpgroup_id();
        bufs.at(w).store(x.tile([0, 0], [64, 32]).load(Layout::Strided) + w as f32);
        let from = if w == 0 { peek } else { 1 };
        y.tile([w, 0], [64, 32]).store(bufs.at(from).load(Layout::Strided));
    });
}

#[test]
fn warpgroups_sharing_memory_without_a_barrier_race() {
    let x = randn::<f32>(&[64, 32], 312, 1.0);
    let mut y = poisoned::<f32>(&[128, 32], f64::NAN);
    peek::interpret(&x, &mut y, 0).unwrap();
    let want: Vec<f64> =
        (0..2).flat_map(|w| values(&x).into_iter().map(move |v| (v as f32 + w as f32) as f64)).collect();
    assert_same("y", &values(&y), &want);
    let msg = race_error(peek::interpret(&x, &mut y, 1));
    assert!(msg.contains("data race on shared memory `bufs` (element [1, 0, 0] in stored order)"), "{msg}");
    assert!(msg.contains("warpgroup 0)") && msg.contains("warpgroup 1)"), "{msg}");
    assert!(msg.contains("Order the warpgroups with a barrier"), "{msg}");
    assert_sites(&msg, "bufs.at(from).load", "bufs.at(w).store");
}

/// Programs take turns at one output tile: each but the first waits for its predecessor's signal
/// (unless it is program `skip`), adds its tile of `x` in, and signals its successor.
#[kernel(grid = (P))]
fn take_turns(x: Gmem<f32, R, 32>, y: GmemMut<f32, 64, 32>, sems: GmemMut<u32, P>, skip: i32) {
    let p = program_id(0);
    if p > 0 && p != skip {
        semaphore_wait(sems, p);
    }
    let mine = x.tile([p, 0], [64, 32]).load(Layout::Strided);
    if p == 0 {
        y.tile([0, 0], [64, 32]).store(mine);
    } else {
        y.tile([0, 0], [64, 32]).store(y.tile([0, 0], [64, 32]).load(Layout::Strided) + mine);
    }
    if p + 1 < num_programs(0) {
        semaphore_signal(sems, p + 1);
    }
}

#[test]
fn programs_sharing_global_memory_without_a_semaphore_race() {
    let x = randn::<f32>(&[256, 32], 313, 1.0);
    let xv = values(&x);
    let want: Vec<f64> =
        (0..64 * 32).map(|i| (0..4).fold(0.0f32, |s, p| s + xv[p * 64 * 32 + i] as f32) as f64).collect();
    let mut y = poisoned::<f32>(&[64, 32], f64::NAN);
    let mut sems = HostTensor::<u32>::zeros([4]).unwrap();
    // The semaphores order every program's read and write of `y` after its predecessor's.
    take_turns::interpret(&x, &mut y, &mut sems, -1).unwrap();
    assert_same("y", &values(&y), &want);
    assert_eq!(sems.data(), &[0, 0, 0, 0]);
    let msg = race_error(take_turns::interpret(&x, &mut y, &mut sems, 2));
    assert!(msg.contains("data race on global memory `y`"), "{msg}");
    // Program 2 skips its wait, so programs 0 and 1 are unordered with 2 and with 3 (which 2
    // signals). Threads decide which of those pairs is met first; any of them is the race.
    let names = |ps: [i32; 2]| ps.iter().any(|p| msg.contains(&format!("program ({p}, 0, 0)")));
    assert!(names([0, 1]) && names([2, 3]), "{msg}");
    assert!(msg.contains("Order the programs with a semaphore"), "{msg}");
    assert_eq!(sites(&msg).len(), 2, "{msg}");
}

#[test]
fn with_the_detector_off_a_racy_kernel_reads_what_has_landed() {
    let x = randn::<f32>(&[128, 32], 314, 1.0);
    let mut y = poisoned::<f32>(&[64, 32], 0.0);
    // The second copy arrives in a phase that never completes: its bytes never land, and the
    // buffer reads as uninitialised shared memory (NaN), as the GPU might read garbage.
    tessel::with_race_check(false, || extra_arrival::interpret(&x, &mut y, 1)).unwrap();
    assert!(values(&y).iter().all(|v| v.is_nan()));
    // The setting is restored after the closure.
    assert!(extra_arrival::interpret(&x, &mut y, 1).is_err());
}

/// Near misses: warpgroup 0 stores registers into a buffer and fences them (`commit_smem`) before
/// its arrival; warpgroup 1 waits, then both warpgroups read the buffer, warpgroup 1 by TMA store
/// and warpgroup 0 by register load, with no barrier between the two reads.
#[kernel(grid = (1), warpgroups = 2, warpgroup_axis = wg)]
fn fenced_handoff(x: Gmem<f32, 64, 32>, y: GmemMut<f32, 64, 32>, z: GmemMut<f32, 64, 32>) {
    run_scoped(collective_axes = [wg], |buf: Smem<f32, 64, 32>, ready: Barrier| {
        if warpgroup_id() == 0 {
            buf.store(x.tile([0, 0], [64, 32]).load(Layout::Strided) * 3.0);
            commit_smem();
            barrier_arrive(ready);
            z.tile([0, 0], [64, 32]).store(buf.load(Layout::Strided));
        } else {
            barrier_wait(ready);
            copy_smem_to_gmem(buf, y.tile([0, 0]));
            wait_smem_to_gmem(0);
        }
    });
}

#[test]
fn a_fence_before_the_arrival_orders_register_stores_before_another_warpgroups_tma_store() {
    let x = randn::<f32>(&[64, 32], 315, 1.0);
    let want: Vec<f64> = values(&x).iter().map(|v| (v * 3.0) as f32 as f64).collect();
    for _ in 0..10 {
        let (mut y, mut z) = (poisoned::<f32>(&[64, 32], f64::NAN), poisoned::<f32>(&[64, 32], f64::NAN));
        fenced_handoff::interpret(&x, &mut y, &mut z).unwrap();
        assert_same("y", &values(&y), &want);
        assert_same("z", &values(&z), &want);
    }
}

/// Near miss: a wgmma writes the left half of the accumulator while the right half, which no
/// wgmma in flight writes, is read and stored.
#[kernel(grid = (1))]
fn other_half(a: Gmem<bf16, 64, 64>, b: Gmem<bf16, 64, 64>, c: GmemMut<f32, 64, 128>) {
    run_scoped(
        |acc: Acc<f32, 64, 128>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            copy_gmem_to_smem(a.tile([0, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, 0]), b_s, bar);
            barrier_wait(bar);
            wgmma(acc.slice([.., 0..64]), a_s, b_s);
            c.tile([0, 1], [64, 64]).store(acc.slice([.., 64..128]).load());
            wgmma_wait(0);
            c.tile([0, 0], [64, 64]).store(acc.slice([.., 0..64]).load());
        },
    );
}

#[test]
fn reading_the_half_of_an_accumulator_no_wgmma_in_flight_writes_is_no_race() {
    let (a, b) = (randn::<bf16>(&[64, 64], 316, 1.0), randn::<bf16>(&[64, 64], 317, 1.0));
    let mut c = poisoned::<f32>(&[64, 128], f64::NAN);
    other_half::interpret(&a, &b, &mut c).unwrap();
    let product = matmul_ref(&values(&a), &values(&b), 64, 64, 64, false);
    let (got, mut left) = (values(&c), Vec::new());
    for r in 0..64 {
        left.extend_from_slice(&got[r * 128..r * 128 + 64]);
        assert!(got[r * 128 + 64..(r + 1) * 128].iter().all(|&v| v == 0.0), "the right half is not zero");
    }
    assert_close("left half", &left, &product, 1e-5);
}
